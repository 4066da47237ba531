//! The fuzz harness of the wire: arbitrary bytes through `LineFramer` (pushed in fuzzer-chosen
//! pieces) and every line through the decoders. Shared, through `#[path]`, by the `codec` fuzz
//! target and by `protocol/tests/fuzz_regressions.rs`, so a stable `cargo test` replays the
//! committed inputs with exactly the fuzzer's checks.
//!
//! Checked for every input: nothing panics; the framer never holds more than `max` bytes plus
//! the piece just pushed, and no more than `max` once drained; the lines and over-long markers it
//! gives do not depend on how the stream was cut (they equal a plain split on `\n`); every
//! message that decodes re-encodes to one line that decodes to the same value; the hand-written
//! encoders (messages and record lines) and the play-answer shortcut agree with serde.

use protocol::codec::{Frame, LineFramer, MAX_LINE_BYTES, decode_line, encode_line};
use protocol::msg::{FromBot, ToBot};
use protocol::record::RecordLine;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// A frame the framer gave, owned so a whole run can be compared with the model.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Line(Vec<u8>),
    TooLong,
}

/// Runs one input. The first byte picks the line limit, the second seeds the piece sizes, the
/// rest is the byte stream.
pub(crate) fn check(data: &[u8]) {
    // The decoders see the raw input too, newlines, `\r` and over-long input included.
    round_trips(data);
    let [sel, split, stream @ ..] = data else { return };
    let max = match sel >> 6 {
        // Tiny limits make over-long lines, and their resynchronisation, frequent.
        0 | 1 => 1 + usize::from(sel & 0x7f),
        2 => 200 + 50 * usize::from(sel & 0x3f),
        _ => MAX_LINE_BYTES,
    };
    let mut framer = LineFramer::new(max);
    assert_eq!(framer.max(), max);
    let mut got = Vec::new();
    // A small generator for the piece sizes: the fuzzer controls the cuts through `split`.
    let mut state = u32::from(*split).wrapping_mul(0x9E37_79B9) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let mut pos = 0;
    while pos < stream.len() {
        let r = next();
        let size = if r.is_multiple_of(8) {
            1 + (r >> 8) as usize % 4096
        } else {
            1 + (r >> 8) as usize % 24
        };
        let piece = &stream[pos..(pos + size).min(stream.len())];
        pos += piece.len();
        let room = framer.room();
        assert!(room >= 1, "the reader must always be allowed to make progress");
        // Drained, the framer holds at most `max`, so a reader that fills `room` stops at `max + 1`.
        assert_eq!(framer.pending() + room, max + 1);
        framer.push(piece);
        assert!(
            framer.pending() <= max + piece.len(),
            "framer holds {} bytes, limit {max} plus a piece of {}",
            framer.pending(),
            piece.len()
        );
        while let Some(frame) = framer.next_line() {
            match frame {
                Frame::Line(line) => {
                    assert!(
                        line.len() <= max,
                        "a line of {} bytes passed a limit of {max}",
                        line.len()
                    );
                    assert!(!line.contains(&b'\n'));
                    let line = line.to_vec();
                    round_trips(&line);
                    got.push(Got::Line(line));
                }
                Frame::TooLong => got.push(Got::TooLong),
            }
        }
        assert!(
            framer.pending() <= max,
            "a drained framer holds {} > {max} bytes",
            framer.pending()
        );
    }
    let (want, tail) = model(stream, max);
    assert_eq!(got, want, "the frames depend on how the stream was cut");
    assert_eq!(framer.partial(), tail, "the unfinished line");
}

/// The frames of a stream as if it had arrived whole: each `\n`-terminated line, or an over-long
/// marker; an unfinished last line is either held (at most `max` bytes) or already marked.
fn model(stream: &[u8], max: usize) -> (Vec<Got>, &[u8]) {
    let mut parts: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    let tail = parts.pop().unwrap_or_default();
    let mut frames: Vec<Got> = parts
        .into_iter()
        .map(|p| if p.len() <= max { Got::Line(p.to_vec()) } else { Got::TooLong })
        .collect();
    if tail.len() > max {
        frames.push(Got::TooLong);
        return (frames, &[]);
    }
    (frames, tail)
}

/// Every message type the crate decodes: a value that decodes must re-encode to exactly one line
/// that decodes to the same value.
fn round_trips(line: &[u8]) {
    // The referee's shortcut for canonical play answers decides exactly as the full decoder.
    match (FromBot::decode(line), decode_line::<FromBot>(line)) {
        (Ok(fast), Ok(full)) => assert_eq!(fast, full),
        (Err(_), Err(_)) => {}
        (fast, full) => panic!("FromBot::decode gives {fast:?}, decode_line {full:?}"),
    }
    if let Ok(msg) = round_trip::<FromBot>(line) {
        // Accessors are total.
        let _ = (msg.id(), msg.kind(), msg.signals().len());
    }
    if let Ok(msg) = round_trip::<ToBot>(line) {
        let _ = (msg.id(), msg.kind());
        same_as_serde(&msg, |buf| msg.encode_into(buf));
    }
    if let Ok(rec) = round_trip::<RecordLine>(line) {
        same_as_serde(&rec, |buf| rec.encode_into(buf));
    }
}

/// The referee's hand-written encoders must write exactly what serde writes.
fn same_as_serde<T: Serialize + Debug>(value: &T, fast: impl FnOnce(&mut Vec<u8>)) {
    let mut buf = Vec::new();
    fast(&mut buf);
    assert_eq!(
        String::from_utf8_lossy(&buf),
        encode_line(value),
        "the hand-written encoding of {value:?} differs from serde's"
    );
}

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(line: &[u8]) -> Result<T, ()> {
    let msg = decode_line::<T>(line).map_err(|e| {
        // Error messages are shown to people and recorded: they must render.
        let _ = e.to_string();
    })?;
    let encoded = encode_line(&msg);
    assert!(encoded.ends_with('\n'), "{encoded:?}");
    assert_eq!(encoded.matches('\n').count(), 1, "one message, one line: {encoded:?}");
    let again = decode_line::<T>(encoded.as_bytes())
        .unwrap_or_else(|e| panic!("{msg:?} encodes to {encoded:?}, which does not decode: {e}"));
    assert_eq!(again, msg, "{encoded:?} does not decode to what it encodes");
    Ok(msg)
}
