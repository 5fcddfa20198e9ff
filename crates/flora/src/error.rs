use orogen_world::WorldError;
use orogen_world::params::ParamError;
use thiserror::Error;

/// What the flora stage can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter out of range or a species table that does not resolve.
    #[error("invalid flora parameter: {0}")]
    Param(#[from] ParamError),
    /// A missing or malformed world layer (`region_biome` before the biome stage ran).
    #[error(transparent)]
    World(#[from] WorldError),
    /// Placement could not sample the map (too many discs for the densest biome's spacing).
    #[error("flora placement: {0}")]
    Sampling(#[from] orogen_sampling::SamplingError),
    /// A coordinate that is NaN or infinite.
    #[error("non-finite coordinate in {0}")]
    NonFinite(&'static str),
}
