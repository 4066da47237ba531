//! Processes as /proc shows them, for the promise that no bot outlives the referee: who is
//! running, whose child it is, and whether a pid still names the process it named before.

use std::path::Path;
use std::time::{Duration, Instant};

/// Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux the tests run on.
const TICKS_PER_SECOND: f64 = 100.0;

/// A process as /proc/PID/stat shows it: parent, state, and start time (which tells a pid
/// reused by a new process from the old one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Proc {
    pub(crate) pid: u32,
    pub(crate) ppid: u32,
    pub(crate) state: char,
    /// Clock ticks after boot.
    pub(crate) start: u64,
}

impl Proc {
    pub(crate) fn of(pid: u32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces or parentheses: the fields
        // start after the last ')'.
        let (_, rest) = stat.rsplit_once(')')?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(Proc {
            pid,
            state: fields.first()?.chars().next()?,
            ppid: fields.get(1)?.parse().ok()?,
            start: fields.get(19)?.parse().ok()?,
        })
    }

    /// True while the process still runs: gone, reused by another process, or a zombie waiting
    /// for a reaper all count as ended.
    pub(crate) fn running(&self) -> bool {
        Proc::of(self.pid).is_some_and(|now| now.start == self.start && !now.ended())
    }

    fn ended(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }

    /// Sends SIGKILL if the process still runs.
    pub(crate) fn kill(&self) {
        if self.running() {
            let pid = nix::unistd::Pid::from_raw(self.pid as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// True while `pid` exists and has not ended (a zombie has).
pub(crate) fn alive(pid: u32) -> bool {
    Proc::of(pid).is_some_and(|p| !p.ended())
}

/// The command line of `pid`, arguments joined by NULs; empty when it is gone.
pub(crate) fn cmdline(pid: u32) -> String {
    super::text(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
}

/// The processes whose parent is `parent`.
pub(crate) fn children(parent: u32) -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .expect("read /proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(Proc::of)
        .filter(|p| p.ppid == parent)
        .collect()
}

/// Now, in the clock ticks of a process's start time.
pub(crate) fn ticks_since_boot() -> u64 {
    let uptime = std::fs::read_to_string("/proc/uptime").unwrap_or_default();
    let seconds: f64 = uptime.split_whitespace().next().and_then(|s| s.parse().ok()).unwrap_or(0.0);
    (seconds * TICKS_PER_SECOND) as u64
}

/// Kills `pid` if it runs a process started at `since` (clock ticks after boot) or later: a
/// leftover bot, and not whoever got its pid afterwards from an earlier start.
pub(crate) fn kill_if_started_since(pid: u32, since: u64) {
    if let Some(p) = Proc::of(pid).filter(|p| p.start + 1 >= since) {
        p.kill();
    }
}

/// The pids a file lists, one a line (bots append theirs, and their children's).
pub(crate) fn pids_in(pidfile: &Path) -> Vec<u32> {
    std::fs::read_to_string(pidfile)
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("{}: not a pid: {l:?}", pidfile.display())))
        .collect()
}

/// How long a bot may take to disappear once the referee has exited.
pub(crate) const REAP: Duration = Duration::from_secs(3);

/// The pids `pidfile` lists, once every one of them is gone, failing the test if one outlives
/// the referee by [`REAP`]. A pid is one of the bots while its command line holds one of
/// `marks` (a reused pid is someone else's).
pub(crate) fn reaped(pidfile: &Path, marks: &[&str]) -> Vec<u32> {
    let pids = pids_in(pidfile);
    let deadline = Instant::now() + REAP;
    for &pid in &pids {
        while alive(pid) && marks.iter().any(|m| cmdline(pid).contains(m)) {
            assert!(Instant::now() < deadline, "bot process {pid} outlived the referee");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    pids
}
