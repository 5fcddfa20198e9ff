//! Place trees on a density map of your own and grow their models by space colonisation.
//!
//! `cargo run -p orogen-flora --example trees_on_density_map`
//!
//! The map here is 500 x 500 m: dense forest in the west, sparse meadow in the east and a
//! pond where nothing grows, as a 50 x 50 raster of trees per square metre.

use std::error::Error;

use ndarray::Array2;
use orogen_flora::{GrowthParams, PACKING, default_species, grow_models};
use orogen_sampling::{Rect, poisson_disc_masked};
use orogen_world::seed;

pub fn main() -> Result<(), Box<dyn Error>> {
    let (size, cells) = (500.0, 50);
    let (forest, meadow) = (0.01, 0.001); // trees per m^2
    let density = Array2::from_shape_fn((cells, cells), |(row, col)| {
        let (x, y) = ((col as f64 + 0.5) * 10.0, (row as f64 + 0.5) * 10.0);
        if (x - 350.0).hypot(y - 250.0) < 60.0 {
            0.0
        } else if x < 250.0 {
            forest
        } else {
            meadow
        }
    });
    let density_at = |p: [f64; 2]| {
        let col = ((p[0] / 10.0) as usize).min(cells - 1);
        let row = ((p[1] / 10.0) as usize).min(cells - 1);
        density[[row, col]]
    };

    // A disc of radius sqrt(PACKING / density) around each tree gives that density.
    let radius = |p: [f64; 2]| {
        let d = density_at(p);
        (d > 0.0).then(|| (PACKING / d).sqrt())
    };
    let r_min = (PACKING / forest).sqrt();
    let mut rng = seed::stage_rng(7, "flora");
    let map = Rect::from_size(size, size)?;
    let trees = poisson_disc_masked(&mut rng, map, r_min, 20.0, radius, |_| true)?;

    let west = trees.iter().filter(|(p, _)| p[0] < 250.0).count() as f64;
    let east = trees.len() as f64 - west;
    assert!(
        trees.iter().all(|&(p, _)| density_at(p) > 0.0),
        "none in the pond"
    );
    // The expected count of each half: its density summed over its 10 x 10 m cells.
    let half = |west: bool| -> f64 {
        let cells_of_half = density
            .indexed_iter()
            .filter(|((_, col), _)| (*col < cells / 2) == west);
        cells_of_half.map(|(_, d)| d).sum::<f64>() * 100.0
    };
    for (count, expected) in [(west, half(true)), (east, half(false))] {
        assert!(
            (count / expected - 1.0).abs() < 0.25,
            "{count} trees, {expected} expected"
        );
    }

    // Three models each of two species, grown once and shared by every tree.
    let species = &default_species()[..2];
    let models = grow_models(species, &GrowthParams::default(), 3, 7)?;
    assert!(models.iter().all(|m| m.skeleton_3d.nodes.len() > 10));
    let model_of = |i: usize| seed::item_seed(7, i as u64) as usize % models.len();
    let first = &models[model_of(0)];
    println!(
        "{} trees ({west} west, {east} east); {} models; tree 0 at ({:.1}, {:.1}) is a {} of {} \
         branch nodes",
        trees.len(),
        models.len(),
        trees[0].0[0],
        trees[0].0[1],
        species[first.species as usize].name,
        first.skeleton_3d.nodes.len(),
    );
    Ok(())
}
