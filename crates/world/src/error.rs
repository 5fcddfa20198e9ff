use thiserror::Error;

/// What can go wrong with a world: a missing or malformed layer, or a bad `.npz`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A stage asked for a layer that no earlier stage has computed.
    #[error("layer `{name}` is absent: the stage that computes it has not run")]
    MissingLayer {
        /// The layer's name.
        name: String,
    },
    /// A layer exists but has another element type or shape than asked for.
    #[error("layer `{name}`: {problem}")]
    BadLayer {
        /// The layer's name.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The world has no mesh yet.
    #[error("the world has no mesh yet: run the mesh stage first")]
    NoMesh,
    /// A `.npz` array failed validation (shape, index bound, dtype) or could not be read.
    #[error("world file: array `{array}`: {problem}")]
    BadArray {
        /// The array's name in the file (`layer.NAME`, `mesh.*`).
        array: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The `.npz` container itself could not be read or written.
    #[error("world file: {0}")]
    Npz(String),
    /// Reading or writing bytes failed.
    #[error("world file: {0}")]
    Io(#[from] std::io::Error),
}

impl WorldError {
    pub(crate) fn bad_array(array: impl Into<String>, problem: impl Into<String>) -> Self {
        WorldError::BadArray {
            array: array.into(),
            problem: problem.into(),
        }
    }
}
