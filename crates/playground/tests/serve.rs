//! `orogen serve`: the API on a real socket (127.0.0.1, port 0).

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use common::{get, post_json, raw, request, zip_names};
use orogen_playground::caps::{CAPS, Cap};
use serde_json::{Value, json};

/// One server for the whole test binary.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| orogen_playground::spawn("127.0.0.1:0").expect("bind loopback"))
}

fn small(session: &str, config: Value) -> Value {
    json!({ "session": session, "resolution": 64, "config": config })
}

/// A decoded answer of `/api/generate`: its header and its arrays' bytes by name.
#[derive(Debug)]
struct World {
    header: Value,
    arrays: BTreeMap<String, Vec<u8>>,
}

impl World {
    fn decode(body: &[u8]) -> World {
        assert_eq!(&body[..4], b"OROG", "magic");
        let h = u32::from_le_bytes(body[4..8].try_into().unwrap()) as usize;
        let header: Value = serde_json::from_slice(&body[8..8 + h]).expect("a JSON header");
        let mut arrays = BTreeMap::new();
        for (name, a) in header["arrays"].as_object().unwrap() {
            let offset = a["offset"].as_u64().unwrap() as usize;
            let size = match a["type"].as_str().unwrap() {
                "f32" | "u32" => 4,
                "u8" => 1,
                other => panic!("type {other}"),
            };
            assert_eq!(offset % 4, 0, "{name} is aligned");
            let len = a["length"].as_u64().unwrap() as usize * size;
            arrays.insert(name.clone(), body[offset..offset + len].to_vec());
        }
        World { header, arrays }
    }

    fn f32s(&self, name: &str) -> Vec<f32> {
        self.arrays[name]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn u32s(&self, name: &str) -> Vec<u32> {
        self.arrays[name]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.arrays.contains_key(name)
    }

    fn land(&self) -> usize {
        self.f32s("region_elevation")
            .iter()
            .filter(|&&e| e > 0.0)
            .count()
    }
}

fn generate(addr: SocketAddr, body: &Value) -> World {
    let r = post_json(addr, "/api/generate", body);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("application/octet-stream"));
    World::decode(&r.body)
}

#[test]
fn serves_the_page_its_scripts_and_the_parameter_table() {
    let addr = server();
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    let html = String::from_utf8(page.body).unwrap();
    for id in [
        "id=\"gl\"",
        "id=\"layout\"",
        "id=\"view-toggle\"",
        "id=\"download\"",
    ] {
        assert!(html.contains(id), "page lacks {id}");
    }
    for script in ["/app.js", "/gl.js"] {
        let js = get(addr, script);
        assert_eq!(js.status, 200, "{script}");
        assert!(js.header("content-type").unwrap().contains("javascript"));
    }
    assert_eq!(get(addr, "/style.css").status, 200);
    assert_eq!(get(addr, "/nope").status, 404);
    let defaults = get(addr, "/api/defaults").json();
    assert_eq!(
        defaults["config"]["world"]["seed"],
        json!(orogen::Config::default().world.seed)
    );
    assert_eq!(
        defaults["max_cells"],
        json!(orogen_playground::MAX_SERVE_CELLS)
    );
    let params = get(addr, "/api/params").json();
    let rows = params.as_array().expect("an array");
    let keys = [
        "path", "doc", "default", "min", "max", "choices", "unit", "flag",
    ];
    for row in rows {
        let mut have: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        have.sort_unstable();
        let mut want = keys.to_vec();
        want.sort_unstable();
        assert_eq!(have, want, "{row}");
    }
    // The river controls come from the config's real section, whatever its name.
    let section = if defaults["config"].get("hydrology").is_some() {
        "hydrology."
    } else {
        "rivers."
    };
    let rivers: Vec<&Value> = rows
        .iter()
        .filter(|r| r["path"].as_str().unwrap().starts_with(section))
        .collect();
    assert!(rivers.len() >= 4, "river parameters: {rivers:?}");
    for r in rivers {
        let path = r["path"].as_str().unwrap();
        let default = path
            .split('.')
            .try_fold(&defaults["config"], |v, k| v.get(k))
            .unwrap_or_else(|| panic!("{path} is not in the config"));
        assert_eq!(&r["default"], default, "{path}");
    }
}

#[test]
fn sends_the_world_as_typed_arrays_and_the_mesh_and_table_once() {
    let addr = server();
    let body = small("arrays", json!({ "world": { "cells": 3000, "seed": 5 } }));
    let w = generate(addr, &body);
    assert_eq!(w.header["seed"], json!(5));
    let (r, c) = (
        w.header["cells"].as_u64().unwrap() as usize,
        w.header["corners"].as_u64().unwrap() as usize,
    );
    assert!(r >= 3000 && c > r);
    assert_eq!(w.f32s("region_xy").len(), 2 * r);
    assert_eq!(w.f32s("corner_xy").len(), 2 * c);
    assert_eq!(w.u32s("corner_regions").len(), 3 * c);
    assert!(w.u32s("corner_regions").iter().all(|&x| (x as usize) < r));
    assert_eq!(w.f32s("region_elevation").len(), r);
    assert_eq!(w.f32s("corner_elevation").len(), c);
    assert_eq!(w.f32s("region_moisture").len(), r);
    assert_eq!(w.arrays["region_water"].len(), r);
    assert_eq!(w.arrays["region_biome"].len(), r);
    let shape = &w.header["table_shape"];
    let (rows, cols) = (shape[0].as_u64().unwrap(), shape[1].as_u64().unwrap());
    assert_eq!(w.arrays["table"].len() as u64, rows * cols * 3);
    let land = w.land();
    assert!(land > 0 && land < r, "a world has land and water");
    // River strokes: offsets bound the points; each stroke has two points or more.
    let offsets = w.u32s("river_offsets");
    let points = w.f32s("river_xy").len() / 2;
    assert_eq!(*offsets.last().unwrap() as usize, points);
    assert!(offsets.windows(2).all(|p| p[1] >= p[0] + 2));
    assert!(offsets.len() > 1, "the default world has rivers");
    assert_eq!(w.f32s("river_width").len(), points);
    assert!(!w.has("flora_xy"), "no plants unless asked");
    // Holding the mesh and table, the page gets neither again, and the same world.
    let mut again = body.clone();
    again["mesh"] = w.header["mesh_key"].clone();
    again["table"] = w.header["table_key"].clone();
    let w2 = generate(addr, &again);
    assert!(!w2.has("region_xy") && !w2.has("corner_regions") && !w2.has("table"));
    assert_eq!(w2.header["mesh_cached"], json!(true));
    assert_eq!(w2.arrays["region_elevation"], w.arrays["region_elevation"]);
    assert_eq!(w2.arrays["river_xy"], w.arrays["river_xy"]);
    // Plants when asked.
    let mut flora = again.clone();
    flora["flora"] = json!(true);
    let w3 = generate(addr, &flora);
    assert!(w3.arrays["flora_species"].len() > 100);
    assert_eq!(
        w3.f32s("flora_xy").len(),
        2 * w3.arrays["flora_species"].len()
    );
}

#[test]
fn a_water_level_change_reuses_the_mesh_and_noise_and_gives_the_fresh_world() {
    let addr = server();
    let config =
        |water: f64| json!({ "world": { "cells": 4000, "seed": 901, "water_level": water } });
    let first = generate(addr, &small("cache", config(0.35)));
    let wetter = generate(addr, &small("cache", config(0.5)));
    assert_eq!(wetter.header["mesh_cached"], json!(true));
    assert!(
        wetter.land() < first.land(),
        "a higher water level drowns land"
    );
    // What the server reused gives exactly the world of a fresh run.
    let fresh: orogen::Config = serde_json::from_value(config(0.5)).unwrap();
    let world = orogen::generate(&fresh).unwrap();
    let bytes = |name: &str| -> Vec<u8> {
        world
            .view::<f32>(name)
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    };
    assert_eq!(wetter.arrays["region_elevation"], bytes("region_elevation"));
    assert_eq!(wetter.arrays["region_moisture"], bytes("region_moisture"));
    let water: Vec<u8> = world
        .view::<u8>("region_water")
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_eq!(wetter.arrays["region_water"], water);
    let other = generate(
        addr,
        &small("cache", json!({ "world": { "cells": 4000, "seed": 902 } })),
    );
    assert_eq!(other.header["mesh_cached"], json!(false));
    // A new mesh starts from the last one's kept parts (the colour table serves again): still
    // the fresh world.
    let fresh: orogen::Config =
        serde_json::from_value(json!({ "world": { "cells": 4000, "seed": 902 } })).unwrap();
    let world = orogen::generate(&fresh).unwrap();
    let moisture: Vec<u8> = world
        .view::<f32>("region_moisture")
        .unwrap()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(other.arrays["region_moisture"], moisture);
    assert_eq!(
        other.arrays["region_biome"],
        world.view1::<u8>("region_biome").unwrap().to_vec()
    );
    assert_eq!(other.arrays["table"], first.arrays["table"]);
}

#[test]
fn bad_parameters_get_400_with_a_message() {
    let addr = server();
    let cases: &[(Value, &str)] = &[
        (
            small("bad", json!({ "world": { "cells": 10_000_000 } })),
            "cells",
        ),
        (small("bad", json!({ "world": { "cells": 2 } })), "cells"),
        (
            small("bad", json!({ "world": { "water_level": 1.5 } })),
            "water_level",
        ),
        (small("bad", json!({ "world": { "seed": -1 } })), "JSON"),
        (small("bad", json!({ "world": { "sede": 1 } })), "sede"),
        (
            small("bad", json!({ "elevation": { "layout": "custom" } })),
            "anchors",
        ),
        (
            small(
                "bad",
                json!({ "elevation": { "layout": "custom", "anchors": [[2.0, 0.5]] } }),
            ),
            "anchors",
        ),
        (
            small("bad", json!({ "elevation": { "fbm": { "octaves": 99 } } })),
            "octaves",
        ),
        (
            small("bad", json!({ "elevation": { "layout": "moon" } })),
            "JSON",
        ),
        (
            small("bad", json!({ "mesh": { "lloyd_iterations": 1000 } })),
            "lloyd",
        ),
        (small("bad", json!({ "preset": "classic" })), "classic"),
        (json!({ "resolution": 100_000 }), "resolution"),
        (json!({ "resolution": 0 }), "resolution"),
        (json!({ "config": {}, "extra": 1 }), "extra"),
        (json!([1, 2, 3]), "JSON"),
    ];
    for (body, needle) in cases {
        for route in ["/api/generate", "/api/bundle"] {
            let r = post_json(addr, route, body);
            assert_eq!(
                r.status,
                400,
                "{route} {body}: {}",
                String::from_utf8_lossy(&r.body)
            );
            let message = r.json()["error"].as_str().unwrap().to_owned();
            assert!(
                message.contains(needle),
                "{body}: `{message}` lacks `{needle}`"
            );
        }
    }
    let r = request(
        addr,
        "POST",
        "/api/generate",
        "application/json",
        b"{\"world\":",
    )
    .unwrap();
    assert_eq!(r.status, 400);
    let big = vec![b' '; orogen_playground::MAX_BODY_BYTES + 10];
    let r = request(addr, "POST", "/api/generate", "application/json", &big).unwrap();
    assert_eq!(r.status, 413);
}

/// Sets `path` (with `[]` meaning the first element) in a JSON config to `value`.
fn set(config: &mut Value, path: &str, value: Value) {
    let mut v = config;
    let keys: Vec<&str> = path.split('.').collect();
    for (i, key) in keys.iter().enumerate() {
        let last = i + 1 == keys.len();
        if let Some(list) = key.strip_suffix("[]") {
            v = &mut v[list][0];
        } else if last {
            v[*key] = value.clone();
        } else {
            v = &mut v[*key];
        }
    }
}

#[test]
fn every_capped_parameter_is_refused_above_its_cap_naming_it_and_the_cap() {
    let addr = server();
    let defaults = serde_json::to_value(orogen::Config::default()).unwrap();
    let section = if defaults.get("hydrology").is_some() {
        "hydrology."
    } else {
        "rivers."
    };
    let mut tried = 0;
    for &(path, cap) in CAPS {
        if (path.starts_with("rivers.") || path.starts_with("hydrology."))
            && !path.starts_with(section)
        {
            continue;
        }
        let mut config = defaults.clone();
        config["world"]["cells"] = json!(500);
        let (value, limit) = match cap {
            Cap::Value(limit) => (json!(limit + 1), limit),
            Cap::Len(limit) => {
                // The list's first element, repeated one past the cap.
                // The default list, then copies of its first entry up to one past the cap
                // (named entries get new names: the config refuses twins first).
                let default = path
                    .split('.')
                    .try_fold(&defaults, |v, k| match k.strip_suffix("[]") {
                        Some(list) => v.get(list).and_then(|l| l.get(0)),
                        None => v.get(k),
                    })
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let first = default.first().cloned().unwrap_or(json!([0.5, 0.5]));
                let mut list = default;
                for i in list.len()..=limit as usize {
                    let mut item = first.clone();
                    if let Some(name) = item.get("name").and_then(Value::as_str) {
                        item["name"] = json!(format!("{name}{i}"));
                    }
                    list.push(item);
                }
                (Value::Array(list), limit)
            }
        };
        let body = if path == "export.resolution" {
            json!({ "resolution": limit + 1, "config": { "world": { "cells": 500 } } })
        } else {
            set(&mut config, path, value);
            json!({ "session": "caps", "config": config })
        };
        let r = post_json(addr, "/api/generate", &body);
        assert_eq!(
            r.status,
            400,
            "{path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let message = r.json()["error"].as_str().unwrap().to_owned();
        let name = path.replace("[]", "[0]");
        let name = if path == "export.resolution" {
            "resolution"
        } else {
            name.as_str()
        };
        assert!(message.contains(name), "{path}: `{message}`");
        assert!(message.contains(&limit.to_string()), "{path}: `{message}`");
        tried += 1;
    }
    assert!(tried >= 20, "{tried} caps tried");
}

#[test]
fn cross_origin_wrong_host_and_non_json_requests_are_refused() {
    let addr = server();
    let body = small("door", json!({ "world": { "cells": 500 } })).to_string();
    let send = |host: &str, extra: &str, content_type: &str| {
        let bytes = format!(
            "POST /api/generate HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\
             Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        raw(addr, bytes.as_bytes(), Duration::from_secs(60), false).unwrap()
    };
    let me = addr.to_string();
    assert_eq!(send(&me, "", "application/json").status, 200);
    assert_eq!(
        send(
            &format!("localhost:{}", addr.port()),
            "",
            "application/json"
        )
        .status,
        200
    );
    assert_eq!(
        send(&me, &format!("Origin: http://{me}\r\n"), "application/json").status,
        200
    );
    // A DNS name rebound to this machine, another port, a foreign page, a form, an <img>.
    for (host, extra, ct, status) in [
        ("attacker.example:80", "", "application/json", 403),
        (
            &*format!("attacker.example:{}", addr.port()),
            "",
            "application/json",
            403,
        ),
        ("127.0.0.1:1", "", "application/json", 403),
        (
            &*me,
            "Origin: http://attacker.example\r\n",
            "application/json",
            403,
        ),
        (&*me, "Origin: null\r\n", "application/json", 403),
        (
            &*me,
            "Sec-Fetch-Site: cross-site\r\n",
            "application/json",
            403,
        ),
        (&*me, "", "text/plain", 415),
        (&*me, "", "application/x-www-form-urlencoded", 415),
    ] {
        let r = send(host, extra, ct);
        assert_eq!(
            r.status,
            status,
            "{host} {extra} {ct}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert!(r.json()["error"].is_string());
    }
    // Even the page and the GET routes check the Host.
    let r = raw(
        addr,
        b"GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
        Duration::from_secs(10),
        false,
    )
    .unwrap();
    assert_eq!(r.status, 403);
    // The bundle is a POST: a link or <img> cannot fetch it.
    assert_eq!(get(addr, "/api/bundle").status, 405);
}

#[test]
fn a_non_loopback_address_needs_an_explicit_flag() {
    let err = orogen_playground::spawn("0.0.0.0:0")
        .unwrap_err()
        .to_string();
    assert!(err.contains("--expose"), "{err}");
}

#[test]
fn a_request_with_a_higher_sequence_wins_whatever_order_they_arrive_in() {
    let addr = server();
    let request = |sequence: u64, seed: u64| {
        let mut body = small(
            "ordered",
            json!({ "world": { "cells": 500, "seed": seed } }),
        );
        body["sequence"] = json!(sequence);
        body
    };
    let newer = post_json(addr, "/api/generate", &request(2, 81));
    assert_eq!(
        newer.status,
        200,
        "{}",
        String::from_utf8_lossy(&newer.body)
    );
    let older = post_json(addr, "/api/generate", &request(1, 80));
    assert_eq!(
        older.status,
        409,
        "{}",
        String::from_utf8_lossy(&older.body)
    );
    assert_eq!(
        post_json(addr, "/api/generate", &request(3, 82)).status,
        200
    );
}

#[test]
fn a_newer_request_of_the_same_session_stops_an_older_one() {
    let addr = server();
    let slow = std::thread::spawn(move || {
        post_json(
            addr,
            "/api/generate",
            &small(
                "stale",
                json!({ "world": { "cells": 150_000, "seed": 77 } }),
            ),
        )
    });
    std::thread::sleep(Duration::from_millis(30));
    let fast = post_json(
        addr,
        "/api/generate",
        &small("stale", json!({ "world": { "cells": 500, "seed": 78 } })),
    );
    assert_eq!(fast.status, 200);
    let slow = slow.join().unwrap();
    assert_eq!(slow.status, 409, "{}", String::from_utf8_lossy(&slow.body));
    assert!(
        slow.json()["error"]
            .as_str()
            .unwrap()
            .contains("superseded")
    );
}

#[test]
fn the_bundle_is_a_deterministic_zip_of_the_outputs() {
    let addr = server();
    let request = small("bundle", json!({ "world": { "cells": 2000, "seed": 3 } }));
    let a = post_json(addr, "/api/bundle", &request);
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.header("content-type"), Some("application/zip"));
    let names = zip_names(&a.body);
    for name in [
        "colormap.png",
        "biomes.png",
        "heightmap.png",
        "mesh.png",
        "world.json",
        "config.toml",
    ] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from {names:?}"
        );
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&a.body[..])).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("config.toml").unwrap(), &mut text).unwrap();
    let config = orogen::Config::from_toml(&text, "config.toml").unwrap();
    assert_eq!((config.world.seed, config.world.cells), (3, 2000));
    let b = post_json(addr, "/api/bundle", &request);
    assert_eq!(a.body, b.body, "same request, same bytes");
}

/// Not a test: the server of [`serve_process`], run in a child process of this test binary
/// (the `orogen` binary lives in another package, so cargo does not build it for these tests).
#[test]
#[ignore = "a child process of the tests below"]
fn serve_child() {
    if std::env::var_os("OROGEN_SERVE_CHILD").is_none() {
        return;
    }
    let addr = orogen_playground::spawn("127.0.0.1:0").expect("bind loopback");
    println!("orogen playground: http://{addr}/");
    std::thread::sleep(Duration::from_secs(600));
}

/// A playground in a child process with `threads` rayon threads; killed on drop.
struct Child {
    child: std::process::Child,
    addr: SocketAddr,
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Child {
    /// Resident memory of the child, in MiB.
    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS");
        kb / 1024.0
    }
}

fn serve_process(threads: usize, tmp: &std::path::Path) -> Child {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .env("TMPDIR", tmp)
        .args([
            "serve_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--quiet",
        ])
        .env("OROGEN_SERVE_CHILD", "1")
        .env("RAYON_NUM_THREADS", threads.to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The test harness prints its own lines first.
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("http://") {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("the server child ended without printing its address");
        }
    }
    let addr = line
        .trim()
        .rsplit("http://")
        .next()
        .and_then(|a| a.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("no address in `{line}`"));
    Child { child, addr }
}

#[test]
fn the_same_request_gives_the_same_bytes_on_1_and_8_threads() {
    let request = small("threads", json!({ "world": { "cells": 3000, "seed": 11 } }));
    type Answer = (Vec<u8>, BTreeMap<String, Vec<u8>>);
    let answers: Vec<Answer> = [1, 8]
        .into_iter()
        .map(|threads| {
            let tmp = tempfile::tempdir().unwrap();
            let child = serve_process(threads, tmp.path());
            let zip = post_json(child.addr, "/api/bundle", &request);
            assert_eq!(zip.status, 200, "{}", String::from_utf8_lossy(&zip.body));
            // The private folder the bundle was staged in is gone.
            let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
            assert!(left.is_empty(), "bundle folders left behind: {left:?}");
            let world = generate(child.addr, &request);
            (zip.body, world.arrays)
        })
        .collect();
    assert!(zip_names(&answers[0].0).len() > 5);
    assert!(
        answers[0].0 == answers[1].0,
        "the bundle differs between 1 and 8 threads"
    );
    assert_eq!(
        answers[0].1.keys().collect::<Vec<_>>(),
        answers[1].1.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &answers[0].1 {
        assert!(
            *bytes == answers[1].1[name],
            "{name} differs between 1 and 8 threads"
        );
    }
}

#[test]
fn a_thousand_malformed_requests_and_fifty_concurrent_generations_leave_it_answering() {
    let tmp = tempfile::tempdir().unwrap();
    let child = serve_process(2, tmp.path());
    let addr = child.addr;
    // Warm up (the first world, its caches), then measure.
    let warm = small("warm", json!({ "world": { "cells": 2000 } }));
    assert_eq!(post_json(addr, "/api/generate", &warm).status, 200);
    let before = child.rss_mib();
    let short = Duration::from_secs(10);
    let host = format!("Host: {addr}\r\n");
    for i in 0..1000u32 {
        let body: Vec<u8> = (0..(i % 50)).map(|k| (k * 37 + i) as u8).collect();
        let request: Vec<u8> = match i % 10 {
            0 => b"GARBAGE\r\n\r\n".to_vec(),
            1 => {
                let mut r = format!(
                    "POST /api/generate HTTP/1.1\r\n{host}Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
                .into_bytes();
                r.extend_from_slice(&body);
                r
            }
            2 => format!("POST /api/generate HTTP/1.1\r\n{host}Connection: close\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{{\"wo").into_bytes(),
            3 => format!("GET /api/generate HTTP/1.1\r\n{host}Connection: close\r\n\r\n").into_bytes(),
            4 => format!("POST /api/generate HTTP/1.1\r\n{host}Connection: close\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{{").into_bytes(),
            5 => format!("POST /api/bundle?x=%ZZ{i} HTTP/1.1\r\n{host}Connection: close\r\n\r\n").into_bytes(),
            6 => {
                let body = format!("{{\"config\":{{\"world\":{{\"cells\":\"{i}\"}}}}}}");
                format!(
                    "POST /api/generate HTTP/1.1\r\n{host}Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
                .into_bytes()
            }
            7 => {
                let body = format!("{{\"config\":{{\"flora\":{{\"growth\":{{\"max_iterations\":{}}}}}}}}}", 10_000 + i);
                format!(
                    "POST /api/bundle HTTP/1.1\r\n{host}Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
                .into_bytes()
            }
            8 => b"POST /api/generate HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
            _ => vec![0xff; (i as usize % 100) + 1],
        };
        // Any 4xx answer (or a closed connection) is fine; the server must not stall or die.
        if let Ok(r) = raw(addr, &request, short, true) {
            assert!(
                (400..500).contains(&r.status),
                "request {i} got {}",
                r.status
            );
        }
    }
    assert_eq!(get(addr, "/api/health").status, 200);
    // Fifty generations at once, each its own session: the queue is bounded, so some wait
    // and the rest are told to come back (429); none fails otherwise.
    let handles: Vec<_> = (0..50u64)
        .map(|i| {
            std::thread::spawn(move || {
                let body = small(
                    &format!("concurrent-{i}"),
                    json!({ "world": { "cells": 1500 + 100 * i, "seed": i } }),
                );
                post_json(addr, "/api/generate", &body)
            })
        })
        .collect();
    let mut statuses = BTreeMap::new();
    for (i, h) in handles.into_iter().enumerate() {
        let r = h.join().unwrap();
        assert!(
            r.status == 200 || r.status == 429,
            "request {i}: {} {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        );
        if r.status == 200 {
            assert_eq!(World::decode(&r.body).header["seed"], json!(i));
        }
        *statuses.entry(r.status).or_insert(0) += 1;
    }
    assert!(
        statuses.get(&200).copied().unwrap_or(0) >= orogen_playground::MAX_CONCURRENT,
        "{statuses:?}"
    );
    assert_eq!(get(addr, "/api/health").status, 200);
    assert_eq!(post_json(addr, "/api/generate", &warm).status, 200);
    let after = child.rss_mib();
    // Four cached meshes of at most 6,400 cells and two worlds in flight: well under 300 MiB.
    assert!(
        after < before + 300.0,
        "resident memory grew from {before:.0} to {after:.0} MiB"
    );
    eprintln!("memory: {before:.0} MiB before, {after:.0} MiB after; answers {statuses:?}");
}
