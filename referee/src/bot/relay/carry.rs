//! The one loop that carries a resumable seat's connection (feature `resume`, spec/protocol.md
//! section 9.2), whatever the connection is: the seat's lines go out on it, its lines come back
//! to the seat, until either end closes. A connection is a [`SeatLink`]: a TCP connection held
//! as every bot's is, a [`LineConn`] ([`TcpLink`], here), or a page's WebSocket
//! (`web/human.rs`). The seat itself, which outlives its connections, is `bot::relay`.

use crate::bot::link::{Incoming, LineConn, Reader, Writer};
use crate::bot::relay::{Attached, Refused, Resumable, bye_line};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// A connection that may hold a resumable seat, as the carrying loop sees it: lines out, lines
/// in. Each end keeps its own bounds (a line's length, a write's deadline).
pub(crate) trait SeatLink {
    /// Sends one of the seat's lines (without its newline); false when the connection did not
    /// take it in time or is gone.
    async fn send(&mut self, line: String) -> bool;

    /// The connection's next line (without its newline); `None` at its end, or when it broke a
    /// bound (a line too long, several lines in one message). Cancel-safe: a line is taken only
    /// when it is returned.
    async fn next(&mut self) -> Option<&[u8]>;

    /// Ends the connection, when it has an end to say.
    async fn close(&mut self) {}
}

/// A connection comes for `seat`: held there until either ends ([`hold`]), or, when the seat
/// refuses it, told why in a `bye` and ended ([`refuse`]).
pub(crate) async fn take_seat(seat: Arc<Resumable>, link: impl SeatLink) {
    match seat.attach() {
        Ok(held) => hold(seat, held, link).await,
        Err(why) => refuse(link, &why).await,
    }
}

/// Tells a connection the seat refused it why, and ends it: the one way a refusal is said.
pub(crate) async fn refuse(mut link: impl SeatLink, why: &Refused) {
    link.send(bye_line(why.reason())).await;
    link.close().await;
}

/// Carries `link`'s lines to and from `seat`, which it holds as `held`, then lets the seat go
/// (`detach`: its grace begins). The connection is read only while the seat has taken its
/// earlier lines (`Resumable::heard` waits meanwhile), so a flood waits in the peer's own
/// buffers, not the referee's.
pub(crate) async fn hold(seat: Arc<Resumable>, mut held: Attached, mut link: impl SeatLink) {
    loop {
        // Both waits may be dropped half-way: `Attached::next` and `SeatLink::next` are
        // cancel-safe.
        tokio::select! {
            out = held.next() => {
                // None: the match closed the seat, the seat was given up, or this connection
                // no longer holds it.
                let Some(line) = out else { break };
                if !link.send(line).await {
                    break;
                }
            }
            got = link.next() => match got {
                Some(line) => seat.heard(held.n, line).await,
                None => break,
            },
        }
    }
    link.close().await;
    seat.detach(held.n);
}

/// How far off the wait for a connection's next line is put: a connection that holds a seat
/// may say nothing for as long as it likes (the game's clock is the seat's business).
const NO_DEADLINE: Duration = Duration::from_secs(24 * 3600);

/// A TCP connection holding a seat, held as a [`LineConn`]: a line over the connection's
/// `max_line` ends it, as over a page's WebSocket; so does a write it does not take within
/// `write_limit` (a bot that stops reading), as it would end a bot's connection held by the
/// match.
pub(crate) struct TcpLink {
    conn: LineConn,
    write_limit: Duration,
}

impl TcpLink {
    pub(crate) fn new(
        reader: Reader,
        writer: Writer,
        max_line: usize,
        write_limit: Duration,
    ) -> TcpLink {
        TcpLink { conn: LineConn::new(reader, writer, max_line), write_limit }
    }
}

impl SeatLink for TcpLink {
    async fn send(&mut self, line: String) -> bool {
        self.conn.queue_bytes(line.as_bytes());
        self.conn.queue_bytes(b"\n");
        self.conn.flush(Instant::now() + self.write_limit).await.is_ok()
    }

    async fn next(&mut self) -> Option<&[u8]> {
        loop {
            // The link keeps what it has read when the wait is dropped.
            match self.conn.next(Instant::now() + NO_DEADLINE).await {
                Incoming::Line => return Some(self.conn.line()),
                Incoming::Deadline => {}
                Incoming::TooLong | Incoming::Eof { .. } | Incoming::Error(_) => return None,
            }
        }
    }

    async fn close(&mut self) {
        let _ = tokio::time::timeout(self.write_limit, self.conn.shutdown()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

    const GRACE: Duration = Duration::from_secs(60);
    const WAIT: Duration = Duration::from_secs(5);

    /// A TCP connection's end for `seat`, carried by the one loop: the bot's side of the
    /// stream, and the loop's task.
    fn carried(
        seat: &Arc<Resumable>,
        max_line: usize,
    ) -> (BufReader<tokio::io::DuplexStream>, tokio::task::JoinHandle<()>) {
        let (ours, theirs) = tokio::io::duplex(4096);
        let (r, w) = tokio::io::split(ours);
        let link = TcpLink::new(Box::new(r), Box::new(w), max_line, WAIT);
        (BufReader::new(theirs), tokio::spawn(take_seat(seat.clone(), link)))
    }

    async fn line(bot: &mut BufReader<tokio::io::DuplexStream>) -> String {
        let mut line = String::new();
        tokio::time::timeout(WAIT, bot.read_line(&mut line)).await.unwrap().unwrap();
        line
    }

    /// The seat's lines reach the connection and its lines reach the referee, until it sends a
    /// line over its limit: then it is ended (its stream shut) and lets the seat go, which,
    /// without `resume`, is given up, so the referee sees its connection end.
    #[tokio::test]
    async fn a_connection_is_carried_both_ways_until_a_line_too_long_ends_it() {
        let seat = Resumable::new(false, GRACE);
        let (mut bot, task) = carried(&seat, 64);
        let mut referee = seat.take(WAIT).await.unwrap();
        referee.write_all(b"{\"type\":\"chant\",\"taken\":false}\n").await.unwrap();
        assert_eq!(line(&mut bot).await, "{\"type\":\"chant\",\"taken\":false}\n");
        bot.get_mut().write_all(b"{\"type\":\"opening\",\"id\":2}\n").await.unwrap();
        let mut buf = vec![0; 512];
        let n = tokio::time::timeout(WAIT, referee.read(&mut buf)).await.unwrap().unwrap();
        assert_eq!(&buf[..n], b"{\"type\":\"opening\",\"id\":2}\n");
        bot.get_mut().write_all(&[b'x'; 100]).await.unwrap();
        bot.get_mut().write_all(b"\n").await.unwrap();
        tokio::time::timeout(WAIT, task).await.unwrap().unwrap();
        assert_eq!(line(&mut bot).await, "", "the connection is ended");
        assert!(seat.given_up());
        let n = tokio::time::timeout(WAIT, referee.read(&mut buf)).await.unwrap().unwrap();
        assert_eq!(n, 0, "the referee sees the connection end");
    }

    /// A connection the seat refuses is told why in a `bye`, and ended.
    #[tokio::test]
    async fn a_refused_connection_is_told_why_and_ended() {
        let seat = Resumable::new(false, GRACE);
        let first = seat.attach().unwrap();
        seat.detach(first.n);
        let (mut bot, task) = carried(&seat, 64);
        tokio::time::timeout(WAIT, task).await.unwrap().unwrap();
        let bye = format!("{}\n", bye_line(Refused::Gone.reason()));
        assert_eq!(line(&mut bot).await, bye);
        assert_eq!(line(&mut bot).await, "", "then its end");
    }
}
