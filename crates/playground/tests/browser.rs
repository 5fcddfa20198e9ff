//! The playground end to end in a real headless browser: Debian's `chromium` driven through
//! `chromedriver` with raw W3C WebDriver calls (a small client, `common`). Loopback only.
//!
//! Without chromium or chromedriver the test fails under `CI` with one line naming what to
//! install (`.ci/run` installs both); elsewhere it prints "SKIPPED: ..." and returns.
//!
//! With `OROGEN_SCREENSHOTS=DIR` set, it saves the page at each step as PNGs in DIR.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A chromedriver process and one browser session; both end on drop.
struct Driver {
    child: Child,
    addr: SocketAddr,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = common::request(self.addr, "DELETE", &path, "application/json", b"");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start(chromium: &Path, chromedriver: &Path, downloads: &Path, profile: &Path) -> Driver {
        let port = free_port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let mut driver = Driver {
            child,
            addr,
            session: String::new(),
        };
        let start = Instant::now();
        loop {
            let ready = common::request(addr, "GET", "/status", "application/json", b"")
                .ok()
                .filter(|r| r.status == 200)
                .is_some_and(|r| r.json()["value"]["ready"] == json!(true));
            if ready {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            // WebGL in software (SwiftShader): Chromium 137 and later no longer fall back to
            // it on their own, and the page draws only with WebGL2.
            "--enable-unsafe-swiftshader",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1400,1000",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.display().to_string(),
                "args": args,
                "prefs": {
                    "download.default_directory": downloads.display().to_string(),
                    "download.prompt_for_download": false,
                },
            },
        }}});
        let r = driver.call("POST", "/session", &caps);
        driver.session = r["sessionId"].as_str().expect("a session id").to_owned();
        // Allow downloads into our folder in headless mode too.
        let _ = driver.try_call(
            "POST",
            &format!("/session/{}/goog/cdp/execute", driver.session),
            &json!({ "cmd": "Page.setDownloadBehavior",
                     "params": { "behavior": "allow", "downloadPath": downloads.display().to_string() } }),
        );
        driver
    }

    fn try_call(&self, method: &str, path: &str, body: &Value) -> Result<Value, String> {
        let r = common::request(
            self.addr,
            method,
            path,
            "application/json",
            body.to_string().as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        let v = r.json();
        if r.status != 200 {
            return Err(format!("{method} {path}: {} {v}", r.status));
        }
        Ok(v["value"].clone())
    }

    fn call(&self, method: &str, path: &str, body: &Value) -> Value {
        let r = common::request(
            self.addr,
            method,
            path,
            "application/json",
            body.to_string().as_bytes(),
        )
        .expect("webdriver call");
        let v = r.json();
        assert_eq!(r.status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn s(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            &self.s("/execute/sync"),
            &json!({ "script": script, "args": [] }),
        )
    }

    fn element(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            &self.s("/element"),
            &json!({ "using": "css selector", "value": css }),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("an element id")
            .to_owned()
    }

    /// Waits (bounded) until `script` returns true.
    fn wait_for(&self, what: &str, script: &str) {
        let start = Instant::now();
        while self.js(script) != json!(true) {
            let status = self.js("return document.getElementById('status').textContent");
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "timed out waiting for {what} (status: {status})"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the page shows the answer to its newest request.
    fn wait_idle(&self, after_generation: i64) {
        self.wait_for(
            "the newest generation",
            &format!(
                "const s = window.orogen && window.orogen.state; \
                 return !!s && !s.inflight && !s.pending && s.shown === s.requests \
                 && s.generation > {after_generation};"
            ),
        );
    }

    fn generation(&self) -> i64 {
        self.js("return window.orogen.state.generation")
            .as_i64()
            .unwrap()
    }

    /// The pointer offset from the canvas centre of map point (x, y), on the flat map.
    fn map_offset(&self, x: f64, y: f64) -> (i64, i64) {
        let v = self.js(&format!(
            "const c = document.getElementById('gl'); const p = window.orogen.mapToCanvas({x}, {y}); \
             return [p[0] - c.clientWidth / 2, p[1] - c.clientHeight / 2];"
        ));
        (
            v[0].as_f64().unwrap().round() as i64,
            v[1].as_f64().unwrap().round() as i64,
        )
    }

    fn pointer(&self, actions: Value) {
        let body = json!({ "actions": [{
            "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
            "actions": actions,
        }]});
        self.call("POST", &self.s("/actions"), &body);
        self.call("DELETE", &self.s("/actions"), &json!({}));
    }

    fn origin(&self) -> Value {
        json!({ "element-6066-11e4-a52e-4f735466cecf": self.element("#gl") })
    }

    /// A left click at map point (x, y) on the flat map.
    fn click_map(&self, x: f64, y: f64) {
        let (dx, dy) = self.map_offset(x, y);
        self.pointer(json!([
            { "type": "pointerMove", "origin": self.origin(), "x": dx, "y": dy },
            { "type": "pointerDown", "button": 0 },
            { "type": "pointerUp", "button": 0 },
        ]));
    }

    /// Drags from map point `a` to map point `b` on the flat map, in steps.
    fn drag_map(&self, a: (f64, f64), b: (f64, f64)) {
        let (ax, ay) = self.map_offset(a.0, a.1);
        let (bx, by) = self.map_offset(b.0, b.1);
        let mut actions = vec![
            json!({ "type": "pointerMove", "origin": self.origin(), "x": ax, "y": ay }),
            json!({ "type": "pointerDown", "button": 0 }),
        ];
        for k in 1..=8 {
            let t = k as f64 / 8.0;
            actions.push(
                json!({ "type": "pointerMove", "origin": self.origin(), "duration": 30,
                "x": ax + ((bx - ax) as f64 * t).round() as i64,
                "y": ay + ((by - ay) as f64 * t).round() as i64 }),
            );
        }
        actions.push(json!({ "type": "pointerUp", "button": 0 }));
        self.pointer(Value::Array(actions));
    }

    fn elevation_at(&self, x: f64, y: f64) -> f64 {
        self.js(&format!("return window.orogen.elevationAt({x}, {y})"))
            .as_f64()
            .expect("an elevation")
    }

    fn land_fraction(&self) -> f64 {
        self.js("return window.orogen.landFraction()")
            .as_f64()
            .unwrap()
    }

    fn fingerprint(&self) -> String {
        self.js("return window.orogen.fingerprint()")
            .as_str()
            .expect("a fingerprint")
            .to_owned()
    }

    fn requests(&self) -> i64 {
        self.js("return window.orogen.state.requests")
            .as_i64()
            .unwrap()
    }

    /// Presses a key `n` times in the control `css`.
    fn keys(&self, css: &str, key: &str, n: usize) {
        let el = self.element(css);
        self.call(
            "POST",
            &self.s(&format!("/element/{el}/value")),
            &json!({ "text": key.repeat(n) }),
        );
    }

    fn click(&self, css: &str) {
        let el = self.element(css);
        self.call("POST", &self.s(&format!("/element/{el}/click")), &json!({}));
    }

    /// Runs `act` (a change that reaches the server), waits for its world, and checks that
    /// the drawn pixels changed.
    fn changes_the_picture(&self, what: &str, act: impl FnOnce(&Driver)) {
        let before = self.fingerprint();
        let g = self.generation();
        act(self);
        self.wait_idle(g);
        self.screenshot(what);
        assert_ne!(
            self.fingerprint(),
            before,
            "{what}: the drawn pixels did not change"
        );
    }

    /// A view-only change: the pixels change and no request goes to the server.
    fn changes_the_view(&self, what: &str, act: impl FnOnce(&Driver)) {
        let before = self.fingerprint();
        let sent = self.requests();
        act(self);
        self.screenshot(what);
        assert_ne!(
            self.fingerprint(),
            before,
            "{what}: the drawn pixels did not change"
        );
        assert_eq!(
            self.requests(),
            sent,
            "{what}: a view change went to the server"
        );
    }

    fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("OROGEN_SCREENSHOTS") else {
            return;
        };
        use base64::Engine;
        let png = self.call("GET", &self.s("/screenshot"), &json!({}));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        let file = name.replace(|c: char| !c.is_ascii_alphanumeric(), "-");
        std::fs::write(
            Path::new(&dir).join(format!("playground-{file}.png")),
            bytes,
        )
        .unwrap();
    }

    /// Errors the page logged (console.error and uncaught errors), recorded from the start.
    fn console_errors(&self) -> Value {
        self.js("return (window.__consoleErrors || []).concat(window.orogen.state.errors)")
    }
}

/// What the test needs, or one line naming what to install: under `CI` a failure, elsewhere a
/// loud skip.
fn browser_or_skip() -> Option<(PathBuf, PathBuf)> {
    if let (Some(chromium), Some(chromedriver)) = (find("chromium"), find("chromedriver")) {
        return Some((chromium, chromedriver));
    }
    let line =
        "chromium or chromedriver not installed (apt-get install -y chromium chromium-driver)";
    assert!(std::env::var_os("CI").is_none(), "{line}");
    eprintln!("SKIPPED: {line}");
    None
}

#[test]
fn the_playground_works_in_a_headless_browser() {
    let Some((chromium, chromedriver)) = browser_or_skip() else {
        return;
    };
    let server = orogen_playground::spawn("127.0.0.1:0").expect("bind loopback");
    let downloads = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start(&chromium, &chromedriver, downloads.path(), profile.path());
    // Record console errors from the first script on.
    driver.call(
        "POST",
        &driver.s("/goog/cdp/execute"),
        &json!({ "cmd": "Page.addScriptToEvaluateOnNewDocument", "params": { "source":
            "window.__consoleErrors = []; const e = console.error.bind(console); \
             console.error = (...a) => { window.__consoleErrors.push(a.map(String).join(' ')); e(...a); }; \
             window.addEventListener('error', (ev) => window.__consoleErrors.push(String(ev.message)));" } }),
    );

    // Load the page: the first world appears in the 3-D view.
    driver.call(
        "POST",
        &driver.s("/url"),
        &json!({ "url": format!("http://{server}/") }),
    );
    driver.wait_idle(0);
    driver.screenshot("3d");
    assert_eq!(driver.js("return document.body.dataset.view"), json!("3d"));
    let timings = driver.js("return document.getElementById('timings').textContent");
    assert!(timings.as_str().unwrap().contains("elevation"), "{timings}");
    let perf = driver.js("return document.getElementById('perf').textContent");
    assert!(perf.as_str().unwrap().contains("server"), "{perf}");
    // A land pixel is not the background: something is drawn.
    let centre = driver.js(
        "const c = document.getElementById('gl'); return window.orogen.pixel(c.width / 2, c.height / 2)",
    );
    assert_ne!(centre, json!([15, 20, 26, 255]), "the 3-D view is empty");

    // 3-D orbit (drag) and zoom (wheel) redraw without the server.
    driver.changes_the_view("orbit", |d| {
        d.pointer(json!([
            { "type": "pointerMove", "origin": d.origin(), "x": 0, "y": 0 },
            { "type": "pointerDown", "button": 0 },
            { "type": "pointerMove", "origin": d.origin(), "x": 120, "y": 30, "duration": 100 },
            { "type": "pointerUp", "button": 0 },
        ]));
    });
    driver.changes_the_view("zoom", |d| {
        let body = json!({ "actions": [{ "type": "wheel", "id": "wheel", "actions": [
            { "type": "scroll", "origin": d.origin(), "x": 0, "y": 0, "deltaX": 0, "deltaY": 400 },
        ]}]});
        d.call("POST", &d.s("/actions"), &body);
    });
    // The flat map is one click away.
    driver.changes_the_view("flat map", |d| d.click("#view-toggle"));
    assert_eq!(driver.js("return document.body.dataset.view"), json!("map"));

    // One control of every panel changes the picture.
    let first_land = driver.land_fraction();
    driver.changes_the_picture("world: water level", |d| {
        d.keys("#p-world_water_level", "\u{E011}", 1)
    });
    assert_eq!(
        driver.js("return document.getElementById('p-world_water_level').value"),
        json!("0")
    );
    assert!(driver.land_fraction() > first_land, "less water, more land");
    driver.changes_the_picture("mesh: lloyd iterations", |d| {
        d.keys("#p-mesh_lloyd_iterations", "\u{E014}", 2)
    });
    driver.changes_the_picture("moisture: wetness", |d| {
        d.keys("#p-biome_wetness", "\u{E014}", 30)
    });
    driver.changes_the_picture("rivers: width", |d| {
        d.keys(
            "#params-rivers input[id$=width_per_sqrt_km2_m]",
            "\u{E010}",
            1,
        )
    });
    driver.changes_the_picture("flora: show plants", |d| d.click("#show-flora"));
    driver.changes_the_picture("flora: density", |d| {
        d.keys("#p-flora_density_scale", "\u{E011}", 1)
    });
    driver.changes_the_view("view: biomes layer", |d| {
        d.click("#layer option[value=biomes]")
    });
    driver.changes_the_view("view: heightmap layer", |d| {
        d.click("#layer option[value=heightmap]")
    });
    driver.click("#layer option[value=colormap]");
    // The relief strength to its greatest (on either way: the strength itself must show), then
    // to 0: shading off.
    driver.changes_the_view("view: hillshade strength", |d| {
        d.keys("#p-export_hillshade", "\u{E010}", 1)
    });
    driver.changes_the_view("view: hillshade", |d| {
        d.keys("#p-export_hillshade", "\u{E011}", 1)
    });
    driver.changes_the_view("view: outlines", |d| d.click("#show-outlines"));
    driver.click("#show-outlines");

    // Custom layout: place an anchor, then drag it across the map.
    driver.click("#layout option[value=custom]");
    assert_eq!(driver.js("return document.body.dataset.view"), json!("map"));
    let g = driver.generation();
    driver.click_map(0.25, 0.25);
    driver.wait_idle(g);
    assert_eq!(
        driver.js("return window.orogen.state.anchors.length"),
        json!(1)
    );
    assert!(driver.elevation_at(0.25, 0.25) > 0.0, "land at the anchor");
    // Far from the only anchor (falloff (0.64 / 0.5)^2 > 1) is sea, whatever the noise.
    assert!(driver.elevation_at(0.7, 0.7) < 0.0, "sea far from it");
    driver.changes_the_picture("anchor drag", |d| d.drag_map((0.25, 0.25), (0.7, 0.7)));
    let anchor = driver.js("return window.orogen.state.anchors[0]");
    let (ax, ay) = (anchor[0].as_f64().unwrap(), anchor[1].as_f64().unwrap());
    assert!(
        (ax - 0.7).abs() < 0.03 && (ay - 0.7).abs() < 0.03,
        "the anchor moved: {anchor}"
    );
    assert_eq!(
        driver.js("return window.orogen.state.anchors.length"),
        json!(1)
    );
    assert!(
        driver.elevation_at(0.7, 0.7) > 0.0,
        "land followed the anchor"
    );
    assert!(
        driver.elevation_at(0.25, 0.25) < 0.0,
        "and left its old place"
    );

    // Download the bundle and find its files: what is on screen.
    driver.click("#download");
    let start = Instant::now();
    let zip_path = loop {
        let found = std::fs::read_dir(downloads.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "zip"));
        if let Some(p) = found {
            break p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no zip downloaded"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    std::thread::sleep(Duration::from_millis(300));
    let bytes = std::fs::read(&zip_path).unwrap();
    let names = common::zip_names(&bytes);
    for name in [
        "colormap.png",
        "heightmap.png",
        "biomes.png",
        "world.json",
        "config.toml",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes[..])).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("config.toml").unwrap(), &mut text).unwrap();
    let config = orogen::Config::from_toml(&text, "config.toml").unwrap();
    assert_eq!(
        config.elevation.anchors.len(),
        1,
        "the bundle is what is on screen"
    );
    assert_eq!(config.world.water_level, 0.0);
    assert_eq!(
        config.export.hillshade, 0.0,
        "the relief was turned off on screen"
    );

    let errors = driver.console_errors();
    assert_eq!(errors, json!([]), "the page logged errors");
    drop(driver);
}
