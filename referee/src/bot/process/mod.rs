//! The only code that starts processes: each bot runs in its own process group, dies with the
//! referee, has its stderr captured under a cap, and leaves nothing behind when dropped. A
//! descendant that leaves its bot's group (`setsid`) is caught too: the referee is their
//! subreaper, so they become its children when their parent dies, and `sweep_orphans` kills and
//! reaps every child of the referee that it did not start itself.

pub(crate) mod shell;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::collections::BTreeSet;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Optional resource limits for a bot process (off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Address-space limit in bytes (RLIMIT_AS).
    pub(crate) memory_bytes: Option<u64>,
    /// CPU time limit in seconds (RLIMIT_CPU); the kernel kills the bot when it is spent.
    pub(crate) cpu_seconds: Option<u64>,
}

/// How to start one bot.
#[derive(Clone, Debug)]
pub(crate) struct SpawnSpec {
    /// Program and arguments, already split into words; never run through a shell.
    pub(crate) argv: Vec<String>,
    /// Where the bot's stderr goes; `None` discards it.
    pub(crate) stderr_path: Option<PathBuf>,
    /// Bytes of stderr kept; the rest is read and dropped so the bot never blocks on it.
    pub(crate) stderr_cap: u64,
    /// Resource limits.
    pub(crate) limits: Limits,
    /// CPU the bot is pinned to (children inherit it), if any.
    pub(crate) cpu: Option<usize>,
}

/// A running bot. Dropping it kills its whole process group.
///
/// The child itself belongs to a watcher task that waits for it to end and, at that moment,
/// kills what is left of its group and sweeps the orphans it made: a bot's exit is seen when it
/// happens, not when the referee next asks it something, so a helper it left behind holding its
/// stdout cannot go on answering in its name.
#[derive(Debug)]
pub(crate) struct BotProcess {
    pid: Pid,
    /// `Some(status)` once the watcher has reaped the bot (`None` inside: waiting failed).
    exit: watch::Receiver<Option<Option<ExitStatus>>>,
    stderr_task: Option<JoinHandle<()>>,
    /// The process's CPU clock, once measuring is asked for ([`BotProcess::measure_cpu`]).
    cpu: Option<CpuClock>,
    /// [`CHILD_ENDS`] when the bot was last known to be running; `None` without the counter
    /// (its handler could not be installed), so every look asks the kernel.
    ends_seen: Option<u64>,
}

/// Children of the referee that have ended, counted by a `SIGCHLD` handler. Asking the kernel
/// whether a bot has ended is a system call (`waitid`), about a tenth of the referee's CPU per
/// answer on a pinned table; while this count has not moved since a bot was last seen running,
/// no child of the referee has ended, so neither has the bot and there is nothing to ask.
static CHILD_ENDS: AtomicU64 = AtomicU64::new(0);

/// Installs the handler that counts [`CHILD_ENDS`], once; false when it cannot be installed.
/// Through signal-hook-registry, as tokio installs its own: handlers registered there are
/// chained, so none replaces another (tokio's process reaper does not rely on `SIGCHLD` on
/// Linux, it waits on a pidfd, but whatever else does keeps working).
fn count_child_ends() -> bool {
    static INSTALLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: the action only increments an atomic, which is async-signal-safe.
        #[allow(unsafe_code)]
        let id = unsafe {
            signal_hook_registry::register(nix::libc::SIGCHLD, || {
                CHILD_ENDS.fetch_add(1, Ordering::SeqCst);
            })
        };
        id.is_ok()
    })
}

/// A bot process's CPU time, read from the kernel's clock of that process: every thread's time
/// to the nanosecond, one `clock_gettime` a reading, no file to open or parse. (Its
/// `/proc/PID/schedstat` counts the main thread only, and costs a formatted read.) A reading
/// counts since the mark; [`CpuClock::take`] moves the mark, so each answer is charged what
/// the process used since the previous one was read.
#[derive(Debug)]
pub(crate) struct CpuClock {
    id: nix::time::ClockId,
    mark: Duration,
}

impl CpuClock {
    fn open(pid: Pid) -> Option<CpuClock> {
        let id = nix::time::clock_getcpuclockid(pid).ok()?;
        let mut clock = CpuClock { id, mark: Duration::ZERO };
        clock.mark = clock.now()?;
        Some(clock)
    }

    fn now(&self) -> Option<Duration> {
        nix::time::clock_gettime(self.id).ok().map(Duration::from)
    }

    /// Counts from now on.
    pub(crate) fn restart(&mut self) {
        if let Some(now) = self.now() {
            self.mark = now;
        }
    }

    /// The CPU time used since the mark (`None`: the process is gone).
    pub(crate) fn used(&self) -> Option<Duration> {
        Some(self.now()?.saturating_sub(self.mark))
    }

    /// [`CpuClock::used`], and the mark moved to now.
    pub(crate) fn take(&mut self) -> Option<Duration> {
        let now = self.now()?;
        let used = now.saturating_sub(self.mark);
        self.mark = now;
        Some(used)
    }
}

/// The open-file soft limit the referee started with, given back to each bot; 0 while the
/// referee has not raised its own.
static STARTING_NOFILE: AtomicU64 = AtomicU64::new(0);

/// Raises the referee's own open-file soft limit to the hard limit: a lobby holding a thousand
/// connections, or 64 tables of four bots and their pipes, needs more than the usual 1024. The
/// bots get the limit they would have had without the referee.
pub(crate) fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
        && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok()
    {
        STARTING_NOFILE.store(soft, Ordering::Relaxed);
    }
}

/// The bots this process started and has not seen reaped. A child of the referee that is not
/// here is an orphan a bot left behind.
static STARTED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Read-held by each spawn until its pid is in [`STARTED`], write-held by each sweep: spawns
/// on many tables still run side by side (a fork of a big referee takes milliseconds), and a
/// sweep never mistakes a bot just forked for an orphan.
static SPAWNING: RwLock<()> = RwLock::new(());

/// Makes the referee the subreaper of everything its bots start: a descendant whose parent dies
/// is reparented to the referee instead of init, where [`sweep_orphans`] finds it. Best effort:
/// without it, such a process escapes as before.
pub(crate) fn become_subreaper() {
    match nix::sys::prctl::set_child_subreaper(true) {
        Ok(()) => SUBREAPER.store(true, Ordering::Relaxed),
        Err(e) => {
            tracing::warn!(
                "cannot become a subreaper ({e}): a bot's setsid() children may outlive it"
            )
        }
    }
}

/// Set once the referee is a subreaper. Only then can an orphan be its child; and a process
/// that is not the referee (a test binary, say) never has its other children killed.
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Kills, and reaps once dead, every child of the referee it did not start: descendants of
/// finished bots that left their process group. Returns how many it found. Cheap (one small
/// read in /proc), so it runs after every bot that ends.
pub(crate) fn sweep_orphans() -> usize {
    sweep(false)
}

/// A sweep; unless `wait`, it gives up at once while bots are being started (a fork of a big
/// referee takes milliseconds, and tables must not queue behind a sweep): the next one, or the
/// final [`settle_orphans`], does the work.
fn sweep(wait: bool) -> usize {
    if !SUBREAPER.load(Ordering::Relaxed) {
        return 0;
    }
    let no_spawn = if wait { SPAWNING.write().ok() } else { SPAWNING.try_write().ok() };
    let Some(_no_spawn) = no_spawn else { return 0 };
    let Ok(started) = STARTED.lock() else { return 0 };
    let children = children();
    let mut found = 0;
    for &pid in children.iter().filter(|pid| !started.contains(pid)) {
        let Some((state, pgrp)) = state_and_group(pid) else { continue };
        found += 1;
        let target = Pid::from_raw(pid);
        if state == 'Z' {
            let _ = nix::sys::wait::waitpid(target, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
        } else {
            let _ = nix::sys::signal::kill(target, Signal::SIGKILL);
            // A `setsid` child leads a group of its own, which may hold more of its kind.
            if pgrp == pid {
                let _ = killpg(target, Signal::SIGKILL);
            }
        }
    }
    found
}

/// Sweeps until a sweep finds nothing, ten times at most: killing an orphan reparents its own
/// children, and a dying group member's children arrive a moment later. Blocking; for the end
/// of a command, once no bot is left.
pub(crate) fn settle_orphans() {
    for _ in 0..10 {
        if sweep(true) == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The children of the referee's main thread, from /proc: one small read. The kernel gives an
/// orphan to the first live thread of its subreaper, which is the main thread (it lives until
/// the referee ends); a bot is the child of the thread that started it. Scanning every process,
/// or every thread, cost milliseconds a sweep with 64 tables. The list can miss a child that
/// comes or goes during the read; the next sweep sees it.
fn children() -> Vec<i32> {
    let me = std::process::id();
    std::fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .map(|list| list.split_whitespace().filter_map(|p| p.parse().ok()).collect())
        .unwrap_or_default()
}

/// The state letter and process group of a process, from /proc/PID/stat.
fn state_and_group(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything, spaces included.
    let mut fields = stat[stat.rfind(')')? + 2..].split(' ');
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// True when the calling thread may run on one CPU only: then the bots it starts share that
/// CPU with it (they inherit the pinning, or a table pins them to its own CPU).
pub(crate) fn on_one_cpu() -> bool {
    nix::sched::sched_getaffinity(Pid::from_raw(0)).is_ok_and(|set| {
        (0..nix::sched::CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).count() == 1
    })
}

/// Refuses a program file the kernel cannot run, before it is started: the standard library
/// execs through `execvp`, which hands a file the kernel refuses as not executable (no `#!`
/// line, not a binary: a script saved without its first line, a text file marked executable)
/// to `/bin/sh`, so the shell would read it as commands and fail somewhere inside, and the bot
/// would look started and then refused at its handshake. A file that is not there, not readable
/// (an execute-only binary) or of a format a `binfmt_misc` handler may take is left to the
/// start itself to judge.
fn check_runnable(program: &str) -> io::Result<()> {
    use std::io::Read as _;
    let path = if program.contains('/') {
        Some(std::path::PathBuf::from(program))
    } else {
        std::env::var_os("PATH").and_then(|dirs| {
            std::env::split_paths(&dirs).map(|d| d.join(program)).find(|p| {
                use std::os::unix::fs::PermissionsExt as _;
                p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
        })
    };
    let Some(mut file) = path.and_then(|p| std::fs::File::open(p).ok()) else { return Ok(()) };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    let mut magic = [0u8; 4];
    let n = file.read(&mut magic).unwrap_or(0);
    let known = magic[..n].starts_with(b"#!") || magic[..n] == *b"\x7fELF";
    if known || binfmt_misc_handlers() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "it is not a program this system can run: no `#!` line and not a binary (a script \
         needs a first line such as `#!/usr/bin/env python3`, or give its interpreter: \
         `python3 bot.py`)",
    ))
}

/// True when the kernel has formats of its own registered beyond scripts and ELF binaries.
fn binfmt_misc_handlers() -> bool {
    std::fs::read_dir("/proc/sys/fs/binfmt_misc").is_ok_and(|dir| {
        dir.flatten().any(|e| !matches!(e.file_name().to_str(), Some("register" | "status")))
    })
}

/// Starts a bot with piped stdin and stdout.
pub(crate) fn spawn(spec: &SpawnSpec) -> io::Result<(BotProcess, ChildStdin, ChildStdout)> {
    let (program, args) = spec
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty bot command"))?;
    check_runnable(program)?;
    #[allow(clippy::disallowed_methods)] // This module is the one place allowed to spawn.
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if spec.stderr_path.is_some() { Stdio::piped() } else { Stdio::null() })
        // Its own process group: Ctrl-C at the terminal reaches the referee only, and the group
        // can be killed as a whole, forked children included.
        .process_group(0)
        .kill_on_drop(true);
    let limits = spec.limits;
    let cpu = spec.cpu;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (prctl, getrlimit, setrlimit, sched_setaffinity) and reads an atomic; it
    // allocates nothing.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || child_setup(limits, cpu));
    }
    // Read before the bot exists, so its end, whenever it comes, moves the count past this.
    let ends_seen = count_child_ends().then(|| CHILD_ENDS.load(Ordering::SeqCst));
    let mut child = {
        let _spawning = SPAWNING.read().map_err(|_| io::Error::other("spawn lock poisoned"))?;
        let child = cmd.spawn()?;
        if let (Some(pid), Ok(mut started)) = (child.id(), STARTED.lock()) {
            started.insert(pid as i32);
        }
        child
    };
    let pid = Pid::from_raw(
        child.id().ok_or_else(|| io::Error::other("the bot ended before it could be watched"))?
            as i32,
    );
    let stdin = child.stdin.take().ok_or_else(|| io::Error::other("no stdin pipe"))?;
    let stdout = child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
    let stderr_task = match (child.stderr.take(), &spec.stderr_path) {
        (Some(err), Some(path)) => {
            Some(tokio::spawn(capture_stderr(err, path.clone(), spec.stderr_cap)))
        }
        _ => None,
    };
    let (tx, exit) = watch::channel(None);
    // Detached: it outlives the handle when a bot is dropped, to reap it once killed.
    tokio::spawn(watch_exit(child, pid, tx));
    Ok((BotProcess { pid, exit, stderr_task, cpu: None, ends_seen }, stdin, stdout))
}

/// Owns the bot's child handle: waits for the bot to end, then kills what remains of its group
/// and sweeps the orphans it left (they were handed to the referee as it exited), all before
/// anyone is told it ended. Dropped with the runtime, the handle kills the bot (`kill_on_drop`).
async fn watch_exit(mut child: Child, pid: Pid, tx: watch::Sender<Option<Option<ExitStatus>>>) {
    let status = child.wait().await.ok();
    // Reaped: the pid is free, and a process that later has it is no bot of ours.
    if let Ok(mut started) = STARTED.lock() {
        started.remove(&pid.as_raw());
    }
    // The group outlives its leader only with processes the bot started: they go with it. The
    // group id cannot be reused while any of them lives, so this never reaches a stranger.
    let _ = killpg(pid, Signal::SIGKILL);
    sweep_orphans();
    let _ = tx.send(Some(status));
}

/// Runs in the child between fork and exec.
fn child_setup(limits: Limits, cpu: Option<usize>) -> io::Result<()> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    // If the referee dies, even by SIGKILL, the kernel kills the bot: no orphans.
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(io::Error::from)?;
    let nofile = STARTING_NOFILE.load(Ordering::Relaxed);
    if nofile > 0
        && let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
    {
        // Giving the usual limit back is a courtesy: a bot that keeps the higher one still runs.
        let _ = setrlimit(Resource::RLIMIT_NOFILE, nofile, hard);
    }
    if let Some(bytes) = limits.memory_bytes {
        setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(io::Error::from)?;
    }
    if let Some(secs) = limits.cpu_seconds {
        // Soft limit sends SIGXCPU, the hard limit one second later SIGKILL.
        setrlimit(Resource::RLIMIT_CPU, secs, secs + 1).map_err(io::Error::from)?;
    }
    if let Some(cpu) = cpu {
        let mut set = nix::sched::CpuSet::new();
        if set.set(cpu).is_ok() {
            // Pinning is an optimisation: a machine that refuses it still runs the bot.
            let _ = nix::sched::sched_setaffinity(Pid::from_raw(0), &set);
        }
    }
    Ok(())
}

async fn capture_stderr(mut err: tokio::process::ChildStderr, path: PathBuf, cap: u64) {
    let mut file = match tokio::fs::File::create(&path).await {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::warn!("cannot write bot stderr to {}: {e}", path.display());
            None
        }
    };
    let mut buf = vec![0u8; 8192];
    let mut kept = 0u64;
    let mut dropped = 0u64;
    loop {
        let n = match err.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let keep = (cap.saturating_sub(kept)).min(n as u64) as usize;
        if keep > 0
            && let Some(f) = file.as_mut()
            && f.write_all(&buf[..keep]).await.is_err()
        {
            file = None;
        }
        kept += keep as u64;
        dropped += (n - keep) as u64;
    }
    if let Some(f) = file.as_mut() {
        if dropped > 0 {
            let note = format!(
                "\n[referee: stderr capped at {cap} bytes; {dropped} more bytes dropped]\n"
            );
            let _ = f.write_all(note.as_bytes()).await;
        }
        let _ = f.flush().await;
    }
}

impl BotProcess {
    /// Starts measuring the process's CPU time; false when the kernel will not tell it.
    pub(crate) fn measure_cpu(&mut self) -> bool {
        self.cpu = CpuClock::open(self.pid);
        self.cpu.is_some()
    }

    /// True when the process's CPU time is measured.
    pub(crate) fn measured(&self) -> bool {
        self.cpu.is_some()
    }

    /// The CPU clock, when measured and the process has not ended (a reaped pid may be
    /// another process's).
    pub(crate) fn cpu(&mut self) -> Option<&mut CpuClock> {
        if self.exit.borrow().is_some() {
            return None;
        }
        self.cpu.as_mut()
    }

    /// The process id (also its process group's), until the process has ended: `replay
    /// --until` shows it so a debugger can attach.
    pub(crate) fn id(&self) -> Option<u32> {
        self.exit.borrow().is_none().then_some(self.pid.as_raw() as u32)
    }

    /// Waits for the process to end (cancel-safe, so it can race a read).
    pub(crate) async fn wait(&mut self) -> Option<ExitStatus> {
        match self.exit.wait_for(Option::is_some).await {
            Ok(status) => status.flatten(),
            // The watcher is gone only when the runtime is shutting down.
            Err(_) => None,
        }
    }

    /// [`BotProcess::ended`], asked of the kernel only when some child of the referee has ended
    /// since the bot was last seen running ([`CHILD_ENDS`]). A child's `SIGCHLD` is handled on
    /// whichever thread of the referee the kernel picks, so an end may be counted a few
    /// microseconds after it happened: a line read in that moment counts as written just before
    /// it, which nothing can tell apart from a line written just before the end.
    pub(crate) fn ended_lately(&mut self) -> Option<Option<ExitStatus>> {
        let Some(seen) = self.ends_seen else { return self.ended() };
        let ends = CHILD_ENDS.load(Ordering::SeqCst);
        if ends == seen {
            return None;
        }
        let ended = self.ended();
        if ended.is_none() {
            self.ends_seen = Some(ends);
        }
        ended
    }

    /// `Some(status)` once the process has ended, whether or not the watcher has reaped it
    /// yet: a zombie counts. One `waitid` that reaps nothing, so the watcher still gets it.
    pub(crate) fn ended(&self) -> Option<Option<ExitStatus>> {
        use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
        use std::os::unix::process::ExitStatusExt;
        if let Some(status) = *self.exit.borrow() {
            return Some(status);
        }
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        match waitid(Id::Pid(self.pid), flags) {
            Ok(WaitStatus::StillAlive) => None,
            // The raw wait status, as the kernel encodes it.
            Ok(WaitStatus::Exited(_, code)) => Some(Some(ExitStatus::from_raw((code & 0xff) << 8))),
            Ok(WaitStatus::Signaled(_, signal, core)) => {
                Some(Some(ExitStatus::from_raw(signal as i32 | if core { 0x80 } else { 0 })))
            }
            Ok(_) => None,
            // ECHILD: reaped between the two looks, so it has ended.
            Err(nix::errno::Errno::ECHILD) => Some((*self.exit.borrow()).flatten()),
            Err(_) => None,
        }
    }

    /// The exit status if the process ends within `within`.
    pub(crate) async fn exit_status(&mut self, within: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(within, self.wait()).await.ok().flatten()
    }

    /// Gives the bot `grace` to exit on its own (after `bye` and closed stdin), then kills its
    /// process group; waits until the stderr log is complete.
    pub(crate) async fn finish(mut self, grace: Duration) -> Option<ExitStatus> {
        let mut status = self.exit_status(grace).await;
        self.kill_group();
        if status.is_none() {
            // Killed now; the watcher reaps it and sweeps what it left.
            status = self.exit_status(Duration::from_secs(2)).await;
        }
        // The bot is reaped, so whatever it left outside its group is the referee's now.
        sweep_orphans();
        if let Some(task) = self.stderr_task.take() {
            // The group is dead, so stderr reaches end of file promptly; a grandchild that
            // escaped the group could hold it open, hence the bound.
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
        }
        status
    }

    fn kill_group(&mut self) {
        if self.exit.borrow().is_none() {
            // ESRCH (group already gone) is the normal case after a clean exit.
            let _ = killpg(self.pid, Signal::SIGKILL);
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // The watcher goes on: it reaps the killed bot and sweeps what it left.
        self.kill_group();
        if let Some(task) = self.stderr_task.take() {
            task.abort();
        }
    }
}

/// Describes an exit status for people and records: `exit code 3`, `killed by SIGSEGV`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => match Signal::try_from(sig) {
            Ok(s) => format!("killed by {s}"),
            Err(_) => format!("killed by signal {sig}"),
        },
        _ => "ended".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;
    use tokio::io::AsyncBufReadExt;

    fn spec(script: &str) -> SpawnSpec {
        SpawnSpec {
            argv: vec!["sh".into(), "-c".into(), script.into()],
            stderr_path: None,
            stderr_cap: 0,
            limits: Limits::default(),
            cpu: None,
        }
    }

    /// Whether `pid` is a process that has not ended (a zombie has).
    fn running(pid: i32) -> bool {
        state_and_group(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
    }

    #[tokio::test]
    async fn the_group_dies_the_moment_its_bot_ends() {
        // The bot starts a helper in its group, tells its pid, and exits without being asked
        // anything: the helper must be dead as soon as the bot's end is reported, not whenever
        // the referee next talks to the bot.
        let (mut bot, _stdin, stdout) = spawn(&spec("sleep 60 & echo $!; exit 7")).unwrap();
        let mut line = String::new();
        tokio::io::BufReader::new(stdout).read_line(&mut line).await.unwrap();
        let helper: i32 = line.trim().parse().unwrap();
        let status = tokio::time::timeout(Duration::from_secs(20), bot.wait()).await.unwrap();
        assert_eq!(status.and_then(|s| s.code()), Some(7));
        assert!(bot.ended().is_some());
        // Killed before the end was reported; dying takes the kernel a moment. Left alone, the
        // helper would sleep its full minute.
        let deadline = Instant::now() + Duration::from_secs(10);
        while running(helper) {
            assert!(Instant::now() < deadline, "the helper {helper} outlived its bot's end");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn an_ended_bot_is_seen_before_it_is_reaped() {
        let (mut bot, _stdin, stdout) = spawn(&spec("exec 1>&-; exit 3")).unwrap();
        drop(stdout);
        let deadline = Instant::now() + Duration::from_secs(20);
        while bot.ended().is_none() {
            assert!(Instant::now() < deadline, "the exit was never seen");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(bot.ended().flatten().and_then(|s| s.code()), Some(3));
        assert_eq!(bot.wait().await.and_then(|s| s.code()), Some(3));
        assert_eq!(bot.id(), None, "an ended bot has no pid to attach to");
    }
}
