//! The raster kernels against a real DEM with reference results (`shared/data/dem/`, beside the
//! repository: see its README). Four independent implementations agree on `filled.npy`.

use std::path::PathBuf;

use ndarray::{Array2, ArrayView2};
use ndarray_npy::read_npy;
use orogen_hydrology::raster;

/// `../shared/data/dem` next to the repository root, or `None` when this checkout has no
/// shared data beside it (a failure under CI, a loud skip elsewhere).
fn data_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("../shared/data/dem");
    orogen_world::testing::require(
        dir.join("jacksboro_fault_dem.npy").is_file(),
        "reference_dem",
        &format!("the reference DEM ({})", dir.display()),
        "put the shared data (shared/data/dem) beside the repository",
    )
    .then_some(dir)
}

fn load<T: ndarray_npy::ReadableElement>(dir: &std::path::Path, suffix: &str) -> Array2<T> {
    let path = dir.join(format!("jacksboro_fault_dem{suffix}.npy"));
    read_npy(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn differing_bits(a: ArrayView2<'_, f32>, b: ArrayView2<'_, f32>) -> usize {
    assert_eq!(a.dim(), b.dim());
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.to_bits() != y.to_bits())
        .count()
}

/// The values of the 3x3 block around an interior cell.
fn around(z: ArrayView2<'_, f32>, r: usize, c: usize) -> impl Iterator<Item = f32> + '_ {
    (r - 1..=r + 1).flat_map(move |nr| (c - 1..=c + 1).map(move |nc| z[[nr, nc]]))
}

fn is_interior(rows: usize, cols: usize, r: usize, c: usize) -> bool {
    r > 0 && c > 0 && r + 1 < rows && c + 1 < cols
}

/// True when the cell is a border cell or touches NoData.
fn is_outlet(dem: ArrayView2<'_, f32>, r: usize, c: usize) -> bool {
    let (rows, cols) = dem.dim();
    !is_interior(rows, cols, r, c) || around(dem, r, c).any(|v| v.is_nan())
}

fn has_strictly_lower_neighbour(z: ArrayView2<'_, f32>, r: usize, c: usize) -> bool {
    around(z, r, c).any(|v| v < z[[r, c]])
}

#[test]
fn fill_equals_the_reference_bit_for_bit() {
    let Some(dir) = data_dir() else { return };
    let dem: Array2<f32> = load(&dir, "");
    let expected: Array2<f32> = load(&dir, ".filled");
    let filled = raster::fill(dem.view()).unwrap();
    assert_eq!(differing_bits(filled.view(), expected.view()), 0);
    // The data is not trivial: the README's 6,373 raised cells.
    let raised = filled.iter().zip(&dem).filter(|(f, d)| f > d).count();
    assert_eq!(raised, 6373);
}

#[test]
fn fill_of_the_dem_shifted_below_zero_is_the_shifted_reference() {
    let Some(dir) = data_dir() else { return };
    let dem: Array2<f32> = load(&dir, "");
    let expected: Array2<f32> = load(&dir, ".filled");
    // Integer metres minus 2000 are exact in f32, so the shift commutes with the fill.
    let shifted = dem.mapv(|z| z - 2000.0);
    assert!(shifted.iter().all(|&z| z < 0.0));
    let filled = raster::fill(shifted.view()).unwrap();
    let expected = expected.mapv(|z| z - 2000.0);
    assert_eq!(differing_bits(filled.view(), expected.view()), 0);
}

#[test]
fn d8_on_the_epsilon_reference_equals_the_reference_receivers() {
    let Some(dir) = data_dir() else { return };
    let eps: Array2<f32> = load(&dir, ".eps");
    let expected: Array2<i8> = load(&dir, ".d8s");
    let d8 = raster::d8_receivers(eps.view());
    let differing = d8.iter().zip(&expected).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0);
}

#[test]
fn accumulation_on_the_reference_receivers_equals_the_reference() {
    let Some(dir) = data_dir() else { return };
    let d8s: Array2<i8> = load(&dir, ".d8s");
    let expected: Array2<f64> = load(&dir, ".facc_s");
    let acc = raster::flow_accumulation(d8s.view()).unwrap();
    assert_eq!(acc, expected);
    assert_eq!(acc.iter().copied().fold(0.0, f64::max), 43_498.0);
}

#[test]
fn own_epsilon_fill_drains_every_interior_cell_and_is_at_least_the_fill() {
    let Some(dir) = data_dir() else { return };
    let dem: Array2<f32> = load(&dir, "");
    let filled = raster::fill(dem.view()).unwrap();
    let eps = raster::fill_epsilon(dem.view()).unwrap();
    let (rows, cols) = dem.dim();
    for r in 1..rows - 1 {
        for c in 1..cols - 1 {
            assert!(
                has_strictly_lower_neighbour(eps.view(), r, c),
                "({r}, {c}) has no strictly lower neighbour"
            );
        }
    }
    assert!(eps.iter().zip(&filled).all(|(e, f)| e >= f));
    // And then D8 gives every interior cell a receiver, and all the water reaches the border.
    let d8 = raster::d8_receivers(eps.view());
    assert!(
        d8.indexed_iter()
            .all(|((r, c), &k)| k != 0 || !is_interior(rows, cols, r, c))
    );
    let acc = raster::flow_accumulation(d8.view()).unwrap();
    let border: f64 = acc
        .indexed_iter()
        .filter(|((r, c), _)| !is_interior(rows, cols, *r, *c))
        .map(|(_, a)| a)
        .sum();
    assert_eq!(border, (rows * cols) as f64);
}

#[test]
fn a_nodata_hole_drains_into_its_rim() {
    let Some(dir) = data_dir() else { return };
    let dem: Array2<f32> = load(&dir, "");
    let reference: Array2<f32> = load(&dir, ".filled");
    // Punch a 5x5 hole at the deepest point of the deepest filled depression.
    let ((pr, pc), _) = reference
        .indexed_iter()
        .map(|(idx, f)| (idx, f - dem[idx]))
        .fold(
            ((0, 0), 0.0f32),
            |best, x| if x.1 > best.1 { x } else { best },
        );
    let mut holed = dem.clone();
    for r in pr - 2..=pr + 2 {
        for c in pc - 2..=pc + 2 {
            holed[[r, c]] = f32::NAN;
        }
    }

    let filled = raster::fill(holed.view()).unwrap();
    let (rows, cols) = dem.dim();
    let mut rim = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let z = holed[[r, c]];
            if z.is_nan() {
                assert!(filled[[r, c]].is_nan(), "NoData stays NoData");
                continue;
            }
            assert!(
                filled[[r, c]] <= reference[[r, c]],
                "an extra outlet never raises"
            );
            if is_outlet(holed.view(), r, c) && is_interior(rows, cols, r, c) {
                rim.push([r, c]);
                assert_eq!(filled[[r, c]], z, "rim cells are outlets: never raised");
            }
        }
    }
    assert_eq!(rim.len(), 24);
    // The depression that held the hole drains into it now: cells it raised are no longer raised.
    let drained = reference
        .indexed_iter()
        .filter(|&(idx, f)| *f > dem[idx] && !holed[idx].is_nan() && filled[idx] == dem[idx])
        .count();
    assert!(drained > 0);

    let eps = raster::fill_epsilon(holed.view()).unwrap();
    let d8 = raster::d8_receivers(eps.view());
    let acc = raster::accumulate_dem(eps.view()).unwrap();
    let mut into_rim = 0.0;
    for [r, c] in &rim {
        assert_eq!(d8[[*r, *c]], 0, "rim cells have no receiver");
        into_rim += acc[[*r, *c]];
    }
    // Water from outside the rim ends there; nothing drains into the hole itself.
    assert!(into_rim > rim.len() as f64, "nothing drains into the rim");
    for ((r, c), &code) in d8.indexed_iter() {
        if let Some(target) = raster::receiver_of(r, c, code, rows, cols) {
            assert!(!holed[target].is_nan(), "({r}, {c}) drains into NoData");
        }
    }
    let valid = holed.iter().filter(|z| !z.is_nan()).count() as f64;
    let at_outlets: f64 = acc
        .iter()
        .zip(&d8)
        .filter(|(a, k)| !a.is_nan() && **k == 0)
        .map(|(a, _)| a)
        .sum();
    assert_eq!(
        at_outlets, valid,
        "every valid cell reaches exactly one outlet"
    );
}

#[test]
fn one_and_two_threads_give_the_same_bytes() {
    let Some(dir) = data_dir() else { return };
    let dem: Array2<f32> = load(&dir, "");
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let eps = raster::fill_epsilon(dem.view()).unwrap();
                let d8 = raster::d8_receivers(eps.view());
                let acc = raster::flow_accumulation(d8.view()).unwrap();
                (eps, d8, acc)
            })
    };
    let (eps1, d81, acc1) = run(1);
    let (eps2, d82, acc2) = run(2);
    assert_eq!(differing_bits(eps1.view(), eps2.view()), 0);
    assert_eq!(d81, d82);
    assert!(
        acc1.iter()
            .zip(&acc2)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
}
