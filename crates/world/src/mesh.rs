use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Zip};

use crate::Csr;

/// Per-corner mean of its three regions' values (the reference's corner altitude): summed in
/// f64 and divided by 3, corners in parallel (each on its own: the same bytes for any thread
/// count). The elevation stage and the erosion stage make `corner_elevation` with it.
pub fn corner_mean(
    region_values: ArrayView1<'_, f32>,
    corner_regions: ArrayView2<'_, u32>,
) -> Array1<f32> {
    Zip::from(corner_regions.rows()).par_map_collect(|tri| {
        let sum: f64 = tri
            .iter()
            .map(|&r| f64::from(region_values[r as usize]))
            .sum();
        (sum / 3.0) as f32
    })
}

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

    /// Per-corner mean of its three regions' values (see [`corner_mean`]).
    pub fn corner_mean(&self, region_values: ArrayView1<'_, f32>) -> Array1<f32> {
        corner_mean(region_values, self.corner_regions.view())
    }

    /// True when the corner's triangle has a boundary site.
    #[inline]
    pub fn is_border_corner(&self, corner_idx: usize) -> bool {
        // The arrays as flat slices when they are (as the mesh stage and the readers make
        // them): no ndarray row per corner in the loops over every corner.
        match (
            self.corner_regions.as_slice(),
            self.region_is_boundary.as_slice(),
        ) {
            (Some(regions), Some(boundary)) => regions[3 * corner_idx..3 * corner_idx + 3]
                .iter()
                .any(|&r| boundary[r as usize] != 0),
            _ => self
                .corner_regions
                .row(corner_idx)
                .iter()
                .any(|&r| self.region_is_boundary[r as usize] != 0),
        }
    }

    /// A small valid dual mesh over a `width x height` map without a Delaunay triangulation: an
    /// `nx x ny` lattice of sites (the outer ring are boundary sites, exactly on the map edge),
    /// interior sites moved by up to `jitter / 2` of the spacing (`jitter` in [0, 0.8]), each
    /// lattice square split into two counter-clockwise triangles. For tests, examples and
    /// benches of kernels that need a mesh; the relations hold but lists are sorted by index, not
    /// in ring order.
    ///
    /// # Panics
    /// When `nx` or `ny` is below 2.
    pub fn jittered_grid(
        nx: usize,
        ny: usize,
        width: f64,
        height: f64,
        jitter: f64,
        seed: u64,
    ) -> DualMesh {
        assert!(nx >= 2 && ny >= 2, "a grid mesh needs at least 2 x 2 sites");
        let jitter = jitter.clamp(0.0, 0.8);
        let (sx, sy) = (width / (nx - 1) as f64, height / (ny - 1) as f64);
        let id = |i: usize, j: usize| (j * nx + i) as u32;
        let unit = |k: u64| crate::seed::unit_f64(crate::seed::item_seed(seed, k));
        let mut xy = Vec::with_capacity(nx * ny * 2);
        let mut boundary = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                let on_edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
                let k = (j * nx + i) as u64;
                let (mut x, mut y) = (i as f64 * sx, j as f64 * sy);
                if !on_edge {
                    x += (unit(2 * k) - 0.5) * jitter * sx;
                    y += (unit(2 * k + 1) - 0.5) * jitter * sy;
                }
                xy.extend([x, y]);
                boundary.push(u8::from(on_edge));
            }
        }
        let mut tris: Vec<[u32; 3]> = Vec::with_capacity((nx - 1) * (ny - 1) * 2);
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let (p00, p10, p01, p11) = (id(i, j), id(i + 1, j), id(i, j + 1), id(i + 1, j + 1));
                tris.push([p00, p10, p11]);
                tris.push([p00, p11, p01]);
            }
        }
        let n_regions = nx * ny;
        let mut corner_xy = Vec::with_capacity(tris.len() * 2);
        let mut region_nb: Vec<Vec<u32>> = vec![Vec::new(); n_regions];
        let mut region_corners: Vec<Vec<u32>> = vec![Vec::new(); n_regions];
        let mut edges: std::collections::BTreeMap<(u32, u32), Vec<u32>> = Default::default();
        for (c, t) in tris.iter().enumerate() {
            let (mut cx, mut cy) = (0.0, 0.0);
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                cx += xy[2 * a as usize] / 3.0;
                cy += xy[2 * a as usize + 1] / 3.0;
                region_corners[a as usize].push(c as u32);
                region_nb[a as usize].push(b);
                region_nb[b as usize].push(a);
                edges
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push(c as u32);
            }
            corner_xy.extend([cx, cy]);
        }
        let mut corner_nb: Vec<Vec<u32>> = vec![Vec::new(); tris.len()];
        for pair in edges.values() {
            if let [a, b] = pair[..] {
                corner_nb[a as usize].push(b);
                corner_nb[b as usize].push(a);
            }
        }
        for l in region_nb.iter_mut().chain(corner_nb.iter_mut()) {
            l.sort_unstable();
            l.dedup();
        }
        let flat: Vec<u32> = tris.iter().flatten().copied().collect();
        DualMesh {
            region_xy: Array2::from_shape_vec((n_regions, 2), xy).expect("n x 2"),
            region_is_boundary: Array1::from(boundary),
            corner_xy: Array2::from_shape_vec((tris.len(), 2), corner_xy).expect("n x 2"),
            corner_regions: Array2::from_shape_vec((tris.len(), 3), flat).expect("n x 3"),
            region_neighbors: Csr::from_lists(&region_nb),
            region_corners: Csr::from_lists(&region_corners),
            corner_neighbors: Csr::from_lists(&corner_nb),
        }
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
