use thiserror::Error;

/// Everything the pipeline can fail with. Invalid input is told apart from internal failures,
/// so the command can exit with 2 or 1.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter out of range, caught before any work.
    #[error("invalid parameter: {0}")]
    Param(#[from] orogen_world::params::ParamError),
    /// The run would need more memory than the machine has; refused before allocating.
    #[error(
        "the request needs about {need_gib:.1} GiB of memory but this machine has {have_gib:.1} GiB available: lower `cells` or `resolution`"
    )]
    Memory {
        /// The run's memory estimate, in GiB.
        need_gib: f64,
        /// The memory available, in GiB.
        have_gib: f64,
    },
    /// A configuration file that cannot be read or parsed.
    #[error("config file {path}: {message}")]
    Config {
        /// The config file as the user named it.
        path: String,
        /// The read error, or the TOML error with its line.
        message: String,
    },
    /// Something else the user gave that cannot be used: a flag's value, a `--set`, a world
    /// file; `what` names it as the user gave it (`world file nosuch.npz`, `--cells`).
    #[error("{what}: {message}")]
    Input {
        /// The input as the user gave it.
        what: String,
        /// What is wrong with it.
        message: String,
    },
    /// A world file or layer problem.
    #[error(transparent)]
    World(#[from] orogen_world::WorldError),
    /// The hydrology stage on the mesh failed.
    #[error("hydrology: {0}")]
    Rivers(#[from] orogen_hydrology::graph::Error),
    /// The biome stage failed.
    #[error("biome: {0}")]
    Biome(#[from] orogen_biome::Error),
    /// The mesh stage failed.
    #[error("mesh: {0}")]
    Mesh(#[from] orogen_mesh::MeshError),
    /// The elevation stage failed.
    #[error("elevation: {0}")]
    Elevation(#[from] orogen_elevation::Error),
    /// The hydrology stage failed.
    #[error("hydrology: {0}")]
    Hydrology(#[from] orogen_hydrology::Error),
    /// The flora stage failed.
    #[error(transparent)]
    Flora(#[from] orogen_flora::Error),
    /// Writing an output failed.
    #[error(transparent)]
    Export(#[from] orogen_export::ExportError),
    /// An external tool (Blender) is missing or failed.
    #[error("{tool}: {message}")]
    Tool {
        /// The tool's executable, as configured.
        tool: String,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// True when the user's input was at fault (exit code 2), false for internal failures (1).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Param(_) | Error::Memory { .. } | Error::Config { .. } | Error::Input { .. } => {
                true
            }
            Error::World(e) => matches!(
                e,
                orogen_world::WorldError::BadArray { .. } | orogen_world::WorldError::Npz(_)
            ),
            Error::Export(e) => matches!(e, orogen_export::ExportError::Param(_)),
            Error::Rivers(e) => matches!(e, orogen_hydrology::graph::Error::Param(_)),
            Error::Biome(e) => matches!(e, orogen_biome::Error::Param(_)),
            Error::Mesh(e) => matches!(e, orogen_mesh::MeshError::Param(_)),
            Error::Elevation(e) => matches!(e, orogen_elevation::Error::Param(_)),
            Error::Hydrology(e) => matches!(e, orogen_hydrology::Error::Param(_)),
            Error::Flora(e) => matches!(e, orogen_flora::Error::Param(_)),
            Error::Tool { .. } => false,
        }
    }
}

/// An I/O error as the user reads it: `not found` rather than the OS's wording.
pub(crate) fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "not found".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// The message a panic was raised with (`panic!`'s text), when it has one.
pub fn panic_message<'a>(info: &'a std::panic::PanicHookInfo<'_>) -> Option<&'a str> {
    let payload = info.payload();
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}
