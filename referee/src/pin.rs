//! CPU pinning. On small virtual machines waking a halted core costs more than the work of a
//! whole answer, so a table (its referee thread and its bots) runs fastest on one core; the
//! bots inherit the pinning of the thread that starts them.

use nix::sched::{CpuSet, sched_getaffinity, sched_getcpu, sched_setaffinity};
use nix::unistd::Pid;

/// The CPUs this process may run on, in order.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else { return vec![0] };
    let cpus: Vec<usize> =
        (0..CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).collect();
    if cpus.is_empty() { vec![0] } else { cpus }
}

/// The CPU the calling thread runs on now, if the kernel says.
pub(crate) fn current_cpu() -> Option<usize> {
    sched_getcpu().ok()
}

/// Pins the calling thread (and every process or thread it starts later) to `cpu`. Pinning is
/// an optimisation: when the kernel refuses, the referee runs unpinned and says so in the log.
pub(crate) fn pin_current_thread(cpu: usize) {
    let mut set = CpuSet::new();
    if set.set(cpu).is_err() || sched_setaffinity(Pid::from_raw(0), &set).is_err() {
        tracing::warn!("cannot pin to CPU {cpu}; running unpinned");
    }
}

/// The one CPU the calling thread is pinned to, if it is pinned to one.
pub(crate) fn pinned_cpu() -> Option<usize> {
    let set = sched_getaffinity(Pid::from_raw(0)).ok()?;
    let cpus: Vec<usize> =
        (0..CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).collect();
    (cpus.len() == 1).then(|| cpus[0])
}

/// Lets the calling thread run on every CPU this process may use but `cpu` (the kernel keeps
/// only the CPUs it allows): work that must not take a pinned table's time. On a machine of one
/// CPU the kernel refuses, and the thread stays where it is.
pub(crate) fn avoid_cpu(cpu: usize) {
    let mut set = CpuSet::new();
    for c in (0..CpuSet::count()).filter(|&c| c != cpu) {
        let _ = set.set(c);
    }
    if sched_setaffinity(Pid::from_raw(0), &set).is_err() {
        tracing::debug!("cannot move the thread off CPU {cpu}");
    }
}
