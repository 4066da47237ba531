//! Taking a seat back over TCP (feature `resume`, spec/protocol.md section 9.2): a bot that
//! lists `resume` drops mid-game and comes back, and the attacks a token holder can make on its
//! own seat (a storm of resumes, a flood of lines) cost the table nothing and are bounded.
//! `tcp_clients/resume_bot.py` and `tcp_clients/resume_storm.py` are the clients.

use super::*;

/// `tcp_clients/resume_bot.py` claiming alice's seat with `resume`, dropping its connection
/// after `drop_after` answers (or, with `keep`, leaving it open and silent) and coming back;
/// its report once it ended.
fn resume_bot(addr: &str, drop_after: usize, keep: bool) -> thread::JoinHandle<Value> {
    let mut args = vec![addr.to_string(), "alice".into(), drop_after.to_string(), "0.2".into()];
    args.extend(keep.then(|| "keep".to_string()));
    tcp_client("resume_bot.py", args)
}

/// `tcp_clients/resume_storm.py` in MODE on alice's seat; its report once it ended.
fn resume_storm(addr: &str, mode: &str) -> thread::JoinHandle<Value> {
    tcp_client("resume_storm.py", vec![addr.to_string(), "alice".into(), mode.into()])
}

/// The Python client `tcp_clients/SCRIPT` run with `args` on a thread; the JSON line it prints
/// at its end.
fn tcp_client(script: &str, args: Vec<String>) -> thread::JoinHandle<Value> {
    let path = root().join("referee/tests/tcp_clients").join(script);
    let script = script.to_string();
    thread::spawn(move || {
        let out = Command::new("python3")
            .arg(&path)
            .args(&args)
            .current_dir(root())
            .stdin(Stdio::null())
            .output()
            .expect("python3 runs");
        assert!(out.status.success(), "{script} failed: {}", text(&out.stderr));
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{script}'s report {:?}: {e}", text(&out.stdout)))
    })
}

#[test]
fn a_bot_that_lists_resume_takes_its_seat_back_mid_game() {
    let mut t = alice_table("resume", 21, &[]);
    let bot = resume_bot(&t.lobby.addr, 5, false);
    t.referee.finish().assert_ok("resume");
    let report = bot.join().expect("the resuming bot");
    assert_resumed(&t, &report);
}

/// A connection whose network went away sends no end: the referee would see it open for many
/// minutes. The bot's new connection with the seat's token takes the seat from it at once, and
/// the referee says `bye` on the earlier one and closes it.
#[test]
fn a_resuming_bot_takes_its_seat_from_a_connection_that_looks_open() {
    let mut t = alice_table("resume-open", 21, &[]);
    let bot = resume_bot(&t.lobby.addr, 5, true);
    t.referee.finish().assert_ok("resume-open");
    let report = bot.join().expect("the resuming bot");
    assert_resumed(&t, &report);
    assert_eq!(report["earlier_closed"], true, "the earlier connection is closed: {report}");
    assert_eq!(report["earlier_bye"], "another connection took this seat", "{report}");
}

/// What a bot that took its seat back with `resume` after 5 answers was sent, and its record.
fn assert_resumed(t: &AliceTable, report: &Value) {
    assert!(report["offered"].as_array().unwrap().contains(&json!("resume")), "{report}");
    let second = &report["second_hello"];
    assert_eq!((&second["type"], &second["id"]), (&json!("hello"), &json!(1)), "{report}");
    let first = &report["first"];
    assert_eq!(first["type"], "resume", "after the hello answer comes `resume`: {report}");
    let replayed = report["replayed"].as_array().unwrap();
    assert_eq!(first["replay"], replayed.len(), "{report}");
    assert_eq!(replayed.first(), Some(&json!("game")), "the game so far, from its start");
    // Then the open question, as first sent but for its clock: the time that is left.
    let (open, again) = (&report["left_open"], &report["answered_first"]);
    assert_eq!((&again["type"], &again["id"]), (&open["type"], &open["id"]), "{report}");
    let left = |q: &Value| q["time_ms"].as_u64().unwrap() + q["bank_ms"].as_u64().unwrap();
    assert!(left(again) < left(open), "the clock ran on: {report}");
    let mut same = again.clone();
    same["time_ms"] = open["time_ms"].clone();
    same["bank_ms"] = open["bank_ms"].clone();
    assert_eq!(&same, open, "nothing else differs");
    assert_eq!(report["bye"], "match over", "{report}");

    let lines = check_record(&t.s.record(1));
    assert_eq!(seat_of(&lines[0], 0)["name"], "resumer");
    assert!(all_faults(&lines).is_empty(), "no `disconnected`: {:?}", all_faults(&lines));
    let mine = answers(&lines, 0);
    assert!(mine.len() > 6 && !mine.iter().any(|a| auto(a)), "the bot played every answer");
    let sixth: Value = serde_json::from_str(mine[5]["raw"].as_str().expect("raw")).expect("json");
    assert_eq!(sixth["id"], open["id"], "its sixth answer is the one it left open");
}

/// The grace over real sockets (`--resume-grace-ms`): a bot that listed `resume` and is not back
/// within it loses its connection, with a `disconnected` fault at the question it left open,
/// and the fallback plays on for it. Coming back later, it gets no `resume`: it is told the
/// seat was given up while the referee has not met the end yet, and then takes the seat as a
/// new bot for the next game. (With the grace not applied, it would be resumed in game 1.)
#[test]
fn a_resuming_bot_back_after_the_grace_plays_from_the_next_game() {
    let _shared = shared();
    let s = Scratch::new("resume-late");
    let extra = ["--games", "2", "--resume-grace-ms", "300"];
    let (mut referee, lobby) = two_tcp_seats(&s, 14, ["alice", "carol"], &extra);
    // Carol answers after 20 ms: game 1 lasts about a second, past the grace.
    let carol = steady(&lobby.addr, "carol", "carol", Duration::from_millis(20));

    answer_five_and_drop(&lobby.addr, "late", &["resume"]);
    thread::sleep(Duration::from_millis(600));
    let (mut back, refusals) = until_not_refused(&lobby.addr, "late", &["resume"], |_| true);
    assert_eq!(back.kinds()[..2], ["hello", "game"], "a new bot, for game 2: {:?}", back.got);
    assert!(refusals.iter().all(|r| r.contains("given up")), "{refusals:?}");
    back.play_out();
    assert_eq!(back.bye(), Some("match over"));
    referee.finish().assert_ok("resume-late");
    carol.join().expect("carol");

    let game1 = check_record(&s.record(1));
    only_fault(&game1, 0, "disconnected", "replaced");
    let mine = answers(&game1, 0);
    assert!(mine[..5].iter().all(|a| !auto(a)), "the first five answers were the bot's");
    assert!(mine[5..].iter().all(|a| auto(a)), "the fallback plays the rest of game 1");
    let game2 = check_record(&s.record(2));
    assert!(faults(&game2, 0).is_empty(), "{:?}", faults(&game2, 0));
    assert!(answers(&game2, 0).iter().all(|a| !auto(a)), "the bot plays game 2");
}

/// A bot waiting in the lobby for a game that never comes (it came back after its connection
/// dropped in the last game) is told with a `bye` that the match is over, not dropped without a
/// word when the referee exits.
#[test]
fn a_bot_waiting_for_a_game_after_the_last_is_told_the_match_is_over() {
    let _shared = shared();
    let s = Scratch::new("waiting-at-end");
    let (mut referee, lobby) = two_tcp_seats(&s, 14, ["alice", "carol"], &["--games", "1"]);
    // Carol answers after 20 ms: the game lasts about a second, time enough to come back.
    let carol = steady(&lobby.addr, "carol", "carol", Duration::from_millis(20));

    answer_five_and_drop(&lobby.addr, "quitter", &[]);
    // Taken, the seat's new bot waits for a next game, which this one-game match never has.
    let (mut late, _) =
        until_not_refused(&lobby.addr, "late", &[], |reason| reason != "match over");
    late.drain();
    assert_eq!(late.kinds(), ["hello", "bye"], "{:?}", late.got);
    assert_eq!(late.bye(), Some("match over"));
    referee.finish().assert_ok("waiting at the end");
    carol.join().expect("carol");
}

/// A token holder that resumes its seat as fast as it can (issue 23: about 440 times a second,
/// each sent the game so far): three resumes at once, then one a second, the others refused
/// with a `bye` that says so and nothing sent; after 20 tries in one game the seat is given up
/// for the game, recorded as the seat's one fault, and the fallback plays on. The other seats
/// never notice.
#[test]
fn a_storm_of_resumes_is_rate_limited_and_a_fault_after_twenty_tries() {
    let mut t = alice_table("resume-storm", 21, &[]);
    let bot = resume_storm(&t.lobby.addr, "storm");
    t.referee.finish().assert_ok("resume-storm");
    let report = bot.join().expect("the storm");
    let tries: Vec<&str> =
        report["tries"].as_array().unwrap().iter().map(|t| t.as_str().unwrap_or("")).collect();
    assert!(tries.len() > 20, "{tries:?}");
    assert_eq!(tries[..3], ["resume"; 3], "a burst of three is served: {tries:?}");
    let too_often = "resumed too often: at most one resume a second, after three";
    assert!(tries[3..20].iter().filter(|t| **t == too_often).count() >= 10, "{tries:?}");
    assert!(tries[20..].iter().all(|t| *t != "resume"), "past the limit: {tries:?}");

    let lines = check_record(&t.s.record(1));
    assert_eq!(lines.last().unwrap()["status"], "complete");
    let fault = only_fault(&lines, 0, "disconnected", "replaced");
    let detail = fault["detail"].as_str().unwrap();
    assert!(detail.contains("resumed more than 20 times in one game"), "{detail}");
    for seat in 1..4 {
        assert!(faults(&lines, seat).is_empty(), "seat {seat}: {:?}", faults(&lines, seat));
    }
}

/// A resumed connection that floods valid lines faster than the referee reads them (it reads
/// a seat's lines only while the seat has a question open) is held back by its own socket: the
/// seat's queue towards the referee is a few lines, then the relay stops reading the socket, so
/// the flood waits in the kernel's socket buffers and the referee's own memory stays small.
/// Before, the relay read every line into an unbounded queue as fast as it came.
#[test]
fn a_flood_through_a_resumed_connection_waits_in_the_bots_socket() {
    let _shared = shared();
    let s = Scratch::new("resume-flood");
    let extra = ["--deals", "1", "--chant", "off", "--answer-ms", "10000"];
    let (mut referee, lobby) = two_tcp_seats(&s, 21, ["alice", "carol"], &extra);
    let pid = referee.child.id();
    let peak = thread::spawn(move || {
        let mut peak = 0;
        while let Some(kb) = crate::harness::vm_hwm_kb(pid) {
            peak = peak.max(kb);
            thread::sleep(Duration::from_millis(20));
        }
        peak
    });
    // Carol thinks for half a second: the referee then reads nothing of alice's for as long.
    let carol = steady(&lobby.addr, "carol", "carol", Duration::from_millis(500));
    let bot = resume_storm(&lobby.addr, "flood");
    referee.finish().assert_ok("resume-flood");
    carol.join().expect("carol");
    let report = bot.join().expect("the flood");
    let peak = peak.join().unwrap();
    assert!(peak < crate::harness::MAX_HWM_KB, "referee peak memory {peak} kB: {report}");
    let sent = report["sent"].as_u64().unwrap();
    assert!(sent < 120_000_000, "the socket took {sent} bytes in 5 s");
    let lines = check_record(&s.record(1));
    assert_eq!(lines.last().unwrap()["status"], "complete");
    let faults = faults(&lines, 0);
    assert!(faults.iter().all(|f| f["kind"] == "stale_id"), "{faults:?}");
}
