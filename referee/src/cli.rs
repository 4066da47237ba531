//! Command-line arguments as clap structs, and their conversion into validated configurations,
//! so every option name and default lives in one place.

use crate::bot::ConnectConfig;
use crate::bot::process::Limits;
use crate::game_runner::GameConfig;
use crate::policy::{OnFault, Policy};
use clap::{Args, Parser, Subcommand, ValueEnum};
use protocol::msg::Clock;
use rules::{
    AllSpoiled, ChantSecond, DiscardRule, MatchLength, OnTie, Rules, SignalDelivery, SignalTruth,
};
use std::path::PathBuf;
use std::time::Duration;

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
    CheckBot(crate::check_bot::CheckBotArgs),
    /// Run a tournament described by a config file.
    Tournament(crate::tournament::TournamentArgs),
    /// Merge the results of tournament output folders (shards) into one table.
    Standings(crate::tournament::StandingsArgs),
}

#[derive(Debug, Args)]
pub(crate) struct MatchArgs {
    /// A bot: a command line (split like a shell, never run by one); builtin:heuristic or
    /// builtin:random; tcp or tcp:TOKEN (a bot that connects to --listen with that token; a
    /// token is generated and printed when not given); tcp://HOST:PORT (a bot that listens).
    /// Once: all four seats; twice: seats 0+2 then 1+3; four times: seats 0..3. None:
    /// builtin:heuristic (seats 0+2) against builtin:random (seats 1+3).
    #[arg(long = "bot", value_name = "CMD")]
    pub(crate) bots: Vec<String>,
    /// Number of games; the same bot processes play them all.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u64>(1, u64::MAX))]
    pub(crate) games: u64,
    /// Match seed; every deck derives from it. Default: random, and printed.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(0, u64::MAX))]
    pub(crate) seed: Option<u64>,
    /// Folder for records and bot stderr logs. Default: records/seed-S.
    #[arg(long, value_name = "DIR")]
    pub(crate) records: Option<PathBuf>,
    /// Write no records (and discard bot stderr).
    #[arg(long, conflicts_with = "records")]
    pub(crate) no_records: bool,
    /// Print the result as one JSON document instead of the readable account.
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not pin the referee and its bots to one CPU (pinning is faster on small machines).
    #[arg(long)]
    pub(crate) no_pin: bool,
    #[command(flatten)]
    pub(crate) net: NetArgs,
    #[command(flatten)]
    pub(crate) table: TableArgs,
}

/// Everything that shapes a game: rules, clocks, fault policy, limits.
#[derive(Debug, Args, Clone)]
pub(crate) struct TableArgs {
    #[command(flatten)]
    pub(crate) rules: RulesArgs,
    /// Time for the handshake answer, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS", help_heading = "Clock", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    pub(crate) handshake_ms: u64,
    /// Time for each answer, in milliseconds.
    #[arg(long, default_value_t = 1_000, value_name = "MS", help_heading = "Clock", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    pub(crate) answer_ms: u64,
    /// Bank per seat and game that absorbs overruns, in milliseconds.
    #[arg(long, default_value_t = 5_000, value_name = "MS", help_heading = "Clock", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    pub(crate) bank_ms: u64,
    /// What a fault costs.
    #[arg(long, value_enum, default_value_t = OnFaultArg::Fallback, help_heading = "Faults")]
    pub(crate) on_fault: OnFaultArg,
    /// Strikes after which a bot is replaced by the fallback for the rest of the game.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true, value_parser = whole::<u32>(1, u32::MAX.into()), help_heading = "Faults")]
    pub(crate) max_strikes: u32,
    /// Longest line accepted from a bot, in bytes.
    #[arg(long, default_value_t = protocol::MAX_LINE_BYTES, value_name = "BYTES", allow_negative_numbers = true, value_parser = line_limit(), help_heading = "Limits")]
    pub(crate) max_line_bytes: usize,
    /// Bytes of each bot's stderr kept in its log.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", help_heading = "Limits", allow_negative_numbers = true, value_parser = whole::<u64>(0, u64::MAX))]
    pub(crate) stderr_cap: u64,
    /// Address-space limit per bot process, in MiB (off by default).
    #[arg(long, value_name = "MIB", help_heading = "Limits", allow_negative_numbers = true, value_parser = whole::<u64>(1, MAX_MIB))]
    pub(crate) bot_memory_mib: Option<u64>,
    /// CPU-time limit per bot process, in seconds (off by default).
    #[arg(long, value_name = "SECONDS", help_heading = "Limits", allow_negative_numbers = true, value_parser = whole::<u64>(1, u32::MAX.into()))]
    pub(crate) bot_cpu_seconds: Option<u64>,
}

/// Where TCP seats (`--bot tcp`) wait for their bots.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Bots over TCP")]
pub(crate) struct NetArgs {
    /// Address the referee listens on for bots given as `tcp` or `tcp:TOKEN`. Use 0.0.0.0:PORT
    /// to accept bots from other machines.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
    pub(crate) listen: String,
    /// How long the first game waits for TCP bots to connect, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    pub(crate) connect_wait_ms: u64,
    /// Connections allowed to wait for their handshake at once; more are refused.
    #[arg(long, default_value_t = 16, allow_negative_numbers = true, value_parser = whole::<usize>(1, 10_000))]
    pub(crate) max_pending: usize,
    /// Handshakes one address may have going at once; its further connections wait for a turn
    /// (an IPv6 address counts by its /64).
    #[arg(long, default_value_t = 4, allow_negative_numbers = true, value_parser = whole::<usize>(1, 10_000))]
    pub(crate) max_pending_per_addr: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnFaultArg {
    Fallback,
    Forfeit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

/// The rule options of spec/rules.md, with its names and defaults.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Rules (spec/rules.md)")]
pub(crate) struct RulesArgs {
    /// Seating: as given, or by the traditional draw.
    #[arg(long, value_enum, default_value_t = Seating::Given)]
    pub(crate) seating: Seating,
    /// The chant.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) chant: OnOff,
    /// Second chant recipient.
    #[arg(long, value_enum, default_value_t = ChantSecondArg::Dealer)]
    pub(crate) chant_second: ChantSecondArg,
    /// Discard rule for chant recipients.
    #[arg(long, value_enum, default_value_t = DiscardArg::Free)]
    pub(crate) discard: DiscardArg,
    /// When every trick is spoiled.
    #[arg(long, value_enum, default_value_t = AllSpoiledArg::Nothing)]
    pub(crate) all_spoiled: AllSpoiledArg,
    /// Mordienne.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) mordienne: OnOff,
    /// Shortest run that makes mordienne.
    #[arg(long, default_value_t = 2, allow_negative_numbers = true, value_parser = whole::<u8>(2, 3))]
    pub(crate) mordienne_run: u8,
    /// Deals in a game.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = whole::<u16>(1, u16::MAX.into()))]
    pub(crate) deals: u16,
    /// Play to this many points instead of a number of deals.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u16>(1, u16::MAX.into()))]
    pub(crate) target: Option<u16>,
    /// A level score at the end.
    #[arg(long, value_enum, default_value_t = OnTieArg::Draw)]
    pub(crate) on_tie: OnTieArg,
    /// Who sees a signal.
    #[arg(long, value_enum, default_value_t = SignalsArg::Partner)]
    pub(crate) signals: SignalsArg,
    /// Probability that each opponent sees a signal under --signals leaky.
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true, value_parser = probability)]
    pub(crate) signal_leak: f64,
    /// Whether card signals must be true.
    #[arg(long, value_enum, default_value_t = SignalTruthArg::Truthful)]
    pub(crate) signal_truth: SignalTruthArg,
}

/// The longest time any clock flag takes, in milliseconds: a day. Beyond it the referee's
/// microsecond arithmetic could overflow, and no game needs more.
pub(crate) const MAX_MS: u64 = 86_400_000;
/// The largest `--bot-memory-mib`: 16 TiB, far below what overflows a byte count.
const MAX_MIB: u64 = 1 << 24;

/// The value parser of every integer flag of every command (a tournament config's options go
/// through these flags too): a whole number from `lo` to `hi`. A negative value, one out of
/// range and one that is no number get the same message naming the range, and clap names the
/// flag; flags using it take `allow_negative_numbers`, or clap would call `-5` an unknown flag.
pub(crate) fn whole<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        let bad = || format!("expected a whole number from {lo} to {hi}");
        let n = text.parse::<u64>().map_err(|_| bad())?;
        if n < lo || n > hi {
            return Err(bad());
        }
        T::try_from(n).map_err(|_| bad())
    }
}

/// `--max-line-bytes`, shared by every command that reads bots' lines.
pub(crate) fn line_limit() -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync {
    whole::<usize>(64, 16_777_216)
}

/// The value parser of every probability flag.
fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err("expected a probability from 0 to 1".to_string()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Seating {
    Given,
    Draw,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ChantSecondArg {
    Dealer,
    Partner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiscardArg {
    Free,
    KeepHighest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AllSpoiledArg {
    Nothing,
    Redeal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnTieArg {
    Draw,
    ExtraDeals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SignalsArg {
    Off,
    Partner,
    Public,
    Leaky,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SignalTruthArg {
    Truthful,
    Free,
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The record file (JSON Lines).
    pub(crate) file: PathBuf,
    /// Print nothing but errors; the exit status tells whether the record is consistent.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Show exactly the lines this seat received and sent, in order, with times. With --html:
    /// show only what this seat could see.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u8>(0, 3))]
    pub(crate) seat: Option<u8>,
    /// Re-drive this bot with the seat's recorded conversation and show where its answers
    /// differ (needs --seat).
    #[arg(long, value_name = "CMD", requires = "seat")]
    pub(crate) bot: Option<String>,
    /// With --bot: stop before the question at this deal and trick (e.g. 3.5, or 3 for the
    /// deal's first question) and keep the bot running for a debugger.
    #[arg(long, value_name = "DEAL[.TRICK]", requires = "bot", allow_hyphen_values = true)]
    pub(crate) until: Option<String>,
    /// Write a self-contained HTML viewer of the game to this file.
    #[arg(long, value_name = "OUT.html")]
    pub(crate) html: Option<PathBuf>,
}

impl RulesArgs {
    pub(crate) fn rules(&self) -> Rules {
        Rules {
            chant: self.chant == OnOff::On,
            chant_second: match self.chant_second {
                ChantSecondArg::Dealer => ChantSecond::Dealer,
                ChantSecondArg::Partner => ChantSecond::Partner,
            },
            discard: match self.discard {
                DiscardArg::Free => DiscardRule::Free,
                DiscardArg::KeepHighest => DiscardRule::KeepHighest,
            },
            all_spoiled: match self.all_spoiled {
                AllSpoiledArg::Nothing => AllSpoiled::Nothing,
                AllSpoiledArg::Redeal => AllSpoiled::Redeal,
            },
            mordienne: self.mordienne == OnOff::On,
            mordienne_run: self.mordienne_run,
            length: match self.target {
                Some(t) => MatchLength::Target(t),
                None => MatchLength::Deals(self.deals),
            },
            on_tie: match self.on_tie {
                OnTieArg::Draw => OnTie::Draw,
                OnTieArg::ExtraDeals => OnTie::ExtraDeals,
            },
            signals: match self.signals {
                SignalsArg::Off => SignalDelivery::Off,
                SignalsArg::Partner => SignalDelivery::Partner,
                SignalsArg::Public => SignalDelivery::Public,
                SignalsArg::Leaky => SignalDelivery::Leaky,
            },
            signal_leak_ppm: (self.signal_leak * 1e6).round() as u32,
            signal_truth: match self.signal_truth {
                SignalTruthArg::Truthful => SignalTruth::Truthful,
                SignalTruthArg::Free => SignalTruth::Free,
            },
        }
    }
}

impl TableArgs {
    pub(crate) fn game_config(&self) -> GameConfig {
        GameConfig {
            rules: self.rules.rules(),
            seating_draw: self.rules.seating == Seating::Draw,
            clock: Clock {
                handshake_ms: self.handshake_ms,
                answer_ms: self.answer_ms,
                bank_ms: self.bank_ms,
            },
            policy: Policy {
                on_fault: match self.on_fault {
                    OnFaultArg::Fallback => OnFault::Fallback,
                    OnFaultArg::Forfeit => OnFault::Forfeit,
                },
                max_strikes: self.max_strikes,
            },
        }
    }

    pub(crate) fn connect_config(&self) -> ConnectConfig {
        ConnectConfig {
            handshake: Duration::from_millis(self.handshake_ms),
            max_line: self.max_line_bytes,
            stderr_cap: self.stderr_cap,
            limits: Limits {
                memory_bytes: self.bot_memory_mib.map(|m| m << 20),
                cpu_seconds: self.bot_cpu_seconds,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;
    use std::any::TypeId;

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

    #[test]
    fn whole_numbers_are_checked_against_their_range() {
        let p = whole::<u8>(2, 3);
        assert_eq!(p("2"), Ok(2));
        assert_eq!(p("3"), Ok(3));
        for bad in ["1", "4", "-2", "2.0", "", "x", "256", "99999999999999999999"] {
            assert_eq!(p(bad), Err("expected a whole number from 2 to 3".to_string()), "{bad:?}");
        }
        assert_eq!(whole::<u64>(0, u64::MAX)("18446744073709551615"), Ok(u64::MAX));
    }
}
