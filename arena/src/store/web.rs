//! Read-only queries only the web pages need: the games a bot sat at, and the comparisons it
//! took part in.

use super::{GameRow, Result, Store, StoreError};
use crate::duplicate::{Comparison, Outcome};
use crate::{BotId, team};

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

/// A comparison's columns, in `bot_comparisons`' order.
type ComparisonCols = (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64);

impl Store {
    /// The comparisons `bot` took part in, in the order they were stored: its page's partners
    /// and opponents, without reading everyone's.
    pub async fn bot_comparisons(&self, bot: BotId) -> Result<Vec<Comparison>> {
        let rows: Vec<ComparisonCols> = sqlx::query_as(
            "SELECT deal_id, side, table_a, table_b, team_a1, team_a2, team_b1, team_b2, \
             opp_a1, opp_a2, opp_b1, opp_b2, outcome, score_diff, a_faulted | (b_faulted << 1) \
             FROM comparisons WHERE team_a1 = $1 OR team_a2 = $1 OR team_b1 = $1 OR team_b2 = $1 \
             ORDER BY id",
        )
        .bind(bot)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(
                |(
                    deal,
                    side,
                    ta,
                    tb,
                    a1,
                    a2,
                    b1,
                    b2,
                    oa1,
                    oa2,
                    ob1,
                    ob2,
                    outcome,
                    diff,
                    faults,
                )| {
                    let bad = || StoreError::Corrupt(format!("a comparison of deal {deal}"));
                    Ok(Comparison {
                        deal,
                        side: u8::try_from(side).map_err(|_| bad())?,
                        table_a: u32::try_from(ta).map_err(|_| bad())?,
                        table_b: u32::try_from(tb).map_err(|_| bad())?,
                        team_a: team(a1, a2),
                        team_b: team(b1, b2),
                        opp_a: team(oa1, oa2),
                        opp_b: team(ob1, ob2),
                        outcome: Outcome::from_code(outcome).ok_or_else(bad)?,
                        score_diff: i32::try_from(diff).map_err(|_| bad())?,
                        a_faulted: faults & 1 != 0,
                        b_faulted: faults & 2 != 0,
                    })
                },
            )
            .collect()
    }
}
