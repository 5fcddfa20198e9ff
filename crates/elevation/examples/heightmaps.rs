//! Heightmaps without a mesh: a diamond-square terrain and an fBm noise raster, both
//! normalised to [0, 1] and blended into a heightmap of your own.
//!
//! `cargo run -p orogen-elevation --example heightmaps`

use std::error::Error;

use orogen_elevation::raster::{fbm_raster, normalize01};
use orogen_elevation::{DiamondSquare, FbmParams};

pub fn main() -> Result<(), Box<dyn Error>> {
    // Diamond-square on a (2^7 + 1)^2 grid; the same seed gives the same terrain.
    let ds = DiamondSquare {
        levels: 7,
        ..DiamondSquare::default()
    };
    let mut terrain = ds.generate(42)?;
    assert_eq!(terrain, ds.generate(42)?);
    normalize01(&mut terrain);

    // fBm noise sampled at the same grid vertices over a 1 x 1 map (unit = its shorter side).
    let n = ds.side();
    let step = 1.0 / (n - 1) as f64;
    let fbm = FbmParams::default();
    let noise = fbm_raster(&fbm, 42, 1.0, n, n, (0.0, 0.0), (step, step))?;

    // Blend them: broad shapes from diamond-square, detail from the noise.
    let height = &terrain * 0.7 + &noise * 0.3;
    assert!(height.iter().all(|h| (0.0..=1.0).contains(h)));

    println!("{n} x {n} heightmap, seed 42 (# high, . low):");
    for row in (0..n).step_by(n / 16) {
        let line: String = (0..n)
            .step_by(n / 32)
            .map(|col| match height[[row, col]] {
                h if h > 0.6 => '#',
                h if h > 0.45 => '+',
                _ => '.',
            })
            .collect();
        println!("  {line}");
    }
    Ok(())
}
