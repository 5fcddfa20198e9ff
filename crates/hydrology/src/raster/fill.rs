//! Priority-Flood depression filling (Barnes, Lehman and Mulla 2014), plain and epsilon.

use std::collections::VecDeque;

use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

use super::queue::{RadixQueue, key};
use super::{RasterError, check_size};

/// Fills every depression of `dem` to its spill level: the lowest surface at or above the DEM
/// from which every valid cell has a non-ascending 8-connected path to an outlet (a border cell or
/// a cell next to NaN). The answer is unique, so any correct Priority-Flood gives these bits.
/// NaN cells stay NaN.
///
/// Sequential. Cells inside a depression bypass the priority queue through a FIFO (Barnes'
/// "improved" variant), cells climbing a slope through a stack (Zhou, Sun and Fu 2016); the rest
/// go through a radix queue keyed on the f32 bits.
pub fn fill(dem: ArrayView2<'_, f32>) -> Result<Array2<f32>, RasterError> {
    priority_flood::<false>(dem)
}

/// Priority-Flood+epsilon: like [`fill`], but a cell raised inside a depression (or level with
/// the cell that reached it) is set one representable step (`f32::next_up`) above that cell, so
/// every valid cell that is not an outlet ends with a strictly lower neighbour and D8 drains it.
/// The result is >= [`fill`] everywhere. It is not unique (it follows the queue's tie order);
/// this one depends only on the input.
pub fn fill_epsilon(dem: ArrayView2<'_, f32>) -> Result<Array2<f32>, RasterError> {
    priority_flood::<true>(dem)
}

/// The DEM copied into a grid with a one-cell NaN margin, so every cell of the original has all
/// eight neighbours at fixed flat offsets and the border needs no special case: a border cell is
/// simply a cell next to NoData.
pub(crate) struct Padded {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    /// Padded width: `cols + 2`.
    pub(crate) width: usize,
    pub(crate) z: Vec<f32>,
}

impl Padded {
    pub(crate) fn new(dem: ArrayView2<'_, f32>) -> Result<Self, RasterError> {
        let (rows, cols) = dem.dim();
        check_size(rows, cols)?;
        let width = cols + 2;
        let mut z = vec![f32::NAN; (rows + 2) * width];
        z.par_chunks_mut(width)
            .skip(1)
            .zip(dem.axis_iter(Axis(0)).into_par_iter())
            .for_each(|(dst, src)| {
                for (d, &v) in dst[1..=cols].iter_mut().zip(src.iter()) {
                    *d = v;
                }
            });
        Ok(Padded {
            rows,
            cols,
            width,
            z,
        })
    }

    /// Flat offsets of the 8 neighbours in the D8 order W, NW, N, NE, E, SE, S, SW.
    pub(crate) fn offsets(&self) -> [isize; 8] {
        let w = self.width as isize;
        [-1, -w - 1, -w, -w + 1, 1, w + 1, w, w - 1]
    }

    pub(crate) fn into_array(self) -> Array2<f32> {
        let Padded {
            rows,
            cols,
            width,
            z,
        } = self;
        let mut out = Array2::<f32>::zeros((rows, cols));
        out.axis_iter_mut(Axis(0))
            .into_par_iter()
            .zip(z.par_chunks(width).skip(1))
            .for_each(|(mut dst, src)| {
                for (d, &v) in dst.iter_mut().zip(&src[1..=cols]) {
                    *d = v;
                }
            });
        out
    }
}

/// One bit per cell: 2 MB for 16.8M cells, so the closed test mostly hits the cache.
struct Bits(Vec<u64>);

impl Bits {
    #[inline]
    fn get(&self, i: usize) -> bool {
        (self.0[i >> 6] >> (i & 63)) & 1 != 0
    }

    #[inline]
    fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
}

fn priority_flood<const EPSILON: bool>(
    dem: ArrayView2<'_, f32>,
) -> Result<Array2<f32>, RasterError> {
    let mut grid = Padded::new(dem)?;
    let offsets = grid.offsets();
    let (rows, cols, width) = (grid.rows, grid.cols, grid.width);
    let z = &mut grid.z;

    // NoData (and the margin) is closed from the start; valid cells next to it are the outlets
    // the flood starts from, in row-major order.
    // Both scans run in parallel; the seeds are pushed in row-major order.
    let mut closed = Bits(
        z.par_chunks(64)
            .map(|chunk| {
                chunk
                    .iter()
                    .enumerate()
                    .fold(0u64, |bits, (k, v)| bits | (u64::from(v.is_nan()) << k))
            })
            .collect(),
    );
    let z_ref: &[f32] = z;
    let seeds: Vec<Vec<u32>> = (1..=rows)
        .into_par_iter()
        .map(|r| {
            (r * width + 1..=r * width + cols)
                .filter(|&i| {
                    !z_ref[i].is_nan()
                        && offsets
                            .iter()
                            .any(|&o| z_ref[i.wrapping_add_signed(o)].is_nan())
                })
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    let mut open = RadixQueue::new();
    for i in seeds.into_iter().flatten() {
        closed.set(i as usize);
        open.push(key(z[i as usize]), i);
    }

    let mut pit: VecDeque<u32> = VecDeque::new();
    let mut slope: Vec<u32> = Vec::new();
    loop {
        // Slope cells are safe in any order; then the pit FIFO, then the queue. The plain fill's
        // pit cells sit at the level just popped, never above the queue's minimum, so the FIFO
        // keeps the order. The epsilon fill's raised cells climb one `next_up` per step above the
        // cell that reached them, possibly above the queue's minimum: they go into the queue at
        // their raised level instead, so every cell leaves in level order (the radix queue's
        // keys never decrease) and a flat drains toward its nearest outlet.
        let c = if let Some(c) = slope.pop() {
            c as usize
        } else if let Some(c) = pit.pop_front() {
            c as usize
        } else if let Some((_, c)) = open.pop() {
            c as usize
        } else {
            break;
        };
        let level = if EPSILON { z[c].next_up() } else { z[c] };
        for &o in &offsets {
            let n = c.wrapping_add_signed(o);
            if closed.get(n) {
                continue;
            }
            closed.set(n);
            let zn = z[n];
            if zn <= level {
                // Only a cell strictly below is raised, to the level's canonical bits (+0.0,
                // never -0.0): the output's bits do not depend on the flood's order (tiles).
                if EPSILON || zn < level {
                    z[n] = level + 0.0;
                }
                if EPSILON {
                    open.push(key(level), n as u32);
                } else {
                    pit.push_back(n as u32);
                }
                continue;
            }
            // Zhou, Sun and Fu (2016): a cell above `c` whose open neighbours all lie above its
            // own level cannot raise anything when processed, so it needs no place in the
            // priority order: climbing a slope skips the queue.
            let level_n = if EPSILON { zn.next_up() } else { zn };
            let safe = offsets.iter().all(|&p| {
                let m = n.wrapping_add_signed(p);
                closed.get(m) || z[m] > level_n
            });
            if safe {
                slope.push(n as u32);
            } else {
                open.push(key(zn), n as u32);
            }
        }
    }
    Ok(grid.into_array())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};

    /// The fill by its definition: repeatedly lower an all-high surface to
    /// max(dem, min over neighbours) until nothing changes (Planchon and Darboux style).
    fn fill_by_relaxation(dem: &Array2<f32>) -> Array2<f32> {
        let (rows, cols) = dem.dim();
        let is_outlet = |r: usize, c: usize| {
            r == 0
                || c == 0
                || r + 1 == rows
                || c + 1 == cols
                || (-1..=1).any(|dr: isize| {
                    (-1..=1).any(|dc: isize| {
                        let (nr, nc) = (r as isize + dr, c as isize + dc);
                        dem[[nr as usize, nc as usize]].is_nan()
                    })
                })
        };
        let mut w = Array2::from_shape_fn((rows, cols), |(r, c)| {
            if dem[[r, c]].is_nan() || is_outlet(r, c) {
                dem[[r, c]]
            } else {
                f32::INFINITY
            }
        });
        loop {
            let mut changed = false;
            for r in 1..rows.saturating_sub(1) {
                for c in 1..cols.saturating_sub(1) {
                    if dem[[r, c]].is_nan() || is_outlet(r, c) {
                        continue;
                    }
                    let mut low = f32::INFINITY;
                    for dr in -1..=1isize {
                        for dc in -1..=1isize {
                            if dr == 0 && dc == 0 {
                                continue;
                            }
                            let v = w[[(r as isize + dr) as usize, (c as isize + dc) as usize]];
                            if !v.is_nan() {
                                low = low.min(v);
                            }
                        }
                    }
                    let new = dem[[r, c]].max(low);
                    if new < w[[r, c]] {
                        w[[r, c]] = new;
                        changed = true;
                    }
                }
            }
            if !changed {
                return w;
            }
        }
    }

    fn noisy_dem(rows: usize, cols: usize, seed: u64, offset: f32) -> Array2<f32> {
        Array2::from_shape_fn((rows, cols), |(r, c)| {
            let h = orogen_world::seed::splitmix64(seed ^ (r * cols + c) as u64);
            offset + (h % 50) as f32 * 0.25
        })
    }

    fn same_bits(a: &Array2<f32>, b: &Array2<f32>) -> bool {
        a.shape() == b.shape() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    #[test]
    fn fill_matches_the_definition_on_random_grids_with_nodata() {
        for seed in 0..20u64 {
            let offset = if seed % 2 == 0 { 0.0 } else { -2000.0 };
            let mut dem = noisy_dem(23, 31, seed, offset);
            if seed % 3 == 0 {
                for r in 8..12 {
                    for c in 10..15 {
                        dem[[r, c]] = f32::NAN;
                    }
                }
            }
            let filled = fill(dem.view()).unwrap();
            let expected = fill_by_relaxation(&dem);
            assert!(same_bits(&filled, &expected), "seed {seed}");
            assert!(filled.iter().zip(&dem).any(|(f, d)| f > d), "seed {seed}");
        }
    }

    #[test]
    fn epsilon_fill_drains_every_interior_cell_and_stays_above_the_fill() {
        for seed in 0..10u64 {
            let dem = noisy_dem(20, 17, seed, if seed % 2 == 0 { 5.0 } else { -3.0 });
            let plain = fill(dem.view()).unwrap();
            let eps = fill_epsilon(dem.view()).unwrap();
            for r in 1..19 {
                for c in 1..16 {
                    let lower = (-1..=1isize).any(|dr| {
                        (-1..=1isize).any(|dc| {
                            eps[[(r as isize + dr) as usize, (c as isize + dc) as usize]]
                                < eps[[r, c]]
                        })
                    });
                    assert!(lower, "seed {seed}: ({r}, {c}) has no lower neighbour");
                }
            }
            assert!(eps.iter().zip(&plain).all(|(e, p)| e >= p));
        }
    }

    /// Found by fuzzing: a flat raised from a slope cell climbed above the queue's minimum while
    /// lower raised cells waited behind it in the FIFO; they later pushed keys below the last one
    /// popped ("radix queue keys must not decrease" under debug assertions).
    #[test]
    fn epsilon_fill_pops_in_level_order_where_raised_flats_climb_above_the_queue() {
        let dem = array![
            [7.5f32, -1.5, 7.5, 5.5, 5.0, -3.0, -2.0],
            [9.5, 0.0, -2.5, -1.0, 5.0, 5.0, 10.0],
            [5.0, -2.5, -1.5, -1.0, 3.0, 8.5, -1.5],
            [10.5, 1.0, 10.0, 5.5, 6.5, 6.0, 4.0],
        ];
        let eps = fill_epsilon(dem.view()).unwrap();
        let plain = fill(dem.view()).unwrap();
        assert!(eps.iter().zip(&plain).all(|(e, p)| e >= p));
        for r in 1..3 {
            for c in 1..6 {
                let lower = (-1..=1isize).any(|dr| {
                    (-1..=1isize).any(|dc| {
                        eps[[(r as isize + dr) as usize, (c as isize + dc) as usize]] < eps[[r, c]]
                    })
                });
                assert!(lower, "({r}, {c}) has no lower neighbour");
            }
        }
    }

    #[test]
    fn any_memory_layout_gives_the_same_fill() {
        let dem = noisy_dem(13, 29, 5, 1.0);
        let transposed = dem.t().to_owned();
        // A transposed view of the transposed copy is the DEM again, in Fortran order.
        let filled = fill(transposed.t()).unwrap();
        assert!(same_bits(&filled, &fill(dem.view()).unwrap()));
        let d8 = super::super::d8_receivers(transposed.t());
        assert_eq!(d8, super::super::d8_receivers(dem.view()));
    }

    #[test]
    fn degenerate_grids_are_defined() {
        let one = array![[3.5f32]];
        assert_eq!(fill(one.view()).unwrap(), one);
        assert_eq!(fill_epsilon(one.view()).unwrap(), one);
        let flat = Array2::from_elem((6, 7), 2.0f32);
        assert_eq!(fill(flat.view()).unwrap(), flat);
        // The epsilon fill raises a flat's inside one step per ring (Chebyshev distance to the
        // border), so every cell drains toward its nearest outlet.
        let eps = fill_epsilon(flat.view()).unwrap();
        assert_eq!(eps[[0, 0]], 2.0);
        assert_eq!(eps[[1, 1]], 2.0f32.next_up());
        assert_eq!(eps[[4, 5]], 2.0f32.next_up());
        assert_eq!(eps[[2, 3]], 2.0f32.next_up().next_up());
        assert_eq!(eps[[3, 2]], 2.0f32.next_up().next_up());
        let nan = Array2::from_elem((4, 5), f32::NAN);
        assert!(fill(nan.view()).unwrap().iter().all(|v| v.is_nan()));
        let empty = Array2::<f32>::zeros((0, 4));
        assert_eq!(fill(empty.view()).unwrap().dim(), (0, 4));
    }
}
