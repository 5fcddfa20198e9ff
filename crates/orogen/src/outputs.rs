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

/// Writes every output of a world into `dir`: each is staged under a temporary name, then all
/// are renamed into place together, `world.json` (listing the others) last, so an interrupted
/// run leaves the previous outputs as they were. Returns the names written.
pub fn write_outputs(world: &World, config: &Config, dir: &Path) -> Result<Vec<String>, Error> {
    use crate::Output::*;
    let wanted = config.outputs()?;
    let wants = |output| wanted.contains(&output);
    let mut out = OutDir::create(dir)?;
    let config_json = serde_json::to_value(config).expect("a config always serialises");
    if wants(Npz) {
        let text = serde_json::to_string(&config_json).expect("JSON values serialise");
        out.write("world.npz", |w| Ok(world.write_npz(w, &text)?))?;
    }
    if world.has_layer("region_biome") {
        write_biome_outputs(world, config, wants(Colormap), wants(Biomes), &mut out)?;
    }
    if world.has_mesh() && wants(Mesh) {
        let nx = config.export.resolution;
        out.write("mesh.png", |w| orogen_export::mesh_png(w, world, nx))?;
    }
    let mut sampling = None;
    let mut height_mapping = None;
    if config.preset == crate::Preset::Classic && wants(Landscape) {
        sampling = Some(write_landscape(world, config, &mut out)?);
    }
    if world.has_layer("region_elevation") {
        let grid = raster_grid(world, config)?;
        let files = heightmap::HeightmapFiles {
            png: wants(Heightmap),
            r16: wants(R16),
            exr: wants(Exr),
        };
        if files.png || files.r16 || files.exr {
            height_mapping = Some(heightmap::write_heightmaps(
                &mut out,
                world,
                &grid,
                config.export.normalize,
                config.export.engine,
                files,
            )?);
        }
        sampling = Some(SamplingJson::from(&grid));
        // Rivers (hydrology): an 8-bit antialiased mask at the heightmap's size.
        if world.has_layer("rivers") && wants(Rivers) {
            let mask = orogen_export::rivers::river_mask(
                world,
                &grid,
                &orogen_export::stroke::StrokeStyle::default(),
            )?;
            out.write("rivers.png", |w| {
                orogen_export::png::write_gray8(w, mask.view())
            })?;
        }
    }
    // Engine terrain layers: splat maps per biome group.
    if world.has_mesh() && wants(Splat) {
        let grid = raster_grid(world, config)?;
        orogen_export::splat::write_layers(&mut out, world, &grid)?;
    }
    if world.has_mesh() && wants(Geojson) {
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
        let colors = Some(colormap_options(config));
        if wants(Glb) {
            let options = config.export.glb_options(colors);
            orogen_export::gltf::write_glb(&mut out, world, &options)?;
        }
        if wants(Preview3d) {
            let options = config.export.preview_options(colors);
            orogen_export::preview3d::write_preview3d(&mut out, world, &options)?;
        }
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
    Ok(out.commit()?)
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
        // The 3-D outputs light the terrain themselves.
        hillshade: 0.0,
        rivers: true,
    }
}

/// `colormap.png` (the article's blended biome colours, relief shading, rivers) and
/// `biomes.png` (one flat colour per biome; legend in the README), those asked for.
fn write_biome_outputs(
    world: &World,
    config: &Config,
    colors: bool,
    biomes: bool,
    out: &mut OutDir,
) -> Result<(), Error> {
    if !(colors || biomes) {
        return Ok(());
    }
    let grid = raster_grid(world, config)?;
    if colors {
        let options = colormap::ColormapOptions {
            hillshade: config.export.hillshade,
            ..colormap_options(config)
        };
        let image = colormap::colormap(world, &grid, &options)?;
        out.write("colormap.png", |w| png::write_rgb8(w, image.view()))?;
    }
    if biomes {
        let flat = colormap::biome_map(world, &grid, &config.biome.palette.by_id())?;
        out.write("biomes.png", |w| png::write_rgb8(w, flat.view()))?;
    }
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
