//! Unit tests of the pieces the exhaustive cross-check cannot aim at one by one: the tally's
//! score against `rules`' scoring on random trick histories, move merging and dead cards.

use super::*;
use rules::{Rules, Seat, SplitMix64, score_announced, score_committed, score_deal};

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
