//! Solver speed: nodes and positions solved per second from the start of tricks 5, 4, 3, 2 and 1
//! (after the discards: the chant off, nine cards a hand), on random deals, and the work to
//! analyse a whole deal as `replay --par` does (the par before each of its 36 cards and after the
//! last). One core; prints figures, asserts nothing. Run with `cargo bench -p aluette-par`.
//!
//! Arguments (after `--`): `--deals N` positions a run from tricks 5 and 4 (default 50; a
//! fifth of it from trick 3 and for whole deals), `--first N` from tricks 1 and 2 (default 2;
//! 0 leaves them out), `--repeat N` runs (default 5), `--budget N` nodes a position for the
//! whole deals (default 2,000,000; 0: none, every position solved exactly), `--table N` the
//! whole deals' table, 2^N entries (default 20, the referee's).
//! Each run solves the same positions, so the node counts, unlike the times, do not depend on
//! the machine's load; each time is the median of the runs, with the best beside it.

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

/// Solves `n` positions at `trick`, each with a fresh table; returns the time, a checksum and
/// the nodes searched.
fn positions(solver: &mut Solver, n: u64, trick: u8, seed: u64) -> (Duration, i64, u64) {
    let mut rng = SplitMix64::new(seed);
    let games: Vec<Position> = (0..n)
        .map(|i| {
            let mut g = deal(seed ^ i);
            advance(&mut g, trick, &mut rng);
            Position::from_game(&g).unwrap()
        })
        .collect();
    let nodes = solver.nodes();
    let mut sum = 0i64;
    let start = Instant::now();
    for p in &games {
        // A fresh deal each time: clearing the table is part of the cost.
        solver.clear();
        sum += i64::from(solver.solve(p).value());
    }
    (start.elapsed(), sum, solver.nodes() - nodes)
}

/// What [`whole_deals`] measured: the time, the positions solved and asked, the nodes, each
/// deal's nodes and time, and the checksum of the pars.
type Deals = (Duration, (u64, u64), u64, Vec<(u64, f64)>, i64);

/// Analyses `n` whole deals as `replay --par` does: random cards, then the par before every
/// card and after the last, as one line (`Solver::solve_line`), with the referee's default
/// node budget a position. Returns the time, how many positions were solved within the budget
/// and how many were asked, the nodes searched, each deal's nodes and time (the mean hides how
/// uneven deals are), and a checksum of the pars found (the sum of their values, each times its
/// place in the line), so that two solvers can be seen to agree on them.
fn whole_deals(n: u64, seed: u64, budget: u64, log2: u32) -> Deals {
    let mut rng = SplitMix64::new(seed);
    let mut solver = Solver::with_table(log2);
    let mut total = Duration::ZERO;
    let (mut solved, mut asked) = (0u64, 0u64);
    let mut each = Vec::new();
    let mut check = 0i64;
    for i in 0..n {
        let game = deal(seed ^ i);
        let mut p = Position::from_game(&game).unwrap();
        let mut positions = vec![p];
        while let Some(seat) = p.to_play() {
            let hand = p.hand(seat);
            p.play(hand.nth(rng.below(hand.len() as u64) as usize).unwrap()).ok();
            positions.push(p);
        }
        let (start, nodes) = (Instant::now(), solver.nodes());
        let pars = solver.solve_line(&positions, budget);
        let took = start.elapsed();
        total += took;
        each.push((solver.nodes() - nodes, took.as_secs_f64() * 1000.0));
        asked += pars.len() as u64;
        solved += pars.iter().filter(|p| p.is_some()).count() as u64;
        for (k, par) in pars.iter().enumerate() {
            check += par.map_or(0, |p| i64::from(p.value()) * (k as i64 + 1));
        }
    }
    (total, (solved, asked), solver.nodes(), each, check)
}

fn median(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0])
}

fn main() {
    let mut deals = 50u64;
    let mut first = 2u64;
    let mut repeat = 5usize;
    let mut budget = 2_000_000u64;
    // The referee's table size (referee/src/par.rs).
    let mut log2 = 20u64;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut num = |d: u64| it.next().and_then(|v| v.parse().ok()).unwrap_or(d);
        match a.as_str() {
            "--bench" => {}
            "--deals" => deals = num(deals),
            "--first" => first = num(first),
            "--repeat" => repeat = num(repeat as u64).max(1) as usize,
            "--budget" => budget = num(budget),
            "--table" => log2 = num(log2),
            other => {
                eprintln!(
                    "unknown argument {other}; use --deals N, --first N, --repeat N, \
                     --budget N, --table N"
                );
                std::process::exit(2);
            }
        }
    }
    // 0: no budget, every position solved exactly.
    let budget = if budget == 0 { u64::MAX } else { budget };
    // One solver for every run: the system maps its table's pages as they are first written,
    // which the first run pays (a fault a page, up to 128 MiB of them) and the median leaves out.
    let mut solver = Solver::new();
    for (trick, n, runs) in [
        (5u8, deals, repeat),
        (4, deals, repeat),
        (3, deals / 5, repeat),
        (2, first, repeat),
        (1, first, repeat),
    ] {
        if n == 0 {
            continue;
        }
        let mut rates = Vec::new();
        let mut check = 0;
        let mut nodes = 0;
        for _ in 0..runs {
            // The same positions each run: the node count is every run's.
            let (t, sum, k) = positions(&mut solver, n, trick, 100);
            rates.push(n as f64 / t.as_secs_f64());
            check += sum;
            nodes = k / n;
        }
        let (med, _) = median(rates.clone());
        let best = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "from trick {trick}: {nodes:>10} nodes a position, {med:>10.2} positions/s (median \
             of {runs} runs of {n}), best {best:.2}; {:.2} ms a position (checksum {check})",
            1000.0 / med
        );
    }
    let n = (deals / 5).max(1);
    let mut per_deal = Vec::new();
    let mut solved = (0, 0);
    let mut nodes = 0;
    let mut pars = 0;
    // Each deal's nodes, and its times over the runs.
    let mut deals_seen: Vec<(u64, Vec<f64>)> = Vec::new();
    for _ in 0..repeat {
        let (t, got, k, each, check) = whole_deals(n, 900, budget, log2 as u32);
        per_deal.push(t.as_secs_f64() * 1000.0 / n as f64);
        solved = got;
        pars = check;
        nodes = k / n;
        deals_seen.resize(each.len(), (0, Vec::new()));
        for (seen, (k, ms)) in deals_seen.iter_mut().zip(each) {
            seen.0 = k;
            seen.1.push(ms);
        }
    }
    let deal_nodes: Vec<f64> = deals_seen.iter().map(|d| d.0 as f64).collect();
    let deal_ms: Vec<f64> = deals_seen.iter().map(|d| median(d.1.clone()).0).collect();
    let worst = deals_seen.iter().enumerate().max_by_key(|(_, d)| d.0).map_or(0, |(i, _)| i);
    println!(
        "whole deals, each: median {:.0} nodes / {:.1} ms; worst (deal {worst}) {:.0} nodes / \
         {:.1} ms; under 50 ms: {} of {n}",
        median(deal_nodes.clone()).0,
        median(deal_ms.clone()).0,
        deal_nodes[worst],
        deal_ms[worst],
        deal_ms.iter().filter(|&&ms| ms < 50.0).count()
    );
    let (med, best) = median(per_deal);
    let shown = if budget == u64::MAX { "no".to_string() } else { budget.to_string() };
    println!(
        "whole deal as replay --par ({shown} node budget a position, last card first): {nodes} \
         nodes a deal, {med:.1} ms median of {repeat} runs of {n}, best {best:.1} ms; {:.1}% of \
         its positions solved ({} of {}; checksum {pars})",
        solved.0 as f64 * 100.0 / solved.1 as f64,
        solved.0,
        solved.1
    );
}
