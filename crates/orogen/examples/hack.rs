//! Hack's law of a world's rivers, with and without erosion: the exponent h of
//! `L = c A^h` (main-stream length L upstream of a point, to the divide along the longest flow
//! path, against its drainage area A) fitted over every channel corner (flow >= 20 corners).
//! Real river networks give about 0.5-0.6.
//!
//! `cargo run --release -p orogen --example hack [SEEDS] [CELLS]` (default 5 seeds from 1,
//! 50,000 cells).

use orogen::Config;
use orogen_world::World;

/// (exponent, channel corners) of Hack's law on a world after hydrology.
fn hack(world: &World) -> (f64, usize) {
    let down = world.view1::<i32>("corner_downstream").unwrap();
    let flow = world.view1::<f32>("corner_flow").unwrap();
    let xy = &world.mesh().unwrap().corner_xy;
    let n = down.len();
    // Donors before receivers: a land corner's flow exceeds each donor's.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| flow[a].total_cmp(&flow[b]).then(a.cmp(&b)));
    let mut length = vec![0.0f64; n];
    for &c in &order {
        let d = down[c];
        if d >= 0 {
            let d = d as usize;
            let step = (xy[[c, 0]] - xy[[d, 0]]).hypot(xy[[c, 1]] - xy[[d, 1]]);
            length[d] = length[d].max(length[c] + step);
        }
    }
    let points: Vec<(f64, f64)> = (0..n)
        .filter(|&c| down[c] >= 0 && flow[c] >= 20.0 && length[c] > 0.0)
        .map(|c| (f64::from(flow[c]).ln(), length[c].ln()))
        .collect();
    let k = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / k;
    let my = points.iter().map(|p| p.1).sum::<f64>() / k;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxy / sxx, points.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args.get(1).map_or(5, |s| s.parse().unwrap());
    let cells: usize = args.get(2).map_or(50_000, |s| s.parse().unwrap());
    println!("seed  preset   hack_exponent  channel_corners");
    for seed in 1..=seeds {
        for name in ["default", "eroded"] {
            let mut config: Config = orogen::presets::preset(name).unwrap();
            config.world.seed = seed;
            config.world.cells = cells;
            let mut world = orogen::generate_mesh(&config, &mut Default::default()).unwrap();
            orogen::generate_rest_until(
                &config,
                &mut world,
                &mut Default::default(),
                Some("biome"),
            )
            .unwrap();
            let (h, count) = hack(&world);
            println!("{seed:>4}  {name:<8} {h:>13.3}  {count:>15}");
        }
    }
}
