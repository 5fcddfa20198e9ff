//! Named presets: whole configurations a run can start from (`orogen generate --preset NAME`);
//! flags given too override them, and `--print-config` prints the concrete values.
//!
//! A preset has one name everywhere (the command line, `preset = "..."` in a config,
//! `world.json`, the README), and its [`Pipeline`] (the mesh stages or the classic raster
//! landscape) is a property of it, not a second name:
//!
//! ```
//! use orogen::{Pipeline, Preset};
//! assert_eq!(Preset::Classic.pipeline(), Pipeline::Classic);
//! assert_eq!(Preset::Archipelago.pipeline(), Pipeline::Mesh);
//! assert_eq!(Preset::parse("continent"), Some(Preset::Continent));
//! assert_eq!(orogen::presets::preset("default").unwrap().preset.name(), "default");
//! ```

use orogen_elevation::Layout;
use orogen_export::heights::Normalize;
use orogen_world::params::ParamError;
use serde::{Deserialize, Serialize};

use crate::{Config, Pipeline};

/// A named preset: the configuration a run starts from, recorded in the config it makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// orogen's defaults on the mesh pipeline. (`mesh`, the name configs of earlier releases
    /// recorded for it, is read as `default`.)
    #[default]
    #[serde(alias = "mesh")]
    Default,
    /// The reference program's defaults.
    Reference,
    /// The classic raster landscape.
    Classic,
    /// A ring of islands.
    Archipelago,
    /// One large continent.
    Continent,
    /// The defaults with erosion on.
    Eroded,
}

/// Every preset with what it is, in the order the README and `--help` list them.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "default",
        "orogen's defaults: 50,000 cells, 5 random land centres, water level 0.35",
    ),
    (
        "reference",
        "the reference program's defaults: its snowy Whittaker cuts, unranked moisture without the \
         water boost, min-max 16-bit heights, 4096 px exports",
    ),
    (
        "classic",
        "the raster landscape of the second article (diamond-square, landscape.png; the classic \
         pipeline)",
    ),
    (
        "archipelago",
        "a ring of islands: archipelago-ring anchors, water level 0.45, finer noise",
    ),
    (
        "continent",
        "one large continent: a centre-island anchor, water level 0.25, broad noise",
    ),
    (
        "eroded",
        "the defaults with erosion on: 100 stream-power steps carve valleys the rivers then run in",
    ),
];

impl Preset {
    /// Every preset, in the order of [`PRESETS`].
    pub const ALL: [Preset; 6] = [
        Preset::Default,
        Preset::Reference,
        Preset::Classic,
        Preset::Archipelago,
        Preset::Continent,
        Preset::Eroded,
    ];

    /// The preset's one name.
    pub fn name(self) -> &'static str {
        PRESETS[Self::ALL.iter().position(|&p| p == self).expect("listed")].0
    }

    /// What the preset is, in a line.
    pub fn about(self) -> &'static str {
        PRESETS[Self::ALL.iter().position(|&p| p == self).expect("listed")].1
    }

    /// Parses a preset's name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == text)
    }

    /// The pipeline the preset runs.
    pub fn pipeline(self) -> Pipeline {
        match self {
            Preset::Classic => Pipeline::Classic,
            _ => Pipeline::Mesh,
        }
    }

    /// The preset's configuration.
    pub fn config(self) -> Config {
        let mut config = Config {
            preset: self,
            ..Config::default()
        };
        match self {
            Preset::Default | Preset::Classic => {}
            Preset::Reference => {
                config.biome.whittaker = orogen_biome::Whittaker::reference();
                config.biome.redistribute = false;
                config.biome.water_boost = 0.0;
                config.export.normalize = Normalize::MinMax;
                config.export.resolution = 4096;
            }
            Preset::Archipelago => {
                config.elevation.layout = Layout::ArchipelagoRing;
                config.world.water_level = 0.45;
                config.elevation.fbm.noise_scale = 6.0;
            }
            Preset::Continent => {
                config.elevation.layout = Layout::CentreIsland;
                config.world.water_level = 0.25;
                config.elevation.fbm.noise_scale = 3.0;
            }
            Preset::Eroded => config.erosion.mode = orogen_hydrology::erosion::Mode::Transient,
        }
        config
    }
}

/// The command that draws a preset's README picture, `docs/images/preset-NAME.png` (seed 123;
/// the colour map, or for `classic` its `landscape.png`).
pub fn picture_command(preset: Preset) -> String {
    let name = preset.name();
    match preset.pipeline() {
        Pipeline::Mesh => format!(
            "orogen generate --preset {name} --seed 123 --resolution 512 --outputs colormap"
        ),
        Pipeline::Classic => {
            format!("orogen generate --preset {name} --seed 123 --classic-size 513")
        }
    }
}

/// The README's table of presets, each with its picture (`orogen params --presets`).
pub fn markdown() -> String {
    let mut text = String::from("| preset | picture | what |\n|---|---|---|\n");
    for preset in Preset::ALL {
        let name = preset.name();
        text.push_str(&format!(
            "| `{name}` | <img src=\"docs/images/preset-{name}.png\" width=\"200\" alt=\"{name}\"> | {} |\n",
            preset.about()
        ));
    }
    text.push_str(
        "\nEach picture is the `out/colormap.png` (for `classic`, `out/landscape.png`) of\n\n```sh\n",
    );
    for preset in Preset::ALL {
        text.push_str(&picture_command(preset));
        text.push('\n');
    }
    text.push_str("```\n");
    text
}

/// The configuration of a named preset.
pub fn preset(name: &str) -> Result<Config, ParamError> {
    match Preset::parse(name) {
        Some(p) => Ok(p.config()),
        None => {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            Err(ParamError::new("preset", name, names.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_distinct_and_named_once() {
        let configs: Vec<Config> = PRESETS.iter().map(|(n, _)| preset(n).unwrap()).collect();
        for (config, (name, _)) in configs.iter().zip(PRESETS) {
            config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            // The name the preset is chosen by is the name its config records, in TOML and JSON.
            assert_eq!(config.preset.name(), *name);
            assert!(config.to_toml().contains(&format!("preset = \"{name}\"")));
            assert_eq!(serde_json::to_value(config.preset).unwrap(), *name);
            #[cfg(feature = "clap")]
            {
                let clap_name = clap::ValueEnum::to_possible_value(&config.preset).unwrap();
                assert_eq!(clap_name.get_name(), *name);
            }
        }
        for i in 0..configs.len() {
            for j in i + 1..configs.len() {
                assert_ne!(
                    configs[i], configs[j],
                    "{} = {}",
                    PRESETS[i].0, PRESETS[j].0
                );
            }
        }
        assert!(preset("tundra-world").is_err());
        // A config of an earlier release (`preset = "mesh"`) reads as the default preset.
        let old = Config::from_toml("preset = \"mesh\"\n", "old.toml").unwrap();
        assert_eq!(old.preset, Preset::Default);
        assert_eq!(
            preset("classic").unwrap().pipeline(),
            crate::Pipeline::Classic
        );
    }
}
