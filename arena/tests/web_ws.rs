//! A bot joins the arena over a WebSocket (`/ws/bot`, spec/arena.md 8.1): the Rust sample bot
//! speaking on stdin/stdout, its lines carried to and from a real WebSocket by this test, plays
//! its games like a TCP bot; a stranger's token over the same route is refused with a `bye`.

#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::store::{GameStatus, Store};
use common::{Scratch, add_bot, bot_bin, rt};
use futures_util::{SinkExt as _, StreamExt as _};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
use tokio_tungstenite::tungstenite::Message;

/// `arena serve --web` on free ports; the process and the web address.
fn serve_web(dir: &Scratch, handshake_ms: &str) -> (common::Proc, String) {
    let mut child = Command::new(common::arena_bin())
        .args(["serve", "--db", dir.join("arena.db").to_str().unwrap()])
        .args(["--records", dir.join("records").to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .args(["--web", "127.0.0.1:0", "--answer-ms", "500", "--handshake-ms", handshake_ms])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let proc_ = common::Proc(child);
    let web = loop {
        let line = lines.next().expect("the arena prints its web address").unwrap();
        if let Some(url) = line.strip_prefix("arena: web pages at http://") {
            break url.trim().trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (proc_, web)
}

#[test]
fn a_bot_joins_over_a_websocket_and_plays_and_a_stranger_is_refused() {
    let dir = Scratch::new("web-ws");
    let db = dir.join("arena.db");
    let token = add_bot(&db, "ws-author", "over-ws", 1);
    let (_server, web) = serve_web(&dir, "10000");
    let url = format!("ws://{web}/ws/bot");
    rt().block_on(async {
        // A stranger: the door greets it, then refuses its token.
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let hello = ws.next().await.unwrap().unwrap().into_text().unwrap();
        assert!(hello.contains("\"type\":\"hello\""), "{hello}");
        let id: u64 = hello.split("\"id\":").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        let answer = format!(
            "{{\"type\":\"hello\",\"id\":{id},\"name\":\"x\",\"version\":\"1\",\"token\":\"not-a-token\"}}"
        );
        ws.send(Message::text(answer)).await.unwrap();
        let bye = loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => break t.to_string(),
                Some(Ok(_)) => continue,
                other => panic!("no bye: {other:?}"),
            }
        };
        assert!(bye.contains("\"type\":\"bye\"") && bye.contains("unknown seat token"), "{bye}");

        // The bot: the sample bot's stdin/stdout carried over the WebSocket.
        let (ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let (mut to_server, mut from_server) = ws.split();
        let mut child = tokio::process::Command::new(bot_bin())
            .args(["--token", &token, "--name", "over-ws"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let store = Store::open(&db).await.unwrap();
        let me = store.bot_by_name("over-ws", "1").await.unwrap().unwrap().id;
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut played = 0;
        while played < 3 {
            assert!(Instant::now() < deadline, "the bot over the WebSocket played {played} games");
            tokio::select! {
                msg = from_server.next() => match msg {
                    Some(Ok(Message::Text(t))) => {
                        stdin.write_all(format!("{t}\n").as_bytes()).await.unwrap();
                    }
                    Some(Ok(_)) => {}
                    other => panic!("the server closed the bot's socket: {other:?}"),
                },
                line = stdout.next_line() => {
                    let line = line.unwrap().expect("the bot is still talking");
                    to_server.send(Message::text(line)).await.unwrap();
                }
                () = tokio::time::sleep(Duration::from_millis(200)) => {
                    let games = store.recent_games(u32::MAX).await.unwrap();
                    played = games
                        .iter()
                        .filter(|g| g.status == GameStatus::Done && g.seats.contains(&me))
                        .count();
                }
            }
        }
        // Its games are fault-free: the WebSocket carried every line whole.
        let games = store.recent_games(u32::MAX).await.unwrap();
        for g in games.iter().filter(|g| g.status == GameStatus::Done && g.seats.contains(&me)) {
            let seat = g.seats.iter().position(|&b| b == me).unwrap();
            assert_eq!(g.fault_seats & (1 << seat), 0, "game {} faulted the bot", g.id);
        }
        store.close().await;
    });
}

/// Strangers on the WebSocket route meet the lobby's limits: a socket that never answers its
/// hello is closed at the handshake's deadline, a message longer than a line ends its socket,
/// and of a flood of silent sockets from one address no more than the door's pending places
/// are held: the rest are turned away at once (the rate limit's 429, or the lobby's `bye`).
#[test]
fn strangers_on_the_websocket_route_are_bounded() {
    let dir = Scratch::new("web-ws-strangers");
    rt().block_on(async {
        let (server, web) = serve_web(&dir, "1000");
        let url = format!("ws://{web}/ws/bot");
        let (mut silent, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let started = Instant::now();
        let ended = tokio::time::timeout(Duration::from_secs(15), async {
            while let Some(Ok(m)) = silent.next().await {
                if m.is_close() {
                    break;
                }
            }
        });
        assert!(ended.await.is_ok(), "a silent socket outlived the handshake deadline");
        assert!(started.elapsed() >= Duration::from_millis(900), "closed before its deadline");

        let (mut long, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let _hello = long.next().await.unwrap().unwrap();
        let line = "x".repeat(aluette_referee::protocol::MAX_LINE_BYTES + 10);
        let _ = long.send(Message::text(line)).await;
        let ended = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(Ok(_)) = long.next().await {}
        });
        assert!(ended.await.is_ok(), "a message longer than a line did not end its socket");
        drop(server);

        let (_server, web) = serve_web(&dir, "30000");
        let url = format!("ws://{web}/ws/bot");
        // Each attempt is turned away by the web server's rate limit (429), or upgraded and then
        // either refused by the lobby (`bye`) or held silent in one of its pending places.
        let mut flood = Vec::new();
        let mut refused = 0;
        for _ in 0..100 {
            match tokio_tungstenite::connect_async(&url).await {
                Ok((ws, _)) => flood.push(ws),
                Err(tokio_tungstenite::tungstenite::Error::Http(r)) if r.status() == 429 => {
                    refused += 1
                }
                Err(e) => panic!("{e}"),
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        for ws in &mut flood {
            let first = tokio::time::timeout(Duration::from_millis(20), ws.next()).await;
            if let Ok(Some(Ok(Message::Text(t)))) = first
                && t.contains("\"type\":\"bye\"")
            {
                refused += 1;
            }
        }
        assert!(refused >= 100 - 64, "only {refused} of 100 silent sockets were turned away");
    });
}
