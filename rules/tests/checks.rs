//! The checks `rules` offers without a `Game` are the engine's: over seeded random matches under
//! every discard and signal option, `check_signal` and `allowed_signals` say of every signal what
//! `Game::check_signal` says, `check_discard` and `DiscardChoice` say of random discards what
//! `Game::check_discard` says, and `trick_winner` names the winner of every trick the engine
//! ends.

use rules::*;

fn subset(rng: &mut SplitMix64, from: CardSet, n: usize) -> CardSet {
    let mut out = CardSet::EMPTY;
    while out.len() < n.min(from.len()) {
        let left = from.difference(out);
        out = out.with(left.nth(rng.below(left.len() as u64) as usize).unwrap());
    }
    out
}

fn check_signals(game: &Game) {
    for seat in Seat::ALL {
        let hand = game.hand(seat);
        let allowed: Vec<Signal> = allowed_signals(hand, game.rules()).collect();
        for s in Signal::ALL {
            let engine = game.check_signal(seat, s);
            assert_eq!(check_signal(s, hand, game.rules()), engine, "{s} {hand:?}");
            assert_eq!(allowed.contains(&s), engine.is_ok(), "{s} {hand:?}");
        }
    }
}

#[test]
fn the_free_checks_are_the_engines() {
    let mut rng = SplitMix64::new(25);
    let mut tricks = 0;
    let mut discards = [0, 0];
    for m in 0..120u64 {
        let rules = Rules {
            discard: [DiscardRule::Free, DiscardRule::KeepHighest][(m % 2) as usize],
            signals: [SignalDelivery::Off, SignalDelivery::Partner, SignalDelivery::Public]
                [(m / 2 % 3) as usize],
            signal_truth: [SignalTruth::Truthful, SignalTruth::Free][(m / 6 % 2) as usize],
            surrender: m % 5 == 0,
            length: MatchLength::Deals(2),
            ..Rules::default()
        };
        let mut game = Game::new(rules, Seat::ALL[(m % 4) as usize]);
        while let Some(turn) = game.to_act() {
            let Some(seat) = turn.seat() else {
                game.deal(&Deck::shuffled(rng.next_u64())).unwrap();
                continue;
            };
            check_signals(&game);
            let hand = game.hand(seat);
            let action = match turn {
                Turn::Vote(_) => Action::Vote(rng.below(4) != 0),
                Turn::Discard(_) => {
                    let choice = DiscardChoice::of(hand, rules.discard);
                    for _ in 0..100 {
                        let n = 5 + rng.below(3) as usize;
                        let d = subset(&mut rng, hand, n);
                        let engine = game.check_discard(seat, d);
                        assert_eq!(check_discard(hand, d, rules.discard), engine, "{d:?}");
                        assert_eq!(choice.allows(d), engine.is_ok(), "{d:?}");
                        discards[usize::from(engine.is_ok())] += 1;
                    }
                    Action::Discard(choice.weakest().unwrap())
                }
                Turn::Play(_) => {
                    Action::Play(hand.nth(rng.below(hand.len() as u64) as usize).unwrap())
                }
                Turn::Offer(_) => Action::Offer(rng.below(2) == 0),
                Turn::Reply(_) => Action::Reply(rng.below(2) == 0),
                Turn::Announce(_) => Action::Announce(rng.below(3) == 0),
                Turn::Deal => unreachable!("a deal has no seat"),
            };
            for event in game.apply(seat, action).unwrap().iter() {
                if let Event::TrickOver(t) = event {
                    let winner = trick_winner(&t.cards).map(|i| t.leader.plus(i as u8));
                    assert_eq!(winner, t.winner, "{t:?}");
                    tricks += 1;
                }
            }
        }
    }
    assert!(tricks > 1000 && discards[0] > 100 && discards[1] > 100, "{tricks} {discards:?}");
}
