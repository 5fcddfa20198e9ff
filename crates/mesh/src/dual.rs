//! The dual mesh of the conventions from a triangulation: corners at triangle centroids, CSR
//! relations in ring order.

use ndarray::{Array1, Array2};
use orogen_world::{Csr, DualMesh};
use rayon::prelude::*;

use crate::delaunay::{Delaunay, NONE, next};
use crate::sites::zorder_permutation_of;

/// Reorders the triangles in Z-order of their centroids (locality for every later stage) and
/// rebuilds the half-edge arrays.
pub fn sort_triangles(del: Delaunay, sites: &[[f64; 2]], width: f64, height: f64) -> Delaunay {
    // Keyed by their centroids as they are computed (an array of them was 128 MB of fresh
    // pages at 4,000,000 cells).
    let order = zorder_permutation_of(
        del.triangles.len(),
        |t| centroid(sites, &del.triangles[t]),
        width,
        height,
    );
    del.permute(&order, sites.len())
}

fn centroid(sites: &[[f64; 2]], t: &[u32; 3]) -> [f64; 2] {
    let [a, b, c] = t.map(|v| sites[v as usize]);
    [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0]
}

/// The dual mesh of a triangulation of `sites`. Every array is built in parallel (each region's
/// and each corner's lists written into their own slices): the same mesh on any number of
/// threads.
pub fn dual_mesh(sites: &[[f64; 2]], is_boundary: &[u8], del: Delaunay) -> DualMesh {
    let n_regions = sites.len();
    let n_corners = del.triangles.len();
    // Flat arrays filled in place, row by row.
    fn rows<T: Copy + Default + Send + Sync, const K: usize>(
        n: usize,
        row: impl Fn(usize) -> [T; K] + Sync,
    ) -> Array2<T> {
        let mut flat = vec![T::default(); n * K];
        flat.par_chunks_mut(K)
            .enumerate()
            .for_each(|(i, out)| out.copy_from_slice(&row(i)));
        Array2::from_shape_vec((n, K), flat).expect("K values a row")
    }
    let region_xy = rows(n_regions, |r| sites[r]);
    let corner_xy = rows(n_corners, |c| centroid(sites, &del.triangles[c]));
    // Region -> corners (one per triangle) and region -> neighbours (one more on the hull, the
    // first), in ring order.
    let region_corners = Csr::from_fn_par(
        n_regions,
        |r| del.degree[r] as usize,
        |r, out| {
            for (slot, e) in out.iter_mut().zip(del.incoming(r)) {
                *slot = e / 3;
            }
        },
    );
    let region_neighbors = Csr::from_fn_par(
        n_regions,
        |r| (del.degree[r] + u32::from(del.is_hull(r))) as usize,
        |r, out| {
            let hull = del.is_hull(r).then(|| del.target(next(del.start[r])));
            let ring = del.incoming(r).map(|e| del.origin(e));
            for (slot, n) in out.iter_mut().zip(hull.into_iter().chain(ring)) {
                *slot = n;
            }
        },
    );
    let corner_neighbors = Csr::from_fn_par(
        n_corners,
        |t| (0..3).filter(|&j| del.opposite[3 * t + j] != NONE).count(),
        |t, out| {
            let across = (0..3)
                .map(|j| del.opposite[3 * t + j])
                .filter(|&o| o != NONE);
            for (slot, o) in out.iter_mut().zip(across) {
                *slot = o / 3;
            }
        },
    );
    // The triangles' own buffer (24 MB at 1,000,000 cells, not copied into fresh pages).
    let corner_regions = Array2::from_shape_vec((n_corners, 3), del.triangles.into_flattened())
        .expect("three sites a triangle");
    DualMesh {
        region_xy,
        region_is_boundary: Array1::from(is_boundary.to_vec()),
        corner_xy,
        corner_regions,
        region_neighbors,
        region_corners,
        corner_neighbors,
    }
}
