//! Bots over TCP: the lobby where connecting bots claim their seat with a token, and the client
//! side for bots that listen. Strangers on the listener can take, block or flood nothing: a seat
//! whose bot is connected is never handed to another connection; pending handshakes are capped
//! in all and per address, and when all places are held the heaviest address gives way; wrong
//! tokens slow their address down; and refusals reach the log as counted summaries, not a line
//! each (spec/protocol.md section 8.1).
//!
//! The rooms: this file holds what the organiser sets, seat tokens and the client side;
//! `lobby.rs` the listener, its connections and the seats they claim; `gate.rs` who may wait
//! for a handshake and the slowdown of wrong tokens; `refusals.rs` the log's counted summaries;
//! `resumed.rs` the connection of a seat whose bot listed `resume`, carried to its relay.

pub(crate) mod gate;
mod lobby;
mod origin;
mod refusals;
mod resumed;
#[cfg(test)]
mod tests;

pub(crate) use lobby::Lobby;

use crate::bot::conn::{Reader, Socket, Writer};
use std::io;
use std::time::Duration;
use tokio::net::TcpStream;

/// The two halves of a connection, and its socket for [`LineConn::watch_socket`].
///
/// [`LineConn::watch_socket`]: super::conn::LineConn::watch_socket
pub(crate) type Halves = (Reader, Writer, Socket);

/// A connection's halves and its socket, set to send each message at once.
pub(crate) fn split(stream: TcpStream) -> Halves {
    // Every message is one small write that must leave at once; Nagle's algorithm would hold
    // each answer for the peer's delayed acknowledgement.
    let _ = stream.set_nodelay(true);
    let socket = Socket::of(&stream);
    let (r, w) = stream.into_split();
    (Box::new(r), Box::new(w), socket)
}

/// Connects to a bot that listens.
pub(crate) async fn connect(addr: &str, limit: Duration) -> io::Result<Halves> {
    let stream = tokio::time::timeout(limit, TcpStream::connect(addr))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer"))??;
    Ok(split(stream))
}

/// How many connections may wait for their handshake at once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingLimits {
    /// In all (`--max-pending`).
    pub(crate) total: usize,
    /// Handshakes in progress from one address (`--max-pending-per-addr`); its other
    /// connections wait for a turn.
    pub(crate) per_addr: usize,
}

/// Where TCP seats wait for their bots, as the organiser set it (`--listen` and its group).
#[derive(Clone, Debug)]
pub(crate) struct NetConfig {
    /// The lobby's address.
    pub(crate) listen: String,
    pub(crate) pending: PendingLimits,
    /// How long the first game waits for TCP bots to connect.
    pub(crate) connect_wait: Duration,
}
