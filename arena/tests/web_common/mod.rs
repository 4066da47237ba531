//! What the web tests share: a scratch folder, a hand-rolled HTTP/1.1 client over a tokio
//! `TcpStream` (one request per connection, as a browser's first visit makes it), and the
//! real arena server (`serve::run`, house bots only, fast clocks) with its web pages.

#![allow(dead_code, unreachable_pub)]

use aluette_arena::serve::{Settings, run};
use aluette_arena::store::{GameEnd, NewBot, NewGame, Store};
use aluette_arena::web::{Announce, Options, limit::Rate};
use aluette_referee::Stop;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The admin token the tests' arenas are given.
pub const ADMIN: &str = "0123456789abcdef0123456789abcdef";

/// A bot name that is markup: every page must show it escaped.
pub const HOSTILE: &str = "<script>alert(1)</script>";

/// A folder removed when the test ends.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("aluette-arena-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

fn dechunk(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol]).unwrap().split(';').next().unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[eol + 2 + size + 2..];
    }
    out
}

/// Sends one request and reads the whole answer (the server closes: `Connection: close`).
pub async fn request(addr: SocketAddr, head: &str, body: &str) -> Answer {
    request_to(addr, &addr.to_string(), head, body).await
}

/// [`request`], naming `host` in its `Host`.
pub async fn request_to(addr: SocketAddr, host: &str, head: &str, body: &str) -> Answer {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{head}\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Answer { status, headers, body: String::from_utf8(body).unwrap() }
}

pub async fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, &format!("GET {path} HTTP/1.1"), "").await
}

pub async fn get_with(addr: SocketAddr, path: &str, header: &str) -> Answer {
    request(addr, &format!("GET {path} HTTP/1.1\r\n{header}"), "").await
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                char::from(b).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

pub async fn post_form(addr: SocketAddr, path: &str, fields: &[(&str, &str)]) -> Answer {
    let body: Vec<String> =
        fields.iter().map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v))).collect();
    let head = format!(
        "POST {path} HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nOrigin: http://{addr}"
    );
    request(addr, &head, &body.join("&")).await
}

/// What the tests set up: a bot named [`HOSTILE`], a bot whose games-a-day quota (1) is spent,
/// and the one game they played today, done while its deal's other table still plays (so its
/// deal is not scored and its seed not published: its viewer must refuse). The game is made
/// with the server already running: a server that starts scores every deal none of whose tables
/// is in flight, voiding those a previous run left.
pub struct Before {
    pub hostile: i64,
    pub hostile_token: String,
    pub spent_token: String,
    pub unpublished_game: i64,
    /// The unpublished game's four bots.
    pub seats: [i64; 4],
    /// The four at its deal's other table, which never ends.
    pub others: [i64; 4],
}

pub async fn prepare(db: &Path) -> Before {
    let store = Store::open(db).await.unwrap();
    let now = aluette_arena::serve::now();
    let mk = |author: &'static str, name: &'static str, per_day: u32| {
        let store = store.clone();
        async move {
            let new = NewBot {
                author: author.into(),
                name: name.into(),
                version: "\"v1\" & <b>".into(),
                house: false,
                tables_at_once: 2,
                games_per_day: per_day,
            };
            store.add_bot(&new, now).await.unwrap()
        }
    };
    let (hostile, hostile_token) = mk("<i>mallory</i>", HOSTILE, 2000).await;
    let (spent, spent_token) = mk("quota", "spent", 1).await;
    let (f1, _) = mk("filler-a", "filler-a", 100).await;
    let (f2, _) = mk("filler-b", "filler-b", 100).await;
    let mut others = [0; 4];
    for (k, name) in ["filler-c", "filler-d", "filler-e", "filler-f"].into_iter().enumerate() {
        others[k] = mk(name, name, 100).await.0.id;
    }
    store.close().await;
    Before {
        hostile: hostile.id,
        hostile_token: hostile_token.as_str().to_string(),
        spent_token: spent_token.as_str().to_string(),
        unpublished_game: 0,
        seats: [hostile.id, spent.id, f1.id, f2.id],
        others,
    }
}

impl Before {
    /// Plays the unpublished game into the database at `db`, beside the running server: its
    /// deal's second table starts and never ends.
    pub async fn play_unpublished(&mut self, db: &Path) {
        let store = Store::open(db).await.unwrap();
        let now = aluette_arena::serve::now();
        let deal = store.new_deal(0x5eed_0001, now).await.unwrap();
        let new = NewGame { deal, table_no: 0, seats: self.seats, orientation: 0 };
        let game = store.add_game(&new).await.unwrap();
        store.start_game(game, Some("no-such-record.jsonl"), now).await.unwrap();
        let end = GameEnd { points02: 3, points13: 1, fault_seats: 0, record_path: None };
        store.end_game(game, &end, now).await.unwrap();
        let other = NewGame { deal, table_no: 1, seats: self.others, orientation: 1 };
        let other = store.add_game(&other).await.unwrap();
        store.start_game(other, None, now).await.unwrap();
        store.close().await;
        self.unpublished_game = game;
    }
}

/// The real arena, house bots only, with its web pages.
pub struct Arena {
    pub web: SocketAddr,
    pub stop: Stop,
    pub task: tokio::task::JoinHandle<Result<(), String>>,
}

pub async fn start(dir: &Scratch) -> Arena {
    start_keeping(dir, None).await
}

/// [`start`], with the records kept in the object store at `record_store`.
pub async fn start_keeping(dir: &Scratch, record_store: Option<String>) -> Arena {
    let (announce, web) = Announce::channel();
    let settings = Settings {
        db: dir.join("arena.db"),
        records: dir.join("records"),
        record_store,
        listen: "127.0.0.1:0".into(),
        answer_ms: 40,
        bank_ms: 400,
        handshake_ms: 5_000,
        deals_at_once: 2,
        refit_every: Duration::from_millis(0),
        web: Some("127.0.0.1:0".into()),
        web_options: Options {
            admin_token: Some(ADMIN.into()),
            rate: Rate { burst: 100_000.0, per_second: 1_000.0 },
            announce,
            // The server gives its web pages its door itself.
            bots: None,
            public_hosts: Vec::new(),
            records: None,
            trusted_proxies: Vec::new(),
        },
        ..Settings::default()
    };
    let stop = Stop::new();
    let task = tokio::spawn(run(settings, stop.clone(), None));
    let web = tokio::time::timeout(Duration::from_secs(60), web).await.unwrap().unwrap();
    Arena { web, stop, task }
}

impl Arena {
    /// Lets the games in play end, and waits for the server to return.
    pub async fn finish(self) {
        self.stop.finish();
        self.task.await.unwrap().unwrap();
    }
}

/// Waits until a game can be watched (its deal's last table ended) and the official board
/// has rows; returns that game's id. The house plays on meanwhile.
pub async fn a_viewable_game(web: SocketAddr) -> i64 {
    for _ in 0..3000 {
        let games = get(web, "/api/games").await.json();
        let viewable = games["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["viewable"] == true)
            .map(|g| g["id"].as_i64().unwrap());
        let board = get(web, "/api/leaderboard").await.json();
        let rated = !board["official"]["rows"].as_array().unwrap().is_empty();
        if let (Some(id), true) = (viewable, rated) {
            return id;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no game could be watched after five minutes of house play");
}
