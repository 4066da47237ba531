//! Bots over TCP: the lobby where connecting bots claim their seat with a token, and the client
//! side for bots that listen. Strangers on the listener can take, block or flood nothing: a seat
//! whose bot is connected is never handed to another connection; pending handshakes are capped
//! in all and per address, and when all places are held the heaviest address gives way; wrong
//! tokens slow their address down; and refusals reach the log as counted summaries, not a line
//! each (spec/protocol.md section 8.1).

use crate::bot::conn::{Reader, Writer};
use crate::bot::{Bot, BotSpec, ConnectConfig};
use protocol::msg::ToBot;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Notify, Semaphore, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

/// A fresh random seat token (64 bits as hex).
pub(crate) fn new_token() -> String {
    format!("{:016x}", crate::entropy::random_u64())
}

/// The two halves of a connection, and its socket for [`LineConn::watch_socket`].
///
/// [`LineConn::watch_socket`]: super::conn::LineConn::watch_socket
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

/// The bye of a connection refused because every place is held, and none gave way to it.
const BUSY: &str = "too many pending connections; try again later";
/// The bye of a connection that waited a whole handshake limit for one of its address's turns.
const BUSY_HERE: &str = "too many pending connections from this address; try again later";
/// The bye of a connection whose place went to a connection from a lighter address.
const GAVE_WAY: &str =
    "too many pending connections: this one gave way to another address; try again later";
/// The bye of a connection naming the token of a seat that has its bot.
const TAKEN: &str = "this seat token is already in use: the seat has its bot";

/// Wrong tokens an address may give before its refusals are delayed: a typo is not an attack.
const FREE_STRIKES: u32 = 3;
/// The delay before the bye of the first wrong token past the free ones; it doubles with each
/// further one, up to [`MAX_DELAY`].
const FIRST_DELAY: Duration = Duration::from_millis(250);
const MAX_DELAY: Duration = Duration::from_secs(4);
/// An address that gave no wrong token for this long starts again from zero.
const FORGET_STRIKES: Duration = Duration::from_secs(60);
/// Addresses whose wrong tokens are remembered at once, so a stranger with many addresses
/// cannot make the referee's memory grow.
const MAX_TRACKED: usize = 4096;
/// Refusals of one cause reach the log at most once per this period, counted.
const SUMMARY_EVERY: Duration = Duration::from_secs(1);
/// How long taking a seat waits for the lobby to decide between two connections of its token
/// (a moment: whether the earlier connection is still open).
const DECIDING_WAIT: Duration = Duration::from_secs(1);

/// Where a connection comes from, as the lobby's limits count it: an IPv4 address, or the /64
/// of an IPv6 address (one host is routinely given a whole /64; counting single IPv6 addresses
/// would give one stranger billions of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Origin {
    V4(Ipv4Addr),
    V6([u16; 4]),
}

impl Origin {
    fn of(ip: IpAddr) -> Origin {
        match ip {
            IpAddr::V4(v4) => Origin::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Origin::V4(v4),
                None => {
                    let s = v6.segments();
                    Origin::V6([s[0], s[1], s[2], s[3]])
                }
            },
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::V4(a) => write!(f, "{a}"),
            Origin::V6([a, b, c, d]) => {
                write!(f, "{}/64", Ipv6Addr::new(*a, *b, *c, *d, 0, 0, 0, 0))
            }
        }
    }
}

#[derive(Debug)]
enum Slot {
    /// Nobody holds the seat.
    Open,
    /// A bot connected and passed the handshake; the match has not taken it yet.
    Ready { bot: Box<Bot>, from: Origin },
    /// A new connection named this token and the lobby is deciding, for a moment, whether the
    /// seat is free (is the bot already here still connected?).
    Deciding,
    /// The match plays with the seat's bot.
    InPlay { from: Origin },
}

/// What the lobby's accept loop, its connections' tasks and the match share.
#[derive(Debug)]
struct Shared {
    slots: Mutex<HashMap<String, Slot>>,
    gate: Mutex<Gate>,
    /// Wakes whoever waits for a seat's bot when a slot changes.
    arrived: Notify,
}

impl Shared {
    // A thread that panicked holding a lock leaves maps that are still consistent: every
    // change to them is a single insert or remove.
    fn slots(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn gate(&self) -> MutexGuard<'_, Gate> {
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
            if let Slot::Ready { from, .. } | Slot::InPlay { from } = slot {
                *by.entry(*from).or_insert(0) += 1;
            }
        }
        by
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
        let listener = listen(addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let slots = tokens.iter().map(|t| (t.clone(), Slot::Open)).collect();
        let limits = PendingLimits { total: max_pending, per_addr: max_pending_per_addr };
        let shared = Arc::new(Shared {
            slots: Mutex::new(slots),
            gate: Mutex::new(Gate::new(limits)),
            arrived: Notify::new(),
        });
        let task = tokio::spawn(accept_loop(listener, shared.clone(), cfg));
        Ok(Lobby { addr, shared, task })
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

    /// The seat's bot, marking the seat in play; else whether the lobby is deciding who holds it.
    fn try_take(&self, token: &str) -> Result<Bot, bool> {
        let mut slots = self.shared.slots();
        let Some(slot) = slots.get_mut(token) else { return Err(false) };
        match std::mem::replace(slot, Slot::Open) {
            Slot::Ready { bot, from } => {
                *slot = Slot::InPlay { from };
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
                tokio::spawn(serve(shared.clone(), stream, peer, place, cfg.clone()));
            }
            None => {
                refuse_now(&stream, BUSY);
                shared.refused(Refusal::Busy, from);
            }
        }
    }
}

/// One connection, from its place among the pending ones to its seat or its refusal.
async fn serve(
    shared: Arc<Shared>,
    stream: TcpStream,
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
            refuse_now(&stream, GAVE_WAY);
            shared.refused(Refusal::Busy, from);
            return;
        }
    };
    // Held to the end: a wrong token's delay is spent holding its address's turn.
    let Ok(Ok(_turn)) = turn else {
        refuse_now(&stream, BUSY_HERE);
        shared.refused(Refusal::Busy, from);
        return;
    };
    let (r, w, fd) = split(stream);
    let attach = Bot::attach(BotSpec::TcpConnect(peer.to_string()), r, w, &cfg);
    tokio::pin!(attach);
    let mut bot = tokio::select! {
        bot = &mut attach => bot,
        _ = &mut place.place.gave_way => {
            // The connection lives inside the unfinished handshake: its socket is still open.
            send_now(fd, GAVE_WAY);
            shared.refused(Refusal::Busy, from);
            return;
        }
    };
    bot.watch_socket(fd);
    if !bot.is_alive() {
        tracing::debug!("{peer}: handshake failed: {:?}", bot.dead);
        shared.refused(Refusal::Handshake, from);
        return;
    }
    let token = bot.identity.token.clone().unwrap_or_default();
    let earlier = match reserve(&shared, &token) {
        Ok(Some((mut earlier, earlier_from))) => {
            let gone = earlier.drop_if_closed().await;
            Ok((!gone).then_some((earlier, earlier_from)))
        }
        other => other,
    };
    let refusal = match earlier {
        Err(refusal) => refusal,
        Ok(Some((earlier, earlier_from))) => {
            // The seat's bot is still connected: it keeps its seat, before its first game as
            // in play; only a bot that is gone frees the seat for its token.
            shared.set(&token, Slot::Ready { bot: earlier, from: earlier_from });
            (Refusal::Taken, TAKEN)
        }
        Ok(None) => {
            // The seat is free, or the bot that held it has gone. The place is freed before the
            // seat is filled, so no seated bot is ever told to give way.
            if place.free() {
                tracing::info!("{peer} took the seat of token {token}");
                shared.set(&token, Slot::Ready { bot: Box::new(bot), from });
            } else {
                shared.set(&token, Slot::Open);
                shared.refused(Refusal::Busy, from);
                bot.close(GAVE_WAY, Duration::ZERO).await;
            }
            return;
        }
    };
    tracing::debug!("{peer}: refused: {}", refusal.1);
    let delay = shared.gate().strike(from, Instant::now());
    let gave_way = tokio::select! {
        () = tokio::time::sleep(delay) => false,
        _ = &mut place.place.gave_way => true,
    };
    shared.refused(refusal.0, from);
    bot.close(if gave_way { GAVE_WAY } else { refusal.1 }, Duration::ZERO).await;
}

/// A bot that was waiting in a seat, and where it came from.
type Earlier = (Box<Bot>, Origin);

/// Holds `token`'s seat for a decision (marked [`Slot::Deciding`]): Ok with the bot that was
/// waiting there, if any; Err with why the seat cannot be had (for the log, and for the bye).
fn reserve(shared: &Shared, token: &str) -> Result<Option<Earlier>, (Refusal, &'static str)> {
    let mut slots = shared.slots();
    let Some(slot) = slots.get_mut(token) else {
        return Err(if token.is_empty() {
            (Refusal::Token, "no seat token in the hello answer")
        } else {
            (Refusal::Token, "unknown seat token")
        });
    };
    match std::mem::replace(slot, Slot::Deciding) {
        Slot::Open => Ok(None),
        Slot::Ready { bot, from } => Ok(Some((bot, from))),
        other @ (Slot::InPlay { .. } | Slot::Deciding) => {
            *slot = other;
            Err((Refusal::Taken, TAKEN))
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

/// A place granted by [`Gate::admit`].
#[derive(Debug)]
struct Admission {
    id: u64,
    from: Origin,
    /// Fires when the place must go to a connection from a lighter address.
    gave_way: oneshot::Receiver<()>,
    /// The address's handshake turns.
    turns: Arc<Semaphore>,
}

/// One address's places, oldest first.
#[derive(Debug)]
struct Places {
    held: Vec<(u64, oneshot::Sender<()>)>,
    /// At most `per_addr` of the address's connections are in their handshake (hello sent,
    /// answer awaited); the others wait here for a turn.
    turns: Arc<Semaphore>,
}

/// An address's recent wrong tokens.
#[derive(Clone, Copy, Debug)]
struct Strikes {
    count: u32,
    last: Instant,
}

/// The lobby's door: who holds the places of connections waiting for their handshake, which
/// address gave how many wrong tokens lately, and what the log has not said yet.
///
/// Why this shape: a connection says who it is only in its hello answer, so until then the
/// lobby knows nothing of it but its address. A stranger holding many idle connections must not
/// keep out a bot from another address, so places are shared out by address: no address has
/// more than `per_addr` handshakes going, and when every place is held a newcomer takes the
/// newest place of the heaviest address (most places, then most seated bots) whenever that
/// address would still hold more than the newcomer's with it. An address can therefore fill the
/// lobby only while nobody else wants in; connections from one address are not told apart.
#[derive(Debug)]
struct Gate {
    limits: PendingLimits,
    places: HashMap<Origin, Places>,
    held: usize,
    next_id: u64,
    strikes: HashMap<Origin, Strikes>,
    log: RefusalLog,
}

impl Gate {
    fn new(limits: PendingLimits) -> Gate {
        Gate {
            limits,
            places: HashMap::new(),
            held: 0,
            next_id: 0,
            strikes: HashMap::new(),
            log: RefusalLog::default(),
        }
    }

    /// A place for a new connection from `from`, or None when it is refused. `seated` counts the
    /// bots seated per address; it is asked only when every place is held.
    fn admit(
        &mut self,
        from: Origin,
        seated: impl FnOnce() -> HashMap<Origin, usize>,
    ) -> Option<Admission> {
        if self.held >= self.limits.total {
            let mine = self.places.get(&from).map_or(0, |p| p.held.len());
            // The usual case under a flood, decided without counting seats: the newcomer's own
            // address holds the most.
            let most = self.places.values().map(|p| p.held.len()).max()?;
            if most <= mine {
                return None;
            }
            let seated = seated();
            let weight = |o: &Origin, n: usize| (n, seated.get(o).copied().unwrap_or(0));
            let (heaviest, its) = self
                .places
                .iter()
                .map(|(o, p)| (*o, weight(o, p.held.len())))
                .max_by_key(|(_, w)| *w)?;
            if its <= weight(&from, mine + 1) {
                return None;
            }
            let victim = self.places.get_mut(&heaviest)?;
            if let Some((_, give_way)) = victim.held.pop() {
                let _ = give_way.send(());
                self.held -= 1;
            }
            if victim.held.is_empty() {
                self.places.remove(&heaviest);
            }
        }
        let per_addr = self.limits.per_addr;
        let mine = self.places.entry(from).or_insert_with(|| Places {
            held: Vec::new(),
            turns: Arc::new(Semaphore::new(per_addr)),
        });
        let id = self.next_id;
        self.next_id += 1;
        let (give_way, gave_way) = oneshot::channel();
        mine.held.push((id, give_way));
        self.held += 1;
        Some(Admission { id, from, gave_way, turns: mine.turns.clone() })
    }

    /// Frees place `id`; false when it was not held (it was given away).
    fn release(&mut self, from: Origin, id: u64) -> bool {
        let Some(places) = self.places.get_mut(&from) else { return false };
        let Some(i) = places.held.iter().position(|(p, _)| *p == id) else { return false };
        places.held.remove(i);
        self.held -= 1;
        if places.held.is_empty() {
            self.places.remove(&from);
        }
        true
    }

    /// Counts a wrong token from `from`; the delay before its `bye`.
    fn strike(&mut self, from: Origin, now: Instant) -> Duration {
        if self.strikes.len() >= MAX_TRACKED && !self.strikes.contains_key(&from) {
            self.strikes.retain(|_, s| now.saturating_duration_since(s.last) < FORGET_STRIKES);
            if self.strikes.len() >= MAX_TRACKED {
                let quietest = self.strikes.iter().min_by_key(|(_, s)| s.last).map(|(o, _)| *o);
                if let Some(o) = quietest {
                    self.strikes.remove(&o);
                }
            }
        }
        let s = self.strikes.entry(from).or_insert(Strikes { count: 0, last: now });
        if now.saturating_duration_since(s.last) >= FORGET_STRIKES {
            s.count = 0;
        }
        s.count = s.count.saturating_add(1);
        s.last = now;
        penalty(s.count)
    }
}

/// The delay before the `bye` of an address's `strikes`-th recent wrong token.
fn penalty(strikes: u32) -> Duration {
    match strikes.checked_sub(FREE_STRIKES + 1) {
        None => Duration::ZERO,
        Some(doublings) => FIRST_DELAY.saturating_mul(1 << doublings.min(16)).min(MAX_DELAY),
    }
}

/// Why the lobby turned a connection away, as its log summaries group them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    Busy = 0,
    Handshake = 1,
    Token = 2,
    Taken = 3,
}

impl Refusal {
    fn what(self) -> &'static str {
        match self {
            Refusal::Busy => "too many pending connections",
            Refusal::Handshake => "no valid hello answer within the handshake limit",
            Refusal::Token => "a missing or unknown seat token",
            Refusal::Taken => "the token of a seat that has its bot",
        }
    }
}

/// Addresses a summary names; the others are only counted.
const NAMED: usize = 3;

/// Refusals of one cause not logged yet.
#[derive(Debug, Default)]
struct Unsaid {
    count: u64,
    since: Option<Instant>,
    from: Vec<Origin>,
    others: bool,
}

/// Turns refusals into at most one log line per cause and [`SUMMARY_EVERY`]: a flood of
/// strangers must not become a flood of log lines. The first refusal after a quiet period is
/// logged at once; the ones that follow are counted and told by the next line.
#[derive(Debug, Default)]
struct RefusalLog {
    last_line: [Option<Instant>; 4],
    unsaid: [Unsaid; 4],
}

impl RefusalLog {
    /// Counts a refusal; the log line to write now, if any.
    fn note(&mut self, why: Refusal, from: Origin, now: Instant) -> Option<String> {
        let u = &mut self.unsaid[why as usize];
        u.count += 1;
        u.since.get_or_insert(now);
        if !u.from.contains(&from) {
            if u.from.len() < NAMED {
                u.from.push(from);
            } else {
                u.others = true;
            }
        }
        self.due(why, now).then(|| self.say(why, now))
    }

    /// The lines owed: causes with refusals not logged whose last line is old enough.
    fn flush(&mut self, now: Instant) -> Vec<String> {
        let mut lines = Vec::new();
        for why in [Refusal::Busy, Refusal::Handshake, Refusal::Token, Refusal::Taken] {
            if self.unsaid[why as usize].count > 0 && self.due(why, now) {
                lines.push(self.say(why, now));
            }
        }
        lines
    }

    /// Every line owed, due or not: the last word when the lobby closes.
    fn flush_all(&mut self) -> Vec<String> {
        let now = Instant::now();
        let mut lines = Vec::new();
        for why in [Refusal::Busy, Refusal::Handshake, Refusal::Token, Refusal::Taken] {
            if self.unsaid[why as usize].count > 0 {
                lines.push(self.say(why, now));
            }
        }
        lines
    }

    fn due(&self, why: Refusal, now: Instant) -> bool {
        self.last_line[why as usize]
            .is_none_or(|t| now.saturating_duration_since(t) >= SUMMARY_EVERY)
    }

    fn say(&mut self, why: Refusal, now: Instant) -> String {
        let u = std::mem::take(&mut self.unsaid[why as usize]);
        self.last_line[why as usize] = Some(now);
        let mut from = u.from.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        if u.others {
            from.push_str(" and others");
        }
        if u.count == 1 {
            format!("TCP lobby: refused a connection from {from}: {}", why.what())
        } else {
            let secs = u.since.map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
            format!(
                "TCP lobby: refused {} connections in {secs:.1} s from {from}: {}",
                u.count,
                why.what()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(last: u8) -> Origin {
        Origin::V4(Ipv4Addr::new(10, 0, 0, last))
    }

    fn gate(total: usize, per_addr: usize) -> Gate {
        Gate::new(PendingLimits { total, per_addr })
    }

    fn nobody_seated() -> HashMap<Origin, usize> {
        HashMap::new()
    }

    #[test]
    fn an_address_holding_every_place_gives_way_to_another() {
        let mut g = gate(4, 2);
        let mut held: Vec<Admission> =
            (0..4).map(|_| g.admit(v4(1), nobody_seated).expect("a place")).collect();
        // The stranger's fifth connection is refused: its own address is the heaviest.
        assert!(g.admit(v4(1), nobody_seated).is_none());
        // A bot from elsewhere takes the newest place of the stranger's.
        let bot = g.admit(v4(2), nobody_seated).expect("the bot gets in");
        assert!(held[3].gave_way.try_recv().is_ok(), "the newest place gave way");
        assert!(held[..3].iter_mut().all(|a| a.gave_way.try_recv().is_err()));
        assert_eq!(g.held, 4);
        // A place given away cannot be freed a second time.
        assert!(!g.release(v4(1), held[3].id));
        assert!(g.release(v4(2), bot.id));
        assert_eq!(g.held, 3);
    }

    #[test]
    fn equal_addresses_do_not_churn_and_seated_bots_break_ties() {
        let mut g = gate(2, 2);
        let a = g.admit(v4(1), nobody_seated).expect("a place");
        let _b = g.admit(v4(2), nobody_seated).expect("a place");
        // One place each: a third address would only move the imbalance around.
        assert!(g.admit(v4(3), nobody_seated).is_none());
        // Unless an address holding one also has a seated bot: it gives way first.
        let seated = || HashMap::from([(v4(1), 1)]);
        let c = g.admit(v4(3), seated).expect("address 1 gives way");
        let mut a = a;
        assert!(a.gave_way.try_recv().is_ok());
        assert_eq!(c.from, v4(3));
    }

    #[test]
    fn wrong_tokens_are_delayed_more_and_more_up_to_a_bound() {
        let mut g = gate(16, 4);
        let t0 = Instant::now();
        let delays: Vec<Duration> = (0..10).map(|_| g.strike(v4(1), t0)).collect();
        let ms: Vec<u128> = delays.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000]);
        // Another address starts from zero, and a quiet address is forgiven.
        assert_eq!(g.strike(v4(2), t0), Duration::ZERO);
        assert_eq!(g.strike(v4(1), t0 + FORGET_STRIKES), Duration::ZERO);
    }

    #[test]
    fn strikes_are_remembered_for_a_bounded_number_of_addresses() {
        let mut g = gate(16, 4);
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 + 100) {
            g.strike(Origin::V4(Ipv4Addr::from(i)), t0);
        }
        assert!(g.strikes.len() <= MAX_TRACKED);
    }

    #[test]
    fn refusals_are_logged_once_a_second_per_cause_with_counts() {
        let mut log = RefusalLog::default();
        let t0 = Instant::now();
        let first = log.note(Refusal::Token, v4(1), t0).expect("the first is said at once");
        assert!(first.contains("10.0.0.1") && first.contains("unknown seat token"), "{first}");
        for i in 0..500 {
            let at = t0 + Duration::from_millis(i);
            assert_eq!(log.note(Refusal::Token, v4((i % 7) as u8), at), None);
        }
        // Another cause has its own line.
        assert!(log.note(Refusal::Busy, v4(9), t0).is_some());
        assert!(log.flush(t0 + Duration::from_millis(999)).is_empty());
        let later = log.flush(t0 + SUMMARY_EVERY);
        assert_eq!(later.len(), 1, "{later:?}");
        assert!(later[0].contains("refused 500 connections"), "{}", later[0]);
        assert!(later[0].contains("and others"), "{}", later[0]);
        assert!(log.flush(t0 + SUMMARY_EVERY * 5).is_empty(), "nothing more to say");
        // What is left when the lobby closes is said then, due or not.
        let t5 = t0 + SUMMARY_EVERY * 5;
        assert!(log.note(Refusal::Busy, v4(9), t5).is_some(), "after a quiet while, at once");
        assert_eq!(log.note(Refusal::Busy, v4(9), t5), None);
        assert_eq!(log.note(Refusal::Busy, v4(9), t5), None);
        let last = log.flush_all();
        assert_eq!(last.len(), 1, "{last:?}");
        assert!(last[0].contains("refused 2 connections"), "{}", last[0]);
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Origin::of(a), Origin::of(b));
        assert_ne!(Origin::of(a), Origin::of(c));
        assert_eq!(Origin::of(a).to_string(), "2001:db8:1:2::/64");
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        assert_eq!(Origin::of(mapped), Origin::V4(Ipv4Addr::LOCALHOST));
    }
}
