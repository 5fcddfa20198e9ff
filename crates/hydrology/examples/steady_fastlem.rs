//! Times the steady state of fastlem 0.1.4 (`TerrainGenerator::generate`) and of
//! `erosion::steady_state` on the same problem (`tests/fastlem_setup`: fastlem's model of N
//! relaxed sites, its graph and outlets, one initial surface, m = 0.5, n = 1), alternately,
//! best of R runs each, model building excluded, and prints both, their ratio and how far the
//! two surfaces are apart:
//!
//! `cargo run --release -p orogen-hydrology --example steady_fastlem -- N [R]`

#[path = "../tests/fastlem_setup/mod.rs"]
mod fastlem_setup;

use std::time::Instant;

use fastlem_setup::{largest_difference, problem};
use orogen_hydrology::erosion::Mesh;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(50_000, |a| a.parse().expect("N"));
    let repeat: usize = args.get(1).map_or(3, |a| a.parse().expect("R"));
    let p = problem(n, 7);
    let mesh = Mesh::new(&p.offsets, &p.targets, &p.xy, 1.0).expect("the CSR graph");
    let (mut best_theirs, mut best_ours) = (f64::INFINITY, f64::INFINITY);
    let (mut theirs, mut ours, mut steps) = (Vec::new(), Vec::new(), 0);
    for _ in 0..repeat {
        let generator = fastlem_setup::fastlem(&p);
        let t = Instant::now();
        let terrain = generator.generate().expect("fastlem's terrain");
        best_theirs = best_theirs.min(t.elapsed().as_secs_f64());
        theirs = terrain.elevations().to_vec();
        let t = Instant::now();
        let (h, stats) = fastlem_setup::orogen(&p, &mesh);
        best_ours = best_ours.min(t.elapsed().as_secs_f64());
        (ours, steps) = (h, stats.steps);
    }
    let (largest, relief) = largest_difference(&theirs, &ours);
    // A fingerprint of orogen's surface, to tell two builds' results apart.
    let fingerprint = ours.iter().fold(0u64, |acc, v| {
        acc.rotate_left(5) ^ v.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15)
    });
    println!(
        "sites={} fastlem_s={best_theirs:.4} orogen_s={best_ours:.4} ratio={:.2} \
         orogen_routings={steps} relief_m={relief:.3} largest_difference_m={largest:.3e} \
         orogen_fingerprint={fingerprint:016x}",
        p.h0.len(),
        best_theirs / best_ours,
    );
}
