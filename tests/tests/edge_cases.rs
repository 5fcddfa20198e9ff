//! Geometry edge cases: each gives a valid world or a clear parameter error, never a panic.
//! Worlds from a configuration (3 cells, a 1000:1 map, water level 0 and 1, an anchor on the
//! border) and worlds from sites a user brings (collinear, duplicated, on the map's edges,
//! nearly coincident), run through every stage and every export.

use orogen::{Config, Error};

/// The config must give a world, which exports; returns it for the case's own checks.
fn world(label: &str, config: &Config) -> orogen_world::World {
    let world = std::panic::catch_unwind(|| orogen::generate(config))
        .unwrap_or_else(|_| panic!("{label}: panicked"))
        .unwrap_or_else(|e| panic!("{label}: refused: {e}"));
    let mesh = world
        .mesh()
        .unwrap_or_else(|e| panic!("{label}: no mesh: {e}"));
    assert!(mesh.n_regions() >= 3, "{label}");
    let elevation = world.view1::<f32>("region_elevation").unwrap();
    assert!(
        elevation.iter().all(|e| (-1.0..=1.0).contains(e)),
        "{label}"
    );
    let dir = tempfile::tempdir().unwrap();
    let files = orogen::write_outputs(&world, config, dir.path())
        .unwrap_or_else(|e| panic!("{label}: export: {e}"));
    assert!(
        files.iter().any(|f| f == "heightmap.png"),
        "{label}: {files:?}"
    );
    world
}

/// The config must be refused before any work, naming `param`.
fn refused(label: &str, config: &Config, param: &str) {
    match orogen::generate(config) {
        Err(Error::Param(e)) => assert_eq!(e.param, param, "{label}: {e}"),
        Err(other) => panic!("{label}: not a parameter error: {other}"),
        Ok(_) => panic!("{label}: accepted"),
    }
}

fn small() -> Config {
    let mut config = Config::default();
    config.world.cells = 1500;
    config.export.resolution = 64;
    config
}

fn land_share(world: &orogen_world::World) -> f64 {
    let e = world.view1::<f32>("region_elevation").unwrap();
    e.iter().filter(|&&v| v > 0.0).count() as f64 / e.len() as f64
}

#[test]
fn edge_cases_give_a_world_or_a_clear_error() {
    // Three cells: the four map corners alone.
    let mut c = small();
    c.world.cells = 3;
    let w = world("3 cells", &c);
    assert_eq!(w.mesh().unwrap().n_regions(), 4);

    // A map 1000 times wider than tall: every cell inside it.
    let mut c = small();
    c.world.width = 1000.0;
    c.world.height = 1.0;
    let w = world("a map 1000x wider than tall", &c);
    let xy = &w.mesh().unwrap().region_xy;
    assert!(xy.column(1).iter().all(|&y| (0.0..=1.0).contains(&y)));
    assert!(xy.column(0).iter().any(|&x| x > 900.0));
    // ... but not 10^5 times.
    c.world.width = 1e5;
    refused("a map 10^5 wider than tall", &c, "world.width / height");

    // Water level 1: no land at all; 0: more land than the default level (the anchors' falloff
    // still drowns the corners far from every anchor, so not all of it).
    let mut c = small();
    c.world.water_level = 1.0;
    assert_eq!(land_share(&world("water level 1", &c)), 0.0);
    c.world.water_level = 0.35;
    let usual = land_share(&world("water level 0.35", &c));
    c.world.water_level = 0.0;
    let most = land_share(&world("water level 0", &c));
    assert!(
        most > usual && usual > 0.0,
        "land {most} at level 0, {usual} at 0.35"
    );

    // A single anchor on the border: land gathers there.
    let mut c = small();
    c.set_path("elevation.layout", "\"custom\"").unwrap();
    c.set_path("elevation.anchors", "[[0.0, 0.5]]").unwrap();
    let w = world("a single anchor on the border", &c);
    let mesh = w.mesh().unwrap();
    let e = w.view1::<f32>("region_elevation").unwrap();
    let land_x: Vec<f64> = (0..mesh.n_regions())
        .filter(|&r| e[r] > 0.0)
        .map(|r| mesh.region_xy[[r, 0]])
        .collect();
    assert!(!land_x.is_empty());
    assert!(land_x.iter().sum::<f64>() / (land_x.len() as f64) < 0.35);
    // An anchor outside the map is refused, naming it.
    c.set_path("elevation.anchors", "[[0.5, 0.5], [1.5, 0.5]]")
        .unwrap();
    refused("an anchor outside the map", &c, "elevation.anchors[1].x");
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
