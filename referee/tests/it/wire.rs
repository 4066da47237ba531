//! The wire exactly as spec/protocol.md (sections 1, 2 and 6.1) and spec/records.md say, with
//! real bot processes (tests/bots/wire_bot.py) and the real binary (issue 12, section 5): the
//! line limit the organiser sets is the only one; an answer whose id no question can have is
//! ignored; a bot that closes its stdin has stopped reading; a line that is not UTF-8 is kept as
//! sent, so its game replays seat by seat; and a bad number for a flag gets a message naming
//! the flag and its range.

use crate::harness::{Scratch, Suite, referee, referee_fails, s, text};
use serde_json::Value;
use std::path::Path;

/// wire_bot.py bots, on the default clocks.
const WIRE: Suite = Suite { clocks: &[], marks: &["wire_bot.py"], command: Scratch::wire_bot };

/// `replay --seat S` for every seat, each re-deriving its conversation; the four outputs.
fn every_seat(path: &Path) -> Vec<String> {
    (0..4)
        .map(|seat| {
            let seat = seat.to_string();
            let out = referee(&["replay", s(path), "--seat", &seat]);
            assert!(out.status.success(), "replay --seat {seat}: {}", text(&out.stderr));
            text(&out.stdout)
        })
        .collect()
}

/// The lines seat `seat`'s bot sent, from a `replay --seat` output.
fn sent(conversation: &str) -> Vec<&str> {
    conversation.lines().filter_map(|l| l.split_once("  <  ").map(|(_, line)| line)).collect()
}

/// Issue 12: `decode_line` checked a fixed 64 KiB, so `--max-line-bytes 100000` still made a
/// valid 70,000-byte answer `malformed`. The configured limit is the one limit, both ways.
#[test]
fn an_answer_over_64_kib_is_taken_under_a_larger_line_limit() {
    let (_dir, game) = WIRE.in_seat0("long-answer", "long-answer", &["--max-line-bytes", "100000"]);
    let kinds: Vec<&Value> = game.faults().iter().map(|f| &f["kind"]).collect();
    assert!(kinds.is_empty(), "faults {kinds:?}");
    let plays = game.plays(0);
    let raw = plays[1]["raw"].as_str().expect("the answer is the bot's own");
    assert_eq!(raw.len(), 70_000);
    assert!(plays.iter().all(|p| p.get("auto").is_none()));
    // The re-run takes the long line too, and shows it as sent.
    let seats = every_seat(&game.path);
    assert!(sent(&seats[0]).contains(&raw), "seat 0's conversation shows the long answer");

    // Under the default limit the same answer is over it.
    let (_dir, game) = WIRE.in_seat0("long-answer-default", "long-answer", &[]);
    let faults = game.assert_faults(&[(0, "line_too_long", "fallback", 1)]);
    assert!(faults[0]["detail"].as_str().unwrap().contains("65536"), "{}", faults[0]);
    every_seat(&game.path);
}

/// Issue 12: ids `-1` and `-0` were `malformed` (a strike), where spec 6.1 makes an id never
/// asked an ignored `unknown_id`. So is every number no question can have: `0`, the open id
/// written as a float, and an integer beyond 2^64 - 1.
#[test]
fn ids_no_question_can_have_are_ignored_as_unknown_ids() {
    let (_dir, game) = WIRE.in_seat0("odd-ids", "odd-ids", &[]);
    let faults = game.assert_faults(&[(0, "unknown_id", "ignored", 0); 5]);
    let answer = game.plays(0)[1]["raw"].as_str().unwrap().to_string();
    let id: u64 = serde_json::from_str::<Value>(&answer).unwrap()["id"].as_u64().unwrap();
    let card = game.plays(0)[1]["card"].as_str().unwrap().to_string();
    let odd = ["-1".to_string(), "-0".into(), format!("{id}.0"), "18446744073709551616".into()];
    for (f, odd) in faults.iter().zip(odd.iter().chain([&"0".to_string()])) {
        assert_eq!(f["raw"], format!(r#"{{"type":"play","id":{odd},"card":"{card}"}}"#));
    }
    assert!(game.plays(0).iter().all(|p| p.get("auto").is_none()), "the answer stands");
    assert_eq!(game.stats(0)["strikes"], 0);
    // The re-run reads the same lines, ignores them the same way, and shows them.
    let seats = every_seat(&game.path);
    let shown = sent(&seats[0]);
    for f in &faults {
        assert!(shown.contains(&f["raw"].as_str().unwrap()), "{f} is not shown");
    }
}

/// Issue 12: a bot that closed its stdin but kept writing answers was recorded as
/// `closed_stdout`, "closed its stdin". It stopped reading its input: `timeout` in spec 6.1,
/// found at once by the failed write, and the bot is replaced and killed.
#[test]
fn a_bot_that_closes_its_stdin_stopped_reading_its_input() {
    let (_dir, game) = WIRE.in_seat0("close-stdin", "close-stdin", &[]);
    let f = game.assert_faults(&[(0, "timeout", "replaced", 1)])[0];
    let detail = f["detail"].as_str().unwrap();
    assert!(detail.starts_with("stopped reading its input: it closed its stdin"), "{detail}");
    let plays = game.plays(0);
    assert!(plays[1].get("auto").is_none(), "its answer to the open question stands");
    assert!(plays[2..].iter().all(|p| p["auto"] == true), "no answer written in advance counts");
    every_seat(&game.path);
}

/// Issue 12: a line with a byte that is not UTF-8 was recorded with U+FFFD in its place, so
/// the re-run read another line (a `bad_signal` where the record says `malformed`) and
/// `replay --seat` failed for every seat. The record keeps its bytes (`raw_b64`).
#[test]
fn a_line_that_is_not_utf8_is_recorded_as_sent_and_replays_for_every_seat() {
    let (dir, game) = WIRE.in_seat0("non-utf8", "non-utf8", &[]);
    let f = game.assert_faults(&[(0, "malformed", "fallback", 1)])[0];
    assert!(f.get("raw").is_none(), "{f}");
    let b64 = f["raw_b64"].as_str().expect("the line's bytes");
    let bytes = base64(b64);
    assert!(
        bytes.starts_with(br#"{"type":"play","id":"#)
            && bytes.ends_with(b"\"signals\":[\"ma\xffdame\"]}"),
        "the line as sent, its bad byte kept: {}",
        String::from_utf8_lossy(&bytes)
    );
    assert!(game.plays(0)[1]["auto"] == true, "the fallback played for the malformed line");

    let seats = every_seat(&game.path);
    assert!(
        sent(&seats[0]).iter().any(|l| l.contains("ma\\xffdame")),
        "seat 0's conversation shows the line, its bad byte as \\xff"
    );
    // Re-driving the same bot compares its bytes with the recorded ones: the same.
    let out =
        referee(&["replay", s(&game.path), "--seat", "0", "--bot", &dir.wire_bot("non-utf8")]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains(" 0 differ"), "{stdout}");
    assert!(stdout.contains("(malformed fault)"), "{stdout}");
}

/// Standard base64 with padding, decoded independently of the referee's code.
fn base64(text: &str) -> Vec<u8> {
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.trim_end_matches('=').chars() {
        bits = bits << 6 | alphabet.find(c).expect("a base64 character") as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}

/// Issue 12: `--answer-ms -5` said "unexpected argument '-5' found". Every command's numeric
/// flags name themselves and their range, in one line, with a non-zero exit.
#[test]
fn a_negative_number_for_a_flag_names_the_flag_and_its_range() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["match", "--answer-ms", "-5"], "--answer-ms", "from 0 to 86400000"),
        (&["match", "--games", "-1"], "--games", "from 1 to 18446744073709551615"),
        (&["match", "--max-line-bytes", "-100000"], "--max-line-bytes", "from 64 to 16777216"),
        (&["match", "--mordienne-run", "-2"], "--mordienne-run", "from 2 to 3"),
        (&["match", "--signal-leak", "-0.5"], "--signal-leak", "probability from 0 to 1"),
        (&["replay", "x.jsonl", "--seat", "-1"], "--seat", "from 0 to 3"),
        (&["check-bot", "builtin:random", "--handshake-ms", "-1"], "--handshake-ms", "from 0"),
        (&["check-bot", "builtin:random", "--max-line-bytes", "-1"], "--max-line-bytes", "to"),
        (&["tournament", "t.toml", "--concurrency", "-2"], "--concurrency", "from 1 to 1024"),
    ];
    for (args, flag, range) in cases {
        let line = referee_fails(args);
        assert!(
            line.contains(&format!("'{flag} "))
                && line.contains(range)
                && !line.contains("unexpected"),
            "{args:?}: {line}"
        );
    }
    // Flags whose values are numbers in a text (DEAL.TRICK, K/N) reach their own checks too.
    let line = referee_fails(&["replay", "x.jsonl", "--seat", "1", "--bot", "b", "--until", "-3"]);
    assert!(line.contains("--until \"-3\": expected DEAL or DEAL.TRICK"), "{line}");
    let dir = Scratch::new("shard-negative");
    let two = "[[entrants]]\nname = \"a\"\ncommand = \"builtin:random\"\n[[entrants]]\nname = \"b\"\ncommand = \"builtin:random\"\n";
    let config = dir.write("t.toml", &format!("seed = 1\n{two}"));
    let line = referee_fails(&["tournament", s(&config), "--shard", "-1/2"]);
    assert!(line.contains("--shard \"-1/2\": give K/N with 1 <= K <= N"), "{line}");
    // A tournament config goes through the same definitions.
    let config = dir.write("t2.toml", &format!("{two}[clock]\nanswer-ms = -5\n"));
    let line = referee_fails(&["tournament", s(&config), "--out", s(&dir.join("out"))]);
    assert!(line.contains("answer-ms") && line.contains("from 0 to 86400000"), "{line}");
}
