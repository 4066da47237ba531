//! The arena's pages in real headless Chromium: after the house has played (the real server),
//! the leaderboard lists the official board, a house bot's page draws its rating history, a
//! hostile bot's name shows as text (no script of its runs, no dialog opens), and a table in
//! play shows its progress through the page's own script (fetched under the strict policy,
//! polling the API) and then says it has ended. Every page loads without a policy violation.

// The driver is node, run directly: it is not a bot.
#![allow(clippy::disallowed_methods)]

mod web_common;

use aluette_arena::serve::live::{Live, LiveTable};
use aluette_arena::store::Store;
use aluette_arena::web::Options;
use aluette_arena::web::data::progress;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use web_common::*;

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

fn browser_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../referee/browser")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_shows_the_leaderboard_a_bot_and_a_live_table() {
    assert!(
        chromium().exists(),
        "{} is missing: install Debian's chromium package (.ci/run installs it)",
        chromium().display()
    );
    assert!(
        browser_dir().join("node_modules/puppeteer-core").exists(),
        "puppeteer-core is missing: run `npm ci --prefix referee/browser` (.ci/run does it)"
    );
    let dir = Scratch::new("web-browser");
    let mut before = prepare(&dir.join("arena.db")).await;
    let arena = start(&dir).await;
    before.play_unpublished(&dir.join("arena.db")).await;
    let watchable = a_viewable_game(arena.web).await;
    let house: i64 = {
        let board = get(arena.web, "/api/leaderboard").await.json();
        board["official"]["rows"][0]["bot"]["id"].as_i64().unwrap()
    };
    arena.finish().await;

    // The table in play: the first half of a real game's record, fed by hand.
    let record = std::fs::read_to_string(dir.join(&format!("records/game-{watchable}.jsonl")))
        .expect("the watched game's record");
    let lines: Vec<String> = record.lines().map(String::from).collect();
    let so_far = lines[..lines.len() / 2].to_vec();
    let (tricks, score, _) = progress(&so_far);
    assert!(tricks > 0, "half a game has tricks");
    let live = Live::default();
    live.start(LiveTable {
        game: watchable,
        deal: 1,
        table_no: 0,
        seats: [house, before.hostile, house, before.hostile],
        started_at: aluette_arena::serve::now(),
        lines: so_far,
    });
    let store = Store::open(&dir.join("arena.db")).await.unwrap();
    let web = aluette_arena::web::start("127.0.0.1:0", &Options::default(), store, live.clone())
        .await
        .unwrap();

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/web_browser.js");
    let mut child = Command::new("node")
        .arg(&script)
        .arg(browser_dir())
        .arg(format!("http://{}", web.addr()))
        .arg(house.to_string())
        .arg(before.hostile.to_string())
        .arg(watchable.to_string())
        .env("CHROMIUM", chromium())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    let stdout = child.stdout.take().unwrap();
    let report = tokio::task::spawn_blocking(move || {
        let mut last = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.contains("\"phase\":\"live\"") {
                // The page showed the table in play: now it ends.
                live.end(watchable);
            }
            last = line;
        }
        last
    })
    .await
    .unwrap();
    assert!(child.wait().unwrap().success(), "the driver failed (its stderr is above)");
    let r: Value = serde_json::from_str(&report).unwrap_or_else(|e| panic!("{e}: {report}"));

    assert!(r["statuses"].as_array().unwrap().iter().all(|s| s == 200), "{r}");
    assert_eq!(r["violations"], serde_json::json!([]), "no policy violation: {r}");
    assert_eq!(r["errors"], serde_json::json!([]), "no script error: {r}");
    assert_eq!(r["dialogs"], 0, "no injected script ran: {r}");
    let official: Vec<&str> =
        r["official"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(official.len() >= 8 && official.iter().any(|n| n.starts_with("house-")), "{r}");
    assert!(r["liveBoard"].as_u64().unwrap() >= 8, "{r}");
    assert!(r["houseName"].as_str().unwrap().starts_with("house-"), "{r}");
    assert!(r["historyPoints"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["historyBox"][0].as_u64().map(|w| w > 100), Some(true), "{r}");
    assert!(r["partners"].as_u64().unwrap() >= 1, "{r}");
    assert_eq!(r["hostileName"], HOSTILE, "the name shows as text: {r}");
    assert_eq!(r["hostileScripts"], 0, "{r}");
    assert_eq!(r["tricks"], tricks.to_string(), "{r}");
    assert_eq!(r["score"], format!("{} : {}", score[0], score[1]), "{r}");
    assert!(r["ended"].as_str().unwrap().contains("has ended"), "{r}");
}
