//! A resumable seat's TCP connection (feature `resume`, spec/protocol.md section 9.2): the
//! seat's lines go out on the socket, the bot's come back to the seat, until either end closes.
//! The connection is held as every bot's is, a [`LineConn`] (the line limit, the write
//! deadline); the seat itself, which outlives the connection, is `bot::relay`.

use crate::bot::link::{Incoming, LineConn, Reader, Writer};
use crate::bot::relay::{Attached, Resumable};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How far off the wait for a connection's next line is put: a connection that holds a seat
/// may say nothing for as long as it likes (the game's clock is the seat's business).
const NO_DEADLINE: Duration = Duration::from_secs(24 * 3600);

/// Carries one connection's lines to and from `seat`, then lets the seat go (`detach`: its
/// grace begins). A line over `max_line` ends the connection, as over a page's WebSocket; so
/// does a write the connection does not take within `write_limit` (a bot that stops reading),
/// as it would end a bot's connection held by the match.
pub(crate) async fn carry(
    seat: Arc<Resumable>,
    mut held: Attached,
    reader: Reader,
    writer: Writer,
    max_line: usize,
    write_limit: Duration,
) {
    let mut link = LineConn::new(reader, writer, max_line);
    loop {
        // Both waits may be dropped half-way: the link keeps what it has read.
        tokio::select! {
            out = held.next() => {
                // None: the match closed the seat, the seat was given up, or this connection
                // no longer holds it.
                let Some(line) = out else { break };
                link.queue_bytes(line.as_bytes());
                link.queue_bytes(b"\n");
                if link.flush(Instant::now() + write_limit).await.is_err() {
                    break;
                }
            }
            got = link.next(Instant::now() + NO_DEADLINE) => match got {
                // Waits while the referee has the seat's earlier lines unread: the socket is
                // not read meanwhile, so a flood waits in the bot's own buffers, not the
                // referee's.
                Incoming::Line => seat.heard(held.n, link.line()).await,
                Incoming::Deadline => {}
                Incoming::TooLong | Incoming::Eof { .. } | Incoming::Error(_) => break,
            },
        }
    }
    let _ = tokio::time::timeout(write_limit, link.shutdown()).await;
    seat.detach(held.n);
}
