//! What the server believes of a worker's result: only what the record proves. The record is
//! replayed by the referee's own rules engine, it must be the game the lease named (its number,
//! seed, first dealer, rules and clock) and have been played to its end; the points and the
//! faulty seats are then read from the replay, never from the worker's word. Pure: text in,
//! verdict out.

use super::wire::TableConfig;
use crate::replay::replay_str;
use protocol::record::{GameStatus, Penalty};

/// The game a lease held, as the server knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// The game's id, which its record's header must give as its number.
    pub game: i64,
    /// The deal's seed.
    pub seed: u64,
    /// The seat that deals first.
    pub first_dealer: u8,
    /// The rules and clock it was leased with.
    pub config: TableConfig,
}

/// What a checked record says happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Points of seats 0+2 and 1+3, as the replay re-derived them.
    pub points: [u16; 2],
    /// Bit `s` set: seat `s` faulted in a way that cost it (anything but an ignored line).
    pub fault_seats: u8,
}

/// Checks `record` (JSON Lines text) against the game the lease named; the result it proves,
/// or why it proves none, in one line.
pub fn check_result(record: &str, expected: &Expected) -> Result<Verdict, String> {
    let replay = replay_str(record).map_err(|e| format!("the record does not replay: {e}"))?;
    let h = &replay.header;
    if h.game != expected.game as u64 {
        return Err(format!("the record is of game {}, not game {}", h.game, expected.game));
    }
    if h.seed != expected.seed {
        return Err(format!("the record's seed is not game {}'s", expected.game));
    }
    if h.first_dealer != expected.first_dealer {
        return Err(format!(
            "the record's first dealer is seat {}, not seat {}",
            h.first_dealer, expected.first_dealer
        ));
    }
    if h.rules != expected.config.rules {
        return Err("the record was played under other rules than the lease's".into());
    }
    let c = &h.clock;
    let want = &expected.config;
    if (c.answer_ms, c.bank_ms, c.handshake_ms) != (want.answer_ms, want.bank_ms, want.handshake_ms)
        || c.mode.is_some()
    {
        return Err("the record was played on another clock than the lease's".into());
    }
    match &replay.footer {
        Some(f) if f.status == GameStatus::Complete => {}
        Some(_) => return Err("the game was aborted, not played to its end".into()),
        None => return Err("the record has no footer".into()),
    }
    let mut fault_seats = 0u8;
    for f in &replay.faults {
        if f.penalty != Penalty::Ignored {
            fault_seats |= 1 << (f.seat & 3);
        }
    }
    Ok(Verdict { points: replay.score, fault_seats })
}
