//! The `orogen` command: a thin clap front end over the `orogen` library.
//!
//! Exit codes: 0 on success, 2 on invalid input, 1 on internal failure. Errors print one line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use orogen::{Config, Error};
use orogen_export::heights::Normalize;
use orogen_hydrology::graph::Depressions;

#[derive(Debug, Parser)]
#[command(name = "orogen", version, about = "Generate whole game worlds.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a world and write its files.
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// Output folder.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Read parameters from a TOML config (flags given too override it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the full config of this run as TOML and exit (it reproduces the run).
    #[arg(long)]
    print_config: bool,
    /// Print a table of wall time per stage.
    #[arg(long)]
    timings: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    world: WorldArgs,
    #[command(flatten)]
    mesh: MeshArgs,
    #[command(flatten)]
    export: ExportArgs,
    #[command(flatten)]
    rivers: RiverArgs,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Mesh")]
struct MeshArgs {
    /// Lloyd relaxation iterations [default: 3] [range: 0..=100]
    #[arg(long)]
    lloyd_iterations: Option<u32>,
    /// Interior sites: uniform (as the reference), jittered or poisson [default: uniform]
    #[arg(long, value_parser = parse_sampler)]
    sampler: Option<orogen_mesh::SamplerKind>,
}

fn parse_sampler(text: &str) -> Result<orogen_mesh::SamplerKind, String> {
    orogen_mesh::SamplerKind::parse(text)
        .ok_or_else(|| format!("`{text}`: expected uniform, jittered or poisson"))
}

#[derive(Debug, Args)]
#[command(next_help_heading = "World")]
struct WorldArgs {
    /// World seed [default: 123] [range: 0..=9223372036854775807]
    #[arg(long)]
    seed: Option<u64>,
    /// Number of cells (regions) [default: 50000] [range: 3..=8000000]
    #[arg(long)]
    cells: Option<usize>,
    /// Map size in map units, `W` or `WxH` [default: 1x1] [range: finite > 0, aspect 1e-4..=1e4]
    #[arg(long, value_parser = parse_size)]
    size: Option<(f64, f64)>,
    /// Water level on the base-height scale [default: 0.35] [range: 0..=1]
    #[arg(long)]
    water_level: Option<f64>,
    /// Map width in metres [default: 100000] [range: 1..=1e8]
    #[arg(long)]
    world_size: Option<f64>,
    /// Metres at the highest land [default: 2000] [range: 1..=1e5]
    #[arg(long)]
    max_height: Option<f64>,
    /// Metres below sea level at the deepest water [default: 1000] [range: 1..=1e5]
    #[arg(long)]
    max_depth: Option<f64>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Export")]
struct ExportArgs {
    /// Image width in pixels; height follows the map's aspect [default: 1024] [range: 1..=32768]
    #[arg(long)]
    resolution: Option<usize>,
    /// 16-bit height mapping: fixed ([-max depth, max height]) or minmax [default: fixed]
    #[arg(long, value_parser = parse_normalize)]
    normalize: Option<Normalize>,
    /// Also write the whole world as world.npz [default: off]
    #[arg(long)]
    save_world: bool,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Rivers")]
struct RiverArgs {
    /// Depressions: fill (lakes, flat land) or carve (lower the path out) [default: fill]
    #[arg(long, value_parser = parse_depressions)]
    depressions: Option<Depressions>,
    /// Fewest regions of a flooded lake [default: 10] [range: 1..=100000000]
    #[arg(long)]
    min_lake_regions: Option<usize>,
    /// Most main rivers per sqrt(land corners) [default: 0.45] [range: 0..=1000]
    #[arg(long, allow_negative_numbers = true)]
    main_rivers: Option<f64>,
    /// Most tributaries per sqrt(land corners) [default: 0.40] [range: 0..=1000]
    #[arg(long, allow_negative_numbers = true)]
    tributaries: Option<f64>,
    /// Spacing between main rivers, in cell spacings [default: 3] [range: 0..=1000]
    #[arg(long, allow_negative_numbers = true)]
    river_spacing: Option<f64>,
    /// Spacing of tributaries, in cell spacings [default: 2] [range: 0..=1000]
    #[arg(long, allow_negative_numbers = true)]
    tributary_spacing: Option<f64>,
    /// Rivers grow upstream while the flow is at least this [default: 4] [range: 1..=1e9]
    #[arg(long, allow_negative_numbers = true)]
    river_extend_flow: Option<f64>,
}

fn parse_depressions(text: &str) -> Result<Depressions, String> {
    match text {
        "fill" => Ok(Depressions::Fill),
        "carve" => Ok(Depressions::Carve),
        other => Err(format!("`{other}`: expected fill or carve")),
    }
}

fn parse_size(text: &str) -> Result<(f64, f64), String> {
    let parse = |s: &str| s.trim().parse::<f64>().map_err(|e| format!("`{s}`: {e}"));
    match text.split_once(['x', 'X']) {
        Some((w, h)) => Ok((parse(w)?, parse(h)?)),
        None => {
            let w = parse(text)?;
            Ok((w, w))
        }
    }
}

fn parse_normalize(text: &str) -> Result<Normalize, String> {
    match text {
        "fixed" => Ok(Normalize::Fixed),
        "minmax" => Ok(Normalize::MinMax),
        other => Err(format!("`{other}`: expected fixed or minmax")),
    }
}

impl GenerateArgs {
    /// The config of this run: the file's (or the defaults), overridden by the flags given.
    fn config(&self) -> Result<Config, Error> {
        let mut config = match &self.config {
            Some(path) => {
                let shown = path.display().to_string();
                let text = std::fs::read_to_string(path).map_err(|e| Error::Config {
                    path: shown.clone(),
                    message: e.to_string(),
                })?;
                Config::from_toml(&text, &shown)?
            }
            None => Config::default(),
        };
        let w = &self.world;
        let world = &mut config.world;
        set(&mut world.seed, w.seed);
        set(&mut world.cells, w.cells);
        if let Some((width, height)) = w.size {
            world.width = width;
            world.height = height;
        }
        set(&mut world.water_level, w.water_level);
        set(&mut world.world_size_m, w.world_size);
        set(&mut world.max_height_m, w.max_height);
        set(&mut world.max_depth_m, w.max_depth);
        set(
            &mut config.mesh.lloyd_iterations,
            self.mesh.lloyd_iterations,
        );
        set(&mut config.mesh.sampler, self.mesh.sampler);
        let e = &self.export;
        set(&mut config.export.resolution, e.resolution);
        set(&mut config.export.normalize, e.normalize);
        config.export.save_world |= e.save_world;
        let r = &self.rivers;
        let rivers = &mut config.rivers;
        set(&mut rivers.depressions, r.depressions);
        set(&mut rivers.min_lake_regions, r.min_lake_regions);
        set(&mut rivers.selection.main.max_rivers_sqrt, r.main_rivers);
        set(
            &mut rivers.selection.tributary.max_rivers_sqrt,
            r.tributaries,
        );
        set(&mut rivers.selection.main.spacing, r.river_spacing);
        set(&mut rivers.selection.tributary.spacing, r.tributary_spacing);
        set(&mut rivers.selection.extend_min_flow, r.river_extend_flow);
        Ok(config)
    }
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

fn generate(args: &GenerateArgs) -> Result<(), Error> {
    let config = args.config()?;
    config.validate()?;
    if args.print_config {
        print!("{}", config.to_toml());
        return Ok(());
    }
    let (world, timings) = orogen::generate_timed(&config)?;
    let start = std::time::Instant::now();
    let files = orogen::write_outputs(&world, &config, &args.out)?;
    let export = start.elapsed();
    if !args.quiet {
        println!(
            "wrote {} files to {}: {}",
            files.len(),
            args.out.display(),
            files.join(", ")
        );
    }
    if args.timings {
        println!("{:<12} {:>10}", "stage", "ms");
        for (name, d) in &timings.stages {
            println!("{name:<12} {:>10.1}", d.as_secs_f64() * 1e3);
        }
        println!("{:<12} {:>10.1}", "export", export.as_secs_f64() * 1e3);
        println!(
            "{:<12} {:>10.1}",
            "total",
            (timings.total() + export).as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("OROGEN_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(args) => generate(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(if err.is_invalid_input() { 2 } else { 1 })
        }
    }
}
