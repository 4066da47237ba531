//! The record `replay --seat` starts from: loaded, checked against the rules, and how its game
//! ended.

use crate::replay::{self, ReplayError};
use protocol::record::{FaultRecord, Footer, GameStatus, Header, RecordLine};
use std::path::Path;

/// How the recorded game ended, which decides how the re-run must end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Complete,
    /// Stopped by the organiser: the game ended while a question was open.
    Aborted,
    /// No footer: the referee was killed; the conversation is shown as far as the record goes.
    CutShort,
}

impl End {
    pub(super) fn note(self) -> &'static str {
        match self {
            End::Complete => "",
            End::Aborted => " (the game was aborted)",
            End::CutShort => " (the record is cut short: the conversation stops where it does)",
        }
    }
}

/// A record, checked against the rules, as lines.
#[derive(Debug)]
pub(crate) struct Recorded {
    pub(crate) header: Header,
    /// Every line after the header, the footer included.
    pub(crate) lines: Vec<RecordLine>,
    pub(crate) footer: Option<Footer>,
    pub(crate) end: End,
}

impl Recorded {
    pub(super) fn load(path: &Path) -> Result<Recorded, String> {
        let shown = path.display();
        // The rules check first: a conversation is only re-derived from a consistent record.
        let checked = replay::replay_file(path);
        let bytes = match &checked {
            // The check's error names the file and says why.
            Err(ReplayError::Io(_)) => Vec::new(),
            _ => std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?,
        };
        Recorded::from_checked(checked, &String::from_utf8_lossy(&bytes), &shown.to_string())
    }

    /// A record held in memory (a game still being played, as far as it went), named `shown`
    /// in errors.
    pub(super) fn from_text(text: &str, shown: &str) -> Result<Recorded, String> {
        Recorded::from_checked(replay::replay_str(text), text, shown)
    }

    fn from_checked(
        checked: Result<replay::Replay, ReplayError>,
        text: &str,
        shown: &str,
    ) -> Result<Recorded, String> {
        let end = match checked {
            Ok(r) if r.footer.as_ref().is_some_and(|f| f.status == GameStatus::Aborted) => {
                End::Aborted
            }
            Ok(_) => End::Complete,
            Err(ReplayError::CutShort { .. }) => End::CutShort,
            // The message names the file already.
            Err(e @ ReplayError::Io(_)) => return Err(e.to_string()),
            Err(e) => return Err(format!("{shown}: {e}")),
        };
        let mut lines = Vec::new();
        for (n, segment) in text.split_inclusive('\n').enumerate() {
            // Only a cut-short record can end in a half-written line, and the check above has
            // accepted every whole line.
            let Some(body) = segment.strip_suffix('\n') else { break };
            let line: RecordLine = serde_json::from_str(body)
                .map_err(|e| format!("{shown}: line {}: not a record line: {e}", n + 1))?;
            lines.push(line);
        }
        let mut lines = lines.into_iter();
        let Some(RecordLine::Header(header)) = lines.next() else {
            return Err(format!("{shown}: line 1: the first line is not a header line"));
        };
        let lines: Vec<RecordLine> = lines.collect();
        let footer = lines.iter().find_map(|l| match l {
            RecordLine::Footer(f) => Some((**f).clone()),
            _ => None,
        });
        Ok(Recorded { header: *header, lines, footer, end })
    }

    pub(super) fn faults(&self) -> impl Iterator<Item = &FaultRecord> {
        self.lines.iter().filter_map(|l| if let RecordLine::Fault(f) = l { Some(f) } else { None })
    }
}
