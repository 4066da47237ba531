//! `aluette-bench`: measures the referee against the operating system's pipe floor in one run,
//! so the ratios hold on a noisy machine, and prints them as a small report (and JSON on demand).
//!
//! The figures: the round trip of one line over a pipe (the floor) with the CPU each side spends,
//! the referee with four instant bots (pinned, unpinned, one table per CPU, over TCP), with four
//! sample Rust bots and with four Python bots, the referee's peak memory (one table, 1, 16 and 64
//! tables in a tournament, 1,000 idle TCP connections), the arena and its workers, and optionally
//! the engine alone. See
//! bench/README.md. `--echo` and `--instant-bot` turn the binary into the floor's echo child and
//! into the instant bot.

mod arena;
mod config;
mod floor;
mod instant;
mod referee;
mod report;
mod rows;
mod scale;
mod sections;
mod sys;
mod tables;
mod tcp;
mod tools;
mod web;
mod workers;

use config::{USAGE, parse_args};
use report::Report;
use sections::Bench;
use std::path::PathBuf;
use std::process::ExitCode;

/// Everything the command line sets.
#[derive(Debug)]
struct Config {
    quick: bool,
    json: Option<PathBuf>,
    games: u64,
    python_games: u64,
    seed: u64,
    referee_bin: PathBuf,
    bot_bin: PathBuf,
    arena_bin: PathBuf,
    python: Option<String>,
    python_bot: PathBuf,
    engine_bin: Option<PathBuf>,
    repeat: usize,
    /// Only the floors, the headline and the TCP table.
    headline_only: bool,
    web_only: bool,
    arena_only: bool,
    workers_only: bool,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--echo") => {
            return match floor::echo(&args[1..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            };
        }
        Some("--instant-bot") => {
            return match instant::main(&args[1..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("aluette-bench --instant-bot: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        _ => {}
    }
    let cfg = match parse_args(&args) {
        Ok(cfg) => cfg,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("aluette-bench: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aluette-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The whole run: each section in turn, measured and added to the report.
fn run(cfg: &Config) -> Res<()> {
    for (what, path) in [("referee", &cfg.referee_bin), ("Rust sample bot", &cfg.bot_bin)] {
        if !path.is_file() {
            return Err(format!(
                "no {what} at {}: build with `cargo build --release -p aluette-referee -p aluette-sample-bot -p aluette-bench`",
                path.display()
            )
            .into());
        }
    }
    let cpus = sys::allowed_cpus()?;
    let pin = cpus[0];
    // Before any child starts, so that the referees inherit it too: they never raise it.
    let open_files = sys::raise_open_files()?;
    let mut report = Report {
        date: sys::utc_now(),
        command: std::iter::once("aluette-bench".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        cpus: cpus.len(),
        load_before: sys::load_1min(),
        load_after: None,
        rows: Vec::new(),
    };
    let other = cpus.iter().copied().find(|&c| c != pin);
    if cfg.arena_only {
        arena::rows(&mut report, &cfg.arena_bin, &std::env::current_exe()?, cfg.quick);
        return finish(report, cfg);
    }
    if cfg.workers_only {
        workers::rows(&mut report, &cfg.referee_bin, &cfg.arena_bin, cfg.quick);
        return finish(report, cfg);
    }
    if cfg.web_only {
        let bot = sections::instant_bot()?;
        web::sections(&mut report, &cfg.referee_bin, &bot, cfg.games, cfg.seed, pin, other)?;
        return finish(report, cfg);
    }

    let floors = sections::floors(&mut report, cfg.quick, &cpus)?;
    let bench = Bench::new(cfg, cpus)?;
    let instant = sections::instant_tables(&mut report, &bench, &floors)?;
    let python = sections::python_table(&mut report, &bench, &floors.pinned)?;
    sections::headline(&mut report, &bench, floors.pinned, &instant, python.as_ref())?;
    if cfg.headline_only {
        scale::tcp_table(&mut report, &bench, &floors.tcp)?;
        return finish(report, cfg);
    }
    sections::cpu_clock(&mut report, &bench)?;
    scale::tcp_table(&mut report, &bench, &floors.tcp)?;
    let many = scale::many_tables(&mut report, &bench)?;
    let idle = scale::idle(&bench, open_files)?;
    // 7. The web server: spectators, and a stranger's flood (issue 23).
    let web_games = if cfg.quick { 20 } else { cfg.games };
    let bot = &bench.instant_bot;
    web::sections(&mut report, &cfg.referee_bin, bot, web_games, cfg.seed, pin, other)?;
    scale::memory(&mut report, &bench, &instant, python.as_ref(), &many, &idle);
    // 7b. The arena: many tables in one server, and idle connected bots.
    arena::rows(&mut report, &cfg.arena_bin, &std::env::current_exe()?, cfg.quick);
    // 7c. Workers that lease games from the arena over HTTP (issue 28).
    workers::rows(&mut report, &cfg.referee_bin, &cfg.arena_bin, cfg.quick);
    scale::engine_alone(&mut report, &bench, &instant)?;
    finish(report, cfg)
}

/// Prints the report, and writes it as JSON when asked.
fn finish(mut report: Report, cfg: &Config) -> Res<()> {
    report.load_after = sys::load_1min();
    print!("{}", report.table());
    if let Some(path) = &cfg.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
