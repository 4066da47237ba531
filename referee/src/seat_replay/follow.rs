//! A game followed as it is played, for the live spectators' seat views (`web`): the re-run of
//! `replay --seat` (the game runner, the record's moves, a paused clock) fed the record's lines
//! as the recorder adds them, instead of a whole record. A playback bot whose next move the
//! record does not have yet waits for it, and with it the paused clock and the whole re-run: the
//! game is played once, never further than the record goes, and each seat's lines come out as
//! the re-run sends them, the very bytes the game runner sent the seat.
//!
//! Not for a seat timed by the CPU clock: its bank depends on the `cpu_us` of answers not yet
//! given, which a bot's replayed charges (`Bot::replay_cpu`) must have up front.

use super::End;
use super::playback::Steps;
use super::rerun::{Plan, Tap, Tape, play};
use super::script::{Builder, Script, Step};
use protocol::record::{Header, RecordLine};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// What each seat is sent, line by line (without the newline).
pub(crate) type Sink = Arc<dyn Fn(usize, &[u8]) + Send + Sync>;

/// The lines of a game being played, as far as the record goes.
pub(crate) struct Live {
    state: Mutex<State>,
    grew: Condvar,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").finish_non_exhaustive()
    }
}

struct State {
    builder: Builder,
    /// No line will come: the footer came, or the game is given up.
    over: bool,
}

impl Live {
    /// A game whose header is `header`, before any other line.
    pub(crate) fn new(header: &Header) -> Arc<Live> {
        let state = State { builder: Builder::new(header), over: false };
        Arc::new(Live { state: Mutex::new(state), grew: Condvar::new() })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.grew.wait(st).unwrap_or_else(PoisonError::into_inner)
    }

    /// The record's next line.
    pub(crate) fn push(&self, line: &RecordLine) {
        let mut st = self.state();
        st.builder.feed(line);
        st.over |= matches!(line, RecordLine::Footer(_));
        drop(st);
        self.grew.notify_all();
    }

    /// No more lines will come: the re-run ends where the record does.
    pub(crate) fn close(&self) {
        self.state().over = true;
        self.grew.notify_all();
    }

    /// The seats' scripts once the connections are known (the first deal, or the end).
    fn started(&self) -> [Script; 4] {
        let mut st = self.state();
        while !st.builder.dealt && !st.over {
            st = self.wait(st);
        }
        st.builder.scripts.clone()
    }

    /// Seat `seat`'s move number `k`, once the record has it; `None` when it never will.
    fn step(&self, seat: usize, k: usize) -> Option<Step> {
        let mut st = self.state();
        loop {
            if let Some(step) = st.builder.scripts[seat].steps.get(k) {
                return Some(step.clone());
            }
            if st.over {
                return None;
            }
            st = self.wait(st);
        }
    }
}

/// A playback bot's moves in a game being played.
pub(super) struct LiveSteps {
    live: Arc<Live>,
    seat: usize,
    next: usize,
}

impl LiveSteps {
    /// Blocks the re-run (its paused clock with it) until the record has the move.
    pub(super) fn next(&mut self) -> Option<Step> {
        let step = self.live.step(self.seat, self.next)?;
        self.next += 1;
        Some(step)
    }
}

/// Plays the game of `header` as far as `live` goes, and on as it grows, handing each seat's
/// lines to `sink`, until the game is over or `live` is closed. Blocking: run it on a thread of
/// its own.
pub(crate) fn follow(
    header: &Header,
    live: &Arc<Live>,
    max_line: usize,
    sink: Sink,
) -> Result<(), String> {
    if header.seats.len() != 4 {
        return Err(format!("the header lists {} seats, not 4", header.seats.len()));
    }
    if header.seats.iter().any(|s| s.cpu) {
        return Err("a seat timed by the CPU clock cannot be followed as it plays".into());
    }
    let scripts = live.started();
    let plan = Plan {
        steps: std::array::from_fn(|seat| {
            Steps::Live(LiveSteps { live: live.clone(), seat, next: 0 })
        }),
        scripts,
        // As a record cut short: the re-run stops where the lines do, with no complaint.
        end: End::CutShort,
        max_line,
        decks: None,
        cpu: Default::default(),
        logged: None,
        wrap: Box::new(move |seat, inner| {
            let (sink, mut partial) = (sink.clone(), Vec::new());
            // Each whole line written, to the sink.
            let seen = move |bytes: &[u8]| {
                for &b in bytes {
                    if b == b'\n' {
                        sink(seat, &partial);
                        partial.clear();
                    } else {
                        partial.push(b);
                    }
                }
            };
            Box::new(Tap { inner, seen: Box::new(seen) })
        }),
    };
    let paused = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    paused.block_on(play(header, plan, &Tape::new())).map(|_| ())
}
