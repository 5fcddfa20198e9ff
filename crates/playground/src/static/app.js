// orogen playground: controls -> POST /api/generate -> layers, anchors and a WebGL 3-D view.
// Plain JavaScript written for orogen; no third-party code.
'use strict';

const SESSION = Math.random().toString(36).slice(2) + Date.now().toString(36);
const RESOLUTION = 512;

// Sliders: id, config path, label, min, max, step, panel.
const SLIDERS = [
  ['noise-scale', 'elevation.fbm.noise_scale', 'Noise scale', 0.5, 16, 0.1, 'world'],
  ['octaves', 'elevation.fbm.octaves', 'Octaves', 1, 16, 1, 'world'],
  ['water-level', 'world.water_level', 'Water level', 0, 1, 0.01, 'world'],
  ['land-centers', 'elevation.land_centers', 'Land centres', 1, 30, 1, 'world'],
  ['lloyd', 'mesh.lloyd_iterations', 'Lloyd iterations', 0, 10, 1, 'mesh'],
  ['wetness', 'biome.wetness', 'Wetness', -1, 1, 0.05, 'moisture'],
  ['water-boost', 'biome.water_boost', 'Water boost', 0, 1, 0.01, 'moisture'],
  ['altitude-drying', 'biome.altitude_drying', 'Altitude drying', 0, 1, 0.01, 'moisture'],
  ['moisture-scale', 'biome.scale_factor', 'Moisture scale', 0.1, 5, 0.05, 'moisture'],
  ['wind', 'biome.wind', 'Wind rain', 0, 4, 0.05, 'moisture'],
  ['wind-angle', 'biome.wind_angle', 'Wind angle', -180, 180, 5, 'moisture'],
];
const LAYERS = [
  ['colormap', 'Colour map', true], ['biomes', 'Biomes', false], ['heightmap', 'Heightmap', false],
  ['rivers', 'Rivers', true], ['flora', 'Flora', false], ['outlines', 'Cell outlines', false],
];

const $ = (id) => document.getElementById(id);
const state = {
  defaults: null,
  config: {},          // the partial config sent (path -> value)
  anchors: [],         // custom anchors, map coordinates
  width: 1, height: 1, // map size in map units
  generation: 0,       // newest generation shown
  last: null,          // the last response
  inflight: null,      // AbortController of the request in flight
  requests: 0,        // requests sent
  shown: 0,           // the request whose answer is on screen
};
window.orogen = {
  state,
  // Elevation (conventions' [-1, 1]) at map point (x, y) from the last terrain grid.
  elevationAt(x, y) {
    const t = state.last && state.last.terrain;
    if (!t) return null;
    const c = Math.min(t.nx - 1, Math.max(0, Math.floor(x / state.width * t.nx)));
    const r = Math.min(t.ny - 1, Math.max(0, Math.floor(y / state.height * t.ny)));
    return t.elevation[r * t.nx + c];
  },
};

function getPath(obj, path) {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

function setPath(obj, path, value) {
  const keys = path.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] = o[k] || {});
  o[keys[keys.length - 1]] = value;
}

function slider(panel, id, path, label, min, max, step, value) {
  const row = document.createElement('div');
  row.className = 'row';
  row.innerHTML = `<label for="${id}">${label}</label>` +
    `<input id="${id}" type="range" min="${min}" max="${max}" step="${step}">` +
    `<output for="${id}"></output>`;
  $('sliders-' + panel).appendChild(row);
  const input = row.querySelector('input');
  const out = row.querySelector('output');
  const isInt = Number.isInteger(step);
  input.value = value;
  out.textContent = input.value;
  state.config[path] = isInt ? parseInt(input.value, 10) : parseFloat(input.value);
  input.addEventListener('input', () => {
    out.textContent = input.value;
    state.config[path] = isInt ? parseInt(input.value, 10) : parseFloat(input.value);
    regenerate();
  });
}

function requestBody() {
  const config = {};
  for (const [path, value] of Object.entries(state.config)) setPath(config, path, value);
  if (config.elevation && config.elevation.layout === 'custom') {
    config.elevation.anchors = state.anchors.map((a) => [a[0], a[1]]);
  }
  // Only the layers shown (the colour map always: the 3-D view wears it); flora runs only
  // when shown.
  const layers = LAYERS.map(([name]) => name)
    .filter((name) => name === 'colormap' || ($('toggle-' + name) || {}).checked);
  return { session: SESSION, resolution: RESOLUTION, config, layers };
}

function canGenerate() {
  return !(state.config['elevation.layout'] === 'custom' && state.anchors.length === 0);
}

function setStatus(text, error) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', !!error);
}

async function regenerate() {
  drawAnchors();
  updateDownload();
  if (!canGenerate()) {
    setStatus('custom layout: click the map to place a land anchor');
    return;
  }
  if (state.inflight) state.inflight.abort();
  const controller = new AbortController();
  state.inflight = controller;
  const sent = ++state.requests;
  setStatus('generating…');
  let response;
  try {
    response = await fetch('/api/generate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      // The count orders this session's requests on the server, whatever order they arrive in.
      body: JSON.stringify({ ...requestBody(), sequence: sent }),
      signal: controller.signal,
    });
  } catch (e) {
    if (e.name !== 'AbortError') setStatus('network error: ' + e.message, true);
    return;
  }
  if (response.status === 409) return; // superseded by a newer request
  let data;
  try {
    data = await response.json();
  } catch (e) {
    if (e.name !== 'AbortError') setStatus('bad answer: ' + e.message, true);
    return;
  }
  if (sent !== state.requests) return; // a newer request was sent meanwhile
  state.inflight = null;
  if (!response.ok) {
    setStatus(data.error || ('HTTP ' + response.status), true);
    return;
  }
  await show(data, sent);
}

// Each call has its own promise (a shared onload handler would be replaced by a newer
// answer's, leaving the older one waiting forever); a newer src rejects the older decode.
function loadImage(img, src) {
  img.src = src;
  return img.decode().catch(() => {});
}

async function show(data, sent) {
  const loads = [];
  for (const [name] of LAYERS) {
    const img = $('layer-' + name);
    const src = data.layers[name];
    if (src) {
      loads.push(loadImage(img, src));
    } else {
      img.removeAttribute('src');
    }
  }
  await Promise.all(loads);
  // A newer request went out while the images decoded: its answer (already drawn, or on
  // its way) is the one to keep; this older one must not overwrite the state.
  if (sent !== state.requests) return;
  state.last = data;
  state.generation = data.generation;
  state.shown = sent;
  document.body.dataset.generation = String(data.generation);
  showTimings(data);
  setStatus(`${data.cells.toLocaleString()} cells · ${data.total_ms.toFixed(0)} ms` +
    (data.mesh_cached ? ' (mesh cached)' : ''));
  view3d.update(data.terrain, $('layer-colormap'));
}

function showTimings(data) {
  const body = $('timings').querySelector('tbody');
  body.innerHTML = '';
  const rows = data.timings.map((t) => [t.stage, t.ms]);
  rows.push(['render', data.render_ms], ['total (server)', data.total_ms]);
  for (const [name, ms] of rows) {
    const tr = document.createElement('tr');
    tr.innerHTML = `<td></td><td>${ms.toFixed(1)} ms</td>`;
    tr.firstChild.textContent = name;
    body.appendChild(tr);
  }
}

function updateDownload() {
  const a = $('download');
  const seed = state.config['world.seed'];
  a.href = '/api/bundle?request=' + encodeURIComponent(JSON.stringify(requestBody()));
  a.download = `orogen-${seed}.zip`;
  a.classList.toggle('disabled', !canGenerate());
}

// ---- anchors on the map ----

function mapPoint(event) {
  const rect = $('map').getBoundingClientRect();
  const x = (event.clientX - rect.left) / rect.width * state.width;
  const y = (event.clientY - rect.top) / rect.height * state.height;
  return [Math.min(state.width, Math.max(0, x)), Math.min(state.height, Math.max(0, y))];
}

function nearestAnchor(p) {
  const rect = $('map').getBoundingClientRect();
  const scale = rect.width / state.width;
  let best = -1;
  let bestD = 10; // pixels
  state.anchors.forEach((a, i) => {
    const d = Math.hypot(a[0] - p[0], a[1] - p[1]) * scale;
    if (d < bestD) { bestD = d; best = i; }
  });
  return best;
}

function drawAnchors() {
  const canvas = $('anchors');
  const rect = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(rect.width));
  canvas.height = Math.max(1, Math.round(rect.height));
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (state.config['elevation.layout'] !== 'custom') return;
  for (const a of state.anchors) {
    const x = a[0] / state.width * canvas.width;
    const y = a[1] / state.height * canvas.height;
    ctx.beginPath();
    ctx.arc(x, y, 7, 0, 2 * Math.PI);
    ctx.fillStyle = 'rgba(255, 80, 40, 0.85)';
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#fff';
    ctx.stroke();
  }
}

function setupAnchors() {
  const map = $('map');
  let drag = -1;
  let moved = false;
  map.addEventListener('mousedown', (e) => {
    if (state.config['elevation.layout'] !== 'custom' || e.button !== 0) return;
    e.preventDefault();
    const p = mapPoint(e);
    const i = nearestAnchor(p);
    if (i >= 0 && e.shiftKey) {
      state.anchors.splice(i, 1);
      regenerate();
      return;
    }
    if (i >= 0) {
      drag = i;
      moved = false;
      return;
    }
    if (state.anchors.length < 1000) {
      state.anchors.push(p);
      regenerate();
    }
  });
  window.addEventListener('mousemove', (e) => {
    if (drag < 0) return;
    state.anchors[drag] = mapPoint(e);
    moved = true;
    regenerate(); // stale requests are cancelled, so dragging stays live
  });
  window.addEventListener('mouseup', () => {
    if (drag >= 0 && moved) regenerate();
    drag = -1;
  });
  $('clear-anchors').addEventListener('click', () => {
    state.anchors = [];
    regenerate();
  });
}

// ---- 3-D view (plain WebGL) ----

const view3d = (() => {
  const canvas = $('view3d');
  const gl = canvas.getContext('webgl', { antialias: true });
  const cam = { yaw: 0.6, pitch: 0.8, dist: 2.2 };
  let prog = null;
  let buffers = null;
  let count = 0;
  let texture = null;
  if (!gl) {
    $('view3d-note').textContent = '3-D view: WebGL is not available in this browser.';
    return { update() {}, ready: false };
  }
  const vs = `attribute vec3 pos; attribute vec3 nrm; attribute vec2 uv;
    uniform mat4 mvp; varying vec2 vUv; varying float vLight;
    void main() { vUv = uv; vLight = 0.35 + 0.65 * max(dot(normalize(nrm), normalize(vec3(-0.5, 0.8, -0.4))), 0.0);
      gl_Position = mvp * vec4(pos, 1.0); }`;
  const fs = `precision mediump float; uniform sampler2D tex; varying vec2 vUv; varying float vLight;
    void main() { gl_FragColor = vec4(texture2D(tex, vUv).rgb * vLight, 1.0); }`;
  function shader(type, src) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  }
  try {
    prog = gl.createProgram();
    gl.attachShader(prog, shader(gl.VERTEX_SHADER, vs));
    gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
  } catch (e) {
    $('view3d-note').textContent = '3-D view unavailable: ' + e.message;
    return { update() {}, ready: false };
  }

  function mul(a, b) { // column-major 4x4: a * b
    const o = new Float32Array(16);
    for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      o[c * 4 + r] = s;
    }
    return o;
  }
  function perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2);
    const o = new Float32Array(16);
    o[0] = f / aspect; o[5] = f; o[10] = (far + near) / (near - far); o[11] = -1;
    o[14] = 2 * far * near / (near - far);
    return o;
  }
  function lookAt(eye, target, up) {
    const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    const norm = (v) => { const l = Math.hypot(v[0], v[1], v[2]); return [v[0] / l, v[1] / l, v[2] / l]; };
    const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const z = norm(sub(eye, target));
    const x = norm(cross(up, z));
    const y = cross(z, x);
    return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
      -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
  }

  function update(terrain, image) {
    if (!terrain) return;
    const { nx, ny, elevation } = terrain;
    const span = Math.max(nx, ny);
    const sx = nx / span;
    const sz = ny / span;
    const hScale = 0.12;
    const h = (c, r) => Math.max(0, elevation[r * nx + c]) * hScale;
    const pos = new Float32Array(nx * ny * 3);
    const nrm = new Float32Array(nx * ny * 3);
    const uv = new Float32Array(nx * ny * 2);
    for (let r = 0; r < ny; r++) for (let c = 0; c < nx; c++) {
      const i = r * nx + c;
      pos.set([(c / (nx - 1) - 0.5) * sx, h(c, r), (r / (ny - 1) - 0.5) * sz], i * 3);
      const dx = (h(Math.min(c + 1, nx - 1), r) - h(Math.max(c - 1, 0), r)) / (2 * sx / (nx - 1));
      const dz = (h(c, Math.min(r + 1, ny - 1)) - h(c, Math.max(r - 1, 0))) / (2 * sz / (ny - 1));
      nrm.set([-dx, 1, -dz], i * 3);
      uv.set([(c + 0.5) / nx, (r + 0.5) / ny], i * 2);
    }
    const idx = new Uint16Array((nx - 1) * (ny - 1) * 6);
    let k = 0;
    for (let r = 0; r < ny - 1; r++) for (let c = 0; c < nx - 1; c++) {
      const a = r * nx + c;
      idx.set([a, a + nx, a + 1, a + 1, a + nx, a + nx + 1], k);
      k += 6;
    }
    count = idx.length;
    const buf = (target, data) => {
      const b = gl.createBuffer();
      gl.bindBuffer(target, b);
      gl.bufferData(target, data, gl.STATIC_DRAW);
      return b;
    };
    if (buffers) for (const b of Object.values(buffers)) gl.deleteBuffer(b);
    buffers = { pos: buf(gl.ARRAY_BUFFER, pos), nrm: buf(gl.ARRAY_BUFFER, nrm),
      uv: buf(gl.ARRAY_BUFFER, uv), idx: buf(gl.ELEMENT_ARRAY_BUFFER, idx) };
    if (!texture) texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    if (image && image.complete && image.naturalWidth > 0) {
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB, gl.RGB, gl.UNSIGNED_BYTE, image);
    }
    draw();
  }

  function draw() {
    if (!buffers) return;
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.06, 0.08, 0.1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(prog);
    const eye = [cam.dist * Math.cos(cam.pitch) * Math.sin(cam.yaw), cam.dist * Math.sin(cam.pitch),
      cam.dist * Math.cos(cam.pitch) * Math.cos(cam.yaw)];
    const mvp = mul(perspective(0.8, canvas.width / canvas.height, 0.01, 20), lookAt(eye, [0, 0, 0], [0, 1, 0]));
    gl.uniformMatrix4fv(gl.getUniformLocation(prog, 'mvp'), false, mvp);
    gl.uniform1i(gl.getUniformLocation(prog, 'tex'), 0);
    for (const [name, size] of [['pos', 3], ['nrm', 3], ['uv', 2]]) {
      const loc = gl.getAttribLocation(prog, name);
      gl.bindBuffer(gl.ARRAY_BUFFER, buffers[name]);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
    }
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, buffers.idx);
    gl.drawElements(gl.TRIANGLES, count, gl.UNSIGNED_SHORT, 0);
  }

  let dragging = null;
  canvas.addEventListener('mousedown', (e) => { dragging = [e.clientX, e.clientY]; canvas.style.cursor = 'grabbing'; });
  window.addEventListener('mouseup', () => { dragging = null; canvas.style.cursor = 'grab'; });
  window.addEventListener('mousemove', (e) => {
    if (!dragging) return;
    cam.yaw -= (e.clientX - dragging[0]) * 0.01;
    cam.pitch = Math.min(1.5, Math.max(0.1, cam.pitch + (e.clientY - dragging[1]) * 0.01));
    dragging = [e.clientX, e.clientY];
    draw();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    cam.dist = Math.min(6, Math.max(0.6, cam.dist * Math.exp(e.deltaY * 0.001)));
    draw();
  }, { passive: false });
  return { update, ready: true };
})();

// ---- start ----

async function start() {
  let defaults;
  try {
    defaults = await (await fetch('/api/defaults')).json();
  } catch (e) {
    setStatus('cannot reach the server: ' + e.message, true);
    return;
  }
  state.defaults = defaults.config;
  state.width = defaults.config.world.width;
  state.height = defaults.config.world.height;
  const map = $('map');
  map.style.height = (map.getBoundingClientRect().width * state.height / state.width) + 'px';

  state.config['world.seed'] = defaults.config.world.seed;
  state.config['world.cells'] = defaults.playground_cells;
  state.config['elevation.layout'] = defaults.config.elevation.layout;
  $('seed').value = state.config['world.seed'];
  $('cells').value = state.config['world.cells'];
  $('cells').max = defaults.max_cells;
  $('layout').value = state.config['elevation.layout'];

  for (const [id, path, label, min, max, step, panel] of SLIDERS) {
    const v = getPath(defaults.config, path);
    if (v === undefined) continue;
    slider(panel, id, path, label, min, max, step, v);
  }
  // River knobs: every number of the river stage's parameters, when this build has one.
  const rivers = defaults.config.hydrology;
  if (rivers && typeof rivers === 'object') {
    for (const [key, v] of Object.entries(rivers)) {
      if (typeof v !== 'number') continue;
      const max = v > 0 ? v * 4 : 1;
      const step = Number.isInteger(v) && v > 1 ? 1 : max / 100;
      slider('rivers', 'river-' + key, 'hydrology.' + key, key.replace(/_/g, ' '), 0, max, step, v);
    }
  } else {
    $('rivers-none').hidden = false;
  }

  for (const [name, label, on] of LAYERS) {
    const box = document.createElement('label');
    box.innerHTML = `<input type="checkbox" id="toggle-${name}"> ${label}`;
    $('layer-toggles').appendChild(box);
    const input = box.querySelector('input');
    input.checked = on;
    $('layer-' + name).hidden = !on;
    input.addEventListener('change', () => {
      $('layer-' + name).hidden = !input.checked;
      if (input.checked && state.last && !state.last.layers[name]) regenerate();
    });
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
    regenerate();
  });
  setupAnchors();
  regenerate();
}

start();
