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
    Generate(Box<GenerateArgs>),
    /// Re-export a world saved with --save-world (world.npz): the same files as the run that
    /// made it, or others with the export flags given here.
    Export(ExportCommand),
    /// Hydrology on a DEM you bring: 2-D .npy (elevations, or int8 D8 receivers), 8/16-bit
    /// grayscale PNG or one-band GeoTIFF in; .npy, PNG or GeoTIFF out, by the output's extension.
    #[command(subcommand)]
    Dem(orogen::dem::cli::DemCommand),
    /// Profile one stage on its own: on a saved world (`--world FILE`) or a fresh one, run
    /// `--repeat K` times; prints min, median and max wall time.
    Profile(ProfileArgs),
    /// The playground: tune a world live in the browser (a local web server).
    Serve(ServeArgs),
    /// Render world.glb with Blender (Cycles, CPU) into a PNG; needs `blender` on PATH.
    Render3d(Render3dArgs),
}

#[derive(Debug, Args)]
struct ProfileArgs {
    /// The stage: mesh, elevation, hydrology, biome, flora (the pipeline's stages) or export.
    stage: String,
    /// A world saved with --save-world; its configuration is used unless flags override it
    /// [default: a fresh world of the default config]
    #[arg(long)]
    world: Option<PathBuf>,
    /// How many runs [range: 1..=10000]
    #[arg(long, allow_negative_numbers = true, default_value_t = 5)]
    repeat: usize,
    /// Cells of a fresh world (without --world) [default: 50000] [range: 3..=8000000]
    #[arg(long, allow_negative_numbers = true)]
    cells: Option<usize>,
    /// Seed of a fresh world (without --world) [default: 123] [range: 0..=9223372036854775807]
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to bind (loopback by default; anything else exposes the server)
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on; 0 picks a free one [range: 0..=65535]
    #[arg(long, default_value_t = 8080)]
    port: u16,
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
    #[arg(long, allow_negative_numbers = true, default_value_t = 16)]
    samples: u32,
    /// Image width in pixels [range: 16..=8192]
    #[arg(long, allow_negative_numbers = true, default_value_t = 960)]
    width: u32,
    /// Image height in pixels [range: 16..=8192]
    #[arg(long, allow_negative_numbers = true, default_value_t = 540)]
    height: u32,
    /// Vertical exaggeration [range: 1..=50]
    #[arg(long, allow_negative_numbers = true, default_value_t = 4.0)]
    exaggeration: f64,
    /// The Blender executable.
    #[arg(long, default_value = "blender")]
    blender: PathBuf,
    /// A Blender script to run instead of the built-in copy of blender/render.py [default: the
    /// built-in copy]
    #[arg(long)]
    script: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ExportCommand {
    /// The saved world (world.npz from --save-world).
    #[arg(long)]
    world: PathBuf,
    /// Output folder.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Print nothing but errors [default: off]
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    export: ExportArgs,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// Output folder.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Read parameters from a TOML config (flags given too override it) [default: none: the
    /// defaults, or --preset's]
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the full config of this run as TOML and exit (it reproduces the run) [default: off]
    #[arg(long)]
    print_config: bool,
    /// Set any parameter of any stage by its path in the config, e.g.
    /// `--set elevation.fbm.gain=0.4` (repeatable; applied after the other flags).
    /// `orogen generate --help` lists every path with its default [default: none]
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print a table of wall time per stage and the peak memory [default: off]
    #[arg(long)]
    timings: bool,
    /// Print nothing but errors [default: off]
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
    rivers: RiverArgs,
    #[command(flatten)]
    biome: BiomeArgs,
    #[command(flatten)]
    flora: FloraArgs,
    #[command(flatten)]
    classic: ClassicArgs,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Classic landscape")]
struct ClassicArgs {
    /// Start from a named preset: default, reference (the reference program's defaults),
    /// classic (the raster landscape of the second article: heightmap, rivers, trees,
    /// landscape.png), archipelago, continent [default: default]
    #[arg(long, value_parser = parse_preset)]
    preset: Option<String>,
    /// Classic heightmap source: diamond-square or fbm [default: diamond-square]
    #[arg(long, value_parser = parse_classic_source)]
    classic_source: Option<orogen_elevation::ClassicSource>,
    /// Classic heightmap side, 2^n + 1 [default: 257] [range: 3..=8193]
    #[arg(long, allow_negative_numbers = true)]
    classic_size: Option<usize>,
    /// Diamond-square roughness, halved each level [default: 0.65] [range: 0..=10]
    #[arg(long, allow_negative_numbers = true)]
    roughness: Option<f32>,
    /// Number of classic rivers [default: 6] [range: 0..=100000]
    #[arg(long, allow_negative_numbers = true)]
    rivers: Option<usize>,
    /// Minimum distance between classic trees, pixels of a 1024 canvas [default: 18] [range: 1..=10000]
    #[arg(long, allow_negative_numbers = true)]
    tree_spacing: Option<f64>,
}

fn parse_preset(text: &str) -> Result<String, String> {
    orogen::presets::preset(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

fn parse_classic_source(text: &str) -> Result<orogen_elevation::ClassicSource, String> {
    match text {
        "diamond-square" => Ok(orogen_elevation::ClassicSource::DiamondSquare),
        "fbm" => Ok(orogen_elevation::ClassicSource::Fbm),
        other => Err(format!("`{other}`: expected diamond-square or fbm")),
    }
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Mesh")]
struct MeshArgs {
    /// Lloyd relaxation iterations [default: 3] [range: 0..=100]
    #[arg(long, allow_negative_numbers = true)]
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
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Number of cells (regions) [default: 50000] [range: 3..=8000000]
    #[arg(long, allow_negative_numbers = true)]
    cells: Option<usize>,
    /// Map size in map units, `W` or `WxH` [default: 1x1] [range: finite > 0, aspect 1e-4..=1e4]
    #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
    size: Option<(f64, f64)>,
    /// Water level on the base-height scale [default: 0.35] [range: 0..=1]
    #[arg(long, allow_negative_numbers = true)]
    water_level: Option<f64>,
    /// Map width in metres [default: 100000] [range: 1..=1e8]
    #[arg(long, allow_negative_numbers = true)]
    world_size: Option<f64>,
    /// Metres at the highest land [default: 2000] [range: 1..=1e5]
    #[arg(long, allow_negative_numbers = true)]
    max_height: Option<f64>,
    /// Metres below sea level at the deepest water [default: 1000] [range: 1..=1e5]
    #[arg(long, allow_negative_numbers = true)]
    max_depth: Option<f64>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Export")]
struct ExportArgs {
    /// Image width in pixels; height follows the map's aspect [default: 1024] [range: 1..=32768]
    #[arg(long, allow_negative_numbers = true)]
    resolution: Option<usize>,
    /// The files to write, comma-separated: default (what the preset writes), all, or any of
    /// colormap, biomes, mesh, heightmap, r16, exr, rivers, splat, preview3d, glb, geojson, npz
    /// (the mesh preset) or landscape, npz (classic); world.json is always written; the flags
    /// below add to the list [default: default]
    #[arg(long, value_parser = parse_outputs, value_name = "LIST")]
    outputs: Option<OutputList>,
    /// 16-bit height mapping: fixed ([-max depth, max height]) or minmax [default: fixed]
    #[arg(long, value_parser = parse_normalize)]
    normalize: Option<Normalize>,
    /// Also write the whole world as world.npz (the same as adding npz to --outputs) [default: off]
    #[arg(long)]
    save_world: bool,
    /// Shade colormap.png by slope (sun north-west, 45 degrees up) [default: off]
    #[arg(long)]
    hillshade: bool,
    /// Heightmap for an engine: none (any size, pixel centres), unity (2^n+1: 33..=4097),
    /// unreal (127, 253, 505, 1009, 2017, 4033, 8129) or godot (EXR, any size); engines sample
    /// vertices and need a square map [default: none]
    #[arg(long, value_parser = parse_engine)]
    engine: Option<orogen_export::engine::Engine>,
    /// Heightmap side in samples; every heightmap-sized raster follows it [default: 1025 unity,
    /// 1009 unreal, else --resolution] [range: the engine's sizes, else 2..=32768]
    #[arg(long, allow_negative_numbers = true)]
    heightmap_size: Option<usize>,
    /// Also write world.geojson (land, lakes, biomes, rivers, flora; RFC 7946; adds geojson to
    /// --outputs) [default: off]
    #[arg(long)]
    geojson: bool,
    /// Also write world.glb: terrain, sea and trees as glTF 2.0 binary (Y up, metres; adds glb
    /// to --outputs) [default: off]
    #[arg(long)]
    glb: bool,
    /// Terrain vertices along the width in world.glb [default: 257] [range: 2..=4097]
    #[arg(long, allow_negative_numbers = true)]
    glb_resolution: Option<usize>,
    /// Do not write preview3d.png (a perspective render of the world; removes it from
    /// --outputs) [default: written]
    #[arg(long)]
    no_preview3d: bool,
    /// Width of preview3d.png in pixels; height is 9/16 of it [default: 1280] [range: 64..=8192]
    #[arg(long, allow_negative_numbers = true)]
    preview_width: Option<usize>,
    /// Vertical exaggeration of preview3d.png [default: 4] [range: 1..=50]
    #[arg(long, allow_negative_numbers = true)]
    preview_exaggeration: Option<f64>,
}

fn parse_engine(text: &str) -> Result<orogen_export::engine::Engine, String> {
    orogen_export::engine::Engine::parse(text).map_err(|e| e.to_string())
}

/// `--outputs` names (a newtype, so clap takes the whole list as one value).
#[derive(Clone, Debug)]
struct OutputList(Vec<orogen::Output>);

fn parse_outputs(text: &str) -> Result<OutputList, String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            orogen::Output::parse(name).ok_or_else(|| {
                let names: Vec<&str> = orogen::Output::CHOICES
                    .iter()
                    .map(|(o, _)| o.name())
                    .collect();
                format!("`{name}`: expected {}", names.join(", "))
            })
        })
        .collect::<Result<_, _>>()
        .map(OutputList)
}

impl ExportArgs {
    /// Overrides the export parameters given on the command line.
    fn apply(&self, config: &mut Config) -> Result<(), Error> {
        use orogen::Output;
        let export = &mut config.export;
        set(&mut export.resolution, self.resolution);
        if let Some(list) = &self.outputs {
            export.outputs = list.0.clone();
        }
        set(&mut export.normalize, self.normalize);
        export.hillshade |= self.hillshade;
        set(&mut export.engine, self.engine);
        set(&mut export.heightmap_size, self.heightmap_size);
        set(&mut export.glb_resolution, self.glb_resolution);
        set(&mut export.preview_width, self.preview_width);
        set(&mut export.preview_exaggeration, self.preview_exaggeration);
        for (given, output) in [
            (self.save_world, Output::Npz),
            (self.geojson, Output::Geojson),
            (self.glb, Output::Glb),
        ] {
            if given && !export.outputs.contains(&output) {
                export.outputs.push(output);
            }
        }
        if self.no_preview3d {
            // `default` and `all` include it: list the rest by name.
            let mut chosen = config.outputs()?;
            chosen.remove(&Output::Preview3d);
            config.export.outputs = chosen.into_iter().collect();
        }
        Ok(())
    }
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Moisture and biomes")]
struct BiomeArgs {
    /// Bend land moisture: above 0 wetter, below 0 drier [default: 0] [range: -1..=1]
    #[arg(long, allow_hyphen_values = true)]
    wetness: Option<f32>,
    /// Moisture added at the water's edge (ocean, lakes, rivers) [default: 0.15] [range: 0..=1]
    #[arg(long, allow_hyphen_values = true)]
    water_boost: Option<f32>,
    /// Decay length of the water boost, as a fraction of the map width [default: 0.03] [range: 0.0001..=1]
    #[arg(long, allow_hyphen_values = true)]
    water_decay: Option<f64>,
    /// Drier with altitude: moisture x (1 - k elevation) below the snow caps [default: 0.325] [range: 0..=1]
    #[arg(long, allow_hyphen_values = true)]
    altitude_drying: Option<f32>,
    /// Moisture noise scale over the elevation noise scale [default: 1.5] [range: 0.01..=100]
    #[arg(long, allow_hyphen_values = true)]
    moisture_scale: Option<f64>,
    /// Keep raw moisture instead of redistributing land moisture by rank [default: off]
    #[arg(long)]
    raw_moisture: bool,
    /// Weight of wind-carried rain with rain shadows; 0 turns it off [default: 0] [range: 0..=4]
    #[arg(long, allow_hyphen_values = true)]
    wind: Option<f32>,
    /// Direction the wind blows towards, degrees (0 east, 90 south) [default: 0] [range: -360..=360]
    #[arg(long, allow_hyphen_values = true)]
    wind_angle: Option<f64>,
    /// Gaussian blur sigma of the biome colour table, in table steps [default: 8] [range: 0..=64]
    #[arg(long, allow_hyphen_values = true)]
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
    #[arg(long, allow_negative_numbers = true)]
    octaves: Option<u32>,
    /// fBm gain (amplitude factor per octave; 0.4 gives smoother land) [default: 0.5] [range: 0..=1]
    #[arg(long, allow_negative_numbers = true)]
    gain: Option<f64>,
    /// Random land anchors for --layout random [default: 5] [range: 1..=1000]
    #[arg(long, allow_negative_numbers = true)]
    land_centers: Option<usize>,
    /// Anchor layout: random, four-corners, centre-island, two-continents-ew,
    /// two-continents-ns, archipelago-ring, cross, custom [default: random; custom with --anchors]
    #[arg(long, value_parser = parse_layout)]
    layout: Option<orogen_elevation::Layout>,
    /// Custom anchors in map coordinates (x right, y down), `x,y;x,y` [default: none]
    /// [range: inside the map]
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
    #[arg(long, allow_negative_numbers = true)]
    flora_density: Option<f64>,
    /// Tree models grown per species, shared by its instances [default: 4] [range: 1..=64]
    #[arg(long, allow_negative_numbers = true)]
    tree_models: Option<u32>,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Rivers")]
struct RiverArgs {
    /// Depressions: fill (lakes, flat land) or carve (lower the path out) [default: fill]
    #[arg(long, value_parser = parse_depressions)]
    depressions: Option<Depressions>,
    /// Fewest regions of a flooded lake [default: 10] [range: 1..=100000000]
    #[arg(long, allow_negative_numbers = true)]
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
            None => match &self.classic.preset {
                Some(name) => orogen::presets::preset(name)?,
                None => Config::default(),
            },
        };
        if self.config.is_some() && self.classic.preset.is_some() {
            return Err(Error::Config {
                path: "--preset".into(),
                message:
                    "give either --config or --preset (a printed config holds the preset's values)"
                        .into(),
            });
        }
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
        self.export.apply(&mut config)?;
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
        let c = &self.classic;
        let classic = &mut config.classic;
        set(&mut classic.elevation.source, c.classic_source);
        set(&mut classic.elevation.size, c.classic_size);
        set(&mut classic.elevation.roughness, c.roughness);
        set(&mut classic.rivers.count, c.rivers);
        set(&mut classic.trees.spacing_px, c.tree_spacing);
        for assignment in &self.set {
            let (key, value) = assignment.split_once('=').ok_or_else(|| Error::Config {
                path: format!("--set {assignment}"),
                message: "expected KEY=VALUE".into(),
            })?;
            config.set_path(key.trim(), value.trim())?;
        }
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
    // The stages, then the export; the position counts the steps done.
    let stages = config.preset.stages().len();
    let bar = progress_bar(args.quiet, stages + 1);
    let mut done = 0;
    let (world, timings) = orogen::generate_observed(&config, &mut |stage| {
        bar.set_position(done);
        bar.set_message(stage);
        done += 1;
    })?;
    bar.set_position(stages as u64);
    bar.set_message("export");
    let start = std::time::Instant::now();
    let files = orogen::write_outputs(&world, &config, &args.out)?;
    let export = start.elapsed();
    bar.finish_and_clear();
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
        if let Some(kib) = peak_memory_kib() {
            println!("peak memory  {:>7.1} MiB", kib as f64 / 1024.0);
        }
    }
    Ok(())
}

fn export(args: &ExportCommand) -> Result<(), Error> {
    let (world, mut config) = orogen::read_world(&args.world)?;
    args.export.apply(&mut config)?;
    config.validate()?;
    let files = orogen::write_outputs(&world, &config, &args.out)?;
    if !args.quiet {
        println!(
            "wrote {} files to {}: {}",
            files.len(),
            args.out.display(),
            files.join(", ")
        );
    }
    Ok(())
}

/// A bar over `steps` steps on a terminal; hidden when stderr is piped or with `--quiet`.
fn progress_bar(quiet: bool, steps: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(steps as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{pos}/{len}] {msg} {elapsed}")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(100));
    bar
}

fn profile(args: &ProfileArgs) -> Result<(), Error> {
    use orogen::profile;
    let (world, config) = match &args.world {
        Some(path) => orogen::read_world(path)?,
        None => {
            let mut config = Config::default();
            set(&mut config.world.cells, args.cells);
            set(&mut config.world.seed, args.seed);
            (profile::world_before(&args.stage, &config)?, config)
        }
    };
    let p = profile::profile_stage(&args.stage, &world, &config, args.repeat)?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "{:<10} {:>6} {:>10} {:>10} {:>10}",
        "stage", "runs", "min ms", "median ms", "max ms"
    );
    println!(
        "{:<10} {:>6} {:>10.2} {:>10.2} {:>10.2}",
        p.stage,
        p.runs.len(),
        ms(p.min()),
        ms(p.median()),
        ms(p.max())
    );
    Ok(())
}

/// The process's peak resident memory (VmHWM), where the OS tells it.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Every parameter path with its default, for `orogen generate --help`.
fn parameter_help() -> String {
    let mut text =
        String::from("Every parameter (set any with --set KEY=VALUE; defaults shown):\n");
    for (key, value) in Config::default().parameter_list() {
        let value = if value.chars().count() > 60 {
            format!("{}...", value.chars().take(57).collect::<String>())
        } else {
            value
        };
        text.push_str(&format!("  {key} = {value}\n"));
    }
    text
}

/// A clap usage error as one line: its message and tips, without the usage block.
fn one_line_usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect();
    format!("{} (see --help)", parts.join("; "))
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("OROGEN_LOG"))
        .with_writer(std::io::stderr)
        .init();
    std::panic::set_hook(Box::new(report_panic));
    let command = <Cli as clap::CommandFactory>::command()
        .mut_subcommand("generate", |c| c.after_long_help(parameter_help()));
    let cli = match command
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("{}", one_line_usage_error(&e));
            return ExitCode::from(2);
        }
    };
    // A panic is an internal failure: one line (report_panic), exit code 1.
    std::panic::catch_unwind(|| run(&cli.command)).unwrap_or(ExitCode::from(1))
}

/// Runs one command; its error is one line, exit code 2 for invalid input, 1 otherwise.
fn run(command: &Command) -> ExitCode {
    let result = match command {
        Command::Generate(args) => generate(args),
        Command::Export(args) => export(args),
        Command::Dem(command) => return command.run(),
        Command::Profile(args) => profile(args),
        Command::Serve(args) => {
            return match orogen::serve::run(&args.host, args.port) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("error: orogen serve on {}:{}: {err}", args.host, args.port);
                    ExitCode::from(1)
                }
            };
        }
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

/// Prints a panic as one line (a backtrace too when `RUST_BACKTRACE` asks for one).
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let message = info
        .payload()
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    let at = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let backtrace = std::backtrace::Backtrace::capture();
    if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
        eprintln!("error: internal failure (a bug in orogen): {message}{at}\n{backtrace}");
    } else {
        eprintln!(
            "error: internal failure (a bug in orogen): {message}{at} (RUST_BACKTRACE=1 shows where)"
        );
    }
}
