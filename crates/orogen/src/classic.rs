//! The classic raster landscape (the second article): a diamond-square or fBm heightmap, rivers
//! traced by steepest descent, trees by Poisson disc with space-colonised silhouettes, painted
//! as `landscape.png`. `--preset classic` ([`Pipeline::Classic`]) runs these stages instead of the
//! mesh ones.

use orogen_world::World;
use orogen_world::params::{ParamError, check_specs};
use serde::{Deserialize, Serialize};

use crate::pipeline::Timings;
use crate::{Config, Error};

/// Which pipeline a run uses: a property of its [`Preset`](crate::Preset) (`classic` runs the
/// classic one, every other preset the mesh one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pipeline {
    /// The polygon map: mesh, elevation, hydrology, biome, flora.
    #[default]
    Mesh,
    /// The classic raster landscape: [`CLASSIC_STAGES`].
    Classic,
}

impl Pipeline {
    /// The stages this pipeline runs, in order.
    pub fn stages(self) -> &'static [&'static str] {
        match self {
            Pipeline::Mesh => crate::STAGES,
            Pipeline::Classic => CLASSIC_STAGES,
        }
    }

    /// The pipeline's name in messages: `mesh` or `classic`.
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Mesh => "mesh",
            Pipeline::Classic => "classic",
        }
    }
}

/// The classic stages in the order they run: the heightmap, its rivers, its trees.
pub const CLASSIC_STAGES: &[&str] = &["elevation", "hydrology", "flora"];

/// The classic landscape's parameters, the article's numbers as defaults. The map must be
/// square; the image is `export.resolution` pixels wide (1024 by default).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassicParams {
    /// The heightmap: diamond-square 257 x 257, corners 0.5, roughness 0.65 (or fBm).
    pub elevation: orogen_elevation::ClassicParams,
    /// The rivers: 6, from cells above 0.75 (500 tries), at most 300 steps, down to 0.36.
    pub rivers: orogen_hydrology::raster::TraceParams,
    /// The trees: Poisson disc r = 18 px on a 1024 canvas, k = 30, elevation 0.43 ..= 0.72,
    /// 3 ..= 8 px.
    pub trees: orogen_flora::ClassicTreeParams,
    /// How `landscape.png` is painted: the article's bands and colours.
    pub paint: orogen_export::landscape::LandscapeStyle,
}

impl ClassicParams {
    /// Checks every field; names are relative to this section (`rivers.count`).
    pub fn validate(&self) -> Result<(), ParamError> {
        self.elevation
            .validate()
            .map_err(|e| e.prefixed("elevation."))?;
        self.rivers.validate().map_err(|e| e.prefixed("rivers."))?;
        // The classic heightmap is normalised to 0 ..= 1 (the kernel takes any DEM).
        check_specs(self, Self::SPECS)?;
        self.trees.validate().map_err(|e| e.prefixed("trees."))?;
        self.paint.validate().map_err(|e| e.prefixed("paint."))?;
        Ok(())
    }
}

/// Runs the classic stages on a new world (no mesh), calling `on_stage` before each;
/// `config` is already validated.
pub(crate) fn generate(
    config: &Config,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(World, Timings), Error> {
    let classic = &config.classic;
    let mut timings = Timings::default();
    let mut world = World::new(config.world.meta());
    on_stage(CLASSIC_STAGES[0]);
    timings.run("elevation", || {
        Ok(orogen_elevation::run_classic(
            &mut world,
            &classic.elevation,
        )?)
    })?;
    on_stage(CLASSIC_STAGES[1]);
    timings.run("hydrology", || {
        Ok(orogen_hydrology::run_classic(&mut world, &classic.rivers)?)
    })?;
    on_stage(CLASSIC_STAGES[2]);
    timings.run("flora", || {
        Ok(orogen_flora::run_classic(&mut world, &classic.trees)?)
    })?;
    Ok((world, timings))
}
