//! `orogen serve`: the API on a real socket (127.0.0.1, port 0).

mod common;

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use base64::Engine;
use common::{encode_query, get, post_json, raw, request, zip_names};
use serde_json::{Value, json};

/// One server for the whole test binary.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| orogen_playground::spawn("127.0.0.1:0").expect("bind loopback"))
}

fn small(session: &str, config: Value) -> Value {
    json!({ "session": session, "resolution": 64, "config": config })
}

fn png_size(data_url: &str) -> (u32, u32) {
    let b64 = data_url
        .strip_prefix("data:image/png;base64,")
        .expect("a PNG data URL");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

#[test]
fn serves_the_page_and_its_assets() {
    let addr = server();
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    let html = String::from_utf8(page.body).unwrap();
    for id in [
        "id=\"map\"",
        "id=\"layout\"",
        "id=\"view3d\"",
        "id=\"download\"",
    ] {
        assert!(html.contains(id), "page lacks {id}");
    }
    let js = get(addr, "/app.js");
    assert_eq!(js.status, 200);
    assert!(js.header("content-type").unwrap().contains("javascript"));
    assert!(
        String::from_utf8(js.body)
            .unwrap()
            .contains("'water-level'")
    );
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
}

#[test]
fn generates_every_layer_with_timings() {
    let addr = server();
    let r = post_json(
        addr,
        "/api/generate",
        &small("layers", json!({ "world": { "cells": 3000, "seed": 5 } })),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["seed"], json!(5));
    assert!(v["cells"].as_u64().unwrap() >= 3000);
    for layer in ["colormap", "biomes", "heightmap", "flora", "outlines"] {
        let url = v["layers"][layer]
            .as_str()
            .unwrap_or_else(|| panic!("no {layer}"));
        assert_eq!(png_size(url), (64, 64), "{layer}");
    }
    let stages: Vec<&str> = v["timings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stage"].as_str().unwrap())
        .collect();
    assert!(stages.contains(&"elevation") && stages.contains(&"biome"));
    assert!(stages[0].starts_with("mesh"));
    let t = &v["terrain"];
    let (nx, ny) = (t["nx"].as_u64().unwrap(), t["ny"].as_u64().unwrap());
    let e = t["elevation"].as_array().unwrap();
    assert_eq!(e.len() as u64, nx * ny);
    let land = e.iter().filter(|x| x.as_f64().unwrap() > 0.0).count();
    assert!(land > 0 && land < e.len(), "a world has land and water");
}

#[test]
fn renders_only_the_layers_asked_for_and_runs_flora_only_for_flora() {
    let addr = server();
    let mut body = small(
        "some-layers",
        json!({ "world": { "cells": 3000, "seed": 6 } }),
    );
    body["layers"] = json!(["colormap", "outlines"]);
    let v = post_json(addr, "/api/generate", &body).json();
    let names: Vec<&String> = v["layers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["colormap", "outlines"]);
    let ran = |v: &Value, stage: &str| {
        v["timings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["stage"] == json!(stage))
    };
    assert!(!ran(&v, "flora") && ran(&v, "biome"));
    body["layers"] = json!(["flora"]);
    let v = post_json(addr, "/api/generate", &body).json();
    assert!(ran(&v, "flora"));
    assert!(v["layers"]["flora"].is_string() && v["layers"]["colormap"].is_null());
}

#[test]
fn keeps_the_mesh_when_only_later_knobs_change() {
    let addr = server();
    let config = |water: f64, seed: u64| {
        small(
            "cache",
            json!({ "world": { "cells": 4000, "seed": seed, "water_level": water } }),
        )
    };
    let first = post_json(addr, "/api/generate", &config(0.35, 901)).json();
    let wetter = post_json(addr, "/api/generate", &config(0.5, 901)).json();
    assert_eq!(wetter["mesh_cached"], json!(true));
    assert_ne!(first["layers"]["colormap"], wetter["layers"]["colormap"]);
    assert_eq!(first["layers"]["outlines"], wetter["layers"]["outlines"]);
    let land = |v: &Value| {
        v["terrain"]["elevation"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x.as_f64().unwrap() > 0.0)
            .count()
    };
    assert!(
        land(&wetter) < land(&first),
        "a higher water level drowns land"
    );
    // The cached mesh gives the same world as a fresh run.
    let again = post_json(addr, "/api/generate", &config(0.35, 901)).json();
    assert_eq!(again["mesh_cached"], json!(true));
    assert_eq!(again["layers"], first["layers"]);
    let other = post_json(addr, "/api/generate", &config(0.35, 902)).json();
    assert_eq!(other["mesh_cached"], json!(false));
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
        (json!({ "resolution": 100_000 }), "resolution"),
        (json!({ "resolution": 0 }), "resolution"),
        (json!({ "config": {}, "extra": 1 }), "extra"),
        (json!([1, 2, 3]), "JSON"),
        (json!({ "layers": ["colormap", "moon"] }), "moon"),
    ];
    for (body, needle) in cases {
        let r = post_json(addr, "/api/generate", body);
        assert_eq!(
            r.status,
            400,
            "{body}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let message = r.json()["error"].as_str().unwrap().to_owned();
        assert!(
            message.contains(needle),
            "{body}: `{message}` lacks `{needle}`"
        );
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
    let r = get(addr, "/api/bundle");
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("request"));
    let r = get(
        addr,
        &format!(
            "/api/bundle?request={}",
            encode_query("{\"resolution\":-3}")
        ),
    );
    assert_eq!(r.status, 400);
}

#[test]
fn stays_up_under_200_malformed_requests() {
    let addr = server();
    let short = Duration::from_secs(10);
    for i in 0..200u32 {
        let body: Vec<u8> = (0..(i % 50)).map(|k| (k * 37 + i) as u8).collect();
        let request: Vec<u8> = match i % 8 {
            0 => b"GARBAGE\r\n\r\n".to_vec(),
            1 => {
                let mut r = format!(
                    "POST /api/generate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
                .into_bytes();
                r.extend_from_slice(&body);
                r
            }
            2 => b"POST /api/generate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\n{\"wo".to_vec(),
            3 => b"GET /api/generate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            4 => format!("POST /api/generate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 99999999\r\n\r\n{}", "{").into_bytes(),
            5 => format!("GET /api/bundle?request=%ZZ{i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes(),
            6 => {
                let body = format!("{{\"config\":{{\"world\":{{\"cells\":\"{i}\"}}}}}}");
                format!(
                    "POST /api/generate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
                .into_bytes()
            }
            _ => vec![0xff; (i as usize % 100) + 1],
        };
        // Any answer (or a closed connection) is fine; the server must not stall or die.
        let answer = raw(addr, &request, short, true);
        if let Ok(r) = answer {
            assert!(
                (400..500).contains(&r.status),
                "request {i} got {}",
                r.status
            );
        }
    }
    assert_eq!(get(addr, "/api/health").status, 200);
    let r = post_json(
        addr,
        "/api/generate",
        &small("after-junk", json!({ "world": { "cells": 500 } })),
    );
    assert_eq!(r.status, 200);
}

#[test]
fn twenty_concurrent_generations_all_answer() {
    let addr = server();
    let handles: Vec<_> = (0..20u64)
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
    for (i, h) in handles.into_iter().enumerate() {
        let r = h.join().unwrap();
        assert_eq!(
            r.status,
            200,
            "request {i}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(r.json()["seed"], json!(i));
    }
    assert_eq!(get(addr, "/api/health").status, 200);
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
    // The newer request (sequence 2) arrives first and is answered; the older one (1), arriving
    // after it, is refused at once.
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
    // A yet newer one is answered again.
    assert_eq!(
        post_json(addr, "/api/generate", &request(3, 82)).status,
        200
    );
}

#[test]
fn a_newer_request_of_the_same_session_supersedes_an_older_one() {
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
    let request = small("bundle", json!({ "world": { "cells": 2000, "seed": 3 } })).to_string();
    let path = format!("/api/bundle?request={}", encode_query(&request));
    let a = get(addr, &path);
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.header("content-type"), Some("application/zip"));
    assert!(
        a.header("content-disposition")
            .unwrap()
            .contains("orogen-3.zip")
    );
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
    let b = get(addr, &path);
    assert_eq!(a.body, b.body, "same request, same bytes");
}

/// Not a test: the server of [`serve_process`], run in a child process of this test binary
/// (the `orogen` binary lives in another package, so cargo does not build it for these tests).
#[test]
#[ignore = "a child process of the_bundle_is_the_same_bytes_for_1_2_and_8_threads"]
fn serve_child() {
    if std::env::var_os("OROGEN_SERVE_CHILD").is_none() {
        return;
    }
    let addr = orogen_playground::spawn("127.0.0.1:0").expect("bind loopback");
    println!("orogen playground: http://{addr}/");
    std::thread::sleep(Duration::from_secs(600));
}

/// Starts a playground in a child process with `threads` rayon threads; returns it and its
/// address.
fn serve_process(threads: usize) -> (std::process::Child, SocketAddr) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
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
    (child, addr)
}

#[test]
fn the_bundle_is_the_same_bytes_for_1_2_and_8_threads() {
    let request = small("threads", json!({ "world": { "cells": 3000, "seed": 11 } })).to_string();
    let path = format!("/api/bundle?request={}", encode_query(&request));
    let bundles: Vec<Vec<u8>> = [1, 2, 8]
        .into_iter()
        .map(|threads| {
            let (mut child, addr) = serve_process(threads);
            let r = get(addr, &path);
            let _ = child.kill();
            let _ = child.wait();
            assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
            r.body
        })
        .collect();
    assert!(zip_names(&bundles[0]).len() > 5);
    assert!(
        bundles[0] == bundles[1],
        "the bundle differs between 1 and 2 threads"
    );
    assert!(
        bundles[0] == bundles[2],
        "the bundle differs between 1 and 8 threads"
    );
}
