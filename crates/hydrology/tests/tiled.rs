//! The tiled kernels give the same bytes as the single-grid ones: on random grids with NoData
//! for random tile sizes and thread counts, and on the reference DEM (`shared/data/dem`).

use std::path::PathBuf;

use ndarray::Array2;
use ndarray_npy::read_npy;
use orogen_hydrology::raster::{self, RasterError, tiled};
use proptest::prelude::*;

fn bits(a: &Array2<f32>) -> Vec<u32> {
    a.iter().map(|v| v.to_bits()).collect()
}

fn bits64(a: &Array2<f64>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits()).collect()
}

/// A random DEM: `levels` distinct heights (few levels make flats and wide depressions; 0 as
/// +0.0 or -0.0), with NoData where `holes` says, in blobs or scattered.
fn dem_strategy() -> impl Strategy<Value = Array2<f32>> {
    (1usize..40, 1usize..40, 1u32..30, 0usize..3, any::<u64>()).prop_map(
        |(rows, cols, levels, holes, seed)| {
            let mut state = seed;
            let mut next = move || {
                state = orogen_world::seed::splitmix64(state);
                state
            };
            Array2::from_shape_fn((rows, cols), |_| {
                let h = next();
                let nodata = match holes {
                    0 => false,
                    1 => h % 17 == 0,
                    _ => h % 5 == 0,
                };
                if nodata {
                    f32::NAN
                } else {
                    // Zeros of both signs: raised cells must not take the sign of whichever
                    // cell the flood came from.
                    let z = ((h >> 8) % u64::from(levels)) as f32 * 0.5 - 3.0;
                    if z == 0.0 && h & 1 == 1 { -0.0 } else { z }
                }
            })
        },
    )
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn tiled_fill_d8_and_accumulation_are_the_single_grid_bytes(
        dem in dem_strategy(),
        tile in (1usize..12, 1usize..12),
        threads in 1usize..4,
    ) {
        let filled = raster::fill(dem.view()).unwrap();
        let tiled_fill = in_pool(threads, || tiled::fill_tiled(dem.view(), tile)).unwrap();
        prop_assert_eq!(bits(&tiled_fill), bits(&filled));
        // In place, the count of raised cells without a copy of the grid.
        let mut in_place = dem.clone();
        let raised = in_pool(threads, || tiled::fill::fill_tiled_in_place(&mut in_place, tile)).unwrap();
        prop_assert_eq!(raised, filled.iter().zip(&dem).filter(|(f, d)| f > d).count());
        prop_assert_eq!(bits(&in_place), bits(&filled));

        // D8 on the filled DEM (flats stay sinks; the epsilon fill is not tiled) and on the DEM.
        for z in [&filled, &dem] {
            let d8 = raster::d8_receivers(z.view());
            prop_assert_eq!(&in_pool(threads, || tiled::d8_receivers_tiled(z.view(), tile)).unwrap(), &d8);
        }
        let d8 = raster::d8_receivers(dem.view());
        let acc = raster::flow_accumulation(d8.view()).unwrap();
        let tiled_acc = in_pool(threads, || tiled::flow_accumulation_tiled(d8.view(), tile)).unwrap();
        prop_assert_eq!(bits64(&tiled_acc), bits64(&acc));
        let acc_dem = raster::accumulate_dem(dem.view()).unwrap();
        let tiled_acc_dem = in_pool(threads, || tiled::accumulate_dem_tiled(dem.view(), tile)).unwrap();
        prop_assert_eq!(bits64(&tiled_acc_dem), bits64(&acc_dem));
    }

    /// Random receiver codes (most invalid or cyclic): the same refusal as the single grid.
    #[test]
    fn tiled_accumulation_refuses_what_the_single_grid_refuses(
        rows in 1usize..12,
        cols in 1usize..12,
        tile in (1usize..6, 1usize..6),
        seed in any::<u64>(),
        valid_only in any::<bool>(),
    ) {
        let mut state = seed;
        let codes = Array2::from_shape_fn((rows, cols), |(r, c)| {
            state = orogen_world::seed::splitmix64(state);
            let code = (state % 9) as i8;
            if valid_only && raster::receiver_of(r, c, code, rows, cols).is_none() { 0 } else { code }
        });
        let single = raster::flow_accumulation(codes.view());
        let tiled = tiled::flow_accumulation_tiled(codes.view(), tile);
        prop_assert_eq!(single.map(|a| bits64(&a)), tiled.map(|a| bits64(&a)));
    }
}

#[test]
fn bad_tile_sizes_are_refused() {
    let dem = Array2::<f32>::zeros((4, 4));
    assert_eq!(
        tiled::fill_tiled(dem.view(), (0, 3)),
        Err(RasterError::BadTile {
            tile_rows: 0,
            tile_cols: 3
        })
    );
    assert!(tiled::fill_tiled(dem.view(), (16_385, 3)).is_err());
    assert!(tiled::fill_tiled(dem.view(), (16_384, 16_384)).is_ok());
}

fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/dem");
    if dir.join("jacksboro_fault_dem.npy").is_file() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!(
            "reference DEM missing at {}: CI needs shared/data/dem beside the repository",
            dir.display()
        );
    } else {
        eprintln!(
            "\n!!!!!!!! SKIPPED: reference DEM data not found at {} !!!!!!!!\n",
            dir.display()
        );
        None
    }
}

#[test]
fn tiled_results_on_the_reference_dem_are_the_reference_bytes() {
    let Some(dir) = data_dir() else { return };
    let load_f32 = |s: &str| -> Array2<f32> {
        read_npy(dir.join(format!("jacksboro_fault_dem{s}.npy"))).unwrap()
    };
    let dem = load_f32("");
    let expected = load_f32(".filled");
    let eps = load_f32(".eps");
    let d8s: Array2<i8> = read_npy(dir.join("jacksboro_fault_dem.d8s.npy")).unwrap();
    let facc: Array2<f64> = read_npy(dir.join("jacksboro_fault_dem.facc_s.npy")).unwrap();
    // With a NoData hole and a NoData band, the single-grid fill is the reference to match.
    let mut holed = dem.clone();
    tiled::window_mut(holed.view_mut(), (100, 150), (40, 80)).fill(f32::NAN);
    holed.column_mut(300).fill(f32::NAN);
    let holed_fill = raster::fill(holed.view()).unwrap();
    for tile in [
        (1, 1),
        (7, 13),
        (64, 64),
        (100, 37),
        (344, 403),
        (1000, 1000),
    ] {
        for threads in [1, 2] {
            let filled = in_pool(threads, || tiled::fill_tiled(dem.view(), tile)).unwrap();
            assert_eq!(bits(&filled), bits(&expected), "fill, tile {tile:?}");
            let filled = in_pool(threads, || tiled::fill_tiled(holed.view(), tile)).unwrap();
            assert_eq!(
                bits(&filled),
                bits(&holed_fill),
                "holed fill, tile {tile:?}"
            );
            let d8 = in_pool(threads, || tiled::d8_receivers_tiled(eps.view(), tile)).unwrap();
            assert_eq!(d8, d8s, "d8, tile {tile:?}");
            let acc =
                in_pool(threads, || tiled::flow_accumulation_tiled(d8s.view(), tile)).unwrap();
            assert_eq!(bits64(&acc), bits64(&facc), "accumulation, tile {tile:?}");
        }
    }
}
