//! Bots over TCP (spec/protocol.md section 8), end to end: the real referee binary, real sockets
//! on 127.0.0.1 and the real clock. The lobby's unit tests run on in-memory pipes; only these
//! show that a bot in another process finds the address and token the referee prints, claims its
//! seat, plays whole games, and that strangers and broken connections (silent, wrong token, a
//! seat already taken, a drop mid-game, a half-sent line, a slow sender, a flood of idle
//! connections, nobody at all) are refused or classified without disturbing the table. The
//! lobby's attacks of sample-bots/hostile/tcp_*.py (a seat hijack, idle connections from another
//! address, token guessing) run here too, and each sample bot's answer to a refusal.
//!
//! Misbehaving clients are scripted here with `std::net::TcpStream`, so each misbehaviour
//! happens exactly when the test wants it; well-behaved bots are the sample bots.
//! `tcp_clients/listen_bot.py` turns a stdin/stdout bot into a bot that listens;
//! `tcp_clients/resume_bot.py` lists `resume`, drops its connection mid-game and takes its seat
//! back (spec/protocol.md section 9.2).

use crate::harness::{
    Scratch, check_record, jsonl, quoted, root, run_limited, rust_bot_path, text,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::thread;
use std::time::{Duration, Instant};

/// A referee run longer than this is hung, not slow: every run here takes a few seconds.
const HANG: Duration = Duration::from_secs(40);
/// How long a client or the test waits for a line before calling the referee hung.
const WAIT: Duration = Duration::from_secs(20);
/// How long a well-behaved bot may take to exit after the match's `bye`.
const EXIT: Duration = Duration::from_secs(10);
/// The first game waits this long for the TCP seats: far more than any test needs.
const CONNECT_WAIT_MS: &str = "20000";

/// The throughput test runs alone, so its figures are not skewed by the other tests' processes;
/// every other test shares this lock.
static EXCLUSIVE: RwLock<()> = RwLock::new(());

fn shared() -> RwLockReadGuard<'static, ()> {
    EXCLUSIVE.read().unwrap_or_else(PoisonError::into_inner)
}

fn heuristic_py() -> String {
    root().join("sample-bots/python/heuristic_bot.py").display().to_string()
}

/// `match` with a fixed seed, records in the scratch folder, and (unless `extra` sets one) a
/// generous wait for TCP bots.
fn match_args(s: &Scratch, seed: u64, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> =
        ["match", "--seed", &seed.to_string(), "--records"].iter().map(|s| s.to_string()).collect();
    args.push(s.records().display().to_string());
    if !extra.contains(&"--connect-wait-ms") {
        args.extend(["--connect-wait-ms".into(), CONNECT_WAIT_MS.into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// What the referee printed about its lobby.
struct Lobby {
    addr: String,
    /// (player, token) in the order printed.
    tokens: Vec<(usize, String)>,
}

impl Lobby {
    fn token(&self, player: usize) -> &str {
        let found = self.tokens.iter().find(|(p, _)| *p == player);
        &found.unwrap_or_else(|| panic!("no token printed for player {player}")).1
    }
}

/// How a referee run ended.
struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Finished {
    fn assert_ok(&self, what: &str) {
        assert!(
            self.status.success(),
            "{what}: referee exited with {}\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }
}

/// A running referee whose stdout is read line by line as it comes (a reader thread), so the
/// test can read the lobby address and tokens while the match waits for its bots.
struct Referee {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    stderr: PathBuf,
    started: Instant,
}

impl Referee {
    fn start<S: AsRef<str>>(s: &Scratch, args: &[S]) -> Referee {
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let stderr = s.join(&format!("referee-{}.err", args[0]));
        let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(&args)
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("create the stderr file"))
            .spawn()
            .expect("the referee starts");
        let out = child.stdout.take().expect("stdout piped");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Referee { child, lines, seen: Vec::new(), stderr, started: Instant::now() }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// The next stdout line; fails the test when none comes within [`WAIT`].
    fn line(&mut self) -> String {
        match self.lines.recv_timeout(WAIT) {
            Ok(line) => {
                self.seen.push(line.clone());
                line
            }
            Err(e) => panic!(
                "no line from the referee ({e:?}); stdout so far:\n{}\nstderr:\n{}",
                self.seen.join("\n"),
                self.stderr()
            ),
        }
    }

    /// Reads "Listening for TCP bots on ADDR" and the `seats` lines "  player P: token T ...".
    fn lobby(&mut self, seats: usize) -> Lobby {
        let addr = loop {
            let line = self.line();
            if let Some(addr) = line.strip_prefix("Listening for TCP bots on ") {
                break addr.trim().to_string();
            }
        };
        let tokens = (0..seats)
            .map(|_| {
                let line = self.line();
                let (player, rest) = line
                    .strip_prefix("  player ")
                    .and_then(|l| l.split_once(": token "))
                    .unwrap_or_else(|| panic!("not a seat line: {line:?}"));
                let token = rest.split_whitespace().next().expect("a token").to_string();
                assert!(
                    line.contains(&format!("--connect {addr} --token {token}")),
                    "the seat line shows how to connect: {line}"
                );
                (player.parse().expect("a player number"), token)
            })
            .collect();
        Lobby { addr, tokens }
    }

    /// Waits for the referee to exit (killing it and failing after [`HANG`]).
    fn finish(&mut self) -> Finished {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for the referee") {
                break status;
            }
            if self.started.elapsed() > HANG {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "referee still running after {HANG:?}; stdout:\n{}\nstderr:\n{}",
                    self.seen.join("\n"),
                    self.stderr()
                );
            }
            thread::sleep(Duration::from_millis(10));
        };
        let elapsed = self.started.elapsed();
        // The reader thread ends at end of file; what it has not passed on yet is still coming.
        loop {
            match self.lines.recv_timeout(Duration::from_secs(5)) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("the referee's stdout stays open"),
            }
        }
        Finished { status, stdout: self.seen.join("\n"), stderr: self.stderr(), elapsed }
    }
}

impl Drop for Referee {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A bot process started by a test, killed if the test fails before it ends.
struct Proc {
    child: Child,
    what: String,
}

impl Proc {
    fn spawn(argv: &[&str], stdout: Stdio) -> Proc {
        let child = Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(stdout)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {argv:?}: {e}"));
        Proc { child, what: argv.join(" ") }
    }

    /// The Python heuristic bot, connecting to `addr` with `token`.
    fn python(addr: &str, token: &str, name: &str) -> Proc {
        let script = heuristic_py();
        let argv = ["python3", &script, "--name", name, "--connect", addr, "--token", token];
        Proc::spawn(&argv, Stdio::null())
    }

    /// The bot ended on its own (it got `bye` or end of input) with exit status 0.
    fn assert_exits_ok(&mut self) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for a bot") {
                break status;
            }
            assert!(start.elapsed() < EXIT, "{} still running after the match", self.what);
            thread::sleep(Duration::from_millis(10));
        };
        assert!(status.success(), "{} exited with {status}", self.what);
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---- records -------------------------------------------------------------------------------

fn seat_of(header: &Value, seat: usize) -> &Value {
    &header["seats"][seat]
}

fn faults(lines: &[Value], seat: u64) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "fault" && l["seat"] == seat).collect()
}

fn all_faults(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "fault").collect()
}

/// The seat's answers as recorded (opening, discard and play lines), in order.
fn answers(lines: &[Value], seat: u64) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| {
            l["seat"] == seat
                && ["opening", "discard", "play"].contains(&l["type"].as_str().unwrap_or(""))
        })
        .collect()
}

fn auto(line: &Value) -> bool {
    line["auto"] == true
}

// ---- scripted clients ----------------------------------------------------------------------

/// A minimal correct answer to a question: refuse the chant, discard the first six cards, play
/// the first card. None for a notice.
fn answer(q: &Value) -> Option<Value> {
    let id = &q["id"];
    match q["type"].as_str()? {
        "opening" if q["vote"] == true => {
            Some(json!({"type": "opening", "id": id, "accept": false}))
        }
        "opening" => Some(json!({"type": "opening", "id": id})),
        "discard" => {
            let six = &q["hand"].as_array().expect("a hand")[..6];
            Some(json!({"type": "discard", "id": id, "cards": six}))
        }
        "play" => Some(json!({"type": "play", "id": id, "card": q["hand"][0]})),
        _ => None,
    }
}

/// One end of a raw connection to the referee, scripted by the test.
struct Client {
    reader: BufReader<TcpStream>,
    stream: TcpStream,
    /// Every message received, in order.
    got: Vec<Value>,
    /// How long to wait before each answer.
    delay: Duration,
}

impl Client {
    fn connect(addr: &str) -> Client {
        let stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
        stream.set_nodelay(true).expect("TCP_NODELAY");
        stream.set_read_timeout(Some(WAIT)).expect("read timeout");
        let reader = BufReader::new(stream.try_clone().expect("clone the stream"));
        Client { reader, stream, got: Vec::new(), delay: Duration::ZERO }
    }

    /// The next message, None at end of input (or a reset connection: the peer is gone).
    fn recv(&mut self) -> Option<Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => None,
            Ok(_) => {
                let msg: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the referee sent a bad line {line:?}: {e}"));
                self.got.push(msg.clone());
                Some(msg)
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => None,
            Err(e) => panic!("reading from the referee: {e} (got so far: {:?})", self.got),
        }
    }

    fn send(&mut self, msg: &Value) -> std::io::Result<()> {
        self.stream.write_all(format!("{msg}\n").as_bytes())
    }

    /// Reads the `hello` question and answers it with `name` and, when given, `token`.
    fn handshake(&mut self, name: &str, token: Option<&str>) -> Value {
        self.handshake_with(name, token, &[])
    }

    /// [`Client::handshake`], taking up `features`.
    fn handshake_with(&mut self, name: &str, token: Option<&str>, features: &[&str]) -> Value {
        let hello = self.recv().expect("the referee speaks first");
        assert_eq!((&hello["type"], &hello["id"]), (&json!("hello"), &json!(1)), "{hello}");
        let mut answer = json!({"type": "hello", "id": 1, "name": name, "version": "1"});
        if let Some(t) = token {
            answer["token"] = json!(t);
        }
        if !features.is_empty() {
            answer["features"] = json!(features);
        }
        self.send(&answer).expect("send the hello answer");
        hello
    }

    /// Answers up to `n` questions; returns the next question, unanswered, or None when the
    /// conversation ended (end of input) first.
    fn answer_some(&mut self, n: usize) -> Option<Value> {
        let mut answered = 0;
        loop {
            let msg = self.recv()?;
            if let Some(a) = answer(&msg) {
                if answered == n {
                    return Some(msg);
                }
                thread::sleep(self.delay);
                if self.send(&a).is_err() {
                    return None;
                }
                answered += 1;
            }
        }
    }

    /// Plays until the referee ends the conversation.
    fn play_out(&mut self) {
        assert!(self.answer_some(usize::MAX).is_none());
    }

    /// Reads until end of input.
    fn drain(&mut self) {
        while self.recv().is_some() {}
    }

    /// The reason of the last `bye` received.
    fn bye(&self) -> Option<&str> {
        self.got.iter().rev().find(|m| m["type"] == "bye").and_then(|m| m["reason"].as_str())
    }

    fn kinds(&self) -> Vec<&str> {
        self.got.iter().map(|m| m["type"].as_str().unwrap_or("?")).collect()
    }
}

/// A client that claims `token`'s seat and plays correctly to the end, on its own thread.
fn steady(addr: &str, token: &str, name: &str, delay: Duration) -> thread::JoinHandle<Client> {
    let (addr, token, name) = (addr.to_string(), token.to_string(), name.to_string());
    thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.delay = delay;
        c.handshake(&name, Some(&token));
        c.play_out();
        c
    })
}

/// Connects, claims `token`, and expects to be refused with a `bye` whose reason contains
/// `reason`, then end of input.
fn refused(addr: &str, hello: Value, reason: &str) {
    let mut c = Client::connect(addr);
    let question = c.recv().expect("hello");
    assert_eq!(question["type"], "hello");
    c.send(&hello).expect("send the hello answer");
    c.drain();
    let bye = c.bye().unwrap_or_else(|| panic!("{hello}: refused without a bye: {:?}", c.got));
    assert!(bye.contains(reason), "{hello}: the bye should say {reason:?}, it says {bye:?}");
    assert_eq!(c.kinds(), ["hello", "bye"], "{hello}");
}

// ---- well-behaved bots ---------------------------------------------------------------------

#[test]
fn four_tcp_bots_play_a_complete_game() {
    let _shared = shared();
    let s = Scratch::new("four");
    let mut referee = Referee::start(&s, &match_args(&s, 3, &["--bot", "tcp"]));
    let lobby = referee.lobby(4);
    assert_eq!(lobby.tokens.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [0, 1, 2, 3]);
    let mut bots: Vec<Proc> =
        (0..4).map(|p| Proc::python(&lobby.addr, lobby.token(p), &format!("py-tcp-{p}"))).collect();
    referee.finish().assert_ok("four TCP bots");

    let lines = check_record(&s.record(1));
    for p in 0..4 {
        let seat = seat_of(&lines[0], p);
        assert_eq!(seat["command"], json!(["tcp"]), "seat {p}: {seat}");
        assert_eq!(seat["name"], format!("py-tcp-{p}"), "each bot sits where its token says");
        assert!(seat["hello"].is_string(), "the handshake is recorded: {seat}");
    }
    assert!(all_faults(&lines).is_empty(), "{:?}", all_faults(&lines));
    assert!(!lines.iter().any(auto), "the fallback played for a connected bot");
    assert_eq!(lines.iter().filter(|l| l["type"] == "play").count(), 5 * 36);
    // Each bot got the match's `bye` and ended on its own.
    for b in &mut bots {
        b.assert_exits_ok();
    }
}

#[test]
fn tcp_and_program_seats_share_a_table() {
    let _shared = shared();
    let s = Scratch::new("mixed");
    let py = format!("python3 {}", quoted(Path::new(&heuristic_py())));
    let bots = ["--bot", "tcp:alice", "--bot", "builtin:random", "--bot", "tcp:bob", "--bot", &py];
    let mut extra = vec!["--games", "2"];
    extra.extend(bots);
    let mut referee = Referee::start(&s, &match_args(&s, 5, &extra));
    let lobby = referee.lobby(2);
    assert_eq!(lobby.tokens, [(0, "alice".to_string()), (2, "bob".to_string())]);
    let mut alice = Proc::python(&lobby.addr, "alice", "alice-bot");
    let mut bob = Proc::python(&lobby.addr, "bob", "bob-bot");
    let done = referee.finish();
    done.assert_ok("mixed table");
    assert!(done.stdout.contains("Match over: 2 games; "), "{}", done.stdout);

    for game in 1..=2 {
        let lines = check_record(&s.record(game));
        let header = &lines[0];
        let commands: Vec<&Value> = (0..4).map(|p| &seat_of(header, p)["command"]).collect();
        assert_eq!(commands[0], &json!(["tcp"]));
        assert_eq!(commands[1], &json!(["builtin:random"]));
        assert_eq!(commands[2], &json!(["tcp"]));
        assert_eq!(commands[3], &json!(["python3", heuristic_py()]));
        let names: Vec<&Value> = (0..4).map(|p| &seat_of(header, p)["name"]).collect();
        assert_eq!(
            names,
            [
                &json!("alice-bot"),
                &json!("builtin-random"),
                &json!("bob-bot"),
                &json!("py-heuristic")
            ]
        );
        // One connection per seat carries both games: the handshake is in game 1's header only.
        for p in 0..4 {
            assert_eq!(seat_of(header, p)["hello"].is_string(), game == 1, "game {game} seat {p}");
        }
        assert!(all_faults(&lines).is_empty(), "game {game}: {:?}", all_faults(&lines));
        assert!(!lines.iter().any(auto), "game {game}: the fallback played");
    }
    alice.assert_exits_ok();
    bob.assert_exits_ok();
}

#[test]
fn the_referee_connects_to_a_bot_that_listens() {
    let _shared = shared();
    let s = Scratch::new("listens");
    let relay = root().join("referee/tests/tcp_clients/listen_bot.py").display().to_string();
    let script = heuristic_py();
    // The bot in seat 2 also names a token: a bot the referee connects to needs none, and one
    // it sends is ignored.
    let mut listeners: Vec<(Proc, u16)> = [0, 2]
        .iter()
        .map(|p| {
            let name = format!("listener-{p}");
            let argv =
                ["python3", &relay, "python3", &script, "--name", &name, "--token", "ignored"];
            let mut proc_ = Proc::spawn(&argv, Stdio::piped());
            let mut port = String::new();
            BufReader::new(proc_.child.stdout.take().expect("stdout piped"))
                .read_line(&mut port)
                .expect("the listener prints its port");
            (proc_, port.trim().parse().unwrap_or_else(|e| panic!("port {port:?}: {e}")))
        })
        .collect();
    let seat = |i: usize| format!("tcp://127.0.0.1:{}", listeners[i].1);
    let (seat0, seat2) = (seat(0), seat(1));
    let bots =
        ["--bot", &seat0, "--bot", "builtin:random", "--bot", &seat2, "--bot", "builtin:random"];
    let mut extra = vec!["--games", "2"];
    extra.extend(bots);
    let mut referee = Referee::start(&s, &match_args(&s, 8, &extra));
    let done = referee.finish();
    done.assert_ok("bots that listen");
    assert!(!done.stdout.contains("Listening"), "no seat waits for a connecting bot");

    for game in 1..=2 {
        let lines = check_record(&s.record(game));
        for (p, addr) in [(0, &seat0), (2, &seat2)] {
            let header_seat = seat_of(&lines[0], p);
            assert_eq!(header_seat["command"], json!([addr]), "{header_seat}");
            assert_eq!(header_seat["name"], format!("listener-{p}"));
        }
        assert!(all_faults(&lines).is_empty(), "game {game}: {:?}", all_faults(&lines));
        assert!(!lines.iter().any(auto), "game {game}: the fallback played");
    }
    // One connection carried both games; the bots got `bye` and ended.
    for (l, _) in &mut listeners {
        l.assert_exits_ok();
    }
}

// ---- faults over the network ---------------------------------------------------------------

/// One TCP seat (player 0, token alice) against three built-in bots, its lobby read.
struct AliceTable {
    _shared: RwLockReadGuard<'static, ()>,
    s: Scratch,
    referee: Referee,
    lobby: Lobby,
}

#[track_caller]
fn alice_table(name: &str, seed: u64, extra: &[&str]) -> AliceTable {
    let _shared = shared();
    let s = Scratch::new(name);
    let mut args = extra.to_vec();
    args.extend(["--bot", "tcp:alice", "--bot", "builtin:random"]);
    args.extend(["--bot", "builtin:random", "--bot", "builtin:random"]);
    let mut referee = Referee::start(&s, &match_args(&s, seed, &args));
    let lobby = referee.lobby(1);
    AliceTable { _shared, s, referee, lobby }
}

impl AliceTable {
    /// A well-behaved bot takes the seat, plays the game to the end and exits: whatever the
    /// test did to the lobby disturbed nothing and charged nobody.
    fn a_good_bot_plays_cleanly(mut self, what: &str) {
        let mut good = Proc::python(&self.lobby.addr, "alice", "good");
        self.referee.finish().assert_ok(what);
        assert_seat0_played_cleanly(&self.s, "good");
        good.assert_exits_ok();
    }
}

/// The single game of `s`'s match was played to the end by the well-behaved bot named `name` in
/// seat 0, which no refused connection charged with a fault.
fn assert_seat0_played_cleanly(s: &Scratch, name: &str) {
    let lines = check_record(&s.record(1));
    assert_eq!(seat_of(&lines[0], 0)["name"], name);
    assert!(all_faults(&lines).is_empty(), "{:?}", all_faults(&lines));
    assert!(!answers(&lines, 0).iter().any(|a| auto(a)), "seat 0 was played for");
}

/// A match with TCP seats for the tokens `seat0` and `seat2` and random bots in seats 1 and 3:
/// the referee started and its lobby read.
fn two_tcp_seats(
    s: &Scratch,
    seed: u64,
    [seat0, seat2]: [&str; 2],
    extra: &[&str],
) -> (Referee, Lobby) {
    let (seat0, seat2) = (format!("tcp:{seat0}"), format!("tcp:{seat2}"));
    let mut args = extra.to_vec();
    args.extend(["--bot", &seat0, "--bot", "builtin:random", "--bot", &seat2]);
    args.extend(["--bot", "builtin:random"]);
    let mut referee = Referee::start(s, &match_args(s, seed, &args));
    let lobby = referee.lobby(2);
    (referee, lobby)
}

/// A bot that claims alice's seat and holds its first question until the test says go, so a
/// game is certainly in play meanwhile; then it plays the match out.
struct Holder {
    bot: thread::JoinHandle<Client>,
    in_play: Receiver<()>,
    go: mpsc::Sender<()>,
}

fn hold_first_question(addr: &str, name: &str) -> Holder {
    let (in_play_tx, in_play) = mpsc::channel();
    let (go, go_rx) = mpsc::channel::<()>();
    let (addr, name) = (addr.to_string(), name.to_string());
    let bot = thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.handshake(&name, Some("alice"));
        let question = c.answer_some(0).expect("a first question");
        in_play_tx.send(()).expect("the test waits");
        go_rx.recv_timeout(WAIT).expect("the test says go");
        c.send(&answer(&question).expect("a question")).expect("answer");
        c.play_out();
        c
    });
    Holder { bot, in_play, go }
}

/// Seat `seat`'s one fault, checked to be its only one and of this kind and penalty.
fn only_fault<'a>(lines: &'a [Value], seat: u64, kind: &str, penalty: &str) -> &'a Value {
    let f = faults(lines, seat);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((&f[0]["kind"], &f[0]["penalty"]), (&json!(kind), &json!(penalty)), "{}", f[0]);
    f[0]
}

#[test]
fn a_silent_connection_is_dropped_and_the_seat_stays_open() {
    let t = alice_table("silent", 11, &["--handshake-ms", "500"]);

    let start = Instant::now();
    let mut silent = Client::connect(&t.lobby.addr);
    let hello = silent.recv().expect("hello");
    assert_eq!(hello["time_ms"], 500, "{hello}");
    silent.drain();
    let dropped = start.elapsed();
    assert!(
        dropped >= Duration::from_millis(450) && dropped < Duration::from_secs(3),
        "dropped after {dropped:?}, want about 500 ms"
    );
    let bye = silent.bye().expect("the silent connection is told why it is dropped");
    assert!(bye.contains("handshake"), "{bye}");
    t.a_good_bot_plays_cleanly("silent connection");
}

#[test]
fn a_wrong_or_missing_token_is_refused_and_the_seat_stays_open() {
    let t = alice_table("wrong-token", 12, &[]);
    let addr = &t.lobby.addr;
    let hello = |extra: Value| {
        let mut h = json!({"type": "hello", "id": 1, "name": "stranger", "version": "1"});
        h.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
        h
    };
    refused(addr, hello(json!({"token": "mallory"})), "unknown seat token");
    refused(addr, hello(json!({})), "no seat token");
    // The right token with the wrong protocol version is refused by the handshake itself.
    refused(addr, hello(json!({"token": "alice", "protocol": 2})), "protocol 2");
    t.a_good_bot_plays_cleanly("wrong tokens");
}

/// A second connection with the token of a seat in play is refused, at once however often it
/// tries: a right token is never a strike (spec/protocol.md 8.1). Eight refusals in a row would
/// wait 7.75 s for their `bye`s if they were.
#[test]
fn a_second_connection_for_a_seat_in_play_is_refused_and_never_delayed() {
    let mut t = alice_table("token-in-use", 13, &[]);
    // The seat's bot holds its first question until the intruder has been turned away.
    let first = hold_first_question(&t.lobby.addr, "first");
    first.in_play.recv_timeout(WAIT).expect("the game starts");
    let start = Instant::now();
    for _ in 0..8 {
        refused(
            &t.lobby.addr,
            json!({"type": "hello", "id": 1, "name": "intruder", "version": "1", "token": "alice"}),
            "already in use",
        );
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(4), "{took:?}: the refusals were delayed as strikes");
    first.go.send(()).expect("the first bot waits");

    t.referee.finish().assert_ok("token in use");
    let first = first.bot.join().expect("the first bot");
    assert_eq!(first.bye(), Some("match over"), "the first bot played to the end");
    assert_seat0_played_cleanly(&t.s, "first");
}

/// Claims alice's seat as `name`, taking up `features`, answers five questions and drops the
/// connection with the sixth unanswered.
fn answer_five_and_drop(addr: &str, name: &str, features: &[&str]) {
    let mut quitter = Client::connect(addr);
    quitter.handshake_with(name, Some("alice"), features);
    quitter.answer_some(5).expect("a sixth question");
    let _ = quitter.stream.shutdown(Shutdown::Both);
}

/// Connects as `name` with alice's token (taking up `features`) until the first message after
/// the hello is not a `bye` whose reason `refused` takes for a refusal (the referee has not
/// noticed the drop yet: the seat is still in use, or given up), for 10 s at most; the
/// connection, and the refusals' reasons.
fn until_not_refused(
    addr: &str,
    name: &str,
    features: &[&str],
    refused: impl Fn(&str) -> bool,
) -> (Client, Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut refusals = Vec::new();
    loop {
        let mut c = Client::connect(addr);
        c.handshake_with(name, Some("alice"), features);
        let first = c.recv();
        let reason = first.as_ref().filter(|m| m["type"] == "bye").map(|m| &m["reason"]);
        match reason.and_then(Value::as_str) {
            Some(r) if refused(r) && Instant::now() < deadline => {
                refusals.push(r.to_string());
                thread::sleep(Duration::from_millis(50));
            }
            _ => return (c, refusals),
        }
    }
}

#[test]
fn a_disconnect_mid_game_is_replaced_and_the_bot_may_come_back() {
    let _shared = shared();
    let s = Scratch::new("disconnect");
    let (mut referee, lobby) = two_tcp_seats(&s, 14, ["alice", "carol"], &["--games", "2"]);
    // Carol answers after 20 ms: game 1 lasts about a second, time enough for alice to come back
    // before game 2.
    let carol = steady(&lobby.addr, "carol", "carol", Duration::from_millis(20));

    answer_five_and_drop(&lobby.addr, "quitter", &[]);
    // The same token may connect again and plays from the next game.
    let (mut phoenix, _) = until_not_refused(&lobby.addr, "phoenix", &[], |_| true);
    assert_eq!(phoenix.kinds()[..2], ["hello", "game"], "the reconnected bot waits for game 2");
    phoenix.play_out();
    assert_eq!(phoenix.bye(), Some("match over"));

    referee.finish().assert_ok("disconnect");
    carol.join().expect("carol");

    let game1 = check_record(&s.record(1));
    only_fault(&game1, 0, "disconnected", "replaced");
    let mine = answers(&game1, 0);
    assert!(mine[..5].iter().all(|a| !auto(a)), "the first five answers were the bot's");
    assert!(mine[5..].iter().all(|a| auto(a)), "the fallback plays the rest of the game");
    assert!(faults(&game1, 2).is_empty(), "{:?}", faults(&game1, 2));

    let game2 = check_record(&s.record(2));
    let seat0 = seat_of(&game2[0], 0);
    assert_eq!(seat0["name"], "phoenix", "{seat0}");
    assert!(seat0["hello"].is_string(), "a new connection: its handshake is recorded");
    assert!(all_faults(&game2).is_empty(), "{:?}", all_faults(&game2));
    assert!(!answers(&game2, 0).iter().any(|a| auto(a)));
}

#[test]
fn a_half_sent_line_then_close_is_disconnected() {
    let mut t = alice_table("half-line", 15, &[]);
    let mut c = Client::connect(&t.lobby.addr);
    c.handshake("halfway", Some("alice"));
    let question = c.answer_some(3).expect("a fourth question");
    let line = answer(&question).expect("a question").to_string();
    let half = &line.as_bytes()[..line.len() / 2];
    c.stream.write_all(half).expect("send half a line");
    // A clean end of the stream (FIN), after which the client still reads what comes.
    c.stream.shutdown(Shutdown::Write).expect("shutdown");
    c.drain();

    t.referee.finish().assert_ok("half-sent line");
    let lines = check_record(&t.s.record(1));
    let f = only_fault(&lines, 0, "disconnected", "replaced");
    let detail = f["detail"].as_str().unwrap_or("");
    assert!(detail.contains("half-sent line"), "{detail}");
    assert!(detail.contains(&format!("{} bytes", half.len())), "{detail}");
    assert!(answers(&lines, 0)[3..].iter().all(|a| auto(a)));
}

#[test]
fn a_slow_sender_times_out_without_stalling_the_table() {
    let _shared = shared();
    let s = Scratch::new("slow");
    let clocks = ["--answer-ms", "300", "--bank-ms", "200"];
    let (mut referee, lobby) = two_tcp_seats(&s, 16, ["slow", "steady"], &clocks);
    let steady = steady(&lobby.addr, "steady", "steady", Duration::ZERO);

    // Each answer leaves one byte every 100 ms: a 40-byte answer takes 4 s, far beyond the
    // 300 ms + 200 ms bank.
    let addr = lobby.addr.clone();
    let slow = thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.handshake("slow", Some("slow"));
        'conversation: while let Some(msg) = c.recv() {
            let Some(a) = answer(&msg) else { continue };
            for byte in format!("{a}\n").bytes() {
                if c.stream.write_all(&[byte]).is_err() {
                    break 'conversation;
                }
                thread::sleep(Duration::from_millis(100));
            }
        }
    });

    let done = referee.finish();
    done.assert_ok("slow sender");
    // Waiting out the slow answers would take several seconds per question.
    assert!(done.elapsed < Duration::from_secs(15), "the match took {:?}", done.elapsed);
    steady.join().expect("steady");
    slow.join().expect("slow");

    let lines = check_record(&s.record(1));
    let f = faults(&lines, 0);
    assert_eq!(f.first().map(|f| &f["kind"]), Some(&json!("timeout")), "{f:?}");
    assert!(
        f.iter().all(|f| ["timeout", "stale_id"].contains(&f["kind"].as_str().unwrap_or(""))),
        "{f:?}"
    );
    // The other TCP seat answered every question itself, in time.
    assert!(faults(&lines, 2).is_empty(), "{:?}", faults(&lines, 2));
    assert!(!answers(&lines, 2).iter().any(|a| auto(a)));
}

#[test]
fn pending_connections_are_capped() {
    let t = alice_table("pending", 17, &["--max-pending", "2", "--handshake-ms", "1000"]);
    let start = Instant::now();
    let mut idle: Vec<Client> = (0..5).map(|_| Client::connect(&t.lobby.addr)).collect();
    let first: Vec<String> = idle
        .iter_mut()
        .map(|c| {
            c.recv()
                .map_or("end of input".into(), |m| m["type"].as_str().unwrap_or("?").to_string())
        })
        .collect();
    assert_eq!(first, ["hello", "hello", "bye", "bye", "bye"]);
    for c in &mut idle[2..] {
        // Refused at once, long before the pending ones time out, and then closed.
        assert!(
            start.elapsed() < Duration::from_millis(900),
            "refused after {:?}",
            start.elapsed()
        );
        let bye = c.bye().unwrap_or("");
        assert!(bye.contains("too many pending connections"), "{bye}");
        c.drain();
        assert_eq!(c.kinds(), ["bye"]);
    }
    for c in &mut idle[..2] {
        c.drain();
        assert!(c.bye().is_some_and(|b| b.contains("handshake")), "{:?}", c.got);
    }
    assert!(start.elapsed() >= Duration::from_millis(900), "dropped after {:?}", start.elapsed());
    t.a_good_bot_plays_cleanly("pending connections");
}

#[test]
fn a_seat_nobody_connects_to_is_no_start() {
    let _shared = shared();
    let s = Scratch::new("nobody");
    let args = ["--connect-wait-ms", "1000", "--bot", "tcp:alice", "--bot", "builtin:random"];
    let mut referee = Referee::start(&s, &match_args(&s, 18, &args));
    referee.lobby(1);
    let done = referee.finish();
    done.assert_ok("nobody connects");
    assert!(done.elapsed >= Duration::from_millis(1000), "waited only {:?}", done.elapsed);

    let lines = check_record(&s.record(1));
    let f0 = only_fault(&lines, 0, "no_start", "replaced");
    assert!(f0["detail"].as_str().unwrap_or("").contains("1000 ms"), "{f0}");
    let mine = answers(&lines, 0);
    assert!(mine.len() >= 45 && mine.iter().all(|a| auto(a)), "seat 0: the fallback plays");
    // The warning a person sees names the same fault as the record.
    let warning = done
        .stderr
        .lines()
        .find(|l| l.contains("player 0 is not playing"))
        .unwrap_or_else(|| panic!("no warning for player 0:\n{}", done.stderr));
    assert!(warning.contains("no_start"), "the record says no_start, the warning: {warning}");
}

/// A bot that listens is reached by the referee, as a program is started: one that cannot be
/// reached at the start stops the match in one line, like a missing program, before any game.
#[test]
fn a_bot_that_listens_but_cannot_be_reached_stops_the_match() {
    let _shared = shared();
    let s = Scratch::new("unreachable");
    // A port nobody listens on: bound, then released.
    let free = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port");
    let listen_seat = format!("tcp://{free}");
    let mut args = vec!["--bot", "builtin:random", "--bot", "builtin:random"];
    args.extend(["--bot", &listen_seat, "--bot", "builtin:random"]);
    let mut referee = Referee::start(&s, &match_args(&s, 18, &args));
    let status = referee.child.wait().expect("the referee ends");
    let stderr = referee.stderr();
    assert!(!status.success(), "the match went on without player 2: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0]
            .starts_with(&format!("referee: player 2 cannot play: the bot listening at {free}"))
            && lines[0].contains("no_start: cannot connect"),
        "{}",
        lines[0]
    );
    assert!(!s.record(1).exists(), "no game is played");
}

// ---- referee bugs found while writing these tests ------------------------------------------

#[test]
fn generated_tokens_do_not_reveal_each_other() {
    let _shared = shared();
    let s = Scratch::new("tokens");
    let args = ["match", "--no-records", "--connect-wait-ms", "100", "--bot", "tcp"];
    let mut referee = Referee::start(&s, &args);
    let tokens: Vec<String> = referee.lobby(4).tokens.into_iter().map(|(_, t)| t).collect();
    referee.finish().assert_ok("generated tokens");
    // A token is a seat's credential, handed to one bot's author. Knowing one must not tell
    // another: independent random tokens share a prefix of 8 characters once in 16^8.
    for (i, a) in tokens.iter().enumerate() {
        for b in &tokens[i + 1..] {
            let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            assert!(common < 8, "tokens {a:?} and {b:?} share their first {common} characters");
        }
    }
}

#[test]
fn a_bot_that_drops_before_the_game_may_take_its_seat_again() {
    let _shared = shared();
    let s = Scratch::new("early-drop");
    let (mut referee, lobby) = two_tcp_seats(&s, 19, ["alice", "bob"], &[]);

    // Alice's bot connects while the table waits for bob, then crashes and is restarted.
    let mut first = Client::connect(&lobby.addr);
    first.handshake("crashed", Some("alice"));
    thread::sleep(Duration::from_millis(200));
    let _ = first.stream.shutdown(Shutdown::Both);
    drop(first);
    thread::sleep(Duration::from_millis(200));
    let addr = lobby.addr.clone();
    let again = thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.handshake("restarted", Some("alice"));
        c.play_out();
        c
    });
    thread::sleep(Duration::from_millis(300));
    let bob = steady(&lobby.addr, "bob", "bob", Duration::ZERO);

    referee.finish().assert_ok("early drop");
    bob.join().expect("bob");
    let again = again.join().expect("the restarted bot");
    // Spec 8.1: "A bot whose connection ends frees its seat. It may connect again with the same
    // token."
    assert_eq!(
        again.kinds()[..2],
        ["hello", "game"],
        "the restarted bot was refused: {:?}",
        again.bye()
    );
    assert_seat0_played_cleanly(&s, "restarted");
}

// ---- strangers on the lobby (issue 12) ---------------------------------------------------

/// A program of sample-bots/hostile/.
fn hostile(name: &str) -> String {
    root().join("sample-bots/hostile").join(name).display().to_string()
}

/// A loopback address other than 127.0.0.1, for a stranger that must count as another address
/// than the rightful bots (Linux routes all of 127.0.0.0/8 to the loopback interface).
const STRANGER: &str = "127.0.0.2";

/// Runs a hostile TCP client to its end and returns the JSON line it printed.
fn run_attack(argv: &[&str]) -> Value {
    let mut cmd = Command::new(argv[0]);
    cmd.args(&argv[1..]).current_dir(root()).stdin(Stdio::null());
    let out = run_limited(&mut cmd, HANG);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{argv:?}: {}\n{}", out.status, text(&out.stderr));
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{argv:?} printed {stdout:?}: {e}"))
}

/// Waits until the referee's stderr has a line containing `text`.
fn wait_for_log(referee: &Referee, text: &str) {
    let start = Instant::now();
    while !referee.stderr().contains(text) {
        assert!(start.elapsed() < WAIT, "no {text:?} in the referee's log:\n{}", referee.stderr());
        thread::sleep(Duration::from_millis(10));
    }
}

/// Spec 8.1: the token of a seat that already has its bot is refused. Before the first game,
/// a second connection naming it used to take the seat, and the rightful bot was sent away.
#[test]
fn a_seated_bots_token_is_refused_before_and_during_games() {
    let _shared = shared();
    let s = Scratch::new("hijack");
    let (mut referee, lobby) = two_tcp_seats(&s, 22, ["alice", "bob"], &["--log", "info"]);
    // The rightful bot holds its first question until the second attempt is over.
    let rightful = hold_first_question(&lobby.addr, "rightful");
    wait_for_log(&referee, "took the seat of token alice");
    let script = hostile("tcp_hijack.py");
    let hijack = || run_attack(&["python3", &script, &lobby.addr, "alice", "--wait", "5"]);
    let mut bob = None;
    for when in ["before the first game", "in play"] {
        if when == "in play" {
            rightful.in_play.recv_timeout(WAIT).expect("the game starts");
        }
        let got = hijack();
        assert_eq!(got["outcome"], "refused", "{when}: {got}");
        let reason = got["reason"].as_str().unwrap_or("");
        assert!(reason.contains("already in use"), "{when}: {reason}");
        if when == "before the first game" {
            bob = Some(steady(&lobby.addr, "bob", "bob", Duration::ZERO));
        }
    }
    rightful.go.send(()).expect("the rightful bot waits");

    referee.finish().assert_ok("hijack");
    bob.expect("bob started").join().expect("bob");
    let rightful = rightful.bot.join().expect("the rightful bot");
    assert_eq!(rightful.kinds()[..2], ["hello", "game"], "{:?}", rightful.got);
    assert_eq!(rightful.bye(), Some("match over"));
    assert_seat0_played_cleanly(&s, "rightful");
}

/// One address holding many idle connections used to fill `--max-pending`, and the rightful
/// bot was refused: now that address gets at most `--max-pending-per-addr` handshakes, and a
/// connection from another address takes the place of one of its waiting ones.
#[test]
fn idle_connections_from_one_address_cannot_keep_a_bot_from_another_out() {
    // The idle connections' handshakes outlast the whole test.
    let mut t = alice_table("starve", 23, &["--handshake-ms", "15000"]);
    let lobby = &t.lobby;

    let script = hostile("tcp_starve.py");
    let argv = ["python3", &script, &lobby.addr, "40", "--source", STRANGER];
    let mut starve = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the attack starts");
    let mut report = String::new();
    BufReader::new(starve.stdout.take().expect("stdout piped"))
        .read_line(&mut report)
        .expect("the attack reports");
    let report: Value = serde_json::from_str(&report).unwrap_or_else(|e| panic!("{report}: {e}"));
    assert_eq!(report["connected"], 40, "{report}");
    // The others wait for a turn without a hello, or were refused; more hellos would come
    // only once the first four time out, long after the attack's look.
    let hellos = report["hello"].as_u64().unwrap_or(u64::MAX);
    assert!(hellos <= 4, "the address got more handshakes than its share: {report}");

    let mut good = Proc::python(&lobby.addr, "alice", "good");
    let done = t.referee.finish();
    let _ = starve.kill();
    let _ = starve.wait();
    done.assert_ok("starvation");
    assert_seat0_played_cleanly(&t.s, "good");
    good.assert_exits_ok();
}

/// 3,000 wrong tokens once went through at 3,200 a second and wrote a WARN line each: now an
/// address that keeps guessing waits longer and longer for each refusal, and the log counts
/// refusals in at most a line per second and cause.
#[test]
fn wrong_tokens_slow_their_address_down_and_the_log_stays_short() {
    // A connection waiting for one of its address's turns waits at most a handshake limit.
    let mut t = alice_table("bruteforce", 24, &["--handshake-ms", "3000"]);
    let lobby = &t.lobby;
    let script = hostile("tcp_bruteforce.py");

    // The first three wrong tokens are refused at once (typos happen); from the fourth, the
    // bye comes 250 ms, 500 ms, 1 s later (spec 8.1). A slow machine only makes them later.
    let seq =
        run_attack(&["python3", &script, &lobby.addr, "--source", STRANGER, "--sequential", "6"]);
    let reasons = seq["reasons"].as_array().expect("reasons");
    assert!(reasons.iter().all(|r| r == "unknown seat token"), "{seq}");
    let waits: Vec<u64> =
        seq["waits_ms"].as_array().expect("waits").iter().filter_map(Value::as_u64).collect();
    assert_eq!(waits.len(), 6, "{seq}");
    for (n, least) in [(3, 250), (4, 500), (5, 1000)] {
        assert!(waits[n] >= least, "wrong token {}: refused after {} ms: {seq}", n + 1, waits[n]);
    }

    // Then 24 threads guess for two seconds. The address's four handshake turns are held
    // through each refusal's delay, so only a handful of guesses are answered; the rest of
    // the flood is turned away unheard.
    let flood = run_attack(&[
        "python3",
        &script,
        &lobby.addr,
        "--source",
        STRANGER,
        "--threads",
        "24",
        "--seconds",
        "3",
    ]);
    let wrong = flood["token"].as_u64().expect("a count");
    assert!(wrong < 30, "{wrong} guesses answered in the flood: {flood}");

    let mut good = Proc::python(&lobby.addr, "alice", "good");
    let done = t.referee.finish();
    done.assert_ok("brute force");
    assert_seat0_played_cleanly(&t.s, "good");
    good.assert_exits_ok();

    // At most one line per second for each of the four causes, counted.
    let warns: Vec<&str> = done.stderr.lines().filter(|l| l.contains("WARN")).collect();
    let bound = 4 * (done.elapsed.as_secs() as usize + 2);
    assert!(
        warns.len() <= bound,
        "{} WARN lines in {:?}:\n{}",
        warns.len(),
        done.elapsed,
        done.stderr
    );
    assert!(
        warns.iter().any(|l| l.contains("refused") && !l.contains("refused a connection")),
        "no counted summary:\n{}",
        done.stderr
    );
}

/// How each sample bot is started over TCP.
fn sample_bots(addr: &str, token: &str) -> Vec<Vec<String>> {
    let py = |file: &str| root().join("sample-bots/python").join(file).display().to_string();
    let js = root().join("sample-bots/js/bot.js").display().to_string();
    let rust = rust_bot_path().display().to_string();
    let tail = ["--connect", addr, "--token", token].map(String::from);
    [
        vec!["python3".to_string(), py("heuristic_bot.py")],
        vec!["python3".to_string(), py("random_bot.py")],
        vec!["node".to_string(), js],
        vec![rust],
    ]
    .into_iter()
    .map(|mut argv| {
        argv.extend(tail.iter().cloned());
        argv
    })
    .collect()
}

fn run_sample_bot(argv: &[String]) -> std::process::Output {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).current_dir(root()).stdin(Stdio::null());
    run_limited(&mut cmd, HANG)
}

/// A sample bot refused by the lobby used to exit 0 without a word: now it prints the
/// referee's reason and fails. The same bots with their right tokens play and exit 0.
#[test]
fn a_refused_sample_bot_says_why_and_fails() {
    let _shared = shared();
    let s = Scratch::new("sample-refused");
    let bots = ["--bot", "tcp:p0", "--bot", "tcp:p1", "--bot", "tcp:p2", "--bot", "tcp:p3"];
    let mut referee = Referee::start(&s, &match_args(&s, 25, &bots));
    let lobby = referee.lobby(4);
    for argv in sample_bots(&lobby.addr, "not-a-seat") {
        let out = run_sample_bot(&argv);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{argv:?} exited 0 when refused");
        assert!(stderr.contains("unknown seat token"), "{argv:?} did not say why: {stderr:?}");
    }
    let mut playing: Vec<Proc> = (0..4)
        .map(|p| {
            let argv = &sample_bots(&lobby.addr, lobby.token(p))[p];
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            Proc::spawn(&argv, Stdio::null())
        })
        .collect();
    referee.finish().assert_ok("sample bots");
    for b in &mut playing {
        b.assert_exits_ok();
    }
    let lines = check_record(&s.record(1));
    assert!(all_faults(&lines).is_empty(), "{:?}", all_faults(&lines));
}

/// A connection closed before any question is a refusal too, for every sample bot.
#[test]
fn a_sample_bot_whose_connection_closes_before_any_question_fails() {
    let _shared = shared();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address").to_string();
    let bots = sample_bots(&addr, "t");
    let n = bots.len();
    // Accepts each bot's connection and closes it at once.
    let closer = thread::spawn(move || {
        for _ in 0..n {
            let (c, _) = listener.accept().expect("accept");
            drop(c);
        }
    });
    for argv in &bots {
        let out = run_sample_bot(argv);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{argv:?} exited 0");
        assert!(stderr.contains("before the first game"), "{argv:?}: {stderr:?}");
    }
    closer.join().expect("the closing listener");
}

/// A TCP bot the referee stopped (replaced after its strikes) is not there for the next game:
/// its seat is charged `disconnected`, as for any TCP seat without a bot, never `exited`.
#[test]
fn a_stopped_tcp_bot_is_disconnected_at_the_next_game() {
    let mut t = alice_table("stopped", 26, &["--games", "2"]);
    let mut c = Client::connect(&t.lobby.addr);
    c.handshake("bungler", Some("alice"));
    // Every play answer names a code that is no card: three strikes, replaced, told bye.
    while let Some(msg) = c.recv() {
        let reply = match msg["type"].as_str() {
            Some("play") => Some(json!({"type": "play", "id": msg["id"], "card": "1o"})),
            _ => answer(&msg),
        };
        if let Some(reply) = reply
            && c.send(&reply).is_err()
        {
            break;
        }
    }
    assert!(c.bye().is_some_and(|b| b.contains("replaced")), "{:?}", c.bye());
    t.referee.finish().assert_ok("stopped");

    let game1 = check_record(&t.s.record(1));
    let f1 = faults(&game1, 0);
    assert_eq!(f1.last().map(|f| &f["penalty"]), Some(&json!("replaced")), "{f1:?}");
    let game2 = check_record(&t.s.record(2));
    let f2 = faults(&game2, 0);
    assert_eq!(f2.len(), 1, "{f2:?}");
    assert_eq!(f2[0]["kind"], "disconnected", "{}", f2[0]);
    assert!(f2[0]["detail"].as_str().unwrap_or("").contains("stopped by the referee"), "{}", f2[0]);
}

// ---- throughput ----------------------------------------------------------------------------

/// The games of a finished match: their number and the time they took together (the records'
/// `duration_ms`, so bot start-up and connections are left out).
fn game_time(s: &Scratch, dir: &str) -> (u32, Duration) {
    let mut games = 0;
    let mut ms = 0;
    for entry in std::fs::read_dir(s.join(dir)).expect("the records folder") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let lines = jsonl(&path);
            let footer = lines.last().expect("a footer");
            assert_eq!(footer["status"], "complete", "{}", path.display());
            ms += footer["duration_ms"].as_u64().expect("duration_ms");
            games += 1;
        }
    }
    (games, Duration::from_millis(ms))
}

#[test]
fn games_per_second_over_tcp_and_stdio() {
    let bot = rust_bot_path().display().to_string();
    // Alone: the figures are not shared with the other tests' processes.
    let _alone = EXCLUSIVE.write().unwrap_or_else(PoisonError::into_inner);
    let s = Scratch::new("throughput");
    let records = |name: &str| s.join(name).display().to_string();
    let (tcp_dir, stdio_dir) = (records("tcp"), records("stdio"));
    let common = ["match", "--seed", "21", "--games", "20", "--connect-wait-ms", CONNECT_WAIT_MS];

    let mut args = common.to_vec();
    args.extend(["--records", &tcp_dir, "--bot", "tcp"]);
    let mut referee = Referee::start(&s, &args);
    let lobby = referee.lobby(4);
    let mut bots: Vec<Proc> = (0..4)
        .map(|p| {
            let argv =
                [bot.as_str(), "--random", "--connect", &lobby.addr, "--token", lobby.token(p)];
            Proc::spawn(&argv, Stdio::null())
        })
        .collect();
    let tcp = referee.finish();
    tcp.assert_ok("TCP throughput");
    for b in &mut bots {
        b.assert_exits_ok();
    }

    let stdio_bot = format!("{} --random", quoted(Path::new(&bot)));
    let mut args = common.to_vec();
    args.extend(["--records", &stdio_dir, "--bot", &stdio_bot]);
    let stdio = Referee::start(&s, &args).finish();
    stdio.assert_ok("stdio throughput");

    let (tcp_games, tcp_time) = game_time(&s, "tcp");
    let (stdio_games, stdio_time) = game_time(&s, "stdio");
    assert_eq!((tcp_games, stdio_games), (20, 20));
    let rate = |games: u32, d: Duration| f64::from(games) / d.as_secs_f64().max(1e-3);
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    // Measured, not asserted: a shared machine makes any threshold flaky.
    println!(
        "tcp: {:.1} games/s, stdio: {:.1} games/s (20 games each, random Rust sample bots, \
         {profile} build, time in games)",
        rate(tcp_games, tcp_time),
        rate(stdio_games, stdio_time)
    );
    println!(
        "whole runs including the referee's and bots' start-up: tcp {:.1} games/s ({:?}), \
         stdio {:.1} games/s ({:?})",
        rate(tcp_games, tcp.elapsed),
        tcp.elapsed,
        rate(stdio_games, stdio.elapsed),
        stdio.elapsed
    );
}

/// Issue 12: a fixed 64 KiB check in the decoder overrode `--max-line-bytes`, over TCP as over
/// pipes. In the lobby too the configured limit is the one limit: a 70,000-byte `hello` answer
/// claims its seat under `--max-line-bytes 100000`, and is refused under the default.
#[test]
fn the_lobby_reads_lines_up_to_the_configured_limit() {
    let long_hello = || {
        let hello =
            json!({"type": "hello", "id": 1, "name": "long", "version": "1", "token": "alice"});
        let hello = hello.to_string();
        let pad = " ".repeat(70_000 - hello.len());
        format!("{}{pad}}}\n", &hello[..hello.len() - 1])
    };
    let mut t = alice_table("long-hello", 21, &["--max-line-bytes", "100000"]);
    let mut c = Client::connect(&t.lobby.addr);
    assert_eq!(c.recv().expect("hello")["type"], "hello");
    c.stream.write_all(long_hello().as_bytes()).expect("send the hello answer");
    c.play_out();
    t.referee.finish().assert_ok("a long hello");
    assert_seat0_played_cleanly(&t.s, "long");
    drop(t);

    let t = alice_table("long-hello-default", 22, &[]);
    let mut c = Client::connect(&t.lobby.addr);
    assert_eq!(c.recv().expect("hello")["type"], "hello");
    c.stream.write_all(long_hello().as_bytes()).expect("send the hello answer");
    c.drain();
    // The referee may close before reading the rest of the line, and a close with unread bytes
    // can reset the connection before its `bye` is read; when it is read, it says why.
    if let Some(bye) = c.bye() {
        assert!(bye.contains("line_too_long"), "{bye}");
    }
    t.a_good_bot_plays_cleanly("a long hello refused");
}

mod resume;
