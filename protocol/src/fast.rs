//! Hand-written fast paths for the lines of the referee's hot loop: the encoding of every
//! message it sends and of every record line it writes, and the decoding of the one answer most
//! lines carry, a canonical `play`.
//! Several lines cross for every answer, and serde's generic code cost more instructions than the
//! rest of the referee's turn together (callgrind, issue 8). Both give exactly what serde gives
//! (the same bytes; the same value), which the tests and the codec fuzz harness check, so the
//! serde derives stay the specification and the fallback.

use crate::codec::{DecodeError, decode_line, encode_into};
use crate::msg::{FromBot, SeatNo, TableCard, ToBot, VoteCast};
use crate::record::RecordLine;
use crate::wire::CardCode;

/// A field name as written after an earlier field: every field follows the tag, so a comma
/// always comes first; one constant, so one copy per field.
macro_rules! k {
    ($name:literal) => {
        concat!(",\"", $name, "\":")
    };
}

impl ToBot {
    /// Appends the message and its `\n` to `buf`: the same bytes as
    /// [`codec::encode_into`](crate::codec::encode_into), faster.
    pub fn encode_into(&self, buf: &mut Vec<u8>) {
        let mut o = Out(buf);
        match self {
            ToBot::Hello { id, protocol, features, time_ms } => {
                o.tag("hello");
                o.key(k!("id")).u64(*id);
                o.key(k!("protocol")).u64(u64::from(*protocol));
                o.key(k!("features")).strs(features);
                o.key(k!("time_ms")).u64(*time_ms);
            }
            ToBot::Deal { deal, dealer, hand } => {
                o.tag("deal");
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("dealer")).u64(u64::from(*dealer));
                o.key(k!("hand")).cards(hand);
            }
            ToBot::Opening { id, deal, dealer, vote, votes, hand, time_ms, bank_ms } => {
                o.tag("opening");
                o.key(k!("id")).u64(*id);
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("dealer")).u64(u64::from(*dealer));
                o.key(k!("vote")).bool(*vote);
                o.key(k!("votes")).votes(votes);
                o.key(k!("hand")).cards(hand);
                o.key(k!("time_ms")).u64(*time_ms);
                o.key(k!("bank_ms")).u64(*bank_ms);
            }
            ToBot::Vote { seat, accept } => {
                o.tag("vote");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("accept")).bool(*accept);
            }
            ToBot::Chant { taken } => {
                o.tag("chant");
                o.key(k!("taken")).bool(*taken);
            }
            ToBot::Discard { id, deal, hand, received, rule, time_ms, bank_ms } => {
                o.tag("discard");
                o.key(k!("id")).u64(*id);
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("hand")).cards(hand);
                o.key(k!("received")).cards(received);
                o.key(k!("rule")).str(rule);
                o.key(k!("time_ms")).u64(*time_ms);
                o.key(k!("bank_ms")).u64(*bank_ms);
            }
            ToBot::Play { id, deal, trick, leader, table, hand, won, score, time_ms, bank_ms } => {
                o.tag("play");
                o.key(k!("id")).u64(*id);
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("trick")).u64(u64::from(*trick));
                o.key(k!("leader")).u64(u64::from(*leader));
                o.key(k!("table")).table(table);
                o.key(k!("hand")).cards(hand);
                o.key(k!("won")).list(won, |o, &n| o.u64(u64::from(n)));
                o.key(k!("score")).list(score, |o, &n| o.u64(u64::from(n)));
                o.key(k!("time_ms")).u64(*time_ms);
                o.key(k!("bank_ms")).u64(*bank_ms);
            }
            ToBot::Played { seat, card, trick } => {
                o.tag("played");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("card")).card(*card);
                o.key(k!("trick")).u64(u64::from(*trick));
            }
            ToBot::Trick { trick, leader, cards, winner, next } => {
                o.tag("trick");
                o.key(k!("trick")).u64(u64::from(*trick));
                o.key(k!("leader")).u64(u64::from(*leader));
                o.key(k!("cards")).table(cards);
                o.key(k!("winner")).seat_or_null(*winner);
                o.key(k!("next")).u64(u64::from(*next));
            }
            ToBot::DealOver {
                deal,
                tricks,
                winners,
                winner,
                points,
                mordienne,
                counted,
                score,
            } => {
                o.tag("deal_over");
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("tricks")).list(tricks, |o, &n| o.u64(u64::from(n)));
                o.key(k!("winners")).list(winners, |o, &w| o.seat_or_null(w));
                o.key(k!("winner")).seat_or_null(*winner);
                o.key(k!("points")).u64(u64::from(*points));
                o.key(k!("mordienne")).bool(*mordienne);
                o.key(k!("counted")).bool(*counted);
                o.key(k!("score")).list(score, |o, &n| o.u64(u64::from(n)));
            }
            ToBot::GameOver { game, score, winner, forfeit } => {
                o.tag("game_over");
                o.key(k!("game")).u64(*game);
                o.key(k!("score")).list(score, |o, &n| o.u64(u64::from(n)));
                o.key(k!("winner")).seat_or_null(*winner);
                if let Some(team) = forfeit {
                    o.key(k!("forfeit")).u64(u64::from(*team));
                }
            }
            ToBot::Signal { from, signal } => {
                o.tag("signal");
                o.key(k!("from")).u64(u64::from(*from));
                o.key(k!("signal")).str(signal);
            }
            ToBot::Error { id, fault, message, action } => {
                o.tag("error");
                if let Some(id) = id {
                    o.key(k!("id")).u64(*id);
                }
                o.key(k!("fault")).str(fault);
                o.key(k!("message")).str(message);
                o.key(k!("action")).str(action);
            }
            ToBot::Bye { reason } => {
                o.tag("bye");
                o.key(k!("reason")).str(reason);
            }
            // Once per game, and it holds a float whose spelling belongs to serde_json.
            ToBot::Game { .. } | ToBot::Unknown => return encode_into(self, buf),
        }
        buf.extend_from_slice(b"}\n");
    }
}

impl RecordLine {
    /// Appends the line and its `\n` to `buf`: the same bytes as
    /// [`codec::encode_into`](crate::codec::encode_into), faster.
    pub fn encode_into(&self, buf: &mut Vec<u8>) {
        let mut o = Out(buf);
        match self {
            RecordLine::Deal { deal, dealer, deck, hands } => {
                o.tag("deal");
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("dealer")).u64(u64::from(*dealer));
                o.key(k!("deck")).cards(deck);
                o.key(k!("hands")).list(hands, |o, hand| o.cards(hand));
            }
            RecordLine::Vote { seat, accept, us, auto, raw } => {
                o.tag("vote");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("accept")).bool(*accept);
                o.answer(*us, *auto, raw.as_deref());
            }
            RecordLine::Opening { seat, us, auto, raw } => {
                o.tag("opening");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.answer(*us, *auto, raw.as_deref());
            }
            RecordLine::Chant { taken } => {
                o.tag("chant");
                o.key(k!("taken")).bool(*taken);
            }
            RecordLine::Receive { seat, cards } => {
                o.tag("receive");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("cards")).cards(cards);
            }
            RecordLine::Discard { seat, cards, us, auto, raw } => {
                o.tag("discard");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("cards")).cards(cards);
                o.answer(*us, *auto, raw.as_deref());
            }
            RecordLine::Play { seat, card, us, auto, raw } => {
                o.tag("play");
                o.key(k!("seat")).u64(u64::from(*seat));
                o.key(k!("card")).card(*card);
                o.answer(*us, *auto, raw.as_deref());
            }
            RecordLine::Signal { from, signal, seen_by } => {
                o.tag("signal");
                o.key(k!("from")).u64(u64::from(*from));
                o.key(k!("signal")).str(signal);
                o.key(k!("seen_by")).list(seen_by, |o, &s| o.u64(u64::from(s)));
            }
            RecordLine::Trick { trick, leader, cards, winner } => {
                o.tag("trick");
                o.key(k!("trick")).u64(u64::from(*trick));
                o.key(k!("leader")).u64(u64::from(*leader));
                o.key(k!("cards")).table(cards);
                o.key(k!("winner")).seat_or_null(*winner);
            }
            RecordLine::DealOver { deal, tricks, winner, points, mordienne, counted, score } => {
                o.tag("deal_over");
                o.key(k!("deal")).u64(u64::from(*deal));
                o.key(k!("tricks")).list(tricks, |o, &n| o.u64(u64::from(n)));
                o.key(k!("winner")).seat_or_null(*winner);
                o.key(k!("points")).u64(u64::from(*points));
                o.key(k!("mordienne")).bool(*mordienne);
                o.key(k!("counted")).bool(*counted);
                o.key(k!("score")).list(score, |o, &n| o.u64(u64::from(n)));
            }
            // Once per game or per fault, and full of strings and options: serde's job.
            RecordLine::Header(_) | RecordLine::Fault(_) | RecordLine::Footer(_) => {
                return encode_into(self, buf);
            }
        }
        buf.extend_from_slice(b"}\n");
    }
}

impl FromBot {
    /// Decodes one answer line: [`decode_line`], with a shortcut for a `play` answer written
    /// exactly as the spec shows it (`{"type":"play","id":N,"card":"XY"}`, no spaces, no
    /// signals). Any other spelling takes the full, strict decoder.
    pub fn decode(line: &[u8]) -> Result<FromBot, DecodeError> {
        match canonical_play(line) {
            Some(msg) => Ok(msg),
            None => decode_line(line),
        }
    }
}

/// The play answer of a line in canonical form, or `None` to let serde decide.
fn canonical_play(line: &[u8]) -> Option<FromBot> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line.strip_prefix(br#"{"type":"play","id":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // JSON has no leading zeros; serde refuses them, and so must this.
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let mut id = 0u64;
    for &d in &rest[..digits] {
        id = id.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    let &[rank, suit, b'"', b'}'] = rest[digits..].strip_prefix(br#","card":""#)? else {
        return None;
    };
    let card = CardCode::from_ascii([rank, suit])?;
    Some(FromBot::Play { id, card, signals: Vec::new() })
}

/// A JSON object being written; fields are appended in the order of the type's declaration, as
/// serde does.
struct Out<'a>(&'a mut Vec<u8>);

impl Out<'_> {
    /// Opens the object with its `type` tag (a plain ASCII name, never escaped).
    fn tag(&mut self, kind: &str) {
        self.0.extend_from_slice(b"{\"type\":\"");
        self.0.extend_from_slice(kind.as_bytes());
        self.0.push(b'"');
    }

    /// Starts the next field, given as `k!("name")`.
    fn key(&mut self, comma_name_colon: &'static str) -> &mut Self {
        self.0.extend_from_slice(comma_name_colon.as_bytes());
        self
    }

    fn u64(&mut self, mut n: u64) {
        // Seats, tricks and scores: most numbers sent are one digit.
        if n < 10 {
            self.0.push(b'0' + n as u8);
            return;
        }
        // Two digits per step from a table: ids and milliseconds have four or more.
        const PAIRS: [u8; 200] = {
            let mut t = [0u8; 200];
            let mut i = 0;
            while i < 100 {
                t[2 * i] = b'0' + (i / 10) as u8;
                t[2 * i + 1] = b'0' + (i % 10) as u8;
                i += 1;
            }
            t
        };
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[n as usize * 2..n as usize * 2 + 2]);
        } else {
            at -= 1;
            digits[at] = b'0' + n as u8;
        }
        self.0.extend_from_slice(&digits[at..]);
    }

    fn bool(&mut self, b: bool) {
        self.0.extend_from_slice(if b { b"true" } else { b"false" });
    }

    fn seat_or_null(&mut self, seat: Option<SeatNo>) {
        match seat {
            Some(s) => self.u64(u64::from(s)),
            None => self.0.extend_from_slice(b"null"),
        }
    }

    /// The fields every recorded answer ends with: think time, `auto` when set, and the raw
    /// line when there is one.
    fn answer(&mut self, us: u64, auto: bool, raw: Option<&str>) {
        self.key(k!("us")).u64(us);
        if auto {
            self.key(k!("auto")).bool(true);
        }
        if let Some(raw) = raw {
            self.key(k!("raw")).str(raw);
        }
    }

    fn card(&mut self, c: CardCode) {
        // Card codes are two ASCII letters or digits: nothing to escape.
        let [rank, suit] = c.as_bytes();
        self.0.extend_from_slice(&[b'"', rank, suit, b'"']);
    }

    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.0.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.0.push(b',');
            }
            each(self, item);
        }
        self.0.push(b']');
    }

    fn cards(&mut self, cards: &[CardCode]) {
        self.list(cards, |o, &c| o.card(c));
    }

    fn strs(&mut self, items: &[String]) {
        self.list(items, |o, s| o.str(s));
    }

    fn table(&mut self, cards: &[TableCard]) {
        self.list(cards, |o, t| {
            o.0.extend_from_slice(b"{\"seat\":");
            o.u64(u64::from(t.seat));
            o.0.extend_from_slice(b",\"card\":");
            o.card(t.card);
            o.0.push(b'}');
        });
    }

    fn votes(&mut self, votes: &[VoteCast]) {
        self.list(votes, |o, v| {
            o.0.extend_from_slice(b"{\"seat\":");
            o.u64(u64::from(v.seat));
            o.0.extend_from_slice(b",\"accept\":");
            o.bool(v.accept);
            o.0.push(b'}');
        });
    }

    /// A JSON string with serde_json's escapes: the two-character forms for `"`, `\` and the
    /// usual controls, `\u00XX` (lower-case hex) for the other controls, everything else as is.
    fn str(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = s.as_bytes();
        self.0.push(b'"');
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let short: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0x00..=0x1f => &[],
                _ => continue,
            };
            self.0.extend_from_slice(&bytes[start..i]);
            start = i + 1;
            if short.is_empty() {
                self.0.extend_from_slice(b"\\u00");
                self.0.push(HEX[usize::from(b >> 4)]);
                self.0.push(HEX[usize::from(b & 0xf)]);
            } else {
                self.0.extend_from_slice(short);
            }
        }
        self.0.extend_from_slice(&bytes[start..]);
        self.0.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(msg: &ToBot) {
        let mut fast = Vec::new();
        msg.encode_into(&mut fast);
        let mut reference = Vec::new();
        encode_into(msg, &mut reference);
        assert_eq!(
            String::from_utf8_lossy(&fast),
            String::from_utf8_lossy(&reference),
            "hand-written and serde encodings differ for {msg:?}"
        );
    }

    fn card(s: &str) -> CardCode {
        s.parse().unwrap()
    }

    /// Every string a bot name, signal or message could hold that JSON treats specially.
    const AWKWARD: &[&str] = &[
        "",
        "plain",
        "quote \" and backslash \\",
        "controls \n \r \t \u{8} \u{c} \u{0} \u{1f} \u{7f}",
        "unicode é ü 漢字 🂡 \u{2028}",
        "\\u0041 is not decoded",
    ];

    #[test]
    fn every_kind_matches_serde() {
        let hand: Vec<CardCode> = ["3o", "Kc", "Ab", "9s", "Jo"].iter().map(|s| card(s)).collect();
        let table =
            vec![TableCard { seat: 3, card: card("2c") }, TableCard { seat: 0, card: card("Cb") }];
        let mut msgs = vec![
            ToBot::Hello { id: 1, protocol: 1, features: vec![], time_ms: 10_000 },
            ToBot::Deal { deal: 1, dealer: 3, hand: hand.clone() },
            ToBot::Deal { deal: 65_535, dealer: 0, hand: vec![] },
            ToBot::Vote { seat: 2, accept: false },
            ToBot::Chant { taken: true },
            ToBot::Played { seat: 1, card: card("7b"), trick: 9 },
            ToBot::Trick { trick: 4, leader: 3, cards: table.clone(), winner: None, next: 3 },
            ToBot::Trick { trick: 5, leader: 0, cards: vec![], winner: Some(2), next: 2 },
            ToBot::GameOver { game: u64::MAX, score: [5, 3], winner: Some(0), forfeit: None },
            ToBot::GameOver { game: 0, score: [0, 0], winner: None, forfeit: Some(1) },
            ToBot::Error {
                id: None,
                fault: "timeout".into(),
                message: "m".into(),
                action: "a".into(),
            },
            ToBot::Unknown,
        ];
        for vote in [false, true] {
            msgs.push(ToBot::Opening {
                id: 7,
                deal: 2,
                dealer: 1,
                vote,
                votes: vec![
                    VoteCast { seat: 2, accept: true },
                    VoteCast { seat: 3, accept: false },
                ],
                hand: hand.clone(),
                time_ms: 1000,
                bank_ms: 0,
            });
        }
        msgs.push(ToBot::Play {
            id: 123_456_789,
            deal: 3,
            trick: 1,
            leader: 2,
            table,
            hand: hand.clone(),
            won: [0, 1, 2, 3],
            score: [10, 65_535],
            time_ms: u64::MAX,
            bank_ms: 9,
        });
        msgs.push(ToBot::DealOver {
            deal: 4,
            tricks: [3, 0, 2, 1],
            winners: vec![Some(0), None, Some(3)],
            winner: None,
            points: 2,
            mordienne: true,
            counted: false,
            score: [1, 2],
        });
        for s in AWKWARD {
            let s = s.to_string();
            msgs.push(ToBot::Hello {
                id: 0,
                protocol: u32::MAX,
                features: vec![s.clone(), "signals".into()],
                time_ms: 0,
            });
            msgs.push(ToBot::Signal { from: 1, signal: s.clone() });
            msgs.push(ToBot::Bye { reason: s.clone() });
            msgs.push(ToBot::Error {
                id: Some(4),
                fault: s.clone(),
                message: s.clone(),
                action: s.clone(),
            });
            msgs.push(ToBot::Discard {
                id: 5,
                deal: 1,
                hand: hand.clone(),
                received: hand[..2].to_vec(),
                rule: s,
                time_ms: 1,
                bank_ms: 2,
            });
        }
        for m in &msgs {
            same(m);
        }
    }

    #[test]
    fn every_record_line_matches_serde() {
        let hand: Vec<CardCode> = ["3o", "Kc", "Ab"].iter().map(|s| card(s)).collect();
        let table = vec![TableCard { seat: 1, card: card("2c") }];
        let mut lines = vec![
            RecordLine::Deal {
                deal: 2,
                dealer: 3,
                deck: hand.clone(),
                hands: vec![hand.clone(), vec![]],
            },
            RecordLine::Chant { taken: false },
            RecordLine::Receive { seat: 1, cards: hand.clone() },
            RecordLine::Trick { trick: 9, leader: 0, cards: table.clone(), winner: None },
            RecordLine::Trick { trick: 1, leader: 2, cards: vec![], winner: Some(3) },
            RecordLine::DealOver {
                deal: 5,
                tricks: [0, 9, 0, 0],
                winner: Some(1),
                points: 2,
                mordienne: true,
                counted: true,
                score: [0, 7],
            },
            RecordLine::DealOver {
                deal: 1,
                tricks: [0; 4],
                winner: None,
                points: 0,
                mordienne: false,
                counted: false,
                score: [3, 0],
            },
        ];
        for s in AWKWARD {
            lines.push(RecordLine::Signal { from: 2, signal: s.to_string(), seen_by: vec![0, 2] });
            for (auto, raw) in [(false, Some(s.to_string())), (true, None), (false, None)] {
                let us = 123_456;
                lines.push(RecordLine::Play {
                    seat: 1,
                    card: card("Cb"),
                    us,
                    auto,
                    raw: raw.clone(),
                });
                lines.push(RecordLine::Vote { seat: 0, accept: true, us, auto, raw: raw.clone() });
                lines.push(RecordLine::Opening { seat: 3, us, auto, raw: raw.clone() });
                lines.push(RecordLine::Discard { seat: 2, cards: hand.clone(), us, auto, raw });
            }
        }
        for line in &lines {
            let mut fast = Vec::new();
            line.encode_into(&mut fast);
            let mut reference = Vec::new();
            encode_into(line, &mut reference);
            assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&reference));
        }
    }

    #[test]
    fn the_play_shortcut_agrees_with_serde() {
        let lines: &[&[u8]] = &[
            br#"{"type":"play","id":3,"card":"3o"}"#,
            b"{\"type\":\"play\",\"id\":0,\"card\":\"Kb\"}\r\n",
            br#"{"type":"play","id":18446744073709551615,"card":"Jc"}"#,
            br#"{"type":"play","id":18446744073709551616,"card":"Jc"}"#,
            br#"{"type":"play","id":03,"card":"3o"}"#,
            br#"{"type":"play","id":-3,"card":"3o"}"#,
            br#"{"type":"play","id":3,"card":"1o"}"#,
            br#"{"type":"play","id":3,"card":"3x"}"#,
            br#"{"type":"play","id":3,"card":"3o","signals":[]}"#,
            br#"{"type":"play","id":3,"card":"3o"} "#,
            br#"{"type":"play","id":3,"card":"3o"}}"#,
            br#"{"type":"play","id":3,"card":"3oo"}"#,
            br#"{"type":"play","id":3,"card":"3"}"#,
            br#"{"type":"play","id":,"card":"3o"}"#,
            br#"{"type":"play", "id":3,"card":"3o"}"#,
            br#"{"type":"play","id":3.0,"card":"3o"}"#,
        ];
        let mut shortcuts = 0;
        for line in lines {
            shortcuts += usize::from(canonical_play(line).is_some());
            match (FromBot::decode(line), decode_line::<FromBot>(line)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{}: {a:?} but serde {b:?}", String::from_utf8_lossy(line)),
            }
        }
        // The shortcut is really taken, or this test proves nothing about it.
        assert_eq!(shortcuts, 3);
    }

    #[test]
    fn every_control_character_and_digit_count() {
        for b in 0u8..0x80 {
            let s = format!("a{}b", char::from(b));
            same(&ToBot::Bye { reason: s });
        }
        let mut n = 1u64;
        while n < u64::MAX / 10 {
            for id in [n - 1, n, n + 7, 3 * n] {
                let (fault, message, action) = (String::new(), String::new(), String::new());
                same(&ToBot::Error { id: Some(id), fault, message, action });
            }
            n *= 10;
        }
    }
}
