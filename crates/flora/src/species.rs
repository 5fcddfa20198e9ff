//! Species and the biome table, as data: which species grow in which biome, how densely, and
//! the shape of their crowns.

use orogen_world::ids::Biome;
use orogen_world::params::{ParamError, in_range};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// The shape of a crown, inside which attraction points are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Envelope {
    /// Widest at the crown's base, narrowing to a point at the top (conifers).
    Cone,
    /// An ellipsoid from the crown's base to the top (broadleaf trees, shrubs).
    Ellipsoid,
    /// A vertical cylinder (poplars, cypresses, junipers).
    Column,
}

/// Which pass places a species: canopy trees first, undergrowth then, kept clear of the canopy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storey {
    /// Placed in the first pass, wherever the ground allows.
    Canopy,
    /// Placed in the second pass, at least `undergrowth_clearance` times a canopy tree's disc
    /// radius away from every canopy tree.
    Undergrowth,
}

/// One species. Model space: the root at the origin, z up, the tree's height 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Species {
    /// The species' name, used by the biome table. Default: "tree". Range: non-empty, unique.
    pub name: String,
    /// Canopy or undergrowth. Default: canopy. Range: `canopy`, `undergrowth`.
    pub storey: Storey,
    /// The crown's shape. Default: ellipsoid. Range: `cone`, `ellipsoid`, `column`.
    pub envelope: Envelope,
    /// Height of the crown's bottom, as a fraction of the tree's height. Default: 0.35.
    /// Range: 0 ..= 0.9.
    pub crown_base: f64,
    /// The crown's radius, as a fraction of the tree's height. Default: 0.3. Range: 0.02 ..= 2.
    pub crown_radius: f64,
    /// The range of instance heights in metres, `[min, max]`. Default: [10, 20].
    /// Range: 0.1 ..= 200, min <= max.
    pub height_m: [f64; 2],
    /// Attraction points per 3-D model. Default: 1,500. Range: 1 ..= 100,000.
    pub attractors: u32,
    /// Attraction points per 2-D (side view) model. Default: 300. Range: 1 ..= 100,000.
    pub attractors_2d: u32,
}

impl Default for Species {
    fn default() -> Self {
        Species {
            name: "tree".into(),
            storey: Storey::Canopy,
            envelope: Envelope::Ellipsoid,
            crown_base: 0.35,
            crown_radius: 0.3,
            height_m: [10.0, 20.0],
            attractors: 1500,
            attractors_2d: 300,
        }
    }
}

/// A species growing in a biome, with its density.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Plant {
    /// A species name of the species table. Default: "". Range: a name in `flora.species`.
    pub species: String,
    /// Expected plants per mean cell area (the map's area over the number of regions).
    /// Default: 0. Range: 0, or 0.001 ..= 4.
    pub density: f64,
}

/// The plants of one biome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiomePlants {
    /// The biome's name (`forest`, `taiga`, ... as `orogen_world::ids::Biome::name`).
    /// Default: "". Range: a biome name other than ocean, lake, beach and snow, listed once.
    pub biome: String,
    /// The species that grow there. Default: none. Range: any number.
    pub plants: Vec<Plant>,
}

impl Default for Plant {
    fn default() -> Self {
        Plant {
            species: String::new(),
            density: 0.0,
        }
    }
}

fn species(
    name: &str,
    storey: Storey,
    envelope: Envelope,
    crown_base: f64,
    crown_radius: f64,
    height_m: [f64; 2],
) -> Species {
    let small = storey == Storey::Undergrowth;
    Species {
        name: name.into(),
        storey,
        envelope,
        crown_base,
        crown_radius,
        height_m,
        attractors: if small { 500 } else { 1500 },
        attractors_2d: if small { 120 } else { 300 },
    }
}

/// The default species.
pub fn default_species() -> Vec<Species> {
    use Envelope::*;
    use Storey::*;
    vec![
        species("broadleaf", Canopy, Ellipsoid, 0.35, 0.32, [15.0, 30.0]),
        species("spruce", Canopy, Cone, 0.15, 0.2, [15.0, 35.0]),
        species("kapok", Canopy, Ellipsoid, 0.55, 0.4, [30.0, 50.0]),
        species("poplar", Canopy, Column, 0.3, 0.12, [15.0, 25.0]),
        species("acacia", Canopy, Ellipsoid, 0.55, 0.45, [4.0, 9.0]),
        species("shrub", Undergrowth, Ellipsoid, 0.05, 0.45, [0.5, 2.5]),
        species("juniper", Undergrowth, Column, 0.1, 0.18, [1.0, 4.0]),
    ]
}

fn biome(name: &str, plants: &[(&str, f64)]) -> BiomePlants {
    BiomePlants {
        biome: name.into(),
        plants: plants
            .iter()
            .map(|&(species, density)| Plant {
                species: species.into(),
                density,
            })
            .collect(),
    }
}

/// The default biome table: dense forest and rainforest, sparse grassland, taiga and tundra,
/// almost nothing in desert and on mountains; nothing on water, beach or snow.
pub fn default_biomes() -> Vec<BiomePlants> {
    vec![
        biome("desert", &[("acacia", 0.005)]),
        biome(
            "grassland",
            &[("acacia", 0.02), ("poplar", 0.02), ("shrub", 0.08)],
        ),
        biome(
            "forest",
            &[("broadleaf", 0.5), ("spruce", 0.1), ("shrub", 0.4)],
        ),
        biome(
            "rainforest",
            &[("kapok", 0.3), ("broadleaf", 0.4), ("shrub", 0.6)],
        ),
        biome("taiga", &[("spruce", 0.45), ("juniper", 0.2)]),
        biome("tundra", &[("spruce", 0.01), ("shrub", 0.1)]),
        biome("mountain", &[("spruce", 0.02), ("juniper", 0.04)]),
    ]
}

impl Species {
    /// Checks every field; `at` names the species in errors (`species[2]`).
    pub fn validate(&self, at: &str) -> Result<(), ParamError> {
        if self.name.is_empty() {
            return Err(ParamError::new(
                format!("{at}.name"),
                "\"\"",
                "a non-empty name",
            ));
        }
        in_range(&format!("{at}.crown_base"), self.crown_base, 0.0..=0.9)?;
        in_range(&format!("{at}.crown_radius"), self.crown_radius, 0.02..=2.0)?;
        let [lo, hi] = self.height_m;
        in_range(&format!("{at}.height_m[0]"), lo, 0.1..=200.0)?;
        in_range(&format!("{at}.height_m[1]"), hi, lo.max(0.1)..=200.0)?;
        in_range(&format!("{at}.attractors"), self.attractors, 1..=100_000)?;
        in_range(
            &format!("{at}.attractors_2d"),
            self.attractors_2d,
            1..=100_000,
        )?;
        Ok(())
    }

    /// True when the model-space point (x, y, z) lies in the crown.
    fn in_crown(&self, x: f64, y: f64, z: f64) -> bool {
        let base = self.crown_base;
        let r = self.crown_radius;
        let h2 = (x * x + y * y) / (r * r);
        match self.envelope {
            Envelope::Cone => {
                let t = (z - base) / (1.0 - base);
                (0.0..=1.0).contains(&t) && h2.sqrt() <= 1.0 - t
            }
            Envelope::Ellipsoid => {
                let half = 0.5 * (1.0 - base);
                let dz = (z - (base + half)) / half;
                h2 + dz * dz <= 1.0
            }
            Envelope::Column => (base..=1.0).contains(&z) && h2 <= 1.0,
        }
    }

    /// `n` attraction points uniform in the 3-D crown (x, y, z), by rejection.
    pub fn attractors_3d(&self, n: usize, rng: &mut impl rand::Rng) -> Vec<[f64; 3]> {
        let r = self.crown_radius;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let x = r * (2.0 * rng.random::<f64>() - 1.0);
            let y = r * (2.0 * rng.random::<f64>() - 1.0);
            let z = self.crown_base + (1.0 - self.crown_base) * rng.random::<f64>();
            if self.in_crown(x, y, z) {
                out.push([x, y, z]);
            }
        }
        out
    }

    /// `n` attraction points uniform in the crown's side view (x, z), by rejection.
    pub fn attractors_2d(&self, n: usize, rng: &mut impl rand::Rng) -> Vec<[f64; 2]> {
        let r = self.crown_radius;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let x = r * (2.0 * rng.random::<f64>() - 1.0);
            let z = self.crown_base + (1.0 - self.crown_base) * rng.random::<f64>();
            if self.in_crown(x, 0.0, z) {
                out.push([x, z]);
            }
        }
        out
    }
}

/// The biome table resolved to species indices: per biome id, `(species_idx, density)` for
/// each storey.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FloraTable {
    /// Canopy plants per biome id.
    pub canopy: Vec<Vec<(u32, f64)>>,
    /// Undergrowth plants per biome id.
    pub undergrowth: Vec<Vec<(u32, f64)>>,
}

impl FloraTable {
    /// Resolves and checks the biome table against the species.
    pub fn new(species: &[Species], biomes: &[BiomePlants]) -> Result<Self, ParamError> {
        for (i, s) in species.iter().enumerate() {
            s.validate(&format!("species[{i}]"))?;
            if species[..i].iter().any(|t| t.name == s.name) {
                return Err(ParamError::new(
                    format!("species[{i}].name"),
                    &s.name,
                    "a name no other species has",
                ));
            }
        }
        let mut table = FloraTable {
            canopy: vec![Vec::new(); Biome::COUNT],
            undergrowth: vec![Vec::new(); Biome::COUNT],
        };
        let mut seen = [false; Biome::COUNT];
        for (i, entry) in biomes.iter().enumerate() {
            let at = format!("biomes[{i}]");
            let biome = Biome::ALL
                .iter()
                .find(|b| b.name() == entry.biome)
                .copied()
                .ok_or_else(|| {
                    ParamError::new(
                        format!("{at}.biome"),
                        &entry.biome,
                        "a biome name (desert, grassland, forest, rainforest, taiga, tundra, mountain)",
                    )
                })?;
            if biome.is_water() || matches!(biome, Biome::Beach | Biome::Snow) {
                return Err(ParamError::new(
                    format!("{at}.biome"),
                    &entry.biome,
                    "a biome where plants grow (not ocean, lake, beach or snow)",
                ));
            }
            if std::mem::replace(&mut seen[biome.id() as usize], true) {
                return Err(ParamError::new(
                    format!("{at}.biome"),
                    &entry.biome,
                    "a biome not listed before",
                ));
            }
            for (j, plant) in entry.plants.iter().enumerate() {
                let at = format!("{at}.plants[{j}]");
                let idx = species
                    .iter()
                    .position(|s| s.name == plant.species)
                    .ok_or_else(|| {
                        ParamError::new(
                            format!("{at}.species"),
                            &plant.species,
                            "the name of one of the species",
                        )
                    })?;
                if plant.density != 0.0 {
                    in_range(&format!("{at}.density"), plant.density, 0.001..=4.0)?;
                }
                let list = match species[idx].storey {
                    Storey::Canopy => &mut table.canopy,
                    Storey::Undergrowth => &mut table.undergrowth,
                };
                if plant.density > 0.0 {
                    list[biome.id() as usize].push((idx as u32, plant.density));
                }
            }
        }
        Ok(table)
    }

    /// The total density of a storey per biome id.
    pub fn totals(lists: &[Vec<(u32, f64)>]) -> Vec<f64> {
        lists
            .iter()
            .map(|l| l.iter().map(|&(_, d)| d).sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;

    #[test]
    fn default_table_resolves_and_leaves_water_beach_snow_bare() {
        let table = FloraTable::new(&default_species(), &default_biomes()).unwrap();
        for b in [Biome::Ocean, Biome::Lake, Biome::Beach, Biome::Snow] {
            assert!(table.canopy[b.id() as usize].is_empty());
            assert!(table.undergrowth[b.id() as usize].is_empty());
        }
        let canopy = FloraTable::totals(&table.canopy);
        let forest = canopy[Biome::Forest.id() as usize];
        assert!(forest >= 3.0 * canopy[Biome::Grassland.id() as usize]);
        assert!(canopy[Biome::Desert.id() as usize] < 0.1 * forest);
    }

    #[test]
    fn bad_tables_are_refused_with_the_field_named() {
        let species = default_species();
        let mut biomes = default_biomes();
        biomes[0].plants[0].species = "baobab".into();
        let err = FloraTable::new(&species, &biomes).unwrap_err();
        assert_eq!(err.param, "biomes[0].plants[0].species");
        let mut biomes = default_biomes();
        biomes.push(BiomePlants {
            biome: "beach".into(),
            plants: vec![],
        });
        assert!(FloraTable::new(&species, &biomes).is_err());
        let mut biomes = default_biomes();
        biomes[1].plants[0].density = 9.0;
        assert!(FloraTable::new(&species, &biomes).is_err());
        let mut bad = default_species();
        bad[1].height_m = [30.0, 10.0];
        assert!(FloraTable::new(&bad, &default_biomes()).is_err());
    }

    #[test]
    fn attractors_lie_in_their_envelopes() {
        let mut rng = rng_from_seed(3);
        for s in default_species() {
            for p in s.attractors_3d(300, &mut rng) {
                assert!(p[2] >= s.crown_base - 1e-12 && p[2] <= 1.0 + 1e-12);
                assert!((p[0] * p[0] + p[1] * p[1]).sqrt() <= s.crown_radius + 1e-12);
                assert!(s.in_crown(p[0], p[1], p[2]));
            }
            for p in s.attractors_2d(100, &mut rng) {
                assert!(s.in_crown(p[0], 0.0, p[1]));
            }
        }
        // A cone narrows upward: near the top, points hug the axis.
        let cone = &default_species()[1];
        let pts = cone.attractors_3d(2000, &mut rng);
        for p in pts.iter().filter(|p| p[2] > 0.9) {
            assert!((p[0] * p[0] + p[1] * p[1]).sqrt() <= 0.1 * cone.crown_radius / 0.85 + 1e-9);
        }
    }
}
