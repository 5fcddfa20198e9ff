//! PNG encoding (8-bit gray, 16-bit gray, 8-bit RGB and RGBA) with fast compression: the higher
//! levels cost 10-65x the time for files about 10% smaller.

use std::io::Write;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};
use ndarray::{ArrayView2, ArrayView3};

use crate::ExportError;

fn encode(
    w: &mut dyn Write,
    bytes: &[u8],
    nx: usize,
    ny: usize,
    color: ExtendedColorType,
) -> Result<(), ExportError> {
    let encoder = PngEncoder::new_with_quality(w, CompressionType::Fast, FilterType::Adaptive);
    encoder
        .write_image(bytes, nx as u32, ny as u32, color)
        .map_err(|e| ExportError::encode("png", e))
}

/// Writes a 16-bit grayscale PNG, row 0 first (`[row, col]`).
pub fn write_gray16(w: &mut dyn Write, pixels: ArrayView2<'_, u16>) -> Result<(), ExportError> {
    let (ny, nx) = pixels.dim();
    // PNG stores 16-bit samples big-endian; the encoder expects native-endian input: the
    // samples' own bytes when row-major (no copy).
    match pixels.as_slice() {
        Some(samples) => encode(
            w,
            bytemuck::cast_slice(samples),
            nx,
            ny,
            ExtendedColorType::L16,
        ),
        None => {
            let bytes: Vec<u8> = pixels.iter().flat_map(|v| v.to_ne_bytes()).collect();
            encode(w, &bytes, nx, ny, ExtendedColorType::L16)
        }
    }
}

/// Writes an 8-bit grayscale PNG.
pub fn write_gray8(w: &mut dyn Write, pixels: ArrayView2<'_, u8>) -> Result<(), ExportError> {
    let (ny, nx) = pixels.dim();
    encode_bytes(
        w,
        pixels.as_slice(),
        pixels.iter(),
        nx,
        ny,
        ExtendedColorType::L8,
    )
}

/// Writes an 8-bit RGB (`[row, col, 3]`) or RGBA (`[row, col, 4]`) PNG.
pub fn write_rgb8(w: &mut dyn Write, pixels: ArrayView3<'_, u8>) -> Result<(), ExportError> {
    let (ny, nx, channels) = pixels.dim();
    let color = match channels {
        3 => ExtendedColorType::Rgb8,
        4 => ExtendedColorType::Rgba8,
        n => {
            return Err(ExportError::encode(
                "png",
                format!("{n} channels (expected 3 or 4)"),
            ));
        }
    };
    encode_bytes(w, pixels.as_slice(), pixels.iter(), nx, ny, color)
}

/// Encodes 8-bit samples as they lie in memory when row-major (`contiguous`, as every raster
/// here is: no copy), else a row-major copy of `all`.
fn encode_bytes<'a>(
    w: &mut dyn Write,
    contiguous: Option<&[u8]>,
    all: impl Iterator<Item = &'a u8>,
    nx: usize,
    ny: usize,
    color: ExtendedColorType,
) -> Result<(), ExportError> {
    match contiguous {
        Some(bytes) => encode(w, bytes, nx, ny, color),
        None => encode(w, &all.copied().collect::<Vec<u8>>(), nx, ny, color),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn gray16_reads_back_with_an_independent_decoder() {
        let pixels = Array2::from_shape_fn((3, 5), |(r, c)| (r * 5 + c) as u16 * 4099 + 7);
        let mut bytes = Vec::new();
        write_gray16(&mut bytes, pixels.view()).unwrap();
        let decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (5, 3));
        assert_eq!(info.bit_depth, ::png::BitDepth::Sixteen);
        assert_eq!(info.color_type, ::png::ColorType::Grayscale);
        let back: Vec<u16> = buf
            .chunks(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(back, pixels.iter().copied().collect::<Vec<_>>());
    }

    #[test]
    fn gray16_of_a_column_major_view_is_the_file_of_its_row_major_copy() {
        // Row-major samples are handed over as they lie; any other layout through a copy.
        let pixels = Array2::from_shape_fn((5, 3), |(r, c)| (r * 3 + c) as u16 * 3001 + 11);
        let transposed = pixels.t();
        assert!(transposed.as_slice().is_none());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_gray16(&mut a, transposed).unwrap();
        write_gray16(&mut b, transposed.as_standard_layout().view()).unwrap();
        assert_eq!(a, b);
        assert!(a.len() > 8);
    }
}
