//! Workers (issue 28): the arena's games whose seats are all house or hosted entrants are
//! played away from the server, by `referee worker` processes that lease them over HTTP. This
//! module is both halves' common ground: the API's bodies ([`wire`]), the house's strategies as
//! seats ([`House`], the one mapping the server and the workers share), the check of a posted
//! record ([`check_result`]), and the worker itself (its HTTP [`client`] and its loop).

pub mod client;
mod house;
mod run;
mod verify;
pub mod wire;

pub use house::House;
pub use run::WorkerConfig;
pub(crate) use run::run;
pub use verify::{Expected, Verdict, check_result};

/// The rules and clock a lease gives its games: those `config` plays under.
pub fn table_config(config: &crate::api::Config) -> wire::TableConfig {
    let g = &config.game;
    wire::TableConfig {
        rules: convert::rules_wire(&g.rules, g.seating),
        answer_ms: g.clock.answer_ms,
        bank_ms: g.clock.bank_ms,
        handshake_ms: g.clock.handshake_ms,
    }
}
