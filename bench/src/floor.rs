//! The floor: what one line costs to go to another process over a pipe and come back, between
//! two programs that do nothing else. No referee can answer faster than this per question.

use crate::sys::{self, Pinned};
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Instant;

/// A line shaped like a referee question (a `play` with a hand and the table): 95 bytes with
/// its newline, so the copy costs what a real message's copy costs.
pub(crate) const LINE: &[u8] =
    b"{\"type\":\"play\",\"id\":1234,\"hand\":[\"3o\",\"2c\",\"Ab\",\"9s\",\"7c\"],\"table\":[\"Kc\",\"5o\"],\"time_ms\":1000}\n";

/// The child side (`aluette-bench --echo`): every line read is written back at once.
pub(crate) fn echo() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut output = io::stdout().lock();
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        output.write_all(&line)?;
        output.flush()?;
    }
}

/// Round-trip times of one configuration, in microseconds.
#[derive(Clone, Debug)]
pub(crate) struct Floor {
    pub(crate) median_us: f64,
    pub(crate) p90_us: f64,
    pub(crate) samples: usize,
}

/// One echo child and the two ends of its pipes.
struct Peer {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

/// Where the parent thread and its echo children run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Placement {
    /// All on one CPU: every round trip is two context switches on that CPU.
    Pinned(usize),
    /// Parent on one CPU, children on another: every line crosses CPUs and wakes an idle one.
    Split { parent: usize, children: usize },
    /// Wherever the scheduler puts them.
    Free,
}

/// Times `iterations` round trips to `children` echo processes served in turn (write to one,
/// read its answer, go to the next), as a referee serves four seats.
pub(crate) fn measure(
    children: usize,
    iterations: usize,
    placement: Placement,
) -> io::Result<Floor> {
    let (parent_cpu, children_cpu) = match placement {
        Placement::Pinned(cpu) => (Some(cpu), Some(cpu)),
        Placement::Split { parent, children } => (Some(parent), Some(children)),
        Placement::Free => (None, None),
    };
    // The children inherit the affinity of the thread that spawns them.
    let spawning = children_cpu.map(Pinned::to).transpose()?;
    let me = std::env::current_exe()?;
    let mut peers = Vec::with_capacity(children);
    for _ in 0..children {
        let mut child =
            sys::command(&me).arg("--echo").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let to = child.stdin.take().ok_or_else(|| io::Error::other("no stdin pipe"))?;
        let from =
            BufReader::new(child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?);
        peers.push(Peer { child, to, from });
    }
    drop(spawning);
    // This thread stays on its CPU for the whole measurement; the guard restores it at the end.
    let _pin = parent_cpu.map(Pinned::to).transpose()?;
    let mut answer = Vec::with_capacity(256);
    let mut trip = |peer: &mut Peer| -> io::Result<f64> {
        let start = Instant::now();
        // One write of the whole line: a referee flushes each question in one write too.
        peer.to.write_all(LINE)?;
        answer.clear();
        peer.from.read_until(b'\n', &mut answer)?;
        let us = start.elapsed().as_secs_f64() * 1e6;
        if answer != LINE {
            return Err(io::Error::other("the echo child answered something else"));
        }
        Ok(us)
    };
    // Warm-up: page faults, first scheduling decisions and CPU frequency ramps are not the floor.
    for i in 0..iterations / 10 {
        trip(&mut peers[i % children])?;
    }
    let mut times = Vec::with_capacity(iterations);
    for i in 0..iterations {
        times.push(trip(&mut peers[i % children])?);
    }
    for peer in peers {
        // Closing stdin is the child's end of input: it exits on its own.
        drop(peer.to);
        let mut child = peer.child;
        child.wait()?;
    }
    times.sort_by(f64::total_cmp);
    Ok(Floor {
        median_us: percentile(&times, 50.0),
        p90_us: percentile(&times, 90.0),
        samples: times.len(),
    })
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 5.0);
        assert_eq!(percentile(&v, 90.0), 9.0);
        assert_eq!(percentile(&v, 100.0), 10.0);
        assert_eq!(percentile(&[3.0], 90.0), 3.0);
    }

    #[test]
    fn line_is_one_protocol_sized_line() {
        assert_eq!(LINE.iter().filter(|&&b| b == b'\n').count(), 1);
        assert!((50..=100).contains(&LINE.len()));
    }
}
