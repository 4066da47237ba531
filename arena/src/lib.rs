//! The arena's library: everything of the standing ladder that does not play a game. The
//! database ([`store`]), bot tokens ([`token`]), duplicate scoring of a deal played at several
//! tables ([`duplicate`]), the two rating boards ([`rating`]) and matchmaking ([`pairing`]);
//! where records are kept ([`records`]), the server ([`serve`]) and its pages ([`web`]).
//! Everything but `store`, `records`, `serve` and `web` is pure: inputs in, results out, no clock and no I/O, so the ratings
//! are a function of the stored comparisons and can be recomputed from the database at will.
//! The normative description is spec/arena.md.

pub mod duplicate;
pub mod pairing;
pub mod rating;
pub mod records;
pub mod serve;
pub mod store;
pub mod token;
pub mod web;
pub mod work;

/// A bot entrant's id (one name and version), as the database numbers it.
pub type BotId = i64;

/// A partnership: two bots that sat opposite each other, the smaller id first.
pub type Team = [BotId; 2];

/// A team in its canonical order (smaller id first), so the same two bots are always one key.
pub fn team(a: BotId, b: BotId) -> Team {
    if a <= b { [a, b] } else { [b, a] }
}
