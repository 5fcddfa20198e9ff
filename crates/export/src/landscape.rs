//! The classic landscape (`landscape.png`): the raster heightmap painted with the article's
//! colour bands, water washed translucent blue, a light hillshade, small space-colonised trees
//! and Catmull-Rom rivers.
//!
//! Reads `raster_elevation` (Raster f32 in [0, 1], vertex sampling over the map) and, when
//! present, `classic_rivers` (ragged raster cell indices), `classic_tree_xy`,
//! `classic_tree_size`, `classic_tree_model`, `classic_tree_nodes` and `classic_tree_parent`.
//!
//! - Terrain: each pixel averages `antialias^2` sub-samples of the bilinearly upsampled
//!   heightmap, each coloured by its band (a linear gradient from the band's `low` colour at its
//!   lower bound to its `high` colour at its upper bound) and washed with the water colour below
//!   the water level, so band edges and shores are smooth. Rows run in parallel; every pixel is
//!   independent, so the bytes do not depend on the thread count.
//! - Hillshade: the one hillshade of [`crate::relief`] (a north-west sun 45 degrees up),
//!   computed on the heightmap's own grid (central differences) and sampled bilinearly, so the
//!   upsampling leaves no creases; land only.
//! - Rivers: the strokes of [`crate::stroke`] (a centripetal Catmull-Rom curve through the
//!   traced cells, coverage from the distance to it), combined by maximum and blended once.
//! - Trees, back to front (by y): a soft shadow, the silhouette's branches (pipe-model widths)
//!   and leaf discs at its twigs, lit from the north-west.

use std::fmt;

use ndarray::{Array2, Array3, ArrayView2};
use orogen_world::color::unit_to_u8;
use orogen_world::interp::sample_bilinear;
use orogen_world::params::{ParamError, Spec, check_specs, in_range};
use orogen_world::{World, WorldError};
use rayon::prelude::*;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ExportError;
use crate::draw::segment_coverage;
use crate::grid::PixelGrid;
use crate::stroke::{Stroke, StrokeEnd, smooth_stroke, stroke_coverage};

/// An 8-bit sRGB colour written `"#rrggbb"` in configs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hex(pub [u8; 3]);

impl Hex {
    /// Parses `#rrggbb` (the `#` optional).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.strip_prefix('#').unwrap_or(text);
        if t.len() != 6 || !t.is_ascii() {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&t[i..i + 2], 16).ok();
        Some(Hex([byte(0)?, byte(2)?, byte(4)?]))
    }

    fn rgb(self) -> [f32; 3] {
        self.0.map(|c| f32::from(c) / 255.0)
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02x}{g:02x}{b:02x}")
    }
}

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Hex::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not a colour: expected #rrggbb"))
        })
    }
}

fn hex(text: &str) -> Hex {
    Hex::parse(text).expect("a valid built-in colour")
}

/// One colour band: elevations from the previous band's `upper` (0 for the first) up to
/// `upper`, coloured from `low` to `high`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    /// The band's upper elevation bound: 0 ..= 1, increasing from band to band.
    pub upper: f32,
    /// The colour at the band's lower bound.
    pub low: Hex,
    /// The colour at the band's upper bound.
    pub high: Hex,
}

/// How `landscape.png` is painted; the landscape article's numbers are the defaults. Pixel
/// lengths are pixels of the painted image.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LandscapeStyle {
    /// The colour bands, lowest first.
    pub bands: Vec<Band>,
    /// Elevation below which water is washed over the terrain.
    pub water_level: f32,
    /// The water wash colour.
    pub water_color: Hex,
    /// The water wash opacity.
    pub water_alpha: f32,
    /// Sub-samples per pixel side for the terrain colours.
    pub antialias: u32,
    /// Hillshade strength on land (0 = none, 1 = full Lambert).
    pub hillshade: f32,
    /// The relief the hillshade assumes: elevation 1 stands this many map widths high.
    pub relief: f32,
    /// River colour.
    pub river_color: Hex,
    /// River opacity.
    pub river_alpha: f32,
    /// River width in pixels.
    pub river_width_px: f64,
    /// Leaf colour in shade.
    pub leaf_dark: Hex,
    /// Leaf colour in the sun (north-west side of a crown).
    pub leaf_light: Hex,
    /// Leaf opacity.
    pub leaf_alpha: f32,
    /// Trunk and branch colour.
    pub wood_color: Hex,
    /// Opacity of a tree's shadow (cast to the south-east).
    pub tree_shadow: f32,
}

impl Default for LandscapeStyle {
    fn default() -> Self {
        let band = |upper, low, high| Band {
            upper,
            low: hex(low),
            high: hex(high),
        };
        LandscapeStyle {
            bands: vec![
                band(0.35, "#1a3a6b", "#2a5fa5"),
                band(0.42, "#d4b483", "#c9a96e"),
                band(0.70, "#4a7c4e", "#2d5a32"),
                band(0.85, "#8c8c8c", "#707070"),
                band(1.0, "#e8e8e8", "#ffffff"),
            ],
            water_level: 0.36,
            water_color: Hex([30, 80, 180]),
            water_alpha: 80.0 / 255.0,
            antialias: 3,
            hillshade: 0.45,
            relief: 0.06,
            river_color: Hex([40, 120, 200]),
            river_alpha: 200.0 / 255.0,
            river_width_px: 1.5,
            leaf_dark: hex("#1e4d22"),
            leaf_light: hex("#4f8a45"),
            leaf_alpha: 0.9,
            wood_color: Hex([80, 50, 20]),
            tree_shadow: 0.25,
        }
    }
}

impl LandscapeStyle {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<LandscapeStyle>] = &[
        Spec::other(
            "bands",
            "The colour bands, lowest first",
            "1 ..= 64 bands, upper increasing within 0 ..= 1",
        ),
        Spec::float(
            "water_level",
            "Elevation below which water is washed over the terrain",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.water_level.into(),
        ),
        Spec::other("water_color", "The water wash colour", "#rrggbb"),
        Spec::float(
            "water_alpha",
            "The water wash opacity",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.water_alpha.into(),
        ),
        Spec::int(
            "antialias",
            "Sub-samples per pixel side for the terrain colours",
            1,
            8,
            |p: &LandscapeStyle| p.antialias.into(),
        ),
        Spec::float(
            "hillshade",
            "Hillshade strength on land (0 none, 1 full Lambert)",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.hillshade.into(),
        ),
        Spec::float(
            "relief",
            "The relief the hillshade assumes: elevation 1 stands this high",
            0.0,
            10.0,
            |p: &LandscapeStyle| p.relief.into(),
        )
        .unit("map widths"),
        Spec::other("river_color", "River colour", "#rrggbb"),
        Spec::float(
            "river_alpha",
            "River opacity",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.river_alpha.into(),
        ),
        Spec::float(
            "river_width_px",
            "River width",
            0.1,
            100.0,
            |p: &LandscapeStyle| p.river_width_px,
        )
        .unit("px"),
        Spec::other("leaf_dark", "Leaf colour in shade", "#rrggbb"),
        Spec::other("leaf_light", "Leaf colour in the sun", "#rrggbb"),
        Spec::float(
            "leaf_alpha",
            "Leaf opacity",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.leaf_alpha.into(),
        ),
        Spec::other("wood_color", "Trunk and branch colour", "#rrggbb"),
        Spec::float(
            "tree_shadow",
            "Opacity of a tree's shadow (cast to the south-east)",
            0.0,
            1.0,
            |p: &LandscapeStyle| p.tree_shadow.into(),
        ),
    ];

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        in_range("bands", self.bands.len(), 1..=64)?;
        let mut below = 0.0f32;
        for (i, b) in self.bands.iter().enumerate() {
            in_range(&format!("bands[{i}].upper"), b.upper, 0.0..=1.0)?;
            if i > 0 && b.upper <= below {
                return Err(ParamError::new(
                    format!("bands[{i}].upper"),
                    b.upper,
                    format!("above the previous band's upper ({below})"),
                ));
            }
            below = b.upper;
        }
        check_specs(self, Self::SPECS)
    }

    /// The band colour of elevation `v`.
    fn band_color(&self, v: f32) -> [f32; 3] {
        let mut lower = 0.0;
        for (i, b) in self.bands.iter().enumerate() {
            if v < b.upper || i + 1 == self.bands.len() {
                let t = if b.upper > lower {
                    ((v - lower) / (b.upper - lower)).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                return mix(b.low.rgb(), b.high.rgb(), t);
            }
            lower = b.upper;
        }
        [0.0; 3]
    }
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|c| a[c] + (b[c] - a[c]) * t)
}

/// Paints the landscape on `grid` (pixel centres over the map): `ny x nx x 3` 8-bit RGB.
pub fn landscape(
    world: &World,
    grid: &PixelGrid,
    style: &LandscapeStyle,
) -> Result<Array3<u8>, ExportError> {
    style.validate()?;
    let elevation = world.view2::<f32>("raster_elevation")?;
    let (rows, cols) = elevation.dim();
    if rows < 2 || cols < 2 {
        return Err(bad(
            "raster_elevation",
            format!("is {rows}x{cols}: at least 2x2"),
        ));
    }
    let (w, h) = (world.meta.width, world.meta.height);
    let (nx, ny) = (grid.nx, grid.ny);
    let shade = shade_grid(elevation, w, h, style);
    let s = style.antialias as usize;
    let water = style.water_color.rgb();
    let mut rgb = vec![[0.0f32; 3]; nx * ny];
    rgb.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        for (i, px) in row.iter_mut().enumerate() {
            let mut acc = [0.0f32; 3];
            for sj in 0..s {
                for si in 0..s {
                    let x = (i as f64 + (si as f64 + 0.5) / s as f64) * w / nx as f64;
                    let y = (j as f64 + (sj as f64 + 0.5) / s as f64) * h / ny as f64;
                    let v = sample_bilinear(elevation, w, h, x, y);
                    let mut c = style.band_color(v);
                    if v < style.water_level {
                        c = mix(c, water, style.water_alpha);
                    }
                    for k in 0..3 {
                        acc[k] += c[k];
                    }
                }
            }
            let (x, y) = grid_point(grid, i, j);
            let f = sample_bilinear(shade.view(), w, h, x, y);
            *px = acc.map(|c| c / (s * s) as f32 * f);
        }
    });
    draw_rivers(world, grid, style, &mut rgb)?;
    draw_trees(world, grid, style, &mut rgb)?;
    let bytes: Vec<u8> = rgb.iter().flat_map(|c| c.map(unit_to_u8)).collect();
    Ok(Array3::from_shape_vec((ny, nx, 3), bytes).expect("one RGB triple per pixel"))
}

fn bad(name: &str, problem: String) -> ExportError {
    WorldError::BadLayer {
        name: name.into(),
        problem,
    }
    .into()
}

/// The map point of pixel (i, j)'s centre.
fn grid_point(grid: &PixelGrid, i: usize, j: usize) -> (f64, f64) {
    (
        (i as f64 + 0.5) * grid.width / grid.nx as f64,
        (j as f64 + 0.5) * grid.height / grid.ny as f64,
    )
}

/// Map point to pixel coordinates (pixel (i, j) centred at (i, j)).
fn to_px(grid: &PixelGrid, x: f64, y: f64) -> (f64, f64) {
    (
        x / grid.width * grid.nx as f64 - 0.5,
        y / grid.height * grid.ny as f64 - 0.5,
    )
}

/// The hillshade factor on the heightmap's own grid: 1 on water; land lit by
/// [`crate::relief::shade`] from its slope by central differences, by `style.hillshade`.
fn shade_grid(e: ArrayView2<'_, f32>, w: f64, h: f64, style: &LandscapeStyle) -> Array2<f32> {
    let (rows, cols) = e.dim();
    let (dx, dy) = (w / (cols - 1) as f64, h / (rows - 1) as f64);
    let z = f64::from(style.relief) * w;
    let sun = crate::relief::sun();
    Array2::from_shape_fn((rows, cols), |(r, c)| {
        if e[[r, c]] < style.water_level {
            return 1.0;
        }
        let (c0, c1) = (c.saturating_sub(1), (c + 1).min(cols - 1));
        let (r0, r1) = (r.saturating_sub(1), (r + 1).min(rows - 1));
        let gx = f64::from(e[[r, c1]] - e[[r, c0]]) * z / ((c1 - c0) as f64 * dx);
        let gy = f64::from(e[[r1, c]] - e[[r0, c]]) * z / ((r1 - r0) as f64 * dy);
        crate::relief::shade(gx, gy, sun, f64::from(style.hillshade)) as f32
    })
}

/// A coverage buffer over the image: shapes add coverage (the maximum, so overlapping pieces
/// of one shape blend once), then the shape is composited and the buffer cleared.
struct Coverage {
    nx: usize,
    ny: usize,
    cover: Vec<f32>,
    touched: Vec<usize>,
}

impl Coverage {
    fn new(nx: usize, ny: usize) -> Self {
        Coverage {
            nx,
            ny,
            cover: vec![0.0; nx * ny],
            touched: Vec::new(),
        }
    }

    /// Adds an anti-aliased segment (a disc when `pa == pb`) `2 half` pixels wide.
    fn segment(&mut self, pa: (f64, f64), pb: (f64, f64), half: f64) {
        let (cover, touched) = (&mut self.cover, &mut self.touched);
        segment_coverage(self.nx, self.ny, pa, pb, half, |idx, c| {
            if cover[idx] == 0.0 {
                touched.push(idx);
            }
            cover[idx] = cover[idx].max(c);
        });
    }

    /// Blends `color(pixel)` at `alpha x coverage` over every covered pixel, then clears.
    fn composite(&mut self, rgb: &mut [[f32; 3]], alpha: f32, color: impl Fn(usize) -> [f32; 3]) {
        for idx in self.touched.drain(..) {
            let a = self.cover[idx] * alpha;
            if a > 0.0 {
                rgb[idx] = mix(rgb[idx], color(idx), a);
            }
            self.cover[idx] = 0.0;
        }
    }
}

fn draw_rivers(
    world: &World,
    grid: &PixelGrid,
    style: &LandscapeStyle,
    rgb: &mut [[f32; 3]],
) -> Result<(), ExportError> {
    if !world.has_layer("classic_rivers") {
        return Ok(());
    }
    let (rows, cols) = world.view2::<f32>("raster_elevation")?.dim();
    let offsets = world.offsets("classic_rivers")?.to_vec();
    let cells = world.view1::<u32>("classic_rivers")?;
    let (w, h) = (world.meta.width, world.meta.height);
    // The river strokes of `crate::stroke`, combined by maximum and blended once.
    let half = style.river_width_px * 0.5 * grid.width / grid.nx as f64;
    let mut strokes = Vec::new();
    for (river, pair) in offsets.windows(2).enumerate() {
        let (a, b) = (pair[0] as usize, pair[1] as usize);
        if a > b || b > cells.len() {
            return Err(bad(
                "classic_rivers",
                "has offsets beyond its values".into(),
            ));
        }
        let mut pts = Vec::with_capacity(b - a);
        for &cell in cells.iter().skip(a).take(b - a) {
            let cell = cell as usize;
            if cell >= rows * cols {
                return Err(bad(
                    "classic_rivers",
                    format!("cell {cell} is outside the {rows}x{cols} raster"),
                ));
            }
            let (r, c) = (cell / cols, cell % cols);
            pts.push([
                c as f64 * w / (cols - 1) as f64,
                r as f64 * h / (rows - 1) as f64,
            ]);
        }
        if pts.len() < 2 {
            continue;
        }
        strokes.push(Stroke {
            river,
            from_source: true,
            end: StrokeEnd::Mouth,
            corners: Vec::new(),
            points: smooth_stroke(&pts, half, 4),
        });
    }
    let cover = stroke_coverage(&strokes, grid);
    let color = style.river_color.rgb();
    for (px, &a) in rgb.iter_mut().zip(&cover) {
        if a > 0.0 {
            *px = mix(*px, color, a * style.river_alpha);
        }
    }
    Ok(())
}

/// The silhouettes of `classic_tree_nodes` / `classic_tree_parent`: per model, nodes (x, z,
/// radius) and parents.
type Silhouette = (Vec<[f32; 3]>, Vec<i32>);

fn silhouettes(world: &World) -> Result<Vec<Silhouette>, ExportError> {
    let offsets = world.offsets("classic_tree_nodes")?.to_vec();
    let nodes = world.view2::<f32>("classic_tree_nodes")?;
    let parent = world.view1::<i32>("classic_tree_parent")?;
    if nodes.ncols() != 3 || parent.len() != nodes.nrows() {
        return Err(bad(
            "classic_tree_nodes",
            "must be n x 3 rows (x, z, radius) with one classic_tree_parent per row".into(),
        ));
    }
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for pair in offsets.windows(2) {
        let (a, b) = (pair[0] as usize, pair[1] as usize);
        if a > b || b > nodes.nrows() {
            return Err(bad(
                "classic_tree_nodes",
                "has offsets beyond its rows".into(),
            ));
        }
        let pts: Vec<[f32; 3]> = (a..b)
            .map(|k| [nodes[[k, 0]], nodes[[k, 1]], nodes[[k, 2]]])
            .collect();
        let par: Vec<i32> = (a..b).map(|k| parent[k]).collect();
        if par.iter().any(|&p| p >= (b - a) as i32) {
            return Err(bad(
                "classic_tree_parent",
                "has a parent outside its model".into(),
            ));
        }
        out.push((pts, par));
    }
    Ok(out)
}

fn draw_trees(
    world: &World,
    grid: &PixelGrid,
    style: &LandscapeStyle,
    rgb: &mut [[f32; 3]],
) -> Result<(), ExportError> {
    if !world.has_layer("classic_tree_xy") {
        return Ok(());
    }
    let xy = world.view2::<f64>("classic_tree_xy")?;
    let size = world.view1::<f32>("classic_tree_size")?;
    let model = world.view1::<u32>("classic_tree_model")?;
    let models = silhouettes(world)?;
    let n = xy.nrows();
    if size.len() != n || model.len() != n || xy.ncols() != 2 {
        return Err(bad(
            "classic_tree_xy",
            "classic_tree_xy (n x 2), classic_tree_size and classic_tree_model differ in length"
                .into(),
        ));
    }
    // Model widths (x extent), for scaling crowns to their size.
    let widths: Vec<f32> = models
        .iter()
        .map(|(pts, _)| {
            let (lo, hi) = pts
                .iter()
                .fold((0.0f32, 0.0f32), |(lo, hi), p| (lo.min(p[0]), hi.max(p[0])));
            (hi - lo).max(1e-3)
        })
        .collect();
    let (nx, ny) = (grid.nx, grid.ny);
    let px_per_unit = nx as f64 / grid.width;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        xy[[a, 1]]
            .total_cmp(&xy[[b, 1]])
            .then(xy[[a, 0]].total_cmp(&xy[[b, 0]]))
    });
    let mut cover = Coverage::new(nx, ny);
    let (wood, dark, light) = (
        style.wood_color.rgb(),
        style.leaf_dark.rgb(),
        style.leaf_light.rgb(),
    );
    for k in order {
        let m = model[k] as usize;
        let Some((pts, par)) = models.get(m) else {
            return Err(bad(
                "classic_tree_model",
                format!("model {m} of {}", models.len()),
            ));
        };
        let (fx, fy) = to_px(grid, xy[[k, 0]], xy[[k, 1]]);
        let crown = f64::from(size[k]) * px_per_unit;
        let s = crown / f64::from(widths[m]);
        let at = |p: &[f32; 3]| (fx + f64::from(p[0]) * s, fy - f64::from(p[1]) * s);
        // Shadow: a flat smear to the south-east of the foot.
        if style.tree_shadow > 0.0 {
            let a = (fx + 0.2 * crown, fy + 0.1 * crown);
            let b = (fx + 0.8 * crown, fy + 0.1 * crown);
            cover.segment(a, b, 0.175 * crown);
            cover.composite(rgb, style.tree_shadow, |_| [0.0; 3]);
        }
        // Wood: every branch, at least a thin line.
        for (i, p) in pts.iter().enumerate() {
            if par[i] >= 0 {
                let q = &pts[par[i] as usize];
                cover.segment(at(q), at(p), (f64::from(p[2]) * s).max(0.3));
            }
        }
        cover.composite(rgb, 1.0, |_| wood);
        // Leaves: discs on the crown's nodes, lit from the north-west.
        let top = pts.iter().fold(0.0f32, |t, p| t.max(p[1]));
        let (cx, cy) = (fx, fy - f64::from(top) * s * 0.6);
        let leaf_r = (crown * 0.14).max(0.6);
        for p in pts.iter().filter(|p| p[1] > 0.25 * top) {
            cover.segment(at(p), at(p), leaf_r);
        }
        cover.composite(rgb, style.leaf_alpha, |idx| {
            let (i, j) = ((idx % nx) as f64, (idx / nx) as f64);
            let t = (0.5 - ((i - cx) + (j - cy)) / crown.max(1.0) * 0.9).clamp(0.0, 1.0);
            mix(dark, light, t as f32)
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;
    use orogen_world::{Domain, Layer, WorldMeta};

    fn world() -> World {
        let mut world = World::new(WorldMeta::default());
        // West to east from 0 to 1.
        let e = Array2::from_shape_fn((17, 17), |(_, c)| c as f32 / 16.0);
        world
            .set_layer("raster_elevation", Domain::Raster, e.into_dyn())
            .unwrap();
        world
    }

    #[test]
    fn hex_colours_parse_and_print() {
        assert_eq!(Hex::parse("#1a3a6b"), Some(Hex([0x1a, 0x3a, 0x6b])));
        assert_eq!(Hex([0x1a, 0x3a, 0x6b]).to_string(), "#1a3a6b");
        assert_eq!(Hex::parse("#12345"), None);
        assert_eq!(Hex::parse("#12345g"), None);
    }

    #[test]
    fn bands_follow_the_article_and_water_is_washed() {
        let style = LandscapeStyle {
            hillshade: 0.0,
            ..LandscapeStyle::default()
        };
        let grid = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let img = landscape(&world(), &grid, &style).unwrap();
        let px = |i: usize| [img[[10, i, 0]], img[[10, i, 1]], img[[10, i, 2]]];
        // x = 0.6 (i = 38): forest band, t = (0.6 - 0.42) / 0.28 between #4a7c4e and #2d5a32.
        let want = mix(
            hex("#4a7c4e").rgb(),
            hex("#2d5a32").rgb(),
            ((38.5 / 64.0) - 0.42) / 0.28,
        );
        let got = px(38).map(f32::from);
        for c in 0..3 {
            assert!((got[c] - want[c] * 255.0).abs() <= 2.0, "{got:?} {want:?}");
        }
        // Deep water: the band's blue washed with (30, 80, 180).
        let deep = mix(
            hex("#1a3a6b").rgb(),
            hex("#2a5fa5").rgb(),
            (2.5 / 64.0) / 0.35,
        );
        let washed = mix(deep, Hex([30, 80, 180]).rgb(), 80.0 / 255.0);
        let got = px(2).map(f32::from);
        for c in 0..3 {
            assert!(
                (got[c] - washed[c] * 255.0).abs() <= 2.0,
                "{got:?} {washed:?}"
            );
        }
        // Snow at the east edge is near white.
        assert!(px(63).iter().all(|&c| c > 230));
    }

    #[test]
    fn rivers_are_drawn_translucent_and_bad_cells_are_refused() {
        let mut w = world();
        let style = LandscapeStyle {
            hillshade: 0.0,
            ..LandscapeStyle::default()
        };
        let grid = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let before = landscape(&w, &grid, &style).unwrap();
        // A river down column 12 (x = 0.75), rows 2..14.
        let cells: Vec<u32> = (2..14).map(|r| r * 17 + 12).collect();
        let n = cells.len() as u32;
        w.insert_layer(
            "classic_rivers",
            Layer::ragged(
                Domain::Free,
                Array1::from(vec![0, n]),
                Array1::from(cells).into_dyn(),
            ),
        )
        .unwrap();
        let after = landscape(&w, &grid, &style).unwrap();
        // On the river (x = 0.75 -> pixel 47.5), blue rises; far from it nothing changes.
        let row = 32;
        let on = [after[[row, 47, 0]], after[[row, 47, 2]]];
        let was = [before[[row, 47, 0]], before[[row, 47, 2]]];
        assert!(on[1] > was[1] && on[0] < was[0], "{on:?} {was:?}");
        assert_eq!(after[[row, 20, 2]], before[[row, 20, 2]]);
        w.insert_layer(
            "classic_rivers",
            Layer::ragged(
                Domain::Free,
                Array1::from(vec![0, 1]),
                Array1::from(vec![9999u32]).into_dyn(),
            ),
        )
        .unwrap();
        assert!(landscape(&w, &grid, &style).is_err());
    }

    #[test]
    fn bad_styles_name_the_field() {
        let mut style = LandscapeStyle::default();
        style.bands[2].upper = 0.3;
        assert_eq!(style.validate().unwrap_err().param, "bands[2].upper");
        let style = LandscapeStyle {
            river_alpha: 2.0,
            ..LandscapeStyle::default()
        };
        assert_eq!(style.validate().unwrap_err().param, "river_alpha");
    }
}
