//! D8 flow accumulation, parallel and exact.

use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use super::d8::{D8_CODES, d8_receivers, receiver_of};
use super::{RasterError, check_size};

/// The byte of a cell with exactly one donor (see `donors` below).
const SINGLE_DONOR: u8 = 0x11;
/// Rows per parallel task.
const ROWS_PER_TASK: usize = 16;

/// D8 flow accumulation: for each cell, the number of cells whose flow passes through it, the
/// cell itself counted as 1, from D8 `receivers` coded as [`d8_receivers`] makes them.
///
/// Parallel: every cell counts its donors, then each thread walks downstream from the cells that
/// have none, adding the finished count of a cell to its receiver; the walk that brings the last
/// donor of a cell continues from it. Counts are integers, so the sums are exact and the result
/// is the same bytes for any number of threads.
///
/// Refuses a code outside 0..=8, a receiver off the grid, and receivers that form a cycle.
pub fn flow_accumulation(receivers: ArrayView2<'_, i8>) -> Result<Array2<f64>, RasterError> {
    let (rows, cols) = receivers.dim();
    check_size(rows, cols)?;
    let receivers = receivers.as_standard_layout();
    let codes = receivers.as_slice().unwrap_or_default();
    let n = rows * cols;
    if n == 0 {
        return Ok(Array2::zeros((rows, cols)));
    }
    // Flat offset of each code (index 0 unused) and the code that points back.
    let w = cols as isize;
    let mut offset = [0isize; 9];
    for (k, &(dx, dy)) in D8_CODES.iter().enumerate() {
        offset[k + 1] = dy * w + dx;
    }
    // Validate every code, then count each cell's donors by looking at its neighbours (a pull,
    // so no two threads write the same cell). Counts fit u32: `check_size` caps the cells.
    // Rows are checked whole (a vectorised range test), cells only in the first bad row.
    let valid_at = |r: usize, c: usize| {
        let code = codes[r * cols + c];
        code == 0 || receiver_of(r, c, code, rows, cols).is_some()
    };
    let bad_row = codes.par_chunks(cols).enumerate().find_first(|(r, row)| {
        row.iter()
            .fold(false, |bad, &code| bad | !(0..=8).contains(&code))
            || !valid_at(*r, 0)
            || !valid_at(*r, cols - 1)
            || ((*r == 0 || *r == rows - 1) && (0..cols).any(|c| !valid_at(*r, c)))
    });
    if let Some((r, _)) = bad_row {
        let c = (0..cols).find(|&c| !valid_at(r, c)).unwrap_or_default();
        return Err(RasterError::BadReceiver {
            row: r,
            col: c,
            code: codes[r * cols + c],
        });
    }
    // Each cell's byte holds its donor count twice: the high nibble stays (is it a confluence?),
    // the low nibble counts down as donors finish. Sources have no donors: byte 0.
    let mut counts = vec![0u8; n];
    counts
        .par_chunks_mut(cols)
        .enumerate()
        .for_each(|(r, row)| count_donors(codes, rows, cols, r, row));
    let donors: Vec<AtomicU8> = counts
        .into_par_iter()
        .with_min_len(4096)
        .map(|d| AtomicU8::new((d << 4) | d))
        .collect();

    let acc: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(1))
        .collect();
    let n_tasks = rows.div_ceil(ROWS_PER_TASK);
    let finished: usize = (0..n_tasks)
        .into_par_iter()
        .map(|task| {
            let start = task * ROWS_PER_TASK * cols;
            let end = ((task + 1) * ROWS_PER_TASK * cols).min(n);
            let mut finished = 0usize;
            for i in start..end {
                if donors[i].load(Ordering::Relaxed) != 0 {
                    continue;
                }
                let mut cell = i;
                let mut carry = 1u32;
                loop {
                    finished += 1;
                    let code = codes[cell];
                    if code == 0 {
                        break;
                    }
                    let next = cell.wrapping_add_signed(offset[code as usize]);
                    if donors[next].load(Ordering::Relaxed) == SINGLE_DONOR {
                        // Only this walk ever reaches `next`: no read-modify-write needed.
                        carry += 1;
                        acc[next].store(carry, Ordering::Relaxed);
                    } else {
                        acc[next].fetch_add(carry, Ordering::Relaxed);
                        // Release publishes our addition; the walk that brings the last donor
                        // acquires every donor's addition before it reads `next`'s total.
                        if donors[next].fetch_sub(1, Ordering::AcqRel) & 0x0F != 1 {
                            break;
                        }
                        carry = acc[next].load(Ordering::Relaxed);
                    }
                    cell = next;
                }
            }
            finished
        })
        .sum();
    if finished != n {
        return Err(RasterError::Cycle {
            n_cells: n - finished,
        });
    }
    let values: Vec<f64> = acc
        .into_par_iter()
        .with_min_len(4096)
        .map(|a| f64::from(a.into_inner()))
        .collect();
    Ok(Array2::from_shape_vec((rows, cols), values).expect("n = rows * cols values"))
}

/// Counts, for each cell of row `r`, the neighbours whose receiver it is, one direction at a time
/// over whole rows (branch-free, vectorised).
fn count_donors(codes: &[i8], rows: usize, cols: usize, r: usize, out: &mut [u8]) {
    for (k, &(dx, dy)) in D8_CODES.iter().enumerate() {
        let Some(nr) = r.checked_add_signed(dy).filter(|&nr| nr < rows) else {
            continue;
        };
        // A donor in direction k drains back toward us: its code is the opposite direction.
        let back = ((k + 4) % 8 + 1) as i8;
        let neighbours = &codes[nr * cols..(nr + 1) * cols];
        let (dst, src) = match dx {
            -1 => (&mut out[1..], &neighbours[..cols - 1]),
            1 => (&mut out[..cols - 1], &neighbours[1..]),
            _ => (&mut out[..], neighbours),
        };
        for (d, &code) in dst.iter_mut().zip(src) {
            *d += u8::from(code == back);
        }
    }
}

/// D8 receivers of `dem` ([`d8_receivers`]) and their [`flow_accumulation`], with NaN (NoData)
/// cells set to NaN in the result.
pub fn accumulate_dem(dem: ArrayView2<'_, f32>) -> Result<Array2<f64>, RasterError> {
    let receivers = d8_receivers(dem);
    let mut acc = flow_accumulation(receivers.view())?;
    acc.zip_mut_with(&dem, |a, z| {
        if z.is_nan() {
            *a = f64::NAN;
        }
    });
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn counts_every_upstream_cell_once() {
        // A chain flowing east along row 1 into the border, with a tributary from the north.
        let receivers = array![
            [0i8, 0, 0, 0, 0],
            [0, 5, 5, 5, 0],
            [0, 3, 3, 3, 0],
            [0, 0, 0, 0, 0]
        ];
        let acc = flow_accumulation(receivers.view()).unwrap();
        assert_eq!(
            acc,
            array![
                [1.0, 1.0, 1.0, 1.0, 1.0],
                [1.0, 2.0, 4.0, 6.0, 7.0],
                [1.0, 1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0, 1.0]
            ]
        );
    }

    #[test]
    fn bad_codes_and_cycles_are_refused() {
        let off_grid = array![[1i8, 0], [0, 0]];
        assert_eq!(
            flow_accumulation(off_grid.view()),
            Err(RasterError::BadReceiver {
                row: 0,
                col: 0,
                code: 1
            })
        );
        let bad = array![[0i8, 0], [0, 9]];
        assert!(matches!(
            flow_accumulation(bad.view()),
            Err(RasterError::BadReceiver { code: 9, .. })
        ));
        // (0, 0) -> E -> (0, 1) -> W -> (0, 0).
        let cycle = array![[5i8, 1, 0], [0, 0, 0]];
        assert_eq!(
            flow_accumulation(cycle.view()),
            Err(RasterError::Cycle { n_cells: 2 })
        );
    }

    #[test]
    fn nodata_cells_are_nan_and_receive_nothing() {
        let mut dem = Array2::from_shape_fn((7, 7), |(r, c)| (r + c) as f32);
        dem[[3, 3]] = f32::NAN;
        let acc = accumulate_dem(dem.view()).unwrap();
        assert!(acc[[3, 3]].is_nan());
        // Every valid cell ends in exactly one outlet (a border cell or a neighbour of the hole).
        let receivers = d8_receivers(dem.view());
        assert_eq!(receivers[[4, 4]], 0, "next to the hole: an outlet");
        let at_outlets: f64 = acc
            .iter()
            .zip(&receivers)
            .filter(|(a, code)| !a.is_nan() && **code == 0)
            .map(|(a, _)| a)
            .sum();
        assert_eq!(at_outlets, 48.0);
        assert!(
            accumulate_dem(Array2::from_elem((3, 4), f32::NAN).view())
                .unwrap()
                .iter()
                .all(|a| a.is_nan())
        );
    }
}
