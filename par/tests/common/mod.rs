//! Random deals on the rules engine, brought to the trick phase with a random scoring variant
//! (mordienne on or off, run 2 or 3, a committed team or none), for the solver's tests.

use rules::{Action, Announcement, Deck, Event, Game, Rules, Seat, SplitMix64, Turn};

/// A game at the first lead of a deal from `seed`: the chant voted at random, discards of six
/// random cards, and one in three deals committed (a refused surrender or an announcement).
pub(crate) fn at_first_lead(seed: u64) -> Game {
    let mut rng = SplitMix64::new(seed);
    let variant = rng.below(6);
    let rules = Rules {
        mordienne: variant != 1,
        mordienne_run: if variant == 2 { 3 } else { 2 },
        surrender: variant == 3,
        announce: if variant == 4 { Announcement::ExtendsMatch } else { Announcement::Off },
        ..Rules::default()
    };
    let mut game = Game::new(rules, Seat::ALL[rng.below(4) as usize]);
    game.deal(&Deck::shuffled(rng.next_u64())).unwrap();
    loop {
        let action = match game.to_act() {
            Some(Turn::Vote(_)) => Action::Vote(rng.below(2) == 0),
            Some(Turn::Discard(s)) => {
                let mut hand = game.hand(s);
                let mut out = rules::CardSet::EMPTY;
                for _ in 0..6 {
                    let c = hand.nth(rng.below(hand.len() as u64) as usize).unwrap();
                    hand = hand.without(c);
                    out = out.with(c);
                }
                Action::Discard(out)
            }
            // The first seat asked offers, and both opponents refuse: a committed deal.
            Some(Turn::Offer(_)) => Action::Offer(true),
            Some(Turn::Reply(_)) => Action::Reply(false),
            Some(Turn::Announce(_)) => Action::Announce(rng.below(2) == 0),
            Some(Turn::Play(_)) => return game,
            other => panic!("a deal reaches its first lead, not {other:?}"),
        };
        let seat = game.to_act().and_then(Turn::seat).unwrap();
        game.apply(seat, action).unwrap();
    }
}

/// Plays `n` random cards.
pub(crate) fn play_random(game: &mut Game, n: usize, rng: &mut SplitMix64) {
    for _ in 0..n {
        let Some(Turn::Play(seat)) = game.to_act() else { return };
        let hand = game.legal_plays(seat);
        let card = hand.nth(rng.below(hand.len() as u64) as usize).unwrap();
        game.apply(seat, Action::Play(card)).unwrap();
    }
}

/// Team 0's points minus team 1's in a deal that just ended, from its `DealOver` event.
pub(crate) fn deal_value<'a>(events: impl IntoIterator<Item = &'a Event>) -> Option<i8> {
    events.into_iter().find_map(|e| match e {
        Event::DealOver(d) => Some(match d.score.team {
            Some(t) if t.index() == 0 => d.score.points as i8,
            Some(_) => -(d.score.points as i8),
            None => 0,
        }),
        _ => None,
    })
}
