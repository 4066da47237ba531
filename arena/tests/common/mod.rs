//! What the arena's end-to-end tests share: a scratch folder, the database a test runs on (a
//! SQLite file, or a fresh PostgreSQL database: see pg.rs), the arena server and the Rust
//! sample bot as real processes (killed when the test ends, passed or not), and the database
//! read through the arena's own store.

#![allow(dead_code)]

mod pg;

use aluette_arena::BotId;
use aluette_arena::rating::{batch, boards};
use aluette_arena::store::{BoardKind, GameRow, GameStatus, Location, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A folder of its own for one test, removed when the test passes.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("aluette-arena-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub(crate) fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            eprintln!("kept for inspection: {}", self.0.display());
        }
    }
}

/// The database a test runs on.
pub(crate) enum Db {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database of the test's own.
    Postgres(pg::PgDb),
}

impl Db {
    /// The file `arena.db` in the test's folder.
    pub(crate) fn sqlite(dir: &Scratch) -> Db {
        Db::Sqlite(dir.join("arena.db"))
    }

    /// A fresh Postgres database for the test `test`; `None` (the test is skipped, and says
    /// so) when no server is configured and none is required.
    pub(crate) fn postgres(test: &str) -> Option<Db> {
        pg::fresh(test).map(Db::Postgres)
    }

    /// What `--database` is given.
    pub(crate) fn arg(&self) -> String {
        match self {
            Db::Sqlite(path) => path.display().to_string(),
            Db::Postgres(db) => db.url.clone(),
        }
    }

    pub(crate) fn location(&self) -> Location {
        Location::parse(&self.arg())
    }

    /// The store on it (the test's reading side), opened on its own runtime.
    pub(crate) fn open(&self) -> Store {
        rt().block_on(Store::connect(&self.location())).unwrap()
    }
}

/// The flags that name a database to `arena`.
pub(crate) trait DbArgs {
    fn db_args(&self) -> [String; 2];
}

impl DbArgs for Path {
    fn db_args(&self) -> [String; 2] {
        ["--db".into(), self.display().to_string()]
    }
}

impl DbArgs for PathBuf {
    fn db_args(&self) -> [String; 2] {
        self.as_path().db_args()
    }
}

impl DbArgs for Db {
    fn db_args(&self) -> [String; 2] {
        ["--database".into(), self.arg()]
    }
}

/// A child process killed (and reaped) when dropped.
pub(crate) struct Proc(pub(crate) Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// Sends `signal` (SIGINT, SIGKILL, ...) to the process.
    pub(crate) fn signal(&self, signal: i32) {
        let pid = self.0.id().to_string();
        let _ = Command::new("kill").args([format!("-{signal}").as_str(), &pid]).status();
    }

    /// Waits at most `limit` for the process to end; its exit status.
    pub(crate) fn wait_for(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the process did not end within {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

pub(crate) fn arena_bin() -> &'static str {
    env!("CARGO_BIN_EXE_arena")
}

/// The Rust sample bot, built by `cargo build --workspace --bins` beside the arena binary.
pub(crate) fn bot_bin() -> PathBuf {
    let dir = Path::new(arena_bin()).parent().unwrap();
    let bot = dir.join("aluette-bot");
    assert!(
        bot.exists(),
        "{} is missing: run `cargo build --workspace --locked --bins`",
        bot.display()
    );
    bot
}

/// Creates a bot with `arena admin add-bot`; its token.
pub(crate) fn add_bot<D: DbArgs + ?Sized>(db: &D, author: &str, name: &str, tables: u32) -> String {
    let out = Command::new(arena_bin())
        .args(["admin", "add-bot"])
        .args(db.db_args())
        .args(["--author", author])
        .args(["--name", name, "--tables", &tables.to_string()])
        // A test plays more games in minutes than a bot's default day allows.
        .args(["--games-per-day", "1000000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text.lines()
        .find_map(|l| l.strip_prefix("token "))
        .expect("add-bot prints the token")
        .trim()
        .to_string()
}

/// Starts `arena serve` on a free port on `dir`'s SQLite file; the process and the address
/// bots connect to.
pub(crate) fn serve(dir: &Scratch, extra: &[&str]) -> (Proc, String) {
    serve_on(dir, &Db::sqlite(dir), extra)
}

/// Starts `arena serve` on a free port on `db`; the process and the address bots connect to.
pub(crate) fn serve_on(dir: &Scratch, db: &Db, extra: &[&str]) -> (Proc, String) {
    let (proc_, lines) = start(dir, db, "records", "arena", extra);
    let addr = loop {
        let line = lines.recv().expect("the arena prints where bots connect");
        if let Some(addr) = line.strip_prefix("arena: bots connect to ") {
            break addr.trim().to_string();
        }
    };
    (proc_, addr)
}

/// Starts `arena serve` on a free port on `db`, its records in `dir/records`, its stderr in
/// `dir/log.stderr.log`; the process and its stdout's lines (read on a thread, so the server
/// never blocks on a full pipe).
pub(crate) fn start(
    dir: &Scratch,
    db: &Db,
    records: &str,
    log: &str,
    extra: &[&str],
) -> (Proc, mpsc::Receiver<String>) {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(&format!("{log}.stderr.log")))
        .unwrap();
    let mut child = Command::new(arena_bin())
        .arg("serve")
        .args(db.db_args())
        .args(["--records", dir.join(records).to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // The receiver may be gone: the rest is drained all the same.
            let _ = tx.send(line);
        }
    });
    (Proc(child), rx)
}

/// A Rust sample bot connected to `addr` with `token`; `args` picks its strength.
pub(crate) fn bot(addr: &str, token: &str, name: &str, args: &[&str], log: &Path) -> Proc {
    let err = std::fs::File::create(log).unwrap();
    Proc(
        Command::new(bot_bin())
            .args(["--connect", addr, "--token", token, "--name", name])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap(),
    )
}

/// The runtime the tests drive the store's async API on: one for the whole test binary, so a
/// pool's Postgres connections (whose sockets belong to the runtime that opened them) outlive
/// each call; a worker thread of its own keeps them served between calls.
pub(crate) fn rt() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
    })
}

/// What every finished arena must hold: no bot dealt a deal twice, every finished game's record
/// replays, every scored deal counted once, and the boards a function of the comparisons.
pub(crate) fn check_stored(store: &Store, games: &[GameRow]) {
    let mut dealt: BTreeMap<BotId, BTreeSet<i64>> = BTreeMap::new();
    for g in games.iter().filter(|g| g.status != GameStatus::Void) {
        for b in g.seats {
            assert!(
                dealt.entry(b).or_default().insert(g.deal),
                "bot {b} was dealt deal {} twice",
                g.deal
            );
        }
    }
    let mut replayed = 0;
    for g in games.iter().filter(|g| g.status == GameStatus::Done) {
        let path = g.record_path.as_deref().expect("a finished game has its record");
        aluette_referee::check_record(std::path::Path::new(path))
            .unwrap_or_else(|e| panic!("game {}'s record does not replay: {e}", g.id));
        replayed += 1;
    }
    assert!(replayed > 0);
    let comparisons: Vec<_> =
        rt().block_on(store.comparisons()).unwrap().into_iter().map(|(_, c)| c).collect();
    let mut per_deal: BTreeMap<i64, usize> = BTreeMap::new();
    for c in &comparisons {
        *per_deal.entry(c.deal).or_default() += 1;
        let void = games.iter().any(|g| g.deal == c.deal && g.status == GameStatus::Void);
        let done =
            games.iter().filter(|g| g.deal == c.deal && g.status == GameStatus::Done).count();
        assert!(done >= 2 || void, "deal {} compared with {done} finished tables", c.deal);
    }
    // Two tables: one comparison per side, never more.
    assert!(per_deal.values().all(|&n| n <= 2), "a deal counted twice: {per_deal:?}");
    let house: Vec<BotId> =
        rt().block_on(store.bots()).unwrap().iter().filter(|b| b.house).map(|b| b.id).collect();
    let (live, official) = boards(&comparisons, &house, &batch::Config::default()).unwrap();
    let stored = |k| rt().block_on(store.latest_snapshot(k)).unwrap().expect("a board").rows;
    assert_eq!(official, stored(BoardKind::Official), "the official board is its recompute");
    assert_eq!(live, stored(BoardKind::Live), "the live board is its recompute");
}
