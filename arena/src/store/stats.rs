//! Per-bot counters (`bot_stats`), changed in the same transaction as the game whose start,
//! end or voiding they count, so they always agree with the games table and pairing reads one
//! row per bot instead of every game ever played.

use super::{Result, Store};
use crate::BotId;
use sqlx::{Any, Transaction};
use std::collections::BTreeMap;

/// Seconds in the quota's day: a games-a-day quota counts the starts of one UTC day.
pub const DAY_SECONDS: i64 = 86_400;

/// The UTC day a time falls in.
pub fn day_of(time: i64) -> i64 {
    time.div_euclid(DAY_SECONDS)
}

/// What the arena knows of a bot's play, for pairing, admission, pausing and quotas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// Games finished.
    pub games_done: u32,
    /// Finished games in which it faulted.
    pub games_faulted: u32,
    /// Finished games since its last fault (all of them if it never faulted).
    pub clean_since_fault: u32,
    /// Games running now.
    pub running: u32,
    /// Games started in the UTC day asked about.
    pub started_today: u32,
    /// When it last started a game.
    pub last_played: Option<i64>,
}

// Each runs inside the caller's write transaction, so the counters change with the game.

/// Games with these seats (a bot once per seat it took) started `now`.
///
/// Each of these functions changes the bots' rows in id order: two transactions that lock
/// rows of the same bots then wait for each other in the same order, never in a cycle (a
/// deadlock Postgres would otherwise end by failing one of them).
pub(super) async fn started(
    tx: &mut Transaction<'static, Any>,
    seats: impl AsRef<[BotId]>,
    now: i64,
) -> Result<()> {
    let mut bots = seats.as_ref().to_vec();
    bots.sort_unstable();
    for bot in bots {
        sqlx::query(
            "INSERT INTO bot_stats (bot_id, running, last_played, day, started_that_day) \
             VALUES ($1, 1, $2, $3, 1) \
             ON CONFLICT (bot_id) DO UPDATE SET running = bot_stats.running + 1, \
             last_played = $2, \
             started_that_day = CASE WHEN bot_stats.day = $3 \
                                     THEN bot_stats.started_that_day + 1 ELSE 1 END, \
             day = $3",
        )
        .bind(bot)
        .bind(now)
        .bind(day_of(now))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// A running game with these seats finished; bit `s` of `fault_seats` marks a fault of seat `s`.
pub(super) async fn ended(
    tx: &mut Transaction<'static, Any>,
    seats: [BotId; 4],
    fault_seats: u8,
) -> Result<()> {
    let mut bots: Vec<(BotId, i64)> = seats
        .into_iter()
        .enumerate()
        .map(|(s, bot)| (bot, i64::from((fault_seats >> s) & 1)))
        .collect();
    bots.sort_unstable();
    for (bot, faulted) in bots {
        sqlx::query(
            "UPDATE bot_stats SET running = running - 1, games_done = games_done + 1, \
             games_faulted = games_faulted + $1, \
             clean_since_fault = CASE WHEN $1 = 1 THEN 0 ELSE clean_since_fault + 1 END \
             WHERE bot_id = $2",
        )
        .bind(faulted)
        .bind(bot)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// A running game with these seats was voided: it stops counting as running, and counts for
/// nothing else (its start still counts against the day's quota: the bot did play).
pub(super) async fn left(tx: &mut Transaction<'static, Any>, seats: [BotId; 4]) -> Result<()> {
    let mut bots = seats;
    bots.sort_unstable();
    for bot in bots {
        sqlx::query("UPDATE bot_stats SET running = running - 1 WHERE bot_id = $1")
            .bind(bot)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Every game in flight was voided: nothing runs.
pub(super) async fn none_running(tx: &mut Transaction<'static, Any>) -> Result<()> {
    sqlx::query("UPDATE bot_stats SET running = 0 WHERE running <> 0").execute(&mut **tx).await?;
    Ok(())
}

impl Store {
    /// Every bot's activity that has started a game, with the starts of the UTC day of `now`.
    pub async fn activity(&self, now: i64) -> Result<BTreeMap<BotId, Activity>> {
        self.activity_where(None, now).await
    }

    /// [`Store::activity`] of `bots` alone: what a game's end needs (its four seats' fault
    /// rates), without reading every bot's row for each game.
    pub async fn activity_of(&self, bots: &[BotId], now: i64) -> Result<BTreeMap<BotId, Activity>> {
        if bots.is_empty() {
            return Ok(BTreeMap::new());
        }
        self.activity_where(Some(bots), now).await
    }

    async fn activity_where(
        &self,
        bots: Option<&[BotId]>,
        now: i64,
    ) -> Result<BTreeMap<BotId, Activity>> {
        type Raw = (i64, i64, i64, i64, i64, Option<i64>, i64, i64);
        let filter = match bots {
            Some(bots) => {
                let places: Vec<String> = (1..=bots.len()).map(|n| format!("${n}")).collect();
                format!(" WHERE bot_id IN ({})", places.join(", "))
            }
            None => String::new(),
        };
        let sql = format!(
            "SELECT bot_id, running, games_done, games_faulted, clean_since_fault, last_played, \
             day, started_that_day FROM bot_stats{filter} ORDER BY bot_id"
        );
        // Safe: the text added is placeholders only; the ids are bound.
        let mut query = sqlx::query_as::<_, Raw>(sqlx::AssertSqlSafe(sql));
        for &bot in bots.unwrap_or_default() {
            query = query.bind(bot);
        }
        let rows = query.fetch_all(&self.pool).await?;
        let count = |v: i64| u32::try_from(v).unwrap_or(0);
        let today = day_of(now);
        Ok(rows
            .into_iter()
            .map(|(bot, running, done, faulted, clean, last, day, started)| {
                let a = Activity {
                    games_done: count(done),
                    games_faulted: count(faulted),
                    clean_since_fault: count(clean),
                    running: count(running),
                    started_today: if day == today { count(started) } else { 0 },
                    last_played: last,
                };
                (bot, a)
            })
            .collect())
    }
}
