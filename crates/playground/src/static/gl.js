// orogen playground: the WebGL2 renderer. The mesh is uploaded once per mesh; each world is
// two float textures (per region: elevation, moisture, water kind, biome; per corner:
// elevation, mean moisture, lake share) and the river and plant buffers, so a new world or a
// view change redraws without touching the geometry. Plain JavaScript, no third-party code.
'use strict';

window.OrogenGL = (() => {
  const TEX_W = 1024; // data textures are TEX_W texels wide

  // The colour map of the exporter (crates/export/src/colormap.rs), per fragment: elevation,
  // moisture and lake share interpolated over the split triangles; lakes above one half, ocean
  // shallow to deep with t = depth^0.7, land from the biome colour table (bilinear); the
  // hillshade of a sun in the north-west, 45 degrees up, on land.
  const COMMON = `#version 300 es
    precision highp float; precision highp int; precision highp sampler2D;
    uniform sampler2D regionTex; uniform sampler2D cornerTex;
    uniform int nRegions;
    vec4 fetch(sampler2D t, int i) { return texelFetch(t, ivec2(i % ${TEX_W}, i / ${TEX_W}), 0); }
  `;
  const PIECE_VS = COMMON + `
    in vec2 pos; in float vid; in float side; in float ra; in float rb;
    uniform mat4 mvp; uniform float hScale; uniform int mode3d;
    out float vE; out float vM; out float vLake; out float vSide; out vec3 vP;
    flat out int vRa; flat out int vRb;
    void main() {
      int i = int(vid + 0.5);
      float e; float m; float lake;
      if (i < nRegions) { vec4 d = fetch(regionTex, i); e = d.x; m = d.y; lake = d.z > 1.5 ? 1.0 : 0.0; }
      else { vec4 d = fetch(cornerTex, i - nRegions); e = d.x; m = d.y; lake = d.z; }
      vE = e; vM = m; vLake = lake; vSide = side; vRa = int(ra + 0.5); vRb = int(rb + 0.5);
      float y = mode3d == 1 ? max(e, 0.0) * hScale : 0.0;
      vP = vec3(pos.x, y, pos.y);
      gl_Position = mvp * vec4(pos.x, y, pos.y, 1.0);
    }`;
  const PIECE_FS = COMMON + `
    in float vE; in float vM; in float vLake; in float vSide; in vec3 vP;
    flat in int vRa; flat in int vRb;
    uniform sampler2D table; uniform vec2 tableSize;
    uniform sampler2D biomeColors; // 1 row, one texel per biome id
    uniform vec3 shallow; uniform vec3 deep; uniform vec3 lakeColor;
    uniform int layer; // 0 colour map, 1 biomes, 2 heightmap
    uniform float hillStrength; uniform int mode3d;
    uniform float maxH; uniform float maxD; uniform float metresPerUnit;
    out vec4 outColor;
    vec3 lookup(float e, float m) {
      vec2 uv = vec2((clamp(m, 0.0, 1.0) * (tableSize.x - 1.0) + 0.5) / tableSize.x,
                     (clamp(e, 0.0, 1.0) * (tableSize.y - 1.0) + 0.5) / tableSize.y);
      return texture(table, uv).rgb;
    }
    void main() {
      vec3 c;
      if (layer == 1) {
        int r = vSide >= 0.0 ? vRa : vRb;
        float b = fetch(regionTex, r).w;
        c = texelFetch(biomeColors, ivec2(int(b + 0.5), 0), 0).rgb;
      } else if (layer == 2) {
        float h = vE > 0.0 ? vE * maxH : vE * maxD;
        c = vec3((h + maxD) / (maxH + maxD));
      } else if (vLake > 0.5) {
        c = lakeColor;
      } else if (vE < 0.0) {
        float t = pow(clamp(-vE, 0.0, 1.0), 0.7);
        c = mix(shallow, deep, t);
      } else {
        c = lookup(vE, vM);
      }
      if (mode3d == 1) {
        vec3 n = normalize(cross(dFdx(vP), dFdy(vP)));
        if (n.y < 0.0) n = -n;
        float l = max(dot(n, normalize(vec3(-0.5, 0.8, -0.5))), 0.0);
        c *= 0.45 + 0.7 * l;
      } else if (hillStrength > 0.0 && vE > 0.0 && layer == 0) {
        // The exporter's relief::shade: slopes in metres per metre times the strength, a sun in
        // the north-west 45 degrees up, colour x (1 + 0.65 (clamp(lit, 0, 1.5) - 1)).
        float h = max(vE, 0.0) * maxH;
        float ex = dFdx(vP.x) * metresPerUnit; float ey = dFdy(vP.z) * metresPerUnit;
        float gx = abs(ex) > 0.0 ? hillStrength * dFdx(h) / ex : 0.0;
        float gy = abs(ey) > 0.0 ? hillStrength * dFdy(h) / ey : 0.0;
        vec3 sun = vec3(-0.5, -0.5, 0.70710678);
        float lambert = (-gx * sun.x - gy * sun.y + sun.z) / sqrt(gx * gx + gy * gy + 1.0);
        c *= 1.0 + 0.65 * (clamp(lambert / sun.z, 0.0, 1.5) - 1.0);
      }
      outColor = vec4(c, 1.0);
    }`;
  // Rivers: quads along each stroke, at least one pixel wide.
  const RIVER_VS = `#version 300 es
    in vec2 pos; in vec2 nrm; in float halfWidth; in float z;
    uniform mat4 mvp; uniform float minHalf; uniform float hScale; uniform int mode3d;
    void main() {
      vec2 p = pos + nrm * max(halfWidth, minHalf);
      float y = mode3d == 1 ? z * hScale + 0.002 : 0.0;
      gl_Position = mvp * vec4(p.x, y, p.y, 1.0);
    }`;
  const FLAT_FS = `#version 300 es
    precision highp float; uniform vec4 color; out vec4 outColor;
    void main() { outColor = color; }`;
  // Plants: points coloured by species.
  const POINT_VS = `#version 300 es
    in vec2 pos; in float species; uniform mat4 mvp; uniform float size; out vec3 vC;
    void main() {
      float k = fract(species * 0.61803399);
      vC = vec3(0.08 + 0.15 * k, 0.27 + 0.2 * k, 0.1 + 0.08 * k);
      gl_Position = mvp * vec4(pos.x, 0.0, pos.y, 1.0); gl_PointSize = size;
    }`;
  const POINT_FS = `#version 300 es
    precision highp float; in vec3 vC; out vec4 outColor; void main() { outColor = vec4(vC, 1.0); }`;
  // Outlines: the Voronoi edges between corners.
  const LINE_VS = `#version 300 es
    in vec2 pos; uniform mat4 mvp; void main() { gl_Position = mvp * vec4(pos.x, 0.0, pos.y, 1.0); }`;
  // The sea surface of the 3-D view.
  const SEA_VS = `#version 300 es
    in vec2 pos; uniform mat4 mvp; void main() { gl_Position = mvp * vec4(pos.x, 0.0005, pos.y, 1.0); }`;

  function create(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('WebGL2 is not available in this browser');
    function program(vs, fs) {
      const p = gl.createProgram();
      for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
        const s = gl.createShader(type);
        gl.shaderSource(s, src);
        gl.compileShader(s);
        if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
        gl.attachShader(p, s);
      }
      gl.linkProgram(p);
      if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
      const u = {};
      const n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
      for (let i = 0; i < n; i++) {
        const name = gl.getActiveUniform(p, i).name;
        u[name] = gl.getUniformLocation(p, name);
      }
      return { p, u, a: (name) => gl.getAttribLocation(p, name) };
    }
    const progs = {
      piece: program(PIECE_VS, PIECE_FS),
      river: program(RIVER_VS, FLAT_FS),
      point: program(POINT_VS, POINT_FS),
      line: program(LINE_VS, FLAT_FS),
      sea: program(SEA_VS, FLAT_FS),
    };
    const r = {
      gl, progs, canvas,
      mesh: null, world: null, vaos: {}, textures: {}, counts: {},
    };

    function buffer(target, data) {
      const b = gl.createBuffer();
      gl.bindBuffer(target, b);
      gl.bufferData(target, data, gl.STATIC_DRAW);
      return b;
    }
    function attrib(prog, name, buf, size) {
      const loc = prog.a(name);
      if (loc < 0) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
    }
    // A vertex array of `prog` with one float attribute per [name, data, size], replacing `old`;
    // left bound.
    function vertexArray(old, prog, attribs) {
      if (old) gl.deleteVertexArray(old);
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      for (const [name, data, size] of attribs) {
        attrib(prog, name, buffer(gl.ARRAY_BUFFER, data), size);
      }
      return vao;
    }
    function dataTexture(old, data, texels) {
      const t = old || gl.createTexture();
      const h = Math.max(1, Math.ceil(texels / TEX_W));
      const full = new Float32Array(TEX_W * h * 4);
      full.set(data);
      gl.bindTexture(gl.TEXTURE_2D, t);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, TEX_W, h, 0, gl.RGBA, gl.FLOAT, full);
      return t;
    }

    // The mesh: the split triangles (each Delaunay triangle cut in three by its corner), as
    // 9 vertices per corner: each vertex names its region or corner (vid), and every vertex of
    // a piece carries the piece's two regions and its side (+1 region a, -1 region b, 0 corner)
    // so the biome layer takes the nearer site, as the exporter's flat biome map does.
    r.setMesh = (mesh) => {
      for (const v of Object.values(r.vaos)) gl.deleteVertexArray(v);
      r.vaos = {};
      const R = mesh.region_xy.length / 2;
      const C = mesh.corner_xy.length / 2;
      const cr = mesh.corner_regions;
      const pos = new Float32Array(C * 9 * 2);
      const vid = new Float32Array(C * 9);
      const side = new Float32Array(C * 9);
      const ra = new Float32Array(C * 9);
      const rb = new Float32Array(C * 9);
      let k = 0;
      for (let c = 0; c < C; c++) {
        for (let i = 0; i < 3; i++) {
          const a = cr[3 * c + i];
          const b = cr[3 * c + (i + 1) % 3];
          const verts = [[a, mesh.region_xy, a, 1], [b, mesh.region_xy, b, -1], [R + c, mesh.corner_xy, c, 0]];
          for (const [id, xy, j, s] of verts) {
            pos[2 * k] = xy[2 * j]; pos[2 * k + 1] = xy[2 * j + 1];
            vid[k] = id; side[k] = s; ra[k] = a; rb[k] = b;
            k++;
          }
        }
      }
      r.vaos.piece = vertexArray(null, progs.piece, [
        ['pos', pos, 2], ['vid', vid, 1], ['side', side, 1], ['ra', ra, 1], ['rb', rb, 1],
      ]);
      r.counts.piece = k;
      // Cell outlines.
      const epos = new Float32Array(mesh.edges.length * 2);
      for (let i = 0; i < mesh.edges.length; i++) {
        epos[2 * i] = mesh.corner_xy[2 * mesh.edges[i]];
        epos[2 * i + 1] = mesh.corner_xy[2 * mesh.edges[i] + 1];
      }
      r.vaos.line = vertexArray(null, progs.line, [['pos', epos, 2]]);
      r.counts.line = mesh.edges.length;
      gl.bindVertexArray(null);
      r.mesh = { R, C, corner_regions: cr, width: mesh.width, height: mesh.height };
    };

    r.setTable = (rgb, rows, cols) => {
      const t = r.textures.table || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, t);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB8, cols, rows, 0, gl.RGB, gl.UNSIGNED_BYTE, rgb);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      r.textures.table = t;
      r.tableSize = [cols, rows];
    };

    // One world: per-region and per-corner data textures, rivers, plants.
    r.setWorld = (w) => {
      const { R, C, corner_regions: cr } = r.mesh;
      const reg = new Float32Array(R * 4);
      for (let i = 0; i < R; i++) {
        reg[4 * i] = w.region_elevation[i];
        reg[4 * i + 1] = w.region_moisture[i];
        reg[4 * i + 2] = w.region_water[i];
        reg[4 * i + 3] = w.region_biome[i];
      }
      const cor = new Float32Array(C * 4);
      const lake = w.water_kinds.lake;
      for (let c = 0; c < C; c++) {
        const a = cr[3 * c], b = cr[3 * c + 1], d = cr[3 * c + 2];
        cor[4 * c] = w.corner_elevation[c];
        cor[4 * c + 1] = (w.region_moisture[a] + w.region_moisture[b] + w.region_moisture[d]) / 3;
        cor[4 * c + 2] = ((w.region_water[a] === lake) + (w.region_water[b] === lake) + (w.region_water[d] === lake)) / 3;
      }
      r.textures.region = dataTexture(r.textures.region, reg, R);
      r.textures.corner = dataTexture(r.textures.corner, cor, C);
      // Biome colours: one texel per biome id.
      const bc = new Uint8Array(w.biome_colors.length * 3);
      w.biome_colors.forEach((rgb, i) => rgb.forEach((v, j) => { bc[3 * i + j] = Math.round(Math.min(1, Math.max(0, v)) * 255); }));
      const bt = r.textures.biome || gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, bt);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB8, w.biome_colors.length, 1, 0, gl.RGB, gl.UNSIGNED_BYTE, bc);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      r.textures.biome = bt;
      // Rivers: two triangles per segment, offset along the segment's normal in the shader.
      const xy = w.river_xy, off = w.river_offsets;
      let segs = 0;
      for (let s = 0; s + 1 < off.length; s++) segs += Math.max(0, off[s + 1] - off[s] - 1);
      const pos = new Float32Array(segs * 12), nrm = new Float32Array(segs * 12);
      const hw = new Float32Array(segs * 6), z = new Float32Array(segs * 6);
      let k = 0;
      for (let s = 0; s + 1 < off.length; s++) {
        for (let i = off[s]; i + 1 < off[s + 1]; i++) {
          const ax = xy[2 * i], ay = xy[2 * i + 1], bx = xy[2 * i + 2], by = xy[2 * i + 3];
          const len = Math.hypot(bx - ax, by - ay) || 1;
          const nx = -(by - ay) / len, ny = (bx - ax) / len;
          const wa = w.river_width[i] / 2, wb = w.river_width[i + 1] / 2;
          const quad = [[ax, ay, 1, wa, w.river_z[i]], [ax, ay, -1, wa, w.river_z[i]], [bx, by, 1, wb, w.river_z[i + 1]],
            [bx, by, 1, wb, w.river_z[i + 1]], [ax, ay, -1, wa, w.river_z[i]], [bx, by, -1, wb, w.river_z[i + 1]]];
          for (const [px, py, sgn, h, zz] of quad) {
            pos[2 * k] = px; pos[2 * k + 1] = py; nrm[2 * k] = nx * sgn; nrm[2 * k + 1] = ny * sgn;
            hw[k] = h; z[k] = zz; k++;
          }
        }
      }
      r.vaos.river = vertexArray(r.vaos.river, progs.river, [
        ['pos', pos, 2], ['nrm', nrm, 2], ['halfWidth', hw, 1], ['z', z, 1],
      ]);
      r.counts.river = k;
      if (w.flora_xy) {
        r.vaos.point = vertexArray(r.vaos.point, progs.point, [
          ['pos', w.flora_xy, 2], ['species', Float32Array.from(w.flora_species), 1],
        ]);
        r.counts.point = w.flora_species.length;
      }
      gl.bindVertexArray(null);
      r.world = w;
    };

    // ---- matrices (column-major) ----
    function mul(a, b) {
      const o = new Float32Array(16);
      for (let c = 0; c < 4; c++) for (let rr = 0; rr < 4; rr++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += a[k * 4 + rr] * b[c * 4 + k];
        o[c * 4 + rr] = s;
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

    // The flat map's transform: map units (x right, y down) fitted into the canvas.
    r.mapFit = () => {
      const { width: W, height: H } = r.mesh;
      const cw = canvas.width, ch = canvas.height;
      const s = Math.min(cw / W, ch / H);
      return { s, ox: (cw - W * s) / 2, oy: (ch - H * s) / 2 };
    };
    function mapMatrix() {
      const { s, ox, oy } = r.mapFit();
      const cw = canvas.width, ch = canvas.height;
      // clip x = (x s + ox) / cw * 2 - 1; clip y = 1 - (z s + oy) / ch * 2 (z is map y).
      const m = new Float32Array(16);
      m[0] = 2 * s / cw; m[8] = 0; m[12] = 2 * ox / cw - 1;
      m[9] = -2 * s / ch; m[13] = 1 - 2 * oy / ch;
      m[10] = 0; m[15] = 1;
      return m;
    }
    function orbitMatrix(cam) {
      const { width: W, height: H } = r.mesh;
      const span = Math.max(W, H);
      const target = [W / 2, 0, H / 2];
      const d = cam.dist * span;
      const eye = [target[0] + d * Math.cos(cam.pitch) * Math.sin(cam.yaw), d * Math.sin(cam.pitch),
        target[2] + d * Math.cos(cam.pitch) * Math.cos(cam.yaw)];
      return mul(perspective(0.8, canvas.width / canvas.height, 0.01 * span, 20 * span), lookAt(eye, target, [0, 1, 0]));
    }

    // Draws the world: `view` = { mode: '3d' | 'map', layer, rivers, flora, outlines,
    // hillshade, cam: { yaw, pitch, dist }, exaggeration }.
    r.draw = (view) => {
      if (!r.mesh || !r.world || !r.textures.table) return;
      const w = r.world;
      const is3d = view.mode === '3d';
      gl.viewport(0, 0, canvas.width, canvas.height);
      gl.clearColor(0.06, 0.08, 0.1, 1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      const mvp = is3d ? orbitMatrix(view.cam) : mapMatrix();
      const span = Math.max(r.mesh.width, r.mesh.height);
      const hScale = is3d ? 0.08 * span * view.exaggeration / 4 : 0;
      if (is3d) gl.enable(gl.DEPTH_TEST); else gl.disable(gl.DEPTH_TEST);
      const pp = progs.piece;
      gl.useProgram(pp.p);
      gl.uniformMatrix4fv(pp.u.mvp, false, mvp);
      gl.uniform1f(pp.u.hScale, hScale);
      gl.uniform1i(pp.u.mode3d, is3d ? 1 : 0);
      gl.uniform1i(pp.u.nRegions, r.mesh.R);
      gl.uniform1i(pp.u.layer, { colormap: 0, biomes: 1, heightmap: 2 }[view.layer] || 0);
      gl.uniform1f(pp.u.hillStrength, Number(view.hillshade) || 0);
      gl.uniform1f(pp.u.maxH, w.max_height_m);
      gl.uniform1f(pp.u.maxD, w.max_depth_m);
      gl.uniform1f(pp.u.metresPerUnit, w.world_size_m / w.width);
      gl.uniform3fv(pp.u.shallow, w.water_colors.shallow);
      gl.uniform3fv(pp.u.deep, w.water_colors.deep);
      gl.uniform3fv(pp.u.lakeColor, w.water_colors.lake);
      gl.uniform2fv(pp.u.tableSize, r.tableSize);
      const units = [['regionTex', r.textures.region], ['cornerTex', r.textures.corner],
        ['table', r.textures.table], ['biomeColors', r.textures.biome]];
      units.forEach(([name, tex], i) => {
        gl.activeTexture(gl.TEXTURE0 + i);
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.uniform1i(pp.u[name], i);
      });
      gl.bindVertexArray(r.vaos.piece);
      gl.drawArrays(gl.TRIANGLES, 0, r.counts.piece);
      const pxPerUnit = is3d ? canvas.width / span : r.mapFit().s;
      if (view.outlines && !is3d) {
        gl.useProgram(progs.line.p);
        gl.uniformMatrix4fv(progs.line.u.mvp, false, mvp);
        gl.uniform4fv(progs.line.u.color, [0.08, 0.08, 0.08, 1]);
        gl.bindVertexArray(r.vaos.line);
        gl.drawArrays(gl.LINES, 0, r.counts.line);
      }
      if (view.rivers && r.counts.river > 0) {
        const rp = progs.river;
        gl.useProgram(rp.p);
        gl.uniformMatrix4fv(rp.u.mvp, false, mvp);
        gl.uniform1f(rp.u.minHalf, 0.5 / pxPerUnit);
        gl.uniform1f(rp.u.hScale, hScale);
        gl.uniform1i(rp.u.mode3d, is3d ? 1 : 0);
        gl.uniform4fv(rp.u.color, [...w.water_colors.river, 1]);
        gl.bindVertexArray(r.vaos.river);
        gl.drawArrays(gl.TRIANGLES, 0, r.counts.river);
      }
      if (view.flora && w.flora_xy && !is3d) {
        const fp = progs.point;
        gl.useProgram(fp.p);
        gl.uniformMatrix4fv(fp.u.mvp, false, mvp);
        gl.uniform1f(fp.u.size, 2);
        gl.bindVertexArray(r.vaos.point);
        gl.drawArrays(gl.POINTS, 0, r.counts.point);
      }
      gl.bindVertexArray(null);
    };

    // A cheap fingerprint of the drawn pixels (for tests and the page's own checks).
    r.fingerprint = () => {
      const { width, height } = canvas;
      const px = new Uint8Array(width * height * 4);
      gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, px);
      let h = 2166136261;
      for (let i = 0; i < px.length; i += 4) {
        h = Math.imul(h ^ px[i], 16777619) ^ Math.imul(px[i + 1], 31) ^ Math.imul(px[i + 2], 131);
      }
      return (h >>> 0).toString(16);
    };
    // The colour at canvas pixel (x, y) from the top left.
    r.pixel = (x, y) => {
      const px = new Uint8Array(4);
      gl.readPixels(Math.round(x), canvas.height - 1 - Math.round(y), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      return Array.from(px);
    };
    return r;
  }

  return { create };
})();
