//! Whittaker classification: a table of elevation bands, each split into moisture zones.

use orogen_world::ids::{Biome, water};
use orogen_world::params::ParamError;
use serde::{Deserialize, Serialize};

/// How the reference's normalised land elevation maps to orogen's stored elevation.
///
/// The reference classifies with `e = clip((alt - w) / 0.25, 0, 1)` where, on land,
/// `alt = w + s (1 - w)` and `s` is the power-curved land height (the reference never rescales
/// it). orogen stores land elevation as `E = s / s_peak`, where `s_peak` is the world's highest
/// `s`, so `e = E s_peak (1 - w) / 0.25` and a reference cut `e_c` becomes
/// `E_c = e_c 0.25 / ((1 - w) s_peak)`. The default table takes the default water level
/// (w = 0.35) and `s_peak` = [`REFERENCE_PEAK`], the typical highest land of default worlds,
/// so `E_c = e_c` x [`REFERENCE_TO_STORED`].
pub const REFERENCE_PEAK: f32 = 1.3;

/// The factor from the reference's `e` to orogen's stored elevation:
/// `0.25 / ((1 - 0.35) REFERENCE_PEAK)`.
pub const REFERENCE_TO_STORED: f32 = 0.25 / (0.65 * REFERENCE_PEAK);

/// One moisture zone of a band: the biome of moistures from `from` up to the next zone's `from`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    /// The lowest moisture of the zone, in 0 ..= 1; the first zone of a band starts at 0.
    pub from: f32,
    /// The biome, by name (`beach`, `desert`, `grassland`, `forest`, `rainforest`, `taiga`,
    /// `tundra`, `mountain`, `snow`).
    #[serde(with = "biome_name")]
    pub biome: Biome,
}

/// One elevation band: land from `from` up to the next band's `from`, split by moisture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    /// The lowest stored land elevation of the band, in 0 ..= 1; the first band starts at 0.
    pub from: f32,
    /// The moisture zones, ascending `from`, the first at 0.
    pub zones: Vec<Zone>,
}

/// The Whittaker table: elevation bands (ascending), each with moisture zones (ascending).
///
/// Classification is a pure function of (stored elevation, moisture) for land; the default is
/// the reference's table with orogen's elevation cuts ([`DEFAULT_CUTS`]);
/// [`Whittaker::reference`] has the reference's own cuts, translated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Whittaker {
    /// Ascending elevation bands, the first starting at 0.
    pub bands: Vec<Band>,
}

fn zone(from: f32, biome: Biome) -> Zone {
    Zone { from, biome }
}

/// orogen's default elevation cuts (stored land elevation, highest land = 1) of the six bands.
///
/// The reference's cuts, translated faithfully ([`Whittaker::reference`]), put every land above
/// `ln` 0.39 under snow: 22-63% of the land of default worlds is snow and mountains cover most
/// of the rest. orogen keeps the reference's table (the same bands and moisture zones, in the
/// same order) but spreads the bands over the relief: a narrow beach, broad lowlands, and snow
/// only on the highest third of the relief.
pub const DEFAULT_CUTS: [f32; 6] = [0.0, 0.03, 0.12, 0.22, 0.40, 0.68];

impl Default for Whittaker {
    fn default() -> Self {
        Whittaker::with_cuts(DEFAULT_CUTS)
    }
}

impl Whittaker {
    /// The reference program's table with its elevation cuts translated as
    /// [`REFERENCE_TO_STORED`] says (snowy: see [`DEFAULT_CUTS`]).
    pub fn reference() -> Self {
        let k = REFERENCE_TO_STORED;
        Whittaker::with_cuts([0.0, 0.10 * k, 0.25 * k, 0.35 * k, 0.60 * k, 0.85 * k])
    }

    /// The reference's bands and moisture zones with these six elevation cuts.
    pub fn with_cuts(cuts: [f32; 6]) -> Self {
        let band = |i: usize, zones: Vec<Zone>| Band {
            from: cuts[i],
            zones,
        };
        use Biome::*;
        Whittaker {
            bands: vec![
                band(0, vec![zone(0.0, Beach)]),
                band(
                    1,
                    vec![
                        zone(0.0, Desert),
                        zone(0.3, Grassland),
                        zone(0.6, Rainforest),
                    ],
                ),
                band(
                    2,
                    vec![zone(0.0, Desert), zone(0.3, Grassland), zone(0.6, Forest)],
                ),
                band(3, vec![zone(0.0, Grassland), zone(0.4, Taiga)]),
                band(
                    4,
                    vec![zone(0.0, Mountain), zone(0.4, Tundra), zone(0.7, Snow)],
                ),
                band(5, vec![zone(0.0, Snow)]),
            ],
        }
    }
}

fn check_cuts(name: &str, cuts: impl Iterator<Item = f32>) -> Result<(), ParamError> {
    let mut prev: Option<f32> = None;
    for (i, from) in cuts.enumerate() {
        let param = format!("{name}[{i}].from");
        match prev {
            None if from != 0.0 => {
                return Err(ParamError::new(
                    param,
                    from,
                    "0 (the first entry starts at 0)",
                ));
            }
            Some(p) if !(from > p && from <= 1.0) => {
                return Err(ParamError::new(
                    param,
                    from,
                    format!("above the previous entry ({p}) and at most 1"),
                ));
            }
            _ => {}
        }
        prev = Some(from);
    }
    if prev.is_none() {
        return Err(ParamError::new(name, "[]", "at least one entry"));
    }
    Ok(())
}

impl Whittaker {
    /// Checks that bands and zones start at 0, ascend strictly within 0 ..= 1, and name land
    /// biomes only.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_cuts("bands", self.bands.iter().map(|b| b.from))?;
        for (i, band) in self.bands.iter().enumerate() {
            let name = format!("bands[{i}].zones");
            check_cuts(&name, band.zones.iter().map(|z| z.from))?;
            if let Some((j, z)) = band
                .zones
                .iter()
                .enumerate()
                .find(|(_, z)| z.biome.is_water())
            {
                return Err(ParamError::new(
                    format!("{name}[{j}].biome"),
                    z.biome.name(),
                    "a land biome (beach ..= snow)",
                ));
            }
        }
        Ok(())
    }

    /// The land biome at stored elevation `elevation` (clamped to 0 ..= 1) and moisture
    /// `moisture` (clamped to 0 ..= 1). NaN counts as 0. The table must be valid.
    pub fn land_biome(&self, elevation: f32, moisture: f32) -> Biome {
        let e = clamp01(elevation);
        let m = clamp01(moisture);
        let band = last_from(&self.bands, e, |b| b.from);
        match band {
            Some(band) => last_from(&band.zones, m, |z| z.from).map_or(Biome::Beach, |z| z.biome),
            None => Biome::Beach,
        }
    }

    /// The biome of a region: ocean and lake by its water kind, else [`Whittaker::land_biome`].
    pub fn classify(&self, elevation: f32, moisture: f32, water_kind: u8) -> Biome {
        match water_kind {
            water::OCEAN => Biome::Ocean,
            water::LAKE => Biome::Lake,
            _ => self.land_biome(elevation, moisture),
        }
    }
}

fn clamp01(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// The last entry whose `from` is <= v (entries ascend).
fn last_from<T>(items: &[T], v: f32, from: impl Fn(&T) -> f32) -> Option<&T> {
    let n = items.partition_point(|it| from(it) <= v);
    n.checked_sub(1).map(|i| &items[i])
}

/// Classifies every region (kernel on plain slices): `region_biome[r]` is the id of
/// [`Whittaker::classify`] of region r.
pub fn classify_regions(
    table: &Whittaker,
    elevation: &[f32],
    moisture: &[f32],
    water_kind: &[u8],
) -> Vec<u8> {
    elevation
        .iter()
        .zip(moisture)
        .zip(water_kind)
        .map(|((&e, &m), &w)| table.classify(e, m, w).id())
        .collect()
}

mod biome_name {
    use orogen_world::ids::Biome;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(biome: &Biome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(biome.name())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Biome, D::Error> {
        let name = String::deserialize(d)?;
        Biome::ALL
            .iter()
            .copied()
            .find(|b| b.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown biome `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_table_is_valid_and_follows_the_reference() {
        let t = Whittaker::reference();
        t.validate().unwrap();
        let k = REFERENCE_TO_STORED;
        // Reference e -> stored E; each row of the reference's table.
        let at = |e: f32, m: f32| t.land_biome(e * k, m);
        assert_eq!(at(0.05, 0.9), Biome::Beach);
        assert_eq!(at(0.2, 0.1), Biome::Desert);
        assert_eq!(at(0.2, 0.5), Biome::Grassland);
        assert_eq!(at(0.2, 0.7), Biome::Rainforest);
        assert_eq!(at(0.3, 0.7), Biome::Forest);
        assert_eq!(at(0.5, 0.2), Biome::Grassland);
        assert_eq!(at(0.5, 0.5), Biome::Taiga);
        assert_eq!(at(0.7, 0.2), Biome::Mountain);
        assert_eq!(at(0.7, 0.5), Biome::Tundra);
        assert_eq!(at(0.7, 0.8), Biome::Snow);
        assert_eq!(at(0.9, 0.0), Biome::Snow);
        assert_eq!(t.land_biome(1.0, 0.0), Biome::Snow);
        assert_eq!(t.classify(0.5, 0.5, water::OCEAN), Biome::Ocean);
        assert_eq!(t.classify(0.5, 0.5, water::LAKE), Biome::Lake);
    }

    #[test]
    fn default_table_has_the_reference_zones_on_orogen_cuts() {
        let t = Whittaker::default();
        t.validate().unwrap();
        let r = Whittaker::reference();
        for (band, reference) in t.bands.iter().zip(&r.bands) {
            assert_eq!(band.zones, reference.zones);
        }
        let cuts: Vec<f32> = t.bands.iter().map(|b| b.from).collect();
        assert_eq!(cuts, DEFAULT_CUTS);
        assert_eq!(t.land_biome(0.01, 0.5), Biome::Beach);
        assert_eq!(t.land_biome(0.5, 0.1), Biome::Mountain);
        assert_eq!(t.land_biome(0.9, 0.1), Biome::Snow);
    }

    /// The default table against the README's legend, written out by hand (not computed by
    /// the code under test): each zone inside and at its edges (a zone holds its lower edge).
    #[test]
    fn the_default_table_classifies_as_documented() {
        use Biome::*;
        let t = Whittaker::default();
        let expected: &[(f32, f32, Biome)] = &[
            // The beach: the lowest land, any moisture.
            (0.0, 0.0, Beach),
            (0.029, 1.0, Beach),
            // Low land [0.03, 0.12): desert, grassland from 0.3, rainforest from 0.6.
            (0.03, 0.0, Desert),
            (0.1, 0.29, Desert),
            (0.1, 0.3, Grassland),
            (0.11, 0.59, Grassland),
            (0.11, 0.6, Rainforest),
            (0.119, 1.0, Rainforest),
            // Upper low land [0.12, 0.22): desert, grassland from 0.3, forest from 0.6.
            (0.12, 0.1, Desert),
            (0.2, 0.45, Grassland),
            (0.2, 0.6, Forest),
            (0.219, 0.99, Forest),
            // Mid land [0.22, 0.40): grassland, taiga from 0.4.
            (0.22, 0.0, Grassland),
            (0.39, 0.39, Grassland),
            (0.3, 0.4, Taiga),
            (0.399, 1.0, Taiga),
            // High land [0.40, 0.68): mountain, tundra from 0.4, snow from 0.7.
            (0.4, 0.0, Mountain),
            (0.6, 0.39, Mountain),
            (0.5, 0.4, Tundra),
            (0.67, 0.69, Tundra),
            (0.5, 0.7, Snow),
            // The highest land [0.68, 1]: snow.
            (0.68, 0.0, Snow),
            (1.0, 0.5, Snow),
            // Out of range and NaN inputs are clamped into the table.
            (-3.0, 0.5, Beach),
            (7.0, 0.0, Snow),
            (0.5, 2.0, Snow),
            (0.5, -1.0, Mountain),
            (f32::NAN, f32::NAN, Beach),
        ];
        for &(e, m, biome) in expected {
            assert_eq!(t.land_biome(e, m), biome, "elevation {e}, moisture {m}");
        }
        // Water kinds come first, whatever the elevation and moisture.
        let ids = classify_regions(&t, &[0.5, 0.5, 0.5], &[0.3, 0.3, 0.3], &[0, 1, 2]);
        assert_eq!(
            ids,
            vec![Mountain.id(), Biome::Ocean.id(), Biome::Lake.id()]
        );
    }

    #[test]
    fn bad_tables_are_refused_with_the_entry_named() {
        let mut t = Whittaker::default();
        t.bands[2].from = t.bands[1].from;
        let err = t.validate().unwrap_err();
        assert_eq!(err.param, "bands[2].from");
        let mut t = Whittaker::default();
        t.bands[1].zones[0].biome = Biome::Ocean;
        assert_eq!(t.validate().unwrap_err().param, "bands[1].zones[0].biome");
        let mut t = Whittaker::default();
        t.bands[0].zones.clear();
        assert!(t.validate().is_err());
        let mut t = Whittaker::default();
        t.bands[0].from = 0.1;
        assert!(t.validate().is_err());
        let mut t = Whittaker::default();
        t.bands[3].zones[1].from = f32::NAN;
        assert!(t.validate().is_err());
    }

    #[test]
    fn table_round_trips_through_serde_with_biome_names() {
        let t = Whittaker::default();
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.contains("\"rainforest\""));
        let back: Whittaker = serde_json::from_str(&text).unwrap();
        assert_eq!(back, t);
        assert!(serde_json::from_str::<Whittaker>(&text.replace("taiga", "jungle")).is_err());
    }
}
