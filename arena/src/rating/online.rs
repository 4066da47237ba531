//! The live board: one Weng-Lin (OpenSkill) two-team update per duplicate comparison, in the
//! stored order, from the default prior. Replaying the same comparisons gives the same ratings
//! bit for bit, because the updates are plain floating-point arithmetic in a fixed order.

use crate::BotId;
use crate::duplicate::{Comparison, Outcome};
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

    /// The board after `comparisons`, applied in the order given.
    pub fn replay<'a>(comparisons: impl IntoIterator<Item = &'a Comparison>) -> Board {
        let mut board = Board::new();
        for c in comparisons {
            board.apply(c);
        }
        board
    }

    /// A bot's rating; a bot never compared has the default.
    pub fn get(&self, bot: BotId) -> Live {
        self.ratings.get(&bot).copied().unwrap_or_default()
    }

    /// Every compared bot, by id.
    pub fn iter(&self) -> impl Iterator<Item = (BotId, Live)> + '_ {
        self.ratings.iter().map(|(&b, &l)| (b, l))
    }

    /// One comparison's update: team A against team B, the winner being who did better with
    /// the same cards (faults already folded into the outcome by duplicate scoring).
    pub fn apply(&mut self, c: &Comparison) {
        let to_wl = |b: BotId| {
            let l = self.get(b);
            WengLinRating { rating: l.mu, uncertainty: l.sigma }
        };
        let a = c.team_a.map(to_wl);
        let b = c.team_b.map(to_wl);
        let outcome = match c.outcome {
            Outcome::AWins => Outcomes::WIN,
            Outcome::Draw => Outcomes::DRAW,
            Outcome::BWins => Outcomes::LOSS,
        };
        let (na, nb) = weng_lin_two_teams(&a, &b, &outcome, &WengLinConfig::new());
        for (ids, new) in [(c.team_a, na), (c.team_b, nb)] {
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
            deal: 1,
            side: 0,
            table_a: 0,
            table_b: 1,
            team_a: a,
            team_b: b,
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
