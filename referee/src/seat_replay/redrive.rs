//! `--bot`: a real bot program fed the seat's re-derived conversation, its answers compared
//! with the recorded ones, and `--until` stopping before one question.

use super::rerun::line_limit;
use super::script::Move;
use super::tape::question;
use super::{Conversation, Dir, MARGIN, Recorded};
use crate::bot::ask::{self, Heard, IgnoredLines, Peer};
use crate::bot::link::LineConn;
use crate::bot::process::{self, Limits, SpawnSpec};
use crate::fault::Fault;
use protocol::codec::decode_line;
use protocol::msg::{FromBot, ToBot};
use protocol::record::FaultKind;
use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::time::Instant;

/// Where `--until` stops: before the first question of a deal, or of one of its tricks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Until {
    pub(super) deal: u64,
    pub(super) trick: Option<u64>,
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
    let argv =
        crate::bot::process::shell::split(text).map_err(|e| format!("--bot {text:?}: {e}"))?;
    if argv.len() == 1 && (argv[0].starts_with("builtin:") || argv[0].starts_with("tcp")) {
        return Err(format!("--bot {text:?}: replay re-drives a bot program; give its command"));
    }
    Ok(argv)
}

/// An answer as the comparison sees it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Said {
    Answer(FromBot),
    /// A line that is not a bot message, as its bytes.
    Malformed(Vec<u8>),
    TooLong,
    Nothing,
    Ended,
    Unrecorded,
}

impl Said {
    pub(super) fn of_line(raw: &[u8]) -> Said {
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
    pub(super) fn same(&self, other: &Said) -> bool {
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

    pub(super) fn text(&self, asked: &str) -> String {
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
                    FromBot::Offer { offer, .. } => {
                        (if *offer { "offer" } else { "no offer" }).into()
                    }
                    FromBot::Reply { accept, .. } => {
                        (if *accept { "accept" } else { "refuse" }).into()
                    }
                    FromBot::Announce { announce, .. } => {
                        (if *announce { "announce" } else { "no announcement" }).into()
                    }
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
pub(super) async fn redrive(
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
            // What the match would have offered this command under the recorded rules.
            features: crate::bot::offered_features(
                &crate::bot::BotSpec::Command(argv.to_vec()),
                convert::pre_lead_rounds(&game.header.rules),
            ),
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
