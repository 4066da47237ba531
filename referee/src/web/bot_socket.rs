//! A bot that joins over a WebSocket (the arena's `/ws/bot`): its messages carried to a
//! [`Door`] as a byte stream, one text message a line each way, so the bot is greeted, admitted
//! and played exactly as one over TCP. The WebSocket's end only: admission is the door's.

use crate::api::Door;
use axum::extract::ws::{Message, WebSocket};
use protocol::codec::{Frame, LineFramer};
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Carries `socket` to `door` until either end closes. `peer` is where the bot connected from
/// (its address counts against its share of the door's pending handshakes); a message longer
/// than `max_line`, or holding a line break, ends the connection, as a line too long ends a TCP
/// bot's. What the referee says leaves with the same deadline as a page's messages, so a bot
/// that stops reading is let go.
pub async fn carry_bot_socket(
    mut socket: WebSocket,
    door: &Door,
    peer: SocketAddr,
    max_line: usize,
) {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (r, w) = tokio::io::split(theirs);
    door.enter(r, w, peer);
    let (mut from_referee, mut to_referee) = tokio::io::split(ours);
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
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(text))) if !text.contains('\n') && text.len() <= max_line => {
                    let line = [text.as_str().as_bytes(), b"\n"].concat();
                    if to_referee.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                _ => break,
            },
        }
    }
    let _ = to_referee.shutdown().await;
    let _ = socket.send(Message::Close(None)).await;
}
