//! Sites: the fixed boundary sites of the conventions, interior sites (uniform, jittered grid,
//! Poisson disc), Z-order sorting and deliberate duplicate removal.

use orogen_sampling::{Rect, index_below, poisson_disc};
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::MeshError;

/// How interior sites are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SamplerKind {
    /// Independent uniform points, as the reference program draws them.
    #[default]
    Uniform,
    /// One uniform point per cell of a near-square grid (stratified).
    Jittered,
    /// Bridson Poisson disc, thinned at random to the exact count.
    Poisson,
}

impl SamplerKind {
    /// The name used in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SamplerKind::Uniform => "uniform",
            SamplerKind::Jittered => "jittered",
            SamplerKind::Poisson => "poisson",
        }
    }

    /// Parses `uniform`, `jittered` or `poisson`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "uniform" => SamplerKind::Uniform,
            "jittered" => SamplerKind::Jittered,
            "poisson" => SamplerKind::Poisson,
            _ => return None,
        })
    }
}

/// How `cells` regions split into boundary and interior sites.
///
/// The boundary sites are spaced along the map edge at about the mean interior spacing
/// `s = sqrt(W H / cells)`: `max(1, round(W / s))` segments on the top and bottom edges and
/// `max(1, round(H / s))` on the left and right ones, so `2 (segments_x + segments_y)` sites,
/// the four map corners included. They count towards `cells`: the world has exactly `cells`
/// regions whenever `cells >= 5` (for small counts the segments shrink, down to one per edge,
/// so that at least one interior site remains). For `cells` 3 and 4 the world is the four map
/// corners alone: 4 regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteCounts {
    /// Segments along the top and bottom edges.
    pub segments_x: usize,
    /// Segments along the left and right edges.
    pub segments_y: usize,
    /// Boundary sites: `2 (segments_x + segments_y)`.
    pub n_boundary: usize,
    /// Interior sites: `cells - n_boundary` (0 when the boundary takes them all).
    pub n_interior: usize,
}

impl SiteCounts {
    /// The split for `cells` regions on a `width` x `height` map.
    pub fn new(cells: usize, width: f64, height: f64) -> Self {
        let spacing = (width * height / cells.max(1) as f64).sqrt();
        let mut sx = ((width / spacing).round() as usize).max(1);
        let mut sy = ((height / spacing).round() as usize).max(1);
        // Leave at least one interior site when the count allows it.
        while 2 * (sx + sy) >= cells && (sx > 1 || sy > 1) {
            if sx >= sy {
                sx -= 1;
            } else {
                sy -= 1;
            }
        }
        let n_boundary = 2 * (sx + sy);
        SiteCounts {
            segments_x: sx,
            segments_y: sy,
            n_boundary,
            n_interior: cells.saturating_sub(n_boundary),
        }
    }
}

/// The boundary sites: `segments_x` evenly spaced segments along the top (y = 0) and bottom
/// (y = H) edges, `segments_y` along the left and right ones, corners included, each site once.
/// The order runs counter-clockwise (conventions' sense) from the corner (0, 0).
pub fn boundary_sites(
    width: f64,
    height: f64,
    segments_x: usize,
    segments_y: usize,
) -> Vec<[f64; 2]> {
    let sx = segments_x.max(1);
    let sy = segments_y.max(1);
    let mut out = Vec::with_capacity(2 * (sx + sy));
    // Top edge, left to right (corner (0, 0) included, (W, 0) excluded).
    for i in 0..sx {
        out.push([width * i as f64 / sx as f64, 0.0]);
    }
    // Right edge, top to bottom.
    for j in 0..sy {
        out.push([width, height * j as f64 / sy as f64]);
    }
    // Bottom edge, right to left.
    for i in (1..=sx).rev() {
        out.push([width * i as f64 / sx as f64, height]);
    }
    // Left edge, bottom to top.
    for j in (1..=sy).rev() {
        out.push([0.0, height * j as f64 / sy as f64]);
    }
    out
}

/// A uniform coordinate strictly inside `(0, 1)`.
fn open_unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    orogen_world::seed::unit_open(rng.next_u64())
}

/// `n` interior sites strictly inside the `width` x `height` map, drawn from `rng`.
pub fn interior_sites<R: Rng + ?Sized>(
    rng: &mut R,
    kind: SamplerKind,
    n: usize,
    width: f64,
    height: f64,
) -> Result<Vec<[f64; 2]>, MeshError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let uniform = |rng: &mut R| [open_unit(rng) * width, open_unit(rng) * height];
    Ok(match kind {
        SamplerKind::Uniform => (0..n).map(|_| uniform(rng)).collect(),
        SamplerKind::Jittered => {
            let nx = ((n as f64 * width / height).sqrt().round() as usize).clamp(1, n);
            let ny = n.div_ceil(nx);
            // nx * ny >= n grid cells; leave out `nx * ny - n` of them, chosen at random.
            let mut cells: Vec<u32> = (0..(nx * ny) as u32).collect();
            for i in 0..n {
                let j = i + index_below(rng, cells.len() - i);
                cells.swap(i, j);
            }
            let mut chosen = cells[..n].to_vec();
            chosen.sort_unstable();
            let (cw, ch) = (width / nx as f64, height / ny as f64);
            chosen
                .iter()
                .map(|&c| {
                    let (i, j) = (c as usize % nx, c as usize / nx);
                    [
                        ((i as f64 + open_unit(rng)) * cw).min(width),
                        ((j as f64 + open_unit(rng)) * ch).min(height),
                    ]
                })
                .collect()
        }
        SamplerKind::Poisson => {
            // Annulus sampling reaches n r^2 / area of about 0.62; aim a little denser, then
            // thin at random to exactly n (and top up uniformly in the rare opposite case).
            let rect = Rect::from_size(width, height)?;
            let r = (0.57 * width * height / n as f64).sqrt();
            let mut points = poisson_disc(rng, rect, r, orogen_sampling::DEFAULT_K)?;
            if points.len() > n {
                for i in 0..n {
                    let j = i + index_below(rng, points.len() - i);
                    points.swap(i, j);
                }
                points.truncate(n);
            }
            while points.len() < n {
                points.push(uniform(rng));
            }
            // x = 0 or y = 0 is possible in the sampler's half-open rectangle; nudge inside.
            for p in &mut points {
                if p[0] <= 0.0 || p[1] <= 0.0 {
                    *p = uniform(rng);
                }
            }
            points
        }
    })
}

/// The Z-order (Morton) key of a point in the `width` x `height` map, 32 bits per axis.
fn morton(x: f64, y: f64, inv_w: f64, inv_h: f64) -> u64 {
    let q = |v: f64| -> u64 { ((v.clamp(0.0, 1.0) * 4_294_967_295.0) as u64) & 0xFFFF_FFFF };
    spread(q(x * inv_w)) | (spread(q(y * inv_h)) << 1)
}

fn spread(mut v: u64) -> u64 {
    v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    v = (v | (v << 2)) & 0x3333_3333_3333_3333;
    (v | (v << 1)) & 0x5555_5555_5555_5555
}

/// The permutation that sorts points in Z-order over the map (ties by index): `order[k]` is the
/// input index of the `k`-th point.
pub fn zorder_permutation(points: &[[f64; 2]], width: f64, height: f64) -> Vec<u32> {
    zorder_permutation_of(points.len(), |i| points[i], width, height)
}

/// [`zorder_permutation`] of the `n` points `point(0)`, `point(1)`, ... computed as they are
/// keyed (no array of them).
pub(crate) fn zorder_permutation_of(
    n: usize,
    point: impl Fn(usize) -> [f64; 2] + Sync,
    width: f64,
    height: f64,
) -> Vec<u32> {
    let (inv_w, inv_h) = (1.0 / width, 1.0 / height);
    let keyed: Vec<(u64, u32)> = (0..n)
        .into_par_iter()
        .map(|i| {
            let p = point(i);
            (morton(p[0], p[1], inv_w, inv_h), i as u32)
        })
        .collect();
    bucket_sort(keyed).par_iter().map(|&(_, i)| i).collect()
}

/// Sorts `(key, index)` pairs by key, then index (indices distinct: one order on any number of
/// threads). A first pass deals them into 256 parts by the key's top 8 bits (256 write streams
/// stay in cache, where one bucket per pair scattered over the whole output missed it: 60-70 ns
/// a pair at 2,000,000), in blocks side by side, each block's pairs of a part in a slice of
/// its own; then, each part on its own and side by side, a counting pass deals its pairs into
/// buckets by the key's next bits (about one bucket per pair) and each bucket holding more than
/// one pair is sorted. Keys spread over their range (Morton codes, hashes) leave a few pairs a
/// bucket; keys crowded into few buckets cost a comparison sort.
fn bucket_sort(items: Vec<(u64, u32)>) -> Vec<(u64, u32)> {
    const TOP: u32 = 8;
    const PARTS: usize = 1 << TOP;
    const BLOCK: usize = 1 << 16;
    let n = items.len();
    let part_of = |k: u64| (k >> (64 - TOP)) as usize;
    let counts: Vec<[usize; PARTS]> = items
        .par_chunks(BLOCK)
        .map(|block| {
            let mut count = [0usize; PARTS];
            for &(k, _) in block {
                count[part_of(k)] += 1;
            }
            count
        })
        .collect();
    let mut out = vec![(0u64, 0u32); n];
    // Part by part, each block's slice of it: the blocks' slices of part 0, then of part 1...
    let mut places: Vec<Vec<&mut [(u64, u32)]>> = (0..counts.len())
        .map(|_| Vec::with_capacity(PARTS))
        .collect();
    let mut part_sizes = [0usize; PARTS];
    let mut rest = out.as_mut_slice();
    for (p, size) in part_sizes.iter_mut().enumerate() {
        for (count, block_places) in counts.iter().zip(places.iter_mut()) {
            let (place, tail) = std::mem::take(&mut rest).split_at_mut(count[p]);
            block_places.push(place);
            rest = tail;
            *size += count[p];
        }
    }
    items
        .par_chunks(BLOCK)
        .zip(places)
        .for_each(|(block, mut places)| {
            let mut next = [0usize; PARTS];
            for &item in block {
                let p = part_of(item.0);
                places[p][next[p]] = item;
                next[p] += 1;
            }
        });
    drop(items);
    let mut parts = Vec::with_capacity(PARTS);
    let mut rest = out.as_mut_slice();
    for size in part_sizes {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(size);
        parts.push(part);
        rest = tail;
    }
    parts.into_par_iter().for_each_init(Vec::new, |copy, part| {
        let m = part.len();
        let bits = (usize::BITS - m.leading_zeros()).clamp(1, 20);
        let shift = 64 - TOP - bits;
        let bucket = |k: u64| ((k >> shift) & ((1 << bits) - 1)) as usize;
        let mut first = vec![0u32; (1usize << bits) + 1];
        for &(k, _) in part.iter() {
            first[bucket(k) + 1] += 1;
        }
        for b in 1..first.len() {
            first[b] += first[b - 1];
        }
        let mut next = first.clone();
        copy.clear();
        copy.extend_from_slice(part);
        for &item in copy.iter() {
            let b = bucket(item.0);
            part[next[b] as usize] = item;
            next[b] += 1;
        }
        for b in first.windows(2) {
            if b[1] - b[0] > 1 {
                part[b[0] as usize..b[1] as usize].sort_unstable();
            }
        }
    });
    out
}

/// Removes exact duplicate positions deliberately, keeping the first occurrence (a boundary
/// site wins over an interior one at the same place; +0.0 and -0.0 are the same place).
/// Returns the input indices kept, in input order, so a caller can map regions back to its own
/// points.
pub fn dedup_sites(points: &[[f64; 2]], is_boundary: &[u8]) -> Vec<u32> {
    // Adding 0.0 turns -0.0 into +0.0, so equal values have equal bits.
    let bits = |v: f64| (v + 0.0).to_bits();
    let place = |i: u32| {
        let p = points[i as usize];
        (bits(p[0]), bits(p[1]))
    };
    // Which copy of a place is kept: boundary first, then the first index.
    let rank = |i: u32| {
        let interior = is_boundary.get(i as usize).copied().unwrap_or(0) == 0;
        (u8::from(interior), i)
    };
    // Sorted by a hash of the place ([`bucket_sort`]: the same order on any number of threads),
    // every copy of a place lies in one run of equal hashes; the rare runs of more than one
    // entry are sorted by place and rank.
    let hashed: Vec<(u64, u32)> = (0..points.len() as u32)
        .into_par_iter()
        .map(|i| {
            let (x, y) = place(i);
            let h = (x ^ y.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (h ^ (h >> 31), i)
        })
        .collect();
    let mut sorted = bucket_sort(hashed);
    let mut keep = vec![true; points.len()];
    for run in sorted.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() == 1 {
            continue;
        }
        run.sort_unstable_by_key(|&(_, i)| (place(i), rank(i)));
        for pair in run.windows(2) {
            if place(pair[0].1) == place(pair[1].1) {
                keep[pair[1].1 as usize] = false;
            }
        }
    }
    (0..points.len() as u32)
        .filter(|&i| keep[i as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;

    #[test]
    fn boundary_sites_cover_the_edges_once_with_the_corners() {
        let sites = boundary_sites(2.0, 1.0, 4, 2);
        assert_eq!(sites.len(), 12);
        for corner in [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]] {
            assert_eq!(sites.iter().filter(|&&p| p == corner).count(), 1);
        }
        assert!(
            sites
                .iter()
                .all(|p| p[0] == 0.0 || p[0] == 2.0 || p[1] == 0.0 || p[1] == 1.0)
        );
        assert_eq!(dedup_sites(&sites, &[1; 12]).len(), 12);
    }

    #[test]
    fn counts_add_up_to_cells() {
        for (cells, w, h) in [
            (50_000, 1.0, 1.0),
            (1000, 3.0, 1.0),
            (5, 1.0, 1.0),
            (7, 1.0, 9.0),
        ] {
            let c = SiteCounts::new(cells, w, h);
            assert_eq!(c.n_boundary + c.n_interior, cells);
            assert!(c.n_interior >= 1);
        }
        let c = SiteCounts::new(50_000, 1.0, 1.0);
        // About the interior spacing: 4 sqrt(50,000) = 894 sites on the edge.
        assert_eq!(c.n_boundary, 4 * 224);
        assert_eq!(SiteCounts::new(3, 1.0, 1.0).n_boundary, 4);
    }

    #[test]
    fn samplers_give_n_points_strictly_inside() {
        for kind in [
            SamplerKind::Uniform,
            SamplerKind::Jittered,
            SamplerKind::Poisson,
        ] {
            for n in [1, 2, 17, 5000] {
                let pts = interior_sites(&mut rng_from_seed(3), kind, n, 2.0, 0.5).unwrap();
                assert_eq!(pts.len(), n, "{kind:?}");
                assert!(
                    pts.iter()
                        .all(|p| p[0] > 0.0 && p[0] <= 2.0 && p[1] > 0.0 && p[1] <= 0.5)
                );
            }
        }
    }

    #[test]
    fn dedup_keeps_first_and_boundary_and_merges_signed_zeros() {
        let pts = [[0.5, 0.5], [0.0, 0.0], [0.5, 0.5], [-0.0, 0.0], [0.2, 0.1]];
        let boundary = [0, 0, 0, 1, 0];
        assert_eq!(dedup_sites(&pts, &boundary), vec![0, 3, 4]);
    }

    #[test]
    fn bucket_sort_is_the_comparison_sort_with_ties_in_index_order() {
        let mut rng = rng_from_seed(11);
        // Few distinct keys (many ties, one bucket), keys only in low or only in high bits,
        // and keys over all 64 bits.
        for (n, mask) in [
            (3000, 0x7),
            (3000, 0xFFFF_F000),
            (3000, 0xFFFF_0000_0000_0000),
            (5000, u64::MAX),
            (200_000, u64::MAX),
            (200_000, 0xFF00_0000_0000_0000),
            (1, 5),
            (0, 5),
        ] {
            let items: Vec<(u64, u32)> = (0..n).map(|i| (rng.next_u64() & mask, i)).collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            assert_eq!(bucket_sort(items), expected, "mask {mask:#x}");
        }
    }

    #[test]
    fn dedup_keeps_the_best_copy_of_every_place_among_many_copies() {
        let mut rng = rng_from_seed(5);
        let places: Vec<[f64; 2]> = (0..40)
            .map(|_| [open_unit(&mut rng), open_unit(&mut rng)])
            .chain([[0.0, 0.5], [-0.0, 0.5]])
            .collect();
        let pts: Vec<[f64; 2]> = (0..3000)
            .map(|_| places[index_below(&mut rng, places.len())])
            .collect();
        let flags: Vec<u8> = (0..3000)
            .map(|_| rng.next_u64().is_multiple_of(5).into())
            .collect();
        // Kept: no other copy of its place (signed zeros alike) is boundary, or earlier and
        // of the same kind.
        let same = |a: [f64; 2], b: [f64; 2]| a[0] == b[0] && a[1] == b[1];
        let rank = |i: usize| (flags[i] == 0, i);
        let expected: Vec<u32> = (0..pts.len())
            .filter(|&i| !(0..pts.len()).any(|j| same(pts[i], pts[j]) && rank(j) < rank(i)))
            .map(|i| i as u32)
            .collect();
        assert_eq!(expected.len(), 41);
        assert_eq!(dedup_sites(&pts, &flags), expected);
    }

    #[test]
    fn zorder_is_a_permutation_that_groups_quadrants() {
        let pts = [[0.9, 0.9], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9]];
        assert_eq!(zorder_permutation(&pts, 1.0, 1.0), vec![1, 2, 3, 0]);
    }
}
