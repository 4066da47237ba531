//! The options that shape a table (rules, clocks, fault policy, limits, TCP seats) as clap
//! structs, and their conversion into the plain configurations of the game runner, the bots and
//! the lobby. `referee match` takes them as flags and a tournament config file as sections; both
//! go through these definitions and this conversion, and the file's sections are the headings
//! the flags carry in `--help`.

use super::values::{MAX_MIB, MAX_MS, line_limit, probability, whole, word};
use crate::bot::ConnectConfig;
use crate::bot::lobby::{NetConfig, PendingLimits};
use crate::bot::process::Limits;
use crate::game_runner::GameConfig;
use crate::policy::Policy;
use crate::web::WebConfig;
use clap::Args;
use protocol::RulesWire;
use protocol::msg::Clock;
use protocol::options::{
    AllSpoiled, ChantSecond, ClockMode, DiscardRule, Mordienne, OnFault, OnOff, OnTie, Seating,
    SignalTruth, Signals,
};
use std::time::Duration;

// The headings of the option groups in `--help`; a tournament config gives each group a section.
pub(super) const RULES: &str = "Rules (spec/rules.md)";
pub(super) const CLOCK: &str = "Clock";
pub(super) const FAULTS: &str = "Faults";
pub(super) const LIMITS: &str = "Limits";
pub(super) const NET: &str = "Bots over TCP";
pub(super) const WEB: &str = "Human seats and spectators (web)";

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
    /// What a seat's bank is charged by: wall time, or the bot process's own CPU time (bots
    /// that are no process of the referee's, over TCP or built in, are charged wall time).
    #[arg(long, default_value_t = ClockMode::Wall, value_parser = word::<ClockMode>(), help_heading = CLOCK)]
    clock: ClockMode,
    /// Under --clock cpu, the wall-time limit of an answer as a multiple of its CPU limit
    /// (answer time plus bank left): a bot that sleeps or blocks still times out.
    #[arg(long, default_value_t = 4, value_name = "N", help_heading = CLOCK, allow_negative_numbers = true, value_parser = whole::<u32>(1, 1000))]
    wall_cap: u32,
    /// How long a seat whose bot listed `resume` (a person's page, a TCP bot) waits for it to
    /// connect again before its connection is given up, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS", help_heading = CLOCK, allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    resume_grace_ms: u64,
    /// Measure each bot process's CPU time per answer and record it (`cpu_us`); --clock cpu
    /// needs it.
    #[arg(long, default_value_t = OnOff::On, value_parser = word::<OnOff>(), help_heading = CLOCK)]
    cpu_time: OnOff,
    /// What a fault costs.
    #[arg(long, default_value_t = OnFault::Fallback, value_parser = word::<OnFault>(), help_heading = FAULTS)]
    on_fault: OnFault,
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

/// The web server of `--bot human` seats and `--watch` (spec/protocol.md section 9).
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = WEB)]
pub(super) struct WebArgs {
    /// Address of the web server for human seats and spectators. Use 0.0.0.0:PORT to serve
    /// other machines.
    #[arg(long = "web", default_value = "127.0.0.1:0", value_name = "ADDR")]
    web: String,
    /// Serve a live spectator page (its address, with its own token, is printed).
    #[arg(long)]
    watch: bool,
    /// Time for each answer of a human seat, in milliseconds.
    #[arg(long, default_value_t = 120_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    human_answer_ms: u64,
    /// Bank per game of a human seat, in milliseconds.
    #[arg(long, default_value_t = 600_000, value_name = "MS", allow_negative_numbers = true, value_parser = whole::<u64>(0, MAX_MS))]
    human_bank_ms: u64,
}

impl WebArgs {
    pub(super) fn web_config(&self) -> WebConfig {
        WebConfig {
            listen: self.web.clone(),
            watch: self.watch,
            human_answer_ms: self.human_answer_ms,
            human_bank_ms: self.human_bank_ms,
        }
    }
}

/// The rule options of spec/rules.md, with its names and defaults. Their values are the wire's
/// typed options (`protocol::options`), whose table lists the words each flag takes: a value
/// added there is a value these flags accept, list in `--help` and convert (`word`).
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = RULES)]
struct RulesArgs {
    /// Seating: as given, by the traditional draw, or as given with the first dealer drawn.
    #[arg(long, default_value_t = Seating::Given, value_parser = word::<Seating>())]
    seating: Seating,
    /// The chant.
    #[arg(long, default_value_t = OnOff::On, value_parser = word::<OnOff>())]
    chant: OnOff,
    /// Second chant recipient.
    #[arg(long, default_value_t = ChantSecond::Dealer, value_parser = word::<ChantSecond>())]
    chant_second: ChantSecond,
    /// Discard rule for chant recipients.
    #[arg(long, default_value_t = DiscardRule::Free, value_parser = word::<DiscardRule>())]
    discard: DiscardRule,
    /// When every trick is spoiled.
    #[arg(long, default_value_t = AllSpoiled::Nothing, value_parser = word::<AllSpoiled>())]
    all_spoiled: AllSpoiled,
    /// Mordienne, and whether it may be announced.
    #[arg(long, default_value_t = Mordienne::On, value_parser = word::<Mordienne>())]
    mordienne: Mordienne,
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
    #[arg(long, default_value_t = OnTie::Draw, value_parser = word::<OnTie>())]
    on_tie: OnTie,
    /// Who sees a signal.
    #[arg(long, default_value_t = Signals::Partner, value_parser = word::<Signals>())]
    signals: Signals,
    /// Probability that each opponent sees a signal under --signals leaky.
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true, value_parser = probability)]
    signal_leak: f64,
    /// Whether card signals must be true.
    #[arg(long, default_value_t = SignalTruth::Truthful, value_parser = word::<SignalTruth>())]
    signal_truth: SignalTruth,
    /// Whether a team may offer to surrender before the first lead.
    #[arg(long, default_value_t = OnOff::Off, value_parser = word::<OnOff>())]
    surrender: OnOff,
    /// Whether a failed mordienne announcement gives the other team 2 points (a house rule).
    #[arg(long, default_value_t = OnOff::Off, value_parser = word::<OnOff>())]
    announce_penalty: OnOff,
}

impl RulesArgs {
    /// The options as a `game` message states them, so they reach the engine through the one
    /// conversion from the wire's words (`convert::rules_from_wire`), as a record's do.
    fn wire(&self) -> RulesWire {
        RulesWire {
            seating: self.seating,
            chant: self.chant,
            chant_second: self.chant_second,
            discard: self.discard,
            all_spoiled: self.all_spoiled,
            mordienne: self.mordienne,
            mordienne_run: self.mordienne_run,
            deals: if self.target().is_some() { None } else { Some(self.deals) },
            target: self.target(),
            on_tie: self.on_tie,
            signals: self.signals,
            signal_leak: self.signal_leak,
            signal_truth: self.signal_truth,
            surrender: (self.surrender == OnOff::On).then_some(OnOff::On),
            announce_penalty: (self.announce_penalty == OnOff::On).then_some(OnOff::On),
        }
    }

    /// The target played to: the one set, or 10 under `--mordienne announced-only`, which plays
    /// every match to 10 (so the header and the `game` message state the target in force).
    fn target(&self) -> Option<u16> {
        match (self.mordienne, self.target) {
            (Mordienne::AnnouncedOnly, None) => Some(10),
            (_, target) => target,
        }
    }

    /// Refuses a target that the announcement reading would change behind the organiser's back
    /// (spec/rules.md section 8), in one line naming both flags.
    fn check_length(&self) -> Result<(), String> {
        match (self.mordienne, self.target) {
            (Mordienne::AnnouncedOnly, Some(t)) if t != 10 => Err(format!(
                "--mordienne announced-only plays every match to 10 points: it cannot go with \
                 --target {t}"
            )),
            (Mordienne::Announced, Some(t)) if t >= 10 => Err(format!(
                "--mordienne announced raises a target below 10 to 10 at the first announcement: \
                 it cannot go with --target {t}"
            )),
            (Mordienne::Announced, None) => Err(
                "--mordienne announced raises a target below 10 to 10 at the first announcement: \
                 it needs --target (5 is the usual match), not a number of deals"
                    .into(),
            ),
            _ => Ok(()),
        }
    }
}

impl TableArgs {
    /// The game's configuration; the flags' own parsers have checked every value already, so
    /// an error here would be one of the rules' checks that no flag makes.
    pub(super) fn game_config(&self) -> Result<GameConfig, String> {
        self.rules.check_length()?;
        let (rules, seating) = convert::rules_from_wire(&self.rules.wire())?;
        let cpu = self.clock == ClockMode::Cpu;
        if cpu && self.cpu_time == OnOff::Off {
            return Err(
                "--clock cpu needs the bots' CPU time: it cannot go with --cpu-time off".into()
            );
        }
        Ok(GameConfig {
            rules,
            seating,
            clock: Clock {
                handshake_ms: self.handshake_ms,
                answer_ms: self.answer_ms,
                bank_ms: self.bank_ms,
                mode: cpu.then_some(ClockMode::Cpu),
                wall_cap: cpu.then_some(self.wall_cap),
            },
            policy: Policy { on_fault: self.on_fault, max_strikes: self.max_strikes },
        })
    }

    pub(super) fn connect_config(&self) -> ConnectConfig {
        ConnectConfig {
            handshake: Duration::from_millis(self.handshake_ms),
            max_line: self.max_line_bytes,
            stderr_cap: self.stderr_cap,
            cpu_time: self.cpu_time == OnOff::On,
            resume_grace: Duration::from_millis(self.resume_grace_ms),
            pre_lead_rounds: convert::pre_lead_rounds(&self.rules.wire()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory as _, Parser};
    use protocol::RULE_OPTIONS;
    use protocol::options::Values;

    #[derive(Debug, Parser)]
    #[command(name = "table", no_binary_name = true)]
    struct Flags {
        #[command(flatten)]
        table: TableArgs,
    }

    /// The library's `Config::default()` is `referee match` with no flag: a program embedding
    /// the referee plays the games the command line plays.
    #[test]
    fn the_librarys_default_configuration_is_the_command_lines() {
        let flags = Flags::try_parse_from(Vec::<String>::new()).unwrap();
        let lib = crate::api::Config::default();
        assert_eq!(format!("{:?}", flags.table.game_config().unwrap()), format!("{:?}", lib.game));
        assert_eq!(format!("{:?}", flags.table.connect_config()), format!("{:?}", lib.connect));
    }

    /// The rule flags are the table of rule options: one flag per option, named like it, taking
    /// exactly its words, in its order; so are the `[rules]` keys of a tournament config, which
    /// are these flags.
    #[test]
    fn the_rule_flags_are_the_table_of_rule_options() {
        let cmd = Flags::command();
        let flags: Vec<&clap::Arg> =
            cmd.get_arguments().filter(|a| a.get_help_heading() == Some(RULES)).collect();
        let names: Vec<&str> = flags.iter().filter_map(|a| a.get_long()).collect();
        let table: Vec<&str> = RULE_OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(names, table);
        for (flag, option) in flags.iter().zip(RULE_OPTIONS) {
            let words: Vec<String> =
                flag.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect();
            match option.values {
                Values::Words(expected) => assert_eq!(words, expected, "--{}", option.name),
                Values::Integer | Values::Probability => assert!(words.is_empty()),
            }
        }
        // The fault policy's words are the wire's too.
        let on_fault = cmd.get_arguments().find(|a| a.get_long() == Some("on-fault")).unwrap();
        let words: Vec<String> =
            on_fault.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect();
        assert_eq!(words, OnFault::NAMES);
    }

    /// The clock flags reach the game's clock (the CPU clock with its wall cap, the wall clock
    /// with neither field) and the bots' measurement; the CPU clock needs the measurement.
    #[test]
    fn clock_flags_reach_the_clock_and_the_measurement() {
        let parse = |args: &[&str]| Flags::try_parse_from(args).unwrap().table;
        let wall = parse(&[]);
        let clock = wall.game_config().unwrap().clock;
        assert_eq!((clock.mode, clock.wall_cap), (None, None));
        assert!(wall.connect_config().cpu_time, "measured by default");
        let cpu = parse(&["--clock", "cpu"]).game_config().unwrap().clock;
        assert_eq!((cpu.mode, cpu.wall_cap), (Some(ClockMode::Cpu), Some(4)));
        let capped = parse(&["--clock", "cpu", "--wall-cap", "9"]).game_config().unwrap().clock;
        assert_eq!(capped.wall_cap, Some(9));
        assert!(!parse(&["--cpu-time", "off"]).connect_config().cpu_time);
        let e = parse(&["--clock", "cpu", "--cpu-time", "off"]).game_config().unwrap_err();
        assert!(e.contains("--clock cpu") && !e.contains('\n'), "{e}");
        assert!(Flags::try_parse_from(["--wall-cap", "0"]).is_err());
    }

    /// Flags convert into the engine's rules through the wire's words: the defaults are the
    /// engine's, and every word reaches the engine as the value it names.
    #[test]
    fn rule_flags_reach_the_engine_through_the_wire() {
        let parse =
            |args: &[&str]| Flags::try_parse_from(args).unwrap().table.game_config().unwrap();
        let defaults = parse(&[]);
        assert_eq!((defaults.rules, defaults.seating), (rules::Rules::default(), Seating::Given));
        let c = parse(&[
            "--seating",
            "draw",
            "--chant",
            "off",
            "--chant-second",
            "partner",
            "--discard",
            "keep-highest",
            "--all-spoiled",
            "redeal",
            "--mordienne",
            "off",
            "--mordienne-run",
            "3",
            "--target",
            "7",
            "--on-tie",
            "extra-deals",
            "--signals",
            "leaky",
            "--signal-leak",
            "0.5",
            "--signal-truth",
            "free",
            "--on-fault",
            "forfeit",
        ]);
        let wire = convert::rules_wire(&c.rules, c.seating);
        let said: Vec<String> = wire.values().iter().map(|(n, v)| format!("{n} {v}")).collect();
        assert_eq!(
            said.join(", "),
            "seating draw, chant off, chant-second partner, discard keep-highest, \
             all-spoiled redeal, mordienne off, mordienne-run 3, target 7, on-tie extra-deals, \
             signals leaky, signal-leak 0.5, signal-truth free"
        );
        assert_eq!(c.policy.on_fault, OnFault::Forfeit);
        let e = Flags::try_parse_from(["--signals", "loud"]).unwrap_err().to_string();
        assert!(e.contains("[possible values: off, partner, public, leaky]"), "{e}");
    }

    /// Issue 24: the target in force is the one the header states. `announced-only` states 10
    /// when no target is given; a target either announcement reading would change is refused in
    /// one line naming both flags.
    #[test]
    fn the_announcement_readings_state_their_target_or_refuse() {
        let parse = |args: &[&str]| Flags::try_parse_from(args).unwrap().table.game_config();
        let only = parse(&["--mordienne", "announced-only"]).unwrap();
        assert_eq!(convert::rules_wire(&only.rules, only.seating).target, Some(10));
        assert_eq!(only.rules.length, rules::MatchLength::Target(10));
        assert!(parse(&["--mordienne", "announced-only", "--target", "10"]).is_ok());
        let ext = parse(&["--mordienne", "announced", "--target", "5"]).unwrap();
        assert_eq!(convert::rules_wire(&ext.rules, ext.seating).target, Some(5));
        for (args, named) in [
            (&["--mordienne", "announced-only", "--target", "15"][..], "--target 15"),
            (&["--mordienne", "announced", "--target", "15"], "--target 15"),
            (&["--mordienne", "announced", "--target", "10"], "--target 10"),
            (&["--mordienne", "announced", "--deals", "20"], "--target"),
        ] {
            let e = parse(args).unwrap_err();
            assert!(e.contains("--mordienne announced") && e.contains(named), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
