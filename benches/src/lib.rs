//! Inputs shared by the benches in `benches/benches/`.

use ndarray::Array1;
use orogen_world::{Domain, World, WorldMeta};

/// A mesh-less world holding `n` f32 and `n` u32 values in free layers.
pub fn layered_world(n: usize) -> World {
    let mut world = World::new(WorldMeta::default());
    world
        .set_layer(
            "values_f32",
            Domain::Free,
            Array1::from_shape_fn(n, |i| i as f32 * 0.5).into_dyn(),
        )
        .expect("free layers need no mesh");
    world
        .set_layer(
            "values_u32",
            Domain::Free,
            Array1::from_shape_fn(n, |i| i as u32).into_dyn(),
        )
        .expect("free layers need no mesh");
    world
}
