//! Before the first game, every bot program must have started and answered its handshake once.
//! A program that cannot (missing, without its run bit, exiting at once, refusing the hello)
//! would otherwise lose every game to the fallback under its seat's or entrant's name, and a
//! match or tournament would end "successfully" with results that mean nothing; so it stops the
//! run with one line instead. Later failures (a bot that played and then cannot be restarted)
//! stay faults in the record, as the policy says.
//!
//! Only programs are checked, and in a match the bots that listen (`tcp://HOST:PORT`), which the
//! first game reaches exactly as the check would: built-in bots cannot fail to start, and a TCP
//! seat is filled by whoever connects, which is the lobby's concern. A tournament does not check
//! a bot that listens on its own (it may take one connection only), so its first table does.

use crate::bot::{Bot, BotSpec, ConnectConfig};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a checked bot may take to exit after its `bye` before its group is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// What a bot started only for the check is told.
const CHECKED: &str = "start-up check passed; the games start with a new process";

/// Why a run cannot start: one of its programs did not start or did not pass its handshake.
#[derive(Debug)]
pub(crate) struct Refusal {
    line: String,
    log: Option<PathBuf>,
}

impl Refusal {
    /// The run's stopping line. Called once the bots are closed, when their stderr logs are
    /// complete: the line points to the log when it holds something (a traceback, say).
    pub(crate) fn line(self) -> String {
        match self.log.filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0)) {
            Some(log) => format!("{}; its stderr is in {}", self.line, log.display()),
            None => self.line,
        }
    }
}

/// The first of `bots` (each named by who it plays for: "player 2", "entrant \"b\"") whose
/// program did not start or did not pass its handshake. Their stderr logs are under
/// `stderr_dir`.
pub(crate) fn refusal<'a>(
    bots: impl IntoIterator<Item = (&'a str, &'a Bot)>,
    stderr_dir: Option<&Path>,
) -> Option<Refusal> {
    bots.into_iter().find_map(|(who, bot)| {
        // A bot that listens is reached like a program is started: once, by the referee, so
        // one that cannot be reached is as wrong as a missing program.
        let shown = match &bot.spec {
            BotSpec::Command(argv) => shown_command(argv),
            BotSpec::TcpConnect(addr) => format!("the bot listening at {addr}"),
            _ => return None,
        };
        let dead = bot.dead()?;
        Some(Refusal {
            line: format!(
                "{who} cannot play: {shown} did not start and answer its hello ({}: {}); no game was played",
                dead.kind.as_str(),
                dead.detail,
            ),
            log: stderr_dir.zip(bot.stderr_log.as_deref()).map(|(d, log)| normalised(&d.join(log))),
        })
    })
}

/// A bot program to check before the first game.
#[derive(Debug)]
pub(crate) struct Program {
    /// Who it plays for: "entrant \"b\"".
    pub(crate) who: String,
    pub(crate) spec: BotSpec,
    /// Its stderr log's name, relative to the logs folder, without `.stderr.log`.
    pub(crate) log_stem: String,
}

/// Starts each distinct program among `programs` once, performs the handshake, and ends it;
/// the first that fails gives the run's stopping line, naming everyone who runs that program.
/// Checks run side by side, so a slow starter costs its own start-up once. Built-in and TCP
/// bots are skipped.
pub(crate) async fn check(
    programs: &[Program],
    cfg: &ConnectConfig,
    stderr_dir: Option<&Path>,
) -> Result<(), String> {
    let mut distinct: Vec<(Vec<&str>, &Program)> = Vec::new();
    for p in programs.iter().filter(|p| matches!(p.spec, BotSpec::Command(_))) {
        match distinct.iter_mut().find(|(_, q)| q.spec == p.spec) {
            Some((names, _)) => names.push(&p.who),
            None => distinct.push((vec![&p.who], p)),
        }
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (k, (_, p)) in distinct.iter().enumerate() {
        let (spec, cfg, stem) = (p.spec.clone(), cfg.clone(), p.log_stem.clone());
        let dir: Option<PathBuf> = stderr_dir.map(Path::to_path_buf);
        tasks.spawn(async move {
            let bot = Bot::connect(spec, &cfg, dir.as_deref(), &stem, None).await;
            (k, bot)
        });
    }
    let mut bots: Vec<Option<Bot>> = (0..distinct.len()).map(|_| None).collect();
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok((k, bot)) => bots[k] = Some(bot),
            Err(e) => return Err(format!("the start-up check of the bots failed: {e}")),
        }
    }
    let names: Vec<String> = distinct.iter().map(|(who, _)| join_names(who)).collect();
    let checked = names.iter().zip(&bots).filter_map(|(who, b)| Some((who.as_str(), b.as_ref()?)));
    let refused = refusal(checked, stderr_dir);
    let closing: Vec<_> =
        bots.into_iter().flatten().map(|b| b.close(CHECKED, CLOSE_GRACE)).collect();
    for c in closing {
        c.await;
    }
    refused.map_or(Ok(()), |r| Err(r.line()))
}

/// "entrant \"a\"", or "entrants \"a\" and \"b\"" when several run the same program.
fn join_names(who: &[&str]) -> String {
    match who {
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

/// A command as a person typed it (words with blanks quoted).
fn shown_command(argv: &[String]) -> String {
    let words: Vec<String> = argv
        .iter()
        .map(|w| if w.contains(char::is_whitespace) { format!("{w:?}") } else { w.clone() })
        .collect();
    format!("`{}`", words.join(" "))
}

/// `records/../logs/x` as `logs/x`: a tournament's records name their bots' logs from the
/// records folder.
fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths_read_as_a_person_wrote_them() {
        assert_eq!(join_names(&["entrant \"a\""]), "entrant \"a\"");
        assert_eq!(join_names(&["x", "y", "z"]), "x, y and z");
        let argv = vec!["python3".to_string(), "my bot.py".to_string()];
        assert_eq!(shown_command(&argv), "`python3 \"my bot.py\"`");
        assert_eq!(normalised(Path::new("t/records/../logs/a.log")), Path::new("t/logs/a.log"));
    }
}
