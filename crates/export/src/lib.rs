//! Every file orogen writes.
//!
//! Stages compute layers; this crate turns a [`World`](orogen_world::World) into files. It owns
//! paths, temporary names and renames ([`atomic`]), the raster sampling of the conventions
//! ([`grid`]), the height mapping ([`heights`]), PNG encoding ([`png`]), NumPy arrays ([`npy`]),
//! the `world.json` sidecar ([`sidecar`]), and the 3-D outputs: `world.glb` ([`gltf`]) and the
//! built-in perspective render `preview3d.png` ([`preview3d`]). Nothing else in orogen writes a
//! file (Blender, run by `orogen render3d`, writes its own render).
//!
//! ```
//! use orogen_export::{atomic::OutDir, grid::PixelGrid, png};
//! use ndarray::Array2;
//!
//! let dir = std::env::temp_dir().join(format!("orogen-doc-{}", std::process::id()));
//! let mut out = OutDir::create(&dir)?;
//! let grid = PixelGrid::centres(8, 1.0, 1.0)?;
//! let pixels = Array2::from_shape_fn((grid.ny, grid.nx), |(row, col)| (row * 8 + col) as u16 * 1000);
//! out.write("ramp.png", |w| png::write_gray16(w, pixels.view()))?;
//! assert!(!dir.join("ramp.png").exists(), "staged until the commit");
//! assert_eq!(out.commit()?, ["ramp.png"]);
//! assert!(dir.join("ramp.png").exists());
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), orogen_export::ExportError>(())
//! ```
#![warn(missing_docs)]

pub mod atomic;
pub mod colormap;
mod draw;
pub mod engine;
mod error;
pub mod exr;
pub mod geojson;
pub mod gltf;
pub mod grid;
pub mod heightmap;
pub mod heights;
pub mod landscape;
pub mod mesh_png;
pub mod npy;
pub mod png;
pub mod preview3d;
pub mod relief;
pub mod rivers;
pub mod sidecar;
pub mod splat;
pub mod stroke;
#[cfg(test)]
mod test_worlds;

pub use error::ExportError;
pub use mesh_png::mesh_png;
