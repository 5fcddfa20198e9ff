//! The dual mesh of the conventions from a triangulation: corners at triangle centroids, CSR
//! relations in ring order.

use ndarray::{Array1, Array2};
use orogen_world::{Csr, DualMesh};
use rayon::prelude::*;

use crate::delaunay::{Delaunay, NONE, next};
use crate::sites::zorder_permutation;

/// Reorders the triangles in Z-order of their centroids (locality for every later stage) and
/// rebuilds the half-edge arrays.
pub fn sort_triangles(del: &Delaunay, sites: &[[f64; 2]], width: f64, height: f64) -> Delaunay {
    let centroids: Vec<[f64; 2]> = del
        .triangles
        .par_iter()
        .map(|t| centroid(sites, t))
        .collect();
    let order = zorder_permutation(&centroids, width, height);
    del.permute(&order, sites.len())
}

fn centroid(sites: &[[f64; 2]], t: &[u32; 3]) -> [f64; 2] {
    let [a, b, c] = t.map(|v| sites[v as usize]);
    [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0]
}

/// The dual mesh of a triangulation of `sites`.
pub fn dual_mesh(sites: &[[f64; 2]], is_boundary: &[u8], del: &Delaunay) -> DualMesh {
    let n_regions = sites.len();
    let n_corners = del.triangles.len();
    let region_xy = Array2::from_shape_fn((n_regions, 2), |(i, k)| sites[i][k]);
    let corner_xy = {
        let flat: Vec<f64> = del
            .triangles
            .par_iter()
            .flat_map_iter(|t| centroid(sites, t))
            .collect();
        Array2::from_shape_vec((n_corners, 2), flat).expect("two values per corner")
    };
    let corner_regions = Array2::from_shape_vec(
        (n_corners, 3),
        del.triangles.iter().flatten().copied().collect(),
    )
    .expect("three regions per corner");

    // Region -> corners (one per triangle) and region -> neighbours (one more on the hull).
    let mut corner_offsets = Vec::with_capacity(n_regions + 1);
    let mut neighbor_offsets = Vec::with_capacity(n_regions + 1);
    corner_offsets.push(0u32);
    neighbor_offsets.push(0u32);
    let (mut nc, mut nn) = (0u32, 0u32);
    for r in 0..n_regions {
        nc += del.degree[r];
        nn += del.degree[r] + u32::from(del.is_hull(r));
        corner_offsets.push(nc);
        neighbor_offsets.push(nn);
    }
    let mut corners = Vec::with_capacity(nc as usize);
    let mut neighbors = Vec::with_capacity(nn as usize);
    for r in 0..n_regions {
        if del.is_hull(r) {
            neighbors.push(del.target(next(del.start[r])));
        }
        for e in del.incoming(r) {
            corners.push(e / 3);
            neighbors.push(del.origin(e));
        }
    }
    let corner_neighbors = {
        let mut offsets = Vec::with_capacity(n_corners + 1);
        let mut values = Vec::with_capacity(3 * n_corners);
        offsets.push(0u32);
        for t in 0..n_corners {
            for j in 0..3 {
                let o = del.opposite[3 * t + j];
                if o != NONE {
                    values.push(o / 3);
                }
            }
            offsets.push(values.len() as u32);
        }
        Csr::from_parts(offsets, values)
    };
    DualMesh {
        region_xy,
        region_is_boundary: Array1::from(is_boundary.to_vec()),
        corner_xy,
        corner_regions,
        region_neighbors: Csr::from_parts(neighbor_offsets, neighbors),
        region_corners: Csr::from_parts(corner_offsets, corners),
        corner_neighbors,
    }
}
