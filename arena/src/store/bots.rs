//! Authors and bots: creating an entrant (its plain token returned once, its hash kept),
//! finding it by token or by name, listing, pausing.

use super::{Result, Store, StoreError, flag};
use crate::BotId;
use crate::token::{Token, hash_token, hashes_equal};

/// A bot entrant as stored: one name and version of one author's bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bot {
    /// Its id.
    pub id: BotId,
    /// Its author's id.
    pub author_id: i64,
    /// Its author's name.
    pub author: String,
    /// The bot's name.
    pub name: String,
    /// Its version: a new version is a new entrant.
    pub version: String,
    /// When it was created (seconds since the epoch).
    pub created_at: i64,
    /// Why it may not play now, if it may not.
    pub paused_reason: Option<String>,
    /// One of the server's own bots.
    pub house: bool,
    /// Tables it may sit at at once.
    pub tables_at_once: u32,
    /// Games it may start in a day.
    pub games_per_day: u32,
    /// When it finished its qualifying games (`None`: still a newcomer).
    pub admitted_at: Option<i64>,
}

/// What `add_bot` needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewBot {
    /// The author's name; the author is created if it is new.
    pub author: String,
    /// The bot's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// One of the server's own bots.
    pub house: bool,
    /// Tables at once (at least 1).
    pub tables_at_once: u32,
    /// Games a day (at least 1).
    pub games_per_day: u32,
}

#[derive(sqlx::FromRow)]
struct BotRow {
    id: i64,
    author_id: i64,
    author: String,
    name: String,
    version: String,
    created_at: i64,
    paused_reason: Option<String>,
    house: i64,
    tables_at_once: i64,
    games_per_day: i64,
    admitted_at: Option<i64>,
    token_hash: Vec<u8>,
}

impl BotRow {
    fn into_bot(self) -> Bot {
        Bot {
            id: self.id,
            author_id: self.author_id,
            author: self.author,
            name: self.name,
            version: self.version,
            created_at: self.created_at,
            paused_reason: self.paused_reason,
            house: self.house != 0,
            tables_at_once: u32::try_from(self.tables_at_once).unwrap_or(1),
            games_per_day: u32::try_from(self.games_per_day).unwrap_or(1),
            admitted_at: self.admitted_at,
        }
    }
}

/// A bot's row with its author's name, followed by the rest of the statement (`concat!` keeps
/// it a `&'static str`, the only SQL sqlx runs without an assertion).
macro_rules! select_bot {
    ($tail:literal) => {
        concat!(
            "SELECT b.id, b.author_id, a.name AS author, b.name, b.version, b.created_at, ",
            "b.paused_reason, b.house, b.tables_at_once, b.games_per_day, b.admitted_at, b.token_hash ",
            "FROM bots b JOIN authors a ON a.id = b.author_id",
            $tail
        )
    };
}

impl Store {
    /// The id of the author called `name`, created now if there is none.
    pub async fn author(&self, name: &str, now: i64) -> Result<i64> {
        if name.trim().is_empty() {
            return Err(StoreError::Conflict("an author needs a name".into()));
        }
        sqlx::query(
            "INSERT INTO authors (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(sqlx::query_scalar("SELECT id FROM authors WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await?)
    }

    /// Creates a bot entrant (and its author if new) and returns it with its token: the only
    /// time the token exists in plain text.
    pub async fn add_bot(&self, new: &NewBot, now: i64) -> Result<(Bot, Token)> {
        if new.name.trim().is_empty() || new.version.trim().is_empty() {
            return Err(StoreError::Conflict("a bot needs a name and a version".into()));
        }
        if new.tables_at_once == 0 || new.games_per_day == 0 {
            return Err(StoreError::Conflict("a bot's quotas must be at least 1".into()));
        }
        let author_id = self.author(&new.author, now).await?;
        let token = Token::generate().map_err(StoreError::Random)?;
        let hash = token.hash();
        let inserted = sqlx::query_scalar::<_, i64>(
            "INSERT INTO bots (author_id, name, version, token_hash, created_at, house, \
             tables_at_once, games_per_day) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (name, version) DO NOTHING RETURNING id",
        )
        .bind(author_id)
        .bind(&new.name)
        .bind(&new.version)
        .bind(&hash[..])
        .bind(now)
        .bind(flag(new.house))
        .bind(i64::from(new.tables_at_once))
        .bind(i64::from(new.games_per_day))
        .fetch_optional(&self.pool)
        .await?;
        let Some(id) = inserted else {
            return Err(StoreError::Conflict(format!(
                "a bot named {} version {} exists already",
                new.name, new.version
            )));
        };
        let bot = self.bot(id).await?.ok_or_else(|| StoreError::NotFound(format!("bot {id}")))?;
        Ok((bot, token))
    }

    /// The bot with this id.
    pub async fn bot(&self, id: BotId) -> Result<Option<Bot>> {
        let sql = select_bot!(" WHERE b.id = $1");
        Ok(sqlx::query_as::<_, BotRow>(sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .map(BotRow::into_bot))
    }

    /// The bot a connecting client's token belongs to, if any.
    pub async fn bot_by_token(&self, presented: &str) -> Result<Option<Bot>> {
        let hash = hash_token(presented);
        let sql = select_bot!(" WHERE b.token_hash = $1");
        let row =
            sqlx::query_as::<_, BotRow>(sql).bind(&hash[..]).fetch_optional(&self.pool).await?;
        // The index found the row by hash; comparing again in constant time costs nothing and
        // keeps the check independent of how the database compares blobs.
        Ok(row.filter(|r| hashes_equal(&r.token_hash, &hash)).map(BotRow::into_bot))
    }

    /// The bot with this name and version.
    pub async fn bot_by_name(&self, name: &str, version: &str) -> Result<Option<Bot>> {
        let sql = select_bot!(" WHERE b.name = $1 AND b.version = $2");
        Ok(sqlx::query_as::<_, BotRow>(sql)
            .bind(name)
            .bind(version)
            .fetch_optional(&self.pool)
            .await?
            .map(BotRow::into_bot))
    }

    /// Every entrant, oldest first.
    pub async fn bots(&self) -> Result<Vec<Bot>> {
        let sql = select_bot!(" ORDER BY b.id");
        let rows = sqlx::query_as::<_, BotRow>(sql).fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(BotRow::into_bot).collect())
    }

    /// Admits a newcomer to the ladder (it finished its qualifying games); an admitted bot
    /// keeps its first admission time.
    pub async fn admit(&self, bot: BotId, now: i64) -> Result<()> {
        sqlx::query("UPDATE bots SET admitted_at = $1 WHERE id = $2 AND admitted_at IS NULL")
            .bind(now)
            .bind(bot)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Pauses a bot with the reason it is told (`Some`), or lets it play again (`None`).
    pub async fn set_paused(&self, bot: BotId, reason: Option<&str>) -> Result<()> {
        let done = sqlx::query("UPDATE bots SET paused_reason = $1 WHERE id = $2")
            .bind(reason)
            .bind(bot)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("bot {bot}")));
        }
        Ok(())
    }
}
