//! Build a small world (a dual mesh and a layer of your own), save it as one `.npz` file and load
//! it back; NumPy opens the same file (`np.load`).
//!
//! `cargo run -p orogen-world --example save_and_load -- [world.npz]`
//!
//! Without an argument the file goes to a temporary path and is removed afterwards.

use std::error::Error;
use std::fs::File;
use std::path::PathBuf;

use ndarray::Array1;
use orogen_world::{Domain, DualMesh, World, WorldMeta};

pub fn main() -> Result<(), Box<dyn Error>> {
    let meta = WorldMeta {
        width: 2.0,
        height: 1.0,
        ..WorldMeta::default()
    };
    let mut world = World::new(meta);
    // A valid dual mesh of 16 x 9 jittered sites; a real world gets its mesh from orogen-mesh.
    world.set_mesh(DualMesh::jittered_grid(16, 9, 2.0, 1.0, 0.4, 7))?;

    // A layer per region: the distance of each site from the map centre.
    let mesh = world.mesh()?;
    let distance: Array1<f32> = mesh
        .region_xy
        .rows()
        .into_iter()
        .map(|p| ((p[0] - 1.0).powi(2) + (p[1] - 0.5).powi(2)).sqrt() as f32)
        .collect();
    world.set_layer("centre_distance", Domain::Region, distance.into_dyn())?;

    let (path, temporary) = match std::env::args().nth(1) {
        Some(arg) => (PathBuf::from(arg), false),
        None => (
            std::env::temp_dir().join(format!("world-{}.npz", std::process::id())),
            true,
        ),
    };
    // The second argument is any text kept beside the world (orogen stores its config there).
    world.write_npz(File::create(&path)?, r#"{"made_by": "example"}"#)?;
    let (back, note) = World::read_npz(File::open(&path)?)?;
    assert_eq!(back, world);
    assert_eq!(note, r#"{"made_by": "example"}"#);

    let distance = back.view1::<f32>("centre_distance")?;
    let nearest = distance.iter().copied().fold(f32::INFINITY, f32::min);
    println!(
        "{}: {} regions, {} corners, layers {:?}; the nearest site is {nearest:.3} from the centre",
        path.display(),
        back.mesh()?.n_regions(),
        back.mesh()?.n_corners(),
        back.layers().map(|(name, _)| name).collect::<Vec<_>>(),
    );
    if temporary {
        std::fs::remove_file(&path)?;
    }
    Ok(())
}
