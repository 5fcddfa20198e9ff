//! The `orogen dem` subcommand: its arguments (clap) and its run, which prints one line of
//! summary (cells, what changed, time, the element type written) unless `--quiet`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::{DemError, Dtype, RunOptions, Summary};

/// The default tile side of the tiled kernels.
pub use super::DEFAULT_TILE;

/// `orogen dem ...`.
#[derive(Debug, Subcommand)]
pub enum DemCommand {
    /// Fill depressions (Priority-Flood, 8-connected, border and NoData-adjacent cells are
    /// outlets).
    Fill {
        /// The input, output and run options.
        #[command(flatten)]
        args: DemArgs,
        /// Raise flats by the smallest f32 steps so every interior cell drains (.npy or .tif
        /// only; single-grid) [default: off]
        #[arg(long)]
        epsilon: bool,
        /// Running as several timely-dataflow processes (float32 .npy DEM in, .npy out).
        #[command(flatten)]
        cluster: ClusterArgs,
    },
    /// Steepest-slope D8 receivers: 0 none, 1..=8 = W, NW, N, NE, E, SE, S, SW.
    D8 {
        /// The input, output and run options.
        #[command(flatten)]
        args: DemArgs,
        /// Running as several timely-dataflow processes (float32 .npy DEM in, .npy out).
        #[command(flatten)]
        cluster: ClusterArgs,
    },
    /// D8 flow accumulation (cells draining through each cell, itself included).
    Accumulate {
        /// The input, output and run options.
        #[command(flatten)]
        args: DemArgs,
        /// Running as several timely-dataflow processes (float32 .npy DEM in, .npy out).
        #[command(flatten)]
        cluster: ClusterArgs,
    },
    /// Stream-power erosion and hillslope diffusion on the DEM's D8 graph (the erosion stage's
    /// kernels; border and NoData-adjacent cells are the base level).
    Erode(crate::dem_erode::ErodeArgs),
}

/// How `fill`, `d8` and `accumulate` run as a timely-dataflow cluster (float32 `.npy` DEM in,
/// `.npy` out).
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Run the tiled kernel as N local timely-dataflow processes [default: one process]
    /// [range: 1..=64]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub workers: Option<u64>,
    /// Give up (exit 1, nothing written) when the processes of the cluster have not all
    /// connected after this many seconds [range: 1..=86400]
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub connect_timeout: u64,
    /// After `--`: timely's own arguments, to run as one process of a cluster: `-n`
    /// processes, `-p` this process's index, `-h` a file of host:port lines, `-w` threads
    /// per process.
    #[arg(last = true)]
    pub timely: Vec<String>,
}

impl ClusterArgs {
    /// Whether the command runs as a cluster.
    fn distributed(&self) -> bool {
        self.workers.is_some() || !self.timely.is_empty()
    }
}

/// What every `orogen dem` command takes.
#[derive(Debug, Args)]
pub struct DemArgs {
    /// Input: a DEM (.npy of any real or integer type, 8/16-bit grayscale PNG, or one-band
    /// GeoTIFF), or for `accumulate` int8 D8 receivers.
    pub input: PathBuf,
    /// Output, by extension: .npy, .png (whole numbers in 0..=65535; 8-bit codes for d8) or
    /// .tif (the input GeoTIFF's georeferencing and NoData carried over).
    pub output: PathBuf,
    /// Tile side of the tiled kernels, which run tiles in parallel and give the same bytes as
    /// one grid [range: 1..=16384]
    #[arg(long, default_value_t = DEFAULT_TILE as u64, value_parser = clap::value_parser!(u64).range(1..=16384))]
    pub tile: u64,
    /// Peak memory of the run (bytes, or with K, M, G: KiB, MiB, GiB): a float32 .npy DEM
    /// written to .npy whose run in memory would need more is streamed tile by tile from and
    /// to disk (each tile computed twice); another input whose grid needs more is refused
    /// [default: the memory available] [range: 1M..]
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Print nothing but errors [default: off]
    #[arg(long, short)]
    pub quiet: bool,
}

/// `512M`, `2G`, `65536K` or plain bytes; at least 1 MiB.
fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err(format!("unknown unit in `{text}`: use K, M, G or T")),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size like 512M or 2G"))?;
    let bytes = n
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is too large"))?;
    if bytes < 1 << 20 {
        return Err(format!("{text} is below the 1M minimum"));
    }
    Ok(bytes)
}

impl DemArgs {
    fn options(&self) -> RunOptions {
        let available = crate::config::available_memory_bytes() as u64;
        RunOptions {
            tile: self.tile as usize,
            memory: usize::try_from(self.memory.unwrap_or(available)).unwrap_or(usize::MAX),
        }
    }
}

impl DemCommand {
    /// Runs the command: exit code 0, 2 for bad input, 1 for an internal failure; errors are
    /// one line on stderr, the summary one line on stdout.
    pub fn run(&self) -> ExitCode {
        let start = Instant::now();
        if let DemCommand::Erode(args) = self {
            return match crate::dem_erode::erode_file(args) {
                Ok(_) => ExitCode::SUCCESS,
                Err(err) => report(&err),
            };
        }
        let cluster = match self {
            DemCommand::Fill {
                args,
                epsilon,
                cluster,
            } => Some((args, *epsilon, cluster)),
            DemCommand::D8 { args, cluster } | DemCommand::Accumulate { args, cluster } => {
                Some((args, false, cluster))
            }
            DemCommand::Erode(_) => None,
        };
        if let Some((args, epsilon, cluster)) = cluster {
            if cluster.distributed() {
                return self.run_cluster(args, epsilon, cluster, start);
            }
            if !epsilon && let Some(code) = self.run_streamed(args, args.options().memory, start) {
                return code;
            }
        }
        let (args, result, what) = match self {
            DemCommand::Fill { args, epsilon, .. } => (
                args,
                super::fill_with(&args.input, &args.output, *epsilon, &args.options()),
                "raised",
            ),
            DemCommand::D8 { args, .. } => (
                args,
                super::d8_with(&args.input, &args.output, &args.options()),
                "with a receiver",
            ),
            DemCommand::Accumulate { args, .. } => (
                args,
                super::accumulate_with(&args.input, &args.output, &args.options()),
                "at most",
            ),
            DemCommand::Erode(_) => unreachable!("handled above"),
        };
        match result {
            Ok(summary) => {
                if !args.quiet {
                    println!(
                        "{}",
                        summary_line(self, &summary, what, &args.output, start)
                    );
                }
                ExitCode::SUCCESS
            }
            Err(err) => report(&err),
        }
    }
}

impl DemCommand {
    /// A float32 `.npy` DEM written to `.npy` whose run in memory would need more than the
    /// limit (`--memory`, else the memory available) is streamed ([`super::cluster::streamed`]); `None` when the run
    /// fits in memory or the files are of another kind (the run in memory then applies the
    /// limit to the grid itself).
    fn run_streamed(&self, args: &DemArgs, limit: usize, start: Instant) -> Option<ExitCode> {
        use super::cluster;
        // Per command: the process, the summary's word, bytes a cell of a tile being computed
        // (with its ring and scratch) and of the whole run in memory (measured at 4096^2:
        // fill 12, accumulate 18.5).
        let (name, what, process, tile_bytes, memory_bytes): (_, _, cluster::Process, _, _) =
            match self {
                DemCommand::Fill { .. } => ("fill", "raised", cluster::fill_process, 28, 12),
                DemCommand::D8 { .. } => ("d8", "with a receiver", cluster::d8_process, 12, 10),
                _ => ("accumulate", "at most", cluster::accumulate_process, 40, 20),
            };
        if super::output_format(&args.output).ok()? != super::Format::Npy {
            return None;
        }
        let grid = cluster::NpyGrid::open(&args.input).ok()?;
        if (grid.rows * grid.cols).saturating_mul(memory_bytes) <= limit {
            return None;
        }
        let threads = rayon::current_num_threads();
        let result = cluster::streamed(
            process,
            name,
            (&args.input, &args.output),
            grid,
            tile_bytes,
            (args.tile as usize, threads),
            limit,
        );
        Some(match result {
            Ok((summary, side)) => {
                if !args.quiet {
                    let peak = cluster::peak_memory()
                        .map(|p| format!(", peak memory {} MiB", p >> 20))
                        .unwrap_or_default();
                    println!(
                        "{}; streamed in {side} x {side} tiles under the {} MiB limit{peak}",
                        summary_line(self, &summary, what, &args.output, start),
                        limit >> 20
                    );
                }
                ExitCode::SUCCESS
            }
            Err(err) => report(&err),
        })
    }

    fn run_cluster(
        &self,
        args: &DemArgs,
        epsilon: bool,
        cluster: &ClusterArgs,
        start: Instant,
    ) -> ExitCode {
        let (workers, timely) = (cluster.workers, &cluster.timely);
        let connect = std::time::Duration::from_secs(cluster.connect_timeout);
        if epsilon {
            return report(&DemError::input(
                Path::new("--epsilon"),
                "the distributed fill is the exact fill: drop --epsilon, or --workers and the timely arguments",
            ));
        }
        let (name, what, process): (_, _, super::cluster::Process) = match self {
            DemCommand::Fill { .. } => ("fill", "raised", super::cluster::fill_process),
            DemCommand::D8 { .. } => ("d8", "with a receiver", super::cluster::d8_process),
            _ => ("accumulate", "at most", super::cluster::accumulate_process),
        };
        let tile = args.tile as usize;
        if let Some(n) = workers {
            if !timely.is_empty() {
                return report(&DemError::input(
                    Path::new("--workers"),
                    "--workers starts local processes itself: give either it or timely's arguments after --",
                ));
            }
            return match super::cluster::local_cluster(
                name,
                &args.input,
                &args.output,
                tile,
                n as usize,
                connect,
                args.quiet,
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => report(&err),
            };
        }
        match process(&args.input, &args.output, tile, connect, timely, false) {
            Ok(Some(summary)) => {
                if !args.quiet {
                    println!(
                        "{}",
                        summary_line(self, &summary, what, &args.output, start)
                    );
                }
                ExitCode::SUCCESS
            }
            Ok(None) => ExitCode::SUCCESS,
            Err(err) => report(&err),
        }
    }
}

fn report(err: &DemError) -> ExitCode {
    eprintln!("error: {err}");
    ExitCode::from(if err.is_invalid_input() { 2 } else { 1 })
}

fn summary_line(
    command: &DemCommand,
    s: &Summary,
    what: &str,
    output: &Path,
    start: Instant,
) -> String {
    let verb = match command {
        DemCommand::Fill { .. } => "filled",
        DemCommand::D8 { .. } => "d8",
        DemCommand::Accumulate { .. } => "accumulated",
        DemCommand::Erode(_) => "eroded",
    };
    let detail = match command {
        DemCommand::Accumulate { .. } => format!("{what} {} cells through one", s.changed),
        _ => format!("{} {what}", s.changed),
    };
    let converted = match (s.read, s.written) {
        (Dtype::I8, _) => String::new(),
        (read, written) if read != written && written != Dtype::I8 && written != Dtype::F64 => {
            format!("; {} input written as {}", read.name(), written.name())
        }
        (Dtype::F64, _) => "; float64 input computed in float32".to_owned(),
        _ => String::new(),
    };
    format!(
        "{verb}: {} cells ({detail}) in {:.2} s -> {} ({}){converted}",
        s.cells,
        start.elapsed().as_secs_f64(),
        output.display(),
        s.written.name(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse_with_units_and_a_floor() {
        assert_eq!(parse_memory("512M"), Ok(512 << 20));
        assert_eq!(parse_memory("2g"), Ok(2 << 30));
        assert_eq!(parse_memory("1048576"), Ok(1 << 20));
        assert!(parse_memory("10K").unwrap_err().contains("1M minimum"));
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("5Q").unwrap_err().contains("unit"));
    }
}
