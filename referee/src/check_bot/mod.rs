//! `referee check-bot`: a conformance check of one bot, so an author learns what is wrong before
//! a match does, one PASS/FAIL line per check with what was expected and what came back.
//!
//! The bot is started once and keeps one connection from `hello` to `bye`, as in a match. The
//! scripted checks drive its pipes here, with their own line I/O: they must send what the
//! referee's `Bot` never sends (unknown fields and message types) and judge each answer
//! themselves. Then the same connection is handed to [`Bot::attach_at`] and plays two real games
//! through [`play_seated`](crate::api::play_seated) against built-in bots, and finally gets
//! `bye`. The process handle stays here, so the exit status after `bye` can be checked.
//!
//! Every scripted conversation is one the referee could really have, so a bot that keeps state
//! is never shown a sequence a match could not produce: each scenario is a game of its own,
//! either played to its end (the play checks run whole one-deal games on the rules engine) or
//! ended early, once the situation under test has been seen, by a `game_over` with `forfeit`, as
//! under `--on-fault forfeit`.
//!
//! The rooms: `connection.rs` starts the bot, asks it and hands it over; `scripted.rs` holds
//! the scripted games (the questions, the notices, the decks); `checks.rs` the checks in the
//! order they run; `answers.rs` judges an answer and explains a refusal to the bot's author.

mod answers;
mod checks;
mod connection;
mod scripted;
#[cfg(test)]
mod tests;

use crate::bot::link::LineConn;
use crate::bot::process::{BotProcess, Limits};
use crate::bot::{Bot, BotSpec, ConnectConfig, Identity};
use crate::fault::Fault;
use crate::text;
use protocol::codec::encode_line;
use protocol::msg::{Clock, FromBot, SeatNo, ToBot};
use serde::Serialize;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;
use tokio::task::JoinHandle;

/// What `referee check-bot` checks, and how.
#[derive(Debug)]
pub(crate) struct CheckBotConfig {
    /// The bot: a program or a built-in bot, never a TCP seat (it is started here).
    pub(crate) spec: BotSpec,
    /// Time allowed for each answer.
    pub(crate) answer: Duration,
    /// Time allowed for the hello answer.
    pub(crate) handshake: Duration,
    /// The one limit on the bot's lines, as in a match.
    pub(crate) max_line: usize,
    /// The checks as one JSON array instead of lines.
    pub(crate) json: bool,
    /// Where the bot's stderr is kept; by default it is discarded.
    pub(crate) stderr: Option<PathBuf>,
}

/// The seat the bot holds in the scripted games (its partner is seat 3).
const SEAT: SeatNo = 1;
/// The bank stated in scripted questions; waiting that long past `--answer-ms` is what a match
/// would do, and keeps one slow answer from failing every later check.
const BANK_MS: u64 = 5_000;
/// How long the bot has to exit after `bye` and end of input.
const BYE_GRACE: Duration = Duration::from_secs(2);
/// Raw lines are quoted up to this many characters.
const RAW_MAX: usize = 200;
/// Deals offered before concluding that the bot never accepts the chant.
const CHANT_TRIES: u64 = 8;
/// Mixed into every seed here, so the scripted decks are fixed and differ from a match's.
const SEED_TAG: u64 = 0x4348_4543_4B42_4F54;

/// One check's verdict, as printed and as in `--json`.
#[derive(Debug, Serialize)]
struct CheckResult {
    check: &'static str,
    pass: bool,
    detail: String,
}

/// A passed check's detail, or a failed one's.
type Outcome = Result<String, String>;

/// A judged answer: what it says, or why it was refused (with the question's id, for the
/// `error` notice): the fault a match would record, its detail saying what was expected and
/// what came back.
type Judged<T> = Result<T, (u64, Fault)>;

pub(crate) async fn run(args: CheckBotConfig) -> Result<(), String> {
    let mut c = Checker::new(&args);
    let mut results = Vec::new();
    results.push(c.step("handshake", Checker::handshake, args.json).await);
    results.push(c.step("unknown-fields", Checker::unknown_fields, args.json).await);
    results.push(c.step("opening", Checker::opening, args.json).await);
    results.push(c.step("discard", Checker::discard, args.json).await);
    results.push(c.step("play", Checker::play, args.json).await);
    results.push(c.step("surrender", Checker::surrender, args.json).await);
    results.push(c.step("game", Checker::first_game, args.json).await);
    results.push(c.step("second-game", Checker::second_game, args.json).await);
    results.push(c.step("bye", Checker::bye, args.json).await);
    results.push(c.step("time", Checker::time, args.json).await);
    c.shut_down().await;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results).unwrap_or_default());
    }
    match results.iter().filter(|r| !r.pass).count() {
        0 => Ok(()),
        n => Err(format!("{n} of {} checks failed", results.len())),
    }
}

/// What the bot sent in answer to one question.
#[derive(Debug)]
enum Got {
    /// A valid bot message with the question's id.
    Answer(FromBot, String),
    /// A line that is not a valid bot message: the error, and the line.
    Bad(String, String),
}

/// A message with one field no version of the protocol defines, as a line: the field is
/// spliced into the encoded message, so the known fields keep their usual order.
fn with_extra(msg: &ToBot, field: &str, value: &str) -> String {
    let line = encode_line(msg);
    let body = line.trim_end().strip_suffix('}').unwrap_or("{");
    format!("{body},\"{field}\":{value}}}\n")
}

/// The check in progress and everything it needs: the bot's pipes (scripted part) or its
/// [`Bot`] (games), its process, and what was learnt so far.
struct Checker {
    spec: BotSpec,
    answer: Duration,
    handshake_limit: Duration,
    /// `--max-line-bytes`: the one limit on the bot's lines, as in a match.
    max_line: usize,
    stderr: Option<PathBuf>,
    wire: Option<LineConn>,
    process: Option<BotProcess>,
    builtin: Option<JoinHandle<()>>,
    identity: Identity,
    next_id: u64,
    game_no: u64,
    /// Why checks can no longer run (the bot died, stalled, or never shook hands).
    blocked: Option<String>,
    /// The slowest answer and what it answered.
    slowest: Option<(Duration, String)>,
    /// The first answer that came too late for a match, if any.
    timed_out: Option<String>,
    /// How many lines with the id of no open question the check in progress has seen.
    stray_count: u64,
    /// The first few of them, shortened.
    stray: Vec<String>,
    /// The bot as the game runner sees it, once the connection is handed over.
    bot: Option<Bot>,
    /// Its three built-in opponents in the games.
    opponents: Vec<Bot>,
}

impl Checker {
    fn new(args: &CheckBotConfig) -> Checker {
        Checker {
            identity: Identity { name: args.spec.short_name(), ..Identity::default() },
            spec: args.spec.clone(),
            answer: args.answer,
            handshake_limit: args.handshake,
            max_line: args.max_line,
            stderr: args.stderr.clone(),
            wire: None,
            process: None,
            builtin: None,
            next_id: 1,
            game_no: 0,
            blocked: None,
            slowest: None,
            timed_out: None,
            stray_count: 0,
            stray: Vec::new(),
            bot: None,
            opponents: Vec::new(),
        }
    }

    /// Runs one check, or fails it at once with the reason when checks can no longer run, and
    /// prints its line unless the result goes out as JSON at the end.
    async fn step(
        &mut self,
        name: &'static str,
        check: impl AsyncFnOnce(&mut Checker) -> Outcome,
        json: bool,
    ) -> CheckResult {
        let mut outcome = match self.blocked.clone() {
            Some(why) => Err(why),
            None => check(self).await,
        };
        // "A bot sends nothing but answers": the referee would record each such line as a
        // stale_id or unknown_id fault.
        let stray = std::mem::take(&mut self.stray);
        let stray_count = std::mem::take(&mut self.stray_count);
        if stray_count > 0 {
            let what = format!(
                "expected nothing but answers, got {stray_count} line(s) with the id of no open \
                 question: {}",
                stray.join(" ")
            );
            outcome = match outcome {
                Ok(_) => Err(what),
                Err(e) => Err(format!("{e}; {what}")),
            };
        }
        let (pass, detail) = match outcome {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        if !json {
            // The detail quotes what the bot sent: shown, never obeyed by the terminal.
            println!("{}  {name}: {}", if pass { "PASS" } else { "FAIL" }, text::escape(&detail));
            // Each line as soon as it is known: a slow bot shows where it is.
            let _ = std::io::stdout().flush();
        }
        CheckResult { check: name, pass, detail }
    }

    fn connect_config(&self) -> ConnectConfig {
        ConnectConfig {
            handshake: self.handshake_limit,
            max_line: self.max_line,
            stderr_cap: 1 << 20,
            cpu_time: false,
            // The checked bot is a process on pipes: `resume` is never offered to it.
            resume_grace: Duration::ZERO,
            pre_lead_rounds: true,
            limits: Limits::default(),
        }
    }

    fn clock(&self) -> Clock {
        Clock {
            handshake_ms: self.handshake_limit.as_millis() as u64,
            answer_ms: self.answer.as_millis() as u64,
            bank_ms: BANK_MS,
            mode: None,
            wall_cap: None,
        }
    }

    fn limit(&self) -> Duration {
        self.answer + Duration::from_millis(BANK_MS)
    }
}
