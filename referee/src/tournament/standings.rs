//! Standings computed from journal lines alone, so a finished tournament, a stopped one and the
//! merge of several shards' folders give the same table for the same games: entrants' results,
//! ratings, each pair's results, faults and think times; as text, JSON and CSV.

use crate::tournament::config::Format;
use crate::tournament::journal::{Entry, EntryStatus, FaultCounts, Plan};
use crate::tournament::schedule::pairings;
use crate::tournament::sprt::SprtWalk;
use crate::tournament::stats::{self, EloEstimate, SprtParams, Unit, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// What the rating and paired columns mean, written into the JSON so a reader of the file
/// alone knows.
const METHOD: &str = "Ratings: Bradley-Terry (logistic Elo) maximum-likelihood fit, centred on 0, with a 95% sandwich interval computed from the spread of the results. \
An Elo value is a number, \"+inf\" or \"-inf\" when one side won every unit (or an interval end is unbounded), and null when there is no unit to estimate it from. \
A unit of result is a game in a round robin and a deal set (both rooms, averaged) in duplicate. \
Paired deal score (duplicate): for each deal played in both rooms, the entrant's points minus its opponent's, summed over the two rooms (-4..+4): the two partnerships compared on the same cards in the same seats.";

/// `standings.json`: the table computed from the journal alone.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Standings {
    pub(crate) tournament: Overview,
    /// How units and Elo were computed, for people.
    pub(crate) method: String,
    /// One per entrant, best first.
    pub(crate) entrants: Vec<EntrantRow>,
    /// One per pairing.
    pub(crate) pairs: Vec<PairRow>,
    /// The SPRT's state, when the tournament has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sprt: Option<SprtRow>,
}

/// What the tournament is and how far it went.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Overview {
    pub(crate) format: Format,
    /// The tournament seed.
    pub(crate) seed: u64,
    /// Number of entrants.
    pub(crate) entrants: usize,
    pub(crate) games_per_pairing: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) gauntlet: Option<String>,
    /// Games in the whole tournament.
    pub(crate) scheduled: u64,
    pub(crate) played: u64,
    /// Games settled without play because an entrant was disqualified.
    pub(crate) not_played: u64,
    /// Games settled without play because the SPRT had decided.
    pub(crate) not_needed: u64,
    /// Games neither played nor settled yet (stopped, or left to other shards).
    pub(crate) pending: u64,
}

/// One entrant's results (spec/records.md 5.3).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct EntrantRow {
    pub(crate) rank: usize,
    pub(crate) name: String,
    pub(crate) games: u64,
    pub(crate) won: u64,
    pub(crate) drawn: u64,
    pub(crate) lost: u64,
    pub(crate) not_played: u64,
    /// Mean game score (win 1, draw 1/2).
    pub(crate) score: Option<f64>,
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo: Option<f64>,
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo_low: Option<f64>,
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo_high: Option<f64>,
    pub(crate) points_for: u64,
    pub(crate) points_against: u64,
    pub(crate) deals_won: u64,
    pub(crate) deals_played: u64,
    pub(crate) paired_deals: u64,
    pub(crate) paired_deal_score: Option<f64>,
    pub(crate) faults: FaultCounts,
    pub(crate) faults_total: u64,
    pub(crate) disqualified: bool,
    pub(crate) think_mean_ms: Option<f64>,
    pub(crate) think_max_ms: f64,
}

/// One pairing's results, from the point of view of its first entrant `a`.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PairRow {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) games: u64,
    pub(crate) a_won: u64,
    pub(crate) drawn: u64,
    pub(crate) b_won: u64,
    pub(crate) not_played: u64,
    pub(crate) a_points: u64,
    pub(crate) b_points: u64,
    /// Entrant a's mean game score.
    pub(crate) a_score: Option<f64>,
    /// Units (games, or complete deal sets) behind the Elo estimate.
    pub(crate) units: u64,
    pub(crate) paired_deals: u64,
    /// Mean paired deal score of a.
    pub(crate) paired_deal_score: Option<f64>,
    /// Elo of a over b, from the units (trinomial or pentanomial interval); infinite when one
    /// side won every unit, `None` without units.
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo: Option<f64>,
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo_low: Option<f64>,
    #[serde(serialize_with = "elo_json")]
    #[cfg_attr(test, schemars(schema_with = "elo_schema"))]
    pub(crate) elo_high: Option<f64>,
}

/// The SPRT's state (spec/records.md 5.1).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SprtRow {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) model: &'static str,
    #[serde(flatten)]
    pub(crate) params: SprtParams,
    /// Units by score: loss, draw, win (trinomial) or 0, 1/4, 1/2, 3/4, 1 (pentanomial), as
    /// the test counted them: up to its decision.
    pub(crate) counts: Vec<u64>,
    /// The LLR of `counts`: the decision's, once there is one.
    pub(crate) llr: f64,
    pub(crate) lower: f64,
    pub(crate) upper: f64,
    pub(crate) verdict: Option<Verdict>,
    /// The units (games, or whole deal sets in duplicate) in `counts`.
    pub(crate) units: u64,
    /// Units completed after the decision: their games were under way when it came, and count
    /// in the results but not in the test.
    pub(crate) units_after_decision: u64,
    /// Games the decision made unnecessary (settled without play).
    pub(crate) games_not_needed: u64,
}

/// The paired deal scores of entrant a over one deal set: for each deal number counted in both
/// rooms (the same deck), (a - b in room 1) + (a - b in room 2). In room 1 a holds some cards
/// and b the others; in room 2 they hold each other's, so luck cancels and what remains is how
/// much better a played the same cards.
pub(crate) fn paired_deals(room1: &Entry, room2: &Entry) -> Vec<i32> {
    let second: BTreeMap<u16, i32> =
        room2.deals.iter().map(|d| (d.deal, i32::from(d.a) - i32::from(d.b))).collect();
    room1
        .deals
        .iter()
        .filter_map(|d| second.get(&d.deal).map(|r2| i32::from(d.a) - i32::from(d.b) + r2))
        .collect()
}

/// A deal set's pentanomial unit score for a: the mean of its two game scores.
fn pair_score(room1: &Entry, room2: &Entry) -> f64 {
    (room1.score_a() + room2.score_a()) / 2.0
}

#[derive(Default)]
struct Acc {
    row: EntrantRow,
    score_sum: f64,
    think_us: u64,
    answers: u64,
    max_us: u64,
    paired_sum: i64,
}

#[derive(Default)]
struct PairAcc {
    row: PairRow,
    /// Entrant a's game scores summed.
    score_sum: f64,
    /// Unit scores (games, or complete deal sets) for the Elo estimate.
    scores: Vec<f64>,
    paired_sum: i64,
}

/// The standings of the games in `entries` (any order; a game listed twice counts once).
pub(crate) fn compute(plan: &Plan, entries: &[Entry]) -> Standings {
    let names = plan.names();
    let n = names.len();
    let index: BTreeMap<&str, usize> =
        names.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by_key(|e| e.game);
    sorted.dedup_by_key(|e| e.game);
    let gauntlet = plan.gauntlet.as_ref().and_then(|g| index.get(g.as_str()).copied());
    let pair_list = pairings(n, gauntlet);
    let pair_of: BTreeMap<(usize, usize), usize> =
        pair_list.iter().enumerate().map(|(k, &p)| (p, k)).collect();
    let mut acc: Vec<Acc> = names
        .iter()
        .map(|s| Acc {
            row: EntrantRow { name: s.clone(), ..Default::default() },
            ..Default::default()
        })
        .collect();
    let mut pacc: Vec<PairAcc> = pair_list
        .iter()
        .map(|&(a, b)| PairAcc {
            row: PairRow { a: names[a].clone(), b: names[b].clone(), ..Default::default() },
            ..Default::default()
        })
        .collect();
    let mut units: Vec<Unit> = Vec::new();
    let mut disqualified = BTreeSet::new();
    let (mut played, mut not_played, mut not_needed) = (0, 0, 0);
    let mut rooms: BTreeMap<u64, [Option<&Entry>; 2]> = BTreeMap::new();
    for e in &sorted {
        disqualified.extend(e.disqualified.iter().cloned());
        let (Some(&a), Some(&b)) = (index.get(e.a.as_str()), index.get(e.b.as_str())) else {
            continue;
        };
        let Some(&p) = pair_of.get(&(a, b)) else { continue };
        if e.status == EntryStatus::NotNeeded {
            not_needed += 1;
            continue;
        }
        if !e.is_played() {
            not_played += 1;
            acc[a].row.not_played += 1;
            acc[b].row.not_played += 1;
            pacc[p].row.not_played += 1;
            continue;
        }
        played += 1;
        let sa = e.score_a();
        for (side, me) in [(0usize, a), (1, b)] {
            let r = &mut acc[me];
            let mine = if side == 0 { sa } else { 1.0 - sa };
            r.row.games += 1;
            r.score_sum += mine;
            match mine {
                x if x > 0.75 => r.row.won += 1,
                x if x < 0.25 => r.row.lost += 1,
                _ => r.row.drawn += 1,
            }
            r.row.points_for += u64::from(e.score[side]);
            r.row.points_against += u64::from(e.score[1 - side]);
            r.row.deals_played += e.deals.len() as u64;
            r.row.deals_won +=
                e.deals.iter().filter(|d| if side == 0 { d.a > 0 } else { d.b > 0 }).count() as u64;
            r.row.faults.add(&e.faults[side]);
            r.answers += e.think[side].answers;
            r.think_us += e.think[side].think_us;
            r.max_us = r.max_us.max(e.think[side].max_us);
        }
        let pr = &mut pacc[p];
        pr.row.games += 1;
        pr.score_sum += sa;
        match sa {
            x if x > 0.75 => pr.row.a_won += 1,
            x if x < 0.25 => pr.row.b_won += 1,
            _ => pr.row.drawn += 1,
        }
        pr.row.a_points += u64::from(e.score[0]);
        pr.row.b_points += u64::from(e.score[1]);
        match plan.format {
            Format::RoundRobin => {
                units.push(Unit { i: a, j: b, x: sa });
                pr.scores.push(sa);
            }
            Format::Duplicate => {
                if let Some(slot) = (e.room as usize).checked_sub(1).filter(|&r| r < 2) {
                    rooms.entry(e.unit).or_default()[slot] = Some(e);
                }
            }
        }
    }
    // Duplicate: only complete deal sets are units; a set cut by a disqualification or a stop
    // counts in the game totals above but not in the paired statistics.
    for pair in rooms.values() {
        let [Some(r1), Some(r2)] = *pair else { continue };
        let (a, b) = (index[r1.a.as_str()], index[r1.b.as_str()]);
        let p = pair_of[&(a, b)];
        let x = pair_score(r1, r2);
        units.push(Unit { i: a, j: b, x });
        pacc[p].scores.push(x);
        let deals = paired_deals(r1, r2);
        let sum: i64 = deals.iter().map(|&d| i64::from(d)).sum();
        pacc[p].paired_sum += sum;
        pacc[p].row.paired_deals += deals.len() as u64;
        acc[a].paired_sum += sum;
        acc[a].row.paired_deals += deals.len() as u64;
        acc[b].paired_sum -= sum;
        acc[b].row.paired_deals += deals.len() as u64;
    }
    let ratings = stats::bradley_terry(n, &units);
    let mut rows: Vec<EntrantRow> = acc
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            let mut row = a.row;
            row.score = (row.games > 0).then(|| round(a.score_sum / row.games as f64, 4));
            if let Some(r) = ratings[i] {
                row.elo = Some(round(r.elo, 1));
                row.elo_low = Some(round(r.low(), 1));
                row.elo_high = Some(round(r.high(), 1));
            }
            row.paired_deal_score = (row.paired_deals > 0)
                .then(|| round(a.paired_sum as f64 / row.paired_deals as f64, 4));
            row.faults_total = row.faults.total();
            row.disqualified = disqualified.contains(&row.name);
            row.think_mean_ms =
                (a.answers > 0).then(|| round(a.think_us as f64 / a.answers as f64 / 1000.0, 3));
            row.think_max_ms = round(a.max_us as f64 / 1000.0, 3);
            row
        })
        .collect();
    // Disqualified entrants last; then by rating, score, and name for a stable order.
    rows.sort_by(|x, y| {
        x.disqualified
            .cmp(&y.disqualified)
            .then(y.elo.unwrap_or(f64::MIN).total_cmp(&x.elo.unwrap_or(f64::MIN)))
            .then(y.score.unwrap_or(-1.0).total_cmp(&x.score.unwrap_or(-1.0)))
            .then(x.name.cmp(&y.name))
    });
    for (k, r) in rows.iter_mut().enumerate() {
        r.rank = k + 1;
    }
    let pairs: Vec<PairRow> = pacc
        .into_iter()
        .map(|p| {
            let mut row = p.row;
            let EloEstimate { elo, low, high } = stats::elo_estimate(&p.scores);
            row.units = p.scores.len() as u64;
            row.a_score = (row.games > 0).then(|| round(p.score_sum / row.games as f64, 4));
            row.elo = elo.map(|x| round(x, 1));
            row.elo_low = low.map(|x| round(x, 1));
            row.elo_high = high.map(|x| round(x, 1));
            row.paired_deal_score = (row.paired_deals > 0)
                .then(|| round(p.paired_sum as f64 / row.paired_deals as f64, 4));
            row
        })
        .collect();
    let sprt = plan.sprt.filter(|_| pair_list.len() == 1).map(|params| {
        let (a, b) = pair_list[0];
        // In the journal's order, as the scheduler saw the games: the same walk, the same LLR.
        let mut walk = SprtWalk::new(params, plan.format);
        for e in entries {
            walk.absorb(e);
        }
        let (lower, upper) = params.bounds();
        SprtRow {
            a: names[a].clone(),
            b: names[b].clone(),
            model: if plan.format == Format::Duplicate { "pentanomial" } else { "trinomial" },
            params,
            counts: walk.counts().to_vec(),
            llr: round(walk.llr(), 4),
            lower: round(lower, 4),
            upper: round(upper, 4),
            verdict: walk.decision().map(|d| d.verdict),
            units: walk.counts().iter().sum(),
            units_after_decision: walk.units_after(),
            games_not_needed: not_needed,
        }
    });
    let scheduled = plan.scheduled;
    Standings {
        tournament: Overview {
            format: plan.format,
            seed: plan.seed,
            entrants: n,
            games_per_pairing: plan.games,
            gauntlet: plan.gauntlet.clone(),
            scheduled,
            played,
            not_played,
            not_needed,
            pending: scheduled.saturating_sub(played + not_played + not_needed),
        },
        method: METHOD.into(),
        entrants: rows,
        pairs,
        sprt,
    }
}

/// `x` rounded to `decimals` places (dividing by a power of ten gives the closest double).
fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    // Adding 0.0 turns -0.0 into 0.0, which reads better than "-0".
    (x * scale).round() / scale + 0.0
}

/// An Elo value for a person: signed and rounded, `+inf`/`-inf`, or `-` without data.
fn signed(x: Option<f64>) -> String {
    match x.map(f64::round) {
        None => "-".into(),
        Some(0.0) => "0".into(),
        Some(v) if v.is_infinite() => if v > 0.0 { "+inf" } else { "-inf" }.into(),
        Some(v) => format!("{v:+}"),
    }
}

/// An Elo value and its interval; no interval when the value itself is infinite or absent.
fn with_interval(elo: Option<f64>, low: Option<f64>, high: Option<f64>) -> String {
    match elo {
        Some(v) if v.is_finite() => format!("{} [{}, {}]", signed(elo), signed(low), signed(high)),
        _ => signed(elo),
    }
}

/// An Elo value in the JSON file: a number, "+inf" or "-inf" (JSON has no infinity, and
/// serde_json would write `null`, the value of "no data"), or null without data.
fn elo_json<S: serde::Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        None => s.serialize_none(),
        Some(v) if v.is_infinite() => s.serialize_str(if *v > 0.0 { "+inf" } else { "-inf" }),
        Some(v) => s.serialize_f64(*v),
    }
}

/// The schema of what `elo_json` writes.
#[cfg(test)]
fn elo_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "An Elo value: a number, \"+inf\" or \"-inf\" when one side won every unit (or an interval end is unbounded), null without units.",
        "anyOf": [{ "type": "number" }, { "enum": ["+inf", "-inf"] }, { "type": "null" }]
    })
}

/// An Elo value in a CSV file: a number, `+inf` or `-inf`, or empty without data.
fn elo_csv(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_infinite() => if v > 0.0 { "+inf" } else { "-inf" }.into(),
        other => opt(other),
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

/// The standings as a readable table.
pub(crate) fn text(s: &Standings) -> String {
    let t = &s.tournament;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nStandings: {} tournament, {} entrants, {} games per pairing{}, seed {}",
        t.format.as_str(),
        t.entrants,
        t.games_per_pairing,
        t.gauntlet.as_ref().map(|g| format!(", gauntlet of {g}")).unwrap_or_default(),
        t.seed
    );
    let mut settled =
        format!("{} of {} games played, {} not played", t.played, t.scheduled, t.not_played);
    if t.not_needed > 0 {
        let _ = write!(settled, ", {} not needed (the SPRT had decided)", t.not_needed);
    }
    let _ = writeln!(out, "{settled}, {} pending", t.pending);
    let width = s.entrants.iter().map(|r| r.name.chars().count()).max().unwrap_or(5).max(7);
    let _ = writeln!(
        out,
        "\n  # {:<width$}  games    W    D    L  score    Elo [95% CI]        points     deals won  paired  faults t/c/i/p  think ms mean/max",
        "entrant"
    );
    for r in &s.entrants {
        let ci = with_interval(r.elo, r.elo_low, r.elo_high);
        let think = match r.think_mean_ms {
            Some(m) => format!("{m:.2}/{:.1}", r.think_max_ms),
            None => "-".into(),
        };
        let f = &r.faults;
        let _ = writeln!(
            out,
            "{:>3} {:<width$}  {:>5} {:>4} {:>4} {:>4} {:>6}  {:<19} {:>5}-{:<5} {:>5}/{:<5} {:>6}  {:>15}  {}{}",
            r.rank,
            r.name,
            r.games,
            r.won,
            r.drawn,
            r.lost,
            pct(r.score),
            ci,
            r.points_for,
            r.points_against,
            r.deals_won,
            r.deals_played,
            r.paired_deal_score.map_or("-".into(), |p| format!("{p:+.2}")),
            format!("{}/{}/{}/{}", f.timeouts, f.crashes, f.illegal, f.protocol),
            think,
            if r.disqualified {
                "  DISQUALIFIED".to_string()
            } else if r.not_played > 0 {
                format!("  ({} not played)", r.not_played)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "\nPairs (from the first entrant's side):");
    for p in &s.pairs {
        let mut line = format!(
            "  {} vs {}: {} games, +{} ={} -{} ({}), points {}-{}, Elo {} over {} {}",
            p.a,
            p.b,
            p.games,
            p.a_won,
            p.drawn,
            p.b_won,
            pct(p.a_score),
            p.a_points,
            p.b_points,
            with_interval(p.elo, p.elo_low, p.elo_high),
            p.units,
            if t.format == Format::Duplicate { "deal sets" } else { "games" }
        );
        if let Some(d) = p.paired_deal_score {
            let _ = write!(line, ", paired deal score {d:+.3} over {} deals", p.paired_deals);
        }
        if p.not_played > 0 {
            let _ = write!(line, ", {} not played", p.not_played);
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(sp) = &s.sprt {
        let verdict = match sp.verdict {
            Some(Verdict::H1) => {
                format!("H1 accepted: {} is stronger by about {} Elo or more", sp.a, sp.params.elo1)
            }
            Some(Verdict::H0) => {
                format!("H0 accepted: {} is not stronger by {} Elo", sp.a, sp.params.elo1)
            }
            None => "no decision yet".into(),
        };
        let unit = if sp.model == "pentanomial" { "deal sets" } else { "games" };
        let _ = writeln!(
            out,
            "\nSPRT [{}, {}] alpha {} beta {} ({} GSPRT): LLR {:.2} after {} {unit}, bounds ({:.2}, {:.2}): {verdict}",
            sp.params.elo0,
            sp.params.elo1,
            sp.params.alpha,
            sp.params.beta,
            sp.model,
            sp.llr,
            sp.units,
            sp.lower,
            sp.upper
        );
        if sp.verdict.is_some() {
            let mut line = format!(
                "The match stopped on the SPRT's decision: {} games not needed",
                sp.games_not_needed
            );
            match sp.units_after_decision {
                0 => {}
                n => {
                    let what = if n == 1 { unit.trim_end_matches('s') } else { unit };
                    let _ = write!(
                        line,
                        "; {n} {what} under way at the decision finished, and count in the results above but not in the test",
                    );
                }
            }
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(
        out,
        "\nfaults t/c/i/p: timeouts, crashes, illegal moves, protocol errors; paired: mean paired deal score (duplicate)"
    );
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// Writes standings.json, standings.csv (one row per entrant) and pairs.csv into `dir`.
pub(crate) fn write_files(dir: &Path, s: &Standings) -> Result<(), String> {
    let json = serde_json::to_string_pretty(s).unwrap_or_default() + "\n";
    let mut entrants = String::from(
        "rank,name,games,won,drawn,lost,not_played,score,elo,elo_low,elo_high,points_for,points_against,deals_won,deals_played,paired_deals,paired_deal_score,timeouts,crashes,illegal,protocol,faults,disqualified,think_mean_ms,think_max_ms\n",
    );
    for r in &s.entrants {
        let f = &r.faults;
        let _ = writeln!(
            entrants,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.rank,
            csv_field(&r.name),
            r.games,
            r.won,
            r.drawn,
            r.lost,
            r.not_played,
            opt(r.score),
            elo_csv(r.elo),
            elo_csv(r.elo_low),
            elo_csv(r.elo_high),
            r.points_for,
            r.points_against,
            r.deals_won,
            r.deals_played,
            r.paired_deals,
            opt(r.paired_deal_score),
            f.timeouts,
            f.crashes,
            f.illegal,
            f.protocol,
            r.faults_total,
            r.disqualified,
            opt(r.think_mean_ms),
            r.think_max_ms
        );
    }
    let mut pairs = String::from(
        "a,b,games,a_won,drawn,b_won,not_played,a_score,a_points,b_points,units,paired_deals,paired_deal_score,elo,elo_low,elo_high\n",
    );
    for p in &s.pairs {
        let _ = writeln!(
            pairs,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&p.a),
            csv_field(&p.b),
            p.games,
            p.a_won,
            p.drawn,
            p.b_won,
            p.not_played,
            opt(p.a_score),
            p.a_points,
            p.b_points,
            p.units,
            p.paired_deals,
            opt(p.paired_deal_score),
            elo_csv(p.elo),
            elo_csv(p.elo_low),
            elo_csv(p.elo_high)
        );
    }
    for (name, text) in
        [("standings.json", json), ("standings.csv", entrants), ("pairs.csv", pairs)]
    {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::journal::{DealPoints, EntryStatus};

    fn entry(
        game: u64,
        unit: u64,
        room: u8,
        winner: Option<&str>,
        deals: &[(u16, u8, u8)],
    ) -> Entry {
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
        assert_eq!(s.entrants[0].elo, None);
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
        assert_eq!(s.pairs[0].elo, Some(190.8));
        assert_eq!(s.entrants[0].elo, Some(95.4));
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
        assert_eq!(s.pairs[0].elo, None);
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
}
