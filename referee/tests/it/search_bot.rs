//! The search bot (crate `aluette-search`) as bot authors meet it: `builtin:search` and
//! `aluette-bot --search` play real matches against the heuristic without a fault, pass
//! `check-bot`, and with `--seed` and `--samples` a recorded game is re-driven answer for
//! answer by `replay --bot`. Sample counts are small: these are debug builds.

use crate::harness::{Scratch, quoted, referee, referee_ok, rust_bot_path, s, text};
use serde_json::Value;

/// `aluette-bot --search` with a fixed seed and sample count, as a `--bot` command.
fn search_bot(seed: u64) -> String {
    format!("{} --search --seed {seed} --samples 6", quoted(rust_bot_path()))
}

/// Every game of a `referee match --json` run, checked to have no fault.
fn fault_free(out: &str) -> usize {
    let v: Value = serde_json::from_str(out).expect("match --json prints JSON");
    let games = v["games"].as_array().expect("a games list");
    for g in games {
        assert_eq!(g["faults"].as_array().map(Vec::len), Some(0), "faults: {g}");
        assert!(g["forfeit"].is_null(), "{g}");
        let answers: u64 = g["stats"]
            .as_array()
            .expect("stats")
            .iter()
            .map(|st| st["answers"].as_u64().expect("answers"))
            .sum();
        assert!(answers >= 40, "{answers} answers: {g}");
    }
    games.len()
}

#[test]
fn builtin_search_plays_the_heuristic_without_a_fault() {
    let out = referee_ok(&[
        "match",
        "--seed",
        "21",
        "--deals",
        "2",
        "--no-records",
        "--json",
        "--bot",
        "builtin:search",
        "--bot",
        "builtin:heuristic",
    ]);
    assert_eq!(fault_free(&out), 1);
    assert!(out.contains("builtin-search"), "{out}");
}

#[test]
fn a_recorded_search_game_is_re_driven_answer_for_answer() {
    let tmp = Scratch::new("replay");
    let records = tmp.records();
    let bot = search_bot(9);
    let out = referee_ok(&[
        "match",
        "--seed",
        "4",
        "--deals",
        "2",
        "--signals",
        "public",
        "--json",
        "--records",
        s(&records),
        "--bot",
        &bot,
        "--bot",
        "builtin:heuristic",
    ]);
    assert_eq!(fault_free(&out), 1);
    let file = tmp.record(1);
    let replay = referee_ok(&["replay", s(&file), "--seat", "2", "--bot", &bot]);
    let last = replay.lines().last().unwrap_or("");
    assert!(last.ends_with("questions, 0 differ"), "{replay}");
    // Another seed searches other samples: the replay notices.
    let other = referee(&["replay", s(&file), "--seat", "2", "--bot", &search_bot(10)]);
    assert_eq!(other.status.code(), Some(1), "{}", text(&other.stdout));
    assert!(text(&other.stdout).contains("DIFFERS"));
}

#[test]
fn check_bot_passes_both_forms_of_the_search_bot() {
    for bot in ["builtin:search".to_string(), search_bot(1)] {
        let out = referee(&["check-bot", &bot]);
        assert!(out.status.success(), "{bot}: {}{}", text(&out.stdout), text(&out.stderr));
        assert!(!text(&out.stdout).contains("FAIL"), "{}", text(&out.stdout));
    }
}
