//! The house's strategies as seats: the one mapping from a house kind to a [`Seat`], used by
//! the arena's server for the tables it plays itself and by `referee worker` for leased ones,
//! so a house entrant plays the same wherever its table is.

use super::wire::SeatKind;
use crate::api::{Player, Seat};
use protocol::msg::{FromBot, ToBot};
use std::time::Instant;

/// The strategies of the house.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum House {
    /// Random legal moves.
    Random,
    /// The referee's heuristic bot.
    Heuristic,
    /// The search bot at its default share of the clock.
    Search,
    /// The search bot at four times that share.
    SlowSearch,
}

impl House {
    /// Every kind, weakest first.
    pub const ALL: [House; 4] = [House::Random, House::Heuristic, House::Search, House::SlowSearch];

    /// The entrant's name stem.
    pub fn name(self) -> &'static str {
        match self {
            House::Random => "house-random",
            House::Heuristic => "house-heuristic",
            House::Search => "house-search",
            House::SlowSearch => "house-search-slow",
        }
    }

    /// The kind a lease names it by.
    pub fn kind(self) -> SeatKind {
        match self {
            House::Random => SeatKind::Random,
            House::Heuristic => SeatKind::Heuristic,
            House::Search => SeatKind::Search,
            House::SlowSearch => SeatKind::SearchSlow,
        }
    }

    /// The house strategy a lease's kind names; `None` for a hosted seat.
    pub fn of_kind(kind: SeatKind) -> Option<House> {
        House::ALL.into_iter().find(|h| h.kind() == kind)
    }

    /// The seed of the house player in `seat` of game `game` of a deal seeded `deal_seed`: each
    /// seat's search samples differently, and the same wherever the table is played.
    pub fn seat_seed(deal_seed: u64, game: i64, seat: usize) -> u64 {
        deal_seed.wrapping_add(game as u64 * 4 + seat as u64)
    }

    /// A fresh bot of this kind for one table; `seed` varies the search's sampling.
    pub fn seat(self, seed: u64) -> Seat {
        let search = |think: f64| {
            let settings = search::Settings { seed, samples: None, think };
            Seat::player(self.name(), Search(self.name(), search::Player::new(settings)))
        };
        match self {
            House::Random => Seat::builtin("random").expect("a built-in bot"),
            House::Heuristic => Seat::builtin("heuristic").expect("a built-in bot"),
            House::Search => search(search::DEFAULT_THINK),
            House::SlowSearch => search(4.0 * search::DEFAULT_THINK),
        }
    }
}

/// The search crate's player as an in-process seat; the hello is answered here, as the
/// referee's own search bot answers it (the search crate only notes what was offered).
struct Search(&'static str, search::Player);

impl Player for Search {
    fn answer(&mut self, msg: ToBot, asked: Instant) -> Option<FromBot> {
        let mut elapsed = || asked.elapsed().as_micros() as u64;
        let answer = self.1.handle(&msg, &mut elapsed);
        let ToBot::Hello { id, features, .. } = msg else { return answer };
        let surrender = protocol::SURRENDER;
        Some(FromBot::Hello {
            id,
            name: self.0.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: Some("house".into()),
            protocol: Some(protocol::PROTOCOL_VERSION),
            token: None,
            features: features.into_iter().filter(|f| f == surrender).collect(),
        })
    }

    fn blocking(&self) -> bool {
        true
    }
}
