//! The worker's HTTP client: one POST of JSON to the arena's web server per call, over a fresh
//! TCP connection, with a bearer token, a deadline on the whole exchange and a bound on the
//! answer's size. Plain `http://` only: TLS, where the network needs it, is a reverse proxy's
//! job in front of the arena (spec/arena.md section 10).

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, RETRY_AFTER};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use std::time::Duration;
use tokio::net::TcpStream;

/// Where the arena is, and how to talk to it.
#[derive(Clone)]
pub struct Client {
    /// `HOST:PORT`, what is connected to and sent as `Host`.
    authority: String,
    /// The path prefix the API is under (empty, or `/arena` behind a proxy).
    prefix: String,
    token: String,
    deadline: Duration,
}

impl std::fmt::Debug for Client {
    // The token must not reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("authority", &self.authority).finish_non_exhaustive()
    }
}

/// An answer: its status, its `Retry-After` in seconds if any, and its body.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u64>,
    /// The body (at most the call's bound).
    pub body: Bytes,
}

impl Answer {
    /// The body as text, for an error's one line.
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let line = text.lines().next().unwrap_or("").trim();
        line.chars().take(300).collect()
    }
}

/// `HOST:PORT` and the path prefix of an `http://` address; port 80 when none is given.
pub fn parse_server(url: &str) -> Result<(String, String), String> {
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(format!(
            "{url:?}: the server's address must start with http:// (TLS is a proxy's job)"
        ));
    };
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    if authority.is_empty() || authority.contains('@') {
        return Err(format!(
            "{url:?}: no host (or a user name, which is not taken) in the address"
        ));
    }
    let authority =
        if authority.rsplit_once(':').is_some_and(|(_, port)| port.parse::<u16>().is_ok()) {
            authority.to_string()
        } else if authority.contains(':') && !authority.ends_with(']') {
            return Err(format!("{url:?}: the port is not a number from 0 to 65535"));
        } else {
            format!("{authority}:80")
        };
    let path = path.trim_end_matches('/');
    let prefix = if path.is_empty() { String::new() } else { format!("/{path}") };
    Ok((authority, prefix))
}

impl Client {
    /// A client of the arena at `url` (`http://HOST:PORT[/PREFIX]`), presenting `token`, each
    /// call bounded by `deadline`.
    pub fn new(url: &str, token: &str, deadline: Duration) -> Result<Client, String> {
        let (authority, prefix) = parse_server(url)?;
        Ok(Client { authority, prefix, token: token.trim().to_string(), deadline })
    }

    /// POSTs `body` as JSON to `path` (under the prefix); reads at most `limit` bytes back.
    pub async fn post(&self, path: &str, body: Vec<u8>, limit: usize) -> Result<Answer, String> {
        self.call(Method::POST, path, Some(body), limit).await
    }

    /// GETs `path` (under the prefix); reads at most `limit` bytes back.
    pub async fn get(&self, path: &str, limit: usize) -> Result<Answer, String> {
        self.call(Method::GET, path, None, limit).await
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<Answer, String> {
        let exchange = self.exchange(method, path, body, limit);
        match tokio::time::timeout(self.deadline, exchange).await {
            Ok(answer) => answer,
            Err(_) => Err(format!(
                "{}{path}: no answer within {} ms",
                self.authority,
                self.deadline.as_millis()
            )),
        }
    }

    async fn exchange(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<Answer, String> {
        let at = |e: &dyn std::fmt::Display| format!("{}{path}: {e}", self.authority);
        let stream = TcpStream::connect(&self.authority).await.map_err(|e| at(&e))?;
        let _ = stream.set_nodelay(true);
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| at(&e))?;
        // The connection is driven beside the request and dropped with it.
        let driver = tokio::spawn(conn);
        let mut req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.prefix))
            .header(HOST, &self.authority)
            .header(AUTHORIZATION, format!("Bearer {}", self.token));
        if body.is_some() {
            req = req.header(CONTENT_TYPE, "application/json");
        }
        let req = req.body(Full::new(Bytes::from(body.unwrap_or_default()))).map_err(|e| at(&e))?;
        let answer = async {
            let res = sender.send_request(req).await.map_err(|e| at(&e))?;
            let status = res.status().as_u16();
            let retry_after = res
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let body = Limited::new(res.into_body(), limit)
                .collect()
                .await
                .map_err(|e| at(&format!("the answer: {e}")))?
                .to_bytes();
            Ok(Answer { status, retry_after, body })
        }
        .await;
        driver.abort();
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::parse_server;

    #[test]
    fn addresses_are_http_only_with_a_port() {
        let ok = |u: &str| parse_server(u).unwrap();
        assert_eq!(ok("http://127.0.0.1:8080"), ("127.0.0.1:8080".into(), String::new()));
        assert_eq!(ok("http://arena.example/"), ("arena.example:80".into(), String::new()));
        assert_eq!(ok("http://h:1/x/y/"), ("h:1".into(), "/x/y".into()));
        assert_eq!(ok("http://[::1]:9"), ("[::1]:9".into(), String::new()));
        assert!(parse_server("https://h:1").unwrap_err().contains("proxy"));
        assert!(parse_server("http://").is_err());
        assert!(parse_server("http://u@h:1").is_err());
        assert!(parse_server("http://h:99999").is_err());
    }
}
