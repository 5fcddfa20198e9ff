//! The `orogen` command: a thin clap front end over the `orogen` library.
//!
//! The flags that set one parameter each are built from the parameter table
//! ([`orogen::params`]): their names, help, defaults and choices are the table's, and
//! `--FLAG VALUE` is applied as `--set PATH=VALUE`. Only flags that set parameters in their own
//! way (`--size WxH`, `--anchors`, the output switches) are written here.
//!
//! Exit codes: 0 on success, 2 on invalid input, 1 on internal failure. Errors print one line.

mod allocator;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, Args, Parser, Subcommand};
use orogen::params::{self, Param};
use orogen::{Config, Error, Output, Pipeline};

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
    /// Every parameter: config path, default, range, unit and flag.
    Params(ParamsArgs),
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
struct ParamsArgs {
    /// Print the README's table of flags (Markdown).
    #[arg(long, conflicts_with_all = ["json", "presets"])]
    markdown: bool,
    /// Print the README's table of presets, with their pictures and the commands that draw
    /// them (Markdown).
    #[arg(long, conflicts_with = "json")]
    presets: bool,
    /// Print the whole table as JSON (as the playground reads it).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ProfileArgs {
    /// The stage to profile.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(orogen::profile::profile_stages()))]
    stage: String,
    /// A world saved with --save-world; its configuration is used (without it: a fresh world
    /// of the default config).
    #[arg(long)]
    world: Option<PathBuf>,
    /// How many runs [range: 1 ..= 10000]
    #[arg(long, allow_negative_numbers = true, default_value_t = 5)]
    repeat: usize,
    /// Cells of a fresh world (without --world)
    #[arg(long, allow_negative_numbers = true, default_value_t = Config::default().world.cells)]
    cells: usize,
    /// Seed of a fresh world (without --world)
    #[arg(long, allow_negative_numbers = true, default_value_t = Config::default().world.seed)]
    seed: u64,
    /// Preset of a fresh world (without --world; a mesh preset): `--preset eroded` to time the
    /// erosion stage, which is off by default
    #[arg(long, value_enum, conflicts_with = "world")]
    preset: Option<orogen::Preset>,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to bind (loopback by default; anything else exposes the server)
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on; 0 picks a free one
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Allow a non-loopback --host (the playground has no authentication)
    #[arg(long)]
    expose: bool,
}

#[derive(Debug, Args)]
struct Render3dArgs {
    /// The .glb to render (from `orogen generate --glb`).
    #[arg(long, default_value = "out/world.glb")]
    glb: PathBuf,
    /// The PNG to write.
    #[arg(long, default_value = "out/render3d.png")]
    out: PathBuf,
    /// Cycles samples per pixel [range: 1 ..= 4096]
    #[arg(long, allow_negative_numbers = true, default_value_t = 16)]
    samples: u32,
    /// Image width in pixels [range: 16 ..= 8192]
    #[arg(long, allow_negative_numbers = true, default_value_t = 960)]
    width: u32,
    /// Image height in pixels [range: 16 ..= 8192]
    #[arg(long, allow_negative_numbers = true, default_value_t = 540)]
    height: u32,
    /// Vertical exaggeration [range: 1 ..= 50]
    #[arg(long, allow_negative_numbers = true, default_value_t = 4.0)]
    exaggeration: f64,
    /// The Blender executable.
    #[arg(long, default_value = "blender")]
    blender: PathBuf,
    /// A Blender script to run instead of the built-in copy of blender/render.py.
    #[arg(long)]
    script: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ExportCommand {
    /// The saved world (world.npz from --save-world).
    #[arg(long)]
    world: PathBuf,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    export: ExportArgs,
}

/// Where a run writes and how it talks. A run owns its folder's orogen files: what the previous
/// run listed in its world.json and this one does not write is removed; nothing else is touched.
#[derive(Debug, Args)]
struct RunArgs {
    /// Output folder.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Print nothing but errors
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Start from a named preset (`classic` runs the classic raster landscape; the others the
    /// mesh pipeline)
    #[arg(long, value_enum)]
    preset: Option<orogen::Preset>,
    /// Read parameters from a TOML config (flags given too override it)
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the full config of this run as TOML and exit (it reproduces the run)
    #[arg(long)]
    print_config: bool,
    /// Set any parameter by its path in the config, e.g. `--set elevation.fbm.gain=0.4`
    /// (repeatable; applied after the other flags; `orogen params` lists every path)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print a table of wall time per stage and the peak memory
    #[arg(long)]
    timings: bool,
    /// Map size in map units, `W` or `WxH` (world.width, world.height)
    #[arg(long, value_parser = parse_size, allow_hyphen_values = true, help_heading = "World")]
    size: Option<(f64, f64)>,
    /// Custom anchors in map coordinates (x right, y down), `x,y;x,y`; sets --layout custom
    /// (elevation.anchors)
    #[arg(long, value_parser = parse_anchors, allow_hyphen_values = true, help_heading = "Elevation")]
    anchors: Option<AnchorList>,
    /// Keep raw moisture instead of redistributing land moisture by rank
    /// (biome.redistribute = false)
    #[arg(long, help_heading = "Moisture and biomes")]
    raw_moisture: bool,
    #[command(flatten)]
    export: ExportArgs,
}

/// The export switches that are not one parameter each.
#[derive(Debug, Args)]
#[command(next_help_heading = "Export")]
struct ExportArgs {
    /// The files to write, comma-separated: default (what the preset writes), all, or any of
    /// colormap, biomes, mesh, heightmap, r16, exr, rivers, splat, preview3d, glb, geojson, npz
    /// (the mesh pipeline) or landscape, npz (classic); world.json is always written; the
    /// switches below add to the list (export.outputs)
    #[arg(long, value_parser = parse_outputs, value_name = "LIST")]
    outputs: Option<OutputList>,
    /// Also write the whole world as world.npz (adds npz to --outputs)
    #[arg(long)]
    save_world: bool,
    /// Also write world.geojson (adds geojson to --outputs)
    #[arg(long)]
    geojson: bool,
    /// Also write world.glb: terrain, sea and trees as glTF 2.0 binary (adds glb to --outputs)
    #[arg(long)]
    glb: bool,
    /// Do not write preview3d.png (removes it from --outputs)
    #[arg(long)]
    no_preview3d: bool,
}

/// `--outputs` names (a newtype, so clap takes the whole list as one value).
#[derive(Clone, Debug)]
struct OutputList(Vec<Output>);

fn parse_outputs(text: &str) -> Result<OutputList, String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            Output::parse(name).ok_or_else(|| {
                let names: Vec<&str> = Output::CHOICES.iter().map(|(o, _)| o.name()).collect();
                format!("`{name}`: expected {}", names.join(", "))
            })
        })
        .collect::<Result<_, _>>()
        .map(OutputList)
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

/// A flag of the parameter table given on the command line, with its value.
struct Given<'a> {
    param: &'a Param,
    flag: &'static str,
    value: String,
}

/// The parameter flags (`--water-level`, ...) of the table: `all` for `generate`, the export
/// section only for `export`.
fn table_args(table: &[Param], export_only: bool) -> Vec<clap::Arg> {
    let mut args = Vec::new();
    for &(path, flag) in params::FLAGS {
        let param = table
            .iter()
            .find(|p| p.path == path)
            .expect("every flag names a row");
        if export_only && param.section() != "export" {
            continue;
        }
        let heading = params::SECTIONS
            .iter()
            .find(|(s, _)| *s == param.section())
            .map_or("Parameters", |(_, h)| *h);
        let name = flag.trim_start_matches("--");
        // The value's name is the config path (`--noise <elevation.fbm.noise>`).
        let mut arg = clap::Arg::new(path)
            .long(name)
            .help(param.help())
            .help_heading(heading);
        arg = match param.choices {
            Some(choices) => arg.value_parser(clap::builder::PossibleValuesParser::new(
                choices.iter().copied(),
            )),
            None => arg.allow_hyphen_values(true),
        };
        args.push(arg);
    }
    args
}

/// The table flags given, in the table's order.
fn given<'a>(table: &'a [Param], matches: &ArgMatches) -> Vec<Given<'a>> {
    params::FLAGS
        .iter()
        .filter_map(|&(path, flag)| {
            let value = matches.try_get_one::<String>(path).ok().flatten()?;
            let param = table.iter().find(|p| p.path == path)?;
            Some(Given {
                param,
                flag,
                value: value.clone(),
            })
        })
        .collect()
}

/// Sets each given flag's parameter, as `--set` would, the error naming the flag.
fn apply_given(config: &mut Config, given: &[Given<'_>]) -> Result<(), Error> {
    for g in given {
        config
            .set_path(&g.param.path, &g.value)
            .map_err(|e| match e {
                Error::Input { message, .. } => Error::Input {
                    what: g.flag.to_owned(),
                    message,
                },
                other => other,
            })?;
    }
    Ok(())
}

/// Refuses a flag that does not apply to the pipeline or layout the run ends up with.
fn check_applies(config: &Config, flags: &[(&str, &Param)]) -> Result<(), Error> {
    let pipeline = config.pipeline();
    let preset = config.preset.name();
    for &(flag, param) in flags {
        if !param.applies_to(pipeline) {
            let other = match pipeline {
                Pipeline::Mesh => "the classic pipeline (--preset classic)",
                Pipeline::Classic => "the mesh pipeline (every preset but classic)",
            };
            return Err(Error::Input {
                what: flag.to_owned(),
                message: format!(
                    "applies to {other}, not to preset {preset}, which runs the {} pipeline",
                    pipeline.name()
                ),
            });
        }
    }
    let layout = config.elevation.layout.name();
    for &(flag, param) in flags {
        let needs = match param.path.as_str() {
            "elevation.land_centers" => "random",
            "elevation.anchors" => "custom",
            _ => continue,
        };
        if layout != needs {
            return Err(Error::Input {
                what: flag.to_owned(),
                message: format!("applies to --layout {needs}, not to --layout {layout}"),
            });
        }
    }
    Ok(())
}

fn row<'a>(table: &'a [Param], path: &str) -> &'a Param {
    table
        .iter()
        .find(|p| p.path == path)
        .expect("a row of the table")
}

impl ExportArgs {
    /// Overrides the export outputs given on the command line (every flag here applies to
    /// both pipelines; `--hillshade` is a table flag).
    fn apply(&self, config: &mut Config) -> Result<(), Error> {
        if let Some(list) = &self.outputs {
            config.export.outputs = list.0.clone();
        }
        for (given, output) in [
            (self.save_world, Output::Npz),
            (self.geojson, Output::Geojson),
            (self.glb, Output::Glb),
        ] {
            if given && !config.export.outputs.contains(&output) {
                config.export.outputs.push(output);
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

impl GenerateArgs {
    /// The config of this run: the file's (or the preset's, or the defaults), overridden by
    /// the flags given, then by `--set`.
    fn config(&self, table: &[Param], matches: &ArgMatches) -> Result<Config, Error> {
        if self.config.is_some() && self.preset.is_some() {
            return Err(Error::Input {
                what: "--preset".into(),
                message: "give either --config or --preset (a printed config holds the preset's \
                          values)"
                    .into(),
            });
        }
        let mut config = match &self.config {
            Some(path) => Config::from_file(path)?,
            None => self.preset.unwrap_or_default().config(),
        };
        let mut flags: Vec<(&str, &Param)> = Vec::new();
        if let Some((width, height)) = self.size {
            config.world.width = width;
            config.world.height = height;
        }
        if let Some(anchors) = &self.anchors {
            config.elevation.anchors = anchors.0.clone();
            config.elevation.layout = orogen_elevation::Layout::Custom;
            flags.push(("--anchors", row(table, "elevation.anchors")));
        }
        if self.raw_moisture {
            config.biome.redistribute = false;
            flags.push(("--raw-moisture", row(table, "biome.redistribute")));
        }
        let given = given(table, matches);
        apply_given(&mut config, &given)?;
        flags.extend(given.iter().map(|g| (g.flag, g.param)));
        self.export.apply(&mut config)?;
        for assignment in &self.set {
            let (key, value) = assignment.split_once('=').ok_or_else(|| Error::Input {
                what: format!("--set {assignment}"),
                message: "expected KEY=VALUE".into(),
            })?;
            config.set_path(key.trim(), value.trim())?;
        }
        check_applies(&config, &flags)?;
        Ok(config)
    }
}

/// Prints what a run wrote and removed.
fn report(quiet: bool, out: &std::path::Path, written: &orogen::Written) {
    if quiet {
        return;
    }
    println!(
        "wrote {} files to {}: {}",
        written.files.len(),
        out.display(),
        written.files.join(", ")
    );
    if !written.removed.is_empty() {
        println!(
            "removed {} files of the previous run: {}",
            written.removed.len(),
            written.removed.join(", ")
        );
    }
}

fn generate(args: &GenerateArgs, matches: &ArgMatches) -> Result<(), Error> {
    let table = params::table();
    let config = args.config(&table, matches)?;
    config.validate()?;
    if args.print_config {
        print!("{}", config.to_toml());
        return Ok(());
    }
    // The stages, then the export; the position counts the steps done.
    let stages = config.pipeline().stages().len();
    let bar = progress_bar(args.run.quiet, stages + 1);
    let mut done = 0;
    let mut on_stage = |stage| {
        if stage == "export" {
            // The last step, whichever stages ran before it (flora runs beside it).
            done = stages as u64;
        }
        bar.set_position(done);
        bar.set_message(stage);
        done += 1;
    };
    // On one of rayon's threads rather than this one: with glibc's own arenas (a user's own
    // GLIBC_TUNABLES for malloc; `allocator` sets one arena otherwise) the serial parts then
    // allocate where the parallel ones do, and glibc keeps freed memory in two per-thread
    // arenas instead of three (at 1,000,000 cells the peak falls by about 30 MiB).
    let (run, ()) = rayon::join(
        || orogen::generate_run(&config, &args.run.out, &mut on_stage),
        || (),
    );
    let (_, written, timings) = run?;
    bar.finish_and_clear();
    report(args.run.quiet, &args.run.out, &written);
    if args.timings {
        println!("{:<12} {:>10}", "stage", "ms");
        for (name, d) in &timings.stages {
            println!("{name:<12} {:>10.1}", d.as_secs_f64() * 1e3);
        }
        for (name, d) in &timings.beside_export {
            println!(
                "{name:<12} {:>10.1} (beside the export)",
                d.as_secs_f64() * 1e3
            );
        }
        println!(
            "{:<12} {:>10.1}",
            "total",
            timings.total().as_secs_f64() * 1e3
        );
        if let Some(kib) = peak_memory_kib() {
            println!("peak memory  {:>7.1} MiB", kib as f64 / 1024.0);
        }
    }
    Ok(())
}

fn export(args: &ExportCommand, matches: &ArgMatches) -> Result<(), Error> {
    let table = params::table();
    let (world, mut config) = orogen::read_world(&args.world)?;
    let given = given(&table, matches);
    apply_given(&mut config, &given)?;
    let flags: Vec<(&str, &Param)> = given.iter().map(|g| (g.flag, g.param)).collect();
    args.export.apply(&mut config)?;
    check_applies(&config, &flags)?;
    config.validate()?;
    let written = orogen::write_run(&world, &config, &args.run.out)?;
    report(args.run.quiet, &args.run.out, &written);
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
        Some(path) => {
            let (world, config) = orogen::read_world(path)?;
            if config.pipeline() != Pipeline::Mesh {
                return Err(Error::Input {
                    what: format!("world file {}", path.display()),
                    message: format!(
                        "made by the {} pipeline (preset {}); orogen profile times the mesh \
                         pipeline's stages",
                        config.pipeline().name(),
                        config.preset.name()
                    ),
                });
            }
            if args.stage == "erosion"
                && config.erosion.mode != orogen_hydrology::erosion::Mode::Off
            {
                eprintln!(
                    "warning: {} was saved after its erosion stage: erosion now erodes the \
                     eroded surface again (fewer pits than the stage meets in a run); for the \
                     stage as a run has it: orogen profile erosion --preset eroded --cells N",
                    path.display()
                );
            }
            (world, config)
        }
        None => {
            let preset = args.preset.unwrap_or_default();
            if preset.pipeline() != Pipeline::Mesh {
                return Err(Error::Input {
                    what: "--preset".into(),
                    message: format!(
                        "{} runs the classic pipeline; orogen profile times the mesh \
                         pipeline's stages",
                        preset.name()
                    ),
                });
            }
            let mut config = preset.config();
            config.world.cells = args.cells;
            config.world.seed = args.seed;
            if args.stage == "erosion"
                && config.erosion.mode == orogen_hydrology::erosion::Mode::Off
            {
                eprintln!(
                    "warning: erosion is off in preset {}, so the stage does nothing; \
                     --preset eroded turns it on",
                    preset.name()
                );
            }
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

fn print_params(args: &ParamsArgs) {
    if args.markdown {
        print!("{}", params::markdown());
    } else if args.presets {
        print!("{}", orogen::presets::markdown());
    } else if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&params::table_json()).expect("JSON serialises")
        );
    } else {
        print!("{}", params::text());
    }
}

/// The process's peak resident memory (VmHWM), where the OS tells it.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A clap usage error as one line: its message and tips, without the usage block.
fn one_line_usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut line = String::new();
    for part in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
    {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    format!("{line} (see --help)")
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("OROGEN_LOG"))
        .with_writer(std::io::stderr)
        .init();
    std::panic::set_hook(Box::new(report_panic));
    let table = params::table();
    let command = <Cli as clap::CommandFactory>::command()
        .mut_subcommand("generate", |c| c.args(table_args(&table, false)))
        .mut_subcommand("export", |c| c.args(table_args(&table, true)));
    let matches = match command.try_get_matches() {
        Ok(m) => m,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("{}", one_line_usage_error(&e));
            return ExitCode::from(2);
        }
    };
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => {
            eprintln!("{}", one_line_usage_error(&e));
            return ExitCode::from(2);
        }
    };
    let sub = matches
        .subcommand()
        .map(|(_, m)| m.clone())
        .unwrap_or_default();
    // A batch run keeps the memory it frees (before any thread starts); the playground's
    // server runs for hours and returns it.
    if !matches!(cli.command, Command::Serve(_)) {
        let kept = allocator::keep_memory();
        tracing::debug!("allocator: {kept:?}");
    }
    // A panic is an internal failure: one line (report_panic), exit code 1.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&cli.command, &sub)))
        .unwrap_or(ExitCode::from(1))
}

/// Runs one command; its error is one line, exit code 2 for invalid input, 1 otherwise.
fn run(command: &Command, matches: &ArgMatches) -> ExitCode {
    let result = match command {
        Command::Generate(args) => generate(args, matches),
        Command::Export(args) => export(args, matches),
        Command::Params(args) => {
            print_params(args);
            Ok(())
        }
        Command::Dem(command) => return command.run(),
        Command::Profile(args) => profile(args),
        Command::Serve(args) => {
            orogen_playground::run(&args.host, args.port, args.expose).map_err(|err| Error::Tool {
                tool: format!("orogen serve on {}:{}", args.host, args.port),
                message: err.to_string(),
            })
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
    let message = orogen::panic_message(info).unwrap_or("a panic");
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
