//! GeoTIFF in and out for `orogen dem`, through the `tiff` crate.
//!
//! Read: one-band float32/float64, int8..int32 and uint8..uint32 rasters, striped or tiled,
//! uncompressed, Deflate, LZW or PackBits. The georeferencing tags (ModelPixelScale,
//! ModelTiepoint, ModelTransformation, GeoKeyDirectory, GeoDoubleParams, GeoAsciiParams) and
//! GDAL's NoData (`GDAL_NODATA`) are kept as they were and written back unchanged, so GDAL sees
//! the output with the input's geotransform, projection and NoData. Cells equal to the NoData
//! value are NaN for the kernels and get the NoData value again on the way out.
//!
//! Before anything is decoded, the image's size is checked against the bytes present (a
//! compressed chunk expands at most by its method's largest ratio) and against the memory limit.

use std::io::{Cursor, Write};
use std::path::Path;

use ndarray::Array2;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::encoder::compression::DeflateLevel;
use tiff::encoder::{Compression, TiffEncoder, colortype};
use tiff::tags::Tag;

use super::{DemError, Dtype};

/// The georeferencing tags carried from input to output, in the order they were read.
pub const GEO_TAGS: [u16; 6] = [33550, 33922, 34264, 34735, 34736, 34737];
/// GDAL's NoData tag (ASCII).
pub const GDAL_NODATA: u16 = 42113;

/// A tag's value as it was stored.
#[derive(Clone, Debug, PartialEq)]
pub enum TagValue {
    /// SHORT values (GeoKeyDirectory).
    Shorts(Vec<u16>),
    /// DOUBLE values (ModelPixelScale, ModelTiepoint, ModelTransformation, GeoDoubleParams).
    Doubles(Vec<f64>),
    /// ASCII text (GeoAsciiParams).
    Ascii(String),
}

/// What a GeoTIFF carries beside its pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeoInfo {
    /// The georeferencing tags present, `(tag, value)`.
    pub tags: Vec<(u16, TagValue)>,
    /// `GDAL_NODATA` as written (e.g. `-9999`, `nan`).
    pub nodata_text: Option<String>,
    /// Its value, when it is a number.
    pub nodata: Option<f64>,
}

/// The largest expansion of each compression: a chunk of `n` bytes decodes to at most `n` times
/// this many (Deflate 1032:1; LZW at most 4096 bytes per 12-bit code; PackBits 128 per 2).
fn max_ratio(compression: u16) -> Option<usize> {
    match compression {
        1 => Some(1),
        8 | 32946 => Some(1040),
        5 => Some(2731),
        32773 => Some(64),
        _ => None,
    }
}

fn bad(path: &Path, e: impl std::fmt::Display) -> DemError {
    DemError::input(path, format!("bad TIFF: {e}"))
}

/// The raster of a one-band LZW TIFF decoded chunk by chunk (strips or tiles) with `weezl`, the
/// codec the `tiff` crate uses, but reading each chunk whole: the `tiff` crate 0.11 (up to
/// 0.11.3) refuses valid chunks whose decoded size ends where its read buffer does ("no lzw end
/// code found", image-tiff issue 395; fixed upstream by weezl 0.2, not released). Predictors 1
/// (none), 2 (horizontal differencing) and 3 (floating point), either byte order. A chunk is
/// decoded into a buffer of its own size, at most `limit` bytes: nothing beyond is allocated.
fn read_lzw(
    decoder: &mut Decoder<Cursor<&[u8]>>,
    bytes: &[u8],
    (nx, ny): (usize, usize),
    bits: u16,
    format: u16,
    limit: usize,
) -> Result<DecodingResult, String> {
    let e = |e: tiff::TiffError| e.to_string();
    let bps = usize::from(bits / 8);
    // The header's byte order: "II" little-endian, "MM" big-endian.
    let little = bytes.starts_with(b"II");
    let predictor: u16 = decoder
        .find_tag_unsigned(Tag::Predictor)
        .map_err(e)?
        .unwrap_or(1);
    let tiled = decoder.find_tag(Tag::TileWidth).map_err(e)?.is_some();
    let (cw, ch, offsets, counts) = if tiled {
        let tw: u32 = decoder.get_tag_unsigned(Tag::TileWidth).map_err(e)?;
        let th: u32 = decoder.get_tag_unsigned(Tag::TileLength).map_err(e)?;
        (
            tw as usize,
            th as usize,
            decoder.get_tag_u64_vec(Tag::TileOffsets).map_err(e)?,
            decoder.get_tag_u64_vec(Tag::TileByteCounts).map_err(e)?,
        )
    } else {
        let rows: u32 = decoder
            .find_tag_unsigned(Tag::RowsPerStrip)
            .map_err(e)?
            .unwrap_or(ny as u32);
        (
            nx,
            (rows as usize).min(ny),
            decoder.get_tag_u64_vec(Tag::StripOffsets).map_err(e)?,
            decoder.get_tag_u64_vec(Tag::StripByteCounts).map_err(e)?,
        )
    };
    let chunk_bytes = cw.checked_mul(ch).and_then(|n| n.checked_mul(bps));
    if cw == 0 || ch == 0 || ![1, 2, 4, 8].contains(&bps) || chunk_bytes.is_none_or(|n| n > limit) {
        return Err(format!(
            "unsupported LZW layout ({cw}x{ch} chunks of {bits}-bit samples, at most {limit} \
             bytes a chunk)"
        ));
    }
    if nx == 0 || ny == 0 {
        return Err("an empty raster".into());
    }
    let across = nx.div_ceil(cw);
    if offsets.len() != counts.len() || offsets.len() < across * ny.div_ceil(ch) {
        return Err("LZW chunk offsets and byte counts do not cover the raster".into());
    }
    // Every sample big-endian, then read by type at the end.
    let mut image = vec![0u8; nx * ny * bps];
    for (c, (&off, &count)) in offsets.iter().zip(&counts).enumerate() {
        let (cx, cy) = (c % across, c / across);
        if cy * ch >= ny {
            break;
        }
        // Tiles are whole at the edges; the last strip may be shorter.
        let rows = if tiled { ch } else { ch.min(ny - cy * ch) };
        let raw = usize::try_from(off)
            .ok()
            .zip(usize::try_from(count).ok())
            .and_then(|(o, n)| bytes.get(o..o.checked_add(n)?))
            .ok_or("an LZW chunk lies beyond the file")?;
        let row_bytes = cw * bps;
        // No more than LZW's largest expansion of the chunk's bytes is allocated for it.
        if rows * row_bytes > raw.len().saturating_mul(max_ratio(5).unwrap_or(1)) {
            return Err(format!("LZW chunk {c} is truncated"));
        }
        let mut data = vec![0u8; rows * row_bytes];
        let mut lzw = weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
        let (mut input, mut filled) = (raw, 0);
        while filled < data.len() {
            let r = lzw.decode_bytes(input, &mut data[filled..]);
            input = &input[r.consumed_in..];
            filled += r.consumed_out;
            match r.status {
                Ok(weezl::LzwStatus::Ok) if r.consumed_in + r.consumed_out > 0 => {}
                Ok(_) => break,
                Err(e) => return Err(format!("LZW chunk {c}: {e}")),
            }
        }
        if filled < data.len() {
            return Err(format!("LZW chunk {c} is truncated"));
        }
        let mut shuffled = Vec::new();
        for row in data.chunks_exact_mut(row_bytes) {
            match predictor {
                3 => {
                    // Floating point: bytes differenced along the row, then each sample's
                    // bytes spread most significant first over the row.
                    for i in 1..row.len() {
                        row[i] = row[i].wrapping_add(row[i - 1]);
                    }
                    shuffled.clear();
                    shuffled.extend_from_slice(row);
                    for i in 0..cw {
                        for k in 0..bps {
                            row[i * bps + k] = shuffled[k * cw + i];
                        }
                    }
                }
                1 | 2 => {
                    if little {
                        row.chunks_exact_mut(bps).for_each(<[u8]>::reverse);
                    }
                    if predictor == 2 {
                        let get = |s: &[u8]| s.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
                        let mut prev = 0u64;
                        for s in row.chunks_exact_mut(bps) {
                            let v = get(s).wrapping_add(prev);
                            let v = if bps == 8 {
                                v
                            } else {
                                v & ((1u64 << (8 * bps)) - 1)
                            };
                            s.copy_from_slice(&v.to_be_bytes()[8 - bps..]);
                            prev = v;
                        }
                    }
                }
                p => return Err(format!("unsupported TIFF predictor {p}")),
            }
        }
        for (r, row) in data.chunks_exact(row_bytes).enumerate() {
            let y = cy * ch + r;
            if y >= ny {
                break;
            }
            let x0 = cx * cw;
            let n = cw.min(nx - x0);
            let at = (y * nx + x0) * bps;
            image[at..at + n * bps].copy_from_slice(&row[..n * bps]);
        }
    }
    macro_rules! samples {
        ($t:ty, $n:literal) => {
            image
                .chunks_exact($n)
                .map(|s| <$t>::from_be_bytes(s.try_into().expect("a whole sample")))
                .collect()
        };
    }
    Ok(match (format, bits) {
        (3, 32) => DecodingResult::F32(samples!(f32, 4)),
        (3, 64) => DecodingResult::F64(samples!(f64, 8)),
        (2, 8) => DecodingResult::I8(samples!(i8, 1)),
        (2, 16) => DecodingResult::I16(samples!(i16, 2)),
        (2, 32) => DecodingResult::I32(samples!(i32, 4)),
        (1, 8) => DecodingResult::U8(image),
        (1, 16) => DecodingResult::U16(samples!(u16, 2)),
        (1, 32) => DecodingResult::U32(samples!(u32, 4)),
        _ => return Err(format!("unsupported {bits}-bit sample format {format}")),
    })
}

/// Reads a one-band GeoTIFF: the elevations (NoData cells NaN) or, for int8, D8 receiver codes.
/// `limit`: the most bytes the decoded raster may take.
pub fn read(
    path: &Path,
    bytes: &[u8],
    limit: usize,
) -> Result<(super::Grid, Dtype, GeoInfo), DemError> {
    let mut decoder = Decoder::new(Cursor::new(bytes))
        .map_err(|e| bad(path, e))?
        .with_limits(Limits::default());
    let (width, height) = decoder.dimensions().map_err(|e| bad(path, e))?;
    let (nx, ny) = (width as usize, height as usize);
    let samples: u16 = decoder
        .find_tag_unsigned(Tag::SamplesPerPixel)
        .map_err(|e| bad(path, e))?
        .unwrap_or(1);
    let bits: u16 = decoder
        .find_tag_unsigned(Tag::BitsPerSample)
        .map_err(|e| bad(path, e))?
        .unwrap_or(1);
    let format: u16 = decoder
        .find_tag_unsigned(Tag::SampleFormat)
        .map_err(|e| bad(path, e))?
        .unwrap_or(1);
    let compression: u16 = decoder
        .find_tag_unsigned(Tag::Compression)
        .map_err(|e| bad(path, e))?
        .unwrap_or(1);
    if samples != 1 {
        return Err(DemError::input(
            path,
            format!("a TIFF of {samples} bands: expected one band of elevations"),
        ));
    }
    let dtype = match (format, bits) {
        (3, 32) => Dtype::F32,
        (3, 64) => Dtype::F64,
        (2, 8) => Dtype::I8,
        (2, 16) => Dtype::I16,
        (2, 32) => Dtype::I32,
        (1, 8) => Dtype::U8,
        (1, 16) => Dtype::U16,
        (1, 32) => Dtype::U32,
        _ => {
            return Err(DemError::input(
                path,
                format!(
                    "unsupported TIFF samples ({bits}-bit, sample format {format}): expected \
                     float32/64, int8/16/32 or uint8/16/32"
                ),
            ));
        }
    };
    let Some(ratio) = max_ratio(compression) else {
        return Err(DemError::input(
            path,
            format!(
                "unsupported TIFF compression {compression}: expected none, Deflate, LZW or PackBits"
            ),
        ));
    };
    // Refuse what the bytes present cannot hold before the decoder allocates it.
    let needed = nx
        .checked_mul(ny)
        .and_then(|n| n.checked_mul(usize::from(bits) / 8));
    let most = bytes.len().saturating_mul(ratio).min(limit);
    match needed {
        Some(n) if n <= most => {}
        _ => {
            return Err(DemError::input(
                path,
                format!(
                    "a {nx}x{ny} {bits}-bit TIFF needs {} bytes decoded, more than {most} \
                     (truncated, or beyond the {limit}-byte memory limit)",
                    needed.map_or_else(|| "too many".to_owned(), |n| n.to_string())
                ),
            ));
        }
    }
    let needed = needed.unwrap_or_default();
    let mut limits = Limits::default();
    // Tag values (the georeferencing) are read under the same limit, charged at their in-memory
    // size (one `Value` per element): a valid file has at most one element per byte, so a tiny
    // raster with long tags still reads, and nothing beyond what the bytes given can hold is
    // allocated.
    let tag_bound = bytes
        .len()
        .saturating_mul(std::mem::size_of::<tiff::decoder::ifd::Value>());
    limits.decoding_buffer_size = needed.max(tag_bound).max(1);
    limits.intermediate_buffer_size = needed.max(1 << 20);
    decoder = decoder.with_limits(limits);

    let mut geo = GeoInfo::default();
    for code in GEO_TAGS {
        let tag = Tag::from_u16_exhaustive(code);
        let value = decoder.find_tag(tag).map_err(|e| bad(path, e))?;
        let Some(value) = value else { continue };
        let value = match code {
            34735 => TagValue::Shorts(value.into_u16_vec().map_err(|e| bad(path, e))?),
            34737 => TagValue::Ascii(value.into_string().map_err(|e| bad(path, e))?),
            _ => TagValue::Doubles(value.into_f64_vec().map_err(|e| bad(path, e))?),
        };
        geo.tags.push((code, value));
    }
    if let Some(value) = decoder
        .find_tag(Tag::from_u16_exhaustive(GDAL_NODATA))
        .map_err(|e| bad(path, e))?
    {
        let text = value.into_string().map_err(|e| bad(path, e))?;
        let trimmed = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        geo.nodata = trimmed.parse::<f64>().ok();
        geo.nodata_text = Some(text);
    }

    let image = match decoder.read_image() {
        Ok(image) => image,
        // The `tiff` crate 0.11 refuses some valid LZW chunks (image-tiff issue 395): decode
        // those here.
        Err(e) if compression == 5 && e.to_string().contains("no lzw end code found") => {
            read_lzw(&mut decoder, bytes, (nx, ny), bits, format, limit)
                .map_err(|e| bad(path, e))?
        }
        Err(e) => return Err(bad(path, e)),
    };
    let nodata = geo.nodata;
    let elevation = |v: Vec<f32>| -> Result<super::Grid, DemError> {
        let mut a = Array2::from_shape_vec((ny, nx), v).map_err(|e| bad(path, e))?;
        if let Some(nd) = nodata {
            let nd = nd as f32;
            a.mapv_inplace(|z| if z == nd { f32::NAN } else { z });
        }
        Ok(super::Grid::Elevation(a))
    };
    let grid = match image {
        DecodingResult::F32(v) => elevation(v)?,
        DecodingResult::F64(v) => elevation(v.into_iter().map(|z| z as f32).collect())?,
        DecodingResult::I8(v) => {
            super::Grid::Receivers(Array2::from_shape_vec((ny, nx), v).map_err(|e| bad(path, e))?)
        }
        DecodingResult::I16(v) => elevation(v.into_iter().map(f32::from).collect())?,
        DecodingResult::I32(v) => elevation(v.into_iter().map(|z| z as f32).collect())?,
        DecodingResult::U8(v) => elevation(v.into_iter().map(f32::from).collect())?,
        DecodingResult::U16(v) => elevation(v.into_iter().map(f32::from).collect())?,
        DecodingResult::U32(v) => elevation(v.into_iter().map(|z| z as f32).collect())?,
        _ => return Err(DemError::input(path, "unsupported TIFF sample type")),
    };
    Ok((grid, dtype, geo))
}

/// The pixels of a GeoTIFF to write.
#[derive(Debug)]
pub enum Pixels<'a> {
    /// 32-bit float cells (elevations).
    F32(&'a Array2<f32>),
    /// 64-bit float cells (flow accumulation).
    F64(&'a Array2<f64>),
    /// Signed 16-bit cells (an integer DEM written back in its own type).
    I16(Array2<i16>),
    /// Unsigned 16-bit cells (an integer DEM written back in its own type).
    U16(Array2<u16>),
    /// Unsigned 8-bit cells (an integer DEM written back in its own type).
    U8(Array2<u8>),
    /// Signed 32-bit cells (an integer DEM written back in its own type).
    I32(Array2<i32>),
    /// Unsigned 32-bit cells (an integer DEM written back in its own type).
    U32(Array2<u32>),
    /// D8 codes (written as signed 8-bit).
    I8(&'a Array2<i8>),
}

/// Encodes a one-band GeoTIFF (Deflate, striped) with `geo`'s tags; `nodata`: write
/// `GDAL_NODATA` (off for D8 codes, which mark NoData with 0).
pub fn write(
    w: &mut dyn Write,
    pixels: Pixels<'_>,
    geo: &GeoInfo,
    nodata: bool,
) -> Result<(), orogen_export::ExportError> {
    let err = |e: tiff::TiffError| orogen_export::ExportError::Encode {
        what: "GeoTIFF".into(),
        message: e.to_string(),
    };
    let mut buf = Cursor::new(Vec::new());
    {
        let mut encoder = TiffEncoder::new(&mut buf)
            .map_err(err)?
            .with_compression(Compression::Deflate(DeflateLevel::Fast));
        macro_rules! image {
            ($color:ty, $array:expr) => {{
                let a = $array;
                let (ny, nx) = a.dim();
                let a = a.as_standard_layout();
                let data = a.as_slice().unwrap_or_default();
                let mut image = encoder
                    .new_image::<$color>(nx as u32, ny as u32)
                    .map_err(err)?;
                let dir = image.encoder();
                for (code, value) in &geo.tags {
                    let tag = Tag::from_u16_exhaustive(*code);
                    match value {
                        TagValue::Shorts(v) => dir.write_tag(tag, &v[..]),
                        TagValue::Doubles(v) => dir.write_tag(tag, &v[..]),
                        TagValue::Ascii(s) => dir.write_tag(tag, s.as_str()),
                    }
                    .map_err(err)?;
                }
                if nodata && let Some(text) = &geo.nodata_text {
                    dir.write_tag(Tag::from_u16_exhaustive(GDAL_NODATA), text.as_str())
                        .map_err(err)?;
                }
                image.write_data(data).map_err(err)?;
            }};
        }
        match pixels {
            Pixels::F32(a) => image!(colortype::Gray32Float, a),
            Pixels::F64(a) => image!(colortype::Gray64Float, a),
            Pixels::I16(a) => image!(colortype::GrayI16, &a),
            Pixels::U16(a) => image!(colortype::Gray16, &a),
            Pixels::U8(a) => image!(colortype::Gray8, &a),
            Pixels::I32(a) => image!(colortype::GrayI32, &a),
            Pixels::U32(a) => image!(colortype::Gray32, &a),
            Pixels::I8(a) => image!(colortype::GrayI8, a),
        }
    }
    w.write_all(buf.get_ref())
        .map_err(|e| err(tiff::TiffError::IoError(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 x 2 DEM whose georeferencing (a GDAL-style UTM GeoTIFF: tiepoint, pixel scale, keys,
    /// ASCII citation) takes more bytes than its pixels reads back with every tag (GDAL's own
    /// 2 x 2 UTM GeoTIFF was refused with "decoder limits exceeded").
    #[test]
    fn a_tiny_geotiff_with_long_tags_reads_back() {
        let dem = ndarray::array![[1.0f32, 2.0], [3.0, f32::NAN]];
        let geo = GeoInfo {
            tags: vec![
                (33550, TagValue::Doubles(vec![30.0, 30.0, 0.0])),
                (
                    33922,
                    TagValue::Doubles(vec![0.0, 0.0, 0.0, 500_000.0, 4_000_000.0, 0.0]),
                ),
                (
                    34735,
                    TagValue::Shorts(vec![
                        1, 1, 0, 6, 1024, 0, 1, 1, 1025, 0, 1, 1, 1026, 34737, 22, 0, 2049, 34737,
                        7, 22, 3072, 0, 1, 32633, 3076, 0, 1, 9001,
                    ]),
                ),
                (34737, TagValue::Ascii("WGS 84 / UTM zone 33N|".into())),
            ],
            nodata_text: Some("nan".into()),
            nodata: Some(f64::NAN),
        };
        let mut bytes = Vec::new();
        write(&mut bytes, Pixels::F32(&dem), &geo, true).unwrap();
        let (grid, dtype, back) = read(Path::new("tiny.tif"), &bytes, usize::MAX).unwrap();
        let super::super::Grid::Elevation(read_dem) = grid else {
            panic!("an elevation grid")
        };
        assert_eq!(read_dem.dim(), (2, 2));
        assert_eq!(read_dem[[1, 0]], 3.0);
        assert!(read_dem[[1, 1]].is_nan());
        assert!(matches!(dtype, Dtype::F32));
        assert_eq!(back.tags, geo.tags);
    }
}
