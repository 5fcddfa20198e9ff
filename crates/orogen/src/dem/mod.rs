//! `orogen dem`: raster hydrology on a DEM the user brings, file to file.
//!
//! Inputs are 2-D NumPy `.npy` arrays, grayscale PNGs (8 or 16 bit) or one-band GeoTIFFs
//! ([`geotiff`]), told apart by their first bytes. Elevations may be any real or integer type
//! (computed in f32); `int8` arrays are D8 receivers coded as
//! [`orogen_hydrology::raster::D8_CODES`] says. Outputs follow the extension of the output path:
//! `.npy`, `.png` (16-bit elevations that are whole numbers in 0..=65535, 8-bit receiver codes)
//! or `.tif`/`.tiff` (with the input GeoTIFF's georeferencing and NoData). A fill keeps the
//! input's element type where its values fit it (integer DEMs fill to the same integers); float64
//! is computed and written as float32, and the command says so. Every check that can fail runs
//! before any work: a header is read and its shape checked against the bytes present and the
//! memory limit before anything is allocated, so a bad file is a one-line error, never a panic
//! or an abort.

/// The `orogen dem` subcommands (clap arguments: behind the `clap` feature).
#[cfg(feature = "clap")]
pub mod cli;

/// The tile side of the tiled kernels when none is given.
pub const DEFAULT_TILE: usize = 512;
pub mod cluster;
pub mod geotiff;

use std::io::Cursor;
use std::path::Path;

use ndarray::{Array2, ArrayD, Ix2};
use ndarray_npy::npy::header::Header;
use ndarray_npy::{ReadNpyExt, ReadableElement};
use orogen_export::{ExportError, atomic, npy, png};
use orogen_hydrology::raster::{self, RasterError};
use thiserror::Error;

pub use geotiff::GeoInfo;

/// A PNG may decode to at most this many bytes (a 16-bit 23,000^2 heightmap).
const PNG_LIMIT_BYTES: usize = 1 << 30;
/// Deflate's largest expansion (1032:1), rounded up: decoded pixels beyond this many times the
/// file's size cannot be in the file.
const MAX_INFLATE: usize = 1040;

/// What `orogen dem` can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DemError {
    /// The input or the requested output is unusable (exit code 2).
    #[error("{path}: {message}")]
    Input {
        /// The file at fault (or the command, for a bad option).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The grid was refused by a kernel (exit code 2).
    #[error("{path}: {source}")]
    Raster {
        /// The input file.
        path: String,
        /// The kernel's refusal.
        source: RasterError,
    },
    /// Writing the output failed (exit code 1).
    #[error(transparent)]
    Export(#[from] ExportError),
}

impl DemError {
    fn input(path: &Path, message: impl Into<String>) -> Self {
        DemError::Input {
            path: path.display().to_string(),
            message: message.into(),
        }
    }

    /// True when the user's input was at fault (exit code 2), false for internal failures (1).
    pub fn is_invalid_input(&self) -> bool {
        !matches!(self, DemError::Export(_))
    }
}

/// A 2-D grid as read from a file.
#[derive(Clone, Debug, PartialEq)]
pub enum Grid {
    /// Elevations (any real or integer type but int8, converted to f32; NoData is NaN).
    Elevation(Array2<f32>),
    /// D8 receiver codes (`int8`).
    Receivers(Array2<i8>),
}

/// The element type a grid was stored with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Unsigned 8-bit integers (`uint8`).
    U8,
    /// Signed 8-bit integers (`int8`): D8 receiver codes.
    I8,
    /// Unsigned 16-bit integers (`uint16`).
    U16,
    /// Signed 16-bit integers (`int16`).
    I16,
    /// Unsigned 32-bit integers (`uint32`).
    U32,
    /// Signed 32-bit integers (`int32`).
    I32,
    /// Unsigned 64-bit integers (`uint64`).
    U64,
    /// Signed 64-bit integers (`int64`).
    I64,
    /// 32-bit floats (`float32`).
    F32,
    /// 64-bit floats (`float64`).
    F64,
}

impl Dtype {
    /// NumPy's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "uint8",
            Dtype::I8 => "int8",
            Dtype::U16 => "uint16",
            Dtype::I16 => "int16",
            Dtype::U32 => "uint32",
            Dtype::I32 => "int32",
            Dtype::U64 => "uint64",
            Dtype::I64 => "int64",
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
        }
    }

    /// The whole numbers this type holds, for an integer type.
    fn int_range(self) -> Option<(f64, f64)> {
        Some(match self {
            Dtype::U8 => (0.0, 255.0),
            Dtype::I8 => (-128.0, 127.0),
            Dtype::U16 => (0.0, 65535.0),
            Dtype::I16 => (-32768.0, 32767.0),
            Dtype::U32 => (0.0, 4294967295.0),
            Dtype::I32 => (-2147483648.0, 2147483647.0),
            Dtype::U64 | Dtype::I64 | Dtype::F32 | Dtype::F64 => return None,
        })
    }
}

/// A grid read from a file, with what the file said about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The grid: elevations, or D8 receiver codes for an `int8` file.
    pub grid: Grid,
    /// The element type in the file.
    pub dtype: Dtype,
    /// A GeoTIFF's georeferencing and NoData (`None` for `.npy` and PNG).
    pub geo: Option<GeoInfo>,
}

/// The output format, from the output path's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Npy,
    Png,
    Tif,
}

fn output_format(path: &Path) -> Result<Format, DemError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("npy") => Ok(Format::Npy),
        Some("png") => Ok(Format::Png),
        Some("tif" | "tiff") => Ok(Format::Tif),
        _ => Err(DemError::input(
            path,
            "unknown output format: the name must end in .npy, .png or .tif",
        )),
    }
}

/// Reads a 2-D grid from a `.npy`, PNG or GeoTIFF file, refusing anything else, and any grid
/// that would take more than `limit` bytes in memory, with a one-line reason.
pub fn read_input(path: &Path, limit: usize) -> Result<Input, DemError> {
    let bytes = std::fs::read(path).map_err(|e| DemError::input(path, e.to_string()))?;
    parse_input(path, &bytes, limit)
}

/// Reads a 2-D grid from a `.npy`, PNG or GeoTIFF file (no memory limit beyond the bytes
/// present and the PNG limit).
pub fn read_grid(path: &Path) -> Result<Grid, DemError> {
    read_input(path, usize::MAX).map(|input| input.grid)
}

/// Parses the bytes of a `.npy` array, a PNG heightmap or a GeoTIFF (told apart by their first
/// bytes); `path` only names the input in errors. Never panics, whatever the bytes.
pub fn parse_grid(path: &Path, bytes: &[u8]) -> Result<Grid, DemError> {
    parse_input(path, bytes, usize::MAX).map(|input| input.grid)
}

/// [`parse_grid`] with the file's element type and georeferencing, refusing a grid that needs
/// more than `limit` bytes decoded.
pub fn parse_input(path: &Path, bytes: &[u8], limit: usize) -> Result<Input, DemError> {
    let plain = |(grid, dtype)| Input {
        grid,
        dtype,
        geo: None,
    };
    if bytes.starts_with(b"\x93NUMPY") {
        read_npy(path, bytes, limit).map(plain)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        read_png(path, bytes, limit).map(plain)
    } else if bytes.starts_with(b"II*\0")
        || bytes.starts_with(b"MM\0*")
        || bytes.starts_with(b"II+\0")
        || bytes.starts_with(b"MM\0+")
    {
        let (grid, dtype, geo) = geotiff::read(path, bytes, limit)?;
        Ok(Input {
            grid,
            dtype,
            geo: Some(geo),
        })
    } else {
        Err(DemError::input(
            path,
            "not a .npy array, a PNG image or a TIFF",
        ))
    }
}

fn read_npy(path: &Path, bytes: &[u8], limit: usize) -> Result<(Grid, Dtype), DemError> {
    // `Header::from_reader` allocates the header length the file announces (up to 4 GiB in
    // format versions 2 and 3) before reading it: check it against the bytes present first.
    orogen_world::check_npy_header(bytes).map_err(|problem| DemError::input(path, problem))?;
    let mut data = bytes;
    let header = Header::from_reader(&mut data)
        .map_err(|e| DemError::input(path, format!("bad .npy header: {e}")))?;
    // A plain dtype is a Python string literal ('<f4'); structured dtypes are lists.
    let literal = header.type_descriptor.to_string();
    let descr = literal
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .ok_or_else(|| {
            DemError::input(
                path,
                format!("unsupported dtype {literal}: expected a plain numeric dtype"),
            )
        })?
        .to_owned();
    if header.shape.len() != 2 {
        return Err(DemError::input(
            path,
            format!(
                "a {}-D array (shape {:?}): expected a 2-D array",
                header.shape.len(),
                header.shape
            ),
        ));
    }
    // The element size from the dtype: '<f4' and friends ('|' or '=' or '>' byte order).
    let kind = descr.trim_start_matches(['<', '>', '|', '=']);
    let (elem_size, dtype) = match kind {
        "f4" => (4, Dtype::F32),
        "f8" => (8, Dtype::F64),
        "i1" => (1, Dtype::I8),
        "u1" => (1, Dtype::U8),
        "i2" => (2, Dtype::I16),
        "u2" => (2, Dtype::U16),
        "i4" => (4, Dtype::I32),
        "u4" => (4, Dtype::U32),
        "i8" => (8, Dtype::I64),
        "u8" => (8, Dtype::U64),
        _ => {
            return Err(DemError::input(
                path,
                format!(
                    "unsupported dtype '{descr}': expected float32 or another real or integer type"
                ),
            ));
        }
    };
    orogen_world::check_npy_payload(&header.shape, elem_size, data.len())
        .map_err(|problem| DemError::input(path, format!("{problem} ('{descr}')")))?;
    let cells = header.shape[0] * header.shape[1];
    check_limit(path, cells.saturating_mul(4).max(data.len()), limit)?;
    fn load<T: ReadableElement>(path: &Path, bytes: &[u8]) -> Result<Array2<T>, DemError> {
        ArrayD::<T>::read_npy(bytes)
            .map_err(|e| DemError::input(path, e.to_string()))?
            .into_dimensionality::<Ix2>()
            .map_err(|_| DemError::input(path, "expected a 2-D array"))
    }
    // One-byte data has no byte order, and NumPy accepts any order mark on it ('<u1' as well
    // as '|u1'); ndarray-npy takes only '|', so these are read directly (the size is checked).
    let bytes_2d = || {
        let (rows, cols) = (header.shape[0], header.shape[1]);
        if header.layout.is_fortran() {
            Array2::from_shape_vec((cols, rows), data.to_vec()).map(|a| a.reversed_axes())
        } else {
            Array2::from_shape_vec((rows, cols), data.to_vec())
        }
        .map_err(|e| DemError::input(path, e.to_string()))
    };
    let grid = match dtype {
        Dtype::I8 => Grid::Receivers(bytes_2d()?.mapv(|b| b as i8)),
        Dtype::U8 => Grid::Elevation(bytes_2d()?.mapv(f32::from)),
        Dtype::F32 => Grid::Elevation(load::<f32>(path, bytes)?),
        Dtype::F64 => Grid::Elevation(load::<f64>(path, bytes)?.mapv(|v| v as f32)),
        Dtype::I16 => Grid::Elevation(load::<i16>(path, bytes)?.mapv(f32::from)),
        Dtype::U16 => Grid::Elevation(load::<u16>(path, bytes)?.mapv(f32::from)),
        Dtype::I32 => Grid::Elevation(load::<i32>(path, bytes)?.mapv(|v| v as f32)),
        Dtype::U32 => Grid::Elevation(load::<u32>(path, bytes)?.mapv(|v| v as f32)),
        Dtype::I64 => Grid::Elevation(load::<i64>(path, bytes)?.mapv(|v| v as f32)),
        Dtype::U64 => Grid::Elevation(load::<u64>(path, bytes)?.mapv(|v| v as f32)),
    };
    Ok((grid, dtype))
}

/// Refuses a grid that needs more than `limit` bytes.
fn check_limit(path: &Path, needed: usize, limit: usize) -> Result<(), DemError> {
    if needed > limit {
        return Err(DemError::input(
            path,
            format!(
                "the grid needs {needed} bytes in memory, more than the {limit}-byte memory limit (--memory)"
            ),
        ));
    }
    Ok(())
}

fn read_png(path: &Path, bytes: &[u8], limit: usize) -> Result<(Grid, Dtype), DemError> {
    let bad = |e: &dyn std::fmt::Display| DemError::input(path, format!("bad PNG: {e}"));
    let mut decoder = ::png::Decoder::new_with_limits(
        Cursor::new(bytes),
        ::png::Limits {
            bytes: PNG_LIMIT_BYTES,
        },
    );
    decoder.set_transformations(::png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().map_err(|e| bad(&e))?;
    let info = reader.info();
    let (nx, ny) = (info.width as usize, info.height as usize);
    let (color, depth) = (info.color_type, info.bit_depth);
    if color != ::png::ColorType::Grayscale
        || !matches!(depth, ::png::BitDepth::Eight | ::png::BitDepth::Sixteen)
    {
        return Err(DemError::input(
            path,
            format!("a {color:?} {depth:?}-bit PNG: expected an 8- or 16-bit grayscale heightmap"),
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| bad(&"image too large"))?;
    // Refuse before allocating what the bytes present cannot hold: zlib inflates at most
    // about 1032:1, so a 100 KB file cannot be a 16-bit 20,000^2 heightmap.
    let most = bytes.len().saturating_mul(MAX_INFLATE).min(PNG_LIMIT_BYTES);
    if size > most {
        return Err(DemError::input(
            path,
            format!(
                "a {nx}x{ny} {depth:?}-bit PNG needs {size} bytes decoded, more than {most} \
                 (truncated, or beyond the {PNG_LIMIT_BYTES}-byte limit)"
            ),
        ));
    }
    check_limit(path, size + nx.saturating_mul(ny).saturating_mul(4), limit)?;
    let mut buf = vec![0u8; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| bad(&e))?;
    let buf = &buf[..frame.buffer_size()];
    let line = frame.line_size;
    let dem = Array2::from_shape_fn((ny, nx), |(r, c)| match depth {
        ::png::BitDepth::Sixteen => {
            let i = r * line + 2 * c;
            f32::from(u16::from_be_bytes([buf[i], buf[i + 1]]))
        }
        _ => f32::from(buf[r * line + c]),
    });
    let dtype = if depth == ::png::BitDepth::Sixteen {
        Dtype::U16
    } else {
        Dtype::U8
    };
    Ok((Grid::Elevation(dem), dtype))
}

/// The elevations of the DEM at `path`, its element type and georeferencing. A float32 `.npy`
/// in C order is read straight into the grid (no copy of the file's bytes beside it); any other
/// file through [`read_input`].
fn read_elevations(
    path: &Path,
    limit: usize,
    what: &str,
) -> Result<(Array2<f32>, Dtype, Option<GeoInfo>), DemError> {
    if let Ok(grid) = cluster::NpyGrid::open(path) {
        check_limit(path, (grid.rows * grid.cols).saturating_mul(4), limit)?;
        let dem = grid
            .window((0, 0), (grid.rows, grid.cols))
            .map_err(|e| DemError::input(path, e.to_string()))?;
        return Ok((dem, Dtype::F32, None));
    }
    let Input { grid, dtype, geo } = read_input(path, limit)?;
    Ok((elevations(path, grid, what)?, dtype, geo))
}

fn elevations(path: &Path, grid: Grid, what: &str) -> Result<Array2<f32>, DemError> {
    match grid {
        Grid::Elevation(dem) => Ok(dem),
        Grid::Receivers(_) => Err(DemError::input(
            path,
            format!("an int8 array (D8 receivers): {what} needs elevations"),
        )),
    }
}

fn raster_err(path: &Path) -> impl Fn(RasterError) -> DemError + '_ {
    move |source| DemError::Raster {
        path: path.display().to_string(),
        source,
    }
}

/// Elevations as `dtype` when every value is a whole number in its range (NaN as `nodata`,
/// when there is one), else `None`.
fn as_int<T: Copy>(
    dem: &Array2<f32>,
    dtype: Dtype,
    nodata: Option<f64>,
    cast: impl Fn(f64) -> T,
) -> Option<Array2<T>> {
    let (lo, hi) = dtype.int_range()?;
    let fits = |v: f64| (lo..=hi).contains(&v) && v.fract() == 0.0;
    let nd = nodata.filter(|&v| fits(v));
    let ok = dem.iter().all(|&z| {
        if z.is_nan() {
            nd.is_some()
        } else {
            fits(f64::from(z))
        }
    });
    ok.then(|| {
        dem.mapv(|z| {
            if z.is_nan() {
                cast(nd.unwrap_or_default())
            } else {
                cast(f64::from(z))
            }
        })
    })
}

/// Writes elevations to `path` in the input's element type where the values fit it, else as
/// float32; returns the type written.
fn write_elevations(
    path: &Path,
    dem: &Array2<f32>,
    dtype: Dtype,
    geo: Option<&GeoInfo>,
) -> Result<Dtype, DemError> {
    let nodata = geo.and_then(|g| g.nodata);
    match output_format(path)? {
        Format::Npy => {
            macro_rules! int {
                ($t:ty) => {
                    if let Some(a) = as_int(dem, dtype, None, |v| v as $t) {
                        atomic::write_atomic(path, |w| npy::write_npy(w, &a))?;
                        return Ok(dtype);
                    }
                };
            }
            match dtype {
                Dtype::U8 => int!(u8),
                Dtype::U16 => int!(u16),
                Dtype::I16 => int!(i16),
                Dtype::U32 => int!(u32),
                Dtype::I32 => int!(i32),
                _ => {}
            }
            cluster::write_npy(path, dem)?;
            Ok(Dtype::F32)
        }
        Format::Png => {
            let Some(pixels) = as_int(dem, Dtype::U16, None, |v| v as u16) else {
                return Err(DemError::input(
                    path,
                    "a 16-bit PNG holds whole numbers in 0..=65535 and these elevations are not: write .npy",
                ));
            };
            atomic::write_atomic(path, |w| png::write_gray16(w, pixels.view()))?;
            Ok(Dtype::U16)
        }
        Format::Tif => {
            let empty = GeoInfo::default();
            let geo = geo.unwrap_or(&empty);
            use geotiff::Pixels;
            let pixels = match dtype {
                Dtype::U8 => as_int(dem, dtype, nodata, |v| v as u8).map(Pixels::U8),
                Dtype::U16 => as_int(dem, dtype, nodata, |v| v as u16).map(Pixels::U16),
                Dtype::I16 => as_int(dem, dtype, nodata, |v| v as i16).map(Pixels::I16),
                Dtype::U32 => as_int(dem, dtype, nodata, |v| v as u32).map(Pixels::U32),
                Dtype::I32 => as_int(dem, dtype, nodata, |v| v as i32).map(Pixels::I32),
                _ => None,
            };
            if let Some(pixels) = pixels {
                atomic::write_atomic(path, |w| geotiff::write(w, pixels, geo, true))?;
                return Ok(dtype);
            }
            let filled;
            let dem = match nodata {
                Some(nd) if !nd.is_nan() && dem.iter().any(|z| z.is_nan()) => {
                    filled = dem.mapv(|z| if z.is_nan() { nd as f32 } else { z });
                    &filled
                }
                _ => dem,
            };
            atomic::write_atomic(path, |w| geotiff::write(w, Pixels::F32(dem), geo, true))?;
            Ok(Dtype::F32)
        }
    }
}

/// What a command did, for its one-line summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Cells of the grid.
    pub cells: usize,
    /// `fill`: cells raised; `d8`: cells with a receiver; `accumulate`: the largest count.
    pub changed: f64,
    /// The element type read.
    pub read: Dtype,
    /// The element type written.
    pub written: Dtype,
}

/// How `orogen dem` runs its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Tile side for the tiled kernels; a grid within one tile runs the single-grid kernel
    /// (the same bytes either way).
    pub tile: usize,
    /// The most bytes an input grid may take in memory.
    pub memory: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            tile: DEFAULT_TILE,
            memory: usize::MAX,
        }
    }
}

impl RunOptions {
    /// The tile to use for a `rows x cols` grid, or `None` for the single-grid kernel.
    fn tile_for(&self, rows: usize, cols: usize) -> Option<(usize, usize)> {
        (rows > self.tile || cols > self.tile).then_some((self.tile, self.tile))
    }
}

/// `orogen dem fill`: Priority-Flood fill (`epsilon`: the epsilon variant) from `input` to
/// `output`.
pub fn fill_file(input: &Path, output: &Path, epsilon: bool) -> Result<(), DemError> {
    fill_with(input, output, epsilon, &RunOptions::default()).map(|_| ())
}

/// [`fill_file`] with options; returns what it did.
pub fn fill_with(
    input: &Path,
    output: &Path,
    epsilon: bool,
    options: &RunOptions,
) -> Result<Summary, DemError> {
    if epsilon && output_format(output)? == Format::Png {
        return Err(DemError::input(
            output,
            "an epsilon fill's steps are below PNG precision: write .npy",
        ));
    }
    output_format(output)?;
    let (mut dem, dtype, geo) = read_elevations(input, options.memory, "fill")?;
    let (rows, cols) = dem.dim();
    let (filled, raised) = if let (false, Some(tile)) = (epsilon, options.tile_for(rows, cols)) {
        // In place, the tiles counting what they raise: no second grid.
        let raised =
            raster::tiled::fill::fill_tiled_in_place(&mut dem, tile).map_err(raster_err(input))?;
        (dem, raised)
    } else {
        let filled = if epsilon {
            raster::fill_epsilon(dem.view())
        } else {
            raster::fill(dem.view())
        }
        .map_err(raster_err(input))?;
        let raised = filled.iter().zip(&dem).filter(|(f, d)| f > d).count();
        (filled, raised)
    };
    let written = write_elevations(output, &filled, dtype, geo.as_ref())?;
    Ok(Summary {
        cells: rows * cols,
        changed: raised as f64,
        read: dtype,
        written,
    })
}

/// `orogen dem d8`: steepest-slope D8 receivers (int8 codes) from `input` to `output`.
pub fn d8_file(input: &Path, output: &Path) -> Result<(), DemError> {
    d8_with(input, output, &RunOptions::default()).map(|_| ())
}

/// [`d8_file`] with options; returns what it did.
pub fn d8_with(input: &Path, output: &Path, options: &RunOptions) -> Result<Summary, DemError> {
    let format = output_format(output)?;
    let (dem, dtype, geo) = read_elevations(input, options.memory, "d8")?;
    let (rows, cols) = dem.dim();
    let receivers = match options.tile_for(rows, cols) {
        Some(tile) => {
            raster::tiled::d8_receivers_tiled(dem.view(), tile).map_err(raster_err(input))?
        }
        None => raster::d8_receivers(dem.view()),
    };
    drop(dem);
    match format {
        Format::Npy => cluster::write_npy(output, &receivers)?,
        Format::Png => {
            let pixels = receivers.mapv(|k| k as u8);
            atomic::write_atomic(output, |w| png::write_gray8(w, pixels.view()))?;
        }
        Format::Tif => {
            let geo = geo.unwrap_or_default();
            atomic::write_atomic(output, |w| {
                geotiff::write(w, geotiff::Pixels::I8(&receivers), &geo, false)
            })?;
        }
    }
    Ok(Summary {
        cells: rows * cols,
        changed: receivers.iter().filter(|&&k| k != 0).count() as f64,
        read: dtype,
        written: Dtype::I8,
    })
}

/// `orogen dem accumulate`: D8 flow accumulation (float64 cell counts) to `output` (`.npy`),
/// from D8 receivers (`int8`) or from elevations (D8 taken on them as they are: fill them with
/// `--epsilon` first so that water crosses depressions and flats; NaN cells come out NaN).
pub fn accumulate_file(input: &Path, output: &Path) -> Result<(), DemError> {
    accumulate_with(input, output, &RunOptions::default()).map(|_| ())
}

/// [`accumulate_file`] with options; returns what it did.
pub fn accumulate_with(
    input: &Path,
    output: &Path,
    options: &RunOptions,
) -> Result<Summary, DemError> {
    let format = output_format(output)?;
    if format == Format::Png {
        return Err(DemError::input(
            output,
            "accumulation counts do not fit a PNG: write .npy",
        ));
    }
    let Input { grid, dtype, geo } = read_input(input, options.memory)?;
    let (rows, cols) = match &grid {
        Grid::Receivers(a) => a.dim(),
        Grid::Elevation(a) => a.dim(),
    };
    let tile = options.tile_for(rows, cols);
    let acc = match (grid, tile) {
        (Grid::Receivers(r), Some(t)) => raster::tiled::flow_accumulation_tiled(r.view(), t),
        (Grid::Receivers(r), None) => raster::flow_accumulation(r.view()),
        (Grid::Elevation(dem), Some(t)) => raster::tiled::accumulate_dem_tiled(dem.view(), t),
        (Grid::Elevation(dem), None) => raster::accumulate_dem(dem.view()),
    }
    .map_err(raster_err(input))?;
    let max = acc
        .iter()
        .copied()
        .filter(|a| !a.is_nan())
        .fold(0.0, f64::max);
    match format {
        Format::Tif => {
            let geo = geo.unwrap_or_default();
            let nodata = geo.nodata.filter(|v| !v.is_nan());
            let acc = match nodata {
                Some(nd) => acc.mapv(|a| if a.is_nan() { nd } else { a }),
                None => acc,
            };
            atomic::write_atomic(output, |w| {
                geotiff::write(w, geotiff::Pixels::F64(&acc), &geo, true)
            })?;
        }
        _ => cluster::write_npy(output, &acc)?,
    }
    Ok(Summary {
        cells: rows * cols,
        changed: max,
        read: dtype,
        written: Dtype::F64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        npy_bytes_in(descr, false, shape, data)
    }

    /// A `.npy` file; `fortran`: the data is in column-major order.
    fn npy_bytes_in(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        orogen_world::testing::npy_bytes(descr, fortran, shape, data)
    }

    fn read(bytes: &[u8]) -> Result<Grid, DemError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.npy");
        std::fs::write(&path, bytes).unwrap();
        read_grid(&path)
    }

    #[test]
    fn npy_inputs_are_checked_before_allocation() {
        let grid = read(&npy_bytes("<u2", "(2, 2)", &[1, 0, 2, 0, 3, 0, 4, 0])).unwrap();
        assert_eq!(
            grid,
            Grid::Elevation(ndarray::array![[1.0, 2.0], [3.0, 4.0]])
        );
        let err = |bytes: Vec<u8>| read(&bytes).unwrap_err().to_string();
        assert!(err(npy_bytes("<f4", "(2, 2, 2)", &[0; 32])).contains("3-D array"));
        assert!(err(npy_bytes("<f4", "(1000000, 1000000)", &[0; 8])).contains("truncated"));
        assert!(err(npy_bytes("<f4", "(2, 2)", &[0; 15])).contains("truncated"));
        assert!(err(npy_bytes("<c8", "(2, 2)", &[0; 32])).contains("unsupported dtype"));
        assert!(err(npy_bytes("<f4", "(2, 2)", &[0; 16])[..20].to_vec()).contains("header"));
        assert!(err(b"P5 2 2 255".to_vec()).contains("not a .npy"));
    }

    #[test]
    fn a_npy_header_longer_than_the_file_is_refused_before_allocating() {
        // Found by fuzzing (issue 26): a version-3 header whose length field says 0xffffff93;
        // the header parser allocated 4 GiB before reading it.
        let bytes = b"\x93NUMPY\x03\x00\x93\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\
                      \xff\xff\xff\xff\xff\xff\xffNUMPYe";
        assert_eq!(bytes.len(), 33);
        let err = parse_grid(Path::new("x.npy"), bytes)
            .unwrap_err()
            .to_string();
        assert!(err.contains("header claims 4294967187 bytes"), "{err}");
    }

    #[test]
    fn a_png_claiming_more_pixels_than_its_bytes_hold_is_refused_before_allocating() {
        use base64::Engine as _;
        // Found by fuzzing (`fuzz/fuzz_targets/dem_grid.rs`; checksums made right here, as the
        // fuzzing build skips them): a 170-byte PNG whose header claims 6 x 2,046,820,357
        // pixels made the reader allocate 12 GB before decoding.
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(
                "iVBORw0KGgoAAAANSUhEUgAAAAZ6AAAFCAAAAAAmvotxAAAAK0lEQVR4nGPgUDBgEWBnkDeQkdOUYDDiZZNnlGCQ\
                 VjMwZP//////////////////2sk1N////////////////////////////////////////////////////9Bh\
                 kBHU41NlAxsAAAAANfADISVWZH4AAAAASUVORK5CYII=",
            )
            .unwrap();
        let err = parse_grid(Path::new("x.png"), &bytes)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("6x2046820357") && err.contains("more than"),
            "{err}"
        );
    }

    mod robustness {
        use super::*;
        use proptest::prelude::*;

        /// A valid input: a .npy of one of the readable dtypes, or an 8/16-bit PNG, of a small
        /// grid of whole numbers (so every dtype holds them exactly), with the grid it encodes.
        fn valid_input() -> impl Strategy<Value = (Vec<u8>, Grid)> {
            (1usize..6, 1usize..6, 0usize..15).prop_flat_map(|(rows, cols, kind)| {
                proptest::collection::vec(0u8..100, rows * cols).prop_map(move |values| {
                    let grid = Array2::from_shape_vec((rows, cols), values).unwrap();
                    encode(&grid, kind)
                })
            })
        }

        fn encode(grid: &Array2<u8>, kind: usize) -> (Vec<u8>, Grid) {
            let shape = format!("({}, {})", grid.nrows(), grid.ncols());
            let elevation = Grid::Elevation(grid.mapv(f32::from));
            let le = |size: usize| -> Vec<u8> {
                grid.iter()
                    .flat_map(|&v| {
                        let mut b = vec![0u8; size];
                        b[0] = v;
                        b
                    })
                    .collect()
            };
            let descr = ["<u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"];
            match kind {
                0..=6 => {
                    let size = 1 << (kind.div_ceil(2));
                    (npy_bytes(descr[kind], &shape, &le(size)), elevation)
                }
                7 => {
                    let data: Vec<u8> = grid
                        .iter()
                        .flat_map(|&v| f32::from(v).to_le_bytes())
                        .collect();
                    (npy_bytes("<f4", &shape, &data), elevation)
                }
                8 => {
                    let data: Vec<u8> = grid
                        .iter()
                        .flat_map(|&v| f64::from(v).to_le_bytes())
                        .collect();
                    (npy_bytes("<f8", &shape, &data), elevation)
                }
                9 => {
                    let codes = grid.mapv(|v| (v % 9) as i8);
                    let data: Vec<u8> = codes.iter().map(|&c| c as u8).collect();
                    (npy_bytes("|i1", &shape, &data), Grid::Receivers(codes))
                }
                10 => {
                    let mut bytes = Vec::new();
                    png::write_gray8(&mut bytes, grid.view()).unwrap();
                    (bytes, elevation)
                }
                11 => {
                    let mut bytes = Vec::new();
                    png::write_gray16(&mut bytes, grid.mapv(u16::from).view()).unwrap();
                    (bytes, elevation)
                }
                12 => {
                    let data: Vec<u8> = grid
                        .iter()
                        .flat_map(|&v| f32::from(v).to_be_bytes())
                        .collect();
                    (npy_bytes(">f4", &shape, &data), elevation)
                }
                // Column-major data, one-byte and wider.
                13 => {
                    let data: Vec<u8> = grid.t().iter().copied().collect();
                    (npy_bytes_in("<u1", true, &shape, &data), elevation)
                }
                _ => {
                    let data: Vec<u8> = grid.t().iter().flat_map(|&v| [v, 0]).collect();
                    (npy_bytes_in("<u2", true, &shape, &data), elevation)
                }
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// Every valid input reads back as the grid it encodes.
            #[test]
            fn valid_inputs_read_back((bytes, grid) in valid_input()) {
                prop_assert_eq!(parse_grid(Path::new("x"), &bytes).unwrap(), grid);
            }

            /// Overwritten or cut bytes of a valid input never panic the reader; what it still
            /// accepts is a grid the kernels take without panicking either.
            #[test]
            fn mutated_inputs_never_panic(
                (bytes, _) in valid_input(),
                edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
                cut in proptest::option::of(any::<prop::sample::Index>()),
            ) {
                let mut bytes = bytes;
                for (idx, value) in edits {
                    let i = idx.index(bytes.len());
                    bytes[i] = value;
                }
                if let Some(cut) = cut {
                    bytes.truncate(cut.index(bytes.len() + 1));
                }
                match parse_grid(Path::new("x"), &bytes) {
                    Ok(Grid::Elevation(dem)) => {
                        let filled = raster::fill(dem.view());
                        prop_assert!(filled.is_ok_and(|f| f.dim() == dem.dim()));
                    }
                    Ok(Grid::Receivers(receivers)) => {
                        let _ = raster::flow_accumulation(receivers.view());
                    }
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }

            /// Arbitrary bytes, with or without a valid magic, never panic the reader.
            #[test]
            fn random_bytes_never_panic(
                magic in 0usize..3,
                tail in proptest::collection::vec(any::<u8>(), 0..512),
            ) {
                let mut bytes = [&b""[..], b"\x93NUMPY", b"\x89PNG\r\n\x1a\n"][magic].to_vec();
                bytes.extend(tail);
                let _ = parse_grid(Path::new("x"), &bytes);
            }
        }
    }
}
