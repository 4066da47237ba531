//! Faults over the network: silent connections, wrong tokens, a second connection for a seat in
//! play, a drop mid-game, a half-sent line, a slow sender, the lobby's caps, a seat nobody takes;
//! and the referee bugs found while writing these tests.

use super::*;

// ---- faults over the network ---------------------------------------------------------------

#[test]
fn a_silent_connection_is_dropped_and_the_seat_stays_open() {
    let t = alice_table("silent", 11, &["--handshake-ms", "500"]);

    let start = Instant::now();
    let mut silent = Client::connect(&t.lobby.addr);
    let hello = silent.recv().expect("hello");
    assert_eq!(hello["time_ms"], 500, "{hello}");
    silent.drain();
    let dropped = start.elapsed();
    assert!(
        dropped >= Duration::from_millis(450) && dropped < Duration::from_secs(3),
        "dropped after {dropped:?}, want about 500 ms"
    );
    let bye = silent.bye().expect("the silent connection is told why it is dropped");
    assert!(bye.contains("handshake"), "{bye}");
    t.a_good_bot_plays_cleanly("silent connection");
}

#[test]
fn a_wrong_or_missing_token_is_refused_and_the_seat_stays_open() {
    let t = alice_table("wrong-token", 12, &[]);
    let addr = &t.lobby.addr;
    let hello = |extra: Value| {
        let mut h = json!({"type": "hello", "id": 1, "name": "stranger", "version": "1"});
        h.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
        h
    };
    refused(addr, hello(json!({"token": "mallory"})), "unknown seat token");
    refused(addr, hello(json!({})), "no seat token");
    // The right token with the wrong protocol version is refused by the handshake itself.
    refused(addr, hello(json!({"token": "alice", "protocol": 2})), "protocol 2");
    t.a_good_bot_plays_cleanly("wrong tokens");
}

/// A second connection with the token of a seat in play is refused, at once however often it
/// tries: a right token is never a strike (spec/protocol.md 8.1). Eight refusals in a row would
/// wait 7.75 s for their `bye`s if they were.
#[test]
fn a_second_connection_for_a_seat_in_play_is_refused_and_never_delayed() {
    let mut t = alice_table("token-in-use", 13, &[]);
    // The seat's bot holds its first question until the intruder has been turned away.
    let first = hold_first_question(&t.lobby.addr, "first");
    first.in_play.recv_timeout(WAIT).expect("the game starts");
    let start = Instant::now();
    for _ in 0..8 {
        refused(
            &t.lobby.addr,
            json!({"type": "hello", "id": 1, "name": "intruder", "version": "1", "token": "alice"}),
            "already in use",
        );
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(4), "{took:?}: the refusals were delayed as strikes");
    first.go.send(()).expect("the first bot waits");

    t.referee.finish().assert_ok("token in use");
    let first = first.bot.join().expect("the first bot");
    assert_eq!(first.bye(), Some("match over"), "the first bot played to the end");
    assert_seat0_played_cleanly(&t.s, "first");
}

#[test]
fn a_disconnect_mid_game_is_replaced_and_the_bot_may_come_back() {
    let _shared = shared();
    let s = Scratch::new("disconnect");
    let (mut referee, lobby) = two_tcp_seats(&s, 14, ["alice", "carol"], &["--games", "2"]);
    // Carol answers after 20 ms: game 1 lasts about a second, time enough for alice to come back
    // before game 2.
    let carol = steady(&lobby.addr, "carol", "carol", Duration::from_millis(20));

    answer_five_and_drop(&lobby.addr, "quitter", &[]);
    // The same token may connect again and plays from the next game.
    let (mut phoenix, _) = until_not_refused(&lobby.addr, "phoenix", &[], |_| true);
    assert_eq!(phoenix.kinds()[..2], ["hello", "game"], "the reconnected bot waits for game 2");
    phoenix.play_out();
    assert_eq!(phoenix.bye(), Some("match over"));

    referee.finish().assert_ok("disconnect");
    carol.join().expect("carol");

    let game1 = check_record(&s.record(1));
    only_fault(&game1, 0, "disconnected", "replaced");
    let mine = answers(&game1, 0);
    assert!(mine[..5].iter().all(|a| !auto(a)), "the first five answers were the bot's");
    assert!(mine[5..].iter().all(|a| auto(a)), "the fallback plays the rest of the game");
    assert!(faults(&game1, 2).is_empty(), "{:?}", faults(&game1, 2));

    let game2 = check_record(&s.record(2));
    let seat0 = seat_of(&game2[0], 0);
    assert_eq!(seat0["name"], "phoenix", "{seat0}");
    assert!(seat0["hello"].is_string(), "a new connection: its handshake is recorded");
    assert!(all_faults(&game2).is_empty(), "{:?}", all_faults(&game2));
    assert!(!answers(&game2, 0).iter().any(|a| auto(a)));
}

#[test]
fn a_half_sent_line_then_close_is_disconnected() {
    let mut t = alice_table("half-line", 15, &[]);
    let mut c = Client::connect(&t.lobby.addr);
    c.handshake("halfway", Some("alice"));
    let question = c.answer_some(3).expect("a fourth question");
    let line = answer(&question).expect("a question").to_string();
    let half = &line.as_bytes()[..line.len() / 2];
    c.stream.write_all(half).expect("send half a line");
    // A clean end of the stream (FIN), after which the client still reads what comes.
    c.stream.shutdown(Shutdown::Write).expect("shutdown");
    c.drain();

    t.referee.finish().assert_ok("half-sent line");
    let lines = check_record(&t.s.record(1));
    let f = only_fault(&lines, 0, "disconnected", "replaced");
    let detail = f["detail"].as_str().unwrap_or("");
    assert!(detail.contains("half-sent line"), "{detail}");
    assert!(detail.contains(&format!("{} bytes", half.len())), "{detail}");
    assert!(answers(&lines, 0)[3..].iter().all(|a| auto(a)));
}

#[test]
fn a_slow_sender_times_out_without_stalling_the_table() {
    let _shared = shared();
    let s = Scratch::new("slow");
    let clocks = ["--answer-ms", "300", "--bank-ms", "200"];
    let (mut referee, lobby) = two_tcp_seats(&s, 16, ["slow", "steady"], &clocks);
    let steady = steady(&lobby.addr, "steady", "steady", Duration::ZERO);

    // Each answer leaves one byte every 100 ms: a 40-byte answer takes 4 s, far beyond the
    // 300 ms + 200 ms bank.
    let addr = lobby.addr.clone();
    let slow = thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.handshake("slow", Some("slow"));
        'conversation: while let Some(msg) = c.recv() {
            let Some(a) = answer(&msg) else { continue };
            for byte in format!("{a}\n").bytes() {
                if c.stream.write_all(&[byte]).is_err() {
                    break 'conversation;
                }
                thread::sleep(Duration::from_millis(100));
            }
        }
    });

    let done = referee.finish();
    done.assert_ok("slow sender");
    // Waiting out the slow answers would take several seconds per question.
    assert!(done.elapsed < Duration::from_secs(15), "the match took {:?}", done.elapsed);
    steady.join().expect("steady");
    slow.join().expect("slow");

    let lines = check_record(&s.record(1));
    let f = faults(&lines, 0);
    assert_eq!(f.first().map(|f| &f["kind"]), Some(&json!("timeout")), "{f:?}");
    assert!(
        f.iter().all(|f| ["timeout", "stale_id"].contains(&f["kind"].as_str().unwrap_or(""))),
        "{f:?}"
    );
    // The other TCP seat answered every question itself, in time.
    assert!(faults(&lines, 2).is_empty(), "{:?}", faults(&lines, 2));
    assert!(!answers(&lines, 2).iter().any(|a| auto(a)));
}

#[test]
fn pending_connections_are_capped() {
    let t = alice_table("pending", 17, &["--max-pending", "2", "--handshake-ms", "1000"]);
    let start = Instant::now();
    let mut idle: Vec<Client> = (0..5).map(|_| Client::connect(&t.lobby.addr)).collect();
    let first: Vec<String> = idle
        .iter_mut()
        .map(|c| {
            c.recv()
                .map_or("end of input".into(), |m| m["type"].as_str().unwrap_or("?").to_string())
        })
        .collect();
    assert_eq!(first, ["hello", "hello", "bye", "bye", "bye"]);
    for c in &mut idle[2..] {
        // Refused at once, long before the pending ones time out, and then closed.
        assert!(
            start.elapsed() < Duration::from_millis(900),
            "refused after {:?}",
            start.elapsed()
        );
        let bye = c.bye().unwrap_or("");
        assert!(bye.contains("too many pending connections"), "{bye}");
        c.drain();
        assert_eq!(c.kinds(), ["bye"]);
    }
    for c in &mut idle[..2] {
        c.drain();
        assert!(c.bye().is_some_and(|b| b.contains("handshake")), "{:?}", c.got);
    }
    assert!(start.elapsed() >= Duration::from_millis(900), "dropped after {:?}", start.elapsed());
    t.a_good_bot_plays_cleanly("pending connections");
}

#[test]
fn a_seat_nobody_connects_to_is_no_start() {
    let _shared = shared();
    let s = Scratch::new("nobody");
    let args = ["--connect-wait-ms", "1000", "--bot", "tcp:alice", "--bot", "builtin:random"];
    let mut referee = Referee::start(&s, &match_args(&s, 18, &args));
    referee.lobby(1);
    let done = referee.finish();
    done.assert_ok("nobody connects");
    assert!(done.elapsed >= Duration::from_millis(1000), "waited only {:?}", done.elapsed);

    let lines = check_record(&s.record(1));
    let f0 = only_fault(&lines, 0, "no_start", "replaced");
    assert!(f0["detail"].as_str().unwrap_or("").contains("1000 ms"), "{f0}");
    let mine = answers(&lines, 0);
    assert!(mine.len() >= 45 && mine.iter().all(|a| auto(a)), "seat 0: the fallback plays");
    // The warning a person sees names the same fault as the record.
    let warning = done
        .stderr
        .lines()
        .find(|l| l.contains("player 0 is not playing"))
        .unwrap_or_else(|| panic!("no warning for player 0:\n{}", done.stderr));
    assert!(warning.contains("no_start"), "the record says no_start, the warning: {warning}");
}

/// A bot that listens is reached by the referee, as a program is started: one that cannot be
/// reached at the start stops the match in one line, like a missing program, before any game.
#[test]
fn a_bot_that_listens_but_cannot_be_reached_stops_the_match() {
    let _shared = shared();
    let s = Scratch::new("unreachable");
    // A port nobody listens on: bound, then released.
    let free = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port");
    let listen_seat = format!("tcp://{free}");
    let mut args = vec!["--bot", "builtin:random", "--bot", "builtin:random"];
    args.extend(["--bot", &listen_seat, "--bot", "builtin:random"]);
    let mut referee = Referee::start(&s, &match_args(&s, 18, &args));
    let status = referee.child.wait().expect("the referee ends");
    let stderr = referee.stderr();
    assert!(!status.success(), "the match went on without player 2: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0]
            .starts_with(&format!("referee: player 2 cannot play: the bot listening at {free}"))
            && lines[0].contains("no_start: cannot connect"),
        "{}",
        lines[0]
    );
    assert!(!s.record(1).exists(), "no game is played");
}

// ---- referee bugs found while writing these tests ------------------------------------------

#[test]
fn generated_tokens_do_not_reveal_each_other() {
    let _shared = shared();
    let s = Scratch::new("tokens");
    let args = ["match", "--no-records", "--connect-wait-ms", "100", "--bot", "tcp"];
    let mut referee = Referee::start(&s, &args);
    let tokens: Vec<String> = referee.lobby(4).tokens.into_iter().map(|(_, t)| t).collect();
    referee.finish().assert_ok("generated tokens");
    // A token is a seat's credential, handed to one bot's author. Knowing one must not tell
    // another: independent random tokens share a prefix of 8 characters once in 16^8.
    for (i, a) in tokens.iter().enumerate() {
        for b in &tokens[i + 1..] {
            let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            assert!(common < 8, "tokens {a:?} and {b:?} share their first {common} characters");
        }
    }
}

#[test]
fn a_bot_that_drops_before_the_game_may_take_its_seat_again() {
    let _shared = shared();
    let s = Scratch::new("early-drop");
    let (mut referee, lobby) = two_tcp_seats(&s, 19, ["alice", "bob"], &[]);

    // Alice's bot connects while the table waits for bob, then crashes and is restarted.
    let mut first = Client::connect(&lobby.addr);
    first.handshake("crashed", Some("alice"));
    thread::sleep(Duration::from_millis(200));
    let _ = first.stream.shutdown(Shutdown::Both);
    drop(first);
    thread::sleep(Duration::from_millis(200));
    let addr = lobby.addr.clone();
    let again = thread::spawn(move || {
        let mut c = Client::connect(&addr);
        c.handshake("restarted", Some("alice"));
        c.play_out();
        c
    });
    thread::sleep(Duration::from_millis(300));
    let bob = steady(&lobby.addr, "bob", "bob", Duration::ZERO);

    referee.finish().assert_ok("early drop");
    bob.join().expect("bob");
    let again = again.join().expect("the restarted bot");
    // Spec 8.1: "A bot whose connection ends frees its seat. It may connect again with the same
    // token."
    assert_eq!(
        again.kinds()[..2],
        ["hello", "game"],
        "the restarted bot was refused: {:?}",
        again.bye()
    );
    assert_seat0_played_cleanly(&s, "restarted");
}
