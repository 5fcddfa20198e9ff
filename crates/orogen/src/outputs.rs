use std::path::Path;

use orogen_export::atomic::OutDir;
use orogen_export::heights;
use orogen_export::sidecar::HeightMapping;
use orogen_export::sidecar::WorldJson;
use orogen_world::World;

use crate::{Config, Error};

/// Chaikin rounds applied to river polylines when drawing `rivers.png`.
const RIVER_SMOOTHING: usize = 2;

/// Writes every output of a world into `dir`, each through a temporary name and a rename, and
/// `world.json` last (listing the others). Returns the names written.
pub fn write_outputs(world: &World, config: &Config, dir: &Path) -> Result<Vec<String>, Error> {
    let mut out = OutDir::create(dir)?;
    let config_json = serde_json::to_value(config).expect("a config always serialises");
    if config.export.save_world {
        let text = serde_json::to_string(&config_json).expect("JSON values serialise");
        out.write("world.npz", |w| Ok(world.write_npz(w, &text)?))?;
    }
    // Rivers (hydrology): an 8-bit antialiased mask at the heightmap's size.
    if world.has_layer("rivers") {
        let grid = orogen_export::grid::PixelGrid::centres(
            config.export.resolution,
            world.meta.width,
            world.meta.height,
        )?;
        let mask = orogen_export::rivers::river_mask(world, &grid, RIVER_SMOOTHING)?;
        out.write("rivers.png", |w| {
            orogen_export::png::write_gray8(w, mask.view())
        })?;
    }
    if world.has_mesh() {
        let nx = config.export.resolution;
        out.write("mesh.png", |w| orogen_export::mesh_png(w, world, nx))?;
    }
    let range = heights::range_m(&[], &world.meta, config.export.normalize);
    let files = out.files().to_vec();
    let sidecar = WorldJson {
        orogen_version: env!("CARGO_PKG_VERSION"),
        seed: world.meta.seed,
        config: &config_json,
        sampling: None,
        height_mapping: HeightMapping::new(&world.meta, config.export.normalize, range),
        files: &files,
    };
    out.write("world.json", |w| sidecar.write(w))?;
    Ok(out.files().to_vec())
}
