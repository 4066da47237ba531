//! The workers section (issue 28): `arena serve --work` with eight hosted entrants played by
//! the instant bot, and 1, 2 and 4 `referee worker`s (two tables each) leasing and posting
//! their games over HTTP. For each count: games per second (and the ratio to one worker), the
//! server's CPU per game (from /proc) and the work queue's database time per game (the
//! server's own `aluette_arena_database_seconds_total` in `/metrics`), over a window that
//! starts once games flow. With `ARENA_BENCH_POSTGRES=URL` (a PostgreSQL server the bench may
//! create databases on, `psql` on PATH) the same runs are made on PostgreSQL too, each on a
//! fresh database.

use crate::sys;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Hosted entrants: two tables of four, one deal at a time per foursome.
const HOSTED: usize = 8;

/// One measured run.
#[derive(Debug, Default)]
pub(crate) struct Run {
    pub(crate) seconds: f64,
    pub(crate) games: f64,
    pub(crate) cpu_us: f64,
    pub(crate) db_us: f64,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.games / self.seconds
    }
}

/// A child stopped with SIGINT (then killed) when dropped.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = sys::command("kill").args(["-INT", &self.0.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn admin(arena: &Path, args: &[&str]) -> io::Result<String> {
    let out = sys::command(arena).arg("admin").args(args).output()?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(io::Error::other(format!("arena admin {}: {why}", args[0])));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The value of the sample `name` on the server's `/metrics` page.
fn metric(web: &str, name: &str) -> io::Result<f64> {
    let mut s = TcpStream::connect(web)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "GET /metrics HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n\r\n")?;
    let mut page = String::new();
    s.read_to_string(&mut page)?;
    page.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| io::Error::other(format!("/metrics has no {name}")))
}

const GAMES: &str = "aluette_arena_games_total{where=\"worker\"}";
const DB: &str = "aluette_arena_database_seconds_total";

/// A fresh database named `name` on the PostgreSQL server of `url`; its URL.
fn fresh_postgres(url: &str, name: &str) -> io::Result<String> {
    let out = sys::command("psql")
        // Two commands, not one: psql runs one `-c` as a transaction, and neither may be in one.
        .args([url, "-v", "ON_ERROR_STOP=1", "-q", "-c"])
        .arg(format!("DROP DATABASE IF EXISTS {name}"))
        .arg("-c")
        .arg(format!("CREATE DATABASE {name}"))
        .output()
        .map_err(|e| io::Error::other(format!("psql: {e}")))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(io::Error::other(format!("psql could not create {name}: {why}")));
    }
    // The URL's database is the path's last part, before any query.
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let at = base.rfind('/').filter(|&i| i > "postgres://".len()).unwrap_or(base.len());
    let mut fresh = format!("{}/{name}", &base[..at]);
    if let Some(q) = query {
        fresh = format!("{fresh}?{q}");
    }
    Ok(fresh)
}

/// Plays `workers` workers for `seconds` once the first games are in, on a fresh SQLite file
/// or, given a server's URL, a fresh PostgreSQL database.
pub(crate) fn run(
    referee: &Path,
    arena: &Path,
    bench: &Path,
    workers: usize,
    seconds: f64,
    postgres: Option<&str>,
) -> io::Result<Run> {
    let dir: PathBuf = std::env::temp_dir()
        .join(format!("aluette-bench-workers-{workers}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let db = match postgres {
        Some(url) => {
            fresh_postgres(url, &format!("aluette_bench_workers_{workers}_{}", std::process::id()))?
        }
        None => dir.join("arena.db").display().to_string(),
    };
    let db_flag = if postgres.is_some() { "--database" } else { "--db" };
    let mut tokens = Vec::new();
    for k in 1..=workers {
        let out = admin(arena, &["add-worker", db_flag, &db, &format!("w{k}")])?;
        let token = out.lines().find_map(|l| l.strip_prefix("token ")).unwrap_or("").trim();
        tokens.push(token.to_string());
    }
    let count = HOSTED.to_string();
    admin(
        arena,
        &["add-bot", db_flag, &db, "--author", "bench", "--name", "hosted", "--hosted"]
            .into_iter()
            .chain(["--count", &count, "--games-per-day", "100000000"])
            .collect::<Vec<_>>(),
    )?;
    let records = dir.join("records").display().to_string();
    let deals = (workers * 2 + 2).to_string();
    let mut server = sys::command(arena)
        .args(["serve", "--no-house", "--qualifying-games", "0", "--listen", "127.0.0.1:0"])
        .args(["--web", "127.0.0.1:0", "--work", "--work-deals", &deals, "--answer-ms", "2000"])
        .args([db_flag, &db, "--records", &records])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut lines = BufReader::new(server.stdout.take().expect("piped")).lines();
    let server = Kid(server);
    let web = loop {
        let Some(line) = lines.next() else {
            return Err(io::Error::other("the arena ended before its web server listened"));
        };
        if let Some(addr) = line?.strip_prefix("arena: web pages at http://") {
            break addr.trim().trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let instant =
        format!("{} --instant-bot", crate::tools::shell_word(&bench.display().to_string()));
    let mut kids = Vec::new();
    for token in &tokens {
        let mut cmd = sys::command(referee);
        cmd.args([
            "worker",
            "--server",
            &format!("http://{web}"),
            "--token",
            token,
            "--slots",
            "2",
        ]);
        for k in 1..=HOSTED {
            cmd.args(["--bot", &format!("hosted-{k}={instant}")]);
        }
        kids.push(Kid(cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?));
    }
    let warm = Instant::now() + Duration::from_secs(60);
    while metric(&web, GAMES)? < (2 * workers) as f64 {
        if Instant::now() > warm {
            return Err(io::Error::other("no game came back from the workers within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let pid = server.0.id();
    let (g0, d0, c0) = (metric(&web, GAMES)?, metric(&web, DB)?, sys::cpu_ticks(pid)?.own);
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let (g1, d1, c1) = (metric(&web, GAMES)?, metric(&web, DB)?, sys::cpu_ticks(pid)?.own);
    let elapsed = started.elapsed().as_secs_f64();
    drop(kids);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Run {
        seconds: elapsed,
        games: g1 - g0,
        cpu_us: (c1 - c0) as f64 * 1e6 / sys::USER_HZ as f64,
        db_us: (d1 - d0) * 1e6,
    })
}

/// The workers section of the report; a figure that could not be measured says why.
pub(crate) fn rows(report: &mut crate::report::Report, referee: &Path, arena: &Path, quick: bool) {
    let mut s = report
        .section("Workers (arena serve --work, referee worker x2 tables, hosted instant bots)");
    if !arena.exists() || !referee.exists() {
        s.missing("games per second", "games/s", "the arena or the referee binary is missing");
        return;
    }
    let bench = match std::env::current_exe() {
        Ok(me) => me,
        Err(e) => return s.missing("games per second", "games/s", &e.to_string()),
    };
    let seconds = if quick { 3.0 } else { 15.0 };
    let postgres = std::env::var("ARENA_BENCH_POSTGRES").ok().filter(|u| !u.is_empty());
    for (engine, url) in [("SQLite", None), ("PostgreSQL", postgres.as_deref())] {
        if engine == "PostgreSQL" && url.is_none() {
            s.missing(
                "games per second, PostgreSQL",
                "games/s",
                "ARENA_BENCH_POSTGRES is not set (a postgres:// server the bench may create databases on)",
            );
            continue;
        }
        let mut one: Option<f64> = None;
        for workers in [1, 2, 4] {
            crate::rows::progress(&format!("workers: {workers} on {engine}"));
            let label = if workers == 1 {
                format!("1 worker, {engine}")
            } else {
                format!("{workers} workers, {engine}")
            };
            match run(referee, arena, &bench, workers, seconds, url) {
                Ok(r) => {
                    let rate = r.per_second();
                    let row = s.row(&format!("games per second, {label}"), rate, "games/s");
                    match one {
                        None => one = Some(rate),
                        Some(base) => {
                            row.note(format!("{:.2}x one worker", rate / base));
                        }
                    }
                    let games = r.games.max(1.0);
                    let cpu = r.cpu_us / games / 1000.0;
                    s.row(&format!("server CPU per game, {label}"), cpu, "ms");
                    let db = r.db_us / games / 1000.0;
                    s.row(&format!("database time per game, {label}"), db, "ms");
                }
                Err(e) => {
                    s.missing(&format!("games per second, {label}"), "games/s", &e.to_string())
                }
            }
        }
    }
}
