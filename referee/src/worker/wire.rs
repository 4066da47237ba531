//! The work API's bodies (spec/arena.md section 10, spec/schema/arena/work-*.json), defined once
//! here and used by the arena's routes and by `referee worker` alike, so the two cannot drift.
//! Decoding is strict: an unknown field or kind is an error, not a silent default.

use protocol::options::RulesWire;
use serde::{Deserialize, Serialize};

/// `POST /api/work/lease`: a worker asks for games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    /// Tables the worker can play at once now (1 or more).
    pub slots: u32,
    /// The hosted entrants the worker has a program for, by name; house entrants need none.
    pub can_run: Vec<String>,
}

/// The answer to a lease request that found work: whole deals, every table of each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lease {
    /// The lease's id, named in heartbeats and results.
    pub lease: i64,
    /// A lease whose last heartbeat is older than this is expired, and its games void.
    pub ttl_ms: u64,
    /// The rules and clock of every game of the lease.
    pub config: TableConfig,
    /// The deals, each with all its tables.
    pub deals: Vec<LeasedDeal>,
}

/// How every game of a lease is played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfig {
    /// The rules, as a record's header spells them.
    pub rules: RulesWire,
    /// Time for each answer, in milliseconds.
    pub answer_ms: u64,
    /// Each seat's bank per game, in milliseconds.
    pub bank_ms: u64,
    /// Time for the handshake, in milliseconds.
    pub handshake_ms: u64,
}

/// One deal of a lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeasedDeal {
    /// The deal's id.
    pub deal: i64,
    /// The deal's seed (all 64 bits; may exceed 2^53): every table deals from it.
    pub seed: u64,
    /// Its tables.
    pub games: Vec<LeasedGame>,
}

/// One table of a leased deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeasedGame {
    /// The game's id: its record's game number.
    pub game: i64,
    /// The seat (0 to 3) that deals first.
    pub first_dealer: u8,
    /// Who sits in seats 0 to 3.
    pub seats: [LeasedSeat; 4],
}

/// One seat of a leased game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeasedSeat {
    /// The entrant's name.
    pub entrant: String,
    /// What plays it.
    pub kind: SeatKind,
}

/// What plays a leased seat: one of the house's strategies, or the worker's own program for a
/// hosted entrant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// Random legal moves.
    Random,
    /// The referee's heuristic bot.
    Heuristic,
    /// The search bot at its default share of the clock.
    Search,
    /// The search bot at four times that share.
    SearchSlow,
    /// The program the worker was given for this entrant (`--bot NAME=PROGRAM`).
    Hosted,
}

/// `POST /api/work/heartbeat`: the worker still plays the lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// The lease.
    pub lease: i64,
}

/// The answer to a heartbeat that extended its lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeartbeatAnswer {
    /// The lease.
    pub lease: i64,
    /// The lease lives this long from now without another heartbeat.
    pub ttl_ms: u64,
}

/// `POST /api/work/result`: one game of the lease, played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultPost {
    /// The lease that holds the game.
    pub lease: i64,
    /// The game.
    pub game: i64,
    /// The game's whole record, as JSON Lines text (spec/records.md).
    pub record: String,
}

/// The answer to a result the server took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultAnswer {
    /// The game.
    pub game: i64,
    /// Counted now, or counted by an earlier post of the same result.
    pub status: ResultStatus,
    /// Points of seats 0+2 and 1+3, as the server derived them from the record.
    pub points: [u16; 2],
}

/// Whether a result was counted by this post.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// This post ended the game.
    Counted,
    /// The game had ended by an earlier post; nothing changed.
    AlreadyCounted,
}

/// Largest result body the server reads: a one-deal game's record is tens of kilobytes, and a
/// bot's longest lines are bounded by the referee's line limit.
pub const MAX_RESULT_BYTES: usize = 8 << 20;

/// Largest lease answer a worker reads.
pub const MAX_LEASE_BYTES: usize = 1 << 20;

#[cfg(test)]
mod tests;
