//! The referee's web server under load (issue 23): a table of instant bots with 0, 10 and 100
//! spectators connected (spread over the organiser's view and the four seat views), and the same
//! table while a stranger tries 10,000 half-open connections and a person's page is loaded over
//! and over. The speed is games per second between the first game's end and the last's, read
//! from the referee's account as it prints it (start-up, and the wait for spectators at the end,
//! left out); the memory is the referee's VmHWM.

use crate::Res;
use crate::report::Report;
use crate::sys::{self, Pinned};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one run of a watched table did.
#[derive(Debug)]
pub(crate) struct Watched {
    pub(crate) games: u64,
    /// Games per second from the first game's end to the last's.
    pub(crate) games_per_s: f64,
    pub(crate) peak_rss_kib: Option<u64>,
    /// Fault lines in the account (an instant bot should have none).
    pub(crate) faults: u64,
    /// Spectators still connected when the last game ended.
    pub(crate) connected: usize,
}

/// A running `referee match --watch` and the pages' addresses it printed.
struct Table {
    child: Child,
    lines: std::sync::mpsc::Receiver<(Instant, String)>,
    /// The organiser's view, then seats 0 to 3.
    views: Vec<String>,
    addr: String,
}

fn url_of(line: &str) -> Option<String> {
    line.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_string)
}

/// Starts a table of four instant bots playing `games`, pinned to `cpu`, with spectators served.
fn start(referee: &Path, bot: &str, games: u64, seed: u64, cpu: usize) -> io::Result<Table> {
    let mut cmd = sys::command(referee);
    cmd.args(["match", "--no-records", "--watch", "--web", "127.0.0.1:0", "--games"])
        .arg(games.to_string())
        .arg("--seed")
        .arg(seed.to_string())
        .args(["--bot", bot])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = {
        let _pin = Pinned::to(cpu)?;
        cmd.spawn()?
    };
    let out = child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    let mut views = Vec::new();
    while views.len() < 5 {
        let (_, line) = lines
            .recv_timeout(Duration::from_secs(20))
            .map_err(|_| io::Error::other("the referee never printed its spectator pages"))?;
        if line.starts_with("Watch live: ") || line.trim_start().starts_with("seat ") {
            views.extend(url_of(&line));
        }
    }
    let addr = views[0].trim_start_matches("http://").split('/').next().unwrap_or("").to_string();
    Ok(Table { child, lines, views, addr })
}

impl Table {
    /// Reads the account to its end: the games' end times and the fault lines.
    fn finish(self, games: u64, spectators: &[Spectator]) -> io::Result<Watched> {
        let pid = self.child.id();
        let peak = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (peak, stop) = (peak.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(kib) = sys::peak_rss_kib(pid) {
                        peak.fetch_max(kib, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        };
        let (mut first, mut last, mut ended, mut faults) = (None, None, 0u64, 0u64);
        let mut connected = 0;
        for (at, line) in self.lines.iter() {
            if line.starts_with("Game ") {
                // A game's account starts with its line: printed when it ended.
                ended += 1;
                first.get_or_insert(at);
                last = Some(at);
                if ended == games {
                    connected = spectators.iter().filter(|s| s.alive()).count();
                }
            } else if line.trim_start().starts_with("fault ") {
                faults += 1;
            }
        }
        let mut child = self.child;
        let status = child.wait()?;
        stop.store(true, Ordering::Relaxed);
        let _ = sampler.join();
        if !status.success() {
            return Err(io::Error::other(format!("the referee failed ({status})")));
        }
        let span = match (first, last) {
            (Some(a), Some(b)) if ended > 1 => b.duration_since(a).as_secs_f64(),
            _ => return Err(io::Error::other(format!("{ended} games ended of {games}"))),
        };
        Ok(Watched {
            games: ended,
            games_per_s: (ended - 1) as f64 / span,
            peak_rss_kib: Some(peak.load(Ordering::Relaxed)).filter(|&k| k > 0),
            faults,
            connected,
        })
    }
}

/// A spectator's page: a WebSocket read to its end on a thread of its own.
struct Spectator {
    alive: Arc<AtomicBool>,
}

impl Spectator {
    fn alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }

    fn open(addr: &str, url: &str) -> io::Result<Spectator> {
        let path = url.split_once(addr).map_or("/", |(_, p)| p).replacen("/watch", "/ws/watch", 1);
        let mut stream = TcpStream::connect(addr)?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
             Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )?;
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
            flag.store(false, Ordering::Relaxed);
        });
        Ok(Spectator { alive })
    }
}

/// One watched table with `n` spectators, spread evenly over the five views, opened from a
/// thread on `other` (off the table's CPU) as soon as the pages are printed.
pub(crate) fn spectators(
    referee: &Path,
    bot: &str,
    games: u64,
    seed: u64,
    cpu: usize,
    other: Option<usize>,
    n: usize,
) -> io::Result<Watched> {
    let table = start(referee, bot, games, seed, cpu)?;
    let _pin = other.map(Pinned::to).transpose()?;
    let mut open = Vec::with_capacity(n);
    for i in 0..n {
        open.push(Spectator::open(&table.addr, &table.views[i % table.views.len()])?);
    }
    table.finish(games, &open)
}

/// What the flood did, and what a person's page met meanwhile.
#[derive(Debug)]
pub(crate) struct Flooded {
    pub(crate) table: Watched,
    pub(crate) tried: usize,
    /// Connections the flood could not even open (refused, reset, timed out).
    pub(crate) failed: usize,
    /// A page's load time (connect, request, the whole answer), in milliseconds: median, max.
    pub(crate) page_ms: (f64, f64),
    pub(crate) page_loads: usize,
    pub(crate) page_failures: usize,
}

/// Client sockets the flood holds at once: it closes its oldest past this, so the bench's own
/// descriptors stay few while the referee sees thousands come.
const FLOOD_HELD: usize = 2_000;

/// One watched table while `tries` half-open connections (half a request head, never finished)
/// are opened against its web server and the page `/play` is loaded every 20 ms.
pub(crate) fn flood(
    referee: &Path,
    bot: &str,
    games: u64,
    seed: u64,
    cpu: usize,
    other: Option<usize>,
    tries: usize,
) -> io::Result<Flooded> {
    let table = start(referee, bot, games, seed, cpu)?;
    let addr = table.addr.clone();
    let done = Arc::new(AtomicBool::new(false));
    let flooder = {
        let (addr, done) = (addr.clone(), done.clone());
        std::thread::spawn(move || {
            let _pin = other.map(Pinned::to);
            let mut held = std::collections::VecDeque::with_capacity(FLOOD_HELD);
            let (mut tried, mut failed) = (0, 0);
            while tried < tries {
                if done.load(Ordering::Relaxed) {
                    break;
                }
                tried += 1;
                match TcpStream::connect(&addr) {
                    Ok(mut c) => {
                        let _ = c.write_all(b"GET /play HTTP/1.1\r\n");
                        if held.len() == FLOOD_HELD {
                            held.pop_front();
                        }
                        held.push_back(c);
                    }
                    Err(_) => failed += 1,
                }
            }
            (tried, failed)
        })
    };
    let prober = {
        let (addr, done) = (addr.clone(), done.clone());
        std::thread::spawn(move || {
            let _pin = other.map(Pinned::to);
            let (mut times, mut failures) = (Vec::new(), 0);
            while !done.load(Ordering::Relaxed) {
                match load_page(&addr) {
                    Ok(ms) => times.push(ms),
                    Err(_) => failures += 1,
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            (times, failures)
        })
    };
    let watched = table.finish(games, &[]);
    done.store(true, Ordering::Relaxed);
    let (tried, failed) = flooder.join().unwrap_or((0, 0));
    let (mut times, page_failures) = prober.join().unwrap_or_default();
    times.sort_by(f64::total_cmp);
    let page_ms = match times.len() {
        0 => (f64::NAN, f64::NAN),
        n => (times[n / 2], times[n - 1]),
    };
    Ok(Flooded { table: watched?, tried, failed, page_ms, page_loads: times.len(), page_failures })
}

/// Loads `/play` on a new connection; the milliseconds to its whole answer.
fn load_page(addr: &str) -> io::Result<f64> {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "GET /play HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer)?;
    if !answer.starts_with(b"HTTP/1.1 200") {
        return Err(io::Error::other("not served"));
    }
    Ok(t0.elapsed().as_secs_f64() * 1e3)
}

/// Spectators the spectators section compares (issue 23's figures).
const SPECTATORS: [usize; 3] = [0, 10, 100];
/// Half-open connections the flood tries.
const FLOOD_TRIES: usize = 10_000;
/// The memory the referee should stay under with 100 spectators.
const MEMORY_TARGET_MIB: f64 = 64.0;

/// The spectators section and the web flood section.
pub(crate) fn sections(
    report: &mut Report,
    referee: &Path,
    bot: &str,
    games: u64,
    seed: u64,
    cpu: usize,
    other: Option<usize>,
) -> Res<()> {
    let mut runs = Vec::new();
    for n in SPECTATORS {
        crate::rows::progress(&format!("referee --watch, {n} spectators, {games} games"));
        let run = spectators(referee, bot, games, seed, cpu, other, n)
            .map_err(|e| format!("{n} spectators: {e}"))?;
        runs.push((n, run));
    }
    let none = runs[0].1.games_per_s;
    {
        let mut s = report.section(&format!(
            "Spectators (referee match --watch, 4 instant bots, {games} games, pinned to CPU {cpu}; \
             spectators spread over the organiser's view and the 4 seat views)"
        ));
        for (n, run) in &runs {
            s.row(&format!("{n} spectators: games per second"), run.games_per_s, "games/s").note(
                format!(
                    "{:.1}% of none; {} games; {} faults; {} of {n} still connected at the end",
                    100.0 * run.games_per_s / none,
                    run.games,
                    run.faults,
                    run.connected
                ),
            );
            let name = format!("{n} spectators: referee peak memory (VmHWM)");
            match run.peak_rss_kib {
                Some(kib) => {
                    s.row(&name, kib as f64 / 1024.0, "MiB")
                        .note(format!("target under {MEMORY_TARGET_MIB} MiB"));
                }
                None => s.missing(&name, "MiB", "not measured"),
            }
        }
    }
    crate::rows::progress(&format!(
        "referee --watch while {FLOOD_TRIES} half-open connections are tried"
    ));
    let f = flood(referee, bot, 10 * games, seed, cpu, other, FLOOD_TRIES)
        .map_err(|e| format!("web flood: {e}"))?;
    let mut s = report.section(&format!(
        "Web flood ({FLOOD_TRIES} half-open connections tried against the web server of a \
         match of 4 instant bots, {} games, while a page is loaded every 20 ms)",
        10 * games
    ));
    s.row("games per second during the flood", f.table.games_per_s, "games/s").note(format!(
        "{:.1}% of the same table without it; {} faults",
        100.0 * f.table.games_per_s / none,
        f.table.faults
    ));
    s.row("connections tried", f.tried as f64, "").note(format!("{} could not connect", f.failed));
    s.row("page load (connect, GET /play, whole answer), median", f.page_ms.0, "ms")
        .note(format!("{} loads, {} failed", f.page_loads, f.page_failures));
    s.row("page load, slowest", f.page_ms.1, "ms");
    if let Some(kib) = f.table.peak_rss_kib {
        s.row("referee peak memory (VmHWM)", kib as f64 / 1024.0, "MiB");
    }
    Ok(())
}
