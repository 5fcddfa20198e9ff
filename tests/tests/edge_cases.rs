//! Geometry edge cases: each gives a valid world or a clear parameter error, never a panic.
//! Worlds from a configuration (3 cells, a 1000:1 map, water level 0 and 1, an anchor on the
//! border) and worlds from sites a user brings (collinear, duplicated, on the map's edges,
//! nearly coincident), run through every stage and every export.

use orogen::{Config, Error};

fn outcome(label: &str, config: &Config) {
    let result = std::panic::catch_unwind(|| orogen::generate(config));
    match result {
        Ok(Ok(world)) => {
            let mesh = world
                .mesh()
                .unwrap_or_else(|e| panic!("{label}: no mesh: {e}"));
            assert!(mesh.n_regions() >= 3, "{label}");
            assert!(world.has_layer("region_elevation"), "{label}");
            // And it exports.
            let dir = tempfile::tempdir().unwrap();
            let files = orogen::write_outputs(&world, config, dir.path())
                .unwrap_or_else(|e| panic!("{label}: export: {e}"));
            assert!(
                files.iter().any(|f| f == "heightmap.png"),
                "{label}: {files:?}"
            );
        }
        Ok(Err(err)) => assert!(
            matches!(err, Error::Param(_) | Error::Memory { .. }) || err.is_invalid_input(),
            "{label}: an internal error instead of a clear refusal: {err}"
        ),
        Err(_) => panic!("{label}: panicked"),
    }
}

fn small() -> Config {
    let mut config = Config::default();
    config.world.cells = 1500;
    config.export.resolution = 64;
    config
}

#[test]
fn edge_cases_give_a_world_or_a_clear_error() {
    let mut c = small();
    c.world.cells = 3;
    outcome("3 cells", &c);

    let mut c = small();
    c.world.width = 1000.0;
    c.world.height = 1.0;
    outcome("a map 1000x wider than tall", &c);

    for level in [0.0, 1.0] {
        let mut c = small();
        c.world.water_level = level;
        outcome(&format!("water level {level}"), &c);
    }

    let mut c = small();
    c.set_path("elevation.layout", "\"custom\"").unwrap();
    c.set_path("elevation.anchors", "[[0.0, 0.5]]").unwrap();
    outcome("a single anchor on the border", &c);
}

/// Builds a world on `interior` sites (plus the map's boundary sites), runs every stage after
/// the mesh and writes every output; checks the world and the files.
fn world_from_sites(label: &str, interior: &[[f64; 2]]) {
    let mut config = small();
    config.export.resolution = 64;
    config.export.outputs = vec![orogen::Output::All];
    config.validate().unwrap();
    let meta = config.world.meta();
    let mut sites = orogen_mesh::boundary_sites(meta.width, meta.height, 6, 6);
    let mut flags = vec![1u8; sites.len()];
    sites.extend_from_slice(interior);
    flags.resize(sites.len(), 0);
    let relaxed = orogen_mesh::mesh_from_sites(&sites, &flags, meta.width, meta.height, 2)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut world = orogen_world::World::new(meta);
    orogen_mesh::insert_mesh(&mut world, relaxed).unwrap();
    let n_regions = world.mesh().unwrap().n_regions();
    let mut timings = orogen::Timings::default();
    orogen::generate_rest(&config, &mut world, &mut timings)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    for layer in ["region_elevation", "corner_filled", "region_biome"] {
        assert!(world.has_layer(layer), "{label}: no {layer}");
    }
    let elevation = world.view1::<f32>("region_elevation").unwrap();
    assert_eq!(elevation.len(), n_regions, "{label}");
    assert!(
        elevation.iter().all(|z| z.is_finite()),
        "{label}: elevation"
    );
    let dir = tempfile::tempdir().unwrap();
    let files = orogen::write_outputs(&world, &config, dir.path())
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    for name in [
        "colormap.png",
        "heightmap.exr",
        "world.glb",
        "world.geojson",
        "world.npz",
    ] {
        assert!(
            files.iter().any(|f| f == name),
            "{label}: {name} not in {files:?}"
        );
    }
    // What was saved reads back as the same world.
    let (back, _) = orogen::read_world(&dir.path().join("world.npz")).unwrap();
    assert_eq!(back, world, "{label}");
}

#[test]
fn worlds_on_degenerate_sites_run_every_stage_and_export() {
    // Every interior site on one horizontal line, and on a diagonal.
    let line: Vec<[f64; 2]> = (1..40).map(|i| [i as f64 / 40.0, 0.5]).collect();
    world_from_sites("collinear sites", &line);
    let diagonal: Vec<[f64; 2]> = (1..40).map(|i| [i as f64 / 40.0; 2]).collect();
    world_from_sites("sites on the diagonal", &diagonal);
    // Duplicates: each site three times, and sites on top of boundary sites.
    let mut dup: Vec<[f64; 2]> = (0..30)
        .map(|i| {
            [
                0.1 + 0.8 * (i % 6) as f64 / 5.0,
                0.1 + 0.8 * (i / 6) as f64 / 4.0,
            ]
        })
        .collect();
    dup.extend(dup.clone());
    dup.extend(dup[..30].to_vec());
    dup.extend([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    world_from_sites("duplicate points", &dup);
    // Sites on the map's edges, and a cluster closer than 1e-9.
    let mut edges: Vec<[f64; 2]> = (1..20).map(|i| [i as f64 / 20.0, 0.0]).collect();
    edges.extend((1..20).map(|i| [1.0, i as f64 / 20.0]));
    edges.extend((0..10).map(|i| [0.5 + i as f64 * 1e-10, 0.5]));
    edges.extend((0..30).map(|i| [0.2 + 0.02 * i as f64, 0.7]));
    world_from_sites("edge and clustered sites", &edges);
}
