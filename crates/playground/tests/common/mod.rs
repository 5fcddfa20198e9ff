//! A minimal HTTP/1.1 client over `std::net::TcpStream` for the server and browser tests
//! (one request per connection, `Connection: close`; chunked bodies decoded).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response: status, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Sends raw bytes and reads the whole answer. `half_close` shuts the sending side after the
/// request, so a server waiting for a promised body sees its end at once.
pub fn raw(
    addr: SocketAddr,
    request: &[u8],
    timeout: Duration,
    half_close: bool,
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(request)?;
    if half_close {
        stream.shutdown(std::net::Shutdown::Write)?;
    }
    // Read until the body is complete (by Content-Length or the last chunk), or the end:
    // some servers keep the connection open despite `Connection: close`.
    let mut bytes = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        if body_complete(&bytes) {
            break;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    parse(&bytes)
}

fn body_complete(bytes: &[u8]) -> bool {
    let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
    let body = &bytes[end + 4..];
    for line in head.split("\r\n") {
        if let Some(v) = line.strip_prefix("content-length:") {
            return v.trim().parse::<usize>().is_ok_and(|n| body.len() >= n);
        }
        if line.starts_with("transfer-encoding:") && line.contains("chunked") {
            return body.ends_with(b"\r\n0\r\n\r\n") || body == b"0\r\n\r\n";
        }
    }
    false
}

fn parse(bytes: &[u8]) -> std::io::Result<Response> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_owned());
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no header end"))?;
    let head = String::from_utf8_lossy(&bytes[..end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().ok_or_else(|| bad("empty"))?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = bytes[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let line_end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or_else(|| bad("chunk size"))?;
            let size_text = String::from_utf8_lossy(&rest[..line_end]);
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| bad("chunk size"))?;
            rest = &rest[line_end + 2..];
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[..size.min(rest.len())]);
            rest = &rest[(size + 2).min(rest.len())..];
        }
        body = out;
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// One request with an optional body.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<Response> {
    let mut bytes = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    raw(addr, &bytes, Duration::from_secs(120), false)
}

pub fn get(addr: SocketAddr, path: &str) -> Response {
    request(addr, "GET", path, "text/plain", b"").expect("GET")
}

pub fn post_json(addr: SocketAddr, path: &str, body: &serde_json::Value) -> Response {
    request(
        addr,
        "POST",
        path,
        "application/json",
        body.to_string().as_bytes(),
    )
    .expect("POST")
}

/// Percent-encodes a query value.
pub fn encode_query(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The names of the files in a zip.
pub fn zip_names(bytes: &[u8]) -> Vec<String> {
    let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    archive.file_names().map(str::to_owned).collect()
}
