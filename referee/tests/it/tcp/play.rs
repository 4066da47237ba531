//! Well-behaved bots over TCP: four TCP bots play a whole game, TCP and program seats share a
//! table, and the referee connects to a bot that listens.

use super::*;

// ---- well-behaved bots ---------------------------------------------------------------------

#[test]
fn four_tcp_bots_play_a_complete_game() {
    let _shared = shared();
    let s = Scratch::new("four");
    let mut referee = Referee::start(&s, &match_args(&s, 3, &["--bot", "tcp"]));
    let lobby = referee.lobby(4);
    assert_eq!(lobby.tokens.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [0, 1, 2, 3]);
    let mut bots: Vec<Proc> =
        (0..4).map(|p| Proc::python(&lobby.addr, lobby.token(p), &format!("py-tcp-{p}"))).collect();
    referee.finish().assert_ok("four TCP bots");

    let lines = check_record(&s.record(1));
    for p in 0..4 {
        let seat = seat_of(&lines[0], p);
        assert_eq!(seat["command"], json!(["tcp"]), "seat {p}: {seat}");
        assert_eq!(seat["name"], format!("py-tcp-{p}"), "each bot sits where its token says");
        assert!(seat["hello"].is_string(), "the handshake is recorded: {seat}");
    }
    assert!(all_faults(&lines).is_empty(), "{:?}", all_faults(&lines));
    assert!(!lines.iter().any(auto), "the fallback played for a connected bot");
    assert_eq!(lines.iter().filter(|l| l["type"] == "play").count(), 5 * 36);
    // Each bot got the match's `bye` and ended on its own.
    for b in &mut bots {
        b.assert_exits_ok();
    }
}

#[test]
fn tcp_and_program_seats_share_a_table() {
    let _shared = shared();
    let s = Scratch::new("mixed");
    let py = format!("python3 {}", quoted(Path::new(&heuristic_py())));
    let bots = ["--bot", "tcp:alice", "--bot", "builtin:random", "--bot", "tcp:bob", "--bot", &py];
    let mut extra = vec!["--games", "2"];
    extra.extend(bots);
    let mut referee = Referee::start(&s, &match_args(&s, 5, &extra));
    let lobby = referee.lobby(2);
    assert_eq!(lobby.tokens, [(0, "alice".to_string()), (2, "bob".to_string())]);
    let mut alice = Proc::python(&lobby.addr, "alice", "alice-bot");
    let mut bob = Proc::python(&lobby.addr, "bob", "bob-bot");
    let done = referee.finish();
    done.assert_ok("mixed table");
    assert!(done.stdout.contains("Match over: 2 games; "), "{}", done.stdout);

    for game in 1..=2 {
        let lines = check_record(&s.record(game));
        let header = &lines[0];
        let commands: Vec<&Value> = (0..4).map(|p| &seat_of(header, p)["command"]).collect();
        assert_eq!(commands[0], &json!(["tcp"]));
        assert_eq!(commands[1], &json!(["builtin:random"]));
        assert_eq!(commands[2], &json!(["tcp"]));
        assert_eq!(commands[3], &json!(["python3", heuristic_py()]));
        let names: Vec<&Value> = (0..4).map(|p| &seat_of(header, p)["name"]).collect();
        assert_eq!(
            names,
            [
                &json!("alice-bot"),
                &json!("builtin-random"),
                &json!("bob-bot"),
                &json!("py-heuristic")
            ]
        );
        // One connection per seat carries both games: the handshake is in game 1's header only.
        for p in 0..4 {
            assert_eq!(seat_of(header, p)["hello"].is_string(), game == 1, "game {game} seat {p}");
        }
        assert!(all_faults(&lines).is_empty(), "game {game}: {:?}", all_faults(&lines));
        assert!(!lines.iter().any(auto), "game {game}: the fallback played");
    }
    alice.assert_exits_ok();
    bob.assert_exits_ok();
}

#[test]
fn the_referee_connects_to_a_bot_that_listens() {
    let _shared = shared();
    let s = Scratch::new("listens");
    let relay = root().join("referee/tests/tcp_clients/listen_bot.py").display().to_string();
    let script = heuristic_py();
    // The bot in seat 2 also names a token: a bot the referee connects to needs none, and one
    // it sends is ignored.
    let mut listeners: Vec<(Proc, u16)> = [0, 2]
        .iter()
        .map(|p| {
            let name = format!("listener-{p}");
            let argv =
                ["python3", &relay, "python3", &script, "--name", &name, "--token", "ignored"];
            let mut proc_ = Proc::spawn(&argv, Stdio::piped());
            let mut port = String::new();
            BufReader::new(proc_.child.stdout.take().expect("stdout piped"))
                .read_line(&mut port)
                .expect("the listener prints its port");
            (proc_, port.trim().parse().unwrap_or_else(|e| panic!("port {port:?}: {e}")))
        })
        .collect();
    let seat = |i: usize| format!("tcp://127.0.0.1:{}", listeners[i].1);
    let (seat0, seat2) = (seat(0), seat(1));
    let bots =
        ["--bot", &seat0, "--bot", "builtin:random", "--bot", &seat2, "--bot", "builtin:random"];
    let mut extra = vec!["--games", "2"];
    extra.extend(bots);
    let mut referee = Referee::start(&s, &match_args(&s, 8, &extra));
    let done = referee.finish();
    done.assert_ok("bots that listen");
    assert!(!done.stdout.contains("Listening"), "no seat waits for a connecting bot");

    for game in 1..=2 {
        let lines = check_record(&s.record(game));
        for (p, addr) in [(0, &seat0), (2, &seat2)] {
            let header_seat = seat_of(&lines[0], p);
            assert_eq!(header_seat["command"], json!([addr]), "{header_seat}");
            assert_eq!(header_seat["name"], format!("listener-{p}"));
        }
        assert!(all_faults(&lines).is_empty(), "game {game}: {:?}", all_faults(&lines));
        assert!(!lines.iter().any(auto), "game {game}: the fallback played");
    }
    // One connection carried both games; the bots got `bye` and ended.
    for (l, _) in &mut listeners {
        l.assert_exits_ok();
    }
}
