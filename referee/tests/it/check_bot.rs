//! `referee check-bot` end to end: the real binary against real bot processes on the real clock.
//! Every sample bot must pass every check, and each bot of tests/check_bot_bots/broken_bot.py
//! must fail the check that covers its one mistake, with a message that says what was expected.

use crate::harness::{
    Scratch, js_bot, py_heuristic, py_random, python, referee_cmd, run_limited, rust_bot, text,
    unplayable,
};
use serde_json::Value;
use std::time::{Duration, Instant};

/// A check-bot run takes about a second; one still running after this is hung.
const HANG: Duration = Duration::from_secs(30);
/// Every check, in the order they are printed.
const CHECKS: [&str; 10] = [
    "handshake",
    "unknown-fields",
    "opening",
    "discard",
    "play",
    "surrender",
    "game",
    "second-game",
    "bye",
    "time",
];

fn broken(mode: &str) -> String {
    python("referee/tests/check_bot_bots/broken_bot.py", mode)
}

/// What one run of `referee check-bot` left: its exit status, output, and duration.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Run {
    /// The line of one check, asserting it is there exactly once.
    fn line(&self, check: &str) -> &str {
        let prefix = format!("  {check}: ");
        let lines: Vec<&str> = self.stdout.lines().filter(|l| l.contains(&prefix)).collect();
        assert_eq!(lines.len(), 1, "one line for {check}:\n{}", self.stdout);
        lines[0]
    }

    fn passed(&self, check: &str) -> bool {
        self.line(check).starts_with("PASS  ")
    }

    /// Asserts that `check` failed and that its line holds every one of `words`.
    fn assert_fails(&self, check: &str, words: &[&str]) {
        let line = self.line(check);
        assert!(
            line.starts_with(&format!("FAIL  {check}: ")),
            "{check} should fail:\n{}",
            self.stdout
        );
        for w in words {
            assert!(line.contains(w), "{check} should say {w:?}:\n{line}");
        }
    }
}

fn check_bot(args: &[&str]) -> Run {
    let start = Instant::now();
    let mut cmd = referee_cmd(&["check-bot"]);
    cmd.args(args);
    let out = run_limited(&mut cmd, HANG);
    Run {
        code: out.status.code(),
        stdout: text(&out.stdout),
        stderr: text(&out.stderr),
        took: start.elapsed(),
    }
}

/// A bot that follows the protocol passes every check, in order, and the exit status is 0.
fn assert_all_pass(bot: &str) {
    let run = check_bot(&[bot]);
    assert_eq!(run.code, Some(0), "{bot}:\n{}{}", run.stdout, run.stderr);
    let names: Vec<&str> = run
        .stdout
        .lines()
        .map(|l| l.split_once(": ").map_or(l, |(head, _)| head))
        .map(|head| head.trim_start_matches("PASS").trim_start_matches("FAIL").trim())
        .collect();
    assert_eq!(names, CHECKS, "{}", run.stdout);
    for check in CHECKS {
        assert!(run.passed(check), "{bot}: {check} should pass:\n{}", run.stdout);
    }
}

#[test]
fn python_random_bot_passes() {
    assert_all_pass(&py_random());
}

#[test]
fn python_heuristic_bot_passes() {
    let bot = py_heuristic();
    let run = check_bot(&[&bot]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    // The exact wording of the first line is the one the README shows.
    assert_eq!(
        run.line("handshake"),
        "PASS  handshake: answered hello with name \"py-heuristic\" version \"1.0\" author \
         \"aluette sample bots\""
    );
    assert!(run.line("bye").contains("exited with status 0"), "{}", run.stdout);
    assert!(run.line("time").contains("limit 1000 ms"), "{}", run.stdout);
}

#[test]
fn javascript_bot_passes() {
    assert_all_pass(&js_bot());
}

#[test]
fn builtin_heuristic_passes_and_json_lists_every_check() {
    assert_all_pass("builtin:heuristic");
    let run = check_bot(&["builtin:heuristic", "--json"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("--json prints one JSON document");
    let checks = doc.as_array().expect("an array of checks");
    let names: Vec<&str> = checks.iter().map(|c| c["check"].as_str().unwrap_or("?")).collect();
    assert_eq!(names, CHECKS);
    for c in checks {
        assert_eq!(c["pass"], true, "{c}");
        assert!(c["detail"].as_str().is_some_and(|d| !d.is_empty()), "{c}");
    }
}

#[test]
fn accept_without_a_vote_fails_the_opening_check() {
    let run = check_bot(&[&broken("accept-always")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.passed("handshake") && run.passed("unknown-fields"), "{}", run.stdout);
    run.assert_fails(
        "opening",
        &["no vote asked", "expected no \"accept\" field", "got \"accept\":true", "line: {"],
    );
    // The games show the same mistake as the referee records it.
    run.assert_fails("game", &["wrong_answer", "accept must be absent"]);
    assert!(run.stderr.contains("checks failed"), "{}", run.stderr);
}

#[test]
fn five_card_discard_fails_the_discard_check() {
    let run = check_bot(&[&broken("discard-five")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails(
        "discard",
        &["free: expected 6 distinct cards from the hand, got [", "line: {\"type\":\"discard\""],
    );
    assert!(run.passed("opening") && run.passed("play") && run.passed("bye"), "{}", run.stdout);
}

/// The feature `surrender`: the sample bots take it up and answer the three questions (their
/// lines say so), and a bot that answers them with the wrong type fails only that check, and
/// in a real game records the `wrong_answer` a match would.
#[test]
fn pledge_answers_of_the_wrong_type_fail_the_surrender_check() {
    let run = check_bot(&[&broken("wrong-pledge")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails(
        "surrender",
        &[
            "offer: expected a offer answer, got a announce answer",
            "reply: expected a reply answer, got a offer answer",
            "announce: expected a announce answer, got a reply answer",
        ],
    );
    for check in ["handshake", "opening", "discard", "play", "game", "bye"] {
        assert!(run.passed(check), "{check}:\n{}", run.stdout);
    }
}

#[test]
fn the_sample_bots_answer_the_surrender_questions() {
    for bot in [py_heuristic(), rust_bot()] {
        let run = check_bot(&[&bot]);
        assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
        let line = run.line("surrender");
        for asked in ["answered offer with", "answered reply with", "answered announce with"] {
            assert!(line.contains(asked), "{bot}: {line}");
        }
    }
    // A bot without the feature is not asked, and passes.
    let run = check_bot(&[&js_bot()]);
    assert!(run.line("surrender").contains("not asked"), "{}", run.stdout);
}

#[test]
fn card_not_held_fails_the_play_check() {
    let run = check_bot(&[&broken("foreign-card")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails("play", &["leading (trick 1)", "expected a card from the hand [", "got \""]);
    run.assert_fails("game", &["illegal_card"]);
    assert!(run.passed("discard"), "{}", run.stdout);
}

#[test]
fn choking_on_unknown_fields_fails_and_blocks_the_rest() {
    let run = check_bot(&[&broken("strict-fields")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.passed("handshake"), "{}", run.stdout);
    run.assert_fails("unknown-fields", &["tea_time", "no longer running (exit code 2)"]);
    for check in &CHECKS[2..] {
        run.assert_fails(check, &["the bot is no longer running (exit code 2)"]);
    }
}

#[test]
fn silent_bot_fails_the_handshake_within_its_limit() {
    let run = check_bot(&["--handshake-ms", "1000", &broken("silent")]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails("handshake", &["no answer to the hello (id 1) within 1000 ms"]);
    for check in &CHECKS[1..] {
        run.assert_fails(check, &["not checked: no valid handshake"]);
    }
    // Not a speed check: the only bound that separates the 1 s limit from the default 10 s,
    // with room for a loaded machine to take eight seconds to start Python and the referee.
    assert!(run.took < Duration::from_millis(9_000), "took {:?}: the default limit", run.took);
}

/// Issue 17: check-bot read its bot with a loop of its own, which did not watch the process: a
/// line that a dead bot's child wrote in the moment before the referee swept it could be taken
/// for the bot's answer. It is heard by the match's loop now, where the exit wins: the
/// conversation ends at the question after the exit, and none of the child's lines counts.
#[test]
fn answers_written_for_a_dead_bot_are_not_taken() {
    let pids = std::env::temp_dir().join(format!("check-bot-orphan-{}.pids", std::process::id()));
    let bot = python("sample-bots/hostile/orphan_answers.py", &format!("'{}'", pids.display()));
    let run = check_bot(&[&bot]);
    let _ = std::fs::remove_file(&pids);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails(
        "play",
        // "(exit code 0)", or "(ended)" when the check reads the end before the exit status.
        &["an answer to the play question (trick 2)", "no longer running ("],
    );
    for check in &CHECKS[5..] {
        run.assert_fails(check, &["the bot is no longer running ("]);
    }
}

#[test]
fn a_program_that_cannot_start_fails_the_handshake() {
    let run = check_bot(&["/nonexistent/aluette-bot"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails("handshake", &["cannot start /nonexistent/aluette-bot"]);
    run.assert_fails("time", &["could not be started"]);
}

/// A hello answer that names another protocol version fails the handshake, with the words a
/// match uses for it (one check of the version, `bot::check_hello`, for both).
#[test]
fn a_bot_of_another_protocol_version_fails_the_handshake() {
    let tmp = Scratch::new("other-version");
    let (_, bot, _) =
        unplayable(&tmp).into_iter().find(|(case, ..)| *case == "refuses").expect("the case");
    let run = check_bot(&[&bot]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    run.assert_fails("handshake", &["the bot speaks protocol 99, this referee speaks 1"]);
}
