//! The raster sampling of the conventions.
//!
//! Images sample pixel centres: pixel (col i, row j) of an `nx x ny` image is the map point
//! ((i + 0.5) W / nx, (j + 0.5) H / ny), with ny = round(nx H / W). Engine grids (2^n + 1 sizes,
//! Unreal sizes) sample vertices: (i W / (n - 1), j H / (n - 1)), and need a square map. Row 0 is
//! y = 0, the north edge.

use orogen_world::params::{ParamError, in_range, positive_finite};
use serde::Serialize;

/// The largest raster side orogen accepts (a 32768^2 f32 master is 4 GiB).
pub const MAX_SIDE: usize = 32_768;

/// How a raster's pixels map to the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Pixel centres (images).
    PixelCentres,
    /// Grid vertices, corners included (engine heightmaps).
    Vertices,
}

/// A raster grid over the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelGrid {
    /// Pixels (or vertices) along x, west to east.
    pub nx: usize,
    /// Pixels (or vertices) along y, north to south.
    pub ny: usize,
    /// Whether pixels sample their centres or the grid's vertices.
    pub sampling: Sampling,
    /// Map width W in map units.
    pub width: f64,
    /// Map height H in map units.
    pub height: f64,
}

impl PixelGrid {
    /// An image `nx` pixels wide sampling pixel centres; its height follows the map's aspect.
    pub fn centres(nx: usize, width: f64, height: f64) -> Result<Self, ParamError> {
        positive_finite("width", width)?;
        positive_finite("height", height)?;
        in_range("resolution", nx, 1..=MAX_SIDE)?;
        let ny = ((nx as f64) * height / width).round().max(1.0);
        if ny > MAX_SIDE as f64 {
            return Err(ParamError::new(
                "resolution",
                nx,
                format!(
                    "a width whose height ({ny} px for this map's aspect) is at most {MAX_SIDE}"
                ),
            ));
        }
        Ok(PixelGrid {
            nx,
            ny: ny as usize,
            sampling: Sampling::PixelCentres,
            width,
            height,
        })
    }

    /// An `n x n` engine grid sampling vertices; the map must be square.
    pub fn vertices(n: usize, width: f64, height: f64) -> Result<Self, ParamError> {
        positive_finite("width", width)?;
        positive_finite("height", height)?;
        in_range("resolution", n, 2..=MAX_SIDE)?;
        if (width - height).abs() > 1e-12 * width.max(height) {
            return Err(ParamError::new(
                "size",
                format!("{width}x{height}"),
                "a square map for vertex-sampled engine grids",
            ));
        }
        Ok(PixelGrid {
            nx: n,
            ny: n,
            sampling: Sampling::Vertices,
            width,
            height,
        })
    }

    /// The map point of pixel (col, row).
    #[inline]
    pub fn point(&self, col: usize, row: usize) -> (f64, f64) {
        match self.sampling {
            Sampling::PixelCentres => (
                (col as f64 + 0.5) * self.width / self.nx as f64,
                (row as f64 + 0.5) * self.height / self.ny as f64,
            ),
            Sampling::Vertices => (
                col as f64 * self.width / (self.nx - 1) as f64,
                row as f64 * self.height / (self.ny - 1) as f64,
            ),
        }
    }

    /// The same sampling as an affine map for [`orogen_world::interp`].
    pub fn sampling(&self) -> orogen_world::interp::RasterSampling {
        use orogen_world::interp::RasterSampling;
        match self.sampling {
            Sampling::PixelCentres => {
                RasterSampling::pixel_centres(self.nx, self.ny, self.width, self.height)
            }
            Sampling::Vertices => {
                RasterSampling::vertices(self.nx, self.ny, self.width, self.height)
            }
        }
    }

    /// The number of pixels.
    pub fn len(&self) -> usize {
        self.nx * self.ny
    }

    /// True for an empty grid (never, once validated).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centres_and_vertices_follow_the_conventions() {
        let g = PixelGrid::centres(4, 2.0, 1.0).unwrap();
        assert_eq!((g.nx, g.ny), (4, 2));
        assert_eq!(g.point(0, 0), (0.25, 0.25));
        assert_eq!(g.point(3, 1), (1.75, 0.75));
        let v = PixelGrid::vertices(5, 1.0, 1.0).unwrap();
        assert_eq!(v.point(0, 0), (0.0, 0.0));
        assert_eq!(v.point(4, 4), (1.0, 1.0));
        assert!(PixelGrid::vertices(5, 2.0, 1.0).is_err());
        assert!(PixelGrid::centres(0, 1.0, 1.0).is_err());
        assert!(PixelGrid::centres(100_000, 1.0, 1.0).is_err());
        assert!(PixelGrid::centres(10, f64::NAN, 1.0).is_err());
        // The affine form used by the mesh interpolation samples the same points.
        for grid in [g, v, PixelGrid::centres(7, 1.0, 3.0).unwrap()] {
            let affine = grid.sampling();
            assert_eq!((affine.nx, affine.ny), (grid.nx, grid.ny));
            for (col, row) in [(0, 0), (grid.nx - 1, grid.ny - 1), (1, grid.ny / 2)] {
                let (a, b) = (affine.point(col, row), grid.point(col, row));
                assert!((a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12);
            }
        }
    }
}
