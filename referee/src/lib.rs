//! The Aluette referee as a library: play games between four bots of any kind (programs,
//! TCP connections, byte streams, built-in bots, your own in-process [`Player`]) with every rule
//! and the clock enforced, and get back each game's result and record. The `referee` binary,
//! its tournaments and the arena are callers of this same API ([`api`]).
//!
//! ```
//! use aluette_referee::{Config, Game, Player, Seat, Table};
//! use aluette_referee::protocol::msg::{FromBot, ToBot};
//! use std::time::Instant;
//!
//! /// Plays its first card and discards the six it received: legal under the default rules.
//! struct FirstCard;
//!
//! impl Player for FirstCard {
//!     fn answer(&mut self, msg: ToBot, _asked: Instant) -> Option<FromBot> {
//!         Some(match msg {
//!             ToBot::Hello { id, .. } => FromBot::Hello {
//!                 id,
//!                 name: "first-card".into(),
//!                 version: "1".into(),
//!                 author: None,
//!                 protocol: None,
//!                 token: None,
//!                 features: vec![],
//!             },
//!             ToBot::Opening { id, vote, .. } => {
//!                 FromBot::Opening { id, accept: vote.then_some(true), signals: vec![] }
//!             }
//!             ToBot::Discard { id, received, .. } => {
//!                 FromBot::Discard { id, cards: received, signals: vec![] }
//!             }
//!             ToBot::Play { id, hand, .. } => {
//!                 FromBot::Play { id, card: hand[0], signals: vec![] }
//!             }
//!             _ => return None,
//!         })
//!     }
//! }
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! runtime.block_on(async {
//!     let config = Config::default();
//!     let seats = [
//!         Seat::player("mine", FirstCard),
//!         Seat::builtin("heuristic").unwrap(),
//!         Seat::player("mine too", FirstCard),
//!         Seat::builtin("random").unwrap(),
//!     ];
//!     let mut table = Table::open(&config, seats).await;
//!     let outcome = table.play(Game::new(7).record_in_memory()).await.unwrap();
//!     table.close("match over").await;
//!
//!     assert_eq!(outcome.summary.status, aluette_referee::Status::Complete);
//!     assert!(outcome.summary.faults.is_empty(), "{:?}", outcome.summary.faults);
//!     assert_eq!(outcome.summary.names[0], "first-card");
//!     // The record is the one `referee replay` reads: a header, every deal, a footer.
//!     let record = outcome.record.unwrap();
//!     assert!(record.lines().count() > 10);
//! });
//! ```

pub mod api;
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
pub mod worker;

pub use api::{Config, Connection, Door, Game, Outcome, Player, Seat, Status, Stop, Table};
/// The wire protocol's types, at the version the referee speaks.
pub use protocol;
pub use replay_cmd::{check_record, viewer_page};
/// The rules engine the referee judges by, at the version it uses.
pub use rules;
pub use shutdown::on_stop_signals;
pub use web::{Hosts, bot_socket_route, serve_http};

use clap::Parser as _;
use std::process::ExitCode;

/// The `referee` binary's whole work: parse the command line, set up logging, run the
/// command, and say the referee's own failure in one line with a non-zero exit.
#[doc(hidden)]
pub fn cli_main() -> ExitCode {
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
    // which kills it (bot/process/); the commands that start no bot are unaffected.
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
        cli::Run::Worker(cfg) => {
            bot::process::raise_fd_limit();
            runtime(tokio::runtime::Builder::new_multi_thread())
                .and_then(|rt| rt.block_on(worker::run(cfg)))
        }
        cli::Run::CheckBot(cfg) => runtime(tokio::runtime::Builder::new_multi_thread())
            .and_then(|rt| rt.block_on(check_bot::run(cfg))),
    }
}
