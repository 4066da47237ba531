//! `Solver::solve_line` against each position solved alone: the line starts each search from
//! the bound the next position's par gives, which must change no par, and a list of positions
//! that are not one card apart must get no such bound.

#[allow(dead_code, reason = "the shared helpers serve several tests; this one needs two")]
mod common;

use par::{Position, Solver};
use rules::SplitMix64;

/// The positions of a random deal from `cards` cards into the trick phase to its end, each
/// taken from the game.
fn line(seed: u64, cards: usize, rng: &mut SplitMix64) -> Vec<Position> {
    let mut game = common::at_first_lead(seed);
    common::play_random(&mut game, cards, rng);
    let mut out = Vec::new();
    while let Some(p) = Position::from_game(&game) {
        out.push(p);
        common::play_random(&mut game, 1, rng);
    }
    out
}

/// `solve_line` on `positions` gives each the par it has solved alone on a fresh table.
fn check(solver: &mut Solver, positions: &[Position], d: u64) {
    let got: Vec<_> =
        solver.solve_line(positions, u64::MAX).iter().map(|p| p.map(|p| p.value())).collect();
    let alone: Vec<_> =
        positions.iter().map(|p| Some(Solver::with_table(12).solve(p).value())).collect();
    assert_eq!(got, alone, "deal {d}");
}

#[test]
fn a_line_gets_the_pars_of_its_positions_solved_alone() {
    let mut rng = SplitMix64::new(45);
    let mut solver = Solver::with_table(14);
    for d in 0..80 {
        check(&mut solver, &line(7000 + d, 16, &mut rng), d);
    }
}

#[test]
fn positions_not_one_card_apart_get_no_bound_from_each_other() {
    let mut rng = SplitMix64::new(46);
    let mut solver = Solver::with_table(14);
    for d in 0..40 {
        // Every third position of two deals interleaved: none is one card before the next.
        let (a, b) = (line(8000 + d, 16, &mut rng), line(8500 + d, 16, &mut rng));
        let mixed: Vec<Position> =
            a.iter().zip(&b).flat_map(|(x, y)| [*x, *y]).step_by(3).collect();
        check(&mut solver, &mixed, d);
    }
}
