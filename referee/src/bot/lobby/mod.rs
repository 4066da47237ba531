//! The lobby where bots that connect over TCP claim their seat with a token. Strangers on the
//! listener can take, block or flood nothing: a seat whose bot is connected is never handed to
//! another connection; pending handshakes are capped in all and per address, and when all places
//! are held the heaviest address gives way; wrong tokens slow their address down; and refusals
//! reach the log as counted summaries, not a line each (spec/protocol.md section 8.1).
//!
//! The rooms: this file holds what the organiser sets; `door.rs` the listener, its connections
//! and the seats they claim; `gate.rs` who may wait for a handshake and the slowdown of wrong
//! tokens; `refusals.rs` the log's counted summaries. A connection is held as every bot's is
//! (`bot::link`), and a seat whose bot listed `resume` is carried to its relay (`bot::relay`).

mod door;
pub(crate) mod gate;
mod origin;
mod refusals;
#[cfg(test)]
mod tests;

pub(crate) use door::Lobby;

use std::time::Duration;

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
