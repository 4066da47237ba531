//! The web server's door, as hardened as the TCP lobby's: every connection is served by hyper
//! with its own deadline for a request's head (`header_read_timeout`), connections are capped in
//! all and per address within a file-descriptor budget that always leaves room for the match's
//! own bots and pages, and WebSocket sessions have caps of their own.
//!
//! Why this shape: until a request has been read the server knows nothing of a connection but its
//! address, and a stranger can open thousands. Here every connection holds a place; when its
//! address, or the whole server, is out of places, the newcomer takes the place of the oldest
//! connection of the address holding most (its own, when that is the heaviest). A page's request
//! is sent the moment it connects and served in microseconds, so a flood of idle connections
//! from the page's own address cannot keep the page out; and memory and descriptors stay bounded
//! whatever is tried. The lobby refuses the newcomer instead (`bot::lobby::gate`): a bot retries,
//! a person's browser gives up. A connection upgraded to a WebSocket leaves the places for a
//! session slot: it has shown its token.

use crate::bot::lobby::gate::Origin;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// How long a connection may take to send a request's head (the first, and each next one on a
/// connection kept alive): a page's is sent at once.
const HEAD_DEADLINE: Duration = Duration::from_secs(5);
/// The most bytes hyper buffers for one connection's request head.
const HEAD_BYTES: usize = 16 * 1024;
/// File descriptors the web server never takes: the match's own bots (a bot restarted mid-match
/// needs pipes), its records and logs, the lobby, and the pages' sessions.
const FD_RESERVE: u64 = 256;
/// At most this many connections waiting for or making a plain request, in all and per address.
const MAX_CONNECTIONS: usize = 512;
const MAX_CONNECTIONS_PER_ADDR: usize = 256;
/// WebSocket sessions (spectators; a human seat has a single page), in all and per address.
const MAX_SESSIONS: usize = 256;
const MAX_SESSIONS_PER_ADDR: usize = 128;

/// The door's numbers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) connections: usize,
    pub(crate) connections_per_addr: usize,
    pub(crate) sessions: usize,
    pub(crate) sessions_per_addr: usize,
}

impl Limits {
    /// The caps, within the descriptors this process may open: each connection or session
    /// holds one, and [`FD_RESERVE`] stay free for the match itself.
    pub(crate) fn within_fd_budget() -> Limits {
        use nix::sys::resource::{Resource, getrlimit};
        let nofile = getrlimit(Resource::RLIMIT_NOFILE).map_or(1024, |(soft, _)| soft);
        let budget = usize::try_from(nofile.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX);
        // Half for connections, half for sessions, and never none of either.
        let half = (budget / 2).max(4);
        let connections = MAX_CONNECTIONS.min(half);
        let sessions = MAX_SESSIONS.min(half);
        Limits {
            connections,
            connections_per_addr: MAX_CONNECTIONS_PER_ADDR.min(connections),
            sessions,
            sessions_per_addr: MAX_SESSIONS_PER_ADDR.min(sessions),
        }
    }
}

#[derive(Debug, Default)]
struct Places {
    /// Each address's connections, oldest first, each with the way to close it.
    by_addr: HashMap<Origin, VecDeque<(u64, oneshot::Sender<()>)>>,
    held: usize,
    next_id: u64,
    sessions: HashMap<Origin, usize>,
    sessions_held: usize,
}

/// Who holds the server's places and session slots.
#[derive(Debug)]
pub(crate) struct Door {
    limits: Limits,
    places: Mutex<Places>,
}

/// One connection, as its requests see it (a request extension).
#[derive(Clone, Debug)]
pub(crate) struct Conn {
    door: Arc<Door>,
    pub(crate) from: Origin,
    id: u64,
    /// The address the peer connected to: a `Host` naming it is this server.
    pub(crate) local: SocketAddr,
}

/// A WebSocket session's slot, freed when dropped.
#[derive(Debug)]
pub(crate) struct Session {
    door: Arc<Door>,
    from: Origin,
}

impl Drop for Session {
    fn drop(&mut self) {
        let mut p = self.door.places();
        p.sessions_held -= 1;
        if let Some(n) = p.sessions.get_mut(&self.from) {
            *n -= 1;
            if *n == 0 {
                p.sessions.remove(&self.from);
            }
        }
    }
}

impl Door {
    pub(crate) fn new(limits: Limits) -> Arc<Door> {
        Arc::new(Door { limits, places: Mutex::default() })
    }

    fn places(&self) -> MutexGuard<'_, Places> {
        self.places.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a new connection from `from`, taken from the oldest connection of the
    /// heaviest address when none is free; the receiver fires when it must close.
    fn admit(&self, from: Origin) -> (u64, oneshot::Receiver<()>) {
        let mut p = self.places();
        let mine = p.by_addr.get(&from).map_or(0, VecDeque::len);
        let victim = if mine >= self.limits.connections_per_addr {
            Some(from)
        } else if p.held >= self.limits.connections {
            p.by_addr.iter().max_by_key(|(_, q)| q.len()).map(|(o, _)| *o)
        } else {
            None
        };
        if let Some(v) = victim
            && let Some(q) = p.by_addr.get_mut(&v)
            && let Some((_, close)) = q.pop_front()
        {
            let _ = close.send(());
            if q.is_empty() {
                p.by_addr.remove(&v);
            }
            p.held -= 1;
        }
        let id = p.next_id;
        p.next_id += 1;
        let (close, closed) = oneshot::channel();
        p.by_addr.entry(from).or_default().push_back((id, close));
        p.held += 1;
        (id, closed)
    }

    /// Frees connection `id`'s place, if it still holds one.
    fn release(&self, from: Origin, id: u64) {
        let mut p = self.places();
        let Some(q) = p.by_addr.get_mut(&from) else { return };
        let Some(i) = q.iter().position(|(n, _)| *n == id) else { return };
        q.remove(i);
        if q.is_empty() {
            p.by_addr.remove(&from);
        }
        p.held -= 1;
    }

    /// Connections holding a place now.
    #[cfg(test)]
    fn connections(&self) -> usize {
        self.places().held
    }
}

impl Conn {
    /// Moves this connection from the places to a WebSocket session slot; `None` when every
    /// slot, in all or for its address, is taken, unless `always` (a human seat's page: a seat
    /// has one page at a time, so its sessions are few whatever its holder does).
    pub(crate) fn session(&self, always: bool) -> Option<Session> {
        let door = &self.door;
        {
            let mut p = door.places();
            let mine = p.sessions.get(&self.from).copied().unwrap_or(0);
            let full =
                p.sessions_held >= door.limits.sessions || mine >= door.limits.sessions_per_addr;
            if full && !always {
                return None;
            }
            p.sessions_held += 1;
            *p.sessions.entry(self.from).or_default() += 1;
        }
        door.release(self.from, self.id);
        Some(Session { door: door.clone(), from: self.from })
    }
}

/// Serves `router` on `listener` until the task is dropped: each connection on a task of its
/// own, under the door's places and hyper's deadline for a request's head.
pub(crate) async fn serve(listener: TcpListener, door: Arc<Door>, router: Router) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors (or a connection reset before it was accepted): the budget
                // keeps the first rare, and a pause lets connections end before the next try.
                tracing::debug!("the web server cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(local) = stream.local_addr() else { continue };
        let _ = stream.set_nodelay(true);
        let from = Origin::of(peer.ip());
        let (id, closed) = door.admit(from);
        let conn = Conn { door: door.clone(), from, id, local };
        let (door, router) = (door.clone(), router.clone());
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
                req.extensions_mut().insert(conn.clone());
                // What axum's own server tells a handler of its peer, for any router served here.
                req.extensions_mut().insert(axum::extract::ConnectInfo(peer));
                let mut router = router.clone();
                tower_service::Service::call(&mut router, req.map(axum::body::Body::new))
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_DEADLINE)
                .max_buf_size(HEAD_BYTES);
            let served = builder.serve_connection(TokioIo::new(stream), svc).with_upgrades();
            tokio::select! {
                _ = served => {}
                // Its place went to a newer connection. (A connection upgraded to a WebSocket
                // gave its place up, which drops the sender: that is no reason to close, and
                // before the upgrade is handed over it would lose the page's socket.)
                Ok(()) = closed => {}
            }
            door.release(from, id);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn limits() -> Limits {
        Limits { connections: 4, connections_per_addr: 3, sessions: 2, sessions_per_addr: 1 }
    }

    /// A full address gives up its own oldest connection; a full server the oldest of the
    /// heaviest address; the count never passes the cap.
    #[test]
    fn the_oldest_connection_of_the_heaviest_address_gives_way() {
        let door = Door::new(limits());
        let a = Origin::of(Ipv4Addr::new(10, 0, 0, 1).into());
        let b = Origin::of(Ipv4Addr::new(10, 0, 0, 2).into());
        let mut a_conns: Vec<_> = (0..3).map(|_| door.admit(a)).collect();
        let (_, mut fourth) = door.admit(a);
        assert!(a_conns[0].1.try_recv().is_ok(), "a's oldest closes");
        assert!(fourth.try_recv().is_err());
        assert_eq!(door.connections(), 3);
        let (_, mut b1) = door.admit(b);
        assert_eq!(door.connections(), 4);
        let (_, _b2) = door.admit(b);
        assert!(a_conns[1].1.try_recv().is_ok(), "the server is full: a, the heaviest, gives way");
        assert!(b1.try_recv().is_err());
        assert_eq!(door.connections(), 4);
    }

    /// A session leaves the places; sessions are capped per address and in all.
    #[test]
    fn sessions_have_slots_of_their_own() {
        let door = Door::new(limits());
        let a = Origin::of(Ipv4Addr::new(10, 0, 0, 1).into());
        let b = Origin::of(Ipv4Addr::new(10, 0, 0, 2).into());
        let local = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
        let conn = |from| {
            let (id, _) = door.admit(from);
            Conn { door: door.clone(), from, id, local }
        };
        let first = conn(a).session(false).expect("a slot");
        assert_eq!(door.connections(), 0);
        assert!(conn(a).session(false).is_none(), "one per address");
        let _second = conn(b).session(false).expect("b's slot");
        drop(first);
        assert!(conn(a).session(false).is_some(), "a slot freed");
    }
}
