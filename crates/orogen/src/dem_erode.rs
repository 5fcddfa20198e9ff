//! (The option docs below are clap help texts: their `[default: ...]` brackets are not links.)
#![allow(rustdoc::broken_intra_doc_links)]
//! `orogen dem erode`: the erosion stage's kernels (`orogen_hydrology::erosion`) on a DEM the
//! user brings, on the raster's 8-connected (D8) graph. Border cells and cells next to NoData
//! (NaN) are the base level; every other cell is uplifted each step.

use std::path::{Path, PathBuf};

use ndarray::Array2;
use orogen_export::{atomic, npy};
use orogen_hydrology::erosion::{self, Mode, Params, Stats};
use orogen_world::params::ParamError;

use crate::dem::{DemError, Grid, read_grid};

/// The options of `orogen dem erode` (defaults: [`Params::default`]; a test keeps the help text
/// in step with them).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ErodeArgs {
    /// Input DEM (.npy or PNG), elevations in metres.
    pub input: PathBuf,
    /// Output (.npy float64).
    pub output: PathBuf,
    /// Cell size in metres [default: 30] [range: finite > 0]
    #[arg(long)]
    pub cell_size: Option<f64>,
    /// transient (steps of dt) or steady-state (solved directly) [default: transient]
    #[arg(long, value_parser = ["transient", "steady-state"])]
    pub mode: Option<String>,
    /// Erodibility K, m^(1-2m)/yr [default: 1e-5] [range: 0..=1, > 0 in steady-state]
    #[arg(long)]
    pub k: Option<f64>,
    /// Drainage area exponent m [default: 0.4] [range: 0..=2]
    #[arg(long)]
    pub m: Option<f64>,
    /// Slope exponent n (1 exact, else Newton per cell) [default: 1] [range: 0.5..=4]
    #[arg(long)]
    pub n: Option<f64>,
    /// Uniform uplift rate, m/yr [default: 0.001] [range: 0..=1]
    #[arg(long)]
    pub uplift: Option<f64>,
    /// Uplift rate per cell, m/yr: a .npy of the DEM's size (replaces --uplift) [default: none]
    #[arg(long)]
    pub uplift_raster: Option<PathBuf>,
    /// Hillslope diffusivity, m^2/yr (transient) [default: 0.1] [range: 0..=1e4]
    #[arg(long)]
    pub diffusion: Option<f64>,
    /// Time step, years [default: 20000] [range: 1..=1e7]
    #[arg(long)]
    pub dt: Option<f64>,
    /// Time steps (transient) [default: 100] [range: 1..=100000]
    #[arg(long)]
    pub steps: Option<usize>,
    /// Most routing passes of the steady state [default: 20] [range: 1..=1000]
    #[arg(long)]
    pub iterations: Option<usize>,
}

/// The cell size when `--cell-size` is not given (metres; a 1 arc-second DEM).
pub const DEFAULT_CELL_SIZE: f64 = 30.0;

impl ErodeArgs {
    /// The erosion parameters these options give (transient unless told otherwise).
    pub fn params(&self) -> Params {
        let d = Params::default();
        Params {
            mode: match self.mode.as_deref() {
                Some("steady-state") => Mode::SteadyState,
                _ => Mode::Transient,
            },
            k: self.k.unwrap_or(d.k),
            m: self.m.unwrap_or(d.m),
            n: self.n.unwrap_or(d.n),
            uplift: self.uplift.unwrap_or(d.uplift),
            diffusion: self.diffusion.unwrap_or(d.diffusion),
            dt: self.dt.unwrap_or(d.dt),
            steps: self.steps.unwrap_or(d.steps),
            iterations: self.iterations.unwrap_or(d.iterations),
            keep_relief: false,
        }
    }
}

/// A parameter error as the command line names it (`dt` -> `--dt`, `uplift_raster` ->
/// `--uplift-raster`).
fn flag_error(e: ParamError) -> DemError {
    DemError::Input {
        path: "orogen dem erode".into(),
        message: ParamError {
            param: format!("--{}", e.param.replace('_', "-")),
            ..e
        }
        .to_string(),
    }
}

fn read_f64(path: &Path) -> Result<Array2<f64>, DemError> {
    match read_grid(path)? {
        Grid::Elevation(z) => Ok(z.mapv(f64::from)),
        Grid::Receivers(_) => Err(DemError::Input {
            path: path.display().to_string(),
            message: "int8 arrays are D8 receivers, not elevations".into(),
        }),
    }
}

/// Runs `orogen dem erode`: every parameter is checked before the DEM is read, the uplift raster's
/// size before any work.
pub fn erode_file(args: &ErodeArgs) -> Result<Stats, DemError> {
    let params = args.params();
    params.validate().map_err(flag_error)?;
    let cell = args.cell_size.unwrap_or(DEFAULT_CELL_SIZE);
    orogen_world::params::positive_finite("cell_size", cell).map_err(flag_error)?;
    let ext = args
        .output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if ext.as_deref() != Some("npy") {
        return Err(DemError::Input {
            path: args.output.display().to_string(),
            message: "eroded elevations are float64: the output name must end in .npy".into(),
        });
    }
    let dem = read_f64(&args.input)?;
    let uplift = match &args.uplift_raster {
        Some(path) => read_f64(path)?,
        None => Array2::from_elem(dem.dim(), params.uplift),
    };
    let (out, stats) =
        erosion::erode_grid(dem.view(), uplift.view(), cell, cell, &params).map_err(flag_error)?;
    atomic::write_atomic(&args.output, |w| npy::write_npy(w, &out))?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: ErodeArgs,
    }

    #[test]
    fn the_help_states_the_params_defaults() {
        let d = Params::default();
        let help = Cli::command().render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for (flag, value) in [
            ("--k", d.k.to_string()),
            ("--m", d.m.to_string()),
            ("--n", d.n.to_string()),
            ("--uplift", d.uplift.to_string()),
            ("--diffusion", d.diffusion.to_string()),
            ("--dt", d.dt.to_string()),
            ("--steps", d.steps.to_string()),
            ("--iterations", d.iterations.to_string()),
            ("--cell-size", DEFAULT_CELL_SIZE.to_string()),
        ] {
            let start = help
                .find(&format!("{flag} <"))
                .unwrap_or_else(|| panic!("{flag} missing in {help}"));
            let stated = help[start..]
                .split("[default: ")
                .nth(1)
                .and_then(|rest| rest.split(']').next())
                .unwrap_or_else(|| panic!("{flag}: no default"));
            assert_eq!(
                stated
                    .parse::<f64>()
                    .unwrap_or_else(|_| panic!("{flag}: {stated}")),
                value.parse::<f64>().unwrap(),
                "{flag}"
            );
        }
    }

    #[test]
    fn bad_parameters_are_refused_by_their_flag_before_reading() {
        let args = ErodeArgs {
            input: "/nonexistent.npy".into(),
            output: "out.npy".into(),
            k: Some(-1.0),
            ..ErodeArgs::default()
        };
        let e = erode_file(&args).unwrap_err().to_string();
        assert!(
            e.contains("--k = -1 is out of range: allowed 0 ..= 1"),
            "{e}"
        );
        let args = ErodeArgs {
            k: None,
            dt: Some(0.0),
            ..args
        };
        let e = erode_file(&args).unwrap_err().to_string();
        assert!(
            e.contains("--dt = 0 is out of range: allowed 1 ..= 10000000"),
            "{e}"
        );
    }
}
