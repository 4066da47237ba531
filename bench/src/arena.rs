//! The arena section (issue 27): `arena serve` with no house players and instant bots over
//! TCP, first at two tables (the single-table figure: one deal played at its two tables), then
//! at fifty tables with 200 bots, then holding 1,000 idle bots connected and greeted. The
//! server prints its own games, answers and database time when it ends; CPU and memory are
//! read from /proc. The database time per game is measured on SQLite and, when
//! `ARENA_BENCH_POSTGRES` names a PostgreSQL database the bench may write to, on it too (issue
//! 28): the same run, `--database URL` instead of a file.

use crate::sys;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// One run of the server.
#[derive(Debug, Default)]
pub(crate) struct Served {
    pub(crate) bots: usize,
    pub(crate) seconds: f64,
    pub(crate) games: u64,
    pub(crate) answers: u64,
    /// The server's own CPU time, in microseconds.
    pub(crate) cpu_us: f64,
    pub(crate) db_us: u64,
    pub(crate) peak_kib: u64,
}

impl Served {
    pub(crate) fn cpu_per_answer_us(&self) -> f64 {
        self.cpu_us / self.answers.max(1) as f64
    }
}

/// The memory of idle connected bots.
#[derive(Debug, Default)]
pub(crate) struct Idle {
    pub(crate) bots: usize,
    pub(crate) baseline_kib: u64,
    pub(crate) peak_kib: u64,
}

/// A child killed when dropped.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scratch(name: &str) -> io::Result<PathBuf> {
    let dir =
        std::env::temp_dir().join(format!("aluette-bench-arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The database a run uses: a fresh SQLite file in its folder, or a Postgres database.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Db<'a> {
    /// `arena.db` in the run's scratch folder.
    Sqlite,
    /// A `postgres://` URL (a database kept between runs: each run's bots have names of their
    /// own).
    Postgres(&'a str),
}

impl Db<'_> {
    /// The flag and value that name it to `arena`.
    fn args(&self, dir: &Path) -> [std::ffi::OsString; 2] {
        match self {
            Db::Sqlite => ["--db".into(), dir.join("arena.db").into()],
            Db::Postgres(url) => ["--database".into(), url.into()],
        }
    }
}

/// `n` bots created in the database, each by an author of its own; their tokens.
fn add_bots(arena: &Path, db: Db<'_>, dir: &Path, n: usize) -> io::Result<Vec<String>> {
    // Names of this run's own: a Postgres database keeps the bots of earlier runs.
    let run =
        format!("{}-{}", std::process::id(), dir.file_name().unwrap_or_default().to_string_lossy());
    let out = sys::command(arena)
        .args(["admin", "add-bot"])
        .args(db.args(dir))
        .args(["--author", &format!("bench-{run}"), "--name", &format!("instant-{run}")])
        .args(["--count", &n.to_string()])
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "arena admin add-bot: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|l| l.strip_prefix("token "))
        .map(|t| t.trim().to_string())
        .collect())
}

/// Starts `arena serve` (no house) and returns it with the address bots connect to.
fn serve(arena: &Path, db: Db<'_>, dir: &Path, deals_at_once: usize) -> io::Result<(Kid, String)> {
    let mut child = sys::command(arena)
        // No house, so no qualifying games: every bot is on the ladder from its first deal.
        .args(["serve", "--no-house", "--qualifying-games", "0", "--listen", "127.0.0.1:0"])
        .args(["--answer-ms", "2000"])
        .args(["--deals-at-once", &deals_at_once.to_string()])
        .args(db.args(dir))
        .arg("--records")
        .arg(dir.join("records"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let kid = Kid(child);
    for line in lines.by_ref() {
        if let Some(addr) = line?.strip_prefix("arena: bots connect to ") {
            let addr = addr.trim().to_string();
            std::thread::spawn(move || for _ in lines {});
            return Ok((kid, addr));
        }
    }
    Err(io::Error::other("the arena ended before it listened"))
}

/// SIGINT, then the server's closing figures from its stderr.
fn finish(mut kid: Kid) -> io::Result<(u64, u64, u64)> {
    let pid = kid.0.id();
    let _ = sys::command("kill").args(["-INT", &pid.to_string()]).status();
    let mut err = String::new();
    kid.0.stderr.take().expect("piped").read_to_string(&mut err)?;
    let _ = kid.0.wait();
    let line = err
        .lines()
        .find(|l| l.starts_with("arena: served "))
        .ok_or_else(|| io::Error::other(format!("the arena printed no figures: {}", err.trim())))?;
    // "arena: served G games (A answers); database time D us"
    let num = |after: &str| -> Option<u64> {
        line.split(after).nth(1)?.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    match (num("served "), num("("), num("database time ")) {
        (Some(g), Some(a), Some(d)) => Ok((g, a, d)),
        _ => Err(io::Error::other(format!("unexpected figures line: {line}"))),
    }
}

/// Plays for `seconds` with `bots` instant bots at `bots / 4` tables at once.
pub(crate) fn served(
    arena: &Path,
    bench: &Path,
    db: Db<'_>,
    bots: usize,
    seconds: f64,
) -> io::Result<Served> {
    let dir = scratch(&format!("served-{bots}"))?;
    let tokens = add_bots(arena, db, &dir, bots)?;
    // Two tables a deal: as many deals as there are pairs of tables.
    let (server, addr) = serve(arena, db, &dir, (bots / 8).max(1))?;
    let pid = server.0.id();
    let before = sys::cpu_ticks(pid)?;
    let kids: Vec<Kid> = tokens
        .iter()
        .map(|t| {
            sys::command(bench)
                .args(["--instant-bot", "--connect", &addr, "--token", t])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map(Kid)
        })
        .collect::<io::Result<_>>()?;
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let after = sys::cpu_ticks(pid)?;
    let peak_kib = sys::peak_rss_kib(pid).unwrap_or(0);
    let elapsed = started.elapsed().as_secs_f64();
    let (games, answers, db_us) = finish(server)?;
    drop(kids);
    let _ = std::fs::remove_dir_all(&dir);
    let ticks = (after.own - before.own) as f64;
    Ok(Served {
        bots,
        seconds: elapsed,
        games,
        answers,
        cpu_us: ticks * 1e6 / sys::USER_HZ as f64,
        db_us,
        peak_kib,
    })
}

/// `bots` bots connected and greeted, seated nowhere (`--deals-at-once 0`): the server's memory
/// before and with them. Each connection answers its `hello` with its token and then waits.
pub(crate) fn idle(arena: &Path, bots: usize) -> io::Result<Idle> {
    let dir = scratch("idle")?;
    let tokens = add_bots(arena, Db::Sqlite, &dir, bots)?;
    let (server, addr) = serve(arena, Db::Sqlite, &dir, 0)?;
    let pid = server.0.id();
    std::thread::sleep(Duration::from_millis(200));
    let baseline_kib = sys::peak_rss_kib(pid).unwrap_or(0);
    let mut held = Vec::with_capacity(bots);
    // A few at a time: the door admits 64 pending handshakes, 8 from one address.
    for chunk in tokens.chunks(8) {
        let mut batch = Vec::new();
        for token in chunk {
            let stream = TcpStream::connect(&addr)?;
            stream.set_read_timeout(Some(Duration::from_secs(30)))?;
            batch.push((stream, token));
        }
        for (stream, token) in batch {
            let mut reader = BufReader::new(stream.try_clone()?);
            let mut hello = String::new();
            reader.read_line(&mut hello)?;
            // The instant bot's own answer to its hello, with the bot's token.
            let mut answer = Vec::new();
            match crate::instant::respond(hello.trim_end().as_bytes(), Some(token), &mut answer) {
                Ok(crate::instant::Reply::Answer) => {}
                _ => return Err(io::Error::other(format!("not a hello: {}", hello.trim_end()))),
            }
            (&stream).write_all(&answer)?;
            held.push(stream);
        }
    }
    // Every bot is in the pool once the server has seen it greeted: let it take them.
    std::thread::sleep(Duration::from_secs(2));
    let peak_kib = sys::peak_rss_kib(pid).unwrap_or(0);
    drop(held);
    let _ = finish(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Idle { bots, baseline_kib, peak_kib })
}

/// The same run as the big one on the PostgreSQL database `ARENA_BENCH_POSTGRES` names: its
/// database time per game (the server's own measure, as on SQLite).
fn postgres_row(
    s: &mut crate::report::Section<'_>,
    arena: &Path,
    bench: &Path,
    bots: usize,
    seconds: f64,
) {
    let name = format!("database time per game, {} tables, PostgreSQL", bots / 4);
    let Some(url) = std::env::var("ARENA_BENCH_POSTGRES").ok().filter(|u| !u.is_empty()) else {
        s.missing(&name, "ms", "ARENA_BENCH_POSTGRES is not set (a postgres:// URL to measure on)");
        return;
    };
    crate::rows::progress(&format!("arena: {bots} bots on PostgreSQL"));
    match served(arena, bench, Db::Postgres(&url), bots, seconds) {
        Ok(run) => {
            let row = s.row(&name, run.db_us as f64 / run.games.max(1) as f64 / 1000.0, "ms");
            row.note(format!("{:.1} games/s", run.games as f64 / run.seconds));
        }
        Err(e) => s.missing(&name, "ms", &e.to_string()),
    }
}

/// Bots of the arena's big run: fifty tables at once.
const BOTS: usize = 200;
/// Idle bots held connected.
const IDLE_BOTS: usize = 1_000;

/// The arena section of the report; a figure that could not be measured says why.
pub(crate) fn rows(report: &mut crate::report::Report, arena: &Path, bench: &Path, quick: bool) {
    let mut s = report.section("Arena (arena serve, instant bots over TCP, no house)");
    if !arena.exists() {
        let why = format!("{} is missing: cargo build --release -p aluette-arena", arena.display());
        s.missing("games per second", "games/s", &why);
        return;
    }
    let seconds = if quick { 3.0 } else { 15.0 };
    crate::rows::progress("arena: 8 bots, 2 tables at once");
    let single = served(arena, bench, Db::Sqlite, 8, seconds);
    crate::rows::progress(&format!("arena: {BOTS} bots, {} tables at once", BOTS / 4));
    let bots = if quick { 40 } else { BOTS };
    let full = served(arena, bench, Db::Sqlite, bots, seconds);
    match (&single, &full) {
        (Ok(one), Ok(all)) => {
            let tables = all.bots / 4;
            s.row(
                &format!("games per second, {tables} tables at once"),
                all.games as f64 / all.seconds,
                "games/s",
            );
            s.row("games per second, 2 tables at once", one.games as f64 / one.seconds, "games/s");
            let per = all.cpu_per_answer_us();
            let row = s.row(&format!("server CPU per answer, {tables} tables"), per, "us");
            row.note(format!(
                "{:.2}x the 2-table figure ({:.1} us; target at most 1.5x)",
                per / one.cpu_per_answer_us(),
                one.cpu_per_answer_us()
            ));
            s.row(
                &format!("database time per game, {tables} tables, SQLite"),
                all.db_us as f64 / all.games.max(1) as f64 / 1000.0,
                "ms",
            );
            postgres_row(&mut s, arena, bench, bots, seconds);
            let row = s.row(
                &format!("peak memory (VmHWM), {tables} tables"),
                all.peak_kib as f64 / 1024.0,
                "MiB",
            );
            row.note("target under 256 MiB");
        }
        (Err(e), _) | (_, Err(e)) => s.missing("games per second", "games/s", &e.to_string()),
    }
    crate::rows::progress(&format!("arena: {IDLE_BOTS} idle connected bots"));
    match idle(arena, IDLE_BOTS) {
        Ok(i) => {
            s.row("memory before the idle bots (VmHWM)", i.baseline_kib as f64 / 1024.0, "MiB");
            s.row(
                &format!("memory with {} idle bots (VmHWM)", i.bots),
                i.peak_kib as f64 / 1024.0,
                "MiB",
            );
            s.row(
                "per idle bot",
                i.peak_kib.saturating_sub(i.baseline_kib) as f64 / i.bots as f64,
                "KiB",
            );
        }
        Err(e) => s.missing(&format!("memory with {IDLE_BOTS} idle bots"), "MiB", &e.to_string()),
    }
}
