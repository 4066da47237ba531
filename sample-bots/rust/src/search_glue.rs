//! `--search`: the conversation's game messages handed to the search crate's player, with the
//! time since each message arrived as its clock; the handshake and the end stay in main.rs.

use protocol::msg::{FromBot, ToBot};
use std::time::Instant;

/// The search bot of this process.
#[derive(Debug)]
pub(crate) struct Searcher(search::Player);

impl Searcher {
    pub(crate) fn new(settings: search::Settings) -> Searcher {
        Searcher(search::Player::new(settings))
    }

    /// The answer to a game message, `None` for a notice. `hello` is only noted (main.rs
    /// answers it) and `bye` left to main.rs.
    pub(crate) fn answer(&mut self, msg: &ToBot, asked: Instant) -> Option<FromBot> {
        let mut elapsed = || asked.elapsed().as_micros() as u64;
        match msg {
            ToBot::Bye { .. } | ToBot::Error { .. } => None,
            _ => self.0.handle(msg, &mut elapsed),
        }
    }
}
