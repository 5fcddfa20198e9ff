//! Hydrology for orogen: where water goes.
//!
//! [`graph`] works on any graph in CSR form (the dual mesh's corners, or a user's own graph):
//! Priority-Flood routing, lakes, flow accumulation and river selection; `graph::run` is the
//! pipeline's hydrology stage on the mesh.
//!
//! [`raster`] works on plain 2-D grids (a DEM you bring as an `ndarray` view, no `World`
//! needed): Priority-Flood depression filling (Barnes, Lehman and Mulla 2014) exact to the bit,
//! its epsilon variant that leaves every interior cell a strictly lower neighbour, steepest-slope
//! D8 receivers, flow accumulation (parallel with rayon, the same bytes for any thread count),
//! and steepest-descent river tracing for the classic raster landscape. NaN cells are NoData.
//! [`run_classic`] traces the classic landscape's rivers on the `raster_elevation` layer into
//! `classic_rivers` (ragged raster cell ids).
//!
//! ```
//! use ndarray::array;
//! use orogen_hydrology::raster;
//!
//! // A 5x5 DEM with a one-cell pit in the middle, drained over a low saddle on the west edge.
//! let dem = array![
//!     [9.0f32, 9.0, 9.0, 9.0, 9.0],
//!     [9.0, 5.0, 5.0, 5.0, 9.0],
//!     [4.0, 5.0, 1.0, 5.0, 9.0],
//!     [9.0, 5.0, 5.0, 5.0, 9.0],
//!     [9.0, 9.0, 9.0, 9.0, 9.0],
//! ];
//! let filled = raster::fill(dem.view())?;
//! assert_eq!(filled[[2, 2]], 5.0); // the pit fills up to its spill level
//! assert_eq!(filled[[0, 0]], 9.0); // nothing else changes
//!
//! // With the epsilon fill every interior cell drains, so D8 gives every one a receiver.
//! let eps = raster::fill_epsilon(dem.view())?;
//! let receivers = raster::d8_receivers(eps.view());
//! assert!(receivers.slice(ndarray::s![1..4, 1..4]).iter().all(|&code| code != 0));
//! let accumulation = raster::flow_accumulation(receivers.view())?;
//! // Everything inside the rim leaves through the saddle cell (2, 1) into the west edge.
//! assert_eq!(accumulation[[2, 0]], 10.0);
//! # Ok::<(), orogen_hydrology::raster::RasterError>(())
//! ```
#![warn(missing_docs)]

mod classic;
pub mod erosion;
mod error;
mod flood;
pub mod graph;
pub mod raster;

pub use classic::run_classic;

pub use error::Error;
