//! Scoring a deal from its nine trick results: the one place where "most tricks, first to reach"
//! and mordienne are decided, so the engine and the replay can never disagree; and the scoring
//! of a deal a team is committed in (a refused surrender, an announcement under
//! `announce-penalty`: spec/rules.md 12.4) or announced a mordienne in (12.3).

use crate::options::Rules;
use crate::seat::{Seat, Team};

/// The outcome of one deal, computed from who won each trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DealScore {
    /// Tricks won per seat.
    pub tricks: [u8; 4],
    /// The deal winner, `None` when every trick was spoiled.
    pub winner: Option<Seat>,
    /// Points scored by [`DealScore::team`] (0, 1, or 2).
    pub points: u8,
    /// True when the deal was scored as a mordienne: the winner made one and it scored 2 (so
    /// false for an unannounced one under `announced-only`); in a committed deal, made by the
    /// committed team.
    pub mordienne: bool,
    /// The team that scores `points`: the winner's, except in a deal with a surrender offered
    /// (section 12); `None` when nobody scores.
    pub team: Option<Team>,
}

/// Scores nine trick results (`None` = spoiled), trick 1 first.
pub fn score_deal(winners: &[Option<Seat>; 9], rules: &Rules) -> DealScore {
    let s = by_tricks(winners, rules.mordienne_run);
    if s.mordienne && !rules.mordienne {
        return DealScore { points: 1, mordienne: false, ..s };
    }
    s
}

/// Scores a deal in which `announcing` announced a mordienne, without `announce-penalty`
/// (section 12.3): as section 7, except that the announcing team's mordienne scores 2 even where
/// an unannounced one scores 1 (`announced-only`). A failed announcement costs nothing.
pub fn score_announced(winners: &[Option<Seat>; 9], rules: &Rules, announcing: Team) -> DealScore {
    let s = by_tricks(winners, rules.mordienne_run);
    if s.mordienne && !rules.mordienne && s.team != Some(announcing) {
        return DealScore { points: 1, mordienne: false, ..s };
    }
    s
}

/// Scores a deal in which `committed` must make a mordienne (section 12.4): 2 points to it if its
/// seat wins the deal with a mordienne (judged whatever `rules.mordienne` says), else 2 points to
/// the other team.
pub fn score_committed(winners: &[Option<Seat>; 9], rules: &Rules, committed: Team) -> DealScore {
    let s = by_tricks(winners, rules.mordienne_run);
    let made = s.mordienne && s.team == Some(committed);
    let team = if made { committed } else { committed.other() };
    DealScore { points: 2, mordienne: made, team: Some(team), ..s }
}

/// The score of an accepted surrender: one point to `accepting`, no trick played.
pub fn score_accepted(accepting: Team) -> DealScore {
    DealScore { tricks: [0; 4], winner: None, points: 1, mordienne: false, team: Some(accepting) }
}

/// Section 7 with every mordienne of at least `run` tricks worth 2.
fn by_tricks(winners: &[Option<Seat>; 9], run: u8) -> DealScore {
    // Slot 4 takes the spoiled tricks, so counting needs no branch on who won: a random playout
    // spoils tricks at random, and a branch on it mispredicts.
    let mut tricks = [0u8; 5];
    // The trick (0-based) at which each seat reached its current count.
    let mut reached = [0u8; 5];
    for (i, w) in winners.iter().enumerate() {
        let slot = w.map_or(4, Seat::index);
        tricks[slot] += 1;
        reached[slot] = i as u8;
    }
    let [a, b, c, d, _] = tricks;
    let tricks = [a, b, c, d];
    // Among the seats with the most tricks, the one whose last win (the one that brought it to
    // the most) came earliest reached it first; `key` orders by count, then by earliness.
    let key = |s: usize| (u16::from(tricks[s]) << 8) | u16::from(8 - reached[s]);
    let best = (1..4).fold(0, |best, s| if key(s) > key(best) { s } else { best });
    let most = tricks[best];
    if most == 0 {
        return DealScore { tricks, winner: None, points: 0, mordienne: false, team: None };
    }
    let winner = Seat::ALL[best];
    let mordienne = {
        let last = winners.iter().rev().take_while(|w| **w == Some(winner)).count();
        last >= usize::from(run) && last == most as usize
    };
    DealScore {
        tricks,
        winner: Some(winner),
        points: if mordienne { 2 } else { 1 },
        mordienne,
        team: Some(winner.team()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Rules;

    /// Parses the reference's notation: N=0 E=1 S=2 W=3, X spoiled.
    fn parse(s: &str) -> [Option<Seat>; 9] {
        let mut out = [None; 9];
        for (i, ch) in s.chars().enumerate() {
            out[i] = match ch {
                'N' => Seat::new(0),
                'E' => Seat::new(1),
                'S' => Seat::new(2),
                'W' => Seat::new(3),
                _ => None,
            };
        }
        out
    }

    /// The seven test vectors of the rules reference: (tricks, scoring team, points).
    #[test]
    fn reference_test_vectors() {
        let rules = Rules::default();
        let cases = [
            ("SENWSEXNW", Some(0), 1),
            ("SENWENWNW", Some(0), 1),
            ("SXENXSWWW", Some(1), 2),
            ("XSENXWSSS", Some(0), 1),
            ("EXWEWNNNX", Some(0), 1),
            ("ENWESSSSS", Some(0), 2),
            ("XXXXXXXXX", None, 0),
        ];
        for (tricks, team, points) in cases {
            let s = score_deal(&parse(tricks), &rules);
            assert_eq!(s.winner.map(|w| w.team().index()), team, "{tricks}");
            assert_eq!(s.points, points, "{tricks}");
            assert_eq!(s.mordienne, points == 2, "{tricks}");
        }
    }

    #[test]
    fn mordienne_options() {
        let off = Rules { mordienne: false, ..Rules::default() };
        let run3 = Rules { mordienne_run: 3, ..Rules::default() };
        // West wins 3: a run of 3 counts under both lengths.
        assert_eq!(score_deal(&parse("SXENXSWWW"), &off).points, 1);
        assert_eq!(score_deal(&parse("SXENXSWWW"), &run3).points, 2);
        // North wins the last two only, after everyone else won one: a run of 2.
        let two = parse("SEWXXXXNN");
        assert_eq!(score_deal(&two, &Rules::default()).points, 2);
        assert_eq!(score_deal(&two, &run3).points, 1);
        // A single trick won at the end is never mordienne (run of 1).
        assert_eq!(score_deal(&parse("XXXXXXXXN"), &Rules::default()).points, 1);
    }

    /// The committed rows of spec/rules.md section 12.5, in its notation (seat digits, X).
    #[test]
    fn committed_deal_vectors() {
        let digits = |t: &str| -> [Option<Seat>; 9] {
            let mut out = [None; 9];
            for (i, w) in t.split(' ').enumerate() {
                out[i] = w.parse().ok().and_then(Seat::new);
            }
            out
        };
        let off = Rules { mordienne: false, ..Rules::default() };
        let cases = [
            ("2 X 1 0 X 2 3 3 3", 1, Rules::default(), 1, true),
            ("X 2 1 0 X 3 1 1 1", 1, Rules::default(), 0, false),
            ("2 1 0 3 2 1 X 0 3", 1, Rules::default(), 0, false),
            ("X X X X X X X X X", 1, Rules::default(), 0, false),
            ("2 X 1 0 X 2 3 3 3", 1, off, 1, true),
            ("X 2 1 0 X 3 2 2 2", 0, Rules::default(), 1, false),
            ("X X X X X X X X X", 0, Rules::default(), 1, false),
            ("1 0 3 1 2 2 2 2 2", 0, off, 0, true),
        ];
        for (tricks, committed, rules, scorer, made) in cases {
            let s = score_committed(&digits(tricks), &rules, Team::new(committed).unwrap());
            assert_eq!((s.team, s.points, s.mordienne), (Team::new(scorer), 2, made), "{tricks}");
        }
        let accepted = score_accepted(Team::new(0).unwrap());
        assert_eq!((accepted.team, accepted.points, accepted.winner), (Team::new(0), 1, None));
    }

    /// The announced rows of spec/rules.md section 12.5 without `announce-penalty`: a made
    /// announcement scores as section 7 would (2 even under `announced-only`), a failed one costs
    /// nothing, and under `announced-only` the other team's unannounced mordienne scores 1.
    #[test]
    fn announced_deal_vectors() {
        let only = Rules { mordienne: false, ..Rules::default() };
        let on = Rules::default();
        let t = |n| Team::new(n).unwrap();
        let cases = [
            ("SXENXSWWW", on, 1, Some(1), 2, true),
            ("SXENXSWWW", only, 1, Some(1), 2, true),
            ("SXENXSWWW", only, 0, Some(1), 1, false),
            ("SXENXSWWW", on, 0, Some(1), 2, true),
            ("SENWSEXNW", only, 1, Some(0), 1, false),
            ("XXXXXXXXX", on, 1, None, 0, false),
        ];
        for (tricks, rules, announcing, team, points, made) in cases {
            let s = score_announced(&parse(tricks), &rules, t(announcing));
            assert_eq!((s.team.map(|t| t.index()), s.points, s.mordienne), (team, points, made));
        }
    }

    #[test]
    fn first_to_reach_breaks_ties() {
        // North and East both have 2; East reached 2 at trick 4, North at trick 6.
        let s = score_deal(&parse("NEXEXNXXX"), &Rules::default());
        assert_eq!(s.winner, Seat::new(1));
        assert_eq!(s.tricks, [2, 2, 0, 0]);
    }

    /// The scoring rule as spec/rules.md words it, written plainly: most tricks; among equals,
    /// the seat whose last win came first.
    fn plain(winners: &[Option<Seat>; 9], rules: &Rules) -> DealScore {
        let mut tricks = [0u8; 4];
        for w in winners.iter().flatten() {
            tricks[w.index()] += 1;
        }
        let most = *tricks.iter().max().unwrap();
        if most == 0 {
            return DealScore { tricks, winner: None, points: 0, mordienne: false, team: None };
        }
        let last_win = |s: Seat| winners.iter().rposition(|w| *w == Some(s)).unwrap();
        let winner = Seat::ALL
            .into_iter()
            .filter(|s| tricks[s.index()] == most)
            .min_by_key(|&s| last_win(s))
            .unwrap();
        let run = winners.iter().rev().take_while(|w| **w == Some(winner)).count();
        let mordienne =
            rules.mordienne && run >= usize::from(rules.mordienne_run) && run == most as usize;
        DealScore {
            tricks,
            winner: Some(winner),
            points: 1 + u8::from(mordienne),
            mordienne,
            team: Some(winner.team()),
        }
    }

    #[test]
    fn agrees_with_the_plain_rule_on_random_deals() {
        let mut rng = crate::deal::SplitMix64::new(16);
        let run3 = Rules { mordienne_run: 3, ..Rules::default() };
        for _ in 0..20_000 {
            let mut winners = [None; 9];
            for w in &mut winners {
                *w = Seat::new(rng.below(5) as u8);
            }
            for rules in [Rules::default(), run3] {
                assert_eq!(score_deal(&winners, &rules), plain(&winners, &rules), "{winners:?}");
            }
        }
    }
}
