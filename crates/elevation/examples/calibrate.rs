//! How the fBm contrast was pinned: the land fraction of seeds 1..10 at the default water level
//! (0.35) and random anchors, over a 224 x 224 grid of points, for a range of contrasts.
//!
//! `cargo run --release -p orogen-elevation --example calibrate [perlin|simplex]`

use orogen_elevation::{Basis, Fbm, FbmParams, Params, anchors};
use orogen_world::seed;

fn main() {
    let basis = match std::env::args().nth(1).as_deref() {
        Some("simplex") => Basis::Simplex,
        _ => Basis::Perlin,
    };
    let n = 224;
    let pts: Vec<[f64; 2]> = (0..n * n)
        .map(|i| {
            [
                ((i % n) as f64 + 0.5) / n as f64,
                ((i / n) as f64 + 0.5) / n as f64,
            ]
        })
        .collect();
    let params = Params::default();
    let fbm_params = FbmParams {
        noise: basis,
        ..FbmParams::default()
    };
    let mut per_seed = Vec::new();
    let mut all_raw = Vec::new();
    for world_seed in 1..=10u64 {
        let stage_seed = seed::stage_seed(world_seed, orogen_elevation::STAGE);
        let mut rng = seed::rng_from_seed(stage_seed);
        let a =
            anchors::place(params.layout, params.land_centers, &[], 1.0, 1.0, &mut rng).unwrap();
        let fbm = Fbm::new(&fbm_params, seed::item_seed(stage_seed, 0), 1.0).unwrap();
        let raw: Vec<(f64, f64)> = pts
            .iter()
            .map(|p| (fbm.raw(p[0], p[1]), anchors::falloff(p[0], p[1], &a, 0.5)))
            .collect();
        all_raw.extend(raw.iter().map(|r| r.0));
        per_seed.push(raw);
    }
    let mean = all_raw.iter().sum::<f64>() / all_raw.len() as f64;
    let sd =
        (all_raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / all_raw.len() as f64).sqrt();
    println!("{basis:?}: raw fbm mean {mean:.4} sd {sd:.4}");
    for k in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2] {
        let fr: Vec<f64> = per_seed
            .iter()
            .map(|raw| {
                raw.iter()
                    .filter(|(r, f)| (0.5 + k * r).clamp(0.0, 1.0) - f > 0.35)
                    .count() as f64
                    / raw.len() as f64
            })
            .collect();
        let m = fr.iter().sum::<f64>() / fr.len() as f64;
        let lo = fr.iter().copied().fold(1.0, f64::min);
        let hi = fr.iter().copied().fold(0.0, f64::max);
        println!(
            "contrast {k:.2}: mean land {:.1}%  min {:.1}%  max {:.1}%",
            m * 100.0,
            lo * 100.0,
            hi * 100.0
        );
    }
}
