//! The playground's layers: base64 PNGs of the colour map, biomes and heightmap (through the
//! `orogen-export` rasterisers), transparent overlays of rivers, flora and cell outlines drawn
//! here, and a coarse elevation grid for the 3-D view.

use base64::Engine;
use ndarray::Array3;
use orogen_export::grid::PixelGrid;
use orogen_export::heights::Normalize;
use orogen_export::{ExportError, colormap, heightmap, png};
use orogen_world::World;
use serde_json::{Map, Value, json};

use orogen::Config;

/// Side (in samples) of the elevation grid for the 3-D view, along the map's longer side.
pub(super) const TERRAIN_SIDE: usize = 160;

/// The rendered layers of one world.
#[derive(Debug)]
pub(super) struct Layers {
    pub width: usize,
    pub height: usize,
    /// Layer name -> `data:image/png;base64,...`; a layer the world cannot give is absent.
    pub png_base64: Map<String, Value>,
    /// `{"nx", "ny", "elevation": [row-major, conventions' range [-1, 1]]}`.
    pub terrain: Value,
}

fn data_url(
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), ExportError>,
) -> Result<Value, ExportError> {
    let mut bytes = Vec::new();
    write(&mut bytes)?;
    let text = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(Value::String(format!("data:image/png;base64,{text}")))
}

/// Renders the layers `wants` asks for (and the world has) at the config's export resolution.
pub(super) fn layers(
    world: &World,
    config: &Config,
    wants: &dyn Fn(&str) -> bool,
) -> Result<Layers, ExportError> {
    let grid = PixelGrid::centres(
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?;
    let mut out = Map::new();
    let palette = &config.biome.palette;
    if wants("colormap") && world.has_layer("region_biome") {
        let options = colormap::ColormapOptions {
            water: colormap::WaterColors {
                shallow: palette.shallow_ocean,
                deep: palette.deep_ocean,
                lake: palette.lake,
                river: palette.river,
            },
            hillshade: config.export.hillshade,
            rivers: false,
        };
        let image = colormap::colormap(world, &grid, &options)?;
        out.insert(
            "colormap".into(),
            data_url(|w| png::write_rgb8(w, image.view()))?,
        );
    }
    if wants("biomes") && world.has_layer("region_biome") {
        let flat = colormap::biome_map(world, &grid, &palette.by_id())?;
        out.insert(
            "biomes".into(),
            data_url(|w| png::write_rgb8(w, flat.view()))?,
        );
    }
    if wants("heightmap") && world.has_layer("region_elevation") {
        let (pixels, _) = heightmap::heightmap(world, &grid, Normalize::Fixed)?;
        out.insert(
            "heightmap".into(),
            data_url(|w| png::write_gray16(w, pixels.view()))?,
        );
    }
    let river = config
        .biome
        .palette
        .river
        .map(|c| (c.clamp(0.0, 1.0) * 255.0) as u8);
    if wants("rivers")
        && let Some(image) = rivers(world, &grid, river)?
    {
        out.insert(
            "rivers".into(),
            data_url(|w| png::write_rgb8(w, image.view()))?,
        );
    }
    if wants("flora")
        && let Some(image) = flora(world, &grid)?
    {
        out.insert(
            "flora".into(),
            data_url(|w| png::write_rgb8(w, image.view()))?,
        );
    }
    if wants("outlines") {
        let image = outlines(world, &grid)?;
        out.insert(
            "outlines".into(),
            data_url(|w| png::write_rgb8(w, image.view()))?,
        );
    }
    Ok(Layers {
        width: grid.nx,
        height: grid.ny,
        png_base64: out,
        terrain: terrain(world)?,
    })
}

/// The elevation on a coarse grid of pixel centres (for the 3-D view).
fn terrain(world: &World) -> Result<Value, ExportError> {
    if !world.has_layer("region_elevation") {
        return Ok(Value::Null);
    }
    let (w, h) = (world.meta.width, world.meta.height);
    let nx = if w >= h {
        TERRAIN_SIDE
    } else {
        ((TERRAIN_SIDE as f64 * w / h).round() as usize).max(2)
    };
    let grid = PixelGrid::centres(nx, w, h)?;
    let raster = heightmap::elevation_raster(world, &grid)?;
    let elevation: Vec<f64> = raster
        .iter()
        .map(|&e| (f64::from(e) * 1e4).round() / 1e4)
        .collect();
    Ok(json!({ "nx": grid.nx, "ny": grid.ny, "elevation": elevation }))
}

/// A transparent RGBA canvas.
struct Canvas {
    nx: usize,
    ny: usize,
    rgba: Array3<u8>,
    /// Pixels per map unit.
    sx: f64,
    sy: f64,
}

impl Canvas {
    fn new(grid: &PixelGrid) -> Self {
        Canvas {
            nx: grid.nx,
            ny: grid.ny,
            rgba: Array3::zeros((grid.ny, grid.nx, 4)),
            sx: grid.nx as f64 / grid.width,
            sy: grid.ny as f64 / grid.height,
        }
    }

    fn put(&mut self, px: f64, py: f64, colour: [u8; 4]) {
        if px < 0.0 || py < 0.0 {
            return;
        }
        let (c, r) = (px as usize, py as usize);
        if c < self.nx && r < self.ny {
            for (k, v) in colour.iter().enumerate() {
                self.rgba[[r, c, k]] = *v;
            }
        }
    }

    /// A disc of `radius` pixels at map point `p`.
    fn dot(&mut self, p: [f64; 2], radius: f64, colour: [u8; 4]) {
        let (cx, cy) = (p[0] * self.sx, p[1] * self.sy);
        let r = radius.max(0.5);
        let ri = r.ceil() as i64;
        for dy in -ri..=ri {
            for dx in -ri..=ri {
                let (x, y) = (cx + dx as f64, cy + dy as f64);
                if (dx * dx + dy * dy) as f64 <= r * r {
                    self.put(x, y, colour);
                }
            }
        }
    }

    /// A line of `radius` pixels between map points (capsule of dots, one per half pixel).
    fn line(&mut self, a: [f64; 2], b: [f64; 2], radius: f64, colour: [u8; 4]) {
        let len_px = ((b[0] - a[0]) * self.sx).hypot((b[1] - a[1]) * self.sy);
        let steps = (len_px * 2.0).ceil().clamp(1.0, 1e5) as usize;
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
            if radius <= 0.5 {
                self.put(p[0] * self.sx, p[1] * self.sy, colour);
            } else {
                self.dot(p, radius, colour);
            }
        }
    }
}

/// Rivers (`rivers`, `river_width`) as lines at least one pixel wide; `None` without rivers.
fn rivers(
    world: &World,
    grid: &PixelGrid,
    colour: [u8; 3],
) -> Result<Option<Array3<u8>>, ExportError> {
    if !world.has_layer("rivers") {
        return Ok(None);
    }
    let mesh = world.mesh()?;
    let offsets = world.offsets("rivers")?.to_vec();
    let corners: Vec<u32> = world.view::<u32>("rivers")?.iter().copied().collect();
    let widths: Option<Vec<f32>> = match world.view::<f32>("river_width") {
        Ok(v) => Some(v.iter().copied().collect()),
        Err(_) => None,
    };
    let mut canvas = Canvas::new(grid);
    let rgba = [colour[0], colour[1], colour[2], 255];
    let n_corners = mesh.n_corners();
    for river in offsets.windows(2) {
        let (s, e) = (river[0] as usize, (river[1] as usize).min(corners.len()));
        for i in s..e.saturating_sub(1) {
            let (c0, c1) = (corners[i] as usize, corners[i + 1] as usize);
            if c0 >= n_corners || c1 >= n_corners {
                continue;
            }
            let width_px = widths
                .as_ref()
                .and_then(|w| w.get(i))
                .map_or(1.0, |&w| f64::from(w) * canvas.sx);
            let a = [mesh.corner_xy[[c0, 0]], mesh.corner_xy[[c0, 1]]];
            let b = [mesh.corner_xy[[c1, 0]], mesh.corner_xy[[c1, 1]]];
            canvas.line(a, b, (width_px / 2.0).max(0.5), rgba);
        }
    }
    Ok(Some(canvas.rgba))
}

/// Plants (`flora_xy`, `flora_species`) as dots, one colour per species; `None` without flora.
fn flora(world: &World, grid: &PixelGrid) -> Result<Option<Array3<u8>>, ExportError> {
    if !world.has_layer("flora_xy") {
        return Ok(None);
    }
    let xy = world.view2::<f64>("flora_xy")?;
    let species = world.view1::<u32>("flora_species").ok();
    let mut canvas = Canvas::new(grid);
    for (i, row) in xy.rows().into_iter().enumerate() {
        let s = species
            .as_ref()
            .and_then(|v| v.get(i).copied())
            .unwrap_or(0);
        // A dark green, varied by species.
        let k = (s.wrapping_mul(2_654_435_761) >> 24) as u8;
        let colour = [20 + k / 6, 70 + k / 3, 25 + k / 8, 255];
        canvas.dot([row[0], row[1]], 0.8, colour);
    }
    Ok(Some(canvas.rgba))
}

/// Cell outlines (`region_polygon`) as thin translucent dark lines.
fn outlines(world: &World, grid: &PixelGrid) -> Result<Array3<u8>, ExportError> {
    let offsets = world.offsets("region_polygon")?;
    let points = world.view2::<f64>("region_polygon")?;
    let mut canvas = Canvas::new(grid);
    let colour = [20, 20, 20, 110];
    for ring in offsets.windows(2) {
        let (s, e) = (ring[0] as usize, ring[1] as usize);
        for i in s..e {
            let j = if i + 1 == e { s } else { i + 1 };
            let a = [points[[i, 0]], points[[i, 1]]];
            let b = [points[[j, 0]], points[[j, 1]]];
            canvas.line(a, b, 0.5, colour);
        }
    }
    Ok(canvas.rgba)
}
