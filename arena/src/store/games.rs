//! Deals, the games (tables) that play them and the comparisons they give: a game goes queued
//! -> running -> done, or to void from either; a deal is scored once, when no table of it is
//! in flight, in the transaction that stores its comparisons and publishes its seed.

use super::{Result, Store, StoreError, flag, stats};
use crate::duplicate::{Comparison, Outcome, TableResult, holders};
use crate::pairing::{SplitCounts, split_of};
use crate::{BotId, team};

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// Planned, not started.
    Queued,
    /// Being played.
    Running,
    /// Finished, with its result.
    Done,
    /// Abandoned through the server's fault (or a restart): never counted.
    Void,
}

impl GameStatus {
    /// The stored (and shown) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Queued => "queued",
            GameStatus::Running => "running",
            GameStatus::Done => "done",
            GameStatus::Void => "void",
        }
    }

    fn parse(s: &str) -> Result<GameStatus> {
        Ok(match s {
            "queued" => GameStatus::Queued,
            "running" => GameStatus::Running,
            "done" => GameStatus::Done,
            "void" => GameStatus::Void,
            other => return Err(StoreError::Corrupt(format!("game status {other:?}"))),
        })
    }
}

/// A table to be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// Its deal.
    pub deal: i64,
    /// Its number within the deal.
    pub table_no: u32,
    /// The bot in each seat.
    pub seats: [BotId; 4],
    /// The deal's orientation at this table (0..3, see [`crate::duplicate::holders`]).
    pub orientation: u8,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// Points of the partnership in seats 0 and 2.
    pub points02: i32,
    /// Points of the partnership in seats 1 and 3.
    pub points13: i32,
    /// Bit `s` set: the bot in seat `s` timed out, crashed or moved illegally.
    pub fault_seats: u8,
    /// Where its record was written.
    pub record_path: Option<String>,
}

/// A stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// Its id.
    pub id: i64,
    /// Its deal.
    pub deal: i64,
    /// Its table number.
    pub table_no: u32,
    /// The bot in each seat.
    pub seats: [BotId; 4],
    /// The deal's orientation at the table.
    pub orientation: u8,
    /// Where it is in its life.
    pub status: GameStatus,
    /// Its record file.
    pub record_path: Option<String>,
    /// When it started.
    pub started_at: Option<i64>,
    /// When it ended (or was voided).
    pub ended_at: Option<i64>,
    /// Points of seats 0+2 and 1+3, once done.
    pub points: Option<[i32; 2]>,
    /// Seats that faulted (bit per seat).
    pub fault_seats: u8,
    /// Why it was voided.
    pub void_reason: Option<String>,
}

impl GameRow {
    /// The game as duplicate scoring takes it; `None` while it is queued or running.
    pub fn table_result(&self) -> Option<TableResult> {
        let holders = holders(self.seats, self.orientation);
        let voided = match self.status {
            GameStatus::Queued | GameStatus::Running => return None,
            GameStatus::Void => true,
            GameStatus::Done => false,
        };
        let [p02, p13] = self.points.unwrap_or([0, 0]);
        // Side 0 is held by seats 0 and 2 in an even orientation.
        let points = if self.orientation.is_multiple_of(2) { [p02, p13] } else { [p13, p02] };
        let faulted =
            (0..4).filter(|s| self.fault_seats & (1 << s) != 0).map(|s| self.seats[s]).collect();
        Some(TableResult { table: self.table_no, holders, points, faulted, voided })
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    deal_id: i64,
    table_no: i64,
    seat0: i64,
    seat1: i64,
    seat2: i64,
    seat3: i64,
    orientation: i64,
    status: String,
    record_path: Option<String>,
    started_at: Option<i64>,
    ended_at: Option<i64>,
    points02: Option<i64>,
    points13: Option<i64>,
    fault_seats: i64,
    void_reason: Option<String>,
}

impl Row {
    fn into_game(self) -> Result<GameRow> {
        let small =
            |v: i64| i32::try_from(v).map_err(|_| StoreError::Corrupt(format!("points {v}")));
        let points = match (self.points02, self.points13) {
            (Some(a), Some(b)) => Some([small(a)?, small(b)?]),
            _ => None,
        };
        Ok(GameRow {
            id: self.id,
            deal: self.deal_id,
            table_no: u32::try_from(self.table_no)
                .map_err(|_| StoreError::Corrupt("table number".into()))?,
            seats: [self.seat0, self.seat1, self.seat2, self.seat3],
            orientation: (self.orientation & 3) as u8,
            status: GameStatus::parse(&self.status)?,
            record_path: self.record_path,
            started_at: self.started_at,
            ended_at: self.ended_at,
            points,
            fault_seats: (self.fault_seats & 15) as u8,
            void_reason: self.void_reason,
        })
    }
}

type Seats = (i64, i64, i64, i64);

fn seats_of((a, b, c, d): Seats) -> [BotId; 4] {
    [a, b, c, d]
}

#[derive(sqlx::FromRow)]
struct ComparisonRow {
    id: i64,
    deal_id: i64,
    side: i64,
    table_a: i64,
    table_b: i64,
    team_a1: i64,
    team_a2: i64,
    team_b1: i64,
    team_b2: i64,
    opp_a1: i64,
    opp_a2: i64,
    opp_b1: i64,
    opp_b2: i64,
    outcome: i64,
    score_diff: i64,
    a_faulted: i64,
    b_faulted: i64,
}

macro_rules! select_game {
    ($tail:literal) => {
        concat!(
            "SELECT id, deal_id, table_no, seat0, seat1, seat2, seat3, orientation, status, ",
            "record_path, started_at, ended_at, points02, points13, fault_seats, void_reason ",
            "FROM games",
            $tail
        )
    };
}

/// The games whose four seats are drawn from four ids (`$1`..`$4`), with their status. The
/// status is filtered by the caller, not here: with `status = 'done'` in the query SQLite's
/// planner (it keeps no statistics) reads through the status index, every finished game ever,
/// instead of the foursome's own rows through `games_by_foursome` (migration 0004).
pub(super) const FOURSOME_GAMES: &str = "SELECT seat0, seat1, seat2, seat3, status FROM games \
     WHERE seat0 IN ($1, $2, $3, $4) AND seat1 IN ($1, $2, $3, $4) \
     AND seat2 IN ($1, $2, $3, $4) AND seat3 IN ($1, $2, $3, $4)";

/// Inserts a deal with this seed; its id, or `None` when the seed was used before.
async fn insert_deal<'e>(
    db: impl sqlx::Executor<'e, Database = sqlx::Any>,
    seed: u64,
    now: i64,
) -> Result<Option<i64>> {
    // The seed's 64 bits are kept as a signed integer, the widest both databases have.
    Ok(sqlx::query_scalar::<_, i64>(
        "INSERT INTO deals (seed, created_at) VALUES ($1, $2) ON CONFLICT (seed) DO NOTHING RETURNING id",
    )
    .bind(seed as i64)
    .bind(now)
    .fetch_optional(db)
    .await?)
}

async fn insert_queued_game<'e>(
    db: impl sqlx::Executor<'e, Database = sqlx::Any>,
    game: &NewGame,
) -> Result<i64> {
    let [s0, s1, s2, s3] = game.seats;
    Ok(sqlx::query_scalar(
        "INSERT INTO games (deal_id, table_no, seat0, seat1, seat2, seat3, orientation, status) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued') RETURNING id",
    )
    .bind(game.deal)
    .bind(i64::from(game.table_no))
    .bind(s0)
    .bind(s1)
    .bind(s2)
    .bind(s3)
    .bind(i64::from(game.orientation % 4))
    .fetch_one(db)
    .await?)
}

fn seed_used(seed: u64) -> StoreError {
    StoreError::Conflict(format!("deal seed {seed} was used before"))
}

impl Store {
    /// A new deal with this seed (a fresh random one: the database refuses a seed twice).
    pub async fn new_deal(&self, seed: u64, now: i64) -> Result<i64> {
        insert_deal(&self.pool, seed, now).await?.ok_or_else(|| seed_used(seed))
    }

    /// A new deal with this seed and its tables (seats and orientation, numbered in order),
    /// every one running from `now` with its record at `record_of(game id)`; the deal's id and
    /// its games' ids. One transaction, one commit instead of a deal's, each table's and each
    /// start's: a crash leaves the whole deal or none of it, never a deal short of a table.
    pub async fn open_deal(
        &self,
        seed: u64,
        tables: &[([BotId; 4], u8)],
        record_of: impl Fn(i64) -> String,
        now: i64,
    ) -> Result<(i64, Vec<i64>)> {
        let mut tx = self.begin_write().await?;
        let Some(deal) = insert_deal(&mut *tx, seed, now).await? else {
            tx.rollback().await?;
            return Err(seed_used(seed));
        };
        let mut games = Vec::with_capacity(tables.len());
        for (no, &([s0, s1, s2, s3], orientation)) in tables.iter().enumerate() {
            let game: i64 = sqlx::query_scalar(
                "INSERT INTO games (deal_id, table_no, seat0, seat1, seat2, seat3, orientation, \
                 status, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8) RETURNING id",
            )
            .bind(deal)
            .bind(no as i64)
            .bind(s0)
            .bind(s1)
            .bind(s2)
            .bind(s3)
            .bind(i64::from(orientation % 4))
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query("UPDATE games SET record_path = $1 WHERE id = $2")
                .bind(record_of(game))
                .bind(game)
                .execute(&mut *tx)
                .await?;
            games.push(game);
        }
        let seats: Vec<BotId> = tables.iter().flat_map(|(seats, _)| *seats).collect();
        stats::started(&mut tx, &seats, now).await?;
        tx.commit().await?;
        Ok((deal, games))
    }

    /// A deal's seed, once it is published (its last table has ended).
    pub async fn published_seed(&self, deal: i64) -> Result<Option<u64>> {
        let seed: Option<i64> =
            sqlx::query_scalar("SELECT seed FROM deals WHERE id = $1 AND published = 1")
                .bind(deal)
                .fetch_optional(&self.pool)
                .await?;
        Ok(seed.map(|s| s as u64))
    }

    /// Queues a table of a deal.
    pub async fn add_game(&self, game: &NewGame) -> Result<i64> {
        insert_queued_game(&self.pool, game).await
    }

    /// A new deal with this seed and its tables (seats and orientation, numbered in order),
    /// each a queued game, the deal queued for the workers at `now_ms`; the deal's id. One
    /// transaction, as [`Store::open_deal`]: a crash leaves the whole deal queued or none of it.
    pub async fn queue_new_deal(
        &self,
        seed: u64,
        tables: &[([BotId; 4], u8)],
        now: i64,
        now_ms: i64,
    ) -> Result<i64> {
        let mut tx = self.begin_write().await?;
        let Some(deal) = insert_deal(&mut *tx, seed, now).await? else {
            tx.rollback().await?;
            return Err(seed_used(seed));
        };
        for (no, &(seats, orientation)) in tables.iter().enumerate() {
            let game = NewGame { deal, table_no: no as u32, seats, orientation };
            insert_queued_game(&mut *tx, &game).await?;
        }
        sqlx::query("INSERT INTO work (deal_id, queued_ms) VALUES ($1, $2)")
            .bind(deal)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(deal)
    }

    /// Marks a queued game as running.
    pub async fn start_game(&self, game: i64, record_path: Option<&str>, now: i64) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let seats: Option<Seats> = sqlx::query_as(
            "UPDATE games SET status = 'running', started_at = $1, record_path = $2 \
             WHERE id = $3 AND status = 'queued' RETURNING seat0, seat1, seat2, seat3",
        )
        .bind(now)
        .bind(record_path)
        .bind(game)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seats) = seats else {
            tx.rollback().await?;
            return self.changed(0, game, "is not queued").await;
        };
        stats::started(&mut tx, seats_of(seats), now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Starts up to `limit` of the oldest queued games and returns them (id and seats, oldest
    /// first): the claim a scheduler or a worker's lease makes. Two servers claiming at once
    /// never take the same game: Postgres skips the rows another transaction locked (`FOR
    /// UPDATE SKIP LOCKED`), SQLite lets one writer in at a time (see [`super::Claiming`]).
    pub async fn claim_queued(&self, limit: u32, now: i64) -> Result<Vec<(i64, [BotId; 4])>> {
        let mut tx = self.begin_write().await?;
        let pick =
            crate::claiming!("SELECT id FROM games WHERE status = 'queued' ORDER BY id LIMIT $1");
        let ids: Vec<i64> = sqlx::query_scalar(self.claiming(pick))
            .bind(i64::from(limit))
            .fetch_all(&mut *tx)
            .await?;
        let mut claimed = Vec::with_capacity(ids.len());
        for id in ids {
            let seats: Seats = sqlx::query_as(
                "UPDATE games SET status = 'running', started_at = $1 \
                 WHERE id = $2 AND status = 'queued' RETURNING seat0, seat1, seat2, seat3",
            )
            .bind(now)
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
            claimed.push((id, seats_of(seats)));
        }
        // All the claim's seats at once, in bot order (see `stats::started`).
        let seats: Vec<BotId> = claimed.iter().flat_map(|(_, seats)| *seats).collect();
        stats::started(&mut tx, &seats, now).await?;
        tx.commit().await?;
        Ok(claimed)
    }

    /// Records a running game's result. A game voided meanwhile (by a restart) stays void.
    pub async fn end_game(&self, game: i64, end: &GameEnd, now: i64) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let seats: Option<Seats> = sqlx::query_as(
            "UPDATE games SET status = 'done', ended_at = $1, points02 = $2, points13 = $3, \
             fault_seats = $4, record_path = COALESCE($5, record_path) \
             WHERE id = $6 AND status = 'running' RETURNING seat0, seat1, seat2, seat3",
        )
        .bind(now)
        .bind(i64::from(end.points02))
        .bind(i64::from(end.points13))
        .bind(i64::from(end.fault_seats & 15))
        .bind(end.record_path.as_deref())
        .bind(game)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seats) = seats else {
            tx.rollback().await?;
            return self.changed(0, game, "is not running").await;
        };
        stats::ended(&mut tx, seats_of(seats), end.fault_seats).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Voids a queued or running game (the server's fault): it will never count.
    pub async fn void_game(&self, game: i64, reason: &str, now: i64) -> Result<()> {
        let mut tx = self.begin_write().await?;
        // started_at is set exactly when a game starts running: it tells a running game's
        // seats (counted as running) from a queued one's.
        let voided: Option<(i64, i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "UPDATE games SET status = 'void', ended_at = $1, void_reason = $2 \
             WHERE id = $3 AND status IN ('queued', 'running') \
             RETURNING seat0, seat1, seat2, seat3, started_at",
        )
        .bind(now)
        .bind(reason)
        .bind(game)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((a, b, c, d, started)) = voided else {
            tx.rollback().await?;
            return self.changed(0, game, "has already ended").await;
        };
        if started.is_some() {
            stats::left(&mut tx, [a, b, c, d]).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// At startup: every game a previous run left queued or running is voided (its players
    /// are gone), and the number voided is returned. Their deals are then scored from the
    /// tables that finished, or from none.
    pub async fn void_in_flight(&self, now: i64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE games SET status = 'void', ended_at = $1, void_reason = 'server restarted' \
             WHERE status IN ('queued', 'running')",
        )
        .bind(now)
        .execute(&mut *tx)
        .await?;
        stats::none_running(&mut tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    async fn changed(&self, rows: u64, game: i64, otherwise: &str) -> Result<()> {
        if rows == 1 {
            return Ok(());
        }
        let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM games WHERE id = $1")
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
        Err(match exists {
            Some(_) => StoreError::Conflict(format!("game {game} {otherwise}")),
            None => StoreError::NotFound(format!("game {game}")),
        })
    }

    /// One game.
    pub async fn game(&self, game: i64) -> Result<Option<GameRow>> {
        let row = sqlx::query_as::<_, Row>(select_game!(" WHERE id = $1"))
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
        row.map(Row::into_game).transpose()
    }

    /// A deal's tables, by table number.
    pub async fn deal_games(&self, deal: i64) -> Result<Vec<GameRow>> {
        let rows = sqlx::query_as::<_, Row>(select_game!(" WHERE deal_id = $1 ORDER BY table_no"))
            .bind(deal)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(Row::into_game).collect()
    }

    /// The most recent games, newest first.
    pub async fn recent_games(&self, limit: u32) -> Result<Vec<GameRow>> {
        let rows = sqlx::query_as::<_, Row>(select_game!(" ORDER BY id DESC LIMIT $1"))
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(Row::into_game).collect()
    }

    /// Deals not yet scored none of whose tables is in flight, oldest first: what a restart
    /// (or the end of a deal's last table) leaves to score.
    pub async fn deals_to_score(&self) -> Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT d.id FROM deals d WHERE d.scored = 0 \
             AND EXISTS (SELECT 1 FROM games g WHERE g.deal_id = d.id) \
             AND NOT EXISTS (SELECT 1 FROM games g WHERE g.deal_id = d.id \
                             AND g.status IN ('queued', 'running')) \
             ORDER BY d.id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Stores a deal's comparisons, marks it scored and publishes its seed, all at once; a
    /// deal already scored, or with a table still in flight, is refused whole.
    pub async fn record_comparisons(&self, deal: i64, comparisons: &[Comparison]) -> Result<()> {
        if let Some(c) = comparisons.iter().find(|c| c.deal != deal) {
            return Err(StoreError::Conflict(format!(
                "a comparison of deal {} given for deal {deal}",
                c.deal
            )));
        }
        let mut tx = self.begin_write().await?;
        // The write comes first so SQLite takes its write lock at once: a deferred
        // transaction that reads first can fail to upgrade when another writer got in.
        let marked = sqlx::query(
            "UPDATE deals SET scored = 1, published = 1 WHERE id = $1 AND scored = 0 \
             AND NOT EXISTS (SELECT 1 FROM games g WHERE g.deal_id = $1 \
                             AND g.status IN ('queued', 'running'))",
        )
        .bind(deal)
        .execute(&mut *tx)
        .await?;
        if marked.rows_affected() != 1 {
            let scored: Option<i64> = sqlx::query_scalar("SELECT scored FROM deals WHERE id = $1")
                .bind(deal)
                .fetch_optional(&mut *tx)
                .await?;
            return Err(match scored {
                None => StoreError::NotFound(format!("deal {deal}")),
                Some(1) => StoreError::Conflict(format!("deal {deal} is scored already")),
                Some(_) => StoreError::Conflict(format!("deal {deal} has a table still in flight")),
            });
        }
        for c in comparisons {
            sqlx::query(
                "INSERT INTO comparisons (deal_id, side, table_a, table_b, team_a1, team_a2, \
                 team_b1, team_b2, opp_a1, opp_a2, opp_b1, opp_b2, outcome, score_diff, \
                 a_faulted, b_faulted) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            )
            .bind(deal)
            .bind(i64::from(c.side))
            .bind(i64::from(c.table_a))
            .bind(i64::from(c.table_b))
            .bind(c.team_a[0])
            .bind(c.team_a[1])
            .bind(c.team_b[0])
            .bind(c.team_b[1])
            .bind(c.opp_a[0])
            .bind(c.opp_a[1])
            .bind(c.opp_b[0])
            .bind(c.opp_b[1])
            .bind(c.outcome.code())
            .bind(i64::from(c.score_diff))
            .bind(flag(c.a_faulted))
            .bind(flag(c.b_faulted))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every comparison with its id, in the order they were stored: the ratings' one input.
    pub async fn comparisons(&self) -> Result<Vec<(i64, Comparison)>> {
        let rows = sqlx::query_as::<_, ComparisonRow>(
            "SELECT id, deal_id, side, table_a, table_b, team_a1, team_a2, team_b1, team_b2, \
             opp_a1, opp_a2, opp_b1, opp_b2, outcome, score_diff, a_faulted, b_faulted \
             FROM comparisons ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                let bad = || StoreError::Corrupt(format!("comparison {}", r.id));
                let comparison = Comparison {
                    deal: r.deal_id,
                    side: u8::try_from(r.side).map_err(|_| bad())?,
                    table_a: u32::try_from(r.table_a).map_err(|_| bad())?,
                    table_b: u32::try_from(r.table_b).map_err(|_| bad())?,
                    team_a: team(r.team_a1, r.team_a2),
                    team_b: team(r.team_b1, r.team_b2),
                    opp_a: team(r.opp_a1, r.opp_a2),
                    opp_b: team(r.opp_b1, r.opp_b2),
                    outcome: Outcome::from_code(r.outcome).ok_or_else(bad)?,
                    score_diff: i32::try_from(r.score_diff).map_err(|_| bad())?,
                    a_faulted: r.a_faulted != 0,
                    b_faulted: r.b_faulted != 0,
                };
                Ok((r.id, comparison))
            })
            .collect()
    }

    /// How often each of these foursomes (ids ascending) played each of its splits, counting
    /// finished games.
    pub async fn split_counts(&self, foursomes: &[[BotId; 4]]) -> Result<SplitCounts> {
        let mut splits = SplitCounts::new();
        for four in foursomes {
            let mut ids = *four;
            ids.sort_unstable();
            let seatings: Vec<(i64, i64, i64, i64, String)> = sqlx::query_as(FOURSOME_GAMES)
                .bind(ids[0])
                .bind(ids[1])
                .bind(ids[2])
                .bind(ids[3])
                .fetch_all(&self.pool)
                .await?;
            let counts = splits.entry(ids).or_default();
            for (a, b, c, d, _) in seatings.into_iter().filter(|s| s.4 == "done") {
                // Four seats drawn from four ids are the foursome itself only if all differ.
                let seats = [a, b, c, d];
                let mut sorted = seats;
                sorted.sort_unstable();
                if sorted == ids {
                    counts[usize::from(split_of(seats))] += 1;
                }
            }
        }
        Ok(splits)
    }
}
