//! The spectators' seat views: each seat's conversation in the game being played, derived once
//! for all the spectators of every seat, off the table's thread, and sent line by line.
//!
//! A seat's view is what `referee replay --seat` shows of the record so far: `seat_replay`
//! re-runs the game through the game runner with the record's moves, so the lines are the very
//! ones the seat was sent and hold only what it may know. Here the re-run follows the game as
//! it is played (`seat_replay::follow`, on a thread of its own): fed each record line as it is
//! added, it plays the game once and hands each seat's lines on as it sends them (a seat on the
//! CPU clock charged each answer's recorded `cpu_us` as it comes). Only when that thread cannot
//! be started are the views re-derived from the record so far instead, at most every
//! [`REDERIVE_EVERY`]. Either way the cost does not grow with the spectators, and each change
//! goes out once on a bounded broadcast: a spectator that falls behind is sent the view afresh
//! (`follow.rs`), never waited for.

use super::watch::Feed;
use crate::seat_replay::{self, Live, Sink};
use protocol::record::{Header, RecordLine};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{Notify, broadcast};
use tokio::time::Instant;

/// How often a game whose follower could not be started has its seat views re-derived at most:
/// each derivation re-runs the game so far.
const REDERIVE_EVERY: Duration = Duration::from_millis(300);
/// Changes (mostly single lines) a spectator may fall behind by before it is sent the view
/// afresh.
const BEHIND: usize = 4096;

/// A change of one seat's view, with the count of record lines it reflects.
#[derive(Clone, Debug)]
pub(super) enum Change {
    /// A new conversation starts (a new game, or the view is derived afresh).
    Reset(u64),
    /// Lines the seat was sent, after those already shown.
    Lines(Arc<[Arc<str>]>, u64),
    /// The view cannot be derived (the lines shown stay).
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
    max_line: usize,
    seats: [Mutex<View>; 4],
    /// Told when a seat view gets a spectator: nothing is derived before.
    wanted: Notify,
    /// The record lines (counted from the match's start) the followed re-run has been given.
    pushed: AtomicU64,
    /// The game being followed: a re-run of an earlier one that still sends is not heard.
    epoch: AtomicU64,
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

/// The game the views are derived from.
enum Game {
    /// Followed as it is played.
    Followed(Arc<Live>),
    /// Re-derived from the record so far (the follower's thread could not be started); when
    /// next, if lines came since the last derivation.
    Rederived { due: Option<Instant> },
}

impl SeatViews {
    pub(super) fn new(feed: Arc<Feed>, max_line: usize) -> Arc<SeatViews> {
        SeatViews::holding(feed, max_line, BEHIND)
    }

    /// The views, each broadcasting to its spectators with room for `behind` changes.
    pub(super) fn holding(feed: Arc<Feed>, max_line: usize, behind: usize) -> Arc<SeatViews> {
        let seats = std::array::from_fn(|_| {
            let (tx, _) = broadcast::channel(behind);
            Mutex::new(View { lines: Vec::new(), error: None, added: 0, watchers: 0, tx })
        });
        let (pushed, epoch) = (AtomicU64::new(0), AtomicU64::new(0));
        Arc::new(SeatViews { feed, max_line, seats, wanted: Notify::new(), pushed, epoch })
    }

    fn seat(&self, seat: usize) -> MutexGuard<'_, View> {
        self.seats[seat].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new spectator of seat `seat`.
    pub(super) fn watch(self: &Arc<Self>, seat: usize) -> Watching {
        let mut v = self.seat(seat);
        v.watchers += 1;
        self.wanted.notify_one();
        Watching {
            lines: v.lines.clone(),
            error: v.error.clone(),
            added: v.added,
            rx: v.tx.subscribe(),
            views: self.clone(),
            seat,
        }
    }

    /// Derives the seat views from the record lines as they come, once a spectator wants one;
    /// runs for as long as the server.
    pub(super) async fn follow(self: Arc<Self>) {
        self.wanted.notified().await;
        loop {
            let (so_far, added, mut rx) = self.feed.snapshot();
            let first = added - so_far.len() as u64;
            let mut game = None;
            for (i, line) in so_far.iter().enumerate() {
                self.take(&mut game, line, first + i as u64 + 1);
            }
            let mut n = added;
            loop {
                let due = match game {
                    Some(Game::Rederived { due }) => due,
                    _ => None,
                };
                let line = tokio::select! {
                    line = rx.recv() => line,
                    () = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                        let views = self.clone();
                        let _ = tokio::task::spawn_blocking(move || views.rederive()).await;
                        game = Some(Game::Rederived { due: None });
                        continue;
                    }
                };
                match line {
                    Ok(line) => {
                        n += 1;
                        self.take(&mut game, &line, n);
                    }
                    // Fallen behind the game, or lines were lost: it is followed afresh from the
                    // record so far.
                    Err(_) => break,
                }
            }
            if let Some(Game::Followed(live)) = game {
                live.close();
            }
        }
    }

    /// Record line number `n` (counted from the match's start).
    fn take(self: &Arc<Self>, game: &mut Option<Game>, text: &str, n: u64) {
        let Ok(line) = serde_json::from_str::<RecordLine>(text) else { return };
        match (line, game.as_mut()) {
            (RecordLine::Header(header), _) => {
                if let Some(Game::Followed(live)) = game.take() {
                    live.close();
                }
                self.epoch.fetch_add(1, Ordering::SeqCst);
                for seat in 0..4 {
                    let mut v = self.seat(seat);
                    v.lines.clear();
                    v.error = None;
                    v.added = n;
                    let _ = v.tx.send(Change::Reset(n));
                }
                *game = Some(self.start(*header, n));
            }
            (line, Some(Game::Followed(live))) => {
                live.push(&line);
                // The lines the re-run sends from now on reflect the record up to here.
                self.pushed.store(n, Ordering::Relaxed);
            }
            // At most every REDERIVE_EVERY however fast the lines come.
            (_, Some(Game::Rederived { due })) => {
                due.get_or_insert_with(|| Instant::now() + REDERIVE_EVERY);
            }
            (_, None) => {}
        }
    }

    /// A new game's views: followed as it is played on a thread of its own (re-derived, at most
    /// every [`REDERIVE_EVERY`], only if that thread cannot be started).
    fn start(self: &Arc<Self>, header: Header, n: u64) -> Game {
        self.pushed.store(n, Ordering::Relaxed);
        let live = Live::new(&header);
        let (views, following) = (self.clone(), live.clone());
        let epoch = self.epoch.load(Ordering::SeqCst);
        let sink: Sink = {
            let views = self.clone();
            Arc::new(move |seat, line: &[u8]| views.add(epoch, seat, line))
        };
        let max_line = self.max_line;
        let spawned = std::thread::Builder::new().name("seat-views".into()).spawn(move || {
            let done = seat_replay::follow(&header, &following, max_line, sink);
            views.settle(epoch, done.err());
        });
        if spawned.is_err() {
            return Game::Rederived { due: Some(Instant::now()) };
        }
        Game::Followed(live)
    }

    /// A line the re-run of game `epoch` sent seat `seat`.
    pub(super) fn add(&self, epoch: u64, seat: usize, line: &[u8]) {
        let line: Arc<str> = Arc::from(String::from_utf8_lossy(line).trim_end());
        let added = self.pushed.load(Ordering::Relaxed);
        let mut v = self.seat(seat);
        if self.epoch.load(Ordering::SeqCst) != epoch {
            return;
        }
        v.lines.push(line.clone());
        v.added = added;
        let _ = v.tx.send(Change::Lines(Arc::from([line]), added));
    }

    /// The re-run is over: the views reflect the record as far as it was pushed, or say why the
    /// re-run stopped.
    fn settle(&self, epoch: u64, error: Option<String>) {
        let added = self.pushed.load(Ordering::Relaxed);
        let error: Option<Arc<str>> = error.map(Arc::from);
        for seat in 0..4 {
            let mut v = self.seat(seat);
            if self.epoch.load(Ordering::SeqCst) != epoch {
                return;
            }
            v.added = added;
            let change = match &error {
                Some(e) => {
                    v.error = Some(e.clone());
                    Change::Error(e.clone(), added)
                }
                None => Change::Lines(Arc::from([]), added),
            };
            let _ = v.tx.send(change);
        }
    }

    /// One derivation of every watched seat's view from the record so far. Blocking.
    fn rederive(&self) {
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
