//! Which `Host` a request may name: the one check against DNS rebinding, for the referee's web
//! server and for any server built on [`serve_http`](super::serve_http) (the arena's). A page of
//! another site that a rebinding DNS resolves to this machine still names that site in its
//! `Host`, so naming this server is what lets a request through.

use super::door::Conn;
use axum::extract::{Extension, Request};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;

/// The names a request's `Host` may give for a server.
#[derive(Clone, Debug)]
pub struct Hosts {
    port: u16,
    /// Names accepted with the server's own port: loopback's, the listen address's host.
    local: Vec<String>,
    /// Names accepted with any port: the server's public names, reached through a proxy whose
    /// port is not the server's.
    public: Vec<String>,
}

impl Hosts {
    /// The names of a server that listens as `listen` (`HOST:PORT`, as given) and is bound to
    /// `addr`: 127.0.0.1, localhost, ::1 and the listen host, with the bound port. The address
    /// a peer connected to is accepted too (a server on 0.0.0.0 reached at one of its
    /// addresses).
    pub fn of_listener(listen: &str, addr: SocketAddr) -> Hosts {
        let mut local: Vec<String> = vec!["127.0.0.1".into(), "localhost".into(), "::1".into()];
        if let Some((host, _)) = listen.rsplit_once(':') {
            local.push(bare(host).to_ascii_lowercase());
        }
        Hosts { port: addr.port(), local, public: Vec::new() }
    }

    /// Also accepts `name` (a DNS name or an address, without a port) with any port: the name
    /// the server is published under.
    pub fn public(mut self, name: &str) -> Hosts {
        self.public.push(bare(name).to_ascii_lowercase());
        self
    }

    /// Whether `host` (a `Host` header's value) names this server, reached at `local`.
    pub(super) fn allow(&self, host: &str, local: SocketAddr) -> bool {
        let Some((name, port)) = split_host(host) else { return false };
        let name = name.to_ascii_lowercase();
        if self.public.contains(&name) {
            return true;
        }
        port == self.port.to_string()
            && (self.local.contains(&name) || name == local.ip().to_string())
    }

    /// `router` with every request's `Host` held to these names: any other is answered 421
    /// Misdirected Request. The router must be served by [`serve_http`](super::serve_http),
    /// which tells each request the address its peer connected to.
    pub fn guard<S: Clone + Send + Sync + 'static>(
        self,
        router: axum::Router<S>,
    ) -> axum::Router<S> {
        let hosts = Arc::new(self);
        router.layer(axum::middleware::from_fn(move |conn, req, next| {
            check(hosts.clone(), conn, req, next)
        }))
    }
}

async fn check(
    hosts: Arc<Hosts>,
    Extension(conn): Extension<Conn>,
    req: Request,
    next: Next,
) -> Response {
    let host = req.headers().get(header::HOST).and_then(|v| v.to_str().ok());
    if !host.is_some_and(|h| hosts.allow(h, conn.local)) {
        return super::routes::refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "this server does not serve that host",
        )
        .into_response();
    }
    next.run(req).await
}

/// A host without the brackets of an IPv6 literal.
fn bare(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// A `Host`'s name and port: `name`, `name:port`, `[v6]` or `[v6]:port`; without a port, a
/// browser means 80.
fn split_host(host: &str) -> Option<(&str, &str)> {
    let (name, port) = match host.strip_prefix('[') {
        Some(v6) => {
            let (name, rest) = v6.split_once(']')?;
            (name, if rest.is_empty() { None } else { Some(rest.strip_prefix(':')?) })
        }
        None => match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        },
    };
    Some((name, port.unwrap_or("80")))
}

#[cfg(test)]
mod tests {
    use super::{Hosts, split_host};
    use std::net::SocketAddr;

    #[test]
    fn a_host_is_split_into_its_name_and_port() {
        assert_eq!(split_host("127.0.0.1:8080"), Some(("127.0.0.1", "8080")));
        assert_eq!(split_host("localhost"), Some(("localhost", "80")));
        assert_eq!(split_host("[::1]:9"), Some(("::1", "9")));
        assert_eq!(split_host("[::1]"), Some(("::1", "80")));
        assert_eq!(split_host("[::1"), None);
        assert_eq!(split_host("[::1]x"), None);
    }

    #[test]
    fn only_this_servers_names_pass() {
        let bound: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let reached: SocketAddr = "192.0.2.7:8080".parse().unwrap();
        let hosts = Hosts::of_listener("0.0.0.0:8080", bound).public("Arena.Example.org");
        assert!(hosts.allow("localhost:8080", reached));
        assert!(hosts.allow("192.0.2.7:8080", reached));
        assert!(hosts.allow("arena.example.org", reached));
        assert!(hosts.allow("arena.example.org:443", reached));
        // A rebinding page names its own site; the right name on the wrong port is another
        // server of this machine.
        assert!(!hosts.allow("evil.example.com:8080", reached));
        assert!(!hosts.allow("localhost:9090", reached));
        assert!(!hosts.allow("192.0.2.8:8080", reached));
        assert!(!hosts.allow("", reached));
    }
}
