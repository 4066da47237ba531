//! The floor: what one line costs to go to another process over a pipe (or a loopback TCP
//! connection) and come back, between two programs that do nothing else. No referee can answer
//! faster than this per question.

use crate::sys::{self, Pinned};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Stdio};
use std::time::Instant;

/// A line shaped like a referee question (a `play` with a hand and the table): 95 bytes with
/// its newline, so the copy costs what a real message's copy costs.
pub(crate) const LINE: &[u8] =
    b"{\"type\":\"play\",\"id\":1234,\"hand\":[\"3o\",\"2c\",\"Ab\",\"9s\",\"7c\"],\"table\":[\"Kc\",\"5o\"],\"time_ms\":1000}\n";

/// The child side (`aluette-bench --echo [--connect HOST:PORT]`): every line read is written
/// back at once, on stdin/stdout or on a TCP connection to the parent.
pub(crate) fn echo(args: &[String]) -> io::Result<()> {
    match args {
        [] => echo_on(io::stdin().lock(), io::stdout().lock()),
        [flag, addr] if flag == "--connect" => {
            let stream = TcpStream::connect(addr)?;
            // One small line each way: Nagle must not hold it back (a referee sets this too).
            stream.set_nodelay(true)?;
            echo_on(BufReader::new(&stream), &stream)
        }
        _ => Err(io::Error::other("usage: --echo [--connect HOST:PORT]")),
    }
}

fn echo_on(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
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
    /// The mean round trip: what a run of many round trips costs each, outliers included, as
    /// a referee's wall time per answer does (the median leaves the slow ones out).
    pub(crate) mean_us: f64,
    pub(crate) p90_us: f64,
    pub(crate) samples: usize,
    /// The parent's own CPU time per round trip (user + system, from `getrusage`), which is
    /// what a referee's CPU per answer compares with.
    pub(crate) parent_cpu_us: f64,
    /// The echo children's CPU time per round trip, all of them together (from
    /// /proc/PID/schedstat); `None` when the kernel keeps no schedstats.
    pub(crate) children_cpu_us: Option<f64>,
}

/// One echo child and the two ends of its connection.
struct Peer {
    child: Child,
    to: Box<dyn Write>,
    from: BufReader<Box<dyn Read>>,
}

/// How the lines travel between the parent and its echo children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// The child's stdin and stdout, as a referee talks to the bots it starts.
    Pipe,
    /// A TCP connection on 127.0.0.1, as a referee talks to bots that connect to it.
    Tcp,
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

/// The echo child of the Python floor, for `python -c`: a loop as plain as the bench's own, in
/// the interpreter of the Python bots, so that the floor parent meets the caches a Python bot
/// leaves behind it.
pub(crate) const PYTHON_ECHO: &str = "import sys\ni, o = sys.stdin.buffer, sys.stdout.buffer\nfor line in i:\n    o.write(line)\n    o.flush()\n";

/// Times `iterations` round trips to `children` echo processes served in turn (write to one,
/// read its answer, go to the next), as a referee serves four seats.
pub(crate) fn measure(
    children: usize,
    iterations: usize,
    placement: Placement,
    transport: Transport,
) -> io::Result<Floor> {
    measure_with(children, iterations, placement, transport, None)
}

/// [`measure`] with another echo program (`argv`; pipes only, a TCP child is always the
/// bench's own), or the bench's own (`None`).
pub(crate) fn measure_with(
    children: usize,
    iterations: usize,
    placement: Placement,
    transport: Transport,
    argv: Option<&[String]>,
) -> io::Result<Floor> {
    let (parent_cpu, children_cpu) = match placement {
        Placement::Pinned(cpu) => (Some(cpu), Some(cpu)),
        Placement::Split { parent, children } => (Some(parent), Some(children)),
        Placement::Free => (None, None),
    };
    // The children inherit the affinity of the thread that spawns them.
    let spawning = children_cpu.map(Pinned::to).transpose()?;
    let me = std::env::current_exe()?;
    let listener = match transport {
        Transport::Pipe => None,
        Transport::Tcp => Some(TcpListener::bind("127.0.0.1:0")?),
    };
    let mut peers = Vec::with_capacity(children);
    for _ in 0..children {
        let peer = match &listener {
            None => {
                let mut command = match argv {
                    Some([program, args @ ..]) => {
                        let mut c = sys::command(program);
                        c.args(args);
                        c
                    }
                    _ => {
                        let mut c = sys::command(&me);
                        c.arg("--echo");
                        c
                    }
                };
                let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
                let to = child.stdin.take().ok_or_else(|| io::Error::other("no stdin pipe"))?;
                let from = child.stdout.take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
                Peer { child, to: Box::new(to), from: BufReader::new(Box::new(from)) }
            }
            Some(listener) => {
                let addr = listener.local_addr()?.to_string();
                let mut child = sys::command(&me)
                    .args(["--echo", "--connect", &addr])
                    .stdin(Stdio::null())
                    .spawn()?;
                let stream = accept_from(listener, &mut child)?;
                stream.set_nodelay(true)?;
                let from: Box<dyn Read> = Box::new(stream.try_clone()?);
                Peer { child, to: Box::new(stream), from: BufReader::new(from) }
            }
        };
        peers.push(peer);
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
    // The CPU readings bracket the timed loop alone: the children's start-up and the warm-up
    // stay out. Between round trips every child is blocked in its read, so its time is still.
    // The bench has a single thread during the floor, so RUSAGE_SELF is this loop's thread.
    let (children_before, parent_before) = (children_cpu_ns(&peers), sys::self_cpu_us()?);
    for i in 0..iterations {
        times.push(trip(&mut peers[i % children])?);
    }
    let parent_cpu_us = (sys::self_cpu_us()? - parent_before) / iterations as f64;
    let children_cpu_us = children_before
        .zip(children_cpu_ns(&peers))
        .map(|(before, after)| after.saturating_sub(before) as f64 / 1e3 / iterations as f64);
    for peer in peers {
        // Closing its input (stdin, or the connection) ends the child: it exits on its own.
        drop(peer.to);
        drop(peer.from);
        let mut child = peer.child;
        child.wait()?;
    }
    times.sort_by(f64::total_cmp);
    Ok(Floor {
        median_us: percentile(&times, 50.0),
        mean_us: times.iter().sum::<f64>() / times.len().max(1) as f64,
        p90_us: percentile(&times, 90.0),
        samples: times.len(),
        parent_cpu_us,
        children_cpu_us,
    })
}

/// The connection of an echo child just started: a plain `accept` would wait for ever for a
/// child that failed to start or to connect, so it is polled, and the child watched.
fn accept_from(listener: &TcpListener, child: &mut Child) -> io::Result<TcpStream> {
    listener.set_nonblocking(true)?;
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false)?;
                return Ok(stream);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        if let Some(status) = child.try_wait()? {
            return Err(io::Error::other(format!("the echo child ended ({status}) unconnected")));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(io::Error::other("the echo child did not connect within 10 s"));
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The CPU time of all echo children together, in nanoseconds.
fn children_cpu_ns(peers: &[Peer]) -> Option<u64> {
    peers.iter().map(|p| sys::task_cpu_ns(p.child.id())).sum()
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
