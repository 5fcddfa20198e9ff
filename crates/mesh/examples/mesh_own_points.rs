//! Mesh points of your own and relax them: Delaunay triangles, Voronoi cells clipped to your
//! map, Lloyd relaxation, and the dual mesh (regions, corners and their neighbours).
//!
//! `cargo run -p orogen-mesh --example mesh_own_points`
//!
//! The points here are a Halton sequence on a 200 x 100 map; bring any points inside the map.

use std::error::Error;

use orogen_mesh::{boundary_sites, mesh_from_sites};

/// The `i`-th element of the van der Corput sequence in `base`.
fn halton(mut i: u64, base: u64) -> f64 {
    let (mut value, mut scale) = (0.0, 1.0);
    while i > 0 {
        scale /= base as f64;
        value += scale * (i % base) as f64;
        i /= base;
    }
    value
}

pub fn main() -> Result<(), Box<dyn Error>> {
    let (width, height) = (200.0, 100.0);
    // Fixed sites along the map edge (flag 1) so the cells cover the whole map...
    let mut points = boundary_sites(width, height, 20, 10);
    let mut is_boundary = vec![1u8; points.len()];
    // ... and your own points inside it (flag 0: Lloyd moves these).
    for i in 1..=800 {
        points.push([width * halton(i, 2), height * halton(i, 3)]);
        is_boundary.push(0);
    }

    let relaxed = mesh_from_sites(&points, &is_boundary, width, height, 3)?;
    let mesh = &relaxed.cells.mesh;

    // The clipped cells tile the map, and a triangulation of the rectangle obeys Euler.
    let area: f64 = relaxed.cells.region_area.iter().sum();
    assert!((area - width * height).abs() < 1e-6 * width * height);
    assert_eq!(mesh.n_regions() + mesh.n_corners() - mesh.n_edges(), 1);
    // Lloyd evens out the cell areas.
    let cv = &relaxed.lloyd_area_cv;
    assert!(cv[cv.len() - 1] < cv[0]);

    // Region r came from input point relaxed.input_index[r]; its neighbours are a CSR list.
    let r = 0;
    println!(
        "{} regions, {} corners; cell area CV {:.3} -> {:.3}; region {r} (input point {}) \
         has {} neighbours",
        mesh.n_regions(),
        mesh.n_corners(),
        cv[0],
        cv[cv.len() - 1],
        relaxed.input_index[r],
        mesh.region_neighbors.get(r).len(),
    );
    Ok(())
}
