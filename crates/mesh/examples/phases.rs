//! Time of the mesh stage and its parts: `cargo run --release -p orogen-mesh --example phases --
//! CELLS [RUNS]`. Prints the minimum wall time over the runs and the mean CPU time per run (from
//! `/proc/self/stat`; on a machine shared with other work, CPU time is the steadier figure).

use std::time::Instant;

use orogen_mesh::{Params, SamplerKind, build_mesh, lloyd, triangulate, world_sites};
use orogen_world::{World, WorldMeta};

/// User + system CPU seconds of this process so far (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let utime: f64 = fields.get(11)?.parse().ok()?;
            let stime: f64 = fields.get(12)?.parse().ok()?;
            Some((utime + stime) / 100.0)
        })
        .unwrap_or(0.0)
}

fn measure(name: &str, runs: usize, mut f: impl FnMut()) {
    let cpu0 = cpu_seconds();
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    let cpu = (cpu_seconds() - cpu0) * 1e3 / runs as f64;
    println!("{name:<22} wall min {best:9.1} ms   cpu/run {cpu:9.1} ms");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let cells: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let (sites, flags) = world_sites(123, cells, 1.0, 1.0, SamplerKind::Uniform).unwrap();
    let order = orogen_mesh::zorder_permutation(&sites, 1.0, 1.0);
    let sorted: Vec<[f64; 2]> = order.iter().map(|&i| sites[i as usize]).collect();
    let sflags: Vec<u8> = order.iter().map(|&i| flags[i as usize]).collect();
    println!(
        "{cells} cells, {runs} runs, {} threads",
        rayon::current_num_threads()
    );
    let rect = orogen_sampling::Rect::from_size(1024.0, 1024.0).unwrap();
    let mut n_poisson = 0;
    measure("poisson 1024^2 r=4", runs, || {
        let mut rng = orogen_world::seed::rng_from_seed(1);
        n_poisson = orogen_sampling::poisson_disc(&mut rng, rect, 4.0, 30)
            .unwrap()
            .len();
    });
    println!("  ({n_poisson} Poisson points)");
    measure("triangulate", runs, || {
        triangulate(&sorted).unwrap();
    });
    measure("build_mesh", runs, || {
        build_mesh(&sorted, &sflags, 1.0, 1.0).unwrap();
    });
    measure("lloyd x3 (+CV)", runs, || {
        let mut s = sorted.clone();
        lloyd(&mut s, &sflags, 1.0, 1.0, 3).unwrap();
    });
    let mut s = sorted.clone();
    let cv = lloyd(&mut s, &sflags, 1.0, 1.0, 3).unwrap();
    println!("  interior-cell area CV before Lloyd and after each iteration: {cv:.4?}");
    measure("run (whole stage)", runs, || {
        let mut world = World::new(WorldMeta::default());
        orogen_mesh::run(&mut world, &Params::default(), cells).unwrap();
    });
}
