//! Two servers on one database (issue 28): the first holds the scheduler's lock and plans every
//! deal; the second waits as a standby, serving its pages and API, seating nobody and voiding
//! nothing. Killed with SIGKILL, the first lets the second win the lock: it voids the dead
//! one's games in flight, opens its door and plans on, and what is stored still checks out.
//! On one SQLite file (a lock file beside it) and on one PostgreSQL database (an advisory lock).

#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::store::{GameRow, GameStatus, Store};
use common::{Db, Scratch, check_stored, rt, start};
use std::io::{Read, Write};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The first line of `lines` starting with `prefix`, the rest of it; fails after `limit`.
fn line_after(lines: &Receiver<String>, prefix: &str, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => {
                if let Some(rest) = line.strip_prefix(prefix) {
                    return rest.trim().to_string();
                }
            }
            Err(e) => panic!("no line {prefix:?} within {limit:?}: {e}"),
        }
    }
}

fn games(store: &Store) -> Vec<GameRow> {
    rt().block_on(store.recent_games(u32::MAX)).unwrap()
}

/// Waits until `n` games whose records are under `records` are done.
fn until_done_by(store: &Store, records: &str, n: usize) -> Vec<GameRow> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let all = games(store);
        let done = all.iter().filter(|g| g.status == GameStatus::Done && by(g, records)).count();
        if done >= n {
            return all;
        }
        assert!(Instant::now() < deadline, "only {done} of {n} games done by {records}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether `g`'s record is in the folder `records` (each server writes to its own).
fn by(g: &GameRow, records: &str) -> bool {
    g.record_path.as_deref().is_some_and(|p| p.contains(&format!("/{records}/")))
}

/// A plain HTTP GET of `path` from the web server at `addr`; the status line.
fn get(addr: &str, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

fn two_servers(dir: &Scratch, db: &Db) {
    // The house alone fills the tables: eight entrants, two tables a deal.
    let flags = ["--answer-ms", "300", "--deals-at-once", "2", "--qualifying-games", "0"];
    let (first, first_out) = start(dir, db, "records-a", "a", &flags);
    line_after(&first_out, "arena: bots connect to ", Duration::from_secs(60));
    let mut flags_b = flags.to_vec();
    flags_b.extend(["--web", "127.0.0.1:0"]);
    let (mut second, second_out) = start(dir, db, "records-b", "b", &flags_b);
    line_after(&second_out, "arena: standby: ", Duration::from_secs(60));
    let web = line_after(&second_out, "arena: web pages at http://", Duration::from_secs(60));
    let web = web.trim_end_matches('/').to_string();
    let store = db.open();

    let before = until_done_by(&store, "records-a", 6);
    // The scheduler took a turn, and the standby none (it would fence the scheduler off).
    assert_eq!(rt().block_on(store.scheduling_turn()).unwrap(), 1);
    // The standby's pages and API answer; it planned nothing and voided nothing.
    assert_eq!(get(&web, "/api/leaderboard"), "HTTP/1.1 200 OK");
    assert_eq!(get(&web, "/ws/bot"), "HTTP/1.1 404 Not Found", "a standby carries no bot");
    assert!(before.iter().all(|g| by(g, "records-a")), "the standby seated a table");
    assert!(before.iter().all(|g| g.status != GameStatus::Void), "a game was voided");
    for line in second_out.try_iter() {
        assert!(!line.starts_with("arena: bots connect to"), "the standby opened a door: {line}");
    }

    first.signal(9);
    drop(first);
    let after_kill = games(&store);
    let in_flight: Vec<i64> =
        after_kill.iter().filter(|g| g.status == GameStatus::Running).map(|g| g.id).collect();
    assert!(!in_flight.is_empty(), "the kill found no table in play: nothing was tested");

    // The standby takes over within a few of its tries, and plays on.
    line_after(&second_out, "arena: bots connect to ", Duration::from_secs(30));
    // The new scheduler's turn, taken before it voided the games in flight.
    assert_eq!(rt().block_on(store.scheduling_turn()).unwrap(), 2);
    let after = until_done_by(&store, "records-b", 6);
    for id in &in_flight {
        let g = after.iter().find(|g| g.id == *id).unwrap();
        assert_eq!(g.status, GameStatus::Void, "game {id}, in flight at the kill, is void");
        assert_eq!(g.void_reason.as_deref(), Some("server restarted"));
    }
    for g in before.iter().filter(|g| g.status == GameStatus::Done) {
        assert!(after.contains(g), "game {} was lost or changed", g.id);
    }
    let first_of_b = after.iter().filter(|g| by(g, "records-b")).map(|g| g.id).min().unwrap();
    assert!(
        after.iter().filter(|g| g.id < first_of_b).all(|g| by(g, "records-a")),
        "both servers planned"
    );
    assert_eq!(get(&web, "/api/leaderboard"), "HTTP/1.1 200 OK", "the pages after the takeover");
    assert_ne!(get(&web, "/ws/bot"), "HTTP/1.1 404 Not Found", "the scheduler carries bots");
    second.signal(2);
    assert!(second.wait_for(Duration::from_secs(60)).success());
    check_stored(&store, &games(&store));
    rt().block_on(store.close());
}

#[test]
fn on_one_sqlite_file_one_server_schedules_and_the_standby_takes_over_a_kill() {
    let dir = Scratch::new("election");
    two_servers(&dir, &Db::sqlite(&dir));
}

#[test]
fn on_one_postgres_database_one_server_schedules_and_the_standby_takes_over_a_kill() {
    let Some(db) = Db::postgres("election") else { return };
    two_servers(&Scratch::new("election-pg"), &db);
}

#[test]
fn a_postgres_scheduler_whose_session_is_cut_stops_and_the_standby_takes_over() {
    let Some(db) = Db::postgres("election-cut") else { return };
    let dir = Scratch::new("election-cut");
    let flags = ["--answer-ms", "300", "--deals-at-once", "2", "--qualifying-games", "0"];
    let (mut first, first_out) = start(&dir, &db, "records-a", "a", &flags);
    line_after(&first_out, "arena: bots connect to ", Duration::from_secs(60));
    let (mut second, second_out) = start(&dir, &db, "records-b", "b", &flags);
    line_after(&second_out, "arena: standby: ", Duration::from_secs(60));
    // The session holding the advisory lock is ended from outside, as a failover or a
    // network cut would end it.
    let Db::Postgres(pg) = &db else { unreachable!() };
    let cut: i64 = rt().block_on(async {
        use sqlx::Connection as _;
        let mut conn = sqlx::PgConnection::connect(&pg.url).await.unwrap();
        // pg_locks shows the whole cluster's locks: only this database's are the test's.
        let sql = "SELECT COUNT(pg_terminate_backend(l.pid)) FROM pg_locks l \
                   JOIN pg_database d ON d.oid = l.database \
                   WHERE l.locktype = 'advisory' AND d.datname = current_database()";
        sqlx::query_scalar(sql).fetch_one(&mut conn).await.unwrap()
    });
    assert_eq!(cut, 1, "one session holds the lock");
    let status = first.wait_for(Duration::from_secs(30));
    assert!(!status.success(), "the scheduler that lost its lock went on");
    let log = std::fs::read_to_string(dir.join("a.stderr.log")).unwrap();
    assert!(log.contains("lost the scheduler's lock"), "{log}");
    line_after(&second_out, "arena: bots connect to ", Duration::from_secs(30));
    let store = db.open();
    until_done_by(&store, "records-b", 2);
    second.signal(2);
    assert!(second.wait_for(Duration::from_secs(60)).success());
    // Never both at once: every game the first planned comes before every game of the second.
    let all = games(&store);
    let last_of_a = all.iter().filter(|g| by(g, "records-a")).map(|g| g.id).max().unwrap();
    let first_of_b = all.iter().filter(|g| by(g, "records-b")).map(|g| g.id).min().unwrap();
    assert!(last_of_a < first_of_b, "both servers planned: {last_of_a} >= {first_of_b}");
    check_stored(&store, &all);
    rt().block_on(store.close());
}
