//! Running the referee binary: always with a time limit (a hung run is killed and fails the
//! test instead of blocking CI), with both pipes drained while it runs, and, where a bot might
//! make it hold what it sends, with its memory watched.

// The lint steers the referee's own code to its process module (process groups, kill on drop);
// here running the referee and its bots directly is the whole point.
#![allow(clippy::disallowed_methods)]

use super::{root, text};
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// No single referee run in these tests takes more than a few seconds; a run still going after
/// this is hung, and fails instead of blocking CI.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The referee's peak resident memory (VmHWM) must stay under this whatever a bot does: a
/// debug build needs a fraction of it, and any attack that made it hold a bot's output (a
/// 100 MB line, a flood) would blow through it.
pub(crate) const MAX_HWM_KB: u64 = 64 * 1024;

/// Runs `cmd` to its end with stdout and stderr captured, and kills it and fails after `limit`.
/// Both pipes are drained while waiting, so a talkative program never blocks on a full pipe.
pub(crate) fn run_limited(cmd: &mut Command, limit: Duration) -> Output {
    run_watched(cmd, limit, None).0
}

/// [`run_limited`], sampling the program's peak resident memory every 20 ms; with a bound, a
/// program that reaches it is killed at once (the caller fails on the peak it is given back):
/// one that holds what a bot sends could otherwise take the machine's memory down with it.
/// Returns the output and the peak in kB.
pub(crate) fn run_watched(
    cmd: &mut Command,
    limit: Duration,
    bound_kb: Option<u64>,
) -> (Output, u64) {
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
    let mut peak = 0;
    let status = loop {
        // Sampled before reaping: a reaped pid could belong to someone else.
        peak = peak.max(vm_hwm_kb(child.id()).unwrap_or(0));
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if bound_kb.is_some_and(|bound| peak >= bound) {
            let _ = child.kill();
            break child.wait().expect("wait for the child");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(if bound_kb.is_some() { 20 } else { 10 }));
    };
    let output = Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    };
    (output, peak)
}

/// The peak resident set of a running process, in kB (`None` once it has exited).
pub(crate) fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
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

/// A referee run whose output is also left in files, and whose memory was watched.
#[derive(Debug)]
pub(crate) struct Logged {
    pub(crate) status: ExitStatus,
    pub(crate) stderr: String,
    /// The referee's peak resident memory, in kB.
    pub(crate) peak_kb: u64,
}

/// Runs the referee with `args`, with its memory bounded by [`MAX_HWM_KB`] (the test fails),
/// and leaves its stdout and stderr in the files `out` with the extensions `out` and `err`, to
/// read after a failure and for tests that check every byte the referee printed.
pub(crate) fn referee_logged(args: &[&str], out: &Path) -> Logged {
    let (output, peak_kb) = run_watched(&mut referee_cmd(args), RUN_LIMIT, Some(MAX_HWM_KB));
    std::fs::write(out.with_extension("out"), &output.stdout).expect("write the stdout file");
    std::fs::write(out.with_extension("err"), &output.stderr).expect("write the stderr file");
    assert!(
        peak_kb < MAX_HWM_KB,
        "referee {args:?}: peak memory reached {peak_kb} kB (killed at the bound); see {}",
        out.display()
    );
    Logged { status: output.status, stderr: text(&output.stderr), peak_kb }
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
    assert!(!out.status.success(), "referee {args:?} should fail; stdout:\n{}", text(&out.stdout));
    let line = one_line(&text(&out.stderr), |_| false, &format!("referee {args:?}"));
    assert!(
        line.starts_with("referee: ") || line.starts_with("error: "),
        "referee {args:?}: the error line does not say who speaks: {line}"
    );
    line
}

/// The one line of `stderr` that is not blank and not `other`'s (a bot's, say), failing the
/// test when there are more or none.
pub(crate) fn one_line(stderr: &str, other: impl Fn(&str) -> bool, what: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty() && !other(l)).collect();
    assert_eq!(lines.len(), 1, "{what}: want one line on stderr, got:\n{stderr}");
    lines[0].to_string()
}
