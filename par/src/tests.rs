//! Unit tests of the pieces the exhaustive cross-check cannot aim at one by one: the tally's
//! score against `rules`' scoring on random trick histories, the table's key against positions
//! that differ only in the order of their tricks, move merging, dead cards and four of the
//! bounds.

use super::*;
use rules::{CardSet, Deck, Rules, Seat, SplitMix64, score_announced, score_committed, score_deal};

#[test]
fn the_tally_scores_as_the_rules_do() {
    let mut rng = SplitMix64::new(30);
    for _ in 0..20_000 {
        let mut winners = [None; 9];
        for w in &mut winners {
            *w = Seat::new(rng.below(5) as u8);
        }
        let tally = winners.iter().fold(Tally::new(), |t, w| t.after(w.map(|s| s.index() as u8)));
        for (mordienne, run) in [(true, 2), (true, 3), (false, 2)] {
            let rules = Rules { mordienne, mordienne_run: run, ..Rules::default() };
            let teams = [None, Some(Team::ALL[0]), Some(Team::ALL[1])];
            for (committed, announced) in teams.iter().flat_map(|&c| teams.map(|a| (c, a))) {
                let truth = match (committed, announced) {
                    (Some(t), _) => score_committed(&winners, &rules, t),
                    (None, Some(t)) => score_announced(&winners, &rules, t),
                    (None, None) => score_deal(&winners, &rules),
                };
                let scoring = Scoring { mordienne, run, committed, announced };
                assert_eq!(tally.value(scoring), score_value(&truth), "{winners:?} {scoring:?}");
            }
        }
    }
}

/// A position at the start of a trick with `left` tricks to play, random but for two shapes
/// the score often turns on: either one seat took the last tricks in a row (a clean run) and
/// holds the strongest cards, or a seat of each team stands at one count.
fn random_position(rng: &mut SplitMix64, left: u8) -> Position {
    let done = 9 - left;
    let seat = |rng: &mut SplitMix64| Seat::ALL[rng.below(4) as usize];
    let a = seat(rng);
    let b = a.plus(1 + 2 * rng.below(2) as u8);
    let runs = rng.below(2) == 0;
    let mut winners = [None; 9];
    let played = &mut winners[..usize::from(done)];
    if runs {
        let run = 1 + rng.below(u64::from(done)) as usize;
        for (i, w) in played.iter_mut().enumerate() {
            *w = if i + run >= usize::from(done) { Some(a) } else { Seat::new(rng.below(5) as u8) };
        }
    } else {
        // `a` and `b` (of the two teams) take one trick each in turn; the rest go anywhere.
        let each = 1 + rng.below(u64::from(done) / 2) as usize;
        for (i, w) in played.iter_mut().enumerate() {
            *w = match i {
                i if i < 2 * each => Some(if i % 2 == 0 { a } else { b }),
                _ => Seat::new(rng.below(5) as u8),
            };
        }
    }
    // The cards in play; the runner's are drawn from the strongest of them, two more than it
    // holds, so that its run may or may not hold to the end.
    let n = usize::from(left);
    let mut cards: alloc::vec::Vec<Card> = Deck::shuffled(rng.next_u64()).cards()[..4 * n].to_vec();
    if runs {
        cards.sort_by_key(|c| c.strength());
        shuffle(&mut cards[..n + 2], rng);
        shuffle(&mut cards[n..], rng);
    }
    let mut hands = [CardSet::EMPTY; 4];
    let order = Seat::ALL.map(|s| a.plus(s.index() as u8));
    for (i, card) in cards.iter().enumerate() {
        let s = order[i / n].index();
        hands[s] = hands[s].with(*card);
    }
    let variant = rng.below(4);
    let rules = Rules {
        mordienne: variant != 1,
        mordienne_run: if variant == 2 { 3 } else { 2 },
        ..Rules::default()
    };
    let team = |v| Team::new(v as u8);
    let (committed, announced) = match rng.below(6) {
        0 | 1 => (team(rng.below(2)), None),
        2 => (None, team(rng.below(2))),
        _ => (None, None),
    };
    Position {
        hands,
        // Not always the last trick's winner, as in a real deal: the par and the key are defined
        // for any leader, so the test covers those positions too.
        leader: seat(rng),
        table: [Card::MONSIEUR; 4],
        n_table: 0,
        winners,
        done,
        rules,
        committed,
        announced,
    }
}

/// Fisher-Yates, driven by `rng`.
fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i as u64 + 1) as usize);
    }
}

/// The table's key keeps of the tricks played only what the score still depends on: a table
/// filled by the search of one history must give the par a fresh search finds for another history
/// of the same tricks in another order (other counts reached first, other clean runs), both at
/// the root and below it. Random endings rarely meet one layout under two such tallies within
/// one search: keys without the order of equal counts, or without the clean runs, passed every
/// exhaustive test.
#[test]
fn a_table_filled_under_another_order_of_the_same_tricks_gives_the_same_par() {
    let mut rng = SplitMix64::new(32);
    let (mut warm, mut fresh) = (Solver::with_table(16), Solver::with_table(16));
    let mut differed = 0;
    for d in 0..6000 {
        let p = random_position(&mut rng, 2 + (d % 4) as u8);
        let mut q = p;
        shuffle(&mut q.winners[..usize::from(p.done)], &mut rng);
        warm.clear();
        let first = warm.solve(&p);
        let after = warm.solve(&q);
        fresh.clear();
        let alone = fresh.solve(&q);
        assert_eq!(after, alone, "{q:?} after {p:?}");
        differed += usize::from(first != alone);
    }
    // The order of the tricks changed the par often enough for a wrong key to show.
    assert!(differed > 100, "the order changed {differed} pars");
}

#[test]
fn cards_no_other_card_separates_are_one_move() {
    let m =
        |cards: &str| slots::mask(cards.split(' ').map(|c| c.parse::<Card>().unwrap()).collect());
    // 3o and 3c (levels 1, 2) touch; the Borgne of the other hand separates them from 2c.
    let (_, n) = search::moves(m("3o 3c 2c"), m("2o"));
    assert_eq!(n, 2);
    // Two aces are one move even when another hand holds an ace: both tie with it.
    let (_, n) = search::moves(m("Ao Ac"), m("As"));
    assert_eq!(n, 1);
    // Nothing else in play: the whole hand is one move.
    let (_, n) = search::moves(m("3o 5b 4s"), 0);
    assert_eq!(n, 1);
}

#[test]
fn cards_weaker_than_a_whole_other_hand_are_dead() {
    let m =
        |cards: &str| slots::mask(cards.split(' ').map(|c| c.parse::<Card>().unwrap()).collect());
    // Seat 0's weakest card is an ace: every card below the aces in the other hands is dead,
    // and seat 0's own ace only dies below the weakest card of another hand (none here).
    let hands = [m("3o Ao"), m("Kc 4s"), m("2c 5o"), m("Ks 9c")];
    assert_eq!(search::dead(&hands), m("Kc 4s 5o Ks"));
    // A card that ties another hand's weakest card may still spoil a trick: it is alive.
    let hands = [m("Ko"), m("Kc"), m("4o"), m("5o")];
    assert_eq!(search::dead(&hands), m("4o 5o"));
}

/// A deal's slot masks from card codes, seat by seat.
fn hands(seats: [&str; 4]) -> [u64; 4] {
    seats.map(|cards| slots::mask(cards.split(' ').map(|c| c.parse::<Card>().unwrap()).collect()))
}

#[test]
fn a_seat_that_would_take_every_trick_left_meets_the_other_teams_best_card() {
    // Seat 3 leads and beats each other hand card for card, but only its Vache beats seat 0's
    // king of coins: leading every trick, it must give the king its chance.
    let h = hands(["Ko Js 8b", "9c 6s 6b", "8c 8s 7c", "2c Kb Jc"]);
    let (_, most) = bounds::reach(&h, 3, None);
    assert_eq!(most[3], 2);
    // Not leading, it still leads the tricks after the first: the king stops it the same way.
    let (_, most) = bounds::reach(&h, 0, None);
    assert_eq!(most[3], 2);
}

#[test]
fn a_seat_above_the_other_team_sweeps_only_with_a_partner_who_can_play_under() {
    let scoring = Scoring { mordienne: true, run: 2, committed: None, announced: None };
    // Seven tricks: seat 1 won the first, the rest were spoiled; two left.
    let tally = (0..6).fold(Tally::new().after(Some(1)), |t, _| t.after(None));
    // Seat 0's Monsieur and Grand-neuf beat everything of the other team, and its partner has
    // a weaker card for each: it takes both tricks, a run of two that beats seat 1's one trick.
    let h = hands(["3o 9c", "Kc Ko", "3c Ao", "4o 5o"]);
    assert_eq!(bounds::sweep_bounds(&h, &tally, scoring), (2, 2));
    // A partner whose Borgne beats the Grand-neuf would have to take a trick itself.
    let h = hands(["3o 9c", "Kc Ko", "3c 2o", "4o 5o"]);
    assert_eq!(bounds::sweep_bounds(&h, &tally, scoring), (-2, 2));
}

#[test]
fn a_team_whose_top_cards_lie_in_both_hands_still_holds_the_other_team_off() {
    let scoring = Scoring { mordienne: true, run: 2, committed: None, announced: None };
    // Six tricks: seats 1 and 3 took two each, seats 0 and 2 one each; three left.
    let tally = [0, 1, 2, 3, 1, 3].iter().fold(Tally::new(), |t, &w| t.after(Some(w)));
    // Seat 1's Monsieur and seat 3's Madame each take a trick of their own: team 1 ends with
    // six tricks, so one of its seats with three, and team 0, left one trick, with two at most.
    // No seat alone is sure to pass team 0's counts, so only the two teams' tricks counted
    // together settle it.
    let h = hands(["2o 2c 9c", "3o 5o 5c", "Ao Ac As", "3c 4o 4c"]);
    let reach = bounds::reach(&h, 0, None);
    assert_eq!(bounds::bounds(&tally, &h, reach, scoring).1, -1);
}

#[test]
fn partners_whose_top_cards_must_meet_are_not_sure_of_the_trick_they_spoil() {
    // Seven tricks: seats 1 and 2 took two each (seat 1 first to two), seat 0 one; two left.
    let winners = [2, 1, 0, 1, 2, 4, 4].map(Seat::new);
    let tally = winners.iter().fold(Tally::new(), |t, w| t.after(w.map(|s| s.index() as u8)));
    // Team 0 holds three aces, above every card of the other team, for two tricks. But seat 0
    // holds only aces, so seat 2's ace meets one of them and that trick is spoiled: team 0 takes
    // one trick, seat 0 ends with two, and seat 1, first to two, wins the deal. Counting three
    // cards above for two tricks as two sure tricks would make team 0 the winner.
    let sets = ["Ao As", "Ko Kc", "Ac 4o", "Ks Kb"]
        .map(|s| s.split(' ').map(|c| c.parse::<Card>().unwrap()).collect::<CardSet>());
    let h = sets.map(slots::mask);
    let (_, most) = bounds::reach(&h, 0, None);
    assert!(!bounds::holds_off(&h, &tally, most, 0));
    // The search agrees: team 1 scores the point.
    let mut played = [None; 9];
    played[..7].copy_from_slice(&winners);
    let position = Position {
        hands: sets,
        leader: Seat::ALL[0],
        table: [Card::MONSIEUR; 4],
        n_table: 0,
        winners: played,
        done: 7,
        rules: Rules::default(),
        committed: None,
        announced: None,
    };
    assert_eq!(Solver::with_table(10).solve(&position).value(), -1);
}
