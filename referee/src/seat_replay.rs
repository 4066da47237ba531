//! `referee replay FILE --seat S [--bot CMD [--until DEAL[.TRICK]]]`: one seat's conversation,
//! re-derived from a record, and a real bot re-driven with it.
//!
//! A record stores facts (decks, answers as received, think times, faults), not the bytes each
//! bot was sent. Rather than re-implement how the referee talks, the recorded game is played
//! again through the real [`run_game_with_decks`], with the record's own decks, against four
//! in-memory playback bots that send what the record says each seat sent, on tokio's paused
//! clock: the very same code produces the very same bytes, and every answer arrives after exactly
//! its recorded think time, so the banks and `bank_ms` of later questions come out the same too.
//! The re-run writes no record, but its result and statistics must equal the record's footer: a
//! re-run that drifts from the record is an error, never a silently wrong conversation.
//!
//! With `--bot`, the seat's re-derived conversation is fed to a real bot program (started by
//! the process module, like any bot), and each of its answers is compared with the recorded
//! one; the recorded conversation goes on whatever the bot says, so the rest of the game stays
//! the recorded one. `--until` stops before one question, leaving the bot running for a
//! debugger.

use crate::bot::ask::{self, Heard, IgnoredLines, Peer};
use crate::bot::conn::LineConn;
use crate::bot::process::{self, Limits, SpawnSpec};
use crate::bot::{Bot, BotSpec, ConnectConfig, Identity};
use crate::convert;
use crate::fault::Fault;
use crate::game_runner::{GameConfig, GameSetup, GameSummary, Status, run_game_with_decks};
use crate::policy::{self, Policy};
use crate::record_io::Recorder;
use crate::replay::{self, ReplayError};
use crate::shutdown::{self, Trigger};
use protocol::codec::decode_line;
use protocol::msg::{FromBot, ToBot};
use protocol::record::{
    FaultKind, FaultRecord, Footer, GameStatus, Header, Penalty, RecordLine, SeatInfo,
};
use serde_json::Value;
use std::future::Future;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::time::Instant;

/// A line on stdout; a reader that went away (`| head`) is no reason to stop a re-drive half
/// way and leave the bot behind.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // What is said quotes bot lines and names: its own line breaks stay, nothing acts.
        let _ = writeln!(std::io::stdout(), "{}", crate::text::printable(&format!($($arg)*)));
    }};
}

/// Room in each in-memory connection: far more than one batch of notices and a question, so
/// the referee never waits on a playback bot's reading.
const PIPE_BYTES: usize = 1 << 20;
/// Time a re-driven bot gets beyond the question's own limit: people debug.
const MARGIN: Duration = Duration::from_secs(10);

/// Whose conversation `replay --seat` shows, from which record, and which bot it re-drives.
#[derive(Debug)]
pub(crate) struct SeatReplayConfig {
    pub(crate) file: PathBuf,
    /// 0 to 3.
    pub(crate) seat: usize,
    /// The program to re-drive (`--bot`), as its argv.
    pub(crate) bot: Option<Vec<String>>,
    pub(crate) until: Option<Until>,
}

pub(crate) fn run(args: SeatReplayConfig) -> Result<(), String> {
    let SeatReplayConfig { file, seat, bot: argv, until } = args;
    let (game, conv) = rederive(&file, seat)?;
    let name = crate::text::Shown(&game.header.seats[seat].name);
    match argv {
        None => {
            print_conversation(&conv);
            eprintln!(
                "seat {seat} ({name}), game {}: {} lines re-derived from the record{}{}",
                game.header.game,
                conv.lines.len(),
                game.end.note(),
                conv.note
            );
            Ok(())
        }
        Some(argv) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            rt.block_on(redrive(&game, seat, &conv, argv, until))
        }
    }
}

/// Seat `seat`'s conversation in the recorded game at `path`, re-derived by playing the game
/// again on a paused clock, with the record it comes from: what `replay --seat` prints, and
/// what a seat's page (`html`) is built from.
pub(crate) fn rederive(path: &Path, seat: usize) -> Result<(Recorded, Conversation), String> {
    let game = Recorded::load(path)?;
    let paused = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let conv =
        paused.block_on(rerun(&game, seat)).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((game, conv))
}

// ---------------------------------------------------------------------------------------------
// The record

/// How the recorded game ended, which decides how the re-run must end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Complete,
    /// Stopped by the organiser: the game ended while a question was open.
    Aborted,
    /// No footer: the referee was killed; the conversation is shown as far as the record goes.
    CutShort,
}

impl End {
    fn note(self) -> &'static str {
        match self {
            End::Complete => "",
            End::Aborted => " (the game was aborted)",
            End::CutShort => " (the record is cut short: the conversation stops where it does)",
        }
    }
}

/// A record, checked against the rules, as lines.
#[derive(Debug)]
pub(crate) struct Recorded {
    pub(crate) header: Header,
    /// Every line after the header, the footer included.
    pub(crate) lines: Vec<RecordLine>,
    pub(crate) footer: Option<Footer>,
    pub(crate) end: End,
}

impl Recorded {
    fn load(path: &Path) -> Result<Recorded, String> {
        let shown = path.display();
        // The rules check first: a conversation is only re-derived from a consistent record.
        let end = match replay::replay_file(path) {
            Ok(r) if r.footer.as_ref().is_some_and(|f| f.status == GameStatus::Aborted) => {
                End::Aborted
            }
            Ok(_) => End::Complete,
            Err(ReplayError::CutShort { .. }) => End::CutShort,
            // The message names the file already.
            Err(e @ ReplayError::Io(_)) => return Err(e.to_string()),
            Err(e) => return Err(format!("{shown}: {e}")),
        };
        let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = Vec::new();
        for (n, segment) in text.split_inclusive('\n').enumerate() {
            // Only a cut-short record can end in a half-written line, and the check above has
            // accepted every whole line.
            let Some(body) = segment.strip_suffix('\n') else { break };
            let line: RecordLine = serde_json::from_str(body)
                .map_err(|e| format!("{shown}: line {}: not a record line: {e}", n + 1))?;
            lines.push(line);
        }
        let mut lines = lines.into_iter();
        let Some(RecordLine::Header(header)) = lines.next() else {
            return Err(format!("{shown}: line 1: the first line is not a header line"));
        };
        let lines: Vec<RecordLine> = lines.collect();
        let footer = lines.iter().find_map(|l| match l {
            RecordLine::Footer(f) => Some((**f).clone()),
            _ => None,
        });
        Ok(Recorded { header: *header, lines, footer, end })
    }

    fn faults(&self) -> impl Iterator<Item = &FaultRecord> {
        self.lines.iter().filter_map(|l| if let RecordLine::Fault(f) = l { Some(f) } else { None })
    }
}

// ---------------------------------------------------------------------------------------------
// Scripts: what each seat sent, question by question

/// What a playback bot does about one question.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Move {
    /// The recorded answer, sent exactly `us` microseconds after the question.
    Answer { raw: String, us: u64 },
    /// A faulty line (malformed, wrong answer, illegal card, wrong discard), sent at once, byte
    /// for byte as the record keeps it (it need not be UTF-8).
    Line(Vec<u8>),
    /// A line over the length limit; its bytes are not recorded.
    TooLong,
    /// Nothing: the question times out.
    Silent,
    /// The bot ends the connection on reading the question (exited, closed, disconnected).
    Close,
}

/// One question a seat was asked, in the order asked, and what it did.
#[derive(Clone, Debug)]
struct Step {
    /// The question's type, when the record says (`opening`, `discard`, `play`).
    kind: Option<&'static str>,
    /// Lines the referee read and ignored while this question was open (stale or unknown ids),
    /// sent before the move.
    ignored: Vec<Vec<u8>>,
    mv: Move,
    /// The fault the record charges to this question, if any.
    fault: Option<FaultKind>,
    /// The bot was gone when the referee next wrote to it: the connection ends after this step.
    then_close: bool,
}

/// How a seat's connection stands when the game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Start {
    /// The connection began just before this game: its handshake is part of the game's
    /// conversation, with this move for the `hello`.
    Handshake(Move),
    /// The connection goes on from an earlier game: no handshake.
    Continue,
    /// No bot: it could not be started or reached. `pending` when the fault was met just before
    /// this game (rather than carried over from an earlier one).
    Dead { kind: FaultKind, detail: String, pending: bool },
}

#[derive(Clone, Debug)]
struct Script {
    start: Start,
    /// The record says the handshake was refused.
    refused: bool,
    steps: Vec<Step>,
    /// The bot was found gone at the referee's first write of this game.
    close_first: bool,
}

/// Faults found while writing to a bot rather than reading it: the question never reached it.
fn found_on_write(f: &FaultRecord) -> bool {
    match f.kind {
        // Records of earlier versions called a closed stdin `closed_stdout`.
        FaultKind::ClosedStdout => {
            f.detail.starts_with("closed its stdin") || f.detail.starts_with("connection closed:")
        }
        FaultKind::Disconnected => f.detail.starts_with("the connection failed:"),
        FaultKind::Timeout => f.detail.starts_with("stopped reading its input"),
        _ => false,
    }
}

/// The question type an action line answers.
fn answer_kind(line: &RecordLine) -> Option<(u8, bool, Option<&String>, u64, &'static str)> {
    match line {
        RecordLine::Vote { seat, us, auto, raw, .. }
        | RecordLine::Opening { seat, us, auto, raw } => {
            Some((*seat, *auto, raw.as_ref(), *us, "opening"))
        }
        RecordLine::Discard { seat, us, auto, raw, .. } => {
            Some((*seat, *auto, raw.as_ref(), *us, "discard"))
        }
        RecordLine::Play { seat, us, auto, raw, .. } => {
            Some((*seat, *auto, raw.as_ref(), *us, "play"))
        }
        _ => None,
    }
}

/// Reads the four seats' scripts out of the record.
fn scripts(game: &Recorded) -> [Script; 4] {
    let mut scripts: [Script; 4] = std::array::from_fn(|i| {
        let seat = &game.header.seats[i];
        Script {
            start: match &seat.hello {
                Some(raw) => Start::Handshake(Move::Answer { raw: raw.clone(), us: 0 }),
                None => Start::Continue,
            },
            refused: false,
            steps: Vec::new(),
            close_first: false,
        }
    });
    let mut ignored: [Vec<Vec<u8>>; 4] = Default::default();
    // A question fault waits for its seat's `auto` action line, which names the question.
    let mut open_fault = [false; 4];
    let mut dealt = false;
    for line in &game.lines {
        if let RecordLine::Deal { .. } = line {
            dealt = true;
        }
        if let RecordLine::Fault(f) = line {
            let i = usize::from(f.seat);
            if i >= 4 {
                continue;
            }
            let s = &mut scripts[i];
            if !dealt && connection_fault(f, s) {
                continue;
            }
            if policy::is_ignorable(f.kind) {
                ignored[i].extend(f.raw_bytes().map(<[u8]>::to_vec));
            } else if f.kind == FaultKind::BadSignal && f.penalty != Penalty::Forfeit {
                // About an accepted answer's signals: re-derived from the answer itself. An
                // answer whose signal forfeited the game has no line; its fault keeps it.
            } else if found_on_write(f) {
                match s.steps.last_mut() {
                    Some(step) => step.then_close = true,
                    None => s.close_first = true,
                }
            } else {
                let mv = match f.kind {
                    FaultKind::Timeout => Move::Silent,
                    FaultKind::LineTooLong => Move::TooLong,
                    FaultKind::Exited | FaultKind::ClosedStdout | FaultKind::Disconnected => {
                        Move::Close
                    }
                    _ => f.raw_bytes().map_or(Move::Silent, |line| Move::Line(line.to_vec())),
                };
                s.steps.push(Step {
                    kind: None,
                    ignored: std::mem::take(&mut ignored[i]),
                    mv,
                    fault: Some(f.kind),
                    then_close: false,
                });
                open_fault[i] = true;
            }
        }
        if let Some((seat, auto, raw, us, kind)) = answer_kind(line) {
            let i = usize::from(seat);
            if i >= 4 {
                continue;
            }
            match (auto, raw) {
                (false, Some(raw)) => scripts[i].steps.push(Step {
                    kind: Some(kind),
                    ignored: std::mem::take(&mut ignored[i]),
                    mv: Move::Answer { raw: raw.clone(), us },
                    fault: None,
                    then_close: false,
                }),
                _ if open_fault[i] => {
                    if let Some(step) = scripts[i].steps.last_mut() {
                        step.kind = Some(kind);
                    }
                }
                // The referee chose without asking: the bot was replaced or gone.
                _ => {}
            }
            open_fault[i] = false;
        }
    }
    scripts
}

/// Applies a fault met while connecting (before the first deal); false when it is not one.
fn connection_fault(f: &FaultRecord, s: &mut Script) -> bool {
    if let Some(detail) = f.detail.strip_prefix("still unavailable: ") {
        s.start = Start::Dead { kind: f.kind, detail: detail.to_string(), pending: false };
        return true;
    }
    match f.kind {
        FaultKind::NoStart => {
            s.start = Start::Dead { kind: f.kind, detail: f.detail.clone(), pending: true };
            true
        }
        FaultKind::HandshakeRefused => {
            s.refused = true;
            // A hello answer that was read is refused again by the same checks; otherwise
            // what the bot sent is not recorded, and only a timeout can be reproduced.
            if !matches!(s.start, Start::Handshake(Move::Answer { .. })) {
                let silent = f.detail.starts_with("timeout");
                s.start = Start::Handshake(if silent { Move::Silent } else { Move::Close });
            }
            true
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// The re-run

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Referee to bot.
    ToBot,
    /// Bot to referee.
    FromBot,
}

impl Dir {
    fn marker(self) -> char {
        match self {
            Dir::ToBot => '>',
            Dir::FromBot => '<',
        }
    }
}

/// Bytes that crossed the captured seat's connection, with the paused clock's time.
#[derive(Debug)]
struct Event {
    at: Duration,
    dir: Dir,
    bytes: Vec<u8>,
}

/// The captured seat's traffic, in the order it happened.
#[derive(Clone, Debug)]
struct Tape {
    start: Instant,
    events: Arc<Mutex<Vec<Event>>>,
    /// Where a cut-short record ends: lines after it were never recorded.
    cut: Arc<Mutex<Option<usize>>>,
}

impl Tape {
    fn push(&self, dir: Dir, bytes: &[u8]) {
        let at = self.start.elapsed();
        if let Ok(mut events) = self.events.lock() {
            events.push(Event { at, dir, bytes: bytes.to_vec() });
        }
    }

    fn mark_cut(&self) {
        let len = self.events.lock().map_or(0, |e| e.len());
        if let Ok(mut cut) = self.cut.lock() {
            cut.get_or_insert(len);
        }
    }
}

/// The referee's write half of the captured seat, logging every byte it writes.
struct Tap<W> {
    inner: W,
    tape: Tape,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Tap<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &res {
            self.tape.push(Dir::ToBot, &buf[..*n]);
        }
        res
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// One line of the seat's conversation.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// Since the start of the conversation, on the re-run's clock.
    at: Duration,
    pub(crate) dir: Dir,
    /// The line without its newline, byte for byte.
    pub(crate) text: Vec<u8>,
}

/// The seat's conversation, and what the record says it answered to each question.
#[derive(Debug)]
pub(crate) struct Conversation {
    pub(crate) lines: Vec<Line>,
    /// One entry per question the seat received, in order (its hello included).
    answers: Vec<RecordedAnswer>,
    /// The connection went on from an earlier game: the seat got no hello in this game.
    continued: bool,
    first_id: u64,
    /// What the conversation cannot show, for people.
    note: String,
}

/// What the record says a seat did about one question, and the fault it was charged with.
type RecordedAnswer = (Move, Option<FaultKind>);

/// What the playback bots share with the re-run.
#[derive(Clone, Debug)]
struct Shared {
    trigger: Arc<Trigger>,
    end: End,
    max_line: usize,
    /// The captured seat's traffic, whichever seat's question the record ends at.
    tape: Tape,
}

impl Shared {
    /// Ends the re-run: the record goes no further.
    fn stop(&self) {
        self.trigger.escalate();
        self.trigger.escalate();
    }
}

/// Plays the recorded game again and returns seat `seat`'s conversation.
async fn rerun(game: &Recorded, seat: usize) -> Result<Conversation, String> {
    let h = &game.header;
    if h.seats.len() != 4 {
        return Err(format!("the header lists {} seats, not 4", h.seats.len()));
    }
    let scripts = scripts(game);
    let (rules, seating_draw) = convert::rules_from_wire(&h.rules)?;
    let cfg = GameConfig {
        rules,
        seating_draw,
        clock: h.clock,
        policy: Policy { on_fault: h.policy.on_fault, max_strikes: h.policy.max_strikes },
    };
    let first_dealer = convert::seat(h.first_dealer)
        .ok_or_else(|| format!("first dealer {} is not a seat", h.first_dealer))?;
    let setup = GameSetup {
        game_no: h.game,
        match_seed: h.match_seed,
        seed: h.seed,
        first_dealer,
        draw: h.draw.as_ref().map(|d| d.iter().map(|&c| convert::card(c)).collect()),
    };
    let max_line = line_limit(game);
    let connect = ConnectConfig {
        handshake: Duration::from_millis(h.clock.handshake_ms),
        max_line,
        stderr_cap: 0,
        limits: Limits::default(),
    };
    let (trigger, stop) = shutdown::channel();
    let tape = Tape { start: Instant::now(), events: Arc::default(), cut: Arc::default() };
    let shared = Shared { trigger: Arc::new(trigger), end: game.end, max_line, tape: tape.clone() };

    let mut bots = Vec::with_capacity(4);
    let mut players = Vec::with_capacity(4);
    for (i, script) in scripts.iter().enumerate() {
        let info = &h.seats[i];
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let (r, w) = tokio::io::split(ours);
        let writer: crate::bot::conn::Writer =
            if i == seat { Box::new(Tap { inner: w, tape: tape.clone() }) } else { Box::new(w) };
        let log = (i == seat).then(|| tape.clone());
        players.push(tokio::spawn(playback(i, theirs, script.clone(), log, shared.clone())));
        let spec = spec_of(info);
        let mut bot = match &script.start {
            Start::Handshake(_) => {
                let first = info.first_id.saturating_sub(1).max(1);
                Bot::attach_at(spec, Box::new(r), writer, &connect, first, true).await
            }
            Start::Continue => {
                Bot::attach_at(spec, Box::new(r), writer, &connect, info.first_id, false).await
            }
            Start::Dead { kind, detail, pending } => {
                let mut bot =
                    Bot::attach_at(spec, Box::new(r), writer, &connect, info.first_id, false).await;
                bot.set_unavailable(Fault::new(*kind, detail.clone()), *pending);
                bot
            }
        };
        if matches!(script.start, Start::Handshake(_)) && bot.is_alive() == script.refused {
            let (said, now) =
                if script.refused { ("refused", "accepted") } else { ("accepted", "refused") };
            return Err(diverged(
                h,
                format!("the record says seat {i}'s handshake was {said}, the re-run {now} it"),
            ));
        }
        // The `game` notice names the players as the record does, whatever the handshake said
        // (a connection that goes on from an earlier game has no handshake here).
        let token = bot.identity.token.take();
        bot.identity = Identity {
            name: info.name.clone(),
            version: info.version.clone(),
            author: info.author.clone(),
            token,
        };
        bots.push(bot);
    }
    let mut bots: [Bot; 4] = match bots.try_into() {
        Ok(b) => b,
        Err(_) => return Err("four seats expected".into()),
    };
    let summary = {
        let [a, b, c, d] = &mut bots;
        let mut rec = Recorder::create(None).map_err(|e| e.to_string())?;
        run_game_with_decks([a, b, c, d], &setup, &cfg, &mut rec, stop, Some(decks(game)?)).await
    };
    // Ending the connections ends the playback bots.
    drop(bots);
    let mut problems = Vec::new();
    for (i, p) in players.into_iter().enumerate() {
        match p.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => problems.push(e),
            Err(e) => problems.push(format!("seat {i}'s playback failed: {e}")),
        }
    }
    if let Some(first) = problems.into_iter().next() {
        return Err(diverged(h, first));
    }
    check_summary(game, &summary).map_err(|e| diverged(h, e))?;

    let mut events = std::mem::take(&mut *tape.events.lock().map_err(|_| "capture lost")?);
    if game.end == End::CutShort
        && let Some(cut) = *tape.cut.lock().map_err(|_| "capture lost")?
    {
        events.truncate(cut);
    }
    let script = &scripts[seat];
    let mut answers = Vec::new();
    if let Start::Handshake(mv) = &script.start {
        answers.push((mv.clone(), script.refused.then_some(FaultKind::HandshakeRefused)));
    }
    answers.extend(script.steps.iter().map(|s| (s.mv.clone(), s.fault)));
    let note = match &script.start {
        Start::Dead { detail, .. } => format!("; no bot played this seat: {detail}"),
        Start::Handshake(Move::Close) => {
            "; its handshake was refused, and what the bot sent then is not recorded".into()
        }
        Start::Handshake(_) | Start::Continue => String::new(),
    };
    Ok(Conversation {
        lines: split_lines(&events),
        answers,
        continued: script.start == Start::Continue,
        first_id: h.seats[seat].first_id,
        note,
    })
}

/// The record's decks, deal by deal: a record alone replays its game, whatever its seed says.
fn decks(game: &Recorded) -> Result<Vec<rules::Deck>, String> {
    let decks = game.lines.iter().filter_map(|l| match l {
        RecordLine::Deal { deal, deck, .. } => Some((deal, deck)),
        _ => None,
    });
    decks
        .map(|(deal, deck)| {
            let cards: Vec<rules::Card> = deck.iter().map(|&c| convert::card(c)).collect();
            rules::Deck::from_cards(&cards).map_err(|e| format!("deal {deal}'s deck: {e}"))
        })
        .collect()
}

/// A divergence message, naming the versions when they differ (the likeliest cause).
fn diverged(h: &Header, what: String) -> String {
    let ours = env!("CARGO_PKG_VERSION");
    let versions = if h.referee != ours {
        format!(" (the record was written by referee {}, this is {ours})", h.referee)
    } else {
        String::new()
    };
    format!("re-running the game does not reproduce the record: {what}{versions}")
}

/// The line limit the game was played with: it is not in the record, but a `line_too_long`
/// fault names it, and every recorded line was within it.
fn line_limit(game: &Recorded) -> usize {
    let named = game.faults().find_map(|f| {
        let rest = f.detail.strip_prefix("a line longer than ")?;
        rest.split(' ').next()?.parse::<usize>().ok()
    });
    if let Some(max) = named {
        return max;
    }
    let longest = game
        .lines
        .iter()
        .filter_map(|l| match l {
            RecordLine::Vote { raw, .. }
            | RecordLine::Opening { raw, .. }
            | RecordLine::Discard { raw, .. }
            | RecordLine::Play { raw, .. } => raw.as_ref().map(String::len),
            RecordLine::Fault(f) => f.raw_bytes().map(<[u8]>::len),
            _ => None,
        })
        .chain(game.header.seats.iter().filter_map(|s| s.hello.as_ref().map(String::len)))
        .max()
        .unwrap_or(0);
    longest.max(protocol::MAX_LINE_BYTES)
}

/// How the seat's bot was reached; only whether it was over TCP matters to the runner.
fn spec_of(info: &SeatInfo) -> BotSpec {
    match info.command.first().map(String::as_str) {
        Some("tcp") => BotSpec::TcpSeat { token: String::new() },
        Some(addr) if addr.starts_with("tcp://") => {
            BotSpec::TcpConnect(addr.trim_start_matches("tcp://").to_string())
        }
        _ => BotSpec::Command(info.command.clone()),
    }
}

/// The re-run's outcome must be the record's, statistics included: the think times are replayed
/// exactly, so even their sums agree.
fn check_summary(game: &Recorded, s: &GameSummary) -> Result<(), String> {
    let recorded: Vec<&FaultRecord> = game.faults().collect();
    for (n, (r, o)) in recorded.iter().zip(&s.faults).enumerate() {
        // How a dead bot was found (exited, closed, timed out writing) depends on the
        // process, not on the game; the cost does not.
        let same_kind = r.kind == o.kind
            || policy::is_fatal(r.kind)
            || (r.kind == FaultKind::Timeout && found_on_write(r));
        if r.seat != o.seat || !same_kind || r.penalty != o.penalty || r.strikes != o.strikes {
            return Err(format!(
                "fault {} is {} in the record, {} in the re-run",
                n + 1,
                fault_text(r),
                fault_text(o)
            ));
        }
    }
    if recorded.len() != s.faults.len() {
        return Err(format!(
            "the record has {} faults, the re-run {}",
            recorded.len(),
            s.faults.len()
        ));
    }
    let Some(f) = &game.footer else { return Ok(()) };
    let status = match s.status {
        Status::Complete => GameStatus::Complete,
        Status::Aborted => GameStatus::Aborted,
    };
    let winner = s.winner.map(|t| t.index() as u8);
    let forfeit = s.forfeit.map(|t| t.index() as u8);
    if f.status != status || f.score != s.score || f.winner != winner || f.forfeit != forfeit {
        return Err(format!(
            "the record ends {} {}-{} (winner {:?}, forfeit {:?}), the re-run {status} {}-{} \
             (winner {winner:?}, forfeit {forfeit:?})",
            f.status, f.score[0], f.score[1], f.winner, f.forfeit, s.score[0], s.score[1]
        ));
    }
    for (i, (r, o)) in f.stats.iter().zip(&s.stats).enumerate() {
        if (r.answers, r.think_us, r.max_us, r.strikes, r.replaced)
            != (o.answers, o.think_us, o.max_us, o.strikes, o.replaced)
        {
            return Err(format!(
                "seat {i}'s statistics differ: recorded {} answers in {} us (max {}), {} strikes, \
                 re-run {} answers in {} us (max {}), {} strikes",
                r.answers,
                r.think_us,
                r.max_us,
                r.strikes,
                o.answers,
                o.think_us,
                o.max_us,
                o.strikes
            ));
        }
    }
    Ok(())
}

fn fault_text(f: &FaultRecord) -> String {
    format!("seat {} {} ({}, strike {})", f.seat, f.kind.as_str(), f.penalty.as_str(), f.strikes)
}

/// A question's type and id, when the referee line is a question.
fn question(line: &[u8]) -> Option<(String, u64, Value)> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let kind = v.get("type")?.as_str()?.to_string();
    if !matches!(kind.as_str(), "hello" | "opening" | "discard" | "play") {
        return None;
    }
    let id = v.get("id")?.as_u64()?;
    Some((kind, id, v))
}

/// One seat's playback bot: reads the referee's lines and, question by question, does what the
/// record says the seat did.
async fn playback(
    seat: usize,
    stream: DuplexStream,
    script: Script,
    tape: Option<Tape>,
    shared: Shared,
) -> Result<(), String> {
    let (r, mut w) = tokio::io::split(stream);
    let mut r = BufReader::new(r);
    let mut steps = script.steps.into_iter();
    let mut hello = match script.start {
        Start::Handshake(mv) => Some(mv),
        Start::Continue if script.close_first => return Ok(()),
        Start::Continue => None,
        // The referee never writes to a dead bot; reading on just waits for the end.
        Start::Dead { .. } => None,
    };
    let mut line = Vec::new();
    let mut over = false;
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if over {
            continue;
        }
        let Some((kind, id, _)) = question(line.strip_suffix(b"\n").unwrap_or(&line)) else {
            continue;
        };
        if kind == "hello" {
            let Some(mv) = hello.take() else {
                shared.stop();
                return Err(format!("seat {seat} got a hello the record does not have"));
            };
            let close = script.close_first;
            if !perform(&mut w, &mv, id, &tape, &shared).await? || close {
                return Ok(());
            }
            continue;
        }
        let Some(step) = steps.next() else {
            // The record ends with this question open: the game was stopped here.
            shared.stop();
            if shared.end == End::Complete {
                return Err(format!(
                    "seat {seat} was asked question {id} ({kind}), which the record does not have"
                ));
            }
            shared.tape.mark_cut();
            over = true;
            continue;
        };
        if let Some(want) = step.kind
            && want != kind
        {
            shared.stop();
            return Err(format!(
                "seat {seat}'s question {id} is a {kind} question; the record answers a {want}"
            ));
        }
        for raw in &step.ignored {
            send(&mut w, raw, &tape).await?;
        }
        if !perform(&mut w, &step.mv, id, &tape, &shared).await? || step.then_close {
            return Ok(());
        }
    }
    let left = steps.len() + usize::from(hello.is_some());
    if left > 0 && shared.end != End::CutShort {
        return Err(format!("seat {seat} was asked {left} questions fewer than the record has"));
    }
    Ok(())
}

/// Does one move; false when the connection ends.
async fn perform(
    w: &mut tokio::io::WriteHalf<DuplexStream>,
    mv: &Move,
    id: u64,
    tape: &Option<Tape>,
    shared: &Shared,
) -> Result<bool, String> {
    match mv {
        Move::Answer { raw, us } => {
            let said = serde_json::from_str::<Value>(raw).ok().and_then(|v| v["id"].as_u64());
            if said != Some(id) {
                shared.stop();
                return Err(format!(
                    "the re-run asked question {id} where the record's answer has id {}",
                    said.map_or("none".into(), |s| s.to_string())
                ));
            }
            at_after(Duration::from_micros(*us), send(w, raw.as_bytes(), tape)).await?;
        }
        Move::Line(raw) => send(w, raw, tape).await?,
        Move::TooLong => {
            let mut line = vec![b'x'; shared.max_line + 1];
            line.push(b'\n');
            w.write_all(&line).await.map_err(|e| format!("playback: {e}"))?;
            if let Some(t) = tape {
                let note = format!(
                    "[a line longer than {} bytes; the record does not keep it]\n",
                    shared.max_line
                );
                t.push(Dir::FromBot, note.as_bytes());
            }
        }
        Move::Silent => {}
        Move::Close => return Ok(false),
    }
    Ok(true)
}

/// Sends one line (its newline added) and logs it for the captured seat.
async fn send(
    w: &mut tokio::io::WriteHalf<DuplexStream>,
    raw: &[u8],
    tape: &Option<Tape>,
) -> Result<(), String> {
    let mut line = raw.to_vec();
    line.push(b'\n');
    // A referee that has already given up on this bot (it was replaced) closed the connection:
    // nothing more to send, and nothing wrong with the re-run.
    if w.write_all(&line).await.is_ok() {
        let _ = w.flush().await;
        if let Some(t) = tape {
            t.push(Dir::FromBot, &line);
        }
    }
    Ok(())
}

/// Runs `then` exactly `d` after now on the paused clock, before any timer due by then fires.
/// Sleeping would round `d` up to the timer wheel's millisecond and change the banks;
/// `tokio::time::advance` moves the clock by `d` when first polled, then yields to the timer
/// driver, which would let a deadline that the recorded answer beat fire first. So it is polled
/// once, the line is sent at the new instant, and only then does the task yield.
async fn at_after<F: Future>(d: Duration, then: F) -> F::Output {
    let mut advance = std::pin::pin!(tokio::time::advance(d));
    let mut done = false;
    std::future::poll_fn(|cx| {
        done = advance.as_mut().poll(cx).is_ready();
        Poll::Ready(())
    })
    .await;
    let out = then.await;
    if !done {
        advance.await;
    }
    out
}

/// Cuts the captured bytes into lines; a line takes the time its newline crossed.
fn split_lines(events: &[Event]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut partial: [Vec<u8>; 2] = Default::default();
    for e in events {
        let k = usize::from(e.dir == Dir::FromBot);
        for &b in &e.bytes {
            if b == b'\n' {
                lines.push(Line { at: e.at, dir: e.dir, text: std::mem::take(&mut partial[k]) });
            } else {
                partial[k].push(b);
            }
        }
    }
    lines
}

fn print_conversation(conv: &Conversation) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    for l in &conv.lines {
        let _ = writeln!(
            out,
            "{:>10.3}  {}  {}",
            l.at.as_secs_f64(),
            l.dir.marker(),
            crate::text::escape_bytes(&l.text)
        );
    }
    let _ = out.flush();
}

// ---------------------------------------------------------------------------------------------
// Re-driving a real bot

/// Where `--until` stops: before the first question of a deal, or of one of its tricks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Until {
    deal: u64,
    trick: Option<u64>,
}

impl Until {
    pub(crate) fn parse(text: &str) -> Result<Until, String> {
        let bad = || format!("--until {text:?}: expected DEAL or DEAL.TRICK, e.g. 3 or 3.5");
        let (deal, trick) = match text.split_once('.') {
            Some((d, t)) => (d, Some(t)),
            None => (text, None),
        };
        let deal = deal.parse::<u64>().ok().filter(|&d| d >= 1).ok_or_else(bad)?;
        let trick = match trick {
            Some(t) => Some(t.parse::<u64>().ok().filter(|t| (1..=9).contains(t)).ok_or_else(bad)?),
            None => None,
        };
        Ok(Until { deal, trick })
    }

    fn matches(&self, q: &Value) -> bool {
        let deal = q.get("deal").and_then(Value::as_u64);
        match self.trick {
            None => deal == Some(self.deal),
            Some(t) => {
                deal == Some(self.deal)
                    && q.get("type").and_then(Value::as_str) == Some("play")
                    && q.get("trick").and_then(Value::as_u64) == Some(t)
            }
        }
    }

    fn text(&self) -> String {
        match self.trick {
            None => format!("deal {}", self.deal),
            Some(t) => format!("deal {} trick {t}", self.deal),
        }
    }
}

/// The `--bot` program to re-drive, as its argv: a program, since only a program can be
/// started again with the seat's conversation.
pub(crate) fn bot_command(text: &str) -> Result<Vec<String>, String> {
    let argv = crate::bot::shell::split(text).map_err(|e| format!("--bot {text:?}: {e}"))?;
    if argv.len() == 1 && (argv[0].starts_with("builtin:") || argv[0].starts_with("tcp")) {
        return Err(format!("--bot {text:?}: replay re-drives a bot program; give its command"));
    }
    Ok(argv)
}

/// An answer as the comparison sees it.
#[derive(Clone, Debug, PartialEq)]
enum Said {
    Answer(FromBot),
    /// A line that is not a bot message, as its bytes.
    Malformed(Vec<u8>),
    TooLong,
    Nothing,
    Ended,
    Unrecorded,
}

impl Said {
    fn of_line(raw: &[u8]) -> Said {
        match decode_line::<FromBot>(raw) {
            Ok(m) => Said::Answer(m),
            Err(_) => Said::Malformed(raw.to_vec()),
        }
    }

    fn of_move(mv: &Move) -> Said {
        match mv {
            Move::Answer { raw, .. } => Said::of_line(raw.as_bytes()),
            Move::Line(raw) => Said::of_line(raw),
            Move::TooLong => Said::TooLong,
            Move::Silent => Said::Nothing,
            Move::Close => Said::Ended,
        }
    }

    /// Same type and id, same card, the same cards as a set, the same vote, the same signals in
    /// the same order; for `hello`, type and id only (a renamed bot is still the same bot).
    fn same(&self, other: &Said) -> bool {
        match (self, other) {
            (Said::Answer(a), Said::Answer(b)) => {
                use FromBot::*;
                a.id() == b.id()
                    && match (a, b) {
                        (Hello { .. }, Hello { .. }) => true,
                        (
                            Opening { accept: x, signals: s, .. },
                            Opening { accept: y, signals: t, .. },
                        ) => x == y && s == t,
                        (
                            Discard { cards: x, signals: s, .. },
                            Discard { cards: y, signals: t, .. },
                        ) => {
                            let mut x = x.clone();
                            let mut y = y.clone();
                            x.sort();
                            y.sort();
                            x == y && s == t
                        }
                        (Play { card: x, signals: s, .. }, Play { card: y, signals: t, .. }) => {
                            x == y && s == t
                        }
                        _ => false,
                    }
            }
            (Said::Malformed(a), Said::Malformed(b)) => a == b,
            (Said::TooLong, Said::TooLong)
            | (Said::Nothing, Said::Nothing)
            | (Said::Ended, Said::Ended) => true,
            _ => false,
        }
    }

    fn text(&self, asked: &str) -> String {
        match self {
            Said::Answer(m) => {
                let mut t = match m {
                    FromBot::Hello { name, version, .. } => format!("{name} {version}"),
                    FromBot::Opening { accept: Some(true), .. } => "accept".into(),
                    FromBot::Opening { accept: Some(false), .. } => "refuse".into(),
                    FromBot::Opening { accept: None, .. } => "no vote".into(),
                    FromBot::Discard { cards, .. } => {
                        cards.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
                    }
                    FromBot::Play { card, .. } => card.to_string(),
                };
                if m.kind() != asked {
                    t = format!("a {} answer ({t})", m.kind());
                }
                if !m.signals().is_empty() {
                    t.push_str(&format!(", signals {}", m.signals().join(" ")));
                }
                t
            }
            Said::Malformed(raw) => {
                let raw = String::from_utf8_lossy(raw);
                let cut: String = raw.chars().take(60).collect();
                let more = if cut.len() < raw.len() { "..." } else { "" };
                format!("the malformed line {cut:?}{more}")
            }
            Said::TooLong => "a line over the length limit".into(),
            Said::Nothing => "no answer in time".into(),
            Said::Ended => "the end of its output".into(),
            Said::Unrecorded => "nothing (the record ends here)".into(),
        }
    }
}

/// The fault a recorded answer was charged with, for the comparison line.
fn fault_note(fault: Option<FaultKind>) -> String {
    fault.map_or(String::new(), |f| format!(" ({} fault)", f.as_str()))
}

/// A question's label: `hello`, `deal 2 opening`, `deal 2 trick 5 play`.
fn label(kind: &str, q: &Value) -> String {
    let deal = q.get("deal").and_then(Value::as_u64);
    let trick = q.get("trick").and_then(Value::as_u64);
    match (deal, trick) {
        (Some(d), Some(t)) => format!("deal {d} trick {t} {kind}"),
        (Some(d), None) => format!("deal {d} {kind}"),
        _ => kind.to_string(),
    }
}

/// Where the bot's stderr goes: its author wants to see it, so ours when ours is a terminal or
/// a pipe; never into a regular file we would truncate, so then a file of its own.
fn stderr_target(seat: usize) -> (PathBuf, bool) {
    let ours = Path::new("/proc/self/fd/2");
    match std::fs::metadata(ours) {
        Ok(m) if !m.is_file() => (ours.to_path_buf(), false),
        _ => (
            std::env::temp_dir()
                .join(format!("referee-replay-{}-seat{seat}.stderr.log", std::process::id())),
            true,
        ),
    }
}

/// The re-driven bot: its connection and its process.
struct Driven {
    proc_: Option<process::BotProcess>,
    conn: LineConn,
    /// Why the bot can no longer be fed, once it cannot.
    ended: Option<Fault>,
}

impl Driven {
    /// Writes `bytes` (lines that ask nothing), giving up after `limit`; false when the bot is
    /// gone.
    async fn write(&mut self, bytes: &[u8], limit: Duration) -> bool {
        self.conn.queue_bytes(bytes);
        match self.conn.flush(Instant::now() + limit).await {
            Ok(()) => true,
            Err(e) => {
                self.ended = Some(ask::write_failed(self.proc_.as_mut(), false, e).await);
                false
            }
        }
    }

    /// Writes `bytes`, question `id` last, and hears the bot's answer as the referee hears it;
    /// lines with other ids are shown and skipped.
    async fn answer(&mut self, bytes: &[u8], id: u64, limit: Duration) -> Said {
        self.conn.queue_bytes(bytes);
        let mut ignored = IgnoredLines::default();
        let peer = Peer { conn: &mut self.conn, process: self.proc_.as_mut(), tcp: false };
        let heard = ask::ask(peer, id, limit, &mut ignored).await;
        for f in &ignored.kept {
            say!("  (the bot sent a {}: ignored)", f.detail);
        }
        if ignored.more > 0 {
            say!("  (and {} more lines with other ids: ignored)", ignored.more);
        }
        match heard {
            Heard::Answer(m, _, _) => Said::Answer(m),
            Heard::Malformed(_, line) => Said::Malformed(line),
            Heard::Fault(f) if f.kind == FaultKind::LineTooLong => Said::TooLong,
            Heard::Fault(_) => Said::Nothing,
            Heard::Gone(f) => {
                self.ended = Some(f);
                Said::Ended
            }
        }
    }

    /// How the bot ended, for messages: `: exit code 2`.
    fn how(&self) -> String {
        self.ended.as_ref().map_or(String::new(), |f| format!(": {}", f.detail))
    }

    async fn finish(mut self, grace: Duration) {
        self.conn.shutdown().await;
        drop(self.conn);
        if let Some(p) = self.proc_.take() {
            p.finish(grace).await;
        }
    }
}

/// Feeds the seat's recorded conversation to a real bot and compares its answers.
async fn redrive(
    game: &Recorded,
    seat: usize,
    conv: &Conversation,
    argv: Vec<String>,
    until: Option<Until>,
) -> Result<(), String> {
    let (stderr_path, to_file) = stderr_target(seat);
    let spec = SpawnSpec {
        argv: argv.clone(),
        stderr_path: Some(stderr_path.clone()),
        stderr_cap: u64::MAX,
        limits: Limits::default(),
        cpu: None,
    };
    let (proc_, stdin, stdout) =
        process::spawn(&spec).map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
    let pid = proc_.id();
    let max_line = protocol::MAX_LINE_BYTES.max(line_limit(game));
    let mut bot = Driven {
        proc_: Some(proc_),
        conn: LineConn::new(Box::new(stdout), Box::new(stdin), max_line),
        ended: None,
    };
    let handshake = Duration::from_millis(game.header.clock.handshake_ms);
    say!(
        "Re-driving seat {seat} of game {} (recorded: {}) with {}",
        game.header.game,
        game.header.seats[seat].name,
        argv.join(" ")
    );
    if to_file {
        say!("(the bot's stderr goes to {})", stderr_path.display());
    }
    let command = argv.join(" ");
    if conv.continued {
        // The seat's connection began in an earlier game; a fresh bot still needs its hello.
        let hello = protocol::encode_line(&ToBot::Hello {
            id: 1,
            protocol: protocol::PROTOCOL_VERSION,
            features: protocol::FEATURES.iter().map(|f| f.to_string()).collect(),
            time_ms: game.header.clock.handshake_ms,
        });
        say!(
            "(game {} went on from an earlier game on the same connection: the bot first gets a \
             hello, not compared, and then questions from id {})",
            game.header.game,
            conv.first_id
        );
        if bot.answer(hello.as_bytes(), 1, handshake + MARGIN).await == Said::Ended {
            let how = bot.how();
            bot.finish(Duration::ZERO).await;
            return Err(format!("the bot ({command}) ended without answering its hello{how}"));
        }
    }

    let mut asked = 0usize;
    let mut differ = 0usize;
    let mut pending: Vec<u8> = Vec::new();
    let mut answers = conv.answers.iter();
    let mut until = until;
    let mut stopped = None;
    for line in conv.lines.iter().filter(|l| l.dir == Dir::ToBot) {
        let q = question(&line.text);
        if let (Some((kind, id, v)), Some(u)) = (&q, until)
            && kind != "hello"
            && u.matches(v)
        {
            until = None;
            if !pending.is_empty() && !bot.write(&pending, MARGIN).await {
                break;
            }
            pending.clear();
            let pid = pid.map_or("unknown".into(), |p| p.to_string());
            say!("Paused before {} (question id {id}); bot pid {pid}", label(kind, v));
            say!("attach a debugger now; press Enter to continue feeding, or Ctrl-D to stop");
            if !wait_for_enter().await {
                stopped = Some(u);
                break;
            }
        }
        pending.extend_from_slice(&line.text);
        pending.push(b'\n');
        let Some((kind, id, v)) = q else { continue };
        let limit = match kind.as_str() {
            "hello" => handshake,
            _ => {
                let ms = |f: &str| v.get(f).and_then(Value::as_u64).unwrap_or(0);
                Duration::from_millis(ms("time_ms") + ms("bank_ms"))
            }
        } + MARGIN;
        let now = bot.answer(&pending, id, limit).await;
        pending.clear();
        let (recorded, fault) = match answers.next() {
            Some((mv, fault)) => (Said::of_move(mv), *fault),
            None => (Said::Unrecorded, None),
        };
        asked += 1;
        if asked == 1 && now == Said::Ended && !conv.continued {
            let how = bot.how();
            bot.finish(Duration::ZERO).await;
            return Err(format!(
                "the bot ({command}) ended without answering its first question{how}"
            ));
        }
        let what = label(&kind, &v);
        if recorded.same(&now) {
            let (was, is) = (recorded.text(&kind), now.text(&kind));
            if was == is {
                say!("{what}: same ({is}{})", fault_note(fault));
            } else {
                // A hello names the bot, which may have been renamed since.
                say!("{what}: same (recorded {was}, now {is})");
            }
        } else {
            differ += 1;
            say!(
                "{what}: DIFFERS: recorded {}{}, bot now says {}",
                recorded.text(&kind),
                fault_note(fault),
                now.text(&kind)
            );
        }
        if now == Said::Ended {
            break;
        }
    }
    if !pending.is_empty() && bot.ended.is_none() {
        let _ = bot.write(&pending, MARGIN).await;
    }
    if let Some(u) = until {
        say!("({} never came in seat {seat}'s conversation)", u.text());
    }
    let ended = bot.ended.is_some();
    bot.finish(if stopped.is_some() { Duration::ZERO } else { Duration::from_secs(1) }).await;
    if ended {
        say!("(the bot ended its output: the rest of the conversation was not fed)");
    }
    match stopped {
        Some(u) => say!("{asked} questions, {differ} differ (stopped before {})", u.text()),
        None => say!("{asked} questions, {differ} differ"),
    }
    if differ == 0 {
        Ok(())
    } else {
        Err(format!("{differ} of {asked} answers differ from the record"))
    }
}

/// Waits for Enter (true) or end of input (false). Without a terminal nobody can press Enter,
/// so it is end of input at once: a run from a script never hangs here.
async fn wait_for_enter() -> bool {
    if !std::io::stdin().is_terminal() {
        say!("(stdin is not a terminal: stopping here)");
        return false;
    }
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|n| n > 0)
    });
    matches!(read.await, Ok(Ok(true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_is_a_deal_or_a_deal_and_trick() {
        assert_eq!(Until::parse("3").unwrap(), Until { deal: 3, trick: None });
        assert_eq!(Until::parse("3.5").unwrap(), Until { deal: 3, trick: Some(5) });
        for bad in ["", "0", "3.", "3.0", "3.10", "x", "3.5.1", "-1"] {
            assert!(Until::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn lines_take_the_time_of_their_newline() {
        let ms = Duration::from_millis;
        let events = vec![
            Event { at: ms(0), dir: Dir::ToBot, bytes: b"a\nb".to_vec() },
            Event { at: ms(1), dir: Dir::FromBot, bytes: b"x\n".to_vec() },
            Event { at: ms(2), dir: Dir::ToBot, bytes: b"c\n".to_vec() },
        ];
        let lines = split_lines(&events);
        let seen: Vec<(u128, char, &[u8])> =
            lines.iter().map(|l| (l.at.as_millis(), l.dir.marker(), l.text.as_slice())).collect();
        assert_eq!(seen, vec![(0, '>', &b"a"[..]), (1, '<', b"x"), (2, '>', b"bc")]);
    }

    #[test]
    fn answers_compare_by_meaning() {
        let a =
            Said::of_line(br#"{"type":"discard","id":5,"cards":["Ao","2o","3o","4o","5o","6o"]}"#);
        let b =
            Said::of_line(br#"{"id":5,"type":"discard","cards":["6o","5o","4o","3o","2o","Ao"]}"#);
        assert!(a.same(&b));
        let c = Said::of_line(br#"{"type":"play","id":5,"card":"Kc","signals":["madame"]}"#);
        let d = Said::of_line(br#"{"type":"play","id":5,"card":"Kc"}"#);
        assert!(!c.same(&d));
        assert_eq!(d.text("play"), "Kc");
        assert_eq!(c.text("play"), "Kc, signals madame");
        assert!(Said::Nothing.same(&Said::Nothing));
        assert!(!Said::Nothing.same(&d));
    }
}
