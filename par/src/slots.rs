//! The cards renumbered by strength: slot 0 is the Monsieur, slot 47 the last 3 of batons, and
//! the cards of one level sit in consecutive slots. A hand is then a bit mask in which "the
//! cards between two levels" is one contiguous range, which is what move merging asks for.

use rules::Card;

/// The slot of each card index.
pub(crate) const SLOT_OF: [u8; 48] = {
    let mut slots = [0u8; 48];
    let mut next = 0u8;
    let mut level = 1;
    while level <= 19 {
        let mut i = 0;
        while i < 48 {
            if card(i).level() == level {
                slots[i as usize] = next;
                next += 1;
            }
            i += 1;
        }
        level += 1;
    }
    slots
};

/// The card index in each slot.
pub(crate) const CARD_OF: [u8; 48] = {
    let mut cards = [0u8; 48];
    let mut i = 0;
    while i < 48 {
        cards[SLOT_OF[i] as usize] = i as u8;
        i += 1;
    }
    cards
};

/// The level of each slot (64 entries so `& 63` proves the index in bounds).
pub(crate) const LEVEL: [u8; 64] = {
    let mut levels = [0u8; 64];
    let mut s = 0;
    while s < 48 {
        levels[s] = card(CARD_OF[s]).level();
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

/// The slots of levels `from..=to`.
#[inline]
pub(crate) const fn levels(from: u8, to: u8) -> u64 {
    UPTO[to as usize % 20] & !UPTO[from.saturating_sub(1) as usize % 20]
}

const fn card(index: u8) -> Card {
    match Card::from_index(index) {
        Some(c) => c,
        None => panic!("a card index below 48"),
    }
}

/// The slot mask of a set of cards.
pub(crate) fn mask(cards: rules::CardSet) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << SLOT_OF[c.index() as usize])
}

/// The card in a slot.
pub(crate) fn card_at(slot: u8) -> Card {
    card(CARD_OF[slot as usize % 48])
}
