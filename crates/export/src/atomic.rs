//! Writing to a temporary name in the same folder, flushing, then renaming, so a reader never
//! sees a half-written file and an interrupted run leaves the previous output intact.
//!
//! [`OutDir`] goes further for a run's many files: each is written and synced under its
//! temporary name, and only [`OutDir::commit`] renames them all into place, so a run killed
//! before the end of its export leaves the previous run's files exactly as they were (not a mix
//! of old and new), and a failed run leaves nothing of its own behind.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::ExportError;

/// The suffix of temporary names, before the writing process's id.
const TEMP_MARK: &str = ".tmp-";

/// The temporary name a file is written under before its rename: `.NAME.tmp-PID` in the same
/// folder (the same file system, so the rename is atomic).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{TEMP_MARK}{}", std::process::id()))
}

/// Writes `path`'s temporary name through `write`, flushed and synced; returns that name. On
/// any error the temporary file is removed.
fn write_temp<F>(path: &Path, write: F) -> Result<PathBuf, ExportError>
where
    F: FnOnce(&mut dyn Write) -> Result<(), ExportError>,
{
    write_temp_file(path, |file| {
        let mut buf = BufWriter::with_capacity(1 << 20, file);
        write(&mut buf)?;
        buf.flush().map_err(|source| ExportError::Io {
            path: path.to_owned(),
            source,
        })
    })
}

/// [`write_temp`] handing `write` the open temporary file itself.
fn write_temp_file<F>(path: &Path, write: F) -> Result<PathBuf, ExportError>
where
    F: FnOnce(&File) -> Result<(), ExportError>,
{
    let tmp = temp_path(path);
    let io_err = |source| ExportError::Io {
        path: path.to_owned(),
        source,
    };
    let result = (|| {
        let file = File::create(&tmp).map_err(io_err)?;
        write(&file)?;
        file.sync_all().map_err(io_err)
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Writes `path` through `write`: to a temporary name first, then flushed, synced and renamed.
/// On any error the temporary file is removed and `path` is untouched.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), ExportError>
where
    F: FnOnce(&mut dyn Write) -> Result<(), ExportError>,
{
    rename_into(write_temp(path, write)?, path)
}

/// Renames the temporary file `tmp` to `path`, removing it when that fails.
fn rename_into(tmp: PathBuf, path: &Path) -> Result<(), ExportError> {
    fs::rename(&tmp, path).map_err(|source| {
        let _ = fs::remove_file(&tmp);
        ExportError::Io {
            path: path.to_owned(),
            source,
        }
    })
}

/// [`write_atomic`] for writers that place bytes at offsets of the file (several threads at
/// once): `write` gets the temporary file itself, which is then synced and renamed.
pub fn write_atomic_file<F>(path: &Path, write: F) -> Result<(), ExportError>
where
    F: FnOnce(&File) -> std::io::Result<()>,
{
    let tmp = write_temp_file(path, |file| {
        write(file).map_err(|source| ExportError::Io {
            path: path.to_owned(),
            source,
        })
    })?;
    rename_into(tmp, path)
}

/// An output folder whose files appear together: [`OutDir::write`] stages each file under its
/// temporary name, [`OutDir::commit`] renames them all, in the order written. Dropped without a
/// commit (an error on the way), it removes what it staged.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    files: Vec<String>,
    /// (temporary name, final name) of each staged file.
    staged: Vec<(PathBuf, PathBuf)>,
}

impl OutDir {
    /// Creates the folder (and its parents) if needed, and removes the temporary files that
    /// killed runs left in it (those whose process no longer exists).
    pub fn create(dir: impl Into<PathBuf>) -> Result<Self, ExportError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|source| ExportError::Io {
            path: dir.clone(),
            source,
        })?;
        remove_stale_temps(&dir);
        Ok(OutDir {
            dir,
            files: Vec::new(),
            staged: Vec::new(),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `name` under its temporary name and records it; it takes its name at
    /// [`OutDir::commit`]. Returns the final path.
    pub fn write<F>(&mut self, name: &str, write: F) -> Result<PathBuf, ExportError>
    where
        F: FnOnce(&mut dyn Write) -> Result<(), ExportError>,
    {
        let path = self.dir.join(name);
        let tmp = write_temp(&path, write)?;
        self.staged.push((tmp, path.clone()));
        self.files.push(name.to_owned());
        Ok(path)
    }

    /// An empty staging list on the same folder, for outputs written side by side: hand it
    /// back with [`OutDir::absorb`] (dropped instead, it removes what it staged).
    pub fn fork(&self) -> OutDir {
        OutDir {
            dir: self.dir.clone(),
            files: Vec::new(),
            staged: Vec::new(),
        }
    }

    /// Takes over what `part` (a [`OutDir::fork`] of this folder) staged, after what this one
    /// staged: the names keep the order the parts are absorbed in.
    pub fn absorb(&mut self, mut part: OutDir) {
        self.files.append(&mut part.files);
        self.staged.append(&mut part.staged);
    }

    /// The names written so far, in order.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Renames every staged file into place, in the order written, and syncs the folder.
    /// Returns the names.
    pub fn commit(mut self) -> Result<Vec<String>, ExportError> {
        for (tmp, path) in std::mem::take(&mut self.staged) {
            fs::rename(&tmp, &path).map_err(|source| ExportError::Io {
                path: path.clone(),
                source,
            })?;
        }
        // The renames reach the disk with the folder's entry (where the OS supports it).
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(std::mem::take(&mut self.files))
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        for (tmp, _) in &self.staged {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Removes `.NAME.tmp-PID` files of processes that are gone, where `/proc` tells (Linux);
/// elsewhere it leaves them.
fn remove_stale_temps(dir: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let pid = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(TEMP_MARK))
            .and_then(|(_, pid)| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !proc.join(pid.to_string()).exists()
        {
            let _ = fs::remove_file(entry.path());
        }
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

    #[test]
    fn an_out_dir_shows_its_files_only_at_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.png"), b"old a").unwrap();
        fs::write(dir.path().join("b.png"), b"old b").unwrap();

        // A run that fails half-way: the old files are untouched, nothing new is left.
        let mut out = OutDir::create(dir.path()).unwrap();
        out.write("a.png", |w| w.write_all(b"new a").map_err(io("a")))
            .unwrap();
        assert_eq!(fs::read(dir.path().join("a.png")).unwrap(), b"old a");
        drop(out);
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.png", "b.png"]);
        assert_eq!(fs::read(dir.path().join("a.png")).unwrap(), b"old a");

        // A run that ends: every file at once.
        let mut out = OutDir::create(dir.path()).unwrap();
        for name in ["a.png", "b.png"] {
            out.write(name, |w| w.write_all(b"new").map_err(io(name)))
                .unwrap();
        }
        assert_eq!(fs::read(dir.path().join("b.png")).unwrap(), b"old b");
        assert_eq!(out.commit().unwrap(), ["a.png", "b.png"]);
        assert_eq!(fs::read(dir.path().join("a.png")).unwrap(), b"new");
        assert_eq!(fs::read(dir.path().join("b.png")).unwrap(), b"new");
    }

    #[test]
    fn temporary_files_of_dead_processes_are_swept() {
        if !Path::new("/proc/self").exists() {
            eprintln!("SKIPPED: no /proc, stale temporary files are left alone here");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        // A process id above the kernel's limit (2^22) never exists.
        let stale = dir.path().join(format!(".a.png{TEMP_MARK}{}", 1u32 << 23));
        let live = temp_path(&dir.path().join("b.png"));
        let other = dir.path().join(".hidden");
        for f in [&stale, &live, &other] {
            fs::write(f, b"x").unwrap();
        }
        let _out = OutDir::create(dir.path()).unwrap();
        assert!(!stale.exists(), "a dead run's temporary file stayed");
        assert!(
            live.exists(),
            "a running process's temporary file was removed"
        );
        assert!(other.exists());
    }
}
