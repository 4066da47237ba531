//! A game followed as it is played, for the live spectators' seat views (`web`): the re-run of
//! `replay --seat` (the game runner, the record's moves, a paused clock) fed the record's lines
//! as the recorder adds them, instead of a whole record. A playback bot whose next move the
//! record does not have yet waits for it, and with it the paused clock and the whole re-run: the
//! game is played once, never further than the record goes, and each seat's lines come out as
//! the re-run sends them, the very bytes the game runner sent the seat.
//!
//! A seat timed by the CPU clock is charged its answers' recorded `cpu_us` as the record gets
//! them: each is handed to the bot's charges (`Bot::replay_cpu`) as its playback bot gives the
//! answer, so the banks of its later questions are the game's.

use super::End;
use super::live::Live;
use super::live::LiveSteps;
use super::playback::Steps;
use super::rerun::{Plan, Tap, play};
use super::tape::Tape;
use crate::bot::CpuCharges;
use protocol::record::Header;
use std::sync::Arc;

/// What each seat is sent, line by line (without the newline).
pub(crate) type Sink = Arc<dyn Fn(usize, &[u8]) + Send + Sync>;

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
    let charges: [Option<CpuCharges>; 4] =
        std::array::from_fn(|i| header.seats[i].cpu.then(CpuCharges::default));
    let scripts = live.started();
    let plan = Plan {
        steps: std::array::from_fn(|seat| {
            let charges = charges[seat].clone();
            Steps::Live(LiveSteps { live: live.clone(), seat, next: 0, charges })
        }),
        scripts,
        // As a record cut short: the re-run stops where the lines do, with no complaint.
        end: End::CutShort,
        max_line,
        decks: None,
        cpu: charges,
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
