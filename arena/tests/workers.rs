//! Workers end to end (issue 28): the real server with `--work`, three real `referee worker`
//! processes playing the house and a hosted entrant (the Rust sample bot as a `--bot` program).
//! One worker is SIGKILLed while it holds a lease, another SIGSTOPped past its lease's ttl and
//! then let go on (its late posts are refused). At the end every game is done or void, the
//! killed and stopped leases' unfinished games are void and their foursomes were dealt again,
//! every record replays with `referee replay`, no deal is counted twice, and the boards equal
//! their recompute from the database. The same run checks the API's refusals over real HTTP.

#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::store::{GameRow, GameStatus, LeaseState, Store};
use common::{Db, DbArgs, Proc, Scratch, arena_bin, bot_bin, check_stored, rt};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// `referee`, built beside the arena by `cargo build --workspace --bins`.
fn referee_bin() -> PathBuf {
    let bin = Path::new(arena_bin()).parent().unwrap().join("referee");
    assert!(bin.exists(), "{} is missing: run `cargo build --workspace --bins`", bin.display());
    bin
}

/// Runs `arena admin ARGS`; its standard output.
fn admin(args: &[&str]) -> String {
    let out = Command::new(arena_bin()).arg("admin").args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

fn token_of(text: &str) -> String {
    text.lines().find_map(|l| l.strip_prefix("token ")).expect("a token line").trim().to_string()
}

/// `arena serve` on `db` with its web server; the process and the web address.
fn serve(dir: &Scratch, db: &Db, extra: &[&str]) -> (Proc, String) {
    let mut args = vec!["--web", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let (proc_, lines) = common::start(dir, db, "records", "arena", &args);
    let web = loop {
        let line = lines.recv().expect("the arena prints its web address");
        if let Some(addr) = line.strip_prefix("arena: web pages at http://") {
            break addr.trim().trim_end_matches('/').to_string();
        }
    };
    (proc_, web)
}

/// A worker with `token`; `@FILE` gives it as `--token-file FILE`.
fn worker(web: &str, token: &str, log: &Path, bot: &Path) -> Proc {
    let err = std::fs::File::create(log).unwrap();
    let auth = match token.strip_prefix('@') {
        Some(file) => ["--token-file", file],
        None => ["--token", token],
    };
    Proc(
        Command::new(referee_bin())
            .args(["worker", "--server", &format!("http://{web}")])
            .args(auth)
            .args(["--slots", "2", "--log", "info"])
            .args(["--bot", &format!("rust-sample={}", bot.display())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap(),
    )
}

/// One HTTP/1.1 request; the status and the body.
fn http(web: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(web).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    (status, body)
}

/// The value of a metric sample line `NAME VALUE` in `/metrics`.
fn metric(web: &str, name: &str) -> f64 {
    let (status, page) = http(web, "GET", "/metrics", None, "");
    assert_eq!(status, 200);
    page.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

fn games(store: &Store) -> Vec<GameRow> {
    rt().block_on(store.recent_games(u32::MAX)).unwrap()
}

fn done(store: &Store) -> usize {
    games(store).iter().filter(|g| g.status == GameStatus::Done).count()
}

/// Polls `cond` every 100 ms for at most `limit`, failing with `what`.
fn until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "{what} did not happen within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An open lease of worker `w` holding a running game, once there is one.
fn open_lease(store: &Store, w: i64) -> i64 {
    let mut found = None;
    until(Duration::from_secs(60), "an open lease of the worker", || {
        let leases = rt().block_on(store.leases()).unwrap();
        found = leases
            .iter()
            .rev()
            .find(|l| l.worker == w && l.state == LeaseState::Open)
            .map(|l| l.id);
        found.is_some()
    });
    found.unwrap()
}

/// Sends `signal` to the worker `w` runs as at a moment it holds an open lease, and returns that
/// lease once it has expired; `None` if it was done instead (a result on the wire when the
/// signal came, which the server takes whether or not the worker waits for the answer, was its
/// last game).
fn catch_holding(store: &Store, w: i64, worker: &Proc, signal: i32) -> Option<i64> {
    let lease = open_lease(store, w);
    worker.signal(signal);
    let mut state = LeaseState::Open;
    until(Duration::from_secs(30), "the signalled worker's lease ending", || {
        state = lease_state(store, lease);
        state != LeaseState::Open
    });
    (state == LeaseState::Expired).then_some(lease)
}

fn lease_state(store: &Store, lease: i64) -> LeaseState {
    rt().block_on(store.lease(lease)).unwrap().unwrap().state
}

fn lease_games(store: &Store, lease: i64) -> Vec<GameRow> {
    let mut out = Vec::new();
    for deal in rt().block_on(store.lease_deals(lease)).unwrap() {
        out.extend(rt().block_on(store.deal_games(deal)).unwrap());
    }
    out
}

#[test]
fn three_workers_one_killed_one_stopped_play_every_game_once() {
    let dir = Scratch::new("workers");
    three_workers(&dir, &Db::sqlite(&dir));
}

#[test]
fn three_workers_on_postgres_play_every_game_once() {
    let Some(db) = Db::postgres("workers") else { return };
    three_workers(&Scratch::new("workers-pg"), &db);
}

fn three_workers(dir: &Scratch, db: &Db) {
    let [flag, value] = db.db_args();
    let on = |args: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        all.insert(1, flag.clone());
        all.insert(2, value.clone());
        all
    };
    let admin_on = |args: &[&str]| {
        let all = on(args);
        admin(&all.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let tokens: Vec<String> =
        (1..=3).map(|k| token_of(&admin_on(&["add-worker", &format!("w{k}")]))).collect();
    admin_on(&["add-bot", "--author", "organiser", "--name", "rust-sample", "--hosted"]);
    let dup = Command::new(arena_bin())
        .arg("admin")
        .args(on(&["add-bot", "--author", "x", "--name", "rust-sample", "--hosted"]))
        .args(["--version", "2"])
        .output()
        .unwrap();
    assert!(!dup.status.success(), "a second hosted entrant of one name is refused");
    let listed = admin_on(&["list"]);
    assert!(listed.lines().any(|l| l.contains("rust-sample") && l.ends_with("hosted")), "{listed}");
    let flags = ["--work", "--answer-ms", "200", "--lease-ttl-ms", "2000", "--work-deals", "6"];
    let (mut server, web) = serve(dir, db, &flags);
    let bot = bot_bin();
    // Worker 3 reads its token from a file.
    std::fs::write(dir.join("w3.token"), format!("{}\n", tokens[2])).unwrap();
    let w3_token = format!("@{}", dir.join("w3.token").display());
    let mut workers: Vec<Option<Proc>> = [&tokens[0], &tokens[1], &w3_token]
        .iter()
        .enumerate()
        .map(|(k, t)| Some(worker(&web, t, &dir.join(&format!("w{}.log", k + 1)), &bot)))
        .collect();
    let store = db.open();
    let ids: Vec<i64> = rt().block_on(store.workers()).unwrap().iter().map(|w| w.id).collect();
    until(Duration::from_secs(120), "twelve games done", || done(&store) >= 12);

    // Worker 2 is killed holding a lease, which expires (it is started again if a result it had
    // on the wire finished the lease instead).
    let mut killed = None;
    for attempt in 0..5 {
        killed = catch_holding(&store, ids[1], workers[1].as_ref().unwrap(), 9);
        workers[1].take();
        if killed.is_some() {
            break;
        }
        let log = dir.join(&format!("w2-{attempt}.log"));
        workers[1] = Some(worker(&web, &tokens[1], &log, &bot));
    }
    let killed = killed.expect("worker 2 was killed holding a lease");
    // Worker 3 is stopped holding a lease, until the lease expires (continued and stopped again
    // if the lease was done).
    let w3 = workers[2].as_ref().unwrap();
    let mut stopped = None;
    for _ in 0..5 {
        stopped = catch_holding(&store, ids[2], w3, 19);
        if stopped.is_some() {
            break;
        }
        w3.signal(18);
    }
    let stopped = stopped.expect("worker 3 was stopped holding a lease");
    let gone_before = metric(&web, "aluette_arena_errors_total{kind=\"lease_gone\"}")
        + metric(&web, "aluette_arena_errors_total{kind=\"result_refused\"}");
    w3.signal(18);
    until(Duration::from_secs(30), "the stopped worker's late posts refused", || {
        let refused = metric(&web, "aluette_arena_errors_total{kind=\"lease_gone\"}")
            + metric(&web, "aluette_arena_errors_total{kind=\"result_refused\"}");
        refused > gone_before
    });
    let after_stop = done(&store);
    until(Duration::from_secs(120), "twelve more games done", || done(&store) >= after_stop + 12);

    // The API's refusals, over real HTTP.
    let void = lease_games(&store, stopped)
        .into_iter()
        .find(|g| g.status == GameStatus::Void)
        .expect("the stopped lease lost a game");
    let late = format!(r#"{{"lease":{stopped},"game":{},"record":"x"}}"#, void.id);
    let (status, why) = http(&web, "POST", "/api/work/result", Some(&tokens[2]), &late);
    assert_eq!(status, 409, "a late result for a voided game is refused: {why}");
    let (status, _) = http(&web, "POST", "/api/work/result", Some(&tokens[0]), &late);
    assert_eq!(status, 403, "a worker cannot post for another's lease");
    let leases = rt().block_on(store.leases()).unwrap();
    let done_lease = leases
        .iter()
        .find(|l| l.worker == ids[0] && l.state == LeaseState::Done)
        .expect("a done lease of worker 1");
    let counted = lease_games(&store, done_lease.id)
        .into_iter()
        .find(|g| g.status == GameStatus::Done)
        .unwrap();
    let record = std::fs::read_to_string(counted.record_path.as_deref().unwrap()).unwrap();
    let body = serde_json::json!({"lease": done_lease.id, "game": counted.id, "record": record});
    let (status, answer) =
        http(&web, "POST", "/api/work/result", Some(&tokens[0]), &body.to_string());
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("\"already_counted\""), "a double post counts once: {answer}");
    assert_eq!(rt().block_on(store.game(counted.id)).unwrap().unwrap(), counted);
    let other = format!(r#"{{"lease":{},"game":{},"record":"x"}}"#, done_lease.id, void.id);
    let (status, _) = http(&web, "POST", "/api/work/result", Some(&tokens[0]), &other);
    assert_eq!(status, 403, "a worker cannot post for a game its lease does not hold");
    let (status, _) = http(&web, "POST", "/api/work/lease", Some("0123456789abcdef"), "{}");
    assert_eq!(status, 401);
    let (status, _) = http(&web, "POST", "/api/work/lease", Some(&tokens[0]), r#"{"slots":1}"#);
    assert_eq!(status, 400, "a body is decoded strictly");
    let refused = Command::new(referee_bin())
        .args(["worker", "--server", &format!("http://{web}"), "--token", "feedfacefeedface"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("refuses the token"));
    assert!(metric(&web, "aluette_arena_games_total{where=\"worker\"}") >= 24.0);
    assert!(metric(&web, "aluette_arena_leases_expired_total") >= 2.0);
    assert!(metric(&web, "aluette_arena_games_per_second") > 0.0);
    // A stranger polling /metrics past a page's rate is told to wait (it runs queries). Eight
    // readers at once, until one is refused: one alone on a loaded machine can read more slowly
    // than the bucket refills (10 a second past a burst of 60), and is rightly never refused
    // (80 reads in turn were not, beside the ladders and a busy core).
    let refused = AtomicBool::new(false);
    let reads = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let started = Instant::now();
                while !refused.load(Relaxed)
                    && reads.fetch_add(1, Relaxed) < 4000
                    && started.elapsed() < Duration::from_secs(60)
                {
                    if http(&web, "GET", "/metrics", None, "").0 == 429 {
                        refused.store(true, Relaxed);
                    }
                }
            });
        }
    });
    assert!(refused.into_inner(), "{} reads of /metrics, never refused", reads.into_inner());

    // The workers drain (their games in hand are posted), then the server stops.
    for w in workers.iter_mut().flatten() {
        w.signal(2);
        assert!(w.wait_for(Duration::from_secs(90)).success(), "a worker ends cleanly on SIGINT");
    }
    // Draining, they finished and posted every game in hand: none of their leases is open.
    let leases = rt().block_on(store.leases()).unwrap();
    let open: Vec<_> = leases.iter().filter(|l| l.state == LeaseState::Open).collect();
    assert!(open.is_empty(), "leases left open by workers that drained: {open:?}");
    server.signal(2);
    assert!(server.wait_for(Duration::from_secs(60)).success());

    let all = games(&store);
    assert!(
        all.iter().all(|g| matches!(g.status, GameStatus::Done | GameStatus::Void)),
        "every game is done or void"
    );
    for lease in [killed, stopped] {
        let held = lease_games(&store, lease);
        assert!(held.iter().any(|g| g.status == GameStatus::Void), "lease {lease} lost games");
        // Its foursomes were dealt again: a later deal seats the same tables.
        let seated: Vec<_> = held.iter().map(|g| (g.seats, g.orientation)).collect();
        let deal = held[0].deal;
        let again = all
            .iter()
            .filter(|g| g.deal > deal)
            .any(|g| seated.contains(&(g.seats, g.orientation)));
        assert!(again, "lease {lease}'s foursomes were dealt again");
    }
    let hosted = rt().block_on(store.hosted_bots()).unwrap();
    assert!(
        all.iter()
            .any(|g| g.status == GameStatus::Done && g.seats.iter().any(|b| hosted.contains(b))),
        "the hosted entrant played"
    );
    for g in all.iter().filter(|g| g.status == GameStatus::Done) {
        let path = g.record_path.as_deref().unwrap();
        let out = Command::new(referee_bin()).args(["replay", "--quiet", path]).output().unwrap();
        assert!(out.status.success(), "game {}: {}", g.id, String::from_utf8_lossy(&out.stderr));
    }
    eprintln!(
        "{} games, {} done, {} void",
        all.len(),
        all.iter().filter(|g| g.status == GameStatus::Done).count(),
        all.iter().filter(|g| g.status == GameStatus::Void).count()
    );
    check_stored(&store, &all);
    rt().block_on(store.close());
}

#[test]
fn a_bad_flag_is_one_line_and_exit_two() {
    for args in [
        &["worker", "--server", "https://h:1", "--token", "t"][..],
        &["worker", "--server", "http://h:1", "--token", "t", "--slots", "0"],
        &["worker", "--server", "http://h:1", "--token", "t", "--bot", "no-program"],
        &["worker", "--server", "http://h:1"],
    ] {
        let out = Command::new(referee_bin()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}
