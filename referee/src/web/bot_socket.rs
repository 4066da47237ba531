//! A bot that joins over a WebSocket (the arena's `/ws/bot`): its messages carried to a
//! [`Door`] as a byte stream, one text message a line each way, so the bot is greeted, admitted
//! and played exactly as one over TCP. The WebSocket's end only: admission is the door's, and
//! the socket's slot and buffers are the web door's, as a spectator's are.

use super::door::Conn;
use super::routes::{bounded, refuse};
use crate::api::Door;
use axum::Extension;
use axum::extract::ConnectInfo;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use protocol::codec::{Frame, LineFramer};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// The route bots join `door` by over a WebSocket, for a router served by
/// [`serve_http`](super::serve_http). Each socket takes one of the web door's session slots
/// (capped in all and per address; none left is 503) and has its messages bounded to one line;
/// the handshake's deadline, the token and the strikes are the lobby's, as for a TCP bot.
pub fn bot_socket_route<S: Clone + Send + Sync + 'static>(
    door: Arc<Door>,
) -> axum::routing::MethodRouter<S> {
    axum::routing::get(
        move |Extension(conn): Extension<Conn>,
              ConnectInfo(peer): ConnectInfo<SocketAddr>,
              ws: WebSocketUpgrade| {
            let door = door.clone();
            async move {
                let Some(session) = conn.session(false) else {
                    return refuse(StatusCode::SERVICE_UNAVAILABLE, "too many WebSocket sessions");
                };
                let max_line = door.max_line();
                bounded(ws, max_line).on_upgrade(move |socket| async move {
                    carry_bot_socket(socket, &door, peer, max_line).await;
                    drop(session);
                })
            }
        },
    )
}

/// Carries `socket` to `door` until either end closes. `peer` is where the bot connected from
/// (its address counts against its share of the door's pending handshakes); a message longer
/// than `max_line`, or holding a line break, ends the connection, as a line too long ends a TCP
/// bot's. What the referee says leaves with the same deadline as a page's messages, so a bot
/// that stops reading is let go.
async fn carry_bot_socket(mut socket: WebSocket, door: &Door, peer: SocketAddr, max_line: usize) {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (r, w) = tokio::io::split(theirs);
    door.enter(r, w, peer);
    let (mut from_referee, mut to_referee) = tokio::io::split(ours);
    // The referee's own lines are bounded by what it sends, not by the bot's limit.
    let mut framer = LineFramer::new(max_line.max(protocol::MAX_LINE_BYTES));
    let mut buf = vec![0u8; 8192];
    'carry: loop {
        tokio::select! {
            read = from_referee.read(&mut buf) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                framer.push(&buf[..n]);
                while let Some(frame) = framer.next_line() {
                    let Frame::Line(line) = frame else { continue };
                    let text = String::from_utf8_lossy(line).into_owned();
                    if !super::send(&mut socket, text).await {
                        break 'carry;
                    }
                }
            }
            text = super::recv_line(&mut socket, max_line) => {
                let Some(text) = text else { break };
                let line = [text.as_str().as_bytes(), b"\n"].concat();
                if to_referee.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to_referee.shutdown().await;
    let _ = socket.send(Message::Close(None)).await;
}
