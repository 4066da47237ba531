//! The spectators' seat views: each seat's conversation in the game so far, derived once for
//! every spectator of that seat, off the table's thread, and sent as what was added since.
//!
//! A seat's view is what `referee replay --seat` shows of the record so far (`seat_replay`
//! re-runs the game through the game runner, so the lines are the very ones the seat was sent,
//! and hold only what the seat may know). The deriving runs on a blocking thread of the web
//! server's own runtime, at most every [`SEAT_VIEW_EVERY`], and only for seats someone watches;
//! its cost does not grow with the spectators. Each change goes out once on a bounded broadcast:
//! a spectator that falls behind it is dropped (its page connects again), never waited for.

use super::watch::Feed;
use crate::seat_replay;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::broadcast;

/// How often a seat's view is derived at most: each derivation re-runs the game so far.
pub(super) const SEAT_VIEW_EVERY: Duration = Duration::from_millis(300);
/// Changes a spectator may fall behind by before it is dropped.
const BEHIND: usize = 16;

/// A change of one seat's view, with the count of record lines it was derived from.
#[derive(Clone, Debug)]
pub(super) enum Change {
    /// A new conversation starts (a new game, or the re-derivation does not extend the last).
    Reset(u64),
    /// Lines the seat was sent, after those already shown.
    Lines(Arc<[Arc<str>]>, u64),
    /// The record so far cannot be re-derived (the lines shown stay).
    Error(Arc<str>, u64),
}

#[derive(Debug)]
struct View {
    lines: Vec<Arc<str>>,
    error: Option<Arc<str>>,
    added: u64,
    watchers: usize,
    tx: broadcast::Sender<Change>,
}

/// The four seats' views.
#[derive(Debug)]
pub(crate) struct SeatViews {
    feed: Arc<Feed>,
    seats: [Mutex<View>; 4],
}

/// A spectator's hold on a seat's view: what it shows so far, and the changes that follow.
pub(super) struct Watching {
    pub(super) lines: Vec<Arc<str>>,
    pub(super) error: Option<Arc<str>>,
    pub(super) added: u64,
    pub(super) rx: broadcast::Receiver<Change>,
    views: Arc<SeatViews>,
    seat: usize,
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.views.seat(self.seat).watchers -= 1;
    }
}

impl SeatViews {
    pub(super) fn new(feed: Arc<Feed>) -> Arc<SeatViews> {
        let seats = std::array::from_fn(|_| {
            let (tx, _) = broadcast::channel(BEHIND);
            Mutex::new(View { lines: Vec::new(), error: None, added: 0, watchers: 0, tx })
        });
        Arc::new(SeatViews { feed, seats })
    }

    fn seat(&self, seat: usize) -> MutexGuard<'_, View> {
        self.seats[seat].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new spectator of seat `seat`; the view is derived now if nobody watched it.
    pub(super) fn watch(self: &Arc<Self>, seat: usize) -> Watching {
        let mut v = self.seat(seat);
        v.watchers += 1;
        if v.watchers == 1 {
            // Nobody kept it up to date: the next derivation starts it afresh.
            self.feed.changed.notify_one();
        }
        Watching {
            lines: v.lines.clone(),
            error: v.error.clone(),
            added: v.added,
            rx: v.tx.subscribe(),
            views: self.clone(),
            seat,
        }
    }

    /// Derives the watched seats' views whenever the game moves on, at most every
    /// [`SEAT_VIEW_EVERY`]; runs for as long as the server.
    pub(super) async fn follow(self: Arc<Self>) {
        loop {
            self.feed.changed.notified().await;
            let views = self.clone();
            if tokio::task::spawn_blocking(move || views.derive()).await.is_err() {
                return;
            }
            tokio::time::sleep(SEAT_VIEW_EVERY).await;
        }
    }

    /// One derivation of every watched seat's view from the record so far. Blocking.
    fn derive(&self) {
        let watched: Vec<usize> = (0..4).filter(|&s| self.seat(s).watchers > 0).collect();
        if watched.is_empty() {
            return;
        }
        let (text, added) = self.feed.text();
        for seat in watched {
            let derived = conversation(&text, seat);
            let mut v = self.seat(seat);
            v.added = added;
            match derived {
                Ok(lines) => {
                    v.error = None;
                    let extends =
                        lines.len() >= v.lines.len() && lines[..v.lines.len()] == v.lines[..];
                    if !extends {
                        v.lines.clear();
                        let _ = v.tx.send(Change::Reset(added));
                    }
                    let new: Arc<[Arc<str>]> = lines[v.lines.len()..].into();
                    v.lines = lines;
                    // An empty change still tells the spectators how far the view goes.
                    let _ = v.tx.send(Change::Lines(new, added));
                }
                Err(e) => {
                    let e: Arc<str> = e.into();
                    v.error = Some(e.clone());
                    let _ = v.tx.send(Change::Error(e, added));
                }
            }
        }
    }
}

/// Seat `seat`'s conversation in the game so far: the lines it was sent, as JSON texts.
fn conversation(text: &str, seat: usize) -> Result<Vec<Arc<str>>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let (_, conv) = seat_replay::rederive_text(text, seat, "the game in progress")?;
    Ok(conv
        .lines
        .iter()
        .filter(|l| l.dir == seat_replay::Dir::ToBot)
        .map(|l| Arc::from(String::from_utf8_lossy(&l.text).trim_end()))
        .collect())
}
