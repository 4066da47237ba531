//! `referee check-bot`: a conformance check of one bot, so an author learns what is wrong before
//! a match does, one PASS/FAIL line per check with what was expected and what came back.
//!
//! The bot is started once and keeps one connection from `hello` to `bye`, as in a match. The
//! scripted checks drive its pipes here, with their own line I/O: they must send what the
//! referee's `Bot` never sends (unknown fields and message types) and judge each answer
//! themselves. Then the same connection is handed to [`Bot::attach_at`] and plays two real games
//! through [`run_game`] against built-in bots, and finally gets `bye`. The process handle stays
//! here, so the exit status after `bye` can be checked.
//!
//! Every scripted conversation is one the referee could really have, so a bot that keeps state
//! is never shown a sequence a match could not produce: each scenario is a game of its own,
//! either played to its end (the play checks run whole one-deal games on the rules engine) or
//! ended early, once the situation under test has been seen, by a `game_over` with `forfeit`, as
//! under `--on-fault forfeit`.

use crate::bot::builtin::{self, Builtin};
use crate::bot::conn::{Incoming, LineConn};
use crate::bot::process::{self, BotProcess, Limits, SpawnSpec};
use crate::bot::{Bot, BotSpec, ConnectConfig, Identity};
use crate::convert::{code, codes, rules_wire, seat_no, table_card};
use crate::game_runner::{GameConfig, GameSetup, game_seed, run_game};
use crate::policy::{self, OnFault, Policy};
use crate::record_io::Recorder;
use crate::shutdown;
use crate::text;
use protocol::codec::{decode_line, encode_line};
use protocol::msg::{Clock, FromBot, SeatNo, TableCard, ToBot, VoteCast};
use protocol::record::FaultKind;
use protocol::{CardCode, FEATURES, PROTOCOL_VERSION};
use rules::{
    Action, Card, CardSet, ChantSecond, Deck, DiscardRule, Event, Game, MatchLength, Rules, Seat,
    Signal, SignalDelivery, Turn, derive_seed,
};
use serde::Serialize;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;

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

/// Why an answer was refused: the fault class a match would record, and what was expected and
/// what came back.
type Refusal = (FaultKind, String);

/// A judged answer: what it says, or why it was refused (with the question's id, for the
/// `error` notice).
type Judged<T> = Result<T, (u64, Refusal)>;

pub(crate) async fn run(args: CheckBotConfig) -> Result<(), String> {
    let mut c = Checker::new(&args);
    let mut results = Vec::new();
    results.push(c.step("handshake", Checker::handshake, args.json).await);
    results.push(c.step("unknown-fields", Checker::unknown_fields, args.json).await);
    results.push(c.step("opening", Checker::opening, args.json).await);
    results.push(c.step("discard", Checker::discard, args.json).await);
    results.push(c.step("play", Checker::play, args.json).await);
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
    /// Lines with the id of no open question, seen during the check in progress.
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
        if !stray.is_empty() {
            let what = format!(
                "expected nothing but answers, got {} line(s) with the id of no open question: {}",
                stray.len(),
                stray.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
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
            limits: Limits::default(),
        }
    }

    fn clock(&self) -> Clock {
        Clock {
            handshake_ms: self.handshake_limit.as_millis() as u64,
            answer_ms: self.answer.as_millis() as u64,
            bank_ms: BANK_MS,
        }
    }

    fn limit(&self) -> Duration {
        self.answer + Duration::from_millis(BANK_MS)
    }

    // --- the bot's connection -------------------------------------------------------------

    /// Starts the bot: a program through the process module, a built-in over an in-memory pipe.
    fn start(&mut self) -> Result<(), String> {
        match &self.spec {
            BotSpec::Command(argv) => {
                let spawn = SpawnSpec {
                    argv: argv.clone(),
                    stderr_path: self.stderr.clone(),
                    stderr_cap: 1 << 20,
                    limits: Limits::default(),
                    cpu: None,
                };
                let (proc_, stdin, stdout) =
                    process::spawn(&spawn).map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
                let conn = LineConn::new(Box::new(stdout), Box::new(stdin), self.max_line);
                self.wire = Some(conn);
                self.process = Some(proc_);
            }
            BotSpec::Builtin(kind) => {
                let (ours, theirs) = tokio::io::duplex(64 * 1024);
                let (r, w) = tokio::io::split(ours);
                self.wire = Some(LineConn::new(Box::new(r), Box::new(w), self.max_line));
                self.builtin = Some(tokio::spawn(builtin::run(*kind, theirs, self.max_line)));
            }
            BotSpec::TcpSeat { .. } | BotSpec::TcpConnect(_) => {
                return Err("check-bot cannot start a TCP bot".into());
            }
        }
        Ok(())
    }

    /// How the bot ended, for people: `exit code 2`, `killed by SIGSEGV`.
    async fn how_it_ended(&mut self) -> String {
        match self.process.as_mut() {
            Some(p) => match p.exit_status(Duration::from_millis(500)).await {
                Some(status) => process::describe_exit(status),
                None => "it closed its stdout but keeps running".into(),
            },
            None => "the built-in bot stopped".into(),
        }
    }

    /// Notes that the bot is gone; later checks fail with the reason.
    async fn gone(&mut self) -> String {
        let how = self.how_it_ended().await;
        self.wire = None;
        let why = format!("the bot is no longer running ({how})");
        self.blocked = Some(why.clone());
        why
    }

    fn queue(&mut self, msg: &ToBot) {
        if let Some(w) = self.wire.as_mut() {
            w.queue(msg);
        }
    }

    /// Sends the queued notices and the question `build(id)`, and waits for the line that
    /// answers it: the first with its id, or the first that is not a valid bot message (as the
    /// referee does, lines with other ids are skipped). `Err` means the conversation is over:
    /// the bot died or stalled, and later checks are blocked.
    async fn ask(
        &mut self,
        label: &str,
        build: impl FnOnce(u64) -> ToBot,
        extra: Option<(&str, &str)>,
    ) -> Result<Got, String> {
        let id = self.next_id;
        self.next_id += 1;
        let question = build(id);
        let limit = if matches!(question, ToBot::Hello { .. }) {
            self.handshake_limit
        } else {
            self.limit()
        };
        let Some(wire) = self.wire.as_mut() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        match extra {
            Some((field, value)) => {
                wire.queue_bytes(with_extra(&question, field, value).as_bytes())
            }
            None => wire.queue(&question),
        }
        if let Err(e) = wire.flush(Instant::now() + limit).await {
            if e.kind() == std::io::ErrorKind::TimedOut {
                let why = format!("the bot stopped reading its input before the {label}");
                self.blocked = Some(why.clone());
                return Err(why);
            }
            let why = self.gone().await;
            return Err(format!("expected an answer to the {label}, but {why}"));
        }
        let sent = Instant::now();
        let deadline = sent + limit;
        let mut skipped = Vec::new();
        let got = loop {
            match wire.next(deadline).await {
                Incoming::Line(line) => {
                    let raw = String::from_utf8_lossy(&line).into_owned();
                    match decode_line::<FromBot>(&line) {
                        Ok(msg) if msg.id() == id => break Some(Got::Answer(msg, raw)),
                        Ok(_) => skipped.push(shorten(&raw)),
                        Err(e) => break Some(Got::Bad(e.to_string(), raw)),
                    }
                }
                Incoming::TooLong => {
                    break Some(Got::Bad(
                        format!("a line longer than {} bytes", wire.max_line()),
                        String::new(),
                    ));
                }
                Incoming::Eof { .. } | Incoming::Error(_) => break None,
                Incoming::Deadline => {
                    let mut why = format!(
                        "no answer to the {label} (id {id}) within {} ms",
                        limit.as_millis()
                    );
                    if !skipped.is_empty() {
                        why.push_str(&format!(
                            "; lines with other ids were skipped: {}",
                            skipped.join(" ")
                        ));
                    }
                    self.timed_out.get_or_insert(why.clone());
                    self.blocked = Some(format!("the bot stopped answering: {why}"));
                    return Err(why);
                }
            }
        };
        let Some(got) = got else {
            let why = self.gone().await;
            return Err(format!("expected an answer to the {label} (id {id}), but {why}"));
        };
        let took = sent.elapsed();
        self.stray.extend(skipped);
        if !matches!(question, ToBot::Hello { .. }) {
            self.note_time(took, format!("{} of game {}", label, self.game_no));
        }
        Ok(got)
    }

    fn note_time(&mut self, took: Duration, what: String) {
        if self.slowest.as_ref().is_none_or(|(t, _)| took > *t) {
            self.slowest = Some((took, what));
        }
    }

    /// Hands the connection to a [`Bot`] for the game runner, with the ids and identity it has.
    async fn hand_over(&mut self) -> Result<(), String> {
        let Some(mut wire) = self.wire.take() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        // Notices still queued (the last scripted game_over) go out first.
        if wire.flush(Instant::now() + self.limit()).await.is_err() {
            self.wire = Some(wire);
            return Err(self.gone().await);
        }
        let (reader, writer) = wire.into_parts();
        let cfg = self.connect_config();
        let mut bot =
            Bot::attach_at(self.spec.clone(), reader, writer, &cfg, self.next_id, false).await;
        bot.identity = self.identity.clone();
        self.bot = Some(bot);
        for i in 0..3 {
            let random = BotSpec::Builtin(Builtin::Random);
            self.opponents
                .push(Bot::connect(random, &cfg, None, &format!("random{i}"), None).await);
        }
        Ok(())
    }

    /// Ends whatever is still running: the bot's process group is killed when its handle drops.
    async fn shut_down(&mut self) {
        self.wire = None;
        if let Some(bot) = self.bot.take() {
            bot.close("check-bot is over", Duration::ZERO).await;
        }
        for bot in self.opponents.drain(..) {
            bot.close("check-bot is over", Duration::ZERO).await;
        }
        if let Some(p) = self.process.take() {
            p.finish(Duration::ZERO).await;
        }
        if let Some(task) = self.builtin.take() {
            task.abort();
        }
    }

    // --- scripted games -------------------------------------------------------------------

    fn players(&self) -> Vec<String> {
        let mut names: Vec<String> = (0..4).map(|s| format!("check-bot-{s}")).collect();
        names[usize::from(SEAT)] = self.identity.name.clone();
        names
    }

    fn game_message(&mut self, rules: &Rules) -> ToBot {
        self.game_no += 1;
        ToBot::Game {
            game: self.game_no,
            seat: SEAT,
            partner: (SEAT + 2) % 4,
            players: self.players(),
            rules: rules_wire(rules, false),
            clock: self.clock(),
        }
    }

    /// Ends a scripted game early, as a forfeit does: the bot's team forfeits when its answer
    /// was refused (after an `error` saying why), the other team otherwise.
    fn end_early(&mut self, refused: Option<(u64, FaultKind, String)>) {
        let bot_team = SEAT % 2;
        let forfeit = if let Some((id, fault, message)) = refused {
            self.queue(&ToBot::Error {
                id: Some(id),
                fault: fault.as_str().into(),
                message,
                action: "your partnership forfeits the game".into(),
            });
            bot_team
        } else {
            1 - bot_team
        };
        let msg = ToBot::GameOver {
            game: self.game_no,
            score: [0, 0],
            winner: Some(1 - forfeit),
            forfeit: Some(forfeit),
        };
        self.queue(&msg);
    }

    /// Public notices after the bot's vote in a deal dealt by seat 0 or 3: when it accepts,
    /// seat 2 refuses next, so the chant is never taken here.
    fn after_vote(&mut self, accept: bool) {
        self.queue(&ToBot::Vote { seat: SEAT, accept });
        if accept {
            self.queue(&ToBot::Vote { seat: 2, accept: false });
        }
        self.queue(&ToBot::Chant { taken: false });
    }

    /// Asks an opening question and judges the answer: `Ok` with the vote (if any) and a short
    /// account, `Err` with what was expected and what came back.
    async fn ask_opening(
        &mut self,
        deal: u16,
        dealer: Seat,
        vote: bool,
        votes: Vec<VoteCast>,
        hand: CardSet,
        extra: Option<(&str, &str)>,
    ) -> Result<Judged<(Option<bool>, String)>, String> {
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let label = if vote { "opening question (vote asked)" } else { "opening question" };
        let got = self
            .ask(
                label,
                |id| ToBot::Opening {
                    id,
                    deal,
                    dealer: seat_no(dealer),
                    vote,
                    votes,
                    hand: codes(hand),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                extra,
            )
            .await?;
        Ok(judge_opening(&got, vote, hand).map_err(|e| (id, e)))
    }

    /// Asks a discard question and judges the answer.
    async fn ask_discard(
        &mut self,
        hand: CardSet,
        received: CardSet,
        rule: DiscardRule,
    ) -> Result<Judged<String>, String> {
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let keep_highest = rule == DiscardRule::KeepHighest;
        let got = self
            .ask(
                "discard question",
                |id| ToBot::Discard {
                    id,
                    deal: 1,
                    hand: codes(hand),
                    received: codes(received),
                    rule: crate::convert::discard_rule(rule),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                None,
            )
            .await?;
        Ok(judge_discard(&got, hand, keep_highest).map_err(|e| (id, e)))
    }

    /// Plays one whole game of one deal with the chant off: the bot in seat 1, the other seats
    /// by the referee's fallback, every notice a match would send. Each play answer is judged;
    /// a refused one gets an `error` and the fallback, as in a match, and is reported in
    /// `faults`. `seen` collects the situations met, for the account.
    async fn scripted_deal(
        &mut self,
        dealer: Seat,
        deck: &Deck,
        seen: &mut Situations,
        faults: &mut Vec<String>,
    ) -> Result<(), String> {
        let rules = Rules { chant: false, length: MatchLength::Deals(1), ..Rules::default() };
        let msg = self.game_message(&rules);
        self.queue(&msg);
        let me = Seat::ALL[usize::from(SEAT)];
        let mut game = Game::new(rules, dealer);
        game.deal(deck).map_err(|e| format!("check-bot's own deal failed: {e:?}"))?;
        let view = game.view(me);
        self.queue(&ToBot::Deal {
            deal: view.deal,
            dealer: seat_no(dealer),
            hand: codes(view.hand),
        });
        // The opening is the opening check's business; here a refused one gets what a match
        // would give it, an `error`, and the game goes on.
        if let Err((id, (kind, e))) =
            self.ask_opening(view.deal, dealer, false, Vec::new(), view.hand, None).await?
        {
            self.queue(&ToBot::Error {
                id: Some(id),
                fault: kind.as_str().into(),
                message: e,
                action: "nothing needed".into(),
            });
        }
        let mut winners = Vec::new();
        while let Some(Turn::Play(seat)) = game.to_act() {
            let view = game.view(seat);
            let fallback = policy::fallback_play(view.hand).ok_or("a player without cards")?;
            let card = if seat == me {
                let id = self.next_id;
                let table: Vec<TableCard> =
                    view.table().iter().map(|&(s, c)| table_card(s, c)).collect();
                let time_ms = self.answer.as_millis() as u64;
                let got = self
                    .ask(
                        &format!("play question (trick {})", view.trick),
                        |id| ToBot::Play {
                            id,
                            deal: view.deal,
                            trick: view.trick,
                            leader: seat_no(view.leader),
                            table: table.clone(),
                            hand: codes(view.hand),
                            won: view.tricks_won(),
                            score: view.score,
                            time_ms,
                            bank_ms: BANK_MS,
                        },
                        None,
                    )
                    .await?;
                let situation = Situations::of(view.trick, &table, view.hand);
                match judge_play(&got, view.hand) {
                    Ok(card) => {
                        seen.note(situation, &table, view.hand, card);
                        card
                    }
                    Err((kind, e)) => {
                        faults.push(format!("{} (trick {}): {e}", situation.name(), view.trick));
                        // As in a match: a refused signal leaves the card standing; any other
                        // refusal is answered by the fallback.
                        let stands = match &got {
                            Got::Answer(FromBot::Play { card, .. }, _)
                                if kind == FaultKind::BadSignal =>
                            {
                                Some(crate::convert::card(*card))
                            }
                            _ => None,
                        };
                        let action = match stands {
                            Some(_) => "signal not delivered; the rest of the answer stands".into(),
                            None => format!("played {fallback} for you (fallback)"),
                        };
                        self.queue(&ToBot::Error {
                            id: Some(id),
                            fault: kind.as_str().into(),
                            message: e,
                            action,
                        });
                        stands.unwrap_or(fallback)
                    }
                }
            } else {
                fallback
            };
            let trick = view.trick;
            let events = *game
                .apply(seat, Action::Play(card))
                .map_err(|e| format!("check-bot's own play failed: {e:?}"))?;
            for e in events.iter() {
                match *e {
                    Event::Played { seat, card } => {
                        self.queue(&ToBot::Played { seat: seat_no(seat), card: code(card), trick })
                    }
                    Event::TrickOver(t) => {
                        winners.push(t.winner.map(seat_no));
                        let cards =
                            (0..4).map(|k| table_card(t.leader.plus(k), t.cards[usize::from(k)]));
                        self.queue(&ToBot::Trick {
                            trick: t.number,
                            leader: seat_no(t.leader),
                            cards: cards.collect(),
                            winner: t.winner.map(seat_no),
                            next: seat_no(t.next_leader),
                        });
                    }
                    Event::DealOver(d) => self.queue(&ToBot::DealOver {
                        deal: d.deal,
                        tricks: d.score.tricks,
                        winners: std::mem::take(&mut winners),
                        winner: d.score.winner.map(seat_no),
                        points: d.score.points,
                        mordienne: d.score.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                    }),
                    _ => {}
                }
            }
        }
        let msg = ToBot::GameOver {
            game: self.game_no,
            score: game.score(),
            winner: game.outcome().and_then(|r| r.winner).map(|t| t.index() as u8),
            forfeit: None,
        };
        self.queue(&msg);
        Ok(())
    }

    // --- the checks -----------------------------------------------------------------------

    /// Check 1: `hello` answered in time, with the id, a name, a version, and protocol 1 if any.
    async fn handshake(&mut self) -> Outcome {
        if let Err(e) = self.start() {
            self.blocked = Some("the bot could not be started".into());
            return Err(e);
        }
        let time_ms = self.handshake_limit.as_millis() as u64;
        let features = FEATURES.iter().map(|f| f.to_string()).collect();
        let got = self
            .ask(
                "hello",
                |id| ToBot::Hello { id, protocol: PROTOCOL_VERSION, features, time_ms },
                None,
            )
            .await;
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                // Without a handshake nothing else can be checked; the bot is killed at the end.
                self.blocked = Some(format!("not checked: no valid handshake ({e})"));
                return Err(e);
            }
        };
        let judged = match &got {
            Got::Answer(FromBot::Hello { name, version, author, protocol, .. }, raw) => {
                if let Err(e) = crate::bot::check_identity(name, version, author.as_deref()) {
                    Err(format!("expected a valid hello answer: {e}"))
                } else if let Some(p) = protocol.filter(|&p| p != PROTOCOL_VERSION) {
                    Err(format!(
                        "expected protocol absent or {PROTOCOL_VERSION}, got {p} (the referee \
                         refuses another major version)"
                    ))
                } else {
                    self.identity = Identity {
                        name: name.clone(),
                        version: version.clone(),
                        author: author.clone(),
                        token: None,
                    };
                    let mut d = format!("answered hello with name {name:?} version {version:?}");
                    if let Some(a) = author {
                        d.push_str(&format!(" author {a:?}"));
                    }
                    return Ok(d);
                }
                .map_err(|e| format!("{e}; line: {}", shorten(raw)))
            }
            other => Err(wrong_kind("hello", other).1),
        };
        self.blocked = Some("not checked: no valid handshake".into());
        judged
    }

    /// Check 2: A `game` with an unknown field, a line of an unknown type, then a `deal` and an
    /// `opening` question with unknown fields: the question must still be answered correctly.
    async fn unknown_fields(&mut self) -> Outcome {
        let rules = Rules::default();
        let game = self.game_message(&rules);
        let (deck, dealer) = (scripted_deck(1, |_| true), Seat::ALL[0]);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        if let Some(w) = self.wire.as_mut() {
            w.queue_bytes(with_extra(&game, "x_future", r#"{"nested":[1,"two",null]}"#).as_bytes());
            w.queue_bytes(b"{\"type\":\"tea_time\",\"cup\":1}\n");
            let deal = ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) };
            w.queue_bytes(with_extra(&deal, "x_cut", "17").as_bytes());
        }
        let sent = "a game with an unknown field, a {\"type\":\"tea_time\",\"cup\":1} line, \
                    and a deal and an opening question with unknown fields";
        match self
            .ask_opening(1, dealer, true, Vec::new(), hand, Some(("x_hint", "\"ignore me\"")))
            .await
        {
            Err(e) => Err(format!("after {sent}: {e}")),
            Ok(Err((id, (kind, e)))) => {
                self.end_early(Some((id, kind, e.clone())));
                Err(format!("after {sent}, the opening question was not answered correctly: {e}"))
            }
            Ok(Ok((accept, _))) => {
                self.after_vote(accept.unwrap_or(false));
                self.end_early(None);
                Ok(format!("ignored {sent}, and answered the opening question correctly"))
            }
        }
    }

    /// Check 3: `accept` exactly when a vote is asked; signals known and true for the hand.
    async fn opening(&mut self) -> Outcome {
        let mut accounts = Vec::new();
        let mut failures = Vec::new();
        // Vote asked: seat 0 (the dealer's left) accepted before the bot.
        let msg = self.game_message(&Rules::default());
        self.queue(&msg);
        let dealer = Seat::ALL[3];
        let hand = scripted_deck(2, |_| true).hands(dealer)[usize::from(SEAT)];
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 0, accept: true });
        let votes = vec![VoteCast { seat: 0, accept: true }];
        match self.ask_opening(1, dealer, true, votes, hand, None).await? {
            Ok((accept, account)) => {
                accounts.push(format!("vote asked: {account}"));
                self.after_vote(accept.unwrap_or(false));
                self.end_early(None);
            }
            Err((id, (kind, e))) => {
                failures.push(format!("vote asked (\"vote\":true): {e}"));
                self.end_early(Some((id, kind, e)));
            }
        }
        // No vote asked: seat 2 (the dealer's left) refused, so the chant is already decided.
        let msg = self.game_message(&Rules::default());
        self.queue(&msg);
        let dealer = Seat::ALL[1];
        let hand = scripted_deck(3, |_| true).hands(dealer)[usize::from(SEAT)];
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 2, accept: false });
        self.queue(&ToBot::Chant { taken: false });
        let votes = vec![VoteCast { seat: 2, accept: false }];
        match self.ask_opening(1, dealer, false, votes, hand, None).await? {
            Ok((_, account)) => {
                accounts.push(format!("no vote asked: {account}"));
                self.end_early(None);
            }
            Err((id, (kind, e))) => {
                failures.push(format!("no vote asked (\"vote\":false): {e}"));
                self.end_early(Some((id, kind, e)));
            }
        }
        if failures.is_empty() { Ok(accounts.join("; ")) } else { Err(failures.join("; ")) }
    }

    /// Check 4: Discards: 6 distinct held cards under `free`, the 6 weakest under `keep-highest`.
    async fn discard(&mut self) -> Outcome {
        let mut accounts = Vec::new();
        let mut failures = Vec::new();
        for (rule, name, salt) in
            [(DiscardRule::Free, "free", 10), (DiscardRule::KeepHighest, "keep-highest", 30)]
        {
            match self.discard_under(rule, salt).await? {
                Ok(account) => accounts.push(format!("{name}: {account}")),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        if failures.is_empty() { Ok(accounts.join("; ")) } else { Err(failures.join("; ")) }
    }

    /// One discard scenario: deals where the bot, on the dealer's left, votes first, until it
    /// accepts; the other three accept too, and the bot, first recipient, discards.
    async fn discard_under(
        &mut self,
        rule: DiscardRule,
        salt: u64,
    ) -> Result<Result<String, String>, String> {
        let rules = Rules { discard: rule, ..Rules::default() };
        let dealer = Seat::ALL[0];
        for attempt in 0..CHANT_TRIES {
            let msg = self.game_message(&rules);
            self.queue(&msg);
            let deck = scripted_deck(salt + attempt, |_| true);
            let hand = deck.hands(dealer)[usize::from(SEAT)];
            self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
            let accept = match self.ask_opening(1, dealer, true, Vec::new(), hand, None).await? {
                Ok((accept, _)) => accept.unwrap_or(false),
                Err((id, (kind, e))) => {
                    self.end_early(Some((id, kind, e.clone())));
                    return Ok(Err(format!("the opening answer before the discard: {e}")));
                }
            };
            if !accept {
                self.after_vote(false);
                self.end_early(None);
                continue;
            }
            for seat in [SEAT, 2, 3, 0] {
                self.queue(&ToBot::Vote { seat, accept: true });
            }
            self.queue(&ToBot::Chant { taken: true });
            // The dealer's left receives the talon's 1st, 3rd, ... cards (rules.md 5.2).
            let received: CardSet = deck.talon().iter().step_by(2).copied().collect();
            let full = hand.union(received);
            let judged = self.ask_discard(full, received, rule).await?;
            return Ok(match judged {
                Ok(account) => {
                    self.end_early(None);
                    Ok(account)
                }
                Err((id, (kind, e))) => {
                    self.end_early(Some((id, kind, e.clone())));
                    Err(e)
                }
            });
        }
        // Refusing is always allowed, and a bot that never accepts is never asked to discard.
        Ok(Ok(format!(
            "not checked: the bot refused the chant in all {CHANT_TRIES} deals offered (a bot \
             that never accepts is never asked to discard)"
        )))
    }

    /// Check 5: Plays: a card of the hand when leading, when last with a trick to win, and with one
    /// card left; two whole deals, every answer judged.
    async fn play(&mut self) -> Outcome {
        let mut seen = Situations::default();
        let mut faults = Vec::new();
        // Dealt by seat 0, the bot leads the first trick.
        let deck = scripted_deck(50, |_| true);
        self.scripted_deal(Seat::ALL[0], &deck, &mut seen, &mut faults).await?;
        // Dealt by the bot, it plays last to the first trick, holding Monsieur: the other
        // seats play their weakest cards, so it has a trick to win.
        let me = usize::from(SEAT);
        let deck = scripted_deck(60, |d| d.hands(Seat::ALL[me])[me].contains(Card::MONSIEUR));
        self.scripted_deal(Seat::ALL[me], &deck, &mut seen, &mut faults).await?;
        if let Some(first) = faults.first() {
            let more = if faults.len() > 1 {
                format!(" (and {} more refused plays)", faults.len() - 1)
            } else {
                String::new()
            };
            return Err(format!("{first}{more}"));
        }
        seen.account()
    }

    /// Check 6: A whole game through the game runner, against three built-in random bots: no faults.
    async fn first_game(&mut self) -> Outcome {
        self.hand_over().await?;
        self.real_game(0, Rules::default(), "default rules").await
    }

    /// Check 7: A second game on the same connection, in another seat, under other rules.
    async fn second_game(&mut self) -> Outcome {
        let rules = Rules {
            discard: DiscardRule::KeepHighest,
            chant_second: ChantSecond::Partner,
            signals: SignalDelivery::Public,
            ..Rules::default()
        };
        self.real_game(
            3,
            rules,
            "same connection; discard keep-highest, chant-second partner, public signals",
        )
        .await
    }

    async fn real_game(&mut self, seat: usize, rules: Rules, what: &str) -> Outcome {
        self.game_no += 1;
        let game_no = self.game_no;
        let cfg = GameConfig {
            rules,
            seating_draw: false,
            clock: self.clock(),
            policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
        };
        let setup = GameSetup {
            game_no,
            match_seed: SEED_TAG,
            seed: game_seed(SEED_TAG, game_no),
            first_dealer: Seat::ALL[0],
            draw: None,
        };
        let mut rec = Recorder::create(None).map_err(|e| e.to_string())?;
        let (_trigger, shutdown) = shutdown::channel();
        let Some(bot) = self.bot.as_mut() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        let mut me = Some(bot);
        let mut others = self.opponents.iter_mut();
        let seats: [&mut Bot; 4] = std::array::from_fn(|i| {
            if i == seat { me.take() } else { others.next() }.expect("one bot per seat")
        });
        let summary = run_game(seats, &setup, &cfg, &mut rec, shutdown).await;
        let stats = &summary.stats[seat];
        self.note_time(Duration::from_micros(stats.max_us), format!("an answer in game {game_no}"));
        let faults: Vec<_> =
            summary.faults.iter().filter(|f| usize::from(f.seat) == seat).collect();
        if let Some(f) = faults.iter().find(|f| f.kind == FaultKind::Timeout) {
            self.timed_out.get_or_insert(format!("game {game_no}: {}", f.detail));
        }
        let alive = self.bot.as_ref().is_some_and(Bot::is_alive);
        let played = format!(
            "game {game_no} in seat {seat} ({what}) against three builtin:random bots: {} deals, \
             {} answers, final score {}-{}",
            summary.deals.len(),
            stats.answers,
            summary.score[0],
            summary.score[1]
        );
        let mut problems = Vec::new();
        if !faults.is_empty() {
            problems.push(format!(
                "expected no faults, got {}: {}",
                faults.len(),
                fault_list(&faults)
            ));
        }
        if !alive {
            // The runner stops a bot it replaced after too many strikes (a match restarts it
            // for the next game); any other end is the bot's own.
            let stopped = faults.iter().any(|f| {
                f.penalty == protocol::record::Penalty::Replaced && !policy::is_fatal(f.kind)
            });
            if stopped {
                let why = format!(
                    "the referee replaced the bot after {} strikes and stopped it",
                    cfg.policy.max_strikes
                );
                self.blocked = Some(format!("not checked: in game {game_no}, {why}"));
                problems.push(why);
            } else {
                problems.push(self.gone().await);
            }
        }
        if problems.is_empty() {
            Ok(format!("{played}, no faults"))
        } else {
            Err(format!("{played}; {}", problems.join("; ")))
        }
    }

    /// Check 8: `bye` and end of input: the bot exits with status 0 within 2 s.
    async fn bye(&mut self) -> Outcome {
        let Some(bot) = self.bot.take() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        let start = Instant::now();
        bot.close("check-bot is over", Duration::ZERO).await;
        let grace = BYE_GRACE.as_secs();
        match (self.process.take(), self.builtin.take()) {
            (Some(p), _) => match p.finish(BYE_GRACE).await {
                Some(status) if status.success() => Ok(format!(
                    "exited with status 0, {} ms after bye",
                    start.elapsed().as_millis()
                )),
                Some(status) => Err(format!(
                    "expected exit status 0 within {grace} s of bye, got {}",
                    process::describe_exit(status)
                )),
                None => Err(format!(
                    "expected the bot to exit within {grace} s of bye and end of input, but it \
                     was still running (it was killed)"
                )),
            },
            (None, Some(task)) => match tokio::time::timeout(BYE_GRACE, task).await {
                Ok(_) => Ok(format!(
                    "the built-in bot ended its conversation, {} ms after bye",
                    start.elapsed().as_millis()
                )),
                Err(_) => Err(format!("the built-in bot was still running {grace} s after bye")),
            },
            (None, None) => Err("the bot is not running".into()),
        }
    }

    /// Check 9: Every answer within `--answer-ms`; reports the slowest.
    async fn time(&mut self) -> Outcome {
        let limit = self.answer.as_millis();
        if let Some(t) = &self.timed_out {
            return Err(format!("expected every answer within {limit} ms: {t}"));
        }
        let Some((took, what)) = &self.slowest else {
            return Err("no answers were timed".into());
        };
        let shown = show_duration(*took);
        if *took > self.answer {
            Err(format!(
                "expected every answer within {limit} ms, the slowest took {shown} ({what}; a \
                 match would draw the excess from the bank)"
            ))
        } else {
            Ok(format!("slowest answer {shown} ({what}), limit {limit} ms"))
        }
    }
}

/// The play situations the checks look for, with the first answer seen in each.
#[derive(Debug, Default)]
struct Situations {
    leading: Option<String>,
    last_to_win: Option<String>,
    one_card: Option<String>,
    plays: usize,
}

/// Which situation a play question is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Situation {
    Leading,
    LastToWin,
    OneCard,
    Other,
}

impl Situation {
    fn name(self) -> &'static str {
        match self {
            Situation::Leading => "leading",
            Situation::LastToWin => "last to play with a trick to win",
            Situation::OneCard => "1 card left",
            Situation::Other => "play",
        }
    }
}

impl Situations {
    fn of(trick: u8, table: &[TableCard], hand: CardSet) -> Situation {
        let best = table.iter().map(|t| crate::convert::card(t.card).level()).min();
        if hand.len() == 1 {
            Situation::OneCard
        } else if table.is_empty() && trick == 1 {
            Situation::Leading
        } else if table.len() == 3 && best.is_some_and(|b| hand.iter().any(|c| c.level() < b)) {
            Situation::LastToWin
        } else {
            Situation::Other
        }
    }

    fn note(&mut self, situation: Situation, table: &[TableCard], hand: CardSet, card: Card) {
        self.plays += 1;
        let shown = |cards: &[TableCard]| {
            cards.iter().map(|t| t.card.as_str().to_string()).collect::<Vec<_>>().join(" ")
        };
        let slot = match situation {
            Situation::Leading => &mut self.leading,
            Situation::LastToWin => &mut self.last_to_win,
            Situation::OneCard => &mut self.one_card,
            Situation::Other => return,
        };
        slot.get_or_insert_with(|| match situation {
            Situation::LastToWin => {
                let best = table.iter().map(|t| crate::convert::card(t.card).level()).min();
                let wins = best.is_some_and(|b| card.level() < b);
                format!(
                    "{} (table {}, {} cards held): played {card}{}",
                    situation.name(),
                    shown(table),
                    hand.len(),
                    if wins { ", taking the trick" } else { "" }
                )
            }
            Situation::OneCard => format!("{} (trick 9): played {card}", situation.name()),
            _ => format!("{} ({} cards held): played {card}", situation.name(), hand.len()),
        });
    }

    fn account(&self) -> Outcome {
        let found = [&self.leading, &self.last_to_win, &self.one_card];
        let mut parts: Vec<String> = found.iter().filter_map(|s| s.as_ref().cloned()).collect();
        if found.iter().any(|s| s.is_none()) {
            // The decks are chosen so that each situation arises; this only guards that choice.
            return Err(format!("check-bot did not meet every situation: {}", parts.join("; ")));
        }
        parts.push(format!("{} play answers in 2 deals, all cards from the hand", self.plays));
        Ok(parts.join("; "))
    }
}

/// The first scripted deck (from `salt` on) that `fits`: fixed, so every run is the same.
fn scripted_deck(salt: u64, fits: impl Fn(&Deck) -> bool) -> Deck {
    (salt..salt + 10_000)
        .map(|n| Deck::shuffled(derive_seed(&[SEED_TAG, n])))
        .find(|d| fits(d))
        .unwrap_or_else(|| Deck::shuffled(derive_seed(&[SEED_TAG, salt])))
}

/// A raw line as quoted in details: at most [`RAW_MAX`] characters.
fn shorten(raw: &str) -> String {
    if raw.chars().count() <= RAW_MAX {
        raw.to_string()
    } else {
        format!("{}...", raw.chars().take(RAW_MAX).collect::<String>())
    }
}

fn show_duration(d: Duration) -> String {
    if d < Duration::from_millis(10) {
        format!("{:.2} ms", d.as_secs_f64() * 1000.0)
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Cards as a JSON list, as a bot would have sent them.
fn card_list(cards: &[CardCode]) -> String {
    serde_json::to_string(cards).unwrap_or_default()
}

fn card_set(cards: &[CardCode]) -> CardSet {
    cards.iter().map(|&c| crate::convert::card(c)).collect()
}

/// A line that is not an answer of the expected kind, explained.
fn wrong_kind(expected: &str, got: &Got) -> Refusal {
    match got {
        Got::Bad(error, raw) if raw.is_empty() => {
            (FaultKind::LineTooLong, format!("expected a {expected} answer, got {error}"))
        }
        Got::Bad(error, raw) => (
            FaultKind::Malformed,
            format!(
                "expected a {expected} answer, got a line that is not a valid answer ({error}); \
                 line: {}",
                shorten(raw)
            ),
        ),
        Got::Answer(msg, raw) => (
            FaultKind::WrongAnswer,
            format!(
                "expected a {expected} answer, got a {} answer; line: {}",
                msg.kind(),
                shorten(raw)
            ),
        ),
    }
}

/// Signals must be at most 8, of the vocabulary, and true for `hand` (the default rules are
/// `signals=partner`, `signal-truth=truthful`).
fn judge_signals(signals: &[String], hand: CardSet, line: &str) -> Result<(), Refusal> {
    check_signals(signals, hand).map_err(|e| (FaultKind::BadSignal, format!("{e}; line: {line}")))
}

fn check_signals(signals: &[String], hand: CardSet) -> Result<(), String> {
    if signals.len() > crate::game_runner::MAX_SIGNALS {
        return Err(format!(
            "expected at most {} signals, got {}",
            crate::game_runner::MAX_SIGNALS,
            signals.len()
        ));
    }
    for word in signals {
        let signal = word
            .parse::<Signal>()
            .map_err(|e| format!("expected signals of the vocabulary, got {word:?}: {e}"))?;
        if !signal.is_true_for(hand) {
            return Err(format!(
                "expected true signals (signal-truth=truthful), got {word:?}, false for the hand {}",
                card_list(&codes(hand))
            ));
        }
    }
    Ok(())
}

fn show_signals(signals: &[String]) -> String {
    if signals.is_empty() {
        String::new()
    } else {
        format!(", signals {} (true)", serde_json::to_string(signals).unwrap_or_default())
    }
}

fn judge_opening(got: &Got, vote: bool, hand: CardSet) -> Result<(Option<bool>, String), Refusal> {
    let Got::Answer(FromBot::Opening { accept, signals, .. }, raw) = got else {
        return Err(wrong_kind("opening", got));
    };
    let line = shorten(raw);
    match (vote, accept) {
        (true, None) => {
            return Err((
                FaultKind::WrongAnswer,
                format!(
                    "the question asked for a chant vote: expected an \"accept\" field, got \
                     none; line: {line}"
                ),
            ));
        }
        (false, Some(a)) => {
            return Err((
                FaultKind::WrongAnswer,
                format!(
                    "no chant vote was asked: expected no \"accept\" field, got \"accept\":{a}; \
                     line: {line}"
                ),
            ));
        }
        _ => {}
    }
    judge_signals(signals, hand, &line)?;
    let vote_text = match accept {
        Some(a) => format!("\"accept\":{a}"),
        None => "no \"accept\"".to_string(),
    };
    Ok((*accept, format!("answered with {vote_text}{}", show_signals(signals))))
}

fn judge_discard(got: &Got, hand: CardSet, keep_highest: bool) -> Result<String, Refusal> {
    let Got::Answer(FromBot::Discard { cards, signals, .. }, raw) = got else {
        return Err(wrong_kind("discard", got));
    };
    let line = shorten(raw);
    let set = card_set(cards);
    let not_held: Vec<CardCode> =
        cards.iter().copied().filter(|&c| !hand.contains(crate::convert::card(c))).collect();
    if cards.len() != 6 || set.len() != 6 || !not_held.is_empty() {
        let why = if !not_held.is_empty() {
            format!(" ({} not in the hand)", card_list(&not_held))
        } else {
            String::new()
        };
        return Err((
            FaultKind::WrongDiscard,
            format!(
                "expected 6 distinct cards from the hand, got {}{why}; line: {line}",
                card_list(cards)
            ),
        ));
    }
    if keep_highest {
        let kept = hand.difference(set);
        let strongest_out = set.iter().min_by_key(|c| c.level());
        let weakest_in = kept.iter().max_by_key(|c| c.level());
        if let (Some(out), Some(kept)) = (strongest_out, weakest_in)
            && out.beats(kept)
        {
            return Err((
                FaultKind::WrongDiscard,
                format!(
                    "expected the 6 weakest cards under keep-highest (no discarded card \
                     stronger than a kept one), got {}: {out} is discarded but {kept} is kept; \
                     line: {line}",
                    card_list(cards)
                ),
            ));
        }
    }
    judge_signals(signals, hand, &line)?;
    Ok(format!("discarded {}{}", card_list(cards), show_signals(signals)))
}

fn judge_play(got: &Got, hand: CardSet) -> Result<Card, Refusal> {
    let Got::Answer(FromBot::Play { card, signals, .. }, raw) = got else {
        return Err(wrong_kind("play", got));
    };
    let line = shorten(raw);
    let held = crate::convert::card(*card);
    if !hand.contains(held) {
        return Err((
            FaultKind::IllegalCard,
            format!(
                "expected a card from the hand {}, got {:?}; line: {line}",
                card_list(&codes(hand)),
                card.as_str()
            ),
        ));
    }
    judge_signals(signals, hand, &line)?;
    Ok(held)
}

/// Faults of the checked seat, for people: kind, where, what, and the line.
fn fault_list(faults: &[&protocol::record::FaultRecord]) -> String {
    let mut parts: Vec<String> = faults
        .iter()
        .take(5)
        .map(|f| {
            let at = match (f.deal, f.trick) {
                (Some(d), Some(t)) => format!(" in deal {d}, trick {t}"),
                (Some(d), None) => format!(" in deal {d}"),
                _ => String::new(),
            };
            let line = f
                .raw_bytes()
                .map(|r| format!("; line: {}", shorten(&String::from_utf8_lossy(r))))
                .unwrap_or_default();
            format!("{}{at}: {}{line}", f.kind.as_str(), f.detail)
        })
        .collect();
    if faults.len() > 5 {
        parts.push(format!("and {} more", faults.len() - 5));
    }
    if parts.is_empty() { "none recorded".into() } else { parts.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Got {
        match decode_line::<FromBot>(line.as_bytes()) {
            Ok(m) => Got::Answer(m, line.into()),
            Err(e) => Got::Bad(e.to_string(), line.into()),
        }
    }

    fn set(codes: &str) -> CardSet {
        codes.split_whitespace().map(|c| c.parse::<Card>().unwrap()).collect()
    }

    #[test]
    fn openings_need_accept_exactly_when_asked() {
        let hand = set("3o Ac Ab 5s 6s 7s 8s 9s Js");
        let ok =
            answer(r#"{"type":"opening","id":2,"accept":true,"signals":["monsieur","aces:2"]}"#);
        assert!(judge_opening(&ok, true, hand).is_ok());
        let e = judge_opening(&ok, false, hand).unwrap_err().1;
        assert!(e.contains("expected no \"accept\" field"), "{e}");
        let none = answer(r#"{"type":"opening","id":2}"#);
        assert!(judge_opening(&none, true, hand).unwrap_err().1.contains("expected an \"accept\""));
        let lie = answer(r#"{"type":"opening","id":2,"signals":["madame"]}"#);
        assert!(judge_opening(&lie, false, hand).unwrap_err().1.contains("\"madame\""));
        let word = answer(r#"{"type":"opening","id":2,"signals":["tea"]}"#);
        assert!(judge_opening(&word, false, hand).unwrap_err().1.contains("vocabulary"));
    }

    #[test]
    fn discards_are_six_distinct_held_cards_and_obey_keep_highest() {
        let hand = set("3o 3c 2o 2c 9c 9o 2b 2s Ao Ac 4b 5s 6c 7o 8b");
        let five = answer(r#"{"type":"discard","id":3,"cards":["4b","4b","5s","6c","7o"]}"#);
        let e = judge_discard(&five, hand, false).unwrap_err().1;
        assert!(e.starts_with(r#"expected 6 distinct cards from the hand, got ["4b","4b""#), "{e}");
        let weakest =
            answer(r#"{"type":"discard","id":3,"cards":["4b","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&weakest, hand, true).is_ok());
        let strong = answer(r#"{"type":"discard","id":3,"cards":["3o","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&strong, hand, false).is_ok());
        let e = judge_discard(&strong, hand, true).unwrap_err().1;
        assert!(e.contains("3o is discarded but 4b is kept"), "{e}");
        let foreign =
            answer(r#"{"type":"discard","id":3,"cards":["Kb","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&foreign, hand, false).unwrap_err().1.contains("not in the hand"));
    }

    #[test]
    fn plays_are_held_cards() {
        let hand = set("3o 5s");
        assert!(judge_play(&answer(r#"{"type":"play","id":4,"card":"5s"}"#), hand).is_ok());
        let e = judge_play(&answer(r#"{"type":"play","id":4,"card":"Kc"}"#), hand).unwrap_err().1;
        assert!(e.starts_with(r#"expected a card from the hand ["3o","5s"], got "Kc""#), "{e}");
        let e = judge_play(&answer(r#"{"type":"discard","id":4,"cards":[]}"#), hand).unwrap_err().1;
        assert!(e.contains("got a discard answer"), "{e}");
        let e = judge_play(&answer("not json"), hand).unwrap_err().1;
        assert!(e.contains("not a valid answer") && e.contains("line: not json"), "{e}");
    }

    #[test]
    fn long_lines_are_cut() {
        let long = "x".repeat(500);
        assert_eq!(shorten(&long).chars().count(), RAW_MAX + 3);
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn unknown_fields_are_spliced_into_the_line() {
        let line = with_extra(&ToBot::Chant { taken: true }, "x", "[1]");
        assert_eq!(line, "{\"type\":\"chant\",\"taken\":true,\"x\":[1]}\n");
    }

    #[test]
    fn scripted_decks_fit() {
        let deck = scripted_deck(60, |d| d.hands(Seat::ALL[1])[1].contains(Card::MONSIEUR));
        assert!(deck.hands(Seat::ALL[1])[1].contains(Card::MONSIEUR));
    }
}
