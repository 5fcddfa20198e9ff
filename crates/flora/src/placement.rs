//! Placement: canopy trees by variable-radius Poisson disc (the radius from the local density),
//! then undergrowth kept clear of the canopy.

use orogen_world::seed::{item_seed, rng_from_seed};
use rand::{Rng, RngExt};
use rayon::prelude::*;

use crate::locate::DiscMask;
use crate::species::{FloraTable, Species};
use orogen_sampling::{DiscPoint, Rect, SamplingError, poisson_disc_masked};

/// Maximal Poisson-disc sets of radius r hold about this many points per r^2 of area (measured
/// on `poisson_disc_masked` with a constant radius: 0.603 ..= 0.605 over seeds 1-3 at
/// 60,000 points), so a density rho needs r = sqrt(PACKING / rho).
pub const PACKING: f64 = 0.60;

/// What placement needs to know of the ground: the map, the biome of each region and how to find
/// the region holding a point.
#[derive(Clone, Copy)]
pub struct Ground<'a> {
    /// Map width.
    pub width: f64,
    /// Map height.
    pub height: f64,
    /// Biome id (`orogen_world::ids::Biome`) per region.
    pub region_biome: &'a [u8],
    /// The region holding a point (`None`: nothing grows there).
    pub region_of: &'a (dyn Fn([f64; 2]) -> Option<usize> + Sync),
    /// True where nothing may stand whatever the biome (a river and its banks).
    pub blocked: &'a (dyn Fn([f64; 2]) -> bool + Sync),
}

impl std::fmt::Debug for Ground<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ground")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("n_regions", &self.region_biome.len())
            .finish_non_exhaustive()
    }
}

/// Placement knobs (the stage's `Params` carry them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Multiplies every density.
    pub density_scale: f64,
    /// Undergrowth keeps this fraction of a canopy tree's disc radius from it.
    pub undergrowth_clearance: f64,
    /// Models per species.
    pub models_per_species: u32,
}

/// Plant instances, canopy first then undergrowth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instances {
    /// Positions in map units.
    pub xy: Vec<[f64; 2]>,
    /// Species index per instance.
    pub species: Vec<u32>,
    /// Height in metres.
    pub size: Vec<f32>,
    /// Tree model index (`species * models_per_species + k`).
    pub model: Vec<u32>,
    /// A per-instance seed (rotation, tint, ...).
    pub seed: Vec<u32>,
    /// Region holding each instance.
    pub region: Vec<u32>,
    /// How many of the instances are canopy trees (the first ones).
    pub n_canopy: usize,
}

impl Instances {
    /// The number of instances.
    pub fn len(&self) -> usize {
        self.xy.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.xy.is_empty()
    }
}

/// Places canopy trees then undergrowth on the ground (see the module docs).
///
/// Densities are plants per mean cell area (the map's area over the number of regions). The
/// result depends only on the inputs and `seed`, not on the thread count. Errors when the map
/// is too large for the densest biome's spacing (more than
/// [`orogen_sampling::MAX_AREA_OVER_R2`] discs).
pub fn place(
    ground: &Ground<'_>,
    species: &[Species],
    table: &FloraTable,
    placement: &Placement,
    seed: u64,
) -> Result<Instances, SamplingError> {
    let n_regions = ground.region_biome.len();
    if n_regions == 0 || placement.density_scale == 0.0 {
        return Ok(Instances::default());
    }
    let map = Rect::from_size(ground.width, ground.height)?;
    let cell_area = ground.width * ground.height / n_regions as f64;
    let spacing = cell_area.sqrt();
    let radii = |lists: &[Vec<(u32, f64)>]| -> Vec<Option<f64>> {
        FloraTable::totals(lists)
            .into_iter()
            .map(|d| {
                let d = d * placement.density_scale;
                (d > 0.0).then(|| (PACKING * cell_area / d).sqrt())
            })
            .collect()
    };
    // Radii of the biomes present only: an absent dense biome must not shrink the grid.
    let mut present = vec![false; table.canopy.len()];
    for &b in ground.region_biome {
        if let Some(p) = present.get_mut(b as usize) {
            *p = true;
        }
    }
    let keep_present = |r: Vec<Option<f64>>| -> Vec<Option<f64>> {
        r.into_iter()
            .zip(&present)
            .map(|(r, &p)| r.filter(|_| p))
            .collect()
    };
    let canopy_r = keep_present(radii(&table.canopy));
    let under_r = keep_present(radii(&table.undergrowth));
    let biome_radius = |radii: &[Option<f64>], q: [f64; 2]| -> Option<f64> {
        let region = (ground.region_of)(q)?;
        let biome = *ground.region_biome.get(region)? as usize;
        radii.get(biome).copied().flatten()
    };
    let mut rng = rng_from_seed(seed);
    let canopy_seed = rng.next_u64();
    let under_seed = rng.next_u64();
    let attr_seed = rng.next_u64();

    let sample = |radii: &[Option<f64>], allowed: &dyn Fn([f64; 2]) -> bool, s: u64| {
        let Some(r_min) = radii.iter().flatten().copied().reduce(f64::min) else {
            return Ok(Vec::new());
        };
        poisson_disc_masked(
            &mut rng_from_seed(s),
            map,
            r_min,
            spacing.max(r_min),
            |q| biome_radius(radii, q),
            allowed,
        )
    };
    let canopy: Vec<DiscPoint> = sample(&canopy_r, &|q| !(ground.blocked)(q), canopy_seed)?;
    let clear = placement.undergrowth_clearance;
    let mask = DiscMask::new(
        canopy.iter().map(|&(p, r)| (p, clear * r)).collect(),
        ground.width,
        ground.height,
        canopy_r.iter().flatten().copied().fold(spacing, f64::min),
    );
    let under: Vec<DiscPoint> = sample(
        &under_r,
        &|q| !(ground.blocked)(q) && !mask.contains(q),
        under_seed,
    )?;

    let n_canopy = canopy.len();
    let per = placement.models_per_species;
    let attrs: Vec<(u32, u32, f32, u32, u32)> = canopy
        .par_iter()
        .chain(under.par_iter())
        .enumerate()
        .map(|(i, &(p, _))| {
            let item = item_seed(attr_seed, i as u64);
            let mut rng = rng_from_seed(item);
            // The sampler accepted p, so it has a region with plants of this storey.
            let region = (ground.region_of)(p).unwrap_or(0);
            let biome = ground.region_biome[region] as usize;
            let lists = if i < n_canopy {
                &table.canopy
            } else {
                &table.undergrowth
            };
            let plants = &lists[biome];
            let total: f64 = plants.iter().map(|&(_, d)| d).sum();
            let mut pick = rng.random::<f64>() * total;
            let mut sp = plants.last().map_or(0, |&(s, _)| s);
            for &(s, d) in plants {
                if pick < d {
                    sp = s;
                    break;
                }
                pick -= d;
            }
            let [lo, hi] = species[sp as usize].height_m;
            let size = (lo + (hi - lo) * rng.random::<f64>()) as f32;
            let model = sp * per + rng.random_range(0..per);
            (sp, region as u32, size, model, item as u32)
        })
        .collect();
    Ok(Instances {
        xy: canopy.iter().chain(&under).map(|&(p, _)| p).collect(),
        species: attrs.iter().map(|a| a.0).collect(),
        region: attrs.iter().map(|a| a.1).collect(),
        size: attrs.iter().map(|a| a.2).collect(),
        model: attrs.iter().map(|a| a.3).collect(),
        seed: attrs.iter().map(|a| a.4).collect(),
        n_canopy,
    })
}
