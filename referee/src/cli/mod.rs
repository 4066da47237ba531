//! The command line: clap's structs for every command, and their conversion into the plain
//! configurations the commands take. Every option name, default, help text and check of the
//! command line lives here, and only `main.rs` uses this module: no command knows about clap.
//!
//! `table.rs` holds the options that shape a table, shared by `match` and the tournament config
//! file; `tournament_file.rs` reads that file through the same definitions; `values.rs` holds the
//! value parsers every command's flags share.

mod table;
mod tournament_file;
mod values;

use crate::bot::BotSpec;
use crate::check_bot::CheckBotConfig;
use crate::html;
use crate::match_cmd::{MatchConfig, Records};
use crate::par_cmd::ParConfig;
use crate::replay_cmd::ReplayConfig;
use crate::seat_replay::{self, SeatReplayConfig};
use crate::tournament::{Shard, StandingsConfig, TournamentConfig};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;
use table::{NetArgs, TableArgs, WebArgs};
use values::{MAX_MS, line_limit, whole};

/// Referee and bot arena for Aluette.
#[derive(Debug, Parser)]
#[command(name = "referee", version, about, long_about = None, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// Log level for diagnostics on stderr (error, warn, info, debug, trace).
    #[arg(long, global = true, default_value = "warn", value_name = "LEVEL")]
    pub(crate) log: String,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Play games between four bots and record them.
    Match(MatchArgs),
    /// Check a record against the rules and print the game trick by trick; show one seat's
    /// conversation, re-drive a bot with it, or write an HTML viewer.
    Replay(ReplayArgs),
    /// Check that a bot follows the protocol, through scripted situations.
    CheckBot(CheckBotArgs),
    /// Run a tournament described by a config file.
    Tournament(TournamentArgs),
    /// Merge the results of tournament output folders (shards) into one table.
    Standings(StandingsArgs),
    /// Each bot's mean cost per card against perfect play with every hand visible, over
    /// records or a tournament's folder (spec/par.md).
    Par(ParArgs),
    /// Play an arena's leased games (house and hosted entrants) and post their records
    /// (spec/arena.md section 10).
    Worker(WorkerArgs),
}

/// Arguments of `referee worker`.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The arena's web server: http://HOST:PORT (plain HTTP; TLS is a reverse proxy's job).
    #[arg(long, value_name = "URL", value_parser = worker_server)]
    server: String,
    /// The worker's token, as `arena admin add-worker` printed it.
    #[arg(long, value_name = "TOKEN", required_unless_present = "token_file")]
    token: Option<String>,
    /// Read the token from this file instead (kept out of the process list).
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<PathBuf>,
    /// Tables played at once.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u32>(1, 256))]
    slots: u32,
    /// A hosted entrant's program: NAME=PROGRAM (a command line, split like a shell, never run
    /// by one; or builtin:NAME), started once per table. Repeat for each hosted entrant.
    #[arg(long = "bot", value_name = "NAME=PROGRAM", value_parser = worker_bot)]
    bots: Vec<(String, String)>,
}

fn worker_server(text: &str) -> Result<String, String> {
    crate::worker::client::parse_server(text).map(|_| text.to_string())
}

fn worker_bot(text: &str) -> Result<(String, String), String> {
    let Some((name, program)) = text.split_once('=') else {
        return Err(format!("{text:?} is not NAME=PROGRAM"));
    };
    let (name, program) = (name.trim(), program.trim());
    if name.is_empty() || program.is_empty() {
        return Err(format!("{text:?}: both the entrant's name and its program are needed"));
    }
    crate::api::Seat::parse(program)?;
    Ok((name.to_string(), program.to_string()))
}

#[derive(Debug, Args)]
pub(crate) struct MatchArgs {
    /// A bot: a command line (split like a shell, never run by one); builtin:heuristic,
    /// builtin:random or builtin:search; tcp or tcp:TOKEN (a bot that connects to --listen with
    /// that token; a token is generated and printed when not given); tcp://HOST:PORT (a bot that
    /// listens); human (a person, in the browser page whose address is printed).
    /// Once: all four seats; twice: seats 0+2 then 1+3; four times: seats 0..3. None:
    /// builtin:heuristic (seats 0+2) against builtin:random (seats 1+3).
    #[arg(long = "bot", value_name = "CMD")]
    bots: Vec<String>,
    /// Number of games; the same bot processes play them all.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u64>(1, u64::MAX))]
    games: u64,
    /// Match seed; every deck derives from it. Default: random, and printed.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0, u64::MAX))]
    seed: Option<u64>,
    /// Folder for records and bot stderr logs. Default: records/seed-S.
    #[arg(long, value_name = "DIR")]
    records: Option<PathBuf>,
    /// Write no records (and discard bot stderr).
    #[arg(long, conflicts_with = "records")]
    no_records: bool,
    /// Print the result as one JSON document instead of the readable account.
    #[arg(long)]
    json: bool,
    /// Do not pin the referee and its bots to one CPU (pinning is faster on small machines).
    #[arg(long)]
    no_pin: bool,
    #[command(flatten)]
    net: NetArgs,
    #[command(flatten)]
    web: WebArgs,
    #[command(flatten)]
    table: TableArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The record file (JSON Lines).
    file: PathBuf,
    /// Print nothing but errors; the exit status tells whether the record is consistent.
    #[arg(long, short)]
    quiet: bool,
    /// Show exactly the lines this seat received and sent, in order, with times. With --html:
    /// show only what this seat could see.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u8>(0, 3))]
    seat: Option<u8>,
    /// Re-drive this bot with the seat's recorded conversation and show where its answers
    /// differ (needs --seat).
    #[arg(long, value_name = "CMD", requires = "seat")]
    bot: Option<String>,
    /// With --bot: stop before the question at this deal and trick (e.g. 3.5, or 3 for the
    /// deal's first question) and keep the bot running for a debugger.
    #[arg(long, value_name = "DEAL[.TRICK]", requires = "bot", allow_hyphen_values = true)]
    until: Option<String>,
    /// Write a self-contained HTML viewer of the game to this file.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Show each card's par: what perfect play with every hand visible would score before and
    /// after it, and so what it cost (spec/par.md). Not with --seat.
    #[arg(long, conflicts_with = "seat")]
    par: bool,
    /// With --par: the most nodes one position's search may take before it is left unsolved
    /// ("?"); the same budget gives the same figures on every run.
    #[arg(long, value_name = "N", requires = "par", allow_negative_numbers = true, value_parser = whole::<u64>(1, u64::MAX))]
    par_nodes: Option<u64>,
}

/// Arguments of `referee par`.
#[derive(Debug, Args)]
pub(crate) struct ParArgs {
    /// Record files, or folders of them (a records folder, a tournament's folder: every
    /// game-*.jsonl below it).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The most nodes one position's search may take before it is left unsolved.
    #[arg(long, value_name = "N", default_value_t = crate::par::DEFAULT_NODES, allow_negative_numbers = true, value_parser = whole::<u64>(1, u64::MAX))]
    nodes: u64,
}

/// Arguments of `referee check-bot`.
#[derive(Debug, Args)]
pub(crate) struct CheckBotArgs {
    /// The bot: a command line (split like a shell, never run by one), or builtin:heuristic,
    /// builtin:random or builtin:search.
    #[arg(value_name = "CMD")]
    command: String,
    /// Time allowed for each answer, in milliseconds (as in a match).
    #[arg(long, default_value_t = 1_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    answer_ms: u64,
    /// Time allowed for the hello answer, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    handshake_ms: u64,
    /// Longest line accepted from the bot, in bytes (as in a match).
    #[arg(long, default_value_t = protocol::MAX_LINE_BYTES, value_name = "BYTES", allow_negative_numbers = true, value_parser = line_limit())]
    max_line_bytes: usize,
    /// Print the checks as one JSON array of {check, pass, detail} instead of lines.
    #[arg(long)]
    json: bool,
    /// Keep the bot's stderr in this file (by default it is discarded).
    #[arg(long, value_name = "FILE")]
    stderr: Option<PathBuf>,
}

/// Arguments of `referee tournament`.
#[derive(Debug, Args)]
pub(crate) struct TournamentArgs {
    /// The tournament config: TOML or JSON, told apart by the file's extension.
    config: PathBuf,
    /// Finish the tournament of the output folder: games in its journal are kept, the others
    /// are played.
    #[arg(long)]
    resume: bool,
    /// Play only part K of N of the schedule (deal sets whose number is K modulo N), to share
    /// a tournament between machines; `referee standings` merges the parts.
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    shard: Option<String>,
    /// Output folder (instead of the config's `output`; default tournaments/CONFIG-NAME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Tables playing at once (instead of the config's `concurrency`; default: the CPUs).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1, 1024))]
    concurrency: Option<u64>,
    /// Do not pin each table (its thread and its bots) to one CPU.
    #[arg(long)]
    no_pin: bool,
}

/// Arguments of `referee standings`.
#[derive(Debug, Args)]
pub(crate) struct StandingsArgs {
    /// Tournament output folders to merge (the shards of one tournament, or a single folder).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Also write standings.json, standings.csv and pairs.csv into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the standings as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// A command to run, with its configuration checked and in plain types.
#[derive(Debug)]
pub(crate) enum Run {
    Match(Box<MatchConfig>),
    /// `replay FILE`, with or without `--html`.
    Replay(ReplayConfig),
    /// `par PATH...`.
    Par(ParConfig),
    /// `replay FILE --seat S` without `--html`: the seat's conversation, or a bot re-driven.
    SeatReplay(SeatReplayConfig),
    CheckBot(CheckBotConfig),
    Tournament(Box<TournamentConfig>),
    Standings(StandingsConfig),
    /// `worker`: lease, play and post an arena's games.
    Worker(crate::worker::WorkerConfig),
}

impl Command {
    /// The configuration the command runs with, or the one-line reason the arguments (or the
    /// files they name) cannot give one.
    pub(crate) fn into_run(self) -> Result<Run, String> {
        Ok(match self {
            Command::Match(a) => Run::Match(Box::new(MatchConfig {
                players: lineup(&a.bots)?,
                games: a.games,
                seed: a.seed,
                records: match (a.no_records, a.records) {
                    (true, _) => Records::Off,
                    (false, Some(dir)) => Records::In(dir),
                    (false, None) => Records::BySeed,
                },
                json: a.json,
                pin: !a.no_pin,
                game: a.table.game_config()?,
                connect: a.table.connect_config(),
                net: a.net.net_config(),
                web: a.web.web_config(),
            })),
            // Which of the two replays runs is the one decision taken on the arguments here.
            Command::Replay(a) => match (a.seat, a.html) {
                (Some(seat), None) => Run::SeatReplay(SeatReplayConfig {
                    until: a.until.as_deref().map(seat_replay::Until::parse).transpose()?,
                    bot: a.bot.as_deref().map(seat_replay::bot_command).transpose()?,
                    file: a.file,
                    seat: usize::from(seat),
                }),
                (seat, html) => {
                    let par = a.par.then(|| a.par_nodes.unwrap_or(crate::par::DEFAULT_NODES));
                    Run::Replay(ReplayConfig {
                        file: a.file,
                        quiet: a.quiet,
                        html: html.map(|out| html::Page { out, seat, par }),
                        par,
                    })
                }
            },
            Command::Par(a) => Run::Par(ParConfig { paths: a.paths, nodes: a.nodes }),
            Command::Worker(a) => {
                let mut bots = std::collections::BTreeMap::new();
                for (name, program) in a.bots {
                    if bots.insert(name.clone(), program).is_some() {
                        return Err(format!("--bot {name}=... is given twice"));
                    }
                }
                let token = match (a.token, a.token_file) {
                    (Some(token), _) => token,
                    (None, Some(file)) => std::fs::read_to_string(&file)
                        .map_err(|e| format!("cannot read {}: {e}", file.display()))?,
                    (None, None) => return Err("give --token or --token-file".into()),
                };
                let token = token.trim().to_string();
                Run::Worker(crate::worker::WorkerConfig {
                    server: a.server,
                    token,
                    slots: a.slots,
                    bots,
                })
            }
            Command::CheckBot(a) => {
                let spec = BotSpec::parse(&a.command)?;
                if spec.is_tcp() {
                    return Err(
                        "check-bot starts the bot itself: give its command or builtin:NAME".into(),
                    );
                }
                Run::CheckBot(CheckBotConfig {
                    spec,
                    answer: Duration::from_millis(a.answer_ms),
                    handshake: Duration::from_millis(a.handshake_ms),
                    max_line: a.max_line_bytes,
                    json: a.json,
                    stderr: a.stderr,
                })
            }
            Command::Tournament(a) => Run::Tournament(Box::new(TournamentConfig {
                tournament: tournament_file::load(&a.config)?,
                shard: a.shard.as_deref().map(Shard::parse).transpose()?,
                file: a.config,
                resume: a.resume,
                out: a.out,
                concurrency: a.concurrency.map(|c| c as usize),
                pin: !a.no_pin,
            })),
            Command::Standings(a) => {
                Run::Standings(StandingsConfig { dirs: a.dirs, out: a.out, json: a.json })
            }
        })
    }
}

/// Players 0..3 from one, two or four `--bot` values.
fn lineup(bots: &[String]) -> Result<[BotSpec; 4], String> {
    // Which `--bot` value each player takes; each player's value is parsed on its own, so a
    // repeated plain `tcp` or `human` gets an independent random token per seat.
    let defaults = ["builtin:heuristic".to_string(), "builtin:random".to_string()];
    let (values, pick): (&[String], [usize; 4]) = match bots.len() {
        0 => (&defaults, [0, 1, 0, 1]),
        1 => (bots, [0, 0, 0, 0]),
        2 => (bots, [0, 1, 0, 1]),
        4 => (bots, [0, 1, 2, 3]),
        n => return Err(format!("--bot is given once, twice or four times, not {n} times")),
    };
    let specs = values.iter().map(|b| BotSpec::parse(b)).collect::<Result<Vec<_>, _>>()?;
    let players = pick.map(|i| match &specs[i] {
        BotSpec::TcpSeat { .. } if values[i] == "tcp" => {
            BotSpec::TcpSeat { token: crate::entropy::token() }
        }
        BotSpec::Human { .. } => BotSpec::Human { token: crate::entropy::token() },
        spec => spec.clone(),
    });
    Ok(distinct_tokens(players))
}

/// A TCP seat is one bot, so an organiser's `tcp:TOKEN` repeated over several seats becomes one
/// token per player: the given token with the player's number appended.
fn distinct_tokens(players: [BotSpec; 4]) -> [BotSpec; 4] {
    let shared = |token: &str| {
        players.iter().filter(|q| matches!(q, BotSpec::TcpSeat { token: t } if t == token)).count()
            > 1
    };
    std::array::from_fn(|p| match &players[p] {
        BotSpec::TcpSeat { token } if shared(token) => {
            BotSpec::TcpSeat { token: format!("{token}-{p}") }
        }
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;
    use std::any::TypeId;

    /// `--bot human` once is four people, each with a seat token of its own, and records say
    /// `human`, never the token.
    #[test]
    fn human_seats_get_a_token_each() {
        let players = lineup(&["human".to_string()]).unwrap();
        let tokens: std::collections::BTreeSet<String> = players
            .iter()
            .map(|p| match p {
                BotSpec::Human { token } => token.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(tokens.len(), 4);
        assert_eq!(players[0].describe(), ["human"]);
    }

    /// Issue 12: `--answer-ms -5` said "unexpected argument '-5' found". Every numeric flag of
    /// every command, present and future, takes the shared parsers: a negative value reaches
    /// them, and the message names the flag and the range.
    #[test]
    fn every_numeric_flag_names_itself_and_its_range_for_a_negative_value() {
        let numeric = [
            TypeId::of::<u8>(),
            TypeId::of::<u16>(),
            TypeId::of::<u32>(),
            TypeId::of::<u64>(),
            TypeId::of::<usize>(),
            TypeId::of::<f64>(),
        ];
        let cli = Cli::command();
        let mut checked = 0;
        for sub in cli.get_subcommands() {
            let positionals: Vec<&str> =
                sub.get_positionals().filter(|a| a.is_required_set()).map(|_| "x").collect();
            for arg in sub.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if !numeric.iter().any(|t| arg.get_value_parser().type_id() == *t) {
                    continue;
                }
                assert!(arg.is_allow_negative_numbers_set(), "--{long} of {}", sub.get_name());
                let mut argv = vec!["referee", sub.get_name()];
                argv.extend(&positionals);
                let flag = format!("--{long}");
                argv.extend([flag.as_str(), "-5"]);
                let error = Cli::try_parse_from(&argv).expect_err(&argv.join(" ")).to_string();
                let first = error.lines().next().unwrap_or_default();
                assert!(
                    first.starts_with(&format!("error: invalid value '-5' for '{flag}"))
                        && first.contains("from ")
                        && first.contains(" to "),
                    "{}: {first}",
                    argv.join(" ")
                );
                checked += 1;
            }
        }
        // Sixteen of match, one of replay, three of check-bot, one of tournament: the walk
        // really sees the flags, or this test proves nothing.
        assert!(checked >= 21, "only {checked} numeric flags found");
    }
}
