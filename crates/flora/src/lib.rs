//! Flora for orogen worlds.

mod colonize;
mod error;

pub use colonize::{GrowthParams, Skeleton, Stop, grow, grow_2d, grow_3d, pipe_radii};
pub use error::Error;
