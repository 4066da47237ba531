//! The referee's promises when things go wrong around it, checked on the real binary with real
//! bot processes: a SIGKILL of the referee mid-game leaves a record of whole lines that `replay`
//! reports as cut short and no bot process behind (PR_SET_PDEATHSIG); a bot that allocates
//! without limit under `--bot-memory-mib` dies, is recorded as a fault and the game completes;
//! a bot that floods its stderr gets a log capped at `--stderr-cap` plus one note.

use crate::harness::{
    Proc, RANDOM, Scratch, children, match_args, py_random, referee, referee_cmd,
};
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A referee run longer than this is hung, not slow.
const HANG: Duration = Duration::from_secs(60);
/// How long bots may take to die once the referee is gone.
const REAP: Duration = Duration::from_secs(5);

/// A record's lines as JSON; every line must be complete.
fn record_lines(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.ends_with(b"\n"), "{} ends inside a line", path.display());
    let text = std::str::from_utf8(&bytes).expect("a record is UTF-8");
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("{} line {}: not JSON ({e}): {l}", path.display(), i + 1)
            })
        })
        .collect()
}

fn count(lines: &[Value], kind: &str) -> usize {
    lines.iter().filter(|l| l["type"] == kind).count()
}

fn kill_leftovers(procs: &[Proc]) {
    procs.iter().for_each(Proc::kill);
}

/// Waits until the record of game 1 holds at least `deals` complete deal lines.
fn wait_for_deals(child: &mut Child, record: &Path, deals: usize) -> Vec<Value> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the referee ended ({status}) before it could be killed mid-game");
        }
        if let Ok(bytes) = std::fs::read(record)
            && bytes.ends_with(b"\n")
        {
            let text = String::from_utf8_lossy(&bytes);
            let n = text.lines().filter(|l| l.starts_with(r#"{"type":"deal""#)).count();
            if n >= deals {
                let lines = record_lines(record);
                assert_eq!(count(&lines, "footer"), 0, "the game ended before the kill");
                return lines;
            }
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("no {deals} deals recorded within {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_killed_referee_leaves_whole_lines_a_cut_short_record_and_no_bots() {
    let s = Scratch::new("sigkill");
    let bot = py_random();
    let records = s.records();
    // Long games: the kill must land in the middle of game 1, whatever the machine's speed.
    let mut child = referee_cmd(&[])
        .args(["match", "--bot", &bot, "--games", "3", "--deals", "400", "--seed", "11"])
        .arg("--records")
        .arg(&records)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let referee_pid = child.id();
    let before = wait_for_deals(&mut child, &s.record(1), 3);
    assert_eq!(count(&before, "header"), 1);
    // The bots are the referee's children; note them before the kill, which reparents them.
    let bots: Vec<Proc> = children(referee_pid);
    assert_eq!(bots.len(), 4, "four bot processes, one per seat: {bots:?}");
    child.kill().unwrap(); // SIGKILL: no handler, no flush, no cleanup.
    let status = child.wait().unwrap();
    assert!(!status.success());

    // No bot outlives the referee: the kernel's parent-death signal kills them.
    let started = Instant::now();
    while bots.iter().any(Proc::running) && started.elapsed() < REAP {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<&Proc> = bots.iter().filter(|p| p.running()).collect();
    kill_leftovers(&bots);
    assert!(survivors.is_empty(), "bots outlived the referee: {survivors:?}");

    // Whole lines only, every one JSON, and no footer; at least what was there before the kill.
    let lines = record_lines(&s.record(1));
    assert!(lines.len() >= before.len());
    assert_eq!(lines[..before.len()], before[..]);
    assert_eq!(count(&lines, "footer"), 0);
    assert!(!s.record(2).exists(), "game 2 never started");

    // Replay says plainly that the record was cut short, and fails.
    let out = referee(&["replay", "--quiet", s.record(1).to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "replay of a cut record succeeded: {stderr}");
    assert!(stderr.contains("cut short"), "replay does not say the record is cut short: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line on stderr: {stderr}");
}

/// A bot for the tests below: plays the first card of its hand, refuses the chant, discards its
/// first six cards; MODE `hog` allocates without limit at its first play question (capped at
/// 2 GiB, exit code 42, so a missing limit fails the test instead of exhausting the machine);
/// MODE `flood` writes exactly FLOOD bytes to stderr at its hello, then plays normally.
const BOT: &str = r#"
import json, sys
MODE, FLOOD = sys.argv[1], int(sys.argv[2])

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    msg = json.loads(line)
    kind, qid = msg.get("type"), msg.get("id")
    if kind == "hello":
        if MODE == "flood":
            chunk = "e" * 999 + "\n"
            for _ in range(FLOOD // 1000):
                sys.stderr.write(chunk)
            sys.stderr.flush()
        send({"type": "hello", "id": qid, "name": "kill-test-" + MODE, "version": "1"})
    elif kind == "opening":
        answer = {"type": "opening", "id": qid}
        if msg.get("vote"):
            answer["accept"] = False
        send(answer)
    elif kind == "discard":
        send({"type": "discard", "id": qid, "cards": msg["hand"][:6]})
    elif kind == "play":
        if MODE == "hog":
            hoard = []
            for _ in range(2048):
                hoard.append(bytearray(1 << 20))
            sys.exit(42)
        send({"type": "play", "id": qid, "card": msg["hand"][0]})
    elif kind == "bye":
        break
"#;

fn test_bot(s: &Scratch, mode: &str, flood: usize) -> String {
    let path = s.join("bot.py");
    std::fs::write(&path, BOT).unwrap();
    format!("python3 '{}' {mode} {flood}", path.display())
}

#[test]
fn a_bot_over_its_memory_limit_dies_is_recorded_and_the_game_completes() {
    let s = Scratch::new("memory");
    let hog = test_bot(&s, "hog", 0);
    let records = s.records();
    let flags = "--deals 2 --seed 3 --bot-memory-mib 64";
    let out = referee(&match_args(flags, &records, &[&hog, RANDOM, RANDOM, RANDOM]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = record_lines(&s.record(1));
    let footer = lines.last().unwrap();
    assert_eq!(footer["type"], "footer");
    assert_eq!(footer["status"], "complete");
    assert_eq!(footer["deals"], 2);
    let faults: Vec<&Value> = lines.iter().filter(|l| l["type"] == "fault").collect();
    assert!(!faults.is_empty(), "the dying bot left no fault");
    let fault = faults[0];
    assert_eq!(fault["seat"], 0, "{fault}");
    assert!(matches!(fault["kind"].as_str(), Some("exited" | "closed_stdout")), "{fault}");
    let detail = fault["detail"].as_str().unwrap_or("");
    assert!(!detail.contains("exit code 42"), "the memory limit was not applied: {fault}");
    // The rest of the game was played for it, and the record replays.
    assert!(faults.iter().all(|f| f["seat"] == 0), "{faults:?}");
    let log = std::fs::read_to_string(s.records().join("player0.stderr.log")).unwrap_or_default();
    assert!(log.contains("MemoryError") || detail.contains("killed"), "{detail}\n{log}");
    let replay = referee(&["replay", "--quiet", s.record(1).to_str().unwrap()]);
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
}

#[test]
fn a_stderr_flood_is_capped_with_one_note() {
    let s = Scratch::new("stderr");
    const FLOOD: usize = 300_000;
    const CAP: usize = 10_000;
    let flood = test_bot(&s, "flood", FLOOD);
    let records = s.records();
    let flags = format!("--deals 1 --seed 4 --stderr-cap {CAP}");
    let out = referee(&match_args(&flags, &records, &[&flood, RANDOM]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = record_lines(&s.record(1));
    assert_eq!(lines.last().unwrap()["status"], "complete");
    assert_eq!(count(&lines, "fault"), 0, "writing to stderr is no fault");
    // `--bot` twice: the flooding bot plays seats 0 and 2, as players 0 and 2.
    for player in [0, 2] {
        let log = std::fs::read(s.records().join(format!("player{player}.stderr.log"))).unwrap();
        let note = format!(
            "\n[referee: stderr capped at {CAP} bytes; {} more bytes dropped]\n",
            FLOOD - CAP
        );
        assert_eq!(log.len(), CAP + note.len(), "player {player}: {} bytes", log.len());
        assert!(
            log[..CAP].iter().all(|&b| b == b'e' || b == b'\n'),
            "the kept bytes are the bot's"
        );
        assert_eq!(String::from_utf8_lossy(&log[CAP..]), note);
    }
}
