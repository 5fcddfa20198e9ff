//! Steepest-descent river tracing, as the classic raster landscape draws its rivers.

use ndarray::ArrayView2;
use orogen_world::params::{self, ParamError};
use rand_xoshiro::rand_core::Rng;
use serde::{Deserialize, Serialize};

use super::RasterError;
use super::d8::D8_CODES;

/// Follows steepest descent from `start` (`[row, col]`): the path holds the start cell, then at
/// each step the lowest of the 8 neighbours (strictly lower than the current cell; ties to the
/// first of W, NW, N, NE, E, SE, S, SW; NaN neighbours ignored). It stops after adding a cell
/// below `water_level` (the river reached water), at a pit (no lower neighbour), or when it holds
/// `max_steps` cells. A NaN (NoData) start gives an empty path.
pub fn trace_steepest(
    dem: ArrayView2<'_, f32>,
    start: [usize; 2],
    water_level: f32,
    max_steps: usize,
) -> Result<Vec<[usize; 2]>, RasterError> {
    let (rows, cols) = dem.dim();
    let [row, col] = start;
    if row >= rows || col >= cols {
        return Err(RasterError::StartOutside {
            row,
            col,
            rows,
            cols,
        });
    }
    let mut path = Vec::new();
    if dem[[row, col]].is_nan() {
        return Ok(path);
    }
    let mut cell = start;
    while path.len() < max_steps {
        path.push(cell);
        let here = dem[cell];
        if here < water_level {
            break;
        }
        let mut lowest = here;
        let mut next = None;
        for &(dx, dy) in &D8_CODES {
            let (Some(r), Some(c)) = (
                cell[0].checked_add_signed(dy),
                cell[1].checked_add_signed(dx),
            ) else {
                continue;
            };
            if r < rows && c < cols && dem[[r, c]] < lowest {
                lowest = dem[[r, c]];
                next = Some([r, c]);
            }
        }
        match next {
            Some(n) => cell = n,
            None => break,
        }
    }
    Ok(path)
}

/// How the classic landscape picks and traces its rivers ([`trace_rivers`]). Heights are in the
/// DEM's own units (the classic heightmap is 0..1).
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraceParams {
    /// Number of rivers.
    pub count: usize,
    /// A source is a random cell at least this high.
    pub source_min: f32,
    /// Random draws per source before taking the last one drawn whatever its height.
    pub tries: usize,
    /// A river stops after reaching a cell below this level.
    pub water_level: f32,
    /// At most this many cells per river.
    pub max_steps: usize,
}

impl Default for TraceParams {
    fn default() -> Self {
        TraceParams {
            count: 6,
            source_min: 0.75,
            tries: 500,
            water_level: 0.36,
            max_steps: 300,
        }
    }
}

impl TraceParams {
    /// Every parameter, described once.
    pub const SPECS: &[params::Spec<TraceParams>] = &[
        params::Spec::int(
            "count",
            "Number of rivers",
            0,
            100_000,
            |p: &TraceParams| p.count as i128,
        ),
        params::Spec::other(
            "source_min",
            "A source is a random cell at least this high",
            "a finite number",
        ),
        params::Spec::int(
            "tries",
            "Random draws per source before taking the last one",
            1,
            1_000_000,
            |p: &TraceParams| p.tries as i128,
        ),
        params::Spec::other(
            "water_level",
            "A river stops after reaching a cell below this level",
            "a finite number",
        ),
        params::Spec::int(
            "max_steps",
            "Most cells per river",
            1,
            100_000_000,
            |p: &TraceParams| p.max_steps as i128,
        ),
    ];

    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<(), ParamError> {
        params::check_specs(self, Self::SPECS)?;
        params::finite("source_min", f64::from(self.source_min))?;
        params::finite("water_level", f64::from(self.water_level))?;
        Ok(())
    }
}

/// Traces `params.count` rivers by steepest descent ([`trace_steepest`]) from random high cells,
/// as the classic landscape does: each source is the first of up to `tries` uniform random cells
/// at or above `source_min` (the last one drawn if none is). `rng` is the caller's seeded
/// generator (the pipeline passes its stage's Xoshiro256++). Sources on NoData give no river, so
/// fewer than `count` rivers may come back.
pub fn trace_rivers<R: Rng>(
    dem: ArrayView2<'_, f32>,
    params: &TraceParams,
    rng: &mut R,
) -> Result<Vec<Vec<[usize; 2]>>, crate::Error> {
    params.validate()?;
    let (rows, cols) = dem.dim();
    let n = rows * cols;
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut rivers = Vec::with_capacity(params.count);
    for _ in 0..params.count {
        let mut cell = 0;
        for _ in 0..params.tries {
            // Multiply-shift: uniform enough, and the same draw for the same seed everywhere.
            cell = ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize;
            if dem[[cell / cols, cell % cols]] >= params.source_min {
                break;
            }
        }
        let path = trace_steepest(
            dem,
            [cell / cols, cell % cols],
            params.water_level,
            params.max_steps,
        )?;
        if !path.is_empty() {
            rivers.push(path);
        }
    }
    Ok(rivers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    fn bowl(n: usize) -> Array2<f32> {
        // Highest in the corners, lowest in the middle, with a bump to make paths bend.
        let m = (n - 1) as f32 / 2.0;
        Array2::from_shape_fn((n, n), |(r, c)| {
            let (x, y) = (c as f32 - m, r as f32 - m);
            ((x * x + y * y) / (2.0 * m * m)) + 0.05 * ((r * 7 + c * 3) % 5) as f32
        })
    }

    #[test]
    fn paths_descend_step_by_step_and_stop_where_asked() {
        let dem = bowl(41);
        let path = trace_steepest(dem.view(), [0, 0], -1.0, 10_000).unwrap();
        assert_eq!(path[0], [0, 0]);
        for pair in path.windows(2) {
            let ([r0, c0], [r1, c1]) = (pair[0], pair[1]);
            assert!(r0.abs_diff(r1) <= 1 && c0.abs_diff(c1) <= 1);
            assert!(dem[pair[1]] < dem[pair[0]]);
        }
        // It ends in a pit: no neighbour of the last cell is lower.
        let [r, c] = *path.last().unwrap();
        for dr in -1..=1isize {
            for dc in -1..=1isize {
                let (nr, nc) = (r as isize + dr, c as isize + dc);
                if (0..41).contains(&nr) && (0..41).contains(&nc) {
                    assert!(dem[[nr as usize, nc as usize]] >= dem[[r, c]]);
                }
            }
        }
        // Water: it stops at the first cell below the level.
        let level = 0.3;
        let wet = trace_steepest(dem.view(), [0, 0], level, 10_000).unwrap();
        assert!(dem[*wet.last().unwrap()] < level);
        assert!(wet[..wet.len() - 1].iter().all(|&p| dem[p] >= level));
        assert!(wet.len() < path.len());
        // The step limit.
        assert_eq!(
            trace_steepest(dem.view(), [0, 0], -1.0, 3).unwrap().len(),
            3
        );
        assert!(trace_steepest(dem.view(), [41, 0], 0.0, 3).is_err());
    }

    #[test]
    fn rivers_are_reproducible_and_start_high() {
        let dem = bowl(41);
        let params = TraceParams {
            source_min: 0.8,
            ..TraceParams::default()
        };
        let mut rng = orogen_world::seed::rng_from_seed(7);
        let a = trace_rivers(dem.view(), &params, &mut rng).unwrap();
        let mut rng = orogen_world::seed::rng_from_seed(7);
        let b = trace_rivers(dem.view(), &params, &mut rng).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 6);
        assert!(
            a.iter()
                .all(|river| dem[river[0]] >= 0.8 && river.len() > 1)
        );
        let bad = TraceParams {
            water_level: f32::NAN,
            ..TraceParams::default()
        };
        assert!(trace_rivers(dem.view(), &bad, &mut rng).is_err());
    }
}
