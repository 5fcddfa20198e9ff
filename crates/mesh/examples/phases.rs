//! Wall time of each part of the mesh stage (min of 5 runs): `cargo run --release -p
//! orogen-mesh --example phases -- CELLS`.

use std::time::Instant;

use orogen_mesh::{SamplerKind, build_mesh, lloyd, triangulate, world_sites};

fn min_ms(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let cells: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50_000);
    let (sites, flags) = world_sites(123, cells, 1.0, 1.0, SamplerKind::Uniform).unwrap();
    let order = orogen_mesh::zorder_permutation(&sites, 1.0, 1.0);
    let sorted: Vec<[f64; 2]> = order.iter().map(|&i| sites[i as usize]).collect();
    let sflags: Vec<u8> = order.iter().map(|&i| flags[i as usize]).collect();
    println!(
        "sites       {:8.1} ms",
        min_ms(|| {
            world_sites(123, cells, 1.0, 1.0, SamplerKind::Uniform).unwrap();
        })
    );
    println!(
        "triangulate {:8.1} ms",
        min_ms(|| {
            triangulate(&sorted).unwrap();
        })
    );
    println!(
        "build_mesh  {:8.1} ms",
        min_ms(|| {
            build_mesh(&sorted, &sflags, 1.0, 1.0).unwrap();
        })
    );
    println!(
        "lloyd 3     {:8.1} ms",
        min_ms(|| {
            let mut s = sorted.clone();
            lloyd(&mut s, &sflags, 1.0, 1.0, 3).unwrap();
        })
    );
    println!(
        "run         {:8.1} ms",
        min_ms(|| {
            let mut w = orogen_world::World::new(orogen_world::WorldMeta::default());
            orogen_mesh::run(&mut w, &orogen_mesh::Params::default(), cells).unwrap();
        })
    );
}
