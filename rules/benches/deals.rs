//! Engine throughput: complete deals per second with random legal play, one core, no I/O.
//! Run with `cargo bench -p aluette-rules`; prints figures, asserts nothing.
//!
//! Arguments (after `--`): a number of deals per run (default 3,000,000), `--repeat N` runs per
//! mode (default 5), `--chant off|on` to measure one mode only (a profiler wants one). Each mode
//! prints the median and the best of its runs: the machine is shared, and a median says what a
//! run usually gets where the best says what the code can do.

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

struct Args {
    deals: u64,
    repeat: usize,
    modes: Vec<(&'static str, bool)>,
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        deals: 3_000_000,
        repeat: 5,
        modes: vec![("chant off", false), ("chant on ", true)],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            // `cargo bench` passes `--bench`.
            "--bench" => {}
            "--repeat" => {
                out.repeat = value("a number")?.parse().map_err(|e| format!("--repeat: {e}"))?;
                if out.repeat == 0 {
                    return Err("--repeat: at least 1".into());
                }
            }
            "--chant" => {
                out.modes = match value("off or on")?.as_str() {
                    "off" => vec![("chant off", false)],
                    "on" => vec![("chant on ", true)],
                    other => return Err(format!("--chant: off or on, not {other}")),
                }
            }
            n => out.deals = n.parse().map_err(|_| format!("unknown argument {n}"))?,
        }
    }
    Ok(out)
}

fn main() -> std::process::ExitCode {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("deals: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let n = args.deals;
    black_box(run(n / 10, false, 1)); // warm-up
    for (label, chant) in args.modes {
        let mut secs: Vec<f64> = (0..args.repeat)
            .map(|round| {
                let t = Instant::now();
                black_box(run(n, chant, 42 + round as u64));
                t.elapsed().as_secs_f64()
            })
            .collect();
        secs.sort_by(f64::total_cmp);
        let median = secs[secs.len() / 2];
        let best = secs[0];
        // `aluette-bench --engine-bin` reads the number before the first `deals/s`: the median.
        let line = format!(
            "engine, {label}, random play: median {:>9.0} deals/s ({:.0} ns/deal), \
             best {:>9.0} deals/s ({:.0} ns/deal), {} runs of {n}\n",
            n as f64 / median,
            median * 1e9 / n as f64,
            n as f64 / best,
            best * 1e9 / n as f64,
            args.repeat,
        );
        // A closed pipe (`| head`) ends the benchmark quietly.
        if std::io::Write::write_all(&mut std::io::stdout(), line.as_bytes()).is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}
