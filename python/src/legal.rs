//! Which actions of the space are legal for a decision, from the seat's own hand and the rules:
//! the action mask of the environment and of the bot bridge alike.
//!
//! The bridge has no `rules::Game` to ask (it knows one seat's cards), so the discard and signal
//! checks here are written on the engine's own public predicates (`Card::beats`,
//! `Signal::is_valid`, `Signal::is_true_for`). `tests/test_env.py::test_mask_is_the_engine` holds
//! them to `Game::check_discard` and `Game::check_signal` on every decision of random matches.

use crate::seen::Asked;
use crate::space::{self, DISCARD, Kind, MAX_SIGNALS, N_SIGNALS, NO, PLAY, SIGNAL, YES};
use rules::{Card, CardSet, DiscardRule, Rules, Signal, SignalDelivery, SignalTruth};

/// Whether discarding `cards` from `hand` is legal under `rule` (what `Game::check_discard`
/// accepts).
pub fn discard_ok(hand: CardSet, cards: CardSet, rule: DiscardRule) -> bool {
    if cards.len() != 6 || !cards.is_subset(hand) {
        return false;
    }
    if rule == DiscardRule::KeepHighest {
        let strongest_discard = cards.iter().min_by_key(|c| c.level());
        let weakest_kept = hand.difference(cards).iter().max_by_key(|c| c.level());
        if let (Some(d), Some(k)) = (strongest_discard, weakest_kept) {
            return !d.beats(k);
        }
    }
    true
}

/// Whether a seat holding `hand` may send `signal` now (what `Game::check_signal` accepts during
/// a deal).
pub fn signal_ok(signal: Signal, hand: CardSet, rules: &Rules) -> bool {
    rules.signals != SignalDelivery::Off
        && signal.is_valid()
        && (rules.signal_truth == SignalTruth::Free || signal.is_true_for(hand))
}

/// Whether picking `card` next keeps a legal discard within reach: the picks so far, this card,
/// and the weakest of the rest to make six.
pub fn pick_ok(hand: CardSet, picked: CardSet, card: Card, rule: DiscardRule) -> bool {
    if !hand.contains(card) || picked.contains(card) || picked.len() >= 6 {
        return false;
    }
    let mut cards = picked.with(card);
    let mut rest: Vec<Card> = hand.difference(cards).iter().collect();
    rest.sort_by_key(|c| core::cmp::Reverse(c.level()));
    for c in rest.into_iter().take(6 - cards.len()) {
        cards = cards.with(c);
    }
    discard_ok(hand, cards, rule)
}

/// Whether signal index `i` may ride on this answer.
pub fn signal_action_ok(asked: &Asked, i: usize, hand: CardSet, rules: &Rules) -> bool {
    i < N_SIGNALS
        && !asked.sent[i]
        && asked.n_sent < MAX_SIGNALS
        && space::signal(i).is_some_and(|s| signal_ok(s, hand, rules))
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
            for c in hand.iter() {
                out[DISCARD + usize::from(c.index())] =
                    u8::from(pick_ok(hand, asked.picked, c, rules.discard));
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
    use rules::{Action, Deck, Game, Seat, Turn};

    /// Every 6-card discard of the first recipient over many deals: `discard_ok` says what the
    /// engine says, and picking by `pick_ok` always ends in a discard the engine accepts.
    #[test]
    fn discards_agree_with_the_engine() {
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
                let cards: Vec<Card> = hand.iter().collect();
                for pick in 0..200usize {
                    let set: CardSet =
                        (0..6).map(|k| cards[(pick * 7 + k * (pick % 5 + 1)) % 15]).collect();
                    let engine = game.check_discard(seat, set).is_ok();
                    assert_eq!(discard_ok(hand, set, rule), engine, "{set:?}");
                }
                let mut picked = CardSet::EMPTY;
                while picked.len() < 6 {
                    let strongest_first = hand.iter().collect::<Vec<_>>();
                    let c = *strongest_first
                        .iter()
                        .rev()
                        .find(|&&c| pick_ok(hand, picked, c, rule))
                        .unwrap();
                    picked = picked.with(c);
                }
                assert!(game.check_discard(seat, picked).is_ok());
            }
        }
    }
}
