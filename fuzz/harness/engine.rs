//! The fuzz harness of the rules engine: arbitrary bytes become a match (rule options, first
//! dealer, decks) and a sequence of attempts (legal moves, arbitrary actions from arbitrary
//! seats, signals, deals out of turn), checked against the engine's invariants after every step.
//! Shared, through `#[path]`, by the `engine` fuzz target and by
//! `rules/tests/fuzz_regressions.rs`.
//!
//! Checked: an attempt is accepted exactly when an independent model of the rules says it is
//! legal, and a refused one leaves the game unchanged (compared with a clone); a signal never
//! changes the game and reaches exactly the seats the delivery rule names; the 48 cards are
//! conserved (hands, talon left, discards, played cards); hand sizes follow the tricks; no view
//! shows another seat's hand, the talon or another seat's discards; private events are told to
//! their owner only; trick winners and deal scores agree with a recomputation; once the bytes
//! run out, legal moves alone end the match within bounds; and the log of accepted calls replays
//! to the same game.

use rules::{
    Action, AllSpoiled, Card, CardSet, ChantSecond, Deck, DiscardRule, Event, Events, Game,
    MatchLength, OnTie, Rules, Seat, Signal, SignalDelivery, SignalTruth, SplitMix64, Turn,
};

/// The input as a byte source; past its end it reads zeros, so every input is a whole program.
struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |acc, _| (acc << 8) | u64::from(self.u8()))
    }

    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
}

/// An accepted call, for the replay check.
#[derive(Clone, Debug)]
enum Logged {
    Deal(Deck),
    Act(Seat, Action),
    Signal(Seat, Signal, [bool; 2]),
}

/// What the harness knows of the deal in progress, built from the events alone.
#[derive(Debug, Default)]
struct Tracker {
    talon_left: CardSet,
    played: CardSet,
    discarded: [CardSet; 4],
    trick_winners: Vec<Option<Seat>>,
    score: [u16; 2],
    log: Vec<Logged>,
}

fn rules_from(a: u8, b: u8) -> Rules {
    let bit = |x: u8, n: u8| (x >> n) & 1 == 1;
    Rules {
        // The chant is on three times in four: it is where most of the engine's paths are.
        chant: a & 3 != 0,
        chant_second: if bit(a, 2) { ChantSecond::Partner } else { ChantSecond::Dealer },
        discard: if bit(a, 3) { DiscardRule::KeepHighest } else { DiscardRule::Free },
        all_spoiled: if bit(a, 4) { AllSpoiled::Redeal } else { AllSpoiled::Nothing },
        mordienne: (a >> 5) & 3 != 0,
        mordienne_run: [2, 2, 3, 2][usize::from((a >> 5) & 3)],
        on_tie: if bit(a, 7) { OnTie::ExtraDeals } else { OnTie::Draw },
        length: if bit(b, 7) {
            MatchLength::Target(1 + u16::from(b & 7))
        } else {
            MatchLength::Deals(1 + u16::from(b & 3))
        },
        signals: [
            SignalDelivery::Off,
            SignalDelivery::Partner,
            SignalDelivery::Public,
            SignalDelivery::Leaky,
        ][usize::from((b >> 3) & 3)],
        signal_leak_ppm: 500_000,
        signal_truth: if bit(b, 5) { SignalTruth::Free } else { SignalTruth::Truthful },
        // The pre-lead rounds (spec/rules.md section 12) are not in this model; the random
        // playouts of rules/tests/invariants.rs cover them.
        surrender: false,
        announce_penalty: false,
        announce: rules::Announcement::Off,
    }
}

/// A deck: a seed's shuffle, a "spoiler" deck, or a permutation spelled out by the bytes (so the
/// fuzzer can build hands with ties and runs).
fn deck_from(b: &mut Bytes<'_>) -> Deck {
    let kind = b.u8();
    if kind & 1 == 0 {
        return Deck::shuffled(b.u64());
    }
    if kind & 2 != 0 {
        return spoiler_deck(b);
    }
    let mut cards = *Deck::canonical().cards();
    for i in (1..48).rev() {
        cards.swap(i, usize::from(b.u8()) % (i + 1));
    }
    Deck::from_cards(&cards).expect("a permutation of the canonical deck is a deck")
}

/// A deck where every hand holds one card of each of nine ranks whose four cards are equals
/// (A K C J 8 7 6 5 4); the eight named cards, the 9s and 3s of swords and batons make the talon.
/// When every player plays the rank led, every trick is spoiled: random decks never reach the
/// all-spoiled rules (`redeal`), this one does.
fn spoiler_deck(b: &mut Bytes<'_>) -> Deck {
    use rules::{Rank, Suit};
    const RANKS: [Rank; 9] = [
        Rank::Ace,
        Rank::King,
        Rank::Cavalier,
        Rank::Jack,
        Rank::Eight,
        Rank::Seven,
        Rank::Six,
        Rank::Five,
        Rank::Four,
    ];
    let mut cards = Vec::with_capacity(48);
    // Packet p (three cards) goes to the seat p % 4 places after the dealer's left, in round
    // p / 4; each seat's three packets hold the nine ranks, in a suit shifted per rank.
    let shift: Vec<usize> = (0..9).map(|_| usize::from(b.u8() % 4)).collect();
    for p in 0..12 {
        let (seat, round) = (p % 4, p / 4);
        for r in round * 3..round * 3 + 3 {
            cards.push(Card::new(RANKS[r], Suit::ALL[(seat + shift[r]) % 4]));
        }
    }
    let dealt = CardSet::from_cards(&cards);
    cards.extend(CardSet::FULL.difference(dealt).iter());
    let n = cards.len();
    for i in (37..n).rev() {
        cards.swap(i, 36 + usize::from(b.u8()) % (i - 35));
    }
    Deck::from_cards(&cards).expect("the spoiler deck is a permutation")
}

fn card_from(x: u8) -> Card {
    Card::from_index(x % 48).expect("an index below 48 is a card")
}

/// Six cards of `hand` picked by the bytes (all of it when it has fewer).
fn pick_six(b: &mut Bytes<'_>, hand: CardSet) -> CardSet {
    let mut left = hand;
    let mut out = CardSet::EMPTY;
    while out.len() < 6 && !left.is_empty() {
        let c = left.nth(usize::from(b.u8()) % left.len()).expect("index below len");
        out = out.with(c);
        left = left.without(c);
    }
    out
}

/// The six weakest cards, always a legal discard under either rule.
fn weakest_six(hand: CardSet) -> CardSet {
    let mut v: Vec<Card> = hand.iter().collect();
    v.sort_by_key(|c| core::cmp::Reverse(c.level()));
    CardSet::from_cards(&v[..6.min(v.len())])
}

/// The model's verdict on an action, written from spec/rules.md independently of the engine.
fn model_allows(game: &Game, seat: Seat, action: Action) -> bool {
    match (game.to_act(), action) {
        (Some(Turn::Vote(s)), Action::Vote(_)) => s == seat,
        (Some(Turn::Play(s)), Action::Play(c)) => s == seat && game.hand(seat).contains(c),
        (Some(Turn::Discard(s)), Action::Discard(cards)) => {
            let hand = game.hand(seat);
            let kept = hand.difference(cards);
            let keeps_weaker = game.rules().discard == DiscardRule::KeepHighest
                && cards.iter().any(|d| kept.iter().any(|k| d.level() < k.level()));
            s == seat && cards.len() == 6 && cards.is_subset(hand) && !keeps_weaker
        }
        _ => false,
    }
}

fn model_allows_signal(game: &Game, seat: Seat, signal: Signal) -> bool {
    let in_deal = matches!(game.to_act(), Some(Turn::Vote(_) | Turn::Discard(_) | Turn::Play(_)));
    let valid = match signal {
        Signal::Holds(c) => c.level() <= 8,
        Signal::Aces(n) => n <= 4,
        Signal::BadHand | Signal::Mordienne => true,
    };
    let hand = game.hand(seat);
    let true_for_hand = match signal {
        Signal::Holds(c) => hand.contains(c),
        Signal::Aces(n) => {
            hand.iter().filter(|c| c.rank() == rules::Rank::Ace).count() == usize::from(n)
        }
        Signal::BadHand | Signal::Mordienne => true,
    };
    game.rules().signals != SignalDelivery::Off
        && in_deal
        && valid
        && (game.rules().signal_truth == SignalTruth::Free || true_for_hand)
}

/// Checks the events of an accepted call against the game before it, and updates the tracker.
fn absorb(t: &mut Tracker, before: &Game, after: &Game, events: &Events) {
    for e in events.iter() {
        for s in Seat::ALL {
            let private_to = match *e {
                Event::Hand { seat, .. }
                | Event::Received { seat, .. }
                | Event::Discarded { seat, .. } => Some(seat),
                _ => None,
            };
            if let Some(owner) = private_to {
                assert_eq!(e.visible_to(s), s == owner, "{e:?} told to seat {s}");
            }
        }
        match *e {
            Event::DealStarted { .. } => {
                t.played = CardSet::EMPTY;
                t.discarded = [CardSet::EMPTY; 4];
                t.trick_winners.clear();
            }
            Event::Hand { seat, cards } => assert_eq!(cards, after.hand(seat)),
            Event::Received { cards, .. } => {
                assert_eq!(cards.len(), 6);
                assert!(cards.is_subset(t.talon_left), "received cards that are not in the talon");
                t.talon_left = t.talon_left.difference(cards);
            }
            Event::Discarded { seat, cards } => {
                assert!(cards.is_subset(before.hand(seat)));
                t.discarded[seat.index()] = cards;
            }
            Event::Played { seat, card } => {
                assert!(before.hand(seat).contains(card), "{seat} played {card}, not held");
                t.played = t.played.with(card);
            }
            Event::TrickOver(trick) => {
                let best = trick.cards.iter().map(|c| c.level()).min().expect("four cards");
                let holders: Vec<usize> =
                    (0..4).filter(|&i| trick.cards[i].level() == best).collect();
                let winner = match holders[..] {
                    [i] => Some(trick.leader.plus(i as u8)),
                    _ => None,
                };
                assert_eq!(trick.winner, winner, "{trick:?}");
                assert_eq!(trick.next_leader, winner.unwrap_or(trick.leader));
                assert_eq!(usize::from(trick.number), t.trick_winners.len() + 1);
                t.trick_winners.push(winner);
            }
            Event::DealOver(deal) => {
                assert_eq!(t.trick_winners.len(), 9);
                let mut tricks = [0u8; 4];
                for w in t.trick_winners.iter().flatten() {
                    tricks[w.index()] += 1;
                }
                assert_eq!(deal.score.tricks, tricks);
                let most = tricks.iter().copied().max().unwrap_or(0);
                match deal.score.winner {
                    Some(w) => {
                        assert_eq!(tricks[w.index()], most);
                        assert!(matches!(deal.score.points, 1 | 2));
                        assert_eq!(deal.score.mordienne, deal.score.points == 2);
                    }
                    None => assert_eq!((most, deal.score.points), (0, 0)),
                }
                let mut score = t.score;
                if deal.counted {
                    if let Some(w) = deal.score.winner {
                        score[w.team().index()] += u16::from(deal.score.points);
                    }
                } else {
                    assert_eq!(after.rules().all_spoiled, AllSpoiled::Redeal);
                    assert_eq!(deal.score.winner, None);
                }
                assert_eq!(deal.match_score, score);
                t.score = score;
            }
            Event::MatchOver(result) => {
                assert_eq!(after.outcome(), Some(result));
                assert_eq!(after.to_act(), None);
                assert_eq!(result.score, t.score);
            }
            Event::ChantDecided { .. } | Event::Voted { .. } | Event::Signalled { .. } => {}
            Event::Offered { .. } | Event::Replied { .. } | Event::Announced { .. } => {
                unreachable!("the fuzzed rules have no pre-lead rounds")
            }
        }
    }
}

/// A deal attempt; it must succeed exactly when a deal is expected.
fn try_deal(game: &mut Game, t: &mut Tracker, deck: Deck) {
    let before = game.clone();
    let expected = before.to_act() == Some(Turn::Deal);
    match game.deal(&deck) {
        Ok(ev) => {
            let ev = *ev;
            assert!(expected, "a deal was accepted while the game waits for {:?}", before.to_act());
            t.talon_left = CardSet::from_cards(deck.talon());
            t.log.push(Logged::Deal(deck));
            absorb(t, &before, game, &ev);
            assert_eq!(game.deal_number(), before.deal_number() + 1);
        }
        Err(e) => {
            assert!(!expected, "a deal was refused: {e}");
            assert_eq!(*game, before, "a refused deal changed the game");
        }
    }
}

/// An action attempt, judged against the model.
fn try_act(game: &mut Game, t: &mut Tracker, seat: Seat, action: Action) -> bool {
    let before = game.clone();
    let expected = model_allows(&before, seat, action);
    if let Action::Discard(cards) = action {
        assert_eq!(before.check_discard(seat, cards).is_ok(), expected, "check_discard {cards:?}");
    }
    match game.apply(seat, action) {
        Ok(ev) => {
            let ev = *ev;
            assert!(
                expected,
                "{seat} {action:?} accepted while the game waits for {:?}",
                before.to_act()
            );
            t.log.push(Logged::Act(seat, action));
            absorb(t, &before, game, &ev);
            true
        }
        Err(e) => {
            assert!(!expected, "{seat} {action:?} refused: {e}");
            assert_eq!(*game, before, "a refused {action:?} changed the game");
            false
        }
    }
}

fn try_signal(game: &mut Game, t: &mut Tracker, seat: Seat, signal: Signal, coins: [bool; 2]) {
    let before = game.clone();
    let expected = model_allows_signal(&before, seat, signal);
    assert_eq!(before.check_signal(seat, signal).is_ok(), expected, "check_signal {signal:?}");
    let result = game.signal(seat, signal, coins);
    assert_eq!(*game, before, "a signal changed the game");
    match result {
        Ok(Event::Signalled { from, signal: s, seen_by }) => {
            assert!(expected, "{seat} {signal:?} accepted");
            assert_eq!((from, s), (seat, signal));
            let (left, right) = (seat.left(), seat.plus(3));
            let opponents = match game.rules().signals {
                SignalDelivery::Public => [true, true],
                SignalDelivery::Leaky => coins,
                SignalDelivery::Partner | SignalDelivery::Off => [false, false],
            };
            let mut want = [false; 4];
            want[seat.index()] = true;
            want[seat.partner().index()] = true;
            want[left.index()] = opponents[0];
            want[right.index()] = opponents[1];
            assert_eq!(seen_by, want, "{signal:?} from {seat} under {:?}", game.rules().signals);
            t.log.push(Logged::Signal(seat, signal, coins));
        }
        Ok(other) => panic!("a signal gave {other:?}"),
        Err(e) => assert!(!expected, "{seat} {signal:?} refused: {e}"),
    }
}

/// The invariants of a game at rest.
fn check_state(game: &Game, t: &Tracker) {
    assert_eq!(game.score(), t.score);
    let Some(turn) = game.to_act() else {
        assert!(game.outcome().is_some());
        let mut after = game.clone();
        assert!(after.deal(&Deck::canonical()).is_err());
        assert!(after.apply(Seat::ALL[0], Action::Vote(true)).is_err());
        assert_eq!(after, *game);
        return;
    };
    assert!(game.outcome().is_none());
    for s in Seat::ALL {
        let legal = game.legal_plays(s);
        assert_eq!(legal, if turn == Turn::Play(s) { game.hand(s) } else { CardSet::EMPTY });
    }
    if turn == Turn::Deal {
        return;
    }
    // Conservation: every card is in exactly one place.
    let discards = t.discarded.iter().fold(CardSet::EMPTY, |a, &d| a.union(d));
    let parts =
        Seat::ALL.map(|s| game.hand(s)).into_iter().chain([t.talon_left, t.played, discards]);
    let mut seen = CardSet::EMPTY;
    let mut total = 0;
    for part in parts {
        assert!(seen.intersection(part).is_empty(), "a card is in two places");
        seen = seen.union(part);
        total += part.len();
    }
    assert_eq!((total, seen), (48, CardSet::FULL), "cards are not conserved");
    let view0 = game.view(Seat::ALL[0]);
    let on_table: Vec<Seat> = view0.table().iter().map(|&(s, _)| s).collect();
    for seat in Seat::ALL {
        let view = game.view(seat);
        assert_eq!(view.hand, game.hand(seat));
        assert_eq!(view.played, t.played);
        assert_eq!(view.to_act, Some(turn));
        assert_eq!(view.discarded, t.discarded[seat.index()]);
        // What the others hold, what is left of the talon and what the others discarded is
        // hidden.
        let mut hidden = t.talon_left;
        for other in Seat::ALL.into_iter().filter(|&o| o != seat) {
            hidden = hidden.union(game.hand(other)).union(t.discarded[other.index()]);
        }
        assert!(view.known_cards().intersection(hidden).is_empty(), "seat {seat} sees too much");
        assert!(view.table().iter().all(|&(_, c)| t.played.contains(c)));
        if let Turn::Play(_) = turn {
            let in_trick = usize::from(on_table.contains(&seat));
            let size = 9 - usize::from(view.tricks_done) - in_trick;
            assert_eq!(game.hand(seat).len(), size, "seat {seat}'s hand size");
        }
        assert_eq!(
            view.tricks_won().iter().map(|&n| usize::from(n)).sum::<usize>(),
            t.trick_winners.iter().flatten().count()
        );
    }
}

/// One fuzzer-driven step.
fn step(game: &mut Game, t: &mut Tracker, b: &mut Bytes<'_>) {
    let op = b.u8();
    match op % 8 {
        // Mostly legal moves, chosen by the bytes, so that games get somewhere.
        0..=3 => match game.to_act() {
            None => {}
            Some(Turn::Deal) => {
                let deck = deck_from(b);
                try_deal(game, t, deck);
            }
            Some(Turn::Vote(s)) => {
                assert!(try_act(game, t, s, Action::Vote(!b.u8().is_multiple_of(4))));
            }
            Some(Turn::Discard(s)) => {
                let cards = pick_six(b, game.hand(s));
                if !try_act(game, t, s, Action::Discard(cards)) {
                    let cards = weakest_six(game.hand(s));
                    assert!(try_act(game, t, s, Action::Discard(cards)));
                }
            }
            Some(Turn::Offer(_) | Turn::Reply(_) | Turn::Announce(_)) => {
                unreachable!("the fuzzed rules have no pre-lead rounds")
            }
            Some(Turn::Play(s)) => {
                let hand = game.hand(s);
                let mut card = hand.nth(usize::from(b.u8()) % hand.len()).expect("a card");
                // Sometimes match the best card on the table, which spoils the trick.
                let view = game.view(s);
                let best = view.table().iter().map(|&(_, c)| c.level()).min();
                if op & 0x10 != 0
                    && let Some(equal) = hand.iter().find(|c| Some(c.level()) == best)
                {
                    card = equal;
                }
                assert!(try_act(game, t, s, Action::Play(card)));
            }
        },
        // Anything from anyone.
        4 | 5 => {
            let seat = Seat::ALL[usize::from(op >> 3) % 4];
            let action = match (op >> 5) & 3 {
                0 => Action::Vote(b.u8() & 1 == 0),
                1 => Action::Discard(CardSet::from_bits(b.u64())),
                2 => Action::Discard(pick_six(b, game.hand(seat))),
                _ => Action::Play(card_from(b.u8())),
            };
            try_act(game, t, seat, action);
        }
        6 => {
            let seat = Seat::ALL[usize::from(op >> 3) % 4];
            let x = b.u8();
            let signal = match (op >> 5) & 3 {
                0 => Signal::Holds(card_from(x)),
                1 => Signal::Aces(x % 8),
                2 => Signal::BadHand,
                _ => Signal::Mordienne,
            };
            try_signal(game, t, seat, signal, [x & 0x40 != 0, x & 0x80 != 0]);
        }
        // A deal at any time, and decks of arbitrary cards.
        _ => {
            if op & 0x80 != 0 {
                let cards: Vec<Card> = (0..48).map(|_| card_from(b.u8())).collect();
                let distinct = CardSet::from_cards(&cards).len() == 48;
                assert_eq!(Deck::from_cards(&cards).is_ok(), distinct);
                assert!(Deck::from_cards(&cards[..usize::from(op & 0x3f) % 48]).is_err());
            } else {
                let deck = deck_from(b);
                try_deal(game, t, deck);
            }
        }
    }
}

/// Largest number of deals a match is allowed before it counts as not ending: redeals and
/// extra deals make the length random, but with fresh decks this bound is never approached.
const MAX_DEALS: u16 = 1000;

/// Runs one input.
pub(crate) fn check(data: &[u8]) {
    let mut b = Bytes { data, pos: 0 };
    let rules = rules_from(b.u8(), b.u8());
    let first_dealer = Seat::ALL[usize::from(b.u8() % 4)];
    let mut game = Game::new(rules, first_dealer);
    let mut t = Tracker::default();
    while !b.done() {
        step(&mut game, &mut t, &mut b);
        check_state(&game, &t);
    }
    // The bytes are spent: legal moves alone must end the match, each deal in exactly its
    // number of calls.
    let mut rng = SplitMix64::new(data.len() as u64);
    let mut calls_in_deal = 0;
    while let Some(turn) = game.to_act() {
        assert!(game.deal_number() <= MAX_DEALS, "the match does not end: {rules:?}");
        match turn {
            Turn::Deal => {
                calls_in_deal = 0;
                try_deal(&mut game, &mut t, Deck::shuffled(rng.next_u64()));
            }
            Turn::Vote(s) => {
                assert!(try_act(&mut game, &mut t, s, Action::Vote(rng.below(3) != 0)))
            }
            Turn::Discard(s) => {
                let cards = weakest_six(game.hand(s));
                assert!(try_act(&mut game, &mut t, s, Action::Discard(cards)));
            }
            Turn::Offer(_) | Turn::Reply(_) | Turn::Announce(_) => {
                unreachable!("the fuzzed rules have no pre-lead rounds")
            }
            Turn::Play(s) => {
                let hand = game.hand(s);
                let card = hand.nth(rng.below(hand.len() as u64) as usize).expect("a card");
                assert!(try_act(&mut game, &mut t, s, Action::Play(card)));
            }
        }
        calls_in_deal += 1;
        assert!(calls_in_deal <= 1 + 4 + 2 + 36, "a deal takes more calls than the rules allow");
        check_state(&game, &t);
    }
    let result = game.outcome().expect("a finished match has a result");
    if let (MatchLength::Deals(n), AllSpoiled::Nothing, OnTie::Draw) =
        (rules.length, rules.all_spoiled, rules.on_tie)
    {
        assert_eq!(game.deal_number(), n, "a match of {n} deals");
        assert_eq!(result.deals, n);
    }
    // The log of accepted calls replays to the same game.
    let mut replay = Game::new(rules, first_dealer);
    for entry in &t.log {
        match entry {
            Logged::Deal(deck) => {
                replay.deal(deck).expect("replayed deal");
            }
            Logged::Act(seat, action) => {
                replay.apply(*seat, *action).expect("replayed action");
            }
            Logged::Signal(seat, signal, coins) => {
                replay.signal(*seat, *signal, *coins).expect("replayed signal");
            }
        }
    }
    assert_eq!(replay, game, "the log does not replay to the same game");
}
