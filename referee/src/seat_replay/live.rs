//! A game's record as it grows, for a re-run that follows the game as it is played
//! (`follow.rs`): the record's lines so far, and each playback bot's moves, waited for until
//! the record has them. Below `playback.rs`, which takes its moves from here.

use super::script::{Builder, Move, Script, Step};
use crate::bot::CpuCharges;
use protocol::record::{Header, RecordLine};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

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
    pub(super) fn started(&self) -> [Script; 4] {
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
    pub(super) live: Arc<Live>,
    pub(super) seat: usize,
    pub(super) next: usize,
    /// For a seat timed by the CPU clock: where each answer's recorded `cpu_us` goes as the
    /// answer is given, for the referee's bot to charge when it takes it.
    pub(super) charges: Option<CpuCharges>,
}

impl LiveSteps {
    /// Blocks the re-run (its paused clock with it) until the record has the move.
    pub(super) fn next(&mut self) -> Option<Step> {
        let step = self.live.step(self.seat, self.next)?;
        self.next += 1;
        // Every answer line the record has for the seat is an answer the referee took: its
        // charge is the next the bot pops, and it is there before the answer is sent.
        if let (Some(charges), Move::Answer { cpu_us, .. }) = (&self.charges, &step.mv) {
            charges.lock().unwrap_or_else(PoisonError::into_inner).push_back(cpu_us.unwrap_or(0));
        }
        Some(step)
    }
}
