use ndarray::{Array1, Array2, ArrayView1};

use crate::Csr;

/// The dual mesh of the conventions.
///
/// Regions are Delaunay sites and Voronoi cells; corners are Delaunay triangles, placed at the
/// triangle's centroid. Some regions are boundary sites spaced along the map edge (Lloyd never
/// moves them); a corner is on the border when its triangle has a boundary site.
///
/// Every relation is flat: `corner_regions` is `n_corners x 3`, counter-clockwise (positive
/// shoelace area with x right, y down); the others are [`Csr`] lists.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DualMesh {
    /// Site positions, `n_regions x 2` (x, y) in map units.
    pub region_xy: Array2<f64>,
    /// 1 for boundary sites, 0 for interior ones (`n_regions`).
    pub region_is_boundary: Array1<u8>,
    /// Corner (triangle) positions, the triangle centroids, `n_corners x 2`.
    pub corner_xy: Array2<f64>,
    /// The three regions of each corner, counter-clockwise, `n_corners x 3`.
    pub corner_regions: Array2<u32>,
    /// Region -> neighbouring regions (the Delaunay edges), in ring order.
    pub region_neighbors: Csr,
    /// Region -> its corners in ring order (counter-clockwise).
    pub region_corners: Csr,
    /// Corner -> neighbouring corners (triangles sharing an edge; up to three).
    pub corner_neighbors: Csr,
}

impl DualMesh {
    /// The number of regions (sites, cells), boundary sites included.
    pub fn n_regions(&self) -> usize {
        self.region_xy.nrows()
    }

    /// The number of corners (Delaunay triangles).
    pub fn n_corners(&self) -> usize {
        self.corner_xy.nrows()
    }

    /// The number of Delaunay edges.
    pub fn n_edges(&self) -> usize {
        self.region_neighbors.values.len() / 2
    }

    /// The boundary flags as a view.
    pub fn boundary_flags(&self) -> ArrayView1<'_, u8> {
        self.region_is_boundary.view()
    }

    /// True when the corner's triangle has a boundary site.
    pub fn is_border_corner(&self, corner_idx: usize) -> bool {
        self.corner_regions
            .row(corner_idx)
            .iter()
            .any(|&r| self.region_is_boundary[r as usize] != 0)
    }

    /// Checks every shape and index bound. The error names the array and what is wrong.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let n_regions = self.n_regions();
        let n_corners = self.n_corners();
        if self.region_xy.ncols() != 2 {
            return Err((
                "mesh.region_xy",
                format!("has {} columns, expected 2", self.region_xy.ncols()),
            ));
        }
        if let Some(v) = self.region_xy.iter().find(|v| !v.is_finite()) {
            return Err((
                "mesh.region_xy",
                format!("holds a non-finite coordinate ({v})"),
            ));
        }
        if self.region_is_boundary.len() != n_regions {
            return Err((
                "mesh.region_is_boundary",
                format!(
                    "has {} entries for {n_regions} regions",
                    self.region_is_boundary.len()
                ),
            ));
        }
        if self.corner_xy.ncols() != 2 {
            return Err((
                "mesh.corner_xy",
                format!("has {} columns, expected 2", self.corner_xy.ncols()),
            ));
        }
        if let Some(v) = self.corner_xy.iter().find(|v| !v.is_finite()) {
            return Err((
                "mesh.corner_xy",
                format!("holds a non-finite coordinate ({v})"),
            ));
        }
        if self.corner_regions.dim() != (n_corners, 3) {
            return Err((
                "mesh.corner_regions",
                format!(
                    "has shape {:?}, expected ({n_corners}, 3)",
                    self.corner_regions.dim()
                ),
            ));
        }
        if let Some(bad) = self
            .corner_regions
            .iter()
            .find(|&&r| r as usize >= n_regions)
        {
            return Err((
                "mesh.corner_regions",
                format!("region index {bad} out of range (must be below {n_regions})"),
            ));
        }
        let csrs = [
            (
                "mesh.region_neighbors",
                &self.region_neighbors,
                n_regions,
                n_regions,
            ),
            (
                "mesh.region_corners",
                &self.region_corners,
                n_regions,
                n_corners,
            ),
            (
                "mesh.corner_neighbors",
                &self.corner_neighbors,
                n_corners,
                n_corners,
            ),
        ];
        for (name, csr, n_lists, bound) in csrs {
            if csr.n_lists() != n_lists {
                return Err((
                    name,
                    format!("has {} lists, expected {n_lists}", csr.n_lists()),
                ));
            }
            csr.check(Some(bound)).map_err(|problem| (name, problem))?;
        }
        Ok(())
    }
}
