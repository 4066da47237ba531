//! The live spectators' feed: every record line as the game adds it (`record_io::Tap`), kept for
//! the game in progress and broadcast with a bounded buffer per spectator, so a slow spectator
//! falls behind and is dropped, never the table. All the table's thread does for spectators is
//! [`Feed::push`]: a line kept and handed on; the seat views (`seat_view.rs`) and every socket
//! are the web server's own thread's work.

use crate::record_io::Tap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::broadcast;

/// Lines a spectator may fall behind by before it is dropped (its page connects again and is
/// sent the game afresh).
pub(super) const BEHIND: usize = 4096;

#[derive(Debug)]
struct Game {
    /// The current game's record lines so far, the header first.
    lines: Vec<Arc<str>>,
    tx: broadcast::Sender<Arc<str>>,
    /// Lines added since the match began.
    added: u64,
    /// For each spectator, how many of those its page has been shown: an atomic each, so a
    /// spectator's progress never takes the lock the table's [`Feed::push`] takes.
    shown: std::collections::HashMap<u64, Arc<AtomicU64>>,
    spectators: u64,
}

/// One spectator, as the feed counts it.
#[derive(Debug)]
pub(super) struct Viewer {
    pub(super) n: u64,
    shown: Arc<AtomicU64>,
}

impl Viewer {
    /// It has been shown the first `lines` lines added.
    pub(super) fn shown(&self, lines: u64) {
        self.shown.store(lines, Ordering::Relaxed);
    }
}

/// The record lines of the game being played, for spectators.
#[derive(Debug)]
pub(crate) struct Feed {
    game: Mutex<Game>,
}

impl Feed {
    pub(crate) fn new() -> Arc<Feed> {
        let (tx, _) = broadcast::channel(BEHIND);
        let game =
            Game { lines: Vec::new(), tx, added: 0, shown: Default::default(), spectators: 0 };
        Arc::new(Feed { game: Mutex::new(game) })
    }

    fn game(&self) -> MutexGuard<'_, Game> {
        self.game.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The recorder's tap that feeds this.
    pub(crate) fn tap(self: &Arc<Self>) -> Tap {
        let feed = self.clone();
        Tap(Arc::new(move |bytes: &[u8]| feed.push(bytes)))
    }

    fn push(&self, bytes: &[u8]) {
        // The referee's own encoding: UTF-8, one line, the tag first.
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let line: Arc<str> = Arc::from(text.trim_end_matches('\n'));
        let mut game = self.game();
        if line.starts_with("{\"type\":\"header\"") {
            game.lines.clear();
        }
        game.lines.push(line.clone());
        game.added += 1;
        // No receiver is no error: nobody watches.
        let _ = game.tx.send(line);
    }

    /// A new spectator, the game so far, the count of lines added so far, and the lines that
    /// follow, with nothing lost or repeated between.
    pub(super) fn subscribe(&self) -> (Viewer, Vec<Arc<str>>, u64, broadcast::Receiver<Arc<str>>) {
        let mut game = self.game();
        game.spectators += 1;
        let n = game.spectators;
        let shown = Arc::new(AtomicU64::new(0));
        game.shown.insert(n, shown.clone());
        (Viewer { n, shown }, game.lines.clone(), game.added, game.tx.subscribe())
    }

    /// The game so far, the count of lines added so far, and the lines that follow, for the
    /// seat views' follower (not a spectator: the match's end does not wait for it).
    pub(super) fn snapshot(&self) -> (Vec<Arc<str>>, u64, broadcast::Receiver<Arc<str>>) {
        let game = self.game();
        (game.lines.clone(), game.added, game.tx.subscribe())
    }

    /// Spectator `n` left.
    pub(super) fn gone(&self, n: u64) {
        self.game().shown.remove(&n);
    }

    /// True when every spectator has been shown every line, but those more than [`BEHIND`]
    /// lines behind: the feed has dropped what they missed, so they can only be let go.
    pub(super) fn caught_up(&self) -> bool {
        let game = self.game();
        game.shown
            .values()
            .map(|n| n.load(Ordering::Relaxed))
            .all(|n| n == game.added || game.added.saturating_sub(n) > BEHIND as u64)
    }

    /// The game so far as one record text, and the count of lines added up to it.
    pub(super) fn text(&self) -> (String, u64) {
        let game = self.game();
        let mut text = String::new();
        for l in &game.lines {
            text.push_str(l);
            text.push('\n');
        }
        (text, game.added)
    }
}
