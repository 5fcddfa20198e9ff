//! The world format shared by every orogen stage.
//!
//! A [`World`] is the dual mesh of the conventions ([`DualMesh`]: regions are Delaunay sites and
//! Voronoi cells, corners are Delaunay triangles), a small [`WorldMeta`], and named ndarray
//! [`Layer`]s that the stages add: per region, per corner, rasters, tables and ragged lists in CSR
//! form. A layer not computed yet is absent, not zero. Export reads only the world, so everything
//! an output needs is a layer.
//!
//! The crate also holds the vocabulary every stage shares: the ids of [`ids`], the seed
//! derivation of [`seed`], and the parameter errors of [`params`]. It knows no paths: a world is
//! written to any [`std::io::Write`] and read from any [`std::io::Read`] as one `.npz`
//! ([`World::write_npz`], [`World::read_npz`]).
//!
//! ```
//! use orogen_world::{Domain, World, WorldMeta};
//! use ndarray::Array1;
//!
//! let mut world = World::new(WorldMeta::default());
//! world.set_values("temperature", Domain::Free, vec![1.5f32, 2.5])?;
//! let mut bytes = Vec::new();
//! world.write_npz(&mut bytes, "{}")?;
//! let (back, config) = World::read_npz(&bytes[..])?;
//! assert_eq!(back, world);
//! assert_eq!(config, "{}");
//! # Ok::<(), orogen_world::WorldError>(())
//! ```

#![warn(missing_docs)]

pub mod color;
// csr.rs and interp.rs get their missing docs after the merges of the work on them.
#[allow(missing_docs)]
mod csr;
mod error;
pub mod ids;
#[allow(missing_docs)]
pub mod interp;
#[cfg(feature = "npz")]
mod io;
mod layer;
mod mesh;
pub mod params;
pub mod seed;
pub mod testing;
mod world;

pub use csr::{Csr, CsrError, CsrView};
pub use error::WorldError;
#[cfg(feature = "npz")]
pub use io::{check_npy_header, check_npy_payload};
pub use layer::{Domain, Layer, Values};
pub use mesh::{DualMesh, corner_mean};
pub use world::{World, WorldMeta};
