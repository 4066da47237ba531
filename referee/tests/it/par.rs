//! Issue 30 end to end: `referee replay --par` prints each card's par and cost and a summary per
//! seat, the same on every run; `referee par` tables each bot's mean cost per card over a records
//! folder; the viewer shows each card's cost in real Chromium; `--par` is refused with `--seat`
//! (it is computed from every hand).

use crate::harness::{Scratch, ensure_chromium, match_args, referee_fails, referee_ok, s};
use crate::html_viewer::{chromium, element, embedded_data, fixture, read, text};
use serde_json::Value;
use std::path::Path;

/// A small budget keeps a debug build quick; it also leaves the first tricks unsolved ("?").
const NODES: &str = "30000";

/// The card lines of a `replay --par` account: (par before, par after, cost) as printed.
fn card_lines(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter(|l| l.contains(" plays "))
        .map(|l| {
            let (_, rest) = l.split_once(": par ").expect("a par on every card line");
            let (pars, cost) = rest.split_once(", cost ").expect("a cost on every card line");
            let (before, after) = pars.split_once(" -> ").expect("before -> after");
            (before.to_string(), after.to_string(), cost.to_string())
        })
        .collect()
}

#[test]
fn replay_par_prints_every_card_and_a_summary_the_same_twice() {
    let tmp = Scratch::new("replay-par");
    let dir = tmp.records();
    referee_ok(&match_args("--seed 3 --games 1 --deals 2", &dir, &[]));
    let record = dir.join("game-000001.jsonl");
    let args = ["replay", s(&record), "--par", "--par-nodes", NODES, "--quiet"];
    let out = referee_ok(&args);
    assert_eq!(out, referee_ok(&args), "replay --par is deterministic");
    let cards = card_lines(&out);
    assert_eq!(cards.len(), 2 * 36, "every card of both deals:\n{out}");
    for (before, after, cost) in &cards {
        if let (Ok(b), Ok(a), Ok(c)) =
            (before.parse::<i8>(), after.parse::<i8>(), cost.parse::<i8>())
        {
            assert!(c >= 0 && b - a == c, "cost = par before - par after, never negative: {out}");
        }
    }
    // The last tricks are small enough for any budget: their cards are all solved.
    assert!(cards.iter().rev().take(8).all(|(_, _, c)| c != "?"), "{out}");
    let summary: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Per seat")).collect();
    assert_eq!(summary.len(), 5, "a summary line per seat:\n{out}");
    for line in &summary[1..] {
        assert!(line.contains("deal 1 ") && line.contains("deal 2 "), "{line}");
        assert!(line.contains("costliest: "), "{line}");
    }
    assert!(out.contains("perfect information"), "the account says what par measures:\n{out}");
}

#[test]
fn referee_par_tables_each_bot_over_a_records_folder() {
    let tmp = Scratch::new("par-folder");
    let dir = tmp.records();
    referee_ok(&match_args("--seed 4 --games 2 --deals 1", &dir, &[]));
    let out = referee_ok(&["par", s(&dir), "--nodes", NODES]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Par over 2 records"), "{out}");
    assert!(lines[1].contains("mean cost"), "{out}");
    // The default bots: heuristic on seats 0+2, random on 1+3; each played 9 cards a deal.
    assert_eq!(lines.len(), 4, "{out}");
    for row in &lines[2..] {
        let cols: Vec<&str> = row.split_whitespace().collect();
        let n = cols.len();
        let (solved, unsolved): (u64, u64) =
            (cols[n - 5].parse().unwrap(), cols[n - 1].parse().unwrap());
        assert_eq!(solved + unsolved, 2 * 2 * 9, "{row}");
    }
}

#[test]
fn par_is_refused_with_a_seat() {
    let tmp = Scratch::new("par-seat");
    let dir = tmp.records();
    referee_ok(&match_args("--seed 5 --games 1 --deals 1", &dir, &[]));
    let record = dir.join("game-000001.jsonl");
    let err = referee_fails(&["replay", s(&record), "--seat", "1", "--par"]);
    assert!(err.contains("--par") || err.contains("--seat"), "{err}");
}

/// Issue 30: a page written with `--par` shows each card's cost beside it in the log, in real
/// Chromium, as the page's data says (null: not solved within the budget, shown as "?").
#[test]
fn the_viewer_shows_each_cards_cost_against_par() {
    ensure_chromium();
    let f = fixture();
    let record = f.dir.join("records").join("game-000001.jsonl");
    let page = f.dir.join("game-par.html");
    let (r, p) = (record.to_str().unwrap(), page.to_str().unwrap());
    referee_ok(&["replay", r, "--html", p, "--par", "--par-nodes", NODES]);
    let data = embedded_data(&read(&page));
    let want: Vec<String> = data["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "play")
        .map(|e| match &e["par"]["cost"] {
            Value::Null => "?".to_string(),
            c => c.to_string(),
        })
        .collect();
    assert_eq!(want.len(), f.events.iter().filter(|e| e["type"] == "play").count());
    assert!(want.iter().any(|c| c != "?"), "the last tricks are solved within any budget");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target folder");
    let shot = target.join("html-viewer-par.png");
    let dom = chromium(&page, "keys=End", Some(&shot));
    let log = element(&dom, "log");
    let shown: Vec<String> = log
        .split("data-testid=\"par-cost\"")
        .skip(1)
        .map(|rest| {
            let at = rest.find("data-cost=\"").expect("a cost attribute") + "data-cost=\"".len();
            rest[at..].split('"').next().unwrap().to_string()
        })
        .collect();
    assert_eq!(shown, want, "every play of the log shows its cost");
    assert!(text(log).contains(", cost "), "the cost is written out");
    // The page without --par has no cost at all.
    assert!(!read(&f.full).contains("\"par\":{"), "no par unless asked");
    eprintln!("screenshot: {}", shot.display());
}
