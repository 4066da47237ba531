//! `referee replay FILE --seat S` claims to print exactly the lines a seat received and sent;
//! these tests hold it to that with real games: a tee wrapper (tests/support/tee_bot.py) logs
//! what really crossed the pipe, and the replayed conversation must match it byte for byte,
//! faults included. They also run `--bot` and `--until` against real bot processes, as a bot
//! author would.

use crate::harness::{
    Scratch, one_line, play_seat, py_heuristic, py_random, python, quoted, raw_log, referee,
    referee_ok, text, words,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a killed bot may take to disappear from /proc.
const REAP: Duration = Duration::from_secs(2);
/// The placeholder the replay shows for a line over the limit, whose bytes no record keeps.
const TOO_LONG: &str = "< [a line longer than 4096 bytes; the record does not keep it]";

/// Runs the referee and insists on failure with one line of its own on stderr (a re-driven
/// bot's stderr goes there too, marked as the bot's); returns (stdout, the line).
fn referee_fails(args: &[&str]) -> (String, String) {
    let out = referee(args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "referee {args:?}: stderr:\n{stderr}");
    let line = one_line(&stderr, |l| l.starts_with("heuristic_bot: "), &format!("{args:?}"));
    assert!(line.starts_with("referee: "), "who speaks? {line}");
    (text(&out.stdout), line)
}

/// [`play_seat`], returning the records folder and the tee's byte-exact log.
fn play(tmp: &Scratch, seat: u8, bot: &str, tee: bool, extra: &[&str]) -> (PathBuf, PathBuf) {
    let (dir, log) = play_seat(tmp, seat, bot, tee, extra);
    (dir, raw_log(&log))
}

fn record(dir: &Path, game: u64) -> String {
    dir.join(format!("game-{game:06}.jsonl")).to_str().expect("UTF-8 path").to_string()
}

/// `referee replay RECORD --seat S`, checked for its format (time, marker, line, with times
/// that never go back) and returned without the time column, as "> line" and "< line".
fn replayed(record: &str, seat: u8) -> Vec<String> {
    let out = referee_ok(&["replay", record, "--seat", &seat.to_string()]);
    let mut last = 0.0;
    out.lines()
        .map(|l| {
            let (time, rest) = l.split_at(10);
            let t: f64 = time.trim().parse().unwrap_or_else(|_| panic!("no time column: {l}"));
            assert!(time.trim().split('.').nth(1).is_some_and(|d| d.len() == 3), "{l}");
            assert!(t >= last, "time goes back at {l}");
            last = t;
            let (dir, line) = (rest.get(2..3), rest.get(5..));
            assert!(rest.starts_with("  ") && rest.get(3..5) == Some("  "), "layout: {l}");
            assert!(matches!(dir, Some(">" | "<")), "direction: {l}");
            format!("{} {}", dir.unwrap_or(""), line.unwrap_or(""))
        })
        .collect()
}

/// The tee's raw log cut into games. A game starts at its connection's `hello` when the
/// connection began with it, else at its `game` notice; the `bye` that ends the match is no
/// game's. Lines over 4096 bytes become the replay's placeholder, since no record keeps them.
fn teed_games(raw: &Path) -> Vec<Vec<String>> {
    let bytes = std::fs::read(raw).unwrap_or_else(|e| panic!("{}: {e}", raw.display()));
    let text = String::from_utf8(bytes).expect("the tests' bots speak UTF-8");
    let is_hello = |l: &str| l.get(2..).is_some_and(|m| m.starts_with(r#"{"type":"hello""#));
    let mut games: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for line in text.lines() {
        let starts_game = line.starts_with(r#"> {"type":"game","#);
        let new_connection = line.starts_with('>') && is_hello(line);
        if (new_connection || (starts_game && !current.iter().all(|l| is_hello(l))))
            && !current.is_empty()
        {
            games.push(std::mem::take(&mut current));
        }
        current.push(if line.len() > 4096 { TOO_LONG.to_string() } else { line.to_string() });
    }
    if current.last().is_some_and(|l| l == r#"> {"type":"bye","reason":"match over"}"#) {
        current.pop();
    }
    games.push(current);
    games
}

/// Byte-identity, with the first difference shown in context.
fn assert_same(replayed: &[String], teed: &[String], what: &str) {
    if let Some(i) = (0..replayed.len().min(teed.len())).find(|&i| replayed[i] != teed[i]) {
        panic!(
            "{what}: line {} differs\nreplayed: {}\nteed:     {}\nbefore: {:?}",
            i + 1,
            replayed[i],
            teed[i],
            &teed[i.saturating_sub(3)..i]
        );
    }
    assert_eq!(
        replayed.len(),
        teed.len(),
        "{what}: same lines as far as both go, but one goes on: {:?} / {:?}",
        replayed.get(teed.len()),
        teed.get(replayed.len())
    );
}

#[test]
fn the_replayed_conversation_is_what_crossed_the_pipe() {
    let tmp = Scratch::new("clean");
    // Two games on one connection: game 2 has no handshake and ids that go on from game 1.
    let extra = ["--seed", "7", "--games", "2", "--signals", "public"];
    let (dir, raw) = play(&tmp, 2, &py_heuristic(), true, &extra);
    let teed = teed_games(&raw);
    assert_eq!(teed.len(), 2, "two games in the tee log");
    assert!(teed[0][0].starts_with(r#"> {"type":"hello","id":1,"#));
    assert!(teed[1][0].starts_with(r#"> {"type":"game","game":2,"#));
    for (g, teed) in teed.iter().enumerate() {
        let ours = replayed(&record(&dir, g as u64 + 1), 2);
        assert_same(&ours, teed, &format!("game {}", g + 1));
    }
}

#[test]
fn faults_replay_byte_for_byte() {
    let tmp = Scratch::new("faults");
    // The faulty bot's timeout costs answer + bank = 1.5 s, which a busy machine does not
    // reach by accident (a late answer would land elsewhere in the tee log than the replay
    // shows it). It needs more strikes than the default 3 to commit all its faults, and a
    // 4096-byte line limit lets it overrun the limit cheaply.
    let flags = "--seed 11 --games 2 --signals public --answer-ms 700 --bank-ms 800";
    let extra = [&words(flags)[..], &words("--max-strikes 10 --max-line-bytes 4096")].concat();
    let bot = python("referee/tests/replay_seat/faulty_bot.py", "");
    let (dir, raw) = play(&tmp, 1, &bot, true, &extra);
    // The test is only as good as the faults the game really had.
    let rec = std::fs::read_to_string(record(&dir, 1)).expect("record of game 1");
    for kind in [
        "timeout",
        "stale_id",
        "unknown_id",
        "illegal_card",
        "malformed",
        "wrong_answer",
        "line_too_long",
        "bad_signal",
        "exited",
    ] {
        assert!(rec.contains(&format!(r#""kind":"{kind}""#)), "game 1 has no {kind} fault");
    }
    // The bot exited in game 1, so game 2 is a new process: a new handshake, ids from 1.
    let teed = teed_games(&raw);
    assert_eq!(teed.len(), 2, "two games in the tee log");
    assert!(teed[1][0].starts_with(r#"> {"type":"hello","id":1,"#));
    for (g, teed) in teed.iter().enumerate() {
        let ours = replayed(&record(&dir, g as u64 + 1), 1);
        assert_same(&ours, teed, &format!("game {}", g + 1));
    }

    // Re-driven by a well-behaved bot, the faults show as differences, named.
    let (out, err) =
        referee_fails(&["replay", &record(&dir, 1), "--seat", "1", "--bot", &py_heuristic()]);
    assert!(err.contains("differ from the record"), "{err}");
    for fault in ["timeout", "illegal_card", "malformed", "wrong_answer", "line_too_long", "exited"]
    {
        assert!(out.contains(&format!("({fault} fault), bot now says")), "{fault}:\n{out}");
    }
}

#[test]
fn a_bot_replaced_for_its_strikes_is_replayed_to_its_bye() {
    let tmp = Scratch::new("replaced");
    // Two strikes replace the faulty bot at its illegal card in deal 1; the referee then tells
    // it `bye` and kills it at once, and plays the rest of the game for it.
    let extra = words("--seed 11 --games 2 --answer-ms 700 --bank-ms 800 --max-strikes 2");
    let bot = python("referee/tests/replay_seat/faulty_bot.py", "");
    let (dir, raw) = play(&tmp, 1, &bot, true, &extra);
    let teed = teed_games(&raw);
    assert_eq!(teed.len(), 2, "two games in the tee log");
    let ours = replayed(&record(&dir, 1), 1);
    assert_eq!(
        ours.last().map(String::as_str),
        Some(r#"> {"type":"bye","reason":"replaced by the fallback for the rest of the game"}"#)
    );
    // The kill may come before the wrapper has passed on the last lines: what it logged is a
    // prefix of the replay, and only the error and bye can be missing.
    let missing = ours.len().checked_sub(teed[0].len());
    assert!(missing.is_some_and(|m| m <= 2), "replayed {ours:?}\nteed {:?}", teed[0]);
    assert_same(&ours[..teed[0].len()], &teed[0], "game 1");
    assert_same(&replayed(&record(&dir, 2), 1), &teed[1], "game 2");
    // The other seats' conversations re-derive too.
    for seat in [0, 2, 3] {
        assert!(!replayed(&record(&dir, 1), seat).is_empty());
    }
}

#[test]
fn a_re_driven_bot_is_compared_answer_by_answer() {
    let tmp = Scratch::new("bot");
    let (dir, _) = play(&tmp, 2, &py_heuristic(), false, &["--seed", "3", "--signals", "public"]);
    let file = record(&dir, 1);

    // The same deterministic bot gives every recorded answer again.
    let out = referee_ok(&["replay", &file, "--seat", "2", "--bot", &py_heuristic()]);
    assert!(out.contains("hello: same (py-heuristic"), "{out}");
    assert!(out.contains("deal 1 trick 5 play: same ("), "{out}");
    assert!(!out.contains("DIFFERS"), "{out}");
    let last = out.lines().last().unwrap_or("");
    let asked: usize = last.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(asked > 40 && last.ends_with("questions, 0 differ"), "{last}");

    // Another bot answers otherwise; the recorded game is fed on regardless, to its end.
    let random = py_random();
    let (out, err) = referee_fails(&["replay", &file, "--seat", "2", "--bot", &random]);
    assert!(out.contains(": DIFFERS: recorded "), "{out}");
    assert!(out.lines().last().unwrap_or("").starts_with(&format!("{asked} questions, ")), "{out}");
    assert!(err.contains(&format!("of {asked} answers differ from the record")), "{err}");
}

#[test]
fn until_with_stdin_closed_stops_there_and_leaves_no_process() {
    let tmp = Scratch::new("until");
    let (dir, _) = play(&tmp, 0, &py_heuristic(), false, &["--seed", "3"]);
    let pidfile = tmp.join("pid");
    let pid_bot = "referee/tests/replay_seat/pid_bot.py";
    let bot = python(pid_bot, &format!("{} {}", quoted(&pidfile), py_heuristic()));
    let out =
        referee_ok(&["replay", &record(&dir, 1), "--seat", "0", "--bot", &bot, "--until", "2.3"]);
    let pid = std::fs::read_to_string(&pidfile).expect("the bot wrote its pid");
    assert!(out.contains("Paused before deal 2 trick 3 play (question id "), "{out}");
    assert!(out.contains(&format!("bot pid {pid}\n")), "pid {pid}:\n{out}");
    assert!(out.contains("attach a debugger now; press Enter to continue feeding"), "{out}");
    assert!(out.contains("deal 2 trick 2 play: same"), "{out}");
    assert!(!out.contains("deal 2 trick 3 play:"), "fed past the stop:\n{out}");
    assert!(out.trim_end().ends_with("differ (stopped before deal 2 trick 3)"), "{out}");
    let proc_dir = PathBuf::from(format!("/proc/{}", pid.trim()));
    let start = Instant::now();
    while proc_dir.exists() {
        assert!(start.elapsed() < REAP, "bot {pid} still runs after the replay");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn errors_are_one_line() {
    let tmp = Scratch::new("errors");
    let (dir, _) = play(&tmp, 0, "builtin:heuristic", false, &["--seed", "1", "--deals", "1"]);
    let file = record(&dir, 1);

    let (_, err) = referee_fails(&["replay", "no/such/record.jsonl", "--seat", "0"]);
    assert!(err.contains("cannot read the record"), "{err}");

    // A record whose deal line lost a card is corrupt: named by line.
    let corrupt = tmp.join("corrupt.jsonl");
    let good = std::fs::read_to_string(&file).expect("record");
    std::fs::write(&corrupt, good.replacen(r#""deck":["#, r#""deck":["Xx","#, 1)).expect("write");
    let (_, err) = referee_fails(&["replay", corrupt.to_str().expect("UTF-8"), "--seat", "0"]);
    assert!(err.contains("line 2"), "{err}");

    let (_, err) = referee_fails(&["replay", &file, "--seat", "0", "--bot", "no-such-bot-xyz"]);
    assert!(err.contains("cannot start no-such-bot-xyz"), "{err}");
    let (_, err) = referee_fails(&["replay", &file, "--seat", "0", "--bot", "python3 -c pass"]);
    assert!(err.contains("ended without answering its first question"), "{err}");
    let (_, err) = referee_fails(&["replay", &file, "--seat", "0", "--bot", "x", "--until", "2.x"]);
    assert!(err.contains("--until"), "{err}");

    // The seat range is clap's to check (its message has a usage hint below it).
    let out = referee(&["replay", &file, "--seat", "4"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--seat"), "{}", text(&out.stderr));
}
