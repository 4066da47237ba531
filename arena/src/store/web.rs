//! Read-only queries only the web pages need: the games a bot sat at.

use super::{GameRow, Result, Store};
use crate::BotId;

impl Store {
    /// The newest `limit` games `bot` sat at (any status), newest first.
    pub async fn bot_games(&self, bot: BotId, limit: u32) -> Result<Vec<GameRow>> {
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM games WHERE seat0 = $1 OR seat1 = $1 OR seat2 = $1 OR seat3 = $1 \
             ORDER BY id DESC LIMIT $2",
        )
        .bind(bot)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(g) = self.game(id).await? {
                games.push(g);
            }
        }
        Ok(games)
    }
}
