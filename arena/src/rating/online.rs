//! The live board: one Weng-Lin (OpenSkill) two-team update per independent duplicate
//! comparison, in the stored order, from the default prior. A comparison of team A with team B
//! is a game between A with B's opponents and B with A's opponents: A's net score less B's is
//! (A against its opponents) less (B against its opponents), so its odds depend on
//! s(A) + s(opp B) - s(B) - s(opp A), which is what Weng-Lin's two-team model sums. Replaying
//! the same comparisons gives the same ratings bit for bit: plain arithmetic in a fixed order.

use crate::BotId;
use crate::duplicate::{Comparison, Outcome, independent};
use skillratings::Outcomes;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_two_teams};
use std::collections::BTreeMap;

/// A bot's live rating: `mu` its estimated skill, `sigma` how unsure that estimate is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Live {
    /// Estimated skill (25 for a newcomer).
    pub mu: f64,
    /// Uncertainty (25/3 for a newcomer).
    pub sigma: f64,
    /// Comparisons the bot took part in.
    pub comparisons: u32,
}

impl Default for Live {
    fn default() -> Live {
        let r = WengLinRating::new();
        Live { mu: r.rating, sigma: r.uncertainty, comparisons: 0 }
    }
}

/// The live board: every bot that has been compared, by id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    ratings: BTreeMap<BotId, Live>,
}

impl Board {
    /// An empty board with the library's default constants (beta = 25/6).
    pub fn new() -> Board {
        Board::default()
    }

    /// The board after `comparisons`, applied in the order given, mirrors counted once.
    pub fn replay(comparisons: &[Comparison]) -> Board {
        let mut board = Board::new();
        board.apply_deal(comparisons);
        board
    }

    /// Applies the comparisons of one newly scored deal (or of several, in order): the same
    /// as replaying everything again, without the cost.
    pub fn apply_deal(&mut self, comparisons: &[Comparison]) {
        for c in independent(comparisons) {
            self.apply(c);
        }
    }

    /// A bot's rating; a bot never compared has the default.
    pub fn get(&self, bot: BotId) -> Live {
        self.ratings.get(&bot).copied().unwrap_or_default()
    }

    /// Every compared bot, by id.
    pub fn iter(&self) -> impl Iterator<Item = (BotId, Live)> + '_ {
        self.ratings.iter().map(|(&b, &l)| (b, l))
    }

    /// One comparison's update: A and B's opponents against B and A's opponents, the winner
    /// being who did better with the same cards (faults already folded into the outcome).
    fn apply(&mut self, c: &Comparison) {
        let to_wl = |b: BotId| {
            let l = self.get(b);
            WengLinRating { rating: l.mu, uncertainty: l.sigma }
        };
        let one = [c.team_a, c.opp_b].concat();
        let two = [c.team_b, c.opp_a].concat();
        let a: Vec<WengLinRating> = one.iter().map(|&b| to_wl(b)).collect();
        let b: Vec<WengLinRating> = two.iter().map(|&b| to_wl(b)).collect();
        let outcome = match c.outcome {
            Outcome::AWins => Outcomes::WIN,
            Outcome::Draw => Outcomes::DRAW,
            Outcome::BWins => Outcomes::LOSS,
        };
        let (na, nb) = weng_lin_two_teams(&a, &b, &outcome, &WengLinConfig::new());
        for (ids, new) in [(one, na), (two, nb)] {
            for (id, r) in ids.iter().zip(new) {
                let entry = self.ratings.entry(*id).or_default();
                entry.mu = r.rating;
                entry.sigma = r.uncertainty;
                entry.comparisons += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: [BotId; 2], b: [BotId; 2], outcome: Outcome) -> Comparison {
        Comparison {
            deal: a[0] * 100 + b[0],
            side: 0,
            table_a: 0,
            table_b: 1,
            team_a: a,
            team_b: b,
            opp_a: [a[0] + 10, a[1] + 10],
            opp_b: [b[0] + 10, b[1] + 10],
            outcome,
            score_diff: 0,
            a_faulted: false,
            b_faulted: false,
        }
    }

    #[test]
    fn winners_rise_losers_fall_and_everyone_grows_surer() {
        let board = Board::replay(&[cmp([1, 2], [3, 4], Outcome::AWins)]);
        let fresh = Live::default();
        for w in [1, 2] {
            assert!(board.get(w).mu > fresh.mu);
            assert!(board.get(w).sigma < fresh.sigma);
        }
        for l in [3, 4] {
            assert!(board.get(l).mu < fresh.mu);
        }
        // Team A did well against its opponents, B's did well against B.
        assert!(board.get(13).mu > fresh.mu && board.get(11).mu < fresh.mu);
        assert_eq!(board.get(1).comparisons, 1);
        assert_eq!(board.get(99), fresh);
    }

    #[test]
    fn a_draw_between_equals_moves_no_mean() {
        let board = Board::replay(&[cmp([1, 2], [3, 4], Outcome::Draw)]);
        assert!((board.get(1).mu - 25.0).abs() < 1e-9);
        assert!(board.get(1).sigma < 25.0 / 3.0);
    }

    #[test]
    fn a_mirror_is_counted_once() {
        let c = cmp([1, 2], [3, 4], Outcome::AWins);
        let mirror = Comparison {
            side: 1,
            team_a: c.opp_a,
            opp_a: c.team_a,
            team_b: c.opp_b,
            opp_b: c.team_b,
            outcome: Outcome::BWins,
            ..c.clone()
        };
        assert_eq!(
            Board::replay(&[c.clone(), mirror.clone()]),
            Board::replay(std::slice::from_ref(&c))
        );
        // A fault can make the other side say something else: then both count.
        let other = Comparison { outcome: Outcome::AWins, a_faulted: true, ..mirror };
        assert_ne!(Board::replay(&[c.clone(), other]), Board::replay(&[c]));
    }

    #[test]
    fn replay_is_deterministic_and_order_matters() {
        let cs = [
            cmp([1, 2], [3, 4], Outcome::AWins),
            cmp([1, 3], [2, 4], Outcome::BWins),
            cmp([1, 4], [2, 3], Outcome::Draw),
        ];
        assert_eq!(Board::replay(&cs), Board::replay(&cs));
        let reversed: Vec<Comparison> = cs.iter().rev().cloned().collect();
        assert_ne!(Board::replay(&cs).get(1).mu, Board::replay(&reversed).get(1).mu);
    }
}
