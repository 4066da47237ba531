//! Filling the work queue: deals planned from the house and hosted entrants (as the server
//! plans its own, through pairing), up to the queue's size; and the foursomes of an expired
//! lease's deals dealt again, seats and orientations kept, with a fresh seed, so no bot is
//! dealt the same cards twice and no deal is counted twice.

use super::{Hub, now_ms};
use crate::BotId;
use crate::pairing::Params;
use crate::store::StoreError;
use std::collections::BTreeMap;

impl Hub {
    /// At the server's start, after the games in flight were voided: leases left open by the
    /// last run are expired (their games are void already).
    pub async fn recover(&self) -> Result<(), StoreError> {
        if self.enabled() {
            let n = self.0.store.expire_all_leases().await?;
            if n > 0 {
                tracing::warn!("{n} leases open when the server last stopped are expired");
            }
        }
        Ok(())
    }

    /// For a stopping server: no more leases are granted, and true once no lease is open (the
    /// games leased before the stop have ended, or their leases expired).
    pub async fn idle(&self) -> Result<bool, StoreError> {
        if !self.enabled() {
            return Ok(true);
        }
        self.stop_leasing();
        Ok(self.0.store.open_leases().await? == 0)
    }

    /// Plans deals of house and hosted entrants into the queue until it holds its size;
    /// returns how many were queued.
    pub async fn fill(&self, qualifying: u32, params: &Params) -> Result<u64, StoreError> {
        let Some(settings) = self.0.settings.clone() else { return Ok(0) };
        if self.0.stopping.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(0);
        }
        let store = &self.0.store;
        let _gate = self.0.gate.lock().await;
        let mut offered: BTreeMap<BotId, u32> =
            self.0.house.keys().map(|&id| (id, u32::MAX)).collect();
        for id in store.hosted_bots().await? {
            offered.insert(id, u32::MAX);
        }
        let started = std::time::Instant::now();
        let mut queued = 0;
        while store.work_in_flight().await? < settings.deals {
            let t = crate::serve::now();
            let Some(plan) = store.plan_deal(&offered, qualifying, params, t).await? else { break };
            let tables: Vec<([BotId; 4], u8)> =
                plan.tables.iter().map(|t| (t.seats, t.orientation)).collect();
            self.queue_tables(&tables).await?;
            queued += 1;
        }
        self.0.metrics.db_time(started.elapsed());
        if queued > 0 {
            self.0.queued.notify_waiters();
        }
        Ok(queued)
    }

    /// The tables of `deal` dealt again as a fresh deal in the queue.
    pub(super) async fn deal_again(&self, deal: i64) -> Result<(), StoreError> {
        let tables: Vec<([BotId; 4], u8)> = self
            .0
            .store
            .deal_games(deal)
            .await?
            .into_iter()
            .map(|g| (g.seats, g.orientation))
            .collect();
        let again = self.queue_tables(&tables).await?;
        tracing::info!("deal {deal}'s foursomes are dealt again as deal {again}");
        Ok(())
    }

    /// A new deal of these tables (seats, orientation), queued; its id.
    async fn queue_tables(&self, tables: &[([BotId; 4], u8)]) -> Result<i64, StoreError> {
        let seed = crate::token::random_seed().map_err(StoreError::Random)?;
        self.0.store.queue_new_deal(seed, tables, crate::serve::now(), now_ms()).await
    }
}
