//! The map a cartographer would sign (issue 18), on real worlds at 1024 px: river widths grow
//! from a fresh source to the largest river (measured on `rivers.png` by the distance transform
//! of its mask, not from the parameters), no river is drawn inside a lake or the sea, and every
//! river stroke is one connected piece from its source (or a lake's outlet) to its mouth, its
//! lake or the river it joins.

use orogen::{Config, Output};
use orogen_export::colormap::water_coverage;
use orogen_export::grid::PixelGrid;
use orogen_export::stroke::{
    Stroke, StrokeEnd, StrokeStyle, clip_coverage, land_strokes, river_strokes, stroke_coverage,
};
use orogen_world::World;

/// The squared Euclidean distance from every pixel to the nearest pixel where `inside` is false
/// (0 outside), by Felzenszwalb and Huttenlocher's separable lower envelope of parabolas.
fn distance_transform(inside: &[bool], nx: usize, ny: usize) -> Vec<f64> {
    const FAR: f64 = 1e20;
    let mut d: Vec<f64> = inside.iter().map(|&v| if v { FAR } else { 0.0 }).collect();
    let pass = |f: &[f64]| -> Vec<f64> {
        let n = f.len();
        let (mut v, mut z, mut out) = (vec![0usize; n], vec![0.0f64; n + 1], vec![0.0; n]);
        let mut k = 0;
        z[0] = f64::NEG_INFINITY;
        z[1] = f64::INFINITY;
        for q in 1..n {
            let mut s;
            loop {
                let p = v[k];
                s = ((f[q] + (q * q) as f64) - (f[p] + (p * p) as f64)) / (2.0 * (q - p) as f64);
                if s <= z[k] && k > 0 {
                    k -= 1;
                } else {
                    break;
                }
            }
            k += 1;
            v[k] = q;
            z[k] = s;
            z[k + 1] = f64::INFINITY;
        }
        k = 0;
        for (q, o) in out.iter_mut().enumerate() {
            while z[k + 1] < q as f64 {
                k += 1;
            }
            let p = v[k];
            *o = (q as f64 - p as f64).powi(2) + f[p];
        }
        out
    };
    for j in 0..ny {
        let row = pass(&d[j * nx..(j + 1) * nx]);
        d[j * nx..(j + 1) * nx].copy_from_slice(&row);
    }
    for i in 0..nx {
        let col: Vec<f64> = (0..ny).map(|j| d[j * nx + i]).collect();
        for (j, v) in pass(&col).into_iter().enumerate() {
            d[j * nx + i] = v;
        }
    }
    d
}

#[test]
fn the_distance_transform_is_exact_on_a_small_case() {
    // A 5 x 3 block inside a 9 x 7 image: its centre is 2 pixels from the nearest outside one.
    let (nx, ny) = (9, 7);
    let inside: Vec<bool> = (0..nx * ny)
        .map(|k| (2..7).contains(&(k % nx)) && (2..5).contains(&(k / nx)))
        .collect();
    let d = distance_transform(&inside, nx, ny);
    assert_eq!(d[3 * nx + 4], 4.0);
    assert_eq!(d[2 * nx + 2], 1.0);
    assert_eq!(d[0], 0.0);
    // Brute force everywhere.
    for (k, &dk) in d.iter().enumerate() {
        let (i, j) = ((k % nx) as f64, (k / nx) as f64);
        let best = (0..nx * ny)
            .filter(|&o| !inside[o])
            .map(|o| ((o % nx) as f64 - i).powi(2) + ((o / nx) as f64 - j).powi(2))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(dk, best, "pixel {k}");
    }
}

struct Drawn {
    world: World,
    grid: PixelGrid,
    /// `rivers.png` as written.
    mask: Vec<u8>,
    strokes: Vec<Stroke>,
}

/// A default world (50,000 cells, 1024 px) of `seed` (None: the default seed) with its
/// `rivers.png`.
fn drawn(seed: Option<u64>) -> Drawn {
    let mut config = Config::default();
    if let Some(s) = seed {
        config.world.seed = s;
    }
    config.export.outputs = vec![Output::Rivers];
    let world = orogen::generate(&config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    orogen::write_outputs(&world, &config, dir.path()).unwrap();
    let image = image::open(dir.path().join("rivers.png"))
        .unwrap()
        .to_luma8();
    let grid = config.export.grid(&config.world).unwrap();
    assert_eq!(
        (image.width() as usize, image.height() as usize),
        (grid.nx, grid.ny)
    );
    let water = water_coverage(&world, &grid).unwrap();
    let strokes = river_strokes(&world, &StrokeStyle::default()).unwrap();
    let strokes = land_strokes(&strokes, water.as_slice().unwrap(), &grid);
    assert!(strokes.len() > 20, "{} strokes", strokes.len());
    Drawn {
        world,
        grid,
        mask: image.into_raw(),
        strokes,
    }
}

impl Drawn {
    /// A map point in pixel coordinates (pixel (i, j) centred at (i, j)).
    fn px(&self, x: f64, y: f64) -> (f64, f64) {
        (
            x * self.grid.nx as f64 / self.grid.width - 0.5,
            y * self.grid.ny as f64 / self.grid.height - 0.5,
        )
    }
}

#[test]
fn the_widest_river_is_five_times_a_fresh_source_in_rivers_png() {
    let d = drawn(None);
    let (nx, ny) = (d.grid.nx, d.grid.ny);
    // The mask at half coverage and its distance transform; a band w pixels across has
    // distance (w + 1) / 2 at its centre, so the width there is 2 dt - 1.
    let inside: Vec<bool> = d.mask.iter().map(|&v| v >= 128).collect();
    let dt = distance_transform(&inside, nx, ny);
    let width_at = |x: f64, y: f64| -> f64 {
        let (cx, cy) = d.px(x, y);
        let mut best = 0.0f64;
        for j in (cy - 1.5).floor().max(0.0) as usize..=((cy + 1.5).ceil() as usize).min(ny - 1) {
            for i in (cx - 1.5).floor().max(0.0) as usize..=((cx + 1.5).ceil() as usize).min(nx - 1)
            {
                best = best.max(dt[j * nx + i].sqrt());
            }
        }
        (2.0 * best - 1.0).max(0.0)
    };
    let samples = StrokeStyle::default().samples;
    // A fresh source: one segment below it, where the taper ends (on land: a source whose
    // first segment ends in a lake or the sea is drawn up to the shore only).
    let water = water_coverage(&d.world, &d.grid).unwrap();
    let water = water.as_slice().unwrap();
    let dry = |x: f64, y: f64| -> bool {
        let (cx, cy) = d.px(x, y);
        let (i, j) = (
            cx.round().clamp(0.0, (nx - 1) as f64),
            cy.round().clamp(0.0, (ny - 1) as f64),
        );
        water[j as usize * nx + i as usize] == 0.0
    };
    let sources: Vec<f64> = d
        .strokes
        .iter()
        .filter(|s| s.from_source && s.points.len() > samples)
        .filter(|s| dry(s.points[samples].x, s.points[samples].y))
        .map(|s| width_at(s.points[samples].x, s.points[samples].y))
        .collect();
    let narrowest = sources.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        narrowest >= 1.0,
        "a source is missing from the mask (width {narrowest})"
    );
    // The widest river, away from junctions (where two rivers' masks overlap).
    let junctions: Vec<(f64, f64)> = d
        .strokes
        .iter()
        .filter(|s| s.end == StrokeEnd::Join)
        .map(|s| {
            let p = s.points.last().unwrap();
            d.px(p.x, p.y)
        })
        .collect();
    let widest = d
        .strokes
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| {
            let (x, y) = d.px(p.x, p.y);
            junctions
                .iter()
                .all(|&(jx, jy)| (jx - x).hypot(jy - y) > 12.0)
        })
        .map(|p| width_at(p.x, p.y))
        .fold(0.0f64, f64::max);
    eprintln!(
        "rivers.png: {} sources, narrowest {narrowest} px, widest {widest} px",
        sources.len()
    );
    assert!(
        widest >= 5.0 * narrowest,
        "widest {widest} px < 5 x narrowest source {narrowest} px"
    );
}

/// Pixels of `rivers.png` with any coverage that lie more than 1 px (1.5 px diagonally) inside
/// the water of the world's own water raster (the colour map's sea and lakes).
fn rivers_inside_water(d: &Drawn) -> usize {
    let (nx, ny) = (d.grid.nx, d.grid.ny);
    let water = water_coverage(&d.world, &d.grid).unwrap();
    let wet: Vec<bool> = water.iter().map(|&w| w >= 0.5).collect();
    assert!(wet.iter().any(|&w| w) && !wet.iter().all(|&w| w));
    let to_land = distance_transform(&wet, nx, ny);
    d.mask
        .iter()
        .zip(&to_land)
        .filter(|&(&m, &dist2)| m > 0 && dist2 > 1.5 * 1.5)
        .count()
}

/// The strokes whose own coverage, clipped to land, is not one 8-connected piece; and the
/// tributaries not connected to the river they join. A piece counts when it holds at least one
/// pixel's worth of ink (its coverage summed): a lone antialiased corner pixel of a stroke's round
/// end, beyond a shore pixel, is not a piece of river one can see.
fn broken_strokes(d: &Drawn) -> (Vec<usize>, Vec<usize>) {
    let (nx, ny) = (d.grid.nx, d.grid.ny);
    let water = water_coverage(&d.world, &d.grid).unwrap();
    let water = water.as_slice().unwrap();
    let drawn = |strokes: &[Stroke]| -> Vec<f32> {
        let mut cover = stroke_coverage(strokes, &d.grid);
        clip_coverage(&mut cover, water);
        cover
    };
    // Pieces of ink: (all, those of at least one pixel's worth).
    let pieces = |on: &[f32]| -> (usize, usize) {
        let mut seen = vec![false; on.len()];
        let (mut all, mut count) = (0, 0);
        for start in 0..on.len() {
            if on[start] <= 0.0 || seen[start] {
                continue;
            }
            seen[start] = true;
            let mut ink = 0.0;
            let mut stack = vec![start];
            while let Some(k) = stack.pop() {
                ink += on[k];
                let (i, j) = ((k % nx) as isize, (k / nx) as isize);
                for (di, dj) in [
                    (-1, -1),
                    (0, -1),
                    (1, -1),
                    (-1, 0),
                    (1, 0),
                    (-1, 1),
                    (0, 1),
                    (1, 1),
                ] {
                    let (a, b) = (i + di, j + dj);
                    if a < 0 || b < 0 || a >= nx as isize || b >= ny as isize {
                        continue;
                    }
                    let o = b as usize * nx + a as usize;
                    if on[o] > 0.0 && !seen[o] {
                        seen[o] = true;
                        stack.push(o);
                    }
                }
            }
            all += 1;
            if ink >= 1.0 {
                count += 1;
            }
        }
        (all, count)
    };
    // One piece one can see, or, for a stroke too faint to hold a pixel of ink, one piece.
    let one_piece = |on: &[f32]| match pieces(on) {
        (_, 1) => true,
        (all, 0) => all <= 1,
        _ => false,
    };
    let mut broken = Vec::new();
    let mut detached = Vec::new();
    for (k, s) in d.strokes.iter().enumerate() {
        let alone = drawn(std::slice::from_ref(s));
        if !one_piece(&alone) {
            broken.push(k);
        }
        if s.end == StrokeEnd::Join {
            let junction = *s.corners.last().unwrap();
            let joined: Vec<Stroke> = d
                .strokes
                .iter()
                .filter(|o| o.river != s.river && o.corners.contains(&junction))
                .cloned()
                .collect();
            assert!(!joined.is_empty(), "stroke {k} joins no drawn river");
            let mut both = joined;
            both.push(s.clone());
            if pieces(&drawn(&both)).1 != pieces(&drawn(&both[..both.len() - 1])).1 {
                detached.push(k);
            }
        }
    }
    (broken, detached)
}

#[test]
fn rivers_stay_off_the_water_and_every_stroke_is_one_piece() {
    for seed in [None, Some(7)] {
        let d = drawn(seed);
        let wet = rivers_inside_water(&d);
        assert_eq!(wet, 0, "seed {seed:?}: {wet} river pixels inside water");
        let (broken, detached) = broken_strokes(&d);
        eprintln!(
            "seed {seed:?}: {} of {} strokes in several pieces {broken:?}, {} tributaries apart \
             {detached:?}",
            broken.len(),
            d.strokes.len(),
            detached.len()
        );
        assert!(
            broken.is_empty(),
            "seed {seed:?}: strokes in several pieces: {broken:?} of {}",
            d.strokes.len()
        );
        assert!(
            detached.is_empty(),
            "seed {seed:?}: tributaries apart from their river: {detached:?}"
        );
        // Lakes and the sea are where strokes stop: some do.
        assert!(d.strokes.iter().any(|s| s.end == StrokeEnd::Mouth));
        assert!(d.strokes.iter().any(|s| s.end == StrokeEnd::Join));
    }
}
