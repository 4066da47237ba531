//! The human seat's page as a person meets it (issue 26), in the system Chromium at a desktop's
//! width (1280 px) and a phone's (390 px): the real referee, a whole game clicked through by
//! `referee/browser/seat.js`, and its report held to the record. Nothing is wider than the
//! screen; after a reload the clock is the referee's, within a second; a discard the page
//! refuses says why, on screen; the last trick stays on the table labelled by seat with its
//! winner; a card the referee refuses is explained and the table shows the card it played.
//! Screenshots go to `target/web-screenshots/seat-WIDTH-*.png`.
//!
//! The page states no rule of its own (issue 25): the signals it offers at each question are
//! exactly those `rules` allows the hand it shows, and of the discards it is made to try it
//! refuses exactly those `rules::check_discard` refuses, and sends no other.
//!
//! The clock is checked last: it holds once the referee sends a resumed seat's open question
//! with the time and bank left at that moment (spec/protocol.md 9.2), which the page counts
//! down from as from any question.

use super::web::{Served, ensure_tools, match_args, quick, run_driver, screenshots};
use crate::harness::{Scratch, check_record, jsonl, s};
use serde_json::Value;

/// A person's answer time in these games: long enough that only the test's waits spend it.
const ANSWER_MS: u64 = 90_000;

/// Plays the game at `width` px; the driver's report and the record's lines.
fn play_at(width: u32) -> (Value, Vec<Value>) {
    ensure_tools();
    let sc = Scratch::new(&format!("web-seat-{width}"));
    let records = sc.records();
    let answer = ANSWER_MS.to_string();
    let served = Served::start(&match_args(s(&records), &["--human-answer-ms", &answer]));
    let out = screenshots();
    let report =
        run_driver("seat.js", &[quick(&served.seat_url), s(&out).to_string(), width.to_string()]);
    served.finish();
    let path = records.join("game-000001.jsonl");
    check_record(&path);
    (report, jsonl(&path))
}

/// The recorded answer of seat 0 that played `card` in deal `deal`.
fn seat0_play<'a>(lines: &'a [Value], deal: u64, card: &str) -> &'a Value {
    let mut current = 0;
    lines
        .iter()
        .find(|l| {
            if l["type"] == "deal" {
                current = l["deal"].as_u64().unwrap_or(0);
            }
            current == deal && l["type"] == "play" && l["seat"] == 0 && l["card"] == card
        })
        .unwrap_or_else(|| panic!("no play of {card} by seat 0 in deal {deal}"))
}

fn check_seat_page(width: u32) {
    let (report, lines) = play_at(width);
    assert_eq!(report["errors"], serde_json::json!([]), "the page's console: {report}");
    assert!(report["result"].as_str().unwrap_or("").starts_with("game over"), "{report}");
    assert_eq!(report["plays"], 36, "{report}");

    // Nothing wider than the screen, the move panel on it, at every question and at the end.
    let checks = report["checks"].as_array().unwrap();
    assert!(checks.len() > 36, "{report}");
    for c in checks {
        assert!(c["scrollWidth"].as_u64() <= c["viewport"].as_u64(), "wider than the screen: {c}");
        assert_eq!(c["wide"], serde_json::json!([]), "past the screen's edge: {c}");
        assert_eq!(c["askOnScreen"], true, "the move panel is off screen: {c}");
    }

    // The discard the page refused says why, where the person looks.
    let refusal = &report["discardRefusal"];
    assert!(refusal["text"].as_str().unwrap_or("").contains("keep-highest"), "{report}");
    assert_eq!(refusal["onScreen"], true, "{report}");

    // The last trick: four cards, each labelled by its seat, the winner marked (or spoiled).
    let last = &report["lastTrick"];
    let slots = last["slots"].as_array().expect("a last trick was shown");
    assert_eq!(slots.len(), 4, "{last}");
    let label = last["label"].as_str().unwrap();
    let winners: Vec<&Value> = slots.iter().filter(|s| s["winner"] == true).collect();
    if label.contains("spoiled") {
        assert!(winners.is_empty(), "{last}");
    } else {
        assert_eq!(winners.len(), 1, "{last}");
        assert!(winners[0]["by"].as_str().unwrap().contains(" win"), "{last}");
    }
    for slot in slots {
        let by = slot["by"].as_str().unwrap();
        let seat = slot["seat"].as_u64().unwrap();
        let named = if seat == 0 { by.starts_with("you") } else { by.contains("heuristic") };
        assert!(named, "seat {seat}'s card is labelled {by:?}: {last}");
    }

    // The table marks the partner across and the seat to act, and the score says "you".
    assert_eq!(report["partnerAtTop"], true, "{report}");
    assert!(report["turnSeen"].as_u64() > Some(0), "{report}");
    assert_eq!(report["scoreSaysYou"], true, "{report}");

    // A card the referee refused: the reason and the card it played, on the table.
    let swapped = &report["swapped"];
    let refusal = swapped["refusal"].as_str().unwrap_or("");
    assert!(refusal.contains("Why:") && refusal.contains("not in your hand"), "{swapped}");
    let clicked = swapped["clicked"].as_str().unwrap();
    let shown = swapped["tableCard"].as_str().expect("the table shows seat 0's card");
    assert_ne!(shown, clicked, "{swapped}");
    assert_eq!(
        swapped["leftHand"], shown,
        "the card that left the hand is the one shown: {swapped}"
    );
    let in_hand = swapped["inHand"].as_array().unwrap();
    assert!(in_hand.iter().any(|c| c == clicked), "the card clicked stays in the hand: {swapped}");
    let fallback = lines
        .iter()
        .find(|l| l["type"] == "play" && l["seat"] == 0 && l["auto"] == true)
        .expect("the fallback's card in the record");
    assert_eq!(fallback["card"], shown, "{swapped}");
    assert!(lines.iter().any(|l| l["type"] == "fault" && l["kind"] == "illegal_card"));

    // The end of the game: a summary on the table, on screen.
    let summary = &report["summary"];
    assert!(summary["text"].as_str().unwrap_or("").contains("Game over"), "{report}");
    assert_eq!(summary["onScreen"], true, "{report}");

    // After the reload, the clock is the referee's: what the page showed as the card was
    // clicked against what the record says the answer took.
    let clock = &report["clock"];
    let play = seat0_play(&lines, clock["deal"].as_u64().unwrap(), clock["card"].as_str().unwrap());
    let used_ms = play["us"].as_f64().unwrap() / 1000.0;
    assert!(
        used_ms >= clock["waitedMs"].as_f64().unwrap(),
        "the answer came after the wait: {play}"
    );
    let referee_left = ANSWER_MS as f64 - used_ms;
    let page_left = clock["timeMs"].as_f64().unwrap();
    assert!(
        (page_left - referee_left).abs() <= 1000.0,
        "the page showed {page_left} ms left, the referee's clock {referee_left} ms: {clock}"
    );
}

/// The cards of a list of codes.
fn cards(v: &Value) -> rules::CardSet {
    let codes = v.as_array().unwrap_or_else(|| panic!("not a card list: {v}"));
    codes.iter().map(|c| c.as_str().and_then(|c| c.parse().ok()).expect("a card code")).collect()
}

/// Issue 25: what the page offers is what the rules allow. Each question's signals are the
/// ones `rules::allowed_signals` gives the hand shown; each discard tried is refused on screen
/// exactly when `rules::check_discard` refuses it, and every discard sent is legal.
#[test]
fn the_seat_page_offers_the_signals_and_discards_the_rules_allow_and_no_other() {
    // A width of its own, so its scratch folder and screenshots are its own.
    let (report, lines) = play_at(1024);
    assert_eq!(report["errors"], serde_json::json!([]), "the page's console: {report}");
    let header = lines.iter().find(|l| l["type"] == "header").expect("a header");
    let wire: protocol::RulesWire = serde_json::from_value(header["rules"].clone()).unwrap();
    let (rules, _) = convert::rules_from_wire(&wire).unwrap();
    assert_eq!(rules.discard, rules::DiscardRule::KeepHighest);
    assert_eq!(rules.signal_truth, rules::SignalTruth::Truthful);

    let offers = report["offers"].as_array().unwrap();
    assert!(offers.len() > 36, "{report}");
    let mut forbidden_seen = false;
    for offer in offers {
        let hand = cards(&offer["hand"]);
        let allowed: Vec<String> =
            rules::allowed_signals(hand, &rules).map(|s| s.to_string()).collect();
        let shown: Vec<&str> =
            offer["signals"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
        assert_eq!(shown, allowed, "the signals offered with {hand:?}: {offer}");
        forbidden_seen |= allowed.len() < rules::Signal::ALL.len();
    }
    assert!(forbidden_seen, "no hand made any signal false: the check proves nothing");

    let discard = &report["discard"];
    let hand = cards(&discard["hand"]);
    assert_eq!(hand.len(), 15, "{discard}");
    for sent in discard["sent"].as_array().unwrap() {
        let cards = cards(&sent["cards"]);
        assert!(rules::check_discard(hand, cards, rules.discard).is_ok(), "the page sent {sent}");
    }
    let offered = cards(&discard["offered"]);
    assert!(rules::check_discard(hand, offered, rules.discard).is_ok(), "{discard}");
    let probes = discard["probes"].as_array().unwrap();
    let mut refused = 0;
    for probe in probes {
        let tried = cards(&probe["tried"]);
        let legal = rules::check_discard(hand, tried, rules.discard).is_ok();
        let said = probe["problem"].as_str().unwrap();
        assert_eq!(said.is_empty(), legal, "the page on {tried:?}: {probe}");
        assert_eq!(probe["open"] == false, legal, "sent only when legal: {probe}");
        refused += usize::from(!legal);
    }
    assert!(refused > 0, "no illegal discard was tried: {discard}");
    assert!(!lines.iter().any(|l| l["type"] == "fault" && l["kind"] == "wrong_discard"));
}

/// Issue 26, at a desktop's width.
#[test]
fn the_seat_page_at_1280_px_fits_keeps_the_referees_clock_and_explains_refusals() {
    check_seat_page(1280);
}

/// Issue 26, at a phone's width.
#[test]
fn the_seat_page_at_390_px_fits_keeps_the_referees_clock_and_explains_refusals() {
    check_seat_page(390);
}
