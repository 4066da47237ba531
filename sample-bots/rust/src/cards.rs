//! The bot's own card knowledge (strength levels, signal names, card sets), kept here rather than
//! taken from the rules crate so that this crate shows everything a bot needs on top of the wire.

use protocol::CardCode;

/// A set of cards as a bitset over the 48 card indices.
pub(crate) type CardSet = u64;

/// Every card.
pub(crate) const ALL_CARDS: CardSet = (1 << 48) - 1;

/// The wire names of the eight card signals, by strength level 1..=8.
pub(crate) const CARD_SIGNALS: [&str; 8] = [
    "monsieur",
    "madame",
    "borgne",
    "vache",
    "grand-neuf",
    "petit-neuf",
    "deux-de-chene",
    "deux-d-ecrit",
];

/// The `aces:N` signals, by N.
pub(crate) const ACES_SIGNALS: [&str; 5] = ["aces:0", "aces:1", "aces:2", "aces:3", "aces:4"];

/// Index of a rank letter in `A23456789JCK`.
const fn rank_index(rank: u8) -> usize {
    match rank {
        b'A' => 0,
        b'2'..=b'9' => (rank - b'1') as usize,
        b'J' => 9,
        b'C' => 10,
        _ => 11,
    }
}

/// Index of a suit letter in `ocsb`.
const fn suit_index(suit: u8) -> usize {
    match suit {
        b'o' => 0,
        b'c' => 1,
        b's' => 2,
        _ => 3,
    }
}

/// The card index 0..48 of a code: rank index * 4 + suit index.
pub(crate) fn index(card: CardCode) -> usize {
    match card.as_str().as_bytes() {
        &[rank, suit] => rank_index(rank) * 4 + suit_index(suit),
        _ => 0,
    }
}

/// The card's bit in a [`CardSet`].
pub(crate) fn bit(card: CardCode) -> CardSet {
    1 << index(card)
}

/// Strength level of a card by rank and suit letters: 1 is strongest, 19 weakest.
const fn level_of(rank: u8, suit: u8) -> u8 {
    match (rank, suit) {
        (b'3', b'o') => 1,
        (b'3', b'c') => 2,
        (b'2', b'o') => 3,
        (b'2', b'c') => 4,
        (b'9', b'c') => 5,
        (b'9', b'o') => 6,
        (b'2', b'b') => 7,
        (b'2', b's') => 8,
        (b'A', _) => 9,
        (b'K', _) => 10,
        (b'C', _) => 11,
        (b'J', _) => 12,
        (b'9', _) => 13,
        (b'8', _) => 14,
        (b'7', _) => 15,
        (b'6', _) => 16,
        (b'5', _) => 17,
        (b'4', _) => 18,
        _ => 19,
    }
}

/// Strength level by card index.
pub(crate) const LEVEL: [u8; 48] = {
    let ranks = *b"A23456789JCK";
    let suits = *b"ocsb";
    let mut table = [0; 48];
    let mut i = 0;
    while i < 48 {
        table[i] = level_of(ranks[i / 4], suits[i % 4]);
        i += 1;
    }
    table
};

/// The index of the unique card of each top level 1..=8.
pub(crate) const TOP_CARD: [usize; 8] = {
    let mut table = [0; 8];
    let mut i = 0;
    while i < 48 {
        if LEVEL[i] <= 8 {
            table[LEVEL[i] as usize - 1] = i;
        }
        i += 1;
    }
    table
};

/// The strength level of a card code.
pub(crate) fn level(card: CardCode) -> u8 {
    LEVEL[index(card)]
}

/// True for an ace.
pub(crate) fn is_ace(card: CardCode) -> bool {
    card.as_str().as_bytes().first() == Some(&b'A')
}

/// The set of the given cards.
pub(crate) fn set_of(cards: &[CardCode]) -> CardSet {
    cards.iter().fold(0, |set, &c| set | bit(c))
}

/// The strongest level among a set; 99 for the empty set.
pub(crate) fn strongest_level(set: CardSet) -> u8 {
    let mut best = 99;
    let mut rest = set;
    while rest != 0 {
        best = best.min(LEVEL[rest.trailing_zeros() as usize]);
        rest &= rest - 1;
    }
    best
}

/// The card that a signal says its sender holds, for the eight card signals.
pub(crate) fn signalled_card(signal: &str) -> Option<usize> {
    CARD_SIGNALS.iter().position(|&name| name == signal).map(|lvl| TOP_CARD[lvl])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> CardCode {
        s.parse().unwrap()
    }

    #[test]
    fn levels_match_the_rules_table() {
        let expect = [
            ("3o", 1),
            ("3c", 2),
            ("2o", 3),
            ("2c", 4),
            ("9c", 5),
            ("9o", 6),
            ("2b", 7),
            ("2s", 8),
            ("Ab", 9),
            ("Ko", 10),
            ("Cc", 11),
            ("Js", 12),
            ("9s", 13),
            ("9b", 13),
            ("8o", 14),
            ("7c", 15),
            ("6s", 16),
            ("5b", 17),
            ("4o", 18),
            ("3s", 19),
            ("3b", 19),
        ];
        for (c, lvl) in expect {
            assert_eq!(level(code(c)), lvl, "{c}");
        }
        let mut counts = [0; 20];
        for lvl in LEVEL {
            counts[lvl as usize] += 1;
        }
        assert_eq!(&counts[1..], &[1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 2]);
    }

    #[test]
    fn indices_are_distinct_and_signals_name_top_cards() {
        let mut seen = 0u64;
        for r in "A23456789JCK".chars() {
            for s in "ocsb".chars() {
                seen |= bit(code(&format!("{r}{s}")));
            }
        }
        assert_eq!(seen, ALL_CARDS);
        assert_eq!(signalled_card("monsieur"), Some(index(code("3o"))));
        assert_eq!(signalled_card("deux-d-ecrit"), Some(index(code("2s"))));
        assert_eq!(signalled_card("aces:2"), None);
    }
}
