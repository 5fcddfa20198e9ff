//! The API: request parsing and validation (the config's own checks, then the server's caps),
//! sessions (stale requests are dropped, and stopped between and within stages), the mesh
//! cache with what later runs on that mesh may reuse, a bounded queue, and generation on the
//! blocking pool.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State as AxumState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use orogen::{Config, Reuse, Timings};
use orogen_world::World;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use crate::caps::{self, MAX_RESOLUTION};
use crate::{MAX_CONCURRENT, MAX_QUEUE, bundle, wire};

/// Meshes kept in the cache.
const MESH_CACHE: usize = 4;
/// Sessions remembered; past this the table is cleared (older requests then simply finish).
const MAX_SESSIONS: usize = 4096;

/// A generation request (`POST /api/generate` and `POST /api/bundle`).
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
    /// Image width in pixels of the bundle's rasters (the height follows the map's aspect).
    /// Default: 512. Range: 16 ..= [`MAX_RESOLUTION`].
    #[serde(default = "default_resolution")]
    pub resolution: usize,
    /// Any subset of the config. Default: the defaults.
    #[serde(default)]
    pub config: Config,
    /// The mesh key the page already holds (`mesh_key` of an earlier answer): the mesh arrays
    /// are left out when it matches. Default: none.
    #[serde(default)]
    pub mesh: Option<String>,
    /// The colour table key the page already holds. Default: none.
    #[serde(default)]
    pub table: Option<String>,
    /// Run the flora stage and send the plants. Default: false.
    #[serde(default)]
    pub flora: bool,
}

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
        if self.session.len() > 128 {
            return Err("session: at most 128 bytes".into());
        }
        if self.config.preset == orogen::Preset::Classic {
            return Err(
                "preset = classic: the playground draws mesh worlds only; the classic landscape \
                 is `orogen generate --preset classic`"
                    .into(),
            );
        }
        if !(16..=MAX_RESOLUTION).contains(&self.resolution) {
            return Err(format!(
                "resolution = {}: allowed 16 ..= {MAX_RESOLUTION}",
                self.resolution
            ));
        }
        let config = self.config();
        // The parameters' own ranges first (the messages the command line gives), then the
        // server's caps on what is in range.
        config.validate().map_err(|e| e.to_string())?;
        let as_json = serde_json::to_value(&config).map_err(|e| e.to_string())?;
        caps::check(&as_json)?;
        // The height follows the aspect: cap it too.
        let ny = self.resolution as f64 * config.world.height / config.world.width;
        if ny > MAX_RESOLUTION as f64 {
            return Err(format!(
                "image height {ny:.0} px: at most {MAX_RESOLUTION} (widen the map or lower the resolution)"
            ));
        }
        Ok(())
    }

    /// The config with the request's resolution.
    pub fn config(&self) -> Config {
        let mut config = self.config.clone();
        config.export.resolution = self.resolution;
        config
    }
}

/// A short stable key of a JSON value (FNV-1a of its text), for the page to hold.
fn key_of(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).expect("keys serialise");
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// What identifies a mesh: the stage's inputs.
fn mesh_key(config: &Config) -> String {
    key_of(&json!([
        config.world.seed,
        config.world.cells,
        config.mesh,
        config.world.width,
        config.world.height
    ]))
}

/// What identifies the colour table: the biome parameters it is built from.
fn table_key(config: &Config) -> String {
    key_of(&json!([
        config.biome.whittaker,
        config.biome.palette,
        config.biome.blur_sigma
    ]))
}

/// A cached mesh and what runs on it may reuse.
#[derive(Debug)]
struct Meshed {
    key: String,
    world: Arc<World>,
    reuse: Reuse,
}

/// The server's shared state.
#[derive(Debug)]
pub(crate) struct State {
    next_generation: AtomicU64,
    /// Per session, the order key of its newest request (its `sequence`, else its generation).
    sessions: Mutex<HashMap<String, u64>>,
    /// Most recently used last.
    meshes: Mutex<Vec<Meshed>>,
    permits: Semaphore,
    /// Requests waiting for a permit.
    waiting: AtomicUsize,
}

impl State {
    pub(crate) fn new() -> Self {
        State {
            next_generation: AtomicU64::new(1),
            sessions: Mutex::new(HashMap::new()),
            meshes: Mutex::new(Vec::new()),
            permits: Semaphore::new(MAX_CONCURRENT),
            waiting: AtomicUsize::new(0),
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

    /// The world after the mesh stage and what may be reused on it, from the cache or made
    /// now; and whether it was cached. `None` when `stop` ended the mesh stage (asked between
    /// its parts).
    fn meshed_world(
        &self,
        config: &Config,
        timings: &mut Timings,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<(World, Reuse, bool)>, orogen::Error> {
        let key = mesh_key(config);
        {
            let mut meshes = self.meshes.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = meshes.iter().position(|m| m.key == key) {
                let entry = meshes.remove(i);
                let out = ((*entry.world).clone(), entry.reuse.clone(), true);
                meshes.push(entry);
                timings
                    .stages
                    .push(("mesh (cached)", std::time::Duration::ZERO));
                return Ok(Some(out));
            }
        }
        let Some(world) = orogen::generate_mesh_until(config, timings, stop)? else {
            return Ok(None);
        };
        let mut meshes = self.meshes.lock().unwrap_or_else(|p| p.into_inner());
        // What the last mesh kept: its keys let only the parts that do not depend on the mesh
        // (the colour table) serve this one.
        let reuse = meshes.last().map(|m| m.reuse.clone()).unwrap_or_default();
        if !meshes.iter().any(|m| m.key == key) {
            if meshes.len() >= MESH_CACHE {
                meshes.remove(0);
            }
            meshes.push(Meshed {
                key,
                world: Arc::new(world.clone()),
                reuse: reuse.clone(),
            });
        }
        Ok(Some((world, reuse, false)))
    }

    /// Keeps what a run on mesh `key` computed, for the next runs on it.
    fn keep_reuse(&self, key: &str, reuse: Reuse) {
        let mut meshes = self.meshes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = meshes.iter_mut().find(|m| m.key == key) {
            m.reuse = reuse;
        }
    }
}

/// An API error: a status and a message, answered as `{"error": message}`.
#[derive(Debug)]
pub(crate) struct ApiError(StatusCode, String);

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

    fn internal(message: impl ToString) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, message.to_string())
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

/// Counts a waiting request for as long as it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `work` on the blocking pool once a permit is free, unless superseded meanwhile; a
/// full queue answers 429 at once.
async fn run_blocking<T: Send + 'static>(
    state: &Arc<State>,
    session: &str,
    key: u64,
    work: impl FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    if !state.is_current(session, key) {
        return Err(ApiError::superseded());
    }
    if state.waiting.fetch_add(1, Ordering::SeqCst) >= MAX_QUEUE {
        state.waiting.fetch_sub(1, Ordering::SeqCst);
        return Err(ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            format!("the server is busy ({MAX_QUEUE} requests waiting); try again"),
        ));
    }
    let waiting = Waiting(&state.waiting);
    let _permit = state
        .permits
        .acquire()
        .await
        .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))?;
    drop(waiting);
    if !state.is_current(session, key) {
        return Err(ApiError::superseded());
    }
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || work(&state))
        .await
        .map_err(ApiError::internal)?
}

/// Runs the stages after the mesh, reusing what the mesh's earlier runs kept; stops (409) as
/// soon as the request is superseded. Returns the world and whether the mesh was cached.
fn run_world(
    state: &State,
    config: &Config,
    flora: bool,
    timings: &mut Timings,
    current: &dyn Fn() -> bool,
) -> Result<(World, bool), ApiError> {
    let (mut world, mut reuse, cached) = state
        .meshed_world(config, timings, &|| !current())
        .map_err(|e| ApiError::from_pipeline(&e))?
        .ok_or_else(ApiError::superseded)?;
    if !current() {
        return Err(ApiError::superseded());
    }
    let until = (!flora).then_some("flora");
    let done =
        orogen::generate_rest_reusing(config, &mut world, timings, until, &mut reuse, &|| {
            !current()
        })
        .map_err(|e| ApiError::from_pipeline(&e))?;
    state.keep_reuse(&mesh_key(config), reuse);
    if !done || !current() {
        return Err(ApiError::superseded());
    }
    Ok((world, cached))
}

/// `POST /api/generate`: the world as typed arrays ([`wire`]).
pub(crate) async fn generate(
    AxumState(state): AxumState<Arc<State>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let start = Instant::now();
    let request = GenerateRequest::parse(&body).map_err(ApiError::bad_request)?;
    let session = request.session.clone();
    let (generation, key) = state.begin(&session, request.sequence);
    let session_in = session.clone();
    let body = run_blocking(&state, &session, key, move |state| {
        let config = request.config();
        let mut timings = Timings::default();
        let current = || state.is_current(&session_in, key);
        let (world, cached) = run_world(state, &config, request.flora, &mut timings, &current)?;
        let encode_start = Instant::now();
        let mesh_key = mesh_key(&config);
        let send_mesh = request.mesh.as_deref() != Some(mesh_key.as_str());
        // The mesh's arrays and the world's (river strokes included) side by side; the body
        // holds them in the order mesh, table, world.
        let (mesh_part, world_part) = rayon::join(
            || {
                let mut part = wire::Arrays::default();
                if send_mesh {
                    wire::mesh_arrays(&world, &mut part)?;
                }
                Ok::<_, orogen_world::WorldError>(part)
            },
            || {
                let mut part = wire::Arrays::default();
                wire::world_arrays(&world, &mut part)?;
                Ok::<_, orogen_world::WorldError>(part)
            },
        );
        let mut arrays = mesh_part.map_err(ApiError::internal)?;
        let world_part = world_part.map_err(ApiError::internal)?;
        let table_key = table_key(&config);
        let mut table_shape = Value::Null;
        if request.table.as_deref() != Some(table_key.as_str()) {
            table_shape =
                json!(wire::table_array(&world, &mut arrays).map_err(ApiError::internal)?);
        }
        arrays.append(world_part);
        let stages: Vec<_> = timings
            .stages
            .iter()
            .map(|(name, d)| json!({ "stage": name, "ms": d.as_secs_f64() * 1e3 }))
            .collect();
        let palette = &config.biome.palette;
        let mut header = Map::new();
        let mut put = |k: &str, v: Value| {
            header.insert(k.into(), v);
        };
        put("generation", json!(generation));
        put("seed", json!(config.world.seed));
        put(
            "cells",
            json!(world.mesh().map(|m| m.n_regions()).unwrap_or(0)),
        );
        put(
            "corners",
            json!(world.mesh().map(|m| m.n_corners()).unwrap_or(0)),
        );
        put("width", json!(world.meta.width));
        put("height", json!(world.meta.height));
        put("max_height_m", json!(world.meta.max_height_m));
        put("max_depth_m", json!(world.meta.max_depth_m));
        put("world_size_m", json!(world.meta.world_size_m));
        put("mesh_key", json!(mesh_key));
        put("mesh_cached", json!(cached));
        put("table_key", json!(table_key));
        put("table_shape", table_shape);
        put(
            "water_colors",
            json!({
                "shallow": palette.shallow_ocean,
                "deep": palette.deep_ocean,
                "lake": palette.lake,
                "river": palette.river,
            }),
        );
        put("biome_colors", json!(palette.by_id()));
        put(
            "water_kinds",
            json!(Map::from_iter(
                wire::WATER_KINDS
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), json!(v)))
            )),
        );
        put("hillshade", json!(config.export.hillshade));
        put("timings", Value::Array(stages));
        put("generate_ms", json!(timings.total().as_secs_f64() * 1e3));
        put(
            "encode_ms",
            json!(encode_start.elapsed().as_secs_f64() * 1e3),
        );
        put("total_ms", json!(start.elapsed().as_secs_f64() * 1e3));
        Ok(arrays.encode(header))
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response())
}

/// `POST /api/bundle` (the same JSON as `/api/generate`): the export bundle, a zip.
pub(crate) async fn bundle(
    AxumState(state): AxumState<Arc<State>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request = GenerateRequest::parse(&body).map_err(ApiError::bad_request)?;
    // Bundles are not superseded by map requests: their own session.
    let session = format!("bundle:{}", request.session);
    let (_, key) = state.begin(&session, request.sequence);
    let seed = request.config.world.seed;
    let session_in = session.clone();
    let zip = run_blocking(&state, &session, key, move |state| {
        let config = request.config();
        let mut timings = Timings::default();
        let current = || state.is_current(&session_in, key);
        let (world, _) = run_world(state, &config, true, &mut timings, &current)?;
        bundle::zip_outputs(&world, &config).map_err(ApiError::internal)
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
