use std::path::Path;

use orogen_export::atomic::OutDir;
use orogen_export::grid::PixelGrid;
use orogen_export::heightmap;
use orogen_export::heights;
use orogen_export::sidecar::HeightMapping;
use orogen_export::sidecar::SamplingJson;
use orogen_export::sidecar::WorldJson;
use orogen_export::{colormap, geojson, png};
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
    if world.has_layer("region_biome") {
        write_biome_outputs(world, config, &mut out)?;
    }
    if world.has_mesh() {
        let nx = config.export.resolution;
        out.write("mesh.png", |w| orogen_export::mesh_png(w, world, nx))?;
    }
    let mut sampling = None;
    let mut height_mapping = None;
    if config.preset == crate::Preset::Classic {
        sampling = Some(write_landscape(world, config, &mut out)?);
    }
    if world.has_layer("region_elevation") {
        let grid = raster_grid(world, config)?;
        height_mapping = Some(heightmap::write_heightmaps(
            &mut out,
            world,
            &grid,
            config.export.normalize,
            config.export.engine,
        )?);
        sampling = Some(SamplingJson::from(&grid));
        // Rivers (hydrology): an 8-bit antialiased mask at the heightmap's size.
        if world.has_layer("rivers") {
            let mask = orogen_export::rivers::river_mask(world, &grid, RIVER_SMOOTHING)?;
            out.write("rivers.png", |w| {
                orogen_export::png::write_gray8(w, mask.view())
            })?;
        }
    }
    // Engine terrain layers: splat maps per biome group.
    if world.has_mesh() {
        let grid = raster_grid(world, config)?;
        orogen_export::splat::write_layers(&mut out, world, &grid)?;
    }
    if config.export.geojson && world.has_mesh() {
        out.write(geojson::FILE, |w| geojson::write_geojson(w, world))?;
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
    let grid = raster_grid(world, config)?;
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

/// `landscape.png`: the classic raster landscape, `export.resolution` pixels wide.
fn write_landscape(
    world: &World,
    config: &Config,
    out: &mut OutDir,
) -> Result<SamplingJson, Error> {
    let grid = PixelGrid::centres(
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?;
    let image = orogen_export::landscape::landscape(world, &grid, &config.classic.paint)?;
    out.write("landscape.png", |w| png::write_rgb8(w, image.view()))?;
    Ok(SamplingJson::from(&grid))
}

/// The grid of every heightmap-sized raster (heightmaps, colour and biome maps, splat maps, the
/// river mask): the engine's, over the world's map.
fn raster_grid(world: &World, config: &Config) -> Result<PixelGrid, Error> {
    Ok(config.export.engine.grid(
        config.export.heightmap_size(),
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?)
}

/// Reads a world saved with `--save-world` (`world.npz`) and the configuration it was made
/// with, so [`write_outputs`] regenerates its files.
pub fn read_world(path: &Path) -> Result<(World, Config), Error> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::Config {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let (world, config_json) = World::read_npz(std::io::BufReader::new(file))?;
    let config: Config = serde_json::from_str(&config_json).map_err(|e| Error::Config {
        path: shown,
        message: format!("the saved configuration: {e}"),
    })?;
    Ok((world, config))
}
