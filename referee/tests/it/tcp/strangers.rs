//! Strangers on the lobby (issue 12): the hostile TCP attacks of sample-bots/hostile/tcp_*.py,
//! idle connections from another address, token guessing, and what each sample bot says when it
//! is refused.

use super::*;

// ---- strangers on the lobby (issue 12) ---------------------------------------------------

/// A program of sample-bots/hostile/.
fn hostile(name: &str) -> String {
    root().join("sample-bots/hostile").join(name).display().to_string()
}

/// A loopback address other than 127.0.0.1, for a stranger that must count as another address
/// than the rightful bots (Linux routes all of 127.0.0.0/8 to the loopback interface).
const STRANGER: &str = "127.0.0.2";

/// Runs a hostile TCP client to its end and returns the JSON line it printed.
fn run_attack(argv: &[&str]) -> Value {
    let mut cmd = Command::new(argv[0]);
    cmd.args(&argv[1..]).current_dir(root()).stdin(Stdio::null());
    let out = run_limited(&mut cmd, HANG);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{argv:?}: {}\n{}", out.status, text(&out.stderr));
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{argv:?} printed {stdout:?}: {e}"))
}

/// Waits until the referee's stderr has a line containing `text`.
fn wait_for_log(referee: &Referee, text: &str) {
    let start = Instant::now();
    while !referee.stderr().contains(text) {
        assert!(start.elapsed() < WAIT, "no {text:?} in the referee's log:\n{}", referee.stderr());
        thread::sleep(Duration::from_millis(10));
    }
}

/// Spec 8.1: the token of a seat that already has its bot is refused. Before the first game,
/// a second connection naming it used to take the seat, and the rightful bot was sent away.
#[test]
fn a_seated_bots_token_is_refused_before_and_during_games() {
    let _shared = shared();
    let s = Scratch::new("hijack");
    let (mut referee, lobby) = two_tcp_seats(&s, 22, ["alice", "bob"], &["--log", "info"]);
    // The rightful bot holds its first question until the second attempt is over.
    let rightful = hold_first_question(&lobby.addr, "rightful");
    wait_for_log(&referee, "took the seat of token alice");
    let script = hostile("tcp_hijack.py");
    let hijack = || run_attack(&["python3", &script, &lobby.addr, "alice", "--wait", "5"]);
    let mut bob = None;
    for when in ["before the first game", "in play"] {
        if when == "in play" {
            rightful.in_play.recv_timeout(WAIT).expect("the game starts");
        }
        let got = hijack();
        assert_eq!(got["outcome"], "refused", "{when}: {got}");
        let reason = got["reason"].as_str().unwrap_or("");
        assert!(reason.contains("already in use"), "{when}: {reason}");
        if when == "before the first game" {
            bob = Some(steady(&lobby.addr, "bob", "bob", Duration::ZERO));
        }
    }
    rightful.go.send(()).expect("the rightful bot waits");

    referee.finish().assert_ok("hijack");
    bob.expect("bob started").join().expect("bob");
    let rightful = rightful.bot.join().expect("the rightful bot");
    assert_eq!(rightful.kinds()[..2], ["hello", "game"], "{:?}", rightful.got);
    assert_eq!(rightful.bye(), Some("match over"));
    assert_seat0_played_cleanly(&s, "rightful");
}

/// One address holding many idle connections used to fill `--max-pending`, and the rightful
/// bot was refused: now that address gets at most `--max-pending-per-addr` handshakes, and a
/// connection from another address takes the place of one of its waiting ones.
#[test]
fn idle_connections_from_one_address_cannot_keep_a_bot_from_another_out() {
    // The idle connections' handshakes outlast the whole test.
    let mut t = alice_table("starve", 23, &["--handshake-ms", "15000"]);
    let lobby = &t.lobby;

    let script = hostile("tcp_starve.py");
    let argv = ["python3", &script, &lobby.addr, "40", "--source", STRANGER];
    let mut starve = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the attack starts");
    let mut report = String::new();
    BufReader::new(starve.stdout.take().expect("stdout piped"))
        .read_line(&mut report)
        .expect("the attack reports");
    let report: Value = serde_json::from_str(&report).unwrap_or_else(|e| panic!("{report}: {e}"));
    assert_eq!(report["connected"], 40, "{report}");
    // The others wait for a turn without a hello, or were refused; more hellos would come
    // only once the first four time out, long after the attack's look.
    let hellos = report["hello"].as_u64().unwrap_or(u64::MAX);
    assert!(hellos <= 4, "the address got more handshakes than its share: {report}");

    let mut good = Proc::python(&lobby.addr, "alice", "good");
    let done = t.referee.finish();
    let _ = starve.kill();
    let _ = starve.wait();
    done.assert_ok("starvation");
    assert_seat0_played_cleanly(&t.s, "good");
    good.assert_exits_ok();
}

/// 3,000 wrong tokens once went through at 3,200 a second and wrote a WARN line each: now an
/// address that keeps guessing waits longer and longer for each refusal, and the log counts
/// refusals in at most a line per second and cause.
#[test]
fn wrong_tokens_slow_their_address_down_and_the_log_stays_short() {
    // A connection waiting for one of its address's turns waits at most a handshake limit.
    let mut t = alice_table("bruteforce", 24, &["--handshake-ms", "3000"]);
    let lobby = &t.lobby;
    let script = hostile("tcp_bruteforce.py");

    // The first three wrong tokens are refused at once (typos happen); from the fourth, the
    // bye comes 250 ms, 500 ms, 1 s later (spec 8.1). A slow machine only makes them later.
    let seq =
        run_attack(&["python3", &script, &lobby.addr, "--source", STRANGER, "--sequential", "6"]);
    let reasons = seq["reasons"].as_array().expect("reasons");
    assert!(reasons.iter().all(|r| r == "unknown seat token"), "{seq}");
    let waits: Vec<u64> =
        seq["waits_ms"].as_array().expect("waits").iter().filter_map(Value::as_u64).collect();
    assert_eq!(waits.len(), 6, "{seq}");
    for (n, least) in [(3, 250), (4, 500), (5, 1000)] {
        assert!(waits[n] >= least, "wrong token {}: refused after {} ms: {seq}", n + 1, waits[n]);
    }

    // Then 24 threads guess for two seconds. The address's four handshake turns are held
    // through each refusal's delay, so only a handful of guesses are answered; the rest of
    // the flood is turned away unheard.
    let flood = run_attack(&[
        "python3",
        &script,
        &lobby.addr,
        "--source",
        STRANGER,
        "--threads",
        "24",
        "--seconds",
        "3",
    ]);
    let wrong = flood["token"].as_u64().expect("a count");
    assert!(wrong < 30, "{wrong} guesses answered in the flood: {flood}");

    let mut good = Proc::python(&lobby.addr, "alice", "good");
    let done = t.referee.finish();
    done.assert_ok("brute force");
    assert_seat0_played_cleanly(&t.s, "good");
    good.assert_exits_ok();

    // At most one line per second for each of the four causes, counted.
    let warns: Vec<&str> = done.stderr.lines().filter(|l| l.contains("WARN")).collect();
    let bound = 4 * (done.elapsed.as_secs() as usize + 2);
    assert!(
        warns.len() <= bound,
        "{} WARN lines in {:?}:\n{}",
        warns.len(),
        done.elapsed,
        done.stderr
    );
    assert!(
        warns.iter().any(|l| l.contains("refused") && !l.contains("refused a connection")),
        "no counted summary:\n{}",
        done.stderr
    );
}

/// How each sample bot is started over TCP.
fn sample_bots(addr: &str, token: &str) -> Vec<Vec<String>> {
    let py = |file: &str| root().join("sample-bots/python").join(file).display().to_string();
    let js = root().join("sample-bots/js/bot.js").display().to_string();
    let rust = rust_bot_path().display().to_string();
    let tail = ["--connect", addr, "--token", token].map(String::from);
    [
        vec!["python3".to_string(), py("heuristic_bot.py")],
        vec!["python3".to_string(), py("random_bot.py")],
        vec!["node".to_string(), js],
        vec![rust],
    ]
    .into_iter()
    .map(|mut argv| {
        argv.extend(tail.iter().cloned());
        argv
    })
    .collect()
}

fn run_sample_bot(argv: &[String]) -> std::process::Output {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).current_dir(root()).stdin(Stdio::null());
    run_limited(&mut cmd, HANG)
}

/// A sample bot refused by the lobby used to exit 0 without a word: now it prints the
/// referee's reason and fails. The same bots with their right tokens play and exit 0.
#[test]
fn a_refused_sample_bot_says_why_and_fails() {
    let _shared = shared();
    let s = Scratch::new("sample-refused");
    let bots = ["--bot", "tcp:p0", "--bot", "tcp:p1", "--bot", "tcp:p2", "--bot", "tcp:p3"];
    let mut referee = Referee::start(&s, &match_args(&s, 25, &bots));
    let lobby = referee.lobby(4);
    for argv in sample_bots(&lobby.addr, "not-a-seat") {
        let out = run_sample_bot(&argv);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{argv:?} exited 0 when refused");
        assert!(stderr.contains("unknown seat token"), "{argv:?} did not say why: {stderr:?}");
    }
    let mut playing: Vec<Proc> = (0..4)
        .map(|p| {
            let argv = &sample_bots(&lobby.addr, lobby.token(p))[p];
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            Proc::spawn(&argv, Stdio::null())
        })
        .collect();
    referee.finish().assert_ok("sample bots");
    for b in &mut playing {
        b.assert_exits_ok();
    }
    let lines = check_record(&s.record(1));
    assert!(all_faults(&lines).is_empty(), "{:?}", all_faults(&lines));
}

/// A connection closed before any question is a refusal too, for every sample bot.
#[test]
fn a_sample_bot_whose_connection_closes_before_any_question_fails() {
    let _shared = shared();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address").to_string();
    let bots = sample_bots(&addr, "t");
    let n = bots.len();
    // Accepts each bot's connection and closes it at once.
    let closer = thread::spawn(move || {
        for _ in 0..n {
            let (c, _) = listener.accept().expect("accept");
            drop(c);
        }
    });
    for argv in &bots {
        let out = run_sample_bot(argv);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{argv:?} exited 0");
        assert!(stderr.contains("before the first game"), "{argv:?}: {stderr:?}");
    }
    closer.join().expect("the closing listener");
}

/// A TCP bot the referee stopped (replaced after its strikes) is not there for the next game:
/// its seat is charged `disconnected`, as for any TCP seat without a bot, never `exited`.
#[test]
fn a_stopped_tcp_bot_is_disconnected_at_the_next_game() {
    let mut t = alice_table("stopped", 26, &["--games", "2"]);
    let mut c = Client::connect(&t.lobby.addr);
    c.handshake("bungler", Some("alice"));
    // Every play answer names a code that is no card: three strikes, replaced, told bye.
    while let Some(msg) = c.recv() {
        let reply = match msg["type"].as_str() {
            Some("play") => Some(json!({"type": "play", "id": msg["id"], "card": "1o"})),
            _ => answer(&msg),
        };
        if let Some(reply) = reply
            && c.send(&reply).is_err()
        {
            break;
        }
    }
    assert!(c.bye().is_some_and(|b| b.contains("replaced")), "{:?}", c.bye());
    t.referee.finish().assert_ok("stopped");

    let game1 = check_record(&t.s.record(1));
    let f1 = faults(&game1, 0);
    assert_eq!(f1.last().map(|f| &f["penalty"]), Some(&json!("replaced")), "{f1:?}");
    let game2 = check_record(&t.s.record(2));
    let f2 = faults(&game2, 0);
    assert_eq!(f2.len(), 1, "{f2:?}");
    assert_eq!(f2[0]["kind"], "disconnected", "{}", f2[0]);
    assert!(f2[0]["detail"].as_str().unwrap_or("").contains("stopped by the referee"), "{}", f2[0]);
}
