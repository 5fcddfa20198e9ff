//! Small worlds for the exporters' unit tests.

use ndarray::Array1;
use orogen_world::{Domain, DualMesh, World, WorldMeta};

/// A world on an `n` x `n` jittered grid over the unit map (jitter 0.4, seeded), its region and
/// corner elevations `height(x, y)`.
pub(crate) fn shaped(
    n: usize,
    seed: u64,
    meta: WorldMeta,
    height: impl Fn(f64, f64) -> f32,
) -> World {
    let mesh = DualMesh::jittered_grid(n, n, 1.0, 1.0, 0.4, seed);
    let at = |xy: &ndarray::Array2<f64>| -> Array1<f32> {
        xy.rows().into_iter().map(|p| height(p[0], p[1])).collect()
    };
    let r = at(&mesh.region_xy);
    let c = at(&mesh.corner_xy);
    let mut w = World::new(meta);
    w.set_mesh(mesh).unwrap();
    w.set_layer("region_elevation", Domain::Region, r.into_dyn())
        .unwrap();
    w.set_layer("corner_elevation", Domain::Corner, c.into_dyn())
        .unwrap();
    w
}
