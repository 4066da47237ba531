//! The solver against a plain minimax over every legal card, played on `rules::Game` and scored
//! by the engine's own `DealOver`: thousands of random endings of up to four tricks and 500 of
//! five (with alpha-beta pruning, still exact), from every point of a trick, under every scoring
//! variant (tests/common).

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

/// The par by minimax with alpha-beta pruning and nothing else (no table, no bounds): as exact
/// as [`exhaustive`], and fast enough for five tricks, where a bound on the tricks a seat can
/// still take first has room to be wrong (one that capped any count by who leads passed every
/// test of four tricks and fewer).
fn pruned(game: &Game, mut alpha: i8, mut beta: i8) -> i8 {
    let Some(Turn::Play(seat)) = game.to_act() else { unreachable!("a trick in progress") };
    let maximise = seat.team().index() == 0;
    let mut best = if maximise { i8::MIN } else { i8::MAX };
    for card in game.legal_plays(seat).iter() {
        let mut next = game.clone();
        let events = next.apply(seat, Action::Play(card)).unwrap();
        let v = common::deal_value(events.iter()).unwrap_or_else(|| pruned(&next, alpha, beta));
        if maximise {
            best = best.max(v);
            alpha = alpha.max(v);
        } else {
            best = best.min(v);
            beta = beta.min(v);
        }
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Runs `deals` deals to `tricks_left` tricks before the end, plus `extra` cards into the trick.
fn check(seed: u64, deals: u64, tricks_left: usize) {
    check_against(seed, deals, tricks_left, exhaustive);
}

/// [`check`], with the true par found by `truth`.
fn check_against(seed: u64, deals: u64, tricks_left: usize, truth: fn(&Game) -> i8) {
    let mut rng = SplitMix64::new(seed);
    let mut solver = Solver::with_table(14);
    for d in 0..deals {
        let mut game = common::at_first_lead(seed.wrapping_mul(1_000_003) + d);
        let extra = rng.below(4) as usize;
        common::play_random(&mut game, 4 * (9 - tricks_left) + extra, &mut rng);
        let position = Position::from_game(&game).unwrap();
        solver.clear();
        let par = solver.solve(&position);
        assert_eq!(par.value(), truth(&game), "deal {d} of seed {seed}: {position:?}");
        // Each card's par is what that card leads to.
        for (card, after) in solver.options(&position) {
            let mut next = game.clone();
            let seat = position.to_play().unwrap();
            let events = next.apply(seat, Action::Play(card)).unwrap();
            let value = common::deal_value(events.iter()).unwrap_or_else(|| truth(&next));
            assert_eq!(after.value(), value, "deal {d} of seed {seed}, {card}: {position:?}");
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

#[test]
fn five_tricks_left() {
    check_against(5, 500, 5, |g| pruned(g, i8::MIN, i8::MAX));
}
