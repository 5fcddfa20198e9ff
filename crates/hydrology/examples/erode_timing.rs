//! Times `erosion::erode_grid` on a raster, as `tools/erosion/fastscapelib_run.py` times
//! fastscapelib (the same arguments, I/O excluded, best of R runs), so the two can run
//! alternately in one session:
//!
//! `cargo run --release -p orogen-hydrology --example erode_timing -- IN.npy OUT.npy DX K M N DT
//! STEPS UPLIFT [R]`
//!
//! With IN.npy = `synthetic:ROWSxCOLS` a rough dome of that size, drained by `erosion::drain` and jittered below its step,
//! is used (and written to OUT.npy's folder as `z0.npy` for the other tool).

use std::time::Instant;

use ndarray::Array2;
use orogen_hydrology::erosion::{self, Mode, Params, erode_grid};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let f = |i: usize| a[i].parse::<f64>().unwrap();
    let z0: Array2<f64> = if let Some(size) = a[0].strip_prefix("synthetic:") {
        let (rows, cols) = size.split_once('x').unwrap();
        let (rows, cols): (usize, usize) = (rows.parse().unwrap(), cols.parse().unwrap());
        let z = Array2::from_shape_fn((rows, cols), |(r, c)| {
            let y = r as f64 / (rows - 1) as f64 - 0.5;
            let x = c as f64 / (cols - 1) as f64 - 0.5;
            let hash = (r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (c as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            let noise =
                (hash.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            100.0 * (1.0 - 2.0 * (x * x + y * y)) + 10.0 * noise
        });
        let g = erosion::Grid {
            rows,
            cols,
            dx: f(2),
            dy: f(2),
        };
        let flat: Vec<f64> = z.iter().copied().collect();
        let mut h = erosion::drain(&g, &flat, &g.border(), 1e-3);
        // Jitter below the drain's step: no ties on its flats, still no pits.
        for (i, v) in h.iter_mut().enumerate() {
            let hash = (i as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D);
            *v += (hash >> 11) as f64 / (1u64 << 53) as f64 * 1e-4;
        }
        let z = Array2::from_shape_vec((rows, cols), h).unwrap();
        let dir = std::path::Path::new(&a[1]).parent().unwrap();
        ndarray_npy::write_npy(dir.join("z0.npy"), &z).unwrap();
        z
    } else {
        ndarray_npy::read_npy(&a[0]).unwrap()
    };
    let params = Params {
        mode: Mode::Transient,
        k: f(3),
        m: f(4),
        n: f(5),
        dt: f(6),
        steps: a[7].parse().unwrap(),
        uplift: f(8),
        diffusion: 0.0,
        ..Params::default()
    };
    let repeat: usize = a.get(9).map_or(1, |r| r.parse().unwrap());
    let uplift = Array2::from_elem(z0.dim(), params.uplift);
    let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    let mut out = None;
    for _ in 0..repeat {
        let (t, c) = (Instant::now(), cpu_seconds());
        let (z, stats) = erode_grid(z0.view(), uplift.view(), f(2), f(2), &params).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        best_cpu = best_cpu.min(cpu_seconds() - c);
        eprintln!("{stats:?}");
        out = Some(z);
    }
    ndarray_npy::write_npy(&a[1], &out.unwrap()).unwrap();
    println!("seconds_per_run={best:.4} cpu_seconds_per_run={best_cpu:.4}");
}

/// User + system CPU seconds of this process so far (`/proc/self/stat`, 100 ticks a second).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
