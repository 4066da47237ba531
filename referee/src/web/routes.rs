//! The web server's answers and checks: every request must name this server in its `Host` (a
//! DNS-rebinding page names its own site, and is refused), every WebSocket must come from one
//! of this server's pages (`Origin`) and name a token that opens exactly one thing (a human seat,
//! the organiser's view, or one seat's view), and wrong tokens slow their address down as they
//! do at the TCP lobby (`bot::lobby::gate::Gate::strike`). Every socket's buffers are bounded by
//! the line limit.

use super::door::Conn;
use super::seat_view::{Change, SeatViews, Watching};
use super::watch::{Feed, Viewer};
use super::{App, SEND_DEADLINE, View, human, send};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::{Arc, PoisonError};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

pub(super) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                              img-src 'self'; connect-src 'self'; base-uri 'none'; \
                              form-action 'none'; frame-ancestors 'none'";

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

/// The most a seat-view message holds, in bytes of lines (one line more than that goes alone).
const CHUNK_BYTES: usize = 64 * 1024;

/// A response with the headers every answer of this server carries.
pub(super) fn secured(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

pub(super) fn html(body: &str) -> Response {
    let body = body.to_string();
    secured(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response())
}

pub(super) fn refuse(status: StatusCode, why: &'static str) -> Response {
    secured((status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], why).into_response())
}

pub(super) async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => secured(([(header::CONTENT_TYPE, *kind)], *body).into_response()),
        None => refuse(StatusCode::NOT_FOUND, "no such file"),
    }
}

/// A WebSocket must come from a page of this server: its `Origin` is `http://` + the `Host` it
/// asked for (which [`Hosts`](super::hosts::Hosts) holds to this server).
fn same_origin(headers: &HeaderMap) -> bool {
    let get = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    let (Some(origin), Some(host)) = (get(header::ORIGIN), get(header::HOST)) else {
        return false;
    };
    origin.strip_prefix("http://") == Some(host)
}

/// A wrong token: refused after its address's delay, as at the lobby.
async fn wrong_token(app: &App, conn: &Conn, why: &'static str) -> Response {
    let delay = app
        .strikes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .strike(conn.from, tokio::time::Instant::now());
    tokio::time::sleep(delay).await;
    refuse(StatusCode::FORBIDDEN, why)
}

/// A socket's limits: a message in is at most one line, and what waits to be sent is bounded.
pub(super) fn bounded(ws: WebSocketUpgrade, max_line: usize) -> WebSocketUpgrade {
    let one_line = max_line + 1;
    // A record line quotes a bot's line, escaped: each byte may take six.
    let out = 8 * max_line + 2 * CHUNK_BYTES;
    ws.max_message_size(one_line)
        .max_frame_size(one_line)
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_write_buffer_size(out)
}

#[derive(Debug, Deserialize)]
pub(super) struct TokenQuery {
    token: String,
}

pub(super) async fn seat_socket(
    State(app): State<Arc<App>>,
    Extension(conn): Extension<Conn>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "this page is not from this server");
    }
    let Some(seat) = app.seats.get(&q.token).cloned() else {
        return wrong_token(&app, &conn, "no seat has this token").await;
    };
    // A seat has one page at a time (a second takes it from the first): never refused a slot.
    let session = conn.session(true);
    let max_line = app.max_line;
    bounded(ws, max_line).on_upgrade(move |socket| async move {
        human::play(socket, seat, max_line).await;
        drop(session);
    })
}

pub(super) async fn watch_socket(
    State(app): State<Arc<App>>,
    Extension(conn): Extension<Conn>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "this page is not from this server");
    }
    let (Some(view), Some(feed), Some(views)) =
        (app.views.get(&q.token).copied(), app.feed.clone(), app.seat_views.clone())
    else {
        return wrong_token(&app, &conn, "wrong spectator token").await;
    };
    let Some(session) = conn.session(false) else {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "too many spectators");
    };
    bounded(ws, app.max_line).on_upgrade(move |socket| async move {
        match view {
            View::All => watch_all(socket, feed).await,
            View::Seat(seat) => watch_seat(socket, feed, views, seat).await,
        }
        drop(session);
    })
}

/// The omniscient view: the record so far, then each line as it comes.
async fn watch_all(mut socket: WebSocket, feed: Arc<Feed>) {
    let hello = serde_json::json!({ "view": "all" }).to_string();
    let (viewer, so_far, added, rx) = feed.subscribe();
    if send(&mut socket, hello).await {
        follow_all(socket, &feed, &viewer, so_far, added, rx).await;
    }
    feed.gone(viewer.n);
}

async fn follow_all(
    mut socket: WebSocket,
    feed: &Feed,
    viewer: &Viewer,
    so_far: Vec<Arc<str>>,
    mut added: u64,
    mut rx: tokio::sync::broadcast::Receiver<Arc<str>>,
) {
    for run in runs(&so_far) {
        if !send(&mut socket, run.join("\n")).await {
            return;
        }
    }
    viewer.shown(added);
    loop {
        tokio::select! {
            line = rx.recv() => match line {
                Ok(line) => {
                    // With every line that came meanwhile, in one message.
                    let mut text = line.to_string();
                    added += 1;
                    while text.len() < CHUNK_BYTES {
                        match rx.try_recv() {
                            Ok(line) => {
                                text.push('\n');
                                text.push_str(&line);
                                added += 1;
                            }
                            Err(TryRecvError::Empty) => break,
                            Err(_) => return,
                        }
                    }
                    if !send(&mut socket, text).await {
                        return;
                    }
                    viewer.shown(added);
                }
                // Fallen behind (or the match is over): the page connects again for a fresh copy.
                Err(_) => return,
            },
            msg = socket.recv() => if !matches!(msg, Some(Ok(_))) { return },
            () = feed.over() => return close_over(socket).await,
        }
    }
}

/// The reason of the close a spectator gets when the match is over; its page stops there.
const MATCH_OVER: &str = "match over";

/// Tells a spectator the match is over, within the send deadline, and lets it go.
async fn close_over(mut socket: WebSocket) {
    let frame = axum::extract::ws::CloseFrame { code: 1000, reason: MATCH_OVER.into() };
    let _ = tokio::time::timeout(SEND_DEADLINE, socket.send(Message::Close(Some(frame)))).await;
}

/// One seat's view: what it shows so far, then each change as it is derived.
async fn watch_seat(socket: WebSocket, feed: Arc<Feed>, views: Arc<SeatViews>, seat: usize) {
    let (viewer, _, _, _) = feed.subscribe();
    follow_seat(socket, &feed, &viewer, views.watch(seat), seat).await;
    feed.gone(viewer.n);
}

async fn follow_seat(
    mut socket: WebSocket,
    feed: &Feed,
    viewer: &Viewer,
    mut w: Watching,
    seat: usize,
) {
    let hello = serde_json::json!({ "view": "seat", "seat": seat }).to_string();
    let mut out = vec![hello, reset()];
    out.extend(chunks(&w.lines));
    out.extend(w.error.as_deref().map(error));
    for m in out {
        if !send(&mut socket, m).await {
            return;
        }
    }
    viewer.shown(w.added);
    loop {
        tokio::select! {
            change = w.rx.recv() => {
                let (mut msgs, mut added) = match change {
                    Ok(Change::Reset(added)) => (vec![reset()], added),
                    Ok(Change::Lines(lines, added)) => (chunks(&lines), added),
                    Ok(Change::Error(e, added)) => (vec![error(&e)], added),
                    // Fallen behind: dropped, never waited for; its page connects again.
                    Err(RecvError::Lagged(_) | RecvError::Closed) => return,
                };
                // The lines that came meanwhile go with them, in as few messages as fit.
                let mut lines: Vec<Arc<str>> = Vec::new();
                loop {
                    match w.rx.try_recv() {
                        Ok(Change::Lines(more, n)) => {
                            lines.extend(more.iter().cloned());
                            added = n;
                        }
                        Ok(Change::Reset(n)) => {
                            msgs.extend(chunks(&std::mem::take(&mut lines)));
                            msgs.push(reset());
                            added = n;
                        }
                        Ok(Change::Error(e, n)) => {
                            msgs.extend(chunks(&std::mem::take(&mut lines)));
                            msgs.push(error(&e));
                            added = n;
                        }
                        Err(TryRecvError::Empty) => break,
                        Err(_) => return,
                    }
                }
                msgs.extend(chunks(&lines));
                for m in msgs {
                    if !send(&mut socket, m).await {
                        return;
                    }
                }
                viewer.shown(added);
            }
            msg = socket.recv() => if !matches!(msg, Some(Ok(_))) { return },
            () = feed.over() => return close_over(socket).await,
        }
    }
}

fn reset() -> String {
    serde_json::json!({ "reset": true }).to_string()
}

fn error(e: &str) -> String {
    serde_json::json!({ "error": e }).to_string()
}

/// Lines as `{"lines":[...]}` messages of at most about [`CHUNK_BYTES`] each.
fn chunks(lines: &[Arc<str>]) -> Vec<String> {
    let json = |run: &[Arc<str>]| {
        let part: Vec<&str> = run.iter().map(|l| &**l).collect();
        serde_json::json!({ "lines": part }).to_string()
    };
    runs(lines).into_iter().map(json).collect()
}

/// Lines cut into runs of at most about [`CHUNK_BYTES`] each (a longer line alone).
fn runs(lines: &[Arc<str>]) -> Vec<&[Arc<str>]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let mut end = start + 1;
        let mut bytes = lines[start].len();
        while end < lines.len() && bytes + lines[end].len() <= CHUNK_BYTES {
            bytes += lines[end].len();
            end += 1;
        }
        out.push(&lines[start..end]);
        start = end;
    }
    out
}
