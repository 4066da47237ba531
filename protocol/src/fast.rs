//! The fast paths of the referee's hot loop, and the proof that they are exact: the encoders
//! of every message it sends and every record line it writes are generated from the
//! declarations (`declare.rs`, `json.rs`), and the answers bots write, a canonical `play`,
//! `opening` or `discard`, are decoded here by a shortcut.
//! Several lines cross for every answer, and serde's generic code cost more instructions than the
//! rest of the referee's turn together (callgrind, issue 8). Both give exactly what serde gives
//! (the same bytes; the same value), which the tests below and the codec fuzz harness check, so
//! the serde encoding stays the specification and the fallback.

use crate::codec::{DecodeError, decode_line};
use crate::msg::FromBot;
use crate::wire::CardCode;

impl FromBot {
    /// Decodes one answer line: [`decode_line`], with a shortcut for a `play`, `opening` or
    /// `discard` answer written exactly as the spec shows it (`{"type":"play","id":N,"card":"XY"}`,
    /// `{"type":"opening","id":N}`, `{"type":"opening","id":N,"accept":true}`,
    /// `{"type":"discard","id":N,"cards":["XY",...]}`: no spaces, no signals). Any other spelling
    /// takes the full, strict decoder.
    pub fn decode(line: &[u8]) -> Result<FromBot, DecodeError> {
        match canonical_answer(line) {
            Some(msg) => Ok(msg),
            None => decode_line(line),
        }
    }
}

/// The play, opening or discard answer of a line in canonical form, or `None` to let serde
/// decide. Inlined into [`FromBot::decode`], so its answer is built where the caller keeps it
/// rather than moved there.
#[inline]
fn canonical_answer(line: &[u8]) -> Option<FromBot> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line.strip_prefix(br#"{"type":""#)?;
    if let Some(rest) = rest.strip_prefix(br#"play","id":"#) {
        let (id, rest) = canonical_id(rest)?;
        let &[rank, suit, b'"', b'}'] = rest.strip_prefix(br#","card":""#)? else {
            return None;
        };
        let card = CardCode::from_ascii([rank, suit])?;
        return Some(FromBot::Play { id, card, signals: Vec::new() });
    }
    if let Some(rest) = rest.strip_prefix(br#"opening","id":"#) {
        let (id, rest) = canonical_id(rest)?;
        let accept = match rest {
            b"}" => None,
            br#","accept":true}"# => Some(true),
            br#","accept":false}"# => Some(false),
            _ => return None,
        };
        return Some(FromBot::Opening { id, accept, signals: Vec::new() });
    }
    let (id, rest) = canonical_id(rest.strip_prefix(br#"discard","id":"#)?)?;
    let mut rest = rest.strip_prefix(br#","cards":["#)?;
    let mut cards = Vec::with_capacity(6);
    if rest != b"]}" {
        loop {
            let &[b'"', rank, suit, b'"', next, ref tail @ ..] = rest else { return None };
            cards.push(CardCode::from_ascii([rank, suit])?);
            match next {
                b',' => rest = tail,
                b']' if tail == b"}" => break,
                _ => return None,
            }
        }
    }
    Some(FromBot::Discard { id, cards, signals: Vec::new() })
}

/// The answer id at the start of `rest` in canonical form (JSON's: no leading zero), and what
/// follows it; `None` for anything else, or a number past `u64`, that serde must judge.
fn canonical_id(rest: &[u8]) -> Option<(u64, &[u8])> {
    let mut id = 0u64;
    let mut digits = 0;
    for &b in rest {
        if !b.is_ascii_digit() {
            break;
        }
        id = id.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        digits += 1;
    }
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    Some((id, &rest[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode_into;
    use crate::msg::{TableCard, ToBot, VoteCast};
    use crate::options::{ChantSecond, DiscardRule, OnOff, RulesWire, Seating, Signals};
    use crate::record::RecordLine;

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
            // One card (the list's one comma taken back), and numbers either side of the one-
            // and two-digit paths.
            ToBot::Deal { deal: 10, dealer: 9, hand: vec![card("Kb")] },
            // Lists either side of the encoder's 16 cards at a time.
            ToBot::Deal { deal: 1, dealer: 0, hand: CardCode::ALL[..16].to_vec() },
            ToBot::Deal { deal: 1, dealer: 0, hand: CardCode::ALL[..17].to_vec() },
            ToBot::Deal { deal: 1, dealer: 0, hand: CardCode::ALL.to_vec() },
            ToBot::Hello { id: 99, protocol: 100, features: vec![], time_ms: 101 },
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
            pledge: Some(crate::msg::Pledge {
                kind: crate::msg::PledgeKind::Refused,
                seat: 3,
                team: 0,
            }),
        });
        for (id, deal, score, time_ms, bank_ms) in
            [(3, 2, [9, 0], 1, 0), (u64::MAX, 1, [0, 0], 0, 7)]
        {
            let hand = if id == 3 { hand.clone() } else { vec![] };
            msgs.push(ToBot::Offer { id, deal, hand: hand.clone(), score, time_ms, bank_ms });
            msgs.push(ToBot::Reply {
                id,
                deal,
                seat: 2,
                hand: hand.clone(),
                score,
                time_ms,
                bank_ms,
            });
            msgs.push(ToBot::Announce { id, deal, hand, score, time_ms, bank_ms });
        }
        msgs.push(ToBot::Offered { seat: 0, offer: false });
        msgs.push(ToBot::Replied { seat: 3, accept: true });
        msgs.push(ToBot::Announced { seat: 1, announce: true });
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
                rule: DiscardRule::KeepHighest,
                time_ms: 1,
                bank_ms: 2,
            });
            // The game message, once per game, is written by the generated encoder too; its
            // float keeps serde_json's spelling.
            for (k, leak) in
                [0.0, 0.25, 0.1, 1.0, 1e-7, 0.333_333_333_333_333_3].into_iter().enumerate()
            {
                msgs.push(ToBot::Game {
                    game: k as u64,
                    seat: 1,
                    partner: 3,
                    players: vec![s.clone(), "b".into(), String::new(), "d".into()],
                    rules: RulesWire {
                        seating: Seating::ALL[k % 2],
                        chant: OnOff::ALL[k % 2],
                        chant_second: ChantSecond::Partner,
                        discard: DiscardRule::Free,
                        all_spoiled: crate::options::AllSpoiled::Redeal,
                        mordienne: crate::options::Mordienne::ALL[k % 4],
                        mordienne_run: 3,
                        deals: (k % 2 == 0).then_some(5),
                        target: (k % 2 == 1).then_some(12),
                        on_tie: crate::options::OnTie::ExtraDeals,
                        signals: Signals::ALL[k % 4],
                        signal_leak: leak,
                        signal_truth: crate::options::SignalTruth::Free,
                        surrender: (k % 3 != 0).then_some(OnOff::ALL[k % 2]),
                        announce_penalty: (k % 5 == 1).then_some(OnOff::On),
                    },
                    clock: crate::msg::Clock {
                        handshake_ms: 1,
                        answer_ms: u64::MAX,
                        bank_ms: 0,
                        mode: (k % 2 == 1).then_some(crate::options::ClockMode::Cpu),
                        wall_cap: (k % 2 == 1).then_some(u32::MAX),
                    },
                });
            }
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
                pledge: None,
            },
            RecordLine::Offer {
                seat: 1,
                offer: true,
                us: 5,
                cpu_us: Some(3),
                auto: false,
                raw: Some("x".into()),
            },
            RecordLine::Reply {
                seat: 2,
                accept: false,
                us: 0,
                cpu_us: None,
                auto: true,
                raw: None,
            },
            RecordLine::Announce {
                seat: 0,
                announce: false,
                us: 17,
                cpu_us: None,
                auto: false,
                raw: None,
            },
            RecordLine::DealOver {
                deal: 1,
                tricks: [0; 4],
                winner: None,
                points: 1,
                mordienne: false,
                counted: true,
                score: [3, 0],
                pledge: Some(crate::msg::Pledge {
                    kind: crate::msg::PledgeKind::Accepted,
                    seat: 1,
                    team: 0,
                }),
            },
        ];
        for s in AWKWARD {
            lines.push(RecordLine::Signal { from: 2, signal: s.to_string(), seen_by: vec![0, 2] });
            for (auto, raw) in [(false, Some(s.to_string())), (true, None), (false, None)] {
                let us = 123_456;
                let cpu_us = raw.is_some().then_some(u64::MAX);
                lines.push(RecordLine::Play {
                    seat: 1,
                    card: card("Cb"),
                    us,
                    cpu_us,
                    auto,
                    raw: raw.clone(),
                });
                let vote =
                    RecordLine::Vote { seat: 0, accept: true, us, cpu_us, auto, raw: raw.clone() };
                lines.push(vote);
                lines.push(RecordLine::Opening { seat: 3, us, cpu_us, auto, raw: raw.clone() });
                let discard =
                    RecordLine::Discard { seat: 2, cards: hand.clone(), us, cpu_us, auto, raw };
                lines.push(discard);
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
    fn the_answer_shortcut_agrees_with_serde() {
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
            br#"{"type":"opening","id":12}"#,
            b"{\"type\":\"opening\",\"id\":7,\"accept\":true}\n",
            br#"{"type":"opening","id":18446744073709551615,"accept":false}"#,
            br#"{"type":"opening","id":07}"#,
            br#"{"type":"opening","id":7,"accept":null}"#,
            br#"{"type":"opening","id":7,"accept":1}"#,
            br#"{"type":"opening","id":7,"accept":true,"signals":[]}"#,
            br#"{"type":"opening","id":7,"accept":true}}"#,
            br#"{"type":"opening","id":7,"card":"3o"}"#,
            br#"{"type":"opening","id":7,}"#,
            br#"{"type":"opening","id":7"#,
            br#"{"type":"discard","id":9,"cards":["3o","Kc","Ab","9s","Jo","Cc"]}"#,
            b"{\"type\":\"discard\",\"id\":10,\"cards\":[\"3o\"]}\r\n",
            br#"{"type":"discard","id":11,"cards":[]}"#,
            br#"{"type":"discard","id":12,"cards":["3o","3o"]}"#,
            br#"{"type":"discard","id":13,"cards":["3o",]}"#,
            br#"{"type":"discard","id":13,"cards":["3o""Kc"]}"#,
            br#"{"type":"discard","id":13,"cards":["3o"]]}"#,
            br#"{"type":"discard","id":13,"cards":["3o"],}"#,
            br#"{"type":"discard","id":13,"cards":["3x"]}"#,
            br#"{"type":"discard","id":13,"cards":["3o","K"]}"#,
            br#"{"type":"discard","id":13,"cards":[3]}"#,
            br#"{"type":"discard","id":13,"cards":["3o"],"signals":[]}"#,
            br#"{"type":"discard","id":13,"cards":"3o"}"#,
            br#"{"type":"discard","id":13,"cards":["3o"]"#,
            br#"{"type":"discard","id":013,"cards":["3o"]}"#,
        ];
        let mut shortcuts = 0;
        for line in lines {
            shortcuts += usize::from(canonical_answer(line).is_some());
            match (FromBot::decode(line), decode_line::<FromBot>(line)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{}: {a:?} but serde {b:?}", String::from_utf8_lossy(line)),
            }
        }
        // The shortcut is really taken, or this test proves nothing about it.
        assert_eq!(shortcuts, 10);
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
        // The twenty-digit numbers, which fill the encoder's buffer.
        for id in [10u64.pow(19) - 1, 10u64.pow(19), u64::MAX - 1, u64::MAX] {
            let (fault, message, action) = (String::new(), String::new(), String::new());
            same(&ToBot::Error { id: Some(id), fault, message, action });
        }
    }
}
