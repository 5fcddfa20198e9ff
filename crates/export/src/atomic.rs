//! Writing to a temporary name in the same folder, flushing, then renaming, so a reader never
//! sees a half-written file and an interrupted run leaves the previous output intact.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::ExportError;

/// The temporary name a file is written under before its rename: `.NAME.tmp-PID` in the same
/// folder (the same file system, so the rename is atomic).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `path` through `write`: to a temporary name first, then flushed, synced and renamed.
/// On any error the temporary file is removed and `path` is untouched.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), ExportError>
where
    F: FnOnce(&mut dyn Write) -> Result<(), ExportError>,
{
    let tmp = temp_path(path);
    let io_err = |source| ExportError::Io {
        path: path.to_owned(),
        source,
    };
    let result = (|| {
        let file = File::create(&tmp).map_err(io_err)?;
        let mut buf = BufWriter::with_capacity(1 << 20, file);
        write(&mut buf)?;
        let file = buf.into_inner().map_err(|e| io_err(e.into_error()))?;
        file.sync_all().map_err(io_err)?;
        fs::rename(&tmp, path).map_err(io_err)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// An output folder that remembers what was written to it, in order.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    files: Vec<String>,
}

impl OutDir {
    /// Creates the folder (and its parents) if needed.
    pub fn create(dir: impl Into<PathBuf>) -> Result<Self, ExportError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|source| ExportError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(OutDir {
            dir,
            files: Vec::new(),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `name` atomically and records it.
    pub fn write<F>(&mut self, name: &str, write: F) -> Result<PathBuf, ExportError>
    where
        F: FnOnce(&mut dyn Write) -> Result<(), ExportError>,
    {
        let path = self.dir.join(name);
        write_atomic(&path, write)?;
        self.files.push(name.to_owned());
        Ok(path)
    }

    /// The names written so far, in order.
    pub fn files(&self) -> &[String] {
        &self.files
    }
}

/// Wraps an I/O error from inside a writer closure.
pub fn io(path: &str) -> impl Fn(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: PathBuf::from(path),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_write_leaves_no_file_and_keeps_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heightmap.png");

        // Nothing there yet: an error mid-write leaves nothing under either name.
        let err = write_atomic(&path, |w| {
            w.write_all(&[0u8; 4096]).map_err(io("heightmap.png"))?;
            Err(ExportError::encode("heightmap", "interrupted"))
        });
        assert!(err.is_err());
        assert!(!path.exists());
        assert!(!temp_path(&path).exists());

        // A previous output survives a failed rewrite byte for byte.
        write_atomic(&path, |w| w.write_all(b"old").map_err(io("x"))).unwrap();
        let _ = write_atomic(&path, |w| {
            w.write_all(b"new, half").map_err(io("x"))?;
            Err(ExportError::encode("heightmap", "interrupted"))
        });
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "a temporary file was left behind"
        );
    }
}
