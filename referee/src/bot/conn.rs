//! A bounded line connection to one bot, generic over the byte stream (pipes, TCP, in-memory), so
//! framing, deadlines and fault classification are written once.

use protocol::ToBot;
use protocol::codec::{Frame, LineFramer, encode_into};
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::{Instant, timeout_at};

/// Boxed read half: child stdout, TCP read half, or an in-memory pipe.
pub(crate) type Reader = Box<dyn AsyncRead + Unpin + Send>;
/// Boxed write half.
pub(crate) type Writer = Box<dyn AsyncWrite + Unpin + Send>;

/// What came in from a bot.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One complete line (without its newline).
    Line(Vec<u8>),
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
            out: Vec::with_capacity(4096),
            read_buf: vec![0; 16 * 1024],
            eof: false,
        }
    }

    /// Adds a message to the outgoing buffer; nothing is written until [`LineConn::flush`], so
    /// the notices before a question leave in one write.
    pub(crate) fn queue(&mut self, msg: &ToBot) {
        encode_into(msg, &mut self.out);
    }

    /// Adds an already encoded line (or lines), so a notice for four bots is encoded once.
    pub(crate) fn queue_bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
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
        if self.out.is_empty() {
            return Ok(());
        }
        let res = timeout_at(deadline, async {
            self.writer.write_all(&self.out).await?;
            self.writer.flush().await
        })
        .await;
        self.out.clear();
        match res {
            Ok(r) => r,
            Err(_) => {
                Err(io::Error::new(io::ErrorKind::TimedOut, "the bot does not read its input"))
            }
        }
    }

    /// Closes the write side, so a bot reading its input sees end of file.
    pub(crate) async fn shutdown(&mut self) {
        let _ = self.writer.shutdown().await;
    }

    /// The next line, bounded by the framer's limit and by `deadline`.
    pub(crate) async fn next(&mut self, deadline: Instant) -> Incoming {
        loop {
            match self.framer.next_line() {
                Some(Frame::Line(line)) => return Incoming::Line(line.to_vec()),
                Some(Frame::TooLong) => return Incoming::TooLong,
                None => {}
            }
            if self.eof {
                return Incoming::Eof { partial: self.framer.partial().len() };
            }
            let room = self.framer.room().min(self.read_buf.len());
            match timeout_at(deadline, self.reader.read(&mut self.read_buf[..room])).await {
                Err(_) => return Incoming::Deadline,
                Ok(Ok(0)) => self.eof = true,
                Ok(Ok(n)) => self.framer.push(&self.read_buf[..n]),
                Ok(Err(e)) => return Incoming::Error(e),
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
        assert!(matches!(conn.next(soon()).await, Incoming::Line(l) if l == b"hello"));
        assert!(matches!(conn.next(soon()).await, Incoming::TooLong));
        assert!(matches!(conn.next(soon()).await, Incoming::Line(l) if l == b"ok"));
        drop(tw);
        drop(tr);
        assert!(matches!(conn.next(soon()).await, Incoming::Eof { partial: 4 }));
    }
}
