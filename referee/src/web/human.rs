//! A person's seat over its page's WebSocket: the seat's lines go to the page as text messages
//! and the page's messages come back as lines. The seat itself, which outlives the page's
//! connection (feature `resume`), is `bot::relay`, and the loop that carries it is
//! `bot/relay/carry.rs`'s; this file is only the WebSocket's end of it ([`SeatLink`]), and the
//! one place that tells the page, with each question, what the rules allow its answer
//! (spec/protocol.md section 9.1): the page states no rule of its own.

use crate::bot::relay::Resumable;
use crate::bot::relay::carry::{SeatLink, take_seat};
use axum::extract::ws::{Utf8Bytes, WebSocket};
use protocol::ToBot;
use rules::{CardSet, DISCARD_COUNT, DiscardChoice, DiscardRule, Rules, allowed_signals};
use serde_json::json;
use std::sync::Arc;

/// A page at its seat: the seat's messages out, the page's messages in as lines, by the seat's
/// one carrying loop.
pub(super) async fn play(socket: WebSocket, seat: Arc<Resumable>, max_line: usize) {
    let page = Page { socket, max_line, told: Told::default(), heard: Utf8Bytes::default() };
    take_seat(seat, page).await;
}

/// A page's WebSocket holding its seat: a message is a line each way. A page that does not take
/// a message in time is let go, as a spectator's is (the seat waits its grace for it to connect
/// again); a message over `max_line` or holding a line break ends it.
struct Page {
    socket: WebSocket,
    max_line: usize,
    told: Told,
    /// The page's last message, which [`SeatLink::next`] lends.
    heard: Utf8Bytes,
}

impl SeatLink for Page {
    async fn send(&mut self, line: String) -> bool {
        super::send(&mut self.socket, self.told.for_page(line)).await
    }

    async fn next(&mut self) -> Option<&[u8]> {
        self.heard = super::recv_line(&mut self.socket, self.max_line).await?;
        Some(self.heard.as_bytes())
    }
}

/// What one page connection has been told that the rules' answers depend on: the rules in
/// force, from the game's `game` notice (a page that takes the seat back is sent the game again
/// from its `game`, spec/protocol.md 9.2).
#[derive(Debug, Default)]
struct Told {
    rules: Option<Rules>,
}

impl Told {
    /// The seat's line as the page gets it: a question gains `legal`, what the rules allow its
    /// answer; any other line goes as it is.
    fn for_page(&mut self, text: String) -> String {
        let Ok(msg) = protocol::decode_line(text.as_bytes()) else { return text };
        if let ToBot::Game { rules, .. } = &msg {
            self.rules = convert::rules_from_wire(rules).ok().map(|(r, _)| r);
            return text;
        }
        let Some(legal) = self.legal(&msg) else { return text };
        match text.strip_suffix('}') {
            // The line is one JSON object (it decoded as one), so its last byte closes it.
            Some(open) => format!("{open},\"legal\":{legal}}}"),
            None => text,
        }
    }

    /// What the rules allow the answer to a question: the signals it may carry (none while the
    /// rules are not known yet) and, for a discard, every legal discard as the cards it must
    /// and may hold, with the weakest six as the choice offered first.
    fn legal(&self, msg: &ToBot) -> Option<serde_json::Value> {
        let hand = match msg {
            ToBot::Opening { hand, .. }
            | ToBot::Discard { hand, .. }
            | ToBot::Play { hand, .. }
            | ToBot::Offer { hand, .. }
            | ToBot::Reply { hand, .. }
            | ToBot::Announce { hand, .. } => convert::set(hand).0,
            _ => return None,
        };
        let signals: Vec<String> = match &self.rules {
            Some(rules) => allowed_signals(hand, rules).map(|s| s.to_string()).collect(),
            None => Vec::new(),
        };
        let mut legal = json!({ "signals": signals });
        if let ToBot::Discard { rule, .. } = msg {
            let rule = match rule {
                protocol::options::DiscardRule::Free => DiscardRule::Free,
                protocol::options::DiscardRule::KeepHighest => DiscardRule::KeepHighest,
            };
            let choice = DiscardChoice::of(hand, rule);
            legal["discard"] = json!({
                "count": DISCARD_COUNT,
                "must": convert::codes(choice.must),
                "may": convert::codes(choice.may),
                "default": convert::codes(choice.weakest().unwrap_or(CardSet::EMPTY)),
            });
        }
        Some(legal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{Card, SignalTruth, check_discard, check_signal};
    use serde_json::Value;

    const GAME: &str = r#"{"type":"game","game":1,"seat":0,"partner":2,"players":["a","b","c","d"],"rules":{"seating":"given","chant":"on","chant-second":"dealer","discard":"keep-highest","all-spoiled":"nothing","mordienne":"on","mordienne-run":2,"deals":5,"on-tie":"draw","signals":"partner","signal-leak":0.25,"signal-truth":"truthful"},"clock":{"handshake_ms":10000,"answer_ms":1000,"bank_ms":5000}}"#;

    fn page(told: &mut Told, line: &str) -> Value {
        serde_json::from_str(&told.for_page(line.to_string())).unwrap()
    }

    fn set(v: &Value) -> CardSet {
        v.as_array().unwrap().iter().map(|c| c.as_str().unwrap().parse::<Card>().unwrap()).collect()
    }

    /// The discard question: `must` and `may` say exactly which six-card discards the rules
    /// accept, the choice offered first is one of them, and the signals offered are exactly the
    /// ones the rules accept from that hand; the bot's own fields are untouched.
    #[test]
    fn a_discard_question_says_what_the_rules_allow() {
        let mut told = Told::default();
        assert_eq!(told.for_page(GAME.to_string()), GAME);
        let hand = "3o 2c 9o Ao Ab Kc Cs Jb 8s 8b 7o 6c 5s 4b 3b";
        let codes: Vec<String> = hand.split(' ').map(|c| format!("\"{c}\"")).collect();
        let line = format!(
            r#"{{"type":"discard","id":9,"deal":1,"hand":[{}],"received":["Ao","Ab","Kc","Cs","Jb","8s"],"rule":"keep-highest","time_ms":120000,"bank_ms":600000}}"#,
            codes.join(",")
        );
        // Exactly the example of spec/protocol.md section 9.1.
        let spec = include_str!("../../../spec/protocol.md");
        let sent = told.for_page(line.clone());
        assert!(spec.contains(&format!("> {sent}\n")), "{sent}");
        let q = page(&mut told, &line);
        assert_eq!((q["type"].as_str(), q["id"].as_u64()), (Some("discard"), Some(9)));
        let hand: CardSet = hand.split(' ').map(|c| c.parse::<Card>().unwrap()).collect();
        let d = &q["legal"]["discard"];
        let (must, may) = (set(&d["must"]), set(&d["may"]));
        assert_eq!(d["count"], 6);
        let cards: Vec<Card> = hand.iter().collect();
        for bits in (0u32..1 << 15).filter(|b| b.count_ones() == 6) {
            let chosen: CardSet =
                (0..15).filter(|i| bits & 1 << i != 0).map(|i| cards[i]).collect();
            let told_ok = must.is_subset(chosen) && chosen.is_subset(may);
            let rules_ok = check_discard(hand, chosen, DiscardRule::KeepHighest).is_ok();
            assert_eq!(told_ok, rules_ok, "{chosen:?}");
        }
        assert!(check_discard(hand, set(&d["default"]), DiscardRule::KeepHighest).is_ok());
        let rules = Rules { discard: DiscardRule::KeepHighest, ..Rules::default() };
        assert_eq!(rules.signal_truth, SignalTruth::Truthful);
        let offered: Vec<&str> =
            q["legal"]["signals"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
        assert_eq!(offered, ["monsieur", "vache", "petit-neuf", "aces:2", "bad-hand", "mordienne"]);
        for s in rules::Signal::ALL {
            let word = s.to_string();
            assert_eq!(offered.contains(&word.as_str()), check_signal(s, hand, &rules).is_ok());
        }
    }

    /// Other lines go as they came; a question before any `game` offers no signal.
    #[test]
    fn notices_are_untouched_and_unknown_rules_allow_no_signal() {
        let mut told = Told::default();
        let played = r#"{"type":"played","seat":1,"card":"3o","trick":1}"#;
        assert_eq!(told.for_page(played.to_string()), played);
        let q = page(
            &mut told,
            r#"{"type":"offer","id":3,"deal":1,"hand":["3o"],"score":[0,0],"time_ms":1,"bank_ms":1}"#,
        );
        assert_eq!(q["legal"], json!({ "signals": [] }));
    }
}
