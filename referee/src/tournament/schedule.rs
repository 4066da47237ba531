//! The schedule: every game of a tournament, numbered once and for all from the config alone,
//! so a resumed run, a shard and a merge all agree on what game N is.
//!
//! Pairings come in entrant order ((0,1), (0,2), ..., (1,2), ...; in a gauntlet (g, j) for
//! every other j). Each pairing has `games` *units*, numbered across the tournament from 1
//! pairing after pairing: a unit is a deal set of two games (rooms 1 and 2) in duplicate and
//! one game in a round robin. Games are numbered from 1 in unit order, room 1 before room 2;
//! a game's number names its record file (game-NNNNNN.jsonl) and its journal line. They are
//! played in another order, round by round across the pairings (`play_order`), so that a
//! tournament stopped at any game has played every entrant about as much.

use crate::tournament::config::Format;
use rules::{Seat, Team, derive_seed};

/// One game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Job {
    /// Game number in the tournament, from 1: the record file's number.
    pub(crate) index: u64,
    /// Unit number in the tournament, from 1. The two rooms of a deal set share it, and it is
    /// the game number bots are told, so that nothing in a `game` message reveals the room.
    pub(crate) unit: u64,
    /// Pairing number, from 0.
    pub(crate) pairing: usize,
    /// The pairing's first and second entrant.
    pub(crate) a: usize,
    pub(crate) b: usize,
    /// The unit's number within its pairing, from 1.
    pub(crate) round: u64,
    /// 1 or 2 in duplicate; 0 in a round robin.
    pub(crate) room: u8,
    /// The partnership entrant `a` plays: team 0 holds seats 0 and 2.
    pub(crate) a_team: Team,
    /// The game seed (decks and coin flips); both rooms of a deal set share it.
    pub(crate) seed: u64,
    pub(crate) first_dealer: Seat,
}

impl Job {
    /// The entrant in `team`.
    pub(crate) fn entrant_of(&self, team: Team) -> usize {
        if team == self.a_team { self.a } else { self.b }
    }

    pub(crate) fn involves(&self, entrant: usize) -> bool {
        self.a == entrant || self.b == entrant
    }
}

/// The pairings of a tournament, in schedule order.
pub(crate) fn pairings(n_entrants: usize, gauntlet: Option<usize>) -> Vec<(usize, usize)> {
    match gauntlet {
        Some(g) => (0..n_entrants).filter(|&j| j != g).map(|j| (g, j)).collect(),
        None => (0..n_entrants).flat_map(|i| (i + 1..n_entrants).map(move |j| (i, j))).collect(),
    }
}

/// Every game of the tournament, in order.
///
/// Seeds: unit k of pairing p gets `derive_seed([seed, p + 1, k])`, so no two pairings share
/// decks and a process of an entrant sees each deck at most once. First dealer: in duplicate
/// seat (k - 1) mod 4 in both rooms; in a round robin entrant `a` holds seats 0+2 in odd games
/// and 1+3 in even ones, and the first dealer moves on every second game, so each entrant
/// deals first equally often from each side.
pub(crate) fn build(
    format: Format,
    n_entrants: usize,
    gauntlet: Option<usize>,
    games: u64,
    seed: u64,
) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut unit = 0;
    for (pairing, (a, b)) in pairings(n_entrants, gauntlet).into_iter().enumerate() {
        for round in 1..=games {
            unit += 1;
            let game_seed = derive_seed(&[seed, pairing as u64 + 1, round]);
            let team = |n: usize| Team::ALL[n];
            match format {
                Format::Duplicate => {
                    for room in [1u8, 2] {
                        jobs.push(Job {
                            index: jobs.len() as u64 + 1,
                            unit,
                            pairing,
                            a,
                            b,
                            round,
                            room,
                            a_team: team(usize::from(room == 2)),
                            seed: game_seed,
                            first_dealer: Seat::ALL[((round - 1) % 4) as usize],
                        });
                    }
                }
                Format::RoundRobin => jobs.push(Job {
                    index: jobs.len() as u64 + 1,
                    unit,
                    pairing,
                    a,
                    b,
                    round,
                    room: 0,
                    a_team: team(usize::from(round % 2 == 0)),
                    seed: game_seed,
                    first_dealer: Seat::ALL[(((round - 1) / 2) % 4) as usize],
                }),
            }
        }
    }
    jobs
}

/// Puts games in the order they are played: round by round (every pairing's first unit, then
/// every pairing's second, ...), rooms of a deal set together, whatever their numbers. Played
/// in number order, pairing after pairing, a tournament stopped halfway has given some
/// entrants all their games and others none; round by round, every entrant's count is within
/// one round of every other's at any moment, so interim standings compare like with like.
pub(crate) fn play_order(jobs: &mut [Job]) {
    jobs.sort_by_key(|j| (j.round, j.pairing, j.room));
}

/// Part K of N of a schedule: the units whose number is K modulo N (K from 1). Whole units,
/// so the two rooms of a deal set are always played by the same shard.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Shard {
    pub(crate) k: u64,
    pub(crate) n: u64,
}

impl Shard {
    pub(crate) fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text:?}: give K/N with 1 <= K <= N, e.g. 1/2");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (u64, u64) =
            (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    pub(crate) fn contains(&self, job: &Job) -> bool {
        (job.unit - 1) % self.n == self.k - 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings_and_gauntlet() {
        assert_eq!(pairings(3, None), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairings(3, Some(1)), vec![(1, 0), (1, 2)]);
    }

    #[test]
    fn duplicate_rooms_share_seed_and_dealer_and_swap_sides() {
        let jobs = build(Format::Duplicate, 3, None, 2, 7);
        assert_eq!(jobs.len(), 12);
        for pair in jobs.chunks(2) {
            let (r1, r2) = (pair[0], pair[1]);
            assert_eq!((r1.room, r2.room), (1, 2));
            assert_eq!((r1.unit, r1.seed, r1.first_dealer), (r2.unit, r2.seed, r2.first_dealer));
            assert_eq!((r1.a_team.index(), r2.a_team.index()), (0, 1));
        }
        let seeds: std::collections::BTreeSet<u64> = jobs.iter().map(|j| j.seed).collect();
        assert_eq!(seeds.len(), 6, "every deal set has its own decks");
        assert!(jobs.iter().enumerate().all(|(i, j)| j.index == i as u64 + 1));
    }

    #[test]
    fn round_robin_balances_sides_and_first_deals() {
        let jobs = build(Format::RoundRobin, 2, None, 8, 1);
        let mut a_deals_first = 0;
        for j in &jobs {
            if j.first_dealer.team() == j.a_team {
                a_deals_first += 1;
            }
        }
        assert_eq!(a_deals_first, 4);
        assert_eq!(jobs.iter().filter(|j| j.a_team.index() == 0).count(), 4);
    }

    /// Stopped after any game of the play order, no entrant has played more than one round's
    /// games (one unit with each of its opponents) beyond another. In a gauntlet the named
    /// entrant plays every pairing, so the others are held to each other.
    #[test]
    fn the_play_order_keeps_entrants_within_a_round_of_each_other() {
        for (format, rooms) in [(Format::Duplicate, 2), (Format::RoundRobin, 1)] {
            for (n, gauntlet) in [(4, None), (5, None), (4, Some(2))] {
                let mut jobs = build(format, n, gauntlet, 3, 1);
                play_order(&mut jobs);
                let opponents = if gauntlet.is_some() { 1 } else { n - 1 };
                let per_round = opponents * rooms;
                let mut played = vec![0usize; n];
                for (k, j) in jobs.iter().enumerate() {
                    played[j.a] += 1;
                    played[j.b] += 1;
                    let held: Vec<usize> =
                        (0..n).filter(|&e| Some(e) != gauntlet).map(|e| played[e]).collect();
                    let (lo, hi) = (held.iter().min().unwrap(), held.iter().max().unwrap());
                    assert!(
                        hi - lo <= per_round,
                        "{format:?} {n} {gauntlet:?} after {k}: {played:?}"
                    );
                }
                let mut numbers: Vec<u64> = jobs.iter().map(|j| j.index).collect();
                numbers.sort();
                assert!(
                    numbers.iter().enumerate().all(|(i, &x)| x == i as u64 + 1),
                    "every game once"
                );
            }
        }
    }

    #[test]
    fn shards_cover_every_game_once() {
        let jobs = build(Format::Duplicate, 4, None, 3, 1);
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { k, n: 3 }).collect();
        for j in &jobs {
            assert_eq!(shards.iter().filter(|s| s.contains(j)).count(), 1);
        }
        assert!(Shard::parse("0/2").is_err() && Shard::parse("3/2").is_err());
        assert_eq!(Shard::parse("2/3"), Ok(Shard { k: 2, n: 3 }));
    }
}
