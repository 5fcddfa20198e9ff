//! orogen generates whole game worlds: a relaxed Voronoi mesh, land shaped by noise and
//! anchors, rivers, biomes and flora, exported for engines, GIS and NumPy.
//!
//! This crate is the pipeline: it alone knows the stage order, holds one [`Config`] with every
//! stage's parameters, derives each stage's seed from the world seed, and runs the stages
//! ([`generate`]). The stage crates (`orogen-mesh`, `orogen-elevation`, ...) are usable on their
//! own; `orogen-export` writes the files ([`write_outputs`]). The `orogen` binary (package
//! `orogen-cli`) is a thin clap front end over this library and the playground
//! (`orogen-playground`), so everything the command does is available to a program, and a
//! program using the pipeline compiles no web server or command-line parser.
//!
//! ```
//! let mut config = orogen::Config::default();
//! config.world.cells = 500;
//! let world = orogen::generate(&config)?;
//! assert_eq!(world.meta.seed, config.world.seed);
//! # Ok::<(), orogen::Error>(())
//! ```
#![warn(missing_docs)]

mod classic;
mod config;
pub mod dem;
/// `orogen dem erode` (its options are clap arguments: behind the `clap` feature).
#[cfg(feature = "clap")]
pub mod dem_erode;
mod error;
mod output;
mod outputs;
pub mod params;
mod pipeline;
pub mod presets;
pub mod profile;
pub mod render3d;

pub use classic::{CLASSIC_STAGES, ClassicParams, Pipeline};
pub use config::{Config, ExportParams, MAX_CELLS, WorldParams, memory_estimate_bytes};
pub use error::{Error, panic_message};
pub use output::{Output, resolve_outputs};
pub use outputs::{Written, generate_run, read_world, write_outputs, write_run};
pub use pipeline::{
    Reuse, STAGES, Timings, WORLD_JSON_READS, flora_models_read, generate, generate_mesh,
    generate_mesh_until, generate_observed, generate_rest, generate_rest_reusing,
    generate_rest_until, generate_timed, needed_stages, run_stage, stage_writes,
};
pub use presets::Preset;
