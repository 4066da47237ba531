//! Issue 13 §1-§2 end to end: the rounds before the first lead (surrender and announced
//! mordienne, feature `surrender`) with real bot processes. Every record of a new situation
//! replays, `replay --seat` re-derives each seat's conversation, the page shows the rounds, and a
//! bot that does not take the feature up is never asked and plays on unchanged, fault-free.
//! Issue 24: offering to surrender in every deal loses, whether the referee or the built-in
//! bots answer the offers.

use crate::harness::{
    Record, Scratch, check_record, js_bot, match_args, py_heuristic, py_random, python, quoted,
    raw_log, record_files, referee_ok, rust_bot, s, teed,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// `announced` goes with a target below 10, which an announcement raises to 10 (rules.md 8).
const OPTIONS_ON: &str = "--surrender on --mordienne announced --target 5";

/// The test bot that answers the rounds by the deal number (tests/bots/misbehave.py).
fn pledger(tmp: &Scratch) -> String {
    python("referee/tests/bots/misbehave.py", &format!("pledger {}", quoted(&tmp.pidfile())))
}

/// The records of a match folder, each checked (it replays, header first, footer complete).
fn records(dir: &std::path::Path) -> Vec<Record> {
    let files = record_files(dir);
    assert!(!files.is_empty(), "no records in {}", dir.display());
    files.iter().map(|f| check_record(f)).collect()
}

/// The pledge kinds of a record's deals, with whether the committed team made its mordienne.
fn pledges(r: &Record) -> Vec<(String, bool)> {
    r.lines("deal_over")
        .filter_map(|d| {
            let p = d.get("pledge")?;
            Some((p["kind"].as_str()?.to_string(), d["mordienne"] == true))
        })
        .collect()
}

/// Four bots that take up the feature and answer by the deal number: every outcome of rules.md
/// section 12 in one match, each recorded, replayed, re-derived seat by seat, and on the page.
#[test]
fn every_pledge_outcome_is_recorded_and_replays() {
    let tmp = Scratch::new("every-outcome");
    let bot = pledger(&tmp);
    let dir = tmp.records();
    let flags = format!("--seed 11 --games 3 {OPTIONS_ON}");
    referee_ok(&match_args(&flags, &dir, &[&bot]));
    let mut seen = BTreeSet::new();
    for r in records(&dir) {
        assert!(r.faults().is_empty(), "{:?}", r.faults());
        for (kind, made) in pledges(&r) {
            seen.insert(format!("{kind} {}", if made { "made" } else { "not made" }));
        }
        // Every answer is the bot's own: nobody was answered for.
        for kind in ["offer", "reply", "announce"] {
            assert!(r.lines(kind).all(|l| l.get("auto").is_none()), "{kind}");
        }
    }
    for want in ["accepted not made", "refused not made", "announced not made"] {
        assert!(seen.contains(want), "{want} in {seen:?}");
    }
    let first = &record_files(&dir)[0];
    for seat in ["0", "1", "2", "3"] {
        let conv = referee_ok(&["replay", s(first), "--seat", seat]);
        for kind in ["\"type\":\"offer\"", "\"type\":\"offered\"", "\"pledge\":{"] {
            assert!(conv.contains(kind), "seat {seat}: no {kind}");
        }
    }
    let page = tmp.join("game.html");
    referee_ok(&["replay", s(first), "--html", s(&page)]);
    let html = std::fs::read_to_string(&page).expect("the page");
    for step in [
        "\"type\":\"offer\"",
        "\"type\":\"reply\"",
        "\"type\":\"announce\"",
        "\"kind\":\"refused\"",
    ] {
        assert!(html.contains(step), "the page has no {step}");
    }
}

/// The sample bots themselves (Python and Rust heuristics) under both options: they take the
/// feature up, the rounds happen, and every record replays fault-free.
#[test]
fn the_sample_bots_play_the_rounds() {
    let tmp = Scratch::new("sample-bots");
    let (py, rs) = (py_heuristic(), rust_bot());
    let dir = tmp.records();
    referee_ok(&match_args(&format!("--seed 1 --games 2 {OPTIONS_ON}"), &dir, &[&py, &rs]));
    let mut kinds = BTreeSet::new();
    for r in records(&dir) {
        assert!(r.faults().is_empty(), "{:?}", r.faults());
        assert_eq!(r.header()["seats"][0]["features"], serde_json::json!(["surrender"]));
        kinds.extend(pledges(&r).into_iter().map(|(k, _)| k));
        assert!(r.lines("offer").any(|l| l["raw"].is_string()), "the bots answered offers");
    }
    assert!(kinds.contains("accepted") && kinds.contains("announced"), "{kinds:?}");
}

/// The tee's byte-exact log of `seat` in a match of four bots that do not take the feature up,
/// with `flags`; and the records.
fn conversation(tmp: &Scratch, name: &str, flags: &str) -> (Vec<String>, Vec<Record>) {
    let log = tmp.join(&format!("{name}.jsonl"));
    let js = teed(&log, 1, &js_bot());
    let random = py_random();
    let dir = tmp.join(name);
    referee_ok(&match_args(flags, &dir, &[&random, &js, &random, &random]));
    let raw = std::fs::read_to_string(raw_log(&log)).expect("the tee's log");
    (raw.lines().map(str::to_string).collect(), records(&dir))
}

/// A bot that does not take the feature up is never asked the new questions nor told their
/// notices: with both options on, its conversation is byte for byte the one it has with both
/// off, but for the `rules` of its `game` lines and the `surrender` its hello is offered; with
/// both off, its hello is the one bots got before the feature existed. The fallback answers for
/// it (never offers, accepts, never announces), without a fault, so no deal is committed and
/// `announced` scores as `on`; any message the referee added for it would break the equality.
#[test]
fn a_bot_without_the_feature_has_the_same_conversation() {
    let tmp = Scratch::new("unchanged");
    let base = "--seed 5 --games 2";
    let (off, _) = conversation(&tmp, "off", &format!("{base} --target 5"));
    let (on, recs) = conversation(&tmp, "on", &format!("{base} {OPTIONS_ON}"));
    assert_eq!(off.len(), on.len(), "the conversations differ in length");
    let mut games = 0;
    for (a, b) in off.iter().zip(&on) {
        if a == b {
            continue;
        }
        // Each raw line is "> " or "< " and the bytes that crossed the pipe.
        let json = |l: &str| -> Value { serde_json::from_str(&l[2..]).expect("JSON") };
        let (va, vb) = (json(a), json(b));
        if vb["type"] == "hello" {
            // The feature is offered only where the rules hold its rounds.
            assert_eq!(va["features"], serde_json::json!(["signals", "persistent"]));
            assert_eq!(vb["features"], serde_json::json!(["signals", "persistent", "surrender"]));
            let mut vb = vb.clone();
            vb["features"] = va["features"].clone();
            assert_eq!(va, vb, "the hello lines differ beyond the features");
            continue;
        }
        assert_eq!(vb["type"], "game", "only the hello and game lines may differ:\n{a}\n{b}");
        let mut rules = vb["rules"].clone();
        assert_eq!(rules["surrender"], "on");
        assert_eq!(rules["mordienne"], "announced");
        rules.as_object_mut().expect("rules").remove("surrender");
        rules["mordienne"] = "on".into();
        let mut vb = vb.clone();
        vb["rules"] = rules;
        assert_eq!(va, vb, "the game lines differ beyond the two options");
        games += 1;
    }
    assert_eq!(games, 2, "each game line states the options");
    let hello = off.iter().find(|l| l.starts_with("> ")).expect("a hello");
    let hello: Value = serde_json::from_str(&hello[2..]).expect("JSON");
    assert_eq!(hello["features"], serde_json::json!(["signals", "persistent"]), "{hello}");
    for r in &recs {
        assert!(r.faults().is_empty(), "{:?}", r.faults());
        let answers: Vec<&Value> =
            ["offer", "reply", "announce"].iter().flat_map(|k| r.lines(k)).collect();
        assert!(!answers.is_empty(), "the rounds were played");
        assert!(answers.iter().all(|l| l["auto"] == true && l.get("raw").is_none()));
        assert!(r.lines("offer").all(|l| l["offer"] == false));
    }
}

/// Feature bots and bots without it at one table: the sample bots that do not take it up (the
/// JavaScript bot and the Python random bot) play fault-free and are told nothing of the rounds.
#[test]
fn a_mixed_table_plays_fault_free() {
    let tmp = Scratch::new("mixed");
    let log = tmp.join("js.jsonl");
    let (py, rs, js, random) = (py_heuristic(), rust_bot(), teed(&log, 1, &js_bot()), py_random());
    let dir = tmp.records();
    let flags = format!("--seed 4 --games 2 {OPTIONS_ON}");
    referee_ok(&match_args(&flags, &dir, &[&py, &js, &rs, &random]));
    for r in records(&dir) {
        assert!(r.faults().is_empty(), "{:?}", r.faults());
        assert!(r.header()["seats"][1].get("features").is_none());
        assert!(r.lines("announce").any(|l| l["seat"] == 0 && l["raw"].is_string()));
        assert!(r.lines("announce").filter(|l| l["seat"] == 1).all(|l| l["auto"] == true));
    }
    let raw = std::fs::read_to_string(raw_log(&log)).expect("the tee's log");
    for kind in ["offer", "reply", "announce", "offered", "replied", "announced"] {
        assert!(!raw.contains(&format!("{{\"type\":\"{kind}\"")), "the JS bot was sent {kind}");
    }
}

/// Issue 24, the exploit: a bot that offers to surrender in every deal (tests/bots/misbehave.py
/// `offerer`) loses every pairing of a duplicate tournament, its paired deal score below zero,
/// against the random bot (which does not take the feature up: the referee's automatic reply,
/// acceptance, answers for it) and against the heuristic and search bots (which answer the
/// offers themselves). Before, the automatic reply refused, and the refusers, committed to a
/// mordienne they almost never made, gave the offerer 2 points a deal.
#[test]
fn offering_in_every_deal_loses_to_the_builtin_bots() {
    let sc = Scratch::new("offerer");
    let offerer = sc.misbehave("offerer");
    let entrants: String = [
        ("offerer", offerer.as_str()),
        ("random", "builtin:random"),
        ("heuristic", "builtin:heuristic"),
        ("search", "builtin:search"),
    ]
    .iter()
    .map(|(n, c)| format!("[[entrants]]\nname = \"{n}\"\ncommand = {c:?}\n\n"))
    .collect();
    let config = sc.write(
        "offerer.toml",
        &format!(
            "seed = 24\ngames = 2\ngauntlet = \"offerer\"\nconcurrency = 1\n\n[rules]\n\
             surrender = \"on\"\n\n[clock]\nhandshake-ms = 20000\n\n{entrants}"
        ),
    );
    let out = sc.join("out");
    referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    let st = crate::harness::read_json(&out.join("standings.json"));
    let pairs = st["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 3, "{st}");
    for pair in pairs {
        let score = pair["paired_deal_score"].as_f64().expect("paired deals");
        // Scores are `a`'s over `b`: the offerer's, negated when it is `b`.
        let offerer_score = if pair["a"] == "offerer" { score } else { -score };
        assert!(offerer_score < 0.0, "the offerer did not lose: {pair}");
    }
    let records = records(&out.join("records"));
    let offers: usize =
        records.iter().map(|r| r.lines("offer").filter(|l| l["offer"] == true).count()).sum();
    assert!(offers >= 20, "the offerer offered only {offers} times");
}
