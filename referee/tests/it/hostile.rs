//! The referee must survive anything a bot does: one real hostile bot process per attack of
//! sample-bots/hostile/ (its README lists them) against the real referee binary, on the real
//! clock. Each test checks that the referee exits 0, finishes a game whose record replays,
//! records the right fault class and penalty, keeps its own memory small whatever the bot
//! sends, and leaves no process of the bot (children included) alive.

use crate::harness::{
    MAX_HWM_KB, Played, RANDOM, SHORT_CLOCKS, Scratch, Suite, assert_fault, auto, detail,
    referee_logged, root,
};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;

/// The hostile bots, which note their pids (and their children's) in the scratch folder.
const HOSTILE: Suite =
    Suite { clocks: SHORT_CLOCKS, marks: &["sample-bots/hostile/"], command: Scratch::hostile };

/// Game 1 was forfeited by team 0 (seat 0's) after one fault of `kind`.
fn assert_forfeit(game: &Played, kind: &str) {
    // The first fault ends the game.
    game.assert_faults(&[(0, kind, "forfeit", 1)]);
    assert_eq!((&game.footer()["forfeit"], &game.footer()["winner"]), (&0.into(), &1.into()));
}

// ---- Never starts ----

#[test]
fn not_executable_is_no_start() {
    let s = Scratch::new("not-executable");
    // A copy with every execute bit cleared, whatever the checkout did to the original (root
    // may run any file with one execute bit set).
    let program = s.join("not_executable.sh");
    std::fs::copy(root().join("sample-bots/hostile/not_executable.sh"), &program).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o644)).unwrap();
    let bot = format!("'{}' '{}'", program.display(), s.pidfile().display());
    let (line, pids) = HOSTILE.refused(&s, [&bot, RANDOM, RANDOM, RANDOM], &[]);
    assert!(line.contains("(no_start: cannot start"), "{line}");
    assert!(pids.is_empty(), "the program never ran");
}

/// A file marked executable that the kernel cannot run (a script saved without its `#!` line)
/// did not start: the C library's `execvp` would hand it to `/bin/sh`, which ran it as shell
/// commands until one failed, and the bot looked started and then refused (`handshake_refused:
/// exited: exit code 127`).
#[test]
fn a_script_without_its_first_line_is_no_start() {
    let s = Scratch::new("no-shebang");
    let program = s.join("bot.py");
    let marker = s.join("ran-as-shell");
    std::fs::write(&program, format!("import sys\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bot = format!("'{}'", program.display());
    let (line, _) = HOSTILE.refused(&s, [&bot, RANDOM, RANDOM, RANDOM], &[]);
    assert!(line.contains("(no_start: cannot start"), "{line}");
    assert!(line.contains("no `#!` line"), "{line}");
    assert!(!marker.exists(), "the file was run by a shell");
}

#[test]
fn exit_127_before_hello_is_refused() {
    let s = Scratch::new("exit-127");
    let (line, pids) = HOSTILE.refused(&s, [&s.shell("exit_127"), RANDOM, RANDOM, RANDOM], &[]);
    // The process started, so it is not no_start; it never gave a hello answer.
    assert!(line.contains("(handshake_refused: exited: exit code 127)"), "{line}");
    assert_eq!(pids.len(), 1);
}

// ---- Crashes at each phase ----

#[test]
fn crash_during_handshake_is_refused() {
    let s = Scratch::new("crash-handshake");
    let (line, _) =
        HOSTILE.refused(&s, [&s.hostile("crash_handshake"), RANDOM, RANDOM, RANDOM], &[]);
    assert!(line.contains("(handshake_refused: exited: exit code 1)"), "{line}");
}

#[test]
fn crash_at_opening_is_exited() {
    let (_s, game) = HOSTILE.in_seat0("crash-opening", "crash_opening", &[]);
    let faults = game.assert_faults(&[(0, "exited", "replaced", 1)]);
    assert_eq!((detail(faults[0]), &faults[0]["deal"]), ("exit code 3", &1.into()));
    let mine = game.record().iter().filter(|l| l["seat"] == 0 && l.get("auto").is_some());
    assert!(mine.into_iter().all(auto), "the fallback answers every question of seat 0");
}

#[test]
fn crash_at_discard_is_exited() {
    // The chant is taken only when all four seats accept, so the other seats are accepting
    // bots. Deal 1's dealer is seat 0: seat 1, the dealer's left, discards first.
    let s = Scratch::new("crash-discard");
    let yes = s.hostile("accept_chant");
    let game = HOSTILE.play(&s, [&yes, &s.hostile("crash_discard"), &yes, &yes], &[]);
    assert_eq!(game.lines("chant").next().unwrap()["taken"], true, "deal 1's chant is taken");
    let faults = game.assert_faults(&[(1, "exited", "replaced", 1)]);
    assert_eq!((detail(faults[0]), &faults[0]["deal"]), ("exit code 1", &1.into()));
    let discard = game.lines("discard").find(|d| d["seat"] == 1).unwrap();
    assert!(auto(discard) && discard["cards"].as_array().unwrap().len() == 6, "{discard}");
    assert!(game.plays(1).iter().all(|p| auto(p)));
    assert_eq!(game.pids.len(), 4);
}

#[test]
fn crash_at_play_is_exited() {
    let (_s, game) = HOSTILE.in_seat0("crash-play", "crash_play", &[]);
    let faults = game.assert_faults(&[(0, "exited", "replaced", 1)]);
    assert_eq!(detail(faults[0]), "killed by SIGSEGV");
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && plays[1..].iter().all(|p| auto(p)));
}

#[test]
fn crash_at_play_forfeits_under_forfeit() {
    let (_s, game) =
        HOSTILE.in_seat0("crash-play-forfeit", "crash_play", &["--on-fault", "forfeit"]);
    assert_forfeit(&game, "exited");
}

#[test]
fn crash_between_games_is_charged_to_the_next_game() {
    let (_s, game) =
        HOSTILE.in_seat0("crash-between-games", "crash_between_games", &["--games", "2"]);
    assert_eq!(game.games.len(), 2);
    assert!(game.faults().is_empty(), "game 1 was played cleanly: {:#?}", game.faults());
    assert!(game.plays(0).iter().all(|p| !auto(p)));
    // Spec 6.1: a fault between games is charged to the next game.
    let faults: Vec<&Value> = game.games[1].faults();
    assert_eq!(faults.len(), 1, "{faults:#?}");
    assert_fault(faults[0], 0, "exited", "replaced", 1);
    assert_eq!(detail(faults[0]), "exit code 4");
    let footer = game.games[1].footer();
    assert_eq!(footer["stats"][0]["replaced"], true);
}

// ---- Hangs ----

#[test]
fn hang_at_handshake_is_refused() {
    let s = Scratch::new("hang-handshake");
    // The other seats are built in, so a short handshake limit is safe here.
    let bots = [&s.hostile("hang_handshake"), RANDOM, RANDOM, RANDOM];
    let (line, pids) = HOSTILE.refused(&s, bots, &["--handshake-ms", "1500"]);
    assert!(line.contains("(handshake_refused: timeout: no answer within 1500 ms)"), "{line}");
    assert_eq!(pids.len(), 1, "started once");
}

#[test]
fn hang_at_play_times_out_three_times() {
    let (_s, game) = HOSTILE.in_seat0("hang-play", "hang_play", &[]);
    let faults = game.assert_faults(&[
        (0, "timeout", "fallback", 1),
        (0, "timeout", "fallback", 2),
        (0, "timeout", "replaced", 3),
    ]);
    // The first wait is answer + bank; a timeout empties the bank, so then only answer_ms.
    assert_eq!(detail(faults[0]), "no answer within 500 ms");
    assert_eq!(detail(faults[1]), "no answer within 300 ms");
    assert!(game.plays(0).iter().all(|p| auto(p)));
}

#[test]
fn hang_at_play_forfeits_under_forfeit() {
    let (_s, game) = HOSTILE.in_seat0("hang-play-forfeit", "hang_play", &["--on-fault", "forfeit"]);
    assert_forfeit(&game, "timeout");
}

// ---- Late answers ----

#[test]
fn late_within_the_bank_is_no_fault() {
    // The bot is 30 ms late; a bank of 2 s leaves room for a loaded machine's delays.
    let (_s, game) =
        HOSTILE.in_seat0("late-within-bank", "late_within_bank", &["--bank-ms", "2000"]);
    assert!(game.faults().is_empty(), "{:#?}", game.faults());
    let plays = game.plays(0);
    assert!(plays.iter().all(|p| !auto(p)), "every answer was taken");
    let us = plays[1]["us"].as_u64().unwrap();
    // The bot sleeps 30 ms past answer_ms; the referee's clock starts when its write returns,
    // which a loaded machine may delay by a few ms, so only "beyond answer_ms" is certain.
    assert!((300_000..2_300_000).contains(&us), "answered after {us} µs: from the bank");
    assert_eq!(game.stats(0)["strikes"], 0);
}

#[test]
fn late_beyond_the_bank_is_a_timeout_then_a_stale_id() {
    // The bot is late by half of answer_ms each way (the deadline, and the next question's
    // time): 500 ms, where 30 ms past the deadline let a referee kept from running find the
    // answer waiting and rightly take it.
    let extra = ["--answer-ms", "1000"];
    let (_s, game) = HOSTILE.in_seat0("late-beyond-bank", "late_beyond_bank", &extra);
    let faults = game.faults();
    assert_fault(faults[0], 0, "timeout", "fallback", 1);
    assert_eq!((&faults[0]["deal"], &faults[0]["trick"]), (&1.into(), &2.into()));
    assert_eq!(detail(faults[0]), "no answer within 1200 ms");
    // The late answer is read with the next question: ignored, never taken as its answer.
    assert_fault(faults[1], 0, "stale_id", "ignored", 1);
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && auto(plays[1]));
    // Later answers have no bank left and may miss their time on a loaded machine; the bot must
    // still be playing afterwards.
    assert!(plays[2..].iter().any(|p| !auto(p)), "the bot plays on");
}

// ---- Floods ----

#[test]
fn stdout_flood_of_stale_lines_is_ignored() {
    const LINES_PER_PLAY: u64 = 3000; // as in flood_stdout.py
    // The test is about the flood, not the clock: writing and reading 3,000 lines took more than
    // the short clocks' 500 ms once in CI (a timeout beside the 20 ignored lines), beside the
    // ladders and Chromium on two cores; a long bank leaves the flood all the time it needs.
    let (_s, game) = HOSTILE.in_seat0("flood-stdout", "flood_stdout", &["--bank-ms", "20000"]);
    let faults = game.faults();
    assert_eq!(faults.len(), 20, "at most 20 ignored lines are recorded per seat: {faults:#?}");
    assert!(faults.iter().all(|f| f["kind"] == "stale_id" && f["penalty"] == "ignored"));
    let plays = game.plays(0);
    assert!(plays.iter().all(|p| !auto(p)), "every real answer was found behind the flood");
    // Every flood line is read before its question's answer, so each one is counted.
    assert_eq!(game.stats(0)["faults"], LINES_PER_PLAY * plays.len() as u64);
    assert_eq!(game.stats(0)["strikes"], 0);
}

#[test]
fn endless_stdout_flood_still_times_out() {
    // Every line is valid and ignorable, so only the clock can end the question, however fast
    // the lines come; and the ignored lines must be counted, not kept. A long bank gives the
    // flood time to show whether memory grows with it (the bot floods for 10 s at most).
    let (_s, game) =
        HOSTILE.in_seat0("flood-stdout-endless", "flood_stdout_endless", &["--bank-ms", "4700"]);
    let faults = game.faults();
    let ignored = faults.iter().filter(|f| f["penalty"] == "ignored").count();
    assert!(ignored <= 20, "at most 20 ignored lines are recorded: {ignored}");
    assert!(faults.iter().all(|f| f["penalty"] != "ignored" || f["kind"] == "stale_id"));
    let struck: Vec<&&Value> = faults.iter().filter(|f| f["penalty"] != "ignored").collect();
    assert_eq!(struck.len(), 3, "{struck:#?}");
    assert_fault(struck[0], 0, "timeout", "fallback", 1);
    assert_eq!((&struck[0]["deal"], &struck[0]["trick"]), (&1.into(), &2.into()));
    assert_fault(struck[1], 0, "timeout", "fallback", 2);
    assert_fault(struck[2], 0, "timeout", "replaced", 3);
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && plays[1..].iter().all(|p| auto(p)));
}

#[test]
fn endless_flood_at_handshake_is_refused() {
    let s = Scratch::new("flood-handshake");
    // The other seats are built in, so the handshake limit only has to leave the flood time
    // to show whether memory grows with it (the bot floods for 10 s at most).
    let bots = [&s.hostile("flood_handshake"), RANDOM, RANDOM, RANDOM];
    let (line, _) = HOSTILE.refused(&s, bots, &["--handshake-ms", "5000"]);
    assert!(line.contains("(handshake_refused: timeout"), "{line}");
}

#[test]
fn stderr_flood_is_capped() {
    const PER_DEAL: u64 = 2 << 20; // as in flood_stderr.py
    const CAP: u64 = 100_000;
    let s = Scratch::new("flood-stderr");
    let cap = CAP.to_string();
    let bots = [&s.hostile("flood_stderr"), RANDOM, RANDOM, RANDOM];
    let game = HOSTILE.play(&s, bots, &["--stderr-cap", &cap]);
    assert!(game.faults().is_empty(), "a talkative bot commits no fault: {:#?}", game.faults());
    assert!(game.plays(0).iter().all(|p| !auto(p)), "stderr never blocked the bot");
    let written = PER_DEAL * game.lines("deal").count() as u64;
    let log = std::fs::read(s.records().join("player0.stderr.log")).unwrap();
    // The log holds the first CAP bytes, then one note line from the referee with the count.
    assert!(log.len() as u64 > CAP, "the note is missing: {} bytes", log.len());
    let (kept, note) = log.split_at(CAP as usize);
    assert!(kept.iter().all(|&b| b == b'e'), "the kept bytes are the bot's own");
    let note = String::from_utf8_lossy(note);
    let note = note.strip_prefix('\n').unwrap_or(&note);
    assert!(
        note.ends_with('\n') && note.matches('\n').count() == 1 && note.len() < 200,
        "one note line after the cap, got {note:?}"
    );
    assert!(note.contains(&(written - CAP).to_string()), "the note counts the dropped bytes");
}

// ---- Bytes that are not protocol lines ----

#[test]
fn binary_junk_and_invalid_utf8_are_malformed() {
    let (_s, game) = HOSTILE.in_seat0("binary-junk", "binary_junk", &[]);
    game.assert_faults(&[(0, "malformed", "fallback", 1), (0, "malformed", "fallback", 2)]);
    let plays = game.plays(0);
    let autos: Vec<usize> = (0..plays.len()).filter(|&i| auto(plays[i])).collect();
    assert_eq!(autos, [1, 3], "the stream resynchronises at the next newline");
}

#[test]
fn hundred_megabyte_line_is_not_held() {
    let (_s, game) = HOSTILE.in_seat0("huge-line", "huge_line", &[]);
    // play() checked the memory bound, the point of this attack.
    game.assert_faults(&[
        (0, "line_too_long", "fallback", 1),
        (0, "timeout", "fallback", 2),
        (0, "timeout", "replaced", 3),
    ]);
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && plays[1..].iter().all(|p| auto(p)));
}

// ---- Answers that are not the answer ----

#[test]
fn answer_for_another_seat_is_malformed() {
    let (_s, game) = HOSTILE.in_seat0("other-seat", "other_seat", &[]);
    let faults = game.assert_faults(&[(0, "malformed", "fallback", 1)]);
    assert!(detail(faults[0]).contains("seat"), "{}", faults[0]);
    let plays = game.plays(0);
    let autos: Vec<usize> = (0..plays.len()).filter(|&i| auto(plays[i])).collect();
    assert_eq!(autos, [1]);
}

#[test]
fn stale_id_answer_is_ignored_and_the_question_times_out() {
    let (_s, game) = HOSTILE.in_seat0("stale-id", "stale_id", &[]);
    let faults = game.faults();
    assert_fault(faults[0], 0, "stale_id", "ignored", 0);
    assert_fault(faults[1], 0, "timeout", "fallback", 1);
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && auto(plays[1]), "the stale line was not taken as the answer");
    assert!(plays[2..].iter().any(|p| !auto(p)), "the bot plays on");
}

#[test]
fn answering_twice_is_ignored() {
    let (_s, game) = HOSTILE.in_seat0("answer-twice", "answer_twice", &[]);
    let faults = game.faults();
    assert_eq!(faults.len(), 20, "at most 20 ignored lines are recorded per seat and game");
    assert!(faults.iter().all(|f| f["kind"] == "stale_id" && f["penalty"] == "ignored"));
    let plays = game.plays(0);
    assert!(plays.iter().all(|p| !auto(p)), "no copy was taken for a later answer");
    // Every copy but the last one (no question follows it) is read and counted.
    assert_eq!(game.stats(0)["faults"], plays.len() as u64 - 1);
    assert_eq!(game.stats(0)["strikes"], 0);
}

#[test]
fn unsolicited_lines_are_ignored() {
    let (_s, game) = HOSTILE.in_seat0("unsolicited", "unsolicited", &[]);
    let faults = game.faults();
    assert_eq!(faults.len(), 20, "at most 20 ignored lines are recorded per seat and game");
    assert!(faults.iter().all(|f| f["penalty"] == "ignored"));
    assert!(faults.iter().any(|f| f["kind"] == "stale_id"), "the old hello id");
    assert!(faults.iter().any(|f| f["kind"] == "unknown_id"), "the id never asked");
    assert!(game.plays(0).iter().all(|p| !auto(p)));
    assert!(game.stats(0)["faults"].as_u64().unwrap() > 40, "{}", game.stats(0));
    assert_eq!(game.stats(0)["strikes"], 0);
}

// ---- Moves against the rules ----

#[test]
fn illegal_cards_strike_three_times() {
    let (_s, game) = HOSTILE.in_seat0("illegal-card", "illegal_card", &[]);
    // A replaced bot is asked nothing more.
    game.assert_faults(&[
        (0, "illegal_card", "fallback", 1),
        (0, "malformed", "fallback", 2),
        (0, "illegal_card", "replaced", 3),
    ]);
    assert!(game.plays(0).iter().all(|p| auto(p)));
    assert_eq!(game.stats(0)["replaced"], true);
}

#[test]
fn illegal_card_forfeits_under_forfeit() {
    let (_s, game) =
        HOSTILE.in_seat0("illegal-card-forfeit", "illegal_card", &["--on-fault", "forfeit"]);
    assert_forfeit(&game, "illegal_card");
}

#[test]
fn wrong_discards_strike_three_times() {
    // Everyone accepts, so the chant is taken every deal; the dealer moves left each deal, so
    // seat 1 discards in deals 1 (dealer's left), 2 (dealer) and 5 (dealer's left).
    let s = Scratch::new("wrong-discard");
    let yes = s.hostile("accept_chant");
    let game = HOSTILE.play(&s, [&yes, &s.hostile("wrong_discard"), &yes, &yes], &[]);
    let faults = game.assert_faults(&[
        (1, "wrong_discard", "fallback", 1),
        (1, "wrong_discard", "fallback", 2),
        (1, "wrong_discard", "replaced", 3),
    ]);
    let deals: Vec<Option<u64>> = faults.iter().map(|f| f["deal"].as_u64()).collect();
    assert_eq!(deals, [Some(1), Some(2), Some(5)]);
    let discards: Vec<&Value> = game.lines("discard").filter(|d| d["seat"] == 1).collect();
    assert_eq!(discards.len(), 3);
    for d in discards {
        assert!(auto(d) && d["cards"].as_array().unwrap().len() == 6, "{d}");
    }
    assert_eq!(game.pids.len(), 4);
}

#[test]
fn false_and_too_many_signals_are_dropped() {
    let (_s, game) = HOSTILE.in_seat0("false-signals", "false_signals", &[]);
    let faults = game.faults();
    assert_eq!(faults.len(), 3, "{faults:#?}");
    assert_fault(faults[0], 0, "bad_signal", "signal_dropped", 1);
    assert_fault(faults[1], 0, "bad_signal", "signal_dropped", 2);
    // bad_signal strikes count toward replacement like any other.
    assert_fault(faults[2], 0, "bad_signal", "replaced", 3);
    // Only the true signal sent before the false one of play 3 was delivered, before its fault.
    let record = game.record();
    let sent: Vec<usize> = (0..record.len())
        .filter(|&i| record[i]["type"] == "signal" && record[i]["from"] == 0)
        .collect();
    assert_eq!(sent.len(), 1, "{:?}", sent.iter().map(|&i| &record[i]).collect::<Vec<_>>());
    assert!(record[sent[0]]["signal"].as_str().unwrap().starts_with("aces:"));
    let third = record.iter().position(|l| l == faults[2]).unwrap();
    assert!(sent[0] < third, "the delivered signal comes before the fault");
    let plays = game.plays(0);
    assert!(plays[..3].iter().all(|p| !auto(p)), "the cards of the answers stand");
    assert!(plays[3..].iter().all(|p| auto(p)), "then the bot is replaced");
}

// ---- Processes ----

#[test]
fn forked_children_die_with_the_bot() {
    let (_s, game) = HOSTILE.in_seat0("fork-and-exit", "fork_and_exit", &[]);
    assert_eq!(game.pids.len(), 3, "the bot, its child and the reparented grandchild");
    let faults = game.assert_faults(&[(0, "exited", "replaced", 1)]);
    assert_eq!(detail(faults[0]), "exit code 0");
}

#[test]
fn children_that_leave_the_group_die_too() {
    let (_s, game) = HOSTILE.in_seat0("setsid-child", "setsid_child", &[]);
    // `play` waits for every pid in the file to be gone: the killed process group cannot reach
    // the child and grandchild in their own session, so the referee's orphan sweep must have.
    assert_eq!(game.pids.len(), 3, "the bot, its setsid child and that child's child");
    assert!(game.faults().is_empty(), "{:#?}", game.faults());
    assert!(game.plays(0).iter().all(|p| !auto(p)), "the bot played every card itself");
}

#[test]
fn sigterm_ignoring_bot_is_killed() {
    let (_s, game) = HOSTILE.in_seat0("ignore-sigterm", "ignore_sigterm", &[]);
    // It played correctly; staying alive after bye is no fault, only a kill.
    assert!(game.faults().is_empty(), "{:#?}", game.faults());
    assert!(game.plays(0).iter().all(|p| !auto(p)));
    assert_eq!(game.pids.len(), 1);
}

#[test]
fn memory_hog_dies_at_its_limit() {
    // Touching 128 MiB can take longer than 500 ms on a loaded virtual machine; a long bank
    // lets the bot die of its limit before its question times out.
    let (_s, game) = HOSTILE.in_seat0(
        "memory-hog",
        "memory_hog",
        &["--bot-memory-mib", "128", "--bank-ms", "5000"],
    );
    game.assert_faults(&[(0, "exited", "replaced", 1)]);
    assert!(game.plays(0).iter().all(|p| auto(p)), "it died at its first play");
    // The bot's memory is not the referee's.
    assert!(game.peak_kb < MAX_HWM_KB);
}

// ---- Speaks for a dead bot ----

#[test]
fn answers_written_for_a_dead_bot_are_not_taken() {
    let (_s, game) = HOSTILE.in_seat0("orphan-answers", "orphan_answers", &[]);
    // The bot and the setsid child that held its stdout: `play` waits for both to be gone.
    assert_eq!(game.pids.len(), 2, "the bot and its setsid child");
    let faults = game.assert_faults(&[(0, "exited", "replaced", 1)]);
    assert_eq!(detail(faults[0]), "exit code 0");
    // Charged at the very next question, in the first deal, not when the advance answers ran out.
    assert_eq!((&faults[0]["deal"], &faults[0]["trick"]), (&1.into(), &2.into()), "{}", faults[0]);
    let plays = game.plays(0);
    assert!(!auto(plays[0]), "its one real answer stands");
    assert!(plays[1..].iter().all(|p| auto(p)), "a line written in advance was taken: {plays:#?}");
}

// ---- Attacks whoever reads the output ----

/// Every byte the referee wrote to stdout or stderr in the scratch folder (`*.out`, `*.err`):
/// none may be a control character other than a newline, raw or in UTF-8 (C1, separators,
/// bidirectional controls), whatever a bot put in its name or its lines.
fn assert_output_is_inert(s: &Scratch) {
    let mut seen = 0;
    for entry in std::fs::read_dir(s.path()).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(path.extension().and_then(|e| e.to_str()), Some("out" | "err")) {
            continue;
        }
        seen += 1;
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            let bad = line.chars().find(|&c| {
                (c.is_control() && c != '\t')
                    || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            });
            assert!(
                bad.is_none(),
                "{} line {}: control character {:?} in {line:?}",
                path.display(),
                n + 1,
                bad
            );
        }
        // Tabs are the referee's own layout nowhere; their absence keeps the check strict.
        assert!(!text.contains('\t'), "{}: a tab", path.display());
    }
    assert!(seen >= 2, "no output files in {}", s.path().display());
}

/// A name of characters that show nothing is refused by the handshake and by `check-bot`; a
/// bot command holding a bidirectional control is refused before anything starts.
#[test]
fn a_name_that_shows_nothing_is_refused() {
    let s = Scratch::new("invisible-name");
    let bot = format!("{} invisible", s.hostile("control_names"));
    let (line, pids) = HOSTILE.refused(&s, [&bot, RANDOM, RANDOM, RANDOM], &[]);
    assert!(line.contains("handshake_refused: the name"), "{line}");
    assert!(line.contains("has no visible character"), "{line}");
    assert_eq!(pids.len(), 1);
    let status = referee_logged(&["check-bot", &bot], &s.join("check-bot")).status;
    assert!(!status.success(), "check-bot passed a bot whose name shows nothing");
    let line = crate::harness::referee_fails(&["match", "--bot", "python3 bot\u{202e}yp.txt"]);
    assert!(line.contains("bot command holds the bidirectional control U+202E"), "{line}");
    assert!(!line.contains('\u{202e}'), "the refusal shows the override: {line}");
}

#[test]
fn control_characters_in_a_hello_are_refused_and_never_printed() {
    for field in ["name", "version", "author"] {
        let s = Scratch::new(&format!("control-{field}"));
        let bot = format!("{} {field}", s.hostile("control_names"));
        // A program that fails its handshake stops the match before any game, with one line.
        let (line, _) = HOSTILE.refused(&s, [&bot, RANDOM, RANDOM, RANDOM], &[]);
        assert!(line.contains("handshake_refused"), "{line}");
        assert!(
            line.contains(&format!("the {field} holds the control character U+001B")),
            "{line}"
        );
        let status = referee_logged(&["check-bot", &bot], &s.join("check-bot")).status;
        assert!(!status.success(), "check-bot passed a bot whose {field} is an attack");
        assert!(
            std::fs::read_to_string(s.join("check-bot.out")).unwrap().contains("U+001B"),
            "check-bot does not say why"
        );
        assert_output_is_inert(&s);
    }
}

#[test]
fn control_characters_in_answers_reach_no_output() {
    let s = Scratch::new("control-lines");
    let bot = s.hostile("control_lines");
    let game = HOSTILE.play(
        &s,
        [&bot, RANDOM, RANDOM, RANDOM],
        &["--max-strikes", "10", "--log", "debug"],
    );
    let kinds: Vec<&str> = game.faults().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    // The junk is faulted or ignored, never obeyed: the bot keeps its seat (10 strikes).
    assert!(kinds.iter().filter(|&&k| k == "malformed").count() >= 4, "{kinds:?}");
    assert!(kinds.contains(&"stale_id"), "{kinds:?}");
    // Everything that prints what a bot said, besides the match and replay `play` ran.
    let record = s.record(1);
    let record = record.to_str().unwrap();
    for seat in ["0", "1"] {
        let status =
            referee_logged(&["replay", record, "--seat", seat], &s.join(&format!("seat{seat}")))
                .status;
        assert!(status.success(), "replay --seat {seat}: {status}");
    }
    let status = referee_logged(&["replay", record], &s.join("replay-account")).status;
    assert!(status.success());
    let account = std::fs::read_to_string(s.join("replay-account.out")).unwrap();
    assert!(account.contains("\\u{1b}[2J"), "the account shows the escape, escaped: {account}");
    let status = referee_logged(&["check-bot", &bot], &s.join("check-bot")).status;
    assert!(!status.success(), "check-bot passed a bot that sends junk");
    assert_output_is_inert(&s);
}
