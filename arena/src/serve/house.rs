//! The house players: the server's own bots, always there, so that a fresh arena plays from its
//! first minute and every newcomer has tablemates to qualify against. Each kind sits in two
//! chairs (two entrants), so two disjoint tables can be formed from the house alone. What each
//! kind plays is the referee library's ([`Kind`]), shared with `referee worker`.

use crate::BotId;
use crate::store::{NewBot, Store, StoreError};

/// The strategies of the house, and the seat each plays from: the referee library's, so the
/// server's own tables and the workers' leased ones seat a house entrant alike.
pub use aluette_referee::worker::House as Kind;

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
