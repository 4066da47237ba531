//! The transposition table: bounds on the par of positions at the start of a trick, keyed on
//! the cards left (up to suits and to cards no other hand can tell apart) and the tally.

use alloc::vec;
use alloc::vec::Vec;

/// A position's key: the cards left, canonical (`canonical`), and the tally with the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Key {
    pub(crate) cards: u128,
    pub(crate) rest: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: Key,
    /// The par lies in `lo..=hi`; an empty slot has `lo > hi`.
    lo: i8,
    hi: i8,
    /// The slot of the lead that decided the last search of it (`NONE` when unknown).
    best: u8,
}

/// No lead known.
pub(crate) const NONE: u8 = u8::MAX;

const EMPTY: Entry = Entry { key: Key { cards: 0, rest: 0 }, lo: 1, hi: 0, best: NONE };

/// A fixed-size table, one entry per slot, the newest kept.
#[derive(Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    pub(crate) fn new(log2: u32) -> Table {
        let size = 1usize << log2;
        Table { entries: vec![EMPTY; size], mask: size - 1 }
    }

    pub(crate) fn clear(&mut self) {
        self.entries.fill(EMPTY);
    }

    fn slot(&self, key: &Key) -> usize {
        let mixed = (key.cards as u64) ^ ((key.cards >> 64) as u64).rotate_left(23) ^ key.rest;
        let h = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 20) as usize & self.mask
    }

    /// The bounds known for `key`.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<(i8, i8, u8)> {
        let e = &self.entries[self.slot(key)];
        (e.key == *key && e.lo <= e.hi).then_some((e.lo, e.hi, e.best))
    }

    /// Records that the par of `key` lies in `lo..=hi`, narrowing what was known of it.
    #[inline]
    pub(crate) fn put(&mut self, key: Key, lo: i8, hi: i8, best: u8) {
        let slot = self.slot(&key);
        let e = &mut self.entries[slot];
        if e.key == key && e.lo <= e.hi {
            e.lo = e.lo.max(lo);
            e.hi = e.hi.min(hi);
            e.best = best;
        } else {
            *e = Entry { key, lo, hi, best };
        }
    }
}
