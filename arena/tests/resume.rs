//! Reconnecting resumes the game (issue 27; spec/arena.md section 8, spec/protocol.md section
//! 9.2), through the arena itself: a bot that lists `resume` drops its connection mid-game,
//! connects again with its token, takes its seat back where it left off, finishes that game with
//! every answer its own and no fault, and goes on being seated in the games after it.
//! The client is the referee's own resuming test bot, referee/tests/tcp_clients/resume_bot.py.

#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::store::{GameStatus, Store};
use common::{Proc, Scratch, add_bot, check_stored, rt, serve};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_bot_that_drops_mid_game_takes_its_seat_back_and_plays_on() {
    let dir = Scratch::new("resume");
    let db = dir.join("arena.db");
    let token = add_bot(&db, "author", "resumer", 1);
    // Two house games to qualify: the resumed one and one after it, both against the house.
    let flags = ["--answer-ms", "2000", "--deals-at-once", "1", "--qualifying-games", "2"];
    let (mut server, addr) = serve(&dir, &flags);
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../referee/tests/tcp_clients/resume_bot.py");
    let client = Command::new("python3")
        .arg(&script)
        .args([addr.as_str(), token.as_str(), "5", "0.2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("resume_bot.stderr.log")).unwrap())
        .spawn()
        .expect("python3 runs");
    let client = Proc(client);
    let store = rt().block_on(Store::open(&db)).unwrap();
    let me = rt().block_on(store.bots()).unwrap().into_iter().find(|b| !b.house).unwrap().id;
    let mine = || -> Vec<_> {
        let games = rt().block_on(store.recent_games(u32::MAX)).unwrap();
        games.into_iter().filter(|g| g.seats.contains(&me)).collect()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while mine().iter().filter(|g| g.status == GameStatus::Done).count() < 2 {
        assert!(Instant::now() < deadline, "the resuming bot did not finish two games");
        std::thread::sleep(Duration::from_millis(200));
    }
    server.signal(2);
    assert!(server.wait_for(Duration::from_secs(60)).success(), "the arena stops cleanly");

    // The client ends when the arena says goodbye, and reports what it was sent.
    let mut client = client;
    let out = client.0.stdout.take().unwrap();
    assert!(client.wait_for(Duration::from_secs(30)).success(), "resume_bot.py failed");
    let report: Value = serde_json::from_reader(out).expect("resume_bot.py's report");
    let first = &report["first"];
    assert_eq!(first["type"], "resume", "after the second hello answer comes resume: {report}");
    let replayed = report["replayed"].as_array().unwrap();
    assert_eq!(first["replay"], replayed.len(), "{report}");
    assert_eq!(replayed.first().and_then(Value::as_str), Some("game"), "{report}");
    let (open, again) = (&report["left_open"], &report["answered_first"]);
    assert_eq!((&again["type"], &again["id"]), (&open["type"], &open["id"]), "{report}");
    assert_eq!(report["bye"], "the arena is closing", "{report}");

    // The resumed game: done, no fault for the bot's seat, every one of its answers its own.
    let games = mine();
    let resumed = games.iter().filter(|g| g.status == GameStatus::Done).min_by_key(|g| g.id);
    let resumed = resumed.expect("a finished game");
    let seat = resumed.seats.iter().position(|&b| b == me).unwrap() as u64;
    assert_eq!(resumed.fault_seats & (1 << seat), 0, "no fault counted: {resumed:?}");
    let record = std::fs::read_to_string(resumed.record_path.as_deref().unwrap()).unwrap();
    let lines: Vec<Value> = record.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let faults: Vec<&Value> =
        lines.iter().filter(|l| l["type"] == "fault" && l["seat"] == seat).collect();
    assert!(faults.is_empty(), "no `disconnected` for the resumed seat: {faults:?}");
    let answers: Vec<&Value> = lines
        .iter()
        .filter(|l| matches!(l["type"].as_str(), Some("opening" | "vote" | "discard" | "play")))
        .filter(|l| l["seat"] == seat)
        .collect();
    assert!(answers.len() > 6, "{} answers", answers.len());
    assert!(answers.iter().all(|a| a["auto"] != true), "every answer the bot's own");
    let sixth: Value = serde_json::from_str(answers[5]["raw"].as_str().unwrap()).unwrap();
    assert_eq!(sixth["id"], open["id"], "its sixth answer is the question it left open");
    // Seated again after it, on the same connection.
    assert!(games.iter().any(|g| g.id > resumed.id && g.status == GameStatus::Done));
    check_stored(&store, &rt().block_on(store.recent_games(u32::MAX)).unwrap());
    rt().block_on(store.close());
}
