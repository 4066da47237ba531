//! Which actions of the space are legal for a decision, from the seat's own hand and the rules:
//! the action mask of the environment and of the bot bridge alike.
//!
//! The bridge has no `rules::Game` to ask (it knows one seat's cards), so it asks the checks the
//! engine itself decides by: `rules::check_discard` (through `rules::DiscardChoice`, every legal
//! discard at once) and `rules::check_signal`. `tests/test_env.py::test_mask_is_the_engine`
//! holds the mask to `Game::check_discard` and `Game::check_signal` on every decision of random
//! matches.

use crate::seen::Asked;
use crate::space::{self, DISCARD, Kind, MAX_SIGNALS, N_SIGNALS, NO, PLAY, SIGNAL, YES};
use rules::{Card, CardSet, DISCARD_COUNT, DiscardChoice, Rules, check_signal};

/// Whether picking `card` next, after `picked`, keeps a legal discard of `choice` within reach:
/// every card picked one it may discard, and room left for the cards it must.
pub fn pick_ok(choice: DiscardChoice, picked: CardSet, card: Card) -> bool {
    let cards = picked.with(card);
    !picked.contains(card)
        && picked.len() < DISCARD_COUNT
        && cards.is_subset(choice.may)
        && cards.union(choice.must).len() <= DISCARD_COUNT
}

/// Whether signal index `i` may ride on this answer.
pub fn signal_action_ok(asked: &Asked, i: usize, hand: CardSet, rules: &Rules) -> bool {
    i < N_SIGNALS
        && !asked.sent[i]
        && asked.n_sent < MAX_SIGNALS
        && space::signal(i).is_some_and(|s| check_signal(s, hand, rules).is_ok())
}

/// Writes the mask of `asked` into `out` ([`space::N_ACTIONS`] bytes, 1 for legal). `plays` is
/// what the engine lets the seat play now; `hand` the cards it holds.
pub fn mask(asked: &Asked, plays: CardSet, hand: CardSet, rules: &Rules, out: &mut [u8]) {
    out.fill(0);
    match asked.kind {
        Kind::Play => {
            for c in plays.iter() {
                out[PLAY + usize::from(c.index())] = 1;
            }
        }
        Kind::Discard => {
            let choice = DiscardChoice::of(hand, rules.discard);
            for c in hand.iter() {
                out[DISCARD + usize::from(c.index())] = u8::from(pick_ok(choice, asked.picked, c));
            }
        }
        Kind::Vote | Kind::Offer | Kind::Reply | Kind::Announce => {
            out[NO] = 1;
            out[YES] = 1;
        }
    }
    for i in 0..N_SIGNALS {
        out[SIGNAL + i] = u8::from(signal_action_ok(asked, i, hand, rules));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{Action, Deck, DiscardRule, Game, Seat, Turn};

    /// Picking card by card as the mask allows, strongest allowed first or weakest first, over
    /// many deals and both rules, always ends in a discard the engine accepts; and the mask
    /// allows a first pick exactly of the cards some discard the engine accepts holds.
    #[test]
    fn picks_end_in_discards_the_engine_accepts() {
        for seed in 0..40u64 {
            for rule in [DiscardRule::Free, DiscardRule::KeepHighest] {
                let rules = Rules { discard: rule, ..Rules::default() };
                let mut game = Game::new(rules, Seat::ALL[0]);
                game.deal(&Deck::shuffled(seed)).unwrap();
                while let Some(Turn::Vote(s)) = game.to_act() {
                    game.apply(s, Action::Vote(true)).unwrap();
                }
                let Some(Turn::Discard(seat)) = game.to_act() else { panic!() };
                let hand = game.hand(seat);
                let choice = DiscardChoice::of(hand, rule);
                let cards: Vec<Card> = hand.iter().collect();
                for c in &cards {
                    let weakest_with = |c: Card| {
                        let mut d = CardSet::EMPTY.with(c);
                        while d.len() < 6 {
                            d = d.with(hand.difference(d).weakest().unwrap());
                        }
                        d
                    };
                    let reachable = game.check_discard(seat, weakest_with(*c)).is_ok();
                    assert_eq!(pick_ok(choice, CardSet::EMPTY, *c), reachable, "{c} {rule:?}");
                }
                for strongest_first in [true, false] {
                    let mut picked = CardSet::EMPTY;
                    while picked.len() < 6 {
                        let mut order = cards.clone();
                        if !strongest_first {
                            order.reverse();
                        }
                        let c = *order.iter().find(|&&c| pick_ok(choice, picked, c)).unwrap();
                        picked = picked.with(c);
                    }
                    assert!(game.check_discard(seat, picked).is_ok(), "{picked:?}");
                }
            }
        }
    }
}
