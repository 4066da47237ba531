//! The bot programs the tests play with, as `--bot` commands: the sample bots of every
//! language, the test bots of referee/tests/, the tee wrapper that logs a conversation, and the
//! programs that can never play.

use super::{Scratch, quoted, root};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The built-in random bot.
pub(crate) const RANDOM: &str = "builtin:random";

/// `python3 SCRIPT ARGS`, the script given from the workspace root.
pub(crate) fn python(script: &str, args: &str) -> String {
    format!("python3 {} {args}", quoted(&root().join(script))).trim_end().to_string()
}

pub(crate) fn py_heuristic() -> String {
    python("sample-bots/python/heuristic_bot.py", "")
}

pub(crate) fn py_random() -> String {
    python("sample-bots/python/random_bot.py", "")
}

pub(crate) fn js_bot() -> String {
    format!("node {}", quoted(&root().join("sample-bots/js/bot.js")))
}

/// The command that builds every binary the tests run (`.ci/run` runs it first).
pub(crate) const BUILD_BINS: &str = "cargo build --workspace --locked --bins";

/// The Rust sample bot's executable, next to the referee binary (same target folder and
/// profile). Cargo builds only this package's binaries for its tests, and a test does not build
/// anything itself: a missing bot fails with one line naming the command that builds it.
pub(crate) fn rust_bot_path() -> &'static Path {
    static BOT: OnceLock<PathBuf> = OnceLock::new();
    BOT.get_or_init(|| built_binary("aluette-bot").unwrap_or_else(|line| panic!("{line}")))
}

/// The workspace binary `name`, built next to the referee binary; what is wrong, in one line,
/// when it is not there.
pub(crate) fn built_binary(name: &str) -> Result<PathBuf, String> {
    let bin_dir =
        Path::new(env!("CARGO_BIN_EXE_referee")).parent().expect("the referee binary has a folder");
    let bin = bin_dir.join(name);
    match bin.is_file() {
        true => Ok(bin),
        false => Err(format!(
            "{} is missing: build it first with `{BUILD_BINS}` (.ci/run does)",
            bin.display()
        )),
    }
}

/// The Rust sample bot as a `--bot` command (its path, quoted).
pub(crate) fn rust_bot() -> String {
    quoted(rust_bot_path())
}

/// The signaller test bot (referee/tests/bots/signaller.py); `accept` makes it accept every
/// chant.
pub(crate) fn signaller(accept: bool) -> String {
    python("referee/tests/bots/signaller.py", if accept { "accept" } else { "" })
}

impl Scratch {
    /// A misbehave.py bot in MODE (referee/tests/bots/misbehave.py); all bots of a test share
    /// this folder's pid file.
    pub(crate) fn misbehave(&self, mode: &str) -> String {
        let pids = quoted(&self.pidfile());
        python("referee/tests/bots/misbehave.py", &format!("{mode} {pids}"))
    }

    /// A wire_bot.py bot in MODE (referee/tests/bots/wire_bot.py), noting its pid here.
    pub(crate) fn wire_bot(&self, mode: &str) -> String {
        let pids = quoted(&self.pidfile());
        python("referee/tests/bots/wire_bot.py", &format!("{mode} {pids}"))
    }

    /// The attack sample-bots/hostile/NAME.py, noting its pids here.
    pub(crate) fn hostile(&self, name: &str) -> String {
        python(&format!("sample-bots/hostile/{name}.py"), &quoted(&self.pidfile()))
    }

    /// The shell attack sample-bots/hostile/NAME.sh, noting its pid here.
    pub(crate) fn shell(&self, name: &str) -> String {
        let script = root().join(format!("sample-bots/hostile/{name}.sh"));
        format!("sh {} {}", quoted(&script), quoted(&self.pidfile()))
    }
}

/// `bot` wrapped by the tee (referee/tests/support/tee_bot.py), which logs `seat`'s whole
/// conversation to `log` (as JSON) and to `log` + `.raw` (byte for byte).
pub(crate) fn teed(log: &Path, seat: u8, bot: &str) -> String {
    let tee = python("referee/tests/support/tee_bot.py", "");
    format!("{tee} {} {seat} -- {bot}", quoted(log))
}

/// The byte-exact log of the tee whose JSON log is `log`: its path plus `.raw`.
pub(crate) fn raw_log(log: &Path) -> PathBuf {
    let mut p = log.as_os_str().to_owned();
    p.push(".raw");
    PathBuf::from(p)
}

/// Plays a match with `bot` in `seat` and built-in bots in the others (heuristic in the even
/// seats, random in the odd ones), with `extra` options. With `tee`, the bot is wrapped by the
/// tee, logging to `seatN.jsonl` in the scratch folder; a restarted bot is a new wrapper
/// process that appends to the same log, so the log shows every connection. Returns the records
/// folder and the tee's JSON log.
pub(crate) fn play_seat(
    tmp: &Scratch,
    seat: u8,
    bot: &str,
    tee: bool,
    extra: &[&str],
) -> (PathBuf, PathBuf) {
    let log = tmp.join(&format!("seat{seat}.jsonl"));
    let dir = tmp.records();
    let wrapped = if tee { teed(&log, seat, bot) } else { bot.to_string() };
    let bots: Vec<&str> = (0..4)
        .map(|s| match s {
            s if s == seat => &wrapped,
            0 | 2 => "builtin:heuristic",
            _ => RANDOM,
        })
        .collect();
    let mut args = super::match_args("", &dir, &bots);
    args.extend_from_slice(extra);
    super::referee_ok(&args);
    (dir, log)
}

/// A bot command that waits for the file GATE before it starts `command`, from its `skip`-th
/// start on (counted in GATE.starts): with `skip` 1 a start-up check gets through, the games
/// wait; with 0 every start waits.
pub(crate) fn gated(sc: &Scratch, gate: &Path, skip: u32, command: &str) -> String {
    let script = sc.write(
        "gate.sh",
        "#!/bin/sh\n# gate.sh GATE SKIP CMD...: from the SKIP-th start on, wait for GATE.\ngate=$1; skip=$2; shift 2\necho x >> \"$gate.starts\"\nif [ \"$(wc -l < \"$gate.starts\")\" -gt \"$skip\" ]; then\n  while [ ! -e \"$gate\" ]; do sleep 0.05; done\nfi\nexec \"$@\"\n",
    );
    format!("sh {} {} {skip} {command}", quoted(&script), quoted(gate))
}

/// A bot that starts once only: it plays game 1 and exits on reading its `game_over`
/// (sample-bots/hostile/crash_between_games.py), and every later start exits at once with code 5.
pub(crate) fn starts_once(tmp: &Scratch) -> String {
    let crash = root().join("sample-bots/hostile/crash_between_games.py");
    let once = tmp.write(
        "once.sh",
        &format!(
            "#!/bin/sh\nif [ -e \"$1\" ]; then exit 5; fi\n: > \"$1\"\nexec python3 {} \"$1.pids\"\n",
            quoted(&crash)
        ),
    );
    format!("sh {} {}", quoted(&once), quoted(&tmp.join("started")))
}

/// Programs that can never play, each with a word of what the line that stops the run must say.
pub(crate) fn unplayable(tmp: &Scratch) -> Vec<(&'static str, String, &'static str)> {
    use std::os::unix::fs::PermissionsExt;
    let no_run_bit = tmp.write("no_run_bit.sh", "#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(&no_run_bit, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refuses = tmp.write(
        "refuses.py",
        "import sys\nsys.stdin.readline()\nprint('{\"type\":\"hello\",\"id\":1,\"protocol\":99,\"name\":\"x\",\"version\":\"1\"}', flush=True)\nsys.stdin.read()\n",
    );
    vec![
        ("missing", "/nonexistent/aluette-bot --level 2".into(), "(no_start: cannot start"),
        ("no-run-bit", quoted(&no_run_bit), "(no_start: cannot start"),
        (
            "exits",
            "sh -c 'echo gone >&2; exit 3'".into(),
            "(handshake_refused: exited: exit code 3)",
        ),
        ("refuses", format!("python3 {}", quoted(&refuses)), "speaks protocol 99"),
    ]
}
