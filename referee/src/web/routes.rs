//! The web server's answers and checks: every request must name this server in its `Host` (a
//! DNS-rebinding page names its own site, and is refused), every WebSocket must come from one
//! of this server's pages (`Origin`) and name a token that opens exactly one thing (a human seat,
//! the organiser's view, or one seat's view), and wrong tokens slow their address down as they
//! do at the TCP lobby (`bot::lobby::gate::Gate::strike`). Every socket's buffers are bounded by
//! the line limit.

use super::door::Conn;
use super::follow::{CHUNK_BYTES, watch_all, watch_seat};
use super::{App, View, human};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::{Arc, PoisonError};

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
