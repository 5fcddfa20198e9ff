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

/// A seeded fractal DEM, `n x n`, in metres (about 0..1000): diamond-square (midpoint
/// displacement, roughness 0.55) on the next `2^k + 1` grid, cropped. Many small depressions, as
/// real DEMs and the classic landscape have; deterministic for a seed.
pub fn fractal_dem(n: usize, seed: u64) -> ndarray::Array2<f32> {
    use orogen_world::seed::splitmix64;
    let size = n.max(2).next_power_of_two() + 1;
    let mut h = vec![0.0f64; size * size];
    // A uniform draw in [-1, 1) from a hash of the cell and the seed.
    let noise = |i: usize| {
        let bits = splitmix64(seed ^ splitmix64(i as u64)) >> 11;
        bits as f64 / (1u64 << 52) as f64 - 1.0
    };
    for &i in &[0, size - 1, (size - 1) * size, size * size - 1] {
        h[i] = noise(i);
    }
    let mut step = size - 1;
    let mut amplitude = 1.0;
    while step > 1 {
        let half = step / 2;
        // Diamond: square centres from their four corners.
        for r in (half..size).step_by(step) {
            for c in (half..size).step_by(step) {
                let mean = (h[(r - half) * size + c - half]
                    + h[(r - half) * size + c + half]
                    + h[(r + half) * size + c - half]
                    + h[(r + half) * size + c + half])
                    / 4.0;
                h[r * size + c] = mean + amplitude * noise(r * size + c);
            }
        }
        // Square: edge midpoints from their (up to four) neighbours.
        for r in (0..size).step_by(half) {
            let first = if (r / half).is_multiple_of(2) {
                half
            } else {
                0
            };
            for c in (first..size).step_by(step) {
                let mut sum = 0.0;
                let mut count = 0.0;
                if r >= half {
                    sum += h[(r - half) * size + c];
                    count += 1.0;
                }
                if r + half < size {
                    sum += h[(r + half) * size + c];
                    count += 1.0;
                }
                if c >= half {
                    sum += h[r * size + c - half];
                    count += 1.0;
                }
                if c + half < size {
                    sum += h[r * size + c + half];
                    count += 1.0;
                }
                h[r * size + c] = sum / count + amplitude * noise(r * size + c);
            }
        }
        amplitude *= 0.55;
        step = half;
    }
    let dem = ndarray::Array2::from_shape_fn((n, n), |(r, c)| h[r * size + c]);
    let (lo, hi) = dem
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    dem.mapv(|v| ((v - lo) / (hi - lo).max(f64::MIN_POSITIVE) * 1000.0) as f32)
}
