//! check-bot's own conversation with the bot: starting it, asking it one question as the
//! referee asks, and handing the connection over to a `Bot` for the real games.

use super::answers::shorten;
use super::{Checker, Got, with_extra};
use crate::bot::ask::{self, Heard, IgnoredLines, Peer};
use crate::bot::link::LineConn;
use crate::bot::players::builtin::{self, Builtin};
use crate::bot::process::{self, Limits, SpawnSpec};
use crate::bot::{Bot, BotSpec};
use crate::fault::Fault;
use protocol::msg::ToBot;
use protocol::record::FaultKind;
use std::time::Duration;
use tokio::time::Instant;

impl Checker {
    /// Starts the bot: a program through the process module, a built-in over an in-memory pipe.
    pub(super) fn start(&mut self) -> Result<(), String> {
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
            BotSpec::TcpSeat { .. }
            | BotSpec::TcpConnect(_)
            | BotSpec::Human { .. }
            | BotSpec::InProcess { .. }
            | BotSpec::Accepted => {
                return Err("check-bot cannot start a TCP bot or a human seat".into());
            }
        }
        Ok(())
    }

    /// Why the bot's output ended, found as the referee finds it.
    pub(super) async fn ended(&mut self) -> Fault {
        ask::ended(self.process.as_mut(), false, 0).await
    }

    /// Notes that the bot is gone, for the reason `fault` gives; later checks fail with it.
    pub(super) fn gone(&mut self, fault: &Fault) -> String {
        self.wire = None;
        let why = format!("the bot is no longer running ({})", fault.detail);
        self.blocked = Some(why.clone());
        why
    }

    pub(super) fn queue(&mut self, msg: &ToBot) {
        if let Some(w) = self.wire.as_mut() {
            w.queue(msg);
        }
    }

    /// Sends the queued notices and the question `build(id)`, and waits for the line that
    /// answers it: the first with its id, or the first that is not a valid bot message, heard as
    /// the referee hears it (lines with other ids are skipped). `Err` means the conversation is
    /// over: the bot died or stalled, and later checks are blocked.
    pub(super) async fn ask(
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
            Heard::Answer(msg, took, _) => (Got::Answer(msg, ask::answer_text(wire.line())), took),
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

    pub(super) fn note_time(&mut self, took: Duration, what: String) {
        if self.slowest.as_ref().is_none_or(|(t, _)| took > *t) {
            self.slowest = Some((took, what));
        }
    }

    /// Hands the connection to a [`Bot`] for the game runner, with the ids and identity it has.
    pub(super) async fn hand_over(&mut self) -> Result<(), String> {
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
    pub(super) async fn shut_down(&mut self) {
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
}

/// The skipped lines that were kept, shortened, for a detail.
fn stray_lines(lines: &IgnoredLines) -> Vec<String> {
    let raw = |f: &Fault| shorten(&String::from_utf8_lossy(f.raw.as_deref().unwrap_or_default()));
    lines.kept.iter().map(raw).collect()
}
