//! A resumable seat's TCP connection (feature `resume`, spec/protocol.md section 9.2): the
//! seat's lines go out on the socket, the bot's come back through the framer to the seat, until
//! either end closes. The seat itself, which outlives the connection, is `bot::relay`.

use crate::bot::link::{Reader, Writer};
use crate::bot::relay::{Attached, Resumable};
use protocol::codec::{Frame, LineFramer};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Carries one connection's lines to and from `seat`, then lets the seat go (`detach`: its
/// grace begins). A line over `max_line` ends the connection, as over a page's WebSocket; so
/// does a write the connection does not take within `write_limit` (a bot that stops reading),
/// as it would end a bot's connection held by the match.
pub(crate) async fn carry(
    seat: Arc<Resumable>,
    mut held: Attached,
    mut reader: Reader,
    mut writer: Writer,
    max_line: usize,
    write_limit: Duration,
) {
    let mut framer = LineFramer::new(max_line);
    let mut buf = vec![0u8; 4096];
    'conn: loop {
        let room = framer.room().min(buf.len());
        tokio::select! {
            out = held.next() => {
                // None: the match closed the seat, the seat was given up, or this connection
                // no longer holds it.
                let Some(mut line) = out else { break };
                line.push('\n');
                let write = tokio::time::timeout(write_limit, writer.write_all(line.as_bytes()));
                if !matches!(write.await, Ok(Ok(()))) {
                    break;
                }
            }
            read = reader.read(&mut buf[..room]) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                framer.push(&buf[..n]);
                while let Some(frame) = framer.next_line() {
                    match frame {
                        // Waits while the referee has the seat's earlier lines unread: the
                        // socket is not read meanwhile, so a flood waits in the bot's own
                        // buffers, not the referee's.
                        Frame::Line(line) => seat.heard(held.n, line).await,
                        Frame::TooLong => break 'conn,
                    }
                }
            }
        }
    }
    let _ = tokio::time::timeout(write_limit, writer.shutdown()).await;
    seat.detach(held.n);
}
