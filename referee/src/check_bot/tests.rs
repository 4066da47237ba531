//! check-bot's judging and scripting, on hand-made games and answers.

use super::answers::{judge_discard, judge_opening, judge_play, shorten};
use super::scripted::{act, dealt, scripted_deck};
use super::{Got, RAW_MAX, SEAT, with_extra};
use protocol::codec::decode_line;
use protocol::msg::{FromBot, ToBot};
use protocol::record::FaultKind;
use rules::{Action, Card, CardSet, Deck, DiscardRule, Game, Rules, Seat, Turn};

fn answer(line: &str) -> Got {
    match decode_line::<FromBot>(line.as_bytes()) {
        Ok(m) => Got::Answer(m, line.into()),
        Err(e) => Got::Bad(e.to_string(), line.into()),
    }
}

fn set(codes: &str) -> CardSet {
    codes.split_whitespace().map(|c| c.parse::<Card>().unwrap()).collect()
}

/// The checked seat, on the dealer's left: it votes, receives and leads first.
const ME: Seat = Seat::ALL[SEAT as usize];

/// A game of `rules` dealt by seat 0 where the checked seat holds `hand` and would receive
/// `received` if the chant is taken.
fn holding(rules: Rules, hand: CardSet, received: CardSet) -> Game {
    let dealer = Seat::ALL[0];
    let mut order: [Option<Card>; 48] = [None; 48];
    let mine = (0..12).filter(|p| dealer.plus(1 + (p % 4) as u8) == ME);
    for (slot, card) in mine.flat_map(|p| p * 3..p * 3 + 3).zip(hand.iter()) {
        order[slot] = Some(card);
    }
    for (slot, card) in (36..48).step_by(2).zip(received.iter()) {
        order[slot] = Some(card);
    }
    let mut rest = Card::all().filter(|c| !hand.union(received).contains(*c));
    let cards: Vec<Card> = order.iter().map(|c| c.or_else(|| rest.next()).unwrap()).collect();
    let game = dealt(rules, dealer, &Deck::from_cards(&cards).unwrap()).unwrap();
    assert_eq!(game.hand(ME), hand);
    game
}

/// The same game with the chant taken, the checked seat to discard.
fn discarding(rule: DiscardRule, hand: CardSet, received: CardSet) -> Game {
    let mut game = holding(Rules { discard: rule, ..Rules::default() }, hand, received);
    for seat in [SEAT, 2, 3, 0] {
        act(&mut game, seat, Action::Vote(true)).unwrap();
    }
    assert_eq!(game.to_act(), Some(Turn::Discard(ME)));
    game
}

#[test]
fn openings_need_accept_exactly_when_asked() {
    let hand = set("3o Ac Ab 5s 6s 7s 8s 9s Js");
    let voting = holding(Rules::default(), hand, CardSet::EMPTY);
    let silent = holding(Rules { chant: false, ..Rules::default() }, hand, CardSet::EMPTY);
    let ok = answer(r#"{"type":"opening","id":2,"accept":true,"signals":["monsieur","aces:2"]}"#);
    assert!(judge_opening(&ok, &voting, ME).is_ok());
    let e = judge_opening(&ok, &silent, ME).unwrap_err();
    assert_eq!(e.kind, FaultKind::WrongAnswer);
    assert!(e.detail.contains("expected no \"accept\" field"), "{}", e.detail);
    let none = answer(r#"{"type":"opening","id":2}"#);
    let e = judge_opening(&none, &voting, ME).unwrap_err();
    assert!(e.detail.contains("expected an \"accept\""), "{}", e.detail);
    let lie = answer(r#"{"type":"opening","id":2,"signals":["madame"]}"#);
    let e = judge_opening(&lie, &silent, ME).unwrap_err();
    assert_eq!(e.kind, FaultKind::BadSignal);
    assert!(e.detail.contains("\"madame\""), "{}", e.detail);
    let word = answer(r#"{"type":"opening","id":2,"signals":["tea"]}"#);
    assert!(judge_opening(&word, &silent, ME).unwrap_err().detail.contains("vocabulary"));
}

#[test]
fn discards_are_six_distinct_held_cards_and_obey_keep_highest() {
    let (dealt_hand, received) = (set("3o 3c 2o 2c 9c 9o 2b 2s Ao"), set("Ac 4b 5s 6c 7o 8b"));
    let free = discarding(DiscardRule::Free, dealt_hand, received);
    let keep = discarding(DiscardRule::KeepHighest, dealt_hand, received);
    assert_eq!(free.hand(ME), set("3o 3c 2o 2c 9c 9o 2b 2s Ao Ac 4b 5s 6c 7o 8b"));
    let five = answer(r#"{"type":"discard","id":3,"cards":["4b","4b","5s","6c","7o"]}"#);
    let e = judge_discard(&five, &free, ME).unwrap_err();
    assert_eq!(e.kind, FaultKind::WrongDiscard);
    assert!(
        e.detail.starts_with(r#"expected 6 distinct cards from the hand, got ["4b","4b""#),
        "{}",
        e.detail
    );
    let weakest = answer(r#"{"type":"discard","id":3,"cards":["4b","5s","6c","7o","8b","Ao"]}"#);
    assert!(judge_discard(&weakest, &keep, ME).is_ok());
    let strong = answer(r#"{"type":"discard","id":3,"cards":["3o","5s","6c","7o","8b","Ao"]}"#);
    assert!(judge_discard(&strong, &free, ME).is_ok());
    let e = judge_discard(&strong, &keep, ME).unwrap_err().detail;
    assert!(e.contains("3o is discarded but 4b is kept"), "{e}");
    let foreign = answer(r#"{"type":"discard","id":3,"cards":["Kb","5s","6c","7o","8b","Ao"]}"#);
    assert!(judge_discard(&foreign, &free, ME).unwrap_err().detail.contains("not in the hand"));
}

#[test]
fn plays_are_held_cards() {
    let hand = set("3o 4o 5o 2c 3c 5s 6s 7s 8s");
    let game = holding(Rules { chant: false, ..Rules::default() }, hand, CardSet::EMPTY);
    assert_eq!(game.to_act(), Some(Turn::Play(ME)));
    let play = |line: &str| judge_play(&answer(line), &game, ME);
    let (card, signals) = play(r#"{"type":"play","id":4,"card":"5s"}"#).unwrap();
    assert_eq!((card, signals), (set("5s").iter().next().unwrap(), Ok(())));
    let e = play(r#"{"type":"play","id":4,"card":"Kc"}"#).unwrap_err();
    assert_eq!(e.kind, FaultKind::IllegalCard);
    let expected =
        r#"expected a card from the hand ["3o","4o","5o","2c","3c","5s","6s","7s","8s"], got "Kc""#;
    assert!(e.detail.starts_with(expected), "{}", e.detail);
    let e = play(r#"{"type":"discard","id":4,"cards":[]}"#).unwrap_err();
    assert!(e.detail.contains("got a discard answer"), "{}", e.detail);
    let e = play("not json").unwrap_err().detail;
    assert!(e.contains("not a valid answer") && e.contains("line: not json"), "{e}");
    // A refused signal leaves the card standing, as in a match.
    let (card, signals) =
        play(r#"{"type":"play","id":4,"card":"5s","signals":["aces:2"]}"#).unwrap();
    assert_eq!(card, set("5s").iter().next().unwrap());
    assert_eq!(signals.unwrap_err().kind, FaultKind::BadSignal);
}

#[test]
fn long_lines_are_cut() {
    let long = "x".repeat(500);
    assert_eq!(shorten(&long).chars().count(), RAW_MAX + 3);
    assert_eq!(shorten("short"), "short");
}

#[test]
fn unknown_fields_are_spliced_into_the_line() {
    let line = with_extra(&ToBot::Chant { taken: true }, "x", "[1]");
    assert_eq!(line, "{\"type\":\"chant\",\"taken\":true,\"x\":[1]}\n");
}

#[test]
fn scripted_decks_fit() {
    let deck = scripted_deck(60, |d| d.hands(Seat::ALL[1])[1].contains(Card::MONSIEUR));
    assert!(deck.hands(Seat::ALL[1])[1].contains(Card::MONSIEUR));
}
