//! One steady-state problem for fastlem 0.1.4 (the Salève model: `h_i = h_outlet + U tau_i`,
//! `tau` summed along the stream tree) and for `erosion::steady_state`: fastlem's own model of
//! `n` sites (its Voronoi areas, its Delaunay graph and neighbour order, its hull as outlets),
//! one initial surface, and fastlem's law: m = 0.5 (fixed in fastlem), n = 1, uniform K and U.
//! Used by `tests/erosion_fastlem.rs` and `examples/steady_fastlem.rs`.

use fastlem::core::parameters::TopographicalParameters;
use fastlem::core::traits::Model;
use fastlem::lem::generator::TerrainGenerator;
use fastlem::models::surface::builder::TerrainModel2DBulider;
use fastlem::models::surface::model::TerrainModel2D;
use fastlem::models::surface::sites::Site2D;
use fastlem::models::surface::terrain::Terrain2D;
use orogen_hydrology::erosion::{self, Law, Mesh, Stats};

/// Erodibility (m^(1 - 2m) / yr).
pub const K: f64 = 2e-5;
/// Uplift (m / yr).
pub const U: f64 = 1e-3;
/// The side of the square the sites fill (m).
pub const SIDE: f64 = 100_000.0;

/// The problem, in the form each program takes.
pub struct Problem {
    /// fastlem's model.
    pub model: TerrainModel2D,
    /// The same graph in CSR form, in fastlem's neighbour order.
    pub offsets: Vec<u32>,
    /// See `offsets`.
    pub targets: Vec<u32>,
    /// Site positions, `x, y` per site (m).
    pub xy: Vec<f64>,
    /// fastlem's default outlets (the hull), orogen's base level.
    pub outlet: Vec<bool>,
    /// The initial surface (m): a dome plus noise, 0 at the outlets, drained so that both
    /// programs start on one steepest-descent network.
    pub h0: Vec<f64>,
}

fn uniform(i: u64, seed: u64) -> f64 {
    let mut x =
        (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 31;
    x = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// `n` seeded sites, relaxed once by fastlem's builder (voronoice's Lloyd step).
pub fn problem(n: usize, seed: u64) -> Problem {
    let sites: Vec<Site2D> = (0..n as u64)
        .map(|i| Site2D {
            x: SIDE * uniform(2 * i, seed),
            y: SIDE * uniform(2 * i + 1, seed),
        })
        .collect();
    let model = TerrainModel2DBulider::default()
        .set_sites(sites)
        .set_bounding_box(
            Some(Site2D { x: 0.0, y: 0.0 }),
            Some(Site2D { x: SIDE, y: SIDE }),
        )
        .relaxate_sites(1)
        .expect("relaxed sites")
        .build()
        .expect("fastlem's model");
    let graph = model.graph();
    let num = model.num();
    let (mut offsets, mut targets) = (vec![0u32], Vec::new());
    for i in 0..num {
        targets.extend(graph.neighbors_of(i).iter().map(|&(j, _)| j as u32));
        offsets.push(targets.len() as u32);
    }
    let xy: Vec<f64> = model.sites().iter().flat_map(|s| [s.x, s.y]).collect();
    let mut outlet = vec![false; num];
    for &o in model.default_outlets() {
        outlet[o] = true;
    }
    let z: Vec<f64> = (0..num)
        .map(|i| {
            if outlet[i] {
                return 0.0;
            }
            let (x, y) = (xy[2 * i] / SIDE - 0.5, xy[2 * i + 1] / SIDE - 0.5);
            100.0 * (1.0 - 2.0 * (x * x + y * y)) + 10.0 * uniform(i as u64, !seed)
        })
        .collect();
    let mesh = Mesh::new(&offsets, &targets, &xy, 1.0).expect("the CSR graph");
    let mut h0 = erosion::drain(&mesh, &z, &outlet, 1e-3);
    // Jitter below the drain's step: no ties on its flats, still no pits.
    for (i, v) in h0.iter_mut().enumerate() {
        if !outlet[i] {
            *v += 1e-4 * uniform(i as u64, seed ^ 0xA5A5);
        }
    }
    Problem {
        model,
        offsets,
        targets,
        xy,
        outlet,
        h0,
    }
}

/// fastlem's generator for the problem, ready to run (`generate`).
pub fn fastlem(p: &Problem) -> TerrainGenerator<Site2D, TerrainModel2D, Terrain2D> {
    let parameters =
        p.h0.iter()
            .zip(&p.outlet)
            .map(|(&h, &outlet)| {
                TopographicalParameters::default()
                    .set_base_elevation(h)
                    .set_erodibility(K)
                    .set_uplift_rate(U)
                    .set_is_outlet(outlet)
            })
            .collect();
    TerrainGenerator::default()
        .set_model(p.model.clone())
        .set_parameters(parameters)
}

/// orogen's steady state on the problem's graph (edge lengths from the positions), from `h0`.
pub fn orogen(p: &Problem, mesh: &Mesh<'_>) -> (Vec<f64>, Stats) {
    let mut h = p.h0.clone();
    let law = Law {
        k: K,
        m: 0.5,
        n: 1.0,
        diffusion: 0.0,
    };
    let uplift = vec![U; h.len()];
    let stats = erosion::steady_state(
        mesh,
        &mut h,
        &p.outlet,
        p.model.areas(),
        &uplift,
        &law,
        10_000,
    );
    (h, stats)
}

/// The largest difference between two surfaces over the relief of the first.
pub fn largest_difference(a: &[f64], b: &[f64]) -> (f64, f64) {
    let relief =
        a.iter().copied().fold(f64::MIN, f64::max) - a.iter().copied().fold(f64::MAX, f64::min);
    let largest = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    (largest, relief)
}
