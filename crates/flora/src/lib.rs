//! Flora for orogen worlds: trees grown by space colonisation and placed by biome.
//!
//! - [`grow`] (and its thin fronts [`grow_2d`], [`grow_3d`]) is space colonisation (Runions, Lane
//!   and Prusinkiewicz 2007) in any dimension: attraction points, influence radius, kill
//!   distance, segment length, a trunk phase so a root below the crown reaches it, a seeded
//!   jitter, an iteration cap, and pipe-model radii ([`pipe_radii`]).
//! - [`Species`] and the biome table ([`BiomePlants`], resolved into a [`FloraTable`]) are data:
//!   crown envelope (cone, ellipsoid, column), height range, storey, and per biome the species
//!   with their densities. [`grow_models`] grows a handful of models per species once per world.
//! - [`place`] places canopy trees by variable-radius Poisson disc (the radius from the local
//!   density), then undergrowth kept clear of them, on plain inputs ([`Ground`]: the biome per
//!   region and a point-to-region lookup such as [`SiteLocator`]).
//! - [`run`] adapts them to the pipeline: it reads `region_biome` (and `region_water`, `rivers`
//!   when present) and writes the instance layers `flora_xy`, `flora_species`, `flora_size`,
//!   `flora_model`, `flora_seed` and the model skeletons `tree_nodes`, `tree_parent`,
//!   `tree_nodes_2d`, `tree_parent_2d`, `tree_model_species`.
//! - [`classic_trees`] (and its adapter [`run_classic`]) are the classic raster landscape's
//!   trees: Poisson disc in an elevation band of `raster_elevation`, sized by elevation, with a
//!   few space-colonised 2-D silhouettes (layers `classic_tree_*`).
//!
//! ```
//! use orogen_flora::{GrowthParams, grow_3d};
//!
//! // A crown of attraction points well above the root: the trunk phase reaches it.
//! let attractors: Vec<[f64; 3]> = (0..200)
//!     .map(|i| {
//!         let t = i as f64 * 2.399_963; // golden angle
//!         let r = 0.25 * ((i as f64 + 0.5) / 200.0).sqrt();
//!         [r * t.cos(), r * t.sin(), 0.7 + 0.1 * (t * 3.0).sin()]
//!     })
//!     .collect();
//! let tree = grow_3d([0.0; 3], &attractors, &GrowthParams::default(), 7)?;
//! assert!(tree.consumed >= 180);
//! // The pipe model: the trunk is the thickest branch.
//! let trunk = tree.radius[0];
//! assert!(tree.radius.iter().all(|&r| r <= trunk * (1.0 + 1e-12)));
//! # Ok::<(), orogen_flora::Error>(())
//! ```
#![warn(missing_docs)]

mod classic;
mod colonize;
mod error;
mod locate;
mod models;
mod placement;
mod species;
mod stage;

pub use classic::{ClassicTreeParams, ClassicTrees, classic_trees, run_classic};
pub use colonize::{GrowthParams, Skeleton, Stop, grow, grow_2d, grow_3d, pipe_radii};
pub use error::Error;
pub use locate::{DiscMask, SegmentMask, SiteLocator, segment_distance};
pub use models::{TreeModel, grow_models};
pub use placement::{Ground, Instances, PACKING, Placement, place};
pub use species::{
    BiomePlants, Envelope, FloraTable, Plant, Species, Storey, default_biomes, default_species,
};
pub use stage::{Params, Planted, plant, plant_instances, run};
