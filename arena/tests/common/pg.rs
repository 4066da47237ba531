//! A fresh PostgreSQL database for one test, on the server `ARENA_TEST_POSTGRES` names (a URL
//! to a database the test may `CREATE DATABASE` from; scripts/test.sh starts a throwaway
//! cluster and sets it). Each test gets a database of its own, so tests run in parallel. With
//! no server named the test says it is skipped, unless `ARENA_REQUIRE_POSTGRES=1`, when it
//! fails: CI can never skip them silently. Shared by the integration tests (tests/common/) and
//! the store's unit tests (through `#[path]`).

#![allow(dead_code)]

use sqlx::{Connection, PgConnection};
use std::sync::atomic::{AtomicU32, Ordering};

/// A database created for one test; dropped (with its connections) when the test passes.
pub(crate) struct PgDb {
    /// Its URL.
    pub(crate) url: String,
    admin: String,
    name: String,
}

/// A new empty database for the test `test`, or `None` (said on stderr) when no server is
/// configured; panics when one is required (`ARENA_REQUIRE_POSTGRES=1`) and none is given.
pub(crate) fn fresh(test: &str) -> Option<PgDb> {
    let required = std::env::var("ARENA_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    let Some(admin) = std::env::var("ARENA_TEST_POSTGRES").ok().filter(|v| !v.is_empty()) else {
        assert!(
            !required,
            "{test}: ARENA_REQUIRE_POSTGRES=1 but ARENA_TEST_POSTGRES names no server \
             (scripts/test.sh starts one)"
        );
        // Straight to the process's stderr, past the test harness's capture (which shows a
        // passing test's output to nobody): a skip is seen in every run.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "{test}: skipped on PostgreSQL: ARENA_TEST_POSTGRES is not set"
        );
        return None;
    };
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let stem: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .take(32)
        .collect();
    let name = format!("aluette_{stem}_{}_{n}", std::process::id());
    let url = with_database(&admin, &name);
    run_sql(&admin, &format!("CREATE DATABASE {name}"))
        .unwrap_or_else(|e| panic!("{test}: cannot create database {name}: {e}"));
    Some(PgDb { url, admin, name })
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for inspection: database {}", self.name);
            return;
        }
        // FORCE: a server killed by the test may have left a session behind.
        let _ =
            run_sql(&self.admin, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// `url` with its database (the path) replaced by `name`, its parameters kept.
pub(crate) fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let start = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[start..].find('/').map_or(base.len(), |i| start + i);
    let mut out = format!("{}/{name}", &base[..host_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// Runs one statement on `url`, on a thread and runtime of its own (callers may be inside a
/// runtime already, or in `Drop`).
fn run_sql(url: &str, sql: &str) -> Result<(), String> {
    let (url, sql) = (url.to_string(), sql.to_string());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async {
            let mut conn = PgConnection::connect(&url).await.map_err(|e| e.to_string())?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await
                .map_err(|e| e.to_string())?;
            conn.close().await.map_err(|e| e.to_string())
        })
    })
    .join()
    .map_err(|_| "the SQL thread panicked".to_string())?
}
