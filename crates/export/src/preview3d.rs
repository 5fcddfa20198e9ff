//! `preview3d.png`: a perspective view of the world, rendered in pure Rust, so a user without
//! Blender sees the world in 3-D at once.
//!
//! A heightfield raycaster in the manner of "voxel space" renderers: the camera stands south of
//! the map, looking north and down. Every screen column marches a ray front to back over the
//! ground plane in steps that grow with the distance, projects each sample's height (terrain, or
//! the sea surface where the terrain lies below it) to a screen row, and fills the rows between
//! that and the highest row drawn so far (a per-column y-buffer), so nearer land hides farther
//! land. Colours come from the colour map (rivers and lakes included) or a height ramp, with the
//! trees as dark dots, shaded by the one hillshade of `crate::relief` on the exaggerated relief, water mixed with
//! the sky, and distance haze. Columns render in parallel (rayon), each on its own: the same
//! bytes for any thread count.

use ndarray::Array3;
use orogen_world::World;
use orogen_world::color::unit_to_u8;
use orogen_world::interp::ceil;
use orogen_world::params::{ParamError, in_range};
use rayon::prelude::*;

use crate::ExportError;
use crate::atomic::OutDir;
use crate::colormap::ColormapOptions;
use crate::gltf::metres_per_unit;

/// The file name.
pub const FILE: &str = "preview3d.png";

/// How much of the relief light the preview applies (see [`crate::relief::shade`]).
const SHADE_AMOUNT: f64 = 0.75;

/// Options of the preview.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreviewOptions {
    /// Image width in pixels (64 ..= 8192); the height is 9/16 of it.
    pub width: usize,
    /// Heights are multiplied by this (1 ..= 50), since true relief looks flat from afar.
    pub exaggeration: f64,
    /// Colour map options; `None` (or a world without biome layers) colours by height.
    pub colors: Option<ColormapOptions>,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        PreviewOptions {
            width: 1280,
            exaggeration: 4.0,
            colors: None,
        }
    }
}

impl PreviewOptions {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        in_range("preview_width", self.width, 64..=8192)?;
        in_range("preview_exaggeration", self.exaggeration, 1.0..=50.0)?;
        Ok(())
    }
}

/// Linear interpolation of colours.
fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// The sky colour at a height above the horizon, in image heights (0 at the horizon).
fn sky(up: f32) -> [f32; 3] {
    let t = (up * 2.5).clamp(0.0, 1.0);
    mix([0.80, 0.86, 0.92], [0.36, 0.55, 0.80], t)
}

/// The scene sampled on a grid: heights in metres (exaggerated) and colours 0..1.
#[derive(Clone)]
struct Scene {
    nx: usize,
    ny: usize,
    dx: f64,
    dy: f64,
    height: Vec<f32>,
    color: Vec<[f32; 3]>,
    /// Shade factor per grid vertex ([`crate::relief`]), applied to land only.
    shade: Vec<f32>,
    /// The highest surface of each block of [`Scene::BLOCK`] x [`Scene::BLOCK`] grid cells
    /// (its vertices on all four sides included), at least the sea's 0, raised by a margin
    /// above the bilinear blend's rounding: no tap in the block reaches above it.
    peaks: Vec<f32>,
    /// Blocks along x.
    blocks_x: usize,
}

impl Scene {
    /// Grid cells along each side of a block of [`Scene::peaks`].
    const BLOCK: usize = 16;

    /// The scene of a grid's heights, colours and shade, with its blocks' peaks.
    fn new(
        (nx, ny, dx, dy): (usize, usize, f64, f64),
        height: Vec<f32>,
        color: Vec<[f32; 3]>,
        shade: Vec<f32>,
    ) -> Scene {
        let b = Self::BLOCK;
        let (blocks_x, blocks_y) = ((nx - 1).div_ceil(b), (ny - 1).div_ceil(b));
        let peaks = (0..blocks_x * blocks_y)
            .into_par_iter()
            .map(|k| {
                let (c0, r0) = ((k % blocks_x) * b, (k / blocks_x) * b);
                let (c1, r1) = ((c0 + b).min(nx - 1), (r0 + b).min(ny - 1));
                let top = (r0..=r1)
                    .flat_map(|r| &height[r * nx + c0..=r * nx + c1])
                    .fold(0.0f32, |m, &h| m.max(h));
                // A tap's height is a blend of four of these by weights that sum to 1 within
                // a few ulps: 1e-5 of the peak is far above their rounding.
                top + top * 1e-5
            })
            .collect();
        Scene {
            nx,
            ny,
            dx,
            dy,
            height,
            color,
            shade,
            peaks,
            blocks_x,
        }
    }

    /// A point in metres in grid units (`x / dx`, `y / dy`): what [`Scene::covers`],
    /// [`Scene::peak`] and [`Scene::tap`] take.
    #[inline]
    fn grid_point(&self, x: f64, y: f64) -> [f64; 2] {
        [x / self.dx, y / self.dy]
    }

    /// The highest the surface reaches at a grid point that [`Scene::covers`]: at least
    /// [`Scene::surface`] of its [`Scene::tap`] (exactly: each blended term is at most its
    /// weight times the peak, and the rounding of their sum is covered by the peak's margin).
    #[inline]
    fn peak(&self, [fx, fy]: [f64; 2]) -> f32 {
        let fx = fx.clamp(0.0, (self.nx - 1) as f64);
        let fy = fy.clamp(0.0, (self.ny - 1) as f64);
        let (c0, r0) = (
            (fx as usize).min(self.nx - 2),
            (fy as usize).min(self.ny - 2),
        );
        self.peaks[(r0 / Self::BLOCK) * self.blocks_x + c0 / Self::BLOCK]
    }

    /// True when [`Scene::tap`] at this grid point reads the terrain; elsewhere (off the map)
    /// the surface is the sea at height 0.
    #[inline]
    fn covers(&self, [fx, fy]: [f64; 2]) -> bool {
        fx >= 0.0 && fy >= 0.0 && fx <= (self.nx - 1) as f64 && fy <= (self.ny - 1) as f64
    }

    /// The grid point `[fx, fy]` ([`Scene::grid_point`]) as a [`Tap`]; `None` where it is
    /// not finite.
    #[inline]
    fn tap(&self, [fx, fy]: [f64; 2]) -> Option<Tap> {
        if !(fx.is_finite() && fy.is_finite()) {
            return None;
        }
        // Off the map: the sea, coloured as the nearest map edge's water.
        let inside = self.covers([fx, fy]);
        let fx = fx.clamp(0.0, (self.nx - 1) as f64);
        let fy = fy.clamp(0.0, (self.ny - 1) as f64);
        let (c0, r0) = (
            (fx as usize).min(self.nx - 2),
            (fy as usize).min(self.ny - 2),
        );
        let (tx, ty) = ((fx - c0 as f64) as f32, (fy - r0 as f64) as f32);
        let i = r0 * self.nx + c0;
        let idx = [i, i + 1, i + self.nx, i + self.nx + 1];
        let w = [
            (1.0 - tx) * (1.0 - ty),
            tx * (1.0 - ty),
            (1.0 - tx) * ty,
            tx * ty,
        ];
        let mut h = 0.0f32;
        for k in 0..4 {
            h += w[k] * self.height[idx[k]];
        }
        Some(Tap { idx, w, h, inside })
    }

    /// The surface's height at a tap: the terrain's, or the sea's 0 where the terrain is below
    /// it or off the map.
    #[inline]
    fn surface(tap: &Tap) -> f64 {
        if tap.h < 0.0 || !tap.inside {
            0.0
        } else {
            f64::from(tap.h)
        }
    }

    /// The surface's colour at a tap (0..1), shaded on land; asked only where the surface shows
    /// (most of a column's steps are hidden behind the ones before them).
    #[inline]
    fn colour(&self, tap: &Tap) -> [f32; 3] {
        let Tap { idx, w, h, inside } = *tap;
        if !inside && h >= 0.0 {
            return mix([0.10, 0.26, 0.42], [0.55, 0.68, 0.80], 0.22);
        }
        let mut c = [0.0f32; 3];
        let mut s = 0.0f32;
        for k in 0..4 {
            s += w[k] * self.shade[idx[k]];
            for (cj, v) in c.iter_mut().zip(self.color[idx[k]]) {
                *cj += w[k] * v;
            }
        }
        if h < 0.0 || !inside {
            // The sea surface: its colour map colour (depth tinted) under a little sky.
            return mix(c, [0.55, 0.68, 0.80], 0.22);
        }
        c.map(|v| v * s)
    }
}

/// A point of the preview's grid: its four vertices, their bilinear weights, the terrain's
/// height there and whether it lies on the map ([`Scene::tap`]).
#[derive(Clone, Copy)]
struct Tap {
    idx: [usize; 4],
    w: [f32; 4],
    h: f32,
    inside: bool,
}

/// Renders the preview (`height x width x 3`, 8-bit RGB): [`render`] of the
/// [`preview_terrain`].
pub fn preview3d(world: &World, options: &PreviewOptions) -> Result<Array3<u8>, ExportError> {
    render(world, preview_terrain(world, options)?, options)
}

/// The preview's terrain without its trees: heights (exaggerated), colours and shade on the
/// preview's grid, the costly part of [`preview3d`]; it reads no flora layer, so it can be made
/// before the flora stage has run.
pub struct PreviewTerrain {
    scene: Scene,
}

impl std::fmt::Debug for PreviewTerrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreviewTerrain")
            .field("nx", &self.scene.nx)
            .field("ny", &self.scene.ny)
            .finish_non_exhaustive()
    }
}

/// The [`PreviewTerrain`] of a world.
pub fn preview_terrain(
    world: &World,
    options: &PreviewOptions,
) -> Result<PreviewTerrain, ExportError> {
    options.validate()?;
    // The terrain at about one vertex per two output pixels across, coloured by the colour map
    // at its vertices (or the height ramp).
    let n = (options.width / 2).clamp(65, 2049) + 1;
    let (grid, image) = crate::gltf::terrain_and_colors(world, n, options.colors.as_ref())?;
    let (nx, ny) = (grid.nx, grid.ny);
    let exag = options.exaggeration as f32;
    let color: Vec<[f32; 3]> = image
        .as_slice()
        .expect("a fresh image is contiguous")
        .chunks_exact(3)
        .map(|p| p_to_f32([p[0], p[1], p[2]]))
        .collect();
    let height: Vec<f32> = grid.heights_m.iter().map(|&h| h * exag).collect();
    // The one hillshade (`crate::relief`), on the exaggerated slope.
    let sun = crate::relief::sun();
    let shade: Vec<f32> = (0..ny * nx)
        .into_par_iter()
        .map(|i| {
            let (r, c) = (i / nx, i % nx);
            let nrm = grid.normal(c, r).map(f64::from);
            let (gx, gy) = (-nrm[0] / nrm[1], -nrm[2] / nrm[1]);
            let e = f64::from(exag);
            crate::relief::shade(gx * e, gy * e, sun, SHADE_AMOUNT) as f32
        })
        .collect();
    let scene = Scene::new((nx, ny, grid.dx_m, grid.dy_m), height, color, shade);
    Ok(PreviewTerrain { scene })
}

/// Renders `terrain` (the world's [`preview_terrain`] with the same options) with the world's
/// trees (`flora_xy`, when present) as dark dots on its colours.
pub fn render(
    world: &World,
    terrain: PreviewTerrain,
    options: &PreviewOptions,
) -> Result<Array3<u8>, ExportError> {
    let xy = world
        .view2::<f64>("flora_xy")
        .ok()
        .filter(|_| world.has_layer("flora_xy"));
    let trees = xy.iter().flat_map(|xy| xy.rows()).map(|p| [p[0], p[1]]);
    render_with_trees(world, terrain, trees, options)
}

/// [`render`] with the trees at `trees` (map units; the world's `flora_xy` layer is not read):
/// for trees planted but not yet written into the world.
pub fn render_with_trees(
    world: &World,
    terrain: PreviewTerrain,
    trees: impl IntoIterator<Item = [f64; 2]>,
    options: &PreviewOptions,
) -> Result<Array3<u8>, ExportError> {
    options.validate()?;
    let (w_px, h_px) = (options.width, options.width * 9 / 16);
    let meta = &world.meta;
    let mut scene = terrain.scene;
    let (nx, ny) = (scene.nx, scene.ny);
    let scale = metres_per_unit(world);
    // Trees as dark dots on the colour texture.
    for p in trees {
        let c = ((p[0] * scale / scene.dx).round() as usize).min(nx - 1);
        let r = ((p[1] * scale / scene.dy).round() as usize).min(ny - 1);
        let px = &mut scene.color[r * nx + c];
        *px = mix(*px, [0.05, 0.16, 0.05], 0.6);
    }

    // The camera: south of the map's centre, looking north and down at the map.
    let (map_w, map_h) = (meta.width * scale, meta.height * scale);
    let span = map_w.max(map_h);
    let pitch = 28f64.to_radians();
    let back = 0.3 * span;
    // The map's width at its centre fills 60% of the image.
    let focal = 0.6 * w_px as f64 * (back + 0.5 * map_h) / map_w;
    let cam_x = 0.5 * map_w;
    let cam_z = map_h + back;
    let centre_depth = cam_z - 0.5 * map_h;
    let cam_h = centre_depth * pitch.tan();
    // Shearing stands in for the pitch: the horizon rises by focal tan(pitch).
    let horizon = 0.5 * h_px as f64 - focal * pitch.tan();
    let near = 0.5 * back;
    let far = 12.0 * span;
    let haze = 1.4 * span;
    // Every column marches through the same depths (a geometric series from `near`): computed
    // once with their haze, so a step costs one terrain sample.
    let mut steps: Vec<(f64, f32)> = Vec::new();
    let mut depth = near;
    while depth < far {
        let fog = 1.0 - (-depth / haze).exp() as f32;
        steps.push((depth, fog * fog));
        depth = near * (1.0015f64).powi(steps.len() as i32);
    }
    // Linear -> sRGB-ish gamma as each run of rows is drawn.
    let gamma = Gamma::get();
    // The sky of each row, the same in every column.
    let sky_rows: Vec<[u8; 3]> = (0..h_px)
        .map(|r| sky(((horizon - r as f64) / h_px as f64) as f32).map(|v| gamma.byte(v)))
        .collect();
    let columns: Vec<Vec<[u8; 3]>> = (0..w_px)
        .into_par_iter()
        .map(|col| {
            let mut out = vec![[0u8; 3]; h_px];
            let side = (col as f64 + 0.5 - 0.5 * w_px as f64) / focal;
            // Rows below `ybuf` are drawn.
            let mut ybuf = h_px as f64;
            for &(depth, fog) in &steps {
                if ybuf <= 0.0 {
                    break;
                }
                let (x, z) = (cam_x + side * depth, cam_z - depth);
                // The highest the surface reaches here (off the map the sea, at height 0):
                // a step whose highest first row is not above `ybuf` fills no row and leaves
                // `ybuf` as it is (the row falls as the height does, in floats too), so it is
                // skipped without sampling, the same bytes with far fewer samples: most steps
                // off the map, and on it those behind nearer ground.
                // (`ceil(v) >= ybuf` is `v > ybuf - 1` for a whole `ybuf`: no rounding a step.)
                let at = scene.grid_point(x, z);
                let highest = if scene.covers(at) {
                    f64::from(scene.peak(at))
                } else {
                    0.0
                };
                if (horizon + (cam_h - highest) / depth * focal).max(0.0) > ybuf - 1.0 {
                    continue;
                }
                let tap = scene.tap(at);
                let h = tap.as_ref().map_or(0.0, Scene::surface);
                let row = horizon + (cam_h - h) / depth * focal;
                // `ybuf` is a whole row: the step shows when its first row lies above it (a
                // step whose row rounds up to `ybuf` fills none and moves nothing; a NaN row,
                // which `max` would turn into 0, shows nothing).
                if row < ybuf && row.max(0.0) <= ybuf - 1.0 {
                    let top = ceil(row.max(0.0));
                    let c = tap.map_or([0.10, 0.26, 0.42], |tap| scene.colour(&tap));
                    let c = mix(c, sky(0.0), fog).map(|v| gamma.byte(v));
                    out[top as usize..(ybuf as usize).min(h_px)].fill(c);
                    ybuf = top;
                }
            }
            let open = ybuf as usize;
            out[..open].copy_from_slice(&sky_rows[..open]);
            out
        })
        .collect();
    // The columns' bytes into rows, rows in parallel.
    let mut bytes = vec![0u8; h_px * w_px * 3];
    bytes
        .par_chunks_mut(w_px * 3)
        .enumerate()
        .for_each(|(r, row)| {
            for (px, column) in row.chunks_exact_mut(3).zip(&columns) {
                px.copy_from_slice(&column[r]);
            }
        });
    Ok(Array3::from_shape_vec((h_px, w_px, 3), bytes).expect("h x w x 3 bytes"))
}

/// The preview's gamma, `v^(1 / 1.1)` of a linear value clamped to 0 ..= 1, as a byte
/// ([`unit_to_u8`]; NaN to 0).
fn gamma_byte(v: f32) -> u8 {
    unit_to_u8(v.clamp(0.0, 1.0).powf(1.0 / 1.1))
}

/// [`gamma_byte`] without a `powf` a channel (a 1280 px preview has 2.8 million channels; the
/// table saved about 3% of the default 50,000-cell run's CPU): for each byte `b` the least value
/// whose byte is at least `b`, found by bisection through [`gamma_byte`] itself, and the byte
/// at the start of each of [`Gamma::BUCKETS`] equal steps of the value; a value's byte is then
/// its bucket's, raised past every threshold it reaches (one or two comparisons). The same
/// bytes as [`gamma_byte`] because the byte never falls as the value grows (`powf` is
/// monotone: checked for every `f32` in 0 ..= 1 on this machine's glibc, and the test
/// `the_gamma_table_gives_the_bytes_of_powf` checks values on both sides of every threshold).
struct Gamma {
    /// `from[b]`: the least value whose byte is at least `b` (`from[0]` = 0).
    from: [f32; 256],
    /// The byte at `k / BUCKETS`, for `k` in 0 ..= `BUCKETS`.
    start: Vec<u8>,
}

impl Gamma {
    /// Buckets of the value (a power of two: `v * BUCKETS` and `k / BUCKETS` are exact).
    const BUCKETS: usize = 1024;

    /// The table, made once.
    fn get() -> &'static Gamma {
        static GAMMA: std::sync::OnceLock<Gamma> = std::sync::OnceLock::new();
        GAMMA.get_or_init(Gamma::new)
    }

    fn new() -> Gamma {
        let mut from = [0.0f32; 256];
        for (b, from) in from.iter_mut().enumerate().skip(1) {
            // Over the bits of the floats in 0 ..= 1, ordered as their values: the byte of
            // `lo` is below `b`, the byte of `hi` at least `b` (1.0's is 255).
            let (mut lo, mut hi) = (0u32, 1.0f32.to_bits());
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if usize::from(gamma_byte(f32::from_bits(mid))) >= b {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            *from = f32::from_bits(hi);
        }
        let start = (0..=Self::BUCKETS)
            .map(|k| gamma_byte(k as f32 / Self::BUCKETS as f32))
            .collect();
        Gamma { from, start }
    }

    /// [`gamma_byte`] of `v`.
    #[inline]
    fn byte(&self, v: f32) -> u8 {
        // NaN stays NaN: bucket 0, below every threshold, byte 0 as `gamma_byte` gives.
        let v = v.clamp(0.0, 1.0);
        let mut b = self.start[(v * Self::BUCKETS as f32) as usize];
        while b < 255 && v >= self.from[usize::from(b) + 1] {
            b += 1;
        }
        b
    }
}

fn p_to_f32(p: [u8; 3]) -> [f32; 3] {
    p.map(|v| f32::from(v) / 255.0)
}

/// Writes `preview3d.png` into `out`.
pub fn write_preview3d(
    out: &mut OutDir,
    world: &World,
    options: &PreviewOptions,
) -> Result<(), ExportError> {
    let image = preview3d(world, options)?;
    out.write(FILE, |w| crate::png::write_rgb8(w, image.view()))?;
    Ok(())
}

/// [`write_preview3d`] of a [`PreviewTerrain`] made earlier, with the trees at `trees` (map
/// units) rather than the world's `flora_xy` layer ([`render_with_trees`]).
pub fn write_rendered_with_trees(
    out: &mut OutDir,
    world: &World,
    terrain: PreviewTerrain,
    trees: &[[f64; 2]],
    options: &PreviewOptions,
) -> Result<(), ExportError> {
    let image = render_with_trees(world, terrain, trees.iter().copied(), options)?;
    out.write(FILE, |w| crate::png::write_rgb8(w, image.view()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::WorldMeta;

    #[test]
    fn the_gamma_table_gives_the_bytes_of_powf() {
        let gamma = Gamma::new();
        let check = |v: f32| assert_eq!(gamma.byte(v), gamma_byte(v), "{v:e} ({:#x})", v.to_bits());
        // Every threshold and the floats on either side, where a wrong table would show.
        for b in 1..256 {
            let t = gamma.from[b].to_bits();
            assert!(
                gamma_byte(f32::from_bits(t)) as usize >= b
                    && gamma_byte(f32::from_bits(t - 1)) as usize == b - 1,
                "{b}"
            );
            for bits in t.saturating_sub(3)..=t + 3 {
                check(f32::from_bits(bits));
            }
        }
        // A spread of every magnitude in 0 ..= 1, and what the clamp and NaN give.
        for bits in (0..=1.0f32.to_bits()).step_by(4093) {
            check(f32::from_bits(bits));
        }
        for v in [
            f32::NAN,
            -1.0,
            -0.0,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0,
            0.5,
        ] {
            check(v);
        }
    }

    /// Ridges and pits of every height over a sea: steps hidden behind nearer ground and
    /// steps in front of it, in every block.
    #[test]
    fn skipping_the_steps_below_their_block_s_peak_changes_no_byte() {
        let w = crate::test_worlds::shaped(60, 9, WorldMeta::default(), |x, y| {
            ((x * 23.0).sin() * (y * 17.0).cos() + 0.6 * (y * 41.0 + x * 7.0).sin()) as f32
        });
        for exaggeration in [1.0, 4.0, 20.0] {
            let options = PreviewOptions {
                width: 320,
                exaggeration,
                ..PreviewOptions::default()
            };
            let terrain = preview_terrain(&w, &options).unwrap();
            // The same scene with peaks that skip nothing.
            let mut open = PreviewTerrain {
                scene: terrain.scene.clone(),
            };
            open.scene.peaks.fill(f32::INFINITY);
            assert!(terrain.scene.peaks.len() > 20 && terrain.scene.peaks.iter().any(|&p| p > 0.0));
            let trees = [[0.3, 0.4], [0.7, 0.2]];
            let skipped = render_with_trees(&w, terrain, trees, &options).unwrap();
            let every = render_with_trees(&w, open, trees, &options).unwrap();
            assert_eq!(skipped, every, "exaggeration {exaggeration}");
        }
    }

    /// A hill in the middle of a sea.
    fn world() -> World {
        crate::test_worlds::shaped(30, 5, WorldMeta::default(), |x, y| {
            (1.0 - 8.0 * ((x - 0.5).powi(2) + (y - 0.5).powi(2))).clamp(-1.0, 1.0) as f32
        })
    }

    #[test]
    fn same_bytes_for_one_and_two_threads_and_the_hill_shows() {
        let w = world();
        let options = PreviewOptions {
            width: 160,
            ..PreviewOptions::default()
        };
        let render = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| preview3d(&w, &options).unwrap())
        };
        let one = render(1);
        assert_eq!(one.dim(), (90, 160, 3));
        assert_eq!(one, render(2));
        // The middle column shows sky at the top, then land (green/brown: red > blue), then sea
        // (blue > red) near the bottom.
        let col = 80;
        let top = [0, 1, 2].map(|k| one[[0, col, k]]);
        assert!(top[2] > top[0], "sky {top:?}");
        let land = (0..90).any(|r| one[[r, col, 0]] > one[[r, col, 2]] + 10);
        assert!(land, "no land in the middle column");
        let bottom = [0, 1, 2].map(|k| one[[89, col, k]]);
        assert!(bottom[2] > bottom[0], "sea {bottom:?}");
        assert!(
            preview3d(
                &w,
                &PreviewOptions {
                    width: 8,
                    ..options
                }
            )
            .is_err()
        );
    }
}
