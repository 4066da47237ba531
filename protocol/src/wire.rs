//! Wire spellings shared by messages and records: card codes, seats, rules options.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

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
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The rule options as they appear in `game` messages and record headers; names and values are
/// those of `spec/rules.md`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RulesWire {
    /// `given` or `draw`.
    pub seating: String,
    /// `on` or `off`.
    pub chant: String,
    /// `dealer` or `partner`.
    pub chant_second: String,
    /// `free` or `keep-highest`.
    pub discard: String,
    /// `nothing` or `redeal`.
    pub all_spoiled: String,
    /// `on` or `off`.
    pub mordienne: String,
    /// 2 or 3.
    pub mordienne_run: u8,
    /// Number of deals, when the match is a fixed number of deals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deals: Option<u16>,
    /// Target score, when the match is played to a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u16>,
    /// `draw` or `extra-deals`.
    pub on_tie: String,
    /// `off`, `partner`, `public` or `leaky`.
    pub signals: String,
    /// Probability that each opponent sees a signal under `leaky`.
    pub signal_leak: f64,
    /// `truthful` or `free`.
    pub signal_truth: String,
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
    }
}
