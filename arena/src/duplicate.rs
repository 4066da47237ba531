//! Duplicate scoring of one deal played at two or more tables: the same cards, different
//! foursomes, so a team's result is judged against the others that held the same cards rather
//! than against the luck of the deal. The comparisons made here are the only input of the
//! ratings (spec/arena.md, "Duplicate scoring").

use crate::{BotId, Team, team};

/// Who did better with the same cards, from team A's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Team A scored more with these cards (or team B faulted and A did not).
    AWins,
    /// Equal scores, or both teams faulted.
    Draw,
    /// Team B scored more (or team A faulted and B did not).
    BWins,
}

impl Outcome {
    /// Team A's share of the win: 1, 0.5 or 0.
    pub fn score_a(self) -> f64 {
        match self {
            Outcome::AWins => 1.0,
            Outcome::Draw => 0.5,
            Outcome::BWins => 0.0,
        }
    }

    /// The code stored in the database: 2 = A wins, 1 = draw, 0 = B wins.
    pub fn code(self) -> i64 {
        match self {
            Outcome::AWins => 2,
            Outcome::Draw => 1,
            Outcome::BWins => 0,
        }
    }

    /// The outcome stored as `code`, if it is one.
    pub fn from_code(code: i64) -> Option<Outcome> {
        match code {
            2 => Some(Outcome::AWins),
            1 => Some(Outcome::Draw),
            0 => Some(Outcome::BWins),
            _ => None,
        }
    }
}

/// One table's play of the deal, as the referee reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableResult {
    /// The table's number within the deal.
    pub table: u32,
    /// `holders[side]` is the partnership that held that side's two hands (side 0 = the hands
    /// dealt to seats 0 and 2 in the deal's own orientation).
    pub holders: [Team; 2],
    /// `points[side]`: what the partnership holding that side scored at this table.
    pub points: [i32; 2],
    /// Bots that timed out, crashed or played an illegal move at this table.
    pub faulted: Vec<BotId>,
    /// The server's own fault spoiled the table: it is left out of the scoring entirely.
    pub voided: bool,
}

/// One team measured against another that held the same cards at another table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The deal (database id).
    pub deal: i64,
    /// Which side's cards both teams held.
    pub side: u8,
    /// The table team A sat at (the lower-numbered of the two).
    pub table_a: u32,
    /// The table team B sat at.
    pub table_b: u32,
    /// Team A.
    pub team_a: Team,
    /// Team B.
    pub team_b: Team,
    /// The partnership team A played against (it held the other side at table A).
    pub opp_a: Team,
    /// The partnership team B played against.
    pub opp_b: Team,
    /// The result, faults taken into account.
    pub outcome: Outcome,
    /// A's net score minus B's net score with these cards (net = own points minus the
    /// opponents'), as played, faults or not.
    pub score_diff: i32,
    /// A bot of team A faulted at its table.
    pub a_faulted: bool,
    /// A bot of team B faulted at its table.
    pub b_faulted: bool,
}

/// A team's result against the datum.
#[derive(Clone, Debug, PartialEq)]
pub struct Deviation {
    /// The table.
    pub table: u32,
    /// The side whose cards the team held.
    pub side: u8,
    /// The team.
    pub team: Team,
    /// Its net score: its points minus its opponents'.
    pub net: i32,
    /// `net` minus the datum of its side: positive means it did better than the field.
    pub deviation: f64,
}

/// The whole scoring of one deal.
#[derive(Clone, Debug, PartialEq)]
pub struct DealScoring {
    /// `datum[side]`: the mean net score of the partnerships that held that side, over the
    /// tables that count; `None` when no table counts.
    pub datum: Option<[f64; 2]>,
    /// Every counted team's deviation, by table then side.
    pub deviations: Vec<Deviation>,
    /// Every pair of counted tables compared on each side, by side then table pair. Without a
    /// fault, a table pair's side-1 comparison is the mirror of its side-0 one (each table's
    /// two nets are opposite), so it says nothing new: see [`is_mirror`].
    pub comparisons: Vec<Comparison>,
}

/// Scores a deal from its tables. Voided tables are left out; a deal with fewer than two
/// counted tables gives deviations but no comparison (there is nobody to compare with).
pub fn score_deal(deal: i64, tables: &[TableResult]) -> DealScoring {
    let mut counted: Vec<&TableResult> = tables.iter().filter(|t| !t.voided).collect();
    counted.sort_by_key(|t| t.table);
    let net = |t: &TableResult, side: usize| t.points[side] - t.points[1 - side];
    let faulted =
        |t: &TableResult, side: usize| t.holders[side].iter().any(|b| t.faulted.contains(b));
    if counted.is_empty() {
        return DealScoring { datum: None, deviations: Vec::new(), comparisons: Vec::new() };
    }
    let n = counted.len() as f64;
    let datum = [0, 1].map(|side| counted.iter().map(|t| f64::from(net(t, side))).sum::<f64>() / n);
    let mut deviations = Vec::new();
    for t in &counted {
        for (side, datum) in datum.iter().enumerate() {
            let team = team(t.holders[side][0], t.holders[side][1]);
            let net = net(t, side);
            deviations.push(Deviation {
                table: t.table,
                side: side as u8,
                team,
                net,
                deviation: f64::from(net) - datum,
            });
        }
    }
    let mut comparisons = Vec::new();
    for side in 0..2 {
        for (i, a) in counted.iter().enumerate() {
            for b in &counted[i + 1..] {
                let pair = |t: &TableResult, k: usize| team(t.holders[k][0], t.holders[k][1]);
                let (team_a, opp_a) = (pair(a, side), pair(a, 1 - side));
                let (team_b, opp_b) = (pair(b, side), pair(b, 1 - side));
                // A bot at both tables would be measured against itself: say nothing.
                if [team_a, opp_a].iter().flatten().any(|x| team_b.contains(x) || opp_b.contains(x))
                {
                    continue;
                }
                let score_diff = net(a, side) - net(b, side);
                let (a_faulted, b_faulted) = (faulted(a, side), faulted(b, side));
                let outcome = match (a_faulted, b_faulted) {
                    (true, false) => Outcome::BWins,
                    (false, true) => Outcome::AWins,
                    (true, true) => Outcome::Draw,
                    (false, false) => match score_diff.cmp(&0) {
                        std::cmp::Ordering::Greater => Outcome::AWins,
                        std::cmp::Ordering::Equal => Outcome::Draw,
                        std::cmp::Ordering::Less => Outcome::BWins,
                    },
                };
                comparisons.push(Comparison {
                    deal,
                    side: side as u8,
                    table_a: a.table,
                    table_b: b.table,
                    team_a,
                    team_b,
                    opp_a,
                    opp_b,
                    outcome,
                    score_diff,
                    a_faulted,
                    b_faulted,
                });
            }
        }
    }
    DealScoring { datum: Some(datum), deviations, comparisons }
}

/// Whether `later` repeats what `earlier` said: the same deal and tables, the other side, and
/// the reverse outcome. Without faults every side-1 comparison mirrors its side-0 one, because
/// a team's net is minus its opponents'; a fault can break the mirror, and then the two say
/// different things. The boards count a mirrored pair once.
pub fn is_mirror(earlier: &Comparison, later: &Comparison) -> bool {
    let reverse = match earlier.outcome {
        Outcome::AWins => Outcome::BWins,
        Outcome::Draw => Outcome::Draw,
        Outcome::BWins => Outcome::AWins,
    };
    earlier.deal == later.deal
        && earlier.side != later.side
        && (earlier.table_a, earlier.table_b) == (later.table_a, later.table_b)
        && (earlier.team_a, earlier.opp_a) == (later.opp_a, later.team_a)
        && (earlier.team_b, earlier.opp_b) == (later.opp_b, later.team_b)
        && later.outcome == reverse
}

/// The comparisons that carry independent evidence, in order: each one but those that mirror
/// an earlier one of the same deal ([`is_mirror`]).
pub fn independent(comparisons: &[Comparison]) -> Vec<&Comparison> {
    let mut kept: Vec<&Comparison> = Vec::with_capacity(comparisons.len() / 2 + 1);
    let mut by_deal: std::collections::BTreeMap<i64, Vec<usize>> = Default::default();
    for c in comparisons {
        let earlier = by_deal.entry(c.deal).or_default();
        if !earlier.iter().any(|&i| is_mirror(kept[i], c)) {
            earlier.push(kept.len());
            kept.push(c);
        }
    }
    kept
}

/// Which partnership holds which side at a table seated `seats` (seat 0..3) in `orientation`
/// (0..3): the bot in seat `s` is dealt the hand of seat `(s + orientation) % 4` of the deal's
/// own orientation, so an odd orientation hands side 0 to the partnership in seats 1 and 3.
pub fn holders(seats: [BotId; 4], orientation: u8) -> [Team; 2] {
    let even = team(seats[0], seats[2]);
    let odd = team(seats[1], seats[3]);
    if orientation.is_multiple_of(2) { [even, odd] } else { [odd, even] }
}

#[cfg(test)]
mod tests;
