//! Deck orders, the seeded shuffle and the traditional draws: the only randomness, always an input.

use crate::card::{Card, CardSet};
use crate::seat::Seat;
use core::fmt;

/// SplitMix64 (Steele, Lea and Flood, 2014). Chosen because it is tiny, has no dependencies and
/// is fully specified by three constants, so any language can reproduce our decks.
/// The algorithm, constants and use below are frozen: changing them changes every deck.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..bound` (bound > 0) by Lemire's multiply-shift with rejection,
    /// which is exactly unbiased.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        let mut low = m as u64;
        if low < bound {
            let threshold = bound.wrapping_neg() % bound;
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }
}

/// Mixes several numbers into one seed, so that per-game and per-deal seeds can be derived from
/// a match seed in a documented way: each part is folded in by one SplitMix64 step.
pub fn derive_seed(parts: &[u64]) -> u64 {
    parts.iter().fold(0x6A09_E667_F3BC_C909, |acc, &p| SplitMix64::new(acc ^ p).next_u64())
}

/// An ordered pack of 48 distinct cards, index 0 dealt first.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deck([Card; 48]);

/// A deck order that is not a permutation of the 48 cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckError {
    /// Not 48 cards.
    WrongLength(usize),
    /// This card appears twice.
    Duplicate(Card),
}

impl fmt::Display for DeckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeckError::WrongLength(n) => write!(f, "a deck has 48 cards, not {n}"),
            DeckError::Duplicate(c) => write!(f, "card {c} appears twice in the deck"),
        }
    }
}

impl core::error::Error for DeckError {}

impl Deck {
    /// Canonical order: coins ace..king, then cups, swords, batons.
    pub fn canonical() -> Deck {
        let mut cards = [Card::MONSIEUR; 48];
        for (i, c) in Card::all().enumerate() {
            cards[i] = c;
        }
        Deck(cards)
    }

    /// Validates a given order.
    pub fn from_cards(cards: &[Card]) -> Result<Deck, DeckError> {
        if cards.len() != 48 {
            return Err(DeckError::WrongLength(cards.len()));
        }
        let mut seen = CardSet::EMPTY;
        let mut out = [Card::MONSIEUR; 48];
        for (i, &c) in cards.iter().enumerate() {
            if seen.contains(c) {
                return Err(DeckError::Duplicate(c));
            }
            seen = seen.with(c);
            out[i] = c;
        }
        Ok(Deck(out))
    }

    /// The deck of a seed: the canonical order shuffled by Fisher-Yates (i from 47 down to 1,
    /// swap with `j = below(i + 1)`) driven by [`SplitMix64`] seeded with `seed`.
    pub fn shuffled(seed: u64) -> Deck {
        let mut rng = SplitMix64::new(seed);
        let mut deck = Deck::canonical();
        deck.shuffle_with(&mut rng);
        deck
    }

    /// Shuffles in place with the frozen Fisher-Yates of [`Deck::shuffled`].
    pub fn shuffle_with(&mut self, rng: &mut SplitMix64) {
        for i in (1..48).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            self.0.swap(i, j);
        }
    }

    /// The cards in order.
    pub fn cards(&self) -> &[Card; 48] {
        &self.0
    }

    /// The 9-card hands dealt by `dealer`: three rounds of three, from the dealer's left round
    /// to the dealer, taking deck cards in order.
    pub fn hands(&self, dealer: Seat) -> [CardSet; 4] {
        let mut hands = [0u64; 4];
        for (packet, cards) in self.0[..36].chunks_exact(3).enumerate() {
            let seat = dealer.plus(1 + (packet % 4) as u8);
            let bits = cards.iter().fold(0u64, |b, c| b | 1 << c.index());
            hands[seat.index()] |= bits;
        }
        hands.map(CardSet::from_bits)
    }

    /// The 12 cards left after dealing, in the order the chant hands them out.
    pub fn talon(&self) -> &[Card] {
        &self.0[36..]
    }
}

impl fmt::Debug for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

/// The outcome of the traditional draw for partnerships and first dealer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// `seat_of[p]` is the seat taken by player `p` (players in the order they were given).
    pub seat_of: [Seat; 4],
    /// How many deck cards were turned up.
    pub cards_turned: usize,
}

/// The traditional draw: cards are turned up from `deck` and given to players 0, 1, 2, 3, 0, ...
/// in turn, skipping any player who already holds one of the four top cards, until the four top
/// cards are out. Madame's holder takes seat 0 and deals first; Monsieur's holder, Madame's
/// partner, takes seat 2; le Borgne's holder seat 1 and la Vache's holder seat 3.
pub fn draw_seating(deck: &Deck) -> Draw {
    let top_seat = |card: Card| match card.level() {
        1 => Some(2u8), // Monsieur
        2 => Some(0),   // Madame
        3 => Some(1),   // le Borgne
        4 => Some(3),   // la Vache
        _ => None,
    };
    let mut seat_of: [Option<Seat>; 4] = [None; 4];
    let mut player = 0usize;
    let mut turned = 0;
    for &card in deck.cards() {
        // Skip players who are already out of the draw.
        while seat_of[player].is_some() {
            player = (player + 1) % 4;
        }
        turned += 1;
        if let Some(seat) = top_seat(card) {
            seat_of[player] = Seat::new(seat);
            if seat_of.iter().all(Option::is_some) {
                break;
            }
        }
        player = (player + 1) % 4;
    }
    // A deck holds all four top cards, so every player has been seated.
    Draw { seat_of: seat_of.map(|s| s.unwrap_or(Seat::ALL[0])), cards_turned: turned }
}

/// The outcome of the traditional draw for the first dealer, partnerships being fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealerDraw {
    /// The seat that received the Madame, who deals the first deal.
    pub dealer: Seat,
    /// How many cards were turned up, the Madame last.
    pub cards_turned: usize,
}

/// The traditional draw for the first dealer when the partnerships are already fixed: `cards`
/// are turned up in order and dealt round the table from seat 0 to the left (0, 1, 2, 3, 0, ...),
/// skipping every seat that has already received one of the four great cards (`3o 3c 2o 2c`),
/// which gets no more cards, until the Madame appears; the seat that receives her deals first.
/// `None` when `cards` hold no Madame, which a whole deck always does: a replay gives the cards
/// a record says were turned up, which may be anything.
pub fn draw_first_dealer(cards: &[Card]) -> Option<DealerDraw> {
    let mut out = [false; 4];
    let mut seat = 0usize;
    for (i, &card) in cards.iter().enumerate() {
        // At most three seats are ever out before the Madame, so this stops.
        while out[seat] {
            seat = (seat + 1) % 4;
        }
        if card == Card::MADAME {
            return Some(DealerDraw { dealer: Seat::ALL[seat], cards_turned: i + 1 });
        }
        out[seat] = card.level() <= 4;
        seat = (seat + 1) % 4;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::{String, ToString};

    use alloc::vec::Vec;

    fn codes(cards: &[Card]) -> String {
        cards.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn splitmix_reference_values() {
        // Published reference outputs of SplitMix64 seeded with 1234567.
        let mut rng = SplitMix64::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
        assert_eq!(rng.next_u64(), 9817491932198370423);
    }

    #[test]
    fn shuffle_is_a_permutation_and_deterministic() {
        for seed in 0..200u64 {
            let d = Deck::shuffled(seed);
            assert!(Deck::from_cards(d.cards()).is_ok());
            assert_eq!(d, Deck::shuffled(seed));
        }
        assert_ne!(Deck::shuffled(1), Deck::shuffled(2));
    }

    #[test]
    fn dealing_in_threes_from_the_left() {
        let deck = Deck::canonical();
        let hands = deck.hands(Seat::new(3).unwrap());
        // Dealer 3: seat 0 gets cards 0-2, 12-14, 24-26.
        let idx = |s: usize| hands[s].iter().map(|c| c.index()).collect::<Vec<_>>();
        assert_eq!(idx(0), [0, 1, 2, 12, 13, 14, 24, 25, 26]);
        assert_eq!(idx(3), [9, 10, 11, 21, 22, 23, 33, 34, 35]);
        assert_eq!(codes(deck.talon()), "Ab 2b 3b 4b 5b 6b 7b 8b 9b Jb Cb Kb");
    }

    #[test]
    fn deck_validation() {
        let mut cards = deck_vec();
        assert!(Deck::from_cards(&cards).is_ok());
        cards[5] = cards[6];
        assert!(matches!(Deck::from_cards(&cards), Err(DeckError::Duplicate(_))));
        assert_eq!(Deck::from_cards(&cards[..47]), Err(DeckError::WrongLength(47)));
    }

    fn deck_vec() -> Vec<Card> {
        Deck::canonical().cards().to_vec()
    }

    #[test]
    fn draw_seats_the_top_card_holders() {
        // Canonical order: 2o (index 1) goes to player 1, 3o (index 2) to player 2,
        // then players 0 and 3 take cards until 2c and 3c appear (indices 13, 14).
        let draw = draw_seating(&Deck::canonical());
        // Players 0 and 3 then alternate over indices 3..: player 3 turns up 2c (index 13,
        // la Vache) and player 0 turns up 3c (index 14, Madame).
        assert_eq!(draw.seat_of.map(|s| s.index()), [0, 1, 2, 3]);
        assert_eq!(draw.cards_turned, 15);
    }

    #[test]
    fn the_madame_s_receiver_deals_first() {
        // Canonical order: 2o (index 1) puts seat 1 out, 3o (index 2) seat 2; 2c (index 13)
        // goes to seat 3, and the Madame (index 14) to seat 0, the only seat left.
        let draw = draw_first_dealer(Deck::canonical().cards());
        assert_eq!(draw, Some(DealerDraw { dealer: Seat::ALL[0], cards_turned: 15 }));
        // Turned up first, she goes to seat 0.
        assert_eq!(
            draw_first_dealer(&[Card::MADAME, Card::MONSIEUR]),
            Some(DealerDraw { dealer: Seat::ALL[0], cards_turned: 1 })
        );
        let four: Vec<Card> =
            ["Ao", "3o", "2o", "2c", "3c"].iter().map(|c| c.parse().unwrap()).collect();
        // Seats 1, 2 and 3 are out after the Monsieur, the Borgne and the Vache: seat 0 gets
        // every card after, the Madame too.
        assert_eq!(
            draw_first_dealer(&four),
            Some(DealerDraw { dealer: Seat::ALL[0], cards_turned: 5 })
        );
        // A skipped seat's turn passes on: seat 0 out with the Borgne, the fifth card (the
        // Madame) goes to seat 1, not to seat 0 as it would without the skip rule.
        let skip: Vec<Card> =
            ["2o", "Ao", "Ko", "Co", "3c"].iter().map(|c| c.parse().unwrap()).collect();
        assert_eq!(
            draw_first_dealer(&skip),
            Some(DealerDraw { dealer: Seat::ALL[1], cards_turned: 5 })
        );
        assert_eq!(draw_first_dealer(&four[..4]), None);
        assert_eq!(draw_first_dealer(&[]), None);
    }
}
