//! The lobby: the listener, each connection from its place among the pending ones to its
//! seat or its refusal, and the seats bots claim with their token.

use super::PendingLimits;
use super::gate::{Admission, Gate, Origin};
use super::refusals::{Refusal, SUMMARY_EVERY};
use crate::bot::link::{self, Reader, Writer};
use crate::bot::relay::carry::{TcpLink, hold, refuse};
use crate::bot::relay::{Refused, Resumable};
use crate::bot::{Bot, BotSpec, ConnectConfig};
use protocol::msg::ToBot;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// The bye of a connection refused because every place is held, and none gave way to it.
const BUSY: &str = "too many pending connections; try again later";
/// The bye of a connection that waited a whole handshake limit for one of its address's turns.
const BUSY_HERE: &str = "too many pending connections from this address; try again later";
/// The bye of a connection whose place went to a connection from a lighter address.
const GAVE_WAY: &str =
    "too many pending connections: this one gave way to another address; try again later";
/// The bye of a connection naming the token of a seat that has its bot.
const TAKEN: &str = "this seat token is already in use: the seat has its bot";
/// The bye of a connection taking back a seat that its grace gave up (spec/protocol.md 9.2)
/// while the match has not yet seen it go.
const GIVEN_UP: &str = "this seat was given up: connect again to play from the next game";
/// How long taking a seat waits for the lobby to decide between two connections of its token
/// (a moment: whether the earlier connection is still open).
const DECIDING_WAIT: Duration = Duration::from_secs(1);

#[derive(Debug)]
enum Slot {
    /// Nobody holds the seat.
    Open,
    /// A bot connected and passed the handshake; the match has not taken it yet.
    Ready { bot: Box<Bot>, from: Origin, relay: Relay },
    /// A new connection named this token and the lobby is deciding, for a moment, whether the
    /// seat is free (is the bot already here still connected?).
    Deciding,
    /// The match plays with the seat's bot.
    InPlay { from: Origin, relay: Relay },
}

/// The seat a bot that listed `resume` plays through, which a later connection of its token
/// may take back (`bot::relay`); None for a bot that did not list it.
type Relay = Option<Arc<Resumable>>;

/// Which seat a hello's token names, for a lobby whose seats are not known when it opens (the
/// arena's): the seat's key, or `None` for a token that names none (a strike, as a wrong
/// token is in a match's lobby).
pub(crate) type Admit = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What the lobby's accept loop, its connections' tasks and the match share.
pub(super) struct Shared {
    slots: Mutex<HashMap<String, Slot>>,
    /// `None`: the seats are the tokens given at `bind`, and a token is its own seat's key.
    admit: Option<Admit>,
    gate: Mutex<Gate>,
    /// Wakes whoever waits for a seat's bot when a slot changes.
    arrived: Notify,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("slots", &self.slots).finish_non_exhaustive()
    }
}

impl Shared {
    /// The key of the seat `token` names, its slot opened on first use when seats are
    /// admitted on the fly; `None` when it names none.
    fn seat_of(&self, token: &str) -> Option<String> {
        let Some(admit) = &self.admit else { return Some(token.to_string()) };
        let key = admit(token)?;
        self.slots().entry(key.clone()).or_insert(Slot::Open);
        Some(key)
    }

    // A thread that panicked holding a lock leaves maps that are still consistent: every
    // change to them is a single insert or remove.
    fn slots(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn gate(&self) -> MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, token: &str, slot: Slot) {
        self.slots().insert(token.to_string(), slot);
        self.arrived.notify_waiters();
    }

    /// Bots seated (waiting for their game or in play) by address.
    fn seated(&self) -> HashMap<Origin, usize> {
        let mut by = HashMap::new();
        for slot in self.slots().values() {
            if let Slot::Ready { from, .. } | Slot::InPlay { from, .. } = slot {
                *by.entry(*from).or_insert(0) += 1;
            }
        }
        by
    }

    /// The relay of `token`'s seat, while a bot that listed `resume` holds it.
    fn relay(&self, token: &str) -> Relay {
        match self.slots().get(token)? {
            Slot::Ready { relay, .. } | Slot::InPlay { relay, .. } => relay.clone(),
            Slot::Open | Slot::Deciding => None,
        }
    }

    fn refused(&self, why: Refusal, from: Origin) {
        let line = self.gate().log.note(why, from, Instant::now());
        if let Some(line) = line {
            tracing::warn!("{line}");
        }
    }
}

/// The referee's listener: TCP seats wait here for their bots.
#[derive(Debug)]
pub(crate) struct Lobby {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
    /// How its connections are greeted, for those handed in by [`Lobby::enter`].
    cfg: ConnectConfig,
}

impl Lobby {
    /// Binds `addr` and starts accepting bots for these seat tokens.
    pub(crate) async fn bind(
        addr: &str,
        tokens: &[String],
        cfg: ConnectConfig,
        max_pending: usize,
        max_pending_per_addr: usize,
    ) -> Result<Lobby, String> {
        let limits = PendingLimits { total: max_pending, per_addr: max_pending_per_addr };
        Lobby::open(addr, tokens, None, cfg, limits).await
    }

    /// Binds `addr` and starts accepting bots for the seats `admit` names: a seat is opened
    /// the first time a token names it (the arena, whose bots join at any time).
    pub(crate) async fn bind_admitting(
        addr: &str,
        admit: Admit,
        cfg: ConnectConfig,
        limits: PendingLimits,
    ) -> Result<Lobby, String> {
        Lobby::open(addr, &[], Some(admit), cfg, limits).await
    }

    async fn open(
        addr: &str,
        tokens: &[String],
        admit: Option<Admit>,
        cfg: ConnectConfig,
        limits: PendingLimits,
    ) -> Result<Lobby, String> {
        let listener = listen(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let slots = tokens.iter().map(|t| (t.clone(), Slot::Open)).collect();
        let shared = Arc::new(Shared {
            slots: Mutex::new(slots),
            admit,
            gate: Mutex::new(Gate::new(limits)),
            arrived: Notify::new(),
        });
        let task = tokio::spawn(accept_loop(listener, shared.clone(), cfg.clone()));
        Ok(Lobby { addr, shared, task, cfg })
    }

    /// The longest line its bots may send.
    pub(crate) fn max_line(&self) -> usize {
        self.cfg.max_line
    }

    /// The address bots connect to.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bot that claimed `token`, waiting at most `wait` for one to arrive.
    pub(crate) async fn take(&self, token: &str, wait: Duration) -> Option<Bot> {
        let deadline = Instant::now() + wait;
        loop {
            let notified = self.shared.arrived.notified();
            let until = match self.try_take(token) {
                Ok(mut bot) => {
                    let shared = self.shared.clone();
                    let token = token.to_string();
                    bot.set_on_death(move || {
                        shared.slots().insert(token, Slot::Open);
                    });
                    return Some(bot);
                }
                // A bot is there and a second connection is being turned away: the decision
                // takes a moment, and the bot must not lose its game to it.
                Err(true) => deadline.max(Instant::now() + DECIDING_WAIT),
                Err(false) => deadline,
            };
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Takes a connection another server accepted (a bot's WebSocket, adapted to bytes) through
    /// the same door as the listener's: the same admission by address, handshake, token and
    /// strikes. `peer` is where it came from.
    pub(crate) fn enter(&self, reader: Reader, writer: Writer, peer: SocketAddr) {
        let from = Origin::of(peer.ip());
        let admitted = self.shared.gate().admit(from, || self.shared.seated());
        let arrival = Arrival::Stream(reader, writer);
        match admitted {
            Some(place) => {
                let place = Place { shared: self.shared.clone(), place };
                let cfg = self.cfg.clone();
                tokio::spawn(serve(self.shared.clone(), arrival, peer, place, cfg));
            }
            None => {
                arrival.refuse(BUSY);
                self.shared.refused(Refusal::Busy, from);
            }
        }
    }

    /// The seats whose bot is connected and waiting for a game, in key order.
    pub(crate) fn ready(&self) -> Vec<String> {
        let slots = self.shared.slots();
        let mut keys: Vec<String> = slots
            .iter()
            .filter(|(_, s)| matches!(s, Slot::Ready { .. }))
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort();
        keys
    }

    /// Waits until a seat's bot arrives or leaves (or `wait` is over).
    pub(crate) async fn changed(&self, wait: Duration) {
        let _ = tokio::time::timeout(wait, self.shared.arrived.notified()).await;
    }

    /// Waits until every one of `tokens` has a bot ready, or `wait` is over.
    pub(crate) async fn wait_ready(&self, tokens: &[String], wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let notified = self.shared.arrived.notified();
            let all = {
                let slots = self.shared.slots();
                tokens.iter().all(|t| matches!(slots.get(t), Some(Slot::Ready { .. })))
            };
            if all || tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }

    /// Stops taking connections and says `bye` with `reason` to every bot still waiting for a
    /// game (one that came back after its last game, say), instead of dropping its connection
    /// without a word when the lobby goes.
    pub(crate) async fn close(&self, reason: &str) {
        self.task.abort();
        let waiting: Vec<Bot> = {
            let mut slots = self.shared.slots();
            let ready = slots.values_mut().filter(|s| matches!(s, Slot::Ready { .. }));
            ready
                .filter_map(|s| match std::mem::replace(s, Slot::Open) {
                    Slot::Ready { bot, .. } => Some(*bot),
                    _ => None,
                })
                .collect()
        };
        // A TCP bot has no process to wait for: each close is a write and a shutdown.
        for bot in waiting {
            bot.close(reason, Duration::ZERO).await;
        }
    }

    /// The seat's bot, marking the seat in play; else whether the lobby is deciding who holds it.
    fn try_take(&self, token: &str) -> Result<Bot, bool> {
        let mut slots = self.shared.slots();
        let Some(slot) = slots.get_mut(token) else { return Err(false) };
        match std::mem::replace(slot, Slot::Open) {
            Slot::Ready { bot, from, relay } => {
                *slot = Slot::InPlay { from, relay };
                Ok(*bot)
            }
            other => {
                let deciding = matches!(other, Slot::Deciding);
                *slot = other;
                Err(deciding)
            }
        }
    }
}

impl Drop for Lobby {
    fn drop(&mut self) {
        self.task.abort();
        // The refusals counted since the last summary are not lost with the lobby.
        for line in self.shared.gate().log.flush_all() {
            tracing::warn!("{line}");
        }
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

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, cfg: ConnectConfig) {
    let mut summary = tokio::time::interval(SUMMARY_EVERY);
    summary.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = summary.tick() => {
                let lines = shared.gate().log.flush(Instant::now());
                for line in lines {
                    tracing::warn!("{line}");
                }
                continue;
            }
        };
        let Ok((stream, peer)) = accepted else {
            // Running out of file descriptors is transient; do not spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let from = Origin::of(peer.ip());
        // Lock order, everywhere: the gate, then the seats.
        let admitted = shared.gate().admit(from, || shared.seated());
        match admitted {
            Some(place) => {
                let place = Place { shared: shared.clone(), place };
                tokio::spawn(serve(shared.clone(), Arrival::Tcp(stream), peer, place, cfg.clone()));
            }
            None => {
                refuse_now(&stream, BUSY);
                shared.refused(Refusal::Busy, from);
            }
        }
    }
}

/// A connection as it arrives: a TCP socket from the accept loop, or a byte stream another
/// server adapted (a bot's WebSocket) and handed to [`Lobby::enter`].
pub(crate) enum Arrival {
    Tcp(TcpStream),
    Stream(Reader, Writer),
}

impl Arrival {
    /// Says `bye` with `reason` and drops the connection, never waiting on the peer: a TCP
    /// socket's fresh buffer takes the line at once; a stream is written on a task of its own,
    /// cut short after a second.
    fn refuse(self, reason: &str) {
        match self {
            Arrival::Tcp(stream) => refuse_now(&stream, reason),
            Arrival::Stream(_, mut w) => {
                let line = bye_line(reason);
                tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt as _;
                    let _ =
                        tokio::time::timeout(Duration::from_secs(1), w.write_all(line.as_bytes()))
                            .await;
                });
            }
        }
    }
}

/// One connection, from its place among the pending ones to its seat or its refusal.
async fn serve(
    shared: Arc<Shared>,
    stream: Arrival,
    peer: SocketAddr,
    mut place: Place,
    cfg: ConnectConfig,
) {
    let from = place.place.from;
    // One of the address's turns first: a burst of its connections is served a few at a time,
    // so it cannot hold more handshakes than its share.
    let turn = tokio::select! {
        turn = tokio::time::timeout(cfg.handshake, place.place.turns.clone().acquire_owned()) => turn,
        _ = &mut place.place.gave_way => {
            stream.refuse(GAVE_WAY);
            shared.refused(Refusal::Busy, from);
            return;
        }
    };
    // Held to the end: a wrong token's delay is spent holding its address's turn.
    let Ok(Ok(_turn)) = turn else {
        stream.refuse(BUSY_HERE);
        shared.refused(Refusal::Busy, from);
        return;
    };
    let (r, w, socket) = match stream {
        Arrival::Tcp(stream) => {
            let (r, w, socket) = link::split(stream);
            (r, w, Some(socket))
        }
        Arrival::Stream(r, w) => (r, w, None),
    };
    let fd = socket.as_ref().map(|s| s.raw);
    // A lobby seat's handshake, which offers `resume`; the match gives the bot its seat's spec.
    let attach = Bot::attach(BotSpec::TcpSeat { token: String::new() }, r, w, &cfg);
    tokio::pin!(attach);
    let mut bot = tokio::select! {
        bot = &mut attach => bot,
        _ = &mut place.place.gave_way => {
            // The connection lives inside the unfinished handshake: its socket is still open.
            // (A stream's bye would wait on the peer: it is dropped with the handshake.)
            if let Some(fd) = fd {
                send_now(fd, GAVE_WAY);
            }
            shared.refused(Refusal::Busy, from);
            return;
        }
    };
    if let Some(socket) = socket {
        bot.watch_socket(socket);
    }
    if !bot.is_alive() {
        tracing::debug!("{peer}: handshake failed: {:?}", bot.dead());
        shared.refused(Refusal::Handshake, from);
        return;
    }
    let said = bot.identity.token.clone().unwrap_or_default();
    // The seat's key from here on: the token itself, or what the arena's admission makes of it
    // (a token it does not know is refused below, as an unknown seat token).
    let key = shared.seat_of(&said);
    let token = key.clone().unwrap_or_default();
    let resumes = bot.identity.has(protocol::RESUME);
    // The lobby's own check comes first: a connection that has lost its place takes nothing,
    // and in particular evicts no connection that holds the seat.
    let mut freed = false;
    if resumes && let Some(seat) = key.as_deref().and_then(|k| shared.relay(k)) {
        if !place.free() {
            shared.refused(Refusal::Busy, from);
            bot.close(GAVE_WAY, Duration::ZERO).await;
            return;
        }
        freed = true;
        // Taken back even from a connection that still looks open: one whose network went
        // away sends no end, and the referee would keep it for many minutes. The token says
        // this is the seat's bot; the earlier connection is closed.
        match seat.attach() {
            Ok(held) => {
                tracing::info!("{peer} took back the seat of token {token}");
                if let Some((r, w)) = bot.into_connection() {
                    let link = TcpLink::new(r, w, cfg.max_line, cfg.handshake);
                    tokio::spawn(hold(seat, held, link));
                }
                return;
            }
            Err(why @ Refused::TooOften) => {
                // The seat's own token, so no strike: the rate alone holds a storm back, and
                // the game never hears of it until the seat is given up for it.
                shared.refused(Refusal::Resumes, from);
                if let Some((r, w)) = bot.into_connection() {
                    refuse(TcpLink::new(r, w, cfg.max_line, cfg.handshake), &why).await;
                }
                return;
            }
            // Given up: the token may take the seat as a new bot, below.
            Err(_) => {}
        }
    }
    let earlier = match reserve(&shared, key.as_deref(), &said) {
        Ok(Some((mut earlier, earlier_from, relay))) => {
            // A relayed bot's connection is the relay's: it is gone once the relay gave it up.
            let given_up = relay.as_ref().is_some_and(|r| r.given_up());
            let gone = given_up || earlier.drop_if_closed().await;
            Ok((!gone).then_some((earlier, earlier_from, relay)))
        }
        other => other,
    };
    let refusal = match earlier {
        Err(refusal) => refusal,
        Ok(Some((earlier, earlier_from, relay))) => {
            // The seat's bot is still connected: it keeps its seat, before its first game as
            // in play; only a bot that is gone frees the seat for its token.
            shared.set(&token, Slot::Ready { bot: earlier, from: earlier_from, relay });
            (Refusal::Taken, TAKEN)
        }
        Ok(None) => {
            // The seat is free, or the bot that held it has gone. The place is freed before the
            // seat is filled, so no seated bot is ever told to give way.
            if freed || place.free() {
                tracing::info!("{peer} took the seat of token {token}");
                let relay = if resumes { relay(&mut bot, &cfg).await } else { None };
                shared.set(&token, Slot::Ready { bot: Box::new(bot), from, relay });
            } else {
                shared.set(&token, Slot::Open);
                shared.refused(Refusal::Busy, from);
                bot.close(GAVE_WAY, Duration::ZERO).await;
            }
            return;
        }
    };
    tracing::debug!("{peer}: refused: {}", refusal.1);
    // Only a wrong token is a strike: a right one refused while its seat has its bot (or the
    // referee has not yet noticed the bot's connection drop) is the seat's bot, trying again.
    let delay = match refusal.0 {
        Refusal::Token => shared.gate().strike(from, Instant::now()),
        _ => Duration::ZERO,
    };
    let gave_way = tokio::select! {
        () = tokio::time::sleep(delay) => false,
        _ = &mut place.place.gave_way => true,
    };
    shared.refused(refusal.0, from);
    bot.close(if gave_way { GAVE_WAY } else { refusal.1 }, Duration::ZERO).await;
}

/// A bot that was waiting in a seat, where it came from, and its relay.
type Earlier = (Box<Bot>, Origin, Relay);

/// Puts a resumable seat between `bot` and its connection: the match talks to the seat, and
/// the connection is carried to it until it ends (`hold`).
async fn relay(bot: &mut Bot, cfg: &ConnectConfig) -> Relay {
    let seat = Resumable::new(true, cfg.resume_grace);
    let held = seat.attach().ok()?;
    let (r, w) = tokio::io::split(seat.take(Duration::ZERO).await?);
    let (tcp_r, tcp_w) = bot.relay_through(Box::new(r), Box::new(w), seat.clone())?;
    let link = TcpLink::new(tcp_r, tcp_w, cfg.max_line, cfg.handshake);
    tokio::spawn(hold(seat.clone(), held, link));
    Some(seat)
}

/// Holds the seat of `key` (what the hello's token `said` names, if any) for a decision (marked
/// [`Slot::Deciding`]): Ok with the bot that was waiting there, if any; Err with why the seat
/// cannot be had (for the log, and for the bye).
fn reserve(
    shared: &Shared,
    key: Option<&str>,
    said: &str,
) -> Result<Option<Earlier>, (Refusal, &'static str)> {
    let mut slots = shared.slots();
    let Some(slot) = key.and_then(|k| slots.get_mut(k)) else {
        return Err(if said.is_empty() {
            (Refusal::Token, "no seat token in the hello answer")
        } else {
            (Refusal::Token, "unknown seat token")
        });
    };
    match std::mem::replace(slot, Slot::Deciding) {
        Slot::Open => Ok(None),
        Slot::Ready { bot, from, relay } => Ok(Some((bot, from, relay))),
        other @ (Slot::InPlay { .. } | Slot::Deciding) => {
            let given_up = matches!(&other, Slot::InPlay { relay: Some(r), .. } if r.given_up());
            *slot = other;
            Err((Refusal::Taken, if given_up { GIVEN_UP } else { TAKEN }))
        }
    }
}

fn bye_line(reason: &str) -> String {
    protocol::encode_line(&ToBot::Bye { reason: reason.into() })
}

/// A `bye` to a connection the lobby drops before any handshake. One small line into a fresh
/// socket's empty buffer leaves at once; it is never waited for, so a peer that reads nothing
/// cannot slow the accept loop.
fn refuse_now(stream: &TcpStream, reason: &str) {
    let _ = stream.try_write(bye_line(reason).as_bytes());
}

/// [`refuse_now`] on a socket owned by a handshake being abandoned.
fn send_now(fd: RawFd, reason: &str) {
    use nix::sys::socket::{MsgFlags, send};
    let _ = send(fd, bye_line(reason).as_bytes(), MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_NOSIGNAL);
}

/// A connection's place among those waiting for their handshake, freed when dropped.
#[derive(Debug)]
struct Place {
    shared: Arc<Shared>,
    place: Admission,
}

impl Place {
    /// Frees the place now; false when it had already been given away.
    fn free(&self) -> bool {
        self.shared.gate().release(self.place.from, self.place.id)
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.free();
    }
}
