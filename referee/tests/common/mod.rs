//! Helpers shared by the referee's integration tests. Each file in tests/ is its own test crate,
//! so without this module every one of them kept its own copy of the same scratch folder, the
//! same time-limited referee run and the same /proc probes, and the copies drifted apart. This is
//! the one version, with the strongest behaviour of the copies: a hung referee is killed and the
//! test fails, and a failing test's scratch folder is kept for inspection.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]
// The lint steers the referee's own code to its process module (process groups, kill on drop);
// here running the referee and its bots directly is the whole point.
#![allow(clippy::disallowed_methods)]

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// No single referee run in these tests takes more than a few seconds; a run still going after
/// this is hung, and fails instead of blocking CI.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The workspace root, where the sample bots live.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the referee crate sits in the workspace")
        .to_path_buf()
}

/// A path quoted for the referee's shell-like `--bot` splitting, so a checkout in a folder with
/// blanks still works.
pub(crate) fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// A path as `&str`, for an argument list.
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Bytes as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The Rust sample bot's executable. Cargo builds only this package's binaries for its tests, so
/// the bot is built here, once per test process, next to the referee binary (same target folder
/// and profile). Building it is a no-op when it is up to date.
pub(crate) fn rust_bot_path() -> &'static Path {
    static BOT: OnceLock<PathBuf> = OnceLock::new();
    BOT.get_or_init(|| {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_referee"))
            .parent()
            .expect("the referee binary has a folder");
        let profile = bin_dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(root()).args(["build", "--quiet", "-p", "aluette-sample-bot"]);
        if profile != "debug" {
            cmd.args(["--profile", profile]);
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "cargo build -p aluette-sample-bot failed");
        let bot = bin_dir.join("aluette-bot");
        assert!(bot.exists(), "{} missing after the build", bot.display());
        bot
    })
}

/// The Rust sample bot as a `--bot` command (its path, quoted).
pub(crate) fn rust_bot() -> String {
    quoted(rust_bot_path())
}

/// A fresh folder for one test under Cargo's scratch space, in a subfolder named after the test
/// crate (tests run in parallel, so each test names its own). It is removed when the test passes
/// and kept when it fails, so the files of a failure can be read.
#[derive(Debug)]
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(env!("CARGO_CRATE_NAME"))
            .join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch folder");
        Scratch(dir)
    }

    /// The folder itself.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    pub(crate) fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }

    /// Writes a file into the scratch folder and returns its path.
    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.join(name);
        std::fs::write(&p, text).expect("write a scratch file");
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept {} for inspection", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs `cmd` to its end with stdout and stderr captured, and kills it and fails after `limit`.
/// Both pipes are drained while waiting, so a talkative program never blocks on a full pipe.
pub(crate) fn run_limited(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?} does not start: {e}"));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout piped")));
    let err = drain(Box::new(child.stderr.take().expect("stderr piped")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

/// The referee binary with `args`, from the workspace root, stdin closed (as a script runs it).
pub(crate) fn referee_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.args(args).current_dir(root()).stdin(Stdio::null());
    cmd
}

/// Runs the referee with `args` and returns what it did; kills it and fails after
/// [`RUN_LIMIT`].
pub(crate) fn referee(args: &[&str]) -> Output {
    run_limited(&mut referee_cmd(args), RUN_LIMIT)
}

/// Runs the referee and insists on success, showing its output otherwise; returns stdout.
pub(crate) fn referee_ok(args: &[&str]) -> String {
    let out = referee(args);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "referee {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        text(&out.stderr)
    );
    stdout
}

/// Runs the referee, insists on failure with exactly one line on stderr that says who speaks
/// (`referee: ` or clap's `error: `), and returns that line.
pub(crate) fn referee_fails(args: &[&str]) -> String {
    let out = referee(args);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "referee {args:?} should fail; stdout:\n{}", text(&out.stdout));
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "referee {args:?}: want one line on stderr, got:\n{stderr}");
    let line = lines[0].to_string();
    assert!(
        line.starts_with("referee: ") || line.starts_with("error: "),
        "referee {args:?}: the error line does not say who speaks: {line}"
    );
    line
}

/// Insists that `referee replay --quiet RECORD` exits 0, showing its stderr otherwise.
pub(crate) fn assert_replays(record: &Path) {
    let out = referee(&["replay", "--quiet", s(record)]);
    assert!(out.status.success(), "{} does not replay: {}", record.display(), text(&out.stderr));
}

/// A JSON file as a value.
pub(crate) fn read_json(p: &Path) -> Value {
    let text =
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A JSONL file (a game record, a journal) as one value per line.
pub(crate) fn jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: {e}: {l}", path.display(), n + 1))
        })
        .collect()
}

/// The fields of /proc/PID/stat after the command name (which is in parentheses and may hold
/// spaces; the fields after its closing parenthesis do not): state, parent pid, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// True while `pid` exists and has not ended (a zombie has).
pub(crate) fn alive(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f.first().is_some_and(|state| state != "Z"))
}

/// The command line of `pid`, arguments joined by NULs; empty when it is gone.
pub(crate) fn cmdline(pid: u32) -> String {
    text(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
}

/// Pids whose parent is `parent`, from /proc.
pub(crate) fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("read /proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Some(fields) = stat_fields(pid) else { continue };
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            out.push(pid);
        }
    }
    out
}
