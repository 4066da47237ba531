//! The referee as a library (issue 25): one table of four seats of four kinds, a program, a TCP
//! connection the test accepted itself, a built-in bot and an in-process player, playing two
//! games through the public API; the records it writes replay with the `referee` binary.

use crate::harness::{Scratch, py_heuristic, referee_ok, rust_bot_path, s};
use aluette_referee::protocol::msg::{FromBot, ToBot};
use aluette_referee::{Config, Connection, Game, Player, Seat, Status, Table};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Plays the first card of its hand and discards the six it received (legal under the default
/// free discard); counts the questions it answered.
struct FirstCard(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Player for FirstCard {
    fn answer(&mut self, msg: ToBot, _asked: Instant) -> Option<FromBot> {
        let answer = match msg {
            ToBot::Hello { id, .. } => FromBot::Hello {
                id,
                name: "first-card".into(),
                version: "1".into(),
                author: None,
                protocol: None,
                token: None,
                features: vec![],
            },
            ToBot::Opening { id, vote, .. } => {
                FromBot::Opening { id, accept: vote.then_some(true), signals: vec![] }
            }
            ToBot::Discard { id, received, .. } => {
                FromBot::Discard { id, cards: received, signals: vec![] }
            }
            ToBot::Play { id, hand, .. } => FromBot::Play { id, card: hand[0], signals: vec![] },
            _ => return None,
        };
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(answer)
    }
}

#[test]
fn a_table_of_a_program_a_tcp_connection_a_builtin_and_an_in_process_player_plays_two_games() {
    let tmp = Scratch::new("library");
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let outcomes = rt.block_on(async {
        let config = Config::default().answer_ms(2_000).bot_logs(tmp.path());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        // The Rust sample bot, as a bot author runs it against a server.
        let mut tcp_bot = Command::new(rust_bot_path())
            .args(["--connect", &addr, "--token", "s3cret", "--name", "over-tcp"])
            .stdin(Stdio::null())
            .spawn()
            .expect("the Rust sample bot starts (cargo build --workspace --bins)");
        let (stream, _) = listener.accept().await.unwrap();
        let conn = Connection::accept(stream, &config).await;
        assert_eq!(conn.refused(), None);
        assert_eq!((conn.name(), conn.token()), ("over-tcp", Some("s3cret")));
        let seats = [
            Seat::parse(&py_heuristic()).unwrap(),
            Seat::from(conn),
            Seat::builtin("heuristic").unwrap(),
            Seat::player("first", FirstCard(answered.clone())),
        ];
        let mut table = Table::open(&config, seats).await;
        assert!(table.not_playing().is_empty(), "{:?}", table.not_playing());
        let mut outcomes = Vec::new();
        for game_no in 1..=2 {
            let path = tmp.join(&format!("game-{game_no}.jsonl"));
            let game = Game::of_match(table.config(), 11, game_no).record_to(&path);
            outcomes.push((table.play(game).await.unwrap(), path));
        }
        // A record that exists already is the referee's own error, and no game is played.
        let again = Game::of_match(table.config(), 11, 1).record_to(&outcomes[0].1);
        let refused = table.play(again).await.unwrap_err();
        assert!(refused.contains("game-1.jsonl"), "{refused}");
        table.close("match over").await;
        let _ = tcp_bot.wait();
        outcomes
    });
    for (game, (outcome, path)) in outcomes.iter().enumerate() {
        let s_ = &outcome.summary;
        assert_eq!(s_.status, Status::Complete, "game {}", game + 1);
        assert!(s_.faults.is_empty(), "game {}: {:?}", game + 1, s_.faults);
        assert_eq!(s_.names[1], "over-tcp");
        assert_eq!(s_.names[3], "first-card");
        assert!(s_.deals.len() >= 5, "{:?}", s_.deals);
        // Game 2's first dealer passes round the table, as `referee match` deals it.
        assert_eq!(s_.deals[0].dealer.index(), game);
        let record = std::fs::read_to_string(path).unwrap();
        assert!(!record.contains("s3cret"), "a token is a credential: records never name it");
        let replayed = referee_ok(&["replay", s(path)]);
        assert!(replayed.contains("over-tcp"), "{replayed}");
    }
    assert!(answered.load(std::sync::atomic::Ordering::Relaxed) >= 2 * 5 * 9);
    // The program seat's stderr went where the configuration said.
    assert!(tmp.join("player0.stderr.log").exists());
}

/// The door the arena opens: bots join with tokens the caller maps to seats; a token it does not
/// know is refused, and a second connection naming a seat that has its bot is refused too.
#[test]
fn a_door_seats_the_bots_whose_token_the_caller_admits_and_refuses_the_others() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let config = Config::default().handshake_ms(3_000);
        let admit = |token: &str| match token {
            "alpha-token" => Some("A".to_string()),
            "beta-token" => Some("B".to_string()),
            _ => None,
        };
        let door = aluette_referee::Door::bind("127.0.0.1:0", &config, 8, 4, admit).await.unwrap();
        let addr = door.addr().to_string();
        let bot = |token: &str, name: &str| {
            Command::new(rust_bot_path())
                .args(["--connect", &addr, "--token", token, "--name", name])
                .stdin(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let alpha = bot("alpha-token", "alpha");
        let beta = bot("beta-token", "beta");
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        while door.waiting() != ["A", "B"] {
            assert!(Instant::now() < deadline, "waiting: {:?}", door.waiting());
            door.changed(std::time::Duration::from_millis(200)).await;
        }
        // Both refused bots are told why and leave: their exit is the proof.
        let stranger = bot("gamma-token", "stranger");
        let twin = bot("alpha-token", "twin");
        for (refused, why) in [(stranger, "unknown seat token"), (twin, "already in use")] {
            let out = tokio::task::spawn_blocking(move || refused.wait_with_output().unwrap())
                .await
                .unwrap();
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(said.contains(why), "{said}");
        }
        assert_eq!(door.waiting(), ["A", "B"]);
        let a = door.take("A").await.expect("alpha waits");
        let b = door.take("B").await.expect("beta waits");
        assert!(door.take("A").await.is_none(), "a seat's bot is taken once");
        let seats = [
            Seat::from(a),
            Seat::builtin("random").unwrap(),
            Seat::from(b),
            Seat::builtin("random").unwrap(),
        ];
        let mut table = Table::open(&config, seats).await;
        let outcome = table.play(Game::new(3)).await.unwrap();
        assert_eq!(outcome.summary.status, Status::Complete);
        assert!(outcome.summary.faults.is_empty(), "{:?}", outcome.summary.faults);
        assert_eq!([&outcome.summary.names[0][..], &outcome.summary.names[2]], ["alpha", "beta"]);
        table.close("match over").await;
        door.close("arena closed").await;
        for mut child in [alpha, beta] {
            assert!(child.wait().unwrap().success());
        }
    });
}

/// A bot that reached the caller another way (the arena's WebSocket join adapts a socket to
/// bytes) enters through the same door: greeted, admitted by its token or refused.
#[test]
fn a_stream_handed_to_the_door_is_admitted_as_a_connection_is() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let config = Config::default().handshake_ms(3_000);
        let admit = |token: &str| (token == "alpha-token").then(|| "A".to_string());
        let door = aluette_referee::Door::bind("127.0.0.1:0", &config, 8, 4, admit).await.unwrap();
        let peer: std::net::SocketAddr = "127.0.0.1:9".parse().unwrap();
        let piped = |token: &str| {
            let mut child = tokio::process::Command::new(rust_bot_path())
                .args(["--token", token, "--name", "piped"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            let (r, w) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
            door.enter(r, w, peer);
            child
        };
        // Refused, the stranger is told `bye` and ends; an admitted bot would wait for a game.
        let stranger = piped("wrong-token");
        let ended =
            tokio::time::timeout(std::time::Duration::from_secs(20), stranger.wait_with_output());
        assert!(ended.await.is_ok(), "the stranger was not refused");
        assert!(door.waiting().is_empty());
        let _alpha = piped("alpha-token");
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        while door.waiting() != ["A"] {
            assert!(Instant::now() < deadline, "waiting: {:?}", door.waiting());
            door.changed(std::time::Duration::from_millis(200)).await;
        }
        let a = door.take("A").await.unwrap();
        assert_eq!(a.name(), "piped");
        let random = || Seat::builtin("random").unwrap();
        let mut table = Table::open(&config, [random(), Seat::from(a), random(), random()]).await;
        let outcome = table.play(Game::new(5)).await.unwrap();
        assert!(outcome.summary.faults.is_empty(), "{:?}", outcome.summary.faults);
        assert_eq!(outcome.summary.names[1], "piped");
        table.close("match over").await;
    });
}
