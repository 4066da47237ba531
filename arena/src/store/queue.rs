//! The work queue (spec/arena.md section 10): worker tokens, hosted entrants, deals queued for
//! workers and the leases that hold them. A lease goes open -> done (every game of it ended) or
//! open -> expired (its heartbeat came too late: its unfinished games are void). Every change
//! is a conditional UPDATE, so two servers, or a result racing an expiry, can neither hand a
//! deal to two leases nor end a game twice.

use super::{GameRow, Result, Store, StoreError, stats};
use crate::BotId;
use crate::token::{Token, hash_token, hashes_equal};
use std::collections::BTreeSet;

/// A worker, as its token names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// Its id.
    pub id: i64,
    /// Its name (unique).
    pub name: String,
}

/// Where a lease is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseState {
    /// Held by its worker.
    Open,
    /// Every game of it ended.
    Done,
    /// Its heartbeat came too late; its unfinished games are void.
    Expired,
}

impl LeaseState {
    fn parse(s: &str) -> Result<LeaseState> {
        Ok(match s {
            "open" => LeaseState::Open,
            "done" => LeaseState::Done,
            "expired" => LeaseState::Expired,
            other => return Err(StoreError::Corrupt(format!("lease state {other:?}"))),
        })
    }
}

/// A stored lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRow {
    /// Its id.
    pub id: i64,
    /// The worker that holds it.
    pub worker: i64,
    /// When it was granted, in milliseconds since the epoch.
    pub created_ms: i64,
    /// Its last heartbeat (or its grant), in milliseconds since the epoch.
    pub heartbeat_ms: i64,
    /// Its time to live after a heartbeat.
    pub ttl_ms: i64,
    /// Where it is in its life.
    pub state: LeaseState,
}

/// A deal in the queue (not leased yet), with its seed and tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedDeal {
    /// The deal.
    pub deal: i64,
    /// Its seed.
    pub seed: u64,
    /// Its tables, by table number.
    pub games: Vec<GameRow>,
}

type LeaseTuple = (i64, i64, i64, i64, i64, String);

fn lease_row(
    (id, worker, created_ms, heartbeat_ms, ttl_ms, state): LeaseTuple,
) -> Result<LeaseRow> {
    Ok(LeaseRow { id, worker, created_ms, heartbeat_ms, ttl_ms, state: LeaseState::parse(&state)? })
}

macro_rules! select_lease {
    ($tail:literal) => {
        concat!("SELECT id, worker_id, created_ms, heartbeat_ms, ttl_ms, state FROM leases", $tail)
    };
}

impl Store {
    /// Creates a worker and returns it with its token, the only time the token is seen.
    pub async fn add_worker(&self, name: &str, now: i64) -> Result<(Worker, Token)> {
        if name.trim().is_empty() {
            return Err(StoreError::Conflict("a worker needs a name".into()));
        }
        let token = Token::generate().map_err(StoreError::Random)?;
        let id: Option<i64> = sqlx::query_scalar(
            "INSERT INTO workers (name, token_hash, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (name) DO NOTHING RETURNING id",
        )
        .bind(name)
        .bind(token.hash().to_vec())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let id = id.ok_or_else(|| StoreError::Conflict(format!("a worker is named {name:?}")))?;
        Ok((Worker { id, name: name.to_string() }, token))
    }

    /// The worker a presented token belongs to.
    pub async fn worker_by_token(&self, presented: &str) -> Result<Option<Worker>> {
        let hash = hash_token(presented);
        let row: Option<(i64, String, Vec<u8>)> =
            sqlx::query_as("SELECT id, name, token_hash FROM workers WHERE token_hash = $1")
                .bind(hash.to_vec())
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.filter(|(_, _, h)| hashes_equal(h, &hash)).map(|(id, name, _)| Worker { id, name }))
    }

    /// Every worker, by id.
    pub async fn workers(&self) -> Result<Vec<Worker>> {
        let rows: Vec<(i64, String)> = sqlx::query_as("SELECT id, name FROM workers ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(|(id, name)| Worker { id, name }).collect())
    }

    /// Marks `bot` as hosted: played by the workers' programs, never seated in the server.
    pub async fn set_hosted(&self, bot: BotId) -> Result<()> {
        sqlx::query("INSERT INTO hosted_bots (bot_id) VALUES ($1) ON CONFLICT (bot_id) DO NOTHING")
            .bind(bot)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The hosted entrants.
    pub async fn hosted_bots(&self) -> Result<BTreeSet<BotId>> {
        let ids: Vec<i64> =
            sqlx::query_scalar("SELECT bot_id FROM hosted_bots").fetch_all(&self.pool).await?;
        Ok(ids.into_iter().collect())
    }

    /// Deals of the work queue not yet scored: queued, or held by a lease.
    pub async fn work_in_flight(&self) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM work w JOIN deals d ON d.id = w.deal_id WHERE d.scored = 0",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u64)
    }

    /// Games waiting in the queue (their deal not leased yet).
    pub async fn queued_games(&self) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM games g JOIN work w ON w.deal_id = g.deal_id \
             WHERE w.lease_id IS NULL AND g.status = 'queued'",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u64)
    }

    /// The oldest queued deals, at most `limit`, with their tables.
    pub async fn queued_deals(&self, limit: u32) -> Result<Vec<QueuedDeal>> {
        let deals: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT d.id, d.seed FROM work w JOIN deals d ON d.id = w.deal_id \
             WHERE w.lease_id IS NULL AND d.scored = 0 ORDER BY w.queued_ms, w.deal_id LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(deals.len());
        for (deal, seed) in deals {
            let games = self.deal_games(deal).await?;
            out.push(QueuedDeal { deal, seed: seed as u64, games });
        }
        Ok(out)
    }

    /// Grants `worker` a lease on those of `deals` still queued: each claimed deal's tables
    /// start running now (their records to go to `record_path(game)`). The lease and the deals
    /// it got; `None` when every deal was taken meanwhile.
    pub async fn grant_lease(
        &self,
        worker: i64,
        deals: &[i64],
        ttl_ms: i64,
        now_ms: i64,
        record_path: &(dyn Fn(i64) -> String + Sync),
    ) -> Result<Option<(i64, Vec<i64>)>> {
        let now = now_ms.div_euclid(1000);
        let mut tx = self.begin_write().await?;
        let lease: i64 = sqlx::query_scalar(
            "INSERT INTO leases (worker_id, created_ms, heartbeat_ms, ttl_ms, state) \
             VALUES ($1, $2, $2, $3, 'open') RETURNING id",
        )
        .bind(worker)
        .bind(now_ms)
        .bind(ttl_ms)
        .fetch_one(&mut *tx)
        .await?;
        let mut got = Vec::new();
        let mut seated = Vec::new();
        for &deal in deals {
            let claimed = sqlx::query(
                "UPDATE work SET lease_id = $1 WHERE deal_id = $2 AND lease_id IS NULL",
            )
            .bind(lease)
            .bind(deal)
            .execute(&mut *tx)
            .await?;
            if claimed.rows_affected() != 1 {
                continue;
            }
            let games: Vec<i64> = sqlx::query_scalar(
                "SELECT id FROM games WHERE deal_id = $1 AND status = 'queued' ORDER BY table_no",
            )
            .bind(deal)
            .fetch_all(&mut *tx)
            .await?;
            for game in games {
                let seats: (i64, i64, i64, i64) = sqlx::query_as(
                    "UPDATE games SET status = 'running', started_at = $1, record_path = $2 \
                     WHERE id = $3 AND status = 'queued' RETURNING seat0, seat1, seat2, seat3",
                )
                .bind(now)
                .bind(record_path(game))
                .bind(game)
                .fetch_one(&mut *tx)
                .await?;
                seated.extend([seats.0, seats.1, seats.2, seats.3]);
            }
            got.push(deal);
        }
        if got.is_empty() {
            tx.rollback().await?;
            return Ok(None);
        }
        // Once for the whole lease, so its bots' rows change in id order (see stats.rs).
        stats::started(&mut tx, &seated, now).await?;
        tx.commit().await?;
        Ok(Some((lease, got)))
    }

    /// A lease.
    pub async fn lease(&self, lease: i64) -> Result<Option<LeaseRow>> {
        let row: Option<LeaseTuple> = sqlx::query_as(select_lease!(" WHERE id = $1"))
            .bind(lease)
            .fetch_optional(&self.pool)
            .await?;
        row.map(lease_row).transpose()
    }

    /// Every lease, by id.
    pub async fn leases(&self) -> Result<Vec<LeaseRow>> {
        let rows: Vec<LeaseTuple> =
            sqlx::query_as(select_lease!(" ORDER BY id")).fetch_all(&self.pool).await?;
        rows.into_iter().map(lease_row).collect()
    }

    /// The deals a lease holds.
    pub async fn lease_deals(&self, lease: i64) -> Result<Vec<i64>> {
        Ok(sqlx::query_scalar("SELECT deal_id FROM work WHERE lease_id = $1 ORDER BY deal_id")
            .bind(lease)
            .fetch_all(&self.pool)
            .await?)
    }

    /// The deal `game` belongs to, if `lease` holds it.
    pub async fn lease_holds(&self, lease: i64, game: i64) -> Result<Option<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT g.deal_id FROM games g JOIN work w ON w.deal_id = g.deal_id \
             WHERE g.id = $1 AND w.lease_id = $2",
        )
        .bind(game)
        .bind(lease)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Extends an open lease of `worker` from `now_ms`; false when it is not open (expired,
    /// done, or not this worker's).
    pub async fn heartbeat(&self, lease: i64, worker: i64, now_ms: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE leases SET heartbeat_ms = $1 \
             WHERE id = $2 AND worker_id = $3 AND state = 'open'",
        )
        .bind(now_ms)
        .bind(lease)
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks an open lease done once none of its games is in flight; true if it was.
    pub async fn close_lease_if_done(&self, lease: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE leases SET state = 'done' WHERE id = $1 AND state = 'open' \
             AND NOT EXISTS (SELECT 1 FROM games g JOIN work w ON w.deal_id = g.deal_id \
                             WHERE w.lease_id = $1 AND g.status IN ('queued', 'running'))",
        )
        .bind(lease)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Open leases whose last heartbeat is older than their ttl at `now_ms`.
    pub async fn stale_leases(&self, now_ms: i64) -> Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM leases WHERE state = 'open' AND heartbeat_ms + ttl_ms < $1 ORDER BY id",
        )
        .bind(now_ms)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Marks a stale open lease expired (a heartbeat that came meanwhile saves it); true if it
    /// was. Its games are the caller's to void. A write transaction, so that a superseded
    /// scheduler cannot expire a lease whose games it may then no longer void.
    pub async fn expire_lease(&self, lease: i64, now_ms: i64) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE leases SET state = 'expired' \
             WHERE id = $1 AND state = 'open' AND heartbeat_ms + ttl_ms < $2",
        )
        .bind(lease)
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// How many leases are open.
    pub async fn open_leases(&self) -> Result<u64> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM leases WHERE state = 'open'")
            .fetch_one(&self.pool)
            .await?;
        Ok(n as u64)
    }

    /// When the oldest open lease was granted, in milliseconds since the epoch.
    pub async fn oldest_open_lease_ms(&self) -> Result<Option<i64>> {
        Ok(sqlx::query_scalar("SELECT MIN(created_ms) FROM leases WHERE state = 'open'")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The games of the work queue still queued or running, with their deals: what a stopping
    /// server voids.
    pub async fn work_games_in_flight(&self) -> Result<Vec<(i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT g.id, g.deal_id FROM games g JOIN work w ON w.deal_id = g.deal_id \
             WHERE g.status IN ('queued', 'running') ORDER BY g.id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Marks every open lease expired (the server stops, or starts after a crash).
    pub async fn expire_all_leases(&self) -> Result<u64> {
        let done = sqlx::query("UPDATE leases SET state = 'expired' WHERE state = 'open'")
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}

impl Store {
    /// A deal's seed, published or not: the server's own read, for checking a result.
    pub async fn deal_seed(&self, deal: i64) -> Result<Option<u64>> {
        let seed: Option<i64> = sqlx::query_scalar("SELECT seed FROM deals WHERE id = $1")
            .bind(deal)
            .fetch_optional(&self.pool)
            .await?;
        Ok(seed.map(|s| s as u64))
    }
}
