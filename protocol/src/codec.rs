//! The line codec: one JSON object per `\n`-terminated line, bounded in length, synchronous.
//!
//! [`LineFramer`] cuts a byte stream into lines without ever holding more than its limit of one
//! line, so a peer that never sends a newline cannot make the reader allocate without bound. The
//! async side only moves bytes into it. The framer is where the one line limit lives: the
//! organiser's `--max-line-bytes` (default [`MAX_LINE_BYTES`]) reaches it, and [`decode_line`]
//! checks no limit of its own, so a second, fixed limit can never contradict the configured one.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;

/// Default maximum length of one line, newline excluded; the organiser may set another.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Why a line is not a valid message. This is about syntax only; whether a valid message is a
/// legal move is the rules' business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The line is not UTF-8.
    NotUtf8,
    /// The line is not a JSON object of a known message type with the right fields.
    Json(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotUtf8 => f.write_str("line is not valid UTF-8"),
            DecodeError::Json(e) => write!(f, "invalid message: {e}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Encodes a message as exactly one line ending in `\n`.
pub fn encode_line<T: Serialize>(msg: &T) -> String {
    let mut out = Vec::with_capacity(128);
    encode_into(msg, &mut out);
    // serde_json writes UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a message and its `\n` to `buf`: the allocation-free form for hot paths.
pub fn encode_into<T: Serialize>(msg: &T, buf: &mut Vec<u8>) {
    // Compact serde_json escapes every control character inside strings, so the only newline is
    // the one we add. Serializing our own types into a Vec cannot fail.
    if serde_json::to_writer(&mut *buf, msg).is_err() {
        buf.extend_from_slice(b"{}");
    }
    buf.push(b'\n');
}

/// Decodes one line (with or without its `\n`; a `\r` before it is tolerated), whatever its
/// length: bounding lines is the framer's job, with the limit in force.
pub fn decode_line<T: DeserializeOwned>(line: &[u8]) -> Result<T, DecodeError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|_| DecodeError::NotUtf8)?;
    serde_json::from_str(text).map_err(|e| DecodeError::Json(e.to_string()))
}

/// What [`LineFramer::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line, without its `\n`.
    Line(&'a [u8]),
    /// A line went over the limit; its bytes up to the next `\n` are being discarded.
    TooLong,
}

/// Cuts a byte stream into bounded lines.
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    start: usize,
    max: usize,
    /// True while skipping the rest of an over-long line.
    skipping: bool,
    /// Where in `buf` the line [`LineFramer::next_line`] last returned is, until the framer
    /// is used again.
    last: (usize, usize),
}

impl LineFramer {
    /// A framer for lines of at most `max` bytes.
    pub fn new(max: usize) -> LineFramer {
        // Answers are short; the buffer grows for the rare long line.
        LineFramer {
            buf: Vec::with_capacity(512.min(max + 1)),
            start: 0,
            max,
            skipping: false,
            last: (0, 0),
        }
    }

    /// The line limit.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Bytes held that do not yet form a complete line.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// How many bytes the reader may add now without exceeding the bound (at least 1, so a
    /// reader always makes progress; over-long input is cut in [`LineFramer::push`]).
    pub fn room(&self) -> usize {
        (self.max + 1).saturating_sub(self.pending()).max(1)
    }

    /// Adds bytes read from the peer.
    pub fn push(&mut self, bytes: &[u8]) {
        self.last = (0, 0);
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete line, a `TooLong` marker, or `None` when more bytes are needed.
    pub fn next_line(&mut self) -> Option<Frame<'_>> {
        self.last = (0, 0);
        loop {
            let data = &self.buf[self.start..];
            let newline = find_newline(data);
            if self.skipping {
                match newline {
                    Some(i) => {
                        self.start += i + 1;
                        self.skipping = false;
                        continue;
                    }
                    None => {
                        self.buf.clear();
                        self.start = 0;
                        return None;
                    }
                }
            }
            return match newline {
                Some(i) if i <= self.max => {
                    self.last = (self.start, self.start + i);
                    self.start += i + 1;
                    Some(Frame::Line(self.last_line()))
                }
                Some(i) => {
                    self.start += i + 1;
                    Some(Frame::TooLong)
                }
                None if data.len() > self.max => {
                    self.buf.clear();
                    self.start = 0;
                    self.skipping = true;
                    Some(Frame::TooLong)
                }
                None => {
                    if self.start > 0 {
                        self.buf.drain(..self.start);
                        self.start = 0;
                    }
                    None
                }
            };
        }
    }

    /// The line the last call of [`LineFramer::next_line`] returned, while neither it nor
    /// [`LineFramer::push`] is called again (empty when that call returned no line): a reader
    /// can judge a line from the framer's buffer and copy it only when it must keep it.
    pub fn last_line(&self) -> &[u8] {
        &self.buf[self.last.0..self.last.1]
    }

    /// Bytes of an unfinished line, for reporting a half-sent line at end of stream.
    pub fn partial(&self) -> &[u8] {
        if self.skipping { &[] } else { &self.buf[self.start..] }
    }
}

/// Where the first `\n` of `data` is: eight bytes per step, since every answer is scanned for
/// its end, and a byte at a time was most of the framer's work. A word holds a newline when it
/// has a zero byte once xored with eight of them; the lowest such byte is the first (the borrow
/// of the subtraction only marks bytes above a true zero).
fn find_newline(data: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
    let mut words = data.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let Ok(word) = <[u8; 8]>::try_from(word) else { break };
        let x = u64::from_le_bytes(word) ^ NEWLINES;
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        if zeros != 0 {
            return Some(at + zeros.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words.remainder().iter().position(|&b| b == b'\n').map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{FromBot, ToBot};

    /// The word-at-a-time search finds what a byte-by-byte one finds, wherever the newline (or
    /// several, or none) sits, and whatever the other bytes are.
    #[test]
    fn find_newline_is_position() {
        let others = [0u8, b'\n' - 1, b'\n' + 1, b'\n' | 0x80, 0x7f, 0x80, 0xff, b'a'];
        for len in 0..40 {
            for &other in &others {
                let mut data = vec![other; len];
                assert_eq!(find_newline(&data), None, "{len} of {other}");
                for first in 0..len {
                    data[first] = b'\n';
                    let expected = data.iter().position(|&b| b == b'\n');
                    assert_eq!(find_newline(&data), expected, "{len}, {first}, {other}");
                    data[(first * 7 + 3) % len] = b'\n';
                    let expected = data.iter().position(|&b| b == b'\n');
                    assert_eq!(find_newline(&data), expected, "{len}, {first}, {other}");
                    data.fill(other);
                }
            }
        }
    }
    #[test]
    fn encode_gives_exactly_one_newline() {
        let msg = ToBot::Bye { reason: "line1\nline2\r\u{2028}".into() };
        let line = encode_line(&msg);
        assert!(line.ends_with('\n'));
        assert_eq!(line.matches('\n').count(), 1);
        assert_eq!(decode_line::<ToBot>(line.as_bytes()), Ok(msg));
    }

    #[test]
    fn decode_is_strict_for_bots() {
        let ok = br#"{"type":"play","id":3,"card":"3o"}"#;
        assert!(matches!(decode_line::<FromBot>(ok), Ok(FromBot::Play { id: 3, .. })));
        assert!(
            decode_line::<FromBot>(b"{\"type\":\"play\",\"id\":3,\"card\":\"3o\"}\r\n").is_ok()
        );
        let bad: [&[u8]; 7] = [
            br#"{"type":"play","id":3,"card":"3o","seat":1}"#,
            br#"{"type":"play","id":3,"card":"Zz"}"#,
            br#"{"type":"dance","id":3}"#,
            br#"{"id":3,"card":"3o"}"#,
            br#"{"type":"play","id":3,"card":"3o"} junk"#,
            b"\xff\xfe",
            b"",
        ];
        for line in bad {
            assert!(decode_line::<FromBot>(line).is_err(), "{:?}", String::from_utf8_lossy(line));
        }
        assert_eq!(decode_line::<FromBot>(b"\xff"), Err(DecodeError::NotUtf8));
    }

    /// Issue 12: a fixed 64 KiB check here overrode a larger `--max-line-bytes`. The decoder
    /// takes any line the framer let through; the framer alone applies the limit in force.
    #[test]
    fn decode_has_no_limit_of_its_own() {
        let pad = " ".repeat(MAX_LINE_BYTES + 10_000);
        let line = format!(r#"{{"type":"play","id":3,"card":"3o"{pad}}}"#);
        assert!(matches!(decode_line::<FromBot>(line.as_bytes()), Ok(FromBot::Play { id: 3, .. })));
        let mut framer = LineFramer::new(line.len());
        framer.push(line.as_bytes());
        framer.push(b"\n");
        assert_eq!(framer.next_line(), Some(Frame::Line(line.as_bytes())));
        let mut framer = LineFramer::new(line.len() - 1);
        framer.push(line.as_bytes());
        framer.push(b"\n");
        assert_eq!(framer.next_line(), Some(Frame::TooLong));
    }

    #[test]
    fn bots_ignore_unknown_referee_fields_and_types() {
        let m: ToBot = decode_line(br#"{"type":"bye","reason":"x","extra":1}"#).unwrap();
        assert_eq!(m, ToBot::Bye { reason: "x".into() });
        let m: ToBot = decode_line(br#"{"type":"future_thing","x":1}"#).unwrap();
        assert_eq!(m, ToBot::Unknown);
    }

    #[test]
    fn framer_splits_and_bounds_lines() {
        let mut f = LineFramer::new(8);
        f.push(b"abc\nde");
        assert_eq!(f.next_line(), Some(Frame::Line(b"abc")));
        assert_eq!(f.next_line(), None);
        f.push(b"f\n");
        assert_eq!(f.next_line(), Some(Frame::Line(b"def")));
        // A line of exactly the limit passes; one byte more does not.
        f.push(b"12345678\n123456789\nok\n");
        assert_eq!(f.next_line(), Some(Frame::Line(b"12345678")));
        assert_eq!(f.next_line(), Some(Frame::TooLong));
        assert_eq!(f.next_line(), Some(Frame::Line(b"ok")));
        // An endless line is dropped as it arrives, and the stream resynchronises after it.
        for _ in 0..1000 {
            f.push(b"xxxxxxxx");
            while let Some(frame) = f.next_line() {
                assert_eq!(frame, Frame::TooLong);
            }
            assert!(f.pending() <= 9);
        }
        f.push(b"tail\nnext\n");
        assert_eq!(f.next_line(), Some(Frame::Line(b"next")));
        assert_eq!(f.next_line(), None);
    }

    /// The last line stays readable from the framer until it is used again, and only the
    /// line: never a stale one after a marker, an empty look, or new bytes.
    #[test]
    fn the_last_line_is_kept_until_the_framer_is_used_again() {
        let mut f = LineFramer::new(8);
        assert_eq!(f.last_line(), b"");
        f.push(
            b"abc
de
123456789
",
        );
        assert_eq!(f.next_line(), Some(Frame::Line(b"abc")));
        assert_eq!(f.last_line(), b"abc");
        assert_eq!(f.next_line(), Some(Frame::Line(b"de")));
        assert_eq!(f.last_line(), b"de");
        assert_eq!(f.next_line(), Some(Frame::TooLong));
        assert_eq!(f.last_line(), b"");
        f.push(
            b"ok
",
        );
        assert_eq!(f.next_line(), Some(Frame::Line(b"ok")));
        f.push(b"par");
        assert_eq!(f.last_line(), b"", "new bytes end the last line");
        assert_eq!(f.next_line(), None);
        assert_eq!(f.last_line(), b"");
    }
}
