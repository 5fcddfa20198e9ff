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

use ndarray::{Array2, ArrayView2};
use ndarray_npy::npy::header::Header;
use orogen_hydrology::raster::tiled::fill::{FillSummary, FillTile, fill_levels, halo_nodata};
use orogen_hydrology::raster::tiled::{self, Tiling};
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
                "the distributed fill reads a float32 .npy (C order): this is not a .npy".into(),
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
                "the distributed fill reads a 2-D little-endian float32 .npy in C order, not {descr} {:?}{}",
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
        let mut out = Vec::with_capacity(h * w);
        let mut buf = vec![0u8; w * 4];
        for r in r0..r0 + h {
            let at = self.offset + ((r * self.cols + c0) * 4) as u64;
            self.file.read_exact_at(&mut buf, at)?;
            out.extend(
                buf.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        Ok(Array2::from_shape_vec((h, w), out).expect("h * w values"))
    }
}

/// The `.npy` header of a float32 C-order `rows x cols` array, as `ndarray-npy` writes it.
/// Messages a timely operator collects for the worker to read after the step.
type Shared<T> = Rc<RefCell<Vec<T>>>;

/// The `.npy` header of a float32 C-order `rows x cols` array, as `ndarray_npy::write_npy`
/// writes it (so the output is the single-process fill's bytes).
fn npy_header(rows: usize, cols: usize) -> Vec<u8> {
    Header {
        type_descriptor: <f32 as ndarray_npy::WritableElement>::type_descriptor(),
        layout: ndarray_npy::npy::header::Layout::Standard,
        shape: vec![rows, cols],
    }
    .to_bytes()
    .expect("a float32 header formats")
}

/// The temporary name every process writes the output under.
fn cluster_temp(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.tmp-cluster"))
}

/// One process of the distributed fill; `timely_args` are timely's own (`-n`, `-p`, `-h`,
/// `-w`). Process 0 returns the summary once the output is in place.
pub fn fill_process(
    input: &Path,
    output: &Path,
    tile: usize,
    timely_args: &[String],
) -> Result<Option<Summary>, DemError> {
    if super::output_format(output)? != super::Format::Npy {
        return Err(DemError::input(
            output,
            "the distributed fill writes .npy (float32)",
        ));
    }
    let config = timely::Config::from_args(
        std::iter::once("orogen".to_owned()).chain(timely_args.iter().cloned()),
    )
    .map_err(|e| DemError::input(Path::new("timely arguments"), e))?;
    let grid = NpyGrid::open(input)?;
    let tiling =
        Tiling::new(grid.rows, grid.cols, (tile, tile)).map_err(super::raster_err(input))?;
    let (rows, cols) = (grid.rows, grid.cols);
    let header = npy_header(rows, cols);
    let tmp = cluster_temp(output);
    let total = header.len() as u64 + (rows * cols * 4) as u64;
    {
        let out = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&tmp)
            .map_err(|e| {
                DemError::input(output, format!("cannot create {}: {e}", tmp.display()))
            })?;
        out.set_len(total)
            .map_err(|e| DemError::input(output, e.to_string()))?;
    }
    let (input, output) = (input.to_owned(), output.to_owned());
    let guards = timely::execute(config, move |worker| -> Result<Option<u64>, String> {
        let index = worker.index();
        let peers = worker.peers();
        let grid = NpyGrid::open(&input).map_err(|e| e.to_string())?;
        let out = OpenOptions::new()
            .write(true)
            .open(&tmp)
            .map_err(|e| format!("{}: {e}", tmp.display()))?;
        let summaries: Shared<(usize, FillSummary)> = Rc::default();
        let levels: Shared<(usize, Vec<f32>)> = Rc::default();
        let raised: Rc<RefCell<(usize, u64)>> = Rc::default();
        let mut summary_in = InputHandle::new();
        let mut level_in = InputHandle::new();
        let mut done_in = InputHandle::new();
        let probe = ProbeHandle::new();
        worker.dataflow::<u64, _, _>(|scope| {
            let got = Rc::clone(&summaries);
            scope
                .input_from(&mut summary_in)
                .container::<Vec<_>>()
                .exchange(|_: &(usize, FillSummary)| 0)
                .inspect(move |x| got.borrow_mut().push(x.clone()))
                .probe_with(&probe);
            let got = Rc::clone(&levels);
            scope
                .input_from(&mut level_in)
                .container::<Vec<_>>()
                .exchange(move |x: &(usize, Vec<f32>)| (x.0 % peers) as u64)
                .inspect(move |x| got.borrow_mut().push(x.clone()))
                .probe_with(&probe);
            let got = Rc::clone(&raised);
            scope
                .input_from(&mut done_in)
                .container::<Vec<_>>()
                .exchange(|_: &u64| 0)
                .inspect(move |x| {
                    let mut g = got.borrow_mut();
                    g.0 += 1;
                    g.1 += *x;
                })
                .probe_with(&probe);
        });
        // Each round advances every input and runs until all workers' data for it arrived.
        macro_rules! round {
            ($r:expr) => {{
                summary_in.advance_to($r + 1);
                level_in.advance_to($r + 1);
                done_in.advance_to($r + 1);
                while probe.less_than(&($r + 1)) {
                    worker.step();
                }
            }};
        }
        // Step 1: flood this worker's tiles; send their summaries to worker 0.
        let mine: Vec<usize> = (index..tiling.n_tiles()).step_by(peers).collect();
        let mut flooded = Vec::with_capacity(mine.len());
        for &t in &mine {
            let (r0, c0, h, w) = tiling.bounds(t);
            let (wr0, wc0) = (r0.saturating_sub(1), c0.saturating_sub(1));
            let (wr1, wc1) = ((r0 + h + 1).min(rows), (c0 + w + 1).min(cols));
            let window = grid
                .window((wr0, wc0), (wr1 - wr0, wc1 - wc0))
                .map_err(|e| format!("reading tile {t}: {e}"))?;
            let halo = halo_nodata(window.view(), (wr0, wc0), &tiling, t);
            let mut cells = tiled::window(window.view(), (r0 - wr0, c0 - wc0), (h, w)).to_owned();
            let original = cells.clone();
            let tile = FillTile::flood(cells.view_mut(), &halo);
            summary_in.send((t, tile.summary(cells.view())));
            flooded.push((t, original, cells, tile));
        }
        round!(0);
        // Step 2 (worker 0): the global step, each tile's levels to its owner.
        if index == 0 {
            let mut got = std::mem::take(&mut *summaries.borrow_mut());
            got.sort_by_key(|(t, _)| *t);
            if got.len() != tiling.n_tiles() || got.iter().enumerate().any(|(i, (t, _))| i != *t) {
                return Err(format!(
                    "worker 0 received {} tile summaries for {} tiles",
                    got.len(),
                    tiling.n_tiles()
                ));
            }
            let all: Vec<FillSummary> = got.into_iter().map(|(_, s)| s).collect();
            for (t, l) in fill_levels(&tiling, &all).into_iter().enumerate() {
                level_in.send((t, l));
            }
        }
        round!(1);
        // Step 3: finish and write each tile.
        let got: std::collections::HashMap<usize, Vec<f32>> =
            std::mem::take(&mut *levels.borrow_mut())
                .into_iter()
                .collect();
        let mut raised_here = 0u64;
        for (t, original, mut cells, tile) in flooded {
            let level = got
                .get(&t)
                .ok_or_else(|| format!("no levels arrived for tile {t}"))?;
            tile.finish(cells.view_mut(), level);
            raised_here += cells.iter().zip(&original).filter(|(f, d)| f > d).count() as u64;
            write_tile(&out, header.len() as u64, cols, &tiling, t, cells.view())
                .map_err(|e| format!("writing tile {t}: {e}"))?;
        }
        out.sync_all().map_err(|e| e.to_string())?;
        if index == 0 {
            out.write_all_at(&header, 0).map_err(|e| e.to_string())?;
        }
        done_in.send(raised_here);
        round!(2);
        if index == 0 {
            let (n, raised) = *raised.borrow();
            if n != peers {
                return Err(format!("{n} of {peers} workers finished"));
            }
            std::fs::rename(&tmp, &output).map_err(|e| e.to_string())?;
            return Ok(Some(raised));
        }
        Ok(None)
    })
    .map_err(|e| DemError::input(Path::new("timely"), e))?;
    let mut raised = None;
    for result in guards.join() {
        match result {
            Ok(Ok(Some(r))) => raised = Some(r),
            Ok(Ok(None)) => {}
            Ok(Err(e)) | Err(e) => {
                return Err(DemError::Export(orogen_export::ExportError::Encode {
                    what: "distributed fill".into(),
                    message: e,
                }));
            }
        }
    }
    Ok(raised.map(|r| Summary {
        cells: rows * cols,
        changed: r as f64,
        read: Dtype::F32,
        written: Dtype::F32,
    }))
}

fn write_tile(
    out: &File,
    offset: u64,
    cols: usize,
    tiling: &Tiling,
    t: usize,
    cells: ArrayView2<'_, f32>,
) -> std::io::Result<()> {
    let (r0, c0, _, w) = tiling.bounds(t);
    let mut buf = Vec::with_capacity(w * 4);
    for (r, row) in cells.outer_iter().enumerate() {
        buf.clear();
        for &z in row {
            buf.extend(z.to_le_bytes());
        }
        out.write_all_at(&buf, offset + (((r0 + r) * cols + c0) * 4) as u64)?;
    }
    Ok(())
}

/// `orogen dem fill --workers N`: starts N processes of this binary on this host (timely's
/// `-n N -p I -h HOSTFILE`, free local ports) and waits for them; process 0 prints the summary
/// line (unless `quiet`). A process that fails stops the others; nothing is left under the
/// output's name.
pub fn fill_local_cluster(
    input: &Path,
    output: &Path,
    tile: usize,
    workers: usize,
    quiet: bool,
) -> Result<(), DemError> {
    let failed = |message: String| {
        DemError::Export(orogen_export::ExportError::Encode {
            what: "distributed fill".into(),
            message,
        })
    };
    // Check the input and output before starting anything.
    super::output_format(output)?;
    NpyGrid::open(input)?;
    let ports: Vec<u16> = (0..workers)
        .map(|_| {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
        })
        .collect::<Result<_, _>>()
        .map_err(|e| failed(format!("no free local port: {e}")))?;
    let hosts = std::env::temp_dir().join(format!("orogen-hosts-{}.txt", std::process::id()));
    let lines: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&hosts, lines).map_err(|e| failed(e.to_string()))?;
    let exe = std::env::current_exe().map_err(|e| failed(e.to_string()))?;
    let mut children: Vec<Child> = Vec::new();
    // Process 0's stdout: its summary line, among timely's "awaiting connections" lines.
    let mut summary_out = None;
    for p in 0..workers {
        let mut command = Command::new(&exe);
        command.args(["dem", "fill", "--tile", &tile.to_string()]);
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
