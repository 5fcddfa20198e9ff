//! The default land fraction on real worlds: seeds 1..10 at 50,000 cells (the mesh stage's
//! defaults), by area, with the default elevation parameters.
//!
//! `cargo run --release -p orogen-elevation --example land_fraction [perlin|simplex]`

use orogen_elevation::{Basis, Params};
use orogen_world::{World, WorldMeta};

fn main() {
    let mut params = Params::default();
    if std::env::args().nth(1).as_deref() == Some("simplex") {
        params.fbm.noise = Basis::Simplex;
    }
    let mut fractions = Vec::new();
    for seed in 1..=10u64 {
        let mut w = World::new(WorldMeta {
            seed,
            ..WorldMeta::default()
        });
        orogen_mesh::run(&mut w, &orogen_mesh::Params::default(), 50_000).unwrap();
        orogen_elevation::run(&mut w, &params).unwrap();
        let e = w.view1::<f32>("region_elevation").unwrap();
        let area = w.view1::<f64>("region_area").unwrap();
        let land: f64 = e
            .iter()
            .zip(area.iter())
            .filter(|(v, _)| **v > 0.0)
            .map(|(_, a)| a)
            .sum();
        let f = land / area.sum();
        println!("seed {seed:2}: land {:.1}%", f * 100.0);
        fractions.push(f);
    }
    let mean = fractions.iter().sum::<f64>() / fractions.len() as f64;
    println!("mean {:.1}%", mean * 100.0);
}
