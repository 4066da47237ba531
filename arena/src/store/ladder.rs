//! The ladder's steps that join the database to the pure parts: scoring a deal whose tables
//! have all ended, refreshing both boards from the stored comparisons, and planning the next
//! deal from the bots connected now. The server calls these; each is one read, a pure function,
//! and (for the first two) one write.

use super::{BoardKind, GameRow, Result, Store, StoreError};
use crate::BotId;
use crate::duplicate::{DealScoring, score_deal};
use crate::pairing::{DealPlan, Entrant, Params, admitted, foursomes, seat};
use crate::rating::{batch, boards};
use std::collections::BTreeMap;

impl Store {
    /// Scores a deal none of whose tables is in flight, stores its comparisons and publishes
    /// its seed; refused (and nothing stored) if it is scored already or a table still plays.
    pub async fn score_deal(&self, deal: i64) -> Result<DealScoring> {
        let games = self.deal_games(deal).await?;
        if games.is_empty() {
            return Err(StoreError::NotFound(format!("a table of deal {deal}")));
        }
        let tables: Option<Vec<_>> = games.iter().map(GameRow::table_result).collect();
        let tables = tables.ok_or_else(|| {
            StoreError::Conflict(format!("deal {deal} has a table still in flight"))
        })?;
        let scoring = score_deal(deal, &tables);
        self.record_comparisons(deal, &scoring.comparisons).await?;
        Ok(scoring)
    }

    /// Recomputes both boards from every stored comparison (house bots as anchors, see
    /// [`crate::rating::boards`]) and stores them as snapshots taken `now`; returns the live
    /// and official snapshots' ids. With no new comparison since the last refresh the stored
    /// snapshots are the answer and nothing is written.
    pub async fn refresh_boards(&self, config: &batch::Config, now: i64) -> Result<(i64, i64)> {
        let stored = self.comparisons().await?;
        let upto = stored.last().map_or(0, |(id, _)| *id);
        let comparisons: Vec<_> = stored.into_iter().map(|(_, c)| c).collect();
        let house: Vec<BotId> =
            self.bots().await?.iter().filter(|b| b.house).map(|b| b.id).collect();
        let (live, official) = boards(&comparisons, &house, config).map_err(StoreError::Fit)?;
        let live_id = self.save_snapshot(BoardKind::Live, upto, now, &live).await?;
        let official_id = self.save_snapshot(BoardKind::Official, upto, now, &official).await?;
        Ok((live_id, official_id))
    }

    /// The entrants pairing may seat now. `offered` is what the server knows and the database
    /// does not: the bots connected now (house bots included), each with the tables it offered
    /// to take at once. A bot is left out when it is paused or unknown; its free slots are the
    /// smaller of its offer and its quota, less the tables it sits at; its games today are
    /// those it started in the UTC day of `now`. A newcomer with `qualifying_games` finished games in a row without a
    /// fault is admitted now, for good. Ratings are the newest live snapshot's (a bot not in
    /// it has the newcomer's).
    pub async fn pool(
        &self,
        offered: &BTreeMap<BotId, u32>,
        qualifying_games: u32,
        now: i64,
    ) -> Result<Vec<Entrant>> {
        let activity = self.activity(now).await?;
        let live: BTreeMap<BotId, (f64, f64)> = self
            .latest_snapshot(BoardKind::Live)
            .await?
            .map(|s| s.rows.iter().map(|r| (r.bot, (r.value, r.spread))).collect())
            .unwrap_or_default();
        let fresh = crate::rating::online::Live::default();
        let mut pool = Vec::new();
        for bot in self.bots().await? {
            let Some(&offer) = offered.get(&bot.id) else { continue };
            if bot.paused_reason.is_some() {
                continue;
            }
            let a = activity.get(&bot.id).cloned().unwrap_or_default();
            let mut is_admitted = bot.house || bot.admitted_at.is_some();
            if !is_admitted && admitted(a.clean_since_fault, qualifying_games) {
                self.admit(bot.id, now).await?;
                is_admitted = true;
            }
            let (mu, sigma) = live.get(&bot.id).copied().unwrap_or((fresh.mu, fresh.sigma));
            pool.push(Entrant {
                id: bot.id,
                author: bot.author_id,
                house: bot.house,
                admitted: is_admitted,
                free_slots: offer.min(bot.tables_at_once).saturating_sub(a.running),
                mu,
                sigma,
                last_played: a.last_played,
                games_today: a.started_today,
                games_per_day: bot.games_per_day,
            });
        }
        Ok(pool)
    }

    /// The next deal's plan from the bots connected now (see [`Store::pool`]), with the split
    /// counts of the foursomes chosen; `None` when no deal can be formed now.
    pub async fn plan_deal(
        &self,
        offered: &BTreeMap<BotId, u32>,
        qualifying_games: u32,
        params: &Params,
        now: i64,
    ) -> Result<Option<DealPlan>> {
        let pool = self.pool(offered, qualifying_games, now).await?;
        let Some(fours) = foursomes(&pool, params) else { return Ok(None) };
        let splits = self.split_counts(&fours).await?;
        Ok(Some(seat(&fours, &splits)))
    }
}
