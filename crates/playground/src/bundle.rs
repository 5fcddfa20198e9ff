//! The export bundle: what `orogen generate` writes, zipped in memory with fixed timestamps
//! (1980-01-01, the zip epoch) and sorted names, so the same request gives the same bytes.

use std::io::{Cursor, Write};

use orogen_world::World;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use orogen::Config;

/// A bundle failure (internal: the request was validated before).
#[derive(Debug, thiserror::Error)]
pub(crate) enum BundleError {
    #[error(transparent)]
    Pipeline(#[from] orogen::Error),
    #[error("bundle: {0}")]
    Io(#[from] std::io::Error),
    #[error("bundle: {0}")]
    Zip(#[from] zip::result::ZipError),
}

/// Writes the outputs of `world` (through `orogen-export`) into a private temporary folder
/// (a fresh random name, readable by this user only, removed when done whatever happens),
/// then zips them with `config.toml`, the config that reproduces them.
pub(crate) fn zip_outputs(world: &World, config: &Config) -> Result<Vec<u8>, BundleError> {
    let dir = tempfile::Builder::new()
        .prefix("orogen-bundle-")
        .tempdir()?;
    zip_dir(world, config, dir.path())
}

fn zip_dir(world: &World, config: &Config, dir: &std::path::Path) -> Result<Vec<u8>, BundleError> {
    let mut names = orogen::write_outputs(world, config, dir)?;
    names.sort();
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("config.toml", options)?;
    zip.write_all(config.to_toml().as_bytes())?;
    for name in &names {
        zip.start_file(name.as_str(), options)?;
        zip.write_all(&std::fs::read(dir.join(name))?)?;
    }
    Ok(zip.finish()?.into_inner())
}
