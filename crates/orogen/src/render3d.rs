//! `orogen render3d`: renders a `world.glb` with Blender, as the article did.
//!
//! Runs `blender -b -P SCRIPT -- --glb GLB --out PNG ...` (or, without a script path, the copy
//! of `blender/render.py` built into orogen through `--python-expr`, so an installed `orogen`
//! needs no repository). The script imports the glTF, exaggerates the relief, makes
//! water-coloured terrain wet and glossy, lights the scene and renders with Cycles on the CPU
//! without a denoiser (Debian's Blender 3.4 has no OpenImageDenoise). Blender writes the PNG
//! itself: it is the one file orogen does not write through `orogen-export`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Error;

/// The Blender script (`crates/orogen/blender/render.py`, also `tools/blender/render.py`).
pub const SCRIPT: &str = include_str!("../blender/render.py");

/// What to render and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Render3d {
    /// The `.glb` to render (from `orogen generate --glb`).
    pub glb: PathBuf,
    /// The PNG to write.
    pub out: PathBuf,
    /// Cycles samples per pixel (1 ..= 4096).
    pub samples: u32,
    /// Image width in pixels (16 ..= 8192).
    pub width: u32,
    /// Image height in pixels (16 ..= 8192).
    pub height: u32,
    /// Vertical exaggeration (1 ..= 50).
    pub exaggeration: f64,
    /// The Blender executable.
    pub blender: PathBuf,
    /// A script to run instead of the built-in one.
    pub script: Option<PathBuf>,
}

impl Default for Render3d {
    fn default() -> Self {
        Render3d {
            glb: PathBuf::from("out/world.glb"),
            out: PathBuf::from("out/render3d.png"),
            samples: 16,
            width: 960,
            height: 540,
            exaggeration: 4.0,
            blender: PathBuf::from("blender"),
            script: None,
        }
    }
}

impl Render3d {
    /// Checks the numbers and that the .glb exists.
    pub fn validate(&self) -> Result<(), Error> {
        use orogen_world::params::in_range;
        in_range("samples", self.samples, 1..=4096)?;
        in_range("width", self.width, 16..=8192)?;
        in_range("height", self.height, 16..=8192)?;
        in_range("exaggeration", self.exaggeration, 1.0..=50.0)?;
        if !self.glb.is_file() {
            return Err(orogen_world::params::ParamError::new(
                "glb",
                self.glb.display(),
                "an existing .glb (run `orogen generate --glb` first)",
            )
            .into());
        }
        Ok(())
    }

    /// The Blender command line.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.blender);
        cmd.arg("-b").arg("--factory-startup");
        match &self.script {
            Some(path) => cmd.arg("-P").arg(path),
            None => cmd.arg("--python-expr").arg(SCRIPT),
        };
        cmd.arg("--python-exit-code").arg("1").arg("--");
        cmd.arg("--glb").arg(absolute(&self.glb));
        cmd.arg("--out").arg(absolute(&self.out));
        cmd.args([
            "--samples".to_owned(),
            self.samples.to_string(),
            "--width".to_owned(),
            self.width.to_string(),
            "--height".to_owned(),
            self.height.to_string(),
            "--exaggeration".to_owned(),
            self.exaggeration.to_string(),
        ]);
        cmd
    }

    /// Runs Blender; fails when it is missing, fails, or writes no image.
    pub fn run(&self) -> Result<(), Error> {
        self.validate()?;
        let tool = |message: String| Error::Tool {
            tool: self.blender.display().to_string(),
            message,
        };
        let out = self.command().output().map_err(|e| {
            tool(format!(
                "cannot run ({e}); install Blender 3.4+ or pass --blender"
            ))
        })?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let tail: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
            let tail = tail[tail.len().saturating_sub(12)..].join("\n");
            return Err(tool(format!("exited with {}:\n{tail}", out.status)));
        }
        if !self.out.is_file() {
            return Err(tool(format!("wrote no {}", self.out.display())));
        }
        Ok(())
    }
}

/// Blender resolves relative paths against its own idea of the current folder: pass absolute
/// ones.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}
