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
    /// The number of neighbours of node `i`.
    fn degree(&self, i: usize) -> usize;
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

impl Neighbours for Grid {
    fn len(&self) -> usize {
        self.rows * self.cols
    }

    #[inline]
    fn for_each(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let (r, c) = (i / self.cols, i % self.cols);
        let diag = (self.dx * self.dx + self.dy * self.dy).sqrt();
        if r > 0 && c > 0 && r + 1 < self.rows && c + 1 < self.cols {
            // Inside: all eight, in D8 order, no checks.
            let w = self.cols;
            f(i - 1, self.dx);
            f(i - w - 1, diag);
            f(i - w, self.dy);
            f(i - w + 1, diag);
            f(i + 1, self.dx);
            f(i + w + 1, diag);
            f(i + w, self.dy);
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
            let d = match (dc != 0, dr != 0) {
                (true, true) => diag,
                (true, false) => self.dx,
                _ => self.dy,
            };
            f(rr * self.cols + cc, d);
        }
    }

    fn degree(&self, i: usize) -> usize {
        let (r, c) = (i / self.cols, i % self.cols);
        let span = |x: usize, n: usize| 1 + usize::from(x > 0) + usize::from(x + 1 < n);
        span(r, self.rows) * span(c, self.cols) - 1
    }
}

/// A graph in CSR form (`targets[offsets[i]..offsets[i + 1]]` are the neighbours of `i`)
/// with the length of every edge.
#[derive(Clone, Debug)]
pub struct Mesh<'a> {
    offsets: &'a [u32],
    targets: &'a [u32],
    length: Vec<f64>,
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
            .collect();
        Ok(Mesh {
            offsets,
            targets,
            length,
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
    /// Buffers of the stack's donor lists, kept between routings.
    scratch: Scratch,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Scratch {
    start: Vec<u32>,
    donors: Vec<u32>,
    todo: Vec<u32>,
}

/// Steepest descent on `z`: the neighbour with the largest `(z_i - z_j) / d` > 0 (ties to the
/// first neighbour), or none (`u32::MAX`). Base levels and NaN nodes get none.
fn steepest<G: Neighbours>(
    g: &G,
    z: &[f64],
    base: &[bool],
    receiver: &mut [u32],
    dist: &mut [f64],
) {
    receiver
        .par_iter_mut()
        .zip(dist.par_iter_mut())
        .enumerate()
        .with_min_len(1024)
        .for_each(|(i, (r, d))| {
            *r = u32::MAX;
            *d = 0.0;
            let zi = z[i];
            if base[i] || zi.is_nan() {
                return;
            }
            let mut best = 0.0;
            g.for_each(i, |j, dj| {
                let s = (zi - z[j]) / dj;
                if s > best {
                    best = s;
                    *r = j as u32;
                    *d = dj;
                }
            });
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
    let n = g.len();
    flow.receiver.resize(n, u32::MAX);
    flow.distance.resize(n, 0.0);
    let (receiver, distance) = (&mut flow.receiver, &mut flow.distance);
    steepest(g, z, base, receiver, distance);
    let has_pit = (0..n)
        .into_par_iter()
        .any(|i| receiver[i] == u32::MAX && !base[i] && !z[i].is_nan());
    let mut n_flooded = 0;
    if has_pit {
        let (filled, parent, _) = flood(g, z, base);
        steepest(g, &filled, base, receiver, distance);
        for i in 0..n {
            if receiver[i] == u32::MAX && parent[i] != u32::MAX {
                receiver[i] = parent[i];
                let p = parent[i] as usize;
                g.for_each(i, |j, dj| {
                    if j == p {
                        distance[i] = dj;
                    }
                });
            }
            if filled[i] > z[i] {
                n_flooded += 1;
            }
        }
    }
    for (i, r) in receiver.iter_mut().enumerate() {
        if *r == u32::MAX {
            *r = i as u32;
        }
    }
    stack_into(receiver, &mut flow.stack, &mut flow.scratch);
    flow.area.clear();
    flow.area.extend_from_slice(cell_area);
    for &i in flow.stack.iter().rev() {
        let r = receiver[i as usize] as usize;
        if r != i as usize {
            flow.area[r] += flow.area[i as usize];
        }
    }
    flow.n_flooded = n_flooded;
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
    stack_into(receiver, &mut out, &mut Scratch::default());
    out
}

fn stack_into(receiver: &[u32], out: &mut Vec<u32>, scratch: &mut Scratch) {
    let n = receiver.len();
    let Scratch {
        start,
        donors,
        todo,
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
    out.clear();
    todo.clear();
    for (root, &r) in receiver.iter().enumerate() {
        if r as usize != root {
            continue;
        }
        todo.push(root as u32);
        while let Some(c) = todo.pop() {
            out.push(c);
            let c = c as usize;
            let end = if c + 2 <= n {
                start[c + 2]
            } else {
                donors.len() as u32
            };
            todo.extend(donors[start[c + 1] as usize..end as usize].iter().rev());
        }
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
}
