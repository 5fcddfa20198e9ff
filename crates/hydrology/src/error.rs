use thiserror::Error;

/// Everything the hydrology kernels and stage can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter out of range.
    #[error("invalid parameter: {0}")]
    Param(#[from] orogen_world::params::ParamError),
    /// A missing or malformed world layer.
    #[error(transparent)]
    World(#[from] orogen_world::WorldError),
    /// A raster kernel refused its input.
    #[error(transparent)]
    Raster(#[from] crate::raster::RasterError),
}
