//! Ctrl-C on a match, with real bot processes: the first stops starting games and lets the
//! running one finish; the second aborts it with a record closed as `aborted`. Either way the
//! referee says so, exits non-zero, and leaves no bot process behind.

use crate::harness::{Proc, Scratch, assert_replays, children, reaped, record_files, referee_cmd};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use std::io::BufRead as _;
use std::path::Path;
use std::process::Stdio;
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

fn last_line(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// Starts a 20-game match of four slow bots, waits until the first game is under way, sends
/// SIGINT `times` times, and returns the exit status, stderr, the bots' pids and the folder.
fn interrupt(dir: &Scratch, times: usize) -> (std::process::ExitStatus, String, Vec<Proc>) {
    let bot = format!("python3 {}", dir.write("slow.py", SLOW_BOT).display());
    let child = referee_cmd(&["match", "--games", "20", "--seed", "3", "--handshake-ms", "10000"])
        .args(["--bot", &bot])
        .arg("--records")
        .arg(dir.records())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // The first deal line of game 1 means every bot is up and a game is running.
    let first = dir.record(1);
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
    (output.status, String::from_utf8_lossy(&output.stderr).into_owned(), bots)
}

fn assert_no_bot_left(bots: &[Proc]) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while bots.iter().any(Proc::running) {
        assert!(
            Instant::now() < deadline,
            "bot processes left: {:?}",
            bots.iter().filter(|p| p.running()).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn first_ctrl_c_finishes_the_running_game_and_starts_no_other() {
    let dir = Scratch::new("drain");
    let (status, stderr, bots) = interrupt(&dir, 1);
    assert!(!status.success(), "a match cut short exits non-zero");
    assert!(stderr.contains("stopped by Ctrl-C"), "{stderr}");
    let recs = record_files(&dir.records());
    assert!(!recs.is_empty() && recs.len() < 20, "{} records", recs.len());
    for r in &recs {
        // The running game was allowed to finish: every record is complete.
        assert_eq!(last_line(r)["status"], "complete", "{}", r.display());
    }
    assert_no_bot_left(&bots);
}

#[test]
fn second_ctrl_c_aborts_the_running_game() {
    let dir = Scratch::new("abort");
    let (status, stderr, bots) = interrupt(&dir, 2);
    assert!(!status.success());
    assert!(stderr.contains("aborting"), "{stderr}");
    let recs = record_files(&dir.records());
    let last = recs.last().unwrap();
    assert_eq!(
        last_line(last)["status"],
        "aborted",
        "the running game's record is closed as aborted"
    );
    // An aborted record is still consistent with the rules as far as it goes.
    assert_replays(last);
    assert_no_bot_left(&bots);
}

/// SIGTERM (or Ctrl-C) while the seats still wait for their bots ends the match there: a TCP
/// seat waiting for its bot, a person's page that never came and a program stuck in its
/// handshake, each with a minute to go. The referee says it stopped, plays no game, exits
/// non-zero and leaves the stuck program's process behind no more than a finished match would.
/// It used to wait out the whole minute.
#[test]
fn a_stop_while_the_seats_wait_for_their_bots_ends_the_match() {
    let dir = Scratch::new("waiting");
    let stuck = crate::harness::Scratch::hostile(&dir, "hang_handshake");
    let mut child = referee_cmd(&["match", "--games", "3", "--connect-wait-ms", "60000"])
        .args(["--handshake-ms", "60000", "--bot", "tcp", "--bot", "human", "--bot", &stuck])
        .args(["--bot", "builtin:random", "--records"])
        .arg(dir.records())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut said = String::new();
    while !said.contains("(you): open") {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "the referee ended early: {said}");
        said.push_str(&line);
    }
    // The stuck program has been started and sent its hello.
    let start = Instant::now();
    while crate::harness::pids_in(&dir.pidfile()).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "the stuck bot never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(50), "the referee waited out its seats");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a match stopped before its games exits non-zero");
    assert!(stderr.contains("stopped by Ctrl-C or SIGTERM: 0 of 3 games"), "{stderr}");
    assert!(record_files(&dir.records()).is_empty(), "no game was played");
    reaped(&dir.pidfile(), &["hang_handshake"]);
}
