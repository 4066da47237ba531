//! The arena's database, the only module that holds SQL. SQLite through `sqlx` with its
//! migrations (migrations/), in WAL mode with foreign keys on and a busy timeout; every query
//! is checked at run time (`sqlx::query`), so building needs no live database. The SQL is
//! written to be portable to PostgreSQL (issue 28): `$N` placeholders, `RETURNING`, `ON
//! CONFLICT`, integers for booleans and times; what is SQLite-only is said where it is used.
//! Everything that must happen once (a deal scored, a game ended) is a conditional UPDATE in a
//! transaction, so a crash and a restart can neither lose nor double-count a result.

mod bots;
mod games;
mod index;
mod ladder;
mod queue;
mod ratings;
mod stats;
mod web;

pub use bots::{Bot, NewBot};
pub use games::{GameEnd, GameRow, GameStatus, NewGame};
pub use queue::{LeaseRow, LeaseState, QueuedDeal, Worker};
pub use ratings::{BoardKind, RatingRow, Snapshot};
pub use stats::{Activity, DAY_SECONDS, day_of};

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// What went wrong with the database, in one line.
#[derive(Debug)]
pub enum StoreError {
    /// The database refused or failed a statement.
    Db(sqlx::Error),
    /// The migrations could not be applied.
    Migrate(sqlx::migrate::MigrateError),
    /// No random bits for a token.
    Random(getrandom::Error),
    /// A thing that was looked up does not exist.
    NotFound(String),
    /// The request contradicts what is stored (a name taken, a game already ended, a deal
    /// already scored).
    Conflict(String),
    /// A stored value is not one this version understands.
    Corrupt(String),
    /// The official board could not be fitted.
    Fit(crate::rating::batch::FitError),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Db(e) => write!(f, "database: {e}"),
            StoreError::Migrate(e) => write!(f, "database migration: {e}"),
            StoreError::Random(e) => write!(f, "no random bits for a token: {e}"),
            StoreError::NotFound(what) => write!(f, "not found: {what}"),
            StoreError::Conflict(what) => f.write_str(what),
            StoreError::Corrupt(what) => write!(f, "database holds a bad value: {what}"),
            StoreError::Fit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Db(e)
    }
}

/// Results of the store.
pub type Result<T> = std::result::Result<T, StoreError>;

/// An open arena database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

impl Store {
    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<Store> {
        // SQLite-only: the journal mode, synchronous level and foreign-key switch are pragmas
        // sqlx sets on each new connection; PostgreSQL has none of them.
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // In WAL mode NORMAL loses no committed transaction on a process kill, only
            // (possibly) the last ones on a power cut, and spares an fsync per commit.
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        // One writer at a time is all SQLite allows; a few connections let readers (the web
        // pages) run beside it.
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await?;
        MIGRATOR.run(&pool).await.map_err(StoreError::Migrate)?;
        Ok(Store { pool })
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Stored booleans are 0/1 integers, for PostgreSQL's sake as much as SQLite's.
fn flag(b: bool) -> i64 {
    i64::from(b)
}

#[cfg(test)]
mod tests;
