//! What the re-run and its playback bots share: the captured seat's tape (the bytes that
//! crossed its connection, with the paused clock's time), the re-run's shared state, and how a
//! referee line is read as a question. Below both `rerun.rs` and `playback.rs`, so neither
//! imports the other's module for it.

use super::End;
use crate::shutdown::Trigger;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Referee to bot.
    ToBot,
    /// Bot to referee.
    FromBot,
}

impl Dir {
    pub(super) fn marker(self) -> char {
        match self {
            Dir::ToBot => '>',
            Dir::FromBot => '<',
        }
    }
}

/// Bytes that crossed the captured seat's connection, with the paused clock's time.
#[derive(Debug)]
pub(super) struct Event {
    pub(super) at: Duration,
    pub(super) dir: Dir,
    pub(super) bytes: Vec<u8>,
}

/// The captured seat's traffic, in the order it happened.
#[derive(Clone, Debug)]
pub(super) struct Tape {
    start: Instant,
    pub(super) events: Arc<Mutex<Vec<Event>>>,
    /// Where a cut-short record ends: lines after it were never recorded.
    pub(super) cut: Arc<Mutex<Option<usize>>>,
}

impl Tape {
    pub(super) fn new() -> Tape {
        Tape { start: Instant::now(), events: Arc::default(), cut: Arc::default() }
    }

    pub(super) fn push(&self, dir: Dir, bytes: &[u8]) {
        let at = self.start.elapsed();
        if let Ok(mut events) = self.events.lock() {
            events.push(Event { at, dir, bytes: bytes.to_vec() });
        }
    }

    pub(super) fn mark_cut(&self) {
        let len = self.events.lock().map_or(0, |e| e.len());
        if let Ok(mut cut) = self.cut.lock() {
            cut.get_or_insert(len);
        }
    }
}

/// What the playback bots share with the re-run.
#[derive(Clone, Debug)]
pub(super) struct Shared {
    pub(super) trigger: Arc<Trigger>,
    pub(super) end: End,
    pub(super) max_line: usize,
    /// The captured seat's traffic, whichever seat's question the record ends at.
    pub(super) tape: Tape,
}

impl Shared {
    /// Ends the re-run: the record goes no further.
    pub(super) fn stop(&self) {
        self.trigger.escalate();
        self.trigger.escalate();
    }
}

/// A question's type and id, when the referee line is a question.
pub(super) fn question(line: &[u8]) -> Option<(String, u64, Value)> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let kind = v.get("type")?.as_str()?.to_string();
    let questions = ["hello", "opening", "discard", "play", "offer", "reply", "announce"];
    if !questions.contains(&kind.as_str()) {
        return None;
    }
    let id = v.get("id")?.as_u64()?;
    Some((kind, id, v))
}
