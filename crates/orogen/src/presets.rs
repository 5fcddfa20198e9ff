//! Named presets: whole configurations a run can start from (`orogen generate --preset NAME`);
//! flags given too override them, and `--print-config` prints the concrete values.

use orogen_elevation::Layout;
use orogen_export::heights::Normalize;
use orogen_world::params::ParamError;

use crate::{Config, Preset};

/// Every preset: name and what it is.
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
        "the raster landscape of the second article (diamond-square, landscape.png)",
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

/// The configuration of a named preset.
pub fn preset(name: &str) -> Result<Config, ParamError> {
    let mut config = Config::default();
    match name {
        "default" => {}
        "reference" => {
            config.biome.whittaker = orogen_biome::Whittaker::reference();
            config.biome.redistribute = false;
            config.biome.water_boost = 0.0;
            config.export.normalize = Normalize::MinMax;
            config.export.resolution = 4096;
        }
        "classic" => config.preset = Preset::Classic,
        "archipelago" => {
            config.elevation.layout = Layout::ArchipelagoRing;
            config.world.water_level = 0.45;
            config.elevation.fbm.noise_scale = 6.0;
        }
        "continent" => {
            config.elevation.layout = Layout::CentreIsland;
            config.world.water_level = 0.25;
            config.elevation.fbm.noise_scale = 3.0;
        }
        "eroded" => config.erosion.mode = orogen_hydrology::erosion::Mode::Transient,
        other => {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            return Err(ParamError::new("preset", other, names.join(", ")));
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_distinct() {
        let configs: Vec<Config> = PRESETS.iter().map(|(n, _)| preset(n).unwrap()).collect();
        for (config, (name, _)) in configs.iter().zip(PRESETS) {
            config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
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
    }
}
