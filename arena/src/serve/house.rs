//! The house players: the server's own bots, always there, so that a fresh arena plays from its
//! first minute and every newcomer has tablemates to qualify against. Each kind sits in two
//! chairs (two entrants), so two disjoint tables can be formed from the house alone.

use crate::BotId;
use crate::store::{NewBot, Store, StoreError};
use aluette_referee::protocol::msg::{FromBot, ToBot};
use aluette_referee::{Player, Seat};
use std::time::Instant;

/// The strategies of the house.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Random legal moves.
    Random,
    /// The referee's heuristic bot.
    Heuristic,
    /// The search bot at its default share of the clock.
    Search,
    /// The search bot at four times that share.
    SlowSearch,
}

impl Kind {
    /// Every kind, weakest first.
    pub const ALL: [Kind; 4] = [Kind::Random, Kind::Heuristic, Kind::Search, Kind::SlowSearch];

    /// The entrant's name stem.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Random => "house-random",
            Kind::Heuristic => "house-heuristic",
            Kind::Search => "house-search",
            Kind::SlowSearch => "house-search-slow",
        }
    }

    /// A fresh bot of this kind for one table; `seed` varies the search's sampling.
    pub fn seat(self, seed: u64) -> Seat {
        let search = |think: f64| {
            let settings = search::Settings { seed, samples: None, think };
            Seat::player(self.name(), Search(self.name(), search::Player::new(settings)))
        };
        match self {
            Kind::Random => Seat::builtin("random").expect("a built-in bot"),
            Kind::Heuristic => Seat::builtin("heuristic").expect("a built-in bot"),
            Kind::Search => search(search::DEFAULT_THINK),
            Kind::SlowSearch => search(4.0 * search::DEFAULT_THINK),
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
        let surrender = aluette_referee::protocol::SURRENDER;
        Some(FromBot::Hello {
            id,
            name: self.0.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: Some("house".into()),
            protocol: Some(aluette_referee::protocol::PROTOCOL_VERSION),
            token: None,
            features: features.into_iter().filter(|f| f == surrender).collect(),
        })
    }

    fn blocking(&self) -> bool {
        true
    }
}

/// Tables a house entrant may sit at at once, unless the server is told otherwise.
pub const HOUSE_TABLES: u32 = 4;

/// The house entrants, created on first start: two chairs of every kind, author "house".
pub async fn ensure(store: &Store, now: i64) -> Result<Vec<(BotId, Kind)>, StoreError> {
    let version = env!("CARGO_PKG_VERSION");
    let mut house = Vec::new();
    for kind in Kind::ALL {
        for chair in 1..=2 {
            let name = format!("{}-{chair}", kind.name());
            let bot = match store.bot_by_name(&name, version).await? {
                Some(bot) => bot,
                None => {
                    let new = NewBot {
                        author: "house".into(),
                        name,
                        version: version.into(),
                        house: true,
                        tables_at_once: HOUSE_TABLES,
                        games_per_day: u32::MAX,
                    };
                    // The house's tokens are never used: no house bot connects.
                    store.add_bot(&new, now).await?.0
                }
            };
            house.push((bot.id, kind));
        }
    }
    Ok(house)
}
