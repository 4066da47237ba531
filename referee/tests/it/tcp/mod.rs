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

// ---- shared by the sections below --------------------------------------------------------

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

mod faults;
mod play;
mod resume;
mod strangers;
mod throughput;
