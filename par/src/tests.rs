//! Unit tests of the pieces the exhaustive cross-check cannot aim at one by one: the tally's
//! score against `rules`' scoring on random trick histories, move merging, dead cards and three
//! of the bounds.

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
