//! The standings' tests: small journals computed, and what each file and the table say of them.

use super::compute::{paired_deals, round};
use super::*;
use crate::tournament::config::Format;
use crate::tournament::journal::{DealPoints, Entry, EntryStatus, Plan};
use crate::tournament::sprt::SprtWalk;
use crate::tournament::stats::Verdict;

fn entry(game: u64, unit: u64, room: u8, winner: Option<&str>, deals: &[(u16, u8, u8)]) -> Entry {
    Entry {
        game,
        unit,
        a: "A".into(),
        b: "B".into(),
        round: unit,
        room,
        a_team: u8::from(room == 2),
        status: EntryStatus::Played,
        reason: None,
        record: None,
        seed: unit,
        score: [
            deals.iter().map(|d| u16::from(d.1)).sum(),
            deals.iter().map(|d| u16::from(d.2)).sum(),
        ],
        winner: winner.map(str::to_string),
        forfeit: None,
        deals: deals.iter().map(|&(deal, a, b)| DealPoints { deal, a, b }).collect(),
        faults: Default::default(),
        think: Default::default(),
        duration_ms: 0,
        disqualified: Vec::new(),
    }
}

fn plan(format: Format, games: u64) -> Plan {
    Plan {
        file: "aluette-tournament".into(),
        version: 1,
        seed: 1,
        format,
        games,
        gauntlet: None,
        entrants: ["A", "B"]
            .iter()
            .map(|n| crate::tournament::journal::PlanEntrant {
                name: n.to_string(),
                command: "builtin:random".into(),
            })
            .collect(),
        settings: serde_json::Value::Null,
        scheduled: games * format.rooms(),
        shard: None,
        sprt: Some(SprtParams { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }),
        disqualify: Default::default(),
    }
}

#[test]
fn paired_deal_score_compares_the_same_cards() {
    // Deal 1: A's cards win 1 point in both rooms (A in room 1, B in room 2): even.
    // Deal 2: the room-1 cards of A win 2 (mordienne); in room 2 B, holding them, wins only
    // 1: A gains 2 - 1 = +1. Deal 3: A wins 1 in room 1 and the opponents' cards make A
    // win 1 in room 2 as well: +2. Deal 4 is played in room 1 only (a redeal shifted room 2
    // or the game ended): unpaired.
    let r1 = entry(1, 1, 1, Some("A"), &[(1, 1, 0), (2, 2, 0), (3, 1, 0), (4, 0, 1)]);
    let r2 = entry(2, 1, 2, Some("B"), &[(1, 0, 1), (2, 0, 1), (3, 1, 0)]);
    assert_eq!(paired_deals(&r1, &r2), vec![0, 1, 2]);
    let s = compute(&plan(Format::Duplicate, 1), &[r1, r2]);
    let a = s.entrants.iter().find(|r| r.name == "A").unwrap();
    let b = s.entrants.iter().find(|r| r.name == "B").unwrap();
    assert_eq!(a.paired_deals, 3);
    assert_eq!(a.paired_deal_score, Some(1.0));
    assert_eq!(b.paired_deal_score, Some(-1.0));
    assert_eq!((a.won, a.lost, b.won, b.lost), (1, 1, 1, 1));
    assert_eq!(s.pairs[0].units, 1);
    assert_eq!(s.pairs[0].a_score, Some(0.5));
    assert_eq!(s.sprt.as_ref().unwrap().counts, vec![0, 0, 1, 0, 0]);
}

#[test]
fn incomplete_deal_sets_count_in_games_but_not_in_pairs() {
    let r1 = entry(1, 1, 1, Some("A"), &[(1, 1, 0)]);
    let mut r2 = entry(2, 1, 2, None, &[]);
    r2.status = EntryStatus::NotPlayed;
    let s = compute(&plan(Format::Duplicate, 1), &[r1, r2]);
    assert_eq!(s.pairs[0].units, 0);
    assert_eq!(s.pairs[0].not_played, 1);
    assert_eq!((s.tournament.played, s.tournament.not_played, s.tournament.pending), (1, 1, 0));
    assert_eq!(s.entrants[0].elo.0, None);
}

#[test]
fn round_robin_pair_elo_and_ranking() {
    let mut entries = Vec::new();
    for g in 1..=4u64 {
        let w = if g == 4 { "B" } else { "A" };
        entries.push(entry(g, g, 0, Some(w), &[(1, 1, 0)]));
    }
    let s = compute(&plan(Format::RoundRobin, 4), &entries);
    assert_eq!(s.entrants[0].name, "A");
    assert_eq!(s.pairs[0].elo.0, Some(190.8));
    assert_eq!(s.entrants[0].elo.0, Some(95.4));
    assert_eq!(s.sprt.as_ref().unwrap().counts, vec![1, 0, 3]);
    let csv_ok = text(&s).contains("A vs B: 4 games, +3 =0 -1 (75.0%)");
    assert!(csv_ok, "{}", text(&s));
}

/// The files of `s`, written and read back.
fn files(s: &Standings, name: &str) -> (serde_json::Value, String, String) {
    let dir = std::env::temp_dir().join(format!("standings-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_files(&dir, s).unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let out = (
        serde_json::from_str(&read("standings.json")).unwrap(),
        read("standings.csv"),
        read("pairs.csv"),
    );
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn a_clean_sweep_is_infinite_and_no_units_is_no_data_in_every_file() {
    let sweep: Vec<Entry> = (1..=3).map(|g| entry(g, g, 0, Some("A"), &[(1, 1, 0)])).collect();
    let s = compute(&plan(Format::RoundRobin, 3), &sweep);
    let (json, _, pairs) = files(&s, "sweep");
    assert_eq!(json["pairs"][0]["elo"], "+inf");
    assert_eq!(json["pairs"][0]["elo_high"], "+inf");
    let row = pairs.lines().nth(1).unwrap();
    assert!(row.ends_with(",+inf,+inf,+inf"), "{row}");
    assert!(text(&s).contains("Elo +inf over 3 games"), "{}", text(&s));
    // The other way round.
    let lost: Vec<Entry> = (1..=3).map(|g| entry(g, g, 0, Some("B"), &[(1, 0, 1)])).collect();
    let s = compute(&plan(Format::RoundRobin, 3), &lost);
    let (json, _, pairs) = files(&s, "lost");
    assert_eq!(json["pairs"][0]["elo"], "-inf");
    assert!(pairs.lines().nth(1).unwrap().ends_with(",-inf,-inf,-inf"), "{pairs}");
    // Ratings stay finite (the fit's virtual draw): numbers in both files.
    assert!(json["entrants"][0]["elo"].as_f64().is_some_and(f64::is_finite), "{json}");
    // Nothing played at all: null and empty, never an infinity.
    let s = compute(&plan(Format::RoundRobin, 3), &[]);
    let (json, entrants, pairs) = files(&s, "none");
    assert_eq!(json["pairs"][0]["elo"], serde_json::Value::Null);
    assert_eq!(json["entrants"][0]["elo"], serde_json::Value::Null);
    assert!(pairs.lines().nth(1).unwrap().ends_with(",,,"), "{pairs}");
    let row = entrants.lines().nth(1).unwrap();
    assert!(!row.contains("inf"), "{row}");
    // Duplicate with only half a deal set: a won game, but no unit: no data, not +inf.
    let half = [entry(1, 1, 1, Some("A"), &[(1, 1, 0)])];
    let s = compute(&plan(Format::Duplicate, 1), &half);
    assert_eq!(s.pairs[0].elo.0, None);
    assert!(!text(&s).contains("inf"), "{}", text(&s));
}

#[test]
fn the_standings_say_the_sprt_stopped_the_match() {
    // Five deal sets swept by A; in journal order the decision comes at the fourth, the
    // fifth was under way; the rest were not needed.
    let mut p = plan(Format::Duplicate, 10);
    p.sprt = Some(SprtParams { elo0: 0.0, elo1: 200.0, alpha: 0.2, beta: 0.2 });
    let mut entries = Vec::new();
    for u in 1..=5 {
        entries.push(entry(2 * u - 1, u, 1, Some("A"), &[(1, 1, 0)]));
        entries.push(entry(2 * u, u, 2, Some("A"), &[(1, 1, 0)]));
    }
    let mut walk = SprtWalk::new(p.sprt.unwrap(), Format::Duplicate);
    let mut decided_at = None;
    for (k, e) in entries.iter().enumerate() {
        walk.absorb(e);
        if decided_at.is_none() && walk.decision().is_some() {
            decided_at = Some(k);
        }
    }
    let d = walk.decision().expect("five swept deal sets decide at these bounds");
    assert!(decided_at.unwrap() < entries.len() - 1, "decided before the last set");
    for g in 11..=20u64 {
        let u = g.div_ceil(2);
        let mut e = entry(g, u, if g % 2 == 1 { 1 } else { 2 }, None, &[]);
        e.status = EntryStatus::NotNeeded;
        entries.push(e);
    }
    let s = compute(&p, &entries);
    let sp = s.sprt.as_ref().unwrap();
    assert_eq!(sp.verdict, Some(Verdict::H1));
    assert_eq!(sp.llr, round(d.llr, 4), "the decision's LLR, not the final counts'");
    assert_eq!(sp.units, d.units);
    assert_eq!(sp.units + sp.units_after_decision, 5);
    assert_eq!(sp.games_not_needed, 10);
    assert_eq!((s.tournament.played, s.tournament.not_played), (10, 0));
    assert_eq!((s.tournament.not_needed, s.tournament.pending), (10, 0));
    assert_eq!(s.entrants[0].not_played, 0, "games not needed are not 'not played'");
    let t = text(&s);
    assert!(t.contains("10 not needed (the SPRT had decided)"), "{t}");
    assert!(t.contains(&format!("LLR {:.2} after {} deal sets", d.llr, d.units)), "{t}");
    assert!(t.contains("The match stopped on the SPRT's decision: 10 games not needed"), "{t}");
    assert!(!t.contains("(10 not played)"), "{t}");
}

/// The CPU times: totals and means over the measured answers, the median and 90th percentile of
/// the games' means; an entrant nobody measured (a TCP bot) has none, in every file.
#[test]
fn cpu_times_are_totalled_and_their_games_ranked() {
    use crate::tournament::journal::Think;
    let measured = |cpu_ms: u64| Think {
        answers: 10,
        think_us: 0,
        max_us: 0,
        cpu_answers: 10,
        cpu_us: cpu_ms * 10_000,
    };
    let entries: Vec<Entry> = [1, 2, 3, 4, 10]
        .iter()
        .enumerate()
        .map(|(k, &ms)| {
            let mut e = entry(k as u64 + 1, k as u64 + 1, 1, Some("A"), &[(1, 1, 0)]);
            e.think = [measured(ms), Think { answers: 10, ..Think::default() }];
            e
        })
        .collect();
    let s = compute(&plan(Format::RoundRobin, 5), &entries);
    let a = s.entrants.iter().find(|r| r.name == "A").unwrap();
    assert_eq!(a.cpu_s, Some(0.2));
    assert_eq!(a.cpu_mean_ms, Some(4.0));
    assert_eq!((a.cpu_p50_ms, a.cpu_p90_ms), (Some(3.0), Some(10.0)));
    let b = s.entrants.iter().find(|r| r.name == "B").unwrap();
    assert_eq!((b.cpu_s, b.cpu_mean_ms, b.cpu_p50_ms, b.cpu_p90_ms), (None, None, None, None));
    let table = text_table::text(&s);
    assert!(table.contains("4.00/3.00/10.00"), "{table}");
}
