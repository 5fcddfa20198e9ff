//! Geometry edge cases: each gives a valid world or a clear parameter error, never a panic.

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
