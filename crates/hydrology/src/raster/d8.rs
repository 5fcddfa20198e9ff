//! Steepest-slope D8 receivers.

use ndarray::{Array2, ArrayView2, Axis};
use rayon::prelude::*;

/// The D8 codes 1..=8 as `(dx, dy)` = (column step, row step), at index `code - 1`:
/// W, NW, N, NE, E, SE, S, SW. Code 0 means "no receiver".
pub const D8_CODES: [(isize, isize); 8] = [
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
];

/// The `[row, col]` a cell with D8 `code` drains to, or `None` for code 0, an invalid code, or a
/// receiver off a `rows x cols` grid.
pub fn receiver_of(
    row: usize,
    col: usize,
    code: i8,
    rows: usize,
    cols: usize,
) -> Option<[usize; 2]> {
    let (dx, dy) = *D8_CODES.get(usize::try_from(code).ok()?.checked_sub(1)?)?;
    let r = row.checked_add_signed(dy)?;
    let c = col.checked_add_signed(dx)?;
    (r < rows && c < cols).then_some([r, c])
}

/// The steepest-slope receiver of every cell of `dem`, as a D8 code (see [`D8_CODES`]).
///
/// Slope = drop / distance, with distance 1 to the four side neighbours and `sqrt 2` to the
/// diagonal ones, computed in f64; only a strictly positive slope drains, and ties go to the
/// first direction in the order W, NW, N, NE, E, SE, S, SW. Border cells, NaN cells and cells
/// next to a NaN get 0 (outlets and NoData); so do pits and flats. Rows are computed in parallel;
/// the result does not depend on the thread count.
pub fn d8_receivers(dem: ArrayView2<'_, f32>) -> Array2<i8> {
    let (rows, cols) = dem.dim();
    let mut out = Array2::<i8>::zeros((rows, cols));
    if rows < 3 || cols < 3 {
        return out;
    }
    let dem = dem.as_standard_layout();
    let z = dem.as_slice().unwrap_or_default();
    let diagonal = std::f64::consts::FRAC_1_SQRT_2;
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .skip(1)
        .take(rows - 2)
        .for_each_init(
            || {
                (
                    vec![0.0f64; cols - 2],
                    vec![0u64; cols - 2],
                    vec![0u64; cols - 2],
                )
            },
            |(best, code, nodata), (r, mut out_row)| {
                // Eight passes over whole rows, branch-free and in 64-bit lanes throughout, so
                // the compiler vectorises them.
                best.fill(0.0);
                code.fill(0);
                nodata.fill(0);
                let centre = &z[r * cols + 1..(r + 1) * cols - 1];
                for (k, &(dx, dy)) in D8_CODES.iter().enumerate() {
                    let start = (r as isize + dy) as usize * cols;
                    let start = (start as isize + 1 + dx) as usize;
                    let neighbour = &z[start..start + cols - 2];
                    let inv_dist = if dx != 0 && dy != 0 { diagonal } else { 1.0 };
                    let k = k as u64 + 1;
                    for ((((b, d), n), &zc), &zn) in best
                        .iter_mut()
                        .zip(code.iter_mut())
                        .zip(nodata.iter_mut())
                        .zip(centre)
                        .zip(neighbour)
                    {
                        let slope = (f64::from(zc) - f64::from(zn)) * inv_dist;
                        *n |= u64::from(slope.is_nan());
                        // Masks rather than branches (NaN never wins: max ignores it).
                        let mask = u64::from(slope > *b).wrapping_neg();
                        *b = b.max(slope);
                        *d = (*d & !mask) | (k & mask);
                    }
                }
                for ((o, &d), &n) in out_row
                    .iter_mut()
                    .skip(1)
                    .zip(code.iter())
                    .zip(nodata.iter())
                {
                    *o = if n != 0 { 0 } else { d as i8 };
                }
            },
        );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn steepest_neighbour_wins_and_ties_go_to_the_first_direction() {
        // Centre 10; N and E drop by 4 (tie: N comes first); the SW diagonal drops by 5, a slope
        // of only 3.54.
        let dem = array![[10.0f32, 6.0, 10.0], [10.0, 10.0, 6.0], [5.0, 10.0, 10.0]];
        assert_eq!(d8_receivers(dem.view())[[1, 1]], 3);
        // A diagonal drop of 6 (slope 4.24) beats the side drops of 4.
        let dem = array![[10.0f32, 6.0, 10.0], [10.0, 10.0, 6.0], [4.0, 10.0, 10.0]];
        assert_eq!(d8_receivers(dem.view())[[1, 1]], 8);
        assert_eq!(receiver_of(1, 1, 8, 3, 3), Some([2, 0]));
        assert_eq!(receiver_of(0, 0, 1, 3, 3), None);
        assert_eq!(receiver_of(1, 1, 9, 3, 3), None);
        assert_eq!(receiver_of(1, 1, -1, 3, 3), None);
    }

    #[test]
    fn borders_pits_flats_and_nodata_have_no_receiver() {
        let dem = array![
            [0.0f32, 0.0, 0.0, 0.0],
            [0.0, 5.0, 5.0, 0.0],
            [0.0, 5.0, 1.0, f32::NAN],
            [0.0, 0.0, 0.0, 0.0]
        ];
        let d8 = d8_receivers(dem.view());
        // (1, 1) and (2, 1) drain west; (1, 2) and (2, 2) touch the NaN: outlets.
        assert_eq!(
            d8,
            array![[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
        );
        assert!(
            d8_receivers(Array2::from_elem((5, 5), 1.0f32).view())
                .iter()
                .all(|&c| c == 0)
        );
        assert_eq!(d8_receivers(array![[1.0f32]].view()), array![[0i8]]);
    }
}
