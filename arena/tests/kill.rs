//! kill -9 at any moment (issue 27): the server is killed while tables play, started again on
//! the same database, and run on. Nothing it had stored is lost, the games that were in flight
//! are void and never counted, the deals go on with fresh seeds, and what is stored still
//! checks out (records replay, each deal counted once, boards equal to their recompute). On
//! SQLite and on PostgreSQL (issue 28).

#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::store::{GameStatus, Store};
use common::{Db, Proc, Scratch, add_bot, bot, check_stored, rt, serve_on};
use std::time::{Duration, Instant};

/// Waits until at least `n` games are done (or fails after two minutes).
fn until_done(store: &Store, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let games = rt().block_on(store.recent_games(u32::MAX)).unwrap();
        let done = games.iter().filter(|g| g.status == GameStatus::Done).count();
        if done >= n {
            return;
        }
        assert!(Instant::now() < deadline, "only {done} of {n} games done");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn bots(addr: &str, tokens: &[String], dir: &Scratch, round: u32) -> Vec<Proc> {
    tokens
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let log = dir.join(&format!("bot{k}-{round}.stderr.log"));
            bot(addr, t, &format!("bot{k}"), &["--random"], &log)
        })
        .collect()
}

#[test]
fn a_server_killed_mid_game_loses_nothing_and_counts_nothing_twice() {
    let dir = Scratch::new("kill");
    let db = Db::sqlite(&dir);
    killed_mid_game(&dir, &db);
}

#[test]
fn a_server_on_postgres_killed_mid_game_loses_nothing_and_counts_nothing_twice() {
    let Some(db) = Db::postgres("kill") else { return };
    killed_mid_game(&Scratch::new("kill-pg"), &db);
}

fn killed_mid_game(dir: &Scratch, db: &Db) {
    let tokens: Vec<String> =
        (0..4).map(|k| add_bot(db, &format!("author{k}"), &format!("bot{k}"), 1)).collect();
    let flags = ["--answer-ms", "300", "--deals-at-once", "4"];
    let (server, addr) = serve_on(dir, db, &flags);
    let players = bots(&addr, &tokens, dir, 1);
    let store = db.open();
    until_done(&store, 40);
    server.signal(9);
    drop(server);
    drop(players);
    let before = rt().block_on(store.recent_games(u32::MAX)).unwrap();
    let compared = rt().block_on(store.comparisons()).unwrap();
    let in_flight: Vec<i64> =
        before.iter().filter(|g| g.status == GameStatus::Running).map(|g| g.id).collect();
    assert!(!in_flight.is_empty(), "the kill found no table in play: nothing was tested");
    let done_before = before.iter().filter(|g| g.status == GameStatus::Done).count();

    let (mut server, addr) = serve_on(dir, db, &flags);
    let players = bots(&addr, &tokens, dir, 2);
    until_done(&store, done_before + 40);
    server.signal(2);
    assert!(server.wait_for(Duration::from_secs(60)).success());
    drop(players);

    let after = rt().block_on(store.recent_games(u32::MAX)).unwrap();
    for id in &in_flight {
        let g = after.iter().find(|g| g.id == *id).unwrap();
        assert_eq!(g.status, GameStatus::Void, "game {id}, in flight at the kill, is void");
    }
    for g in before.iter().filter(|g| g.status == GameStatus::Done) {
        assert!(after.contains(g), "game {} was lost or changed: {g:?}", g.id);
    }
    // Every comparison stored before the kill is still there, unchanged and first.
    let now = rt().block_on(store.comparisons()).unwrap();
    assert_eq!(&now[..compared.len()], &compared[..]);
    assert!(now.len() > compared.len(), "the restarted server compared nothing");
    // A deal that lost a table to the kill is never compared, and its seed is new to the
    // deals after it (the store refuses a seed used before).
    for id in &in_flight {
        let deal = after.iter().find(|g| g.id == *id).unwrap().deal;
        assert!(
            now.iter().all(|(_, c)| c.deal != deal),
            "deal {deal} lost a table, yet was counted"
        );
    }
    check_stored(&store, &after);
    rt().block_on(store.close());
}
