//! `world.glb`: the world in 3-D as one binary glTF 2.0 file (plain core glTF, no extensions).
//!
//! Axes and units: Y up, metres. Map x goes to +X, map y (south) to +Z, height to +Y, so the
//! map's north-west corner is the origin and the map spans `[0, world_size_m] x [0,
//! world_size_m H / W]` on X and Z. Sea level is Y = 0.
//!
//! The scene holds:
//! - `terrain`: a grid of `resolution x round((resolution - 1) H / W) + 1` vertices sampling
//!   the map's vertices (corners included), heights interpolated over the dual mesh by
//!   [`orogen_world::interp`] from `region_elevation` and `corner_elevation` and mapped to metres
//!   as [`crate::heights`] says; smooth normals from central differences; vertex colours
//!   (`COLOR_0`) from the colour map ([`crate::colormap`]) when the biome layers and colours are
//!   given, else a hypsometric ramp.
//! - `water`: one quad over the whole map at sea level (Y = 0), translucent.
//! - `trees`: one mesh per tree model (layers `tree_nodes`, `tree_parent`,
//!   `tree_model_species`): every skeleton segment a tapered tube (six sides; a branch's first
//!   segment starts at its own radius, the main continuation at its parent's), and a simple
//!   crown, an ellipsoid around the skeleton's tips. One node per instance (`flora_xy`,
//!   `flora_model`, `flora_size`, `flora_seed`), which scales its model (unit height) by the
//!   instance's height in metres, turns it about Y by an angle from its seed and stands it on
//!   the terrain mesh. Models are shared, so the file grows by one small node per tree.
//!
//! The bytes are a function of the world and the options alone: the JSON comes from
//! `gltf-json` (fields in a fixed order), the binary chunk from sequential loops.

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::{Checked::Valid, USize64};
use json::{Index, Root};
use ndarray::{Array2, Array3};
use orogen_world::World;
use orogen_world::interp::{PiecePlan, RasterSampling, rasterize_mesh_fields_on};
use orogen_world::params::{ParamError, in_range};

use crate::ExportError;
use crate::atomic::OutDir;
use crate::colormap::{self, ColormapOptions};
use crate::grid::{PixelGrid, Sampling};
use crate::heights;
use crate::stroke::StrokeStyle;

/// The file name.
pub const FILE: &str = "world.glb";

/// Sides of every branch tube.
const TUBE_SIDES: usize = 6;

/// Options of the glTF export.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlbOptions {
    /// Terrain vertices along the map's width (2 ..= 4097).
    pub resolution: usize,
    /// Colour map options; `None` (or a world without biome layers) colours by height.
    pub colors: Option<ColormapOptions>,
    /// Include the trees (when the flora layers exist).
    pub trees: bool,
}

impl GlbOptions {
    /// Checks the resolution.
    pub fn validate(&self) -> Result<(), ParamError> {
        in_range("glb_resolution", self.resolution, 2..=4097)?;
        Ok(())
    }
}

/// The terrain as a grid of heights in metres, sampled at the map's vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainGrid {
    /// Vertices along x.
    pub nx: usize,
    /// Vertices along y.
    pub ny: usize,
    /// Metres between vertices along x.
    pub dx_m: f64,
    /// Metres between vertices along y.
    pub dy_m: f64,
    /// Heights in metres, `[row, col]`, row 0 the north edge.
    pub heights_m: Array2<f32>,
}

impl TerrainGrid {
    /// Samples a world's terrain with `nx` vertices along the width.
    pub fn new(world: &World, nx: usize) -> Result<Self, ExportError> {
        Self::new_on(world, nx, None)
    }

    /// The vertex sampling of a terrain grid of `nx` vertices along the width.
    fn sampling(world: &World, nx: usize) -> Result<RasterSampling, ExportError> {
        in_range("glb_resolution", nx, 2..=crate::grid::MAX_SIDE)?;
        let meta = &world.meta;
        let ny = (((nx - 1) as f64) * meta.height / meta.width)
            .round()
            .max(1.0) as usize
            + 1;
        in_range("glb_resolution (rows)", ny, 2..=crate::grid::MAX_SIDE)?;
        Ok(RasterSampling::vertices(nx, ny, meta.width, meta.height))
    }

    /// [`TerrainGrid::new`] with the heights gathered through `plan` when it is a plan of the
    /// world's mesh on the grid's vertices (the same heights).
    fn new_on(world: &World, nx: usize, plan: Option<&PiecePlan>) -> Result<Self, ExportError> {
        let sampling = Self::sampling(world, nx)?;
        let ny = sampling.ny;
        let meta = &world.meta;
        let mesh = world.mesh()?;
        let region = world.view1::<f32>("region_elevation")?;
        let corner = world.view1::<f32>("corner_elevation")?;
        let plan = plan.filter(|plan| *plan.sampling() == sampling);
        let e = rasterize_mesh_fields_on(mesh, plan, |r| [region[r]], |c| [corner[c]], &sampling)?
            .into_shape_with_order((ny, nx))
            .expect("one field a vertex");
        let heights_m = e.mapv(|e| heights::metres(e, meta) as f32);
        let scale = metres_per_unit(world);
        Ok(TerrainGrid {
            nx,
            ny,
            dx_m: sampling.dx * scale,
            dy_m: sampling.dy * scale,
            heights_m,
        })
    }

    /// The height in metres at a point in metres (x east, y south), bilinear, clamped to the map.
    pub fn height_at(&self, x_m: f64, y_m: f64) -> f64 {
        let fx = (x_m / self.dx_m).clamp(0.0, (self.nx - 1) as f64);
        let fy = (y_m / self.dy_m).clamp(0.0, (self.ny - 1) as f64);
        let (c0, r0) = (
            (fx as usize).min(self.nx - 2),
            (fy as usize).min(self.ny - 2),
        );
        let (tx, ty) = (fx - c0 as f64, fy - r0 as f64);
        let h = |r: usize, c: usize| f64::from(self.heights_m[[r, c]]);
        let top = h(r0, c0) * (1.0 - tx) + h(r0, c0 + 1) * tx;
        let bottom = h(r0 + 1, c0) * (1.0 - tx) + h(r0 + 1, c0 + 1) * tx;
        top * (1.0 - ty) + bottom * ty
    }

    /// The unit normal (X east, Y up, Z south) at vertex (col, row), by central differences.
    pub fn normal(&self, col: usize, row: usize) -> [f32; 3] {
        let h = |r: usize, c: usize| f64::from(self.heights_m[[r, c]]);
        let (c0, c1) = (col.saturating_sub(1), (col + 1).min(self.nx - 1));
        let (r0, r1) = (row.saturating_sub(1), (row + 1).min(self.ny - 1));
        let dhdx = (h(row, c1) - h(row, c0)) / ((c1 - c0) as f64 * self.dx_m);
        let dhdz = (h(r1, col) - h(r0, col)) / ((r1 - r0) as f64 * self.dy_m);
        let n = [-dhdx, 1.0, -dhdz];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        [
            (n[0] / len) as f32,
            (n[1] / len) as f32,
            (n[2] / len) as f32,
        ]
    }
}

/// Metres per map unit (the map's width is `world_size_m`).
pub fn metres_per_unit(world: &World) -> f64 {
    world.meta.world_size_m / world.meta.width
}

/// A hypsometric colour (8-bit RGB) for a height in metres, for worlds without a colour map.
pub fn ramp_color(h_m: f64, max_height_m: f64, max_depth_m: f64) -> [u8; 3] {
    let lerp = |a: [f64; 3], b: [f64; 3], t: f64| {
        let t = t.clamp(0.0, 1.0);
        [0, 1, 2].map(|k| ((a[k] + (b[k] - a[k]) * t) * 255.0).round() as u8)
    };
    if h_m < 0.0 {
        lerp([0.35, 0.55, 0.65], [0.10, 0.20, 0.35], -h_m / max_depth_m)
    } else {
        let t = h_m / max_height_m;
        if t < 0.5 {
            lerp([0.36, 0.55, 0.30], [0.55, 0.50, 0.35], t * 2.0)
        } else {
            lerp([0.55, 0.50, 0.35], [0.95, 0.95, 0.95], t * 2.0 - 1.0)
        }
    }
}

/// The terrain grid of `nx` vertices along the width ([`TerrainGrid::new`]) and its vertex
/// colours (`ny x nx x 3`): the colour map at the grid's vertices, or the height ramp.
pub(crate) fn terrain_and_colors(
    world: &World,
    nx: usize,
    colors: Option<&ColormapOptions>,
) -> Result<(TerrainGrid, Array3<u8>), ExportError> {
    let has_biomes = ["region_moisture", "region_water", "biome_color_table"]
        .iter()
        .all(|l| world.has_layer(l));
    if let (Some(options), true) = (colors, has_biomes) {
        let sampling = TerrainGrid::sampling(world, nx)?;
        let pixels = PixelGrid {
            nx: sampling.nx,
            ny: sampling.ny,
            sampling: Sampling::Vertices,
            width: world.meta.width,
            height: world.meta.height,
        };
        // The colour map's shore first: its plan of the mesh on these vertices (when the mesh
        // is finer than them) serves the heights too, one walk over the pieces instead of two.
        let style = StrokeStyle::default();
        let shore = colormap::Shore::new(world, &pixels, options.rivers.then_some(&style))?;
        let grid = TerrainGrid::new_on(world, nx, shore.plan())?;
        let image = colormap::colormap_on(world, &pixels, options, &shore)?;
        return Ok((grid, image));
    }
    let grid = TerrainGrid::new(world, nx)?;
    let meta = &world.meta;
    let image = Array3::from_shape_fn((grid.ny, grid.nx, 3), |(r, c, k)| {
        ramp_color(
            f64::from(grid.heights_m[[r, c]]),
            meta.max_height_m,
            meta.max_depth_m,
        )[k]
    });
    Ok((grid, image))
}

/// One tree model as triangles in model space mapped to glTF axes (unit height, Y up).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeMesh {
    /// Branch tubes: positions, normals, triangle indices.
    pub wood: Part,
    /// The crown ellipsoid.
    pub crown: Part,
}

/// Positions, normals and triangle indices (counter-clockwise seen from outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Part {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit normal of each vertex.
    pub normals: Vec<[f32; 3]>,
    /// Three vertex indices per triangle.
    pub indices: Vec<u32>,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: [f64; 3]) -> Option<[f64; 3]> {
    let len = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    (len > 1e-12).then(|| [a[0] / len, a[1] / len, a[2] / len])
}

fn f32x3(a: [f64; 3]) -> [f32; 3] {
    a.map(|v| v as f32)
}

/// Builds a tree mesh from a skeleton: `nodes` rows (x, y, z, radius) in model space (z up, unit
/// height), `parent` indices within the model (-1 at the root). Model (x, y, z) becomes glTF
/// (x, z, y).
pub fn tree_mesh(nodes: &[[f32; 4]], parent: &[i32]) -> TreeMesh {
    let n = nodes.len().min(parent.len());
    let pos: Vec<[f64; 3]> = nodes[..n]
        .iter()
        .map(|p| [f64::from(p[0]), f64::from(p[2]), f64::from(p[1])])
        .collect();
    let radius: Vec<f64> = nodes[..n]
        .iter()
        .map(|p| f64::from(p[3]).max(0.0))
        .collect();
    let parent_of = |i: usize| -> Option<usize> {
        let p = parent[i];
        (p >= 0 && (p as usize) < n && p as usize != i).then_some(p as usize)
    };
    // The thickest child of each node continues it (ties to the lower index).
    let mut main_child: Vec<Option<usize>> = vec![None; n];
    let mut has_child = vec![false; n];
    for i in 0..n {
        if let Some(p) = parent_of(i) {
            has_child[p] = true;
            if main_child[p].is_none_or(|c| radius[i] > radius[c]) {
                main_child[p] = Some(i);
            }
        }
    }
    let mut wood = Part::default();
    for i in 0..n {
        let Some(p) = parent_of(i) else { continue };
        let (a, b) = (pos[p], pos[i]);
        let Some(dir) = normalize(sub(b, a)) else {
            continue;
        };
        let helper = if dir[1].abs() < 0.9 {
            [0.0, 1.0, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        let Some(u) = normalize(cross(helper, dir)) else {
            continue;
        };
        let v = cross(dir, u);
        let rb = if main_child[p] == Some(i) {
            radius[p]
        } else {
            radius[i]
        };
        let rt = radius[i];
        let base = wood.positions.len() as u32;
        for k in 0..TUBE_SIDES {
            let t = std::f64::consts::TAU * k as f64 / TUBE_SIDES as f64;
            let o = [0, 1, 2].map(|j| t.cos() * u[j] + t.sin() * v[j]);
            for (centre, r) in [(a, rb), (b, rt)] {
                wood.positions
                    .push(f32x3([0, 1, 2].map(|j| centre[j] + r * o[j])));
                wood.normals.push(f32x3(o));
            }
        }
        let s = TUBE_SIDES as u32;
        for k in 0..s {
            let k1 = (k + 1) % s;
            let (b0, t0, b1, t1) = (
                base + 2 * k,
                base + 2 * k + 1,
                base + 2 * k1,
                base + 2 * k1 + 1,
            );
            wood.indices.extend([b0, b1, t0, t0, b1, t1]);
        }
    }
    let tips: Vec<usize> = (0..n).filter(|&i| !has_child[i]).collect();
    let crown = if tips.is_empty() || n < 2 {
        Part::default()
    } else {
        let mean = |k: usize| tips.iter().map(|&i| pos[i][k]).sum::<f64>() / tips.len() as f64;
        let (cx, cz) = (mean(0), mean(2));
        let lo = tips
            .iter()
            .map(|&i| pos[i][1])
            .fold(f64::INFINITY, f64::min);
        let hi = tips
            .iter()
            .map(|&i| pos[i][1])
            .fold(f64::NEG_INFINITY, f64::max);
        let reach = tips
            .iter()
            .map(|&i| (pos[i][0] - cx).hypot(pos[i][2] - cz))
            .fold(0.0, f64::max);
        // A little inside the tips, so the outermost twigs show.
        let rh = (0.9 * reach).max(0.03);
        let ry = (0.45 * (hi - lo)).max(0.03);
        ellipsoid([cx, 0.5 * (lo + hi), cz], [rh, ry, rh], 10, 6)
    };
    TreeMesh { wood, crown }
}

/// A UV ellipsoid with `seg` segments around and `rings` rings from pole to pole.
fn ellipsoid(centre: [f64; 3], radii: [f64; 3], seg: usize, rings: usize) -> Part {
    let mut part = Part::default();
    for j in 0..=rings {
        let phi = std::f64::consts::PI * j as f64 / rings as f64;
        for k in 0..=seg {
            let th = std::f64::consts::TAU * k as f64 / seg as f64;
            // Unit sphere direction; Y is the pole.
            let d = [phi.sin() * th.cos(), phi.cos(), phi.sin() * th.sin()];
            part.positions
                .push(f32x3([0, 1, 2].map(|i| centre[i] + radii[i] * d[i])));
            let nrm = normalize([0, 1, 2].map(|i| d[i] / radii[i])).unwrap_or([0.0, 1.0, 0.0]);
            part.normals.push(f32x3(nrm));
        }
    }
    let w = (seg + 1) as u32;
    for j in 0..rings as u32 {
        for k in 0..seg as u32 {
            let (a, b) = (j * w + k, j * w + k + 1);
            let (c, d) = ((j + 1) * w + k, (j + 1) * w + k + 1);
            // Counter-clockwise from outside: theta grows from +X towards +Z.
            if j > 0 {
                part.indices.extend([a, b, c]);
            }
            if j + 1 < rings as u32 {
                part.indices.extend([b, d, c]);
            }
        }
    }
    part
}

/// The binary chunk and the JSON built alongside it.
struct Builder {
    root: Root,
    bin: Vec<u8>,
}

impl Builder {
    fn view(&mut self, bytes: &[u8], target: json::buffer::Target) -> Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: Some(Valid(target)),
            extensions: None,
            extras: Default::default(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        bytes: &[u8],
        target: json::buffer::Target,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        normalized: bool,
        min_max: Option<(json::Value, json::Value)>,
    ) -> Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = min_max.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized,
            sparse: None,
        })
    }

    fn vec3(&mut self, data: &[[f32; 3]], with_bounds: bool) -> Index<json::Accessor> {
        let bytes: Vec<u8> = data
            .iter()
            .flat_map(|v| v.iter().flat_map(|c| c.to_le_bytes()))
            .collect();
        let bounds = with_bounds.then(|| {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in data {
                for k in 0..3 {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (
                json::Value::from(lo.to_vec()),
                json::Value::from(hi.to_vec()),
            )
        });
        self.accessor(
            &bytes,
            json::buffer::Target::ArrayBuffer,
            data.len(),
            json::accessor::ComponentType::F32,
            json::accessor::Type::Vec3,
            false,
            bounds,
        )
    }

    /// `COLOR_0` from sRGB bytes: glTF colours are linear, so each channel is decoded from
    /// sRGB and stored as a normalised 16-bit value (8 bits would band the darks).
    fn colors(&mut self, rgba: &[[u8; 4]]) -> Index<json::Accessor> {
        let lut: Vec<u16> = (0..=255u8)
            .map(|v| {
                let c = f64::from(v) / 255.0;
                let lin = if c <= 0.04045 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                };
                (lin * 65535.0).round() as u16
            })
            .collect();
        let bytes: Vec<u8> = rgba
            .iter()
            .flat_map(|p| {
                [
                    lut[p[0] as usize],
                    lut[p[1] as usize],
                    lut[p[2] as usize],
                    65535,
                ]
            })
            .flat_map(u16::to_le_bytes)
            .collect();
        self.accessor(
            &bytes,
            json::buffer::Target::ArrayBuffer,
            rgba.len(),
            json::accessor::ComponentType::U16,
            json::accessor::Type::Vec4,
            true,
            None,
        )
    }

    fn indices(&mut self, indices: &[u32]) -> Index<json::Accessor> {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        self.accessor(
            &bytes,
            json::buffer::Target::ElementArrayBuffer,
            indices.len(),
            json::accessor::ComponentType::U32,
            json::accessor::Type::Scalar,
            false,
            None,
        )
    }

    fn material(
        &mut self,
        name: &str,
        rgba: [f32; 4],
        roughness: f32,
        blend: bool,
    ) -> Index<json::Material> {
        self.root.push(json::Material {
            name: Some(name.to_owned()),
            alpha_mode: Valid(if blend {
                json::material::AlphaMode::Blend
            } else {
                json::material::AlphaMode::Opaque
            }),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(rgba),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(roughness),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    fn primitive(
        &mut self,
        part: &Part,
        colors: Option<&[[u8; 4]]>,
        material: Index<json::Material>,
    ) -> json::mesh::Primitive {
        let mut attributes = BTreeMap::new();
        attributes.insert(
            Valid(json::mesh::Semantic::Positions),
            self.vec3(&part.positions, true),
        );
        attributes.insert(
            Valid(json::mesh::Semantic::Normals),
            self.vec3(&part.normals, false),
        );
        if let Some(c) = colors {
            attributes.insert(Valid(json::mesh::Semantic::Colors(0)), self.colors(c));
        }
        let indices = Some(self.indices(&part.indices));
        json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: Default::default(),
            indices,
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        }
    }

    fn mesh(&mut self, name: &str, primitives: Vec<json::mesh::Primitive>) -> Index<json::Mesh> {
        self.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(name.to_owned()),
            primitives,
            weights: None,
        })
    }
}

/// Crown colours by species index (greens, linear RGB).
const CROWNS: [[f32; 3]; 6] = [
    [0.10, 0.28, 0.06],
    [0.04, 0.16, 0.07],
    [0.14, 0.32, 0.05],
    [0.18, 0.30, 0.08],
    [0.30, 0.32, 0.10],
    [0.08, 0.22, 0.10],
];

/// The `world.glb` bytes of a world. Needs the mesh, `region_elevation` and `corner_elevation`;
/// uses the biome layers for colours and the flora layers for trees when present.
pub fn glb(world: &World, options: &GlbOptions) -> Result<Vec<u8>, ExportError> {
    options.validate()?;
    let (grid, colors) = terrain_and_colors(world, options.resolution, options.colors.as_ref())?;
    let scale = metres_per_unit(world);
    let (nx, ny) = (grid.nx, grid.ny);
    let mut b = Builder {
        root: Root {
            asset: json::Asset {
                generator: Some(format!("orogen {}", env!("CARGO_PKG_VERSION"))),
                ..Default::default()
            },
            ..Default::default()
        },
        bin: Vec::new(),
    };
    let terrain_material = b.material("terrain", [1.0, 1.0, 1.0, 1.0], 0.9, false);
    let water_material = b.material("water", [0.08, 0.22, 0.38, 0.7], 0.05, true);

    // The terrain.
    let mut terrain = Part::default();
    let mut rgba = Vec::with_capacity(nx * ny);
    for row in 0..ny {
        for col in 0..nx {
            terrain.positions.push([
                (col as f64 * grid.dx_m) as f32,
                grid.heights_m[[row, col]],
                (row as f64 * grid.dy_m) as f32,
            ]);
            terrain.normals.push(grid.normal(col, row));
            rgba.push([
                colors[[row, col, 0]],
                colors[[row, col, 1]],
                colors[[row, col, 2]],
                255,
            ]);
        }
    }
    for row in 0..ny - 1 {
        for col in 0..nx - 1 {
            let p0 = (row * nx + col) as u32;
            let (p1, p2, p3) = (p0 + 1, p0 + 1 + nx as u32, p0 + nx as u32);
            terrain.indices.extend([p0, p2, p1, p0, p3, p2]);
        }
    }
    let prim = b.primitive(&terrain, Some(&rgba), terrain_material);
    drop(terrain);
    let terrain_mesh = b.mesh("terrain", vec![prim]);
    let mut scene_nodes = vec![b.root.push(json::Node {
        name: Some("terrain".into()),
        mesh: Some(terrain_mesh),
        ..Default::default()
    })];

    // Water at sea level over the whole map.
    let (w_m, h_m) = (
        (world.meta.width * scale) as f32,
        (world.meta.height * scale) as f32,
    );
    let water = Part {
        positions: vec![
            [0.0, 0.0, 0.0],
            [w_m, 0.0, 0.0],
            [w_m, 0.0, h_m],
            [0.0, 0.0, h_m],
        ],
        normals: vec![[0.0, 1.0, 0.0]; 4],
        indices: vec![0, 2, 1, 0, 3, 2],
    };
    let prim = b.primitive(&water, None, water_material);
    let water_mesh = b.mesh("water", vec![prim]);
    scene_nodes.push(b.root.push(json::Node {
        name: Some("water".into()),
        mesh: Some(water_mesh),
        ..Default::default()
    }));

    // Trees.
    let flora = [
        "flora_xy",
        "flora_model",
        "flora_size",
        "tree_nodes",
        "tree_parent",
    ];
    if options.trees
        && flora.iter().all(|l| world.has_layer(l))
        && let Some(trees) = tree_nodes(&mut b, world, &grid, scale)?
    {
        scene_nodes.push(trees);
    }

    b.root.push(json::Buffer {
        byte_length: USize64::from(b.bin.len().next_multiple_of(4)),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some("world".into()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(scene);
    let text = b.root.to_vec().map_err(|e| ExportError::encode(FILE, e))?;
    Ok(container(text, b.bin))
}

/// The tree meshes (one per model) and one node per instance under a `trees` node.
fn tree_nodes(
    b: &mut Builder,
    world: &World,
    grid: &TerrainGrid,
    scale: f64,
) -> Result<Option<Index<json::Node>>, ExportError> {
    let xy = world.view2::<f64>("flora_xy")?;
    let model = world.view1::<u32>("flora_model")?;
    let size = world.view1::<f32>("flora_size")?;
    let seed = world.view1::<u32>("flora_seed").ok();
    let offsets = world.offsets("tree_nodes")?.to_vec();
    let nodes = world.view2::<f32>("tree_nodes")?;
    let parent = world.view1::<i32>("tree_parent")?;
    let model_species = world.view1::<u32>("tree_model_species").ok();
    let n_models = offsets.len().saturating_sub(1);
    let n = xy.nrows();
    if model.len() != n || size.len() != n || seed.is_some_and(|s| s.len() != n) {
        return Err(orogen_world::WorldError::BadLayer {
            name: "flora_model".into(),
            problem: format!("flora layers disagree on the instance count ({n} positions)"),
        }
        .into());
    }
    if n == 0 || n_models == 0 {
        return Ok(None);
    }
    let bark = b.material("bark", [0.25, 0.17, 0.11, 1.0], 0.9, false);
    let mut crowns = BTreeMap::new();
    let mut meshes = Vec::with_capacity(n_models);
    for m in 0..n_models {
        let (lo, hi) = (offsets[m] as usize, offsets[m + 1] as usize);
        if lo > hi || hi > nodes.nrows() || hi > parent.len() {
            return Err(orogen_world::WorldError::BadLayer {
                name: "tree_nodes".into(),
                problem: format!("model {m} spans rows {lo}..{hi}"),
            }
            .into());
        }
        let rows: Vec<[f32; 4]> = (lo..hi)
            .map(|r| [0, 1, 2, 3].map(|k| nodes[[r, k]]))
            .collect();
        let par: Vec<i32> = (lo..hi).map(|r| parent[r]).collect();
        let tree = tree_mesh(&rows, &par);
        let species = model_species.and_then(|s| s.get(m).copied()).unwrap_or(0);
        let crown = *crowns.entry(species).or_insert_with(|| {
            let c = CROWNS[species as usize % CROWNS.len()];
            b.material(
                &format!("crown {species}"),
                [c[0], c[1], c[2], 1.0],
                0.8,
                false,
            )
        });
        let mut prims = Vec::new();
        if !tree.wood.indices.is_empty() {
            prims.push(b.primitive(&tree.wood, None, bark));
        }
        if !tree.crown.indices.is_empty() {
            prims.push(b.primitive(&tree.crown, None, crown));
        }
        meshes.push((!prims.is_empty()).then(|| b.mesh(&format!("tree {m}"), prims)));
    }
    let mut children = Vec::with_capacity(n);
    for i in 0..n {
        let m = model[i] as usize;
        let Some(Some(mesh)) = meshes.get(m).copied() else {
            return Err(orogen_world::WorldError::BadLayer {
                name: "flora_model".into(),
                problem: format!("instance {i} names model {m} of {n_models} (or an empty one)"),
            }
            .into());
        };
        let (x_m, z_m) = (xy[[i, 0]] * scale, xy[[i, 1]] * scale);
        let y_m = grid.height_at(x_m, z_m);
        let angle = seed.map_or(0.0, |s| {
            f64::from(s[i]) / 4_294_967_296.0 * std::f64::consts::TAU
        });
        let s = size[i].max(0.0);
        children.push(b.root.push(json::Node {
            mesh: Some(mesh),
            translation: Some([x_m as f32, y_m as f32, z_m as f32]),
            rotation: Some(json::scene::UnitQuaternion([
                0.0,
                (0.5 * angle).sin() as f32,
                0.0,
                (0.5 * angle).cos() as f32,
            ])),
            scale: Some([s, s, s]),
            ..Default::default()
        }));
    }
    Ok(Some(b.root.push(json::Node {
        name: Some("trees".into()),
        children: Some(children),
        ..Default::default()
    })))
}

/// The GLB container: header, JSON chunk (padded with spaces), BIN chunk (padded with zeros).
fn container(mut text: Vec<u8>, mut bin: Vec<u8>) -> Vec<u8> {
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// Writes `world.glb` into `out`.
pub fn write_glb(out: &mut OutDir, world: &World, options: &GlbOptions) -> Result<(), ExportError> {
    let bytes = glb(world, options)?;
    out.write(FILE, |w| {
        w.write_all(&bytes)
            .map_err(|e| ExportError::encode(FILE, e))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use orogen_world::{Domain, Layer, WorldMeta};

    /// A 1 x 1 map (10 km), land rising from -1 in the west to 1 in the east, and three trees
    /// of two tiny models.
    fn world() -> World {
        let meta = WorldMeta {
            world_size_m: 10_000.0,
            ..WorldMeta::default()
        };
        let mut w = crate::test_worlds::shaped(16, 3, meta, |x, _| (2.0 * x - 1.0) as f32);
        let xy = Array2::from_shape_vec((3, 2), vec![0.7, 0.2, 0.8, 0.5, 0.9, 0.9]).unwrap();
        w.set_layer("flora_xy", Domain::Free, xy.into_dyn())
            .unwrap();
        w.set_values("flora_model", Domain::Free, vec![0u32, 1, 0])
            .unwrap();
        w.set_values("flora_size", Domain::Free, vec![10f32, 20.0, 15.0])
            .unwrap();
        w.set_values("flora_seed", Domain::Free, vec![1u32, 2, 3])
            .unwrap();
        // Model 0: a trunk and two branches; model 1: a trunk and one branch.
        let rows: Vec<[f32; 4]> = vec![
            [0.0, 0.0, 0.0, 0.02],
            [0.0, 0.0, 0.5, 0.015],
            [0.2, 0.0, 0.9, 0.005],
            [-0.2, 0.1, 1.0, 0.005],
            [0.0, 0.0, 0.0, 0.03],
            [0.0, 0.0, 0.6, 0.02],
            [0.1, 0.1, 1.0, 0.01],
        ];
        let nodes = Array2::from_shape_vec((7, 4), rows.concat()).unwrap();
        let offsets = Array1::from(vec![0u32, 4, 7]);
        w.insert_layer(
            "tree_nodes",
            Layer::ragged(Domain::Free, offsets.clone(), nodes.into_dyn()),
        )
        .unwrap();
        let parent = Array1::from(vec![-1i32, 0, 1, 1, -1, 0, 1]);
        w.insert_layer(
            "tree_parent",
            Layer::ragged(Domain::Free, offsets, parent.into_dyn()),
        )
        .unwrap();
        w.set_values("tree_model_species", Domain::Free, vec![0u32, 3])
            .unwrap();
        w
    }

    fn options(resolution: usize) -> GlbOptions {
        GlbOptions {
            resolution,
            colors: None,
            trees: true,
        }
    }

    #[test]
    fn reads_back_with_the_gltf_crate() {
        let w = world();
        let bytes = glb(&w, &options(33)).unwrap();
        assert_eq!(&bytes[..4], b"glTF");
        assert!(bytes.len().is_multiple_of(4));
        let g = ::gltf::Gltf::from_slice(&bytes).unwrap();
        let terrain = g.meshes().find(|m| m.name() == Some("terrain")).unwrap();
        let prim = terrain.primitives().next().unwrap();
        let pos = prim.get(&::gltf::Semantic::Positions).unwrap();
        assert_eq!(pos.count(), 33 * 33);
        let bounds = prim.bounding_box();
        // 10 km square, west edge 1000 m deep, east edge 2000 m high.
        assert_eq!(bounds.min[0], 0.0);
        assert_eq!(bounds.min[2], 0.0);
        assert!((bounds.max[0] - 10_000.0).abs() < 1e-2);
        assert!((bounds.max[2] - 10_000.0).abs() < 1e-2);
        assert!(bounds.min[1] < -900.0 && bounds.min[1] >= -1000.0);
        assert!(bounds.max[1] > 1800.0 && bounds.max[1] <= 2000.0);
        assert!(prim.get(&::gltf::Semantic::Colors(0)).is_some());
        assert!(prim.get(&::gltf::Semantic::Normals).is_some());
        // One node per tree instance, each with a tree mesh, scaled by its height.
        let trees: Vec<_> = g
            .nodes()
            .filter(|n| {
                n.mesh()
                    .is_some_and(|m| m.name().is_some_and(|s| s.starts_with("tree ")))
            })
            .collect();
        assert_eq!(trees.len(), 3);
        assert_eq!(
            g.meshes()
                .filter(|m| m.name().is_some_and(|s| s.starts_with("tree ")))
                .count(),
            2
        );
        let (t, _, s) = trees[1].transform().decomposed();
        assert!((s[1] - 20.0).abs() < 1e-4);
        assert!((t[0] - 8000.0).abs() < 1e-2 && (t[2] - 5000.0).abs() < 1e-2);
        // Standing on the ramp: x = 0.8 is 0.6 of the way up to 2000 m.
        assert!((t[1] - 1200.0).abs() < 60.0, "tree at {} m", t[1]);
        // Deterministic bytes.
        assert_eq!(glb(&w, &options(33)).unwrap(), bytes);
    }

    #[test]
    fn tubes_face_outwards_and_crowns_enclose_the_tips() {
        let nodes = [[0.0, 0.0, 0.0, 0.05], [0.0, 0.0, 1.0, 0.02]];
        let tree = tree_mesh(&nodes, &[-1, 0]);
        assert_eq!(tree.wood.positions.len(), 2 * TUBE_SIDES);
        for tri in tree.wood.indices.chunks_exact(3) {
            let p =
                [tri[0], tri[1], tri[2]].map(|i| tree.wood.positions[i as usize].map(f64::from));
            let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            // The tube runs along +Y (model z): the face normal points away from the axis.
            let centre = [0.0, (p[0][1] + p[1][1] + p[2][1]) / 3.0, 0.0];
            let out = sub(
                [
                    (p[0][0] + p[1][0] + p[2][0]) / 3.0,
                    centre[1],
                    (p[0][2] + p[1][2] + p[2][2]) / 3.0,
                ],
                centre,
            );
            assert!(n[0] * out[0] + n[2] * out[2] > 0.0);
        }
        // The bottom ring is the trunk's radius, the top the tip's.
        assert!((tree.wood.positions[0][0].hypot(tree.wood.positions[0][2]) - 0.05).abs() < 1e-6);
        assert!((tree.wood.positions[1][0].hypot(tree.wood.positions[1][2]) - 0.02).abs() < 1e-6);
        for tri in tree.crown.indices.chunks_exact(3) {
            let p =
                [tri[0], tri[1], tri[2]].map(|i| tree.crown.positions[i as usize].map(f64::from));
            let n = cross(sub(p[1], p[0]), sub(p[2], p[0]));
            let c = [0, 1, 2].map(|k| (p[0][k] + p[1][k] + p[2][k]) / 3.0 - [0.0, 1.0, 0.0][k]);
            assert!(n[0] * c[0] + n[1] * c[1] + n[2] * c[2] > 0.0);
        }
    }

    #[test]
    fn bad_options_and_missing_layers_are_errors() {
        let mut w = world();
        assert!(glb(&w, &options(1)).is_err());
        w.remove_layer("corner_elevation");
        assert!(glb(&w, &options(9)).is_err());
        let mut w = world();
        w.set_values("flora_model", Domain::Free, vec![0u32, 5, 0])
            .unwrap();
        assert!(glb(&w, &options(9)).is_err());
    }

    /// The Khronos glTF validator (tools/gltf-validator, `npm ci` there) finds no error.
    #[test]
    fn khronos_validator_finds_no_errors() {
        let bytes = glb(&world(), &options(17)).unwrap();
        let tool =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator");
        match crate::gltf::validator::validate(&tool, &bytes) {
            Ok(Some(report)) => assert_eq!(report.errors, 0, "validator report: {}", report.text),
            Ok(None) => {
                orogen_world::testing::require(
                    false,
                    "khronos_validator_finds_no_errors",
                    "node or tools/gltf-validator/node_modules/gltf-validator",
                    "apt-get install nodejs npm, then `cd tools/gltf-validator && npm ci`",
                );
            }
            Err(e) => panic!("validator failed to run: {e}"),
        }
    }
}

/// Runs the Khronos glTF validator (`tools/gltf-validator/validate.js`, Node and the npm
/// package `gltf-validator`) on GLB bytes, for tests.
pub mod validator {
    use std::io::Write;
    use std::path::Path;
    use std::process::{Command, Stdio};

    /// The validator's verdict.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Report {
        /// `issues.numErrors`.
        pub errors: u64,
        /// The JSON line the script printed (counts and every error).
        pub text: String,
    }

    /// Validates `bytes` with the script in `tool_dir`. `Ok(None)` when `node` or the package is
    /// not installed there (the caller reports the skip); `Err` when it runs but fails.
    pub fn validate(tool_dir: &Path, bytes: &[u8]) -> Result<Option<Report>, String> {
        if !tool_dir.join("node_modules/gltf-validator").is_dir() {
            return Ok(None);
        }
        let child = Command::new("node")
            .arg(tool_dir.join("validate.js"))
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(bytes)
            .map_err(|e| e.to_string())?;
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{e}: stdout `{text}`, stderr `{}`",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        let errors = value["numErrors"]
            .as_u64()
            .ok_or_else(|| format!("no numErrors in `{text}`"))?;
        Ok(Some(Report { errors, text }))
    }
}
