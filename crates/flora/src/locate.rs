//! Spatial lookups on the map: the region (Voronoi cell) holding a point, and the distance to
//! river polylines, all on the one spatial grid (`orogen_sampling::grid::BoxGrid`).

use orogen_sampling::grid::BoxGrid;

/// A uniform grid of points over a rectangle (the one spatial grid, `orogen_sampling::grid`).
#[derive(Clone, Debug)]
pub(crate) struct PointGrid {
    grid: BoxGrid<2>,
}

impl PointGrid {
    /// A grid of cell side `cell` over [0, width] x [0, height]; points outside are clamped in.
    pub(crate) fn new(points: &[[f64; 2]], width: f64, height: f64, cell: f64) -> Self {
        let nx = ((width / cell).ceil() as usize).clamp(1, 1 << 15);
        let ny = ((height / cell).ceil() as usize).clamp(1, 1 << 15);
        let cell = (width / nx as f64).max(height / ny as f64);
        PointGrid {
            grid: BoxGrid::from_points([0.0, 0.0], cell, [nx, ny], points),
        }
    }

    /// The nearest point to `p` (ties to the lower index), searching rings of cells outward.
    pub(crate) fn nearest(&self, points: &[[f64; 2]], p: [f64; 2]) -> Option<u32> {
        if points.is_empty() {
            return None;
        }
        let [c, r] = self.grid.coords(&p);
        let (c, r) = (c as isize, r as isize);
        let [nx, ny] = self.grid.dims();
        let mut best: Option<(f64, u32)> = None;
        let max_ring = nx.max(ny) as isize;
        for ring in 0..=max_ring {
            // Every point in ring `ring` or beyond is at least (ring - 1) cells away.
            if let Some((d2, _)) = best {
                let bound = (ring - 1).max(0) as f64 * self.grid.cell();
                if bound * bound > d2 {
                    break;
                }
            }
            for row in r - ring..=r + ring {
                if row < 0 || row >= ny as isize {
                    continue;
                }
                let on_edge_row = row == r - ring || row == r + ring;
                let step = if on_edge_row { 1 } else { (2 * ring).max(1) };
                let mut col = c - ring;
                while col <= c + ring {
                    if col >= 0 && col < nx as isize {
                        for &i in self.grid.items_at([col as usize, row as usize]) {
                            let q = points[i as usize];
                            let d2 = (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2);
                            if best.is_none_or(|(b, j)| d2 < b || (d2 == b && i < j)) {
                                best = Some((d2, i));
                            }
                        }
                    }
                    col += step;
                }
            }
        }
        best.map(|(_, i)| i)
    }
}

/// The region (Voronoi cell) holding a point: the nearest site.
#[derive(Clone, Debug)]
pub struct SiteLocator {
    sites: Vec<[f64; 2]>,
    grid: PointGrid,
}

impl SiteLocator {
    /// A locator over the sites (`n_regions`) of a map `width` x `height`.
    pub fn new(sites: Vec<[f64; 2]>, width: f64, height: f64) -> Self {
        let n = sites.len().max(1) as f64;
        let cell = (width * height / n).sqrt().max(f64::MIN_POSITIVE);
        let grid = PointGrid::new(&sites, width, height, cell);
        SiteLocator { sites, grid }
    }

    /// The index of the nearest site (ties to the lower index); `None` without sites.
    pub fn region_of(&self, p: [f64; 2]) -> Option<usize> {
        self.grid.nearest(&self.sites, p).map(|i| i as usize)
    }
}

/// Polylines (rivers) with a clearance: tells whether a point is within it of any segment.
#[derive(Clone, Debug)]
pub struct SegmentMask {
    segments: Vec<[[f64; 2]; 2]>,
    clearance: f64,
    /// Each segment listed in every cell its box widened by the clearance overlaps.
    grid: BoxGrid<2>,
}

impl SegmentMask {
    /// A mask of the segments of `polylines` widened by `clearance` on a `width` x `height` map.
    pub fn new(polylines: &[Vec<[f64; 2]>], clearance: f64, width: f64, height: f64) -> Self {
        let segments: Vec<[[f64; 2]; 2]> = polylines
            .iter()
            .flat_map(|l| l.windows(2).map(|w| [w[0], w[1]]))
            .collect();
        let n = segments.len().max(1) as f64;
        let cell = (width * height / n).sqrt().max(2.0 * clearance).max(1e-9);
        let nx = ((width / cell).ceil() as usize).clamp(1, 1024);
        let ny = ((height / cell).ceil() as usize).clamp(1, 1024);
        let cell = (width / nx as f64).max(height / ny as f64);
        let grid = BoxGrid::from_boxes([0.0, 0.0], cell, [nx, ny], segments.len(), |i| {
            let [a, b] = segments[i];
            (
                [a[0].min(b[0]) - clearance, a[1].min(b[1]) - clearance],
                [a[0].max(b[0]) + clearance, a[1].max(b[1]) + clearance],
            )
        });
        SegmentMask {
            segments,
            clearance,
            grid,
        }
    }

    /// True when `p` is within the clearance of a segment.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        self.grid
            .items_at(self.grid.coords(&p))
            .iter()
            .any(|&s| segment_distance(p, self.segments[s as usize]) <= self.clearance)
    }
}

/// Discs (centre, radius): tells whether a point lies strictly inside any of them. Each disc is
/// listed in every grid cell it overlaps, so a query reads one cell.
#[derive(Clone, Debug)]
pub struct DiscMask {
    discs: Vec<([f64; 2], f64)>,
    grid: BoxGrid<2>,
}

impl DiscMask {
    /// A mask of `discs` on a `width` x `height` map, with grid cells of about side `cell`.
    pub fn new(discs: Vec<([f64; 2], f64)>, width: f64, height: f64, cell: f64) -> Self {
        let nx = ((width / cell).ceil() as usize).clamp(1, 8192);
        let ny = ((height / cell).ceil() as usize).clamp(1, 8192);
        let cell = (width / nx as f64).max(height / ny as f64);
        let grid = BoxGrid::from_boxes([0.0, 0.0], cell, [nx, ny], discs.len(), |i| {
            let (c, r) = discs[i];
            ([c[0] - r, c[1] - r], [c[0] + r, c[1] + r])
        });
        DiscMask { discs, grid }
    }

    /// True when `p` lies strictly inside a disc.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        self.grid.items_at(self.grid.coords(&p)).iter().any(|&d| {
            let (q, rad) = self.discs[d as usize];
            (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) < rad * rad
        })
    }
}

/// The distance from `p` to the segment `s`.
pub fn segment_distance(p: [f64; 2], s: [[f64; 2]; 2]) -> f64 {
    let [a, b] = s;
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let q = [a[0] + t * d[0], a[1] + t * d[1]];
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;
    use rand::RngExt;

    #[test]
    fn nearest_site_matches_brute_force() {
        let mut rng = rng_from_seed(1);
        let sites: Vec<[f64; 2]> = (0..500)
            .map(|_| [2.0 * rng.random::<f64>(), rng.random::<f64>()])
            .collect();
        // The nearest site, ties to the lower index.
        let brute = |sites: &[[f64; 2]], p: [f64; 2]| {
            (0..sites.len()).min_by(|&a, &b| {
                let da = (sites[a][0] - p[0]).powi(2) + (sites[a][1] - p[1]).powi(2);
                let db = (sites[b][0] - p[0]).powi(2) + (sites[b][1] - p[1]).powi(2);
                da.total_cmp(&db)
            })
        };
        let loc = SiteLocator::new(sites.clone(), 2.0, 1.0);
        for i in 0..6000 {
            // Inside the map, then around and beyond its edges (clamped into the grid).
            let spread = if i < 4000 { 1.0 } else { 1.5 };
            let p = [
                2.0 * spread * rng.random::<f64>() - (spread - 1.0),
                spread * rng.random::<f64>() - (spread - 1.0) / 2.0,
            ];
            assert_eq!(loc.region_of(p), brute(&sites, p), "{p:?}");
        }
        // Sites on a lattice whose spacing is the grid's cell (sites on the cells' borders),
        // listed in a shuffled order, queried on the same lattice and between: ties everywhere.
        let mut lattice: Vec<[f64; 2]> = (0..400)
            .map(|i| [(i % 20) as f64 / 20.0, (i / 20) as f64 / 20.0])
            .collect();
        for i in (1..lattice.len()).rev() {
            lattice.swap(i, rng.random_range(0..=i));
        }
        let loc = SiteLocator::new(lattice.clone(), 1.0, 1.0);
        for i in 0..=40 {
            for j in 0..=40 {
                let p = [i as f64 / 40.0, j as f64 / 40.0];
                assert_eq!(loc.region_of(p), brute(&lattice, p), "{p:?}");
            }
        }
        assert_eq!(
            SiteLocator::new(vec![], 1.0, 1.0).region_of([0.5, 0.5]),
            None
        );
    }

    #[test]
    fn segment_mask_matches_brute_force() {
        let mut rng = rng_from_seed(2);
        let lines: Vec<Vec<[f64; 2]>> = (0..20)
            .map(|_| {
                (0..8)
                    .map(|_| [rng.random::<f64>(), rng.random::<f64>()])
                    .collect()
            })
            .collect();
        let mask = SegmentMask::new(&lines, 0.01, 1.0, 1.0);
        for _ in 0..5000 {
            let p = [rng.random::<f64>(), rng.random::<f64>()];
            let brute = lines
                .iter()
                .flat_map(|l| l.windows(2))
                .any(|w| segment_distance(p, [w[0], w[1]]) <= 0.01);
            assert_eq!(mask.contains(p), brute, "{p:?}");
        }
        let discs = vec![([0.2, 0.2], 0.05), ([0.7, 0.4], 0.2), ([1.0, 1.0], 0.01)];
        let dm = DiscMask::new(discs.clone(), 1.0, 1.0, 0.03);
        for _ in 0..5000 {
            let p = [rng.random::<f64>(), rng.random::<f64>()];
            let brute = discs
                .iter()
                .any(|(q, r)| (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) < r * r);
            assert_eq!(dm.contains(p), brute);
        }
        assert_eq!(segment_distance([0.0, 1.0], [[-1.0, 0.0], [1.0, 0.0]]), 1.0);
        assert_eq!(segment_distance([3.0, 0.0], [[-1.0, 0.0], [1.0, 0.0]]), 2.0);
    }
}
