//! Classify elevation and moisture arrays of your own into Whittaker biomes, and colour them
//! with the blurred biome colour table.
//!
//! `cargo run -p orogen-biome --example classify_own_arrays`
//!
//! Elevation here is an island on a 128 x 128 grid in the conventions' stored range (land in
//! (0, 1], water below 0), moisture a west-to-east gradient; bring any arrays of one length.

use std::error::Error;

use ndarray::Array2;
use orogen_biome::{ColorTable, Palette, Whittaker, classify_regions};
use orogen_world::ids::{Biome, water};

pub fn main() -> Result<(), Box<dyn Error>> {
    let n = 128;
    let elevation = Array2::from_shape_fn((n, n), |(row, col)| {
        let (x, y) = (col as f32 / n as f32 - 0.5, row as f32 / n as f32 - 0.5);
        1.0 - 2.5 * (x * x + y * y).sqrt() // 1 at the summit, below 0 towards the corners
    });
    let moisture = Array2::from_shape_fn((n, n), |(_, col)| col as f32 / (n - 1) as f32);
    let water_kind = elevation.mapv(|e| if e < 0.0 { water::OCEAN } else { water::LAND });

    // Each cell is a "region": the kernel takes plain slices of one length.
    let table = Whittaker::default();
    table.validate()?;
    let biomes = classify_regions(
        &table,
        elevation.as_slice().ok_or("standard layout")?,
        moisture.as_slice().ok_or("standard layout")?,
        water_kind.as_slice().ok_or("standard layout")?,
    );

    let mut counts = [0usize; Biome::COUNT];
    for &id in &biomes {
        counts[id as usize] += 1;
    }
    assert_eq!(Biome::from_id(biomes[0]), Some(Biome::Ocean)); // a corner is sea
    assert_eq!(Biome::from_id(biomes[n / 2 * n + n / 2]), Some(Biome::Snow)); // the summit
    for (biome, count) in Biome::ALL.iter().zip(counts) {
        if count > 0 {
            println!(
                "{:>10}: {:5.1}%",
                biome.name(),
                100.0 * count as f64 / biomes.len() as f64
            );
        }
    }

    // Smooth colours for a map: the blurred table looked up at (elevation, moisture).
    let colors = ColorTable::build(&table, &Palette::default(), 8.0);
    let rgb = colors.lookup(0.3, 0.8);
    assert!(rgb.iter().all(|c| (0.0..=1.0).contains(c)));
    println!("land at elevation 0.3, moisture 0.8 is drawn as RGB {rgb:.2?}");
    Ok(())
}
