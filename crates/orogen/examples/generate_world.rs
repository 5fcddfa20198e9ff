//! A whole world from a program: the pipeline's configuration, every stage in order, then the
//! files the `orogen` command writes.
//!
//! `cargo run -p orogen --example generate_world -- [OUT_DIR]`
//!
//! Without an argument the files go to a temporary folder that is removed afterwards.

use std::error::Error;
use std::path::PathBuf;

use orogen::{Config, Output, generate, write_outputs};
use orogen_world::ids::Biome;

pub fn main() -> Result<(), Box<dyn Error>> {
    let mut config = Config::default();
    config.world.seed = 2026;
    config.world.cells = 3_000;
    config.export.resolution = 256;
    config.export.outputs = vec![Output::Colormap, Output::Heightmap, Output::Npz];

    // Every parameter is checked before any work; an error names its config path and range.
    let world = generate(&config)?;
    let biomes = world.view1::<u8>("region_biome")?;
    let land = biomes
        .iter()
        .filter(|&&b| Biome::from_id(b).is_some_and(|b| !b.is_water()))
        .count();
    assert!(
        land > 0 && land < biomes.len(),
        "an island world has land and sea"
    );

    let (dir, temporary) = match std::env::args().nth(1) {
        Some(arg) => (PathBuf::from(arg), false),
        None => (
            std::env::temp_dir().join(format!("world-{}", std::process::id())),
            true,
        ),
    };
    let files = write_outputs(&world, &config, &dir)?;
    assert!(files.iter().any(|f| f == "colormap.png"));
    println!(
        "seed {}: {} regions, {:.0}% land; wrote {files:?} to {}",
        config.world.seed,
        biomes.len(),
        100.0 * land as f64 / biomes.len() as f64,
        dir.display()
    );
    if temporary {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}
