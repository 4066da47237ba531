//! The referee's web server for `referee match`: a human seat's page (`--bot human`), which is
//! itself a bot speaking the protocol over a WebSocket, and the live spectator page (`--watch`).
//!
//! Everything a page needs is embedded (`assets/`), served with a strict content security
//! policy (scripts and styles from this server only, no inline script). Each WebSocket names its
//! token and must come from a page of this very server (`Origin` is `http://` + its `Host`),
//! which listens on 127.0.0.1 unless told otherwise. A seat's token opens that seat; the
//! spectators' token opens the omniscient view and the seat views (`seat=S`).
//!
//! The rooms: `human.rs` a person's seat carried over its page's WebSocket (the seat itself,
//! which outlives the page's connection, is `bot::resumable`); `watch.rs` the record lines as they are added, for spectators; this file
//! the server, its routes and checks.

mod human;
mod watch;

use crate::bot::ConnectConfig;
use crate::bot::conn::{Reader, Writer};
use crate::bot::resumable::Resumable;
use crate::record_io::Tap;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use watch::Feed;

/// The server as the organiser sets it.
#[derive(Clone, Debug)]
pub(crate) struct WebConfig {
    /// Where it listens (`--web`).
    pub(crate) listen: String,
    /// Whether spectators are served (`--watch`).
    pub(crate) watch: bool,
    /// A person's time per answer and bank (`--human-answer-ms`, `--human-bank-ms`).
    pub(crate) human_answer_ms: u64,
    pub(crate) human_bank_ms: u64,
}

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The embedded files: name, content type, bytes.
const ASSETS: &[(&str, &str, &str)] = &[
    ("cards.js", "text/javascript", include_str!("../html/cards.js")),
    ("cards.css", "text/css", include_str!("../html/cards.css")),
    ("game.js", "text/javascript", include_str!("assets/game.js")),
    ("page.js", "text/javascript", include_str!("assets/page.js")),
    ("play.js", "text/javascript", include_str!("assets/play.js")),
    ("watch.js", "text/javascript", include_str!("assets/watch.js")),
    ("web.css", "text/css", include_str!("assets/web.css")),
];
const PAGE: &str = include_str!("assets/page.html");
/// The panels only a seat's page has: its move, and the signals it may send.
const SEAT_PANELS: &str = r#"    <div class="panel"><h2>Your move</h2><div id="ask" data-testid="ask"></div><div id="clock" class="clock" data-testid="clock"></div></div>
    <div class="panel"><h2>Signals to send</h2><div id="signals-out" data-testid="signals-out"></div></div>
"#;

/// A page from the one template; nothing in it comes from a bot or a record.
fn page(title: &str, panels: &str, script: &str) -> String {
    PAGE.replace("{{TITLE}}", title).replace("{{PANELS}}", panels).replace("{{SCRIPT}}", script)
}

#[derive(Debug)]
struct App {
    addr: SocketAddr,
    seats: HashMap<String, Arc<Resumable>>,
    feed: Option<(String, Arc<Feed>)>,
    max_line: usize,
    play: String,
    watch: String,
}

/// The running server.
#[derive(Debug)]
pub(crate) struct Web {
    app: Arc<App>,
    task: JoinHandle<()>,
}

impl Drop for Web {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Web {
    /// Binds `cfg.listen` and serves a page for each human seat token, and the spectators when
    /// asked; `connect.max_line` bounds a page's message like any bot's line, and a seat whose
    /// page left waits `connect.resume_grace` for it.
    pub(crate) async fn bind(
        cfg: &WebConfig,
        tokens: &[String],
        connect: &ConnectConfig,
    ) -> Result<Web, String> {
        let max_line = connect.max_line;
        let listen = &cfg.listen;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let seats = tokens
            .iter()
            .map(|t| (t.clone(), Resumable::new(false, connect.resume_grace)))
            .collect();
        let feed = cfg.watch.then(|| (crate::bot::tcp::new_token(), Feed::new()));
        let play = page("Aluette: your seat", SEAT_PANELS, "play.js");
        let watch = page("Aluette: live", "", "watch.js");
        let app = Arc::new(App { addr, seats, feed, max_line, play, watch });
        let router = axum::Router::new()
            .route("/play", get(|State(app): State<Arc<App>>| async move { html(&app.play) }))
            .route("/watch", get(|State(app): State<Arc<App>>| async move { html(&app.watch) }))
            .route("/assets/{name}", get(asset))
            // Browsers ask for it on their own: nothing, rather than an error in the console.
            .route(
                "/favicon.ico",
                get(|| async { secured(StatusCode::NO_CONTENT.into_response()) }),
            )
            .route("/ws/seat", get(seat_socket))
            .route("/ws/watch", get(watch_socket))
            .with_state(app.clone());
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::warn!("the web server stopped: {e}");
            }
        });
        Ok(Web { app, task })
    }

    /// The page of the human seat with this token.
    pub(crate) fn seat_url(&self, token: &str) -> String {
        format!("http://{}/play?token={token}", self.app.addr)
    }

    /// The omniscient spectator page, when spectators are served (`&seat=S` for a seat's view).
    pub(crate) fn watch_url(&self) -> Option<String> {
        self.app.feed.as_ref().map(|(t, _)| format!("http://{}/watch?token={t}", self.app.addr))
    }

    /// What the recorder hands the spectators, when they are served.
    pub(crate) fn tap(&self) -> Option<Tap> {
        self.app.feed.as_ref().map(|(_, f)| f.tap())
    }

    /// After the match: gives the spectators up to `limit` to be shown its end.
    pub(crate) async fn linger(&self, limit: Duration) {
        let Some((_, feed)) = &self.app.feed else { return };
        let deadline = tokio::time::Instant::now() + limit;
        while !feed.caught_up() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The human seat's byte stream, once its page has connected (waiting at most `wait`).
    pub(crate) async fn take(&self, token: &str, wait: Duration) -> Option<(Reader, Writer)> {
        let stream = self.app.seats.get(token)?.take(wait).await?;
        let (r, w) = tokio::io::split(stream);
        Some((Box::new(r), Box::new(w)))
    }
}

/// A response with the headers every answer of this server carries.
fn secured(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn html(body: &str) -> Response {
    let body = body.to_string();
    secured(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response())
}

fn refuse(status: StatusCode, why: &'static str) -> Response {
    secured((status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], why).into_response())
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => secured(([(header::CONTENT_TYPE, *kind)], *body).into_response()),
        None => refuse(StatusCode::NOT_FOUND, "no such file"),
    }
}

/// A WebSocket must come from a page of this server: its `Origin` is `http://` + the `Host` it
/// asked for, and that host names this server's port (another site's page cannot open it, even
/// through a name that resolves here).
fn same_origin(app: &App, headers: &HeaderMap) -> bool {
    let get = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    let (Some(origin), Some(host)) = (get(header::ORIGIN), get(header::HOST)) else {
        return false;
    };
    let port_ok = host.rsplit_once(':').is_some_and(|(_, p)| p == app.addr.port().to_string());
    port_ok && origin.strip_prefix("http://") == Some(host)
}

#[derive(Debug, Deserialize)]
struct SeatQuery {
    token: String,
}

async fn seat_socket(
    State(app): State<Arc<App>>,
    Query(q): Query<SeatQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&app, &headers) {
        return refuse(StatusCode::FORBIDDEN, "this page is not from this server");
    }
    let Some(seat) = app.seats.get(&q.token).cloned() else {
        return refuse(StatusCode::FORBIDDEN, "no seat has this token");
    };
    let limit = app.max_line + 1;
    ws.max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| human::play(socket, seat, app.max_line))
}

#[derive(Debug, Deserialize)]
struct WatchQuery {
    token: String,
    seat: Option<u8>,
}

async fn watch_socket(
    State(app): State<Arc<App>>,
    Query(q): Query<WatchQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&app, &headers) {
        return refuse(StatusCode::FORBIDDEN, "this page is not from this server");
    }
    let Some((_, feed)) = app.feed.as_ref().filter(|(t, _)| *t == q.token) else {
        return refuse(StatusCode::FORBIDDEN, "wrong spectator token");
    };
    let feed = feed.clone();
    match q.seat {
        None => ws.on_upgrade(move |socket| watch_all(socket, feed)),
        Some(s) if s < 4 => ws.on_upgrade(move |socket| watch_seat(socket, feed, s.into())),
        Some(_) => refuse(StatusCode::BAD_REQUEST, "a seat is 0 to 3"),
    }
}

/// The omniscient view: the record so far, then each line as it comes.
async fn watch_all(socket: WebSocket, feed: Arc<Feed>) {
    let (n, so_far, added, rx) = feed.subscribe();
    follow_all(socket, &feed, n, so_far, added, rx).await;
    feed.gone(n);
}

async fn follow_all(
    mut socket: WebSocket,
    feed: &Feed,
    n: u64,
    so_far: Vec<Arc<str>>,
    mut added: u64,
    mut rx: tokio::sync::broadcast::Receiver<Arc<str>>,
) {
    for line in so_far {
        if socket.send(Message::Text(line.to_string().into())).await.is_err() {
            return;
        }
    }
    feed.shown(n, added);
    loop {
        tokio::select! {
            line = rx.recv() => match line {
                Ok(line) => {
                    if socket.send(Message::Text(line.to_string().into())).await.is_err() {
                        return;
                    }
                    added += 1;
                    feed.shown(n, added);
                }
                // Fallen behind (or the match is over): the page connects again for a fresh copy.
                Err(_) => return,
            },
            msg = socket.recv() => if !matches!(msg, Some(Ok(_))) { return },
        }
    }
}

/// How often a seat's view is re-derived at most: each is a re-run of the game so far.
const SEAT_VIEW_EVERY: Duration = Duration::from_millis(300);

/// One seat's view: its whole conversation so far, sent again whenever the game moved on.
async fn watch_seat(socket: WebSocket, feed: Arc<Feed>, seat: usize) {
    let (n, _, _, rx) = feed.subscribe();
    follow_seat(socket, &feed, n, seat, rx).await;
    feed.gone(n);
}

async fn follow_seat(
    mut socket: WebSocket,
    feed: &Arc<Feed>,
    n: u64,
    seat: usize,
    mut rx: tokio::sync::broadcast::Receiver<Arc<str>>,
) {
    loop {
        let f = feed.clone();
        let Ok((view, added)) =
            tokio::task::spawn_blocking(move || watch::seat_view(&f, seat)).await
        else {
            return;
        };
        let msg = match view {
            Ok(lines) => serde_json::json!({ "conversation": lines }),
            Err(e) => serde_json::json!({ "error": e }),
        };
        if socket.send(Message::Text(msg.to_string().into())).await.is_err() {
            return;
        }
        feed.shown(n, added);
        tokio::time::sleep(SEAT_VIEW_EVERY).await;
        // Wait for the game to move on; everything that came meanwhile is in the next view.
        tokio::select! {
            line = rx.recv() => match line {
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return,
            },
            msg = socket.recv() => if !matches!(msg, Some(Ok(_))) { return },
        }
        while let Ok(_) | Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) =
            rx.try_recv()
        {}
    }
}
