//! River selection: main rivers and tributaries, distinct, from high ground to the sea or to
//! another river.

use orogen_world::params::{ParamError, ParamInfo, Spec, check_specs, describe_specs};
use serde::{Deserialize, Serialize};

use super::route::check_len;
use super::{CsrGraph, Error};

/// The rules of one selection pass. With `V` land corners:
/// candidates are the land corners in the top `top_fraction` by flow with at least the minimum
/// flow and `max(min_hops, floor(min_hops_sqrt sqrt V), floor(min_hops_of_main main minimum))`
/// hops to the sea, and the pass takes at most `max(max_rivers, floor(max_rivers_sqrt sqrt V))`.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PassParams {
    /// Share of land corners, by flow, that may start a river.
    pub top_fraction: f64,
    /// Least hops to the sea of a source.
    pub min_hops: u32,
    /// Least hops to the sea as a multiple of sqrt V.
    pub min_hops_sqrt: f64,
    /// Least hops to the sea as a multiple of the main pass's minimum.
    pub min_hops_of_main: f64,
    /// Most rivers of the pass.
    pub max_rivers: u32,
    /// Most rivers as a multiple of sqrt V.
    pub max_rivers_sqrt: f64,
    /// A candidate is skipped when a chosen river passes within this many cell spacings s.
    pub spacing: f64,
}

impl PassParams {
    /// The main pass's defaults.
    pub fn main() -> Self {
        PassParams {
            top_fraction: 0.07,
            min_hops: 5,
            min_hops_sqrt: 0.05,
            min_hops_of_main: 0.0,
            max_rivers: 15,
            max_rivers_sqrt: 0.45,
            spacing: 3.0,
        }
    }

    /// The tributary pass's defaults.
    pub fn tributary() -> Self {
        PassParams {
            top_fraction: 0.15,
            min_hops: 3,
            min_hops_sqrt: 0.0,
            min_hops_of_main: 0.5,
            max_rivers: 15,
            max_rivers_sqrt: 0.40,
            spacing: 2.0,
        }
    }

    /// Every parameter of a pass, described once.
    pub const SPECS: &[Spec<PassParams>] = &[
        Spec::float(
            "top_fraction",
            "Share of land corners, by flow, that may start a river",
            0.0,
            1.0,
            |p: &PassParams| p.top_fraction,
        ),
        Spec::int(
            "min_hops",
            "Least hops to the sea of a source",
            0,
            1_000_000,
            |p: &PassParams| p.min_hops.into(),
        ),
        Spec::float(
            "min_hops_sqrt",
            "Least hops to the sea as a multiple of sqrt(land corners)",
            0.0,
            100.0,
            |p: &PassParams| p.min_hops_sqrt,
        ),
        Spec::float(
            "min_hops_of_main",
            "Least hops to the sea as a multiple of the main pass's minimum",
            0.0,
            100.0,
            |p: &PassParams| p.min_hops_of_main,
        ),
        Spec::int(
            "max_rivers",
            "Most rivers of the pass",
            0,
            1_000_000,
            |p: &PassParams| p.max_rivers.into(),
        ),
        Spec::float(
            "max_rivers_sqrt",
            "Most rivers of the pass per sqrt(land corners)",
            0.0,
            1000.0,
            |p: &PassParams| p.max_rivers_sqrt,
        ),
        Spec::float(
            "spacing",
            "Spacing between the pass's rivers",
            0.0,
            1000.0,
            |p: &PassParams| p.spacing,
        )
        .unit("cell spacings"),
    ];

    fn validate(&self, prefix: &str) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS).map_err(|e| e.prefixed(prefix))
    }
}

impl Default for PassParams {
    fn default() -> Self {
        Self::main()
    }
}

/// River selection and drawing parameters (the rules; every number is here).
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RiverParams {
    /// The main rivers' pass.
    pub main: PassParams,
    /// The tributaries' pass (runs second, keeps the main rivers' occupancy).
    pub tributary: PassParams,
    /// Least flow of a source, absolute.
    pub min_flow: f64,
    /// Least flow of a source per land corner (times V).
    pub min_flow_per_corner: f64,
    /// A river grows upstream from its source along the upstream neighbour of largest flow while
    /// that flow is at least this.
    pub extend_min_flow: f64,
    /// River width at a fresh source, metres: a river is `w = width_source_m + width_per_sqrt_km2_m
    /// sqrt(A)` wide, A its drained land in km^2 (its flow in corners times the mean corner area,
    /// half a cell), so widths do not change with the cell count. Drawing tapers it to a point at
    /// the source.
    pub width_source_m: f64,
    /// Metres of width per square root of km^2 drained (k in `w = w_source + k sqrt(A)`).
    pub width_per_sqrt_km2_m: f64,
    /// Exponent of t = (flow / max flow)^e for the opacity.
    pub opacity_exponent: f64,
    /// Opacity at t = 0 (it grows linearly to 1 at t = 1).
    pub opacity_base: f64,
}

impl Default for RiverParams {
    fn default() -> Self {
        RiverParams {
            main: PassParams::main(),
            tributary: PassParams::tributary(),
            min_flow: 2.0,
            min_flow_per_corner: 0.0006,
            extend_min_flow: 4.0,
            width_source_m: 150.0,
            width_per_sqrt_km2_m: 40.0,
            opacity_exponent: 0.45,
            opacity_base: 0.35,
        }
    }
}

impl RiverParams {
    /// Every parameter outside the passes, described once.
    pub const SPECS: &[Spec<RiverParams>] = &[
        Spec::float(
            "min_flow",
            "Least flow of a source",
            0.0,
            1e9,
            |p: &RiverParams| p.min_flow,
        ),
        Spec::float(
            "min_flow_per_corner",
            "Least flow of a source per land corner",
            0.0,
            1.0,
            |p: &RiverParams| p.min_flow_per_corner,
        ),
        Spec::float(
            "extend_min_flow",
            "Rivers grow upstream while the flow is at least this",
            1.0,
            1e9,
            |p: &RiverParams| p.extend_min_flow,
        ),
        Spec::float(
            "width_source_m",
            "River width at a fresh source (w = w_source + k sqrt(drained km^2))",
            0.0,
            100_000.0,
            |p: &RiverParams| p.width_source_m,
        )
        .unit("m"),
        Spec::float(
            "width_per_sqrt_km2_m",
            "River width per square root of the drained km^2 (k)",
            0.0,
            100_000.0,
            |p: &RiverParams| p.width_per_sqrt_km2_m,
        )
        .unit("m"),
        Spec::float(
            "opacity_exponent",
            "Exponent of (flow / max flow) for the opacity",
            0.01,
            10.0,
            |p: &RiverParams| p.opacity_exponent,
        ),
        Spec::float(
            "opacity_base",
            "River opacity at the smallest flow",
            0.0,
            1.0,
            |p: &RiverParams| p.opacity_base,
        ),
    ];

    /// The parameter table of the selection, paths after `prefix`.
    pub fn param_table(prefix: &str) -> Vec<ParamInfo> {
        let mut rows = describe_specs(&format!("{prefix}main."), PassParams::SPECS);
        rows.extend(describe_specs(
            &format!("{prefix}tributary."),
            PassParams::SPECS,
        ));
        rows.extend(describe_specs(prefix, Self::SPECS));
        rows
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.main.validate("main.")?;
        self.tributary.validate("tributary.")?;
        check_specs(self, Self::SPECS)
    }
}

/// What river selection reads: a routed graph with its flow.
#[derive(Clone, Copy, Debug)]
pub struct RiverInput<'a> {
    /// The graph the routing ran on (upstream neighbours are found through it).
    pub graph: CsrGraph<'a>,
    /// Downstream node per node, -1 at outlets.
    pub downstream: &'a [i32],
    /// Accumulated flow per node.
    pub flow: &'a [u64],
    /// Hops to the outlet per node.
    pub hops: &'a [u32],
    /// Node positions, `n x 2` row-major.
    pub xy: &'a [f64],
    /// Land nodes (not outlets): `V` counts them and only they start rivers.
    pub is_land: &'a [bool],
    /// Lake id per node on a lake surface, or -1: such nodes never start a river, and river
    /// segments between two nodes of the same lake are flagged.
    pub corner_lake: &'a [i32],
    /// The mean cell spacing s (map units), the unit of spacing; a corner drains `s^2 / 2`.
    pub spacing: f64,
    /// Metres per map unit (widths are given in metres and returned in map units).
    pub metres_per_unit: f64,
}

/// Chosen rivers as polylines of node ids (CSR), from source to mouth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rivers {
    /// List offsets: river `i` is `corners[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<u32>,
    /// Node ids, source first; the last is an outlet or a node of an earlier river.
    pub corners: Vec<u32>,
    /// Flow per vertex.
    pub flow: Vec<f32>,
    /// Width per vertex (map units): `width_source_m + width_per_sqrt_km2_m sqrt(A)` metres, A
    /// the drained area in km^2 (flow x s^2 / 2).
    pub width: Vec<f32>,
    /// Opacity per vertex: opacity_base + (1 - opacity_base) t.
    pub opacity: Vec<f32>,
    /// 1 when the segment from this vertex to the next lies on a lake's surface (from where the
    /// river enters the lake to its outlet), so drawing skips it; 0 otherwise (and at the end).
    pub on_lake: Vec<u8>,
    /// Per river: true when it ends at another river (a tributary), false at an outlet.
    pub joins_river: Vec<bool>,
    /// Per river: 0 when chosen by the main pass, 1 by the tributary pass.
    pub pass: Vec<u8>,
}

impl Rivers {
    /// The number of rivers.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no rivers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node ids of river `i`.
    pub fn river(&self, i: usize) -> &[u32] {
        &self.corners[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// A uniform grid of cell size >= `cell` over the nodes' bounding box, holding chosen points.
struct Occupancy {
    x0: f64,
    y0: f64,
    cell: f64,
    nx: usize,
    ny: usize,
    head: Vec<u32>,
    next: Vec<u32>,
    point: Vec<[f64; 2]>,
}

impl Occupancy {
    fn new(xy: &[f64], cell: f64) -> Self {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in xy.chunks_exact(2) {
            x0 = x0.min(p[0]);
            y0 = y0.min(p[1]);
            x1 = x1.max(p[0]);
            y1 = y1.max(p[1]);
        }
        if x0 > x1 {
            (x0, y0, x1, y1) = (0.0, 0.0, 1.0, 1.0);
        }
        let n = xy.len() / 2;
        // Never more grid cells than about four per node, whatever the spacing.
        let min_cell = (((x1 - x0) * (y1 - y0)) / (4 * n + 16) as f64).sqrt();
        let cell = if cell.is_finite() && cell > 0.0 {
            cell.max(min_cell)
        } else {
            min_cell
        }
        .max(1e-300);
        let nx = ((x1 - x0) / cell).floor() as usize + 1;
        let ny = ((y1 - y0) / cell).floor() as usize + 1;
        Occupancy {
            x0,
            y0,
            cell,
            nx,
            ny,
            head: vec![u32::MAX; nx * ny],
            next: Vec::new(),
            point: Vec::new(),
        }
    }

    fn cell_of(&self, x: f64, y: f64) -> (usize, usize) {
        let i = ((x - self.x0) / self.cell)
            .floor()
            .clamp(0.0, (self.nx - 1) as f64) as usize;
        let j = ((y - self.y0) / self.cell)
            .floor()
            .clamp(0.0, (self.ny - 1) as f64) as usize;
        (i, j)
    }

    fn insert(&mut self, x: f64, y: f64) {
        let (i, j) = self.cell_of(x, y);
        let k = j * self.nx + i;
        self.next.push(self.head[k]);
        self.head[k] = self.point.len() as u32;
        self.point.push([x, y]);
    }

    fn any_within(&self, x: f64, y: f64, radius: f64) -> bool {
        let r_cells = (radius / self.cell).ceil() as usize;
        let (i, j) = self.cell_of(x, y);
        let r2 = radius * radius;
        for jj in j.saturating_sub(r_cells)..=(j + r_cells).min(self.ny - 1) {
            for ii in i.saturating_sub(r_cells)..=(i + r_cells).min(self.nx - 1) {
                let mut p = self.head[jj * self.nx + ii];
                while p != u32::MAX {
                    let [px, py] = self.point[p as usize];
                    if (px - x).powi(2) + (py - y).powi(2) <= r2 {
                        return true;
                    }
                    p = self.next[p as usize];
                }
            }
        }
        false
    }
}

/// Selects rivers in two passes (main, then tributaries) by the rules of [`RiverParams`].
///
/// Each pass ranks its candidates by flow x (1 + hops / max hops) (ties by index) and takes
/// them in that order, skipping one when a chosen river passes within `spacing` s of it. A
/// taken candidate is traced downstream to an outlet or to the first node already on a river
/// (where it becomes a tributary), crossing lakes and leaving them at their outlet, then grown
/// upstream along the upstream neighbour of largest flow (ties by index) while that flow is at
/// least `extend_min_flow`. No two rivers share a segment: a river stops at the first node of
/// another.
pub fn select_rivers(input: &RiverInput<'_>, params: &RiverParams) -> Result<Rivers, Error> {
    params.validate()?;
    let n = input.graph.n_nodes();
    check_len("downstream", input.downstream.len(), n)?;
    check_len("flow", input.flow.len(), n)?;
    check_len("hops", input.hops.len(), n)?;
    check_len("xy", input.xy.len(), 2 * n)?;
    check_len("is_land", input.is_land.len(), n)?;
    check_len("corner_lake", input.corner_lake.len(), n)?;
    if let Some(c) = input
        .downstream
        .iter()
        .position(|&d| d < -1 || d as i64 >= n as i64)
    {
        return Err(Error::Input(format!(
            "downstream[{c}] = {} is out of range",
            input.downstream[c]
        )));
    }
    if !(input.metres_per_unit.is_finite() && input.metres_per_unit > 0.0) {
        return Err(Error::Input(format!(
            "metres_per_unit = {} must be finite and > 0",
            input.metres_per_unit
        )));
    }
    if !(input.spacing.is_finite() && input.spacing > 0.0) {
        return Err(Error::Input(format!(
            "spacing = {} must be finite and > 0",
            input.spacing
        )));
    }
    let s = input.spacing;
    // km^2 drained per unit of flow, and metres -> map units.
    let km2_per_flow = 0.5 * (s * input.metres_per_unit).powi(2) * 1e-6;
    let width_of = |flow: f64| {
        (params.width_source_m + params.width_per_sqrt_km2_m * (flow * km2_per_flow).sqrt())
            / input.metres_per_unit
    };
    let land: Vec<u32> = (0..n as u32)
        .filter(|&c| input.is_land[c as usize])
        .collect();
    let v = land.len();
    let sqrt_v = (v as f64).sqrt();
    let max_hops = land
        .iter()
        .map(|&c| input.hops[c as usize])
        .max()
        .unwrap_or(1)
        .max(1);
    let max_flow = input.flow.iter().copied().max().unwrap_or(1).max(1) as f64;
    let min_flow = params.min_flow.max(params.min_flow_per_corner * v as f64);
    // Only the passes' top fractions are read: select them, then sort those alone, on keys
    // held in place (a sort through `flow[c]` misses the cache on every comparison once the
    // corners outgrow it). The order is the full sort's: flow descending, then corner.
    let top_max = [&params.main, &params.tributary]
        .iter()
        .map(|pass| ((pass.top_fraction * v as f64).ceil() as usize).min(v))
        .max()
        .unwrap_or(0)
        .min(land.len());
    let mut keyed: Vec<(std::cmp::Reverse<u64>, u32)> = land
        .iter()
        .map(|&c| (std::cmp::Reverse(input.flow[c as usize]), c))
        .collect();
    if top_max > 0 && top_max < keyed.len() {
        keyed.select_nth_unstable(top_max - 1);
    }
    keyed.truncate(top_max);
    keyed.sort_unstable();
    let by_flow: Vec<u32> = keyed.into_iter().map(|(_, c)| c).collect();

    let mut on_river = vec![false; n];
    let mut grid = Occupancy::new(input.xy, s);
    let mut out = Rivers {
        offsets: vec![0],
        ..Rivers::default()
    };
    let main_min_hops = pass_min_hops(&params.main, sqrt_v, 0);
    for (pass_idx, pass) in [&params.main, &params.tributary].into_iter().enumerate() {
        let min_hops = pass_min_hops(pass, sqrt_v, main_min_hops);
        let max_rivers = (pass.max_rivers as usize).max((pass.max_rivers_sqrt * sqrt_v) as usize);
        let top = ((pass.top_fraction * v as f64).ceil() as usize).min(v);
        let mut candidates: Vec<(f64, u32)> = by_flow[..top]
            .iter()
            .filter(|&&c| {
                let c = c as usize;
                input.corner_lake[c] < 0
                    && input.flow[c] as f64 >= min_flow
                    && input.hops[c] >= min_hops
            })
            .map(|&c| {
                let score = input.flow[c as usize] as f64
                    * (1.0 + f64::from(input.hops[c as usize]) / f64::from(max_hops));
                (score, c)
            })
            .collect();
        candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let radius = pass.spacing * s;
        let mut taken = 0;
        for &(_, source) in &candidates {
            if taken >= max_rivers {
                break;
            }
            let sc = source as usize;
            if on_river[sc] || grid.any_within(input.xy[2 * sc], input.xy[2 * sc + 1], radius) {
                continue;
            }
            // Downstream: to an outlet or the first node already on a river.
            let mut path = vec![source];
            let mut joins = false;
            let mut cur = sc;
            while input.downstream[cur] >= 0 {
                let d = input.downstream[cur] as usize;
                path.push(d as u32);
                if on_river[d] {
                    joins = true;
                    break;
                }
                cur = d;
                if path.len() > n {
                    return Err(Error::Input("downstream has a cycle".into()));
                }
            }
            // Upstream: the upstream neighbour of largest flow while it is large enough.
            let mut upstream = Vec::new();
            let mut cur = sc;
            loop {
                let best = input
                    .graph
                    .neighbors(cur)
                    .iter()
                    .copied()
                    .filter(|&nb| input.downstream[nb as usize] == cur as i32)
                    .max_by_key(|&nb| (input.flow[nb as usize], std::cmp::Reverse(nb)));
                match best {
                    Some(nb)
                        if input.flow[nb as usize] as f64 >= params.extend_min_flow
                            && !on_river[nb as usize]
                            && upstream.len() <= n =>
                    {
                        upstream.push(nb);
                        cur = nb as usize;
                    }
                    _ => break,
                }
            }
            upstream.reverse();
            upstream.extend_from_slice(&path);
            let path = upstream;
            let last = path.len() - 1;
            for (k, &c) in path.iter().enumerate() {
                let c = c as usize;
                let f = input.flow[c] as f64;
                let t = (f / max_flow).powf(params.opacity_exponent);
                out.corners.push(c as u32);
                out.flow.push(f as f32);
                out.width.push(width_of(f) as f32);
                out.opacity
                    .push((params.opacity_base + (1.0 - params.opacity_base) * t) as f32);
                let lake = input.corner_lake[c];
                let on_lake =
                    k < last && lake >= 0 && input.corner_lake[path[k + 1] as usize] == lake;
                out.on_lake.push(u8::from(on_lake));
                if !(joins && k == last) {
                    on_river[c] = true;
                    grid.insert(input.xy[2 * c], input.xy[2 * c + 1]);
                }
            }
            out.offsets.push(out.corners.len() as u32);
            out.joins_river.push(joins);
            out.pass.push(pass_idx as u8);
            taken += 1;
        }
    }
    Ok(out)
}

fn pass_min_hops(pass: &PassParams, sqrt_v: f64, main_min_hops: u32) -> u32 {
    let by_sqrt = (pass.min_hops_sqrt * sqrt_v).floor() as u32;
    let by_main = (pass.min_hops_of_main * f64::from(main_min_hops)).floor() as u32;
    pass.min_hops.max(by_sqrt).max(by_main)
}
