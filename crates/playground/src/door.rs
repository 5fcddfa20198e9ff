//! The locked door: every request passes [`guard`] before any route.
//!
//! - `Host` must name the bound address (for a loopback bind also `localhost:PORT`; for an
//!   unspecified bind such as `0.0.0.0`, allowed only with an explicit flag, any IP literal
//!   or `localhost` with the bound port). A web page cannot make a browser send another Host, and a DNS name
//!   that rebinds to this machine is refused, so another site's page cannot reach the API.
//! - `Origin`, when present, must be the page's own (`http://` + an allowed Host).
//! - `Sec-Fetch-Site`, when present, must be `same-origin` or `none` (a typed address): a
//!   cross-site `<img>` or form gets no answer.
//! - A POST must carry `Content-Type: application/json` (a cross-site form cannot send it
//!   without a preflight, which this server does not answer).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Who may knock: derived from the bound address.
#[derive(Clone, Debug)]
pub struct Door {
    bound: SocketAddr,
}

impl Door {
    /// The door of a server bound to `bound`.
    pub fn new(bound: SocketAddr) -> Self {
        Door { bound }
    }

    /// Whether `host` (a `Host` header value) names this server.
    pub fn host_ok(&self, host: &str) -> bool {
        let port = self.bound.port();
        let Some((name, p)) = host.rsplit_once(':') else {
            // No port: only a server on port 80 could be meant.
            return port == 80 && self.name_ok(host);
        };
        p.parse::<u16>().is_ok_and(|p| p == port) && self.name_ok(name)
    }

    fn name_ok(&self, name: &str) -> bool {
        let literal = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name);
        let ip = self.bound.ip();
        match literal.parse::<IpAddr>() {
            Ok(asked) if ip.is_unspecified() => !asked.is_unspecified(),
            Ok(asked) => asked == ip,
            Err(_) => {
                (ip.is_loopback() || ip.is_unspecified()) && name.eq_ignore_ascii_case("localhost")
            }
        }
    }

    /// Checks one request's headers; the error is (status, message).
    pub fn check(&self, method: &Method, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let text = |name: header::HeaderName| {
            headers
                .get(&name)
                .map(|v| v.to_str().unwrap_or("\u{fffd}").to_owned())
        };
        let forbidden = |m: String| Err((StatusCode::FORBIDDEN, m));
        let Some(host) = text(header::HOST) else {
            return forbidden("a Host header is required".into());
        };
        if !self.host_ok(&host) {
            return forbidden(format!(
                "Host `{host}` is not this server's address ({})",
                self.bound
            ));
        }
        if let Some(origin) = text(header::ORIGIN)
            && origin
                .strip_prefix("http://")
                .is_none_or(|o| o != host || !self.host_ok(o))
        {
            return forbidden(format!(
                "Origin `{origin}` is not this page's (http://{host})"
            ));
        }
        if let Some(site) = headers.get("sec-fetch-site")
            && !matches!(site.as_bytes(), b"same-origin" | b"none")
        {
            return forbidden(format!(
                "cross-site request refused (Sec-Fetch-Site: {})",
                site.to_str().unwrap_or("?")
            ));
        }
        if method == Method::POST {
            let json = text(header::CONTENT_TYPE).is_some_and(|t| {
                t.split(';')
                    .next()
                    .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
            });
            if !json {
                return Err((
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "a POST must be Content-Type: application/json".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The middleware: refuses what [`Door::check`] refuses, with `{"error"}`.
pub async fn guard(State(door): State<Arc<Door>>, request: Request, next: Next) -> Response {
    match door.check(request.method(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err((status, message)) => (status, axum::Json(json!({ "error": message }))).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_the_bound_address_and_the_pages_origin_pass() {
        let door = Door::new("127.0.0.1:8080".parse().unwrap());
        let ok = |pairs: &[(&'static str, &str)]| door.check(&Method::GET, &headers(pairs)).is_ok();
        assert!(ok(&[("host", "127.0.0.1:8080")]));
        assert!(ok(&[("host", "localhost:8080")]));
        assert!(!ok(&[("host", "127.0.0.1:8081")]));
        assert!(!ok(&[("host", "evil.example:8080")]));
        assert!(!ok(&[("host", "192.168.1.2:8080")]));
        assert!(!ok(&[]));
        assert!(ok(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080")
        ]));
        assert!(!ok(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://evil.example")
        ]));
        assert!(!ok(&[("host", "127.0.0.1:8080"), ("origin", "null")]));
        assert!(!ok(&[
            ("host", "127.0.0.1:8080"),
            ("sec-fetch-site", "cross-site")
        ]));
        assert!(ok(&[
            ("host", "127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin")
        ]));
        let post = |ct: &str| {
            door.check(
                &Method::POST,
                &headers(&[("host", "127.0.0.1:8080"), ("content-type", ct)]),
            )
            .map_err(|e| e.0)
        };
        assert_eq!(post("application/json"), Ok(()));
        assert_eq!(post("application/json; charset=utf-8"), Ok(()));
        assert_eq!(post("text/plain"), Err(StatusCode::UNSUPPORTED_MEDIA_TYPE));
        assert_eq!(
            post("application/x-www-form-urlencoded"),
            Err(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
        let any = Door::new("0.0.0.0:9000".parse().unwrap());
        assert!(any.host_ok("192.168.1.2:9000"));
        assert!(!any.host_ok("evil.example:9000"));
        assert!(any.host_ok("localhost:9000"));
    }
}
