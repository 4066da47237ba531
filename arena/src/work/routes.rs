//! The work API's routes on the arena's web server: `POST /api/work/lease`, `/heartbeat` and
//! `/result` behind a worker's bearer token, JSON bodies decoded strictly into the referee's
//! wire types, refusals as one line of text; and `GET /metrics`. They sit outside the pages'
//! per-address rate limit (workers on one host would share a bucket), behind a guard of their
//! own ([`guard`]): `/metrics` at a page's rate, and wrong tokens slowed once an address has
//! presented ten, each costing one hash and one indexed read.

use super::Hub;
use super::lease::Refusal;
use super::metrics::render;
use crate::store::Worker;
use aluette_referee::worker::wire::{self, HeartbeatAnswer};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::net::{IpAddr, SocketAddr};

/// Seconds a worker is told to wait when there is nothing to play, after its request waited
/// `LEASE_WAIT` for deals to be queued.
const IDLE_RETRY_S: u64 = 1;

/// How long a lease request waits for work when the queue is empty (a worker's request deadline
/// is longer: 20 s).
const LEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The work API and `/metrics`, to be merged into the web server's router. A stranger is
/// counted by the client address `trusted_proxies` name (`web::limit::client`), as the pages
/// count them: behind a proxy, every worker would otherwise be counted as the proxy.
pub fn routes(hub: Hub, trusted_proxies: &[IpAddr]) -> Router {
    let strangers = Strangers { hub: hub.clone(), trusted_proxies: trusted_proxies.into() };
    Router::new()
        .route("/api/work/lease", post(lease))
        .route("/api/work/heartbeat", post(heartbeat))
        .route(
            "/api/work/result",
            post(result).layer(DefaultBodyLimit::max(wire::MAX_RESULT_BYTES + 4096)),
        )
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(64 << 10))
        .layer(axum::middleware::from_fn_with_state(strangers, guard))
        .with_state(hub)
}

/// What [`guard`] needs: the hub's limits, and whom to believe about a client's address.
#[derive(Clone)]
struct Strangers {
    hub: Hub,
    trusted_proxies: std::sync::Arc<[IpAddr]>,
}

/// What a stranger may do here: `/metrics` is held to a page's rate per address (429 past it),
/// and a wrong token is answered only after a wait once an address has presented a few (the
/// routes are outside the pages' rate limit, so that workers on one host do not share it).
async fn guard(
    State(Strangers { hub, trusted_proxies }): State<Strangers>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    req: Request,
    next: Next,
) -> Response {
    let forwarded = req.headers().get("x-forwarded-for").and_then(|v| v.to_str().ok());
    let who = crate::web::limit::client(peer.ip(), forwarded, &trusted_proxies);
    if req.uri().path() == "/metrics" {
        if let Err(wait) = hub.metrics_allowed(who) {
            let mut res = text(429, "too many requests from this address: wait and ask again");
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait));
            return res;
        }
        return next.run(req).await;
    }
    let res = next.run(req).await;
    if res.status() == StatusCode::UNAUTHORIZED {
        tokio::time::sleep(hub.wrong_token_delay(who)).await;
    }
    res
}

fn text(status: u16, why: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res =
        (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], format!("{why}\n"))
            .into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(5u64));
    }
    res
}

fn refused(r: &Refusal) -> Response {
    text(r.status, &r.why)
}

fn json<T: Serialize>(value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => {
            (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Err(e) => text(500, &format!("cannot write JSON: {e}")),
    }
}

/// The worker a request's bearer token names, or the 401 to answer.
async fn worker(hub: &Hub, headers: &HeaderMap) -> Result<Worker, Response> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim())
        .filter(|t| !t.is_empty());
    let unauthorized = |why: &str| {
        hub.metrics().error("unauthorized");
        let mut res = text(401, why);
        res.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        res
    };
    let Some(token) = token else {
        return Err(unauthorized("give the worker's token: Authorization: Bearer TOKEN"));
    };
    match hub.0.store.worker_by_token(token).await {
        Ok(Some(w)) => Ok(w),
        Ok(None) => Err(unauthorized("no worker has this token")),
        Err(e) => Err(text(500, &e.to_string())),
    }
}

/// The request's body, strictly decoded, or why not in one line.
fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("bad request body: {e}"))
}

async fn lease(State(hub): State<Hub>, headers: HeaderMap, bytes: Bytes) -> Response {
    let w = match worker(&hub, &headers).await {
        Ok(w) => w,
        Err(res) => return res,
    };
    let req: wire::LeaseRequest = match body(&bytes) {
        Ok(r) => r,
        Err(why) => return text(400, &why),
    };
    match hub.lease_waiting(&w, &req, LEASE_WAIT).await {
        Ok(Some(lease)) => json(&lease),
        Ok(None) => {
            let mut res = StatusCode::NO_CONTENT.into_response();
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(IDLE_RETRY_S));
            res
        }
        Err(r) => refused(&r),
    }
}

async fn heartbeat(State(hub): State<Hub>, headers: HeaderMap, bytes: Bytes) -> Response {
    let w = match worker(&hub, &headers).await {
        Ok(w) => w,
        Err(res) => return res,
    };
    let beat: wire::Heartbeat = match body(&bytes) {
        Ok(b) => b,
        Err(why) => return text(400, &why),
    };
    match hub.heartbeat(&w, beat.lease).await {
        Ok(ttl_ms) => json(&HeartbeatAnswer { lease: beat.lease, ttl_ms }),
        Err(r) => refused(&r),
    }
}

async fn result(State(hub): State<Hub>, headers: HeaderMap, bytes: Bytes) -> Response {
    let w = match worker(&hub, &headers).await {
        Ok(w) => w,
        Err(res) => return res,
    };
    let post: wire::ResultPost = match body(&bytes) {
        Ok(p) => p,
        Err(why) => return text(400, &why),
    };
    match hub.result(&w, &post).await {
        Ok(answer) => json(&answer),
        Err(r) => refused(&r),
    }
}

async fn metrics(State(hub): State<Hub>) -> Response {
    let store = &hub.0.store;
    let depth = store.queued_games().await;
    let oldest = store.oldest_open_lease_ms().await;
    let (Ok(depth), Ok(oldest)) = (depth, oldest) else {
        return text(500, "the database did not answer");
    };
    let age = oldest.map_or(0.0, |t| (super::now_ms() - t).max(0) as f64 / 1000.0);
    let page = render(&hub.metrics().scrape(depth, age));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], page).into_response()
}
