//! Operating-system helpers the measurements share: CPU affinity, readings from /proc, and the
//! one place in this crate that starts processes, so each measurement reads as what it measures.

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;
use std::ffi::OsStr;
use std::io;
use std::process::Command;

/// Clock ticks per second of the times in /proc/PID/stat. Linux fixes this `USER_HZ` at 100 on
/// every architecture it still supports; `sysconf(_SC_CLK_TCK)` would need nix's `feature`
/// feature, which would change nix's feature set for the whole workspace and rebuild the referee.
pub(crate) const USER_HZ: u64 = 100;

/// A `Command` for `program`.
///
/// The workspace's clippy.toml reserves spawning for the referee's process module; a benchmark
/// harness is the other legitimate spawner (it starts the referee, and itself as an echo peer),
/// and this function is the only place in the crate that does it.
#[allow(clippy::disallowed_methods)]
pub(crate) fn command(program: impl AsRef<OsStr>) -> Command {
    Command::new(program)
}

/// Keeps the calling thread on one CPU until dropped, then restores its previous set.
///
/// Affinity belongs to a thread and a forked child inherits its parent thread's set, so a
/// process spawned while this guard lives runs on that CPU, and so do its own children (the
/// referee's bots): `taskset -c CPU` without the extra program.
#[derive(Debug)]
pub(crate) struct Pinned {
    saved: CpuSet,
}

impl Pinned {
    pub(crate) fn to(cpu: usize) -> io::Result<Pinned> {
        let me = Pid::from_raw(0);
        let saved = sched_getaffinity(me).map_err(io::Error::from)?;
        let mut one = CpuSet::new();
        one.set(cpu).map_err(io::Error::from)?;
        sched_setaffinity(me, &one).map_err(io::Error::from)?;
        Ok(Pinned { saved })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // Restoring can only fail if the set became invalid (a CPU went offline); the benchmark
        // then goes on with the one CPU, which skews nothing but the unpinned figures.
        let _ = sched_setaffinity(Pid::from_raw(0), &self.saved);
    }
}

/// The CPUs this thread may run on (what the kernel lets it use, not what the machine has), so
/// "one table per CPU" pins to CPUs that exist for us.
pub(crate) fn allowed_cpus() -> io::Result<Vec<usize>> {
    let set = sched_getaffinity(Pid::from_raw(0)).map_err(io::Error::from)?;
    let cpus: Vec<usize> =
        (0..CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).collect();
    if cpus.is_empty() {
        return Err(io::Error::other("no CPU in this process's affinity set"));
    }
    Ok(cpus)
}

/// CPU times of a process from /proc/PID/stat, in clock ticks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CpuTicks {
    /// The process's own user + system time, all its threads.
    pub(crate) own: u64,
    /// User + system time of the children it waited for (a referee's bots).
    pub(crate) children: u64,
}

/// Reads the CPU times of `pid`.
pub(crate) fn cpu_ticks(pid: u32) -> io::Result<CpuTicks> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) is in parentheses and may contain blanks or parentheses, so
    // fields are counted from the last ')'; what follows starts with field 3 (state).
    let rest = text.rsplit_once(')').map(|(_, r)| r).ok_or_else(|| bad_stat(&text))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> io::Result<u64> {
        fields.get(n - 3).and_then(|f| f.parse().ok()).ok_or_else(|| bad_stat(&text))
    };
    // Fields 14-17: utime, stime, cutime, cstime.
    Ok(CpuTicks { own: field(14)? + field(15)?, children: field(16)? + field(17)? })
}

fn bad_stat(text: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("unexpected /proc stat line {text:?}"))
}

/// The peak resident set (VmHWM) of `pid` in KiB, while it is alive.
pub(crate) fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

fn status_kib(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Blocks until child `pid` has exited but leaves it a zombie (`WNOWAIT`): its /proc/PID/stat
/// then holds the final CPU times of the whole process, which no poll of a live process can
/// catch. The caller reaps it afterwards with `Child::wait`.
pub(crate) fn wait_exited_unreaped(pid: u32) -> io::Result<()> {
    loop {
        match waitid(
            Id::Pid(Pid::from_raw(pid as i32)),
            WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
        ) {
            Ok(_) => return Ok(()),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// This process's own user + system time in microseconds (`getrusage(RUSAGE_SELF)`, all its
/// threads; the kernel derives it from the scheduler's nanosecond clock, not from ticks).
pub(crate) fn self_cpu_us() -> io::Result<f64> {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_SELF).map_err(io::Error::from)?;
    let us = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1e6 + t.tv_usec() as f64;
    Ok(us(u.user_time()) + us(u.system_time()))
}

/// The CPU time of task `pid` (its main thread) in nanoseconds, from /proc/PID/schedstat: exact,
/// where /proc/PID/stat counts 10 ms ticks. `None` on a kernel without schedstats.
pub(crate) fn task_cpu_ns(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// What one reading of another process's CPU clock costs, in nanoseconds: the referee's
/// measurement of a bot's CPU time per answer (`clock_gettime` of its `clock_getcpuclockid`),
/// timed on an echo child that waits in its read, as a bot between questions does.
pub(crate) fn cpu_clock_reading_ns() -> io::Result<f64> {
    use nix::time::{clock_getcpuclockid, clock_gettime};
    const READINGS: u32 = 200_000;
    let mut child = command(std::env::current_exe()?)
        .arg("--echo")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()?;
    // Until it waits in its read: reading the clock of a process that runs costs more (the
    // kernel asks its CPU), and a bot between questions is waiting too.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let clock = clock_getcpuclockid(nix::unistd::Pid::from_raw(child.id() as i32));
    let timed = clock.map_err(io::Error::from).and_then(|clock| {
        let start = std::time::Instant::now();
        for _ in 0..READINGS {
            std::hint::black_box(clock_gettime(clock).map_err(io::Error::from)?);
        }
        Ok(start.elapsed().as_secs_f64() * 1e9 / f64::from(READINGS))
    });
    // Its input closed, the child ends.
    drop(child.stdin.take());
    child.wait()?;
    timed
}

/// Raises this process's soft limit on open files to its hard limit, so that it (and the
/// referee it starts, which inherits the limit and never raises it) can hold 1,000 idle
/// connections. Returns the limit now in force.
pub(crate) fn raise_open_files() -> io::Result<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(io::Error::from)?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(io::Error::from)?;
    }
    Ok(hard.max(soft))
}

/// The current resident set (VmRSS) of `pid` in KiB.
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// The 1-minute load average, to tell whether other work disturbed a run.
pub(crate) fn load_1min() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// Today's date and time in UTC as `YYYY-MM-DD HH:MM UTC`, without a date crate.
pub(crate) fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rem / 3_600, rem % 3_600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_stat_parses() {
        let t = cpu_ticks(std::process::id()).unwrap();
        assert!(t.own < 1_000_000);
        assert!(peak_rss_kib(std::process::id()).is_some_and(|k| k > 0));
        assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
        assert!(self_cpu_us().unwrap() > 0.0);
    }
}
