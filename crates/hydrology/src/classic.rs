//! The classic landscape's rivers as a pipeline step: [`trace_rivers`] on `raster_elevation`.

use ndarray::Array1;
use orogen_world::{Domain, Layer, World, seed};

use crate::Error;
use crate::raster::{TraceParams, trace_rivers};

/// The name of the stage's seed: `stage_rng(world_seed, "hydrology")`.
pub const STAGE: &str = "hydrology";

/// Reads `raster_elevation` (Raster f32) and writes `classic_rivers`: a Free ragged u32 layer,
/// one list per river, each value a cell index `row * cols + col` of the raster, from the source
/// down. Sources and paths are [`trace_rivers`]'s, drawn from the stage's Xoshiro256++.
pub fn run_classic(world: &mut World, params: &TraceParams) -> Result<(), Error> {
    params.validate()?;
    let dem = world.view2::<f32>("raster_elevation")?;
    let cols = dem.ncols();
    let mut rng = seed::stage_rng(world.meta.seed, STAGE);
    let rivers = trace_rivers(dem, params, &mut rng)?;
    let mut offsets = vec![0u32];
    let mut cells = Vec::new();
    for river in &rivers {
        cells.extend(river.iter().map(|&[r, c]| (r * cols + c) as u32));
        offsets.push(cells.len() as u32);
    }
    world.insert_layer(
        "classic_rivers",
        Layer::ragged(
            Domain::Free,
            Array1::from(offsets),
            Array1::from(cells).into_dyn(),
        ),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use orogen_world::WorldMeta;

    #[test]
    fn rivers_are_written_as_cell_lists_that_descend() {
        let n = 33;
        let dem = Array2::from_shape_fn((n, n), |(r, c)| {
            let (x, y) = (c as f32 / 32.0 - 0.5, r as f32 / 32.0 - 0.5);
            1.0 - (x * x + y * y) * 1.8 + 0.01 * ((r * 5 + c * 3) % 7) as f32
        });
        let mut world = World::new(WorldMeta::default());
        let params = TraceParams::default();
        assert!(
            run_classic(&mut world, &params).is_err(),
            "needs the raster"
        );
        world
            .set_layer("raster_elevation", Domain::Raster, dem.clone().into_dyn())
            .unwrap();
        run_classic(&mut world, &params).unwrap();
        let offsets = world.offsets("classic_rivers").unwrap().to_vec();
        let cells = world.view1::<u32>("classic_rivers").unwrap();
        assert_eq!(offsets.len(), params.count + 1);
        let flat = dem.as_slice().unwrap();
        for w in offsets.windows(2) {
            let river = &cells.as_slice().unwrap()[w[0] as usize..w[1] as usize];
            assert!(flat[river[0] as usize] >= params.source_min);
            for pair in river.windows(2) {
                assert!(flat[pair[1] as usize] < flat[pair[0] as usize]);
            }
        }
        let bad = TraceParams {
            max_steps: 0,
            ..TraceParams::default()
        };
        let err = run_classic(&mut world, &bad).unwrap_err();
        assert!(err.to_string().contains("max_steps = 0"), "{err}");
    }
}
