//! Biome shares on real worlds: with default parameters each of the 9 land biomes (beach to
//! snow) covers at least 0.5% of the land in at least 15 of seeds 1..20 at 50,000 cells.

use orogen_world::ids::{Biome, water};

#[test]
fn every_land_biome_covers_half_a_percent_of_land_in_most_seeds() {
    let land_biomes = &Biome::ALL[2..];
    let mut seeds_ok = vec![0usize; land_biomes.len()];
    let mut report = String::new();
    for seed in 1..=20u64 {
        let mut config = orogen::Config::default();
        config.world.seed = seed;
        config.world.cells = 50_000;
        let world = orogen::generate(&config).unwrap();
        let kind = world.water_kinds().unwrap();
        let biome = world.view1::<u8>("region_biome").unwrap();
        let mut counts = [0usize; Biome::COUNT];
        let mut land = 0usize;
        for (k, b) in kind.iter().zip(biome.iter()) {
            if *k == water::LAND {
                land += 1;
                counts[*b as usize] += 1;
            }
        }
        assert!(land > 0, "seed {seed} has no land");
        report.push_str(&format!("seed {seed:2} land {land:6}:"));
        for (i, b) in land_biomes.iter().enumerate() {
            let share = counts[b.id() as usize] as f64 / land as f64;
            report.push_str(&format!(" {} {:.1}%", b.name(), share * 100.0));
            if share >= 0.005 {
                seeds_ok[i] += 1;
            }
        }
        report.push('\n');
    }
    eprintln!("{report}");
    for (i, b) in land_biomes.iter().enumerate() {
        assert!(
            seeds_ok[i] >= 15,
            "{} covers >= 0.5% of land in only {} of 20 seeds\n{report}",
            b.name(),
            seeds_ok[i]
        );
    }
}

fn land_share(world: &orogen_world::World, biome: Biome) -> f64 {
    let kind = world.water_kinds().unwrap();
    let ids = world.view1::<u8>("region_biome").unwrap();
    let land = kind.iter().filter(|&&k| k == water::LAND).count();
    let hits = kind
        .iter()
        .zip(ids.iter())
        .filter(|(k, b)| **k == water::LAND && **b == biome.id())
        .count();
    hits as f64 / land.max(1) as f64
}

#[test]
fn wetness_trades_desert_for_rainforest_on_a_real_world() {
    let share = |wetness: f32| {
        let mut config = orogen::Config::default();
        config.world.seed = 3;
        config.world.cells = 20_000;
        config.biome.wetness = wetness;
        let world = orogen::generate(&config).unwrap();
        let m = world.view1::<f32>("region_moisture").unwrap();
        assert!(m.iter().all(|v| (0.0..=1.0).contains(v)));
        (
            land_share(&world, Biome::Desert),
            land_share(&world, Biome::Rainforest),
        )
    };
    let (dry_desert, dry_rain) = share(-0.6);
    let (wet_desert, wet_rain) = share(0.6);
    assert!(
        dry_desert > 2.0 * wet_desert,
        "{dry_desert} vs {wet_desert}"
    );
    assert!(wet_rain > 2.0 * dry_rain, "{wet_rain} vs {dry_rain}");
}

/// Width and height from a PNG's IHDR chunk, and its colour type.
fn png_header(bytes: &[u8]) -> (u32, u32, u8) {
    assert_eq!(&bytes[1..4], b"PNG");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20), bytes[25])
}

#[test]
fn colormap_and_biome_map_are_written_and_listed() {
    let mut config = orogen::Config::default();
    config.world.seed = 5;
    config.world.cells = 3_000;
    config.export.resolution = 200;
    config.export.hillshade = 8.0;
    let world = orogen::generate(&config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = orogen::write_outputs(&world, &config, dir.path()).unwrap();
    for name in ["colormap.png", "biomes.png"] {
        assert!(files.iter().any(|f| f == name), "{files:?}");
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        // 200 x 200, colour type 2 (RGB).
        assert_eq!(png_header(&bytes), (200, 200, 2), "{name}");
    }
    let sidecar = std::fs::read_to_string(dir.path().join("world.json")).unwrap();
    assert!(sidecar.contains("colormap.png") && sidecar.contains("biomes.png"));
    assert!(
        sidecar.contains("\"wetness\""),
        "the biome params are recorded"
    );
}

#[test]
fn biome_flags_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (
            vec!["--wetness", "3"],
            "wetness = 3 is out of range: allowed -1 ..= 1",
        ),
        (
            vec!["--water-boost", "-1"],
            "water_boost = -1 is out of range",
        ),
        (
            vec!["--blur-sigma", "nan"],
            "blur_sigma = NaN is out of range",
        ),
        (
            vec!["--wind", "9"],
            "wind = 9 is out of range: allowed 0 ..= 4",
        ),
    ] {
        let out = std::process::Command::new(orogen_tests::orogen_bin())
            .args(["generate", "--out"])
            .arg(dir.path().join("out"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("out").exists(), "nothing written");
}
