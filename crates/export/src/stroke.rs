//! The river stroke: one geometry and one rasteriser for every river orogen draws (the colour
//! map, the biome map, `rivers.png`, `preview3d.png` and the glTF's colours through the colour
//! map, the classic landscape; the playground takes the geometry for its WebGL view).
//!
//! Geometry ([`river_strokes`]): each river of the `rivers` layer is split where it crosses a
//! lake (`river_on_lake`) into pieces; each piece is a centripetal Catmull-Rom curve through its
//! corner positions, sampled [`StrokeStyle::samples`] times a segment, so the curve passes
//! through every corner and a tributary's end lies on the centreline of the river it joins.
//! An optional seeded meander bends each segment sideways by at most
//! [`StrokeStyle::meander`] of its length (`sin^2` along it: zero, with zero slope, at the
//! corners), so a river never leaves its valley. Half-widths (map units) come from
//! `river_width` (metres from flow, computed by the hydrology stage); a river starting at a
//! source tapers linearly from a point to its width over its first segment; a tributary keeps its
//! own width to the junction (its round end lies inside the wider river); a piece that ends at
//! the sea or in a lake goes on beyond its last corner toward the site of the water region that
//! corner touches, [`EXTEND`] of the way (and one that leaves a lake starts as far inside it), so
//! that clipping the strokes to land ([`crate::colormap::water_coverage`]) ends them exactly on
//! the shore, without a gap. The extension stays inside that region's Voronoi cell (convex, and
//! holding both the corner and the site), so it never crosses a narrow lake and comes out on
//! land beyond it; it has no meander.
//!
//! Raster ([`stroke_coverage`]): each sampled segment is a capsule whose radius varies linearly
//! along it; a pixel's coverage is `clamp(r + 0.5 - d, 0, 1)` for the distance `d` from its centre
//! to the segment (one-pixel antialiasing); strokes thinner than a pixel (`r < 0.5`) draw a
//! one-pixel line at intensity `2 r`, so they fade rather than break up. Strokes combine by
//! maximum, so the result does not depend on the drawing order; bands of rows run in parallel,
//! the same bytes for any thread count.

use orogen_world::World;
use orogen_world::ids::water;
use orogen_world::seed::{item_seed, stage_seed};
use rayon::prelude::*;

use crate::ExportError;
use crate::grid::{PixelGrid, Sampling};

/// How far a piece ending in water reaches past its last corner before the water clips it: this
/// share of the way toward the site of the water region the corner touches (or, with no such
/// region, of the last segment's length, straight on).
pub const EXTEND: f64 = 0.75;

/// Rows per band of the parallel rasteriser.
const BAND: usize = 16;

/// How river strokes are shaped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrokeStyle {
    /// Centreline points per corner-to-corner segment (1 = straight segments). Default: 8.
    pub samples: usize,
    /// The meander's largest sideways bend, as a fraction of the segment's length (0 = none).
    /// Default: 0.12.
    pub meander: f64,
}

impl Default for StrokeStyle {
    fn default() -> Self {
        StrokeStyle {
            samples: 8,
            meander: 0.12,
        }
    }
}

/// One point of a stroke's centreline: position and half-width, map units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrokePoint {
    /// x in map units.
    pub x: f64,
    /// y in map units (down, south).
    pub y: f64,
    /// Half the river's width here, in map units.
    pub half_width: f64,
    /// Where the point lies along the stroke's corners: `k + t` between corners `k` and `k + 1`
    /// (below 0 and beyond the last corner on the parts extended into water). Per-corner data
    /// (elevation for a 3-D view) interpolates by it.
    pub along: f64,
}

/// Where a stroke ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrokeEnd {
    /// At the sea (or the map's edge): extended past the mouth, to be clipped by the water.
    Mouth,
    /// In a lake: extended past the shore, to be clipped by the water.
    Lake,
    /// On the centreline of another river.
    Join,
}

/// One drawn piece of a river: from its source (or a lake's outlet) to its mouth, a lake or the
/// river it joins.
#[derive(Clone, Debug, PartialEq)]
pub struct Stroke {
    /// The river's index in the `rivers` layer.
    pub river: usize,
    /// True when the piece starts at the river's source (tapered from a point); false when it
    /// leaves a lake (extended into it).
    pub from_source: bool,
    /// Where the piece ends.
    pub end: StrokeEnd,
    /// The corners of the piece (indices into the mesh's corners), in order.
    pub corners: Vec<u32>,
    /// The sampled centreline, source first.
    pub points: Vec<StrokePoint>,
}

/// The strokes of a world's rivers (layers `rivers`, `river_width`, `river_on_lake`); a world
/// without `river_width` draws every river a thousandth of the map wide, one without
/// `river_on_lake` draws it across lakes.
pub fn river_strokes(world: &World, style: &StrokeStyle) -> Result<Vec<Stroke>, ExportError> {
    if !world.has_layer("rivers") {
        return Ok(Vec::new());
    }
    let mesh = world.mesh()?;
    let offsets = world.offsets("rivers")?.to_vec();
    let corners: Vec<u32> = world.view::<u32>("rivers")?.iter().copied().collect();
    let n = corners.len();
    let ragged = |name: &str| -> Result<Option<Vec<f64>>, ExportError> {
        if !world.has_layer(name) {
            return Ok(None);
        }
        let v: Vec<f64> = match world.view::<f32>(name) {
            Ok(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Err(_) => world
                .view::<u8>(name)?
                .iter()
                .map(|&x| f64::from(x))
                .collect(),
        };
        if v.len() != n {
            return Err(bad(
                name,
                format!("has {} values for {n} river vertices", v.len()),
            ));
        }
        Ok(Some(v))
    };
    let width = ragged("river_width")?
        .unwrap_or_else(|| vec![1e-3 * world.meta.width.max(world.meta.height); n]);
    let on_lake = ragged("river_on_lake")?.unwrap_or_else(|| vec![0.0; n]);
    let kinds = if world.has_layer("region_water") {
        let kinds = world.water_kinds()?;
        if kinds.len() != mesh.n_regions() {
            return Err(bad(
                "region_water",
                format!(
                    "has {} values for {} regions",
                    kinds.len(),
                    mesh.n_regions()
                ),
            ));
        }
        Some(kinds)
    } else {
        None
    };
    if let Some(&c) = corners.iter().find(|&&c| c as usize >= mesh.n_corners()) {
        return Err(bad("rivers", format!("corner {c} is out of range")));
    }
    let seed = stage_seed(world.meta.seed, "river_stroke");
    let mut on_river = vec![false; mesh.n_corners()];
    // Cut the rivers into pieces in order (where a river ends depends on the earlier ones),
    // then sample the pieces in parallel.
    let mut pieces = Vec::new();
    for (river, w) in offsets.windows(2).enumerate() {
        let (s, e) = (w[0] as usize, w[1] as usize);
        if s > e || e > n {
            return Err(bad("rivers", "has offsets beyond its values".into()));
        }
        if e - s < 2 {
            continue;
        }
        // A river ends at another river when its last corner lies on an earlier one's drawn
        // stroke.
        let joins = on_river[corners[e - 1] as usize];
        let river_seed = item_seed(seed, river as u64);
        let mut start = s;
        let mut from_source = true;
        let mut k = s;
        while k < e {
            // The piece runs from `start` to the first vertex whose next segment is on a lake.
            if on_lake[k] != 0.0 || k == e - 1 {
                let end = if k == e - 1 && on_lake[k] == 0.0 {
                    if joins {
                        StrokeEnd::Join
                    } else {
                        StrokeEnd::Mouth
                    }
                } else {
                    StrokeEnd::Lake
                };
                if k > start {
                    let piece = Piece {
                        corners: &corners[start..=k],
                        widths: &width[start..=k],
                        from_source,
                        end,
                        seed: river_seed,
                        first_segment: start - s,
                    };
                    pieces.push((piece, river));
                    // Only drawn corners: a river that reaches another on its lake part ends
                    // in the lake, not at a junction.
                    for &c in &corners[start..=k] {
                        on_river[c as usize] = true;
                    }
                }
                // Skip the segments on the lake; the next piece starts at the outlet.
                while k < e - 1 && on_lake[k] != 0.0 {
                    k += 1;
                }
                start = k;
                from_source = false;
                if k == e - 1 {
                    break;
                }
            }
            k += 1;
        }
    }
    Ok(pieces
        .par_iter()
        .map(|(piece, river)| piece.stroke(mesh, kinds.as_deref(), style, *river))
        .collect())
}

fn bad(name: &str, problem: String) -> ExportError {
    orogen_world::WorldError::BadLayer {
        name: name.into(),
        problem,
    }
    .into()
}

/// One piece of a river before sampling.
struct Piece<'a> {
    corners: &'a [u32],
    widths: &'a [f64],
    from_source: bool,
    end: StrokeEnd,
    seed: u64,
    /// The index of the piece's first segment within its river (seeds the meander).
    first_segment: usize,
}

impl Piece<'_> {
    fn stroke(
        &self,
        mesh: &orogen_world::DualMesh,
        kinds: Option<&[u8]>,
        style: &StrokeStyle,
        river: usize,
    ) -> Stroke {
        let xy = |c: u32| {
            [
                mesh.corner_xy[[c as usize, 0]],
                mesh.corner_xy[[c as usize, 1]],
            ]
        };
        let mut pts: Vec<[f64; 2]> = self.corners.iter().map(|&c| xy(c)).collect();
        let mut half: Vec<f64> = self.widths.iter().map(|w| 0.5 * w.max(0.0)).collect();
        let m = pts.len();
        if self.end == StrokeEnd::Join && m >= 2 {
            // A tributary keeps its own width to the junction.
            half[m - 1] = half[m - 2];
        }
        // From corner `c` at `b` (reached from `a`) into the water it touches: toward the site
        // of its water region most ahead, else straight on.
        let extend = |c: u32, a: [f64; 2], b: [f64; 2]| {
            let ahead = [b[0] - a[0], b[1] - a[1]];
            let site = kinds.and_then(|kinds| {
                mesh.corner_regions
                    .row(c as usize)
                    .iter()
                    .filter(|&&r| kinds[r as usize] != water::LAND)
                    .map(|&r| {
                        let r = r as usize;
                        [mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]]
                    })
                    .max_by(|p, q| {
                        let dot =
                            |p: &[f64; 2]| (p[0] - b[0]) * ahead[0] + (p[1] - b[1]) * ahead[1];
                        dot(p).total_cmp(&dot(q))
                    })
            });
            let to = site.unwrap_or([b[0] + ahead[0], b[1] + ahead[1]]);
            [
                b[0] + EXTEND * (to[0] - b[0]),
                b[1] + EXTEND * (to[1] - b[1]),
            ]
        };
        let mut lead = 0;
        if !self.from_source {
            let before = extend(self.corners[0], pts[1], pts[0]);
            pts.insert(0, before);
            half.insert(0, half[0]);
            lead = 1;
        }
        let trail = matches!(self.end, StrokeEnd::Mouth | StrokeEnd::Lake);
        if trail {
            let m = pts.len();
            let after = extend(self.corners[self.corners.len() - 1], pts[m - 2], pts[m - 1]);
            pts.push(after);
            half.push(half[m - 1]);
        }
        let n_segments = pts.len() - 1;
        let points = sample(
            &pts,
            &half,
            style,
            |seg| {
                // No meander on the extensions into water.
                if seg < lead || (trail && seg + 1 == n_segments) {
                    return 0.0;
                }
                // The meander's bend of each segment, seeded by its index within the river.
                let k = (self.first_segment + seg) as i64 - lead as i64;
                let h = item_seed(self.seed, k as u64);
                ((h >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            },
            self.from_source,
            lead,
        );
        Stroke {
            river,
            from_source: self.from_source,
            end: self.end,
            corners: self.corners.to_vec(),
            points,
        }
    }
}

/// The smooth centreline of one stroke through `points` (map units) of constant half-width:
/// the centripetal Catmull-Rom curve, `samples` points a segment, no meander and no taper (the
/// classic landscape's rivers, traced on a raster).
pub fn smooth_stroke(points: &[[f64; 2]], half_width: f64, samples: usize) -> Vec<StrokePoint> {
    match points.len() {
        0 => Vec::new(),
        1 => vec![StrokePoint {
            x: points[0][0],
            y: points[0][1],
            half_width,
            along: 0.0,
        }],
        n => {
            let style = StrokeStyle {
                samples,
                meander: 0.0,
            };
            sample(points, &vec![half_width; n], &style, |_| 0.0, false, 0)
        }
    }
}

/// Samples the centripetal Catmull-Rom curve through `pts` (end tangents by reflection),
/// `style.samples` points a segment, with half-widths interpolated linearly per segment,
/// bent sideways by `bend(segment) x style.meander x length x sin^2(pi t)`, and tapered from a
/// point over the first segment when `taper`; `lead` points come before the first corner.
fn sample(
    pts: &[[f64; 2]],
    half: &[f64],
    style: &StrokeStyle,
    bend: impl Fn(usize) -> f64,
    taper: bool,
    lead: usize,
) -> Vec<StrokePoint> {
    let n = pts.len();
    let steps = style.samples.max(1);
    let mut out = Vec::with_capacity((n - 1) * steps + 1);
    let get = |i: isize| -> [f64; 2] {
        if i < 0 {
            let (a, b) = (pts[0], pts[1]);
            [2.0 * a[0] - b[0], 2.0 * a[1] - b[1]]
        } else if i as usize >= n {
            let (a, b) = (pts[n - 1], pts[n - 2]);
            [2.0 * a[0] - b[0], 2.0 * a[1] - b[1]]
        } else {
            pts[i as usize]
        }
    };
    for i in 0..n - 1 {
        let (p0, p1, p2, p3) = (get(i as isize - 1), pts[i], pts[i + 1], get(i as isize + 2));
        let len = (p2[0] - p1[0]).hypot(p2[1] - p1[1]);
        let amp = bend(i) * style.meander * len;
        let (nx, ny) = if len > 0.0 {
            (-(p2[1] - p1[1]) / len, (p2[0] - p1[0]) / len)
        } else {
            (0.0, 0.0)
        };
        for k in 0..steps {
            let t = k as f64 / steps as f64;
            let [x, y] = centripetal(p0, p1, p2, p3, t);
            let s = (std::f64::consts::PI * t).sin();
            let off = amp * s * s;
            let mut hw = half[i] + (half[i + 1] - half[i]) * t;
            if taper && i == 0 {
                hw *= t;
            }
            out.push(StrokePoint {
                x: x + off * nx,
                y: y + off * ny,
                half_width: hw,
                along: i as f64 + t - lead as f64,
            });
        }
    }
    let last = pts[n - 1];
    out.push(StrokePoint {
        x: last[0],
        y: last[1],
        half_width: half[n - 1],
        along: (n - 1) as f64 - lead as f64,
    });
    out
}

/// The centripetal (alpha = 1/2) Catmull-Rom segment from `p1` to `p2` at `t` in 0 ..= 1
/// (Barry and Goldman's pyramid; knots at the square roots of the chord lengths).
fn centripetal(p0: [f64; 2], p1: [f64; 2], p2: [f64; 2], p3: [f64; 2], t: f64) -> [f64; 2] {
    let knot = |a: [f64; 2], b: [f64; 2]| ((b[0] - a[0]).hypot(b[1] - a[1])).sqrt().max(1e-12);
    let t0 = 0.0;
    let t1 = t0 + knot(p0, p1);
    let t2 = t1 + knot(p1, p2);
    let t3 = t2 + knot(p2, p3);
    let u = t1 + (t2 - t1) * t;
    let lerp = |a: [f64; 2], b: [f64; 2], ta: f64, tb: f64| {
        let w = (u - ta) / (tb - ta);
        [a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w]
    };
    let a1 = lerp(p0, p1, t0, t1);
    let a2 = lerp(p1, p2, t1, t2);
    let a3 = lerp(p2, p3, t2, t3);
    let b1 = lerp(a1, a2, t0, t2);
    let b2 = lerp(a2, a3, t1, t3);
    lerp(b1, b2, t1, t2)
}

/// Map units to the grid's pixel coordinates, in which pixel (i, j) is centred at (i, j).
pub(crate) fn to_pixels(grid: &PixelGrid) -> (f64, f64, f64) {
    match grid.sampling {
        Sampling::PixelCentres => (
            grid.nx as f64 / grid.width,
            grid.ny as f64 / grid.height,
            -0.5,
        ),
        Sampling::Vertices => (
            (grid.nx - 1).max(1) as f64 / grid.width,
            (grid.ny - 1).max(1) as f64 / grid.height,
            0.0,
        ),
    }
}

/// A stroke segment in pixel coordinates: end points and radii.
#[derive(Clone, Copy)]
struct Capsule {
    a: [f64; 2],
    b: [f64; 2],
    ra: f64,
    rb: f64,
}

/// The strokes as drawn over `water` (the water share of each pixel of `grid`, `ny x nx`, as
/// [`crate::colormap::water_coverage`] gives it): each stroke is cut where its centreline enters
/// a mostly-water pixel, and keeps the runs of its centreline on land that hold part of its
/// corners' course, each reaching half-way to its first point in the water on either side so
/// that [`clip_coverage`] ends it on the shore. A river crossing a sliver of water is two strokes (it
/// enters the water and leaves it); the part of an extension into water that comes out on land
/// beyond it (a narrow lake, a pond beside the mouth) is dropped. Split strokes keep their river;
/// a part that ends in water ends as [`StrokeEnd::Lake`] and a part that starts there is not
/// `from_source`; each lists the corners its course passes.
pub fn land_strokes(strokes: &[Stroke], water: &[f32], grid: &PixelGrid) -> Vec<Stroke> {
    land_strokes_by(strokes, |k| water[k], grid)
}

/// [`land_strokes`] with the water share of pixel `k` (row-major) computed by `water`.
pub(crate) fn land_strokes_by(
    strokes: &[Stroke],
    water: impl Fn(usize) -> f32,
    grid: &PixelGrid,
) -> Vec<Stroke> {
    let (nx, ny) = (grid.nx, grid.ny);
    let (sx, sy, off) = to_pixels(grid);
    let wet = |p: &StrokePoint| -> bool {
        let (i, j) = ((p.x * sx + off).round(), (p.y * sy + off).round());
        i >= 0.0
            && j >= 0.0
            && i < nx as f64
            && j < ny as f64
            && water(j as usize * nx + i as usize) >= WET
    };
    let mut out = Vec::with_capacity(strokes.len());
    for s in strokes {
        let last_corner = s.corners.len().saturating_sub(1) as f64;
        let n = s.points.len();
        let mut k = 0;
        let mut runs = Vec::new();
        while k < n {
            if wet(&s.points[k]) {
                k += 1;
                continue;
            }
            let start = k;
            while k < n && !wet(&s.points[k]) {
                k += 1;
            }
            let (a, b) = (start, k - 1);
            let (lo, hi) = (s.points[a].along, s.points[b].along);
            if hi >= 0.0 && lo <= last_corner {
                runs.push((a, b));
            }
        }
        let whole = runs.len() == 1 && runs[0] == (0, n - 1);
        if whole {
            out.push(s.clone());
            continue;
        }
        for (a, b) in runs {
            // Half-way to the first wet point on either side: the clip ends the stroke at the
            // shore, and its round end reaches no further.
            let mid = |p: &StrokePoint, q: &StrokePoint| StrokePoint {
                x: 0.5 * (p.x + q.x),
                y: 0.5 * (p.y + q.y),
                half_width: 0.5 * (p.half_width + q.half_width),
                along: 0.5 * (p.along + q.along),
            };
            let mut points = Vec::with_capacity(b - a + 3);
            if a > 0 {
                points.push(mid(&s.points[a - 1], &s.points[a]));
            }
            points.extend_from_slice(&s.points[a..=b]);
            if b + 1 < n {
                points.push(mid(&s.points[b], &s.points[b + 1]));
            }
            let (lo, hi) = (s.points[a].along, s.points[b].along);
            let corners = s
                .corners
                .iter()
                .enumerate()
                .filter(|&(c, _)| (c as f64) >= lo.floor() && (c as f64) <= hi.ceil())
                .map(|(_, &c)| c)
                .collect();
            out.push(Stroke {
                river: s.river,
                from_source: s.from_source && a == 0,
                end: if b == n - 1 { s.end } else { StrokeEnd::Lake },
                corners,
                points,
            });
        }
    }
    out
}

/// The water share from which a pixel counts as water: strokes are cut there, and
/// [`clip_coverage`] draws nothing on it.
pub const WET: f32 = 0.5;

/// Clips stroke coverage to land: nothing on a mostly-water pixel ([`WET`]), and the shore's
/// own pixels fade by their land share.
pub fn clip_coverage(cover: &mut [f32], water: &[f32]) {
    let n = cover.len().min(water.len());
    clip_coverage_by(&mut cover[..n], |k| water[k]);
}

/// [`clip_coverage`] with the water share of pixel `k` computed by `water`.
pub(crate) fn clip_coverage_by(cover: &mut [f32], water: impl Fn(usize) -> f32 + Sync) {
    cover.par_iter_mut().enumerate().for_each(|(k, c)| {
        // No stroke reaches most pixels: nothing to clip there, and no water share to compute.
        if *c == 0.0 {
            return;
        }
        let w = water(k);
        *c = if w >= WET { 0.0 } else { *c * (1.0 - w) }
    });
}

/// The coverage (0 ..= 1, `ny x nx` row-major) of `strokes` on `grid`, combined by maximum.
pub fn stroke_coverage(strokes: &[Stroke], grid: &PixelGrid) -> Vec<f32> {
    let (nx, ny) = (grid.nx, grid.ny);
    let (sx, sy, off) = to_pixels(grid);
    let mut capsules = Vec::new();
    for s in strokes {
        for w in s.points.windows(2) {
            capsules.push(Capsule {
                a: [w[0].x * sx + off, w[0].y * sy + off],
                b: [w[1].x * sx + off, w[1].y * sy + off],
                ra: w[0].half_width * sx,
                rb: w[1].half_width * sx,
            });
        }
    }
    let n_bands = ny.div_ceil(BAND);
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); n_bands];
    for (i, c) in capsules.iter().enumerate() {
        let reach = c.ra.max(c.rb).max(0.5) + 1.0;
        let lo = (c.a[1].min(c.b[1]) - reach).floor();
        let hi = (c.a[1].max(c.b[1]) + reach).ceil();
        if hi < 0.0 || lo > (ny - 1) as f64 || !(lo.is_finite() && hi.is_finite()) {
            continue;
        }
        let (lo, hi) = (
            lo.max(0.0) as usize / BAND,
            (hi as usize).min(ny - 1) / BAND,
        );
        for bin in &mut bins[lo..=hi] {
            bin.push(i as u32);
        }
    }
    let mut cover = vec![0.0f32; nx * ny];
    cover
        .par_chunks_mut(nx * BAND)
        .zip(bins.par_iter())
        .enumerate()
        .for_each(|(band, (chunk, bin))| {
            let row0 = band * BAND;
            let rows = chunk.len() / nx;
            // Written before the capsules read it: a fresh zeroed page read first is mapped
            // to the shared zero page, then copied on the first write (a second fault and a
            // TLB shootdown across the threads).
            if !bin.is_empty() {
                chunk.fill(0.0);
            }
            for &i in bin {
                draw_capsule(&capsules[i as usize], chunk, nx, row0, rows);
            }
        });
    cover
}

/// Max-combines one capsule's coverage into rows `row0 .. row0 + rows` (`chunk`).
fn draw_capsule(c: &Capsule, chunk: &mut [f32], nx: usize, row0: usize, rows: usize) {
    let reach = c.ra.max(c.rb).max(0.5) + 1.0;
    let x0 = (c.a[0].min(c.b[0]) - reach).floor().max(0.0);
    let x1 = (c.a[0].max(c.b[0]) + reach).ceil().min((nx - 1) as f64);
    let y0 = (c.a[1].min(c.b[1]) - reach).floor().max(row0 as f64);
    let y1 = (c.a[1].max(c.b[1]) + reach)
        .ceil()
        .min((row0 + rows - 1) as f64);
    if !(x0 <= x1 && y0 <= y1) {
        return;
    }
    let (dx, dy) = (c.b[0] - c.a[0], c.b[1] - c.a[1]);
    let len2 = dx * dx + dy * dy;
    for j in y0 as usize..=y1 as usize {
        let py = j as f64;
        let row = &mut chunk[(j - row0) * nx..(j - row0 + 1) * nx];
        for (i, px) in row
            .iter_mut()
            .enumerate()
            .take(x1 as usize + 1)
            .skip(x0 as usize)
        {
            let x = i as f64;
            let t = if len2 > 0.0 {
                (((x - c.a[0]) * dx + (py - c.a[1]) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (qx, qy) = (c.a[0] + t * dx - x, c.a[1] + t * dy - py);
            let d = (qx * qx + qy * qy).sqrt();
            let r = c.ra + t * (c.rb - c.ra);
            let v = if r >= 0.5 {
                (r + 0.5 - d).clamp(0.0, 1.0)
            } else {
                2.0 * r.max(0.0) * (1.0 - d).clamp(0.0, 1.0)
            } as f32;
            if v > *px {
                *px = v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(points: &[(f64, f64, f64)]) -> Stroke {
        Stroke {
            river: 0,
            from_source: false,
            end: StrokeEnd::Join,
            corners: Vec::new(),
            points: points
                .iter()
                .map(|&(x, y, half_width)| StrokePoint {
                    x,
                    y,
                    half_width,
                    along: 0.0,
                })
                .collect(),
        }
    }

    #[test]
    fn a_horizontal_stroke_covers_its_band_with_soft_edges() {
        let grid = PixelGrid::centres(20, 1.0, 1.0).unwrap();
        // Along y = 0.5 (pixel row 9.5), half-width 0.11 (2.2 px).
        let cover = stroke_coverage(&[line(&[(0.1, 0.5, 0.11), (0.7, 0.5, 0.11)])], &grid);
        let at = |i: usize, j: usize| cover[j * 20 + i];
        assert_eq!(at(10, 9), 1.0);
        assert_eq!(at(10, 10), 1.0);
        assert_eq!(at(10, 8), 1.0);
        assert_eq!(at(10, 0), 0.0);
        assert_eq!(at(19, 10), 0.0);
        // Row 7's centre is 2.5 px from the axis: coverage 2.2 + 0.5 - 2.5.
        assert!((at(10, 7) - 0.2).abs() < 1e-5, "{}", at(10, 7));
        assert_eq!(at(10, 7), at(10, 12));
        assert_eq!(at(10, 6), 0.0);
    }

    #[test]
    fn thin_strokes_fade_instead_of_breaking() {
        let grid = PixelGrid::centres(20, 1.0, 1.0).unwrap();
        // Half-width 0.25 px along the centre of row 10.
        let y = 10.5 / 20.0;
        let cover = stroke_coverage(&[line(&[(0.1, y, 0.0125), (0.9, y, 0.0125)])], &grid);
        for i in 3..17 {
            assert!((cover[10 * 20 + i] - 0.5).abs() < 1e-5);
            assert_eq!(cover[9 * 20 + i], 0.0);
        }
    }

    #[test]
    fn centripetal_catmull_rom_passes_through_its_points() {
        let pts = [[0.0, 0.0], [1.0, 0.2], [2.0, -0.3], [3.5, 0.0]];
        let half = [0.1, 0.1, 0.2, 0.3];
        let style = StrokeStyle {
            samples: 5,
            meander: 0.0,
        };
        let out = sample(&pts, &half, &style, |_| 1.0, true, 0);
        assert_eq!(out.len(), 3 * 5 + 1);
        for (i, p) in pts.iter().enumerate() {
            let q = out[i * 5];
            assert!(
                (q.x - p[0]).abs() < 1e-12 && (q.y - p[1]).abs() < 1e-12,
                "{i}"
            );
        }
        // Tapered from a point over the first segment, then the given widths.
        assert_eq!(out[0].half_width, 0.0);
        assert!((out[5].half_width - 0.1).abs() < 1e-12);
        assert!((out[15].half_width - 0.3).abs() < 1e-12);
        // Sample spacing stays even: no loops or cusps.
        for w in out.windows(2) {
            let d = (w[1].x - w[0].x).hypot(w[1].y - w[0].y);
            assert!(d > 0.05 && d < 0.6, "{d}");
        }
    }

    #[test]
    fn the_meander_stays_within_its_fraction_of_the_segment() {
        let pts = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]];
        let half = [0.1; 3];
        let style = StrokeStyle {
            samples: 16,
            meander: 0.12,
        };
        let out = sample(
            &pts,
            &half,
            &style,
            |s| if s == 0 { 1.0 } else { -1.0 },
            false,
            0,
        );
        let max = out.iter().map(|p| p.y.abs()).fold(0.0, f64::max);
        assert!((max - 0.12).abs() < 1e-9, "{max}");
        assert!(out[1..16].iter().all(|p| p.y > 0.0));
        assert!(out[17..32].iter().all(|p| p.y < 0.0));
        assert_eq!((out[0].y, out[16].y, out[32].y), (0.0, 0.0, 0.0));
    }

    #[test]
    fn coverage_is_the_same_for_any_thread_count() {
        let grid = PixelGrid::centres(300, 1.0, 1.0).unwrap();
        let strokes: Vec<Stroke> = (0..40)
            .map(|k| {
                let a = k as f64 * 0.15;
                line(&[
                    (0.5, 0.5, 0.001),
                    (
                        0.5 + 0.4 * a.cos(),
                        0.5 + 0.4 * a.sin(),
                        0.002 + 0.0003 * k as f64,
                    ),
                ])
            })
            .collect();
        let run = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| stroke_coverage(&strokes, &grid))
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert!(one.iter().filter(|&&v| v > 0.0).count() > 1000);
    }

    /// A stroke crossing a band of water is cut into two strokes that reach half-way into it;
    /// the part of an extension that comes out on land beyond the water is dropped.
    #[test]
    fn land_strokes_cut_at_water_and_drop_what_lies_beyond() {
        let grid = PixelGrid::centres(40, 1.0, 1.0).unwrap();
        // Water in columns 18..=21 and 34..=35.
        let water: Vec<f32> = (0..40 * 40)
            .map(|i| f32::from(u8::from(matches!(i % 40, 18..=21 | 34..=35))))
            .collect();
        // Points 2 px apart from x = 0.1; the first 16 are corners, the last two an extension.
        let mut s = line(
            &(0..=17)
                .map(|k| (0.05 * k as f64 + 0.1, 0.5, 0.01))
                .collect::<Vec<_>>(),
        );
        for (k, p) in s.points.iter_mut().enumerate() {
            p.along = k as f64;
        }
        s.corners = (0..=15).collect();
        s.from_source = true;
        s.end = StrokeEnd::Lake;
        let out = land_strokes(&[s], &water, &grid);
        assert_eq!(out.len(), 2, "{out:#?}");
        let px = |p: &StrokePoint| p.x * 40.0 - 0.5;
        // The first ends half-way to its first point in the band (15.5 -> 17.5 px), the second
        // starts half-way from its last one (19.5 -> 21.5 px).
        assert_eq!(px(out[0].points.last().unwrap()), 16.5);
        assert_eq!(px(&out[1].points[0]), 20.5);
        assert!(out[0].from_source && !out[1].from_source);
        assert_eq!(out[0].end, StrokeEnd::Lake);
        // The land beyond the second band holds only the extension (along > 15): dropped.
        assert!(out[1].points.iter().all(|p| px(p) < 35.0));
        assert!(out.iter().all(|o| !o.corners.is_empty()));
        let mut cover = stroke_coverage(&out, &grid);
        clip_coverage(&mut cover, &water);
        assert!((0..40).all(|j| cover[j * 40 + 19] == 0.0 && cover[j * 40 + 37] == 0.0));
    }
}
