//! The `arena admin` commands run as a user runs them: the token is printed once and works,
//! is nowhere in the database files in plain text, and bad input is one line and a failure;
//! the database is named by `--db`, `--database` or `DATABASE_URL`, a SQLite file or PostgreSQL.

// The binary under test is not a bot: it is run directly, not through referee::bot::process.
#![allow(clippy::disallowed_methods)]

use aluette_arena::store::Store;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/pg.rs"]
mod pg;

fn arena(args: &[&str]) -> Output {
    arena_with(args, None)
}

/// `arena ARGS` with `DATABASE_URL` set to `database_url`, or unset.
fn arena_with(args: &[&str], database_url: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arena"));
    command.args(args).env_remove("DATABASE_URL");
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    command.output().expect("the arena binary runs")
}

/// One line on stderr starting `arena: `, and a failure.
fn one_line_failure(out: &Output) -> String {
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("arena: "), "{stderr}");
    stderr
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

struct TempDb(PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

fn temp_db(name: &str) -> TempDb {
    TempDb(std::env::temp_dir().join(format!("aluette-arena-cli-{}-{name}.db", std::process::id())))
}

fn contains(path: &Path, needle: &str) -> bool {
    std::fs::read(path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

#[test]
fn add_bot_prints_a_working_token_that_is_stored_only_hashed() {
    let db = temp_db("add");
    let path = db.0.to_str().unwrap();
    let out = arena(&[
        "admin", "add-bot", "--db", path, "--author", "ada", "--name", "lovelace", "--tables", "3",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let token =
        stdout.lines().find_map(|l| l.strip_prefix("token ")).expect("a token line").to_string();
    assert_eq!(token.len(), 32);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let bot = runtime.block_on(async {
        let store = Store::open(&db.0).await.unwrap();
        let bot = store.bot_by_token(&token).await.unwrap();
        store.close().await;
        bot
    });
    let bot = bot.expect("the printed token finds the bot");
    assert_eq!((bot.name.as_str(), bot.version.as_str(), bot.tables_at_once), ("lovelace", "1", 3));
    for suffix in ["", "-wal"] {
        assert!(!contains(Path::new(&format!("{path}{suffix}")), &token), "token in plain text");
    }
    let list = arena(&["admin", "list", "--db", path]);
    assert!(list.status.success());
    assert!(text(&list.stdout).contains("lovelace"));
    assert!(!text(&list.stdout).contains(&token));
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let db = temp_db("bad");
    let path = db.0.to_str().unwrap();
    assert!(
        arena(&["admin", "add-bot", "--db", path, "--author", "ada", "--name", "x"])
            .status
            .success()
    );
    for args in [
        vec!["admin", "add-bot", "--db", path, "--author", "ada", "--name", "x"],
        vec!["admin", "pause", "--db", path, "--name", "nobody", "--reason", "r"],
        vec!["admin", "pause", "--db", path, "--name", "x", "--reason", " "],
        vec!["admin", "unpause", "--db", path, "--name", "x", "--version", "9"],
        // A record store this build cannot reach: refused before anything listens.
        vec!["serve", "--db", path, "--listen", "127.0.0.1:0", "--record-store", "ftp://h/x"],
        vec!["serve", "--db", path, "--listen", "127.0.0.1:0", "--record-store", "not a url"],
    ] {
        let out = arena(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("arena: "), "{stderr}");
    }
    let paused = arena(&["admin", "pause", "--db", path, "--name", "x", "--reason", "timeouts"]);
    assert!(paused.status.success());
    assert!(text(&arena(&["admin", "list", "--db", path]).stdout).contains("paused: timeouts"));
    assert!(arena(&["admin", "unpause", "--db", path, "--name", "x"]).status.success());
    assert!(text(&arena(&["admin", "list", "--db", path]).stdout).contains("active"));
}

#[test]
fn the_database_is_named_by_db_by_database_or_by_database_url() {
    let db = temp_db("named");
    let path = db.0.to_str().unwrap();
    let sqlite_url = format!("sqlite:{path}");
    let add = ["admin", "add-bot", "--database", &sqlite_url, "--author", "ada", "--name", "x"];
    assert!(arena(&add).status.success(), "a sqlite: URL is a file");
    assert!(db.0.exists());
    let listed = arena_with(&["admin", "list"], Some(path));
    assert!(text(&listed.stdout).contains(" x "), "DATABASE_URL names the same file");
    // A flag wins over the environment.
    let elsewhere = temp_db("elsewhere");
    let listed = arena_with(&["admin", "list", "--db", elsewhere.0.to_str().unwrap()], Some(path));
    assert!(!text(&listed.stdout).contains(" x "));
    let none = one_line_failure(&arena(&["admin", "list"]));
    assert!(none.contains("DATABASE_URL"), "{none}");
    one_line_failure(&arena(&["admin", "list", "--db", path, "--database", path]));
    // A server that is not there is said at once, its password not at all.
    let url = "postgres://arena:s3cret@127.0.0.1:1/arena";
    let refused = one_line_failure(&arena(&["admin", "list", "--database", url]));
    assert!(!refused.contains("s3cret") && refused.contains("arena:***@"), "{refused}");
}

#[test]
fn the_admin_commands_run_on_postgres() {
    let Some(db) = pg::fresh("cli") else { return };
    let url = db.url.as_str();
    let out = arena(&["admin", "add-bot", "--database", url, "--author", "ada", "--name", "x"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let token =
        text(&out.stdout).lines().find_map(|l| l.strip_prefix("token ")).unwrap().to_string();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let bot = runtime.block_on(async {
        let store = Store::connect(&aluette_arena::store::Location::parse(url)).await.unwrap();
        let bot = store.bot_by_token(&token).await.unwrap();
        store.close().await;
        bot
    });
    assert_eq!(bot.expect("the printed token finds the bot").name, "x");
    one_line_failure(&arena(&[
        "admin",
        "add-bot",
        "--database",
        url,
        "--author",
        "ada",
        "--name",
        "x",
    ]));
    let paused = arena_with(&["admin", "pause", "--name", "x", "--reason", "timeouts"], Some(url));
    assert!(paused.status.success(), "{}", text(&paused.stderr));
    assert!(text(&arena_with(&["admin", "list"], Some(url)).stdout).contains("paused: timeouts"));
}

/// The CA file that environment variable `var` names: scripts/test.sh makes them beside the
/// server it names in `ARENA_TEST_POSTGRES`, so a test given that server fails without them.
fn test_ca(var: &str) -> String {
    std::env::var(var).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{var} is not set: scripts/test.sh sets it beside ARENA_TEST_POSTGRES")
    })
}

#[test]
fn postgres_is_reached_over_tls_and_a_server_the_ca_did_not_sign_is_refused() {
    let Some(db) = pg::fresh("tls") else { return };
    let (ca, stranger) =
        (test_ca("ARENA_TEST_POSTGRES_CA"), test_ca("ARENA_TEST_POSTGRES_STRANGER_CA"));
    // The server's certificate names localhost and 127.0.0.1; the password (the server trusts
    // local connections, so none is needed) must never be printed.
    let url = db.url.replacen("postgres@", "postgres:s3cret@", 1);
    let verified = |ca: &str, host: &str| {
        format!("{}?sslmode=verify-full&sslrootcert={ca}", url.replacen("127.0.0.1", host, 1))
    };
    for (host, name) in [("127.0.0.1", "by-address"), ("localhost", "by-name")] {
        let url = verified(&ca, host);
        let out =
            arena(&["admin", "add-bot", "--database", &url, "--author", "ada", "--name", name]);
        assert!(out.status.success(), "{host}: {}", text(&out.stderr));
    }
    let listed = text(&arena_with(&["admin", "list"], Some(&verified(&ca, "localhost"))).stdout);
    assert!(listed.contains("by-address") && listed.contains("by-name"), "{listed}");
    // A certificate no CA given signed: the connection is refused before any query, in one line.
    let refused = one_line_failure(&arena(&[
        "admin",
        "list",
        "--database",
        &verified(&stranger, "localhost"),
    ]));
    assert!(refused.to_lowercase().contains("certificate"), "{refused}");
    assert!(!refused.contains("s3cret"), "{refused}");
}
