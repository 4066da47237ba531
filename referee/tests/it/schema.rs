//! Every line the referee writes in a record is valid against `spec/schema/record.json` (and
//! its own type's schema), checked by an independent JSON Schema implementation on freshly
//! played games: chant taken and refused, discards, every signal mode, the fault classes the
//! hostile bots provoke, a forfeit, and a redeal.

use crate::harness::{Scratch, referee_ok, root, s};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn validator(path: &str) -> jsonschema::Validator {
    let file = root().join("spec/schema").join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A hostile bot of sample-bots/hostile/, as a `--bot` command.
fn hostile(scratch: &Scratch, name: &str) -> String {
    let script = root().join(format!("sample-bots/hostile/{name}.py"));
    format!("python3 '{}' '{}'", script.display(), scratch.join("pids").display())
}

/// Plays a match into `records` with `bots`, fast clocks and `extra` flags (seed 7 unless they
/// give one).
fn play(records: &Path, bots: &[String], extra: &[&str]) {
    let mut args = vec!["match", "--records", s(records)];
    if !extra.contains(&"--seed") {
        args.extend(["--seed", "7"]);
    }
    args.extend(["--answer-ms", "300", "--bank-ms", "200", "--handshake-ms", "5000"]);
    for b in bots {
        args.extend(["--bot", b.as_str()]);
    }
    args.extend(extra);
    referee_ok(&args);
}

#[test]
fn every_record_line_the_referee_writes_is_valid() {
    let scratch = Scratch::new("every_record_line_the_referee_writes_is_valid");
    let random = || "builtin:random".to_string();
    let mut runs: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    for signals in ["off", "partner", "public", "leaky"] {
        let bots = vec![hostile(&scratch, "accept_chant"), random(), random(), random()];
        runs.push((bots, vec!["--games", "3", "--signals", signals, "--signal-leak", "0.5"]));
    }
    runs.push((
        vec![random(), random(), random(), random()],
        vec![
            "--games",
            "2",
            "--discard",
            "keep-highest",
            "--all-spoiled",
            "redeal",
            "--seating",
            "draw",
        ],
    ));
    // Everyone accepts, so the chant is taken and seat 1 discards.
    let yes = || hostile(&scratch, "accept_chant");
    runs.push((
        vec![yes(), hostile(&scratch, "wrong_discard"), yes(), yes()],
        vec!["--games", "1", "--discard", "keep-highest"],
    ));
    for attack in [
        "illegal_card",
        "false_signals",
        "binary_junk",
        "huge_line",
        "unsolicited",
        "late_beyond_bank",
        "crash_play",
        "other_seat",
    ] {
        let extra = vec!["--games", "1", "--signals", "public", "--signal-truth", "truthful"];
        runs.push((vec![hostile(&scratch, attack), random(), random(), random()], extra));
    }
    runs.push((
        vec![hostile(&scratch, "illegal_card"), random(), random(), random()],
        vec!["--games", "1", "--on-fault", "forfeit"],
    ));
    // A redeal: deal 1 of seed 68068 with every trick spoiled. No bot that sees only its own
    // hand spoils nine tricks but by rare chance (builtin:random spoils 7% of tricks), so the
    // seed and the cards were found, when this test was written, by a search over seeds with
    // `rules` (the first whose deal 1 leaves the eight unique cards in the talon and whose four
    // hands split into nine tricks each topped by two cards of one level), and each seat plays
    // its share in trick order (misbehave.py's `script` mode). `match` takes the same `--seed`
    // for its decks (`deck_for`).
    let script = |cards: &str| {
        let bot = root().join("referee/tests/bots/misbehave.py");
        format!("python3 '{}' script '{}' {cards}", bot.display(), scratch.join("pids").display())
    };
    let redeal_run = runs.len();
    runs.push((
        vec![
            script("Ac Co 8c 8s 8b 9s 7b 6c 6b"),
            script("Ao Ks Cb Jo Js 4o 5c 4s 5s"),
            script("Kc Kb 5o Jc 4c 9b 3b 7c 5b"),
            script("As Cc Cs 6o Jb 3s 7o 7s 6s"),
        ],
        vec!["--seed", "68068", "--games", "1", "--deals", "1", "--chant", "off", "--all-spoiled"]
            .into_iter()
            .chain(["redeal", "--signals", "off"])
            .collect(),
    ));

    let record = validator("record.json");
    let mut seen = BTreeSet::new();
    let mut lines = 0;
    for (k, (bots, extra)) in runs.iter().enumerate() {
        let dir = scratch.join(&format!("run{k}"));
        play(&dir, bots, extra);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            for (n, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let value: Value = serde_json::from_str(line).unwrap();
                let errors: Vec<String> =
                    record.iter_errors(&value).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{}:{}: {line}\n{errors:?}", path.display(), n + 1);
                let kind = value["type"].as_str().unwrap().to_owned();
                assert!(validator(&format!("record/{kind}.json")).is_valid(&value), "{line}");
                match kind.as_str() {
                    "fault" => {
                        seen.insert(format!("fault {}", value["kind"].as_str().unwrap()));
                        seen.insert(format!("penalty {}", value["penalty"].as_str().unwrap()));
                        if value.get("raw_b64").is_some() {
                            seen.insert("raw_b64".into());
                        }
                    }
                    "deal_over" if value["counted"] == false => {
                        seen.insert("redeal".into());
                        assert_eq!(k, redeal_run, "a redeal where none was planned: {line}");
                    }
                    "chant" => {
                        seen.insert(format!("chant {}", value["taken"]));
                    }
                    "header" => {
                        seen.insert(format!(
                            "signals {}",
                            value["rules"]["signals"].as_str().unwrap()
                        ));
                    }
                    _ => {
                        seen.insert(kind);
                    }
                }
                lines += 1;
            }
        }
    }
    // The runs above are only a test of the schema if they wrote these.
    for want in [
        "chant true",
        "chant false",
        "receive",
        "discard",
        "signal",
        "signals off",
        "signals partner",
        "signals public",
        "signals leaky",
        "fault illegal_card",
        "fault wrong_discard",
        "fault bad_signal",
        "fault malformed",
        "fault line_too_long",
        "fault unknown_id",
        "fault timeout",
        "fault stale_id",
        "fault exited",
        "penalty forfeit",
        "penalty replaced",
        "raw_b64",
        "redeal",
    ] {
        assert!(seen.contains(want), "no {want} in the records; seen: {seen:?}");
    }
    assert!(lines > 1000, "only {lines} record lines");
}
