//! Computing the standings from journal entries: each entrant's and each pairing's results,
//! the paired deal scores of duplicate, the ratings and the SPRT's state.

use super::{Elo, EntrantRow, METHOD, Overview, PairRow, SprtRow, Standings};
use crate::tournament::config::Format;
use crate::tournament::journal::{Entry, EntryStatus, Plan};
use crate::tournament::schedule::pairings;
use crate::tournament::sprt::SprtWalk;
use crate::tournament::stats::{self, EloEstimate, Unit};
use std::collections::{BTreeMap, BTreeSet};

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

/// The nearest-rank `p`th percentile of sorted values; `None` without values.
fn nearest_rank(sorted: &[f64], p: usize) -> Option<f64> {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

#[derive(Default)]
struct Acc {
    row: EntrantRow,
    score_sum: f64,
    think_us: u64,
    answers: u64,
    max_us: u64,
    cpu_us: u64,
    cpu_answers: u64,
    /// Each game's mean CPU time per measured answer, in microseconds.
    cpu_per_game: Vec<f64>,
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
            let th = &e.think[side];
            if th.cpu_answers > 0 {
                r.cpu_us += th.cpu_us;
                r.cpu_answers += th.cpu_answers;
                r.cpu_per_game.push(th.cpu_us as f64 / th.cpu_answers as f64);
            }
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
                row.elo = Elo(Some(round(r.elo, 1)));
                row.elo_low = Elo(Some(round(r.low(), 1)));
                row.elo_high = Elo(Some(round(r.high(), 1)));
            }
            row.paired_deal_score = (row.paired_deals > 0)
                .then(|| round(a.paired_sum as f64 / row.paired_deals as f64, 4));
            row.faults_total = row.faults.total();
            row.disqualified = disqualified.contains(&row.name);
            row.think_mean_ms =
                (a.answers > 0).then(|| round(a.think_us as f64 / a.answers as f64 / 1000.0, 3));
            row.think_max_ms = round(a.max_us as f64 / 1000.0, 3);
            let measured = a.cpu_answers > 0;
            row.cpu_s = measured.then(|| round(a.cpu_us as f64 / 1e6, 3));
            row.cpu_mean_ms =
                measured.then(|| round(a.cpu_us as f64 / a.cpu_answers as f64 / 1000.0, 3));
            let mut per_game = a.cpu_per_game;
            per_game.sort_by(f64::total_cmp);
            let ms = |us: Option<f64>| us.map(|us| round(us / 1000.0, 3));
            row.cpu_p50_ms = ms(nearest_rank(&per_game, 50));
            row.cpu_p90_ms = ms(nearest_rank(&per_game, 90));
            row
        })
        .collect();
    // Disqualified entrants last; then by rating, score, and name for a stable order.
    rows.sort_by(|x, y| {
        x.disqualified
            .cmp(&y.disqualified)
            .then(y.elo.0.unwrap_or(f64::MIN).total_cmp(&x.elo.0.unwrap_or(f64::MIN)))
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
            row.elo = Elo(elo.map(|x| round(x, 1)));
            row.elo_low = Elo(low.map(|x| round(x, 1)));
            row.elo_high = Elo(high.map(|x| round(x, 1)));
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
pub(super) fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    // Adding 0.0 turns -0.0 into 0.0, which reads better than "-0".
    (x * scale).round() / scale + 0.0
}
