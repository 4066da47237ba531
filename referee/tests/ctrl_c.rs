//! Ctrl-C on a match, with real bot processes: the first stops starting games and lets the
//! running one finish; the second aborts it with a record closed as `aborted`. Either way the
//! referee says so, exits non-zero, and leaves no bot process behind.
#![allow(clippy::disallowed_methods)] // These tests start the referee on purpose.

mod common;

use common::{alive, children};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A correct bot that thinks for a while, so a game is still running when Ctrl-C comes.
const SLOW_BOT: &str = r#"
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    a = None
    if t == "hello": a = {"type": "hello", "id": m["id"], "name": "slow", "version": "1"}
    elif t == "opening":
        a = {"type": "opening", "id": m["id"]}
        if m["vote"]: a["accept"] = False
    elif t == "discard": a = {"type": "discard", "id": m["id"], "cards": m["hand"][:6]}
    elif t == "play": a = {"type": "play", "id": m["id"], "card": m["hand"][0]}
    elif t == "bye": break
    if a:
        time.sleep(0.02)
        print(json.dumps(a), flush=True)
"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aluette-ctrlc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("slow.py"), SLOW_BOT).unwrap();
    dir
}

fn records(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("records"))
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn last_line(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// Starts a 20-game match of four slow bots, waits until the first game is under way, sends
/// SIGINT `times` times, and returns the exit status, stderr, the bots' pids and the folder.
fn interrupt(name: &str, times: usize) -> (std::process::ExitStatus, String, Vec<u32>, PathBuf) {
    let dir = scratch(name);
    let bot = format!("python3 {}", dir.join("slow.py").display());
    let child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["match", "--games", "20", "--seed", "3", "--handshake-ms", "10000", "--bot", &bot])
        .arg("--records")
        .arg(dir.join("records"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // The first deal line of game 1 means every bot is up and a game is running.
    let first = dir.join("records/game-000001.jsonl");
    while !std::fs::read_to_string(&first).is_ok_and(|t| t.contains("\"type\":\"deal\"")) {
        assert!(start.elapsed() < Duration::from_secs(30), "the match never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let bots = children(child.id());
    assert_eq!(bots.len(), 4, "four bot processes run under the referee");
    for _ in 0..times {
        kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(60));
    (output.status, String::from_utf8_lossy(&output.stderr).into_owned(), bots, dir)
}

fn assert_no_bot_left(bots: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while bots.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < deadline,
            "bot processes left: {:?}",
            bots.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn first_ctrl_c_finishes_the_running_game_and_starts_no_other() {
    let (status, stderr, bots, dir) = interrupt("drain", 1);
    assert!(!status.success(), "a match cut short exits non-zero");
    assert!(stderr.contains("stopped by Ctrl-C"), "{stderr}");
    let recs = records(&dir);
    assert!(!recs.is_empty() && recs.len() < 20, "{} records", recs.len());
    for r in &recs {
        // The running game was allowed to finish: every record is complete.
        assert_eq!(last_line(r)["status"], "complete", "{}", r.display());
    }
    assert_no_bot_left(&bots);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn second_ctrl_c_aborts_the_running_game() {
    let (status, stderr, bots, dir) = interrupt("abort", 2);
    assert!(!status.success());
    assert!(stderr.contains("aborting"), "{stderr}");
    let recs = records(&dir);
    let last = recs.last().unwrap();
    assert_eq!(
        last_line(last)["status"],
        "aborted",
        "the running game's record is closed as aborted"
    );
    // An aborted record is still consistent with the rules as far as it goes.
    let replay = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["replay", "--quiet"])
        .arg(last)
        .status()
        .unwrap();
    assert!(replay.success());
    assert_no_bot_left(&bots);
    std::fs::remove_dir_all(dir).unwrap();
}
