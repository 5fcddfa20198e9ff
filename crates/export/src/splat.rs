//! Engine terrain layers at the heightmap's size: 8-bit splat (weight) maps per biome group
//! (`splat_GROUP.png`). The river mask at the same size is [`crate::rivers`].
//!
//! Splat weights interpolate each group's share over the mesh with `orogen_world::interp`, like
//! every raster (a site counts 1 for its own group, a corner the share of its three regions), so layers blend across cell borders; the weights of a pixel sum to exactly
//! 255 (largest remainder).

use ndarray::Array2;
use orogen_world::ids::Biome;
use orogen_world::{World, WorldError};

use crate::ExportError;
use crate::grid::PixelGrid;
use orogen_world::interp::{PiecePlan, rasterize_mesh_fields_strips_on};
use rayon::prelude::*;

/// The terrain layer groups, each with its biomes.
pub const GROUPS: [(&str, &[Biome]); 7] = [
    ("water", &[Biome::Ocean, Biome::Lake]),
    ("sand", &[Biome::Beach, Biome::Desert]),
    ("grass", &[Biome::Grassland]),
    ("forest", &[Biome::Forest, Biome::Rainforest, Biome::Taiga]),
    ("tundra", &[Biome::Tundra]),
    ("rock", &[Biome::Mountain]),
    ("snow", &[Biome::Snow]),
];

/// The number of groups.
pub const N_GROUPS: usize = GROUPS.len();

/// The group of a biome id (unknown ids are an error).
pub fn group_of(biome_id: u8) -> Option<usize> {
    let biome = Biome::from_id(biome_id)?;
    GROUPS.iter().position(|(_, list)| list.contains(&biome))
}

/// Quantises weights summing to 1 into bytes summing to exactly 255 (largest remainder; ties
/// to the lower group index).
fn quantise(w: [f32; N_GROUPS]) -> [u8; N_GROUPS] {
    // Most pixels lie in one group's pieces: one positive weight takes all 255 (as the
    // remainders below give it: its scaled value floors to 254 or 255, and any rest goes to
    // it), none leaves all 0. Not below 1e-30, where 255 over it overflows and the remainders
    // give other bytes.
    let mut positive = w.iter().enumerate().filter(|(_, v)| **v > 0.0);
    match (positive.next(), positive.next()) {
        (None, _) => return [0; N_GROUPS],
        (Some((g, &v)), None) if v >= 1e-30 => {
            let mut out = [0; N_GROUPS];
            out[g] = 255;
            return out;
        }
        _ => {}
    }
    quantise_shares(w)
}

/// [`quantise`] by the largest remainders, whatever the weights.
fn quantise_shares(w: [f32; N_GROUPS]) -> [u8; N_GROUPS] {
    let total: f32 = w.iter().map(|v| v.max(0.0)).sum();
    let scale = if total > 0.0 { 255.0 / total } else { 0.0 };
    let mut out = [0u8; N_GROUPS];
    let mut rest = [0f32; N_GROUPS];
    let mut sum = 0u32;
    for g in 0..N_GROUPS {
        let v = w[g].max(0.0) * scale;
        // `v` is not negative: the cast is the floor (NaN as 255, as `floor` then `min` gave),
        // without a call to libm's `floorf`.
        let f = v.min(255.0) as u32 as f32;
        out[g] = f as u8;
        rest[g] = v - f;
        sum += f as u32;
    }
    while sum < 255 && total > 0.0 {
        let mut best = 0;
        for g in 1..N_GROUPS {
            if rest[g] > rest[best] {
                best = g;
            }
        }
        out[best] += 1;
        rest[best] = -1.0;
        sum += 1;
    }
    out
}

/// The splat maps (`N_GROUPS` arrays of `ny x nx` bytes, in [`GROUPS`] order). Reads `region_biome`.
pub fn splat_maps(world: &World, grid: &PixelGrid) -> Result<Vec<Array2<u8>>, ExportError> {
    splat_maps_on(world, grid, None)
}

/// [`splat_maps`] through `plan` when given (a [`PiecePlan`] of the world's mesh on `grid`, as
/// a [`Shore`](crate::colormap::Shore) of the grid may hold): the same bytes.
pub fn splat_maps_on(
    world: &World,
    grid: &PixelGrid,
    plan: Option<&PiecePlan>,
) -> Result<Vec<Array2<u8>>, ExportError> {
    let mesh = world.mesh()?;
    let biome = world.view1::<u8>("region_biome")?;
    let group: Vec<u8> = biome
        .iter()
        .map(|&b| {
            group_of(b)
                .map(|g| g as u8)
                .ok_or_else(|| WorldError::BadLayer {
                    name: "region_biome".into(),
                    problem: format!("unknown biome id {b}"),
                })
        })
        .collect::<Result<_, _>>()?;
    // Every group's share in one pass: a site counts 1 for its own group, a corner the mean of
    // its three regions (as `corner_mean` sums them). Computed where the rasteriser asks, not
    // held: the two arrays would be 84 MB at 1,000,000 cells.
    let one_hot = |r: usize| -> [f32; N_GROUPS] {
        std::array::from_fn(|g| f32::from(u8::from(usize::from(group[r]) == g)))
    };
    let corner_shares = |c: usize| -> [f32; N_GROUPS] {
        let t = mesh.corner_regions.row(c);
        let [a, b, d] = [0, 1, 2].map(|k| one_hot(t[k] as usize));
        std::array::from_fn(|g| (a[g] + b[g] + d[g]) / 3.0)
    };
    // In strips of about 16 MiB of weights (the whole raster's would be 448 MiB at 4096 px), each
    // quantised into the seven maps at once.
    let (nx, ny) = (grid.nx, grid.ny);
    let strip_rows = (16 << 20) / (nx * std::mem::size_of::<[f32; N_GROUPS]>()).max(1);
    // Zeroed pages, each first touched where its row is written.
    let mut maps: Vec<Vec<u8>> = (0..N_GROUPS).map(|_| vec![0u8; nx * ny]).collect();
    rasterize_mesh_fields_strips_on(
        mesh,
        plan,
        one_hot,
        corner_shares,
        &grid.sampling(),
        strip_rows,
        |row0, shares| {
            // Each row's pixels quantised straight into the seven maps' rows.
            let rows = shares.len() / nx;
            let mut of_map: Vec<_> = maps
                .iter_mut()
                .map(|map| map[row0 * nx..(row0 + rows) * nx].chunks_exact_mut(nx))
                .collect();
            let targets: Vec<[&mut [u8]; N_GROUPS]> = (0..rows)
                .map(|_| std::array::from_fn(|g| of_map[g].next().expect("a row of each map")))
                .collect();
            targets
                .into_par_iter()
                .zip(shares.par_chunks_exact(nx))
                .for_each(|(mut out, row)| {
                    for (i, &w) in row.iter().enumerate() {
                        for (map, q) in out.iter_mut().zip(quantise(w)) {
                            map[i] = q;
                        }
                    }
                });
        },
    )?;
    Ok(maps
        .into_iter()
        .map(|map| Array2::from_shape_vec((ny, nx), map).expect("ny x nx weights"))
        .collect())
}

/// Writes `splat_GROUP.png` for every group (when the world has biomes), the seven PNGs encoded
/// in parallel.
pub fn write_layers(
    out: &mut crate::atomic::OutDir,
    world: &World,
    grid: &PixelGrid,
) -> Result<(), ExportError> {
    write_layers_on(out, world, grid, None)
}

/// [`write_layers`] through `plan` when given ([`splat_maps_on`]): the same files.
pub fn write_layers_on(
    out: &mut crate::atomic::OutDir,
    world: &World,
    grid: &PixelGrid,
    plan: Option<&PiecePlan>,
) -> Result<(), ExportError> {
    if world.has_layer("region_biome") {
        let encoded: Vec<Vec<u8>> = splat_maps_on(world, grid, plan)?
            .par_iter()
            .map(|map| {
                let mut bytes = Vec::new();
                crate::png::write_gray8(&mut bytes, map.view()).map(|()| bytes)
            })
            .collect::<Result<_, _>>()?;
        for (g, bytes) in encoded.iter().enumerate() {
            let name = format!("splat_{}.png", GROUPS[g].0);
            out.write(&name, |w| {
                w.write_all(bytes).map_err(crate::atomic::io("splat"))
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;
    use orogen_world::{Domain, DualMesh, WorldMeta};

    fn world() -> World {
        let mesh = DualMesh::jittered_grid(24, 24, 1.0, 1.0, 0.4, 3);
        // Ocean in the west third, forest in the middle, snow in the east.
        let biome: Array1<u8> = mesh
            .region_xy
            .rows()
            .into_iter()
            .map(|p| match p[0] {
                x if x < 0.33 => Biome::Ocean.id(),
                x if x < 0.66 => Biome::Forest.id(),
                _ => Biome::Snow.id(),
            })
            .collect();
        let mut w = World::new(WorldMeta::default());
        w.set_mesh(mesh).unwrap();
        w.set_layer("region_biome", Domain::Region, biome.into_dyn())
            .unwrap();
        w
    }

    /// The shortcut for one positive weight (or none) gives what the remainders give.
    #[test]
    fn one_positive_weight_quantises_as_the_remainders_do() {
        let mut state = 3u64;
        let mut next = move || {
            state = orogen_world::seed::splitmix64(state);
            orogen_world::seed::unit_f64(state) as f32
        };
        let specials = [
            0.0,
            -0.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::MIN_POSITIVE,
            1e-45,
            1e-36,
            1e-30,
            1e-29,
            1.0,
            0.9999999,
            1.0 / 3.0,
        ];
        for k in 0..20_000 {
            let mut w = [0.0f32; N_GROUPS];
            let g = k % N_GROUPS;
            w[g] = if k < 2000 {
                specials[k % specials.len()]
            } else {
                next()
            };
            // Now and then a negative or NaN weight elsewhere (not positive: still one).
            if k % 3 == 0 {
                w[(g + 1) % N_GROUPS] = if k % 2 == 0 { -next() } else { f32::NAN };
            }
            assert_eq!(quantise(w), quantise_shares(w), "{w:?}");
        }
        // Two positive weights still go through the remainders.
        let w = [0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(quantise(w), [128, 127, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn splat_weights_sum_to_255_and_follow_the_biomes() {
        let w = world();
        let grid = PixelGrid::vertices(65, 1.0, 1.0).unwrap();
        let maps = splat_maps(&w, &grid).unwrap();
        assert_eq!(maps.len(), N_GROUPS);
        for j in 0..65 {
            for i in 0..65 {
                let s: u32 = maps.iter().map(|m| u32::from(m[[j, i]])).sum();
                assert_eq!(s, 255, "pixel {i},{j}");
            }
        }
        let (water, forest, snow) = (0, 3, 6);
        assert_eq!(maps[water][[32, 2]], 255);
        assert_eq!(maps[forest][[32, 32]], 255);
        assert_eq!(maps[snow][[32, 62]], 255);
        assert!(maps[1].iter().all(|&v| v == 0), "no sand anywhere");
        // Blended across the ocean/forest border.
        let border = (0..65).filter(|&i| maps[water][[32, i]] > 0 && maps[forest][[32, i]] > 0);
        assert!(border.count() >= 1);
        let mut bad = w.clone();
        let mut b = bad.view1::<u8>("region_biome").unwrap().to_owned();
        b[0] = 200;
        bad.set_layer("region_biome", Domain::Region, b.into_dyn())
            .unwrap();
        assert!(splat_maps(&bad, &grid).is_err());
    }
}
