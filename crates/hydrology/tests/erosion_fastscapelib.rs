//! Side by side with fastscapelib (`pip install fastscapelib`): the same raster, parameters and
//! steps through `tools/erosion/fastscapelib_run.py` (RasterGrid, FlowGraph with
//! SingleFlowRouter and PFloodSinkResolver, SPLEroder) and through `erosion::erode_grid`.

use std::path::PathBuf;
use std::process::Command;

use ndarray::Array2;
use orogen_hydrology::erosion::{self, Mode, Params, erode_grid};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

fn fastscapelib_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import fastscapelib, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "fastscapelib is missing: pip install fastscapelib numpy"
        );
        eprintln!("SKIPPED: fastscapelib is missing (pip install fastscapelib numpy)");
    }
    ok
}

/// A rough initial surface: a dome plus seeded noise, in metres, drained
/// ([`erosion::drain`], 1 mm steps, then jittered by up to 0.1 mm) so that both programs start on the same steepest-descent
/// network rather than on their own (different) ways through the noise's pits.
fn initial(rows: usize, cols: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let z: Vec<f64> = (0..rows * cols)
        .map(|i| {
            let y = (i / cols) as f64 / (rows - 1) as f64 - 0.5;
            let x = (i % cols) as f64 / (cols - 1) as f64 - 0.5;
            let noise = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            100.0 * (1.0 - 2.0 * (x * x + y * y)) + 10.0 * noise
        })
        .collect();
    let g = erosion::Grid {
        rows,
        cols,
        dx: 100.0,
        dy: 100.0,
    };
    let mut h = erosion::drain(&g, &z, &g.border(), 1e-3);
    // Jitter below the drain's step breaks the ties of its flats (and keeps every cell above
    // the cell it drains to), so steepest descent has one answer.
    for v in &mut h {
        *v += (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 1e-4;
    }
    Array2::from_shape_vec((rows, cols), h).unwrap()
}

#[test]
fn elevations_agree_with_fastscapelib_within_one_percent_of_relief() {
    if !fastscapelib_ready() {
        return;
    }
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/erosion/fastscapelib_run.py");
    let dir = std::env::temp_dir().join(format!("orogen-erosion-fsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for &(n, steps) in &[(1.0, 100usize), (1.5, 50)] {
        let z0 = initial(120, 150, 7);
        let (input, output) = (dir.join("z0.npy"), dir.join("z1.npy"));
        ndarray_npy::write_npy(&input, &z0).unwrap();
        let params = Params {
            mode: Mode::Transient,
            k: 2e-5,
            m: 0.4,
            n,
            uplift: 1e-3,
            diffusion: 0.0,
            dt: 2e4,
            steps,
            ..Params::default()
        };
        let out = Command::new("python3")
            .arg(&script)
            .args([input.to_str().unwrap(), output.to_str().unwrap()])
            .args([
                "--dx",
                "100",
                "--k",
                "2e-5",
                "--m",
                "0.4",
                "--n",
                &n.to_string(),
            ])
            .args([
                "--dt",
                "2e4",
                "--steps",
                &steps.to_string(),
                "--uplift",
                "1e-3",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs: Array2<f64> = ndarray_npy::read_npy(&output).unwrap();
        let uplift = Array2::from_elem(z0.dim(), 1e-3);
        let (ours, stats) = erode_grid(z0.view(), uplift.view(), 100.0, 100.0, &params).unwrap();
        let relief = theirs.iter().copied().fold(f64::MIN, f64::max)
            - theirs.iter().copied().fold(f64::MAX, f64::min);
        let worst = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let mean = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / ours.len() as f64;
        eprintln!(
            "n = {n}: relief {relief:.1} m, largest difference {worst:.3e} m ({:.2e}%), mean {mean:.3e} m, {stats:?}",
            100.0 * worst / relief
        );
        assert!(relief > 100.0, "{relief}");
        assert!(worst <= 0.01 * relief, "{worst} of {relief}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
