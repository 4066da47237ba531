//! The library's TCP door: a listener for bots that join at any time, each naming in its hello
//! a token the caller maps to a seat key. It is the `match` lobby itself (the same admission
//! gate, handshake deadline, strikes for wrong tokens and resume of a dropped connection), with
//! its seats opened by the caller's admission instead of fixed when it binds.

use super::{Config, Connection};
use crate::bot::lobby::{Lobby, PendingLimits};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// A listener whose bots wait to be seated. A bot is admitted when `admit` maps the token of
/// its hello to a seat key; a token it maps to nothing is refused and counts as a strike
/// against its address (repeated strikes are slowed down). One bot holds a key at a time: a
/// second connection naming it is refused while the first is connected, unless the first took
/// up `resume` and this one takes its place (spec/protocol.md section 9.2).
#[derive(Debug)]
pub struct Door {
    lobby: Lobby,
}

impl Door {
    /// Listens on `addr` (`HOST:PORT`; port 0 picks one). At most `pending` handshakes wait at
    /// once, `per_address` of them from one address.
    pub async fn bind(
        addr: &str,
        config: &Config,
        pending: usize,
        per_address: usize,
        admit: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Result<Door, String> {
        let limits = PendingLimits { total: pending.max(1), per_addr: per_address.max(1) };
        let lobby =
            Lobby::bind_admitting(addr, Arc::new(admit), config.connect.clone(), limits).await?;
        Ok(Door { lobby })
    }

    /// The longest line a bot may send, as the door's configuration sets it.
    pub(crate) fn max_line(&self) -> usize {
        self.lobby.max_line()
    }

    /// The address bots connect to.
    pub fn addr(&self) -> SocketAddr {
        self.lobby.addr()
    }

    /// Takes in a bot that reached the caller another way than this door's listener (a
    /// WebSocket, adapted to a byte stream): greeted and admitted exactly as at the door, the
    /// address `peer` counted against its share of pending handshakes.
    pub fn enter(
        &self,
        reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
        peer: SocketAddr,
    ) {
        self.lobby.enter(Box::new(reader), Box::new(writer), peer);
    }

    /// The keys of the seats whose bot is connected and waiting, in order.
    pub fn waiting(&self) -> Vec<String> {
        self.lobby.ready()
    }

    /// Resolves when a bot arrives or leaves, or after `wait`.
    pub async fn changed(&self, wait: Duration) {
        self.lobby.changed(wait).await;
    }

    /// The waiting bot of seat `key`, if one is there. From then on its seat is held for it
    /// until its connection ends for good.
    pub async fn take(&self, key: &str) -> Option<Connection> {
        self.lobby.take(key, Duration::ZERO).await.map(Connection::of)
    }

    /// Stops taking connections, and says `bye` with `reason` to the bots still waiting.
    pub async fn close(&self, reason: &str) {
        self.lobby.close(reason).await;
    }
}
