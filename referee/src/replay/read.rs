//! Reading a record, line by line, into the replayer, and the ways that can fail: a file that
//! cannot be read, a line that is not a record line, a line the rules refute, a record cut short.

use super::Replayer;
use super::account::score_text;
use protocol::record::{FaultRecord, Footer, Header, RECORD_FORMAT, RECORD_VERSION, RecordLine};
use std::fmt::{self, Display};
use std::path::Path;

/// A record that replayed without contradiction.
#[derive(Debug)]
pub(crate) struct Replay {
    pub(crate) header: Header,
    /// `None`: the record was cut short.
    pub(crate) footer: Option<Footer>,
    /// The readable trick-by-trick account.
    pub(crate) account: String,
    /// Complete record lines read.
    pub(crate) lines: usize,
    pub(crate) faults: Vec<FaultRecord>,
    /// Score per team as the engine re-derived it.
    pub(crate) score: [u16; 2],
}

/// Why a record could not be replayed to its footer.
#[derive(Debug)]
pub(crate) enum ReplayError {
    /// The file cannot be read.
    Io(String),
    /// Not a record: bad JSON, an unknown line, a bad header, another format or version.
    Corrupt { line: usize, message: String },
    /// A line that does not follow from the rules and the lines before it.
    Diverged { line: usize, message: String },
    /// Every line is valid but the footer is missing: the referee stopped writing mid-game.
    CutShort { lines: usize, replay: Box<Replay> },
}

impl Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Io(message) => write!(f, "cannot read the record: {message}"),
            ReplayError::Corrupt { line, message } | ReplayError::Diverged { line, message } => {
                write!(f, "line {line}: {message}")
            }
            ReplayError::CutShort { lines, replay } => write!(
                f,
                "the record was cut short after {lines} complete lines, without a footer \
                 (score {})",
                score_text(replay.score)
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Replays the record in `path`.
pub(crate) fn replay_file(path: &Path) -> Result<Replay, ReplayError> {
    let bytes =
        std::fs::read(path).map_err(|e| ReplayError::Io(format!("{}: {e}", path.display())))?;
    replay_bytes(&bytes)
}

/// Replays a record's raw bytes. A write torn inside a multi-byte character leaves invalid UTF-8
/// on the last line only, which is a cut, not corruption.
pub(super) fn replay_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let bad_at = match std::str::from_utf8(bytes) {
        Ok(text) => return replay_str(text),
        Err(e) => e.valid_up_to(),
    };
    let line_start = bytes[..bad_at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = bytes[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
    let not_utf8 = || corrupt(line, "not UTF-8 text");
    let newline_after = bytes[bad_at..].iter().position(|&b| b == b'\n');
    let on_last_line = newline_after.is_none_or(|p| bad_at + p + 1 == bytes.len());
    if line_start == 0 || !on_last_line {
        return Err(not_utf8());
    }
    let prefix = std::str::from_utf8(&bytes[..line_start]).map_err(|_| not_utf8())?;
    match replay_str(prefix) {
        // The garbage follows a footer: nothing may.
        Ok(_) => Err(corrupt(line, "text after the footer")),
        Err(e) => Err(e),
    }
}

/// Replays a record held in memory.
pub(crate) fn replay_str(text: &str) -> Result<Replay, ReplayError> {
    let segments: Vec<&str> = text.split_inclusive('\n').collect();
    let mut replayer: Option<Replayer> = None;
    let mut complete = 0;
    for (i, segment) in segments.iter().enumerate() {
        let line = i + 1;
        let last = line == segments.len();
        let after_footer = replayer.as_ref().is_some_and(|r| r.footer.is_some());
        // Only the last segment can lack its newline: a write that never finished.
        let Some(body) = segment.strip_suffix('\n') else {
            if after_footer {
                return Err(corrupt(line, "text after the footer"));
            }
            break;
        };
        let record = match decode(body, line) {
            Ok(record) => record,
            Err(Bad::NotJson(_)) if last && !after_footer => break,
            Err(Bad::NotJson(e)) => return Err(corrupt(line, format!("not JSON: {e}"))),
            Err(Bad::Corrupt(message)) => return Err(corrupt(line, message)),
        };
        match &mut replayer {
            None => replayer = Some(Replayer::start(record, line)?),
            Some(r) => r.line(record, line)?,
        }
        complete = line;
    }
    match replayer {
        Some(r) => r.finish(complete),
        None if text.is_empty() => Err(corrupt(1, "the record is empty")),
        None => Err(corrupt(1, "the header line is cut short")),
    }
}

enum Bad {
    NotJson(serde_json::Error),
    Corrupt(String),
}

fn decode(body: &str, line: usize) -> Result<RecordLine, Bad> {
    let not_json = |e: &serde_json::Error| e.is_syntax() || e.is_eof();
    if line == 1 {
        // Format and version are checked before the strict decode, so a newer record is
        // reported as such rather than as an unknown field.
        let value: serde_json::Value = serde_json::from_str(body).map_err(Bad::NotJson)?;
        if value.get("type").and_then(|t| t.as_str()) != Some("header") {
            return Err(Bad::Corrupt("the first line is not a header line".into()));
        }
        let format = value.get("format").and_then(|f| f.as_str());
        if format != Some(RECORD_FORMAT) {
            return Err(Bad::Corrupt(format!(
                "the header's format is {}, not {RECORD_FORMAT:?}",
                value.get("format").map_or("missing".into(), |f| f.to_string())
            )));
        }
        let version = value.get("version").and_then(|v| v.as_u64());
        if version != Some(u64::from(RECORD_VERSION)) {
            return Err(Bad::Corrupt(format!(
                "the record is format version {}; this referee reads version {RECORD_VERSION}",
                value.get("version").map_or("missing".into(), |v| v.to_string())
            )));
        }
    }
    serde_json::from_str(body).map_err(|e| {
        if not_json(&e) { Bad::NotJson(e) } else { Bad::Corrupt(format!("not a record line: {e}")) }
    })
}

pub(super) fn corrupt(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Corrupt { line, message: message.into() }
}

pub(super) fn diverged(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Diverged { line, message: message.into() }
}

/// The usual form of a divergence: what the line says and why the rules disagree.
pub(super) fn refused(line: usize, what: &str, why: impl Display) -> ReplayError {
    diverged(line, format!("{what} does not follow from the rules: {why}"))
}

/// A stated outcome that differs from the engine's.
pub(super) fn differs(
    line: usize,
    what: &str,
    field: &str,
    stated: impl Display,
    rules: impl Display,
) -> ReplayError {
    diverged(line, format!("{what} says {field} {stated}, the rules say {rules}"))
}
