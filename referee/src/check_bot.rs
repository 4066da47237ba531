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

use crate::bot::ask::{self, Heard, IgnoredLines, Peer};
use crate::bot::builtin::{self, Builtin};
use crate::bot::conn::LineConn;
use crate::bot::process::{self, BotProcess, Limits, SpawnSpec};
use crate::bot::{Bot, BotSpec, ConnectConfig, Identity};
use crate::convert::{code, codes, rules_wire, seat_no, table_card};
use crate::fault::Fault;
use crate::game_runner::{GameConfig, GameSetup, game_seed, run_game, votes_cast};
use crate::judge::{self, Refusal};
use crate::policy::{self, OnFault, Policy};
use crate::record_io::Recorder;
use crate::shutdown;
use crate::text;
use protocol::codec::encode_line;
use protocol::msg::{Clock, FromBot, SeatNo, TableCard, ToBot};
use protocol::record::{FaultKind, Penalty};
use protocol::{CardCode, FEATURES, PROTOCOL_VERSION};
use rules::{
    Action, Card, CardSet, ChantSecond, Deck, DiscardRule, Event, Game, IllegalAction, MatchLength,
    Rules, Seat, SignalDelivery, Turn, derive_seed,
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

    /// Why the bot's output ended, found as the referee finds it.
    async fn ended(&mut self) -> Fault {
        ask::ended(self.process.as_mut(), false, 0).await
    }

    /// Notes that the bot is gone, for the reason `fault` gives; later checks fail with it.
    fn gone(&mut self, fault: &Fault) -> String {
        self.wire = None;
        let why = format!("the bot is no longer running ({})", fault.detail);
        self.blocked = Some(why.clone());
        why
    }

    fn queue(&mut self, msg: &ToBot) {
        if let Some(w) = self.wire.as_mut() {
            w.queue(msg);
        }
    }

    /// Sends the queued notices and the question `build(id)`, and waits for the line that
    /// answers it: the first with its id, or the first that is not a valid bot message, heard as
    /// the referee hears it (lines with other ids are skipped). `Err` means the conversation is
    /// over: the bot died or stalled, and later checks are blocked.
    async fn ask(
        &mut self,
        label: &str,
        build: impl FnOnce(u64) -> ToBot,
        extra: Option<(&str, &str)>,
    ) -> Result<Got, String> {
        let id = self.next_id;
        self.next_id += 1;
        let question = build(id);
        let hello = matches!(question, ToBot::Hello { .. });
        let limit = if hello { self.handshake_limit } else { self.limit() };
        let Some(wire) = self.wire.as_mut() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        match extra {
            Some((field, value)) => {
                wire.queue_bytes(with_extra(&question, field, value).as_bytes())
            }
            None => wire.queue(&question),
        }
        let asked = Instant::now();
        let mut skipped = IgnoredLines::default();
        let peer = Peer { conn: wire, process: self.process.as_mut(), tcp: false };
        let (got, took) = match ask::ask(peer, id, limit, &mut skipped).await {
            Heard::Answer(msg, took, raw) => (Got::Answer(msg, raw), took),
            Heard::Malformed(e, line) => {
                let raw = String::from_utf8_lossy(&line).into_owned();
                (Got::Bad(e.to_string(), raw), asked.elapsed())
            }
            Heard::Fault(f) if f.kind == FaultKind::LineTooLong => {
                (Got::Bad(f.detail, String::new()), asked.elapsed())
            }
            Heard::Fault(_) => {
                let mut why =
                    format!("no answer to the {label} (id {id}) within {} ms", limit.as_millis());
                if skipped.count() > 0 {
                    why.push_str(&format!(
                        "; lines with other ids were skipped: {}",
                        stray_lines(&skipped).join(" ")
                    ));
                }
                self.timed_out.get_or_insert(why.clone());
                self.blocked = Some(format!("the bot stopped answering: {why}"));
                return Err(why);
            }
            Heard::Gone(f) if f.kind == FaultKind::Timeout => {
                let why = format!("the bot stopped reading its input before the {label}");
                self.blocked = Some(why.clone());
                return Err(why);
            }
            Heard::Gone(f) => {
                let why = self.gone(&f);
                return Err(format!("expected an answer to the {label} (id {id}), but {why}"));
            }
        };
        self.stray_count += skipped.count();
        let room = 3usize.saturating_sub(self.stray.len());
        self.stray.extend(stray_lines(&skipped).into_iter().take(room));
        if !hello {
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
        if let Err(e) = wire.flush(Instant::now() + self.limit()).await {
            let fault = ask::write_failed(self.process.as_mut(), false, e).await;
            return Err(self.gone(&fault));
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
    fn end_early(&mut self, refused: Option<(u64, Fault)>) {
        let bot_team = SEAT % 2;
        let forfeit = if let Some((id, fault)) = refused {
            self.refused(id, fault, Penalty::Forfeit, "");
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

    /// Tells the bot that its answer to question `id` was refused, and what the referee did
    /// about it (`done`, as in a match).
    fn refused(&mut self, id: u64, fault: Fault, penalty: Penalty, done: &str) {
        self.queue(&ToBot::Error {
            id: Some(id),
            fault: fault.kind.as_str().into(),
            message: fault.detail,
            action: policy::action_text(penalty, done),
        });
    }

    /// Asks the bot's opening question in `game` and judges the answer: `Ok` with the vote (if
    /// any) and a short account, `Err` with what was expected and what came back.
    async fn ask_opening(
        &mut self,
        game: &Game,
        extra: Option<(&str, &str)>,
    ) -> Result<Judged<(Option<bool>, String)>, String> {
        let me = Seat::ALL[usize::from(SEAT)];
        let view = game.view(me);
        let vote = judge::vote_asked(game, me);
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let label = if vote { "opening question (vote asked)" } else { "opening question" };
        let got = self
            .ask(
                label,
                |id| ToBot::Opening {
                    id,
                    deal: view.deal,
                    dealer: seat_no(view.dealer),
                    vote,
                    votes: votes_cast(&view),
                    hand: codes(view.hand),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                extra,
            )
            .await?;
        Ok(judge_opening(&got, game, me).map_err(|e| (id, e)))
    }

    /// Asks the bot's discard question in `game` and judges the answer.
    async fn ask_discard(&mut self, game: &Game) -> Result<Judged<String>, String> {
        let me = Seat::ALL[usize::from(SEAT)];
        let view = game.view(me);
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let got = self
            .ask(
                "discard question",
                |id| ToBot::Discard {
                    id,
                    deal: view.deal,
                    hand: codes(view.hand),
                    received: codes(view.received),
                    rule: crate::convert::discard_rule(game.rules().discard),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                None,
            )
            .await?;
        Ok(judge_discard(&got, game, me).map_err(|e| (id, e)))
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
        if let Err((id, fault)) = self.ask_opening(&game, None).await? {
            self.refused(id, fault, Penalty::Fallback, policy::opening_done(false));
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
                // As in a match: a refused signal leaves the card standing (it is dropped); any
                // other refusal is answered by the fallback.
                let (card, refused) = match judge_play(&got, &game, me) {
                    Ok((card, Ok(()))) => {
                        seen.note(situation, &table, view.hand, card);
                        (card, None)
                    }
                    Ok((card, Err(signal))) => (
                        card,
                        Some((signal, Penalty::SignalDropped, policy::SIGNAL_DROPPED.into())),
                    ),
                    Err(fault) => (
                        fallback,
                        Some((fault, Penalty::Fallback, policy::play_done(Some(fallback)))),
                    ),
                };
                if let Some((fault, penalty, done)) = refused {
                    faults.push(format!(
                        "{} (trick {}): {}",
                        situation.name(),
                        view.trick,
                        fault.detail
                    ));
                    self.refused(id, fault, penalty, &done);
                }
                card
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
            other => Err(wrong_kind("hello", other).detail),
        };
        self.blocked = Some("not checked: no valid handshake".into());
        judged
    }

    /// Check 2: A `game` with an unknown field, a line of an unknown type, then a `deal` and an
    /// `opening` question with unknown fields: the question must still be answered correctly.
    async fn unknown_fields(&mut self) -> Outcome {
        let rules = Rules::default();
        let msg = self.game_message(&rules);
        let (deck, dealer) = (scripted_deck(1, |_| true), Seat::ALL[0]);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let game = dealt(rules, dealer, &deck)?;
        if let Some(w) = self.wire.as_mut() {
            w.queue_bytes(with_extra(&msg, "x_future", r#"{"nested":[1,"two",null]}"#).as_bytes());
            w.queue_bytes(b"{\"type\":\"tea_time\",\"cup\":1}\n");
            let deal = ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) };
            w.queue_bytes(with_extra(&deal, "x_cut", "17").as_bytes());
        }
        let sent = "a game with an unknown field, a {\"type\":\"tea_time\",\"cup\":1} line, \
                    and a deal and an opening question with unknown fields";
        match self.ask_opening(&game, Some(("x_hint", "\"ignore me\""))).await {
            Err(e) => Err(format!("after {sent}: {e}")),
            Ok(Err((id, fault))) => {
                let e = fault.detail.clone();
                self.end_early(Some((id, fault)));
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
        let deck = scripted_deck(2, |_| true);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let mut game = dealt(Rules::default(), dealer, &deck)?;
        act(&mut game, 0, Action::Vote(true))?;
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 0, accept: true });
        match self.ask_opening(&game, None).await? {
            Ok((accept, account)) => {
                accounts.push(format!("vote asked: {account}"));
                self.after_vote(accept.unwrap_or(false));
                self.end_early(None);
            }
            Err((id, fault)) => {
                failures.push(format!("vote asked (\"vote\":true): {}", fault.detail));
                self.end_early(Some((id, fault)));
            }
        }
        // No vote asked: seat 2 (the dealer's left) refused, so the chant is already decided.
        let msg = self.game_message(&Rules::default());
        self.queue(&msg);
        let dealer = Seat::ALL[1];
        let deck = scripted_deck(3, |_| true);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let mut game = dealt(Rules::default(), dealer, &deck)?;
        act(&mut game, 2, Action::Vote(false))?;
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 2, accept: false });
        self.queue(&ToBot::Chant { taken: false });
        match self.ask_opening(&game, None).await? {
            Ok((_, account)) => {
                accounts.push(format!("no vote asked: {account}"));
                self.end_early(None);
            }
            Err((id, fault)) => {
                failures.push(format!("no vote asked (\"vote\":false): {}", fault.detail));
                self.end_early(Some((id, fault)));
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
            let mut game = dealt(rules, dealer, &deck)?;
            self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
            let accept = match self.ask_opening(&game, None).await? {
                Ok((accept, _)) => accept.unwrap_or(false),
                Err((id, fault)) => {
                    let e = format!("the opening answer before the discard: {}", fault.detail);
                    self.end_early(Some((id, fault)));
                    return Ok(Err(e));
                }
            };
            if !accept {
                self.after_vote(false);
                self.end_early(None);
                continue;
            }
            for seat in [SEAT, 2, 3, 0] {
                act(&mut game, seat, Action::Vote(true))?;
                self.queue(&ToBot::Vote { seat, accept: true });
            }
            self.queue(&ToBot::Chant { taken: true });
            // The dealer's left, first to receive, discards first (rules.md 5.2).
            let judged = self.ask_discard(&game).await?;
            return Ok(match judged {
                Ok(account) => {
                    self.end_early(None);
                    Ok(account)
                }
                Err((id, fault)) => {
                    let e = fault.detail.clone();
                    self.end_early(Some((id, fault)));
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
                let fault = self.ended().await;
                problems.push(self.gone(&fault));
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

/// The skipped lines that were kept, shortened, for a detail.
fn stray_lines(lines: &IgnoredLines) -> Vec<String> {
    let raw = |f: &Fault| shorten(&String::from_utf8_lossy(f.raw.as_deref().unwrap_or_default()));
    lines.kept.iter().map(raw).collect()
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

/// check-bot's own scripted game: `rules`, dealt by `dealer` from `deck`.
fn dealt(rules: Rules, dealer: Seat, deck: &Deck) -> Result<Game, String> {
    let mut game = Game::new(rules, dealer);
    game.deal(deck).map_err(|e| format!("check-bot's own deal failed: {e}"))?;
    Ok(game)
}

/// Applies a scripted action to check-bot's own game, so that the game the answers are judged
/// in is the conversation's.
fn act(game: &mut Game, seat: SeatNo, action: Action) -> Result<(), String> {
    let seat = Seat::ALL[usize::from(seat)];
    game.apply(seat, action).map_err(|e| format!("check-bot's own {action:?} failed: {e}"))?;
    Ok(())
}

/// A line that is not an answer of the expected kind, explained.
fn wrong_kind(expected: &'static str, got: &Got) -> Fault {
    match got {
        Got::Bad(error, raw) if raw.is_empty() => {
            Fault::new(FaultKind::LineTooLong, format!("expected a {expected} answer, got {error}"))
        }
        Got::Bad(error, raw) => Fault::new(
            FaultKind::Malformed,
            format!(
                "expected a {expected} answer, got a line that is not a valid answer ({error}); \
                 line: {}",
                shorten(raw)
            ),
        ),
        Got::Answer(msg, raw) => {
            explain(&Refusal::WrongType { expected, got: msg.kind() }, msg, CardSet::EMPTY, raw)
        }
    }
}

/// An answer the judge refused, explained to the bot's author: what was expected, what came
/// back, and the line (`raw`). `hand` is the bot's hand when it was asked.
fn explain(refusal: &Refusal, msg: &FromBot, hand: CardSet, raw: &str) -> Fault {
    let cards = match msg {
        FromBot::Discard { cards, .. } => cards.as_slice(),
        _ => &[],
    };
    let hand_list = || card_list(&codes(hand));
    let said = match refusal {
        Refusal::WrongType { expected, got } => {
            format!("expected a {expected} answer, got a {got} answer")
        }
        Refusal::VoteMissing => "the question asked for a chant vote: expected an \"accept\" \
                                 field, got none"
            .into(),
        Refusal::VoteUnasked(a) => {
            format!("no chant vote was asked: expected no \"accept\" field, got \"accept\":{a}")
        }
        Refusal::CardTwice
        | Refusal::Discard(IllegalAction::DiscardCount(_) | IllegalAction::DiscardNotHeld(_)) => {
            let not_held: Vec<CardCode> = cards
                .iter()
                .copied()
                .filter(|&c| !hand.contains(crate::convert::card(c)))
                .collect();
            let why = if not_held.is_empty() {
                String::new()
            } else {
                format!(" ({} not in the hand)", card_list(&not_held))
            };
            format!("expected 6 distinct cards from the hand, got {}{why}", card_list(cards))
        }
        Refusal::Discard(IllegalAction::DiscardKeepsWeaker { discarded, kept }) => format!(
            "expected the 6 weakest cards under keep-highest (no discarded card stronger than a \
             kept one), got {}: {discarded} is discarded but {kept} is kept",
            card_list(cards)
        ),
        Refusal::NotHeld(card) => {
            format!("expected a card from the hand {}, got {:?}", hand_list(), card.as_str())
        }
        Refusal::TooManySignals(n) => {
            format!("expected at most {} signals, got {n}", judge::MAX_SIGNALS)
        }
        Refusal::UnknownSignal { word, error } => {
            format!("expected signals of the vocabulary, got {word:?}: {error}")
        }
        Refusal::Signal { word, error: error @ IllegalAction::InvalidSignal(_) } => {
            format!("expected signals of the vocabulary, got {word:?}: {error}")
        }
        Refusal::Signal { word, error: IllegalAction::FalseSignal(_) } => format!(
            "expected true signals (signal-truth=truthful), got {word:?}, false for the hand {}",
            hand_list()
        ),
        other => format!("expected an answer the rules accept, got one they refuse: {other}"),
    };
    Fault::new(refusal.kind(), format!("{said}; line: {}", shorten(raw)))
}

/// The signals of an answer, judged in turn as the referee judges them.
fn judge_signals(game: &Game, seat: Seat, msg: &FromBot, raw: &str) -> Result<(), Fault> {
    let words = msg.signals();
    judge::signal_count(words)
        .and_then(|()| words.iter().try_for_each(|w| judge::signal(game, seat, w).map(drop)))
        .map_err(|r| explain(&r, msg, game.hand(seat), raw))
}

fn show_signals(signals: &[String]) -> String {
    if signals.is_empty() {
        String::new()
    } else {
        format!(", signals {} (true)", serde_json::to_string(signals).unwrap_or_default())
    }
}

/// `seat`'s answer to its opening question in `game`: the vote (if any) and an account.
fn judge_opening(got: &Got, game: &Game, seat: Seat) -> Result<(Option<bool>, String), Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("opening", got));
    };
    let accept =
        judge::opening(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    judge_signals(game, seat, msg, raw)?;
    let vote_text = match accept {
        Some(a) => format!("\"accept\":{a}"),
        None => "no \"accept\"".to_string(),
    };
    Ok((accept, format!("answered with {vote_text}{}", show_signals(msg.signals()))))
}

/// `seat`'s answer to its discard question in `game`: an account.
fn judge_discard(got: &Got, game: &Game, seat: Seat) -> Result<String, Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("discard", got));
    };
    let cards =
        judge::discard(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    judge_signals(game, seat, msg, raw)?;
    debug_assert_eq!(cards.len(), 6);
    let listed = if let FromBot::Discard { cards, .. } = msg { cards.as_slice() } else { &[] };
    Ok(format!("discarded {}{}", card_list(listed), show_signals(msg.signals())))
}

/// `seat`'s answer to its play question in `game`: the card, and whether its signals were
/// refused (the card stands then, as in a match).
fn judge_play(got: &Got, game: &Game, seat: Seat) -> Result<(Card, Result<(), Fault>), Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("play", got));
    };
    let card = judge::play(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    Ok((card, judge_signals(game, seat, msg, raw)))
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
    use protocol::codec::decode_line;

    fn answer(line: &str) -> Got {
        match decode_line::<FromBot>(line.as_bytes()) {
            Ok(m) => Got::Answer(m, line.into()),
            Err(e) => Got::Bad(e.to_string(), line.into()),
        }
    }

    fn set(codes: &str) -> CardSet {
        codes.split_whitespace().map(|c| c.parse::<Card>().unwrap()).collect()
    }

    /// The checked seat, on the dealer's left: it votes, receives and leads first.
    const ME: Seat = Seat::ALL[SEAT as usize];

    /// A game of `rules` dealt by seat 0 where the checked seat holds `hand` and would receive
    /// `received` if the chant is taken.
    fn holding(rules: Rules, hand: CardSet, received: CardSet) -> Game {
        let dealer = Seat::ALL[0];
        let mut order: [Option<Card>; 48] = [None; 48];
        let mine = (0..12).filter(|p| dealer.plus(1 + (p % 4) as u8) == ME);
        for (slot, card) in mine.flat_map(|p| p * 3..p * 3 + 3).zip(hand.iter()) {
            order[slot] = Some(card);
        }
        for (slot, card) in (36..48).step_by(2).zip(received.iter()) {
            order[slot] = Some(card);
        }
        let mut rest = Card::all().filter(|c| !hand.union(received).contains(*c));
        let cards: Vec<Card> = order.iter().map(|c| c.or_else(|| rest.next()).unwrap()).collect();
        let game = dealt(rules, dealer, &Deck::from_cards(&cards).unwrap()).unwrap();
        assert_eq!(game.hand(ME), hand);
        game
    }

    /// The same game with the chant taken, the checked seat to discard.
    fn discarding(rule: DiscardRule, hand: CardSet, received: CardSet) -> Game {
        let mut game = holding(Rules { discard: rule, ..Rules::default() }, hand, received);
        for seat in [SEAT, 2, 3, 0] {
            act(&mut game, seat, Action::Vote(true)).unwrap();
        }
        assert_eq!(game.to_act(), Some(Turn::Discard(ME)));
        game
    }

    #[test]
    fn openings_need_accept_exactly_when_asked() {
        let hand = set("3o Ac Ab 5s 6s 7s 8s 9s Js");
        let voting = holding(Rules::default(), hand, CardSet::EMPTY);
        let silent = holding(Rules { chant: false, ..Rules::default() }, hand, CardSet::EMPTY);
        let ok =
            answer(r#"{"type":"opening","id":2,"accept":true,"signals":["monsieur","aces:2"]}"#);
        assert!(judge_opening(&ok, &voting, ME).is_ok());
        let e = judge_opening(&ok, &silent, ME).unwrap_err();
        assert_eq!(e.kind, FaultKind::WrongAnswer);
        assert!(e.detail.contains("expected no \"accept\" field"), "{}", e.detail);
        let none = answer(r#"{"type":"opening","id":2}"#);
        let e = judge_opening(&none, &voting, ME).unwrap_err();
        assert!(e.detail.contains("expected an \"accept\""), "{}", e.detail);
        let lie = answer(r#"{"type":"opening","id":2,"signals":["madame"]}"#);
        let e = judge_opening(&lie, &silent, ME).unwrap_err();
        assert_eq!(e.kind, FaultKind::BadSignal);
        assert!(e.detail.contains("\"madame\""), "{}", e.detail);
        let word = answer(r#"{"type":"opening","id":2,"signals":["tea"]}"#);
        assert!(judge_opening(&word, &silent, ME).unwrap_err().detail.contains("vocabulary"));
    }

    #[test]
    fn discards_are_six_distinct_held_cards_and_obey_keep_highest() {
        let (dealt_hand, received) = (set("3o 3c 2o 2c 9c 9o 2b 2s Ao"), set("Ac 4b 5s 6c 7o 8b"));
        let free = discarding(DiscardRule::Free, dealt_hand, received);
        let keep = discarding(DiscardRule::KeepHighest, dealt_hand, received);
        assert_eq!(free.hand(ME), set("3o 3c 2o 2c 9c 9o 2b 2s Ao Ac 4b 5s 6c 7o 8b"));
        let five = answer(r#"{"type":"discard","id":3,"cards":["4b","4b","5s","6c","7o"]}"#);
        let e = judge_discard(&five, &free, ME).unwrap_err();
        assert_eq!(e.kind, FaultKind::WrongDiscard);
        assert!(
            e.detail.starts_with(r#"expected 6 distinct cards from the hand, got ["4b","4b""#),
            "{}",
            e.detail
        );
        let weakest =
            answer(r#"{"type":"discard","id":3,"cards":["4b","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&weakest, &keep, ME).is_ok());
        let strong = answer(r#"{"type":"discard","id":3,"cards":["3o","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&strong, &free, ME).is_ok());
        let e = judge_discard(&strong, &keep, ME).unwrap_err().detail;
        assert!(e.contains("3o is discarded but 4b is kept"), "{e}");
        let foreign =
            answer(r#"{"type":"discard","id":3,"cards":["Kb","5s","6c","7o","8b","Ao"]}"#);
        assert!(judge_discard(&foreign, &free, ME).unwrap_err().detail.contains("not in the hand"));
    }

    #[test]
    fn plays_are_held_cards() {
        let hand = set("3o 4o 5o 2c 3c 5s 6s 7s 8s");
        let game = holding(Rules { chant: false, ..Rules::default() }, hand, CardSet::EMPTY);
        assert_eq!(game.to_act(), Some(Turn::Play(ME)));
        let play = |line: &str| judge_play(&answer(line), &game, ME);
        let (card, signals) = play(r#"{"type":"play","id":4,"card":"5s"}"#).unwrap();
        assert_eq!((card, signals), (set("5s").iter().next().unwrap(), Ok(())));
        let e = play(r#"{"type":"play","id":4,"card":"Kc"}"#).unwrap_err();
        assert_eq!(e.kind, FaultKind::IllegalCard);
        let expected = r#"expected a card from the hand ["3o","4o","5o","2c","3c","5s","6s","7s","8s"], got "Kc""#;
        assert!(e.detail.starts_with(expected), "{}", e.detail);
        let e = play(r#"{"type":"discard","id":4,"cards":[]}"#).unwrap_err();
        assert!(e.detail.contains("got a discard answer"), "{}", e.detail);
        let e = play("not json").unwrap_err().detail;
        assert!(e.contains("not a valid answer") && e.contains("line: not json"), "{e}");
        // A refused signal leaves the card standing, as in a match.
        let (card, signals) =
            play(r#"{"type":"play","id":4,"card":"5s","signals":["aces:2"]}"#).unwrap();
        assert_eq!(card, set("5s").iter().next().unwrap());
        assert_eq!(signals.unwrap_err().kind, FaultKind::BadSignal);
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
