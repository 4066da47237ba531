//! The live spectators' feed: every record line as the game adds it (`record_io::Tap`), kept for
//! the game in progress and broadcast with a bounded buffer shared by every spectator, so a slow
//! spectator falls behind and is sent the game afresh (`follow.rs`), never waited for by the
//! table.
//!
//! All the table's thread does for spectators is [`Feed::push`]: a line added to a queue under
//! a lock nobody else holds for long, and no wake-up: a wake-up per line would be a system call
//! per line on the table's time. The web server's own thread takes the queue every [`TICK`]
//! ([`Feed::pump`]) and broadcasts it there, to the spectators and the seat views
//! (`seat_view.rs`).

use crate::record_io::Tap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::broadcast;

/// Lines a spectator may fall behind by before it is sent the game afresh.
const BEHIND: usize = 4096;
/// How often the web server's thread takes the lines the table added.
const TICK: Duration = Duration::from_millis(20);
/// Lines the table may add that the web server has not taken yet: past this (the server's
/// thread starved for a long while), the oldest are dropped and the spectators start afresh.
const QUEUED: usize = 1 << 16;

/// What the table's thread touches.
#[derive(Debug, Default)]
struct Queue {
    lines: VecDeque<Arc<str>>,
    /// Lines added since the match began.
    added: u64,
    /// Lines were dropped since the last take.
    gap: bool,
}

/// The web server's side: the current game as far as it was broadcast.
#[derive(Debug)]
struct Pumped {
    /// The current game's lines, the header first.
    lines: Vec<Arc<str>>,
    /// Lines broadcast since the match began.
    count: u64,
    tx: broadcast::Sender<Arc<str>>,
    /// The broadcast's room, in lines: [`BEHIND`] but in tests.
    behind: usize,
    /// For each spectator, how many lines it has been shown: an atomic each.
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
    queue: Mutex<Queue>,
    pumped: Mutex<Pumped>,
    /// True once the match is over: every spectator is told so, and its page stops.
    over: tokio::sync::watch::Sender<bool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Feed {
    pub(crate) fn new() -> Arc<Feed> {
        Feed::holding(BEHIND)
    }

    /// A feed whose broadcast holds `behind` lines.
    pub(super) fn holding(behind: usize) -> Arc<Feed> {
        let (tx, _) = broadcast::channel(behind);
        let shown = Default::default();
        let pumped = Pumped { lines: Vec::new(), count: 0, tx, behind, shown, spectators: 0 };
        let over = tokio::sync::watch::Sender::new(false);
        Arc::new(Feed { queue: Mutex::default(), pumped: Mutex::new(pumped), over })
    }

    /// The match is over: every spectator is sent the close that says so.
    pub(crate) fn close(&self) {
        self.over.send_replace(true);
    }

    /// Resolves once the match is over (at once if it is).
    pub(super) async fn over(&self) {
        let mut rx = self.over.subscribe();
        let _ = rx.wait_for(|over| *over).await;
    }

    /// True while some spectator is still connected.
    pub(super) fn watched(&self) -> bool {
        !lock(&self.pumped).shown.is_empty()
    }

    /// The recorder's tap that feeds this.
    pub(crate) fn tap(self: &Arc<Self>) -> Tap {
        let feed = self.clone();
        Tap(Arc::new(move |bytes: &[u8]| feed.push(bytes)))
    }

    /// On the table's thread: one line queued.
    pub(super) fn push(&self, bytes: &[u8]) {
        // The referee's own encoding: UTF-8, one line, the tag first.
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let line: Arc<str> = Arc::from(text.trim_end_matches('\n'));
        let mut q = lock(&self.queue);
        if q.lines.len() >= QUEUED {
            q.lines.pop_front();
            q.gap = true;
        }
        q.lines.push_back(line);
        q.added += 1;
    }

    /// Takes what the table added every [`TICK`] and broadcasts it; runs for as long as the
    /// server, on its thread.
    pub(super) async fn pump(self: Arc<Self>) {
        loop {
            tokio::time::sleep(TICK).await;
            self.take();
        }
    }

    /// Broadcasts what the table added since the last take.
    pub(super) fn take(&self) {
        let (lines, added, gap) = {
            let mut q = lock(&self.queue);
            (std::mem::take(&mut q.lines), q.added, std::mem::take(&mut q.gap))
        };
        let mut p = lock(&self.pumped);
        if gap {
            // Lines were lost: every subscriber's broadcast ends (a page is sent the game afresh;
            // the seat views follow afresh) and the game so far is no longer known whole.
            p.tx = broadcast::channel(p.behind).0;
            p.lines.clear();
            p.count = added - lines.len() as u64;
        }
        for line in lines {
            if line.starts_with("{\"type\":\"header\"") {
                p.lines.clear();
            }
            p.lines.push(line.clone());
            p.count += 1;
            // No receiver is no error: nobody watches.
            let _ = p.tx.send(line);
        }
    }

    /// A new spectator, shown nothing yet: the match's end waits for it to be shown every line.
    pub(super) fn spectator(&self) -> Viewer {
        let mut p = lock(&self.pumped);
        p.spectators += 1;
        let n = p.spectators;
        let shown = Arc::new(AtomicU64::new(0));
        p.shown.insert(n, shown.clone());
        Viewer { n, shown }
    }

    /// The game so far, the count of lines added so far, and the lines that follow, with nothing
    /// lost or repeated between: for the organiser's view (afresh each time it falls behind) and
    /// the seat views' follower.
    pub(super) fn snapshot(&self) -> (Vec<Arc<str>>, u64, broadcast::Receiver<Arc<str>>) {
        let p = lock(&self.pumped);
        (p.lines.clone(), p.count, p.tx.subscribe())
    }

    /// Spectator `n` left.
    pub(super) fn gone(&self, n: u64) {
        lock(&self.pumped).shown.remove(&n);
    }

    /// True when every line the table added has been broadcast and every spectator has been
    /// shown it (one that fell behind is being sent the game afresh, so it is waited for too).
    pub(super) fn caught_up(&self) -> bool {
        let added = lock(&self.queue).added;
        let p = lock(&self.pumped);
        p.count == added && p.shown.values().all(|n| n.load(Ordering::Relaxed) == p.count)
    }

    /// The game so far as one record text, and the count of lines added up to it.
    pub(super) fn text(&self) -> (String, u64) {
        let p = lock(&self.pumped);
        let mut text = String::new();
        for l in &p.lines {
            text.push_str(l);
            text.push('\n');
        }
        (text, p.count)
    }
}
