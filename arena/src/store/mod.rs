//! The arena's database, the only module that holds SQL: SQLite or PostgreSQL (issue 28)
//! through one `sqlx::AnyPool`, with one migrations folder per engine (migrations/sqlite/,
//! migrations/postgres/, the same tables and columns). Every query is checked at run time
//! (`sqlx::query`), so building needs no live database, and is written once for both engines:
//! `$N` placeholders, `RETURNING`, `ON CONFLICT`, BIGINT integers for booleans and times; where
//! the engines differ (connection pragmas, migrations, write transactions, claiming a row, the
//! scheduler's lock) is `store/backend.rs`, and nowhere else.
//! Everything that must happen once (a deal scored, a game ended) is a conditional UPDATE in a
//! transaction, so a crash and a restart can neither lose nor double-count a result.

mod backend;
mod bots;
mod games;
mod index;
mod ladder;
mod queue;
mod ratings;
mod stats;
mod web;

pub use backend::{Backend, Claiming, Location, SchedulerLock};
pub use bots::{Bot, NewBot};
pub use games::{GameEnd, GameRow, GameStatus, NewGame};
pub use queue::{LeaseRow, LeaseState, QueuedDeal, Worker};
pub use ratings::{BoardKind, RatingRow, Snapshot};
pub use stats::{Activity, DAY_SECONDS, day_of};

use sqlx::AnyPool;
use std::fmt;
use std::path::Path;

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
    /// Another server took the scheduler's turn after this store's (spec/arena.md 8.4): the
    /// store's write transactions fail from then on.
    Superseded {
        /// This store's turn.
        mine: i64,
    },
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
            StoreError::Superseded { mine } => write!(
                f,
                "another server took over the scheduling after this one's turn {mine}: this \
                 one writes nothing more"
            ),
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
    pool: AnyPool,
    backend: Backend,
    /// The scheduler's turn this store took ([`Store::take_scheduling`]), shared by its
    /// clones; 0 until then, when its writes are not fenced.
    turn: std::sync::Arc<std::sync::atomic::AtomicI64>,
}

impl Store {
    /// Opens (creating if needed) the SQLite database file at `path` and brings its schema up
    /// to date.
    pub async fn open(path: &Path) -> Result<Store> {
        Store::connect(&Location::from(path)).await
    }

    /// Opens the database at `location` (a SQLite file is created if missing; a Postgres
    /// database must exist) and brings its schema up to date.
    pub async fn connect(location: &Location) -> Result<Store> {
        let (pool, backend) = backend::open(location).await?;
        Ok(Store { pool, backend, turn: Default::default() })
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
