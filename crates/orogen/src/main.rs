//! The `orogen` command: a thin clap front end over the `orogen` library.
//!
//! Exit codes: 0 on success, 2 on invalid input, 1 on internal failure. Errors print one line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use orogen::{Config, Error};
use orogen_export::heights::Normalize;

#[derive(Debug, Parser)]
#[command(name = "orogen", version, about = "Generate whole game worlds.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a world and write its files.
    Generate(Box<GenerateArgs>),
    /// Hydrology on a DEM you bring: 2-D .npy (float32 elevations, int8 D8 receivers) or
    /// 8/16-bit grayscale PNG in; .npy or PNG out, by the output's extension.
    #[command(subcommand)]
    Dem(DemCommand),
    /// Render world.glb with Blender (Cycles, CPU) into a PNG; needs `blender` on PATH.
    Render3d(Render3dArgs),
}

#[derive(Debug, Args)]
struct Render3dArgs {
    /// The .glb to render (from `orogen generate --glb`).
    #[arg(long, default_value = "out/world.glb")]
    glb: PathBuf,
    /// The PNG to write.
    #[arg(long, default_value = "out/render3d.png")]
    out: PathBuf,
    /// Cycles samples per pixel [range: 1..=4096]
    #[arg(long, default_value_t = 16)]
    samples: u32,
    /// Image width in pixels [range: 16..=8192]
    #[arg(long, default_value_t = 960)]
    width: u32,
    /// Image height in pixels [range: 16..=8192]
    #[arg(long, default_value_t = 540)]
    height: u32,
    /// Vertical exaggeration [range: 1..=50]
    #[arg(long, default_value_t = 4.0)]
    exaggeration: f64,
    /// The Blender executable.
    #[arg(long, default_value = "blender")]
    blender: PathBuf,
    /// A Blender script to run instead of the built-in copy of blender/render.py.
    #[arg(long)]
    script: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum DemCommand {
    /// Fill depressions (Priority-Flood, 8-connected, border and NaN-adjacent cells are outlets).
    Fill {
        /// Input DEM (.npy or PNG).
        input: PathBuf,
        /// Output (.npy float32, or .png 16-bit when the values are whole numbers in 0..=65535).
        output: PathBuf,
        /// Raise flats by the smallest f32 steps so every interior cell drains (.npy only)
        /// [default: off]
        #[arg(long)]
        epsilon: bool,
    },
    /// Steepest-slope D8 receivers: 0 none, 1..=8 = W, NW, N, NE, E, SE, S, SW.
    D8 {
        /// Input DEM (.npy or PNG).
        input: PathBuf,
        /// Output (.npy int8, or .png 8-bit codes).
        output: PathBuf,
    },
    /// D8 flow accumulation (cells draining through each cell, itself included).
    Accumulate {
        /// Input: int8 D8 receivers (.npy), or a DEM (D8 taken on it as it is).
        input: PathBuf,
        /// Output (.npy float64).
        output: PathBuf,
    },
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
    elevation: ElevationArgs,
    #[command(flatten)]
    biome: BiomeArgs,
    #[command(flatten)]
    flora: FloraArgs,
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
    /// Shade colormap.png by slope (sun north-west, 45 degrees up) [default: off]
    #[arg(long)]
    hillshade: bool,
    /// Write world.glb: terrain, sea and trees as glTF 2.0 binary (Y up, metres) [default: off]
    #[arg(long)]
    glb: bool,
    /// Terrain vertices along the width in world.glb [default: 257] [range: 2..=4097]
    #[arg(long)]
    glb_resolution: Option<usize>,
    /// Do not write preview3d.png (a perspective render of the world) [default: written]
    #[arg(long)]
    no_preview3d: bool,
    /// Width of preview3d.png in pixels; height is 9/16 of it [default: 1280] [range: 64..=8192]
    #[arg(long)]
    preview_width: Option<usize>,
    /// Vertical exaggeration of preview3d.png [default: 4] [range: 1..=50]
    #[arg(long)]
    preview_exaggeration: Option<f64>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Moisture and biomes")]
struct BiomeArgs {
    /// Bend land moisture: above 0 wetter, below 0 drier [default: 0] [range: -1..=1]
    #[arg(long, allow_hyphen_values = true)]
    wetness: Option<f32>,
    /// Moisture added at the water's edge (ocean, lakes, rivers) [default: 0.15] [range: 0..=1]
    #[arg(long)]
    water_boost: Option<f32>,
    /// Decay length of the water boost, as a fraction of the map width [default: 0.03] [range: 0.0001..=1]
    #[arg(long)]
    water_decay: Option<f64>,
    /// Drier with altitude: moisture x (1 - k elevation) below the snow caps [default: 0.325] [range: 0..=1]
    #[arg(long)]
    altitude_drying: Option<f32>,
    /// Moisture noise scale over the elevation noise scale [default: 1.5] [range: 0.01..=100]
    #[arg(long)]
    moisture_scale: Option<f64>,
    /// Keep raw moisture instead of redistributing land moisture by rank [default: off]
    #[arg(long)]
    raw_moisture: bool,
    /// Weight of wind-carried rain with rain shadows; 0 turns it off [default: 0] [range: 0..=4]
    #[arg(long)]
    wind: Option<f32>,
    /// Direction the wind blows towards, degrees (0 east, 90 south) [default: 0] [range: -360..=360]
    #[arg(long, allow_hyphen_values = true)]
    wind_angle: Option<f64>,
    /// Gaussian blur sigma of the biome colour table, in table steps [default: 8] [range: 0..=64]
    #[arg(long)]
    blur_sigma: Option<f64>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Elevation")]
struct ElevationArgs {
    /// Noise basis: perlin or simplex [default: perlin]
    #[arg(long, value_parser = parse_noise)]
    noise: Option<orogen_elevation::Basis>,
    /// Noise features across the map's shorter side [default: 4] [range: 0.01..=1000]
    #[arg(long, allow_negative_numbers = true)]
    noise_scale: Option<f64>,
    /// fBm octaves [default: 6] [range: 1..=16]
    #[arg(long)]
    octaves: Option<u32>,
    /// fBm gain (amplitude factor per octave; 0.4 gives smoother land) [default: 0.5] [range: 0..=1]
    #[arg(long, allow_negative_numbers = true)]
    gain: Option<f64>,
    /// Random land anchors for --layout random [default: 5] [range: 1..=1000]
    #[arg(long)]
    land_centers: Option<usize>,
    /// Anchor layout: random, four-corners, centre-island, two-continents-ew,
    /// two-continents-ns, archipelago-ring, cross, custom [default: random; custom with --anchors]
    #[arg(long, value_parser = parse_layout)]
    layout: Option<orogen_elevation::Layout>,
    /// Custom anchors in map coordinates (x right, y down), `x,y;x,y` [range: inside the map]
    #[arg(long, value_parser = parse_anchors, allow_hyphen_values = true)]
    anchors: Option<AnchorList>,
}

fn parse_noise(text: &str) -> Result<orogen_elevation::Basis, String> {
    orogen_elevation::Basis::parse(text).map_err(|e| e.to_string())
}

fn parse_layout(text: &str) -> Result<orogen_elevation::Layout, String> {
    orogen_elevation::Layout::parse(text).map_err(|e| e.to_string())
}

/// `--anchors` points (a newtype, so clap takes the whole list as one value).
#[derive(Clone, Debug)]
struct AnchorList(Vec<[f64; 2]>);

fn parse_anchors(text: &str) -> Result<AnchorList, String> {
    text.split(';')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (x, y) = pair
                .split_once(',')
                .ok_or_else(|| format!("`{pair}`: expected x,y"))?;
            let parse = |s: &str| s.trim().parse::<f64>().map_err(|e| format!("`{s}`: {e}"));
            Ok([parse(x)?, parse(y)?])
        })
        .collect::<Result<Vec<_>, String>>()
        .map(AnchorList)
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Flora")]
struct FloraArgs {
    /// Multiplies every plant density of the biome table [default: 1] [range: 0..=10]
    #[arg(long)]
    flora_density: Option<f64>,
    /// Tree models grown per species, shared by its instances [default: 4] [range: 1..=64]
    #[arg(long)]
    tree_models: Option<u32>,
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
        let el = &self.elevation;
        let elevation = &mut config.elevation;
        set(&mut elevation.fbm.noise, el.noise);
        set(&mut elevation.fbm.noise_scale, el.noise_scale);
        set(&mut elevation.fbm.octaves, el.octaves);
        set(&mut elevation.fbm.gain, el.gain);
        set(&mut elevation.land_centers, el.land_centers);
        if let Some(anchors) = &el.anchors {
            elevation.anchors = anchors.0.clone();
            elevation.layout = orogen_elevation::Layout::Custom;
        }
        set(&mut elevation.layout, el.layout);
        let e = &self.export;
        set(&mut config.export.resolution, e.resolution);
        set(&mut config.export.normalize, e.normalize);
        config.export.save_world |= e.save_world;
        config.export.hillshade |= e.hillshade;
        config.export.glb |= e.glb;
        set(&mut config.export.glb_resolution, e.glb_resolution);
        config.export.preview3d &= !e.no_preview3d;
        set(&mut config.export.preview_width, e.preview_width);
        set(
            &mut config.export.preview_exaggeration,
            e.preview_exaggeration,
        );
        let b = &self.biome;
        let biome = &mut config.biome;
        set(&mut biome.wetness, b.wetness);
        set(&mut biome.water_boost, b.water_boost);
        set(&mut biome.water_decay, b.water_decay);
        set(&mut biome.altitude_drying, b.altitude_drying);
        set(&mut biome.scale_factor, b.moisture_scale);
        set(&mut biome.blur_sigma, b.blur_sigma);
        set(&mut biome.wind, b.wind);
        set(&mut biome.wind_angle, b.wind_angle);
        if b.raw_moisture {
            biome.redistribute = false;
        }
        set(&mut config.flora.density_scale, self.flora.flora_density);
        set(&mut config.flora.models_per_species, self.flora.tree_models);
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

fn dem(command: &DemCommand) -> ExitCode {
    use orogen::dem;
    let result = match command {
        DemCommand::Fill {
            input,
            output,
            epsilon,
        } => dem::fill_file(input, output, *epsilon),
        DemCommand::D8 { input, output } => dem::d8_file(input, output),
        DemCommand::Accumulate { input, output } => dem::accumulate_file(input, output),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(if err.is_invalid_input() { 2 } else { 1 })
        }
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("OROGEN_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(args) => generate(args),
        Command::Dem(command) => return dem(command),
        Command::Render3d(a) => orogen::render3d::Render3d {
            glb: a.glb.clone(),
            out: a.out.clone(),
            samples: a.samples,
            width: a.width,
            height: a.height,
            exaggeration: a.exaggeration,
            blender: a.blender.clone(),
            script: a.script.clone(),
        }
        .run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(if err.is_invalid_input() { 2 } else { 1 })
        }
    }
}
