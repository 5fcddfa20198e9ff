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
    let w = cols as isize;
    let offsets: [isize; 8] = [-1, -w - 1, -w, -w + 1, 1, w + 1, w, w - 1];
    let inv_dist = [1.0, diagonal, 1.0, diagonal, 1.0, diagonal, 1.0, diagonal];
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .skip(1)
        .take(rows - 2)
        .for_each(|(r, mut out_row)| {
            for c in 1..cols - 1 {
                let i = r * cols + c;
                let zc = z[i];
                if zc.is_nan() {
                    continue;
                }
                let mut best = 0.0f64;
                let mut code = 0i8;
                let mut nodata = false;
                for k in 0..8 {
                    let zn = z[i.wrapping_add_signed(offsets[k])];
                    nodata |= zn.is_nan();
                    let slope = (f64::from(zc) - f64::from(zn)) * inv_dist[k];
                    if slope > best {
                        best = slope;
                        code = k as i8 + 1;
                    }
                }
                out_row[c] = if nodata { 0 } else { code };
            }
        });
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
