//! Par along real play: from every position of random deals (from trick 5, so a debug build
//! stays quick), the best card keeps the par, no card raises it for the side that plays it, so a
//! card that lowers it is an error whose cost the par says; and the same positions asked again
//! give the same answers.

mod common;

use par::{Position, Solver};
use rules::{Action, SplitMix64, Turn};

#[test]
fn par_never_rises_for_the_side_that_plays_and_the_best_card_keeps_it() {
    let mut rng = SplitMix64::new(7);
    let mut solver = Solver::with_table(16);
    for d in 0..150 {
        let mut game = common::at_first_lead(5000 + d);
        common::play_random(&mut game, 16, &mut rng);
        let mut position = Position::from_game(&game).unwrap();
        let mut engine = None;
        while let Some(seat) = position.to_play() {
            let team = seat.team();
            let before = solver.solve(&position).for_team(team);
            let options = solver.options(&position);
            assert!(options.iter().all(|(_, p)| p.for_team(team) <= before), "deal {d}");
            let best = options.iter().map(|(_, p)| p.for_team(team)).max();
            assert_eq!(best, Some(before), "deal {d}: {position:?}");
            // A random card: its par is at most the par before it.
            let hand = position.hand(seat);
            let card = hand.nth(rng.below(hand.len() as u64) as usize).unwrap();
            position.play(card).unwrap();
            let Some(Turn::Play(s)) = game.to_act() else { unreachable!() };
            let events = game.apply(s, Action::Play(card)).unwrap();
            engine = engine.or(common::deal_value(events.iter()));
            assert!(solver.solve(&position).for_team(team) <= before, "deal {d}");
        }
        // The position played forward is the engine's, and so is the score at the end.
        assert_eq!(engine, Some(solver.solve(&position).value()), "deal {d}");
    }
}

#[test]
fn the_same_positions_give_the_same_answers() {
    let run = || {
        let mut rng = SplitMix64::new(11);
        let mut solver = Solver::with_table(12);
        let mut out = Vec::new();
        for d in 0..40 {
            let mut game = common::at_first_lead(9000 + d);
            common::play_random(&mut game, 20, &mut rng);
            let mut position = Position::from_game(&game).unwrap();
            while let Some(seat) = position.to_play() {
                // A small budget, so some positions stay unsolved: that too must repeat.
                out.push(solver.solve_within(&position, 40).map(|p| p.value()));
                let card = position.hand(seat).iter().next().unwrap();
                position.play(card).unwrap();
            }
        }
        out
    };
    let first = run();
    assert!(first.iter().any(Option::is_none) && first.iter().any(Option::is_some));
    assert_eq!(first, run());
}
