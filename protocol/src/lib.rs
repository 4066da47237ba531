//! Wire types and the synchronous line codec of the Aluette bot protocol.
//!
//! No I/O, no async, no clock: bytes and strings in, typed messages out. The referee owns every
//! socket, pipe and deadline; bots in other languages follow `spec/protocol.md`, which this crate
//! implements. Records (`record`) use the same wire vocabulary, so they live here too, as plain
//! data without behaviour.
#![deny(missing_docs)]

#[macro_use]
mod declare;
#[macro_use]
pub mod options;
pub mod codec;
mod de;
mod fast;
pub mod json;
#[macro_use]
pub mod msg;
pub mod record;
pub mod schema;
pub mod wire;

pub use codec::{DecodeError, MAX_LINE_BYTES, decode_line, encode_line};
pub use de::AnswerId;
pub use msg::{FromBot, ToBot};
pub use options::{RULE_OPTIONS, RulesWire};
pub use wire::CardCode;

/// The protocol's major version. A bot that speaks another major version is refused.
pub const PROTOCOL_VERSION: u32 = 1;

/// Optional features the referee may offer in `hello`. Additions go here, not into a new
/// major version.
pub const FEATURES: &[&str] = &["signals", "persistent", SURRENDER, RESUME];

/// The feature of the pre-lead rounds (spec/protocol.md section 4.12): a bot that takes it up in
/// its `hello` answer is asked the `offer`, `reply` and `announce` questions and told their
/// answers; any other bot is not, and the fallback answers for it.
pub const SURRENDER: &str = "surrender";

/// The feature of taking a seat back on a new connection (spec/protocol.md section 9.2).
pub const RESUME: &str = "resume";
