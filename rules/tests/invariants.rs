//! Seeded random matches under random rule options, checking the engine's invariants at every
//! step: cards are conserved, views hide what they must, refused actions change nothing, and
//! replaying the action log reproduces the match; under surrender and announced mordienne, the
//! pre-lead rounds come before the first lead, a committed deal always counts and scores 2, and
//! the match lasts to 10 when spec/rules.md section 8 says so.

use rules::*;

#[derive(Clone, Debug)]
enum Logged {
    Deal(Deck),
    Act(Seat, Action),
    Signal(Seat, Signal, [bool; 2]),
}

fn random_rules(rng: &mut SplitMix64) -> Rules {
    let pick = |rng: &mut SplitMix64, n: u64| rng.below(n);
    let mut rules = Rules {
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
        surrender: pick(rng, 2) == 0,
        announce_penalty: pick(rng, 2) == 0,
        announce: [Announcement::Off, Announcement::ExtendsMatch, Announcement::MatchToTen]
            [pick(rng, 3) as usize],
    };
    // The lengths each announcement reading takes (spec/rules.md section 8; others are refused).
    rules.length = match rules.announce {
        Announcement::Off => rules.length,
        Announcement::ExtendsMatch => MatchLength::Target(1 + pick(rng, 9) as u16),
        Announcement::MatchToTen => MatchLength::Target(10),
    };
    assert_eq!(rules.check_length(), Ok(()));
    rules
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
    Some(match rng.below(7) {
        5 => match turn {
            Turn::Offer(_) => (seat.plus(1 + rng.below(3) as u8), Action::Offer(true)),
            _ => (seat, Action::Offer(rng.below(2) == 0)),
        },
        6 => match turn {
            Turn::Reply(_) => (seat.plus(1 + rng.below(3) as u8), Action::Reply(false)),
            Turn::Announce(_) => (seat, Action::Reply(true)),
            _ => (seat, Action::Announce(true)),
        },
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

fn check_views(game: &Game, talon_left: CardSet, talon: &[Card]) {
    for seat in Seat::ALL {
        let view = game.view(seat);
        assert_eq!(view.hand, game.hand(seat));
        // The talon cards a seat received, in the order dealt: alternately to the two
        // recipients, so each card's place in the talon has the seat's parity and grows.
        let order: Vec<usize> = game
            .received_in_order(seat)
            .map(|c| talon.iter().position(|&t| t == c).expect("a talon card"))
            .collect();
        assert_eq!(
            CardSet::from_cards(&game.received_in_order(seat).collect::<Vec<_>>()),
            view.received
        );
        assert!(order.windows(2).all(|w| w[1] == w[0] + 2), "{seat}: {order:?}");
        let first = usize::from(seat != game.dealer().left());
        assert!(order.first().is_none_or(|&p| p == first), "{seat} got the talon from {order:?}");
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

thread_local! {
    /// Deals of each [`PledgeKind`] met, so the test fails if the playouts stop reaching them.
    static PLEDGES: std::cell::RefCell<[usize; 3]> = const { std::cell::RefCell::new([0; 3]) };
}

/// At the first lead of a deal, every pre-lead round in force is over (spec/rules.md 12.1).
fn check_rounds_done(game: &Game) {
    let rules = game.rules();
    let first = game.dealer().left();
    let p = game.view(first).pledges;
    for seat in Seat::ALL {
        assert_eq!(game.view(seat).pledges, p, "the rounds are public");
    }
    if rules.surrender {
        assert!(p.offers[first.index()].is_some(), "the first lead came before the offers");
        assert_ne!(p.accepted(), Some(true), "an accepted surrender was played");
        if p.offered_by().is_some() {
            assert_eq!(p.accepted(), Some(false), "an offer was not answered");
        }
    }
    let announcing = rules.announce != Announcement::Off && p.offered_by().is_none();
    assert_eq!(p.announces[first.index()].is_some(), announcing, "{p:?}");
    if !rules.surrender {
        assert_eq!(p.offers, [None; 4]);
    }
}

/// A deal with a surrender or an announcement is scored by section 12.4.
fn check_deal(rules: &Rules, d: &DealResult, tricks: &[Option<Seat>], extended: &mut bool) {
    let s = d.score;
    let Some(pledge) = d.pledge else {
        assert_eq!(s.team, s.winner.map(Seat::team));
        return;
    };
    PLEDGES.with(|p| p.borrow_mut()[pledge.kind as usize] += 1);
    if pledge.kind == PledgeKind::Announced {
        *extended |= rules.announce == Announcement::ExtendsMatch;
    }
    if pledge.kind == PledgeKind::Announced && !rules.announce_penalty {
        // Section 7, where the announcing team's mordienne scores 2 whatever `mordienne` says,
        // and a failed announcement costs nothing.
        let winners: [Option<Seat>; 9] = tricks.try_into().expect("nine tricks");
        let plain = score_deal(&winners, &Rules { mordienne: true, ..*rules });
        let announcing = pledge.seat.team();
        let two = rules.mordienne || plain.team == Some(announcing);
        assert_eq!(s.team, plain.team, "{d:?}");
        assert_eq!(s.mordienne, plain.mordienne && two, "{d:?}");
        assert_eq!(s.points, if plain.mordienne && !two { 1 } else { plain.points }, "{d:?}");
        return;
    }
    assert!(d.counted, "a deal with a surrender or a committing announcement always counts");
    match pledge.kind {
        PledgeKind::Accepted => {
            assert!(rules.surrender);
            assert_eq!((s.tricks, s.winner, s.points), ([0; 4], None, 1));
            assert_eq!(s.team, Some(pledge.seat.team().other()));
        }
        PledgeKind::Refused | PledgeKind::Announced => {
            let committed = match pledge.kind {
                PledgeKind::Refused => pledge.seat.team().other(),
                _ => pledge.seat.team(),
            };
            assert_eq!(s.points, 2);
            // Made exactly when the deal winner is committed and the deal is a mordienne by
            // section 7.3, whatever `mordienne` says.
            let winners: [Option<Seat>; 9] = tricks.try_into().expect("nine tricks");
            let plain = score_deal(&winners, &Rules { mordienne: true, ..*rules });
            let made = plain.mordienne && plain.winner.map(Seat::team) == Some(committed);
            assert_eq!(s.mordienne, made, "{d:?}");
            let scorer = if made { committed } else { committed.other() };
            assert_eq!(s.team, Some(scorer), "{d:?}");
        }
    }
}

/// The match ended when section 8 says: at its target (10 under `announced-only`), and under
/// `announced` at 10 after an announcement.
fn check_length(rules: &Rules, m: &MatchResult, extended: bool) {
    let top = m.score[0].max(m.score[1]);
    let target = match (rules.announce, rules.length) {
        (Announcement::ExtendsMatch, MatchLength::Target(_)) if extended => Some(10),
        (_, MatchLength::Target(n)) => Some(n),
        (_, MatchLength::Deals(_)) => None,
    };
    if let Some(t) = target {
        assert!(top >= t, "the match ended at {m:?} before {t}");
    }
    if rules.announce == Announcement::MatchToTen && rules.on_tie == OnTie::Draw {
        // Only one team scores in a deal, by at most 2: the first deal to reach 10 ends it.
        assert!(top <= 11, "the match went on past 10: {m:?}");
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
    let mut talon: Vec<Card> = Vec::new();
    let mut steps = 0;
    let mut extended = false;
    let mut trick_winners: Vec<Option<Seat>> = Vec::new();
    while let Some(turn) = game.to_act() {
        steps += 1;
        assert!(steps < 20_000, "match does not end");
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
                talon = deck.talon().to_vec();
                played = CardSet::EMPTY;
                discards = CardSet::EMPTY;
                trick_winners.clear();
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
            Turn::Offer(seat) | Turn::Reply(seat) | Turn::Announce(seat) => {
                let yes = rng.below(4) == 0;
                let action = match turn {
                    Turn::Offer(_) => Action::Offer(yes),
                    Turn::Reply(_) => Action::Reply(yes),
                    _ => Action::Announce(yes),
                };
                log.push(Logged::Act(seat, action));
                game.apply(seat, action).unwrap()
            }
            Turn::Play(seat) => {
                let legal = game.legal_plays(seat);
                if game.view(seat).tricks_done == 0 && game.view(seat).table().is_empty() {
                    check_rounds_done(&game);
                }
                assert_eq!(legal, game.hand(seat));
                let card = legal.nth(rng.below(legal.len() as u64) as usize).unwrap();
                let action = Action::Play(card);
                log.push(Logged::Act(seat, action));
                played = played.with(card);
                game.apply(seat, action).unwrap()
            }
        };
        for e in events.iter() {
            if let Event::TrickOver(t) = e {
                trick_winners.push(t.winner);
            }
            if let Event::DealOver(d) = e {
                check_deal(&rules, d, &trick_winners, &mut extended);
            }
            if let Event::MatchOver(m) = e {
                check_length(&rules, m, extended);
            }
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
            check_views(&game, talon_left, &talon);
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
    let pledges = PLEDGES.with(|p| *p.borrow());
    assert!(pledges.iter().all(|&n| n > 100), "accepted, refused, announced: {pledges:?}");
}
