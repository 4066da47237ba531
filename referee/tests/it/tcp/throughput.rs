//! Throughput: games per second over TCP and over stdio, run alone so the other tests' processes
//! do not skew the figures.

use super::*;

// ---- throughput ----------------------------------------------------------------------------

/// The games of a finished match: their number and the time they took together (the records'
/// `duration_ms`, so bot start-up and connections are left out).
fn game_time(s: &Scratch, dir: &str) -> (u32, Duration) {
    let mut games = 0;
    let mut ms = 0;
    for entry in std::fs::read_dir(s.join(dir)).expect("the records folder") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let lines = jsonl(&path);
            let footer = lines.last().expect("a footer");
            assert_eq!(footer["status"], "complete", "{}", path.display());
            ms += footer["duration_ms"].as_u64().expect("duration_ms");
            games += 1;
        }
    }
    (games, Duration::from_millis(ms))
}

#[test]
fn games_per_second_over_tcp_and_stdio() {
    let bot = rust_bot_path().display().to_string();
    // Alone: the figures are not shared with the other tests' processes.
    let _alone = EXCLUSIVE.write().unwrap_or_else(PoisonError::into_inner);
    let s = Scratch::new("throughput");
    let records = |name: &str| s.join(name).display().to_string();
    let (tcp_dir, stdio_dir) = (records("tcp"), records("stdio"));
    let common = ["match", "--seed", "21", "--games", "20", "--connect-wait-ms", CONNECT_WAIT_MS];

    let mut args = common.to_vec();
    args.extend(["--records", &tcp_dir, "--bot", "tcp"]);
    let mut referee = Referee::start(&s, &args);
    let lobby = referee.lobby(4);
    let mut bots: Vec<Proc> = (0..4)
        .map(|p| {
            let argv =
                [bot.as_str(), "--random", "--connect", &lobby.addr, "--token", lobby.token(p)];
            Proc::spawn(&argv, Stdio::null())
        })
        .collect();
    let tcp = referee.finish();
    tcp.assert_ok("TCP throughput");
    for b in &mut bots {
        b.assert_exits_ok();
    }

    let stdio_bot = format!("{} --random", quoted(Path::new(&bot)));
    let mut args = common.to_vec();
    args.extend(["--records", &stdio_dir, "--bot", &stdio_bot]);
    let stdio = Referee::start(&s, &args).finish();
    stdio.assert_ok("stdio throughput");

    let (tcp_games, tcp_time) = game_time(&s, "tcp");
    let (stdio_games, stdio_time) = game_time(&s, "stdio");
    assert_eq!((tcp_games, stdio_games), (20, 20));
    let rate = |games: u32, d: Duration| f64::from(games) / d.as_secs_f64().max(1e-3);
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    // Measured, not asserted: a shared machine makes any threshold flaky.
    println!(
        "tcp: {:.1} games/s, stdio: {:.1} games/s (20 games each, random Rust sample bots, \
         {profile} build, time in games)",
        rate(tcp_games, tcp_time),
        rate(stdio_games, stdio_time)
    );
    println!(
        "whole runs including the referee's and bots' start-up: tcp {:.1} games/s ({:?}), \
         stdio {:.1} games/s ({:?})",
        rate(tcp_games, tcp.elapsed),
        tcp.elapsed,
        rate(stdio_games, stdio.elapsed),
        stdio.elapsed
    );
}

/// Issue 12: a fixed 64 KiB check in the decoder overrode `--max-line-bytes`, over TCP as over
/// pipes. In the lobby too the configured limit is the one limit: a 70,000-byte `hello` answer
/// claims its seat under `--max-line-bytes 100000`, and is refused under the default.
#[test]
fn the_lobby_reads_lines_up_to_the_configured_limit() {
    let long_hello = || {
        let hello =
            json!({"type": "hello", "id": 1, "name": "long", "version": "1", "token": "alice"});
        let hello = hello.to_string();
        let pad = " ".repeat(70_000 - hello.len());
        format!("{}{pad}}}\n", &hello[..hello.len() - 1])
    };
    let mut t = alice_table("long-hello", 21, &["--max-line-bytes", "100000"]);
    let mut c = Client::connect(&t.lobby.addr);
    assert_eq!(c.recv().expect("hello")["type"], "hello");
    c.stream.write_all(long_hello().as_bytes()).expect("send the hello answer");
    c.play_out();
    t.referee.finish().assert_ok("a long hello");
    assert_seat0_played_cleanly(&t.s, "long");
    drop(t);

    let t = alice_table("long-hello-default", 22, &[]);
    let mut c = Client::connect(&t.lobby.addr);
    assert_eq!(c.recv().expect("hello")["type"], "hello");
    c.stream.write_all(long_hello().as_bytes()).expect("send the hello answer");
    c.drain();
    // The referee may close before reading the rest of the line, and a close with unread bytes
    // can reset the connection before its `bye` is read; when it is read, it says why.
    if let Some(bye) = c.bye() {
        assert!(bye.contains("line_too_long"), "{bye}");
    }
    t.a_good_bot_plays_cleanly("a long hello refused");
}
