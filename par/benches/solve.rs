//! Solver speed: positions solved per second from the first trick (after the discards) and from
//! trick 5, on random deals, and the time to analyse a whole deal as `replay --par` does (the
//! par before and after each of its 36 cards, one solver for the deal). One core; prints figures,
//! asserts nothing. Run with `cargo bench -p aluette-par`.
//!
//! Arguments (after `--`): `--deals N` per run (default 200), `--repeat N` runs (default 5).
//! Each figure is the median of the runs, with the best beside it: the machine is shared.

use par::{Position, Solver};
use rules::{Action, Deck, Game, Rules, Seat, SplitMix64, Turn};
use std::time::{Duration, Instant};

/// A game at the first lead of deal `seed`: the chant refused by the first vote, so every hand
/// holds its nine dealt cards.
fn deal(seed: u64) -> Game {
    let mut game = Game::new(Rules { chant: false, ..Rules::default() }, Seat::ALL[0]);
    game.deal(&Deck::shuffled(seed)).ok();
    game
}

/// Random cards until trick `trick` (1-based) is about to be led.
fn advance(game: &mut Game, trick: u8, rng: &mut SplitMix64) {
    while game.view(Seat::ALL[0]).tricks_done + 1 < trick {
        let Some(Turn::Play(seat)) = game.to_act() else { return };
        let hand = game.legal_plays(seat);
        let card = hand.nth(rng.below(hand.len() as u64) as usize).unwrap_or(rules::Card::MONSIEUR);
        game.apply(seat, Action::Play(card)).ok();
    }
}

/// Solves `n` positions at `trick`, each with a fresh table; returns the time and a checksum.
fn positions(n: u64, trick: u8, seed: u64) -> (Duration, i64) {
    let mut rng = SplitMix64::new(seed);
    let games: Vec<Position> = (0..n)
        .map(|i| {
            let mut g = deal(seed ^ i);
            advance(&mut g, trick, &mut rng);
            Position::from_game(&g).unwrap()
        })
        .collect();
    let mut solver = Solver::new();
    let mut sum = 0i64;
    let start = Instant::now();
    for p in &games {
        // A fresh deal each time: clearing the table is part of the cost.
        solver.clear();
        sum += i64::from(solver.solve(p).value());
    }
    (start.elapsed(), sum)
}

/// Analyses `n` whole deals: the par before every card and after the last, each deal's cards
/// played by perfect play's first choice, then a random card one time in four.
fn whole_deals(n: u64, seed: u64) -> (Duration, i64) {
    let mut rng = SplitMix64::new(seed);
    let mut sum = 0i64;
    let mut solver = Solver::new();
    let mut total = Duration::ZERO;
    for i in 0..n {
        let game = deal(seed ^ i);
        let mut p = Position::from_game(&game).unwrap();
        let mut cards = Vec::new();
        let mut q = p;
        while let Some(seat) = q.to_play() {
            let hand = q.hand(seat);
            let card = hand.nth(rng.below(hand.len() as u64) as usize).unwrap();
            cards.push(card);
            q.play(card).ok();
        }
        let start = Instant::now();
        solver.clear();
        sum += i64::from(solver.solve(&p).value());
        for card in cards {
            p.play(card).ok();
            sum += i64::from(solver.solve(&p).value());
        }
        total += start.elapsed();
    }
    (total, sum)
}

fn median(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0])
}

fn main() {
    let mut deals = 200u64;
    let mut repeat = 5usize;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--bench" => {}
            "--deals" => deals = it.next().and_then(|v| v.parse().ok()).unwrap_or(deals),
            "--repeat" => repeat = it.next().and_then(|v| v.parse().ok()).unwrap_or(repeat).max(1),
            other => {
                eprintln!("unknown argument {other}; use --deals N, --repeat N");
                std::process::exit(2);
            }
        }
    }
    for trick in [1u8, 5] {
        let mut rates = Vec::new();
        let mut check = 0;
        for r in 0..repeat {
            let (t, sum) = positions(deals, trick, 100 + r as u64);
            rates.push(deals as f64 / t.as_secs_f64());
            check += sum;
        }
        let (med, _) = median(rates.clone());
        let best = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "from trick {trick}: {med:>10.1} positions/s (median of {repeat}), best {best:.1}, \
             {:.3} ms per position (checksum {check})",
            1000.0 / med
        );
    }
    let mut per_deal = Vec::new();
    for r in 0..repeat {
        let (t, _) = whole_deals(deals, 900 + r as u64);
        per_deal.push(t.as_secs_f64() * 1000.0 / deals as f64);
    }
    let (med, best) = median(per_deal);
    println!("whole deal (37 positions, as replay --par): {med:.2} ms median, best {best:.2} ms");
}
