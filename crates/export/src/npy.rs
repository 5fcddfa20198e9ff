//! NumPy `.npy` arrays (format 1.0, C order, little-endian as `ndarray-npy` writes them), so a
//! grid opens with `numpy.load`.

use std::io::Write;

use ndarray::{ArrayBase, Data, Dimension};
use ndarray_npy::{WritableElement, WriteNpyExt};

use crate::ExportError;

/// Writes `array` as one `.npy` file (any element type NumPy has: `f32`, `f64`, `i8`, ...).
pub fn write_npy<S, D>(w: &mut dyn Write, array: &ArrayBase<S, D>) -> Result<(), ExportError>
where
    S: Data,
    S::Elem: WritableElement,
    D: Dimension,
{
    array
        .write_npy(w)
        .map_err(|e| ExportError::encode("npy", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};
    use ndarray_npy::ReadNpyExt;

    #[test]
    fn arrays_read_back_with_their_dtype_and_shape() {
        let a = array![[1.5f32, -2.0, f32::NAN], [0.0, 7.25, 1e-30]];
        let mut bytes = Vec::new();
        write_npy(&mut bytes, &a).unwrap();
        assert!(bytes.starts_with(b"\x93NUMPY"));
        let text = String::from_utf8_lossy(&bytes[..128]);
        assert!(text.contains("'descr': '<f4'") && text.contains("'shape': (2, 3)"));
        let back = Array2::<f32>::read_npy(&bytes[..]).unwrap();
        assert!(back.iter().zip(&a).all(|(x, y)| x.to_bits() == y.to_bits()));

        // A transposed (Fortran-order) view is written in its logical order.
        let codes = array![[0i8, 1], [5, 8], [3, 0]];
        let mut bytes = Vec::new();
        write_npy(&mut bytes, &codes.t()).unwrap();
        assert_eq!(Array2::<i8>::read_npy(&bytes[..]).unwrap(), codes.t());
    }
}
