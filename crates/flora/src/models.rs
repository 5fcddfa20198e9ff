//! Tree models: a handful per species, grown once per world and shared by every instance.

use rayon::prelude::*;

use crate::Error;
use crate::colonize::{GrowthParams, Skeleton, grow};
use crate::species::Species;

/// One tree model of a species: a 3-D skeleton for meshes and a 2-D side view for the map.
///
/// Model space: the root at the origin, z up, lengths in tree heights (an instance of height
/// `h` metres scales the model by `h`). 3-D nodes are (x, y, z); 2-D nodes are (x, z).
#[derive(Clone, Debug, PartialEq)]
pub struct TreeModel {
    /// The species index (into the species table).
    pub species: u32,
    /// The 3-D skeleton (x, y, z), grown from attractors in the crown, for meshes.
    pub skeleton_3d: Skeleton<3>,
    /// The 2-D side view (x, z), grown from attractors in the crown's outline, for the map.
    pub skeleton_2d: Skeleton<2>,
}

/// Grows `per_species` models of every species, model `species_idx * per_species + k` from
/// `orogen_world::seed::item_seed(seed, model_idx)`. Models grow in parallel; the result does not
/// depend on the thread count.
pub fn grow_models(
    species: &[Species],
    growth: &GrowthParams,
    per_species: u32,
    seed: u64,
) -> Result<Vec<TreeModel>, Error> {
    let per = per_species as usize;
    (0..species.len() * per)
        .into_par_iter()
        .map(|model_idx| {
            let s = &species[model_idx / per];
            let mut rng = orogen_world::seed::rng_from_seed(orogen_world::seed::item_seed(
                seed,
                model_idx as u64,
            ));
            let a3 = s.attractors_3d(s.attractors as usize, &mut rng);
            let a2 = s.attractors_2d(s.attractors_2d as usize, &mut rng);
            let grow_seed = rand::Rng::next_u64(&mut rng);
            Ok(TreeModel {
                species: (model_idx / per) as u32,
                skeleton_3d: grow([0.0; 3], &a3, growth, grow_seed)?,
                skeleton_2d: grow([0.0; 2], &a2, growth, grow_seed ^ 0x2D)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::species::default_species;

    #[test]
    fn every_default_species_grows_a_full_crown_from_its_root() {
        let species = default_species();
        let growth = GrowthParams::default();
        let models = grow_models(&species, &growth, 1, 42).unwrap();
        assert_eq!(models.len(), species.len());
        for (m, s) in models.iter().zip(&species) {
            let sk = &m.skeleton_3d;
            assert!(
                sk.consumed as f64 >= 0.9 * s.attractors as f64,
                "{}: {} of {} consumed ({:?})",
                s.name,
                sk.consumed,
                s.attractors,
                sk.stop
            );
            let top = sk.nodes.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
            assert!(
                top > 0.85 && top < 1.0 + growth.kill_distance,
                "{}: top {top}",
                s.name
            );
            let sk2 = &m.skeleton_2d;
            assert!(
                sk2.consumed as f64 >= 0.9 * s.attractors_2d as f64,
                "{}",
                s.name
            );
        }
    }
}
