//! `orogen serve`: the playground, a local web server to tune a world live in the browser.
//!
//! The page (`static/`: HTML, CSS and JavaScript written here, no third-party code) is embedded
//! in the binary. Its JSON API:
//!
//! - `POST /api/generate` with `{"session": "...", "sequence": 7, "resolution": 512, "config":
//!   {...}}` (`sequence`, optional: the client's request count, which orders the session's
//!   requests whatever order they arrive in; without it, the order of arrival), where
//!   `config` is any subset of [`Config`](orogen::Config) (the TOML config's fields, as JSON).
//!   Answers `200` with the layers as base64 PNGs (`colormap`, `biomes`, `heightmap`, `rivers`,
//!   `flora`, `outlines`), a coarse elevation grid for the 3-D view and the per-stage timings;
//!   `400 {"error": "..."}` on bad parameters; `409` when a newer request of the same session
//!   superseded this one (stale requests are dropped, not queued); `413` past the body limit.
//! - `GET /api/defaults`: the default config and the caps.
//! - `GET /api/bundle?request=<the same JSON>`: the export bundle, a zip of what
//!   `orogen generate` writes (fixed timestamps, so the same request gives the same bytes).
//!
//! The mesh of recent requests is cached by (seed, cells, Lloyd iterations, sampler, map size),
//! so a change of a later stage's knob (water level, noise, anchors, moisture, flora) re-runs
//! only the stages after the mesh. Generation runs on the blocking pool, at most
//! [`MAX_CONCURRENT`] at a time.

mod api;
mod bundle;
mod render;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};

pub use api::{GenerateRequest, MAX_RESOLUTION, MAX_SERVE_CELLS};

/// Cells of the page's first world (the command's default, 50,000, is slower to tune).
pub const PLAYGROUND_CELLS: usize = 25_000;
/// The largest request body, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Generations running at once; later requests wait (and are dropped if superseded meanwhile).
pub const MAX_CONCURRENT: usize = 2;

const INDEX_HTML: &str = include_str!("static/index.html");
const APP_JS: &str = include_str!("static/app.js");
const STYLE_CSS: &str = include_str!("static/style.css");

/// The playground's routes, with fresh state (mesh cache, sessions).
pub fn router() -> Router {
    let state = Arc::new(api::State::new());
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
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/health", get(|| async { "ok" }))
        .route("/api/defaults", get(|| async { axum::Json(defaults()) }))
        .route("/api/generate", post(api::generate))
        .route("/api/bundle", get(api::bundle))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// The page's starting point: the default config, the cell count it starts with, the caps.
fn defaults() -> serde_json::Value {
    serde_json::json!({
        "config": orogen::Config::default(),
        "playground_cells": PLAYGROUND_CELLS,
        "max_cells": MAX_SERVE_CELLS,
        "max_resolution": MAX_RESOLUTION,
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
    axum::serve(listener, router()).await
}

fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Binds `host:port`, prints the address, and serves until the process ends (`orogen serve`).
pub fn run(host: &str, port: u16) -> io::Result<()> {
    let listener = std::net::TcpListener::bind((host, port))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    println!("orogen playground: http://{addr}/");
    runtime()?.block_on(async move { serve(tokio::net::TcpListener::from_std(listener)?).await })
}

/// Binds `addr` (port 0 picks a free port) and serves on a background thread; returns the bound
/// address. For tests and embedding: the server lives as long as the process.
pub fn spawn(addr: &str) -> io::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
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
