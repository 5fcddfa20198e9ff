//! Which files a run writes: `export.outputs` in the config, `--outputs` on the command line.
//!
//! A list of names, each one output ([`Output::CHOICES`]), or `default` (what the pipeline
//! writes unless told otherwise) or `all` (everything the pipeline can write). `world.json`, the run's
//! record, is always written.
//!
//! ```
//! use orogen::{Output, Pipeline, resolve_outputs};
//! let chosen = resolve_outputs(&[Output::Default, Output::Glb], Pipeline::Mesh).unwrap();
//! assert!(chosen.contains(&Output::Colormap) && chosen.contains(&Output::Glb));
//! assert!(!chosen.contains(&Output::Npz));
//! // The classic pipeline paints landscape.png; it has no colour map to write.
//! assert!(resolve_outputs(&[Output::Colormap], Pipeline::Classic).is_err());
//! ```

use std::collections::BTreeSet;

use orogen_world::params::ParamError;
use serde::{Deserialize, Serialize};

use crate::Pipeline;

/// One output of a run, or a named set of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Output {
    /// What the pipeline writes by default.
    Default,
    /// Everything the pipeline can write.
    All,
    /// `colormap.png`: blended biome colours, water and rivers.
    Colormap,
    /// `biomes.png`: one flat colour per biome.
    Biomes,
    /// `mesh.png`: the Voronoi cells.
    Mesh,
    /// `heightmap.png`: 16-bit heights.
    Heightmap,
    /// `heightmap.r16`: the same, headerless little-endian.
    R16,
    /// `heightmap.exr`: 32-bit float metres.
    Exr,
    /// `rivers.png`: the river mask.
    Rivers,
    /// `splat_GROUP.png`: seven biome-group weight maps.
    Splat,
    /// `preview3d.png`: the built-in perspective render.
    Preview3d,
    /// `world.glb`: terrain, sea and trees (glTF 2.0).
    Glb,
    /// `world.geojson`: land, lakes, biomes, rivers, flora.
    Geojson,
    /// `world.npz`: the whole world, which `orogen export` reads back.
    Npz,
    /// `landscape.png`: the classic preset's painting.
    Landscape,
}

impl Output {
    /// Every name `--outputs` takes, with the files each stands for.
    pub const CHOICES: &[(Output, &str)] = &[
        (Output::Default, "what the pipeline writes by default"),
        (Output::All, "everything the pipeline can write"),
        (Output::Colormap, "colormap.png"),
        (Output::Biomes, "biomes.png"),
        (Output::Mesh, "mesh.png"),
        (Output::Heightmap, "heightmap.png"),
        (Output::R16, "heightmap.r16"),
        (Output::Exr, "heightmap.exr"),
        (Output::Rivers, "rivers.png"),
        (Output::Splat, "splat_GROUP.png (7 files)"),
        (Output::Preview3d, "preview3d.png"),
        (Output::Glb, "world.glb"),
        (Output::Geojson, "world.geojson"),
        (Output::Npz, "world.npz"),
        (Output::Landscape, "landscape.png"),
    ];

    /// The name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Output::Default => "default",
            Output::All => "all",
            Output::Colormap => "colormap",
            Output::Biomes => "biomes",
            Output::Mesh => "mesh",
            Output::Heightmap => "heightmap",
            Output::R16 => "r16",
            Output::Exr => "exr",
            Output::Rivers => "rivers",
            Output::Splat => "splat",
            Output::Preview3d => "preview3d",
            Output::Glb => "glb",
            Output::Geojson => "geojson",
            Output::Npz => "npz",
            Output::Landscape => "landscape",
        }
    }

    /// Parses a name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::CHOICES
            .iter()
            .map(|(o, _)| *o)
            .find(|o| o.name() == text)
    }

    /// The world layers this output reads (`mesh` is the dual mesh itself; `*` is every layer).
    /// [`crate::needed_stages`] runs a stage only when a chosen output reads what it writes;
    /// a test checks that each output alone is the same bytes as after every stage.
    pub fn reads(self) -> &'static [&'static str] {
        match self {
            Output::Default | Output::All => &[],
            Output::Colormap => &[
                "mesh",
                "region_elevation",
                "corner_elevation",
                "region_moisture",
                "region_water",
                "region_lake",
                "lake_surface",
                "region_biome",
                "biome_color_table",
                "rivers",
                "river_width",
                "river_on_lake",
            ],
            // Under the colour map's shores and rivers.
            Output::Biomes => &[
                "mesh",
                "region_elevation",
                "corner_elevation",
                "region_water",
                "region_lake",
                "lake_surface",
                "region_biome",
                "rivers",
                "river_width",
                "river_on_lake",
            ],
            Output::Splat => &["mesh", "region_water", "region_biome"],
            Output::Mesh => &["mesh", "region_polygon", "region_elevation"],
            Output::Heightmap | Output::R16 | Output::Exr => {
                &["mesh", "region_elevation", "corner_elevation"]
            }
            // Clipped at the shores.
            Output::Rivers => &[
                "mesh",
                "region_elevation",
                "corner_elevation",
                "region_lake",
                "lake_surface",
                "region_water",
                "rivers",
                "river_width",
                "river_opacity",
                "river_on_lake",
            ],
            Output::Preview3d => &[
                "mesh",
                "region_elevation",
                "corner_elevation",
                "region_moisture",
                "region_water",
                "region_lake",
                "lake_surface",
                "biome_color_table",
                "rivers",
                "river_width",
                "river_on_lake",
                "flora_xy",
                "flora_size",
                "flora_species",
            ],
            Output::Glb | Output::Geojson | Output::Npz | Output::Landscape => &["*"],
        }
    }
}

impl Pipeline {
    /// What this pipeline writes when the outputs are not chosen.
    pub fn default_outputs(self) -> &'static [Output] {
        use Output::*;
        match self {
            Pipeline::Mesh => &[
                Colormap, Biomes, Mesh, Heightmap, R16, Exr, Rivers, Splat, Preview3d,
            ],
            Pipeline::Classic => &[Landscape],
        }
    }

    /// Everything this pipeline can write.
    pub fn possible_outputs(self) -> &'static [Output] {
        use Output::*;
        match self {
            Pipeline::Mesh => &[
                Colormap, Biomes, Mesh, Heightmap, R16, Exr, Rivers, Splat, Preview3d, Glb,
                Geojson, Npz,
            ],
            Pipeline::Classic => &[Landscape, Npz],
        }
    }
}

/// The outputs a list names for `pipeline`, `default` and `all` expanded. An output the
/// pipeline cannot make is an error naming what it can.
pub fn resolve_outputs(
    list: &[Output],
    pipeline: Pipeline,
) -> Result<BTreeSet<Output>, ParamError> {
    let mut chosen = BTreeSet::new();
    for &output in list {
        match output {
            Output::Default => chosen.extend(pipeline.default_outputs()),
            Output::All => chosen.extend(pipeline.possible_outputs()),
            one if pipeline.possible_outputs().contains(&one) => {
                chosen.insert(one);
            }
            one => {
                let names: Vec<&str> = pipeline
                    .possible_outputs()
                    .iter()
                    .map(|o| o.name())
                    .collect();
                return Err(ParamError::new(
                    "outputs",
                    one.name(),
                    format!(
                        "default, all or an output the {} pipeline makes: {}",
                        pipeline.name(),
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sets_expand() {
        for (output, _) in Output::CHOICES {
            assert_eq!(Output::parse(output.name()), Some(*output));
            let json = serde_json::to_value(output).unwrap();
            assert_eq!(json, output.name());
        }
        assert_eq!(Output::parse("png"), None);
        for preset in [Pipeline::Mesh, Pipeline::Classic] {
            let default = resolve_outputs(&[Output::Default], preset).unwrap();
            let all = resolve_outputs(&[Output::All], preset).unwrap();
            assert!(default.is_subset(&all) && default.len() < all.len());
            assert!(resolve_outputs(&[], preset).unwrap().is_empty());
            for (output, _) in &Output::CHOICES[2..] {
                assert_eq!(
                    resolve_outputs(&[*output], preset).is_ok(),
                    all.contains(output),
                    "{output:?}"
                );
            }
        }
        let err = resolve_outputs(&[Output::Landscape], Pipeline::Mesh).unwrap_err();
        assert!(
            err.allowed.contains("the mesh pipeline makes: colormap"),
            "{err}"
        );
    }
}
