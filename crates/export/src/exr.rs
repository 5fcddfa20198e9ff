//! 32-bit float OpenEXR, one channel, written by hand so the bytes are the same on every run:
//! scan lines, no compression, increasing line order, one line per block, no threads.

use std::io::Write;

use ndarray::ArrayView2;

use crate::ExportError;

fn attr(out: &mut Vec<u8>, name: &str, kind: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(kind.as_bytes());
    out.push(0);
    out.extend_from_slice(&(value.len() as i32).to_le_bytes());
    out.extend_from_slice(value);
}

fn box2i(nx: usize, ny: usize) -> Vec<u8> {
    [0i32, 0, nx as i32 - 1, ny as i32 - 1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// Writes `pixels` (`[row, col]`, row 0 at the top) as a single-channel 32-bit float EXR whose
/// channel is `channel` (for example `Y` or `R`).
pub fn write_f32(
    w: &mut dyn Write,
    pixels: ArrayView2<'_, f32>,
    channel: &str,
) -> Result<(), ExportError> {
    let (ny, nx) = pixels.dim();
    if nx == 0 || ny == 0 || nx > i32::MAX as usize / 4 || ny > i32::MAX as usize {
        return Err(ExportError::encode("exr", format!("a {nx} x {ny} image")));
    }
    let mut head = Vec::with_capacity(512);
    head.extend_from_slice(&[0x76, 0x2f, 0x31, 0x01]); // magic
    head.extend_from_slice(&[2, 0, 0, 0]); // version 2, scan lines, short names
    let mut chlist = Vec::new();
    chlist.extend_from_slice(channel.as_bytes());
    chlist.push(0);
    chlist.extend_from_slice(&2i32.to_le_bytes()); // FLOAT
    chlist.extend_from_slice(&[0, 0, 0, 0]); // pLinear, reserved
    chlist.extend_from_slice(&1i32.to_le_bytes()); // x sampling
    chlist.extend_from_slice(&1i32.to_le_bytes()); // y sampling
    chlist.push(0);
    attr(&mut head, "channels", "chlist", &chlist);
    attr(&mut head, "compression", "compression", &[0]);
    attr(&mut head, "dataWindow", "box2i", &box2i(nx, ny));
    attr(&mut head, "displayWindow", "box2i", &box2i(nx, ny));
    attr(&mut head, "lineOrder", "lineOrder", &[0]); // increasing y
    attr(&mut head, "pixelAspectRatio", "float", &1f32.to_le_bytes());
    attr(&mut head, "screenWindowCenter", "v2f", &[0; 8]);
    attr(&mut head, "screenWindowWidth", "float", &1f32.to_le_bytes());
    head.push(0);
    let line = 8 + 4 * nx;
    let first = head.len() + 8 * ny;
    for row in 0..ny {
        head.extend_from_slice(&((first + row * line) as u64).to_le_bytes());
    }
    let io = crate::atomic::io("exr");
    w.write_all(&head).map_err(&io)?;
    let mut buf = Vec::with_capacity(line);
    for (row, values) in pixels.rows().into_iter().enumerate() {
        buf.clear();
        buf.extend_from_slice(&(row as i32).to_le_bytes());
        buf.extend_from_slice(&((4 * nx) as i32).to_le_bytes());
        buf.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        w.write_all(&buf).map_err(&io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::exr::prelude::*;
    use ndarray::Array2;

    #[test]
    fn reads_back_with_the_exr_crate() {
        let pixels = Array2::from_shape_fn((5, 7), |(r, c)| r as f32 * 100.5 - c as f32 * 3.25);
        let mut bytes = Vec::new();
        write_f32(&mut bytes, pixels.view(), "Y").unwrap();
        let image = read()
            .no_deep_data()
            .largest_resolution_level()
            .all_channels()
            .first_valid_layer()
            .all_attributes()
            .non_parallel()
            .from_buffered(std::io::Cursor::new(&bytes))
            .unwrap();
        let layer = &image.layer_data;
        assert_eq!(layer.size, Vec2(7, 5));
        assert_eq!(layer.channel_data.list.len(), 1);
        let ch = &layer.channel_data.list[0];
        assert_eq!(ch.name.to_string(), "Y");
        let values: Vec<f32> = ch.sample_data.values_as_f32().collect();
        assert_eq!(values, pixels.iter().copied().collect::<Vec<_>>());
        let mut again = Vec::new();
        write_f32(&mut again, pixels.view(), "Y").unwrap();
        assert_eq!(bytes, again);
    }
}
