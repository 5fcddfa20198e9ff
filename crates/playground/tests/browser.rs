//! The playground end to end in a real headless browser: Debian's `chromium` driven through
//! `chromedriver` with raw W3C WebDriver calls (a small client, `common`). Loopback only.
//!
//! Without chromium or chromedriver the test prints "SKIPPED: chromium not installed" and
//! returns (`.ci/run` installs both).

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
                 return !!s && s.shown === s.requests && s.generation > {after_generation};"
            ),
        );
    }

    fn generation(&self) -> i64 {
        self.js("return window.orogen.state.generation")
            .as_i64()
            .unwrap()
    }

    /// A left click at map point (x, y) (map units; the map is 1 x 1).
    fn click_map(&self, x: f64, y: f64) {
        let map = self.element("#map");
        let rect = self.call("GET", &self.s(&format!("/element/{map}/rect")), &json!({}));
        let (w, h) = (
            rect["width"].as_f64().unwrap(),
            rect["height"].as_f64().unwrap(),
        );
        let origin = json!({ "element-6066-11e4-a52e-4f735466cecf": map });
        let actions = json!({ "actions": [{
            "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
            "actions": [
                { "type": "pointerMove", "origin": origin,
                  "x": ((x - 0.5) * w).round() as i64, "y": ((y - 0.5) * h).round() as i64 },
                { "type": "pointerDown", "button": 0 },
                { "type": "pointerUp", "button": 0 },
            ],
        }]});
        self.call("POST", &self.s("/actions"), &actions);
    }

    fn elevation_at(&self, x: f64, y: f64) -> f64 {
        self.js(&format!("return window.orogen.elevationAt({x}, {y})"))
            .as_f64()
            .expect("an elevation")
    }

    fn land_fraction(&self) -> f64 {
        self.js("const e = window.orogen.state.last.terrain.elevation; \
             return e.filter((v) => v > 0).length / e.length;")
            .as_f64()
            .unwrap()
    }
}

#[test]
fn the_playground_works_in_a_headless_browser() {
    let (Some(chromium), Some(chromedriver)) = (find("chromium"), find("chromedriver")) else {
        eprintln!("SKIPPED: chromium not installed (apt-get install -y chromium chromium-driver)");
        println!("SKIPPED: chromium not installed");
        return;
    };
    let server = orogen_playground::spawn("127.0.0.1:0").expect("bind loopback");
    let downloads = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start(&chromium, &chromedriver, downloads.path(), profile.path());

    // Load the page: the first world appears.
    driver.call(
        "POST",
        &driver.s("/url"),
        &json!({ "url": format!("http://{server}/") }),
    );
    driver.wait_idle(0);
    let first_map = driver.js("return document.getElementById('layer-colormap').src");
    assert!(first_map.as_str().unwrap().starts_with("data:image/png"));
    let first_land = driver.land_fraction();
    let timings = driver.js("return document.getElementById('timings').textContent");
    assert!(timings.as_str().unwrap().contains("elevation"), "{timings}");

    // Move the water-level slider down with the keyboard, to 0: the map changes, land grows.
    let slider = driver.element("#water-level");
    let g = driver.generation();
    let left = "\u{E012}".repeat(40);
    driver.call(
        "POST",
        &driver.s(&format!("/element/{slider}/value")),
        &json!({ "text": left }),
    );
    driver.wait_idle(g);
    assert_eq!(
        driver.js("return document.getElementById('water-level').value"),
        json!("0")
    );
    let map = driver.js("return document.getElementById('layer-colormap').src");
    assert_ne!(map, first_map, "the map changed");
    assert!(driver.land_fraction() > first_land, "less water, more land");

    // Custom layout: choose it, then click the map to place anchors where land appears.
    let option = driver.element("#layout option[value=custom]");
    driver.call(
        "POST",
        &driver.s(&format!("/element/{option}/click")),
        &json!({}),
    );
    assert_eq!(
        driver.js("return document.getElementById('layout').value"),
        json!("custom")
    );
    let g = driver.generation();
    driver.click_map(0.25, 0.25);
    driver.wait_idle(g);
    assert_eq!(
        driver.js("return window.orogen.state.anchors.length"),
        json!(1)
    );
    assert!(driver.elevation_at(0.25, 0.25) > 0.0, "land at the anchor");
    // Far from the only anchor (falloff (0.71 / 0.5)^2 > 1) is sea, whatever the noise.
    assert!(driver.elevation_at(0.75, 0.75) < 0.0, "sea far from it");
    let g = driver.generation();
    driver.click_map(0.75, 0.75);
    driver.wait_idle(g);
    assert_eq!(
        driver.js("return window.orogen.state.anchors.length"),
        json!(2)
    );
    assert!(
        driver.elevation_at(0.75, 0.75) > 0.0,
        "land appeared at the new anchor"
    );

    // Download the bundle and find its files.
    let link = driver.element("#download");
    driver.call(
        "POST",
        &driver.s(&format!("/element/{link}/click")),
        &json!({}),
    );
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
        2,
        "the bundle is what is on screen"
    );
    assert_eq!(config.world.water_level, 0.0);
    drop(driver);
}
