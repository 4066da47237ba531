//! The `referee` binary: parses the command line, sets up logging and the runtime, runs the
//! command, and turns the referee's own failures into a one-line message and a non-zero exit.

mod bot;
mod check_bot;
mod cli;
mod entropy;
mod fault;
mod game_runner;
mod html;
mod judge;
#[cfg(test)]
mod layering_tests;
#[cfg(test)]
mod leak_tests;
mod match_cmd;
mod par;
mod par_cmd;
mod pin;
mod policy;
mod record_io;
mod replay;
mod replay_cmd;
mod seat_replay;
mod shutdown;
mod text;
mod tournament;
mod web;

use clap::Parser as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // A bad flag is one line and a non-zero exit; --help and --version print in full.
        Err(e) if e.use_stderr() => {
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            let first = first.trim_start_matches("error: ");
            eprintln!("referee: {} (see referee --help)", text::escape(first));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&cli.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // Colour codes are for a person at a terminal; a log file or a pipe gets plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
    // Whatever a bot starts and abandons outside its process group comes back to the referee,
    // which kills it (bot/process.rs); the commands that start no bot are unaffected.
    bot::process::become_subreaper();
    let result = cli.command.into_run().and_then(run);
    // No bot is left; anything they abandoned and that is still dying is cleared now.
    bot::process::settle_orphans();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // An error can quote what a bot or a record file said: one line, nothing that acts.
            eprintln!("referee: {}", text::escape(&e));
            ExitCode::FAILURE
        }
    }
}

fn runtime(mut builder: tokio::runtime::Builder) -> Result<tokio::runtime::Runtime, String> {
    builder.enable_all().build().map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// Runs a command. A tournament runs its tables on threads of its own, one runtime per table;
/// replaying a seat builds a paused-clock runtime; checking a record needs none.
fn run(command: cli::Run) -> Result<(), String> {
    match command {
        cli::Run::Tournament(cfg) => {
            bot::process::raise_fd_limit();
            tournament::run(*cfg)
        }
        cli::Run::Standings(cfg) => tournament::standings(cfg),
        cli::Run::SeatReplay(cfg) => seat_replay::run(cfg),
        cli::Run::Replay(cfg) => replay_cmd::run(cfg),
        cli::Run::Par(cfg) => par_cmd::run(cfg),
        cli::Run::Match(cfg) => {
            bot::process::raise_fd_limit();
            // One table runs on one core: the referee's thread and the bots it starts are
            // pinned there (see pin.rs).
            if cfg.pin {
                let cpu = pin::current_cpu().unwrap_or(pin::allowed_cpus()[0]);
                pin::pin_current_thread(cpu);
            }
            runtime(tokio::runtime::Builder::new_current_thread())
                .and_then(|rt| rt.block_on(match_cmd::run(*cfg)))
        }
        cli::Run::CheckBot(cfg) => runtime(tokio::runtime::Builder::new_multi_thread())
            .and_then(|rt| rt.block_on(check_bot::run(cfg))),
    }
}
