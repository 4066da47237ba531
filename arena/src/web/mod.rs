//! The arena's web pages and JSON API (spec/arena.md, "Web and API"): the leaderboard, a page
//! per bot, the games with the referee's own viewer once a deal is published, the tables in
//! play (progress only: the same cards are still in play at the deal's other tables), an admin
//! page behind a token, and the same data as JSON under `/api/`.
//!
//! The server runs on a task of its own beside the arena's loop and only reads the store and
//! the live registry (the admin forms write bots, as `arena admin` does). Every answer carries
//! a strict content security policy (scripts and styles from this server only, no inline
//! script), every bot-chosen string goes through [`html::esc`], and each client address has a
//! token bucket ([`limit`]): past it, 429 with `Retry-After`.
//!
//! The rooms: `data.rs` what is shown, gathered into serde types the API writes as they are;
//! `html.rs` escaping, the page frame and the SVG chart; `pages.rs` the pages; `admin.rs` the
//! admin page; `limit.rs` the rate limit; this file the server, its routes and its headers.

mod admin;
pub mod data;
pub mod html;
pub mod limit;
mod pages;

use crate::serve::live::Live;
use crate::store::{Store, StoreError};
use axum::Router;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// The policy of every page and answer but the game viewer's.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; \
                   frame-ancestors 'none'";

/// The referee's viewer is one self-contained file (its style and script inline, the game as
/// JSON): inline is allowed for it alone, in a sandbox with no origin, and it may fetch
/// nothing.
const VIEWER_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; \
                          style-src 'unsafe-inline'; img-src data:; base-uri 'none'; \
                          form-action 'none'; frame-ancestors 'none'; sandbox allow-scripts";

/// The embedded files: name, content type, text.
const ASSETS: &[(&str, &str, &str)] = &[
    ("arena.css", "text/css", include_str!("assets/arena.css")),
    ("live.js", "text/javascript", include_str!("assets/live.js")),
];

/// How the web server runs, besides where it listens.
#[derive(Clone, Default)]
pub struct Options {
    /// The admin page's token in plain text (only its hash is kept); `None`: no admin page.
    pub admin_token: Option<String>,
    /// Each client address's rate limit.
    pub rate: limit::Rate,
    /// Told the server's address once it listens.
    pub announce: Announce,
    /// The door bots join through: given, `/ws/bot` carries a bot's WebSocket to it.
    pub bots: Option<Arc<aluette_referee::Door>>,
    /// Names the server is published under, accepted in a request's `Host` with any port,
    /// besides loopback's and the listen address's.
    pub public_hosts: Vec<String>,
    /// Where records are kept; `None`: the database's record locations are files.
    pub records: Option<crate::records::Records>,
    /// Proxies whose `X-Forwarded-For` names the client the rate limit counts (`limit::client`);
    /// behind one, every request would otherwise count against the proxy.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl fmt::Debug for Options {
    // The admin token must not reach a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("admin_token", &self.admin_token.as_ref().map(|_| ".."))
            .field("rate", &self.rate)
            .field("public_hosts", &self.public_hosts)
            .field("trusted_proxies", &self.trusted_proxies)
            .finish_non_exhaustive()
    }
}

/// Where the web server's address is sent once it listens (port 0 picks a free one, so
/// whoever started it needs to be told).
#[derive(Clone, Default)]
pub struct Announce(Arc<Mutex<Option<oneshot::Sender<SocketAddr>>>>);

impl Announce {
    /// An announcement and the receiver its address arrives on.
    pub fn channel() -> (Announce, oneshot::Receiver<SocketAddr>) {
        let (tx, rx) = oneshot::channel();
        (Announce(Arc::new(Mutex::new(Some(tx)))), rx)
    }

    fn send(&self, addr: SocketAddr) {
        if let Some(tx) = self.0.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = tx.send(addr);
        }
    }
}

impl fmt::Debug for Announce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Announce")
    }
}

/// What every handler reads.
#[derive(Debug)]
struct App {
    store: Store,
    records: crate::records::Records,
    live: Live,
    bots: Option<Arc<aluette_referee::Door>>,
    admin_hash: Option<[u8; 32]>,
    buckets: Mutex<limit::Buckets>,
    trusted_proxies: Vec<std::net::IpAddr>,
}

/// The running web server; dropping it stops it.
#[derive(Debug)]
pub struct Web {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Web {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Web {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// Binds `listen` and serves the pages and API from `store` and `live` on a task of its own
/// until the returned [`Web`] is dropped.
pub async fn start(
    listen: &str,
    options: &Options,
    store: Store,
    live: Live,
) -> Result<Web, String> {
    start_with(listen, options, store, live, None).await
}

/// [`start`], with `more` routes beside the pages, outside their per-address rate limit: the
/// work API and `/metrics` (spec/arena.md section 10), which workers on one host would
/// otherwise share a bucket for.
pub async fn start_with(
    listen: &str,
    options: &Options,
    store: Store,
    live: Live,
    more: Option<Router>,
) -> Result<Web, String> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen for the web pages on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| format!("web pages: {e}"))?;
    let app = Arc::new(App {
        store,
        // A location that is a file path needs no store to be read.
        records: options
            .records
            .clone()
            .unwrap_or_else(|| crate::records::Records::folder(std::path::Path::new(""))),
        bots: options.bots.clone(),
        live,
        admin_hash: options.admin_token.as_deref().map(crate::token::hash_token),
        buckets: Mutex::new(limit::Buckets::new(options.rate)),
        trusted_proxies: options.trusted_proxies.clone(),
    });
    // The referee's own web door: a deadline for each request's head, connections capped in
    // all and per address within the descriptors the process may open, and each request told
    // its peer's address (`ConnectInfo`), which the rate limit reads.
    let mut routes = router(app);
    if let Some(more) = more {
        routes = routes.merge(more);
    }
    // And the referee's own check of each request's `Host`, against DNS rebinding: the work
    // API's too.
    let hosts = options
        .public_hosts
        .iter()
        .fold(aluette_referee::Hosts::of_listener(listen, addr), |h, name| h.public(name));
    let task = tokio::spawn(aluette_referee::serve_http(listener, hosts.guard(routes)));
    options.announce.send(addr);
    Ok(Web { addr, task })
}

fn router(app: Arc<App>) -> Router {
    let mut router = Router::new();
    // Bots join over a WebSocket through the referee's own route: a session slot of the web
    // door, messages of one line, then the lobby's handshake, token and strikes.
    if let Some(door) = app.bots.clone() {
        router = router.route("/ws/bot", aluette_referee::bot_socket_route(door));
    }
    router
        .route("/", get(pages::leaderboard))
        .route("/bots/{id}", get(pages::bot))
        .route("/games", get(pages::games))
        .route("/games/{id}", get(pages::game))
        .route("/games/{id}/view", get(pages::viewer))
        .route("/live", get(pages::live))
        .route("/live/{game}", get(pages::live_table))
        .route("/admin", get(admin::page))
        .route("/admin/bots", post(admin::add_bot))
        .route("/admin/pause", post(admin::pause))
        .route("/admin/unpause", post(admin::unpause))
        .route("/assets/{name}", get(asset))
        .route("/api/leaderboard", get(api_leaderboard))
        .route("/api/bots/{id}", get(api_bot))
        .route("/api/bots/{id}/history", get(api_history))
        .route("/api/games", get(api_games))
        .route("/api/games/{id}", get(api_game))
        .route("/api/live", get(api_live))
        .route("/api/live/{game}", get(api_live_table))
        .route("/api/me", get(api_me))
        .fallback(|| async { refuse(StatusCode::NOT_FOUND, "no such page") })
        .layer(middleware::from_fn_with_state(app.clone(), rate_limit))
        .layer(middleware::map_response(secured))
        .with_state(app)
}

/// The headers of every answer; an answer that set its own policy (the viewer) keeps it.
async fn secured(mut res: Response) -> Response {
    let h = res.headers_mut();
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// Each client address's token bucket; past it, 429 with the seconds to wait.
async fn rate_limit(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    req: Request,
    next: Next,
) -> Response {
    let forwarded = req.headers().get("x-forwarded-for").and_then(|v| v.to_str().ok());
    let who = limit::client(peer.ip(), forwarded, &app.trusted_proxies);
    let taken = app
        .buckets
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take(who, std::time::Instant::now());
    match taken {
        Ok(()) => next.run(req).await,
        Err(wait) => too_many(wait, "too many requests from this address: wait and ask again"),
    }
}

fn too_many(wait: u64, why: &str) -> Response {
    let mut res = refuse(StatusCode::TOO_MANY_REQUESTS, why);
    res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait));
    res
}

/// A short plain-text answer (an error's one line).
fn refuse(status: StatusCode, why: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], why.to_string()).into_response()
}

fn html_response(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(text) => (status, [(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot write JSON: {e}")),
    }
}

fn failed(e: &StoreError) -> Response {
    tracing::error!("web pages: {e}");
    refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
}

/// A JSON answer from a store read, 404 with `what` when it found nothing.
fn found<T: Serialize>(r: Result<Option<T>, StoreError>, what: &str) -> Response {
    match r {
        Ok(Some(v)) => json(StatusCode::OK, &v),
        Ok(None) => refuse(StatusCode::NOT_FOUND, what),
        Err(e) => failed(&e),
    }
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind)], *body).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no such file"),
    }
}

/// `?limit=N` of the game lists.
#[derive(Debug, Deserialize)]
struct Limit {
    limit: Option<u32>,
}

impl Limit {
    fn get(&self) -> u32 {
        self.limit.unwrap_or(50).clamp(1, 500)
    }
}

async fn api_leaderboard(State(app): State<Arc<App>>) -> Response {
    found(data::leaderboard(&app.store, crate::serve::now()).await.map(Some), "")
}

async fn api_bot(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    found(data::bot_page(&app.store, id, crate::serve::now()).await, "no such bot")
}

/// `?points=N`: at most N points of each board's history (2 to 1000, default 200).
#[derive(Debug, Deserialize)]
struct Points {
    points: Option<u32>,
}

async fn api_history(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
    Query(points): Query<Points>,
) -> Response {
    let at_most = points.points.unwrap_or(data::HISTORY_POINTS).clamp(2, 1000);
    found(data::history(&app.store, id, at_most).await, "no such bot")
}

async fn api_games(State(app): State<Arc<App>>, Query(limit): Query<Limit>) -> Response {
    found(data::games(&app.store, limit.get()).await.map(Some), "")
}

async fn api_game(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    found(data::game(&app.store, id).await.map(|g| g.map(|(g, _)| g)), "no such game")
}

async fn live_views(app: &App) -> Result<data::LiveList, StoreError> {
    let names = data::Names::load(&app.store).await?;
    let tables = app.live.snapshot().iter().map(|t| data::live_view(&names, t)).collect();
    Ok(data::LiveList { tables })
}

async fn api_live(State(app): State<Arc<App>>) -> Response {
    found(live_views(&app).await.map(Some), "")
}

async fn live_table(app: &App, game: i64) -> Result<Option<data::LiveView>, StoreError> {
    let Some(t) = app.live.table(game) else { return Ok(None) };
    let names = data::Names::load(&app.store).await?;
    Ok(Some(data::live_view(&names, &t)))
}

async fn api_live_table(State(app): State<Arc<App>>, Path(game): Path<i64>) -> Response {
    found(live_table(&app, game).await, "this table is not in play (it has ended, or never began)")
}

/// The bot token of an `Authorization: Bearer` header.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// A bot's own quotas: 401 without a known token, 429 with `Retry-After` (and the same body)
/// once its games-a-day quota is spent.
async fn api_me(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let Some(token) = bearer(&headers) else {
        let mut res =
            refuse(StatusCode::UNAUTHORIZED, "give the bot's token: Authorization: Bearer TOKEN");
        res.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return res;
    };
    match data::me(&app.store, token, crate::serve::now()).await {
        Ok(Some(me)) => match me.retry_after {
            Some(wait) => {
                let mut res = json(StatusCode::TOO_MANY_REQUESTS, &me);
                res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait));
                res
            }
            None => json(StatusCode::OK, &me),
        },
        Ok(None) => refuse(StatusCode::UNAUTHORIZED, "no bot has this token"),
        Err(e) => failed(&e),
    }
}
