//! The solver against the par the earlier solver found (commit 6b4d058, before issue 30's speed
//! work), recorded in `recorded.txt`: 300 positions from tricks 4 to 9 with the par after each
//! card the seat to play may play, and a dozen whole deals from tricks 1 to 3. The faster search
//! must find the same numbers; the positions are made again here from their seeds, and each
//! line also holds the four hands, so a change in how they are made fails loudly instead of
//! comparing other positions.
//!
//! `PAR_RECORD=FILE cargo test --release -p aluette-par --test recorded -- --ignored` writes the
//! file again with the solver of the checkout (on the earlier solver it takes minutes).

#[allow(dead_code, reason = "the shared helpers serve several tests; this one needs two")]
mod common;

use par::{Position, Solver};
use rules::{Card, SplitMix64};
use std::fmt::Write;

/// The positions: (seed, cards played since the first lead) for each recorded line.
fn positions() -> Vec<(u64, usize)> {
    let mut rng = SplitMix64::new(30);
    let mut out = Vec::new();
    for i in 0..300u64 {
        let trick = 4 + (i % 6) as usize;
        out.push((40_000 + i, 4 * (trick - 1) + rng.below(4) as usize));
    }
    for i in 0..12u64 {
        let trick = 1 + (i / 4) as usize;
        out.push((50_000 + i, 4 * (trick - 1) + (i % 2) as usize));
    }
    out
}

fn position(seed: u64, cards: usize) -> Position {
    let mut game = common::at_first_lead(seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    common::play_random(&mut game, cards, &mut rng);
    Position::from_game(&game).unwrap()
}

fn hands(p: &Position) -> String {
    let seats = rules::Seat::ALL.map(|s| format!("{:012x}", p.hand(s).bits()));
    seats.join(",")
}

/// One line: seed, cards, hands, par, then `card=par` for each card of the seat to play (only
/// from trick 4 on: earlier ones would cost the earlier solver hours).
fn line(solver: &mut Solver, seed: u64, cards: usize) -> String {
    let p = position(seed, cards);
    solver.clear();
    let mut s = format!("{seed} {cards} {} {}", hands(&p), solver.solve(&p).value());
    if p.tricks_done() >= 3 {
        let seat = p.to_play().unwrap();
        for card in p.hand(seat) {
            let mut next = p;
            next.play(card).unwrap();
            write!(s, " {card}={}", solver.solve(&next).value()).unwrap();
        }
    }
    s
}

#[test]
#[ignore = "writes recorded.txt again: run by hand with PAR_RECORD=FILE"]
fn record() {
    let path = std::env::var("PAR_RECORD").expect("PAR_RECORD names the file to write");
    let mut solver = Solver::new();
    let mut out = String::new();
    for (seed, cards) in positions() {
        out.push_str(&line(&mut solver, seed, cards));
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

/// Solves again every recorded position `wanted` picks by its cards played, and compares.
fn check(wanted: impl Fn(usize) -> bool) {
    let recorded = include_str!("recorded.txt");
    let lines: Vec<&str> = recorded.lines().collect();
    let all = positions();
    assert_eq!(lines.len(), all.len(), "recorded.txt holds one line a position");
    let mut solver = Solver::new();
    let mut checked = 0;
    for (text, (seed, cards)) in lines.iter().zip(all) {
        if !wanted(cards) {
            continue;
        }
        let mut words = text.split(' ');
        let head: Vec<&str> = words.by_ref().take(4).collect();
        assert_eq!(head[..2], [seed.to_string(), cards.to_string()], "line order");
        let p = position(seed, cards);
        assert_eq!(head[2], hands(&p), "seed {seed}: the position is not the recorded one");
        solver.clear();
        assert_eq!(solver.solve(&p).value().to_string(), head[3], "seed {seed}, {cards} cards");
        for option in words {
            let (card, par) = option.split_once('=').unwrap();
            let mut next = p;
            next.play(card.parse::<Card>().unwrap()).unwrap();
            assert_eq!(solver.solve(&next).value().to_string(), par, "seed {seed}, {card}");
        }
        checked += 1;
    }
    assert!(checked > 0, "no position picked");
}

#[test]
fn the_solver_finds_the_par_the_earlier_solver_recorded_from_trick_3_on() {
    check(|cards| cards >= 8);
}

/// Eight deals from tricks 1 and 2: seconds in all, the solver being built optimised in debug
/// builds too (the workspace's `profile.dev.package.aluette-par`).
#[test]
fn the_solver_finds_the_par_the_earlier_solver_recorded_from_tricks_1_and_2() {
    check(|cards| cards < 8);
}
