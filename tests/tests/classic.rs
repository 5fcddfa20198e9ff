//! The classic raster landscape end to end (`--preset classic`): the article's properties on the
//! layers the pipeline writes, and the image's bytes.

use ndarray::ArrayView2;
use orogen::{Config, Preset};
use orogen_world::World;
use orogen_world::interp::sample_bilinear;

fn config(seed: u64) -> Config {
    let mut config = Config {
        preset: Preset::Classic,
        ..Config::default()
    };
    config.world.seed = seed;
    config
}

fn heightmap(world: &World) -> ArrayView2<'_, f32> {
    world.view2::<f32>("raster_elevation").unwrap()
}

#[test]
fn the_heightmap_is_reproducible_and_spans_zero_to_one() {
    let a = orogen::generate(&config(5)).unwrap();
    let b = orogen::generate(&config(5)).unwrap();
    let c = orogen::generate(&config(6)).unwrap();
    let h = heightmap(&a);
    assert_eq!(h.dim(), (257, 257));
    assert_eq!(h, heightmap(&b));
    assert_ne!(h, heightmap(&c));
    let lo = h.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!((lo, hi), (0.0, 1.0));
    assert!(!a.has_mesh(), "the classic preset builds no mesh");
}

#[test]
fn trees_stay_in_their_band_and_apart() {
    for seed in [1, 2, 3] {
        let world = orogen::generate(&config(seed)).unwrap();
        let h = heightmap(&world);
        let xy = world.view2::<f64>("classic_tree_xy").unwrap();
        let size = world.view1::<f32>("classic_tree_size").unwrap();
        assert!(xy.nrows() > 50, "seed {seed}: {} trees", xy.nrows());
        let (w, ht) = (world.meta.width, world.meta.height);
        for (p, &s) in xy.rows().into_iter().zip(size.iter()) {
            let e = sample_bilinear(h, w, ht, p[0], p[1]);
            assert!((0.43..=0.72).contains(&e), "seed {seed}: tree at {e}");
            let px = f64::from(s) * 1024.0 / w;
            assert!((3.0 - 1e-4..=8.0 + 1e-4).contains(&px), "size {px} px");
        }
        // No two closer than 18 px of the 1024 canvas.
        let pts: Vec<[f64; 2]> = xy
            .rows()
            .into_iter()
            .map(|p| [p[0] * 1024.0 / w, p[1] * 1024.0 / w])
            .collect();
        for (i, a) in pts.iter().enumerate() {
            for b in &pts[i + 1..] {
                let d = (a[0] - b[0]).hypot(a[1] - b[1]);
                assert!(d >= 18.0 - 1e-9, "seed {seed}: trees {d} px apart");
            }
        }
        let models = world.offsets("classic_tree_nodes").unwrap().len() - 1;
        let model = world.view1::<u32>("classic_tree_model").unwrap();
        assert!(model.iter().all(|&m| (m as usize) < models));
    }
}

#[test]
fn rivers_descend_and_stop_where_the_article_says() {
    for seed in [1, 2, 3, 4] {
        let world = orogen::generate(&config(seed)).unwrap();
        let h = heightmap(&world);
        let (rows, cols) = h.dim();
        let offsets = world.offsets("classic_rivers").unwrap();
        let cells = world.view1::<u32>("classic_rivers").unwrap();
        assert_eq!(offsets.len(), 7, "six rivers");
        let at = |cell: u32| {
            let c = cell as usize;
            (c / cols, c % cols)
        };
        for w in offsets.windows(2) {
            let river: Vec<u32> = cells
                .iter()
                .skip(w[0] as usize)
                .take((w[1] - w[0]) as usize)
                .copied()
                .collect();
            assert!(!river.is_empty() && river.len() <= 300);
            for pair in river.windows(2) {
                let ((r0, c0), (r1, c1)) = (at(pair[0]), at(pair[1]));
                assert!(r0.abs_diff(r1) <= 1 && c0.abs_diff(c1) <= 1, "8-neighbours");
                assert!(h[[r1, c1]] <= h[[r0, c0]], "seed {seed}: uphill");
            }
            let (r, c) = at(*river.last().unwrap());
            let end = h[[r, c]];
            let pit = (r.saturating_sub(1)..=(r + 1).min(rows - 1)).all(|nr| {
                (c.saturating_sub(1)..=(c + 1).min(cols - 1)).all(|nc| h[[nr, nc]] >= end)
            });
            assert!(
                end < 0.36 || pit || river.len() == 300,
                "seed {seed}: river ends at {end}, not in water, a pit or step 300"
            );
        }
    }
}

/// `landscape.png`'s bytes for `config` under `threads` rayon threads.
fn image_bytes(config: &Config, threads: usize) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            let world = orogen::generate(config).unwrap();
            let files = orogen::write_outputs(&world, config, dir.path()).unwrap();
            assert!(files.iter().any(|f| f == "landscape.png"));
        });
    std::fs::read(dir.path().join("landscape.png")).unwrap()
}

#[test]
fn the_image_is_the_same_bytes_for_the_same_seed_and_any_thread_count() {
    let mut config = config(11);
    config.export.resolution = 512;
    let one = image_bytes(&config, 1);
    assert_eq!(one, image_bytes(&config, 2));
    assert_eq!(one, image_bytes(&config, 1));
    config.world.seed = 12;
    assert_ne!(one, image_bytes(&config, 2));
}

#[test]
fn classic_parameters_are_checked_before_any_work() {
    let mut bad = config(1);
    bad.classic.elevation.size = 256;
    let err = orogen::generate(&bad).unwrap_err();
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("classic.elevation.size"), "{err}");
    let mut bad = config(1);
    bad.world.width = 2.0;
    assert!(
        orogen::generate(&bad)
            .unwrap_err()
            .to_string()
            .contains("square")
    );
    let mut bad = config(1);
    bad.classic.trees.min_elevation = 0.9;
    assert!(orogen::generate(&bad).is_err());
    // The config round-trips through TOML, preset included.
    let config = config(3);
    let back = Config::from_toml(&config.to_toml(), "x").unwrap();
    assert_eq!(back, config);
}
