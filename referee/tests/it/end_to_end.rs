//! End-to-end tests of the `referee` binary: real bot programs in Python, JavaScript and Rust,
//! real processes, pipes and clocks, and the files a match leaves behind. Unit tests cover the
//! pieces with a paused clock; only these show that the pieces work together as a user runs them.

use crate::harness::{
    RANDOM, RUN_LIMIT, Scratch, built_binary, check_record, gated, js_bot, match_args, play_seat,
    py_heuristic, py_random, raw_log, record_files, referee, referee_cmd, referee_fails,
    referee_ok, rust_bot, rust_bot_path, s, starts_once, text, unplayable, words,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The record without what legitimately differs between two runs of the same game: think
/// times, wall-clock times, and where the stderr logs went.
fn normalised(lines: &[Value]) -> Vec<Value> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in [
                    "us",
                    "cpu_us",
                    "started_unix_ms",
                    "duration_ms",
                    "think_us",
                    "max_us",
                    "stderr",
                ] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut lines = lines.to_vec();
    lines.iter_mut().for_each(strip);
    lines
}

/// Every file of a folder with its contents, but the lock file (it names the last referee that
/// held the folder, so it changes with every run).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("read the folder")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| !p.ends_with("referee.lock"))
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read the file");
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_complete_game_between_python_javascript_and_rust() {
    let tmp = Scratch::new("languages");
    let dir = tmp.join("records");
    let (py, js, rs, rnd) = (py_heuristic(), js_bot(), rust_bot(), py_random());
    referee_ok(&match_args("--seed 7", &dir, &[&py, &js, &rs, &rnd]));
    let files = record_files(&dir);
    assert_eq!(files.len(), 1);
    let lines = check_record(&files[0]);
    let header = &lines[0];
    let names: Vec<&str> = header["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    // The names come from the handshakes, so each bot really answered.
    assert_eq!(names, ["py-heuristic", "js-heuristic", "rust-heuristic", "py-random"]);
    // Well-behaved sample bots commit no fault and are never played for.
    let faults: Vec<&Value> = lines.iter().filter(|l| l["type"] == "fault").collect();
    assert!(faults.is_empty(), "faults: {faults:?}");
    assert!(lines.iter().all(|l| l.get("auto").is_none()), "an answer was played by the fallback");
    for p in 0..4 {
        assert!(dir.join(format!("player{p}.stderr.log")).exists(), "player{p}.stderr.log missing");
    }
}

/// The tests used to build the Rust sample bot themselves, with a nested `cargo build`. They
/// build nothing now: a binary that was not built is one line naming the command that builds it.
#[test]
fn a_binary_that_was_not_built_is_one_line_naming_the_build_command() {
    let line = built_binary("no-such-bot").unwrap_err();
    assert!(!line.contains('\n'), "{line}");
    assert!(
        line.contains(
            "no-such-bot is missing: build it first with `cargo build --workspace --locked --bins`"
        ),
        "{line}"
    );
    assert_eq!(built_binary("aluette-bot").as_deref(), Ok(rust_bot_path()));
}

#[test]
fn the_same_seed_gives_the_same_records() {
    let tmp = Scratch::new("determinism");
    let (py, rs) = (py_heuristic(), rust_bot());
    let run = |name: &str| {
        let dir = tmp.join(name);
        let bots = ["builtin:heuristic", RANDOM, &py, &rs];
        referee_ok(&match_args("--seed 2024 --games 2 --signals public", &dir, &bots));
        record_files(&dir).iter().map(|f| normalised(&check_record(f))).collect::<Vec<_>>()
    };
    let (a, b) = (run("a"), run("b"));
    assert_eq!(a.len(), 2);
    for (game, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x.len(), y.len(), "game {}: record lengths differ", game + 1);
        for (n, (lx, ly)) in x.iter().zip(y).enumerate() {
            assert_eq!(lx, ly, "game {}: record line {} differs", game + 1, n + 1);
        }
    }
}

#[test]
fn persistent_bots_play_every_game_of_a_match() {
    let tmp = Scratch::new("persistent");
    let dir = tmp.join("records");
    let (py, rnd) = (py_heuristic(), py_random());
    referee_ok(&match_args("--seed 99 --games 3", &dir, &[&py, &rnd]));
    let files = record_files(&dir);
    let names: Vec<_> = files
        .iter()
        .map(|f| f.file_name().unwrap_or_default().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["game-000001.jsonl", "game-000002.jsonl", "game-000003.jsonl"]);
    for f in &files {
        check_record(f);
    }
    // A restarted bot would have left a playerN.2.stderr.log: one log per player means each
    // process was started once and played all three games.
    let mut logs: Vec<String> = std::fs::read_dir(&dir)
        .expect("read the records folder")
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".stderr.log"))
        .collect();
    logs.sort();
    assert_eq!(
        logs,
        ["player0.stderr.log", "player1.stderr.log", "player2.stderr.log", "player3.stderr.log"]
    );
}

#[test]
fn the_default_lineup_plays_with_builtin_bots() {
    let tmp = Scratch::new("default");
    let dir = tmp.join("records");
    let out = referee_ok(&["match", "--records", dir.to_str().expect("UTF-8 path")]);
    // No --seed: the referee draws one and says how to repeat it.
    let seed_line = out.lines().next().unwrap_or("");
    let seed = seed_line
        .strip_prefix("Match seed ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no seed on the first line: {out}"));
    assert!(seed_line.contains(&format!("--seed {seed}")), "{seed_line}");
    assert!(out.contains("result:"), "{out}");
    // The account names the built-in bots of the default lineup: heuristic in seats 0 and 2.
    assert!(
        out.contains("seat 0 (builtin-heuristic)") && out.contains("seat 1 (builtin-random)"),
        "{out}"
    );
    // The summary counts in words a person would write, and names the partnerships by bot.
    let summary = out.lines().find(|l| l.starts_with("Match over:")).expect("a summary");
    assert!(
        summary.starts_with(
            "Match over: 1 game; builtin-heuristic + builtin-heuristic (players 0+2) won "
        ),
        "{summary}"
    );
    assert!(summary.contains("; builtin-random + builtin-random (players 1+3) won "), "{summary}");
    let files = record_files(&dir);
    assert_eq!(files.len(), 1);
    let lines = check_record(&files[0]);
    assert_eq!(lines[0]["match_seed"].as_u64().map(|s| s.to_string()).as_deref(), Some(seed));
}

#[test]
fn json_output_is_one_document() {
    let out =
        referee_ok(&words("match --seed 5 --games 3 --no-records --json --bot builtin:heuristic"));
    let doc: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{out}"));
    assert_eq!(doc["seed"], 5);
    assert_eq!(doc["players"].as_array().map(Vec::len), Some(4));
    // Three games of built-in bots, which run in the referee's own process: some of its CPU.
    assert!(doc["referee_cpu_us"].as_u64().is_some_and(|us| us > 0), "{}", doc["referee_cpu_us"]);
    let games = doc["games"].as_array().expect("a games array");
    assert_eq!(games.len(), 3);
    for (n, g) in games.iter().enumerate() {
        assert_eq!(g["game"], n as u64 + 1);
        assert_eq!(g["status"], "complete");
        assert_eq!(g["record"], Value::Null, "--no-records writes no record");
        assert!(g["score"].is_array() && g["deals"].is_array(), "{g}");
    }
}

#[test]
fn bad_bot_lists_are_refused_in_one_line() {
    let line = referee_fails(&["match", "--no-records", "--bot", ""]);
    assert!(line.contains("empty"), "{line}");
    let line = referee_fails(&["match", "--no-records", "--bot", "a", "--bot", "b", "--bot", "c"]);
    assert!(line.contains("3 times"), "{line}");
}

#[test]
fn replaying_a_missing_file_fails_in_one_line() {
    let line = referee_fails(&["replay", "/nonexistent/game-000001.jsonl"]);
    assert!(line.contains("/nonexistent"), "{line}");
}

#[test]
fn a_records_folder_is_never_reused() {
    let tmp = Scratch::new("reuse");
    let dir = tmp.join("records");
    let dir_arg = dir.to_str().expect("UTF-8 path");
    let (py, rnd) = (py_heuristic(), py_random());
    referee_ok(&["match", "--seed", "1", "--records", dir_arg, "--bot", &py, "--bot", &rnd]);
    let before = snapshot(&dir);
    assert!(before.iter().any(|(p, _)| p.ends_with("game-000001.jsonl")));
    let line =
        referee_fails(&["match", "--seed", "1", "--records", dir_arg, "--bot", &py, "--bot", &rnd]);
    assert!(line.contains("already holds records"), "{line}");
    // Nothing was started, so not even the bots' stderr logs were touched.
    assert_eq!(snapshot(&dir), before, "the second run changed the first run's files");
}

#[test]
fn a_bot_that_cannot_start_stops_the_match_before_any_game() {
    let tmp = Scratch::new("cannot-start");
    for (case, bot, want) in unplayable(&tmp) {
        let dir = tmp.join(case);
        let args = ["match", "--games", "3", "--handshake-ms", "20000", "--records", s(&dir)];
        let mut args = args.to_vec();
        args.extend(["--bot", "builtin:random", "--bot", &bot]);
        let line = referee_fails(&args);
        assert!(line.contains("player 1 cannot play"), "{case}: {line}");
        assert!(line.contains(want), "{case}: want {want:?} in {line}");
        assert!(line.contains("no game was played"), "{case}: {line}");
        assert!(record_files(&dir).is_empty(), "{case}: a game was recorded");
        if case == "exits" {
            // What the bot said before dying is where the line says.
            let log = dir.join("player1.stderr.log");
            assert!(line.ends_with(&format!("its stderr is in {}", log.display())), "{line}");
            assert_eq!(std::fs::read_to_string(&log).unwrap(), "gone\n");
        }
    }
    // With --json, stdout holds no document: the match never began.
    let out = referee(&["match", "--json", "--no-records", "--bot", "/nonexistent/bot"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn a_bot_that_cannot_be_started_again_later_is_a_recorded_fault() {
    // It plays game 1 and exits on reading game_over (charged to game 2); its second start, for
    // game 3, exits at once. The start-up check passed, so that failure is game 3's fault.
    let tmp = Scratch::new("restart-fails");
    let bot = starts_once(&tmp);
    let dir = tmp.join("records");
    let flags = "--seed 1 --games 3 --handshake-ms 20000";
    referee_ok(&match_args(flags, &dir, &[&bot, RANDOM, RANDOM, RANDOM]));
    let files = record_files(&dir);
    assert_eq!(files.len(), 3);
    assert!(check_record(&files[0]).iter().all(|l| l["type"] != "fault"), "game 1 was clean");
    let last = check_record(&files[2]);
    let faults = last.faults();
    assert_eq!(faults.len(), 1, "{faults:#?}");
    assert_eq!((&faults[0]["seat"], &faults[0]["kind"]), (&0.into(), &"handshake_refused".into()));
    assert!(faults[0]["detail"].as_str().is_some_and(|d| d.contains("exit code 5")), "{faults:#?}");
}

#[test]
fn a_second_match_on_a_records_folder_is_refused_while_the_first_holds_it() {
    let tmp = Scratch::new("lock");
    let dir = tmp.join("records");
    // The first referee waits for its bot's hello, which the gate holds back.
    let bot = gated(&tmp, &tmp.join("gate"), 0, &py_random());
    let mut first =
        referee_cmd(&["match", "--handshake-ms", "60000", "--records", s(&dir), "--bot", &bot])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the referee starts");
    let pid = first.id().to_string();
    let lock = dir.join("referee.lock");
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.trim() == pid) {
        assert!(start.elapsed() < RUN_LIMIT, "the first referee never took the folder");
        assert!(first.try_wait().expect("wait").is_none(), "the first referee ended too soon");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let line = referee_fails(&["match", "--records", s(&dir)]);
    assert!(line.contains(&format!("in use by another referee (pid {pid})")), "{line}");
    assert!(record_files(&dir).is_empty());
    // Killed outright, it cannot unlock; the kernel does, and the folder is free again.
    first.kill().expect("SIGKILL the referee");
    first.wait().expect("reap the referee");
    referee_ok(&["match", "--seed", "3", "--records", s(&dir)]);
    assert_eq!(record_files(&dir).len(), 1);
}

/// What a game with one tee'd seat left behind.
#[derive(Debug)]
struct TeedGame {
    /// The wrapper's JSON log; the byte-exact log is [`raw_log`] of it.
    log: PathBuf,
    /// The records folder.
    dir: PathBuf,
    /// The record files, in game order.
    records: Vec<PathBuf>,
}

/// [`play_seat`] with the tee around `bot`.
fn run_teed_game(tmp: &Scratch, seat: u8, bot: &str, extra: &[&str]) -> TeedGame {
    let (dir, log) = play_seat(tmp, seat, bot, true, extra);
    TeedGame { log, records: record_files(&dir), dir }
}

/// The wrapper's JSON log as (direction, message) pairs.
fn teed_messages(log: &Path) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(log)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", log.display()));
    text.lines()
        .enumerate()
        .map(|(n, l)| {
            let mut entry: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("log line {}: {e}", n + 1));
            (entry["dir"].as_str().unwrap_or("").to_string(), entry["msg"].take())
        })
        .collect()
}

/// A bot that answers every `play` with a card it does not hold (the first of the deck that is
/// not in its hand) and everything else correctly: each play is an `illegal_card` fault.
/// Inline, because the referee splits `--bot` like a shell: the single quotes keep it one word.
const ILLEGAL_CARD_BOT: &str = r#"
import json, sys
DECK = [r + s for r in "A23456789JCK" for s in "ocsb"]
for line in sys.stdin:
    m = json.loads(line)
    t, a = m["type"], None
    if t == "hello":
        a = {"type": "hello", "id": m["id"], "name": "illegal", "version": "0"}
    elif t == "opening":
        a = {"type": "opening", "id": m["id"]}
        if m["vote"]:
            a["accept"] = False
    elif t == "discard":
        a = {"type": "discard", "id": m["id"], "cards": m["hand"][:6]}
    elif t == "play":
        a = {"type": "play", "id": m["id"], "card": next(c for c in DECK if c not in m["hand"])}
    elif t == "bye":
        break
    if a:
        print(json.dumps(a), flush=True)
"#;

fn illegal_card_bot() -> String {
    format!("python3 -c '{ILLEGAL_CARD_BOT}'")
}

#[test]
fn the_tee_wrapper_logs_the_real_conversation() {
    let tmp = Scratch::new("tee");
    let game = run_teed_game(&tmp, 2, &py_heuristic(), &["--seed", "3", "--signals", "public"]);
    assert_eq!(game.records.len(), 1);
    let lines = check_record(&game.records[0]);
    let log = game.log;
    // The wrapper is transparent: the referee saw the bot's own name and no fault.
    assert_eq!(lines[0]["seats"][2]["name"], "py-heuristic");
    assert!(
        !lines.iter().any(|l| l["type"] == "fault" && l["seat"] == 2),
        "the wrapped bot faulted"
    );

    let raw = std::fs::read(raw_log(&log)).expect("the raw log exists");
    assert!(!raw.is_empty(), "the raw log is empty");
    let raw_text = String::from_utf8(raw).expect("the conversation is UTF-8");
    let json_log = std::fs::read_to_string(&log).expect("the JSON log exists");
    assert_eq!(raw_text.lines().count(), json_log.lines().count(), "both logs hold every line");

    let mut played = Vec::new();
    for (n, (raw_line, entry)) in raw_text.lines().zip(json_log.lines()).enumerate() {
        let entry: Value =
            serde_json::from_str(entry).unwrap_or_else(|e| panic!("log line {}: {e}", n + 1));
        let (dir, body) = raw_line.split_at(2);
        let msg: Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("raw line {}: not JSON: {e}", n + 1));
        assert_eq!(entry["seat"], 2);
        assert_eq!(entry["msg"], msg, "line {}: the two logs disagree", n + 1);
        match dir {
            "> " => assert_eq!(entry["dir"], "to_bot"),
            "< " => {
                assert_eq!(entry["dir"], "from_bot");
                if msg["type"] == "play" {
                    played.push(msg["card"].clone());
                }
            }
            _ => panic!("raw line {}: unknown prefix {dir:?}", n + 1),
        }
    }
    assert!(raw_text.starts_with("> {\"type\":\"hello\""), "the referee speaks first");
    assert!(
        raw_text.lines().last().is_some_and(|l| l.starts_with("> {\"type\":\"bye\"")),
        "bye ends it"
    );
    // What the record says seat 2 played is exactly what crossed the pipe, in order.
    let recorded: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "play" && l["seat"] == 2)
        .map(|l| l["card"].clone())
        .collect();
    assert_eq!(played, recorded);
}

/// spec/protocol.md 4.9: an `error` names the question it concerns in `id`, and comes before
/// the notice of what the referee did instead.
#[test]
fn a_fault_is_told_to_the_bot_with_the_question_id() {
    let tmp = Scratch::new("error-id");
    let game = run_teed_game(&tmp, 0, &illegal_card_bot(), &["--seed", "1", "--deals", "1"]);
    let lines = check_record(&game.records[0]);
    let kinds: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "fault")
        .map(|l| l["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["illegal_card"; 3], "three strikes, then the fallback plays");

    let msgs = teed_messages(&game.log);
    let mut errors = 0;
    for (n, (dir, msg)) in msgs.iter().enumerate() {
        if dir != "to_bot" || msg["type"] != "error" {
            continue;
        }
        errors += 1;
        assert_eq!(msg["fault"], "illegal_card");
        let (_, answer) = &msgs[n - 1];
        assert_eq!(answer["type"], "play", "the error follows the faulty answer");
        assert_eq!(
            msg.get("id"),
            Some(&answer["id"]),
            "referee bug: the error does not carry the id of the question it concerns: {msg}"
        );
        let (_, next) = &msgs[n + 1];
        assert_eq!(
            (&next["type"], &next["seat"]),
            (&Value::from("played"), &Value::from(0)),
            "error before played"
        );
    }
    assert_eq!(errors, 3);
}

/// spec/protocol.md 6.2: a replaced bot that can still listen gets an `error` and a `bye` and
/// is stopped; it is started again, with a new handshake, for the next game. Its stale lines
/// must not leak into the next game's record.
#[test]
fn a_replaced_bot_gets_bye_and_is_started_again_for_the_next_game() {
    let tmp = Scratch::new("replaced");
    let game = run_teed_game(
        &tmp,
        0,
        &illegal_card_bot(),
        &["--seed", "1", "--deals", "1", "--games", "2", "--max-strikes", "2"],
    );
    assert_eq!(game.records.len(), 2);
    for (g, record) in game.records.iter().enumerate() {
        let lines = check_record(record);
        let faults: Vec<(&str, &str)> = lines
            .iter()
            .filter(|l| l["type"] == "fault")
            .map(|l| (l["kind"].as_str().unwrap_or(""), l["penalty"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(
            faults,
            [("illegal_card", "fallback"), ("illegal_card", "replaced")],
            "game {}: the faults of this game's own process only",
            g + 1
        );
    }

    // Each connection, as the tee'd log shows it: a new one starts at each hello.
    let msgs = teed_messages(&game.log);
    let mut connections: Vec<Vec<&(String, Value)>> = Vec::new();
    for m in &msgs {
        if m.0 == "to_bot" && m.1["type"] == "hello" {
            connections.push(Vec::new());
        }
        connections.last_mut().expect("the log starts with hello").push(m);
    }
    for (c, conn) in connections.iter().enumerate() {
        let to_bot: Vec<&Value> = conn.iter().filter(|m| m.0 == "to_bot").map(|m| &m.1).collect();
        let replaced_at = to_bot
            .iter()
            .position(|m| {
                m["type"] == "error"
                    && m["action"].as_str().is_some_and(|a| a.contains("rest of the game"))
            })
            .unwrap_or_else(|| panic!("connection {}: no error announcing the replacement", c + 1));
        // After the error come at most the notices of the move the referee made for the bot
        // (the card played, the trick it ended), then `bye`, and nothing after it.
        let after = &to_bot[replaced_at + 1..];
        assert_eq!(
            after.last().map(|m| &m["type"]),
            Some(&Value::from("bye")),
            "connection {}: the last message after the replacement is bye: {after:?}",
            c + 1
        );
        for m in &after[..after.len() - 1] {
            let kind = m["type"].as_str().unwrap_or("");
            assert!(
                ["played", "trick", "deal_over", "vote", "chant"].contains(&kind),
                "connection {}: after the replacement only the fallback's notices come before bye, not {m}",
                c + 1
            );
        }
        assert!(after.len() <= 4, "connection {}: {after:?}", c + 1);
    }
    assert_eq!(
        connections.len(),
        2,
        "referee bug: the replaced bot was not started again for game 2"
    );
    assert!(
        game.dir.join("player0.2.stderr.log").exists(),
        "the restarted bot has its own stderr log"
    );
}

#[test]
fn match_and_replay_print_the_score_in_the_same_order() {
    let tmp = Scratch::new("score-order");
    let dir = tmp.join("records");
    let args = ["match", "--seed", "5", "--games", "6", "--bot", "builtin:random"];
    let out = referee_ok(&[&args[..], &["--records", s(&dir)]].concat());
    let results: Vec<&str> =
        out.lines().filter_map(|l| l.trim().strip_prefix("result: ")).collect();
    let files = record_files(&dir);
    assert_eq!(results.len(), files.len(), "{out}");
    let mut team1_won = false;
    for (result, file) in results.iter().zip(&files) {
        let footer = check_record(file).footer().clone();
        let score = format!("{}-{}", footer["score"][0], footer["score"][1]);
        team1_won |= footer["winner"] == 1;
        // Team 0 first, whoever won: as in the record and every deal line.
        assert!(result.ends_with(&format!(" {score}")), "match says {result:?}, record {score}");
        let replayed = referee_ok(&["replay", s(file)]);
        let line = replayed.lines().find(|l| l.starts_with("Result: ")).unwrap();
        assert!(line.contains(&format!(" {score} ")), "replay says {line:?}, record {score}");
    }
    // Only a game team 1 won tells the orders apart.
    assert!(team1_won, "seed 5 gave team 1 no win: pick another seed\n{out}");
}
