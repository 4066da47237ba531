//! The options that shape a table (rules, clocks, fault policy, limits, TCP seats) as clap
//! structs, and their conversion into the plain configurations of the game runner, the bots and
//! the lobby. `referee match` takes them as flags and a tournament config file as sections; both
//! go through these definitions and this conversion, and the file's sections are the headings
//! the flags carry in `--help`.

use super::values::{MAX_MIB, MAX_MS, line_limit, probability, whole};
use crate::bot::ConnectConfig;
use crate::bot::process::Limits;
use crate::bot::tcp::{NetConfig, PendingLimits};
use crate::game_runner::GameConfig;
use crate::policy::{OnFault, Policy};
use clap::{Args, ValueEnum};
use protocol::msg::Clock;
use rules::{
    AllSpoiled, ChantSecond, DiscardRule, MatchLength, OnTie, Rules, SignalDelivery, SignalTruth,
};
use std::time::Duration;

// The headings of the option groups in `--help`; a tournament config gives each group a section.
pub(super) const RULES: &str = "Rules (spec/rules.md)";
pub(super) const CLOCK: &str = "Clock";
pub(super) const FAULTS: &str = "Faults";
pub(super) const LIMITS: &str = "Limits";
pub(super) const NET: &str = "Bots over TCP";

/// Everything that shapes a game: rules, clocks, fault policy, limits.
#[derive(Debug, Args, Clone)]
pub(super) struct TableArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Time for the handshake answer, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS", help_heading = CLOCK, allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    handshake_ms: u64,
    /// Time for each answer, in milliseconds.
    #[arg(long, default_value_t = 1_000, value_name = "MS", help_heading = CLOCK, allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    answer_ms: u64,
    /// Bank per seat and game that absorbs overruns, in milliseconds.
    #[arg(long, default_value_t = 5_000, value_name = "MS", help_heading = CLOCK, allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    bank_ms: u64,
    /// What a fault costs.
    #[arg(long, value_enum, default_value_t = OnFaultArg::Fallback, help_heading = FAULTS)]
    on_fault: OnFaultArg,
    /// Strikes after which a bot is replaced by the fallback for the rest of the game.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true, value_parser = whole::<u32>(1, u32::MAX.into()), help_heading = FAULTS)]
    max_strikes: u32,
    /// Longest line accepted from a bot, in bytes.
    #[arg(long, default_value_t = protocol::MAX_LINE_BYTES, value_name = "BYTES", allow_negative_numbers = true, value_parser = line_limit(), help_heading = LIMITS)]
    max_line_bytes: usize,
    /// Bytes of each bot's stderr kept in its log.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", help_heading = LIMITS, allow_negative_numbers = true, value_parser = whole::<u64>(0, u64::MAX))]
    stderr_cap: u64,
    /// Address-space limit per bot process, in MiB (off by default).
    #[arg(long, value_name = "MIB", help_heading = LIMITS, allow_negative_numbers = true, value_parser = whole::<u64>(1, MAX_MIB))]
    bot_memory_mib: Option<u64>,
    /// CPU-time limit per bot process, in seconds (off by default).
    #[arg(long, value_name = "SECONDS", help_heading = LIMITS, allow_negative_numbers = true, value_parser = whole::<u64>(1, u32::MAX.into()))]
    bot_cpu_seconds: Option<u64>,
}

/// Where TCP seats (`--bot tcp`) wait for their bots.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = NET)]
pub(super) struct NetArgs {
    /// Address the referee listens on for bots given as `tcp` or `tcp:TOKEN`. Use 0.0.0.0:PORT
    /// to accept bots from other machines.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
    listen: String,
    /// How long the first game waits for TCP bots to connect, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    connect_wait_ms: u64,
    /// Connections allowed to wait for their handshake at once; more are refused.
    #[arg(long, default_value_t = 16, allow_negative_numbers = true, value_parser = whole::<usize>(1, 10_000))]
    max_pending: usize,
    /// Handshakes one address may have going at once; its further connections wait for a turn
    /// (an IPv6 address counts by its /64).
    #[arg(long, default_value_t = 4, allow_negative_numbers = true, value_parser = whole::<usize>(1, 10_000))]
    max_pending_per_addr: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnFaultArg {
    Fallback,
    Forfeit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

/// The rule options of spec/rules.md, with its names and defaults.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = RULES)]
struct RulesArgs {
    /// Seating: as given, or by the traditional draw.
    #[arg(long, value_enum, default_value_t = Seating::Given)]
    seating: Seating,
    /// The chant.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    chant: OnOff,
    /// Second chant recipient.
    #[arg(long, value_enum, default_value_t = ChantSecondArg::Dealer)]
    chant_second: ChantSecondArg,
    /// Discard rule for chant recipients.
    #[arg(long, value_enum, default_value_t = DiscardArg::Free)]
    discard: DiscardArg,
    /// When every trick is spoiled.
    #[arg(long, value_enum, default_value_t = AllSpoiledArg::Nothing)]
    all_spoiled: AllSpoiledArg,
    /// Mordienne.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    mordienne: OnOff,
    /// Shortest run that makes mordienne.
    #[arg(long, default_value_t = 2, allow_negative_numbers = true, value_parser = whole::<u8>(2, 3))]
    mordienne_run: u8,
    /// Deals in a game.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true, value_parser = whole::<u16>(1, u16::MAX.into()))]
    deals: u16,
    /// Play to this many points instead of a number of deals.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u16>(1, u16::MAX.into()))]
    target: Option<u16>,
    /// A level score at the end.
    #[arg(long, value_enum, default_value_t = OnTieArg::Draw)]
    on_tie: OnTieArg,
    /// Who sees a signal.
    #[arg(long, value_enum, default_value_t = SignalsArg::Partner)]
    signals: SignalsArg,
    /// Probability that each opponent sees a signal under --signals leaky.
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true, value_parser = probability)]
    signal_leak: f64,
    /// Whether card signals must be true.
    #[arg(long, value_enum, default_value_t = SignalTruthArg::Truthful)]
    signal_truth: SignalTruthArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Seating {
    Given,
    Draw,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ChantSecondArg {
    Dealer,
    Partner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DiscardArg {
    Free,
    KeepHighest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AllSpoiledArg {
    Nothing,
    Redeal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnTieArg {
    Draw,
    ExtraDeals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SignalsArg {
    Off,
    Partner,
    Public,
    Leaky,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SignalTruthArg {
    Truthful,
    Free,
}

impl RulesArgs {
    fn rules(&self) -> Rules {
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
    pub(super) fn game_config(&self) -> GameConfig {
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

    pub(super) fn connect_config(&self) -> ConnectConfig {
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

impl NetArgs {
    pub(super) fn net_config(&self) -> NetConfig {
        NetConfig {
            listen: self.listen.clone(),
            pending: PendingLimits { total: self.max_pending, per_addr: self.max_pending_per_addr },
            connect_wait: Duration::from_millis(self.connect_wait_ms),
        }
    }
}
