//! The fixed signal vocabulary and what makes a signal true, so partners' gestures are rules data.

use crate::card::{Card, CardSet, Rank};
use core::fmt;
use core::str::FromStr;

/// One gesture from the fixed vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signal {
    /// "I hold this card": one of the eight named top cards.
    Holds(Card),
    /// "I hold exactly n aces", 0..=4.
    Aces(u8),
    /// "My hand is useless."
    BadHand,
    /// "I am going for mordienne."
    Mordienne,
}

/// The wire names of the eight card signals, by level 1..8.
const CARD_SIGNALS: [&str; 8] = [
    "monsieur",
    "madame",
    "borgne",
    "vache",
    "grand-neuf",
    "petit-neuf",
    "deux-de-chene",
    "deux-d-ecrit",
];

impl Signal {
    /// The whole vocabulary, in its one order: the eight card signals strongest first,
    /// `aces:0` to `aces:4`, `bad-hand`, `mordienne`.
    pub const ALL: [Signal; 15] = [
        Signal::Holds(Card::MONSIEUR),
        Signal::Holds(Card::MADAME),
        Signal::Holds(Card::BORGNE),
        Signal::Holds(Card::VACHE),
        Signal::Holds(Card::GRAND_NEUF),
        Signal::Holds(Card::PETIT_NEUF),
        Signal::Holds(Card::DEUX_DE_CHENE),
        Signal::Holds(Card::DEUX_D_ECRIT),
        Signal::Aces(0),
        Signal::Aces(1),
        Signal::Aces(2),
        Signal::Aces(3),
        Signal::Aces(4),
        Signal::BadHand,
        Signal::Mordienne,
    ];

    /// True for a well-formed signal: a card signal names one of the eight top cards, aces 0..=4.
    pub fn is_valid(self) -> bool {
        match self {
            Signal::Holds(card) => card.level() <= 8,
            Signal::Aces(n) => n <= 4,
            Signal::BadHand | Signal::Mordienne => true,
        }
    }

    /// True when a player holding `hand` tells the truth with this signal.
    pub fn is_true_for(self, hand: CardSet) -> bool {
        match self {
            Signal::Holds(card) => hand.contains(card),
            Signal::Aces(n) => hand.iter().filter(|c| c.rank() == Rank::Ace).count() == n as usize,
            Signal::BadHand | Signal::Mordienne => true,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signal::Holds(card) if card.level() <= 8 => {
                f.write_str(CARD_SIGNALS[card.level() as usize - 1])
            }
            Signal::Holds(card) => write!(f, "holds:{card}"),
            Signal::Aces(n) => write!(f, "aces:{n}"),
            Signal::BadHand => f.write_str("bad-hand"),
            Signal::Mordienne => f.write_str("mordienne"),
        }
    }
}

/// A string that is not a signal of the vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSignalError;

impl fmt::Display for ParseSignalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "not a signal (monsieur madame borgne vache grand-neuf petit-neuf deux-de-chene \
             deux-d-ecrit aces:0..aces:4 bad-hand mordienne)",
        )
    }
}

impl core::error::Error for ParseSignalError {}

impl FromStr for Signal {
    type Err = ParseSignalError;

    fn from_str(s: &str) -> Result<Signal, ParseSignalError> {
        if let Some(pos) = CARD_SIGNALS.iter().position(|&n| n == s) {
            let card =
                Card::all().find(|c| c.level() as usize == pos + 1).ok_or(ParseSignalError)?;
            return Ok(Signal::Holds(card));
        }
        match s {
            "bad-hand" => Ok(Signal::BadHand),
            "mordienne" => Ok(Signal::Mordienne),
            _ => match s.strip_prefix("aces:").map(str::as_bytes) {
                Some(&[d @ b'0'..=b'4']) => Ok(Signal::Aces(d - b'0')),
                _ => Err(ParseSignalError),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn vocabulary_round_trips() {
        let words = [
            "monsieur",
            "madame",
            "borgne",
            "vache",
            "grand-neuf",
            "petit-neuf",
            "deux-de-chene",
            "deux-d-ecrit",
            "aces:0",
            "aces:4",
            "bad-hand",
            "mordienne",
        ];
        for w in words {
            let s: Signal = w.parse().unwrap();
            assert!(s.is_valid());
            assert_eq!(s.to_string(), w);
        }
        for bad in ["aces:5", "aces:", "aces:10", "Monsieur", "holds:3o", ""] {
            assert!(bad.parse::<Signal>().is_err(), "{bad}");
        }
        assert_eq!("madame".parse::<Signal>(), Ok(Signal::Holds(Card::MADAME)));
        let all: alloc::vec::Vec<_> = Signal::ALL.iter().map(|s| s.to_string()).collect();
        let listed = ["aces:1", "aces:2", "aces:3"];
        let expected = words[..9].iter().chain(&listed).chain(&words[9..]);
        assert!(all.iter().eq(expected), "{all:?}");
    }

    #[test]
    fn truth() {
        let hand: CardSet =
            ["3o", "Ac", "Ab", "5s"].iter().map(|c| c.parse::<Card>().unwrap()).collect();
        assert!(Signal::Holds(Card::MONSIEUR).is_true_for(hand));
        assert!(!Signal::Holds(Card::MADAME).is_true_for(hand));
        assert!(Signal::Aces(2).is_true_for(hand));
        assert!(!Signal::Aces(1).is_true_for(hand));
        assert!(Signal::BadHand.is_true_for(CardSet::EMPTY));
    }
}
