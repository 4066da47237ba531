//! A bot that lives inside the referee's process (the built-in bots, a library user's own type):
//! the [`Player`] trait it implements, and the loop that serves it over an in-memory pipe, so
//! the referee talks to it through the same framing, clock and fault handling as to a program.

pub(crate) mod builtin;

use protocol::codec::{Frame, LineFramer, decode_line, encode_line};
use protocol::msg::{FromBot, ToBot};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// A bot in the referee's own process. It is told every message of its seat's conversation
/// (spec/protocol.md), the `hello` question first, and answers each question (a message with an
/// `id`) by returning its answer; for a notice it returns `None`. Returning `None` to a question
/// leaves it unanswered: the clock runs out and the fault is recorded like any bot's.
///
/// The referee judges every answer as it judges a program's: an in-process player gets no
/// shortcut past the rules or the clock.
pub trait Player: Send + 'static {
    /// The answer to `msg`, if it is a question; `asked` is when it arrived, for a player that
    /// times itself.
    fn answer(&mut self, msg: ToBot, asked: Instant) -> Option<FromBot>;

    /// True when answers take long enough on the CPU (a search) that they must run off the
    /// async runtime's threads, which keep the referee's clocks meanwhile.
    fn blocking(&self) -> bool {
        false
    }
}

/// Serves `player` on its end of an in-memory pipe until the referee closes it or says `bye`.
pub(crate) async fn serve<P: Player>(mut player: P, stream: DuplexStream, max_line: usize) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    let mut framer = LineFramer::new(max_line);
    let mut buf = vec![0u8; 8192];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&buf[..n]);
        let mut out = String::new();
        while let Some(frame) = framer.next_line() {
            let Frame::Line(line) = frame else { continue };
            let Ok(msg) = decode_line::<ToBot>(line) else { continue };
            if matches!(msg, ToBot::Bye { .. }) {
                return;
            }
            let asked = Instant::now();
            let answer = if player.blocking() && msg.id().is_some() {
                let Ok((back, answer)) = tokio::task::spawn_blocking(move || {
                    let answer = player.answer(msg, asked);
                    (player, answer)
                })
                .await
                else {
                    return;
                };
                player = back;
                answer
            } else {
                player.answer(msg, asked)
            };
            if let Some(answer) = answer {
                out.push_str(&encode_line(&answer));
            }
        }
        if !out.is_empty() && writer.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A boxed player is a player: the library's seats hold `Box<dyn Player>`.
impl Player for Box<dyn Player> {
    fn answer(&mut self, msg: ToBot, asked: Instant) -> Option<FromBot> {
        (**self).answer(msg, asked)
    }

    fn blocking(&self) -> bool {
        (**self).blocking()
    }
}
