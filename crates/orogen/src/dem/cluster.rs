//! The tiled fill as a timely-dataflow program, one or many processes on one or many hosts.
//!
//! `orogen dem fill IN OUT.npy -- -n N -p I -h HOSTFILE` is process `I` of `N` (timely's own
//! arguments: `-w` threads per process, `-n` processes, `-p` this process, `-h` a file of
//! `host:port` lines); `orogen dem fill --workers N IN OUT.npy` starts N such processes on this
//! host. Tile `t` belongs to worker `t % workers`. Each worker reads its tiles (with their
//! one-cell ring) from the input, floods them ([`FillTile::flood`]) and sends their summaries
//! to worker 0, which runs the global step ([`fill_levels`]) and sends each tile's levels back
//! to its owner; each worker then finishes its tiles and writes them into the shared output
//! (a `.npy` under a temporary name beside the final one); when every worker is done, worker 0
//! renames it into place. The bytes are those of the single-grid fill.

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use ndarray::{Array2, ArrayView2};
use ndarray_npy::npy::header::Header;
use orogen_export::{atomic, npy};
use orogen_hydrology::raster::d8_receivers;
use orogen_hydrology::raster::tiled::accumulate::{AccSummary, AccTile, acc_inflows};
use orogen_hydrology::raster::tiled::fill::{FillSummary, FillTile, fill_levels, halo_nodata};
use orogen_hydrology::raster::tiled::{self, Tiling};
use rayon::prelude::*;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

use super::{DemError, Dtype, Summary};

/// A float32 C-order `.npy` opened for reading windows of rows and columns.
#[derive(Debug)]
pub struct NpyGrid {
    file: File,
    offset: u64,
    /// Rows of the grid (the array's first axis).
    pub rows: usize,
    /// Columns of the grid (the array's second axis).
    pub cols: usize,
}

impl NpyGrid {
    /// Opens `path`, checking its header and size (only little-endian float32, C order).
    pub fn open(path: &Path) -> Result<Self, DemError> {
        let input = |m: String| DemError::input(path, m);
        let mut file = File::open(path).map_err(|e| input(e.to_string()))?;
        let len = file.metadata().map_err(|e| input(e.to_string()))?.len();
        let mut prefix = [0u8; 12];
        let n = file.read(&mut prefix).map_err(|e| input(e.to_string()))?;
        let prefix = &prefix[..n];
        if prefix.len() < 12 || !prefix.starts_with(b"\x93NUMPY") {
            return Err(input(
                "the distributed fill and accumulation read a float32 .npy (C order): this is not a .npy".into(),
            ));
        }
        let (len_bytes, start) = if prefix[6] == 1 { (2, 8) } else { (4, 8) };
        let header_len = prefix[start..start + len_bytes]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let offset = start as u64 + len_bytes as u64 + header_len;
        if offset > len {
            return Err(input(format!(
                ".npy header claims {header_len} bytes but the file has {len}"
            )));
        }
        let mut head = vec![0u8; offset as usize];
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_exact(&mut head))
            .map_err(|e| input(e.to_string()))?;
        orogen_world::check_npy_header(&head).map_err(input)?;
        let header = Header::from_reader(&mut &head[..])
            .map_err(|e| input(format!("bad .npy header: {e}")))?;
        let descr = header.type_descriptor.to_string();
        if descr != "'<f4'" || header.layout.is_fortran() || header.shape.len() != 2 {
            return Err(input(format!(
                "the distributed fill and accumulation read a 2-D little-endian float32 .npy in C order, not {descr} {:?}{}",
                header.shape,
                if header.layout.is_fortran() {
                    " (Fortran order)"
                } else {
                    ""
                }
            )));
        }
        let (rows, cols) = (header.shape[0], header.shape[1]);
        let needed = rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(4))
            .map(|n| n as u64 + offset);
        if needed != Some(len) {
            return Err(input(format!(
                "shape ({rows}, {cols}) of '<f4' needs {} bytes but the file has {len} (truncated?)",
                needed.map_or_else(|| "too many".to_owned(), |n| n.to_string())
            )));
        }
        Ok(NpyGrid {
            file,
            offset,
            rows,
            cols,
        })
    }

    /// The cells `rows x cols` from `(r0, c0)` (which must be on the grid).
    pub fn window(
        &self,
        (r0, c0): (usize, usize),
        (h, w): (usize, usize),
    ) -> std::io::Result<Array2<f32>> {
        let mut out = vec![0f32; h * w];
        if w > 0 {
            // Rows read and decoded by several threads at once.
            out.par_chunks_mut(w).enumerate().try_for_each_init(
                || vec![0u8; w * 4],
                |buf, (i, row)| {
                    let at = self.offset + (((r0 + i) * self.cols + c0) * 4) as u64;
                    self.file.read_exact_at(buf, at)?;
                    for (z, b) in row.iter_mut().zip(buf.chunks_exact(4)) {
                        *z = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                    Ok::<_, std::io::Error>(())
                },
            )?;
        }
        Ok(Array2::from_shape_vec((h, w), out).expect("h * w values"))
    }
}

/// The `.npy` header of a float32 C-order `rows x cols` array, as `ndarray-npy` writes it.
/// Messages a timely operator collects for the worker to read after the step.
type Shared<T> = Rc<RefCell<Vec<T>>>;

/// The `.npy` header of a C-order `rows x cols` array of `T`, as `ndarray_npy::write_npy`
/// writes it (so the output is the single-process run's bytes).
fn npy_header<T: ndarray_npy::WritableElement>(rows: usize, cols: usize) -> Vec<u8> {
    Header {
        type_descriptor: T::type_descriptor(),
        layout: ndarray_npy::npy::header::Layout::Standard,
        shape: vec![rows, cols],
    }
    .to_bytes()
    .expect("a 2-D header formats")
}

/// The temporary name every process writes the output under.
fn cluster_temp(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.tmp-cluster"))
}

/// One process of a distributed command: input, output, tile side, connection timeout,
/// timely's arguments and whether to stream (keep no tile between the rounds, computing each
/// again to finish it); the summary on process 0.
pub type Process =
    fn(&Path, &Path, usize, Duration, &[String], bool) -> Result<Option<Summary>, DemError>;

/// One process of the distributed fill; `timely_args` are timely's own (`-n`, `-p`, `-h`,
/// `-w`). Process 0 returns the summary once the output is in place.
pub fn fill_process(
    input: &Path,
    output: &Path,
    tile: usize,
    connect: Duration,
    timely_args: &[String],
    stream: bool,
) -> Result<Option<Summary>, DemError> {
    let (job, grid) = Job::new(input, output, tile, connect, timely_args, "fill", stream)?;
    let tiling = job.tiling;
    job.run(
        |a, b| a + b,
        // Flood the tile (read with its one-cell ring); keep it.
        move |t| {
            let (window, (wr0, wc0)) = read_ringed(&grid, &tiling, t)?;
            let (r0, c0, h, w) = tiling.bounds(t);
            let halo = halo_nodata(window.view(), (wr0, wc0), &tiling, t);
            let mut cells = tiled::window(window.view(), (r0 - wr0, c0 - wc0), (h, w)).to_owned();
            drop(window);
            let tile = FillTile::flood(cells.view_mut(), &halo);
            Ok((tile.summary(cells.view()), (cells, tile)))
        },
        move |tiling, all: Vec<FillSummary>| Ok(fill_levels(tiling, &all)),
        // Finish the tile with its levels: the cells it raised, and its bytes.
        move |_, (mut cells, tile): (Array2<f32>, FillTile), level| {
            let raised = tile.finish(cells.view_mut(), &level);
            Ok((raised as f64, cells))
        },
    )
}

/// One process of the distributed accumulation of a DEM (float32 `.npy`; D8 receivers from
/// the DEM, as `orogen dem accumulate` computes them): each tile's D8 codes (from the tile and
/// its one-cell ring) and its own flow, the perimeter summaries to worker 0 for the global
/// step (`acc_inflows`), each tile finished with its inflows and written as float64 (NaN on
/// NoData). Process 0 returns the summary (the largest accumulation) once the output is in
/// place. The bytes are those of the single-process accumulation.
pub fn accumulate_process(
    input: &Path,
    output: &Path,
    tile: usize,
    connect: Duration,
    timely_args: &[String],
    stream: bool,
) -> Result<Option<Summary>, DemError> {
    let (job, grid) = Job::new(
        input,
        output,
        tile,
        connect,
        timely_args,
        "accumulate",
        stream,
    )?;
    let tiling = job.tiling;
    job.run(
        f64::max,
        move |t| {
            let (codes, nodata) = tile_codes(&grid, &tiling, t)?;
            let (r0, c0, _, _) = tiling.bounds(t);
            let local = AccTile::local(codes.view(), (r0, c0), (tiling.rows, tiling.cols))
                .map_err(|e| format!("tile {t}: {e}"))?;
            Ok((local.summary(codes.view()), (codes, nodata, local)))
        },
        move |tiling, all: Vec<AccSummary>| acc_inflows(tiling, &all).map_err(|e| e.to_string()),
        move |_, (codes, nodata, local): (Array2<i8>, Vec<bool>, AccTile), inflow: Vec<u64>| {
            let mut acc = Array2::<f64>::zeros(codes.dim());
            local.finish(codes.view(), &inflow, acc.view_mut());
            for (a, &nd) in acc.iter_mut().zip(&nodata) {
                if nd {
                    *a = f64::NAN;
                }
            }
            let largest = acc
                .iter()
                .copied()
                .filter(|a| !a.is_nan())
                .fold(0.0, f64::max);
            Ok((largest, acc))
        },
    )
}

/// One process of the distributed D8 of a DEM (float32 `.npy` in, int8 `.npy` out, the codes
/// of `orogen dem d8`): each tile's codes from the tile and its one-cell ring, written in place;
/// no global step. Process 0 returns the summary (cells with a receiver).
pub fn d8_process(
    input: &Path,
    output: &Path,
    tile: usize,
    connect: Duration,
    timely_args: &[String],
    stream: bool,
) -> Result<Option<Summary>, DemError> {
    let (job, grid) = Job::new(input, output, tile, connect, timely_args, "d8", stream)?;
    let tiling = job.tiling;
    job.run(
        |a, b| a + b,
        move |t| Ok(((), tile_codes(&grid, &tiling, t)?.0)),
        |_, all: Vec<()>| Ok(all),
        |_, codes: Array2<i8>, ()| Ok((codes.iter().filter(|&&k| k != 0).count() as f64, codes)),
    )
}

/// The memory a streamed run needs beyond its tiles: the program itself (about 9 MiB here,
/// measured), timely's threads and buffers.
const STREAM_BASE: usize = 16 << 20;

/// The tile side of a streamed run of a `rows x cols` grid under `limit` bytes, with `workers`
/// workers each holding one tile of `bytes_per_cell` bytes a cell (with its ring) at a time,
/// and the perimeters' summaries and levels on worker 0 (at most 32 bytes a perimeter cell,
/// copies included): the largest side up to `cap` that fits, down to 16. When none fits, the
/// error is the least memory any side needs.
pub fn stream_tile(
    (rows, cols): (usize, usize),
    bytes_per_cell: usize,
    workers: usize,
    limit: usize,
    cap: usize,
) -> Result<usize, usize> {
    let need = |side: usize| {
        let tile = (side.min(rows) + 2) * (side.min(cols) + 2);
        let perimeters = 32 * 4 * rows.div_ceil(side) * cols.div_ceil(side) * side;
        STREAM_BASE + perimeters + workers * bytes_per_cell * tile
    };
    let mut side = cap.clamp(16, 16384);
    let mut least = usize::MAX;
    loop {
        let n = need(side);
        if n <= limit {
            return Ok(side);
        }
        least = least.min(n);
        if side == 16 {
            return Err(least);
        }
        side = (side * 7 / 8).max(16);
    }
}

/// This process's peak resident memory in bytes (`VmHWM`; Linux only).
pub fn peak_memory() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// Runs `process` streamed in this process, on `threads` timely workers, with tiles sized by
/// [`stream_tile`] for `limit` (at most `tile`): the tiles are read from `input` and written to
/// `output` one at a time per worker, so the run's memory stays under `limit` whatever the
/// grid's size. `grid` is the input, opened by the caller to decide. Returns the summary and
/// the tile side used.
pub fn streamed(
    process: Process,
    what: &str,
    (input, output): (&Path, &Path),
    grid: NpyGrid,
    bytes_per_cell: usize,
    (tile, threads): (usize, usize),
    limit: usize,
) -> Result<(Summary, usize), DemError> {
    let side = stream_tile(
        (grid.rows, grid.cols),
        bytes_per_cell,
        threads,
        limit,
        tile,
    )
    .map_err(|need| {
        DemError::input(
            Path::new("--memory"),
            format!(
                "{} MiB is too little to stream this {} x {} grid: the {what} needs at least {} MiB (range: {}M..)",
                limit >> 20,
                grid.rows,
                grid.cols,
                need.div_ceil(1 << 20),
                need.div_ceil(1 << 20)
            ),
        )
    })?;
    drop(grid);
    let args = ["-w".to_owned(), threads.to_string()];
    let summary =
        process(input, output, side, Duration::from_secs(60), &args, true)?.ok_or_else(|| {
            DemError::Export(orogen_export::ExportError::Encode {
                what: format!("streamed {what}"),
                message: "no summary from worker 0".into(),
            })
        })?;
    Ok((summary, side))
}

/// The D8 codes of tile `t` of the DEM `grid` (from the tile and its one-cell ring, as
/// `d8_tile` computes them) and which of its cells are NoData.
fn tile_codes(
    grid: &NpyGrid,
    tiling: &Tiling,
    t: usize,
) -> Result<(Array2<i8>, Vec<bool>), String> {
    let (window, (wr0, wc0)) = read_ringed(grid, tiling, t)?;
    let (r0, c0, h, w) = tiling.bounds(t);
    let codes = d8_receivers(window.view());
    // A window cell on the window's edge but not the grid's gets 0 from the window alone;
    // tile cells never sit there (the ring surrounds them).
    let codes = tiled::window(codes.view(), (r0 - wr0, c0 - wc0), (h, w)).to_owned();
    let nodata = tiled::window(window.view(), (r0 - wr0, c0 - wc0), (h, w))
        .iter()
        .map(|z| z.is_nan())
        .collect();
    Ok((codes, nodata))
}

/// Reads tile `t` of the float32 `.npy` `grid` with its one-cell ring (cut at the grid's
/// edge); returns the window and its first cell.
fn read_ringed(
    grid: &NpyGrid,
    tiling: &Tiling,
    t: usize,
) -> Result<(Array2<f32>, (usize, usize)), String> {
    let (r0, c0, h, w) = tiling.bounds(t);
    let (wr0, wc0) = (r0.saturating_sub(1), c0.saturating_sub(1));
    let (wr1, wc1) = ((r0 + h + 1).min(tiling.rows), (c0 + w + 1).min(tiling.cols));
    let window = grid
        .window((wr0, wc0), (wr1 - wr0, wc1 - wc0))
        .map_err(|e| format!("reading tile {t}: {e}"))?;
    Ok((window, (wr0, wc0)))
}

/// A tiled kernel as a timely-dataflow program, one process of a cluster: the grid, its tiles
/// and the output under its temporary name, sized for the whole array.
struct Job {
    what: &'static str,
    config: timely::Config,
    /// How long the processes may take to connect before this one gives up.
    connect: Duration,
    output: PathBuf,
    tmp: PathBuf,
    rows: usize,
    cols: usize,
    tiling: Tiling,
    /// Keep no tile between the rounds: each is computed again (`local`) to be finished.
    stream: bool,
}

impl Job {
    /// Checks the arguments, the input and the output's format before anything runs; returns
    /// the job and the opened input (one handle, shared by this process's worker threads).
    fn new(
        input: &Path,
        output: &Path,
        tile: usize,
        connect: Duration,
        timely_args: &[String],
        what: &'static str,
        stream: bool,
    ) -> Result<(Job, NpyGrid), DemError> {
        if super::output_format(output)? != super::Format::Npy {
            return Err(DemError::input(
                output,
                format!("the distributed {what} writes .npy"),
            ));
        }
        let config = timely::Config::from_args(
            std::iter::once("orogen".to_owned()).chain(timely_args.iter().cloned()),
        )
        .map_err(|e| DemError::input(Path::new("timely arguments"), e))?;
        let grid = NpyGrid::open(input)?;
        let tiling =
            Tiling::new(grid.rows, grid.cols, (tile, tile)).map_err(super::raster_err(input))?;
        let job = Job {
            what,
            config,
            connect,
            output: output.to_owned(),
            tmp: cluster_temp(output),
            rows: grid.rows,
            cols: grid.cols,
            tiling,
            stream,
        };
        Ok((job, grid))
    }

    /// Runs the three rounds. Tile `t` belongs to worker `t % workers`, which runs `local(t)`
    /// (a summary for the global step and what it keeps) and sends the summary to worker 0;
    /// worker 0 runs `global` on all summaries (in tile order) and sends each tile its share;
    /// the owner runs `finish` (a number for the run's summary and the tile's cells), writes
    /// the cells at their place in the output and syncs it; worker 0 then writes the `.npy`
    /// header, waits for every worker and renames the output into place. Returns, on process 0,
    /// the summary: `finish`'s numbers folded by `merge` (a sum of counts, or the largest).
    /// When streaming, what `local` keeps is dropped at once, and `local` runs again in the
    /// third round to give it back: a worker holds one tile at a time.
    fn run<S, L, K, T>(
        self,
        merge: fn(f64, f64) -> f64,
        local: impl Fn(usize) -> Result<(S, K), String> + Send + Sync + 'static,
        global: impl Fn(&Tiling, Vec<S>) -> Result<Vec<L>, String> + Send + Sync + 'static,
        finish: impl Fn(usize, K, L) -> Result<(f64, Array2<T>), String> + Send + Sync + 'static,
    ) -> Result<Option<Summary>, DemError>
    where
        S: timely::ExchangeData + Clone,
        L: timely::ExchangeData + Clone,
        T: OutCell,
    {
        let Job {
            what,
            config,
            connect,
            output,
            tmp,
            rows,
            cols,
            tiling,
            stream,
        } = self;
        let header = npy_header::<T>(rows, cols);
        let total = header.len() as u64 + (rows * cols * std::mem::size_of::<T>()) as u64;
        {
            let out = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&tmp)
                .map_err(|e| {
                    DemError::input(&output, format!("cannot create {}: {e}", tmp.display()))
                })?;
            out.set_len(total)
                .map_err(|e| DemError::input(&output, e.to_string()))?;
        }
        // timely connects the processes before any worker runs, and waits for a process that
        // never comes: a watchdog gives up after `connect`, removing the temporary output.
        let (connected, wait) = std::sync::mpsc::channel::<()>();
        {
            let tmp = tmp.clone();
            std::thread::spawn(move || {
                if wait.recv_timeout(connect) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                    let _ = std::fs::remove_file(&tmp);
                    eprintln!(
                        "error: distributed {what}: the processes of the cluster did not all connect within {} s (--connect-timeout): check the hosts file and that every process was started",
                        connect.as_secs()
                    );
                    std::process::exit(1);
                }
            });
        }
        // A peer that stops after connecting (killed, out of memory, its host gone) makes
        // timely's network threads panic with "timely communication error: ...". That is a
        // failed peer, not a bug of this process: one line, the temporary output removed, exit 1.
        let previous: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> =
            Arc::from(std::panic::take_hook());
        {
            let (previous, tmp) = (Arc::clone(&previous), tmp.clone());
            std::panic::set_hook(Box::new(move |info| {
                let message = crate::panic_message(info).unwrap_or_default();
                if message.starts_with("timely communication error") {
                    let _ = std::fs::remove_file(&tmp);
                    eprintln!(
                        "error: distributed {what}: a process of the cluster stopped or its connection broke ({message}); nothing written"
                    );
                    std::process::exit(1);
                }
                previous(info);
            }));
        }
        let result = {
            let tmp = tmp.clone();
            (move || -> Result<Option<f64>, DemError> {
                let guards = timely::execute(config, move |worker| -> Result<Option<f64>, String> {
                let _ = connected.send(());
                let index = worker.index();
                let peers = worker.peers();
                let out = OpenOptions::new()
                    .write(true)
                    .open(&tmp)
                    .map_err(|e| format!("{}: {e}", tmp.display()))?;
                let summaries: Shared<(usize, S)> = Rc::default();
                let shares: Shared<(usize, L)> = Rc::default();
                let done: Rc<RefCell<(usize, f64)>> = Rc::default();
                let mut summary_in = InputHandle::new();
                let mut share_in = InputHandle::new();
                let mut done_in = InputHandle::new();
                let probe = ProbeHandle::new();
                worker.dataflow::<u64, _, _>(|scope| {
                    let got = Rc::clone(&summaries);
                    scope
                        .input_from(&mut summary_in)
                        .container::<Vec<_>>()
                        .exchange(|_: &(usize, S)| 0)
                        .inspect(move |x| got.borrow_mut().push(x.clone()))
                        .probe_with(&probe);
                    let got = Rc::clone(&shares);
                    scope
                        .input_from(&mut share_in)
                        .container::<Vec<_>>()
                        .exchange(move |x: &(usize, L)| (x.0 % peers) as u64)
                        .inspect(move |x| got.borrow_mut().push(x.clone()))
                        .probe_with(&probe);
                    let got = Rc::clone(&done);
                    scope
                        .input_from(&mut done_in)
                        .container::<Vec<_>>()
                        .exchange(|_: &f64| 0)
                        .inspect(move |x| {
                            let mut g = got.borrow_mut();
                            g.1 = if g.0 == 0 { *x } else { merge(g.1, *x) };
                            g.0 += 1;
                        })
                        .probe_with(&probe);
                });
                // Each round advances every input and runs until all workers' data for it arrived.
                macro_rules! round {
                    ($r:expr) => {{
                        summary_in.advance_to($r + 1);
                        share_in.advance_to($r + 1);
                        done_in.advance_to($r + 1);
                        while probe.less_than(&($r + 1)) {
                            worker.step();
                        }
                    }};
                }
                // Round 1: this worker's tiles on their own; their summaries to worker 0.
                let mine: Vec<usize> = (index..tiling.n_tiles()).step_by(peers).collect();
                let mut kept = Vec::with_capacity(mine.len());
                for &t in &mine {
                    let (summary, keep) = local(t)?;
                    summary_in.send((t, summary));
                    kept.push((t, (!stream).then_some(keep)));
                }
                round!(0);
                // Round 2 (worker 0): the global step, each tile's share to its owner.
                if index == 0 {
                    let mut got = std::mem::take(&mut *summaries.borrow_mut());
                    got.sort_by_key(|(t, _)| *t);
                    if got.len() != tiling.n_tiles()
                        || got.iter().enumerate().any(|(i, (t, _))| i != *t)
                    {
                        return Err(format!(
                            "worker 0 received {} tile summaries for {} tiles",
                            got.len(),
                            tiling.n_tiles()
                        ));
                    }
                    let all: Vec<S> = got.into_iter().map(|(_, s)| s).collect();
                    for (t, share) in global(&tiling, all)?.into_iter().enumerate() {
                        share_in.send((t, share));
                    }
                }
                round!(1);
                // Round 3: finish and write each tile.
                let mut got: std::collections::HashMap<usize, L> =
                    std::mem::take(&mut *shares.borrow_mut())
                        .into_iter()
                        .collect();
                let mut here: Option<f64> = None;
                for (t, keep) in kept {
                    let share = got.remove(&t).ok_or_else(|| {
                        format!("nothing arrived for tile {t}: worker 0 stopped (its process says why)")
                    })?;
                    let keep = match keep {
                        Some(keep) => keep,
                        None => local(t)?.1,
                    };
                    let (number, cells) = finish(t, keep, share)?;
                    here = Some(here.map_or(number, |h| merge(h, number)));
                    write_tile(&out, header.len() as u64, cols, &tiling, t, cells.view())
                        .map_err(|e| format!("writing tile {t}: {e}"))?;
                }
                out.sync_all().map_err(|e| e.to_string())?;
                if index == 0 {
                    out.write_all_at(&header, 0).map_err(|e| e.to_string())?;
                }
                done_in.send(here.unwrap_or(0.0));
                round!(2);
                if index == 0 {
                    let (n, number) = *done.borrow();
                    if n != peers {
                        return Err(format!("{n} of {peers} workers finished"));
                    }
                    std::fs::rename(&tmp, &output).map_err(|e| e.to_string())?;
                    return Ok(Some(number));
                }
                Ok(None)
            })
            .map_err(|e| DemError::input(Path::new("timely"), e))?;
                let mut number = None;
                for result in guards.join() {
                    match result {
                        Ok(Ok(Some(r))) => number = Some(r),
                        Ok(Ok(None)) => {}
                        Ok(Err(e)) | Err(e) => {
                            return Err(DemError::Export(orogen_export::ExportError::Encode {
                                what: format!("distributed {what}"),
                                message: e,
                            }));
                        }
                    }
                }
                Ok(number)
            })()
        };
        std::panic::set_hook(Box::new(move |info| previous(info)));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map(|number| {
            number.map(|changed| Summary {
                cells: rows * cols,
                changed,
                read: Dtype::F32,
                written: T::DTYPE,
            })
        })
    }
}

/// An element of a distributed command's output: its type in the summary line and its
/// little-endian bytes.
pub(super) trait OutCell: ndarray_npy::WritableElement + Copy {
    const DTYPE: Dtype;
    fn extend_le(self, out: &mut Vec<u8>);
}

macro_rules! out_cell {
    ($($t:ty => $d:ident),*) => {$(
        impl OutCell for $t {
            const DTYPE: Dtype = Dtype::$d;
            fn extend_le(self, out: &mut Vec<u8>) {
                out.extend(self.to_le_bytes());
            }
        }
    )*};
}

out_cell!(f32 => F32, f64 => F64, i8 => I8);

/// Writes `a` to `path` as `.npy`, atomically, with the bytes of `npy::write_npy`: the header,
/// then blocks of 1 MiB of cells, each encoded and placed at its offset by several threads at
/// once.
pub(super) fn write_npy<T: OutCell + Sync>(path: &Path, a: &Array2<T>) -> Result<(), DemError> {
    let Some(cells) = a.as_slice() else {
        return Ok(atomic::write_atomic(path, |w| npy::write_npy(w, a))?);
    };
    let header = npy_header::<T>(a.nrows(), a.ncols());
    let size = std::mem::size_of::<T>();
    let block = (1 << 20) / size;
    atomic::write_atomic_file(path, |file| {
        file.write_all_at(&header, 0)?;
        cells
            .par_chunks(block)
            .enumerate()
            .try_for_each_init(Vec::new, |buf, (i, chunk)| {
                buf.clear();
                for &v in chunk {
                    v.extend_le(buf);
                }
                file.write_all_at(buf, (header.len() + i * block * size) as u64)
            })
    })?;
    Ok(())
}

fn write_tile<T: OutCell>(
    out: &File,
    offset: u64,
    cols: usize,
    tiling: &Tiling,
    t: usize,
    cells: ArrayView2<'_, T>,
) -> std::io::Result<()> {
    let (r0, c0, _, w) = tiling.bounds(t);
    let size = std::mem::size_of::<T>();
    let mut buf = Vec::with_capacity(w * size);
    for (r, row) in cells.outer_iter().enumerate() {
        buf.clear();
        for &z in row {
            z.extend_le(&mut buf);
        }
        out.write_all_at(&buf, offset + (((r0 + r) * cols + c0) * size) as u64)?;
    }
    Ok(())
}

/// The first port of the kernel's ephemeral range (Linux), when there are at least 2,000 ports
/// below it from 10,000 up for [`listen_ports`] to take.
fn ephemeral_low() -> Option<u16> {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .filter(|&low| low > 12_000)
}

/// `n` distinct local ports free now for the workers' listeners: below the kernel's ephemeral
/// range where it is known (Linux), so that the workers' own outgoing connections, which take
/// their local ports from that range, cannot take one before its worker listens on it (ports
/// handed out by `bind(0)` lie in that range, and a worker of the four-process test once
/// failed with "Address already in use").
/// Each port is held until all are found, so no two are the same.
fn listen_ports(n: usize) -> std::io::Result<Vec<u16>> {
    use std::net::TcpListener;
    let mut held = Vec::with_capacity(n);
    if let Some(low) = ephemeral_low() {
        // From a place that depends on the process, so that clusters started side by side try
        // different ports first.
        let span = u32::from(low - 10_000);
        let start = std::process::id() % span;
        for k in 0..span {
            if held.len() == n {
                break;
            }
            let port = 10_000 + ((start + k) % span) as u16;
            if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
                held.push(listener);
            }
        }
    }
    // Elsewhere (or with the low range full), the kernel's choice.
    while held.len() < n {
        held.push(TcpListener::bind("127.0.0.1:0")?);
    }
    held.iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect()
}

/// `orogen dem fill|d8|accumulate --workers N`: starts N processes of this binary running
/// `orogen dem COMMAND` on this host (timely's `-n N -p I -h HOSTFILE`, free local ports) and
/// waits for them; process 0 prints the summary line (unless `quiet`). A process that fails
/// stops the others; nothing is left under the output's name.
pub fn local_cluster(
    command_name: &str,
    input: &Path,
    output: &Path,
    tile: usize,
    workers: usize,
    connect: Duration,
    quiet: bool,
) -> Result<(), DemError> {
    let failed = |message: String| {
        DemError::Export(orogen_export::ExportError::Encode {
            what: format!("distributed {command_name}"),
            message,
        })
    };
    // Check the input and output before starting anything.
    if super::output_format(output)? != super::Format::Npy {
        return Err(DemError::input(
            output,
            format!("the distributed {command_name} writes .npy"),
        ));
    }
    NpyGrid::open(input)?;
    let ports = listen_ports(workers).map_err(|e| failed(format!("no free local port: {e}")))?;
    let hosts = std::env::temp_dir().join(format!("orogen-hosts-{}.txt", std::process::id()));
    let lines: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&hosts, lines).map_err(|e| failed(e.to_string()))?;
    let exe = std::env::current_exe().map_err(|e| failed(e.to_string()))?;
    let mut children: Vec<Child> = Vec::new();
    // Process 0's stdout: its summary line, among timely's "awaiting connections" lines.
    let mut summary_out = None;
    for p in 0..workers {
        let mut command = Command::new(&exe);
        command.args(["dem", command_name, "--tile", &tile.to_string()]);
        command.args(["--connect-timeout", &connect.as_secs().to_string()]);
        if quiet {
            command.arg("-q");
        }
        let mut child = command
            .arg(input)
            .arg(output)
            .args(["--", "-n", &workers.to_string(), "-p", &p.to_string(), "-h"])
            .arg(&hosts)
            // Process 0 prints the summary line; the others have nothing to say.
            .stdout(if p == 0 {
                std::process::Stdio::piped()
            } else {
                std::process::Stdio::null()
            })
            .spawn()
            .map_err(|e| failed(format!("cannot start worker process {p}: {e}")))?;
        if p == 0 {
            summary_out = child.stdout.take();
        }
        children.push(child);
    }
    let mut first_failure = None;
    let mut pending: Vec<(usize, Child)> = children.into_iter().enumerate().collect();
    while !pending.is_empty() {
        let mut still = Vec::new();
        for (p, mut child) in pending {
            match child.try_wait() {
                Ok(Some(status)) if !status.success() => {
                    first_failure.get_or_insert(format!("worker process {p} failed ({status})"));
                }
                Ok(Some(_)) => {}
                Ok(None) => still.push((p, child)),
                Err(e) => {
                    first_failure.get_or_insert(format!("worker process {p}: {e}"));
                }
            }
        }
        if first_failure.is_some() {
            for (_, child) in &mut still {
                let _ = child.kill();
                let _ = child.wait();
            }
            break;
        }
        pending = still;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = std::fs::remove_file(&hosts);
    if let Some(message) = first_failure {
        let _ = std::fs::remove_file(cluster_temp(output));
        return Err(failed(message));
    }
    if let Some(mut out) = summary_out {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        for line in text
            .lines()
            .filter(|l| !l.starts_with("awaiting connections"))
        {
            println!("{line}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workers' ports are distinct, free, and on Linux below the ephemeral range that
    /// outgoing connections take their ports from.
    #[test]
    fn listen_ports_are_distinct_free_and_below_the_ephemeral_range() {
        let ports = listen_ports(6).unwrap();
        let mut distinct = ports.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 6, "{ports:?}");
        for &port in &ports {
            std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
        }
        // On Linux: below the ephemeral range (elsewhere the kernel's choice, in it).
        if let Some(low) = ephemeral_low() {
            assert!(
                ports.iter().all(|&p| (10_000..low).contains(&p)),
                "{ports:?}"
            );
        }
    }

    /// `write_npy` against `ndarray-npy`'s writer, for arrays of several 1 MiB blocks whose size
    /// is no multiple of a block, in each output type.
    #[test]
    fn parallel_npy_writes_the_bytes_of_ndarray_npy() {
        fn check<T: OutCell + Sync>(a: Array2<T>) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("a.npy");
            write_npy(&path, &a).unwrap();
            let mut expected = Vec::new();
            npy::write_npy(&mut expected, &a).unwrap();
            let written = std::fs::read(&path).unwrap();
            assert!(
                written.len() > 3 << 20,
                "{} bytes: not several blocks",
                written.len()
            );
            assert!(written == expected, "bytes differ");
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                1,
                "a temporary left"
            );
        }
        let (rows, cols) = (1031, 1033);
        check(Array2::from_shape_fn((rows, cols), |(r, c)| {
            (r as f32 - 500.0) * 0.37 + c as f32
        }));
        check(Array2::from_shape_fn((rows, cols), |(r, c)| {
            (r * cols + c) as f64 * 1.5
        }));
        check(Array2::from_shape_fn((rows * 4, cols), |(r, c)| {
            ((r * 7 + c * 3) % 256) as u8 as i8
        }));
    }
}
