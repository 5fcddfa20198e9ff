//! A user's project: each orogen crate on data of its own, built outside the orogen workspace
//! with path dependencies. Each module is the crate's example (the code its README shows), so
//! what a user copies from a README is what this project compiles and runs.

#[path = "../../../crates/world/examples/save_and_load.rs"]
mod world;

#[path = "../../../crates/sampling/examples/blue_noise.rs"]
mod sampling;

#[path = "../../../crates/mesh/examples/mesh_own_points.rs"]
mod mesh;

#[path = "../../../crates/elevation/examples/heightmaps.rs"]
mod elevation;

#[path = "../../../crates/hydrology/examples/fill_and_route.rs"]
mod hydrology;

#[path = "../../../crates/biome/examples/classify_own_arrays.rs"]
mod biome;

#[path = "../../../crates/flora/examples/trees_on_density_map.rs"]
mod flora;

#[path = "../../../crates/export/examples/heightmap16.rs"]
mod export;

type Example = fn() -> Result<(), Box<dyn std::error::Error>>;

fn main() {
    let examples: [(&str, Example); 8] = [
        ("orogen-world", world::main),
        ("orogen-sampling", sampling::main),
        ("orogen-mesh", mesh::main),
        ("orogen-elevation", elevation::main),
        ("orogen-hydrology", hydrology::main),
        ("orogen-biome", biome::main),
        ("orogen-flora", flora::main),
        ("orogen-export", export::main),
    ];
    if std::env::args().len() > 1 {
        eprintln!("orogen-consumer takes no arguments (each example uses its own data)");
        std::process::exit(2);
    }
    let mut failed = Vec::new();
    for (name, run) in examples {
        println!("== {name}");
        if let Err(e) = run() {
            eprintln!("{name}: {e}");
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        eprintln!("failed: {failed:?}");
        std::process::exit(1);
    }
    println!("== every crate worked on its own data");
}
