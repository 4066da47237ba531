//! Rating snapshots: a board as computed after a given comparison, kept so the current board
//! is read rather than refitted on every page, and so a bot's page can draw its history.

use super::{Result, Store, StoreError, flag};
use crate::BotId;
pub use crate::rating::RatingRow;

/// Which board a snapshot is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// The online Weng-Lin board.
    Live,
    /// The batch Bradley-Terry fit.
    Official,
}

impl BoardKind {
    fn as_str(self) -> &'static str {
        match self {
            BoardKind::Live => "live",
            BoardKind::Official => "official",
        }
    }
}

/// A stored board.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Its id.
    pub id: i64,
    /// When it was taken.
    pub taken_at: i64,
    /// The last comparison it includes (0: none).
    pub upto_comparison: i64,
    /// Its lines, by bot id.
    pub rows: Vec<RatingRow>,
}

type Raw = (i64, f64, f64, f64, f64, i64, i64);

fn row((bot, value, spread, low, high, provisional, comparisons): Raw) -> RatingRow {
    RatingRow {
        bot,
        value,
        spread,
        low,
        high,
        provisional: provisional != 0,
        comparisons: u32::try_from(comparisons).unwrap_or(u32::MAX),
    }
}

impl Store {
    /// Stores a board computed from the comparisons up to `upto_comparison` and returns its
    /// id. A board for the same comparisons is the same board (ratings are a pure function of
    /// them), so one already stored is kept and its id returned.
    pub async fn save_snapshot(
        &self,
        kind: BoardKind,
        upto_comparison: i64,
        taken_at: i64,
        rows: &[RatingRow],
    ) -> Result<i64> {
        let mut tx = self.begin_write().await?;
        let id: Option<i64> = sqlx::query_scalar(
            "INSERT INTO rating_snapshots (kind, taken_at, upto_comparison) VALUES ($1, $2, $3) \
             ON CONFLICT (kind, upto_comparison) DO NOTHING RETURNING id",
        )
        .bind(kind.as_str())
        .bind(taken_at)
        .bind(upto_comparison)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else {
            let existing: i64 = sqlx::query_scalar(
                "SELECT id FROM rating_snapshots WHERE kind = $1 AND upto_comparison = $2",
            )
            .bind(kind.as_str())
            .bind(upto_comparison)
            .fetch_one(&mut *tx)
            .await?;
            tx.rollback().await?;
            return Ok(existing);
        };
        for r in rows {
            sqlx::query(
                "INSERT INTO ratings (snapshot_id, bot_id, value, spread, low, high, provisional, \
                 comparisons) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(id)
            .bind(r.bot)
            .bind(r.value)
            .bind(r.spread)
            .bind(r.low)
            .bind(r.high)
            .bind(flag(r.provisional))
            .bind(i64::from(r.comparisons))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// The newest board of a kind (the one covering the most comparisons).
    pub async fn latest_snapshot(&self, kind: BoardKind) -> Result<Option<Snapshot>> {
        let head: Option<(i64, i64, i64)> = sqlx::query_as(
            "SELECT id, taken_at, upto_comparison FROM rating_snapshots WHERE kind = $1 \
             ORDER BY upto_comparison DESC LIMIT 1",
        )
        .bind(kind.as_str())
        .fetch_optional(&self.pool)
        .await?;
        let Some((id, taken_at, upto_comparison)) = head else { return Ok(None) };
        let rows: Vec<Raw> = sqlx::query_as(
            "SELECT bot_id, value, spread, low, high, provisional, comparisons FROM ratings \
             WHERE snapshot_id = $1 ORDER BY bot_id",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(Snapshot {
            id,
            taken_at,
            upto_comparison,
            rows: rows.into_iter().map(row).collect(),
        }))
    }

    /// A bot's line in the boards of a kind, oldest first, with each snapshot's time: its
    /// rating history, thinned to at most `at_most` points (2 or more) spread evenly over it,
    /// the first and the newest always among them; and how many snapshots hold the bot. A board
    /// is snapshotted on every refit, so a long-lived bot's history is long, and a page needs
    /// its shape, not every point.
    pub async fn rating_history(
        &self,
        bot: BotId,
        kind: BoardKind,
        at_most: u32,
    ) -> Result<(Vec<(i64, RatingRow)>, u64)> {
        type WithTime = (i64, i64, f64, f64, f64, f64, i64, i64, i64);
        let at_most = i64::from(at_most.max(2));
        // Row n (from 1) of `total` is kept when n - 1 is a multiple of the stride, or it is
        // the last: at most `at_most` rows, the stride the smallest that allows it.
        let rows: Vec<WithTime> = sqlx::query_as(
            "SELECT taken_at, bot_id, value, spread, low, high, provisional, comparisons, total \
             FROM (SELECT s.taken_at, r.bot_id, r.value, r.spread, r.low, r.high, \
             r.provisional, r.comparisons, \
             ROW_NUMBER() OVER (ORDER BY s.upto_comparison) AS n, COUNT(*) OVER () AS total \
             FROM ratings r JOIN rating_snapshots s ON s.id = r.snapshot_id \
             WHERE r.bot_id = $1 AND s.kind = $2) h \
             WHERE n = total OR (n - 1) % (CASE WHEN total <= $3 THEN 1 \
             ELSE (total + $3 - 3) / ($3 - 1) END) = 0 ORDER BY n",
        )
        .bind(bot)
        .bind(kind.as_str())
        .bind(at_most)
        .fetch_all(&self.pool)
        .await?;
        let total = rows.first().map_or(0, |r| r.8.max(0) as u64);
        let points = rows
            .into_iter()
            .map(|(t, b, v, s, l, h, p, c, _)| {
                if !v.is_finite() {
                    return Err(StoreError::Corrupt(format!("rating of bot {b}")));
                }
                Ok((t, row((b, v, s, l, h, p, c))))
            })
            .collect::<Result<_>>()?;
        Ok((points, total))
    }
}
