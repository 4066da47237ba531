//! A person's seat over its page's WebSocket: the seat's lines go to the page as text messages
//! and the page's messages come back as lines. The seat itself, which outlives the page's
//! connection (feature `resume`), is `bot::resumable`; this file is only the WebSocket's end.

use crate::bot::resumable::Resumable;
use axum::extract::ws::{Message, WebSocket};
use std::sync::Arc;

/// A page at its seat: the seat's messages out, the page's messages in as lines.
pub(super) async fn play(mut socket: WebSocket, seat: Arc<Resumable>, max_line: usize) {
    let mut page = match seat.attach() {
        Ok(page) => page,
        Err(why) => {
            let bye = protocol::encode_line(&protocol::ToBot::Bye { reason: why.reason().into() });
            let _ = super::send(&mut socket, bye.trim_end().to_string()).await;
            return;
        }
    };
    loop {
        tokio::select! {
            out = page.next() => match out {
                // A page that does not take a message in time is let go, as a spectator's is:
                // the seat waits its grace for it to connect again.
                Some(text) => {
                    if !super::send(&mut socket, text).await {
                        break;
                    }
                }
                // The seat was closed (the match is over) or another page took it.
                None => break,
            },
            msg = socket.recv() => match msg {
                // A message is a line: one holding a line break would be several.
                Some(Ok(Message::Text(text))) if !text.contains('\n') && text.len() <= max_line => {
                    seat.heard(page.n, text.as_str().as_bytes()).await;
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                _ => break,
            },
        }
    }
    seat.detach(page.n);
}
