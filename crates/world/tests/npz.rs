//! The `.npz` world format: round trips and refusals.

use ndarray::{Array2, array};
use orogen_world::{Csr, Domain, DualMesh, Layer, World, WorldError, WorldMeta};

/// The unit square split by its centre: 4 boundary sites, 1 interior site, 4 triangles.
fn tiny_mesh() -> DualMesh {
    let region_xy = array![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]];
    // Counter-clockwise with y down means positive shoelace area.
    let tris: [[u32; 3]; 4] = [[0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]];
    let corner_regions = Array2::from_shape_vec((4, 3), tris.concat()).unwrap();
    let corner_xy = Array2::from_shape_fn((4, 2), |(c, k)| {
        tris[c]
            .iter()
            .map(|&r| region_xy[[r as usize, k]])
            .sum::<f64>()
            / 3.0
    });
    DualMesh {
        region_xy,
        region_is_boundary: array![1, 1, 1, 1, 0],
        corner_xy,
        corner_regions,
        region_neighbors: Csr::from_lists(&[
            vec![1, 4, 3],
            vec![2, 4, 0],
            vec![3, 4, 1],
            vec![0, 4, 2],
            vec![0, 1, 2, 3],
        ]),
        region_corners: Csr::from_lists(&[
            vec![3, 0],
            vec![0, 1],
            vec![1, 2],
            vec![2, 3],
            vec![0, 1, 2, 3],
        ]),
        corner_neighbors: Csr::from_lists(&[vec![1, 3], vec![0, 2], vec![1, 3], vec![2, 0]]),
    }
}

fn sample_world() -> World {
    let mut world = World::new(WorldMeta {
        seed: 99,
        ..WorldMeta::default()
    });
    world.set_mesh(tiny_mesh()).unwrap();
    world
        .set_values(
            "elevation",
            Domain::Region,
            vec![-1.0f32, 0.25, 1.0, -0.5, 0.5],
        )
        .unwrap();
    world
        .set_values("corner_flow", Domain::Corner, vec![1u32, 2, 3, 4])
        .unwrap();
    world
        .set_layer(
            "heightmap",
            Domain::Raster,
            Array2::from_shape_fn((3, 4), |(r, c)| (r * 4 + c) as f64).into_dyn(),
        )
        .unwrap();
    world
        .insert_layer(
            "rivers",
            Layer::ragged_indices(
                Domain::Free,
                Domain::Corner,
                Csr::from_lists(&[vec![0, 1], vec![3, 2, 1]]),
            ),
        )
        .unwrap();
    world
}

fn to_bytes(world: &World) -> Vec<u8> {
    let mut bytes = Vec::new();
    world.write_npz(&mut bytes, r#"{"cells": 5}"#).unwrap();
    bytes
}

#[test]
fn round_trip_is_bit_for_bit() {
    let world = sample_world();
    let bytes = to_bytes(&world);
    let (back, config) = World::read_npz(&bytes[..]).unwrap();
    assert_eq!(back, world);
    assert_eq!(config, r#"{"cells": 5}"#);
    // Writing the loaded world gives the same bytes again: no clock, no hash order.
    assert_eq!(to_bytes(&back), bytes);
}

#[test]
fn every_truncation_is_refused_without_panic() {
    let bytes = to_bytes(&sample_world());
    for len in (0..bytes.len()).step_by(7) {
        assert!(
            World::read_npz(&bytes[..len]).is_err(),
            "truncated to {len} bytes was accepted"
        );
    }
}

#[test]
fn out_of_range_index_names_the_array() {
    let mut world = sample_world();
    // Bypass the checks of set_mesh by tampering with the bytes of a valid file instead.
    let mut mesh = world.mesh().unwrap().clone();
    mesh.corner_regions[[2, 1]] = 7;
    assert!(world.set_mesh(mesh.clone()).is_err());

    // A file whose mesh has region 7 among 5: rewrite one entry of a valid file (with a
    // correct checksum, so only the bounds check can catch it).
    let tampered = rewrite_entry(&to_bytes(&world), "mesh.corner_regions.npy", |npy| {
        let needle: Vec<u8> = [2u32, 4, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let pos = npy
            .windows(needle.len())
            .position(|w| w == needle)
            .expect("triangle 2");
        npy[pos + 4..pos + 8].copy_from_slice(&7u32.to_le_bytes());
    });
    let err = World::read_npz(&tampered[..]).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, WorldError::BadArray { .. }), "{msg}");
    assert!(
        msg.contains("mesh.corner_regions") && msg.contains("out of range"),
        "{msg}"
    );

    // A header that promises more data than is present is refused before allocating.
    let tampered = rewrite_entry(&to_bytes(&world), "layer.elevation.npy", |npy| {
        let text = String::from_utf8_lossy(npy).into_owned();
        let patched = text.replacen("(5,)", "(9999999999999,)", 1);
        *npy = patched.into_bytes();
    });
    let msg = World::read_npz(&tampered[..]).unwrap_err().to_string();
    assert!(msg.contains("layer.elevation"), "{msg}");
}

#[test]
fn layer_lengths_are_checked_against_the_mesh() {
    let mut world = sample_world();
    let err = world
        .set_values("moisture", Domain::Region, vec![0.5f32; 4])
        .unwrap_err();
    assert!(err.to_string().contains("expected 5"), "{err}");
    let err = world
        .insert_layer(
            "bad_rivers",
            Layer::ragged_indices(Domain::Free, Domain::Corner, Csr::from_lists(&[vec![0, 9]])),
        )
        .unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    // A ragged layer's offsets: ending short of its values, decreasing, not starting at 0, or
    // one list too few for the regions.
    for (offsets, problem) in [
        (
            vec![0u32, 1, 2, 3, 4, 5],
            "offsets end at 5 but there are 6 values",
        ),
        (vec![0, 2, 1, 3, 4, 6], "offsets decrease at entry 2"),
        (vec![1, 2, 3, 4, 5, 6], "offsets start at 1"),
        (vec![0, 2, 3, 4, 6], "has 4 lists, expected 5"),
    ] {
        let err = world
            .insert_layer(
                "bad_lists",
                Layer::ragged(
                    Domain::Region,
                    ndarray::Array1::from(offsets),
                    ndarray::Array1::from(vec![1.0f32; 6]).into_dyn(),
                ),
            )
            .unwrap_err();
        assert!(err.to_string().contains(problem), "{err}");
    }
    world
        .insert_layer(
            "good_lists",
            Layer::ragged(
                Domain::Region,
                ndarray::Array1::from(vec![0u32, 2, 2, 3, 4, 6]),
                ndarray::Array1::from(vec![1.0f32; 6]).into_dyn(),
            ),
        )
        .unwrap();
    // Offsets in a strided array (every other entry of a longer one) are taken, and lent back
    // as a slice.
    let mut strided = ndarray::Array1::from(vec![0u32, 9, 2, 9, 2, 9, 3, 9, 4, 9, 6]);
    strided.slice_axis_inplace(ndarray::Axis(0), ndarray::Slice::new(0, None, 2));
    assert!(!strided.is_standard_layout());
    world
        .insert_layer(
            "strided_lists",
            Layer::ragged(
                Domain::Region,
                strided,
                ndarray::Array1::from(vec![1.0f32; 6]).into_dyn(),
            ),
        )
        .unwrap();
    assert_eq!(world.offsets("strided_lists").unwrap(), &[0, 2, 2, 3, 4, 6]);
    assert!(matches!(
        world.view1::<f32>("moisture"),
        Err(WorldError::MissingLayer { .. })
    ));
    assert!(world.view1::<u8>("elevation").is_err());
}

/// Copies a zip, passing the bytes of one entry through `patch`.
fn rewrite_entry(bytes: &[u8], entry: &str, patch: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    use std::io::{Cursor, Read, Write};
    let mut src = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut patch = Some(patch);
    for i in 0..src.len() {
        let mut file = src.by_index(i).unwrap();
        let name = file.name().to_owned();
        let mut data = Vec::new();
        file.read_to_end(&mut data).unwrap();
        if name == entry {
            (patch.take().unwrap())(&mut data);
        }
        out.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        out.write_all(&data).unwrap();
    }
    assert!(patch.is_none(), "entry {entry} not found");
    out.finish().unwrap().into_inner()
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Overwriting or cutting bytes inside any entry (with the zip checksums made right again,
        /// so the parsers behind the checksum see the damage) never panics: the file loads (when
        /// the change was harmless) or is refused with an error.
        #[test]
        fn mutated_entries_never_panic(
            entry in any::<prop::sample::Index>(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
            cut in proptest::option::of(any::<prop::sample::Index>()),
        ) {
            let valid = to_bytes(&sample_world());
            let names = entry_names(&valid);
            let name = entry.get(&names).clone();
            let bytes = rewrite_entry(&valid, &name, |npy| {
                for (idx, value) in &edits {
                    let i = idx.index(npy.len());
                    npy[i] = *value;
                }
                if let Some(cut) = cut {
                    npy.truncate(cut.index(npy.len()));
                }
            });
            if let Ok((world, _)) = World::read_npz(&bytes[..]) {
                // Whatever loads is a consistent world: it writes and reloads.
                let again = to_bytes(&world);
                prop_assert!(World::read_npz(&again[..]).is_ok());
            }
        }

        /// Flipping bytes anywhere in the container never panics.
        #[test]
        fn damaged_containers_never_panic(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        ) {
            let mut bytes = to_bytes(&sample_world());
            for (idx, value) in edits {
                let i = idx.index(bytes.len());
                bytes[i] = value;
            }
            let _ = World::read_npz(&bytes[..]);
        }

        /// Arbitrary bytes never panic the reader.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = World::read_npz(&bytes[..]);
        }
    }
}

fn entry_names(bytes: &[u8]) -> Vec<String> {
    let zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    zip.file_names().map(str::to_owned).collect()
}

#[test]
fn a_header_length_beyond_the_data_is_refused_before_allocating() {
    // Found by fuzzing: a version-2 header whose length field claims 3.7 GB.
    let tampered = rewrite_entry(&to_bytes(&sample_world()), "orogen.meta.npy", |npy| {
        npy[6] = 2; // format version 2: a 4-byte header length at bytes 8..12
        npy.splice(8..10, [0xff, 0xff, 0xff, 0xdc]);
    });
    let msg = World::read_npz(&tampered[..]).unwrap_err().to_string();
    assert!(
        msg.contains("orogen.meta") && msg.contains("header claims"),
        "{msg}"
    );
}
