//! The tables in play, as the web pages show them: who sits where, and the record's lines so
//! far. A deal's cards are still in play at its other tables, so what the pages may show of a
//! table in play is decided by the web module (progress only); the lines are kept here so the
//! game can be shown whole the moment its deal ends.

use crate::BotId;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A table in play.
#[derive(Clone, Debug)]
pub struct LiveTable {
    /// Its game's id.
    pub game: i64,
    /// The deal it plays.
    pub deal: i64,
    /// Its number among the deal's tables.
    pub table_no: u32,
    /// The bot in each seat.
    pub seats: [BotId; 4],
    /// When it started (seconds since the epoch).
    pub started_at: i64,
    /// The record's lines so far, each one JSON object.
    pub lines: Vec<String>,
}

/// The registry of tables in play, shared by the server's loop, the tables' feeds and the web.
#[derive(Clone, Debug, Default)]
pub struct Live(Arc<Mutex<BTreeMap<i64, LiveTable>>>);

impl Live {
    fn tables(&self) -> std::sync::MutexGuard<'_, BTreeMap<i64, LiveTable>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A table starts.
    pub fn start(&self, table: LiveTable) {
        self.tables().insert(table.game, table);
    }

    /// A record line of `game`, as its table adds it.
    pub fn line(&self, game: i64, line: &[u8]) {
        if let Some(t) = self.tables().get_mut(&game) {
            t.lines.push(String::from_utf8_lossy(line).trim_end().to_string());
        }
    }

    /// A table's game is over.
    pub fn end(&self, game: i64) {
        self.tables().remove(&game);
    }

    /// Every table in play, by game id.
    pub fn snapshot(&self) -> Vec<LiveTable> {
        self.tables().values().cloned().collect()
    }

    /// One table in play.
    pub fn table(&self, game: i64) -> Option<LiveTable> {
        self.tables().get(&game).cloned()
    }
}
