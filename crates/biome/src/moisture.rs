//! Moisture kernels: a noise field, the distance to water, the water boost and the altitude
//! drying, and the rank redistribution of land moisture.

use ndarray::ArrayView2;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use orogen_world::Csr;
use orogen_world::ids::water;
use rayon::prelude::*;

/// Hop count of a region that no water reaches (no source in its connected component).
pub const UNREACHED: u32 = u32::MAX;

/// The moisture noise of the reference, in 0 ..= 1: `(fbm(p) + 1) / 2` with a 6-octave (by
/// default) Perlin fBm, lacunarity 2 and gain 0.5, sampled at
/// `p = (x, y) / unit * scale + offset` for each row of `xy` (`n x 2`), in parallel; `unit`
/// is the map's shorter side, as for the elevation noise.
///
/// `seed` seeds the Perlin permutation. Same values for any thread count.
pub fn noise_field(
    xy: ArrayView2<'_, f64>,
    unit: f64,
    scale: f64,
    offset: f64,
    octaves: usize,
    seed: u32,
) -> Vec<f32> {
    let fbm = Fbm::<Perlin>::new(seed)
        .set_octaves(octaves)
        .set_frequency(1.0)
        .set_lacunarity(2.0)
        .set_persistence(0.5);
    let k = scale / unit;
    (0..xy.nrows())
        .into_par_iter()
        .map(|i| {
            let p = [xy[[i, 0]] * k + offset, xy[[i, 1]] * k + offset];
            ((fbm.get(p) + 1.0) * 0.5).clamp(0.0, 1.0) as f32
        })
        .collect()
}

/// Multi-source breadth-first search over a graph in CSR form (for example the mesh's region
/// neighbours): the hop count from each node to the nearest source, [`UNREACHED`] where no
/// source is connected. Sources are seeded in index order, so the result is unique.
pub fn hops_to_sources(neighbors: &Csr, is_source: &[bool]) -> Vec<u32> {
    let n = neighbors.n_lists().min(is_source.len());
    let mut hops = vec![UNREACHED; n];
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    for (i, _) in is_source.iter().enumerate().take(n).filter(|(_, s)| **s) {
        hops[i] = 0;
        queue.push(i as u32);
    }
    let mut head = 0;
    while head < queue.len() {
        let node = queue[head] as usize;
        head += 1;
        let next = hops[node] + 1;
        for &nb in neighbors.get(node) {
            let nb = nb as usize;
            if nb < n && hops[nb] == UNREACHED {
                hops[nb] = next;
                queue.push(nb as u32);
            }
        }
    }
    hops
}

/// The knobs of [`raw_moisture`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaping {
    /// Added moisture at the water's edge (hop 0).
    pub water_boost: f32,
    /// The boost decays as `exp(-hops / decay_hops)`.
    pub decay_hops: f32,
    /// Below `snowcap_elevation`, moisture is scaled by `1 - altitude_drying * elevation`.
    pub altitude_drying: f32,
    /// At and above this stored elevation, moisture becomes `min(1, snowcap_boost * m)`.
    pub snowcap_elevation: f32,
    /// See `snowcap_elevation`.
    pub snowcap_boost: f32,
}

/// Moisture before redistribution, per region: water (`water_kind` != land) is 1; land is
/// `noise + water_boost exp(-hops / decay_hops)`, then drier with altitude (or kept for snow
/// caps), clamped to 0 ..= 1. All slices have one entry per region.
pub fn raw_moisture(
    noise01: &[f32],
    elevation: &[f32],
    water_kind: &[u8],
    hops: &[u32],
    shaping: &Shaping,
) -> Vec<f32> {
    noise01
        .par_iter()
        .zip(elevation)
        .zip(water_kind)
        .zip(hops)
        .map(|(((&noise, &e), &kind), &hop)| {
            if kind != water::LAND {
                return 1.0;
            }
            let boost = if hop == UNREACHED || shaping.decay_hops <= 0.0 {
                0.0
            } else {
                shaping.water_boost * (-(hop as f32) / shaping.decay_hops).exp()
            };
            let m = noise + boost;
            let e = if e.is_nan() { 0.0 } else { e.clamp(0.0, 1.0) };
            let m = if e < shaping.snowcap_elevation {
                m * (1.0 - shaping.altitude_drying * e)
            } else {
                (shaping.snowcap_boost * m).min(1.0)
            };
            m.clamp(0.0, 1.0)
        })
        .collect()
}

/// Redistributes the moisture of the nodes where `is_land` holds by rank, as mapgen2 does:
/// sorted by moisture (ties by index), the node of rank `i` among `count` gets
/// `i / (count - 1)`, so land moisture is uniform on 0 ..= 1 and the classification's cuts, not
/// the noise's amplitude, set the biome shares. `wetness` in -1 ..= 1 then bends it:
/// `m^(4^-wetness)` (wetter above 0, drier below). Other nodes are untouched.
pub fn redistribute(moisture: &mut [f32], is_land: &[bool], wetness: f32) {
    let mut land: Vec<u32> = (0..moisture.len().min(is_land.len()))
        .filter(|&i| is_land[i])
        .map(|i| i as u32)
        .collect();
    let key = |i: u32| moisture[i as usize];
    land.par_sort_unstable_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let count = land.len();
    let power = 4f32.powf(-wetness);
    let denom = count.saturating_sub(1).max(1) as f32;
    for (rank, &i) in land.iter().enumerate() {
        let m = if count == 1 { 0.5 } else { rank as f32 / denom };
        moisture[i as usize] = m.powf(power);
    }
}

/// Rain carried by a wind, as mapgen4 does (simplified): regions are visited downwind (sorted
/// by their position along `wind = (cos angle, sin angle)`, ties by index). Each takes the mean
/// humidity of its upwind neighbours; water sets the humidity to 1 (evaporation). On land it
/// rains `humidity * (rain_rate + orographic * rise)`, `rise` the elevation gained over the
/// upwind neighbours' mean, and the rain leaves the air, so the lee of mountains is dry (a rain
/// shadow). Returns the rain per region (water 1). Sequential and unique for any input.
pub fn wind_rain(
    xy: ArrayView2<'_, f64>,
    neighbors: &Csr,
    elevation: &[f32],
    water_kind: &[u8],
    angle: f64,
    rain_rate: f32,
    orographic: f32,
) -> Vec<f32> {
    let n = xy.nrows().min(elevation.len()).min(water_kind.len());
    let (wx, wy) = (angle.cos(), angle.sin());
    let along: Vec<f64> = (0..n).map(|r| xy[[r, 0]] * wx + xy[[r, 1]] * wy).collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        along[a as usize]
            .total_cmp(&along[b as usize])
            .then(a.cmp(&b))
    });
    let mut rank = vec![0u32; n];
    for (k, &r) in order.iter().enumerate() {
        rank[r as usize] = k as u32;
    }
    let mut humidity = vec![0.0f32; n];
    let mut rain = vec![0.0f32; n];
    for &r in &order {
        let r = r as usize;
        if water_kind[r] != water::LAND {
            humidity[r] = 1.0;
            rain[r] = 1.0;
            continue;
        }
        let (mut h, mut e, mut count) = (0.0f32, 0.0f32, 0u32);
        for &nb in neighbors.get(r) {
            let nb = nb as usize;
            if nb < n && rank[nb] < rank[r] {
                h += humidity[nb];
                e += elevation[nb].max(0.0);
                count += 1;
            }
        }
        if count == 0 {
            // The upwind edge of the map: air arrives dry of land, moist of the sea beyond.
            humidity[r] = 1.0;
            continue;
        }
        let (h, upwind_e) = (h / count as f32, e / count as f32);
        let rise = (elevation[r].max(0.0) - upwind_e).max(0.0);
        let fall = (h * (rain_rate + orographic * rise)).min(h);
        rain[r] = fall;
        humidity[r] = h - fall;
    }
    rain
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    fn path_graph(n: usize) -> Csr {
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                let mut l = Vec::new();
                if i > 0 {
                    l.push(i as u32 - 1);
                }
                if i + 1 < n {
                    l.push(i as u32 + 1);
                }
                l
            })
            .collect();
        Csr::from_lists(&lists)
    }

    #[test]
    fn bfs_counts_hops_to_the_nearest_source() {
        let g = path_graph(10);
        let mut src = vec![false; 10];
        src[2] = true;
        src[9] = true;
        let hops = hops_to_sources(&g, &src);
        assert_eq!(hops, vec![2, 1, 0, 1, 2, 3, 3, 2, 1, 0]);
        // Two components, one without a source.
        let g = Csr::from_lists(&[vec![1u32], vec![0], vec![3], vec![2]]);
        let hops = hops_to_sources(&g, &[true, false, false, false]);
        assert_eq!(hops, vec![0, 1, UNREACHED, UNREACHED]);
        assert!(
            hops_to_sources(&g, &[false; 4])
                .iter()
                .all(|&h| h == UNREACHED)
        );
    }

    #[test]
    fn water_boost_decays_and_altitude_dries() {
        let shaping = Shaping {
            water_boost: 0.3,
            decay_hops: 2.0,
            altitude_drying: 0.5,
            snowcap_elevation: 0.8,
            snowcap_boost: 1.5,
        };
        let n = 6;
        let noise = vec![0.4f32; n];
        let elev = vec![0.1f32; n];
        let kind = vec![water::LAND, water::LAND, water::LAND, water::LAND, 1, 2];
        let hops = vec![1, 2, 5, UNREACHED, 0, 0];
        let m = raw_moisture(&noise, &elev, &kind, &hops, &shaping);
        assert!(m[0] > m[1] && m[1] > m[2] && m[2] > m[3]);
        assert!((m[3] - 0.4 * 0.95).abs() < 1e-6);
        assert_eq!(&m[4..], &[1.0, 1.0]);
        let m = raw_moisture(
            &[0.4; 3],
            &[0.0, 0.5, 0.9],
            &[0; 3],
            &[UNREACHED; 3],
            &shaping,
        );
        assert!(m[1] < m[0], "drier uphill");
        assert!((m[2] - 0.6).abs() < 1e-6, "snow caps keep moisture");
    }

    #[test]
    fn redistribution_makes_land_uniform_and_wetness_bends_it() {
        let mut m: Vec<f32> = (0..101)
            .map(|i| ((i * 37) % 101) as f32 * 1e-3 + 0.3)
            .collect();
        let is_land: Vec<bool> = (0..101).map(|i| i != 50).collect();
        let water_before = m[50];
        let order: Vec<f32> = m.clone();
        redistribute(&mut m, &is_land, 0.0);
        assert_eq!(m[50], water_before);
        let mut land: Vec<f32> = (0..101).filter(|&i| i != 50).map(|i| m[i]).collect();
        land.sort_by(f32::total_cmp);
        for (rank, v) in land.iter().enumerate() {
            assert!((v - rank as f32 / 99.0).abs() < 1e-6);
        }
        // Order is kept.
        for a in 0..101 {
            for b in 0..101 {
                if is_land[a] && is_land[b] && order[a] < order[b] {
                    assert!(m[a] < m[b]);
                }
            }
        }
        let mean = |w: f32| {
            let mut v = order.clone();
            redistribute(&mut v, &is_land, w);
            v.iter().sum::<f32>() / v.len() as f32
        };
        assert!(mean(0.5) > mean(0.0) && mean(0.0) > mean(-0.5));
        // Ties break by index, so the result is unique.
        let mut ties = vec![0.5f32; 4];
        redistribute(&mut ties, &[true; 4], 0.0);
        assert_eq!(ties, vec![0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]);
    }

    #[test]
    fn noise_is_in_range_seeded_and_thread_count_independent() {
        let xy = Array2::from_shape_fn((500, 2), |(i, c)| ((i * 7 + c * 13) % 97) as f64 / 97.0);
        let run = |threads: usize, seed: u32| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| noise_field(xy.view(), 1.0, 6.0, 500.0, 6, seed))
        };
        let a = run(1, 9);
        assert_eq!(a, run(2, 9));
        assert_ne!(a, run(1, 10));
        assert!(a.iter().all(|v| (0.0..=1.0).contains(v)));
        let mean = a.iter().sum::<f32>() / a.len() as f32;
        assert!((mean - 0.5).abs() < 0.1, "mean {mean}");
    }

    #[test]
    fn wind_leaves_a_rain_shadow_behind_a_ridge() {
        // A 40 x 10 strip, wind along +x, sea on the left column, a ridge at x = 20.
        let (kx, ky) = (40usize, 10usize);
        let n = kx * ky;
        let xy = Array2::from_shape_fn((n, 2), |(r, c)| {
            if c == 0 {
                (r % kx) as f64
            } else {
                (r / kx) as f64
            }
        });
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|r| {
                let (i, j) = (r % kx, r / kx);
                let mut l = Vec::new();
                if i > 0 {
                    l.push((r - 1) as u32);
                }
                if i + 1 < kx {
                    l.push((r + 1) as u32);
                }
                if j > 0 {
                    l.push((r - kx) as u32);
                }
                if j + 1 < ky {
                    l.push((r + kx) as u32);
                }
                l
            })
            .collect();
        let g = Csr::from_lists(&lists);
        let elev: Vec<f32> = (0..n)
            .map(|r| {
                let i = (r % kx) as f32;
                0.1 + 0.8 * (-(i - 20.0).powi(2) / 8.0).exp()
            })
            .collect();
        let kind: Vec<u8> = (0..n).map(|r| u8::from(r % kx == 0)).collect();
        let rain = wind_rain(xy.view(), &g, &elev, &kind, 0.0, 0.02, 2.0);
        let row = |i: usize| rain[5 * kx + i];
        assert_eq!(row(0), 1.0);
        assert!(row(18) > row(10), "the windward slope gets the most rain");
        assert!(
            row(26) < row(14) * 0.5,
            "the lee is dry: {} vs {}",
            row(26),
            row(14)
        );
        // Reversed wind: the shadow moves to the other side.
        let back = wind_rain(xy.view(), &g, &elev, &kind, std::f64::consts::PI, 0.02, 2.0);
        assert!(back[5 * kx + 22] > back[5 * kx + 14]);
    }
}
