//! Bots as the referee sees them: how one is reached (a program, a built-in), the handshake, and
//! asking one question against a deadline with every way it can fail classified as a fault.
//! The rooms, each a concern (ARCHITECTURE.md layers them): `process` (spawning, process
//! groups), `link` (the one way a connection is held), `players` (in-process bots), `relay`
//! (a seat that outlives its connection), `lobby` (bots that connect), `seat` (a seat's bot
//! across games); this file and those beside it are the bot itself, its lifecycle in `life`,
//! which holds its connection too.

pub(crate) mod ask;
mod hello;
pub(crate) mod life;
pub(crate) mod link;
pub(crate) mod lobby;
pub(crate) mod players;
pub(crate) mod process;
pub(crate) mod relay;
pub(crate) mod seat;
mod spec;

use crate::bot::ask::{Heard, IgnoredLines, Limit, Peer};
use crate::bot::life::{Event, Life, Refused, Step};
use crate::bot::link::LineConn;
use crate::bot::process::{BotProcess, SpawnSpec};
use crate::bot::relay::Resumable;
use crate::fault::Fault;
pub(crate) use hello::{check_hello, offered_features, taken_up};
use protocol::PROTOCOL_VERSION;
use protocol::msg::{FromBot, ToBot};
use protocol::record::FaultKind;
pub(crate) use spec::BotSpec;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// A replayed seat's recorded CPU charges (`cpu_us`), in the order of its accepted answers,
/// shared with whoever feeds them.
pub(crate) type CpuCharges = Arc<std::sync::Mutex<std::collections::VecDeque<u64>>>;

/// Settings that shape every connection.
#[derive(Clone, Debug)]
pub(crate) struct ConnectConfig {
    pub(crate) handshake: Duration,
    pub(crate) max_line: usize,
    pub(crate) stderr_cap: u64,
    /// Measure each bot process's CPU time per answer (`cpu_us`).
    pub(crate) cpu_time: bool,
    /// How long a seat whose bot listed `resume` waits for it to come back
    /// ([`Resumable`]).
    pub(crate) resume_grace: Duration,
    /// The games' rules hold the rounds before the first lead, so `hello` offers `surrender`.
    pub(crate) pre_lead_rounds: bool,
    pub(crate) limits: process::Limits,
}

/// Who the bot said it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) author: Option<String>,
    /// The seat token named in the hello answer (TCP bots).
    pub(crate) token: Option<String>,
    /// The features of [`FEATURES`](protocol::FEATURES) the hello answer took up.
    pub(crate) features: Vec<String>,
}

impl Identity {
    /// Whether the bot took up `feature` in its hello answer.
    pub(crate) fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }
}

/// The outcome of one question.
#[derive(Debug)]
pub(crate) enum Reply {
    /// An answer with the question's id, the think time and the CPU time (when measured); its
    /// line is [`Bot::answer_line`] until the bot is asked again.
    Answer(FromBot, Duration, Option<Duration>),
    /// No usable answer.
    Fault(Fault),
}

/// Grace a bot gets to exit after `bye` before its process group is killed, when a match or a
/// tournament table closes it (`Bot::close`).
pub(crate) const BYE_GRACE: Duration = Duration::from_secs(1);

/// One bot connection and, for programs, its process.
#[derive(Debug)]
pub(crate) struct Bot {
    pub(crate) spec: BotSpec,
    pub(crate) identity: Identity,
    /// File name (in the records folder) of the current process's stderr log.
    pub(crate) stderr_log: Option<String>,
    process: Option<BotProcess>,
    builtin: Option<JoinHandle<()>>,
    next_id: u64,
    /// Where it is in its life, with its connection while it has one; only [`Bot::step`]
    /// moves it.
    life: Life<LineConn>,
    /// Processes that ended and are being reaped (their stderr logs completed).
    retired: Vec<JoinHandle<()>>,
    /// Faults met while connecting, recorded by the next game.
    pending_faults: Vec<Fault>,
    /// Starts so far (for naming restarted bots' stderr logs).
    starts: u32,
    /// The hello answer of the current connection, until a game's record has taken it.
    hello_raw: Option<String>,
    /// Called once when the bot dies (frees a TCP seat's token for a reconnection).
    on_death: Option<DeathHook>,
    /// The resumable seat its connection is carried through, for a bot that listed `resume`.
    relay: Option<Arc<Resumable>>,
    /// A replay's stand-in for the CPU clock: the recorded `cpu_us` of the seat's answers, in
    /// order, charged instead of a measurement.
    recorded_cpu: Option<CpuCharges>,
    /// The seat's own clock instead of the game's (a person's), recorded in the header.
    pub(crate) clock: Option<protocol::msg::Clock>,
}

/// A callback run once when a bot dies.
struct DeathHook(Box<dyn FnOnce() + Send + Sync>);

impl std::fmt::Debug for DeathHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeathHook")
    }
}

impl Bot {
    /// Starts a bot and performs the handshake. A bot that fails either is returned dead, with
    /// the fault kept for the next game's record: a bot's failure is never the referee's error.
    pub(crate) async fn connect(
        spec: BotSpec,
        cfg: &ConnectConfig,
        stderr_dir: Option<&std::path::Path>,
        stderr_stem: &str,
        cpu: Option<usize>,
    ) -> Bot {
        let mut bot = Bot::idle(spec, 1, 0);
        bot.start(cfg, stderr_dir, stderr_stem, cpu).await;
        bot
    }

    /// A bot not yet connected: started next, or handed the connection it is attached to
    /// ([`Event::Connected`]).
    fn idle(spec: BotSpec, first_id: u64, starts: u32) -> Bot {
        Bot {
            identity: Identity { name: spec.short_name(), ..Identity::default() },
            spec,
            stderr_log: None,
            process: None,
            builtin: None,
            next_id: first_id,
            life: Life::Idle,
            retired: Vec::new(),
            pending_faults: Vec::new(),
            starts,
            hello_raw: None,
            on_death: None,
            relay: None,
            recorded_cpu: None,
            clock: None,
        }
    }

    /// Moves the bot along its lifecycle ([`life`]) and does what the move says: the one place
    /// its state changes. A move the table refuses is a bug of the referee's, not of the bot's:
    /// it leaves the bot as it was.
    fn step(&mut self, event: Event<LineConn>) {
        if let Err(refused) = self.try_step(event) {
            debug_assert!(false, "{refused}");
        }
    }

    /// [`Bot::step`], for a move the caller may be refused: the connection that leaves without
    /// being retired (a relay's, a closed bot's) is handed back.
    fn try_step(&mut self, event: Event<LineConn>) -> Result<Option<LineConn>, Refused> {
        let life = std::mem::replace(&mut self.life, Life::Idle);
        match life.on(event) {
            Ok(Step { to, leaves, retire }) => {
                self.life = to;
                let Some(grace) = retire else { return Ok(leaves) };
                drop(leaves);
                self.retire(grace);
                Ok(None)
            }
            Err((life, refused)) => {
                self.life = life;
                Err(refused)
            }
        }
    }

    /// The handshake, then the bot is ready, or refused and stopped.
    async fn greet(&mut self, cfg: &ConnectConfig) {
        match self.handshake(cfg).await {
            Ok(()) => self.step(Event::Greeted),
            Err(detail) => self.refuse(detail).await,
        }
    }

    /// Adopts an already open byte stream (a TCP connection, an in-memory pipe in tests) and
    /// performs the handshake.
    pub(crate) async fn attach(
        spec: BotSpec,
        reader: link::Reader,
        writer: link::Writer,
        cfg: &ConnectConfig,
    ) -> Bot {
        Bot::attach_at(spec, reader, writer, cfg, 1, true).await
    }

    /// [`Bot::attach`] for a connection whose questions start at `first_id`, with or without the
    /// handshake: replay uses it to resume a persistent connection exactly where a game began.
    pub(crate) async fn attach_at(
        spec: BotSpec,
        reader: link::Reader,
        writer: link::Writer,
        cfg: &ConnectConfig,
        first_id: u64,
        handshake: bool,
    ) -> Bot {
        let mut bot = Bot::idle(spec, first_id, 1);
        bot.step(Event::Connected(LineConn::new(reader, writer, cfg.max_line)));
        if handshake {
            bot.greet(cfg).await;
        } else {
            bot.step(Event::Greeted);
        }
        bot
    }

    /// Serves an in-process [`players::Player`] over an in-memory pipe and performs the
    /// handshake: from there on it is a bot like any other, judged and timed the same way.
    pub(crate) async fn in_process(
        name: String,
        player: Box<dyn players::Player>,
        cfg: &ConnectConfig,
    ) -> Bot {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (r, w) = tokio::io::split(ours);
        let conn = LineConn::new(Box::new(r), Box::new(w), cfg.max_line);
        let mut bot = Bot::idle(BotSpec::InProcess { name }, 1, 1);
        bot.builtin = Some(tokio::spawn(players::serve(player, theirs, cfg.max_line)));
        bot.step(Event::Connected(conn));
        bot.greet(cfg).await;
        bot
    }

    /// (Re)starts the bot and performs the handshake.
    pub(crate) async fn start(
        &mut self,
        cfg: &ConnectConfig,
        stderr_dir: Option<&std::path::Path>,
        stderr_stem: &str,
        cpu: Option<usize>,
    ) {
        self.step(Event::Restart);
        self.next_id = 1;
        self.hello_raw = None;
        self.starts += 1;
        let conn = match &self.spec {
            BotSpec::Command(argv) => {
                let log = if self.starts == 1 {
                    format!("{stderr_stem}.stderr.log")
                } else {
                    format!("{stderr_stem}.{}.stderr.log", self.starts)
                };
                let spawn = SpawnSpec {
                    argv: argv.clone(),
                    stderr_path: stderr_dir.map(|d| d.join(&log)),
                    stderr_cap: cfg.stderr_cap,
                    limits: cfg.limits,
                    cpu,
                };
                self.stderr_log = stderr_dir.map(|_| log);
                match process::spawn(&spawn) {
                    Ok((mut proc_, stdin, stdout)) => {
                        if cfg.cpu_time {
                            proc_.measure_cpu();
                        }
                        use std::os::fd::AsFd;
                        let direct = stdout.as_fd().try_clone_to_owned();
                        let direct_out = stdin.as_fd().try_clone_to_owned();
                        let mut conn =
                            LineConn::new(Box::new(stdout), Box::new(stdin), cfg.max_line);
                        // Without the duplicates, the reader alone reads and the writer alone
                        // writes: slower, as correct.
                        if let Ok(fd) = direct {
                            conn.read_directly(fd, cpu.is_some() || process::on_one_cpu());
                        }
                        if let Ok(fd) = direct_out {
                            conn.write_directly(fd);
                        }
                        self.process = Some(proc_);
                        conn
                    }
                    Err(e) => {
                        let detail = format!("cannot start {}: {e}", argv[0]);
                        self.set_unavailable(Fault::new(FaultKind::NoStart, detail), true);
                        return;
                    }
                }
            }
            BotSpec::Builtin(kind) => {
                let (ours, theirs) = tokio::io::duplex(64 * 1024);
                let (r, w) = tokio::io::split(ours);
                self.builtin =
                    Some(tokio::spawn(players::builtin::run(*kind, theirs, cfg.max_line)));
                LineConn::new(Box::new(r), Box::new(w), cfg.max_line)
            }
            BotSpec::TcpConnect(addr) => match link::connect(addr, cfg.handshake).await {
                Ok((r, w, fd)) => {
                    let mut conn = LineConn::new(r, w, cfg.max_line);
                    conn.watch_socket(fd);
                    conn
                }
                Err(e) => {
                    let detail = format!("cannot connect to {addr}: {e}");
                    self.set_unavailable(Fault::new(FaultKind::NoStart, detail), true);
                    return;
                }
            },
            BotSpec::InProcess { .. } => {
                let fault = Fault::new(FaultKind::Exited, "the in-process player has stopped");
                self.set_unavailable(fault, false);
                return;
            }
            BotSpec::Accepted => {
                let fault = Fault::new(FaultKind::Disconnected, "the connection has ended");
                self.set_unavailable(fault, false);
                return;
            }
            BotSpec::TcpSeat { .. } | BotSpec::Human { .. } => {
                // Seats filled by connecting bots are (re)filled by the lobby or the web
                // server, not started.
                let fault = Fault::new(FaultKind::Disconnected, "no bot is connected to this seat");
                self.set_unavailable(fault, false);
                return;
            }
        };
        self.step(Event::Connected(conn));
        self.greet(cfg).await;
    }

    /// A failed handshake: the bot is told why (when it can still hear), and stopped.
    async fn refuse(&mut self, detail: String) {
        if self.is_alive() {
            self.say_bye(&format!("handshake refused: {detail}")).await;
        }
        let fault = Fault::new(FaultKind::HandshakeRefused, detail);
        self.pending_faults.push(fault.clone());
        self.step(Event::Refused(fault));
    }

    async fn handshake(&mut self, cfg: &ConnectConfig) -> Result<(), String> {
        let limit = cfg.handshake;
        let offered = offered_features(&self.spec, cfg.pre_lead_rounds);
        let features = offered.clone();
        let time_ms = limit.as_millis() as u64;
        let reply = self
            .ask(
                |id, out| {
                    ToBot::Hello { id, protocol: PROTOCOL_VERSION, features, time_ms }
                        .encode_into(out)
                },
                limit,
                &mut IgnoredLines::default(),
            )
            .await;
        match reply {
            Reply::Answer(
                FromBot::Hello { name, version, author, protocol, token, features, .. },
                _,
                _,
            ) => {
                let raw = ask::answer_text(self.answer_line());
                // Records may be published; a seat token is a credential, so the recorded hello
                // names it only as redacted.
                self.hello_raw = Some(match &token {
                    Some(t) => match serde_json::to_string(t) {
                        Ok(quoted) => raw.replace(&quoted, "\"(redacted)\""),
                        Err(_) => raw,
                    },
                    None => raw,
                });
                check_hello(protocol, &name, &version, author.as_deref())?;
                let features = taken_up(&offered, &features);
                self.identity = Identity { name, version, author, token, features };
                Ok(())
            }
            Reply::Answer(other, _, _) => {
                Err(format!("expected a hello answer, got {}", other.kind()))
            }
            Reply::Fault(f) => Err(format!("{}: {}", f.kind.as_str(), f.detail)),
        }
    }

    /// The id the next question will carry.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_id
    }

    /// The hello answer of a connection no game has recorded yet; taking it marks it recorded.
    pub(crate) fn take_hello(&mut self) -> Option<String> {
        self.hello_raw.take()
    }

    /// Lets [`Bot::drop_if_closed`] look at the TCP socket under the connection.
    pub(crate) fn watch_socket(&mut self, socket: link::Socket) {
        if let Some(conn) = self.life.conn_mut() {
            conn.watch_socket(socket);
        }
    }

    /// Between games: a bot whose TCP connection closed since its last question is marked
    /// gone (`disconnected`), so its seat can be taken again before the next game instead of
    /// failing at that game's first question. True when it was.
    pub(crate) async fn drop_if_closed(&mut self) -> bool {
        if self.life.conn().is_some_and(LineConn::peer_closed) {
            let why = Fault::new(FaultKind::Disconnected, "the connection closed between games");
            self.step(Event::Gone(why));
            return true;
        }
        false
    }

    /// Why the bot can no longer play, once it cannot.
    pub(crate) fn dead(&self) -> Option<&Fault> {
        self.life.dead()
    }

    /// Marks the bot unable to play because of `fault`, met outside any game (a seat nobody
    /// took); with `record`, the next game's record shows the fault.
    pub(crate) fn set_unavailable(&mut self, fault: Fault, record: bool) {
        if record {
            self.pending_faults.push(fault.clone());
        }
        self.step(Event::Unavailable(fault));
    }

    /// The faults met while connecting since the last game, for its record; taking them marks
    /// them recorded.
    pub(crate) fn take_pending_faults(&mut self) -> Vec<Fault> {
        std::mem::take(&mut self.pending_faults)
    }

    /// True while the bot can be asked questions.
    pub(crate) fn is_alive(&self) -> bool {
        self.life.is_alive()
    }

    /// Queues a notice; it leaves with the next question or [`Bot::flush`].
    pub(crate) fn notify(&mut self, msg: &ToBot) {
        if let Some(conn) = self.life.conn_mut() {
            conn.queue(msg);
        }
    }

    /// Queues a notice already encoded as a line.
    pub(crate) fn notify_encoded(&mut self, line: &[u8]) {
        if let Some(conn) = self.life.conn_mut() {
            conn.queue_bytes(line);
        }
    }

    /// Writes queued notices. A bot that does not read them within `limit` is dead.
    pub(crate) async fn flush(&mut self, limit: Duration) {
        let Some(conn) = self.life.conn_mut() else { return };
        if conn.queued() == 0 {
            return;
        }
        if let Err(e) = conn.flush(Instant::now() + limit).await {
            let fault = ask::write_failed(self.process.as_mut(), self.spec.is_tcp(), e).await;
            self.step(Event::Gone(fault));
        }
    }

    /// Asks one question, which `question` encodes with the id it is given at the end of the
    /// outgoing queue (so the caller may keep what the question was built from), and waits at
    /// most `limit` for the answer. Lines with stale or unknown ids are skipped and reported in
    /// `ignored`. A bot found gone is dead from then on.
    pub(crate) async fn ask(
        &mut self,
        question: impl FnOnce(u64, &mut Vec<u8>),
        limit: impl Into<Limit>,
        ignored: &mut IgnoredLines,
    ) -> Reply {
        let limit = match limit.into() {
            // A bot whose CPU time nobody measures is held to the wall clock.
            Limit::Cpu { cpu, .. } if !self.cpu_measured() => Limit::Wall(cpu),
            limit => limit,
        };
        if let Some(fault) = self.life.dead() {
            return Reply::Fault(fault.clone());
        }
        let Some(conn) = self.life.conn_mut() else {
            return Reply::Fault(Fault::new(FaultKind::ClosedStdout, "no connection"));
        };
        let id = self.next_id;
        self.next_id += 1;
        conn.queue_with(|out| question(id, out));
        let peer = Peer { conn, process: self.process.as_mut(), tcp: self.spec.is_tcp() };
        match ask::ask(peer, id, limit, ignored).await {
            Heard::Answer(msg, took, cpu) => Reply::Answer(msg, took, cpu),
            Heard::Malformed(e, line) => Reply::Fault(ask::malformed(&e, line)),
            Heard::Fault(fault) => Reply::Fault(fault),
            Heard::Gone(fault) => {
                let fault = self.through_relay(fault);
                self.step(Event::Gone(fault.clone()));
                Reply::Fault(fault)
            }
        }
    }

    /// The line of the answer last heard ([`Reply::Answer`]), as received, until the bot is
    /// asked again; empty without one. Most answers are judged and forgotten: only a record,
    /// a spectator or a fault copies the line.
    pub(crate) fn answer_line(&self) -> &[u8] {
        self.life.conn().map_or(&[], LineConn::line)
    }

    /// True when the bot's answers come with their CPU time: its process is measured, or a
    /// replay charges recorded times.
    pub(crate) fn cpu_measured(&self) -> bool {
        self.recorded_cpu.is_some() || self.process.as_ref().is_some_and(BotProcess::measured)
    }

    /// Counts the CPU time of the next answer from now (a game's start).
    pub(crate) fn restart_cpu(&mut self) {
        if let Some(clock) = self.process.as_mut().and_then(BotProcess::cpu) {
            clock.restart();
        }
    }

    /// Charges the recorded `cpu_us` of a replayed seat's accepted answers, in order, in place
    /// of a measurement: all of them given at once (a whole record), or each pushed as the
    /// record gets it (a game followed as it is played), before the answer it charges is sent.
    pub(crate) fn replay_cpu(&mut self, recorded: CpuCharges) {
        self.recorded_cpu = Some(recorded);
    }

    /// The CPU time charged for an accepted answer, in microseconds: the measured `cpu`, or
    /// under a replay the next recorded one.
    pub(crate) fn cpu_charged(&mut self, cpu: Option<Duration>) -> Option<u64> {
        match self.recorded_cpu.as_ref() {
            Some(recorded) => recorded.lock().unwrap_or_else(|e| e.into_inner()).pop_front(),
            None => cpu.map(|d| d.as_micros() as u64),
        }
    }

    /// Puts `reader` and `writer` (a relay's end, `bot::relay`) in place of this bot's
    /// connection, keeping what its handshake learned; the connection's halves are returned for
    /// the relay to carry. None for a bot without a connection.
    pub(crate) fn relay_through(
        &mut self,
        reader: link::Reader,
        writer: link::Writer,
        relay: Arc<Resumable>,
    ) -> Option<(link::Reader, link::Writer)> {
        let max_line = self.life.conn()?.max_line();
        let relayed = LineConn::new(reader, writer, max_line);
        let old = self.try_step(Event::Relayed(relayed)).ok()??;
        self.relay = Some(relay);
        Some(old.into_parts())
    }

    /// A bot found gone through its relay is gone for the reason the relay gave it up, when it
    /// had one of its own (a storm of resumes), rather than for a connection's end.
    fn through_relay(&self, mut fault: Fault) -> Fault {
        if let Some(why) = self.relay.as_ref().and_then(|r| r.why_given_up()) {
            fault.detail = why;
        }
        fault
    }

    /// The connection's halves, taken from a bot that is not going to play (a connection taking
    /// a seat back, whose own handshake only told its token): it is closed, and its connection
    /// leaves with the caller.
    pub(crate) fn into_connection(mut self) -> Option<(link::Reader, link::Writer)> {
        self.try_step(Event::Close).ok().flatten().map(LineConn::into_parts)
    }

    /// Registers what to do when this bot dies.
    pub(crate) fn set_on_death(&mut self, f: impl FnOnce() + Send + Sync + 'static) {
        self.on_death = Some(DeathHook(Box::new(f)));
    }

    /// Hands the connection of `other` (a freshly connected bot for the same seat) to this one.
    pub(crate) fn replace_with(&mut self, mut other: Bot) {
        let life = std::mem::replace(&mut other.life, Life::Idle);
        self.step(Event::Replaced(Box::new(life)));
        other.life = std::mem::replace(&mut self.life, Life::Idle);
        let spec = self.spec.clone();
        let retired = std::mem::take(&mut self.retired);
        *self = other;
        self.spec = spec;
        self.retired.extend(retired);
    }

    /// What a step's retirement does once the connection has left ([`Bot::step`]): the process
    /// gets `grace` to exit on its own (it may be reading a `bye`), then its group is killed, in
    /// the background so the game does not wait.
    fn retire(&mut self, grace: Duration) {
        if let Some(DeathHook(f)) = self.on_death.take() {
            f();
        }
        if let Some(p) = self.process.take() {
            self.retired.push(tokio::spawn(async move {
                p.finish(grace).await;
            }));
        }
        if let Some(task) = self.builtin.take() {
            task.abort();
        }
    }

    async fn say_bye(&mut self, reason: &str) {
        if let Some(conn) = self.life.conn_mut() {
            conn.queue(&ToBot::Bye { reason: reason.into() });
            let _ = conn.flush(Instant::now() + Duration::from_secs(1)).await;
        }
    }

    /// Stops a bot mid-match (it was replaced): `bye` and end of input, then its process group
    /// is killed after a short grace. It can be started again for the next game.
    pub(crate) async fn stop(&mut self, reason: &str) {
        if self.is_alive() {
            self.say_bye(reason).await;
            if let Some(conn) = self.life.conn_mut() {
                conn.shutdown().await;
            }
            // What the next game finds is a seat without a bot: a program is gone (it is
            // started again), a TCP bot's connection is closed (it may connect again).
            let kind = if self.spec.is_tcp() { FaultKind::Disconnected } else { FaultKind::Exited };
            self.step(Event::Stopped(Fault::new(
                kind,
                format!("stopped by the referee: {reason}"),
            )));
        }
    }

    /// Ends the connection politely: `bye`, end of input, a grace period, then the process group
    /// is killed whatever it does.
    pub(crate) async fn close(mut self, reason: &str, grace: Duration) {
        if self.is_alive() {
            self.say_bye(reason).await;
            if let Some(conn) = self.life.conn_mut() {
                conn.shutdown().await;
            }
        }
        // The process is ended here, awaited, rather than retired in the background; the
        // connection that leaves is dropped first.
        match self.try_step(Event::Close) {
            Ok(leaves) => drop(leaves),
            Err(refused) => debug_assert!(false, "{refused}"),
        }
        if let Some(p) = self.process.take() {
            p.finish(grace).await;
        }
        if let Some(task) = self.builtin.take() {
            let _ = tokio::time::timeout(grace, task).await;
        }
        for task in self.retired.drain(..) {
            let _ = task.await;
        }
    }
}
