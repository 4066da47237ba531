//! What the referee tells bots about the game, held to spec/protocol.md sections 4.2 and 4.4
//! with real bot processes: each test reads what a bot received (the signaller bot echoes every
//! line to its stderr log) and what the record says.

use crate::harness::{Scratch, assert_replays, jsonl, match_args, received, referee_ok, signaller};
use serde_json::Value;
use std::path::PathBuf;

/// Plays one game with four signaller bots (accepting every chant when `accept`) and `extra`
/// flags; returns the records folder.
fn play(tmp: &Scratch, accept: bool, extra: &[&str]) -> PathBuf {
    let bot = signaller(accept);
    let dir = tmp.records();
    // The signaller's false signals cost strikes; they are not what these tests are about.
    let flags = "--handshake-ms 20000 --max-strikes 1000";
    referee_ok(&[&match_args(flags, &dir, &[bot.as_str(); 4])[..], extra].concat());
    dir
}

/// Issue 12, section 5: `opening.votes` listed the votes in seat order; spec 4.4 and its
/// example list them in the order cast, from the dealer's left.
#[test]
fn opening_votes_come_in_the_order_cast() {
    let tmp = Scratch::new("votes");
    let dir = play(&tmp, true, &["--seed", "5"]);
    let mut wrapped = 0;
    for p in 0..4 {
        for msg in received(&dir, p).iter().filter(|m| m["type"] == "opening") {
            let dealer = msg["dealer"].as_u64().unwrap();
            let seats: Vec<u64> = msg["votes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["seat"].as_u64().unwrap())
                .collect();
            let cast: Vec<u64> = (1..=seats.len() as u64).map(|k| (dealer + k) % 4).collect();
            assert_eq!(seats, cast, "player {p}: {msg}");
            let mut sorted = seats.clone();
            sorted.sort();
            if sorted != seats {
                wrapped += 1;
            }
        }
    }
    // Seat order and the order cast differ only when the votes pass seat 0.
    assert!(wrapped > 0, "no opening question where the two orders differ");
    // The spec's own example: dealer 2, seats 3 and 0 have voted, seat 1 is asked.
    let deal3 =
        received(&dir, 1).into_iter().find(|m| m["type"] == "opening" && m["dealer"] == 2).unwrap();
    let seats: Vec<&Value> =
        deal3["votes"].as_array().unwrap().iter().map(|v| &v["seat"]).collect();
    assert_eq!(seats, [3, 0], "{deal3}");
}

/// Issue 12, section 5: with `--mordienne off --mordienne-run 3`, the `game` message and the
/// record said `"mordienne-run":2`. They say what the organiser set, and the record replays.
#[test]
fn the_mordienne_run_is_the_one_set_even_with_mordienne_off() {
    for (mordienne, run) in [("off", 3), ("on", 3), ("off", 2)] {
        let tmp = Scratch::new(&format!("mordienne-{mordienne}-{run}"));
        let run_text = run.to_string();
        let extra =
            ["--seed", "5", "--deals", "1", "--mordienne", mordienne, "--mordienne-run", &run_text];
        let dir = play(&tmp, false, &extra);
        let path = dir.join("game-000001.jsonl");
        let header = &jsonl(&path)[0];
        let said = |rules: &Value| (rules["mordienne"].clone(), rules["mordienne-run"].clone());
        assert_eq!(said(&header["rules"]), (mordienne.into(), run.into()), "the record's header");
        for p in 0..4 {
            let game = received(&dir, p).into_iter().find(|m| m["type"] == "game").unwrap();
            assert_eq!(said(&game["rules"]), (mordienne.into(), run.into()), "player {p}: {game}");
        }
        assert_replays(&path);
    }
}
