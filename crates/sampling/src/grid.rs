//! The spatial grids, in `D` dimensions, sharing one cell walk:
//! - [`BoxGrid`], for static lookups: a uniform grid over a box that lists, per cell, the items
//!   (points, or shapes by their bounding boxes) overlapping it, in CSR form. Built once, read by
//!   many queries: the nearest site, the discs or segments near a point, the attractors within a
//!   radius. Each cell lists its items in index order, so every query sees them in an order that
//!   depends only on the input.
//! - [`HashGrid`], for points added one at a time anywhere (unbounded): cells in a hash map, each
//!   listing its points in insertion order (the nodes of a growing tree).
//!
//! (The Poisson-disc sampler keeps its own dense one-point-per-cell background grid, part of
//! Bridson's algorithm.)
//!
//! ```
//! use orogen_sampling::grid::BoxGrid;
//!
//! let points = [[0.1, 0.1], [0.9, 0.2], [0.5, 0.8]];
//! let grid = BoxGrid::from_points([0.0, 0.0], 0.5, [2, 2], &points);
//! assert_eq!(grid.items_at([0, 0]), &[0]); // the cell x 0, y 0
//! assert_eq!(grid.items_at([1, 0]), &[1]);
//! let mut near = Vec::new();
//! grid.for_each_in_box([0.4, 0.4], [0.6, 0.6], |i| near.push(i)); // all four cells
//! assert_eq!(near, [0, 1, 2]);
//! ```

use std::collections::HashMap;

/// A uniform grid over a box, its items listed per cell (CSR): see the [module](self) docs.
#[derive(Clone, Debug)]
pub struct BoxGrid<const D: usize> {
    origin: [f64; D],
    cell: f64,
    dims: [usize; D],
    offsets: Vec<u32>,
    items: Vec<u32>,
    /// Where each cell's items end once [`BoxGrid::retain_in_box`] dropped some (each cell's
    /// kept items first, in their order); empty until then (each cell ends where the next
    /// begins).
    ends: Vec<u32>,
}

impl<const D: usize> BoxGrid<D> {
    /// A grid of `dims` cells of side `cell` from `origin`, listing each point in its cell
    /// (points outside are clamped into the nearest cell).
    pub fn from_points(origin: [f64; D], cell: f64, dims: [usize; D], points: &[[f64; D]]) -> Self {
        Self::from_boxes(origin, cell, dims, points.len(), |i| (points[i], points[i]))
    }

    /// A grid of `dims` cells (each at least 1) of side `cell` from `origin`, listing each of
    /// `n` items in every cell its box `bounds(i) = (lo, hi)` overlaps, clamped into the grid.
    pub fn from_boxes(
        origin: [f64; D],
        cell: f64,
        dims: [usize; D],
        n: usize,
        bounds: impl Fn(usize) -> ([f64; D], [f64; D]),
    ) -> Self {
        assert!(dims.iter().all(|&d| d >= 1), "every dimension has a cell");
        let n_cells: usize = dims.iter().product();
        let mut grid = BoxGrid {
            origin,
            cell,
            dims,
            offsets: vec![0; n_cells + 1],
            items: Vec::new(),
            ends: Vec::new(),
        };
        let ranges: Vec<([usize; D], [usize; D])> = (0..n)
            .map(|i| {
                let (lo, hi) = bounds(i);
                (grid.coords(&lo), grid.coords(&hi))
            })
            .collect();
        for &(lo, hi) in &ranges {
            for_each_cell(&dims, lo, hi, |c| grid.offsets[c + 1] += 1);
        }
        for c in 0..n_cells {
            grid.offsets[c + 1] += grid.offsets[c];
        }
        let mut fill = grid.offsets.clone();
        grid.items = vec![0; grid.offsets[n_cells] as usize];
        for (i, &(lo, hi)) in ranges.iter().enumerate() {
            for_each_cell(&dims, lo, hi, |c| {
                grid.items[fill[c] as usize] = i as u32;
                fill[c] += 1;
            });
        }
        grid
    }

    /// The side of a cell.
    pub fn cell(&self) -> f64 {
        self.cell
    }

    /// The number of cells along each axis.
    pub fn dims(&self) -> [usize; D] {
        self.dims
    }

    /// The cell holding `p`, clamped into the grid.
    pub fn coords(&self, p: &[f64; D]) -> [usize; D] {
        std::array::from_fn(|k| {
            ((p[k] - self.origin[k]) / self.cell)
                .floor()
                .clamp(0.0, (self.dims[k] - 1) as f64) as usize
        })
    }

    /// The items listed in the cell at `coords` (each below its axis's `dims`).
    pub fn items_at(&self, coords: [usize; D]) -> &[u32] {
        self.cell_items(flat(&self.dims, coords))
    }

    /// The items listed in cell `c` (flat index).
    fn cell_items(&self, c: usize) -> &[u32] {
        let end = match self.ends.get(c) {
            Some(&end) => end,
            None => self.offsets[c + 1],
        };
        &self.items[self.offsets[c] as usize..end as usize]
    }

    /// The cells the box `lo..=hi` overlaps, as the first and last cell along each axis; `None`
    /// when the box lies outside the grid.
    fn cell_box(&self, lo: [f64; D], hi: [f64; D]) -> Option<([usize; D], [usize; D])> {
        let mut a = [0usize; D];
        let mut b = [0usize; D];
        for k in 0..D {
            let from = ((lo[k] - self.origin[k]) / self.cell).floor();
            let to = ((hi[k] - self.origin[k]) / self.cell).floor();
            let max = (self.dims[k] - 1) as f64;
            if to < 0.0 || from > max {
                return None;
            }
            a[k] = from.max(0.0) as usize;
            b[k] = to.min(max) as usize;
        }
        Some((a, b))
    }

    /// Calls `f` with every item listed in the cells the box `lo..=hi` overlaps (an item once
    /// per such cell; cells in index order, the first axis fastest). Nothing when the box lies
    /// outside the grid.
    pub fn for_each_in_box(&self, lo: [f64; D], hi: [f64; D], mut f: impl FnMut(u32)) {
        let Some((a, b)) = self.cell_box(lo, hi) else {
            return;
        };
        for_each_cell(&self.dims, a, b, |c| {
            for &i in self.cell_items(c) {
                f(i);
            }
        });
    }

    /// [`BoxGrid::for_each_in_box`], dropping from each cell it walks the items for which `keep`
    /// returns false: later queries do not see them there (items a query is done with, such as
    /// attractors a growing tree has reached; an item listed in several cells stays in those
    /// the walk did not meet). Each cell keeps its other items in their order.
    pub fn retain_in_box(&mut self, lo: [f64; D], hi: [f64; D], mut keep: impl FnMut(u32) -> bool) {
        let Some((a, b)) = self.cell_box(lo, hi) else {
            return;
        };
        if self.ends.is_empty() {
            self.ends = self.offsets[1..].to_vec();
        }
        let (offsets, items, ends) = (&self.offsets, &mut self.items, &mut self.ends);
        for_each_cell(&self.dims, a, b, |c| {
            let (start, end) = (offsets[c] as usize, ends[c] as usize);
            let mut kept = start;
            for k in start..end {
                let i = items[k];
                if keep(i) {
                    items[kept] = i;
                    kept += 1;
                }
            }
            ends[c] = kept as u32;
        });
    }
}

/// Points added one at a time anywhere in space, found by box: see the [module](self) docs.
///
/// ```
/// use orogen_sampling::grid::HashGrid;
///
/// let mut grid = HashGrid::new(1.0);
/// grid.insert(&[0.5, 0.5], 0);
/// grid.insert(&[-40.2, 7.0], 1);
/// assert!(grid.any_in_box([-41.0, 6.0], [-40.0, 8.0], |i| i == 1));
/// assert!(!grid.any_in_box([2.0, 2.0], [3.0, 3.0], |_| true));
/// ```
#[derive(Clone, Debug)]
pub struct HashGrid<const D: usize> {
    cell: f64,
    cells: HashMap<[i64; D], Vec<u32>>,
}

impl<const D: usize> HashGrid<D> {
    /// An empty grid of cells of side `cell` (> 0).
    pub fn new(cell: f64) -> Self {
        HashGrid {
            cell,
            cells: HashMap::new(),
        }
    }

    fn key(&self, p: &[f64; D]) -> [i64; D] {
        std::array::from_fn(|k| (p[k] / self.cell).floor() as i64)
    }

    /// Lists `item` in the cell holding `p`.
    pub fn insert(&mut self, p: &[f64; D], item: u32) {
        let key = self.key(p);
        self.cells.entry(key).or_default().push(item);
    }

    /// True when `f` is true for an item listed in a cell the box `lo..=hi` overlaps (cells in
    /// order, the first axis fastest; the walk stops at the first such item).
    pub fn any_in_box(&self, lo: [f64; D], hi: [f64; D], mut f: impl FnMut(u32) -> bool) -> bool {
        any_cell(self.key(&lo), self.key(&hi), |c| {
            self.cells
                .get(&c)
                .is_some_and(|items| items.iter().any(|&i| f(i)))
        })
    }
}

/// The flat index of a cell, the first axis fastest.
fn flat<const D: usize>(dims: &[usize; D], coords: [usize; D]) -> usize {
    (0..D).rev().fold(0, |idx, k| idx * dims[k] + coords[k])
}

/// Calls `f` with the flat index of every cell of the box `lo..=hi` (in cells), in index order.
fn for_each_cell<const D: usize>(
    dims: &[usize; D],
    lo: [usize; D],
    hi: [usize; D],
    mut f: impl FnMut(usize),
) {
    any_cell(lo, hi, |c| {
        f(flat(dims, c));
        false
    });
}

/// The one cell walk: calls `f` with the cells of the box `lo..=hi` (in cells) in index order,
/// the first axis fastest, until `f` returns true; returns whether it did.
fn any_cell<T, const D: usize>(lo: [T; D], hi: [T; D], mut f: impl FnMut([T; D]) -> bool) -> bool
where
    T: Copy + PartialOrd + std::ops::Add<Output = T> + From<u8>,
{
    if (0..D).any(|k| lo[k] > hi[k]) {
        return false;
    }
    let mut cur = lo;
    loop {
        if f(cur) {
            return true;
        }
        // Odometer increment over the box, the first axis fastest.
        let mut k = 0;
        loop {
            if k == D {
                return false;
            }
            if cur[k] < hi[k] {
                cur[k] = cur[k] + T::from(1);
                break;
            }
            cur[k] = lo[k];
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform floats in `[0, 1)` from a seeded splitmix64 stream.
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state = orogen_world::seed::splitmix64(state);
            orogen_world::seed::unit_f64(state)
        }
    }

    /// Box queries return exactly the items whose boxes meet the query's cells, against a
    /// brute-force scan, in 2-D and 3-D.
    #[test]
    fn box_queries_find_what_a_scan_finds() {
        let mut next = uniform(7);
        let points: Vec<[f64; 3]> = (0..400).map(|_| [next(), 2.0 * next(), next()]).collect();
        let grid = BoxGrid::from_points([0.0; 3], 0.125, [8, 16, 8], &points);
        for _ in 0..200 {
            let p = [next(), 2.0 * next(), next()];
            let r = 0.2 * next();
            let mut found = Vec::new();
            grid.for_each_in_box(p.map(|v| v - r), p.map(|v| v + r), |i| found.push(i));
            // Every point within r is found, once.
            for (i, q) in points.iter().enumerate() {
                let d2: f64 = (0..3).map(|k| (q[k] - p[k]).powi(2)).sum();
                if d2 <= r * r {
                    assert_eq!(found.iter().filter(|&&j| j == i as u32).count(), 1);
                }
            }
            let mut sorted = found.clone();
            sorted.dedup();
            assert_eq!(sorted.len(), found.len(), "points are listed in one cell");
        }
        // Boxes spanning several cells are listed in each; outside boxes are clamped in.
        let boxes = [([0.1, 0.1], [0.6, 0.1]), ([-5.0, -5.0], [-4.0, -4.0])];
        let g = BoxGrid::from_boxes([0.0, 0.0], 0.25, [4, 4], 2, |i| boxes[i]);
        assert_eq!(g.items_at([0, 0]), &[0, 1]);
        assert_eq!(g.items_at([1, 0]), &[0]);
        assert_eq!(g.items_at([2, 0]), &[0]);
        assert!(g.items_at([3, 0]).is_empty());
        let mut none = Vec::new();
        g.for_each_in_box([2.0, 2.0], [3.0, 3.0], |i| none.push(i));
        assert!(none.is_empty(), "a box outside the grid finds nothing");
    }

    /// Items dropped by `retain_in_box` are gone from every later query, the rest listed as
    /// before, in order; a grid nothing was dropped from reads as built.
    #[test]
    fn retained_items_are_the_only_ones_queries_see_after() {
        let mut next = uniform(5);
        let points: Vec<[f64; 2]> = (0..500).map(|_| [next(), next()]).collect();
        let mut grid = BoxGrid::from_points([0.0; 2], 0.1, [10, 10], &points);
        let all = |g: &BoxGrid<2>| {
            let mut found = Vec::new();
            g.for_each_in_box([0.0; 2], [1.0; 2], |i| found.push(i));
            found
        };
        let before = all(&grid);
        assert_eq!(before.len(), 500);
        let mut dropped = vec![false; 500];
        for _ in 0..50 {
            let p = [next(), next()];
            let r = 0.15 * next();
            grid.retain_in_box(p.map(|v| v - r), p.map(|v| v + r), |i| {
                let q = points[i as usize];
                let gone = (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) < r * r;
                dropped[i as usize] |= gone;
                !gone
            });
        }
        let expected: Vec<u32> = before
            .iter()
            .copied()
            .filter(|&i| !dropped[i as usize])
            .collect();
        assert!(
            expected.len() < 450 && expected.len() > 50,
            "{}",
            expected.len()
        );
        assert_eq!(all(&grid), expected);
        for cx in 0..10 {
            for cy in 0..10 {
                let cell = grid.items_at([cx, cy]);
                assert!(cell.iter().all(|&i| !dropped[i as usize]));
                assert!(
                    cell.windows(2).all(|w| w[0] < w[1]),
                    "cells keep index order"
                );
            }
        }
    }

    /// The hash grid finds a point within a distance exactly when a scan does, wherever the
    /// points are (negative and far coordinates included).
    #[test]
    fn hash_grid_finds_what_a_scan_finds() {
        let mut next = uniform(11);
        let mut grid = HashGrid::new(0.05);
        let mut points: Vec<[f64; 2]> = Vec::new();
        for i in 0..300 {
            let p = [200.0 * next() - 100.0, 2.0 * next() - 1.0];
            grid.insert(&p, i);
            points.push(p);
        }
        let mut hits = 0;
        for _ in 0..2000 {
            let p = [200.0 * next() - 100.0, 2.0 * next() - 1.0];
            let r = 0.2 * next();
            let near = |q: &[f64; 2]| (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) < r * r;
            let found = grid.any_in_box(p.map(|v| v - r), p.map(|v| v + r), |i| {
                near(&points[i as usize])
            });
            assert_eq!(found, points.iter().any(near));
            hits += usize::from(found);
        }
        assert!(hits > 0, "the queries reach some points");
    }
}
