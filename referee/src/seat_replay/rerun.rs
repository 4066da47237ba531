//! The re-run: the recorded game played again through the game runner on a paused clock, the
//! captured seat's bytes taped, and the outcome held to the record's.

use super::playback::{Steps, playback};
use super::script::{Move, Script, Start, found_on_write, scripts};
use super::tape::Dir;
use super::tape::{Event, Shared, Tape};
use super::{End, PIPE_BYTES, Recorded};
use crate::api::{Game, play_seated};
use crate::bot::link::Writer;
use crate::bot::process::Limits;
use crate::bot::{Bot, BotSpec, ConnectConfig, CpuCharges, Identity};
use crate::fault::Fault;
use crate::game_runner::{GameConfig, GameSetup, GameSummary};
use crate::policy::{self, Policy};
use crate::shutdown;
use protocol::record::{FaultKind, FaultRecord, Header, RecordLine, SeatInfo};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncWrite, DuplexStream, WriteHalf};

/// A seat's referee end that hands every byte written to `seen`: the captured seat's tape
/// here, each seat's lines in a game followed as it is played (`follow.rs`).
pub(super) struct Tap<W> {
    pub(super) inner: W,
    pub(super) seen: Seen,
}

/// What a [`Tap`] does with the bytes written.
pub(super) type Seen = Box<dyn FnMut(&[u8]) + Send>;

impl<W: AsyncWrite + Unpin> AsyncWrite for Tap<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &res {
            (self.seen)(&buf[..*n]);
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
    pub(super) at: Duration,
    pub(crate) dir: Dir,
    /// The line without its newline, byte for byte.
    pub(crate) text: Vec<u8>,
}

/// The seat's conversation, and what the record says it answered to each question.
#[derive(Debug)]
pub(crate) struct Conversation {
    pub(crate) lines: Vec<Line>,
    /// One entry per question the seat received, in order (its hello included).
    pub(super) answers: Vec<RecordedAnswer>,
    /// The connection went on from an earlier game: the seat got no hello in this game.
    pub(super) continued: bool,
    pub(super) first_id: u64,
    /// What the conversation cannot show, for people.
    pub(super) note: String,
}

/// What the record says a seat did about one question, and the fault it was charged with.
type RecordedAnswer = (Move, Option<FaultKind>);

/// What a re-run plays, besides the header: the seats' scripts and where each playback bot
/// takes its moves, the decks, the CPU time charged, and how each seat's referee end is written
/// to (a tap for the seat shown).
pub(super) struct Plan {
    pub(super) scripts: [Script; 4],
    pub(super) steps: [Steps; 4],
    pub(super) end: End,
    pub(super) max_line: usize,
    /// The record's decks; `None`: the seed's, as the game being played uses.
    pub(super) decks: Option<Vec<rules::Deck>>,
    /// Each seat's recorded `cpu_us`, for a seat timed by the CPU clock.
    pub(super) cpu: [Option<CpuCharges>; 4],
    /// The seat whose playback logs what it sends on the tape.
    pub(super) logged: Option<usize>,
    pub(super) wrap: Wrap,
}

/// How seat `i`'s referee end is written to.
pub(super) type Wrap = Box<dyn Fn(usize, WriteHalf<DuplexStream>) -> Writer + Send>;

/// Plays the recorded game again and returns seat `seat`'s conversation.
pub(super) async fn rerun(game: &Recorded, seat: usize) -> Result<Conversation, String> {
    let h = &game.header;
    if h.seats.len() != 4 {
        return Err(format!("the header lists {} seats, not 4", h.seats.len()));
    }
    let scripts = scripts(game);
    let tape = Tape::new();
    let tap = tape.clone();
    let plan = Plan {
        steps: std::array::from_fn(|i| Steps::Recorded(scripts[i].steps.clone().into_iter())),
        scripts: scripts.clone(),
        end: game.end,
        max_line: line_limit(game),
        decks: Some(decks(game)?),
        cpu: std::array::from_fn(|i| {
            h.seats[i].cpu.then(|| CpuCharges::new(recorded_cpu(game, i).into()))
        }),
        logged: Some(seat),
        wrap: Box::new(move |i, w| -> Writer {
            if i != seat {
                return Box::new(w);
            }
            let tape = tap.clone();
            Box::new(Tap { inner: w, seen: Box::new(move |b| tape.push(Dir::ToBot, b)) })
        }),
    };
    let summary = play(h, plan, &tape).await?;
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

/// Plays a game again through the game runner with playback bots, as `plan` says; its summary,
/// or how the playback diverged from the record.
pub(super) async fn play(h: &Header, plan: Plan, tape: &Tape) -> Result<GameSummary, String> {
    if h.seats.len() != 4 {
        return Err(format!("the header lists {} seats, not 4", h.seats.len()));
    }
    let Plan { scripts, steps, end, max_line, decks, cpu, logged, wrap } = plan;
    let (rules, seating) = convert::rules_from_wire(&h.rules)?;
    let cfg = GameConfig {
        rules,
        seating,
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
    let connect = ConnectConfig {
        handshake: Duration::from_millis(h.clock.handshake_ms),
        max_line,
        stderr_cap: 0,
        cpu_time: false,
        // The re-run seats are pipes and scripts: none takes `resume` up.
        resume_grace: Duration::ZERO,
        pre_lead_rounds: rules.has_pre_lead_rounds(),
        limits: Limits::default(),
    };
    let (trigger, stop) = shutdown::channel();
    let shared = Shared { trigger: Arc::new(trigger), end, max_line, tape: tape.clone() };

    let mut bots = Vec::with_capacity(4);
    let mut players = Vec::with_capacity(4);
    let mut cpu = cpu;
    for ((i, script), steps) in scripts.iter().enumerate().zip(steps) {
        let info = &h.seats[i];
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let (r, w) = tokio::io::split(ours);
        let writer = wrap(i, w);
        let log = (logged == Some(i)).then(|| tape.clone());
        let player = playback(i, theirs, script.clone(), steps, log, shared.clone());
        players.push(tokio::spawn(player));
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
            features: info.features.clone(),
        };
        if let Some(recorded) = cpu[i].take() {
            bot.replay_cpu(recorded);
        }
        // A seat's own clock (a person's) times the re-run as it timed the game.
        bot.clock = info.clock;
        bots.push(bot);
    }
    let mut bots: [Bot; 4] = match bots.try_into() {
        Ok(b) => b,
        Err(_) => return Err("four seats expected".into()),
    };
    let summary = {
        let [a, b, c, d] = &mut bots;
        let mut game = Game::of_setup(setup);
        if let Some(decks) = decks {
            game = game.decks(decks);
        }
        play_seated([a, b, c, d], game, &cfg, stop).await?.summary
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
    Ok(summary)
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
pub(super) fn line_limit(game: &Recorded) -> usize {
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
            RecordLine::Fault(f) => f.raw_bytes().map(<[u8]>::len),
            l => l.answered().and_then(|a| a.raw).map(String::len),
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
    let status = s.status;
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

/// Cuts the captured bytes into lines; a line takes the time its newline crossed.
pub(super) fn split_lines(events: &[Event]) -> Vec<Line> {
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

/// The `cpu_us` of seat `seat`'s answer lines (the answers the bot gave that stood, every kind
/// of question), in order: what a re-run charges its bank under the CPU clock, where no process
/// is measured.
fn recorded_cpu(game: &Recorded, seat: usize) -> std::collections::VecDeque<u64> {
    game.lines
        .iter()
        .filter_map(RecordLine::answered)
        .filter(|a| !a.auto && usize::from(a.seat) == seat)
        .map(|a| a.cpu_us.unwrap_or(0))
        .collect()
}
