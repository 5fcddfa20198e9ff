//! `mesh.png`: the clipped Voronoi cells drawn over the map, so a person can see the mesh.
//!
//! Each cell is filled with the map's colour at its site (by `region_elevation` when the world
//! has it: water in blues, land from green to brown to white; otherwise light grey, boundary
//! cells darker), then every cell edge is drawn as a thin dark line and every site as a dot,
//! fading out where the cells are only a few pixels across (at 1.5 pixels or less, the image
//! is the cells' colours alone).

use std::io::Write;

use ndarray::Array3;
use orogen_world::color::unit_to_u8;
use orogen_world::interp::{ceil, floor};
use orogen_world::{World, WorldError};

use crate::ExportError;
use crate::grid::PixelGrid;

fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// A plain elevation palette (conventions' range [-1, 1]).
fn elevation_colour(e: f32) -> [f32; 3] {
    let e = if e.is_finite() {
        e.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    if e < 0.0 {
        lerp([0.36, 0.56, 0.80], [0.10, 0.20, 0.45], -e)
    } else if e < 0.5 {
        lerp([0.45, 0.68, 0.38], [0.62, 0.55, 0.35], e / 0.5)
    } else {
        lerp([0.62, 0.55, 0.35], [0.96, 0.96, 0.96], (e - 0.5) / 0.5)
    }
}

/// Renders the mesh as an `ny x nx x 3` RGB image over `grid` (pixel centres).
pub fn render_mesh(world: &World, grid: &PixelGrid) -> Result<Array3<u8>, ExportError> {
    // f32 rings, as the mesh stage writes them; f64 from worlds saved before 2026-12-03. The
    // points are read twice a cell: a call through a boxed function each, with its index
    // checks, was a quarter of the image's time.
    match world.view2::<f32>("region_polygon") {
        Ok(p) => {
            // Borrowed as it lies (a world's layers are row-major), copied otherwise.
            let p = p.as_standard_layout();
            let s = p.as_slice().expect("a standard layout is contiguous");
            render_rings(world, grid, |i| {
                [f64::from(s[2 * i]), f64::from(s[2 * i + 1])]
            })
        }
        Err(e) => match world.view2::<f64>("region_polygon") {
            Ok(p) => render_rings(world, grid, |i| [p[[i, 0]], p[[i, 1]]]),
            Err(_) => Err(e.into()),
        },
    }
}

/// [`render_mesh`] with the rings' points read by `point` (map units).
fn render_rings(
    world: &World,
    grid: &PixelGrid,
    point: impl Fn(usize) -> [f64; 2],
) -> Result<Array3<u8>, ExportError> {
    let mesh = world.mesh()?;
    let offsets = world.offsets("region_polygon")?;
    let elevation = match world.view1::<f32>("region_elevation") {
        Ok(v) => Some(v),
        Err(WorldError::MissingLayer { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let (nx, ny) = (grid.nx, grid.ny);
    let sx = nx as f64 / grid.width;
    let sy = ny as f64 / grid.height;
    let mut img = vec![[0.0f32; 3]; nx * ny];
    let ring = |r: usize| {
        (offsets[r] as usize..offsets[r + 1] as usize).map(|i| {
            let [x, y] = point(i);
            [x * sx, y * sy]
        })
    };
    // Fill: every pixel centre (col + 0.5, row + 0.5) inside a cell's (convex) polygon. One
    // ring buffer for every cell.
    let mut poly: Vec<[f64; 2]> = Vec::new();
    for r in 0..mesh.n_regions() {
        let colour = match elevation {
            Some(e) => elevation_colour(e[r]),
            None if mesh.region_is_boundary[r] != 0 => [0.72, 0.72, 0.76],
            None => [0.90, 0.90, 0.88],
        };
        poly.clear();
        poly.extend(ring(r));
        if poly.len() < 3 {
            continue;
        }
        let y_lo = poly.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        let y_hi = poly.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
        let row_lo = ceil(y_lo - 0.5).max(0.0) as usize;
        let row_hi = (floor(y_hi - 0.5).min(ny as f64 - 1.0)).max(-1.0);
        if row_hi < 0.0 {
            continue;
        }
        for row in row_lo..=row_hi as usize {
            let y = row as f64 + 0.5;
            let (mut x_lo, mut x_hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for i in 0..poly.len() {
                let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                if (a[1] <= y && y <= b[1]) || (b[1] <= y && y <= a[1]) {
                    let x = if a[1] == b[1] {
                        x_lo = x_lo.min(a[0].min(b[0]));
                        a[0].max(b[0])
                    } else {
                        a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0])
                    };
                    x_lo = x_lo.min(x);
                    x_hi = x_hi.max(x);
                }
            }
            if x_hi < x_lo {
                continue;
            }
            let col_lo = ceil(x_lo - 0.5).max(0.0) as usize;
            let col_hi = floor(x_hi - 0.5).min(nx as f64 - 1.0);
            if col_hi < 0.0 {
                continue;
            }
            for col in col_lo..=col_hi as usize {
                img[row * nx + col] = colour;
            }
        }
    }
    // Edges: thin dark lines, blended by coverage along the segment, and a dot at each site.
    // Both fade out as the cells shrink from about 4.5 to 1.5 pixels across: at full strength
    // on cells a pixel wide they would cover every pixel several times over and leave the image
    // black (1,000,000 cells at 1024 px); below that only the cells' colours are left.
    let cell_px = (grid.width * grid.height / mesh.n_regions().max(1) as f64).sqrt() * sx;
    let strength = ((cell_px - 1.5) / 3.0).clamp(0.0, 1.0) as f32;
    let line = [0.12f32, 0.12, 0.14];
    let mut blend = |x: f64, y: f64, alpha: f32| {
        if x < 0.0 || y < 0.0 {
            return;
        }
        let (col, row) = (x as usize, y as usize);
        if col < nx && row < ny {
            let px = &mut img[row * nx + col];
            *px = lerp(*px, line, alpha);
        }
    };
    let drawn = if strength > 0.0 { mesh.n_regions() } else { 0 };
    for r in 0..drawn {
        poly.clear();
        poly.extend(ring(r));
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let steps = ((b[0] - a[0]).abs().max((b[1] - a[1]).abs()).ceil() as usize).max(1);
            for s in 0..=steps {
                let t = s as f64 / steps as f64;
                blend(
                    a[0] + t * (b[0] - a[0]),
                    a[1] + t * (b[1] - a[1]),
                    0.35 * strength,
                );
            }
        }
    }
    for r in 0..drawn {
        blend(
            mesh.region_xy[[r, 0]] * sx,
            mesh.region_xy[[r, 1]] * sy,
            0.6 * strength,
        );
    }
    let bytes: Vec<u8> = img.iter().flat_map(|px| px.map(unit_to_u8)).collect();
    Ok(Array3::from_shape_vec((ny, nx, 3), bytes).expect("one RGB triple per pixel"))
}

/// Writes `mesh.png`, `nx` pixels wide (the height follows the map's aspect).
pub fn mesh_png(w: &mut dyn Write, world: &World, nx: usize) -> Result<(), ExportError> {
    let grid = PixelGrid::centres(nx, world.meta.width, world.meta.height)?;
    let img = render_mesh(world, &grid)?;
    crate::png::write_rgb8(w, img.view())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use orogen_world::{Csr, Domain, DualMesh, Layer, WorldMeta};

    /// A world of cells only (no corners): sites `xy` (two values a site), boundary flags,
    /// rings (`offsets` into `pts`, two values a point) and one elevation a site.
    fn cells_world(
        xy: Vec<f64>,
        boundary: Vec<u8>,
        offsets: Vec<u32>,
        pts: Vec<f32>,
        elevation: Vec<f32>,
    ) -> World {
        let n = boundary.len();
        let mut world = World::new(WorldMeta::default());
        let mesh = DualMesh {
            region_xy: Array2::from_shape_vec((n, 2), xy).unwrap(),
            region_is_boundary: Array1::from(boundary),
            corner_xy: Array2::zeros((0, 2)),
            corner_regions: Array2::zeros((0, 3)),
            region_neighbors: Csr::from_lists(&vec![[0u32; 0]; n]),
            region_corners: Csr::from_lists(&vec![[0u32; 0]; n]),
            corner_neighbors: Csr::from_lists::<[u32; 0]>(&[]),
        };
        world.set_mesh(mesh).unwrap();
        let points = pts.len() / 2;
        world
            .insert_layer(
                "region_polygon",
                Layer::ragged(
                    Domain::Region,
                    Array1::from(offsets),
                    Array2::from_shape_vec((points, 2), pts).unwrap().into_dyn(),
                ),
            )
            .unwrap();
        world
            .set_values("region_elevation", Domain::Region, elevation)
            .unwrap();
        world
    }

    /// Two cells splitting the unit square along x = 0.5, sites at (0.25, 0.5) and (0.75, 0.5).
    fn two_cell_world() -> World {
        cells_world(
            vec![0.25, 0.5, 0.75, 0.5, 0.5, 0.0, 0.5, 1.0],
            vec![0, 0, 1, 1],
            vec![0, 4, 8, 8, 8],
            vec![
                0.0, 0.0, 0.5, 0.0, 0.5, 1.0, 0.0, 1.0, // left cell
                0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0, // right cell
            ],
            vec![-1.0, 1.0, 0.0, 0.0],
        )
    }

    /// `k x k` square cells over the unit square, every one at `elevation`.
    fn square_cells_world(k: usize, elevation: f32) -> World {
        let n = k * k;
        let h = 1.0 / k as f64;
        let centre = |i: usize| (i as f64 + 0.5) * h;
        let xy = (0..n)
            .flat_map(|r| [centre(r % k), centre(r / k)])
            .collect();
        // Counter-clockwise in x right, y down: (x0, y0), (x0, y1), (x1, y1), (x1, y0).
        let pts = (0..n)
            .flat_map(|r| {
                let (x0, y0) = ((r % k) as f64 * h, (r / k) as f64 * h);
                let (x1, y1) = (x0 + h, y0 + h);
                [x0, y0, x0, y1, x1, y1, x1, y0].map(|v| v as f32)
            })
            .collect();
        let offsets = (0..=n as u32).map(|r| 4 * r).collect();
        cells_world(xy, vec![0; n], offsets, pts, vec![elevation; n])
    }

    /// Cells of a pixel or less leave their colours (no edges, no dots: drawn, they would
    /// blacken the image); cells of many pixels keep both.
    #[test]
    fn edges_fade_out_as_cells_shrink_to_pixels() {
        let grid = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let land = elevation_colour(0.3).map(|v| (v * 255.0).round() as u8);
        let mean =
            |img: &Array3<u8>| img.iter().map(|&v| f64::from(v)).sum::<f64>() / img.len() as f64;
        let plain = f64::from(land.iter().map(|&v| u32::from(v)).sum::<u32>()) / 3.0;
        // 128 x 128 cells on 64 x 64 pixels: the cells' colour everywhere.
        let dense = render_mesh(&square_cells_world(128, 0.3), &grid).unwrap();
        assert!(
            dense
                .exact_chunks((1, 1, 3))
                .into_iter()
                .all(|p| p.iter().eq(land.iter())),
            "mean {} against {plain}",
            mean(&dense)
        );
        // 8 x 8 cells of 8 pixels: edges and dots drawn, darker than the plain colour.
        let sparse = render_mesh(&square_cells_world(8, 0.3), &grid).unwrap();
        assert!(
            mean(&sparse) < plain - 10.0,
            "{} against {plain}",
            mean(&sparse)
        );
    }

    /// A world saved before the rings were f32 draws the same picture.
    #[test]
    fn rings_in_f64_draw_as_in_f32() {
        let world = two_cell_world();
        let mut legacy = world.clone();
        let offsets = world.offsets("region_polygon").unwrap().to_vec();
        let points = world
            .view2::<f32>("region_polygon")
            .unwrap()
            .mapv(f64::from);
        legacy.remove_layer("region_polygon");
        legacy
            .insert_layer(
                "region_polygon",
                Layer::ragged(Domain::Region, Array1::from(offsets), points.into_dyn()),
            )
            .unwrap();
        let grid = PixelGrid::centres(40, 1.0, 1.0).unwrap();
        assert!(legacy.view2::<f32>("region_polygon").is_err());
        assert_eq!(
            render_mesh(&legacy, &grid).unwrap(),
            render_mesh(&world, &grid).unwrap()
        );
    }

    #[test]
    fn cells_are_filled_by_elevation_and_edges_drawn() {
        let world = two_cell_world();
        let grid = PixelGrid::centres(40, 1.0, 1.0).unwrap();
        let img = render_mesh(&world, &grid).unwrap();
        // Deep water on the left, snow on the right.
        let deep = elevation_colour(-1.0);
        let snow = elevation_colour(1.0);
        let px = |r: usize, c: usize| [img[[r, c, 0]], img[[r, c, 1]], img[[r, c, 2]]];
        let to8 = |c: [f32; 3]| c.map(|v| (v * 255.0).round() as u8);
        assert_eq!(px(10, 5), to8(deep));
        assert_eq!(px(30, 34), to8(snow));
        // The shared edge x = 0.5 (column 20) is darker than the snow beside it.
        let dark: u32 = px(10, 20).iter().map(|&v| u32::from(v)).sum();
        let light: u32 = px(10, 25).iter().map(|&v| u32::from(v)).sum();
        assert!(dark < light);
        let mut bytes = Vec::new();
        mesh_png(&mut bytes, &world, 40).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
    }
}
