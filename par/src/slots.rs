//! The cards renumbered by strength: slot 0 is the Monsieur, slot 47 the last 3 of batons, and
//! the cards of one level sit in consecutive slots. A hand is then a bit mask in which "the
//! cards between two levels" is one contiguous range, which is what move merging asks for.
//! The order and the slots are `rules`' own ([`Card::BY_STRENGTH`], [`Card::strength`]); the
//! tables here only group the slots by level, once, at compile time.

use rules::Card;

/// The level of each slot (64 entries so `& 63` proves the index in bounds).
pub(crate) const LEVEL: [u8; 64] = {
    let mut levels = [0u8; 64];
    let mut s = 0;
    while s < 48 {
        levels[s] = Card::BY_STRENGTH[s].level();
        s += 1;
    }
    levels
};

/// `UPTO[l]`: the slots of levels 1..=l (`UPTO[0]` is empty).
pub(crate) const UPTO: [u64; 20] = {
    let mut masks = [0u64; 20];
    let mut l = 1;
    while l < 20 {
        let mut m = masks[l - 1];
        let mut s = 0;
        while s < 48 {
            if LEVEL[s] as usize == l {
                m |= 1 << s;
            }
            s += 1;
        }
        masks[l] = m;
        l += 1;
    }
    masks
};

/// `STRONGER[s]`: the slots of the levels strictly stronger than slot `s`'s (64 entries so
/// `& 63` proves the index in bounds).
pub(crate) const STRONGER: [u64; 64] = {
    let mut masks = [0u64; 64];
    let mut s = 0;
    while s < 48 {
        masks[s] = UPTO[(LEVEL[s] - 1) as usize];
        s += 1;
    }
    masks
};

/// `SAME[s]`: the slots of slot `s`'s level (64 entries so `& 63` proves the index in bounds).
pub(crate) const SAME: [u64; 64] = {
    let mut masks = [0u64; 64];
    let mut s = 0;
    while s < 48 {
        let l = LEVEL[s] as usize;
        masks[s] = UPTO[l] & !UPTO[l - 1];
        // The transposition key packs a level's cards in twelve bits.
        assert!(masks[s].count_ones() <= 4);
        s += 1;
    }
    masks
};

/// The slots of levels `from..=to`.
#[inline]
pub(crate) const fn levels(from: u8, to: u8) -> u64 {
    UPTO[to as usize % 20] & !UPTO[from.saturating_sub(1) as usize % 20]
}

/// The level of the weakest card of a non-empty slot mask (its highest slot).
#[inline]
pub(crate) fn weakest(mask: u64) -> u8 {
    LEVEL[(63 - mask.leading_zeros() as usize) & 63]
}

/// The slot mask of a set of cards.
pub(crate) fn mask(cards: rules::CardSet) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.strength())
}

/// The card in a slot.
pub(crate) fn card_at(slot: u8) -> Card {
    Card::BY_STRENGTH[slot as usize % 48]
}
