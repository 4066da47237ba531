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
    /// The par lies in `lo..=hi`.
    lo: i8,
    hi: i8,
    /// The slot of the lead that decided the last search of it (`NONE` when unknown).
    best: u8,
    /// The size of the search that found the bounds (log2 of its nodes): the replacement
    /// keeps the costlier of two entries.
    work: u8,
    /// The table's generation when written: entries of an older one are empty.
    generation: u32,
}

/// No lead known.
pub(crate) const NONE: u8 = u8::MAX;

const EMPTY: Entry =
    Entry { key: Key { cards: 0, rest: 0 }, lo: 1, hi: 0, best: NONE, work: 0, generation: 0 };

/// A fixed-size table of buckets of two entries: the first keeps the costliest search of the
/// bucket, the second the newest, so the large early searches, which the later ones cannot
/// rebuild cheaply, are not written over by the many small ones.
#[derive(Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
    /// Clearing moves to a new generation instead of writing every entry: a benchmark or a
    /// replay clears for each deal, and writing 16 MiB cost more than solving a late position.
    generation: u32,
}

impl Table {
    pub(crate) fn new(log2: u32) -> Table {
        let size = 1usize << log2;
        Table { entries: vec![EMPTY; size], mask: size - 1, generation: 1 }
    }

    pub(crate) fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Once in four billion clears, the old generations could come back: wipe them.
            self.entries.fill(EMPTY);
            self.generation = 1;
        }
    }

    fn slot(&self, key: &Key) -> usize {
        let mixed = (key.cards as u64) ^ ((key.cards >> 64) as u64).rotate_left(23) ^ key.rest;
        let h = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 20) as usize & self.mask & !1
    }

    /// The bounds known for `key`.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<(i8, i8, u8)> {
        let slot = self.slot(key);
        let bucket = &self.entries[slot..slot + 2];
        let e = bucket.iter().find(|e| e.generation == self.generation && e.key == *key)?;
        Some((e.lo, e.hi, e.best))
    }

    /// Records that the par of `key` lies in `lo..=hi`, narrowing what was known of it.
    #[inline]
    pub(crate) fn put(&mut self, key: Key, lo: i8, hi: i8, best: u8, work: u8) {
        let slot = self.slot(&key);
        let generation = self.generation;
        let bucket = &mut self.entries[slot..slot + 2];
        if let Some(e) = bucket.iter_mut().find(|e| e.generation == generation && e.key == key) {
            e.lo = e.lo.max(lo);
            e.hi = e.hi.min(hi);
            e.best = best;
            e.work = e.work.max(work);
            return;
        }
        let new = Entry { key, lo, hi, best, work, generation };
        if bucket[0].generation != generation || bucket[0].work <= work {
            bucket[1] = bucket[0];
            bucket[0] = new;
        } else {
            bucket[1] = new;
        }
    }
}
