//! The world on the wire: a small JSON header and little-endian typed arrays the page hands
//! to WebGL as they are (`new Float32Array(buffer, offset, length)`).
//!
//! Layout: the 4 bytes `OROG`, the header's length `H` (u32 LE), `H` bytes of JSON (padded with
//! spaces so the arrays start on a multiple of 4), then the arrays, each starting on a multiple
//! of 4. The header's `"arrays"` maps each name to `{"type": "f32" | "u32" | "u8", "offset",
//! "length"}` (offset in bytes from the start of the body, length in elements).
//!
//! What a world sends (see [`world_arrays`]): per region `region_elevation`, `region_moisture`,
//! `region_water` (0 land, 1 ocean, 2 lake) and `region_biome`; per corner `corner_elevation`;
//! the river strokes (`river_xy`, `river_z`, `river_width`, `river_offsets`), and the plants
//! (`flora_xy`, `flora_species`) when flora ran. The mesh (`region_xy`, `corner_xy`,
//! `corner_regions`, `edges`) and the colour table (`table`, u8 RGB) are sent only when the
//! page does not hold them yet ([`mesh_arrays`], [`table_array`]).

use orogen_export::ExportError;
use orogen_export::stroke::{StrokeStyle, river_strokes};
use orogen_world::ids::water;
use orogen_world::{World, WorldError};
use serde_json::{Map, Value, json};

/// The arrays of one answer, in order.
#[derive(Debug, Default)]
pub(crate) struct Arrays {
    items: Vec<(&'static str, &'static str, Vec<u8>, usize)>,
}

impl Arrays {
    pub(crate) fn f32(&mut self, name: &'static str, values: impl IntoIterator<Item = f32>) {
        let bytes = le_bytes(values, f32::to_le_bytes);
        let n = bytes.len() / 4;
        self.items.push((name, "f32", bytes, n));
    }

    pub(crate) fn u32(&mut self, name: &'static str, values: impl IntoIterator<Item = u32>) {
        let bytes = le_bytes(values, u32::to_le_bytes);
        let n = bytes.len() / 4;
        self.items.push((name, "u32", bytes, n));
    }

    pub(crate) fn u8(&mut self, name: &'static str, values: Vec<u8>) {
        let n = values.len();
        self.items.push((name, "u8", values, n));
    }

    /// Adds `other`'s arrays after these.
    pub(crate) fn append(&mut self, mut other: Arrays) {
        self.items.append(&mut other.items);
    }

    /// The body: magic, header (with `"arrays"` added), arrays.
    pub(crate) fn encode(self, mut header: Map<String, Value>) -> Vec<u8> {
        // Offsets depend on the header's length, which depends on the offsets' digits: lay
        // the arrays out after a header padded to a fixed bound that grows until it fits.
        let mut room = 1024usize;
        loop {
            let mut offset = 8 + room;
            let mut table = Map::new();
            for (name, ty, bytes, n) in &self.items {
                table.insert(
                    (*name).into(),
                    json!({ "type": ty, "offset": offset, "length": n }),
                );
                offset += bytes.len().div_ceil(4) * 4;
            }
            header.insert("arrays".into(), Value::Object(table));
            let text = Value::Object(header.clone()).to_string();
            if text.len() > room {
                room = text.len().div_ceil(1024) * 1024;
                continue;
            }
            let mut out = Vec::with_capacity(offset);
            out.extend_from_slice(b"OROG");
            out.extend_from_slice(&(room as u32).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
            out.resize(8 + room, b' ');
            for (_, _, bytes, _) in &self.items {
                out.extend_from_slice(bytes);
                out.resize(out.len().div_ceil(4) * 4, 0);
            }
            return out;
        }
    }
}

/// The little-endian bytes of `values`, one `extend` a value (a `flat_map` over the byte arrays
/// costs several times more).
fn le_bytes<T>(values: impl IntoIterator<Item = T>, bytes_of: fn(T) -> [u8; 4]) -> Vec<u8> {
    let values = values.into_iter();
    let mut bytes = Vec::with_capacity(4 * values.size_hint().0);
    for v in values {
        bytes.extend_from_slice(&bytes_of(v));
    }
    bytes
}

/// The mesh: site and corner positions, each corner's three regions, and the Voronoi edges
/// (pairs of corners) for the cell outlines.
pub(crate) fn mesh_arrays(world: &World, out: &mut Arrays) -> Result<(), WorldError> {
    let mesh = world.mesh()?;
    out.f32("region_xy", mesh.region_xy.iter().map(|&v| v as f32));
    out.f32("corner_xy", mesh.corner_xy.iter().map(|&v| v as f32));
    out.u32("corner_regions", mesh.corner_regions.iter().copied());
    let edges = (0..mesh.n_corners()).flat_map(|c| {
        mesh.corner_neighbors
            .get(c)
            .iter()
            .filter(move |&&d| (d as usize) > c)
            .flat_map(move |&d| [c as u32, d])
    });
    out.u32("edges", edges.collect::<Vec<_>>());
    Ok(())
}

/// The biome colour table (`biome_color_table`, elevation rows x moisture columns x RGB) as
/// 8-bit RGB, and its shape `[rows, columns]`.
pub(crate) fn table_array(world: &World, out: &mut Arrays) -> Result<[usize; 2], WorldError> {
    let table = world.view::<f32>("biome_color_table")?;
    let shape = table.shape().to_vec();
    if shape.len() != 3 || shape[2] != 3 {
        return Err(WorldError::BadLayer {
            name: "biome_color_table".into(),
            problem: "is not an n x m x 3 table".into(),
        });
    }
    out.u8(
        "table",
        table
            .iter()
            .map(|&v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)
            .collect(),
    );
    Ok([shape[0], shape[1]])
}

/// The world's per-run arrays (see the module doc).
pub(crate) fn world_arrays(world: &World, out: &mut Arrays) -> Result<(), WorldError> {
    out.f32(
        "region_elevation",
        world.view1::<f32>("region_elevation")?.iter().copied(),
    );
    out.f32(
        "corner_elevation",
        world.view1::<f32>("corner_elevation")?.iter().copied(),
    );
    out.f32(
        "region_moisture",
        world.view1::<f32>("region_moisture")?.iter().copied(),
    );
    out.u8("region_water", world.view1::<u8>("region_water")?.to_vec());
    out.u8("region_biome", world.view1::<u8>("region_biome")?.to_vec());
    rivers(world, out)?;
    if world.has_layer("flora_xy") {
        out.f32(
            "flora_xy",
            world.view2::<f64>("flora_xy")?.iter().map(|&v| v as f32),
        );
        out.u8(
            "flora_species",
            world
                .view1::<u32>("flora_species")?
                .iter()
                .map(|&s| s.min(255) as u8)
                .collect(),
        );
    }
    Ok(())
}

/// The river strokes the exporters draw ([`orogen_export::stroke::river_strokes`]: smooth,
/// meandering, tapered, split at lakes), without their extensions into water (the page has no
/// shore clip): per point its position, width and elevation (the corners' elevation,
/// interpolated along the stroke, never below sea level).
fn rivers(world: &World, out: &mut Arrays) -> Result<(), WorldError> {
    let (mut xy, mut z, mut width, mut offsets) = (Vec::new(), Vec::new(), Vec::new(), vec![0u32]);
    let strokes = river_strokes(world, &StrokeStyle::default()).map_err(|e| match e {
        ExportError::World(e) => e,
        other => WorldError::BadLayer {
            name: "rivers".into(),
            problem: other.to_string(),
        },
    })?;
    if !strokes.is_empty() {
        let corner_e = world.view1::<f32>("corner_elevation")?;
        for s in &strokes {
            let last = (s.corners.len() - 1) as f64;
            let height = |along: f64| {
                let k = (along.floor() as usize).min(s.corners.len() - 1);
                let t = (along - k as f64) as f32;
                let e = |k: usize| corner_e[s.corners[k.min(s.corners.len() - 1)] as usize];
                (e(k) + (e(k + 1) - e(k)) * t).max(0.0)
            };
            let start = xy.len();
            for p in s.points.iter().filter(|p| (0.0..=last).contains(&p.along)) {
                xy.extend([p.x as f32, p.y as f32]);
                z.push(height(p.along));
                width.push((2.0 * p.half_width) as f32);
            }
            if xy.len() - start >= 4 {
                offsets.push((xy.len() / 2) as u32);
            } else {
                xy.truncate(start);
                z.truncate(start / 2);
                width.truncate(start / 2);
            }
        }
    }
    out.f32("river_xy", xy);
    out.f32("river_z", z);
    out.f32("river_width", width);
    out.u32("river_offsets", offsets);
    Ok(())
}

/// The region kinds the page tells apart, as sent in `region_water`.
pub(crate) const WATER_KINDS: [(&str, u8); 3] = [
    ("land", water::LAND),
    ("ocean", water::OCEAN),
    ("lake", water::LAKE),
];
