//! A bounded line connection to one bot, generic over the byte stream (pipes, TCP, in-memory), so
//! framing, deadlines and fault classification are written once.

mod tcp;
mod yielding;

pub(crate) use tcp::{connect, split};
use yielding::Yield;

use protocol::ToBot;
use protocol::codec::{Frame, LineFramer};
use std::io;
use std::os::fd::{OwnedFd, RawFd};
use std::pin::Pin;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::{Instant, Sleep, sleep_until};

/// Boxed read half: child stdout, TCP read half, or an in-memory pipe.
pub(crate) type Reader = Box<dyn AsyncRead + Unpin + Send>;
/// Boxed write half.
pub(crate) type Writer = Box<dyn AsyncWrite + Unpin + Send>;

/// What came in from a bot.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One complete line, which [`LineConn::line`] shows (without its newline) until the next
    /// read: most lines are judged and forgotten, and only those kept are copied.
    Line,
    /// A line over the length limit; its bytes were dropped.
    TooLong,
    /// End of stream; `partial` holds the bytes of an unfinished last line.
    Eof {
        /// A half-sent line, if any.
        partial: usize,
    },
    /// The deadline passed first.
    Deadline,
    /// The stream failed.
    Error(io::Error),
}

/// Queues outgoing messages and reads bounded lines before a deadline.
pub(crate) struct LineConn {
    reader: Reader,
    writer: Writer,
    framer: LineFramer,
    out: Vec<u8>,
    read_buf: Vec<u8>,
    eof: bool,
    /// One timer for every deadline of this connection, and when it is due. A fresh timer per
    /// read and per write cost the referee more than the read itself (callgrind, issue 8), so
    /// this one moves only when it would fire too late, or when it fires before the deadline in
    /// force (deadlines mostly grow, so that is about once per answer time, not per answer).
    timer: Option<(Pin<Box<Sleep>>, Instant)>,
    /// The TCP socket under `reader` and `writer`, when there is one; it lives as long as they
    /// do, so it is never a number reused by another file.
    socket: Option<RawFd>,
    /// A duplicate of the non-blocking descriptor under `reader`, read directly once before
    /// each wait: a bot on the referee's CPU has usually answered by the time the question's
    /// write returns (it preempts the referee as it wakes), and then the answer is taken with
    /// one `read`, without the runtime's poll, wake-up and second read (issue 16).
    direct: Option<OwnedFd>,
    /// A duplicate of the non-blocking descriptor under `writer`, written directly first: a
    /// question fits in the pipe, so it costs one `write` and no poll of the runtime's; only
    /// what the pipe does not take waits for the writer.
    direct_out: Option<OwnedFd>,
    /// `direct` is a TCP socket, written directly too (with `send`, so that a peer that has
    /// gone is an error and never a `SIGPIPE`), until the write side is shut down.
    send_direct: bool,
    /// When the direct read finds nothing: whether the thread yields its CPU to the bot once
    /// and reads again, instead of parking the runtime.
    yield_to_bot: Yield,
}

/// A TCP connection's socket, as the connection's owner knows it: its number, and a duplicate
/// to read directly.
#[derive(Debug)]
pub(crate) struct Socket {
    pub(crate) raw: RawFd,
    direct: Option<OwnedFd>,
}

impl Socket {
    /// The socket under `stream`, before the stream is split into its halves.
    pub(crate) fn of(stream: &tokio::net::TcpStream) -> Socket {
        use std::os::fd::{AsFd as _, AsRawFd as _};
        Socket { raw: stream.as_raw_fd(), direct: stream.as_fd().try_clone_to_owned().ok() }
    }
}

impl std::fmt::Debug for LineConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineConn").field("queued", &self.out.len()).field("eof", &self.eof).finish()
    }
}

impl LineConn {
    pub(crate) fn new(reader: Reader, writer: Writer, max_line: usize) -> LineConn {
        LineConn {
            reader,
            writer,
            framer: LineFramer::new(max_line),
            // Small to start with: a lobby may hold a thousand connections that never say a
            // word, and a question with its notices is well under a kilobyte.
            out: Vec::new(),
            read_buf: vec![0; 4096],
            eof: false,
            timer: None,
            socket: None,
            direct: None,
            direct_out: None,
            send_direct: false,
            yield_to_bot: Yield::Never,
        }
    }

    /// Reads straight from `fd` (a duplicate of the non-blocking descriptor under the reader:
    /// the same pipe or socket) before waiting for the reader; with `same_cpu` (the bot runs on
    /// this thread's one CPU), yielding to the bot once before a second read.
    pub(crate) fn read_directly(&mut self, fd: OwnedFd, same_cpu: bool) {
        self.direct = Some(fd);
        self.yield_to_bot = if same_cpu { Yield::Always } else { Yield::Never };
    }

    /// Writes straight to `fd` (a duplicate of the non-blocking descriptor under the writer)
    /// before handing what is left to the writer.
    pub(crate) fn write_directly(&mut self, fd: OwnedFd) {
        self.direct_out = Some(fd);
    }

    /// Names the TCP socket under this connection, for [`LineConn::peer_closed`], and reads
    /// its answers and writes its questions directly as a pipe's are (one `read` before the
    /// runtime's poll, one `send` before its writer), when the socket could be duplicated.
    /// Where the bot runs is not known: the yield to it is kept up while it finds answers.
    pub(crate) fn watch_socket(&mut self, socket: Socket) {
        self.socket = Some(socket.raw);
        if let Some(fd) = socket.direct {
            self.direct = Some(fd);
            self.send_direct = true;
            self.yield_to_bot = Yield::learning();
        }
    }

    /// True when the peer has closed the connection (or it failed), found by peeking at the
    /// socket: neither blocking nor consuming anything. Waiting data means the peer is there
    /// (its lines are read, and judged, at its next question); a connection with no socket to
    /// look at is taken to be open.
    pub(crate) fn peer_closed(&self) -> bool {
        use nix::errno::Errno;
        use nix::sys::socket::{MsgFlags, recv};
        if self.eof {
            return true;
        }
        let Some(fd) = self.socket else { return false };
        let mut byte = [0u8; 1];
        match recv(fd, &mut byte, MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT) {
            Ok(0) => true,
            Ok(_) | Err(Errno::EAGAIN | Errno::EINTR) => false,
            Err(_) => true,
        }
    }

    /// Makes the timer fire no later than `deadline`.
    fn arm(&mut self, deadline: Instant) {
        match &mut self.timer {
            Some((_, due)) if *due <= deadline => {}
            Some((sleep, due)) => {
                sleep.as_mut().reset(deadline);
                *due = deadline;
            }
            None => self.timer = Some((Box::pin(sleep_until(deadline)), deadline)),
        }
    }

    /// Waits for the timer; true once `deadline` has passed. When it fires early (it was set
    /// for an earlier deadline), it is moved to `deadline` and this reports false.
    async fn expired(timer: &mut Option<(Pin<Box<Sleep>>, Instant)>, deadline: Instant) -> bool {
        let Some((sleep, due)) = timer else { return true };
        sleep.as_mut().await;
        if Instant::now() >= deadline {
            return true;
        }
        sleep.as_mut().reset(deadline);
        *due = deadline;
        false
    }

    /// Adds a message to the outgoing buffer; nothing is written until [`LineConn::flush`], so
    /// the notices before a question leave in one write.
    pub(crate) fn queue(&mut self, msg: &ToBot) {
        msg.encode_into(&mut self.out);
    }

    /// Adds the lines `encode` writes at the end of the outgoing buffer.
    pub(crate) fn queue_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        encode(&mut self.out);
    }

    /// Adds an already encoded line (or lines), so a notice for four bots is encoded once.
    pub(crate) fn queue_bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// The line the last [`LineConn::next`] brought ([`Incoming::Line`]), until the next.
    pub(crate) fn line(&self) -> &[u8] {
        self.framer.last_line()
    }

    /// The line length limit.
    pub(crate) fn max_line(&self) -> usize {
        self.framer.max()
    }

    /// Bytes waiting to be written.
    pub(crate) fn queued(&self) -> usize {
        self.out.len()
    }

    /// Writes everything queued, giving up at `deadline` (a bot that stops reading its input
    /// must not stall the table).
    pub(crate) async fn flush(&mut self, deadline: Instant) -> io::Result<()> {
        let socket = self.direct.as_ref().filter(|_| self.send_direct);
        if let Some(fd) = self.direct_out.as_ref().or(socket) {
            use std::os::fd::AsRawFd as _;
            let mut written = 0;
            while written < self.out.len() {
                let rest = &self.out[written..];
                let sent = if self.send_direct {
                    use nix::sys::socket::{MsgFlags, send};
                    send(fd.as_raw_fd(), rest, MsgFlags::MSG_NOSIGNAL | MsgFlags::MSG_DONTWAIT)
                } else {
                    nix::unistd::write(fd, rest)
                };
                match sent {
                    Ok(n) => written += n,
                    Err(nix::errno::Errno::EINTR) => {}
                    // The pipe is full (EAGAIN), or an error the writer will meet and report.
                    Err(_) => break,
                }
            }
            self.out.drain(..written);
        }
        if self.out.is_empty() {
            return Ok(());
        }
        self.arm(deadline);
        let LineConn { writer, out, timer, .. } = self;
        // Pinned outside the loop: `write_all` is not cancel-safe, so an early timer must not
        // restart it.
        let write = async {
            writer.write_all(out).await?;
            writer.flush().await
        };
        tokio::pin!(write);
        let res = loop {
            tokio::select! {
                biased;
                r = &mut write => break r,
                expired = Self::expired(timer, deadline) => {
                    if expired {
                        break Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the bot does not read its input",
                        ));
                    }
                }
            }
        };
        self.out.clear();
        res
    }

    /// The two halves again, for another owner. Bytes already read but not consumed (a line
    /// the bot sent unasked) are put back in front of the reader, so the next owner sees
    /// exactly what the bot sent (`check-bot` hands its scripted connection to the game runner
    /// this way). Queued messages not yet flushed are dropped.
    pub(crate) fn into_parts(mut self) -> (Reader, Writer) {
        let mut left = Vec::new();
        while let Some(frame) = self.framer.next_line() {
            if let Frame::Line(line) = frame {
                left.extend_from_slice(line);
                left.push(b'\n');
            }
        }
        left.extend_from_slice(self.framer.partial());
        let reader: Reader = if left.is_empty() {
            self.reader
        } else {
            Box::new(std::io::Cursor::new(left).chain(self.reader))
        };
        (reader, self.writer)
    }

    /// Closes the write side, so a bot reading its input sees end of file (the direct
    /// descriptor first: while it is open, the pipe is).
    pub(crate) async fn shutdown(&mut self) {
        self.direct_out = None;
        self.send_direct = false;
        let _ = self.writer.shutdown().await;
    }

    /// The next line, bounded by the framer's limit and by `deadline`.
    pub(crate) async fn next(&mut self, deadline: Instant) -> Incoming {
        // One direct read per call: when it finds nothing, the reader waits as usual.
        let mut tried = false;
        loop {
            match self.framer.next_line() {
                Some(Frame::Line(_)) => return Incoming::Line,
                Some(Frame::TooLong) => return Incoming::TooLong,
                None => {}
            }
            if self.eof {
                return Incoming::Eof { partial: self.framer.partial().len() };
            }
            let room = self.framer.room().min(self.read_buf.len());
            if let Some(fd) = self.direct.as_ref().filter(|_| !tried) {
                tried = true;
                let mut read = || nix::unistd::read(fd, &mut self.read_buf[..room]);
                let mut got = read();
                if got == Err(nix::errno::Errno::EAGAIN) && self.yield_to_bot.now() {
                    let _ = nix::sched::sched_yield();
                    got = read();
                    self.yield_to_bot.found(got != Err(nix::errno::Errno::EAGAIN));
                }
                match got {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.framer.push(&self.read_buf[..n]),
                    // Nothing yet (EAGAIN), or an error the reader will meet and report.
                    Err(_) => {}
                }
                continue;
            }
            self.arm(deadline);
            tokio::select! {
                biased;
                r = self.reader.read(&mut self.read_buf[..room]) => match r {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.framer.push(&self.read_buf[..n]),
                    Err(e) => return Incoming::Error(e),
                },
                expired = Self::expired(&mut self.timer, deadline) => {
                    if expired {
                        return Incoming::Deadline;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn lines_deadlines_and_limits() {
        let (ours, theirs) = tokio::io::duplex(1024);
        let (r, w) = tokio::io::split(ours);
        let mut conn = LineConn::new(Box::new(r), Box::new(w), 16);
        let (mut tr, mut tw) = tokio::io::split(theirs);
        conn.queue(&ToBot::Bye { reason: "x".into() });
        conn.flush(Instant::now() + Duration::from_secs(1)).await.unwrap();
        let mut got = vec![0; 64];
        let n = tr.read(&mut got).await.unwrap();
        assert_eq!(&got[..n], b"{\"type\":\"bye\",\"reason\":\"x\"}\n");

        let soon = || Instant::now() + Duration::from_millis(100);
        assert!(matches!(conn.next(soon()).await, Incoming::Deadline));
        tw.write_all(b"hello\n0123456789abcdefXYZ\nok\npart").await.unwrap();
        assert!(matches!(conn.next(soon()).await, Incoming::Line) && conn.line() == b"hello");
        assert!(matches!(conn.next(soon()).await, Incoming::TooLong));
        assert!(matches!(conn.next(soon()).await, Incoming::Line) && conn.line() == b"ok");
        drop(tw);
        drop(tr);
        assert!(matches!(conn.next(soon()).await, Incoming::Eof { partial: 4 }));
    }

    /// A pipe read directly before each wait, as a bot's stdout is: a line split between a
    /// direct read and the reader's comes out whole, the length limit holds for both, and the
    /// end of the pipe is seen by either.
    #[tokio::test]
    async fn direct_reads_and_the_readers_make_one_stream() {
        use std::io::Write;
        use std::os::fd::AsFd;
        let (rx, tx) = std::io::pipe().unwrap();
        let rx: OwnedFd = rx.into();
        let direct = rx.as_fd().try_clone_to_owned().unwrap();
        let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(rx).unwrap();
        let (_, w) = tokio::io::split(tokio::io::duplex(64).0);
        let mut conn = LineConn::new(Box::new(reader), Box::new(w), 16);
        conn.read_directly(direct, false);
        let mut tx = std::fs::File::from(OwnedFd::from(tx));
        let soon = || Instant::now() + Duration::from_millis(100);
        tx.write_all(b"hel").unwrap();
        // The rest comes while the reader waits, after the direct read took "hel".
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            tx.write_all(b"lo\nworld\n").unwrap();
            tx
        });
        let long = Instant::now() + Duration::from_secs(10);
        assert!(matches!(conn.next(long).await, Incoming::Line) && conn.line() == b"hello");
        let mut tx = later.join().unwrap();
        assert!(matches!(conn.next(soon()).await, Incoming::Line) && conn.line() == b"world");
        assert!(matches!(conn.next(soon()).await, Incoming::Deadline));
        tx.write_all(b"0123456789abcdefXYZ\nok\n").unwrap();
        assert!(matches!(conn.next(soon()).await, Incoming::TooLong));
        assert!(matches!(conn.next(soon()).await, Incoming::Line) && conn.line() == b"ok");
        tx.write_all(b"part").unwrap();
        drop(tx);
        assert!(matches!(conn.next(soon()).await, Incoming::Eof { partial: 4 }));
    }

    /// A pipe written directly before the writer, as a bot's stdin is: what the pipe takes at
    /// once goes in one write, the rest through the writer, in order and whole, and the
    /// deadline still holds for a reader that stops reading.
    #[tokio::test]
    async fn direct_writes_and_the_writers_make_one_stream() {
        use std::io::Read;
        use std::os::fd::AsFd;
        // A connection whose writer is a pipe, written directly too, and the pipe's other end.
        let piped = || {
            let (rx, tx) = std::io::pipe().unwrap();
            let tx: OwnedFd = tx.into();
            let direct = tx.as_fd().try_clone_to_owned().unwrap();
            let writer = tokio::net::unix::pipe::Sender::from_owned_fd(tx).unwrap();
            let (r, _) = tokio::io::split(tokio::io::duplex(64).0);
            let mut conn = LineConn::new(Box::new(r), Box::new(writer), 16);
            conn.write_directly(direct);
            (conn, rx)
        };
        let (mut conn, rx) = piped();
        // Four times what a pipe holds by default: the direct write takes the first part.
        let lines: Vec<ToBot> =
            (0..8000).map(|i| ToBot::Bye { reason: format!("{i:030}") }).collect();
        let mut sent = Vec::new();
        for l in &lines {
            conn.queue(l);
            l.encode_into(&mut sent);
        }
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut rx = rx;
            rx.read_to_end(&mut got).unwrap();
            got
        });
        conn.flush(Instant::now() + Duration::from_secs(10)).await.unwrap();
        drop(conn);
        assert!(reader.join().unwrap() == sent, "every byte, in order");

        let (mut conn, rx) = piped();
        for l in &lines {
            conn.queue(l);
        }
        let err = conn.flush(Instant::now() + Duration::from_millis(100)).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut, "a reader that never reads: {err}");
        drop(rx);
    }

    /// A TCP socket written directly, as a seated TCP bot's is: a question the socket takes
    /// never reaches the writer; what it does not take goes through the writer, in order and
    /// whole; an answer is read directly; and a peer that has gone is the flush's error.
    #[tokio::test]
    async fn a_tcp_socket_is_written_and_read_directly() {
        use std::io::{Read, Write};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // A connection, its socket watched, with `writer` in place of the socket's own when
        // given (kept aside then: dropping it would shut the socket's write side).
        let connect = async |writer: Option<Writer>| {
            let peer = std::net::TcpStream::connect(addr).unwrap();
            let (ours, _) = listener.accept().await.unwrap();
            let (r, w, socket) = split(ours);
            let (w, aside) = match writer {
                Some(other) => (other, Some(w)),
                None => (w, None),
            };
            let mut conn = LineConn::new(r, w, 64);
            conn.watch_socket(socket);
            (conn, peer, aside)
        };
        let (_, broken) = tokio::io::split(tokio::io::duplex(64).0);
        let (mut conn, peer, _aside) = connect(Some(Box::new(broken))).await;
        conn.queue(&ToBot::Bye { reason: "x".into() });
        conn.flush(Instant::now() + Duration::from_secs(5)).await.unwrap();
        let mut got = [0u8; 28];
        (&peer).read_exact(&mut got).unwrap();
        assert_eq!(&got, b"{\"type\":\"bye\",\"reason\":\"x\"}\n");

        let (mut conn, peer, _) = connect(None).await;
        // Far more than the socket's buffers hold at first: the direct send takes a part.
        let lines: Vec<ToBot> =
            (0..20_000).map(|i| ToBot::Bye { reason: format!("{i:030}") }).collect();
        let mut sent = Vec::new();
        for l in &lines {
            conn.queue(l);
            l.encode_into(&mut sent);
        }
        let total = sent.len();
        let mut reading = peer.try_clone().unwrap();
        let reader = std::thread::spawn(move || {
            let mut got = vec![0; total];
            reading.read_exact(&mut got).unwrap();
            got
        });
        conn.flush(Instant::now() + Duration::from_secs(10)).await.unwrap();
        assert!(reader.join().unwrap() == sent, "every byte, in order");

        let soon = || Instant::now() + Duration::from_secs(5);
        (&peer).write_all(b"answer\n").unwrap();
        assert!(matches!(conn.next(soon()).await, Incoming::Line) && conn.line() == b"answer");
        drop(peer);
        // The first sends after the close may still be taken (the peer answers them with a
        // reset); a later one fails.
        let mut failed = None;
        for _ in 0..100 {
            conn.queue(&lines[0]);
            if let Err(e) = conn.flush(soon()).await {
                failed = Some(e);
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let failed = failed.expect("writing to a closed peer never failed");
        assert_ne!(failed.kind(), io::ErrorKind::TimedOut, "{failed}");
    }

    /// The between-games check sees a peer that closed, and only that: an idle peer and a peer
    /// with a line waiting are there, and looking consumes nothing. (A line sent just before a
    /// close hides the close until it is read: the next question then finds the end.)
    #[tokio::test]
    async fn a_closed_tcp_peer_is_seen_without_reading() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut peer = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (ours, _) = listener.accept().await.unwrap();
        let socket = Socket::of(&ours);
        let (r, w) = ours.into_split();
        let mut conn = LineConn::new(Box::new(r), Box::new(w), 64);
        assert!(!conn.peer_closed(), "without its socket, a connection is taken to be open");
        conn.watch_socket(socket);
        assert!(!conn.peer_closed(), "an idle peer is there");
        peer.write_all(b"early\n").await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!conn.peer_closed(), "a peer with a line waiting is there");
        let soon = Instant::now() + Duration::from_secs(1);
        assert!(matches!(conn.next(soon).await, Incoming::Line) && conn.line() == b"early");
        drop(peer);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !conn.peer_closed() {
            assert!(std::time::Instant::now() < deadline, "the close is never seen");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let soon = Instant::now() + Duration::from_secs(1);
        assert!(matches!(conn.next(soon).await, Incoming::Eof { partial: 0 }));
    }
}
