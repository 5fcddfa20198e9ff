//! The heightmaps: `heightmap.png` (16-bit grayscale), `heightmap.r16` (headerless 16-bit
//! little-endian, row 0 first, exactly N x N x 2 bytes) and `heightmap.exr` (32-bit float metres,
//! one channel `Y`), all from one float master rasterised once.
//!
//! Each pixel's elevation is interpolated over the dual mesh by [`orogen_world::interp`] (each
//! Delaunay triangle split into three by its corner point: continuous, and corner values shape
//! the land) from the layers `region_elevation` and `corner_elevation`, then mapped to 16 bits as
//! [`crate::heights`] says: the fixed range [-max_depth_m, max_height_m] by default, so sea level
//! has the same value in every world, or the world's own range with [`Normalize::MinMax`].

use ndarray::Array2;
use orogen_world::World;

use crate::ExportError;
use crate::atomic::OutDir;
use crate::grid::PixelGrid;
use crate::heights::{self, Normalize};
use crate::sidecar::HeightMapping;

/// The file name of the 16-bit PNG.
pub const FILE: &str = "heightmap.png";
/// The file name of the headerless 16-bit little-endian heightmap.
pub const FILE_R16: &str = "heightmap.r16";
/// The file name of the 32-bit float heightmap (metres).
pub const FILE_EXR: &str = "heightmap.exr";

/// The elevation raster (conventions' range [-1, 1]) of a world on a grid.
pub use crate::colormap::elevation_raster;

/// The float master in metres (`ny x nx`) of a world on a grid.
pub fn metres_raster(world: &World, grid: &PixelGrid) -> Result<Array2<f32>, ExportError> {
    Ok(metres_of(world, &elevation_raster(world, grid)?))
}

/// An elevation raster ([`elevation_raster`]) in metres.
fn metres_of(world: &World, raster: &Array2<f32>) -> Array2<f32> {
    let meta = &world.meta;
    ndarray::Zip::from(raster).par_map_collect(|&e| heights::metres(e, meta) as f32)
}

/// Maps a metre master to 16 bits; returns the pixels and the height mapping.
fn to_u16(
    master: &Array2<f32>,
    world: &World,
    normalize: Normalize,
) -> (Array2<u16>, HeightMapping) {
    let meta = &world.meta;
    let range = heights::range_of_metres(master.iter().map(|&m| f64::from(m)), meta, normalize);
    let pixels =
        ndarray::Zip::from(master).par_map_collect(|&m| heights::to_u16(f64::from(m), range));
    (pixels, HeightMapping::new(meta, normalize, range))
}

/// The 16-bit heightmap of a world on a grid, and the height mapping used.
pub fn heightmap(
    world: &World,
    grid: &PixelGrid,
    normalize: Normalize,
) -> Result<(Array2<u16>, HeightMapping), ExportError> {
    Ok(to_u16(&metres_raster(world, grid)?, world, normalize))
}

/// Writes `heightmap.png` into `out`; returns the height mapping for the sidecar.
pub fn write_heightmap(
    out: &mut OutDir,
    world: &World,
    grid: &PixelGrid,
    normalize: Normalize,
) -> Result<HeightMapping, ExportError> {
    let (pixels, mapping) = heightmap(world, grid, normalize)?;
    out.write(FILE, |w| crate::png::write_gray16(w, pixels.view()))?;
    Ok(mapping)
}

/// Writes the 16-bit values row 0 first, each little-endian, with no header.
pub fn write_r16(
    w: &mut dyn std::io::Write,
    pixels: ndarray::ArrayView2<'_, u16>,
) -> Result<(), ExportError> {
    // Row-major samples on a little-endian machine are the file's bytes as they lie.
    let written = match pixels.as_slice() {
        Some(samples) if cfg!(target_endian = "little") => {
            w.write_all(bytemuck::cast_slice(samples))
        }
        _ => {
            let mut bytes = Vec::with_capacity(2 * pixels.len());
            for v in pixels.iter() {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            w.write_all(&bytes)
        }
    };
    written.map_err(crate::atomic::io(FILE_R16))
}

/// Which of the heightmap files to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeightmapFiles {
    /// `heightmap.png` (16-bit).
    pub png: bool,
    /// `heightmap.r16` (16-bit, headerless).
    pub r16: bool,
    /// `heightmap.exr` (32-bit float metres).
    pub exr: bool,
}

impl HeightmapFiles {
    /// All three.
    pub const ALL: HeightmapFiles = HeightmapFiles {
        png: true,
        r16: true,
        exr: true,
    };
}

/// Writes `heightmap.png`, `heightmap.r16` and `heightmap.exr` (metres), those `files` asks
/// for, from one float master rasterised once; returns the height mapping (with Unreal's
/// transform for that engine).
pub fn write_heightmaps(
    out: &mut OutDir,
    world: &World,
    grid: &PixelGrid,
    normalize: Normalize,
    engine: crate::engine::Engine,
    files: HeightmapFiles,
) -> Result<HeightMapping, ExportError> {
    let elevation = elevation_raster(world, grid)?;
    write_heightmaps_from(out, world, grid, &elevation, normalize, engine, files)
}

/// [`write_heightmaps`] from the world's elevation already rasterised on `grid`
/// ([`elevation_raster`], or [`crate::colormap::Shore::elevation`]).
pub fn write_heightmaps_from(
    out: &mut OutDir,
    world: &World,
    grid: &PixelGrid,
    elevation: &Array2<f32>,
    normalize: Normalize,
    engine: crate::engine::Engine,
    files: HeightmapFiles,
) -> Result<HeightMapping, ExportError> {
    if elevation.dim() != (grid.ny, grid.nx) {
        return Err(orogen_world::WorldError::BadLayer {
            name: "elevation raster".into(),
            problem: format!(
                "is {:?}, the grid {} x {} pixels",
                elevation.dim(),
                grid.nx,
                grid.ny
            ),
        }
        .into());
    }
    let master = metres_of(world, elevation);
    if files.exr {
        out.write(FILE_EXR, |w| crate::exr::write_f32(w, master.view(), "Y"))?;
    }
    let (pixels, mut mapping) = to_u16(&master, world, normalize);
    drop(master);
    if files.png {
        out.write(FILE, |w| crate::png::write_gray16(w, pixels.view()))?;
    }
    if files.r16 {
        out.write(FILE_R16, |w| write_r16(w, pixels.view()))?;
    }
    mapping.engine = engine;
    mapping.world_size_y_m = world.meta.world_size_m * grid.height / grid.width;
    if engine == crate::engine::Engine::Unreal {
        mapping.unreal = Some(crate::engine::UnrealTransform::new(
            (mapping.metres_at_0, mapping.metres_at_65535),
            grid.nx,
            world.meta.world_size_m,
        ));
    }
    Ok(mapping)
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::WorldMeta;

    fn world() -> World {
        // A ramp from -1 (west) to 1 (east).
        crate::test_worlds::shaped(20, 2, WorldMeta::default(), |x, _| (2.0 * x - 1.0) as f32)
    }

    #[test]
    fn r16_is_little_endian_row_major_whatever_the_layout() {
        let pixels =
            ndarray::Array2::from_shape_fn((2, 3), |(r, c)| (r * 3 + c) as u16 * 0x0101 + 0x0A00);
        let mut bytes = Vec::new();
        write_r16(&mut bytes, pixels.view()).unwrap();
        let expected: Vec<u8> = (0..6u16)
            .flat_map(|k| (k * 0x0101 + 0x0A00).to_le_bytes())
            .collect();
        assert_eq!(bytes, expected);
        // A column-major view is written as its row-major copy.
        let t = pixels.t();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_r16(&mut a, t).unwrap();
        write_r16(&mut b, t.as_standard_layout().view()).unwrap();
        assert_eq!(a, b);
        assert_eq!(&a[..4], &[0x00, 0x0A, 0x03, 0x0D]);
    }

    #[test]
    fn fixed_and_minmax_mappings() {
        let w = world();
        let grid = PixelGrid::vertices(65, 1.0, 1.0).unwrap();
        let (px, mapping) = heightmap(&w, &grid, Normalize::Fixed).unwrap();
        assert_eq!(px[[10, 0]], 0);
        assert_eq!(px[[10, 64]], 65535);
        // The middle column is sea level: a third of the range at the default 1000 m / 2000 m.
        assert_eq!(px[[10, 32]], mapping.sea_level_u16);
        assert_eq!(mapping.sea_level_u16, 21845);
        // Rising west to east along every row.
        assert!(
            px.rows()
                .into_iter()
                .all(|r| r.windows(2).into_iter().all(|p| p[1] >= p[0]))
        );
        let centres = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let (mm, m) = heightmap(&w, &centres, Normalize::MinMax).unwrap();
        assert_eq!(mm.iter().copied().min(), Some(0));
        assert_eq!(mm.iter().copied().max(), Some(65535));
        assert!(m.metres_at_0 > -1000.0 && m.metres_at_65535 < 2000.0);
    }

    #[test]
    fn without_corner_elevation_corners_take_their_regions_mean() {
        let mut w = world();
        let grid = PixelGrid::centres(8, 1.0, 1.0).unwrap();
        let mesh = w.mesh().unwrap().clone();
        let region = w.view1::<f32>("region_elevation").unwrap().to_owned();
        let mean = crate::colormap::corner_mean(&mesh, |r| region[r]);
        w.set_layer(
            "corner_elevation",
            orogen_world::Domain::Corner,
            ndarray::Array1::from(mean).into_dyn(),
        )
        .unwrap();
        let with_means = heightmap(&w, &grid, Normalize::Fixed).unwrap().0;
        w.remove_layer("corner_elevation");
        assert_eq!(
            heightmap(&w, &grid, Normalize::Fixed).unwrap().0,
            with_means
        );
        w.remove_layer("region_elevation");
        assert!(heightmap(&w, &grid, Normalize::Fixed).is_err());
    }
}
