use orogen_export::engine::Engine;
use orogen_export::heights::Normalize;
use orogen_world::params::{ParamError, check_specs, in_range};
use serde::{Deserialize, Serialize};

use crate::Error;

/// The most cells a world may have: region and corner indices are `u32`, and a world of this
/// size needs about 10 GiB.
pub const MAX_CELLS: usize = 8_000_000;

/// The whole configuration of a run: every stage's parameters. `Default` gives the documented
/// defaults; a config file (TOML) may give any subset.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// World-wide parameters: seed, cells, map size, heights.
    pub world: WorldParams,
    /// The mesh stage: Lloyd iterations and the interior-site sampler.
    pub mesh: orogen_mesh::Params,
    /// What the run writes: resolution, outputs and their options.
    pub export: ExportParams,
    /// Hydrology on the mesh: routing, lakes, flow, rivers. (Configs of earlier releases name
    /// this section `rivers`; that name is still read, for one release.)
    #[serde(alias = "rivers")]
    pub hydrology: orogen_hydrology::graph::Params,
    /// Elevation: noise, land anchors, the power curve, raster sources.
    pub elevation: orogen_elevation::Params,
    /// Erosion between elevation and hydrology: stream power law and hillslope diffusion
    /// (`mode = "off"` by default; the `eroded` preset turns it on).
    pub erosion: orogen_hydrology::erosion::Params,
    /// Moisture, biomes and the colour table.
    pub biome: orogen_biome::Params,
    /// Flora: species, biome table, tree growth and placement.
    pub flora: orogen_flora::Params,
    /// The named preset the run starts from ([`Preset`](crate::Preset)); its pipeline (mesh, or
    /// classic for `classic`) is the pipeline that runs.
    pub preset: crate::Preset,
    /// The classic raster landscape's stages and painting (used by `preset = "classic"`).
    pub classic: crate::ClassicParams,
}

/// World-wide parameters every stage reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldParams {
    /// The world seed.
    pub seed: u64,
    /// Regions (Voronoi cells), boundary sites included.
    pub cells: usize,
    /// Map width in map units.
    pub width: f64,
    /// Map height in map units.
    pub height: f64,
    /// Water level on the base-height scale.
    pub water_level: f64,
    /// The map's width in metres.
    pub world_size_m: f64,
    /// Metres at the highest land.
    pub max_height_m: f64,
    /// Metres below sea level at the deepest water.
    pub max_depth_m: f64,
}

impl Default for WorldParams {
    fn default() -> Self {
        let meta = orogen_world::WorldMeta::default();
        WorldParams {
            seed: meta.seed,
            cells: 50_000,
            width: meta.width,
            height: meta.height,
            water_level: meta.water_level,
            world_size_m: meta.world_size_m,
            max_height_m: meta.max_height_m,
            max_depth_m: meta.max_depth_m,
        }
    }
}

/// What the run writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExportParams {
    /// Image width in pixels; the height follows the map's aspect.
    pub resolution: usize,
    /// The files to write ([`Output`](crate::Output) names; `default` and `all` expand per preset).
    /// `world.json` is always written. Also: glb, geojson, npz.
    pub outputs: Vec<crate::Output>,
    /// The 16-bit height mapping.
    pub normalize: Normalize,
    /// Relief shading of `colormap.png`: the strength by which the slope (metres per metre) is
    /// multiplied before a sun in the north-west, 45 degrees up, lights it; 0 turns it off.
    pub hillshade: f32,
    /// The engine the heightmap is for: none (pixel centres, any size), unity (2^n + 1 vertices, 33
    /// ..= 4097), unreal (127, 253, 505, 1009, 2017, 4033, 8129 vertices) or godot (vertices, any
    /// size; take `heightmap.exr`). Every heightmap-sized raster (heightmaps, colour map, biome
    /// map, splat maps, river mask) uses its grid.
    pub engine: Engine,
    /// The heightmap's side in samples; 0 takes the engine's default (1025 for unity, 1009 for
    /// unreal, else `resolution`).
    pub heightmap_size: usize,
    /// Terrain vertices along the width in `world.glb`.
    pub glb_resolution: usize,
    /// Width of `preview3d.png` in pixels (height 9/16 of it).
    pub preview_width: usize,
    /// Vertical exaggeration of `preview3d.png`.
    pub preview_exaggeration: f64,
}

impl Default for ExportParams {
    fn default() -> Self {
        ExportParams {
            resolution: 1024,
            outputs: vec![crate::Output::Default],
            normalize: Normalize::Fixed,
            hillshade: 4.0,
            engine: Engine::None,
            heightmap_size: 0,
            glb_resolution: 257,
            preview_width: 1280,
            preview_exaggeration: 4.0,
        }
    }
}

impl WorldParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)?;
        in_range("width / height", self.width / self.height, 1e-4..=1e4)
    }

    /// The world's fixed part.
    pub fn meta(&self) -> orogen_world::WorldMeta {
        orogen_world::WorldMeta {
            seed: self.seed,
            width: self.width,
            height: self.height,
            water_level: self.water_level,
            world_size_m: self.world_size_m,
            max_height_m: self.max_height_m,
            max_depth_m: self.max_depth_m,
        }
    }
}

impl ExportParams {
    /// Checks every field (the outputs against what `pipeline` makes).
    pub fn validate(
        &self,
        world: &WorldParams,
        pipeline: crate::Pipeline,
    ) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)?;
        crate::resolve_outputs(&self.outputs, pipeline)?;
        orogen_export::grid::PixelGrid::centres(self.resolution, world.width, world.height)?;
        self.grid(world)?;
        // 3-D outputs.
        self.glb_options(None).validate()?;
        self.preview_options(None).validate()?;
        Ok(())
    }

    /// The grid of every heightmap-sized raster.
    pub fn grid(&self, world: &WorldParams) -> Result<orogen_export::grid::PixelGrid, ParamError> {
        self.engine.grid(
            self.heightmap_size(),
            self.resolution,
            world.width,
            world.height,
        )
    }

    /// The heightmap's side when one is given (`heightmap_size` 0: the engine's default).
    pub fn heightmap_size(&self) -> Option<usize> {
        (self.heightmap_size != 0).then_some(self.heightmap_size)
    }

    /// The `world.glb` options of this config.
    pub fn glb_options(
        &self,
        colors: Option<orogen_export::colormap::ColormapOptions>,
    ) -> orogen_export::gltf::GlbOptions {
        orogen_export::gltf::GlbOptions {
            resolution: self.glb_resolution,
            colors,
            trees: true,
        }
    }

    /// The `preview3d.png` options of this config.
    pub fn preview_options(
        &self,
        colors: Option<orogen_export::colormap::ColormapOptions>,
    ) -> orogen_export::preview3d::PreviewOptions {
        orogen_export::preview3d::PreviewOptions {
            width: self.preview_width,
            exaggeration: self.preview_exaggeration,
            colors,
        }
    }
}

/// A generous estimate of the peak memory of a run, in bytes: about 1.5 KiB per cell (mesh,
/// Lloyd buffers, layers; 8 bytes per heightmap sample for the classic preset) and 40 bytes per
/// output pixel (float masters, colour buffers, encoders).
pub fn memory_estimate_bytes(config: &Config) -> f64 {
    stage_memory_bytes(config) + raster_memory_bytes(config) + 64.0 * 1024.0 * 1024.0
}

/// The stages' part of [`memory_estimate_bytes`]: the world and its working buffers.
pub(crate) fn stage_memory_bytes(config: &Config) -> f64 {
    // The classic preset has no mesh: its heightmap (f32) and a copy instead.
    match config.pipeline() {
        crate::Pipeline::Mesh => config.world.cells as f64 * 1536.0,
        crate::Pipeline::Classic => (config.classic.elevation.size as f64).powi(2) * 8.0,
    }
}

/// The outputs' part of [`memory_estimate_bytes`]: one output's rasters at the larger of the
/// image and heightmap sizes.
pub(crate) fn raster_memory_bytes(config: &Config) -> f64 {
    let nx = config.export.resolution as f64;
    let ny = (nx * config.world.height / config.world.width)
        .round()
        .max(1.0);
    let side = config
        .export
        .heightmap_size()
        .unwrap_or_else(|| config.export.engine.default_size(config.export.resolution))
        as f64;
    // The heightmap-sized rasters (an engine grid may be larger than the images).
    let hm = side
        * (side * config.world.height / config.world.width)
            .round()
            .max(1.0);
    (nx * ny).max(hm) * 40.0
}

/// The memory this machine can give, from `/proc/meminfo` (MemAvailable), or 4 GiB where that
/// cannot be read.
pub(crate) fn available_memory_bytes() -> f64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<f64>().ok())
        })
        .map_or(4.0 * 1024.0 * 1024.0 * 1024.0, |kib| kib * 1024.0)
}

/// A TOML error as one line: where (the line number and its text, which names the key), then
/// what is wrong.
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(start) = e.span().map(|s| s.start) else {
        return what;
    };
    let before = text.get(..start).unwrap_or(text);
    let number = before.matches('\n').count() + 1;
    let line = text.lines().nth(number - 1).unwrap_or("").trim();
    let line = match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    };
    format!("line {number} (`{line}`): {what}")
}

impl Config {
    /// Checks every parameter of every stage, then the memory estimate, before any work. A
    /// parameter error names the parameter by its path in the config (`hydrology.min_lake_regions`),
    /// the path `--set` and the playground take too.
    pub fn validate(&self) -> Result<(), Error> {
        self.validate_params()?;
        self.check_memory(available_memory_bytes())
    }

    /// Refuses a run whose memory estimate ([`memory_estimate_bytes`]) exceeds `have` bytes.
    pub fn check_memory(&self, have: f64) -> Result<(), Error> {
        let need = memory_estimate_bytes(self);
        if need > have {
            const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
            return Err(Error::Memory {
                need_gib: need / GIB,
                have_gib: have / GIB,
            });
        }
        Ok(())
    }

    /// Checks every parameter of every stage against its range ([`Config::validate`] without
    /// the memory estimate).
    pub fn validate_params(&self) -> Result<(), Error> {
        let section = |name: &str, checked: Result<(), ParamError>| {
            checked.map_err(|e| Error::Param(e.prefixed(&format!("{name}."))))
        };
        section("world", self.world.validate())?;
        section("mesh", self.mesh.validate())?;
        section("export", self.export.validate(&self.world, self.pipeline()))?;
        section("hydrology", self.hydrology.validate())?;
        section(
            "elevation",
            self.elevation
                .validate_for_map(self.world.width, self.world.height),
        )?;
        section("erosion", self.erosion.validate())?;
        section("biome", self.biome.validate())?;
        section("flora", self.flora.validate())?;
        section("classic", self.classic.validate())?;
        if self.pipeline() == crate::Pipeline::Classic && self.world.width != self.world.height {
            return Err(orogen_world::params::ParamError::new(
                "world.width / height",
                format!("{}x{}", self.world.width, self.world.height),
                "a square map for the classic preset (its heightmap is a 2^n + 1 vertex grid)",
            )
            .into());
        }
        Ok(())
    }

    /// The outputs this config writes (`export.outputs` resolved for its pipeline).
    pub fn outputs(&self) -> Result<std::collections::BTreeSet<crate::Output>, ParamError> {
        crate::resolve_outputs(&self.export.outputs, self.pipeline())
    }

    /// The pipeline this config runs: its preset's.
    pub fn pipeline(&self) -> crate::Pipeline {
        self.preset.pipeline()
    }

    /// Reads a TOML config file ([`Config::from_toml`]); the error names the file.
    pub fn from_file(path: &std::path::Path) -> Result<Self, Error> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Config {
            path: shown.clone(),
            message: crate::error::io_message(&e),
        })?;
        Self::from_toml(&text, &shown)
    }

    /// Parses a TOML config (any subset of the fields; the rest keep their defaults).
    pub fn from_toml(text: &str, path: &str) -> Result<Self, Error> {
        toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_owned(),
            message: toml_error_line(text, &e),
        })
    }

    /// Sets one parameter by its dotted path in the TOML config (`elevation.fbm.gain`), from a
    /// TOML value (`0.4`, `"simplex"`, `[[0.2, 0.2]]`; a bare word is taken as a string). Any
    /// parameter of any stage can be set this way from the command line (`--set KEY=VALUE`).
    pub fn set_path(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let bad = |message: String| Error::Input {
            what: format!("--set {key}"),
            message,
        };
        let mut tree = toml::Table::try_from(&*self).expect("a config always serialises");
        // TOML spells the special floats `nan` and `inf`; a command line may say `NaN`, `Inf`.
        let special = match value.to_ascii_lowercase().as_str() {
            v @ ("nan" | "+nan" | "-nan" | "inf" | "+inf" | "-inf") => Some(v.to_owned()),
            "infinity" | "+infinity" => Some("inf".to_owned()),
            "-infinity" => Some("-inf".to_owned()),
            _ => None,
        };
        let parsed =
            toml::from_str::<toml::Table>(&format!("v = {}", special.as_deref().unwrap_or(value)))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(value.to_owned()));
        // The hydrology section's name of earlier releases.
        let key = match key.strip_prefix("rivers.") {
            Some(rest) => &format!("hydrology.{rest}"),
            None => key,
        };
        let mut parts = key.split('.').peekable();
        let mut node = &mut tree;
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                match node.get_mut(part) {
                    Some(slot) if !slot.is_table() => *slot = parsed,
                    Some(_) => return Err(bad(format!("`{key}` is a section, not a parameter"))),
                    None => {
                        return Err(bad(format!(
                            "unknown parameter `{key}` (see --print-config)"
                        )));
                    }
                }
                break;
            }
            node = match node.get_mut(part) {
                Some(toml::Value::Table(t)) => t,
                _ => {
                    return Err(bad(format!(
                        "unknown section `{part}` in `{key}` (see --print-config)"
                    )));
                }
            };
        }
        *self = toml::Value::Table(tree)
            .try_into()
            .map_err(|e: toml::de::Error| {
                bad(format!("{key} = {value} does not fit: {}", e.message()))
            })?;
        Ok(())
    }

    /// Every parameter as `(dotted path, default value as TOML)`, for help texts.
    pub fn parameter_list(&self) -> Vec<(String, String)> {
        fn walk(prefix: &str, table: &toml::Table, out: &mut Vec<(String, String)>) {
            for (k, v) in table {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                match v {
                    toml::Value::Table(t) => walk(&path, t, out),
                    other => out.push((path, other.to_string())),
                }
            }
        }
        let mut out = Vec::new();
        walk(
            "",
            &toml::Table::try_from(self).expect("a config always serialises"),
            &mut out,
        );
        out
    }

    /// The config as TOML, which [`Config::from_toml`] reads back to the same config.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_toml_round_trips() {
        let config = Config::default();
        config.validate().unwrap();
        let back = Config::from_toml(&config.to_toml(), "x").unwrap();
        assert_eq!(back, config);
        let partial = Config::from_toml("[world]\nseed = 7\n", "x").unwrap();
        assert_eq!(partial.world.seed, 7);
        assert_eq!(partial.world.cells, 50_000);
        assert!(Config::from_toml("[world]\nsede = 7\n", "x").is_err());
    }

    #[test]
    fn any_parameter_can_be_set_by_path() {
        let mut config = Config::default();
        config.set_path("world.water_level", "0.5").unwrap();
        assert_eq!(config.world.water_level, 0.5);
        config.set_path("elevation.fbm.gain", "0.4").unwrap();
        assert_eq!(config.elevation.fbm.gain, 0.4);
        config.set_path("elevation.fbm.noise", "simplex").unwrap();
        assert!(config.to_toml().contains("noise = \"simplex\""));
        let err = config
            .set_path("world.water_levle", "0.5")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown parameter"), "{err}");
        let err = config
            .set_path("world.cells", "many")
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not fit"), "{err}");
        assert!(config.set_path("world", "1").is_err());
        // Every listed parameter can be set back to its own value.
        let listed = Config::default().parameter_list();
        assert!(
            listed
                .iter()
                .any(|(k, v)| k == "world.cells" && v == "50000")
        );
        for (key, value) in listed {
            let mut c = Config::default();
            c.set_path(&key, &value)
                .unwrap_or_else(|e| panic!("{key} = {value}: {e}"));
            assert_eq!(c, Config::default(), "{key}");
        }
    }

    mod robustness {
        use super::*;
        use proptest::prelude::*;

        /// Characters that keep a mutated config close to TOML, so the parser gets deep.
        const ALPHABET: &[char] = &[
            '0', '1', '5', '9', '-', '.', 'e', 'x', '"', '\'', '[', ']', '{', '}', '=', ',', ' ',
            '\n', '#', 'a', 'z', '_', '\u{e9}',
        ];

        fn check(text: &str) -> Result<(), TestCaseError> {
            if let Ok(config) = Config::from_toml(text, "x.toml") {
                // Validation answers (it never panics), and what parsed prints and reads back.
                let _ = config.validate();
                let printed = config.to_toml();
                // (Compared as text: a NaN parameter is not equal to itself.)
                let back = Config::from_toml(&printed, "printed.toml").map(|c| c.to_toml());
                prop_assert_eq!(back.ok(), Some(printed));
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// A printed config with characters overwritten, inserted or cut never panics the
            /// reader or validation.
            #[test]
            fn mutated_configs_never_panic(
                preset in 0usize..crate::presets::PRESETS.len(),
                edits in proptest::collection::vec(
                    (any::<prop::sample::Index>(), 0usize..ALPHABET.len(), 0u8..3), 1..8),
            ) {
                let name = crate::presets::PRESETS[preset].0;
                let mut chars: Vec<char> =
                    crate::presets::preset(name).unwrap().to_toml().chars().collect();
                for (idx, c, op) in edits {
                    let i = idx.index(chars.len());
                    match op {
                        0 => chars[i] = ALPHABET[c],
                        1 => chars.insert(i, ALPHABET[c]),
                        _ => { chars.remove(i); }
                    }
                }
                check(&chars.into_iter().collect::<String>())?;
            }

            /// Arbitrary short texts never panic the reader.
            #[test]
            fn random_texts_never_panic(text in "[\\PC\n]{0,200}") {
                check(&text)?;
            }

            /// Any single parameter set to any number: validation refuses it or accepts it,
            /// never panics.
            #[test]
            fn any_number_in_any_parameter_never_panics(
                key in any::<prop::sample::Index>(),
                value in prop_oneof![
                    any::<i64>().prop_map(|v| v.to_string()),
                    any::<f64>().prop_map(|v| format!("{v:?}")),
                    Just("nan".to_owned()),
                    Just("-inf".to_owned()),
                ],
            ) {
                let keys = Config::default().parameter_list();
                let (key, _) = key.get(&keys);
                let mut config = Config::default();
                if config.set_path(key, &value).is_ok() {
                    let _ = config.validate();
                }
            }
        }
    }
}
