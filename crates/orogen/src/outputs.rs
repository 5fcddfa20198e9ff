use std::path::Path;

use orogen_export::atomic::OutDir;
use orogen_export::grid::PixelGrid;
use orogen_export::heightmap;
use orogen_export::heights;
use orogen_export::sidecar::HeightMapping;
use orogen_export::sidecar::SamplingJson;
use orogen_export::sidecar::WorldJson;
use orogen_export::{colormap, png};
use orogen_world::World;

use crate::{Config, Error};

/// Writes every output of a world into `dir`, each through a temporary name and a rename, and
/// `world.json` last (listing the others). Returns the names written.
pub fn write_outputs(world: &World, config: &Config, dir: &Path) -> Result<Vec<String>, Error> {
    let mut out = OutDir::create(dir)?;
    let config_json = serde_json::to_value(config).expect("a config always serialises");
    if config.export.save_world {
        let text = serde_json::to_string(&config_json).expect("JSON values serialise");
        out.write("world.npz", |w| Ok(world.write_npz(w, &text)?))?;
    }
    if world.has_layer("region_biome") {
        write_biome_outputs(world, config, &mut out)?;
    }
    if world.has_mesh() {
        let nx = config.export.resolution;
        out.write("mesh.png", |w| orogen_export::mesh_png(w, world, nx))?;
    }
    let mut sampling = None;
    let mut height_mapping = None;
    if world.has_layer("region_elevation") {
        let grid = PixelGrid::centres(
            config.export.resolution,
            world.meta.width,
            world.meta.height,
        )?;
        height_mapping = Some(heightmap::write_heightmap(
            &mut out,
            world,
            &grid,
            config.export.normalize,
        )?);
        sampling = Some(SamplingJson::from(&grid));
    }
    let height_mapping = match height_mapping {
        Some(m) => m,
        None => {
            let range = heights::range_m(&[], &world.meta, config.export.normalize);
            HeightMapping::new(&world.meta, config.export.normalize, range)
        }
    };
    if world.has_layer("region_elevation") && world.has_layer("corner_elevation") {
        write_3d_outputs(world, config, &mut out)?;
    }
    let files = out.files().to_vec();
    let sidecar = WorldJson {
        orogen_version: env!("CARGO_PKG_VERSION"),
        seed: world.meta.seed,
        config: &config_json,
        sampling,
        height_mapping,
        files: &files,
    };
    out.write("world.json", |w| sidecar.write(w))?;
    Ok(out.files().to_vec())
}

/// The colour map options of this config (the biome palette's water colours).
fn colormap_options(config: &Config) -> colormap::ColormapOptions {
    let palette = &config.biome.palette;
    colormap::ColormapOptions {
        water: colormap::WaterColors {
            shallow: palette.shallow_ocean,
            deep: palette.deep_ocean,
            lake: palette.lake,
            river: palette.river,
        },
        hillshade: false,
        rivers: true,
    }
}

/// `world.glb` (when asked) and `preview3d.png` (by default).
fn write_3d_outputs(world: &World, config: &Config, out: &mut OutDir) -> Result<(), Error> {
    let colors = Some(colormap_options(config));
    if config.export.glb {
        let options = config.export.glb_options(colors);
        orogen_export::gltf::write_glb(out, world, &options)?;
    }
    if config.export.preview3d {
        let options = config.export.preview_options(colors);
        orogen_export::preview3d::write_preview3d(out, world, &options)?;
    }
    Ok(())
}

/// `colormap.png` (the article's blended biome colours, rivers, optional hillshade) and
/// `biomes.png` (one flat colour per biome; legend in the README).
fn write_biome_outputs(world: &World, config: &Config, out: &mut OutDir) -> Result<(), Error> {
    let grid = PixelGrid::centres(
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?;
    let palette = &config.biome.palette;
    let options = colormap::ColormapOptions {
        water: colormap::WaterColors {
            shallow: palette.shallow_ocean,
            deep: palette.deep_ocean,
            lake: palette.lake,
            river: palette.river,
        },
        hillshade: config.export.hillshade,
        rivers: true,
    };
    let image = colormap::colormap(world, &grid, &options)?;
    out.write("colormap.png", |w| png::write_rgb8(w, image.view()))?;
    drop(image);
    let flat = colormap::biome_map(world, &grid, &palette.by_id())?;
    out.write("biomes.png", |w| png::write_rgb8(w, flat.view()))?;
    Ok(())
}
