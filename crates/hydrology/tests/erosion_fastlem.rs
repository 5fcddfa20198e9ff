//! Side by side with fastlem 0.1.4 (Rust, the Salève model; a dev-dependency): the steady
//! state of the same sites, graph, outlets, initial surface and law through fastlem's
//! `TerrainGenerator` and through `erosion::steady_state`.

mod fastlem_setup;

use fastlem_setup::{largest_difference, problem};
use orogen_hydrology::erosion::Mesh;

#[test]
fn the_steady_state_agrees_with_fastlem_within_one_percent_of_relief() {
    let p = problem(4000, 7);
    let theirs = fastlem_setup::fastlem(&p)
        .generate()
        .expect("fastlem's terrain");
    let mesh = Mesh::new(&p.offsets, &p.targets, &p.xy, 1.0).unwrap();
    let (ours, stats) = fastlem_setup::orogen(&p, &mesh);
    let (largest, relief) = largest_difference(theirs.elevations(), &ours);
    eprintln!(
        "4000 sites: relief {relief:.3} m, largest difference {largest:.3e} m, {} routings",
        stats.steps
    );
    // A real steady state: the network moved from the initial one (more than one routing) and
    // the relief is the uplift's, not the initial dome's 110 m.
    assert!(stats.steps > 2, "{stats:?}");
    assert!(relief > 150.0 && relief.is_finite(), "relief {relief}");
    assert!(
        largest <= 0.01 * relief,
        "largest {largest} of relief {relief}"
    );
}
