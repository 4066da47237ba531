//! Seeded random matches under random rule options, checking the engine's invariants at every
//! step: cards are conserved, views hide what they must, refused actions change nothing, and
//! replaying the action log reproduces the match.

use rules::*;

#[derive(Clone, Debug)]
enum Logged {
    Deal(Deck),
    Act(Seat, Action),
    Signal(Seat, Signal, [bool; 2]),
}

fn random_rules(rng: &mut SplitMix64) -> Rules {
    let pick = |rng: &mut SplitMix64, n: u64| rng.below(n);
    Rules {
        chant: pick(rng, 4) != 0,
        chant_second: if pick(rng, 2) == 0 { ChantSecond::Dealer } else { ChantSecond::Partner },
        discard: if pick(rng, 2) == 0 { DiscardRule::Free } else { DiscardRule::KeepHighest },
        all_spoiled: if pick(rng, 2) == 0 { AllSpoiled::Nothing } else { AllSpoiled::Redeal },
        mordienne: pick(rng, 3) != 0,
        mordienne_run: 2 + pick(rng, 2) as u8,
        length: if pick(rng, 3) == 0 {
            MatchLength::Target(1 + pick(rng, 5) as u16)
        } else {
            MatchLength::Deals(1 + pick(rng, 6) as u16)
        },
        on_tie: if pick(rng, 2) == 0 { OnTie::Draw } else { OnTie::ExtraDeals },
        signals: [
            SignalDelivery::Off,
            SignalDelivery::Partner,
            SignalDelivery::Public,
            SignalDelivery::Leaky,
        ][pick(rng, 4) as usize],
        signal_leak_ppm: 500_000,
        signal_truth: if pick(rng, 2) == 0 { SignalTruth::Truthful } else { SignalTruth::Free },
    }
}

fn random_signal(rng: &mut SplitMix64) -> Signal {
    match rng.below(4) {
        0 => Signal::Holds(Card::from_index(rng.below(48) as u8).unwrap()),
        1 => Signal::Aces(rng.below(6) as u8),
        2 => Signal::BadHand,
        _ => Signal::Mordienne,
    }
}

fn random_subset(rng: &mut SplitMix64, from: CardSet, n: usize) -> CardSet {
    let mut out = CardSet::EMPTY;
    let mut left = from;
    while out.len() < n && !left.is_empty() {
        let c = left.nth(rng.below(left.len() as u64) as usize).unwrap();
        out = out.with(c);
        left = left.without(c);
    }
    out
}

/// An action the engine must refuse now, or `None` when this draw found none.
fn illegal_action(game: &Game, rng: &mut SplitMix64) -> Option<(Seat, Action)> {
    let turn = game.to_act()?;
    let seat = turn.seat()?;
    let hand = game.hand(seat);
    let not_held = CardSet::FULL.difference(hand);
    Some(match rng.below(5) {
        0 => (seat.plus(1 + rng.below(3) as u8), Action::Play(hand.nth(0)?)),
        1 => (seat, Action::Play(not_held.nth(rng.below(not_held.len() as u64) as usize)?)),
        2 => match turn {
            Turn::Vote(_) => (seat, Action::Play(hand.nth(0)?)),
            _ => (seat, Action::Vote(true)),
        },
        3 => (seat, Action::Discard(random_subset(rng, hand, 5))),
        _ => (seat, Action::Discard(random_subset(rng, not_held, 6))),
    })
}

fn check_conservation(game: &Game, talon_left: CardSet, played: CardSet, discards: CardSet) {
    let mut seen = CardSet::EMPTY;
    let mut total = 0;
    for part in Seat::ALL.map(|s| game.hand(s)).into_iter().chain([talon_left, played, discards]) {
        assert!(seen.intersection(part).is_empty(), "a card is in two places");
        seen = seen.union(part);
        total += part.len();
    }
    assert_eq!(total, 48);
    assert_eq!(seen, CardSet::FULL);
}

fn check_views(game: &Game, talon_left: CardSet) {
    for seat in Seat::ALL {
        let view = game.view(seat);
        assert_eq!(view.hand, game.hand(seat));
        let known = view.known_cards();
        for other in Seat::ALL.into_iter().filter(|&o| o != seat) {
            assert!(
                known.intersection(game.hand(other)).is_empty(),
                "seat {seat} sees seat {other}'s hand"
            );
        }
        assert!(known.intersection(talon_left).is_empty(), "seat {seat} sees the talon");
    }
}

/// Plays one random match, checking invariants; returns the action log and the final game.
fn play(seed: u64) -> (Vec<Logged>, Game) {
    let mut rng = SplitMix64::new(seed);
    let rules = random_rules(&mut rng);
    let mut game = Game::new(rules, Seat::new(rng.below(4) as u8).unwrap());
    let mut log = Vec::new();
    let (mut talon_left, mut played, mut discards) =
        (CardSet::EMPTY, CardSet::EMPTY, CardSet::EMPTY);
    let mut steps = 0;
    while let Some(turn) = game.to_act() {
        steps += 1;
        assert!(steps < 10_000, "match does not end");
        // Refused actions must leave everything as it was.
        for _ in 0..2 {
            if let Some((seat, action)) = illegal_action(&game, &mut rng) {
                let before = game.clone();
                if game.apply(seat, action).is_err() {
                    assert_eq!(game, before, "a refused {action:?} changed the game");
                } else {
                    // The draw happened to be legal (e.g. a free discard of 6): undo by replaying.
                    game = before;
                }
            }
        }
        if let Some(seat) = turn.seat()
            && rng.below(3) == 0
        {
            {
                let sig = random_signal(&mut rng);
                let coins = [rng.below(2) == 0, rng.below(2) == 0];
                let before = game.clone();
                match game.signal(seat, sig, coins) {
                    Ok(Event::Signalled { seen_by, .. }) => {
                        assert!(seen_by[seat.index()] && seen_by[seat.partner().index()]);
                        if rules.signal_truth == SignalTruth::Truthful {
                            assert!(sig.is_true_for(game.hand(seat)));
                        }
                        log.push(Logged::Signal(seat, sig, coins));
                    }
                    Ok(other) => panic!("signal gave {other:?}"),
                    Err(_) => {}
                }
                assert_eq!(game, before, "a signal changed the game state");
            }
        }
        let events = match turn {
            Turn::Deal => {
                let deck = Deck::shuffled(rng.next_u64());
                talon_left = CardSet::from_cards(deck.talon());
                played = CardSet::EMPTY;
                discards = CardSet::EMPTY;
                log.push(Logged::Deal(deck));
                game.deal(&deck).unwrap()
            }
            Turn::Vote(seat) => {
                let action = Action::Vote(rng.below(5) != 0);
                log.push(Logged::Act(seat, action));
                game.apply(seat, action).unwrap()
            }
            Turn::Discard(seat) => {
                let hand = game.hand(seat);
                let cards = if rules.discard == DiscardRule::KeepHighest {
                    let mut weakest: Vec<Card> = hand.iter().collect();
                    weakest.sort_by_key(|c| std::cmp::Reverse(c.level()));
                    CardSet::from_cards(&weakest[..6])
                } else {
                    random_subset(&mut rng, hand, 6)
                };
                let action = Action::Discard(cards);
                log.push(Logged::Act(seat, action));
                discards = discards.union(cards);
                game.apply(seat, action).unwrap()
            }
            Turn::Play(seat) => {
                let legal = game.legal_plays(seat);
                assert_eq!(legal, game.hand(seat));
                let card = legal.nth(rng.below(legal.len() as u64) as usize).unwrap();
                let action = Action::Play(card);
                log.push(Logged::Act(seat, action));
                played = played.with(card);
                game.apply(seat, action).unwrap()
            }
        };
        for e in events.iter() {
            if let Event::Received { cards, .. } = e {
                talon_left = talon_left.difference(*cards);
            }
            // Private events go to their owner only.
            for s in Seat::ALL {
                match e {
                    Event::Hand { seat, .. }
                    | Event::Received { seat, .. }
                    | Event::Discarded { seat, .. } => {
                        assert_eq!(e.visible_to(s), s == *seat)
                    }
                    _ => {}
                }
            }
        }
        if !matches!(game.to_act(), Some(Turn::Deal) | None) {
            check_conservation(&game, talon_left, played, discards);
            check_views(&game, talon_left);
        }
    }
    (log, game)
}

#[test]
fn random_matches_keep_the_invariants_and_replay() {
    let mut outcomes = [0usize; 3];
    for seed in 0..3000u64 {
        let (log, game) = play(seed);
        let result = game.outcome().expect("finished");
        outcomes[result.winner.map_or(2, |t| t.index())] += 1;
        // Re-applying the log to a fresh game reproduces the match exactly.
        let mut replay = Game::new(*game.rules(), {
            let mut rng = SplitMix64::new(seed);
            random_rules(&mut rng);
            Seat::new(rng.below(4) as u8).unwrap()
        });
        for entry in &log {
            match entry {
                Logged::Deal(deck) => {
                    replay.deal(deck).unwrap();
                }
                Logged::Act(seat, action) => {
                    replay.apply(*seat, *action).unwrap();
                }
                Logged::Signal(seat, sig, coins) => {
                    replay.signal(*seat, *sig, *coins).unwrap();
                }
            }
        }
        assert_eq!(replay, game, "seed {seed}");
    }
    // Both teams win some and some matches are drawn: the generator explores the space.
    assert!(outcomes.iter().all(|&n| n > 50), "{outcomes:?}");
}
