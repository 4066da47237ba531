//! Runs `referee match` as a child and measures it from outside: wall time, the referee's own
//! CPU time apart from its bots', its peak memory, and the work done as its JSON result reports.

use crate::sys::{self, Pinned};
use serde_json::Value;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How often the peak memory is sampled: VmHWM is a high-water mark, so a sample only needs
/// to come after the peak, and 10 ms costs the machine nothing.
const SAMPLE_EVERY: Duration = Duration::from_millis(10);

/// One `referee match` to run.
#[derive(Clone, Debug)]
pub(crate) struct Launch {
    pub(crate) referee: PathBuf,
    /// The `--bot` values: one command line for all four seats, or one per seat.
    pub(crate) bots: Vec<String>,
    pub(crate) games: u64,
    pub(crate) seed: u64,
    /// CPU the referee and its bots are confined to, if any.
    pub(crate) cpu: Option<usize>,
    /// Pass `--no-pin`: a referee that has it pins itself (and its bots) to one CPU by default,
    /// so an unpinned run must say so.
    pub(crate) no_pin: bool,
    /// More `referee match` flags (the TCP listener's, say).
    pub(crate) extra: Vec<String>,
}

impl Launch {
    /// The `--bot` values as one text, for messages.
    pub(crate) fn bots_shown(&self) -> String {
        self.bots.join(" / ")
    }
}

/// Whether this referee's `match` knows `--no-pin` (it pins itself unless told not to).
pub(crate) fn has_no_pin(referee: &std::path::Path) -> io::Result<bool> {
    let out = sys::command(referee).args(["match", "--help"]).stdin(Stdio::null()).output()?;
    Ok(String::from_utf8_lossy(&out.stdout).contains("--no-pin"))
}

/// What one run did and cost.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outcome {
    /// From spawning the referee to its exit: start-up, handshakes and closing included.
    pub(crate) wall: Duration,
    /// The referee's own user + system time (all its threads), in microseconds.
    pub(crate) referee_cpu_us: f64,
    /// Its bots' user + system time, in microseconds.
    pub(crate) bots_cpu_us: f64,
    /// Highest VmHWM sampled, in KiB.
    pub(crate) peak_rss_kib: Option<u64>,
    pub(crate) games: u64,
    pub(crate) complete: u64,
    /// Deals played, the ones dealt again after all tricks were spoiled included.
    pub(crate) deals: u64,
    /// Answers the bots gave in time, over all seats and games.
    pub(crate) answers: u64,
    /// Faults of every kind (an instant bot should have none).
    pub(crate) faults: u64,
    /// Sum of the referee's own per-answer timings (question written to answer read).
    pub(crate) think_us: u64,
    /// The referee's first warning on stderr (a bot that is not playing, say), for messages.
    pub(crate) warning: Option<String>,
}

impl Outcome {
    /// What `self` did and cost beyond `base`, a shorter run of the same match: the later
    /// games alone. Peak memory is not a difference and is left out.
    pub(crate) fn minus(&self, base: &Outcome) -> Outcome {
        Outcome {
            wall: self.wall.saturating_sub(base.wall),
            referee_cpu_us: self.referee_cpu_us - base.referee_cpu_us,
            bots_cpu_us: self.bots_cpu_us - base.bots_cpu_us,
            peak_rss_kib: None,
            games: self.games.saturating_sub(base.games),
            complete: self.complete.saturating_sub(base.complete),
            deals: self.deals.saturating_sub(base.deals),
            answers: self.answers.saturating_sub(base.answers),
            faults: self.faults.saturating_sub(base.faults),
            think_us: self.think_us.saturating_sub(base.think_us),
            warning: self.warning.clone(),
        }
    }
}

/// Runs all `launches` at once and returns their outcomes in order.
pub(crate) fn run_all(launches: &[Launch]) -> io::Result<Vec<Outcome>> {
    let mut started = Vec::with_capacity(launches.len());
    for launch in launches {
        started.push(start(launch)?);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> =
            started.into_iter().map(|r| s.spawn(move || r.finish().and_then(outcome))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("monitor panicked"))))
            .collect()
    })
}

/// Spawns one `referee match`, under its CPU pin if it has one.
pub(crate) fn start(launch: &Launch) -> io::Result<Running> {
    let mut cmd = sys::command(&launch.referee);
    cmd.args(["match", "--no-records", "--json", "--games"])
        .arg(launch.games.to_string())
        .arg("--seed")
        .arg(launch.seed.to_string());
    for bot in &launch.bots {
        cmd.arg("--bot").arg(bot);
    }
    cmd.args(launch.no_pin.then_some("--no-pin")).args(&launch.extra);
    spawn(cmd, launch.cpu, &launch.referee)
}

/// A referee running under the bench's watch.
#[derive(Debug)]
pub(crate) struct Running {
    child: Child,
    t0: Instant,
    stderr: BufReader<ChildStderr>,
    /// The stderr lines already read by [`Running::stderr_line`], kept for error messages.
    early: Vec<u8>,
}

/// Spawns `cmd` (a referee) with piped output, under a CPU pin if given.
pub(crate) fn spawn(mut cmd: Command, cpu: Option<usize>, program: &Path) -> io::Result<Running> {
    // The guard pins this thread only while spawning: the child inherits the set at fork, and
    // the next launch can go to another CPU.
    let _pin = cpu.map(Pinned::to).transpose()?;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let t0 = Instant::now();
    let mut child = cmd.spawn().map_err(|e| {
        io::Error::new(e.kind(), format!("cannot start {}: {e}", program.display()))
    })?;
    let stderr = child.stderr.take().ok_or_else(|| io::Error::other("no stderr pipe"))?;
    Ok(Running { child, t0, stderr: BufReader::new(stderr), early: Vec::new() })
}

/// What a referee's run cost, seen from outside, and what it printed.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) wall: Duration,
    pub(crate) ticks: sys::CpuTicks,
    pub(crate) peak_rss_kib: Option<u64>,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
}

impl Running {
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Reads the referee's stderr up to a line that starts with `prefix` and returns the rest
    /// of that line (the TCP listener's address, say). An error when stderr ends first.
    pub(crate) fn stderr_line(&mut self, prefix: &str) -> io::Result<String> {
        loop {
            let mut line = String::new();
            if self.stderr.read_line(&mut line)? == 0 {
                return Err(io::Error::other(format!(
                    "the referee never printed {prefix:?}: {}",
                    one_line(&self.early)
                )));
            }
            self.early.extend_from_slice(line.as_bytes());
            if let Some(rest) = line.trim_end().strip_prefix(prefix) {
                return Ok(rest.trim().to_string());
            }
        }
    }

    /// Waits for the referee while sampling its memory, then reads its times; an error (with
    /// its stderr on one line) when it exits with a failure.
    pub(crate) fn finish(self) -> io::Result<Finished> {
        let Running { mut child, t0, mut stderr, mut early } = self;
        let pid = child.id();
        // Both pipes are drained on their own threads: the JSON result of many games is larger
        // than a pipe buffer, and a referee blocked on a full pipe would never exit.
        let mut stdout = child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let peak = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let out = s.spawn(move || {
                let mut buf = Vec::new();
                stdout.read_to_end(&mut buf).map(|_| buf)
            });
            let err = s.spawn(move || {
                let _ = stderr.read_to_end(&mut early);
                early
            });
            let sampler = s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(kib) = sys::peak_rss_kib(pid) {
                        peak.fetch_max(kib, Ordering::Relaxed);
                    }
                    std::thread::sleep(SAMPLE_EVERY);
                }
            });
            let exited = sys::wait_exited_unreaped(pid);
            let wall = t0.elapsed();
            // The zombie still has its /proc entry, with the final times of all its threads and
            // of the bots it reaped; it is reaped only after the reading, so the pid cannot be
            // reused under the sampler either.
            let ticks = sys::cpu_ticks(pid);
            stop.store(true, Ordering::Relaxed);
            let _ = sampler.join();
            let status = child.wait()?;
            exited?;
            let ticks = ticks?;
            let out = out.join().unwrap_or_else(|_| Err(io::Error::other("reader panicked")))?;
            let err = err.join().unwrap_or_default();
            if !status.success() {
                return Err(io::Error::other(format!(
                    "the referee failed ({status}): {}",
                    one_line(&err)
                )));
            }
            Ok(Finished {
                wall,
                ticks,
                peak_rss_kib: Some(peak.load(Ordering::Relaxed)).filter(|&k| k > 0),
                stdout: out,
                stderr: err,
            })
        })
    }
}

/// A program's stderr as one line for an error message: its lines joined, the end kept when
/// it is long (the reason for a failure comes last).
pub(crate) fn one_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let joined =
        text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ");
    if joined.is_empty() {
        return "(nothing on stderr)".into();
    }
    let chars: Vec<char> = joined.chars().collect();
    match chars.len() {
        n if n > 400 => format!("...{}", chars[n - 400..].iter().collect::<String>()),
        _ => joined,
    }
}

/// The outcome of a `referee match --json` run.
pub(crate) fn outcome(fin: Finished) -> io::Result<Outcome> {
    let doc: Value = serde_json::from_slice(&fin.stdout)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("referee JSON: {e}")))?;
    let tick_us = 1e6 / sys::USER_HZ as f64;
    // The referee's own reading is exact; the zombie's /proc times are whole clock ticks
    // (10 ms), a tenth of what a Python table's 200 games cost the referee.
    let referee_cpu_us = doc.get("referee_cpu_us").and_then(Value::as_u64);
    let mut outcome = Outcome {
        wall: fin.wall,
        referee_cpu_us: referee_cpu_us.map_or(fin.ticks.own as f64 * tick_us, |us| us as f64),
        bots_cpu_us: fin.ticks.children as f64 * tick_us,
        peak_rss_kib: fin.peak_rss_kib,
        warning: String::from_utf8_lossy(&fin.stderr)
            .lines()
            .find(|l| l.contains("warning"))
            .map(|l| l.trim().to_string()),
        ..Outcome::default()
    };
    count_work(&doc, &mut outcome);
    Ok(outcome)
}

/// Adds up the games, deals, answers and faults of a `referee match --json` document.
fn count_work(doc: &Value, outcome: &mut Outcome) {
    let num = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0);
    for game in doc.get("games").and_then(Value::as_array).into_iter().flatten() {
        outcome.games += 1;
        outcome.complete +=
            u64::from(game.get("status").and_then(Value::as_str) == Some("complete"));
        outcome.deals += game.get("deals").and_then(Value::as_array).map_or(0, |d| d.len() as u64);
        for seat in game.get("stats").and_then(Value::as_array).into_iter().flatten() {
            outcome.answers += num(seat, "answers");
            outcome.faults += num(seat, "faults");
            outcome.think_us += num(seat, "think_us");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_referee_result() {
        let doc: Value = serde_json::from_str(
            r#"{"seed":1,"games":[
                {"status":"complete","deals":[{},{}],"stats":[
                    {"answers":3,"think_us":30,"faults":0},{"answers":4,"think_us":40,"faults":1}]},
                {"status":"aborted","deals":[{}],"stats":[{"answers":1,"think_us":5,"faults":0}]}]}"#,
        )
        .unwrap();
        let mut o = Outcome::default();
        count_work(&doc, &mut o);
        assert_eq!(
            (o.games, o.complete, o.deals, o.answers, o.faults, o.think_us),
            (2, 1, 3, 8, 1, 75)
        );
    }
}
