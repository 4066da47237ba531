//! Everything in which SQLite and PostgreSQL differ, in one place (issue 28): which database a
//! `--database` names, how a connection is set up (SQLite's pragmas), which migrations run, how
//! a write transaction begins, how a queued row is claimed (`FOR UPDATE SKIP LOCKED` on
//! Postgres; SQLite has one writer, so its claim is the plain query in a write transaction), and
//! the scheduler's lock (a Postgres advisory lock on a connection of its own; a lock file beside
//! a SQLite database). Every other module runs the same SQL on both through one `AnyPool`.

use super::{Result, Store, StoreError};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyConnection, AnyPool, Connection, Transaction};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Once;

/// Which database engine a store runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// Where the arena's database is: what `--db FILE`, `--database URL` or `DATABASE_URL` names.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (a plain path, or a `sqlite:` URL), created if missing.
    Sqlite(PathBuf),
    /// A PostgreSQL database, as a `postgres://` or `postgresql://` URL.
    Postgres(String),
}

impl Location {
    /// Reads a `--database` value: a `postgres://` or `postgresql://` URL is PostgreSQL; a
    /// `sqlite:` URL, or anything else (a path), is a SQLite file.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Location::Postgres(text.to_string());
        }
        let path = text.strip_prefix("sqlite://").or_else(|| text.strip_prefix("sqlite:"));
        // Query parameters (`?mode=rwc`) are the store's to choose, not the path's.
        let path = path.map_or(text, |p| p.split('?').next().unwrap_or(p));
        Location::Sqlite(PathBuf::from(path))
    }

    /// The engine it names.
    pub fn backend(&self) -> Backend {
        match self {
            Location::Sqlite(_) => Backend::Sqlite,
            Location::Postgres(_) => Backend::Postgres,
        }
    }

    fn url(&self) -> Result<String> {
        match self {
            Location::Postgres(url) => Ok(url.clone()),
            Location::Sqlite(path) => {
                let text = path.to_str().ok_or_else(|| {
                    StoreError::Corrupt(format!("{}: not a UTF-8 path", path.display()))
                })?;
                // The path part of sqlx's SQLite URL is percent-decoded, and `?` would start
                // its parameters.
                let encoded = text.replace('%', "%25").replace('?', "%3F").replace('#', "%23");
                Ok(format!("sqlite://{encoded}?mode=rwc"))
            }
        }
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Location {
        Location::Sqlite(path.to_path_buf())
    }
}

impl fmt::Display for Location {
    // A Postgres URL may hold a password: it is never shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&hide_password(url)),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({self})")
    }
}

/// `postgres://user:secret@host/db` as `postgres://user:***@host/db`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}{tail}")
        }
        _ => url.to_string(),
    }
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Opens a pool on `location` with the engine's connection settings and runs its migrations.
pub(super) async fn open(location: &Location) -> Result<(AnyPool, Backend)> {
    static DRIVERS: Once = Once::new();
    DRIVERS.call_once(sqlx::any::install_default_drivers);
    let options = AnyConnectOptions::from_str(&location.url()?)?;
    let backend = location.backend();
    // One connection first, alone: a server that refuses or is not there is said at once, in
    // its own words, where the pool would retry until its timeout and say only that.
    AnyConnection::connect_with(&options).await?.close().await?;
    let pool = match backend {
        // One writer at a time is all SQLite allows; a few connections let readers (the web
        // pages) run beside it. The pragmas are set on each new connection: WAL, so readers
        // never block the writer; NORMAL, which in WAL mode loses no committed transaction on
        // a process kill (only, possibly, the last ones on a power cut) and spares an fsync
        // per commit; foreign keys, which SQLite leaves off; and a busy timeout instead of an
        // immediate "database is locked" when another process writes.
        Backend::Sqlite => {
            AnyPoolOptions::new()
                .max_connections(4)
                .after_connect(|conn, _| {
                    Box::pin(async move {
                        for pragma in [
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = NORMAL",
                            "PRAGMA foreign_keys = ON",
                            "PRAGMA busy_timeout = 5000",
                        ] {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                        Ok(())
                    })
                })
                .connect_with(options)
                .await?
        }
        // Postgres serves many writers; the web pages' readers and the scheduler's writes
        // share these.
        Backend::Postgres => AnyPoolOptions::new().max_connections(8).connect_with(options).await?,
    };
    let migrator = match backend {
        Backend::Sqlite => &SQLITE_MIGRATIONS,
        Backend::Postgres => &POSTGRES_MIGRATIONS,
    };
    migrator.run(&pool).await.map_err(StoreError::Migrate)?;
    Ok((pool, backend))
}

/// The two spellings of a statement that claims rows: as written (SQLite, whose single writer
/// already serialises claims inside a write transaction) and with `FOR UPDATE SKIP LOCKED`
/// (Postgres, where two servers' transactions would otherwise both read the same row before
/// either updates it). Built by [`claiming!`](crate::claiming), picked by [`Store::claiming`].
#[derive(Clone, Copy, Debug)]
pub struct Claiming {
    /// The statement for SQLite.
    pub sqlite: &'static str,
    /// The statement for Postgres.
    pub postgres: &'static str,
}

/// A `SELECT` that picks rows to claim (it must end where a locking clause may follow, e.g.
/// after `ORDER BY id LIMIT $1`), in both spellings: see [`Claiming`].
#[macro_export]
macro_rules! claiming {
    ($select:literal) => {
        $crate::store::Claiming {
            sqlite: $select,
            postgres: concat!($select, " FOR UPDATE SKIP LOCKED"),
        }
    };
}

impl Store {
    /// Which engine this store runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A transaction that will write. SQLite's `BEGIN IMMEDIATE` takes the write lock at once:
    /// a deferred transaction that reads first can fail to upgrade when another writer got in
    /// between. Postgres locks row by row.
    ///
    /// Once the store took the scheduler's turn, the transaction first checks that the turn
    /// is still its own, and fails with [`StoreError::Superseded`] if another server took one
    /// since.
    pub async fn begin_write(&self) -> Result<Transaction<'static, Any>> {
        let mut tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        };
        let mine = self.turn.load(std::sync::atomic::Ordering::Acquire);
        if mine != 0 {
            // FOR SHARE on Postgres: a successor's turn waits for this transaction to end (and
            // voids what it wrote), or this one waits for the turn and reads it; on SQLite the
            // write lock taken above already orders them.
            let sql = Claiming {
                sqlite: "SELECT turn FROM scheduling WHERE id = 1",
                postgres: "SELECT turn FROM scheduling WHERE id = 1 FOR SHARE",
            };
            let turn: i64 = sqlx::query_scalar(self.claiming(sql)).fetch_one(&mut *tx).await?;
            if turn != mine {
                tx.rollback().await?;
                return Err(StoreError::Superseded { mine });
            }
        }
        Ok(tx)
    }

    /// Takes the scheduler's next turn, for a server that holds the scheduler's lock, before
    /// anything else it writes: from then on this store's write transactions fail once another
    /// server takes a turn after it (spec/arena.md 8.4). The turn taken.
    pub async fn take_scheduling(&self) -> Result<i64> {
        let turn: i64 =
            sqlx::query_scalar("UPDATE scheduling SET turn = turn + 1 WHERE id = 1 RETURNING turn")
                .fetch_one(&self.pool)
                .await?;
        self.turn.store(turn, std::sync::atomic::Ordering::Release);
        Ok(turn)
    }

    /// The last scheduler's turn taken on this database: how many times a server began to
    /// schedule on it (0: never).
    pub async fn scheduling_turn(&self) -> Result<i64> {
        Ok(sqlx::query_scalar("SELECT turn FROM scheduling WHERE id = 1")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The spelling of a claiming statement for this engine (run it inside
    /// [`Store::begin_write`]'s transaction).
    pub fn claiming(&self, statement: Claiming) -> &'static str {
        match self.backend {
            Backend::Sqlite => statement.sqlite,
            Backend::Postgres => statement.postgres,
        }
    }
}

/// The scheduler's lock: held by at most one server per database, for as long as the value
/// lives (and the process: a killed holder's lock is freed by the operating system, or by
/// Postgres when its connection drops).
pub struct SchedulerLock {
    held: Held,
}

enum Held {
    // Never read: holding the open file is holding its lock.
    File(#[expect(dead_code, reason = "holding the file is the lock")] std::fs::File),
    Session(AnyConnection),
}

impl fmt::Debug for SchedulerLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.held {
            Held::File(_) => "lock file",
            Held::Session(_) => "advisory lock",
        };
        write!(f, "SchedulerLock({kind})")
    }
}

/// The advisory lock's key: one per database, chosen once ("ALUETTE" in ASCII).
const ADVISORY_KEY: i64 = 0x0041_4c55_4554_5445;

impl SchedulerLock {
    /// Takes the scheduler's lock on `location` if no other server holds it; `None` if one
    /// does. Postgres: `pg_try_advisory_lock` on a connection of its own, kept open. SQLite:
    /// an exclusive `flock` of the file `DB.scheduler` beside the database.
    pub async fn try_take(location: &Location) -> Result<Option<SchedulerLock>> {
        match location {
            Location::Postgres(url) => {
                let mut conn = AnyConnection::connect(url).await?;
                // A holder whose machine dies sends no goodbye: the server's TCP keepalives
                // (for this session only) find its socket dead within half a minute and end
                // the session, lock and all, where the system's default waits two hours.
                for setting in [
                    "SET tcp_keepalives_idle = 10",
                    "SET tcp_keepalives_interval = 5",
                    "SET tcp_keepalives_count = 3",
                ] {
                    sqlx::query(setting).execute(&mut conn).await?;
                }
                let won: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                    .bind(ADVISORY_KEY)
                    .fetch_one(&mut conn)
                    .await?;
                if won {
                    Ok(Some(SchedulerLock { held: Held::Session(conn) }))
                } else {
                    conn.close().await?;
                    Ok(None)
                }
            }
            Location::Sqlite(path) => {
                let mut name = path.clone().into_os_string();
                name.push(".scheduler");
                let lock_path = PathBuf::from(name);
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&lock_path)
                    .map_err(|e| {
                        StoreError::Conflict(format!("cannot open {}: {e}", lock_path.display()))
                    })?;
                match file.try_lock() {
                    Ok(()) => Ok(Some(SchedulerLock { held: Held::File(file) })),
                    Err(std::fs::TryLockError::WouldBlock) => Ok(None),
                    Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Conflict(format!(
                        "cannot lock {}: {e}",
                        lock_path.display()
                    ))),
                }
            }
        }
    }

    /// Whether the lock is still held: a Postgres session can be cut (a restarted server, a
    /// network fault), and with it the lock. A lock file stays locked while the process lives.
    pub async fn holds(&mut self) -> bool {
        match &mut self.held {
            Held::File(_) => true,
            // A partitioned network would hold a ping for minutes: five seconds is an answer.
            Held::Session(conn) => {
                let ping = tokio::time::timeout(std::time::Duration::from_secs(5), conn.ping());
                matches!(ping.await, Ok(Ok(())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_is_named_by_a_path_or_a_url() {
        assert_eq!(Location::parse("arena.db"), Location::Sqlite("arena.db".into()));
        assert_eq!(Location::parse("sqlite:a/b.db"), Location::Sqlite("a/b.db".into()));
        assert_eq!(
            Location::parse("sqlite:///tmp/x.db?mode=rwc"),
            Location::Sqlite("/tmp/x.db".into())
        );
        let pg = "postgresql://u@localhost:5432/arena";
        assert_eq!(Location::parse(pg), Location::Postgres(pg.into()));
        assert_eq!(Location::parse(pg).backend(), Backend::Postgres);
        assert_eq!(Location::parse("x.db").backend(), Backend::Sqlite);
    }

    #[test]
    fn a_password_is_never_shown() {
        let loc = Location::parse("postgres://arena:s3cret@db:5432/arena?sslmode=disable");
        assert_eq!(loc.to_string(), "postgres://arena:***@db:5432/arena?sslmode=disable");
        assert!(!format!("{loc:?}").contains("s3cret"));
        let plain = Location::parse("postgres://arena@db/arena");
        assert_eq!(plain.to_string(), "postgres://arena@db/arena");
    }

    #[test]
    fn a_sqlite_path_is_escaped_in_its_url() {
        let url = Location::Sqlite("/tmp/a?b#c%d.db".into()).url().unwrap();
        assert_eq!(url, "sqlite:///tmp/a%3Fb%23c%25d.db?mode=rwc");
    }
}
