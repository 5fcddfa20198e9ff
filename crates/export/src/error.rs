use std::path::PathBuf;

use thiserror::Error;

/// What can go wrong while exporting.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A file could not be written (the final name is untouched).
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder being written, under its final name.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// An encoder failed.
    #[error("cannot encode {what}: {message}")]
    Encode {
        /// What was being encoded: a format (`png`, `npy`), a file name or an output
        /// (`heightmap`).
        what: String,
        /// Why it failed (the encoder's message).
        message: String,
    },
    /// The world lacks what an output needs.
    #[error(transparent)]
    World(#[from] orogen_world::WorldError),
    /// An export parameter is out of range.
    #[error(transparent)]
    Param(#[from] orogen_world::params::ParamError),
}

impl ExportError {
    pub(crate) fn encode(what: impl Into<String>, message: impl std::fmt::Display) -> Self {
        ExportError::Encode {
            what: what.into(),
            message: message.to_string(),
        }
    }
}
