//! Bots over TCP: the lobby where connecting bots claim their seat with a token, and the client
//! side for bots that listen. A stranger can hold neither the referee nor another seat: pending
//! connections are capped, each handshake has a deadline and runs on its own task.

use crate::bot::conn::{Reader, Writer};
use crate::bot::{Bot, BotSpec, ConnectConfig};
use protocol::msg::ToBot;
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinHandle;

/// A fresh random seat token (64 bits as hex).
pub(crate) fn new_token() -> String {
    format!("{:016x}", crate::entropy::random_u64())
}

/// The two halves of a connection, and its socket for [`LineConn::watch_socket`].
pub(crate) type Halves = (Reader, Writer, RawFd);

fn split(stream: TcpStream) -> Halves {
    // Every message is one small write that must leave at once; Nagle's algorithm would hold
    // each answer for the peer's delayed acknowledgement.
    let _ = stream.set_nodelay(true);
    let fd = stream.as_raw_fd();
    let (r, w) = stream.into_split();
    (Box::new(r), Box::new(w), fd)
}

/// Connects to a bot that listens.
pub(crate) async fn connect(addr: &str, limit: Duration) -> io::Result<Halves> {
    let stream = tokio::time::timeout(limit, TcpStream::connect(addr))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer"))??;
    Ok(split(stream))
}

#[derive(Debug)]
enum Slot {
    /// Nobody holds the seat.
    Open,
    /// A bot connected and passed the handshake; the match has not taken it yet.
    Ready(Box<Bot>),
    /// The match plays with the seat's bot.
    InPlay,
}

#[derive(Debug, Default)]
struct State {
    slots: HashMap<String, Slot>,
}

/// The referee's listener: TCP seats wait here for their bots.
#[derive(Debug)]
pub(crate) struct Lobby {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    arrived: Arc<Notify>,
    task: JoinHandle<()>,
}

impl Lobby {
    /// Binds `addr` and starts accepting bots for these seat tokens.
    pub(crate) async fn bind(
        addr: &str,
        tokens: &[String],
        cfg: ConnectConfig,
        max_pending: usize,
    ) -> Result<Lobby, String> {
        let listener = listen(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let mut state = State::default();
        for t in tokens {
            state.slots.insert(t.clone(), Slot::Open);
        }
        let state = Arc::new(Mutex::new(state));
        let arrived = Arc::new(Notify::new());
        let task =
            tokio::spawn(accept_loop(listener, state.clone(), arrived.clone(), cfg, max_pending));
        Ok(Lobby { addr, state, arrived, task })
    }

    /// The address bots connect to.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bot that claimed `token`, waiting at most `wait` for one to arrive.
    pub(crate) async fn take(&self, token: &str, wait: Duration) -> Option<Bot> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let notified = self.arrived.notified();
            if let Some(mut bot) = self.try_take(token) {
                let state = self.state.clone();
                let token = token.to_string();
                bot.set_on_death(move || {
                    if let Ok(mut st) = state.lock() {
                        st.slots.insert(token, Slot::Open);
                    }
                });
                return Some(bot);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Waits until every one of `tokens` has a bot ready, or `wait` is over.
    pub(crate) async fn wait_ready(&self, tokens: &[String], wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let notified = self.arrived.notified();
            let all = self.state.lock().is_ok_and(|st| {
                tokens.iter().all(|t| matches!(st.slots.get(t), Some(Slot::Ready(_))))
            });
            if all || tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }

    fn try_take(&self, token: &str) -> Option<Bot> {
        let mut st = self.state.lock().ok()?;
        let slot = st.slots.get_mut(token)?;
        match std::mem::replace(slot, Slot::InPlay) {
            Slot::Ready(bot) => Some(*bot),
            other => {
                *slot = other;
                None
            }
        }
    }
}

impl Drop for Lobby {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Connections the kernel queues before `accept`. The usual 128 overflows when a tournament's
/// bots all connect at once, and a refused SYN is retried only a second later.
const BACKLOG: u32 = 1024;

/// A listener on the first address `addr` resolves to that accepts a bind.
async fn listen(addr: &str) -> std::io::Result<TcpListener> {
    let mut last = None;
    for sa in tokio::net::lookup_host(addr).await? {
        let socket = if sa.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        // As std's bind does: a restarted referee can take its port back at once.
        socket.set_reuseaddr(true)?;
        match socket.bind(sa).and_then(|()| socket.listen(BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to listen on")
    }))
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<Mutex<State>>,
    arrived: Arc<Notify>,
    cfg: ConnectConfig,
    max_pending: usize,
) {
    let pending = Arc::new(Semaphore::new(max_pending));
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            // Running out of file descriptors is transient; do not spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(permit) = pending.clone().try_acquire_owned() else {
            tracing::warn!("refusing {peer}: too many connections waiting for their handshake");
            refuse(stream, "too many pending connections; try again later").await;
            continue;
        };
        let (state, arrived, cfg) = (state.clone(), arrived.clone(), cfg.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let (r, w, fd) = split(stream);
            let spec = BotSpec::TcpConnect(peer.to_string());
            let mut bot = Bot::attach(spec, r, w, &cfg).await;
            bot.watch_socket(fd);
            if !bot.is_alive() {
                tracing::info!("{peer}: handshake failed: {:?}", bot.dead);
                return;
            }
            let token = bot.identity.token.clone().unwrap_or_default();
            // A seat whose bot connected but whose game has not begun goes to the newest
            // connection with its token (the earlier one may have dropped meanwhile); a seat in
            // play is never taken over.
            let verdict = {
                let Ok(mut st) = state.lock() else { return };
                match st.slots.get_mut(&token) {
                    None => Err(if token.is_empty() {
                        "no seat token in the hello answer"
                    } else {
                        "unknown seat token"
                    }),
                    Some(Slot::InPlay) => Err("this seat token is already in use"),
                    Some(slot) => {
                        let earlier = std::mem::replace(slot, Slot::InPlay);
                        Ok(match earlier {
                            Slot::Ready(old) => Some(old),
                            _ => None,
                        })
                    }
                }
            };
            match verdict {
                Ok(earlier) => {
                    tracing::info!("{peer} took the seat of token {token}");
                    if let Ok(mut st) = state.lock() {
                        st.slots.insert(token, Slot::Ready(Box::new(bot)));
                    }
                    arrived.notify_waiters();
                    if let Some(old) = earlier {
                        old.close("a newer connection took this seat", Duration::ZERO).await;
                    }
                }
                Err(reason) => {
                    tracing::info!("{peer}: refused: {reason}");
                    bot.close(reason, Duration::ZERO).await;
                }
            }
        });
    }
}

async fn refuse(mut stream: TcpStream, reason: &str) {
    let line = protocol::encode_line(&ToBot::Bye { reason: reason.into() });
    let _ =
        tokio::time::timeout(Duration::from_millis(200), stream.write_all(line.as_bytes())).await;
}
