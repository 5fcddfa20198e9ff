//! The JSON API: request parsing and validation, sessions (stale requests are dropped), the
//! mesh cache, and generation on the blocking pool.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Query, State as AxumState};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use orogen_world::World;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Semaphore;

use super::{MAX_CONCURRENT, bundle, render};
use orogen::{Config, Timings};

/// The most cells the server generates (the command line allows more).
pub const MAX_SERVE_CELLS: usize = 200_000;
/// The widest image the server renders, in pixels.
pub const MAX_RESOLUTION: usize = 2048;
/// Meshes kept in the cache.
const MESH_CACHE: usize = 4;
/// Sessions remembered; past this the table is cleared (older requests then simply finish).
const MAX_SESSIONS: usize = 4096;

/// A generation request.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    /// The client's session: a newer request of the same session supersedes older ones.
    /// Default: "" (one shared session).
    #[serde(default)]
    pub session: String,
    /// The client's count of its requests in this session: a request supersedes those of the
    /// session with a lower count, in whatever order they reach the server (two connections
    /// can deliver a newer request first). Default: none (the order of arrival).
    #[serde(default)]
    pub sequence: Option<u64>,
    /// Image width in pixels (the height follows the map's aspect). Default: 512.
    /// Range: 16 ..= [`MAX_RESOLUTION`].
    #[serde(default = "default_resolution")]
    pub resolution: usize,
    /// Any subset of the config. Default: the defaults.
    #[serde(default)]
    pub config: Config,
    /// The layers to render, of `LAYERS`; the flora stage runs only when `flora` is asked
    /// for. Default: all.
    #[serde(default)]
    pub layers: Option<Vec<String>>,
}

/// The layers the server renders.
pub const LAYERS: &[&str] = &[
    "colormap",
    "biomes",
    "heightmap",
    "rivers",
    "flora",
    "outlines",
];

fn default_resolution() -> usize {
    512
}

impl GenerateRequest {
    /// Parses and validates a request body; the error is the message for a 400.
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        let request: GenerateRequest =
            serde_json::from_slice(body).map_err(|e| format!("bad request JSON: {e}"))?;
        request.validate()?;
        Ok(request)
    }

    fn validate(&self) -> Result<(), String> {
        let cells = self.config.world.cells;
        if cells > MAX_SERVE_CELLS {
            return Err(format!(
                "world.cells = {cells}: the server allows 3 ..= {MAX_SERVE_CELLS}"
            ));
        }
        if !(16..=MAX_RESOLUTION).contains(&self.resolution) {
            return Err(format!(
                "resolution = {}: allowed 16 ..= {MAX_RESOLUTION}",
                self.resolution
            ));
        }
        if let Some(bad) = self
            .layers
            .iter()
            .flatten()
            .find(|l| !LAYERS.contains(&l.as_str()))
        {
            return Err(format!(
                "layers: unknown layer `{bad}`; known: {}",
                LAYERS.join(", ")
            ));
        }
        if self.session.len() > 128 {
            return Err("session: at most 128 bytes".into());
        }
        let mut config = self.config.clone();
        config.export.resolution = self.resolution;
        config.validate().map_err(|e| e.to_string())?;
        // The height follows the aspect: cap it too.
        let ny = self.resolution as f64 * config.world.height / config.world.width;
        if ny > MAX_RESOLUTION as f64 {
            return Err(format!(
                "image height {ny:.0} px: at most {MAX_RESOLUTION} (widen the map or lower the resolution)"
            ));
        }
        Ok(())
    }

    /// Whether layer `name` is asked for.
    pub fn wants(&self, name: &str) -> bool {
        self.layers
            .as_ref()
            .is_none_or(|l| l.iter().any(|n| n == name))
    }

    /// The config with the request's resolution.
    pub fn config(&self) -> Config {
        let mut config = self.config.clone();
        config.export.resolution = self.resolution;
        config
    }
}

/// What identifies a mesh: the stage's inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MeshKey {
    seed: u64,
    cells: usize,
    mesh: String,
    width: u64,
    height: u64,
}

impl MeshKey {
    fn of(config: &Config) -> Self {
        MeshKey {
            seed: config.world.seed,
            cells: config.world.cells,
            mesh: serde_json::to_string(&config.mesh).expect("mesh params serialise"),
            width: config.world.width.to_bits(),
            height: config.world.height.to_bits(),
        }
    }
}

/// The server's shared state.
#[derive(Debug)]
pub(super) struct State {
    next_generation: AtomicU64,
    /// Per session, the order key of its newest request (its `sequence`, else its generation).
    sessions: Mutex<HashMap<String, u64>>,
    /// Most recently used last.
    meshes: Mutex<Vec<(MeshKey, Arc<World>, Duration)>>,
    permits: Semaphore,
}

impl State {
    pub(super) fn new() -> Self {
        State {
            next_generation: AtomicU64::new(1),
            sessions: Mutex::new(HashMap::new()),
            meshes: Mutex::new(Vec::new()),
            permits: Semaphore::new(MAX_CONCURRENT),
        }
    }

    /// Registers a request of `session`: returns its generation (numbering every answer) and
    /// its order key (`sequence`, else the generation), which [`State::is_current`] takes.
    fn begin(&self, session: &str, sequence: Option<u64>) -> (u64, u64) {
        let generation = self.next_generation.fetch_add(1, Ordering::SeqCst);
        let key = sequence.unwrap_or(generation);
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if sessions.len() >= MAX_SESSIONS && !sessions.contains_key(session) {
            sessions.clear();
        }
        let newest = sessions.entry(session.to_owned()).or_insert(key);
        *newest = (*newest).max(key);
        (generation, key)
    }

    /// Whether the request of order key `key` is still the newest of `session`.
    fn is_current(&self, session: &str, key: u64) -> bool {
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.get(session).is_none_or(|&newest| newest == key)
    }

    /// The world after the mesh stage, from the cache or made now; and whether it was cached.
    pub(super) fn meshed_world(
        &self,
        config: &Config,
        timings: &mut Timings,
    ) -> Result<(World, bool), orogen::Error> {
        let key = MeshKey::of(config);
        {
            let mut meshes = self.meshes.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = meshes.iter().position(|(k, _, _)| *k == key) {
                let entry = meshes.remove(i);
                let world = (*entry.1).clone();
                timings.stages.push(("mesh (cached)", Duration::ZERO));
                meshes.push(entry);
                return Ok((world, true));
            }
        }
        let world = orogen::generate_mesh(config, timings)?;
        let took = timings.total();
        let mut meshes = self.meshes.lock().unwrap_or_else(|p| p.into_inner());
        if !meshes.iter().any(|(k, _, _)| *k == key) {
            if meshes.len() >= MESH_CACHE {
                meshes.remove(0);
            }
            meshes.push((key, Arc::new(world.clone()), took));
        }
        Ok((world, false))
    }
}

/// An API error: a status and a message, answered as `{"error": message}`.
#[derive(Debug)]
pub(super) struct ApiError(StatusCode, String);

impl ApiError {
    fn bad_request(message: impl Into<String>) -> Self {
        ApiError(StatusCode::BAD_REQUEST, message.into())
    }

    fn superseded() -> Self {
        ApiError(
            StatusCode::CONFLICT,
            "superseded by a newer request of this session".into(),
        )
    }

    fn from_pipeline(e: &orogen::Error) -> Self {
        let status = if e.is_invalid_input() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::INTERNAL_SERVER_ERROR
        };
        ApiError(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

/// Runs `work` on the blocking pool once a permit is free, unless superseded meanwhile.
async fn run_blocking<T: Send + 'static>(
    state: &Arc<State>,
    session: &str,
    key: u64,
    work: impl FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    if !state.is_current(session, key) {
        return Err(ApiError::superseded());
    }
    let _permit = state
        .permits
        .acquire()
        .await
        .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))?;
    if !state.is_current(session, key) {
        return Err(ApiError::superseded());
    }
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || work(&state))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

/// `POST /api/generate`.
pub(super) async fn generate(
    AxumState(state): AxumState<Arc<State>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request = GenerateRequest::parse(&body).map_err(ApiError::bad_request)?;
    let session = request.session.clone();
    let (generation, key) = state.begin(&session, request.sequence);
    let body = run_blocking(&state, &session.clone(), key, move |state| {
        let start = Instant::now();
        let config = request.config();
        let mut timings = Timings::default();
        let (mut world, cached) = state
            .meshed_world(&config, &mut timings)
            .map_err(|e| ApiError::from_pipeline(&e))?;
        if !state.is_current(&session, key) {
            return Err(ApiError::superseded());
        }
        let until = (!request.wants("flora")).then_some("flora");
        orogen::generate_rest_until(&config, &mut world, &mut timings, until)
            .map_err(|e| ApiError::from_pipeline(&e))?;
        if !state.is_current(&session, key) {
            return Err(ApiError::superseded());
        }
        let render_start = Instant::now();
        let layers = render::layers(&world, &config, &|name| request.wants(name))
            .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let render_ms = render_start.elapsed().as_secs_f64() * 1e3;
        let stages: Vec<_> = timings
            .stages
            .iter()
            .map(|(name, d)| json!({ "stage": name, "ms": d.as_secs_f64() * 1e3 }))
            .collect();
        let generate_ms = timings.total().as_secs_f64() * 1e3;
        Ok(json!({
            "generation": generation,
            "seed": config.world.seed,
            "cells": world.mesh().map(|m| m.n_regions()).unwrap_or(0),
            "mesh_cached": cached,
            "timings": stages,
            "generate_ms": generate_ms,
            "render_ms": render_ms,
            "total_ms": start.elapsed().as_secs_f64() * 1e3,
            "width": layers.width,
            "height": layers.height,
            "layers": layers.png_base64,
            "terrain": layers.terrain,
        })
        .to_string())
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /api/bundle?request=<GenerateRequest JSON>`.
pub(super) async fn bundle(
    AxumState(state): AxumState<Arc<State>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let text = query
        .get("request")
        .ok_or_else(|| ApiError::bad_request("missing query parameter `request`"))?;
    if text.len() > super::MAX_BODY_BYTES {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request too large".into(),
        ));
    }
    let request = GenerateRequest::parse(text.as_bytes()).map_err(ApiError::bad_request)?;
    // Bundles are not superseded by map requests: their own session.
    let session = format!("bundle:{}", request.session);
    let (_, key) = state.begin(&session, request.sequence);
    let seed = request.config.world.seed;
    let zip = run_blocking(&state, &session, key, move |state| {
        let config = request.config();
        let mut timings = Timings::default();
        let (mut world, _) = state
            .meshed_world(&config, &mut timings)
            .map_err(|e| ApiError::from_pipeline(&e))?;
        orogen::generate_rest(&config, &mut world, &mut timings)
            .map_err(|e| ApiError::from_pipeline(&e))?;
        bundle::zip_outputs(&world, &config)
            .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    })
    .await?;
    let disposition = format!("attachment; filename=\"orogen-{seed}.zip\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        zip,
    )
        .into_response())
}
