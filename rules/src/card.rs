//! Cards, their strength and their one canonical short code, shared by every part of the project.

use core::fmt;
use core::str::FromStr;

/// The four suits of the Spanish-suited pack. Suits only name cards: they never rank them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    /// Coins (oros, deniers), code `o`.
    Coins = 0,
    /// Cups (copas, coupes), code `c`.
    Cups = 1,
    /// Swords (espadas, épées), code `s`.
    Swords = 2,
    /// Batons (bastos, bâtons), code `b`.
    Batons = 3,
}

impl Suit {
    /// All suits in canonical order.
    pub const ALL: [Suit; 4] = [Suit::Coins, Suit::Cups, Suit::Swords, Suit::Batons];

    /// The one-letter code.
    pub const fn code(self) -> char {
        match self {
            Suit::Coins => 'o',
            Suit::Cups => 'c',
            Suit::Swords => 's',
            Suit::Batons => 'b',
        }
    }
}

/// The twelve ranks. There are no tens in the pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum Rank {
    Ace = 0,
    Two,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    /// Valet, sota, "10".
    Jack,
    /// Cavalière, caballo, "11".
    Cavalier,
    /// Roi, rey, "12".
    King,
}

impl Rank {
    /// All ranks in canonical order.
    pub const ALL: [Rank; 12] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Jack,
        Rank::Cavalier,
        Rank::King,
    ];

    /// The one-character code.
    pub const fn code(self) -> char {
        b"A23456789JCK"[self as usize] as char
    }
}

/// One of the 48 cards, stored as `suit * 12 + rank` so that a hand fits a `u64` bitset.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

/// Strength level of each card index, 1 strongest; computed once so `level` is a table read.
/// It has 64 entries so that `level` can index it with `& 63`, which the compiler knows is in
/// bounds (a card index is below 48 anyway): trick resolution then reads four levels unchecked.
const LEVELS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 48 {
        let suit = i / 12;
        let rank = i % 12;
        // Suits: 0 coins, 1 cups, 2 swords, 3 batons. Ranks: 0 ace .. 8 nine, 9 J, 10 C, 11 K.
        t[i] = match (rank, suit) {
            (2, 0) => 1,
            (2, 1) => 2,
            (1, 0) => 3,
            (1, 1) => 4,
            (8, 1) => 5,
            (8, 0) => 6,
            (1, 3) => 7,
            (1, 2) => 8,
            (0, _) => 9,
            (11, _) => 10,
            (10, _) => 11,
            (9, _) => 12,
            (8, _) => 13,
            (7, _) => 14,
            (6, _) => 15,
            (5, _) => 16,
            (4, _) => 17,
            (3, _) => 18,
            (2, _) => 19,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// The place of each card index in [`Card::BY_STRENGTH`] (64 entries, as [`LEVELS`]).
const STRENGTH: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut p = 0;
    while p < 48 {
        t[Card::BY_STRENGTH[p].0 as usize] = p as u8;
        p += 1;
    }
    t
};

/// `SELECT_IN_BYTE[b][k]`: the position of the `k`-th set bit of byte `b` (0 when there is none),
/// the last step of [`CardSet::nth`].
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

impl Card {
    /// Monsieur, the strongest card.
    pub const MONSIEUR: Card = Card::new(Rank::Three, Suit::Coins);
    /// Madame.
    pub const MADAME: Card = Card::new(Rank::Three, Suit::Cups);
    /// Le Borgne.
    pub const BORGNE: Card = Card::new(Rank::Two, Suit::Coins);
    /// La Vache.
    pub const VACHE: Card = Card::new(Rank::Two, Suit::Cups);
    /// Grand-neuf.
    pub const GRAND_NEUF: Card = Card::new(Rank::Nine, Suit::Cups);
    /// Petit-neuf.
    pub const PETIT_NEUF: Card = Card::new(Rank::Nine, Suit::Coins);
    /// Deux de chêne.
    pub const DEUX_DE_CHENE: Card = Card::new(Rank::Two, Suit::Batons);
    /// Deux d'écrit.
    pub const DEUX_D_ECRIT: Card = Card::new(Rank::Two, Suit::Swords);

    /// The number of cards in the pack.
    pub const COUNT: usize = 48;

    /// The card of this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit as u8 * 12 + rank as u8)
    }

    /// The card with this index (0..48, canonical order: coins ace..king, then cups, swords, batons).
    pub const fn from_index(index: u8) -> Option<Card> {
        if index < 48 { Some(Card(index)) } else { None }
    }

    /// The card of a two-byte code, rank then suit (`b"3o"`), if it is one.
    pub const fn from_ascii([r, s]: [u8; 2]) -> Option<Card> {
        let rank = match r {
            b'A' => Rank::Ace,
            b'2'..=b'9' => Rank::ALL[(r - b'1') as usize],
            b'J' => Rank::Jack,
            b'C' => Rank::Cavalier,
            b'K' => Rank::King,
            _ => return None,
        };
        let suit = match s {
            b'o' => Suit::Coins,
            b'c' => Suit::Cups,
            b's' => Suit::Swords,
            b'b' => Suit::Batons,
            _ => return None,
        };
        Some(Card::new(rank, suit))
    }

    /// The index in canonical order, 0..48.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The suit.
    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 12) as usize]
    }

    /// The rank.
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 % 12) as usize]
    }

    /// Strength level from 1 (Monsieur, strongest) to 19 (3 of swords and of batons).
    pub const fn level(self) -> u8 {
        LEVELS[(self.0 & 63) as usize]
    }

    /// True when `self` beats `other` outright (strictly stronger level).
    pub const fn beats(self, other: Card) -> bool {
        self.level() < other.level()
    }

    /// The traditional name of the eight top cards, `None` for the others.
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.level() {
            1 => "Monsieur",
            2 => "Madame",
            3 => "le Borgne",
            4 => "la Vache",
            5 => "Grand-neuf",
            6 => "Petit-neuf",
            7 => "Deux de chêne",
            8 => "Deux d'écrit",
            _ => return None,
        })
    }

    /// The 48 cards in strength order: the Monsieur first, the 3s of swords and batons last,
    /// the cards of one level in canonical order. Solvers that renumber cards by strength build
    /// their tables from it.
    pub const BY_STRENGTH: [Card; 48] = {
        let mut order = [Card(0); 48];
        let mut n = 0;
        let mut level = 1;
        while level <= 19 {
            let mut i = 0;
            while i < 48 {
                if LEVELS[i] == level {
                    order[n] = Card(i as u8);
                    n += 1;
                }
                i += 1;
            }
            level += 1;
        }
        order
    };

    /// The place of this card in [`Card::BY_STRENGTH`], 0 (the Monsieur) to 47: a table read.
    pub const fn strength(self) -> u8 {
        STRENGTH[(self.0 & 63) as usize]
    }

    /// All 48 cards in canonical order.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..48).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = [self.rank().code() as u8, self.suit().code() as u8];
        // Both bytes are ASCII by construction.
        f.write_str(core::str::from_utf8(&code).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that is not one of the 48 card codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError;

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a card code (rank A 2-9 J C K, then suit o c s b, e.g. 3o or Kc)")
    }
}

impl core::error::Error for ParseCardError {}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let &[r, s] = s.as_bytes() else { return Err(ParseCardError) };
        Card::from_ascii([r, s]).ok_or(ParseCardError)
    }
}

/// A set of cards as a 48-bit mask: hands, discards and "cards seen" stay allocation-free.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 48 cards.
    pub const FULL: CardSet = CardSet((1 << 48) - 1);

    /// The set holding exactly these cards (duplicates collapse).
    pub fn from_cards(cards: &[Card]) -> CardSet {
        cards.iter().fold(CardSet::EMPTY, |s, &c| s.with(c))
    }

    /// The raw 48-bit mask, bit `i` for the card of index `i`.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set of a raw mask; bits above 47 are dropped.
    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & Self::FULL.0)
    }

    /// Number of cards.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Membership.
    pub const fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.0) != 0
    }

    /// This set with `card` added.
    #[must_use]
    pub const fn with(self, card: Card) -> CardSet {
        CardSet(self.0 | (1 << card.0))
    }

    /// This set with `card` removed.
    #[must_use]
    pub const fn without(self, card: Card) -> CardSet {
        CardSet(self.0 & !(1 << card.0))
    }

    /// Union.
    #[must_use]
    pub const fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    /// Intersection.
    #[must_use]
    pub const fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    /// Cards of `self` not in `other`.
    #[must_use]
    pub const fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// True when every card of `self` is in `other`.
    pub const fn is_subset(self, other: CardSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The `n`-th card in canonical order (0-based), if there are that many.
    ///
    /// A random player calls this on every card it plays, with `n` itself random: a loop that
    /// clears `n` low bits mispredicted its exit about once a call, which cost more than the
    /// whole play. This selects the bit without a data-dependent branch, and with a short chain
    /// of dependent steps, since a playout waits on each card: the bytes' card counts at once,
    /// their running totals by one multiplication, the byte holding the card by comparing every
    /// total with `n` at once, and the bit within that byte from a table.
    pub fn nth(self, n: usize) -> Option<Card> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        if n >= self.len() {
            return None;
        }
        let x = self.0;
        let mut per_byte = x - ((x >> 1) & 0x5555_5555_5555_5555);
        per_byte = (per_byte & 0x3333_3333_3333_3333) + ((per_byte >> 2) & 0x3333_3333_3333_3333);
        per_byte = (per_byte + (per_byte >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        // Byte i of `upto` counts the cards of bytes 0..=i (at most 48: no carry between bytes).
        let upto = per_byte.wrapping_mul(ONES);
        // Bit 7 of byte i is set when bytes 0..=i hold at most n cards: the number of such
        // bytes is the index of the byte that holds the n-th card.
        let at_most_n = ((n as u64 * ONES) | HIGH).wrapping_sub(upto) & HIGH;
        let byte = at_most_n.count_ones();
        let before = ((upto << 8) >> (8 * byte)) & 0xFF;
        let in_byte = ((x >> (8 * byte)) & 0xFF) as usize;
        let bit = SELECT_IN_BYTE[in_byte][(n as u64 - before) as usize & 7];
        Some(Card(8 * byte as u8 + bit))
    }

    /// The strongest level present (smallest number), `None` when empty.
    pub fn strongest_level(self) -> Option<u8> {
        self.iter().map(Card::level).min()
    }

    /// The weakest card, ties broken by canonical order (the first such card).
    pub fn weakest(self) -> Option<Card> {
        self.iter().max_by(|a, b| a.level().cmp(&b.level()).then(b.index().cmp(&a.index())))
    }

    /// Iterates in canonical order.
    pub fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        iter.into_iter().fold(CardSet::EMPTY, CardSet::with)
    }
}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;
    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

/// Iterator over a [`CardSet`] in canonical order.
#[derive(Clone, Debug)]
pub struct CardSetIter(u64);

impl Iterator for CardSetIter {
    type Item = Card;

    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Card(i as u8))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn codes_round_trip_for_all_48_cards() {
        for card in Card::all() {
            let code = card.to_string();
            assert_eq!(code.len(), 2);
            assert_eq!(code.parse::<Card>(), Ok(card));
        }
        for bad in ["", "3", "3oo", "1o", "Tc", "3x", "3O", "ko", "10o"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn level_counts_match_the_table() {
        let mut count = [0; 20];
        for card in Card::all() {
            count[card.level() as usize] += 1;
        }
        assert_eq!(count, [0, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 2]);
    }

    #[test]
    fn named_cards() {
        let names: alloc::vec::Vec<_> = ["3o", "3c", "2o", "2c", "9c", "9o", "2b", "2s"]
            .iter()
            .map(|c| c.parse::<Card>().unwrap())
            .collect();
        for (i, card) in names.iter().enumerate() {
            assert_eq!(card.level() as usize, i + 1);
            assert!(card.name().is_some());
        }
        assert_eq!("Ao".parse::<Card>().unwrap().name(), None);
        assert_eq!("3s".parse::<Card>().unwrap().level(), 19);
        assert_eq!("9s".parse::<Card>().unwrap().level(), 13);
        assert_eq!("Cc".parse::<Card>().unwrap().level(), 11);
    }

    #[test]
    fn strength_order_holds_every_card_once_strongest_first() {
        let order = Card::BY_STRENGTH;
        assert_eq!(order[0], Card::MONSIEUR);
        assert_eq!(CardSet::from_cards(&order), CardSet::FULL);
        for (p, card) in order.iter().enumerate() {
            assert_eq!(usize::from(card.strength()), p);
        }
        for pair in order.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(a.level() < b.level() || (a.level() == b.level() && a.index() < b.index()));
        }
    }

    #[test]
    fn cardset_basics() {
        let s: CardSet = ["3o", "Kc", "4b"].iter().map(|c| c.parse::<Card>().unwrap()).collect();
        assert_eq!(s.len(), 3);
        assert_eq!(s.strongest_level(), Some(1));
        assert_eq!(s.weakest().unwrap().to_string(), "4b");
        assert_eq!(s.nth(2).unwrap().to_string(), "4b");
        assert_eq!(s.nth(3), None);
        assert!(s.without(Card::MONSIEUR).is_subset(s));
    }

    #[test]
    fn nth_agrees_with_counting_bits_one_by_one() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut sets = alloc::vec![CardSet::EMPTY, CardSet::FULL, CardSet::from_bits(1 << 47)];
        for _ in 0..2000 {
            // xorshift: sparse, dense and every byte pattern, hands of any size.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sets.push(CardSet::from_bits(x));
            sets.push(CardSet::from_bits(x & (x >> 5) & (x >> 11)));
        }
        for set in sets {
            for n in 0..50 {
                assert_eq!(set.nth(n), set.iter().nth(n), "{set:?} {n}");
            }
        }
    }
}
