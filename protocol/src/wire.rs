//! The card code, the one value type of the wire with a spelling of its own.

use crate::json::{self, Defs, Json, Out};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

pub use crate::options::RulesWire;

/// A card code as it travels: rank `A 2-9 J C K` then suit `o c s b`, e.g. `3o`, `Kc`.
/// Validated on decode, so an unknown code is a malformed message, not an illegal move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CardCode([u8; 2]);

/// A string that is not a card code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadCardCode(pub String);

impl fmt::Display for BadCardCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a card code (rank A 2-9 J C K, then suit o c s b)", self.0)
    }
}

impl std::error::Error for BadCardCode {}

impl CardCode {
    /// The code as a string slice.
    pub fn as_str(&self) -> &str {
        // Only ASCII bytes are ever stored.
        std::str::from_utf8(&self.0).unwrap_or("??")
    }
}

impl CardCode {
    /// All 48 codes in canonical order (spec/rules.md): suit by suit `o c s b`, ranks
    /// `A 2-9 J C K` within each, so `Ao` is index 0 and `Kb` index 47.
    pub const ALL: [CardCode; 48] = {
        const RANKS: &[u8; 12] = b"A23456789JCK";
        const SUITS: &[u8; 4] = b"ocsb";
        let mut all = [CardCode([b'A', b'o']); 48];
        let mut i = 0;
        while i < 48 {
            all[i] = CardCode([RANKS[i % 12], SUITS[i / 12]]);
            i += 1;
        }
        all
    };

    /// The code of a rank character and a suit character, if both are valid.
    pub const fn from_ascii([rank, suit]: [u8; 2]) -> Option<CardCode> {
        if matches!(rank, b'A' | b'2'..=b'9' | b'J' | b'C' | b'K')
            && matches!(suit, b'o' | b'c' | b's' | b'b')
        {
            Some(CardCode([rank, suit]))
        } else {
            None
        }
    }

    /// The code's two ASCII bytes, rank then suit.
    pub const fn as_bytes(&self) -> [u8; 2] {
        self.0
    }
}

impl FromStr for CardCode {
    type Err = BadCardCode;
    fn from_str(s: &str) -> Result<CardCode, BadCardCode> {
        match s.as_bytes() {
            &[r, su] => CardCode::from_ascii([r, su]).ok_or_else(|| BadCardCode(s.to_owned())),
            _ => Err(BadCardCode(s.to_owned())),
        }
    }
}

impl fmt::Display for CardCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for CardCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CardCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CardCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardCode, D::Error> {
        // Read from the borrowed string: `Cow<str>` would make a `String` of every card.
        d.deserialize_str(CardVisitor)
    }
}

struct CardVisitor;

impl<'de> Visitor<'de> for CardVisitor {
    type Value = CardCode;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<CardCode, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<CardCode, E> {
        match std::str::from_utf8(v) {
            Ok(v) => self.visit_str(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
}

impl Json for CardCode {
    type De = CardCode;
    fn from_de(de: CardCode) -> CardCode {
        de
    }
    fn write(&self, o: &mut Out<'_>) {
        // Card codes are two ASCII letters or digits: nothing to escape.
        let [rank, suit] = self.0;
        o.raw(&[b'"', rank, suit, b'"']);
    }
    fn write_list(items: &[CardCode], o: &mut Out<'_>) {
        // Each code with the comma after it, a hand's worth at a time into a local array, and
        // that appended at once: checking the buffer's room per card cost more than the copy.
        // The last comma becomes the closing bracket.
        const AT_ONCE: usize = 16;
        o.raw(b"[");
        for chunk in items.chunks(AT_ONCE) {
            let mut text = [0u8; 5 * AT_ONCE];
            for (slot, &CardCode([rank, suit])) in text.chunks_exact_mut(5).zip(chunk) {
                slot.copy_from_slice(&[b'"', rank, suit, b'"', b',']);
            }
            o.raw(&text[..5 * chunk.len()]);
        }
        if !items.is_empty() {
            o.0.pop();
        }
        o.raw(b"]");
    }
    fn schema(defs: &mut Defs) -> Value {
        json::def(defs, "card", |_| {
            let codes: Vec<String> = CardCode::ALL.iter().map(|c| c.to_string()).collect();
            serde_json::json!({
                "description": "A card: rank A 2-9 J C K (jack, cavalier, king), then suit o c s b (coins, cups, swords, batons).",
                "enum": codes,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_codes() {
        for ok in ["3o", "Kc", "Ab", "9s", "Jo", "Cc"] {
            let c: CardCode = ok.parse().unwrap();
            assert_eq!(c.to_string(), ok);
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{ok}\""));
        }
        for bad in ["10o", "3", "3x", "ko", "", "3oo", "é"] {
            assert!(bad.parse::<CardCode>().is_err(), "{bad}");
        }
        assert!(serde_json::from_str::<CardCode>("\"Zz\"").is_err());
        let all: std::collections::BTreeSet<CardCode> = CardCode::ALL.into_iter().collect();
        assert_eq!(all.len(), 48);
    }
}
