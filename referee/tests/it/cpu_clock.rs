//! The CPU clock (`--clock cpu`, spec/protocol.md section 5) against real bot processes: a bot
//! that burns CPU time is charged what it burned, one that sleeps is charged nothing but still
//! times out at the wall cap, and the records that carry `cpu_us` replay, whole and seat by seat.

use crate::harness::{
    Played, RANDOM, Record, SHORT_CLOCKS, Scratch, Suite, auto, detail, received,
};
use crate::harness::{record_path, referee_ok};
use serde_json::Value;

const MISBEHAVE: Suite =
    Suite { clocks: SHORT_CLOCKS, marks: &["misbehave.py"], command: Scratch::misbehave };

/// A match of misbehave.py in MODE in seat 0 against built-in bots, under the CPU clock with
/// these `answer_ms`, `bank_ms` and `wall_cap`, in the scratch folder `name`.
fn under_cpu_clock(name: &str, mode: &str, [answer, bank, cap]: [&str; 3]) -> (Scratch, Played) {
    let s = Scratch::new(name);
    let flags = ["--clock", "cpu", "--answer-ms", answer, "--bank-ms", bank, "--wall-cap", cap];
    let bots = [&*Scratch::misbehave(&s, mode), RANDOM, RANDOM, RANDOM];
    let game = MISBEHAVE.play(&s, bots, &flags);
    (s, game)
}

/// The answer lines of `seat` that the bot gave (not the referee's fallbacks), in order.
fn answers(record: &Record, seat: u64) -> Vec<&Value> {
    record
        .record()
        .iter()
        .filter(|l| {
            matches!(l["type"].as_str(), Some("vote" | "opening" | "discard" | "play"))
                && l["seat"] == seat
                && !auto(l)
        })
        .collect()
}

/// A bot that burns 30 ms of CPU time per play is charged its CPU time: every play records a
/// `cpu_us` of at least that, the bank each question states is exactly the bank less what the
/// recorded CPU times overran, and the built-in bots (no process of their own) are measured by
/// nobody.
#[test]
fn a_busy_bot_is_charged_its_cpu_time() {
    let (s, game) = under_cpu_clock("cpu-clock-busy", "burn", ["10", "4000", "20"]);
    let header = game.header();
    assert_eq!(header["clock"]["mode"], "cpu");
    assert_eq!(header["clock"]["wall_cap"], 20);
    let measured: Vec<bool> = (0..4).map(|i| header["seats"][i]["cpu"] == true).collect();
    assert_eq!(measured, [true, false, false, false]);
    assert!(game.faults().is_empty(), "{:#?}", game.faults());

    let mine = answers(&game, 0);
    let cpu = |l: &Value| l["cpu_us"].as_u64().unwrap_or_else(|| panic!("no cpu_us: {l}"));
    for play in mine.iter().filter(|l| l["type"] == "play") {
        // Generous: the busy loop is 30 ms; reading, parsing and writing add a little.
        assert!((30_000..1_000_000).contains(&cpu(play)), "{play}");
    }
    for l in answers(&game, 1) {
        assert!(l.get("cpu_us").is_none(), "a built-in bot is not measured: {l}");
    }
    let total: u64 = mine.iter().map(|l| cpu(l)).sum();
    assert_eq!(game.stats(0)["cpu_us"], total);

    // The bank of each question is the bank less every earlier overrun of the CPU time.
    let questions: Vec<Value> = received(&s.records(), 0)
        .into_iter()
        .filter(|m| matches!(m["type"].as_str(), Some("opening" | "discard" | "play")))
        .collect();
    assert_eq!(questions.len(), mine.len(), "one answer to each question");
    let mut bank_us: u64 = 4_000_000;
    for (q, a) in questions.iter().zip(&mine) {
        assert_eq!(q["bank_ms"], bank_us / 1000, "question {q} after answers charged by cpu_us");
        bank_us = bank_us.saturating_sub(cpu(a).saturating_sub(10_000));
    }
    assert!(bank_us < 4_000_000 - 500_000, "a game of 30 ms plays spends the bank");
}

/// A bot that sleeps spends no CPU time, so its 100 ms naps cost no bank (the wall clock would
/// time out the fourth: 100 ms answers against 50 ms and a 200 ms bank); its 4.4 s nap still
/// times out at the wall cap (16 x 250 ms), and it plays on: it answers its next question at
/// once, while that question's wall cap, 16 x 50 ms with the bank spent, runs. Both margins are
/// 400 ms: with a 2.1 s nap against an 8x cap, a referee kept from running for over 100 ms
/// (CI, beside the ladders) found the answer waiting at its deadline and rightly took it.
#[test]
fn a_sleeping_bot_is_charged_nothing_but_times_out_at_the_wall_cap() {
    let (_s, game) = under_cpu_clock("cpu-clock-sleep", "nap", ["50", "200", "16"]);
    let faults = game.faults();
    let timeouts: Vec<&&Value> = faults.iter().filter(|f| f["kind"] == "timeout").collect();
    assert_eq!(timeouts.len(), 1, "{faults:#?}");
    assert_eq!(
        detail(timeouts[0]),
        "no answer within 250 ms of CPU time (4000 ms of wall time at most)"
    );
    let plays = game.plays(0);
    assert!(plays[..7].iter().all(|p| !auto(p)), "seven naps in time");
    // The clock starts when the referee sees its write done, which a busy machine can delay
    // past the bot's first moments: "about 100 ms".
    assert!(plays[..7].iter().all(|p| p["us"].as_u64().unwrap() >= 80_000), "they napped");
    assert!(auto(plays[7]), "the long nap timed out");
    assert!(plays[8..].iter().all(|p| !auto(p)), "every later answer is in time");
}

/// A bot that spends CPU time without answering times out when it has spent its CPU time, not
/// at the wall cap: here 150 ms of CPU time against a cap of 10 s. The game goes on (the bot,
/// still spinning, times out at once on its later questions until it is replaced), and ends
/// long before a single wall cap would have passed.
#[test]
fn a_spinning_bot_times_out_on_its_cpu_time() {
    let (_s, game) = under_cpu_clock("cpu-clock-spin", "spin", ["50", "100", "66"]);
    let faults = game.faults();
    let first = faults.iter().find(|f| f["kind"] == "timeout").expect("a timeout");
    assert_eq!(detail(first), "no answer within 150 ms of CPU time (9900 ms of wall time at most)");
    assert!(faults.iter().any(|f| f["penalty"] == "replaced"), "{faults:#?}");
    let ms = game.footer()["duration_ms"].as_u64().unwrap();
    assert!(ms < 9_900, "the game waited for a wall cap: {ms} ms");
}

/// One overrun is charged once (issue 23): a bot that spends 450 ms of CPU time on its 2nd
/// play, against 200 ms and a 100 ms bank, times out there, and the count starts afresh: what
/// it spends after the timeout (about 150 ms, between questions) counts towards the next
/// question, which it answers in time, as it does every later one. Counting on from the old
/// mark, every later question began over its budget and timed out until the bot was replaced.
#[test]
fn an_overrun_under_the_cpu_clock_costs_one_answer() {
    let (_s, game) = under_cpu_clock("cpu-clock-overrun", "overrun", ["200", "100", "20"]);
    let faults = game.faults();
    let timeouts: Vec<&&Value> = faults.iter().filter(|f| f["kind"] == "timeout").collect();
    assert_eq!(timeouts.len(), 1, "{faults:#?}");
    assert_eq!(
        detail(timeouts[0]),
        "no answer within 300 ms of CPU time (6000 ms of wall time at most)"
    );
    assert!(faults.iter().all(|f| f["penalty"] != "replaced"), "{faults:#?}");
    let plays = game.plays(0);
    assert!(!auto(plays[0]) && auto(plays[1]), "the 2nd play timed out");
    assert!(plays[2..].iter().all(|p| !auto(p)), "every later answer is in time");
}

/// A record made under the CPU clock replays seat by seat: `replay --seat` re-runs the game on
/// a paused clock charging the recorded `cpu_us`, and holds the outcome to the record's.
#[test]
fn cpu_clock_records_replay_seat_by_seat() {
    let (s, _) = under_cpu_clock("cpu-clock-seat", "burn", ["10", "4000", "20"]);
    let record = record_path(&s.records(), 1);
    let out = referee_ok(&["replay", record.to_str().unwrap(), "--seat", "0"]);
    assert!(out.lines().count() > 20, "{out}");
    let account = referee_ok(&["replay", record.to_str().unwrap()]);
    assert!(account.contains("Clock: cpu (wall cap 20x)"), "{account}");
    assert!(account.contains(", cpu "), "the account shows CPU times: {account}");
}
