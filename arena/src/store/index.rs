//! The token index the server's door admits bots by: every bot's token hash with its id and
//! its tables-at-once quota, read once at start and again when the bots change.

use super::{Result, Store};
use crate::BotId;

impl Store {
    /// `(token hash, bot, tables at once)` for every bot that is not paused, in id order; not
    /// the hosted entrants, which the workers run as programs: a connection with a hosted
    /// entrant's token would seat a second copy of it beside the workers'.
    pub async fn token_index(&self) -> Result<Vec<([u8; 32], BotId, u32)>> {
        let rows: Vec<(Vec<u8>, i64, i64)> = sqlx::query_as(
            "SELECT token_hash, id, tables_at_once FROM bots WHERE paused_reason IS NULL \
             AND id NOT IN (SELECT bot_id FROM hosted_bots) ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(hash, id, tables)| {
                let hash: [u8; 32] = hash.try_into().ok()?;
                Some((hash, id, u32::try_from(tables).unwrap_or(1)))
            })
            .collect())
    }
}
