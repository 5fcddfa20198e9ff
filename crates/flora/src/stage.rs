//! The flora stage: parameters and the pipeline adapter.

use ndarray::{Array1, Array2};
use orogen_world::ids::{Biome, water};
use orogen_world::params::{ParamError, ParamInfo, Spec, check_specs, describe_specs};
use orogen_world::seed::stage_rng;
use orogen_world::{Domain, Layer, World};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::colonize::GrowthParams;
use crate::locate::{SegmentMask, SiteLocator};
use crate::models::{TreeModel, grow_models};
use crate::placement::{Ground, Instances, Placement, place};
use crate::species::{BiomePlants, FloraTable, Species, default_biomes, default_species};

/// The most plants per mean cell area a storey may reach in any biome, density scale included:
/// it bounds the sampler's grid and the instance count.
pub const MAX_DENSITY: f64 = 8.0;

/// The flora stage's parameters.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Space colonisation parameters of every model (lengths in tree heights).
    pub growth: GrowthParams,
    /// Tree models grown per species, shared by its instances.
    pub models_per_species: u32,
    /// Multiplies every density of the biome table.
    pub density_scale: f64,
    /// Undergrowth keeps this fraction of a canopy tree's disc radius from it.
    pub undergrowth_clearance: f64,
    /// Plants keep this many mean cell spacings from a river's course.
    pub river_clearance: f64,
    /// The species table.
    pub species: Vec<Species>,
    /// Per biome, the species growing there and their densities (plants per mean cell area).
    pub biomes: Vec<BiomePlants>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            growth: GrowthParams::default(),
            models_per_species: 4,
            density_scale: 1.0,
            undergrowth_clearance: 0.5,
            river_clearance: 0.25,
            species: default_species(),
            biomes: default_biomes(),
        }
    }
}

impl Params {
    /// Every parameter outside the growth, described once.
    pub const SPECS: &[Spec<Params>] = &[
        Spec::int(
            "models_per_species",
            "Tree models grown per species, shared by its instances",
            1,
            64,
            |p: &Params| p.models_per_species.into(),
        ),
        Spec::float(
            "density_scale",
            "Multiplies every plant density of the biome table",
            0.0,
            10.0,
            |p: &Params| p.density_scale,
        ),
        Spec::float(
            "undergrowth_clearance",
            "Undergrowth keeps this fraction of a canopy tree's disc radius from it",
            0.0,
            2.0,
            |p: &Params| p.undergrowth_clearance,
        ),
        Spec::float(
            "river_clearance",
            "Plants keep this far from a river's course",
            0.0,
            5.0,
            |p: &Params| p.river_clearance,
        )
        .unit("cell spacings"),
        Spec::other(
            "species",
            "The species table",
            "a list of species (see the crate docs)",
        ),
        Spec::other(
            "biomes",
            "Per biome, the species growing there and their densities",
            "a list naming species of the table",
        ),
    ];

    /// Every parameter of the stage (paths relative to these params).
    pub fn param_table() -> Vec<ParamInfo> {
        let mut rows = describe_specs("growth.", GrowthParams::SPECS);
        rows.extend(describe_specs("", Self::SPECS));
        rows
    }

    /// Checks every field, the species and the biome table.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.growth
            .validate_for_trees()
            .map_err(|e| e.prefixed("growth."))?;
        check_specs(self, Self::SPECS)?;
        let table = FloraTable::new(&self.species, &self.biomes)?;
        for (storey, lists) in [
            ("canopy", &table.canopy),
            ("undergrowth", &table.undergrowth),
        ] {
            for (biome, total) in FloraTable::totals(lists).into_iter().enumerate() {
                let scaled = total * self.density_scale;
                if scaled > MAX_DENSITY {
                    let name = Biome::from_id(biome as u8).map_or("?", Biome::name);
                    return Err(ParamError::new(
                        "density_scale",
                        self.density_scale,
                        format!(
                            "low enough that every biome's {storey} density times it stays at most \
                             {MAX_DENSITY} plants per cell ({name}: {total} x {})",
                            self.density_scale
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The resolved biome table.
    pub fn table(&self) -> Result<FloraTable, ParamError> {
        FloraTable::new(&self.species, &self.biomes)
    }

    fn placement(&self) -> Placement {
        Placement {
            density_scale: self.density_scale,
            undergrowth_clearance: self.undergrowth_clearance,
            models_per_species: self.models_per_species,
        }
    }
}

/// Runs the flora stage on a world.
///
/// Reads `region_biome` (an error when absent: run the biome stage first), and `region_water`
/// and `rivers` when present (nothing grows on water or within `river_clearance` of a river).
/// Writes the instances (`flora_xy` f64 n x 2, `flora_species` u32, `flora_size` f32 metres,
/// `flora_model` u32, `flora_seed` u32, `flora_region` u32 region ids) and the models (`tree_nodes` ragged f32 rows x, y, z,
/// radius; `tree_parent` ragged i32, -1 at the root, indices within the model; the same for the
/// 2-D side views as `tree_nodes_2d` (x, z, radius) and `tree_parent_2d`; `tree_model_species`
/// u32 per model).
pub fn run(world: &mut World, params: &Params) -> Result<(), Error> {
    plant(world, params)?.write(world)
}

/// What the flora stage grows on a world, not yet written into it: [`plant`] then
/// [`Planted::write`] is [`run`].
#[derive(Clone, Debug)]
pub struct Planted {
    instances: Instances,
    /// `None` from [`plant_instances`].
    models: Option<Vec<TreeModel>>,
}

impl Planted {
    /// The instances planted, in the order [`Planted::write`] writes them (`flora_xy` holds
    /// their `xy`).
    pub fn instances(&self) -> &Instances {
        &self.instances
    }

    /// Writes the stage's layers (see [`run`]; the instances' alone from [`plant_instances`]).
    pub fn write(&self, world: &mut World) -> Result<(), Error> {
        write_instances(world, &self.instances)?;
        match &self.models {
            Some(models) => write_models(world, models),
            None => Ok(()),
        }
    }
}

/// [`run`]'s work on a world it only reads, so that other work reading the same world (the
/// outputs that show no trees) can run beside it.
pub fn plant(world: &World, params: &Params) -> Result<Planted, Error> {
    plant_with(world, params, true)
}

/// [`plant`] without the tree models: the same instances (`flora_*` layers; each instance's
/// `flora_model` names the model it would use), no `tree_*` layers. For what shows trees as
/// points, not as meshes (a map, a preview): the models' growth is a fixed cost, about half
/// the stage's at 50,000 cells.
pub fn plant_instances(world: &World, params: &Params) -> Result<Planted, Error> {
    plant_with(world, params, false)
}

/// [`plant`], growing the tree models or not (`models`).
fn plant_with(world: &World, params: &Params, models: bool) -> Result<Planted, Error> {
    params.validate()?;
    let table = params.table()?;
    let mesh = world.mesh()?;
    let n_regions = mesh.n_regions();
    let mut region_biome: Vec<u8> = world.view1::<u8>("region_biome")?.to_vec();
    if region_biome.len() != n_regions {
        return Err(orogen_world::WorldError::BadLayer {
            name: "region_biome".into(),
            problem: format!("has {} rows for {n_regions} regions", region_biome.len()),
        }
        .into());
    }
    if world.has_layer("region_water") {
        let kinds = world.water_kinds()?;
        for (b, &w) in region_biome.iter_mut().zip(kinds.iter()) {
            if w == water::OCEAN {
                *b = Biome::Ocean.id();
            } else if w != water::LAND {
                *b = Biome::Lake.id();
            }
        }
    }
    let (width, height) = (world.meta.width, world.meta.height);
    let sites: Vec<[f64; 2]> = mesh
        .region_xy
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1]])
        .collect();
    let locator = SiteLocator::new(sites, width, height);
    let rivers = river_polylines(world)?;
    let spacing = (width * height / n_regions.max(1) as f64).sqrt();
    let mask = SegmentMask::new(&rivers, params.river_clearance * spacing, width, height);

    let mut rng = stage_rng(world.meta.seed, "flora");
    let models_seed = rng.next_u64();
    let place_seed = rng.next_u64();
    let ground = Ground {
        width,
        height,
        region_biome: &region_biome,
        region_of: &|p| locator.region_of(p),
        blocked: &|p| mask.contains(p),
    };
    // The models and the placement do not depend on each other (each has its own seed): side
    // by side.
    let (models, instances) = rayon::join(
        || {
            models
                .then(|| {
                    grow_models(
                        &params.species,
                        &params.growth,
                        params.models_per_species,
                        models_seed,
                    )
                })
                .transpose()
        },
        || {
            place(
                &ground,
                &params.species,
                &table,
                &params.placement(),
                place_seed,
            )
        },
    );
    Ok(Planted {
        models: models?,
        instances: instances?,
    })
}

/// The river polylines (map coordinates) of the `rivers` layer, if any.
fn river_polylines(world: &World) -> Result<Vec<Vec<[f64; 2]>>, Error> {
    if !world.has_layer("rivers") {
        return Ok(Vec::new());
    }
    let mesh = world.mesh()?;
    let offsets = world.offsets("rivers")?;
    let ids = world.view1::<u32>("rivers")?;
    let n_corners = mesh.n_corners();
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let mut line = Vec::with_capacity((w[1] - w[0]) as usize);
        let (start, end) = (w[0] as usize, w[1] as usize);
        for &c in ids.iter().skip(start).take(end.saturating_sub(start)) {
            let c = c as usize;
            if c >= n_corners {
                return Err(orogen_world::WorldError::BadLayer {
                    name: "rivers".into(),
                    problem: format!("corner {c} out of range"),
                }
                .into());
            }
            line.push([mesh.corner_xy[[c, 0]], mesh.corner_xy[[c, 1]]]);
        }
        out.push(line);
    }
    Ok(out)
}

fn write_instances(world: &mut World, inst: &Instances) -> Result<(), Error> {
    let n = inst.len();
    let xy = Array2::from_shape_fn((n, 2), |(i, k)| inst.xy[i][k]);
    world.set_layer("flora_xy", Domain::Free, xy.into_dyn())?;
    let vec_u32 = |v: &[u32]| Array1::from(v.to_vec()).into_dyn();
    world.set_layer("flora_species", Domain::Free, vec_u32(&inst.species))?;
    world.set_values("flora_size", Domain::Free, inst.size.clone())?;
    world.set_layer("flora_model", Domain::Free, vec_u32(&inst.model))?;
    world.set_layer("flora_seed", Domain::Free, vec_u32(&inst.seed))?;
    world.insert_layer(
        "flora_region",
        Layer {
            domain: Domain::Free,
            index_of: Some(Domain::Region),
            offsets: None,
            values: vec_u32(&inst.region).into(),
        },
    )?;
    Ok(())
}

/// Skeletons as ragged layer parts: offsets (one list per skeleton), rows `(coords.., radius)`
/// and the parent within the skeleton (-1 at the root).
pub(crate) fn skeleton_rows<const D: usize>(
    skeletons: &[&crate::Skeleton<D>],
) -> (Array1<u32>, Array2<f32>, Array1<i32>) {
    let mut offsets = vec![0u32];
    let total: usize = skeletons.iter().map(|s| s.nodes.len()).sum();
    let mut rows = Array2::<f32>::zeros((total, D + 1));
    let mut parent = Vec::with_capacity(total);
    let mut row = 0;
    for sk in skeletons {
        for (i, p) in sk.nodes.iter().enumerate() {
            for k in 0..D {
                rows[[row, k]] = p[k] as f32;
            }
            rows[[row, D]] = sk.radius[i] as f32;
            parent.push(sk.parent[i].map_or(-1, |p| p as i32));
            row += 1;
        }
        offsets.push(row as u32);
    }
    (Array1::from(offsets), rows, Array1::from(parent))
}

fn write_models(world: &mut World, models: &[TreeModel]) -> Result<(), Error> {
    let s3: Vec<_> = models.iter().map(|m| &m.skeleton_3d).collect();
    let s2: Vec<_> = models.iter().map(|m| &m.skeleton_2d).collect();
    for (suffix, (offsets, rows, parent)) in [("", skeleton_rows(&s3)), ("_2d", skeleton_rows(&s2))]
    {
        world.insert_layer(
            &format!("tree_nodes{suffix}"),
            Layer::ragged(Domain::Free, offsets.clone(), rows.into_dyn()),
        )?;
        world.insert_layer(
            &format!("tree_parent{suffix}"),
            Layer::ragged(Domain::Free, offsets, parent.into_dyn()),
        )?;
    }
    let species: Vec<u32> = models.iter().map(|m| m.species).collect();
    world.set_values("tree_model_species", Domain::Free, species)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::segment_distance;
    use orogen_world::{Csr, DualMesh, WorldMeta};

    /// A lattice world of (n + 1)^2 sites on the unit square, two triangles per square, with
    /// biomes in vertical bands and one river running down the forest band.
    fn lattice_world(n: usize, seed: u64) -> World {
        let h = 1.0 / n as f64;
        let m = n + 1;
        let id = |i: usize, j: usize| (j * m + i) as u32;
        let region_xy = Array2::from_shape_fn((m * m, 2), |(r, k)| {
            let (i, j) = (r % m, r / m);
            if k == 0 { i as f64 * h } else { j as f64 * h }
        });
        let boundary = Array1::from_shape_fn(m * m, |r| {
            let (i, j) = (r % m, r / m);
            u8::from(i == 0 || j == 0 || i == n || j == n)
        });
        let mut tris: Vec<[u32; 3]> = Vec::new();
        for j in 0..n {
            for i in 0..n {
                tris.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                tris.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let corner_regions = Array2::from_shape_fn((tris.len(), 3), |(t, k)| tris[t][k]);
        let corner_xy = Array2::from_shape_fn((tris.len(), 2), |(t, k)| {
            tris[t]
                .iter()
                .map(|&r| region_xy[[r as usize, k]])
                .sum::<f64>()
                / 3.0
        });
        let mut region_corners = vec![Vec::new(); m * m];
        for (t, tri) in tris.iter().enumerate() {
            for &r in tri {
                region_corners[r as usize].push(t as u32);
            }
        }
        let mesh = DualMesh {
            region_xy,
            region_is_boundary: boundary,
            corner_xy,
            corner_regions,
            region_neighbors: Csr::from_lists(&vec![Vec::<u32>::new(); m * m]),
            region_corners: Csr::from_lists(&region_corners),
            corner_neighbors: Csr::from_lists(&vec![Vec::<u32>::new(); tris.len()]),
        };
        let mut world = World::new(WorldMeta {
            seed,
            ..WorldMeta::default()
        });
        world.set_mesh(mesh).unwrap();
        let biome = Array1::from_shape_fn(m * m, |r| {
            let x = (r % m) as f64 * h;
            let b = match x {
                x if x < 0.15 => Biome::Ocean,
                x if x < 0.2 => Biome::Beach,
                x if x < 0.4 => Biome::Grassland,
                x if x < 0.6 => Biome::Forest,
                x if x < 0.65 => Biome::Snow,
                x if x < 0.75 => Biome::Desert,
                x if x < 0.85 => Biome::Lake,
                _ => Biome::Taiga,
            };
            b.id()
        });
        world
            .set_layer("region_biome", Domain::Region, biome.into_dyn())
            .unwrap();
        // A river down column i = 0.5 n: the first triangle of each square of that column.
        let col = n / 2;
        let river: Vec<u32> = (0..n).map(|j| (2 * (j * n + col)) as u32).collect();
        world
            .insert_layer(
                "rivers",
                Layer::ragged_indices(Domain::Free, Domain::Corner, Csr::from_lists(&[river])),
            )
            .unwrap();
        world
    }

    fn biome_at(world: &World, p: [f64; 2]) -> Biome {
        let mesh = world.mesh().unwrap();
        let biomes = world.view1::<u8>("region_biome").unwrap();
        let nearest = (0..mesh.n_regions())
            .min_by(|&a, &b| {
                let d = |r: usize| {
                    (mesh.region_xy[[r, 0]] - p[0]).powi(2)
                        + (mesh.region_xy[[r, 1]] - p[1]).powi(2)
                };
                d(a).total_cmp(&d(b))
            })
            .unwrap();
        Biome::from_id(biomes[nearest]).unwrap()
    }

    #[test]
    fn nothing_grows_on_water_beach_snow_or_rivers() {
        let mut world = lattice_world(60, 5);
        let params = Params::default();
        run(&mut world, &params).unwrap();
        let xy = world.view2::<f64>("flora_xy").unwrap();
        assert!(xy.nrows() > 100, "{} plants", xy.nrows());
        let mesh = world.mesh().unwrap();
        let offsets = world.offsets("rivers").unwrap().to_vec();
        let ids = world.view1::<u32>("rivers").unwrap();
        let river: Vec<[f64; 2]> = ids
            .iter()
            .take(offsets[1] as usize)
            .map(|&c| {
                [
                    mesh.corner_xy[[c as usize, 0]],
                    mesh.corner_xy[[c as usize, 1]],
                ]
            })
            .collect();
        let clearance = params.river_clearance / 60.0 * (60.0 / 61.0);
        for p in xy.rows() {
            let p = [p[0], p[1]];
            let b = biome_at(&world, p);
            assert!(
                !matches!(b, Biome::Ocean | Biome::Lake | Biome::Beach | Biome::Snow),
                "a plant on {b:?} at {p:?}"
            );
            for w in river.windows(2) {
                assert!(
                    segment_distance(p, [w[0], w[1]]) > clearance,
                    "on the river: {p:?}"
                );
            }
        }
        // The river band is otherwise forest: trees grow on both sides of it.
        assert!(xy.rows().into_iter().any(|p| p[0] > 0.45 && p[0] < 0.5));
        assert!(xy.rows().into_iter().any(|p| p[0] > 0.51 && p[0] < 0.6));
    }

    #[test]
    fn water_kinds_override_the_biome_map() {
        let mut world = lattice_world(40, 6);
        // Flood the whole forest band.
        let m = 41;
        let water = Array1::from_shape_fn(m * m, |r| {
            let x = (r % m) as f64 / 40.0;
            if (0.4..0.6).contains(&x) {
                water::LAKE
            } else {
                water::LAND
            }
        });
        world
            .set_layer("region_water", Domain::Region, water.into_dyn())
            .unwrap();
        run(&mut world, &Params::default()).unwrap();
        let xy = world.view2::<f64>("flora_xy").unwrap();
        assert!(xy.nrows() > 0);
        for p in xy.rows() {
            assert!(
                !(p[0] > 0.41 && p[0] < 0.59),
                "a plant in the flooded band: {p:?}"
            );
        }
    }

    #[test]
    fn a_50000_cell_world_holds_thousands_of_trees_denser_in_forest() {
        // 224^2 = 50,176 sites.
        let mut world = lattice_world(223, 7);
        run(&mut world, &Params::default()).unwrap();
        let xy = world.view2::<f64>("flora_xy").unwrap();
        assert!(xy.nrows() >= 1000, "{} plants", xy.nrows());
        let species = world.view1::<u32>("flora_species").unwrap();
        let defaults = default_species();
        let count_in = |lo: f64, hi: f64, canopy_only: bool| {
            xy.rows()
                .into_iter()
                .zip(species.iter())
                .filter(|(p, s)| {
                    p[0] >= lo
                        && p[0] < hi
                        && (!canopy_only || defaults[**s as usize].storey == crate::Storey::Canopy)
                })
                .count() as f64
                / (hi - lo)
        };
        // Bands well inside each biome (away from the river and band edges).
        let grass = count_in(0.22, 0.38, false);
        let forest = count_in(0.42, 0.48, false);
        assert!(
            forest >= 3.0 * grass,
            "forest {forest} vs grassland {grass} per unit width"
        );
        // The achieved canopy density is near the table's (0.6 per cell in forest).
        let cells_per_area = 224.0 * 224.0;
        let canopy = count_in(0.42, 0.48, true) / cells_per_area;
        assert!(
            (canopy - 0.6).abs() < 0.15,
            "forest canopy {canopy} per cell"
        );
    }

    #[test]
    fn same_bytes_for_one_and_two_threads_and_for_the_same_seed() {
        let go = |threads: usize, seed: u64| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    let mut world = lattice_world(50, seed);
                    let params = Params {
                        models_per_species: 2,
                        ..Params::default()
                    };
                    run(&mut world, &params).unwrap();
                    let mut bytes = Vec::new();
                    world.write_npz(&mut bytes, "{}").unwrap();
                    // The ragged model layers survive a save and a load.
                    let (back, _) = World::read_npz(&bytes[..]).unwrap();
                    assert_eq!(back, world);
                    bytes
                })
        };
        let one = go(1, 3);
        assert_eq!(one, go(2, 3));
        assert_ne!(one, go(1, 4));
    }

    #[test]
    fn missing_biome_is_a_clear_error_and_bad_params_are_refused() {
        let mut world = lattice_world(10, 1);
        world.remove_layer("region_biome");
        let err = run(&mut world, &Params::default()).unwrap_err();
        assert!(err.to_string().contains("region_biome"), "{err}");
        let bad = Params {
            density_scale: -1.0,
            ..Params::default()
        };
        assert!(matches!(run(&mut world, &bad), Err(Error::Param(_))));
        // Rainforest canopy at 4 + 4 plants per cell: 8 is the cap, 8 x 1.5 is over it.
        let mut dense = Params::default();
        dense.biomes[3].plants[0].density = 4.0;
        dense.biomes[3].plants[1].density = 4.0;
        dense.density_scale = 1.0;
        assert!(dense.validate().is_ok());
        dense.density_scale = 1.5;
        let err = dense.validate().unwrap_err();
        assert_eq!(err.param, "density_scale");
        assert!(err.allowed.contains("rainforest"), "{err}");
    }

    #[test]
    fn model_layers_are_consistent() {
        let mut world = lattice_world(30, 2);
        let params = Params::default();
        run(&mut world, &params).unwrap();
        let n_models = params.species.len() * params.models_per_species as usize;
        for suffix in ["", "_2d"] {
            let offsets = world
                .offsets(&format!("tree_nodes{suffix}"))
                .unwrap()
                .to_vec();
            assert_eq!(offsets.len(), n_models + 1);
            assert_eq!(
                offsets,
                world.offsets(&format!("tree_parent{suffix}")).unwrap()
            );
            let parent = world.view1::<i32>(&format!("tree_parent{suffix}")).unwrap();
            for w in offsets.windows(2) {
                let list: Vec<i32> = parent
                    .iter()
                    .skip(w[0] as usize)
                    .take((w[1] - w[0]) as usize)
                    .copied()
                    .collect();
                assert_eq!(list[0], -1);
                for (i, &p) in list.iter().enumerate().skip(1) {
                    assert!(p >= 0 && (p as usize) < i);
                }
            }
        }
        let model = world.view1::<u32>("flora_model").unwrap();
        let species = world.view1::<u32>("flora_species").unwrap();
        let model_species = world.view1::<u32>("tree_model_species").unwrap();
        for (m, s) in model.iter().zip(species.iter()) {
            assert_eq!(model_species[*m as usize], *s);
        }
        // Each instance's region is the nearest site (its Voronoi cell).
        let region = world.view1::<u32>("flora_region").unwrap();
        let xy = world.view2::<f64>("flora_xy").unwrap();
        let mesh = world.mesh().unwrap();
        for (p, &r) in xy.rows().into_iter().zip(region.iter()).step_by(7) {
            let d = |q: usize| {
                (mesh.region_xy[[q, 0]] - p[0]).powi(2) + (mesh.region_xy[[q, 1]] - p[1]).powi(2)
            };
            assert!((0..mesh.n_regions()).all(|q| d(q) >= d(r as usize)));
        }
        let size = world.view1::<f32>("flora_size").unwrap();
        for (h, s) in size.iter().zip(species.iter()) {
            let [lo, hi] = params.species[*s as usize].height_m;
            assert!(f64::from(*h) >= lo - 1e-3 && f64::from(*h) <= hi + 1e-3);
        }
    }

    #[test]
    fn params_round_trip_through_toml() {
        let params = Params::default();
        params.validate().unwrap();
        let text = toml::to_string(&params).unwrap();
        let back: Params = toml::from_str(&text).unwrap();
        assert_eq!(back, params);
        let partial: Params = toml::from_str("density_scale = 2.0\n").unwrap();
        assert_eq!(partial.density_scale, 2.0);
        assert_eq!(partial.species, default_species());
        assert!(toml::from_str::<Params>("densty = 1\n").is_err());
    }
}
