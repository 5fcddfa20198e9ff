//! Routing for erosion, in f64: steepest-descent receivers, depressions resolved by
//! Priority-Flood, the receiver stack (Braun and Willett 2013) and drainage area.

use rayon::prelude::*;

/// A graph the erosion kernels run on: nodes `0..len()`, each with neighbours at a distance.
///
/// [`Grid`] is a raster's 8-connected graph; [`Mesh`] is any graph in CSR form with node
/// positions (the dual mesh's regions).
pub trait Neighbours: Sync {
    /// The number of nodes.
    fn len(&self) -> usize;
    /// Whether there are no nodes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f(j, distance)` for every neighbour `j` of node `i`, in a fixed order.
    fn for_each(&self, i: usize, f: impl FnMut(usize, f64));
    /// Calls `f(j, 1 / distance^2)` for every neighbour `j` of node `i`, in the order of
    /// [`for_each`](Neighbours::for_each): the weights of the hillslope diffusion's Laplacian,
    /// which a graph may hold rather than divide for on every pass.
    #[inline]
    fn for_each_inv_sq(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        self.for_each(i, |j, d| f(j, 1.0 / (d * d)));
    }
    /// The number of neighbours of node `i`.
    fn degree(&self, i: usize) -> usize;
    /// The raster, when this graph is one: the kernels then walk it row by row (the same
    /// results as through [`for_each`](Neighbours::for_each), without per-node index
    /// arithmetic).
    fn as_grid(&self) -> Option<&Grid> {
        None
    }
}

/// A `rows x cols` raster, row-major, with cell sizes `dx` (along a row) and `dy` (down a
/// column); neighbours in the D8 order W, NW, N, NE, E, SE, S, SW (diagonals at
/// `sqrt(dx^2 + dy^2)`).
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// Rows of the raster.
    pub rows: usize,
    /// Columns of the raster.
    pub cols: usize,
    /// Cell size along a row, between horizontal neighbours (m in the erosion kernels).
    pub dx: f64,
    /// Cell size down a column, between vertical neighbours (m in the erosion kernels).
    pub dy: f64,
}

impl Grid {
    /// The distance between diagonal neighbours.
    pub fn diagonal(&self) -> f64 {
        (self.dx * self.dx + self.dy * self.dy).sqrt()
    }

    /// Border cells: the raster's base level.
    pub fn border(&self) -> Vec<bool> {
        (0..self.rows * self.cols)
            .map(|i| {
                let (r, c) = (i / self.cols, i % self.cols);
                r == 0 || c == 0 || r + 1 == self.rows || c + 1 == self.cols
            })
            .collect()
    }
}

impl Grid {
    /// Calls `f(j, v)` for every neighbour `j` of node `i` in D8 order, `v` the entry of
    /// `[along a row, down a column, diagonal]` for its direction.
    #[inline]
    fn for_each_of(&self, i: usize, [x, y, diag]: [f64; 3], mut f: impl FnMut(usize, f64)) {
        let (r, c) = (i / self.cols, i % self.cols);
        if r > 0 && c > 0 && r + 1 < self.rows && c + 1 < self.cols {
            // Inside: all eight, in D8 order, no checks.
            let w = self.cols;
            f(i - 1, x);
            f(i - w - 1, diag);
            f(i - w, y);
            f(i - w + 1, diag);
            f(i + 1, x);
            f(i + w + 1, diag);
            f(i + w, y);
            f(i + w - 1, diag);
            return;
        }
        for &(dc, dr) in &crate::raster::D8_CODES {
            let (Some(rr), Some(cc)) = (r.checked_add_signed(dr), c.checked_add_signed(dc)) else {
                continue;
            };
            if rr >= self.rows || cc >= self.cols {
                continue;
            }
            let v = match (dc != 0, dr != 0) {
                (true, true) => diag,
                (true, false) => x,
                _ => y,
            };
            f(rr * self.cols + cc, v);
        }
    }
}

impl Neighbours for Grid {
    fn len(&self) -> usize {
        self.rows * self.cols
    }

    #[inline]
    fn for_each(&self, i: usize, f: impl FnMut(usize, f64)) {
        self.for_each_of(i, [self.dx, self.dy, self.diagonal()], f);
    }

    #[inline]
    fn for_each_inv_sq(&self, i: usize, f: impl FnMut(usize, f64)) {
        // Three weights a node, not one division a neighbour.
        let diag = self.diagonal();
        let w = [self.dx, self.dy, diag].map(|d| 1.0 / (d * d));
        self.for_each_of(i, w, f);
    }

    fn degree(&self, i: usize) -> usize {
        let (r, c) = (i / self.cols, i % self.cols);
        let span = |x: usize, n: usize| 1 + usize::from(x > 0) + usize::from(x + 1 < n);
        span(r, self.rows) * span(c, self.cols) - 1
    }

    fn as_grid(&self) -> Option<&Grid> {
        Some(self)
    }
}

/// A raster's neighbour steps `(rows, cols)` in increasing index order (the order of a node's
/// donors in the stack).
const BY_INDEX: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// A graph in CSR form (`targets[offsets[i]..offsets[i + 1]]` are the neighbours of `i`)
/// with the length of every edge (and its inverse square, the diffusion's weight).
#[derive(Clone, Debug)]
pub struct Mesh<'a> {
    offsets: &'a [u32],
    targets: &'a [u32],
    length: Vec<f64>,
    inv_sq: Vec<f64>,
}

impl<'a> Mesh<'a> {
    /// The graph of `graph` with edge lengths from node positions `xy` (`n x 2`, row-major)
    /// times `scale`.
    ///
    /// Errors when the CSR arrays are malformed or `xy` is not `n x 2`.
    pub fn new(
        offsets: &'a [u32],
        targets: &'a [u32],
        xy: &[f64],
        scale: f64,
    ) -> Result<Self, crate::graph::Error> {
        let graph = crate::graph::CsrGraph::new(offsets, targets)?;
        let n = graph.n_nodes();
        if xy.len() != 2 * n {
            return Err(crate::graph::Error::Input(format!(
                "xy has {} entries, expected {}",
                xy.len(),
                2 * n
            )));
        }
        let length = (0..n)
            .into_par_iter()
            .flat_map_iter(|i| {
                graph.neighbors(i).iter().map(move |&j| {
                    let j = j as usize;
                    scale * (xy[2 * i] - xy[2 * j]).hypot(xy[2 * i + 1] - xy[2 * j + 1])
                })
            })
            .collect::<Vec<f64>>();
        let inv_sq = length.par_iter().map(|&d| 1.0 / (d * d)).collect();
        Ok(Mesh {
            offsets,
            targets,
            length,
            inv_sq,
        })
    }
}

impl Neighbours for Mesh<'_> {
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    fn for_each(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        for (&j, &d) in self.targets[a..b].iter().zip(&self.length[a..b]) {
            f(j as usize, d);
        }
    }

    #[inline]
    fn for_each_inv_sq(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        for (&j, &w) in self.targets[a..b].iter().zip(&self.inv_sq[a..b]) {
            f(j as usize, w);
        }
    }

    fn degree(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }
}

/// A receiver forest with its stack: what one erosion step needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Flow {
    /// Each node's receiver (itself at a base level, a NaN node or a node no outlet reaches).
    pub receiver: Vec<u32>,
    /// Distance to the receiver (0 at roots).
    pub distance: Vec<f64>,
    /// Every node, each after its receiver (downstream-first), as Braun and Willett's stack.
    pub stack: Vec<u32>,
    /// Drainage area: the node's own area plus everything upstream.
    pub area: Vec<f64>,
    /// Nodes raised by the Priority-Flood (inside depressions) on this routing.
    pub n_flooded: usize,
    /// For each stack entry, the stack position of its receiver (its own at roots).
    pub(super) up: Vec<u32>,
    /// Stack positions cutting it into runs of whole trees (first 0, last the node count):
    /// what one tree needs lies in its run, so runs are solved in parallel.
    pub(super) runs: Vec<usize>,
    /// Buffers of the stack's donor lists, kept between routings.
    scratch: Scratch,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Scratch {
    start: Vec<u32>,
    donors: Vec<u32>,
    walks: Vec<Walk>,
    /// On a raster, each node's donors as bits over [`BY_INDEX`].
    mask: Vec<u8>,
    /// The pit basins' flood: `true` outside the basins, filled levels and parents (reset
    /// after each routing where the basins were).
    closed: Vec<bool>,
    filled: Vec<f64>,
    parent: Vec<u32>,
    /// That flood's seeds and the order it finished nodes in (not read), kept between steps.
    rim: Vec<u32>,
    order: Vec<u32>,
    /// The lakes grown from the pits (see `lakes`).
    lakes: super::lakes::Lakes,
}

/// Steepest descent on `z`: the neighbour with the largest `(z_i - z_j) / d` > 0 (ties to the
/// first neighbour), or none (`u32::MAX`). Base levels and NaN nodes get none.
///
/// Returns the pits: the nodes without a receiver other than base levels and NaN nodes, in
/// index order.
fn steepest<G: Neighbours>(
    g: &G,
    z: &[f64],
    base: &[bool],
    receiver: &mut [u32],
    dist: &mut [f64],
) -> Vec<u32> {
    let is_pit = |i: usize, r: u32| r == u32::MAX && !base[i] && !z[i].is_nan();
    if let Some(grid) = g.as_grid() {
        steepest_grid(grid, z, base, receiver, dist);
        return (0..receiver.len() as u32)
            .into_par_iter()
            .filter(|&i| is_pit(i as usize, receiver[i as usize]))
            .collect();
    }
    receiver
        .par_iter_mut()
        .zip(dist.par_iter_mut())
        .enumerate()
        .with_min_len(1024)
        .filter_map(|(i, (r, d))| {
            (*r, *d) = steepest_of(g, z, base, i);
            is_pit(i, *r).then_some(i as u32)
        })
        .collect()
}

/// [`steepest`] of node `i`: its receiver (`u32::MAX` for none) and the distance to it.
#[inline]
fn steepest_of<G: Neighbours>(g: &G, z: &[f64], base: &[bool], i: usize) -> (u32, f64) {
    steepest_by(g, base, i, |j| z[j])
}

/// The steepest descent of node `i` on the levels `level`: the neighbour with the largest
/// `(level_i - level_j) / d` > 0 (ties to the first), or none (`u32::MAX`) at base levels and NaN.
#[inline]
pub(super) fn steepest_by<G: Neighbours>(
    g: &G,
    base: &[bool],
    i: usize,
    level: impl Fn(usize) -> f64,
) -> (u32, f64) {
    let (mut r, mut d) = (u32::MAX, 0.0);
    let zi = level(i);
    if base[i] || zi.is_nan() {
        return (r, d);
    }
    // Without branches on the comparison (it goes either way as often as not): the distance
    // travels as its bits, so each choice is a conditional move.
    let (mut best, mut d_bits) = (0.0, 0u64);
    g.for_each(i, |j, dj| {
        let s = (zi - level(j)) / dj;
        let take = s > best;
        best = if take { s } else { best };
        r = if take { j as u32 } else { r };
        d_bits = if take { dj.to_bits() } else { d_bits };
    });
    d = f64::from_bits(d_bits);
    (r, d)
}

/// Links node `i` to its neighbour `p`: its receiver, at the edge's length.
pub(super) fn link<G: Neighbours>(
    g: &G,
    i: usize,
    p: u32,
    receiver: &mut [u32],
    distance: &mut [f64],
) {
    receiver[i] = p;
    g.for_each(i, |j, dj| {
        if j == p as usize {
            distance[i] = dj;
        }
    });
}

/// [`steepest`] on a raster, row by row (the same neighbours in the same order, the same
/// arithmetic).
fn steepest_grid(g: &Grid, z: &[f64], base: &[bool], receiver: &mut [u32], dist: &mut [f64]) {
    let (rows, cols) = (g.rows, g.cols);
    if cols == 0 {
        return;
    }
    let diag = g.diagonal();
    let d = [g.dx, diag, g.dy, diag, g.dx, diag, g.dy, diag];
    receiver
        .par_chunks_mut(cols)
        .zip(dist.par_chunks_mut(cols))
        .enumerate()
        .with_min_len((1024 / cols).max(1))
        .for_each(|(r, (receiver, dist))| {
            let row = r * cols;
            let inside = r > 0 && r + 1 < rows;
            for (c, (rc, dc)) in receiver.iter_mut().zip(dist.iter_mut()).enumerate() {
                let i = row + c;
                *rc = u32::MAX;
                *dc = 0.0;
                let zi = z[i];
                if base[i] || zi.is_nan() {
                    continue;
                }
                let mut best = 0.0;
                if inside && c > 0 && c + 1 < cols {
                    // D8 order, as `Grid::for_each`; all eight slopes, then the first largest
                    // (no branch per neighbour).
                    let j = [
                        i - 1,
                        i - cols - 1,
                        i - cols,
                        i - cols + 1,
                        i + 1,
                        i + cols + 1,
                        i + cols,
                        i + cols - 1,
                    ];
                    let s: [f64; 8] = std::array::from_fn(|k| (zi - z[j[k]]) / d[k]);
                    let mut k_best = 8;
                    for (k, &s) in s.iter().enumerate() {
                        let better = s > best;
                        best = if better { s } else { best };
                        k_best = if better { k } else { k_best };
                    }
                    if k_best < 8 {
                        *rc = j[k_best] as u32;
                        *dc = d[k_best];
                    }
                    continue;
                }
                g.for_each(i, |j, dj| {
                    let s = (zi - z[j]) / dj;
                    if s > best {
                        best = s;
                        *rc = j as u32;
                        *dc = dj;
                    }
                });
            }
        });
}

/// Routes water over `z`: steepest-descent receivers, then, if any node other than a base
/// level has no lower neighbour, a Priority-Flood (Barnes, Lehman and Mulla 2014, FIFO for
/// depressions, heap ties by node index) from the base levels: every node then drains along
/// steepest descent on the filled surface where a strictly lower neighbour exists, and to the
/// node the flood reached it from otherwise (inside depressions and on flats). Both kinds of link
/// lower (filled level, flood position) strictly, so the receivers form a forest rooted at the
/// base levels. NaN nodes are inert roots; a node no base level reaches is its own root.
///
/// The flood's result is found without flooding: outside the pits' lakes every node already
/// descends to a base level, so only the lakes' levels and links change anything, and those are
/// grown upward from the pits, visiting the lakes and their shores (see `lakes`). Where a node
/// next to a lake lies at exactly the lake's level (ties, as on integer DEMs), the Priority-Flood
/// runs over the pits' basins instead, from the nodes around them (see `flood_pit_basins`).
///
/// Then the stack (depth-first from each root, roots in index order) and the drainage area
/// (`cell_area` summed upstream, in the reverse stack: the same bytes for any thread count).
pub fn route<G: Neighbours>(g: &G, z: &[f64], base: &[bool], cell_area: &[f64]) -> Flow {
    let mut flow = Flow::default();
    route_into(g, z, base, cell_area, &mut flow);
    flow
}

/// [`route`] into `flow`, reusing its buffers (what [`evolve`](super::evolve) does each step).
pub fn route_into<G: Neighbours>(
    g: &G,
    z: &[f64],
    base: &[bool],
    cell_area: &[f64],
    flow: &mut Flow,
) {
    route_trees(g, z, base, flow);
    flow.area.clear();
    flow.area.extend_from_slice(cell_area);
    for &i in flow.stack.iter().rev() {
        let r = flow.receiver[i as usize] as usize;
        if r != i as usize {
            flow.area[r] += flow.area[i as usize];
        }
    }
}

/// [`route_into`] without the drainage area: receivers, distances, the stack with each entry's
/// receiver position, and its runs of whole trees.
pub(super) fn route_trees<G: Neighbours>(g: &G, z: &[f64], base: &[bool], flow: &mut Flow) {
    let n = g.len();
    flow.receiver.resize(n, u32::MAX);
    flow.distance.resize(n, 0.0);
    let (receiver, distance) = (&mut flow.receiver, &mut flow.distance);
    let pits = steepest(g, z, base, receiver, distance);
    let mut n_flooded = 0;
    if !pits.is_empty() {
        let scratch = &mut flow.scratch;
        n_flooded = match super::lakes::drain_pits(
            g,
            z,
            base,
            receiver,
            distance,
            &pits,
            &mut scratch.lakes,
        ) {
            Some(n) => n,
            None => drain_pits_by_flood(g, z, base, receiver, distance, pits, scratch),
        };
    }
    receiver
        .par_iter_mut()
        .enumerate()
        .with_min_len(4096)
        .for_each(|(i, r)| {
            if *r == u32::MAX {
                *r = i as u32;
            }
        });
    flow.n_flooded = n_flooded;
    let Flow {
        receiver,
        stack,
        up,
        runs,
        scratch,
        ..
    } = flow;
    match g.as_grid() {
        Some(grid) => stack_grid(grid, receiver, stack, up, runs, scratch),
        None => stack_into(receiver, stack, up, runs, scratch),
    }
}

/// The pits routed by a Priority-Flood over their basins (what [`super::lakes::drain_pits`]
/// declines: ties at a lake's level): raised nodes and their neighbours re-routed on the filled
/// levels, the lakes' nodes without a lower neighbour linked to the node the flood reached
/// them from. Returns the number of raised nodes.
fn drain_pits_by_flood<G: Neighbours>(
    g: &G,
    z: &[f64],
    base: &[bool],
    receiver: &mut [u32],
    distance: &mut [f64],
    pits: Vec<u32>,
    scratch: &mut Scratch,
) -> usize {
    let mut n_flooded = 0;
    let nodes = flood_pit_basins(g, z, receiver, pits, scratch);
    let (filled, parent) = (&scratch.filled, &mut scratch.parent);
    // Steepest descent on the filled levels differs from the first only at raised nodes
    // and their neighbours in the basins: a node outside keeps its receiver (outside, not
    // raised), and its other neighbours only rose. A raised node's neighbours were all
    // reached by the flood, so those in the basins are the ones with a parent (`filled` is
    // current only in the basins and around them).
    for &i in &nodes {
        let i = i as usize;
        if filled[i] > z[i] {
            (receiver[i], distance[i]) = steepest_of(g, filled, base, i);
            g.for_each(i, |j, _| {
                if parent[j] != u32::MAX && filled[j] == z[j] {
                    (receiver[j], distance[j]) = steepest_of(g, filled, base, j);
                }
            });
        }
    }
    for &i in &nodes {
        let i = i as usize;
        if receiver[i] == u32::MAX && parent[i] != u32::MAX {
            link(g, i, parent[i], receiver, distance);
        }
        if filled[i] > z[i] {
            n_flooded += 1;
        }
        parent[i] = u32::MAX;
        scratch.closed[i] = true;
    }
    n_flooded
}

/// Floods the basins of `pits` (steepest descent on `z` by `receiver`) from the nodes around
/// them, everything else closed: the filled levels and parents of the basins' nodes that the
/// Priority-Flood from the base levels finds, in `scratch.filled` and `scratch.parent`. Returns
/// the basins' nodes (the pits, then every node whose receiver is a basin node), which the
/// caller resets in `scratch.closed` and `scratch.parent` when done.
///
/// Why the same: a node outside the basins descends strictly to a base level, so its filled
/// level is its own elevation and it is reached (from its receiver, lower) before the queue
/// comes to its level. The whole flood's queue pops by (level, index), whenever a node entered
/// it; its FIFO holds only raised nodes, all inside the basins. So it pops the basins and their
/// rim (this flood's seeds: the nodes next to a basin, outside it) in the order this flood does,
/// and each basin node is reached from the same neighbour. (A node outside the basins at exactly
/// the level of the node that reaches it goes through the FIFO instead: exact ties of distinct
/// nodes' elevations are where the two could differ.)
///
/// The flood stops once every pit has been reached and its FIFO is empty. A raised node is
/// reached in the same FIFO run as the lowest node of its part below its level, a pit. So no
/// node left is raised, and each has a lower neighbour on the filled levels (its receiver on
/// `z`, whose level would otherwise have reached it): its parent is never read.
fn flood_pit_basins<G: Neighbours>(
    g: &G,
    z: &[f64],
    receiver: &[u32],
    pits: Vec<u32>,
    scratch: &mut Scratch,
) -> Vec<u32> {
    let n = g.len();
    let Scratch {
        closed,
        filled,
        parent,
        rim,
        order,
        ..
    } = scratch;
    if closed.len() != n {
        *closed = vec![true; n];
        *filled = z.to_vec();
        *parent = vec![u32::MAX; n];
    }
    let n_pits = pits.len();
    let mut nodes = pits;
    for &i in &nodes {
        closed[i as usize] = false;
    }
    let mut k = 0;
    while let Some(&x) = nodes.get(k) {
        k += 1;
        filled[x as usize] = z[x as usize];
        g.for_each(x as usize, |j, _| {
            if receiver[j] == x && closed[j] {
                closed[j] = false;
                nodes.push(j as u32);
            }
        });
    }
    rim.clear();
    for &x in &nodes {
        g.for_each(x as usize, |j, _| {
            if closed[j] {
                // The steepest descent after the flood reads the rim's levels, NaN included.
                filled[j] = z[j];
                if !z[j].is_nan() {
                    rim.push(j as u32);
                }
            }
        });
    }
    rim.sort_unstable();
    rim.dedup();
    // Stop once every pit is reached and its FIFO is empty (see above).
    let until = (n_pits, |j: usize| receiver[j] == u32::MAX);
    order.clear();
    let seeds = rim.iter().copied();
    crate::flood::flood_into(g, z, closed, filled, parent, seeds, order, until);
    nodes
}

/// Priority-Flood from the base levels (the crate's one graph flood, `crate::flood`, in f64):
/// filled levels, the node each node was reached from (`u32::MAX` at base levels, NaN and
/// unreached nodes), and the order nodes were reached in.
fn flood<G: Neighbours>(g: &G, z: &[f64], base: &[bool]) -> (Vec<f64>, Vec<u32>, Vec<u32>) {
    let closed: Vec<bool> = z.iter().zip(base).map(|(v, &b)| b || v.is_nan()).collect();
    let seeds = (0..g.len() as u32).filter(|&i| base[i as usize] && !z[i as usize].is_nan());
    let crate::flood::Flooded {
        filled,
        parent,
        order,
    } = crate::flood::flood(g, z, closed, seeds, Vec::with_capacity(g.len()));
    (filled, parent, order)
}

/// Priority-Flood+epsilon in f64: `z` raised where needed so that every node a base level
/// reaches is at least `epsilon` above the node the flood reached it from, so steepest descent
/// drains every node (no pits, no flats) to a base level. NaN nodes stay NaN.
pub fn drain<G: Neighbours>(g: &G, z: &[f64], base: &[bool], epsilon: f64) -> Vec<f64> {
    let (_, parent, order) = flood(g, z, base);
    let mut h = z.to_vec();
    for &c in &order {
        let c = c as usize;
        if parent[c] != u32::MAX {
            h[c] = h[c].max(h[parent[c] as usize] + epsilon);
        }
    }
    h
}

/// The receiver stack: every node after its receiver, depth-first from each root (roots in
/// index order, donors in index order).
pub fn stack(receiver: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut up, mut runs) = (Vec::new(), Vec::new());
    stack_into(
        receiver,
        &mut out,
        &mut up,
        &mut runs,
        &mut Scratch::default(),
    );
    out
}

/// Stack runs of at least this many nodes (whole trees) are solved as one parallel task.
const RUN: usize = 1 << 14;

/// The depth-first walk of both stacks: roots in index order, each node after its receiver;
/// `donors(c, p, todo)` pushes node `c`'s donors (with `p`, `c`'s stack position) in decreasing
/// index order, so they are visited in increasing order. Fills `up` and `runs` (see [`Flow`]).
///
/// The roots are cut into [`WALKS`] ranges of node indices, walked in parallel and joined in
/// order: the same stack as one walk, for any thread count.
fn walk(
    receiver: &[u32],
    walks: &mut Vec<Walk>,
    out: &mut Vec<u32>,
    up: &mut Vec<u32>,
    runs: &mut Vec<usize>,
    donors: impl Fn(usize, u32, &mut Vec<(u32, u32)>) + Sync,
) {
    let n = receiver.len();
    walks.resize_with(WALKS, Walk::default);
    walks.par_iter_mut().enumerate().for_each(|(k, w)| {
        w.out.clear();
        w.up.clear();
        w.runs.clear();
        w.runs.push(0);
        w.todo.clear();
        let first = k * n / WALKS;
        for (root, &r) in receiver[first..(k + 1) * n / WALKS].iter().enumerate() {
            let root = first + root;
            if r as usize != root {
                continue;
            }
            w.todo.push((root as u32, w.out.len() as u32));
            while let Some((c, parent)) = w.todo.pop() {
                let p = w.out.len() as u32;
                w.out.push(c);
                w.up.push(parent);
                donors(c as usize, p, &mut w.todo);
            }
            if w.out.len() - w.runs[w.runs.len() - 1] >= RUN {
                w.runs.push(w.out.len());
            }
        }
        if w.runs[w.runs.len() - 1] != w.out.len() {
            w.runs.push(w.out.len());
        }
    });
    // Join in order: each walk copies its part into place.
    out.resize(n, 0);
    up.resize(n, 0);
    runs.clear();
    runs.push(0);
    let mut parts = Vec::with_capacity(WALKS);
    let (mut out_rest, mut up_rest) = (&mut out[..], &mut up[..]);
    for w in walks.iter() {
        let offset = n - out_rest.len();
        let (o, o_rest) = out_rest.split_at_mut(w.out.len());
        let (u, u_rest) = up_rest.split_at_mut(w.up.len());
        parts.push((w, offset, o, u));
        runs.extend(w.runs[1..].iter().map(|&r| r + offset));
        (out_rest, up_rest) = (o_rest, u_rest);
    }
    parts.into_par_iter().for_each(|(w, offset, o, u)| {
        o.copy_from_slice(&w.out);
        for (u, &local) in u.iter_mut().zip(&w.up) {
            *u = local + offset as u32;
        }
    });
}

/// The number of root ranges [`walk`] walks in parallel.
const WALKS: usize = 16;

/// One root range's walk (see [`walk`]), its buffers kept between routings.
#[derive(Clone, Debug, Default, PartialEq)]
struct Walk {
    /// Nodes to visit, each with its receiver's stack position.
    todo: Vec<(u32, u32)>,
    out: Vec<u32>,
    up: Vec<u32>,
    runs: Vec<usize>,
}

fn stack_into(
    receiver: &[u32],
    out: &mut Vec<u32>,
    up: &mut Vec<u32>,
    runs: &mut Vec<usize>,
    scratch: &mut Scratch,
) {
    let n = receiver.len();
    let Scratch {
        start,
        donors,
        walks,
        ..
    } = scratch;
    start.clear();
    start.resize(n + 1, 0);
    for (i, &r) in receiver.iter().enumerate() {
        if r as usize != i {
            start[r as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    donors.clear();
    donors.resize(start[n] as usize, 0);
    // Fill each list from its end: `start[r + 1]` counts down to `start[r]`.
    for (i, &r) in receiver.iter().enumerate().rev() {
        if r as usize != i {
            start[r as usize + 1] -= 1;
            donors[start[r as usize + 1] as usize] = i as u32;
        }
    }
    // Now `start[r + 1]` is where r's list begins; its end is the next list's beginning.
    walk(receiver, walks, out, up, runs, |c, p, todo| {
        let end = if c + 2 <= n {
            start[c + 2]
        } else {
            donors.len() as u32
        };
        todo.extend(
            donors[start[c + 1] as usize..end as usize]
                .iter()
                .rev()
                .map(|&d| (d, p)),
        );
    });
}

/// [`stack_into`] on a raster, where a node's donors are among its eight neighbours: each
/// node's donors are found by looking at its neighbours (rows in parallel, no counting sort),
/// then the same depth-first walk, donors in index order, so the same stack.
fn stack_grid(
    g: &Grid,
    receiver: &[u32],
    out: &mut Vec<u32>,
    up: &mut Vec<u32>,
    runs: &mut Vec<usize>,
    scratch: &mut Scratch,
) {
    let (rows, cols) = (g.rows, g.cols);
    let Scratch { mask, walks, .. } = scratch;
    mask.clear();
    mask.resize(receiver.len(), 0);
    if cols > 0 {
        let step = BY_INDEX.map(|(dr, dc)| dr * cols as isize + dc);
        mask.par_chunks_mut(cols)
            .enumerate()
            .with_min_len((4096 / cols).max(1))
            .for_each(|(r, row)| {
                for (c, m) in row.iter_mut().enumerate() {
                    let i = r * cols + c;
                    let mut bits = 0u8;
                    if r > 0 && r + 1 < rows && c > 0 && c + 1 < cols {
                        for (k, s) in step.iter().enumerate() {
                            let j = i.wrapping_add_signed(*s);
                            bits |= u8::from(receiver[j] as usize == i) << k;
                        }
                    } else {
                        for (k, &(dr, dc)) in BY_INDEX.iter().enumerate() {
                            let (Some(rr), Some(cc)) =
                                (r.checked_add_signed(dr), c.checked_add_signed(dc))
                            else {
                                continue;
                            };
                            if rr < rows && cc < cols {
                                bits |= u8::from(receiver[rr * cols + cc] as usize == i) << k;
                            }
                        }
                    }
                    *m = bits;
                }
            });
    }
    let step = BY_INDEX.map(|(dr, dc)| dr * cols as isize + dc);
    walk(receiver, walks, out, up, runs, |c, p, todo| {
        let mut bits = mask[c];
        while bits != 0 {
            let k = 7 - bits.leading_zeros() as usize;
            bits &= !(1 << k);
            todo.push((c.wrapping_add_signed(step[k]) as u32, p));
        }
    });
}

/// A raster seen only through `for_each`, so the kernels take their generic paths (tests
/// compare them with the raster paths).
#[cfg(test)]
pub(super) struct Plain(pub(super) Grid);

#[cfg(test)]
impl Neighbours for Plain {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn for_each(&self, i: usize, f: impl FnMut(usize, f64)) {
        self.0.for_each(i, f)
    }
    fn degree(&self, i: usize) -> usize {
        self.0.degree(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pit_drains_through_its_spill_and_the_stack_is_downstream_first() {
        // A 5x5 grid, a pit at the centre, the rim lowest on the west.
        let z = [
            9.0, 9.0, 9.0, 9.0, 9.0, //
            9.0, 5.0, 5.0, 5.0, 9.0, //
            4.0, 4.5, 1.0, 5.0, 9.0, //
            9.0, 5.0, 5.0, 5.0, 9.0, //
            9.0, 9.0, 9.0, 9.0, 9.0,
        ];
        let g = Grid {
            rows: 5,
            cols: 5,
            dx: 1.0,
            dy: 1.0,
        };
        let base = g.border();
        let flow = route(&g, &z, &base, &[1.0; 25]);
        // The pit drains to (2, 1), which drains west to the border.
        assert_eq!(flow.receiver[12], 11);
        assert_eq!(flow.receiver[11], 10);
        assert_eq!(flow.n_flooded, 1);
        let mut pos = [0; 25];
        for (p, &i) in flow.stack.iter().enumerate() {
            pos[i as usize] = p;
        }
        for i in 0..25 {
            assert!(pos[flow.receiver[i] as usize] <= pos[i]);
        }
        // (2, 1) takes itself, the pit and the five cells east of it; (1, 1) and (3, 1) drain
        // straight to the border cell (2, 0), so the whole interior leaves there.
        assert_eq!(flow.area[11], 7.0);
        assert_eq!(flow.area[10], 10.0);
    }

    /// The routing with the whole graph's Priority-Flood, as before the flood kept to the pits'
    /// basins: receivers (roots their own), distances, raised nodes.
    fn route_with_the_whole_flood<G: Neighbours>(
        g: &G,
        z: &[f64],
        base: &[bool],
    ) -> (Vec<u32>, Vec<f64>, usize) {
        let n = g.len();
        let (mut receiver, mut distance) = (vec![0; n], vec![0.0; n]);
        let mut n_flooded = 0;
        let (filled, parent, _) = flood(g, z, base);
        steepest(g, &filled, base, &mut receiver, &mut distance);
        for i in 0..n {
            if receiver[i] == u32::MAX && parent[i] != u32::MAX {
                receiver[i] = parent[i];
                g.for_each(i, |j, dj| {
                    if j == parent[i] as usize {
                        distance[i] = dj;
                    }
                });
            }
            n_flooded += usize::from(filled[i] > z[i]);
            if receiver[i] == u32::MAX {
                receiver[i] = i as u32;
            }
        }
        (receiver, distance, n_flooded)
    }

    /// Steepest descent, then the pits as `route_trees` routes them, by the lakes grown from the
    /// pits or (`by_flood`) by the Priority-Flood over their basins: receivers (roots their own),
    /// distances, raised nodes, or `None` when the lakes decline.
    fn route_pits<G: Neighbours>(
        g: &G,
        z: &[f64],
        base: &[bool],
        by_flood: bool,
        scratch: &mut Scratch,
    ) -> Option<(Vec<u32>, Vec<f64>, usize)> {
        let n = g.len();
        let (mut receiver, mut distance) = (vec![0; n], vec![0.0; n]);
        let pits = steepest(g, z, base, &mut receiver, &mut distance);
        let n_flooded = if by_flood {
            drain_pits_by_flood(g, z, base, &mut receiver, &mut distance, pits, scratch)
        } else {
            let lakes = &mut scratch.lakes;
            super::super::lakes::drain_pits(g, z, base, &mut receiver, &mut distance, &pits, lakes)?
        };
        for (i, r) in receiver.iter_mut().enumerate() {
            if *r == u32::MAX {
                *r = i as u32;
            }
        }
        Some((receiver, distance, n_flooded))
    }

    /// Both ways of routing the pits, against the whole graph's flood. The lakes take every
    /// surface here (continuous levels: no ties), and the basins' flood is checked on the same.
    #[test]
    fn the_pit_basins_flood_as_the_whole_graph_does() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state = orogen_world::seed::splitmix64(state);
            state
        };
        let (mut raised, mut pits) = (0, 0);
        for (rows, cols) in [(3, 4), (17, 23), (48, 61), (90, 90)] {
            // One routing's buffers kept across the surfaces, as `evolve` keeps them.
            let mut kept = Flow::default();
            let mut scratch = Scratch::default();
            for round in 0..6 {
                let g = Grid {
                    rows,
                    cols,
                    dx: 1.0,
                    dy: 1.0 + (round % 2) as f64,
                };
                // A tilted surface with noise (many small depressions), NaN walls cutting off
                // pieces no border reaches; continuous levels, as erosion makes them.
                let z: Vec<f64> = (0..rows * cols)
                    .map(|i| {
                        let (r, c) = (i / cols, i % cols);
                        let noise = (next() >> 11) as f64 / (1u64 << 53) as f64;
                        if round >= 4 && (c == cols / 3 || r == rows / 2) && next() % 4 != 0 {
                            f64::NAN
                        } else {
                            0.05 * (r + c) as f64 + 3.0 * noise
                        }
                    })
                    .collect();
                let mut base = g.border();
                if round % 3 == 2 {
                    // Base levels inside too (a lake of sea), not only the border.
                    base[(rows / 2) * cols + cols / 2] = true;
                }
                let (receiver, distance, n_flooded) = route_with_the_whole_flood(&g, &z, &base);
                let fast = route(&g, &z, &base, &vec![1.0; rows * cols]);
                let plain = route(&Plain(g), &z, &base, &vec![1.0; rows * cols]);
                route_into(&Plain(g), &z, &base, &vec![1.0; rows * cols], &mut kept);
                for flow in [&fast, &plain, &kept] {
                    assert_eq!(flow.receiver, receiver, "{rows}x{cols} round {round}");
                    assert_eq!(flow.distance, distance, "{rows}x{cols} round {round}");
                    assert_eq!(flow.n_flooded, n_flooded, "{rows}x{cols} round {round}");
                }
                let whole = (receiver, distance, n_flooded);
                for by_flood in [false, true] {
                    // The same buffers across surfaces, as `evolve` keeps them.
                    let routed = route_pits(&Plain(g), &z, &base, by_flood, &mut scratch);
                    let routed = routed.expect("the lakes declined a surface without ties");
                    assert_eq!(routed, whole, "{rows}x{cols} round {round}, {by_flood}");
                }
                raised += n_flooded;
                pits += (0..rows * cols)
                    .filter(|&i| {
                        !base[i] && !z[i].is_nan() && {
                            let mut low = false;
                            g.for_each(i, |j, _| low |= z[j] < z[i]);
                            !low
                        }
                    })
                    .count();
            }
        }
        // The surfaces had depressions to fill.
        assert!(pits > 100 && raised > 100, "{pits} pits, {raised} raised");
    }

    #[test]
    fn the_raster_paths_route_as_the_generic_ones() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut flooded, mut declined) = (0, 0);
        for (rows, cols) in [(1, 1), (1, 7), (6, 1), (2, 2), (9, 13), (40, 31), (64, 64)] {
            for _ in 0..4 {
                let g = Grid {
                    rows,
                    cols,
                    dx: 1.0 + (next() % 3) as f64,
                    dy: 1.0 + (next() % 2) as f64,
                };
                // Coarse levels (ties and flats), some NaN, some pits.
                let z: Vec<f64> = (0..rows * cols)
                    .map(|_| match next() % 23 {
                        0 => f64::NAN,
                        k => (k % 6) as f64,
                    })
                    .collect();
                let base = g.border();
                let area = vec![1.0; rows * cols];
                let fast = route(&g, &z, &base, &area);
                let plain = route(&Plain(g), &z, &base, &area);
                assert_eq!(fast.receiver, plain.receiver, "{rows}x{cols}");
                assert_eq!(fast.distance, plain.distance, "{rows}x{cols}");
                assert_eq!(fast.stack, plain.stack, "{rows}x{cols}");
                assert_eq!(fast.area, plain.area, "{rows}x{cols}");
                assert_eq!(fast.n_flooded, plain.n_flooded, "{rows}x{cols}");
                assert_eq!(fast.stack, stack(&fast.receiver));
                flooded += fast.n_flooded;
                let lakes = route_pits(&g, &z, &base, false, &mut Scratch::default());
                declined += usize::from(lakes.is_none());
            }
        }
        assert!(flooded > 0, "no grid had a depression");
        // Ties at the lakes' levels: these routings went through the basins' flood.
        assert!(declined > 0, "the lakes took every surface");
    }

    #[test]
    fn grid_degrees() {
        let g = Grid {
            rows: 3,
            cols: 4,
            dx: 1.0,
            dy: 2.0,
        };
        for i in 0..12 {
            let mut k = 0;
            g.for_each(i, |_, _| k += 1);
            assert_eq!(k, g.degree(i));
        }
        assert_eq!(g.degree(0), 3);
        assert_eq!(g.degree(5), 8);
    }

    /// The diffusion's weights: the neighbours of `for_each`, in its order, each with
    /// `1 / d^2`, on a mesh (held per edge) and on rasters (three a node, borders included).
    #[test]
    fn inverse_square_weights_follow_the_neighbours() {
        fn check<G: Neighbours>(g: &G) {
            for i in 0..g.len() {
                let (mut plain, mut weighted) = (Vec::new(), Vec::new());
                g.for_each(i, |j, d| plain.push((j, 1.0 / (d * d))));
                g.for_each_inv_sq(i, |j, w| weighted.push((j, w)));
                assert_eq!(plain, weighted, "node {i}");
            }
        }
        let mesh = orogen_world::DualMesh::jittered_grid(12, 9, 1.0, 0.75, 0.4, 3);
        let xy = mesh.region_xy.as_slice().unwrap();
        let offsets = mesh.region_neighbors.offsets.as_slice().unwrap();
        let targets = mesh.region_neighbors.values.as_slice().unwrap();
        check(&Mesh::new(offsets, targets, xy, 250.0).unwrap());
        for (rows, cols, dx, dy) in [(1, 1, 1.0, 1.0), (4, 7, 30.0, 40.0), (6, 5, 2.5, 2.5)] {
            check(&Grid { rows, cols, dx, dy });
        }
    }
}
