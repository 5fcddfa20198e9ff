//! `orogen serve`: the playground, a local web server to tune a world live in the browser.
//!
//! The server runs the stages; the page draws. The page (`static/`: HTML, CSS and JavaScript
//! written here, no third-party code, embedded in the binary) receives the world as
//! little-endian typed arrays and draws the colour map, relief shading, water, rivers, plants
//! and cell outlines in WebGL2, as a 3-D view (the main view) or a flat map. Its API:
//!
//! - `POST /api/generate` with `{"session": "...", "sequence": 7, "config": {...}, "mesh":
//!   "<key>", "table": "<key>", "flora": false}` (`config`: any subset of
//!   [`Config`](orogen::Config), the TOML config's fields as JSON; `sequence`, optional: the
//!   client's request count, which orders the session's requests whatever order they arrive
//!   in; `mesh` / `table`: the keys of the mesh and colour table the page holds, which are then
//!   not sent again). Answers `200` with the binary world (`wire`: a JSON header
//!   with the per-stage timings, then the arrays); `400 {"error": "..."}` on bad parameters,
//!   a parameter above a server cap ([`caps::CAPS`]) or the classic preset; `409` when a newer
//!   request of the same session superseded this one (it stops between stages and between a
//!   stage's parts, the mesh between its Lloyd iterations); `413` past the body limit; `429` when [`MAX_QUEUE`] requests already wait.
//! - `POST /api/bundle` with the same JSON: the export bundle, a zip of what `orogen generate`
//!   writes (fixed timestamps, so the same request gives the same bytes).
//! - `GET /api/defaults`: the default config and the caps; `GET /api/params`: the parameter
//!   table the page builds its controls from.
//!
//! Every request passes the locked door ([`door`]): the Host must be the bound address, the
//! Origin (when present) the page's own, a POST `application/json`. [`run`] binds a loopback
//! address unless told explicitly to expose the server.
//!
//! The mesh of recent requests is cached by (seed, cells, mesh parameters, map size), with
//! what later runs on it may reuse ([`orogen::Reuse`]: the elevation's base heights and the
//! moisture noise), so a water-level change re-runs only what it can change. Generation runs
//! on the blocking pool, at most [`MAX_CONCURRENT`] at a time.
#![warn(missing_docs)]

mod api;
mod bundle;
pub mod caps;
pub mod door;
mod wire;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};

pub use api::GenerateRequest;
pub use caps::{MAX_RESOLUTION, MAX_SERVE_CELLS};

/// Cells of the page's first world (the command's default, 50,000, is slower to tune).
pub const PLAYGROUND_CELLS: usize = 25_000;
/// The largest request body, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Generations running at once; later requests wait (and are dropped if superseded meanwhile).
pub const MAX_CONCURRENT: usize = 2;
/// Requests waiting for a generation slot at most; one more gets `429`.
pub const MAX_QUEUE: usize = 16;

const INDEX_HTML: &str = include_str!("static/index.html");
const APP_JS: &str = include_str!("static/app.js");
const GL_JS: &str = include_str!("static/gl.js");
const STYLE_CSS: &str = include_str!("static/style.css");

/// The playground's routes for a server bound to `bound`, with fresh state (mesh cache,
/// sessions) and the door ([`door::guard`]) in front of every route.
pub fn router(bound: SocketAddr) -> Router {
    let state = Arc::new(api::State::new());
    let door = Arc::new(door::Door::new(bound));
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/gl.js",
            get(|| async { asset("text/javascript; charset=utf-8", GL_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/health", get(|| async { "ok" }))
        .route("/api/defaults", get(|| async { axum::Json(defaults()) }))
        // The one parameter table (`orogen::params`), as the page builds its controls from it.
        .route(
            "/api/params",
            get(|| async { axum::Json(orogen::params::table_json()) }),
        )
        .route("/api/generate", post(api::generate))
        .route("/api/bundle", post(api::bundle))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(door, door::guard))
}

/// The page's starting point: the default config, the cell count it starts with, the caps.
fn defaults() -> serde_json::Value {
    let caps: serde_json::Map<String, serde_json::Value> = caps::CAPS
        .iter()
        .map(|(path, cap)| {
            let v = match cap {
                caps::Cap::Value(n) => serde_json::json!({ "max": n }),
                caps::Cap::Len(n) => serde_json::json!({ "max_entries": n }),
            };
            ((*path).to_owned(), v)
        })
        .collect();
    serde_json::json!({
        "config": orogen::Config::default(),
        "playground_cells": PLAYGROUND_CELLS,
        "max_cells": MAX_SERVE_CELLS,
        "max_resolution": MAX_RESOLUTION,
        "caps": caps,
    })
}

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}

/// Serves the playground on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> io::Result<()> {
    let bound = listener.local_addr()?;
    axum::serve(listener, router(bound)).await
}

fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Binds `host:port`, prints the address, and serves until the process ends (`orogen serve`).
/// A non-loopback address is refused unless `expose` is set (`--expose`), and then served
/// with a warning: the server has no authentication.
pub fn run(host: &str, port: u16, expose: bool) -> io::Result<()> {
    let listener = bind(host, port, expose)?;
    let addr = listener.local_addr()?;
    println!("orogen playground: http://{addr}/");
    runtime()?.block_on(async move { serve(tokio::net::TcpListener::from_std(listener)?).await })
}

/// Binds `host:port` as [`run`] does: loopback, or anything with `expose`.
fn bind(host: &str, port: u16, expose: bool) -> io::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind((host, port))?;
    let addr = listener.local_addr()?;
    if !addr.ip().is_loopback() {
        if !expose {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{addr} is not a loopback address: the playground has no authentication, \
                     so serving it to the network needs --expose"
                ),
            ));
        }
        eprintln!(
            "warning: serving the playground on {addr}: anyone who can reach this address can \
             make this machine generate worlds (no authentication)"
        );
    }
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Binds `addr` (port 0 picks a free port; loopback only) and serves on a background thread;
/// returns the bound address. For tests and embedding: the server lives as long as the process.
pub fn spawn(addr: &str) -> io::Result<SocketAddr> {
    let parsed: SocketAddr = addr
        .parse()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{addr}: {e}")))?;
    let listener = bind(&parsed.ip().to_string(), parsed.port(), false)?;
    let bound = listener.local_addr()?;
    let rt = runtime()?;
    std::thread::Builder::new()
        .name("orogen-serve".into())
        .spawn(move || {
            let result = rt
                .block_on(async move { serve(tokio::net::TcpListener::from_std(listener)?).await });
            if let Err(e) = result {
                eprintln!("orogen serve: {e}");
            }
        })?;
    Ok(bound)
}
