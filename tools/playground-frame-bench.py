#!/usr/bin/env python3
"""Input-to-frame time of the playground page, measured in a real headless Chromium.

Usage: start `target/release/orogen serve --port PORT`, then
    python3 tools/playground-frame-bench.py PORT [CELLS]
(Debian's `chromium` and `chromedriver` on PATH). It opens the page, sets the world to CELLS
regions (default 25,000), then moves the water-level slider 20 times and the seed 20 times, one
change at a time, and prints the medians of the page's own figures: the server time of each
answer (`total_ms`) and the input-to-frame time the page measures with `performance.now()`,
from the control's input event to the animation frame after the new world is drawn.

Headless Chromium draws WebGL in software (SwiftShader), so the frame part is slower than on a
GPU; the figure is an upper bound for a desktop browser.
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

port = int(sys.argv[1])
cells = int(sys.argv[2]) if len(sys.argv) > 2 else 25000


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def call(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=120).read())["value"]


for tool in ("chromium", "chromedriver"):
    if shutil.which(tool) is None:
        sys.exit(f"{tool} not found: apt-get install chromium chromium-driver")
dport = free_port()
driver = subprocess.Popen(["chromedriver", f"--port={dport}", "--allowed-ips=127.0.0.1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{dport}"
profile = tempfile.mkdtemp(prefix="orogen-frame-bench-")
try:
    for _ in range(100):
        try:
            if call(base, "GET", "/status")["ready"]:
                break
        except OSError:
            pass
        time.sleep(0.1)
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--no-first-run",
            "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"]
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": shutil.which("chromium"), "args": args}}}}
    req = urllib.request.Request(base + "/session", data=json.dumps(caps).encode(),
                                 headers={"Content-Type": "application/json"})
    session = json.loads(urllib.request.urlopen(req, timeout=120).read())["value"]["sessionId"]
    s = f"/session/{session}"

    def js(script):
        return call(base, "POST", s + "/execute/sync", {"script": script, "args": []})

    def settled(after):
        # The newest input is on screen: no request in flight or pending, the input's time
        # taken (inputAt cleared at the frame after drawing).
        deadline = time.time() + 120
        while time.time() < deadline:
            if js("const s = window.orogen && window.orogen.state; return !!s && !s.inflight"
                  f" && !s.pending && s.inputAt === null && s.generation > {after};"):
                return
            time.sleep(0.02)
        sys.exit("the page did not settle: " + str(js("return document.getElementById('status').textContent")))

    def change(control, value):
        # Sliders answer 'input'; the seed and cell-count boxes 'change'.
        g = js("return window.orogen.state.generation")
        js(f"const i = document.getElementById('{control}'); i.value = {value};"
           " i.dispatchEvent(new Event(i.type === 'range' ? 'input' : 'change'));")
        settled(g)
        return js("const p = window.orogen.state.perf; return [p.server[p.server.length - 1],"
                  " p.frame[p.frame.length - 1]];")

    call(base, "POST", s + "/url", {"url": f"http://127.0.0.1:{port}/"})
    settled(0)
    change("cells", cells)
    change("seed", 1)
    for what, control, values in [
        ("water level", "p-world_water_level", [0.30 + 0.005 * i for i in range(21)]),
        ("new seed", "seed", [100 + i for i in range(21)]),
    ]:
        got = [change(control, v) for v in values][1:]
        server = statistics.median(g[0] for g in got)
        frame = statistics.median(g[1] for g in got)
        print(f"{what}, {cells} cells, median of {len(got)}: server {server:.1f} ms, "
              f"input to frame {frame:.1f} ms")
    call(base, "DELETE", s)
finally:
    driver.kill()
    driver.wait()
    shutil.rmtree(profile, ignore_errors=True)
