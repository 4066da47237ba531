//! The one crate that names both vocabularies: rules types and wire types meet here only, for
//! the referee and for the search bot alike (`rules` and `protocol` do not know each other).

use protocol::msg::{Pledge, PledgeKind as WirePledgeKind, SeatNo, TableCard};
use protocol::options as wire;
use protocol::{CardCode, RulesWire};
use rules::{AllSpoiled, Announcement, ChantSecond, DiscardRule, MatchLength, OnTie, Rules};
use rules::{
    Card, CardSet, DealResult, LengthConflict, PledgeKind, Seat, SignalDelivery, SignalTruth,
};

/// A wire card code as an engine card. Every valid code is one of the 48 cards.
pub fn card(code: CardCode) -> Card {
    // CardCode validates the same alphabet as rules::Card, so this cannot fail; the fallback
    // only keeps the function total.
    Card::from_ascii(code.as_bytes()).unwrap_or(Card::MONSIEUR)
}

/// An engine card as its wire code.
pub fn code(card: Card) -> CardCode {
    // Both number the 48 cards in the same canonical order (suit by suit, then rank): a table
    // read, since every card of every question passes here. A unit test checks all 48 cards.
    CardCode::ALL[usize::from(card.index())]
}

/// Cards in canonical order as wire codes.
pub fn codes(set: CardSet) -> Vec<CardCode> {
    set.iter().map(code).collect()
}

/// A list of wire codes as a set, with the number of codes given (duplicates collapse in the
/// set, so callers compare the two to catch them).
pub fn set(codes: &[CardCode]) -> (CardSet, usize) {
    (codes.iter().map(|&c| card(c)).collect(), codes.len())
}

/// A seat as its wire number.
pub fn seat_no(seat: Seat) -> SeatNo {
    seat.index() as SeatNo
}

/// A wire seat number as a seat, if it is 0..3.
pub fn seat(no: SeatNo) -> Option<Seat> {
    Seat::new(no)
}

/// A table entry.
pub fn table_card(seat: Seat, card: Card) -> TableCard {
    TableCard { seat: seat_no(seat), card: code(card) }
}

/// A deal's surrender or announcement as `deal_over` states it.
pub fn pledge(deal: &DealResult) -> Option<Pledge> {
    let p = deal.pledge?;
    Some(Pledge {
        kind: match p.kind {
            PledgeKind::Accepted => WirePledgeKind::Accepted,
            PledgeKind::Refused => WirePledgeKind::Refused,
            PledgeKind::Announced => WirePledgeKind::Announced,
        },
        seat: seat_no(p.seat),
        team: deal.score.team.map_or(0, |t| t.index() as u8),
    })
}

/// Rules as written in `game` messages and record headers.
pub fn rules_wire(rules: &Rules, seating: wire::Seating) -> RulesWire {
    let on_off = |b: bool| if b { wire::OnOff::On } else { wire::OnOff::Off };
    RulesWire {
        seating,
        chant: on_off(rules.chant),
        chant_second: match rules.chant_second {
            ChantSecond::Dealer => wire::ChantSecond::Dealer,
            ChantSecond::Partner => wire::ChantSecond::Partner,
        },
        discard: discard_rule(rules.discard),
        all_spoiled: match rules.all_spoiled {
            AllSpoiled::Nothing => wire::AllSpoiled::Nothing,
            AllSpoiled::Redeal => wire::AllSpoiled::Redeal,
        },
        mordienne: match (rules.announce, rules.mordienne) {
            (Announcement::Off, true) => wire::Mordienne::On,
            (Announcement::Off, false) => wire::Mordienne::Off,
            (Announcement::ExtendsMatch, _) => wire::Mordienne::Announced,
            (Announcement::MatchToTen, _) => wire::Mordienne::AnnouncedOnly,
        },
        mordienne_run: rules.mordienne_run,
        deals: match rules.length {
            MatchLength::Deals(n) => Some(n),
            MatchLength::Target(_) => None,
        },
        target: match rules.length {
            MatchLength::Target(n) => Some(n),
            MatchLength::Deals(_) => None,
        },
        on_tie: match rules.on_tie {
            OnTie::Draw => wire::OnTie::Draw,
            OnTie::ExtraDeals => wire::OnTie::ExtraDeals,
        },
        signals: match rules.signals {
            SignalDelivery::Off => wire::Signals::Off,
            SignalDelivery::Partner => wire::Signals::Partner,
            SignalDelivery::Public => wire::Signals::Public,
            SignalDelivery::Leaky => wire::Signals::Leaky,
        },
        signal_leak: f64::from(rules.signal_leak_ppm) / 1e6,
        signal_truth: match rules.signal_truth {
            SignalTruth::Truthful => wire::SignalTruth::Truthful,
            SignalTruth::Free => wire::SignalTruth::Free,
        },
        // Left out while off, so a game without it is stated byte for byte as before.
        surrender: rules.surrender.then_some(wire::OnOff::On),
        announce_penalty: rules.announce_penalty.then_some(wire::OnOff::On),
    }
}

/// The wire value of a discard rule.
pub fn discard_rule(rule: DiscardRule) -> wire::DiscardRule {
    match rule {
        DiscardRule::Free => wire::DiscardRule::Free,
        DiscardRule::KeepHighest => wire::DiscardRule::KeepHighest,
    }
}

/// Whether games under these wire rules hold the rounds before the first lead (rules that do
/// not convert hold none: they are refused where they are checked).
pub fn pre_lead_rounds(w: &RulesWire) -> bool {
    rules_from_wire(w).is_ok_and(|(rules, _)| rules.has_pre_lead_rounds())
}

/// Rules from their wire form (a record header), with the seating (the referee's, not the
/// engine's), or the name of the first bad field. The words are typed on the wire; the numbers'
/// ranges are checked here.
pub fn rules_from_wire(w: &RulesWire) -> Result<(Rules, wire::Seating), String> {
    let bad = |field: &str, value: &str| format!("rules option {field} has no value {value:?}");
    let rules = Rules {
        chant: w.chant == wire::OnOff::On,
        chant_second: match w.chant_second {
            wire::ChantSecond::Dealer => ChantSecond::Dealer,
            wire::ChantSecond::Partner => ChantSecond::Partner,
        },
        discard: match w.discard {
            wire::DiscardRule::Free => DiscardRule::Free,
            wire::DiscardRule::KeepHighest => DiscardRule::KeepHighest,
        },
        all_spoiled: match w.all_spoiled {
            wire::AllSpoiled::Nothing => AllSpoiled::Nothing,
            wire::AllSpoiled::Redeal => AllSpoiled::Redeal,
        },
        mordienne: matches!(w.mordienne, wire::Mordienne::On | wire::Mordienne::Announced),
        announce: match w.mordienne {
            wire::Mordienne::On | wire::Mordienne::Off => Announcement::Off,
            wire::Mordienne::Announced => Announcement::ExtendsMatch,
            wire::Mordienne::AnnouncedOnly => Announcement::MatchToTen,
        },
        surrender: w.surrender == Some(wire::OnOff::On),
        announce_penalty: w.announce_penalty == Some(wire::OnOff::On),
        // Checked whether mordienne is on or off: the record says what the organiser set.
        mordienne_run: match w.mordienne_run {
            n @ 2..=3 => n,
            n => return Err(bad("mordienne-run", &n.to_string())),
        },
        length: match (w.deals, w.target) {
            (Some(n), None) if n > 0 => MatchLength::Deals(n),
            (None, Some(t)) if t > 0 => MatchLength::Target(t),
            _ => return Err("rules need exactly one of deals and target, above 0".into()),
        },
        on_tie: match w.on_tie {
            wire::OnTie::Draw => OnTie::Draw,
            wire::OnTie::ExtraDeals => OnTie::ExtraDeals,
        },
        signals: match w.signals {
            wire::Signals::Off => SignalDelivery::Off,
            wire::Signals::Partner => SignalDelivery::Partner,
            wire::Signals::Public => SignalDelivery::Public,
            wire::Signals::Leaky => SignalDelivery::Leaky,
        },
        signal_leak_ppm: if (0.0..=1.0).contains(&w.signal_leak) {
            (w.signal_leak * 1e6).round() as u32
        } else {
            return Err(bad("signal-leak", &w.signal_leak.to_string()));
        },
        signal_truth: match w.signal_truth {
            wire::SignalTruth::Truthful => SignalTruth::Truthful,
            wire::SignalTruth::Free => SignalTruth::Free,
        },
    };
    rules.check_length().map_err(|e| length_conflict(w.mordienne, e))?;
    Ok((rules, w.seating))
}

/// Why a match length does not go with the announcement reading, in the rules' words.
fn length_conflict(mordienne: wire::Mordienne, e: LengthConflict) -> String {
    let length = |l: MatchLength| match l {
        MatchLength::Deals(n) => format!("deals {n}"),
        MatchLength::Target(n) => format!("target {n}"),
    };
    match e {
        LengthConflict::ToTen(l) => {
            format!(
                "mordienne {mordienne} plays the match to 10 points: it needs target 10, not {}",
                length(l)
            )
        }
        LengthConflict::Extends(l) => format!(
            "mordienne {mordienne} raises a target below 10 to 10 at an announcement: it needs a target below 10, not {}",
            length(l)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_cards_convert_both_ways() {
        for c in Card::all() {
            assert_eq!(card(code(c)), c);
            assert_eq!(code(c).to_string(), c.to_string());
        }
    }

    #[test]
    fn rules_round_trip_through_wire() {
        let variants = [
            Rules::default(),
            Rules {
                chant: false,
                chant_second: ChantSecond::Partner,
                discard: DiscardRule::KeepHighest,
                all_spoiled: AllSpoiled::Redeal,
                mordienne: false,
                mordienne_run: 3,
                length: MatchLength::Target(10),
                on_tie: OnTie::ExtraDeals,
                signals: SignalDelivery::Leaky,
                signal_leak_ppm: 125_000,
                signal_truth: SignalTruth::Free,
                announce: Announcement::MatchToTen,
                surrender: true,
                announce_penalty: true,
            },
            Rules {
                announce: Announcement::ExtendsMatch,
                surrender: true,
                length: MatchLength::Target(5),
                ..Rules::default()
            },
        ];
        for r in variants {
            for &seating in wire::Seating::ALL {
                assert_eq!(rules_from_wire(&rules_wire(&r, seating)), Ok((r, seating)));
            }
        }
    }

    /// A record or `game` message whose length the announcement reading would change is
    /// refused, naming both options (issue 24).
    #[test]
    fn lengths_the_announcement_would_change_are_refused() {
        let only =
            Rules { announce: Announcement::MatchToTen, mordienne: false, ..Rules::default() };
        let mut w = rules_wire(&only, wire::Seating::Given);
        let e = rules_from_wire(&w).unwrap_err();
        assert!(e.contains("mordienne announced-only") && e.contains("deals 5"), "{e}");
        w.deals = None;
        w.target = Some(15);
        assert!(rules_from_wire(&w).unwrap_err().contains("target 15"));
        w.target = Some(10);
        assert!(rules_from_wire(&w).is_ok());
        w.mordienne = wire::Mordienne::Announced;
        assert!(rules_from_wire(&w).unwrap_err().contains("mordienne announced raises"));
    }
}
