// orogen playground: controls (from GET /api/params) -> POST /api/generate -> typed arrays
// -> WebGL (gl.js). Plain JavaScript written for orogen; no third-party code.
'use strict';

const SESSION = Math.random().toString(36).slice(2) + Date.now().toString(36);

// Which panel a parameter's control goes in, by path prefix; export parameters other than the
// hillshade (file sizes, formats) belong to the command line, not to this page.
const PANELS = [
  ['world.', 'world'], ['elevation.', 'world'], ['mesh.', 'mesh'], ['biome.', 'moisture'],
  ['hydrology.', 'rivers'], ['rivers.', 'rivers'], ['flora.', 'flora'], ['export.hillshade', 'view'],
];
// Parameters with their own control in the page (seed, cells, layout: see index.html).
const OWN = new Set(['world.seed', 'world.cells', 'elevation.layout']);

const $ = (id) => document.getElementById(id);
const state = {
  params: [],          // the parameter table
  config: {},          // the partial config sent (path -> value)
  anchors: [],         // custom anchors, map coordinates
  width: 1, height: 1, // map size in map units
  generation: 0,       // newest generation shown
  requests: 0,         // requests sent
  shown: 0,            // the request whose answer is on screen
  inflight: false,     // a request is on its way (one at a time: later inputs coalesce)
  pending: false,      // an input arrived while a request was in flight
  inputAt: null,       // performance.now() of the oldest input not yet on screen
  meshKey: null, tableKey: null,
  mesh: null,          // the mesh arrays
  world: null,         // the last world (header and arrays)
  view: {
    mode: '3d', layer: 'colormap', rivers: true, flora: false, outlines: false,
    hillshade: 0, exaggeration: 4, cam: { yaw: 0.5, pitch: 0.75, dist: 1.35 },
  },
  perf: { server: [], frame: [] },
  errors: [],
};
let renderer = null;

window.addEventListener('error', (e) => state.errors.push(String(e.message)));

window.orogen = {
  state,
  // Elevation (conventions' [-1, 1]) of the region nearest map point (x, y).
  elevationAt(x, y) {
    const w = state.world, m = state.mesh;
    if (!w || !m) return null;
    let best = -1, bestD = Infinity;
    for (let r = 0; r < m.region_xy.length / 2; r++) {
      const d = (m.region_xy[2 * r] - x) ** 2 + (m.region_xy[2 * r + 1] - y) ** 2;
      if (d < bestD) { bestD = d; best = r; }
    }
    return w.region_elevation[best];
  },
  landFraction() {
    const e = state.world && state.world.region_elevation;
    if (!e) return null;
    let n = 0;
    for (const v of e) if (v > 0) n++;
    return n / e.length;
  },
  // Canvas pixel (from the top left, CSS pixels) of map point (x, y) on the flat map.
  mapToCanvas(x, y) {
    const { s, ox, oy } = renderer.mapFit();
    return [x * s + ox, y * s + oy];
  },
  fingerprint: () => renderer && renderer.fingerprint(),
  pixel: (x, y) => renderer && renderer.pixel(x, y),
  redraw: () => draw(),
};

function setPath(obj, path, value) {
  const keys = path.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] = o[k] || {});
  o[keys[keys.length - 1]] = value;
}

// A slider's value as shown beside it: at most three decimals.
function shown(v) {
  return typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v);
}

function controlId(path) {
  return 'p-' + path.replace(/[^A-Za-z0-9_]/g, '_');
}

function setStatus(text, error) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', !!error);
}

function median(list) {
  if (!list.length) return NaN;
  const s = [...list].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// ---- controls from the parameter table ----

function panelOf(path) {
  const hit = PANELS.find(([prefix]) => path === prefix || path.startsWith(prefix));
  return hit ? hit[1] : null;
}

function addControl(row) {
  const panel = panelOf(row.path);
  if (!panel || OWN.has(row.path)) return;
  const box = $('params-' + panel);
  if (!box) return;
  const id = controlId(row.path);
  const label = row.path.split('.').slice(-2).join(' ').replace(/_/g, ' ');
  const div = document.createElement('div');
  div.className = 'row';
  div.title = row.doc + (row.unit ? ` (${row.unit})` : '');
  const d = row.default;
  let input;
  if (typeof d === 'boolean') {
    div.innerHTML = `<label for="${id}"></label><input id="${id}" type="checkbox"><span></span>`;
    input = div.querySelector('input');
    input.checked = d;
  } else if (row.choices) {
    div.innerHTML = `<label for="${id}"></label><select id="${id}"></select><span></span>`;
    input = div.querySelector('select');
    for (const c of row.choices) input.add(new Option(c, c));
    input.value = d;
  } else if (typeof d === 'number') {
    const lo = row.min != null ? row.min : Math.min(0, d);
    let hi = row.max != null ? row.max : Math.max(1, d * 4);
    const int = row.integer !== undefined ? row.integer : Number.isInteger(d);
    // A range far wider than the default (0 ..= 1000 around 3) gets a slider over a useful
    // span from its low end: up to four times the default.
    const useful = Math.max(Math.abs(d) * 4, int ? 10 : 1);
    if (lo >= 0 && hi - lo > 5 * useful) hi = lo + useful;
    const step = int ? 1 : (hi - lo) / 200;
    div.innerHTML = `<label for="${id}"></label><input id="${id}" type="range"><output for="${id}"></output>`;
    input = div.querySelector('input');
    input.min = lo; input.max = hi; input.step = step; input.value = d;
    div.querySelector('output').textContent = shown(d);
  } else {
    return;
  }
  div.querySelector('label').textContent = label;
  box.appendChild(div);
  const read = () => {
    if (input.type === 'checkbox') return input.checked;
    if (input.tagName === 'SELECT') return input.value;
    return row.integer ? parseInt(input.value, 10) : parseFloat(input.value);
  };
  state.config[row.path] = d;
  input.addEventListener(input.type === 'range' ? 'input' : 'change', () => {
    const v = read();
    state.config[row.path] = v;
    const out = div.querySelector('output');
    if (out) out.textContent = shown(v);
    if (row.path === 'export.hillshade') {
      // A view setting (the bundle takes it too): redraw, no server round trip.
      state.view.hillshade = v;
      updateDownload();
      draw();
      return;
    }
    regenerate();
  });
}

// ---- requests ----

function requestBody() {
  const config = {};
  for (const [path, value] of Object.entries(state.config)) setPath(config, path, value);
  if (config.elevation && config.elevation.layout === 'custom') {
    config.elevation.anchors = state.anchors.map((a) => [a[0], a[1]]);
  }
  return { session: SESSION, config };
}

function canGenerate() {
  return !(state.config['elevation.layout'] === 'custom' && state.anchors.length === 0);
}

// Decodes an answer: the header and typed views on the arrays (little-endian, as sent).
function decode(buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== 'OROG') throw new Error('not an orogen answer');
  const hlen = new DataView(buffer).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen)));
  const types = { f32: Float32Array, u32: Uint32Array, u8: Uint8Array };
  for (const [name, a] of Object.entries(header.arrays)) {
    header[name] = new types[a.type](buffer, a.offset, a.length);
  }
  return header;
}

// One request at a time: inputs during a request coalesce into the next one (a drag sends
// as fast as the server answers, never a queue of stale states).
function regenerate() {
  if (state.inputAt === null) state.inputAt = performance.now();
  drawAnchors();
  updateDownload();
  if (!canGenerate()) {
    setStatus('custom layout: click the map to place a land anchor');
    state.inputAt = null;
    return;
  }
  if (state.inflight) { state.pending = true; return; }
  send();
}

async function send() {
  state.inflight = true;
  state.pending = false;
  const sent = ++state.requests;
  const inputAt = state.inputAt;
  setStatus('generating…');
  const body = { ...requestBody(), sequence: sent, mesh: state.meshKey, table: state.tableKey,
    flora: state.view.flora };
  let answer = null;
  try {
    const response = await fetch('/api/generate', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    if (response.status === 409) {
      answer = null; // superseded
    } else if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      setStatus(data.error || ('HTTP ' + response.status), true);
    } else {
      answer = decode(await response.arrayBuffer());
    }
  } catch (e) {
    setStatus('network error: ' + e.message, true);
  }
  state.inflight = false;
  if (answer) show(answer, sent, inputAt);
  if (state.pending) send();
  else if (!answer) state.inputAt = null;
}

function show(w, sent, inputAt) {
  if (w.region_xy) {
    state.mesh = { region_xy: w.region_xy, corner_xy: w.corner_xy, corner_regions: w.corner_regions,
      edges: w.edges, width: w.width, height: w.height };
    state.meshKey = w.mesh_key;
    renderer.setMesh(state.mesh);
  }
  if (w.table) {
    renderer.setTable(w.table, w.table_shape[0], w.table_shape[1]);
    state.tableKey = w.table_key;
  }
  if (!w.flora_xy && state.world && state.world.flora_xy && !state.view.flora) {
    // keep nothing: plants belong to the world they grew on
  }
  renderer.setWorld(w);
  state.world = w;
  state.generation = w.generation;
  state.shown = sent;
  document.body.dataset.generation = String(w.generation);
  draw();
  showTimings(w);
  state.perf.server.push(w.total_ms);
  if (state.perf.server.length > 20) state.perf.server.shift();
  // Input to frame: the frame is on screen at the next animation frame.
  requestAnimationFrame(() => {
    if (inputAt !== null && !state.pending) {
      state.perf.frame.push(performance.now() - inputAt);
      if (state.perf.frame.length > 20) state.perf.frame.shift();
      state.inputAt = null;
    }
    showPerf(w);
  });
}

function showPerf(w) {
  const last = state.perf.frame[state.perf.frame.length - 1];
  $('perf').textContent = `server ${w.total_ms.toFixed(1)} ms (median ${median(state.perf.server).toFixed(1)})` +
    (last !== undefined ? ` · input→frame ${last.toFixed(0)} ms (median ${median(state.perf.frame).toFixed(0)})` : '') +
    ' · mapgen4: 15-19 ms at 25,000 regions';
  setStatus(`${w.cells.toLocaleString()} cells` + (w.mesh_cached ? ' (mesh cached)' : ''));
}

function showTimings(w) {
  const body = $('timings').querySelector('tbody');
  body.innerHTML = '';
  const rows = w.timings.map((t) => [t.stage, t.ms]);
  rows.push(['encode', w.encode_ms], ['total (server)', w.total_ms]);
  for (const [name, ms] of rows) {
    const tr = document.createElement('tr');
    tr.innerHTML = '<td></td><td></td>';
    tr.firstChild.textContent = name;
    tr.lastChild.textContent = ms.toFixed(1) + ' ms';
    body.appendChild(tr);
  }
}

// ---- drawing ----

function resize() {
  const canvas = $('gl');
  const rect = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(rect.width)), h = Math.max(1, Math.round(rect.height));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}

function draw() {
  if (!renderer) return;
  resize();
  const t0 = performance.now();
  renderer.draw(state.view);
  drawAnchors();
  state.lastDrawMs = performance.now() - t0;
  document.body.dataset.view = state.view.mode;
}

function setMode(mode) {
  state.view.mode = mode;
  $('view-toggle').textContent = mode === '3d' ? 'Flat map' : '3-D view';
  $('gl').classList.toggle('map', mode === 'map');
  draw();
}

function updateDownload() {
  $('download').disabled = !canGenerate();
}

async function download() {
  const body = { ...requestBody(), resolution: 512 };
  setStatus('building the bundle…');
  const response = await fetch('/api/bundle', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    setStatus(data.error || ('HTTP ' + response.status), true);
    return;
  }
  const blob = await response.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `orogen-${state.config['world.seed']}.zip`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  setStatus('bundle downloaded');
}

// ---- anchors on the flat map ----

function mapPoint(event) {
  const rect = $('gl').getBoundingClientRect();
  const { s, ox, oy } = renderer.mapFit();
  const x = (event.clientX - rect.left - ox) / s;
  const y = (event.clientY - rect.top - oy) / s;
  return [Math.min(state.width, Math.max(0, x)), Math.min(state.height, Math.max(0, y))];
}

function nearestAnchor(p) {
  const { s } = renderer.mapFit();
  let best = -1;
  let bestD = 10; // pixels
  state.anchors.forEach((a, i) => {
    const d = Math.hypot(a[0] - p[0], a[1] - p[1]) * s;
    if (d < bestD) { bestD = d; best = i; }
  });
  return best;
}

function drawAnchors() {
  const canvas = $('anchors');
  const rect = $('gl').getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(rect.width));
  canvas.height = Math.max(1, Math.round(rect.height));
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (state.config['elevation.layout'] !== 'custom' || state.view.mode !== 'map' || !renderer || !renderer.mesh) return;
  const { s, ox, oy } = renderer.mapFit();
  for (const a of state.anchors) {
    ctx.beginPath();
    ctx.arc(a[0] * s + ox, a[1] * s + oy, 7, 0, 2 * Math.PI);
    ctx.fillStyle = 'rgba(255, 80, 40, 0.85)';
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#fff';
    ctx.stroke();
  }
}

function setupPointer() {
  const canvas = $('gl');
  let drag = -1;   // anchor being dragged
  let orbit = null; // last pointer position while orbiting
  canvas.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    if (state.view.mode === '3d') {
      orbit = [e.clientX, e.clientY];
      canvas.style.cursor = 'grabbing';
      return;
    }
    if (state.config['elevation.layout'] !== 'custom' || !renderer.mesh) return;
    const p = mapPoint(e);
    const i = nearestAnchor(p);
    if (i >= 0 && e.shiftKey) {
      state.anchors.splice(i, 1);
      regenerate();
    } else if (i >= 0) {
      drag = i;
    } else if (state.anchors.length < 1000) {
      state.anchors.push(p);
      regenerate();
    }
  });
  window.addEventListener('mousemove', (e) => {
    if (orbit) {
      const cam = state.view.cam;
      cam.yaw -= (e.clientX - orbit[0]) * 0.01;
      cam.pitch = Math.min(1.5, Math.max(0.15, cam.pitch + (e.clientY - orbit[1]) * 0.01));
      orbit = [e.clientX, e.clientY];
      draw(); // a view change: no server round trip
    } else if (drag >= 0) {
      state.anchors[drag] = mapPoint(e);
      regenerate(); // coalesced: one request in flight, the newest position next
    }
  });
  window.addEventListener('mouseup', () => {
    orbit = null;
    drag = -1;
    canvas.style.cursor = '';
  });
  canvas.addEventListener('wheel', (e) => {
    if (state.view.mode !== '3d') return;
    e.preventDefault();
    const cam = state.view.cam;
    cam.dist = Math.min(4, Math.max(0.3, cam.dist * Math.exp(e.deltaY * 0.001)));
    draw();
  }, { passive: false });
}

// ---- start ----

async function start() {
  try {
    renderer = window.OrogenGL.create($('gl'));
  } catch (e) {
    setStatus('cannot draw: ' + e.message, true);
    return;
  }
  let defaults, params;
  try {
    [defaults, params] = await Promise.all([
      fetch('/api/defaults').then((r) => r.json()),
      // Whether a default is an integer, from its JSON text (1.0 is a float parameter).
      fetch('/api/params').then((r) => r.text()).then((text) => JSON.parse(text, function (key, value, ctx) {
        if (key === 'default' && typeof value === 'number' && ctx && ctx.source !== undefined) {
          this.integer = !/[.eE]/.test(ctx.source);
        }
        return value;
      })),
    ]);
  } catch (e) {
    setStatus('cannot reach the server: ' + e.message, true);
    return;
  }
  state.params = params;
  state.width = defaults.config.world.width;
  state.height = defaults.config.world.height;
  state.config['world.seed'] = defaults.config.world.seed;
  state.config['world.cells'] = defaults.playground_cells;
  state.config['elevation.layout'] = defaults.config.elevation.layout;
  $('seed').value = state.config['world.seed'];
  $('cells').value = state.config['world.cells'];
  $('cells').max = defaults.max_cells;
  const layout = params.find((p) => p.path === 'elevation.layout');
  if (layout && layout.choices) {
    for (const c of layout.choices) $('layout').add(new Option(c === 'custom' ? 'custom (click the map)' : c, c));
  }
  $('layout').value = state.config['elevation.layout'];
  for (const row of params) addControl(row);
  state.view.hillshade = Number(state.config['export.hillshade']) || 0;
  if (!$('params-rivers').children.length) {
    $('rivers-none').hidden = false;
  }

  $('seed').addEventListener('change', () => {
    const v = parseInt($('seed').value, 10);
    if (Number.isFinite(v) && v >= 0) { state.config['world.seed'] = v; regenerate(); }
  });
  $('new-seed').addEventListener('click', () => {
    const v = Math.floor(Math.random() * 2 ** 31);
    $('seed').value = v;
    state.config['world.seed'] = v;
    regenerate();
  });
  $('cells').addEventListener('change', () => {
    const v = parseInt($('cells').value, 10);
    if (Number.isFinite(v)) { state.config['world.cells'] = v; regenerate(); }
  });
  $('layout').addEventListener('change', () => {
    state.config['elevation.layout'] = $('layout').value;
    const custom = $('layout').value === 'custom';
    $('anchor-hint').hidden = !custom;
    $('clear-anchors').hidden = !custom;
    if (custom) setMode('map'); // anchors are placed on the flat map
    regenerate();
  });
  $('clear-anchors').addEventListener('click', () => { state.anchors = []; regenerate(); });
  $('layer').addEventListener('change', () => { state.view.layer = $('layer').value; draw(); });
  for (const name of ['rivers', 'flora', 'outlines']) {
    const box = $('show-' + name);
    box.checked = state.view[name];
    box.addEventListener('change', () => {
      state.view[name] = box.checked;
      if (name === 'flora' && box.checked && !(state.world && state.world.flora_xy)) regenerate();
      else draw();
    });
  }
  $('exaggeration').addEventListener('input', () => {
    state.view.exaggeration = parseFloat($('exaggeration').value);
    draw();
  });
  $('view-toggle').addEventListener('click', () => setMode(state.view.mode === '3d' ? 'map' : '3d'));
  $('download').addEventListener('click', download);
  window.addEventListener('resize', draw);
  setupPointer();
  setMode('3d');
  regenerate();
}

start();
