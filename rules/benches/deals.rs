//! Engine throughput: complete deals per second with random legal play, one core, no I/O.
//! Run with `cargo bench -p aluette-rules`; prints figures, asserts nothing.

use rules::{Action, Deck, Game, MatchLength, Rules, Seat, SplitMix64, Turn};
use std::hint::black_box;
use std::time::Instant;

/// Plays `n` deals and returns a checksum so the work cannot be optimised away.
fn run(n: u64, chant: bool, seed: u64) -> u64 {
    let rules = Rules { chant, length: MatchLength::Deals(u16::MAX), ..Rules::default() };
    let mut rng = SplitMix64::new(seed);
    let mut game = Game::new(rules, Seat::ALL[0]);
    let mut deck = Deck::canonical();
    let mut sum = 0u64;
    let mut deals = 0;
    while deals < n {
        match game.to_act() {
            Some(Turn::Deal) => {
                deck.shuffle_with(&mut rng);
                game.deal(&deck).ok();
                deals += 1;
            }
            Some(Turn::Play(seat)) => {
                let legal = game.legal_plays(seat);
                // Multiply-shift on 32 bits: a bias of 2^-28 is irrelevant for a random player,
                // and the player's cost is not what this benchmark measures.
                let pick = ((rng.next_u64() >> 32) * legal.len() as u64) >> 32;
                let card = legal.nth(pick as usize).unwrap_or(rules::Card::MONSIEUR);
                let ev = game.apply(seat, Action::Play(card));
                sum = sum.wrapping_add(ev.map(|e| e.len() as u64).unwrap_or(0));
            }
            Some(Turn::Vote(seat)) => {
                game.apply(seat, Action::Vote(rng.below(2) == 0)).ok();
            }
            Some(Turn::Discard(seat)) => {
                let hand = game.hand(seat);
                let six = hand.iter().take(6).collect();
                game.apply(seat, Action::Discard(six)).ok();
            }
            // The rules above have no pre-lead rounds (surrender, announcement).
            Some(Turn::Offer(_) | Turn::Reply(_) | Turn::Announce(_)) => unreachable!(),
            None => game = Game::new(rules, Seat::ALL[0]),
        }
    }
    sum.wrapping_add(game.score()[0] as u64)
}

fn main() {
    // `cargo bench` passes `--bench`; a numeric argument sets the number of deals.
    let n: u64 = std::env::args().filter_map(|a| a.parse().ok()).next().unwrap_or(3_000_000);
    black_box(run(n / 10, false, 1)); // warm-up
    for (label, chant) in [("chant off", false), ("chant on ", true)] {
        let mut best = f64::MAX;
        for round in 0..3 {
            let t = Instant::now();
            black_box(run(n, chant, 42 + round));
            best = best.min(t.elapsed().as_secs_f64());
        }
        let line = format!(
            "engine, {label}, random play: {:>10.0} deals/s ({:.0} ns/deal, best of 3 runs of {n})\n",
            n as f64 / best,
            best * 1e9 / n as f64
        );
        // A closed pipe (`| head`) ends the benchmark quietly.
        if std::io::Write::write_all(&mut std::io::stdout(), line.as_bytes()).is_err() {
            return;
        }
    }
}
