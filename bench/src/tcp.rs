//! The referee with bots over TCP: a table whose four instant bots connect to the referee's
//! listener, and the referee's memory while 1,000 connections that never say a word wait for
//! their handshake. The bench starts the bots itself (the referee only listens), so it also
//! reads their CPU time itself.

use crate::referee::{self, Launch, Outcome};
use crate::sys::{self, Pinned};
use std::io::{self, BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// What the referee prints (on stderr, with `--json`) once it listens, before the address.
const LISTENING: &str = "Listening for TCP bots on";

/// The seats' tokens; any fixed text does, the referee is told them with `--bot tcp:TOKEN`.
const TOKENS: [&str; 4] = ["bench-seat-0", "bench-seat-1", "bench-seat-2", "bench-seat-3"];

/// Idle connections opened before their hellos are awaited: well under any listen backlog (the
/// referee asks for 1,024, the kernel caps it at `net.core.somaxconn`), so no SYN is dropped and
/// retried a second later.
const CONNECT_BATCH: usize = 64;

/// A match whose four seats are TCP seats, with `extra` flags for the listener.
fn launch(referee: &Path, games: u64, seed: u64, cpu: usize, extra: &[&str]) -> Launch {
    let mut flags = vec!["--listen".to_string(), "127.0.0.1:0".to_string()];
    flags.extend(extra.iter().map(|s| s.to_string()));
    Launch {
        referee: referee.to_path_buf(),
        bots: TOKENS.iter().map(|t| format!("tcp:{t}")).collect(),
        games,
        seed,
        cpu: Some(cpu),
        no_pin: false,
        extra: flags,
    }
}

/// One table of four instant bots over TCP, the referee and the bots all on `cpu`.
pub(crate) fn table(referee: &Path, games: u64, seed: u64, cpu: usize) -> io::Result<Outcome> {
    // A bot that cannot connect must not hold the run for the default minute.
    let launch = launch(referee, games, seed, cpu, &["--connect-wait-ms", "10000"]);
    let mut running = referee::start(&launch)?;
    let addr = running.stderr_line(LISTENING)?;
    let bots = start_bots(&addr, cpu);
    // The referee is waited for even when a bot did not start: it then plays the fallback and
    // exits, and its error (or its faults) says what happened.
    let finished = running.finish();
    let bots_cpu_us = finish_bots(bots?)?;
    let mut out = referee::outcome(finished?)?;
    out.bots_cpu_us = bots_cpu_us;
    Ok(out)
}

/// What the referee's memory did while it held idle connections, and the game played after.
#[derive(Debug)]
pub(crate) struct Idle {
    pub(crate) connections: usize,
    /// VmHWM once the referee listens and before any connection.
    pub(crate) baseline_kib: u64,
    /// VmHWM once every idle connection got its `hello`.
    pub(crate) peak_kib: u64,
    /// VmRSS once the idle connections were closed and dropped by the referee, just before the
    /// real bots connect: whether the memory went back.
    pub(crate) rss_after_kib: Option<u64>,
    /// The one game the real bots then played.
    pub(crate) game: Outcome,
}

/// Opens `connections` TCP connections to a referee waiting for its four seats, holds them
/// without a word while reading its memory, closes them, then lets four instant bots claim
/// the seats and play one game.
pub(crate) fn idle(referee: &Path, connections: usize, seed: u64, cpu: usize) -> io::Result<Idle> {
    let pending = (connections + 100).to_string();
    // Long clocks: the idle connections must still be waiting when their memory is read, and
    // the seats must still be open when the real bots come.
    let extra = [
        "--max-pending",
        &pending,
        // They all come from 127.0.0.1, and each must get its hello.
        "--max-pending-per-addr",
        &pending,
        "--handshake-ms",
        "120000",
        "--connect-wait-ms",
        "120000",
        // Its stderr is not drained while the connections are held: keep it to real errors.
        "--log",
        "error",
    ];
    let launch = launch(referee, 1, seed, cpu, &extra);
    let mut running = referee::start(&launch)?;
    let addr = running.stderr_line(LISTENING)?;
    let pid = running.pid();
    let result = hold(&addr, pid, connections);
    // Whatever happened, the seats get their bots so that the referee ends on its own.
    let bots = start_bots(&addr, cpu);
    let finished = running.finish();
    let bots_result = bots.and_then(finish_bots);
    let (baseline_kib, peak_kib, rss_after_kib) = result?;
    bots_result?;
    let game = referee::outcome(finished?)?;
    Ok(Idle { connections, baseline_kib, peak_kib, rss_after_kib, game })
}

/// Opens the idle connections and returns the referee's VmHWM before and with them, and its
/// VmRSS after they are closed.
fn hold(addr: &str, pid: u32, connections: usize) -> io::Result<(u64, u64, Option<u64>)> {
    let memory = || {
        sys::peak_rss_kib(pid)
            .ok_or_else(|| io::Error::other(format!("cannot read /proc/{pid}/status")))
    };
    // The listener is printed before the referee settles into waiting: let it settle.
    std::thread::sleep(Duration::from_millis(100));
    let baseline = memory()?;
    let mut held = Vec::with_capacity(connections);
    // In batches, each waited for before the next: the referee listens with a backlog of 128
    // (tokio's), and a faster burst overflows it, so the kernel drops SYNs that the client only
    // sends again 1 s later. That is a start-up cost, not the memory measured here.
    for batch in 0..connections.div_ceil(CONNECT_BATCH) {
        let first = batch * CONNECT_BATCH;
        let last = (first + CONNECT_BATCH).min(connections);
        for i in first..last {
            let stream = TcpStream::connect(addr).map_err(|e| {
                io::Error::new(e.kind(), format!("idle connection {} of {connections}: {e}", i + 1))
            })?;
            held.push(stream);
        }
        // Each connection's `hello` proves the referee accepted it and started its handshake:
        // its buffers and its task exist. Nothing is answered.
        for (i, stream) in held.iter().enumerate().skip(first) {
            expect_hello(stream, i)?;
        }
    }
    // VmHWM only rises: a few samples catch whatever the last accepts still allocate.
    let mut peak = memory()?;
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(20));
        peak = peak.max(memory()?);
    }
    drop(held);
    // The referee sees each end of input at once; give its tasks a moment to drop their state.
    std::thread::sleep(Duration::from_millis(200));
    Ok((baseline, peak, sys::rss_kib(pid)))
}

/// Reads the `hello` the referee writes first on idle connection `i`.
fn expect_hello(stream: &TcpStream, i: usize) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).map_err(|e| {
        io::Error::new(e.kind(), format!("no hello on idle connection {}: {e}", i + 1))
    })?;
    if !line.starts_with("{\"type\":\"hello\"") {
        return Err(io::Error::other(format!(
            "idle connection {} got {:?} instead of a hello (is --max-pending too low?)",
            i + 1,
            line.trim_end()
        )));
    }
    Ok(())
}

/// Starts the four instant bots with their seats' tokens, pinned to `cpu` like the referee.
fn start_bots(addr: &str, cpu: usize) -> io::Result<Vec<(&'static str, Child)>> {
    let me = std::env::current_exe()?;
    let _pin = Pinned::to(cpu)?;
    let mut bots = Vec::with_capacity(TOKENS.len());
    for token in TOKENS {
        let child = sys::command(&me)
            .args(["--instant-bot", "--connect", addr, "--token", token])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot start the instant bot {}: {e}", me.display()),
                )
            })?;
        bots.push((token, child));
    }
    Ok(bots)
}

/// Waits for the bots and returns their CPU time in microseconds, read from each zombie's
/// /proc entry as the referee's bots' time is; an error for a bot that failed.
fn finish_bots(bots: Vec<(&'static str, Child)>) -> io::Result<f64> {
    let mut ticks = 0;
    let mut failure = None;
    for (token, child) in bots {
        let pid = child.id();
        sys::wait_exited_unreaped(pid)?;
        ticks += sys::cpu_ticks(pid).map_or(0, |t| t.own);
        let out = child.wait_with_output()?;
        if !out.status.success() && failure.is_none() {
            failure = Some(format!(
                "the instant bot with token {token} failed ({}): {}",
                out.status,
                referee::one_line(&out.stderr)
            ));
        }
    }
    match failure {
        Some(f) => Err(io::Error::other(f)),
        None => Ok(ticks as f64 * 1e6 / sys::USER_HZ as f64),
    }
}
