//! The solver against a plain minimax over every legal card, played on `rules::Game` and scored
//! by the engine's own `DealOver`: thousands of random endings of up to four tricks, from every
//! point of a trick, under every scoring variant (tests/common).

mod common;

use par::{Position, Solver};
use rules::{Action, Game, SplitMix64, Turn};

/// The par by brute force: every card of every hand, no pruning, no table.
fn exhaustive(game: &Game) -> i8 {
    let Some(Turn::Play(seat)) = game.to_act() else { unreachable!("a trick in progress") };
    let values = game.legal_plays(seat).iter().map(|card| {
        let mut next = game.clone();
        let events = next.apply(seat, Action::Play(card)).unwrap();
        match common::deal_value(events.iter()) {
            Some(v) => v,
            None => exhaustive(&next),
        }
    });
    if seat.team().index() == 0 { values.max().unwrap() } else { values.min().unwrap() }
}

/// Runs `deals` deals to `tricks_left` tricks before the end, plus `extra` cards into the trick.
fn check(seed: u64, deals: u64, tricks_left: usize) {
    let mut rng = SplitMix64::new(seed);
    let mut solver = Solver::with_table(14);
    for d in 0..deals {
        let mut game = common::at_first_lead(seed.wrapping_mul(1_000_003) + d);
        let extra = rng.below(4) as usize;
        common::play_random(&mut game, 4 * (9 - tricks_left) + extra, &mut rng);
        let position = Position::from_game(&game).unwrap();
        solver.clear();
        let par = solver.solve(&position);
        assert_eq!(par.value(), exhaustive(&game), "deal {d} of seed {seed}: {position:?}");
        // Each card's par is what that card leads to.
        for (card, after) in solver.options(&position) {
            let mut next = game.clone();
            let seat = position.to_play().unwrap();
            let events = next.apply(seat, Action::Play(card)).unwrap();
            let truth = common::deal_value(events.iter()).unwrap_or_else(|| exhaustive(&next));
            assert_eq!(after.value(), truth, "deal {d} of seed {seed}, {card}: {position:?}");
        }
    }
}

#[test]
fn one_and_two_tricks_left() {
    check(1, 3000, 1);
    check(2, 3000, 2);
}

#[test]
fn three_tricks_left() {
    check(3, 2000, 3);
}

#[test]
fn four_tricks_left() {
    check(4, 60, 4);
}
