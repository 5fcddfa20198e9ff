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
        let bytes: Vec<u8> = values.into_iter().flat_map(f32::to_le_bytes).collect();
        let n = bytes.len() / 4;
        self.items.push((name, "f32", bytes, n));
    }

    pub(crate) fn u32(&mut self, name: &'static str, values: impl IntoIterator<Item = u32>) {
        let bytes: Vec<u8> = values.into_iter().flat_map(u32::to_le_bytes).collect();
        let n = bytes.len() / 4;
        self.items.push((name, "u32", bytes, n));
    }

    pub(crate) fn u8(&mut self, name: &'static str, values: Vec<u8>) {
        let n = values.len();
        self.items.push((name, "u8", values, n));
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
    let mesh = world.mesh()?;
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
    rivers(world, mesh, out)?;
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

/// River strokes from `rivers`, `river_width` and `river_on_lake`: polylines of corner
/// positions with their elevation and width, split where a segment lies on a lake surface.
fn rivers(
    world: &World,
    mesh: &orogen_world::DualMesh,
    out: &mut Arrays,
) -> Result<(), WorldError> {
    let (mut xy, mut z, mut width, mut offsets) = (Vec::new(), Vec::new(), Vec::new(), vec![0u32]);
    if world.has_layer("rivers") {
        let starts = world.offsets("rivers")?.to_vec();
        let corners: Vec<u32> = world.view::<u32>("rivers")?.iter().copied().collect();
        let widths: Vec<f32> = world.view::<f32>("river_width")?.iter().copied().collect();
        let on_lake: Vec<u8> = match world.view::<u8>("river_on_lake") {
            Ok(v) => v.iter().copied().collect(),
            Err(_) => vec![0; corners.len()],
        };
        let corner_e = world.view1::<f32>("corner_elevation")?;
        let bad = || WorldError::BadLayer {
            name: "rivers".into(),
            problem: "corner id out of range or widths of another length".into(),
        };
        if widths.len() != corners.len() || on_lake.len() != corners.len() {
            return Err(bad());
        }
        for river in starts.windows(2) {
            let (s, e) = (river[0] as usize, (river[1] as usize).min(corners.len()));
            let mut open = 0usize; // points in the stroke being built
            for k in s..e {
                let c = corners[k] as usize;
                if c >= mesh.n_corners() {
                    return Err(bad());
                }
                xy.extend([mesh.corner_xy[[c, 0]] as f32, mesh.corner_xy[[c, 1]] as f32]);
                z.push(corner_e[c].max(0.0));
                width.push(widths[k]);
                open += 1;
                // The segment to the next vertex lies on a lake (or this is the last vertex):
                // end the stroke here.
                if on_lake[k] != 0 || k + 1 == e {
                    if open >= 2 {
                        offsets.push((xy.len() / 2) as u32);
                    } else {
                        xy.truncate(xy.len() - 2 * open);
                        z.truncate(z.len() - open);
                        width.truncate(width.len() - open);
                    }
                    open = 0;
                }
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
