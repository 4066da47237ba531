//! Asking a bot one question: the one loop that sends it, waits for the line with its id until a
//! deadline, skips (and reports) lines with other ids, and says how it ended when no answer
//! came. A match ([`Bot::ask`](super::Bot::ask)), `check-bot` and `replay --bot` all ask
//! through it, so a bot is heard the same way wherever it is asked.

use crate::bot::link::{Incoming, LineConn};
use crate::bot::process::{self, BotProcess};
use crate::fault::Fault;
use crate::text;
use protocol::DecodeError;
use protocol::msg::{FromBot, NO_QUESTION};
use protocol::record::FaultKind;
use std::process::ExitStatus;
use std::time::Duration;
use tokio::time::Instant;

/// Ignored lines kept per question for the record; a flood beyond them is only counted, so a bot
/// cannot make the referee hold its lines.
pub(crate) const MAX_IGNORED_KEPT: usize = 20;

/// The lines a question skipped (stale or unknown ids): the first few kept, the rest counted.
#[derive(Debug, Default)]
pub(crate) struct IgnoredLines {
    /// Each a `stale_id` or `unknown_id` fault with its line.
    pub(crate) kept: Vec<Fault>,
    pub(crate) more: u64,
}

impl IgnoredLines {
    fn push(&mut self, line: Fault) {
        if self.kept.len() < MAX_IGNORED_KEPT {
            self.kept.push(line);
        } else {
            self.more += 1;
        }
    }

    /// How many lines were skipped, kept or not.
    pub(crate) fn count(&self) -> u64 {
        self.kept.len() as u64 + self.more
    }
}

/// The far end of a question: the connection, and the process behind it when there is one.
#[derive(Debug)]
pub(crate) struct Peer<'a> {
    pub(crate) conn: &'a mut LineConn,
    /// Watched while waiting: a bot can die while a child it started still holds its stdout
    /// open, so end of file never comes.
    pub(crate) process: Option<&'a mut BotProcess>,
    /// Reached over the network: a connection that closes or fails is `disconnected`.
    pub(crate) tcp: bool,
}

/// How long a question may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    /// Wall time, from the question written to the answer read.
    Wall(Duration),
    /// The bot process's CPU time (since its previous answer), and at most `wall` of wall time:
    /// the CPU clock (spec/protocol.md section 5). Without a CPU clock on the process (a
    /// replay charges recorded times), only the wall cap is enforced.
    Cpu {
        /// CPU time allowed.
        cpu: Duration,
        /// Wall time allowed.
        wall: Duration,
    },
}

impl From<Duration> for Limit {
    fn from(wall: Duration) -> Limit {
        Limit::Wall(wall)
    }
}

impl Limit {
    /// The wall time the question may take.
    fn wall(self) -> Duration {
        match self {
            Limit::Wall(wall) | Limit::Cpu { wall, .. } => wall,
        }
    }

    /// The `timeout` fault of a question with this limit.
    fn timed_out(self) -> Heard {
        let detail = match self {
            Limit::Wall(wall) => format!("no answer within {} ms", wall.as_millis()),
            Limit::Cpu { cpu, wall } => format!(
                "no answer within {} ms of CPU time ({} ms of wall time at most)",
                cpu.as_millis(),
                wall.as_millis()
            ),
        };
        Heard::Fault(Fault::new(FaultKind::Timeout, detail))
    }
}

/// How a question ended.
#[derive(Debug)]
pub(crate) enum Heard {
    /// The answer with the question's id, its think time (from the start of the write), and the
    /// CPU time its process used since its previous answer (when measured). Its line is the
    /// connection's [`LineConn::line`] until the next read: [`answer_text`] makes the text.
    Answer(FromBot, Duration, Option<Duration>),
    /// A line that is not a bot message: why, and the line's bytes as sent.
    Malformed(DecodeError, Vec<u8>),
    /// No usable answer, and the bot may be asked again: a line over the limit, or no answer
    /// in time.
    Fault(Fault),
    /// The bot can no longer be asked: its process ended, its output closed, reading it failed,
    /// or it does not read its input.
    Gone(Fault),
}

/// Writes what is queued on the connection (the question last) and waits at most `limit` for
/// the answer to question `id`. Lines with other ids are skipped and reported in `ignored`.
pub(crate) async fn ask(
    peer: Peer<'_>,
    id: u64,
    limit: impl Into<Limit>,
    ignored: &mut IgnoredLines,
) -> Heard {
    let Peer { conn, mut process, tcp } = peer;
    let heard = listen(conn, process.as_deref_mut(), tcp, id, limit.into(), ignored).await;
    // Each question is charged the CPU time spent for it, once. An answer moved the clock's mark
    // when it was read; any other end (a timeout above all) moves it now, or every later question
    // would start with this one's overrun already spent and time out at once (issue 23). What
    // the bot spends from here to its next question still counts towards that question.
    if !matches!(heard, Heard::Answer(..))
        && let Some(clock) = process.and_then(BotProcess::cpu)
    {
        clock.restart();
    }
    heard
}

/// [`ask`]'s wait, once the peer is taken apart.
async fn listen(
    conn: &mut LineConn,
    mut process: Option<&mut BotProcess>,
    tcp: bool,
    id: u64,
    limit: Limit,
    ignored: &mut IgnoredLines,
) -> Heard {
    // The clock starts before the question is written: a bot on the referee's CPU, woken by
    // the write, may run (and think) before the write returns.
    let sent = Instant::now();
    let deadline = sent + limit.wall();
    if let Err(e) = conn.flush(deadline).await {
        return Heard::Gone(write_failed(process, tcp, e).await);
    }
    // Under the CPU clock the read wakes when the bot could have spent what is left of its CPU
    // time (a thread spends it no faster than the wall clock runs; what it spent since its last
    // answer counts), looks, and sleeps again for what is then left.
    let (cpu_limit, spent) = match limit {
        Limit::Cpu { cpu, .. } => match process.as_deref_mut().and_then(BotProcess::cpu) {
            Some(clock) => (Some(cpu), clock.used().unwrap_or_default()),
            None => (None, Duration::ZERO),
        },
        Limit::Wall(_) => (None, Duration::ZERO),
    };
    let mut wake =
        cpu_limit.map_or(deadline, |cpu| (sent + cpu.saturating_sub(spent)).min(deadline));
    loop {
        // The read comes first: an answer already in the pipe costs no look at the watcher.
        let incoming = match process.as_deref_mut() {
            Some(p) => tokio::select! {
                biased;
                incoming = conn.next(wake) => incoming,
                status = p.wait() => return Heard::Gone(exited(status)),
            },
            None => conn.next(wake).await,
        };
        // The process's end wins over whatever the read brought: a line still in the pipe may
        // have been written by what the bot left behind, not by the bot. The exit may not have
        // been reported yet, so it is looked up (end of file has its own look, which waits).
        if !matches!(incoming, Incoming::Eof { .. })
            && let Some(status) = process.as_deref_mut().and_then(BotProcess::ended_lately)
        {
            return Heard::Gone(exited(status));
        }
        match incoming {
            Incoming::Line => {
                let msg = match FromBot::decode(conn.line()) {
                    Ok(msg) => msg,
                    Err(e) => return Heard::Malformed(e, conn.line().to_vec()),
                };
                if msg.id() == id {
                    // The input is looked at before the clock, so an answer that was waiting
                    // when the referee, kept from running (a busy machine), got to look after
                    // the deadline is taken; it is charged as at the deadline, since the
                    // referee cannot tell when it came (spec/protocol.md section 5).
                    let took = sent.elapsed().min(limit.wall());
                    let cpu =
                        process.as_deref_mut().and_then(BotProcess::cpu).and_then(|c| c.take());
                    // A bot with several threads can spend CPU time faster than the clock runs.
                    if let (Some(allowed), Some(used)) = (cpu_limit, cpu)
                        && used >= allowed
                    {
                        return limit.timed_out();
                    }
                    return Heard::Answer(msg, took, cpu);
                }
                ignored.push(stray(&msg, id).with_raw(conn.line().to_vec()));
            }
            Incoming::TooLong => {
                let detail = format!("a line longer than {} bytes", conn.max_line());
                return Heard::Fault(Fault::new(FaultKind::LineTooLong, detail));
            }
            Incoming::Deadline => match next_wake(cpu_limit, process.as_deref_mut(), deadline) {
                Some(next) => wake = next,
                None => return limit.timed_out(),
            },
            Incoming::Eof { partial } => return Heard::Gone(ended(process, tcp, partial).await),
            Incoming::Error(e) => {
                let kind = if tcp { FaultKind::Disconnected } else { FaultKind::ClosedStdout };
                return Heard::Gone(Fault::new(kind, format!("reading the bot failed: {e}")));
            }
        }
        // Only an ignored line or a look at the CPU clock gets here. Checked after each: a bot
        // that floods valid lines keeps the read ready, so the read's own timer would never get
        // its turn.
        if Instant::now() >= wake {
            match next_wake(cpu_limit, process.as_deref_mut(), deadline) {
                Some(next) => wake = next,
                None => return limit.timed_out(),
            }
        }
    }
}

/// When a question's wait, woken at its CPU clock's look, must look again; `None` once its time
/// is up: the wall `deadline` passed, or the process spent its CPU time (`cpu_limit`).
fn next_wake(
    cpu_limit: Option<Duration>,
    process: Option<&mut BotProcess>,
    deadline: Instant,
) -> Option<Instant> {
    let now = Instant::now();
    if now >= deadline {
        return None;
    }
    let Some(allowed) = cpu_limit else { return Some(deadline) };
    match process.and_then(BotProcess::cpu).and_then(|c| c.used()) {
        Some(used) if used >= allowed => None,
        Some(used) => Some((now + (allowed - used)).min(deadline)),
        // The clock is gone with the process, whose end the wait is about to see.
        None => Some(deadline),
    }
}

/// The fault of a line that answers another question than `open`.
fn stray(msg: &FromBot, open: u64) -> Fault {
    let (kind, id) = (msg.kind(), msg.id());
    if (1..open).contains(&id) {
        let detail = format!("{kind} answer with id {id} while question {open} is open");
        Fault::new(FaultKind::StaleId, detail)
    } else if id == NO_QUESTION {
        let detail = format!(
            "{kind} answer with an id no question has (ids are integers from 1; 0, negative \
             numbers, numbers beyond 2^64 - 1 and numbers with a fraction or an exponent are none)"
        );
        Fault::new(FaultKind::UnknownId, detail)
    } else {
        Fault::new(FaultKind::UnknownId, format!("{kind} answer with id {id} that was never asked"))
    }
}

/// The text of an answer's line ([`Heard::Answer`]), to keep. Nothing is replaced: a line that
/// decoded is UTF-8.
pub(crate) fn answer_text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).into_owned()
}

/// The `malformed` fault of a line that is not a bot message, keeping the line.
pub(crate) fn malformed(error: &DecodeError, line: Vec<u8>) -> Fault {
    Fault::new(FaultKind::Malformed, excerpt(&error.to_string(), &line)).with_raw(line)
}

/// An error message with the start of the offending line, safe to print and record.
fn excerpt(error: &str, line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(80)]);
    let more = if line.len() > 80 { "..." } else { "" };
    // A decoder's message can quote the line (an unknown variant): escaped like the excerpt.
    format!("{} in line {text:?}{more}", text::escape(error))
}

/// The `exited` fault of a process that ended with `status` (`None`: it could not be known).
pub(crate) fn exited(status: Option<ExitStatus>) -> Fault {
    let detail = status.map_or_else(|| "ended".to_string(), process::describe_exit);
    Fault::new(FaultKind::Exited, detail)
}

/// Why a bot's output ended (`partial` bytes of an unfinished line were left): its process
/// exited, or it closed its stdout or its connection.
pub(crate) async fn ended(process: Option<&mut BotProcess>, tcp: bool, partial: usize) -> Fault {
    let half = if partial > 0 {
        format!(" after a half-sent line of {partial} bytes")
    } else {
        String::new()
    };
    match process {
        Some(p) => match p.exit_status(Duration::from_millis(500)).await {
            Some(status) => {
                Fault::new(FaultKind::Exited, format!("{}{half}", process::describe_exit(status)))
            }
            None => Fault::new(
                FaultKind::ClosedStdout,
                format!("closed its stdout but kept running{half}"),
            ),
        },
        None if tcp => Fault::new(FaultKind::Disconnected, format!("the connection closed{half}")),
        None => Fault::new(FaultKind::ClosedStdout, format!("closed the connection{half}")),
    }
}

/// Why writing to a bot failed: it does not read its input (the write's deadline passed, or it
/// closed its stdin), its process exited, or its connection closed.
pub(crate) async fn write_failed(
    process: Option<&mut BotProcess>,
    tcp: bool,
    e: std::io::Error,
) -> Fault {
    if e.kind() == std::io::ErrorKind::TimedOut {
        return Fault::new(FaultKind::Timeout, "stopped reading its input");
    }
    match process {
        Some(p) => match p.exit_status(Duration::from_millis(500)).await {
            Some(status) => Fault::new(FaultKind::Exited, process::describe_exit(status)),
            // Its stdout may well be open still (it can go on writing answers), so this is
            // not `closed_stdout`: a bot that closed its stdin stopped reading its input,
            // which spec 6.1 classes as `timeout`, found at once rather than by the clock.
            None => Fault::new(
                FaultKind::Timeout,
                format!("stopped reading its input: it closed its stdin ({e})"),
            ),
        },
        None if tcp => Fault::new(FaultKind::Disconnected, format!("the connection failed: {e}")),
        None => Fault::new(FaultKind::ClosedStdout, format!("connection closed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::msg::ToBot;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    /// A connection to an in-memory bot, whose end of the pipe the test holds.
    fn pipe(max_line: usize) -> (LineConn, DuplexStream) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(ours);
        (LineConn::new(Box::new(r), Box::new(w), max_line), theirs)
    }

    fn peer(conn: &mut LineConn, tcp: bool) -> Peer<'_> {
        Peer { conn, process: None, tcp }
    }

    fn question(conn: &mut LineConn, id: u64) {
        conn.queue(&ToBot::Bye { reason: format!("question {id}") });
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn the_answer_with_the_id_is_heard_and_other_ids_are_skipped() {
        let (mut conn, mut bot) = pipe(4096);
        question(&mut conn, 3);
        bot.write_all(
            b"{\"type\":\"play\",\"id\":2,\"card\":\"3o\"}\n\
              {\"type\":\"play\",\"id\":9,\"card\":\"3o\"}\n\
              {\"type\":\"play\",\"id\":0,\"card\":\"3o\"}\n\
              {\"type\":\"play\",\"id\":3,\"card\":\"Kc\"}\n",
        )
        .await
        .unwrap();
        let mut ignored = IgnoredLines::default();
        let heard = ask(peer(&mut conn, false), 3, SECOND, &mut ignored).await;
        let Heard::Answer(msg, _, _) = heard else { panic!("{heard:?}") };
        assert_eq!(msg.id(), 3);
        assert_eq!(answer_text(conn.line()), r#"{"type":"play","id":3,"card":"Kc"}"#);
        let kinds: Vec<FaultKind> = ignored.kept.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, [FaultKind::StaleId, FaultKind::UnknownId, FaultKind::UnknownId]);
        assert_eq!(ignored.kept[0].detail, "play answer with id 2 while question 3 is open");
        assert_eq!(ignored.kept[1].detail, "play answer with id 9 that was never asked");
        assert!(ignored.kept[2].detail.contains("an id no question has"));
        assert_eq!(
            ignored.kept[0].raw.as_deref(),
            Some(&br#"{"type":"play","id":2,"card":"3o"}"#[..])
        );
        // The question went out before the answer was read.
        let mut got = vec![0; 256];
        let n = bot.read(&mut got).await.unwrap();
        assert_eq!(&got[..n], b"{\"type\":\"bye\",\"reason\":\"question 3\"}\n");
    }

    #[tokio::test(start_paused = true)]
    async fn a_line_that_is_no_message_is_malformed_with_its_bytes() {
        let (mut conn, mut bot) = pipe(4096);
        question(&mut conn, 1);
        bot.write_all(b"not json \xff\n").await.unwrap();
        let heard = ask(peer(&mut conn, false), 1, SECOND, &mut IgnoredLines::default()).await;
        let Heard::Malformed(e, line) = heard else { panic!("{heard:?}") };
        assert_eq!(line, b"not json \xff");
        let fault = malformed(&e, line);
        assert_eq!(fault.kind, FaultKind::Malformed);
        assert!(fault.detail.contains("in line \"not json \u{fffd}\""), "{}", fault.detail);
        assert_eq!(fault.raw.as_deref(), Some(&b"not json \xff"[..]));
    }

    #[tokio::test(start_paused = true)]
    async fn silence_is_a_timeout_and_too_long_a_line_is_said() {
        let (mut conn, mut bot) = pipe(16);
        question(&mut conn, 1);
        let heard = ask(peer(&mut conn, false), 1, SECOND, &mut IgnoredLines::default()).await;
        let Heard::Fault(f) = heard else { panic!("{heard:?}") };
        assert_eq!((f.kind, f.detail.as_str()), (FaultKind::Timeout, "no answer within 1000 ms"));
        bot.write_all(b"0123456789abcdefXYZ\n").await.unwrap();
        question(&mut conn, 2);
        let heard = ask(peer(&mut conn, false), 2, SECOND, &mut IgnoredLines::default()).await;
        let Heard::Fault(f) = heard else { panic!("{heard:?}") };
        assert_eq!(f, Fault::new(FaultKind::LineTooLong, "a line longer than 16 bytes"));
    }

    /// Under the CPU clock with no process to measure (a replay charges recorded times), only the
    /// wall cap ends the wait, and the fault says both limits.
    #[tokio::test(start_paused = true)]
    async fn the_cpu_clock_without_a_process_waits_for_its_wall_cap() {
        let (mut conn, _bot) = pipe(4096);
        question(&mut conn, 1);
        let limit = Limit::Cpu { cpu: SECOND, wall: 4 * SECOND };
        let start = Instant::now();
        let heard = ask(peer(&mut conn, false), 1, limit, &mut IgnoredLines::default()).await;
        assert_eq!(start.elapsed(), 4 * SECOND);
        let Heard::Fault(f) = heard else { panic!("{heard:?}") };
        assert_eq!(
            (f.kind, f.detail.as_str()),
            (
                FaultKind::Timeout,
                "no answer within 1000 ms of CPU time (4000 ms of wall time at most)"
            )
        );
    }

    /// A bot that floods lines with other ids keeps the read ready: the deadline still ends the
    /// question, and the flood is counted beyond the kept lines.
    #[tokio::test(start_paused = true)]
    async fn a_flood_of_other_ids_still_times_out() {
        let (mut conn, mut bot) = pipe(4096);
        question(&mut conn, 5);
        let flood = tokio::spawn(async move {
            let line = b"{\"type\":\"play\",\"id\":4,\"card\":\"3o\"}\n";
            loop {
                if bot.write_all(line).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        let mut ignored = IgnoredLines::default();
        let heard = ask(peer(&mut conn, false), 5, SECOND, &mut ignored).await;
        flood.abort();
        let Heard::Fault(f) = heard else { panic!("{heard:?}") };
        assert_eq!(f.kind, FaultKind::Timeout);
        assert_eq!(ignored.kept.len(), MAX_IGNORED_KEPT);
        assert!(ignored.more > 0, "{ignored:?}");
        assert_eq!(ignored.count(), ignored.kept.len() as u64 + ignored.more);
    }

    #[tokio::test(start_paused = true)]
    async fn the_end_of_the_stream_is_gone_and_says_how() {
        for (tcp, kind, detail) in [
            (
                false,
                FaultKind::ClosedStdout,
                "closed the connection after a half-sent line of 4 bytes",
            ),
            (
                true,
                FaultKind::Disconnected,
                "the connection closed after a half-sent line of 4 bytes",
            ),
        ] {
            let (mut conn, mut bot) = pipe(4096);
            question(&mut conn, 1);
            bot.write_all(b"{\"ty").await.unwrap();
            // The bot's output ends; its input stays open, so the question is written.
            bot.shutdown().await.unwrap();
            let heard = ask(peer(&mut conn, tcp), 1, SECOND, &mut IgnoredLines::default()).await;
            let Heard::Gone(f) = heard else { panic!("{heard:?}") };
            assert_eq!(f, Fault::new(kind, detail));
        }
    }

    /// A bot that does not read its input is gone as soon as the question's write times out.
    #[tokio::test(start_paused = true)]
    async fn a_bot_that_does_not_read_is_gone() {
        let (ours, _theirs) = tokio::io::duplex(64);
        let (r, w) = tokio::io::split(ours);
        let mut conn = LineConn::new(Box::new(r), Box::new(w), 4096);
        conn.queue(&ToBot::Bye { reason: "x".repeat(1024) });
        let heard = ask(peer(&mut conn, false), 1, SECOND, &mut IgnoredLines::default()).await;
        let Heard::Gone(f) = heard else { panic!("{heard:?}") };
        assert_eq!(f, Fault::new(FaultKind::Timeout, "stopped reading its input"));
    }
}
