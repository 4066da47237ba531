//! The sampler against real deals: every sample it draws agrees with all its seat knows, the
//! real deal itself always does, and nothing hidden leaks into a decision.

mod table;

use rules::{Deck, Rules, Seat, SignalDelivery, SplitMix64};
use table::{play_deal, truth};

/// At every question of real deals (chant taken or refused, signals to the partner or to all),
/// the real hidden cards pass the seat's consistency check, and so does every sample, while
/// the samples do vary.
#[test]
fn every_sample_is_consistent_with_the_seats_knowledge() {
    let mut questions = 0;
    let mut checked_signals = 0;
    let mut varied = 0;
    let mut taken = 0;
    for seed in 0..8u64 {
        let signals = if seed % 2 == 0 { SignalDelivery::Partner } else { SignalDelivery::Public };
        let rules = Rules { signals, ..Rules::default() };
        let deck = Deck::shuffled(seed);
        play_deal(rules, seed % 4 < 2, &deck, seed, 4, |seat, player, game| {
            let k = player.knowledge().expect("a deal in progress");
            taken += usize::from(k.chant == Some(true));
            assert_eq!(k.seat, seat);
            let real = truth(game, &deck);
            assert!(k.consistent(&real), "the real deal fails seat {seat:?}'s check: {k:?}");
            let mut rng = SplitMix64::new(seed * 100 + questions);
            let mut differ = false;
            for _ in 0..20 {
                let s = k.sample(&mut rng);
                assert!(k.consistent(&s), "an inconsistent sample {s:?} for {k:?}");
                assert_eq!(s.hands[seat.index()], game.hand(seat), "own hand not fixed");
                for other in Seat::ALL.into_iter().filter(|&o| o != seat) {
                    assert!(s.hands[other.index()].intersection(k.known()).is_empty());
                }
                differ |= s != real;
            }
            // Late in a deal the signals may leave every hidden card one place.
            varied += u32::from(differ);
            checked_signals += k.seen.len();
            questions += 1;
        });
    }
    assert!(questions > 200, "{questions} questions");
    assert!(
        u64::from(varied) * 10 > questions * 9,
        "the samples varied at {varied} of {questions}"
    );
    assert!(checked_signals > 50, "only {checked_signals} signals were seen");
    assert!(taken > 50, "only {taken} questions after a taken chant");
}

/// Knowledge that the check must refuse: a sample that gives the partner none of the cards
/// it signalled, or a talon card to a seat, is not consistent.
#[test]
fn the_check_refuses_what_the_seat_knows_is_false() {
    let deck = Deck::shuffled(3);
    let mut refused = 0;
    play_deal(Rules::default(), true, &deck, 3, 2, |seat, player, game| {
        let k = player.knowledge().expect("a deal in progress");
        let real = truth(game, &deck);
        let partner = seat.partner().index();
        let opp = seat.left().index();
        // Swap the partner's signalled card with an opponent's card.
        for seen in k.seen.iter().filter(|s| s.from == seat.partner()) {
            if let rules::Signal::Holds(c) = seen.signal
                && real.hands[partner].contains(c)
                && let Some(o) = real.hands[opp].iter().next()
            {
                let mut bad = real;
                bad.hands[partner] = bad.hands[partner].without(c).with(o);
                bad.hands[opp] = bad.hands[opp].without(o).with(c);
                assert!(!k.consistent(&bad), "a broken signal passed");
                refused += 1;
            }
        }
        // Hand sizes are known.
        if let Some(o) = real.hands[opp].iter().next()
            && !real.hands[partner].is_empty()
        {
            let mut bad = real;
            bad.hands[opp] = bad.hands[opp].without(o);
            bad.hands[partner] = bad.hands[partner].with(o);
            assert!(!k.consistent(&bad));
        }
    });
    assert!(refused > 0, "no signalled card to test");
}

/// Two deals that differ only in cards a seat cannot see give that seat the same first
/// decision under the same seed: the search assumes nothing it cannot know.
#[test]
fn hidden_cards_do_not_change_a_decision() {
    let mut compared = 0;
    for seed in 0..4u64 {
        let deck = Deck::shuffled(seed);
        // Seat 1 votes first; swap one card between the hands of seats 2 and 0 (its partner
        // signals only after seat 1 has answered).
        let mut cards = *deck.cards();
        let hands = deck.hands(Seat::ALL[0]);
        let a = hands[2].iter().next().expect("a card");
        let b = hands[0].iter().next().expect("a card");
        let (ia, ib) = (
            cards.iter().position(|&c| c == a).expect("in the deck"),
            cards.iter().position(|&c| c == b).expect("in the deck"),
        );
        cards.swap(ia, ib);
        let other = Deck::from_cards(&cards).expect("a deck");
        let first =
            |d: &Deck| play_deal(Rules::default(), false, d, seed, 64, |_, _, _| {})[0].clone();
        assert_eq!(first(&deck), first(&other), "seed {seed}");
        compared += 1;
    }
    assert_eq!(compared, 4);
}

/// The same seed and sample count give the same answers, and another seed other ones.
#[test]
fn answers_are_determined_by_the_seed_and_the_sample_count() {
    let deck = Deck::shuffled(11);
    let run = |seed| play_deal(Rules::default(), seed % 2 == 0, &deck, seed, 8, |_, _, _| {});
    let a = run(5);
    assert_eq!(a, run(5));
    assert!(a.len() >= 36, "{} answers", a.len());
    let differs = (6..10).any(|s| run(s) != a);
    assert!(differs, "the seed changes nothing");
}
