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

/// One entry, packed in four words so that a new table is zeroed memory, which the system
/// hands out without writing it (a replay makes a table for each deal and may use little of
/// it): the key's cards in the first two, its rest in the third, and in the fourth the bounds
/// (the par lies in `lo..=hi`), the slot of the lead that decided the last search of it (`NONE`
/// when unknown), the size of that search (log2 of its nodes: the replacement keeps the
/// costlier searches of a bucket) and the table's generation when written (0: never written).
type Entry = [u64; 4];

fn pack(key: &Key, lo: i8, hi: i8, best: u8, work: u8, generation: u32) -> Entry {
    let info = u64::from(lo as u8)
        | u64::from(hi as u8) << 8
        | u64::from(best) << 16
        | u64::from(work) << 24
        | u64::from(generation) << 32;
    [key.cards as u64, (key.cards >> 64) as u64, key.rest, info]
}

fn generation(e: &Entry) -> u32 {
    (e[3] >> 32) as u32
}

fn work(e: &Entry) -> u8 {
    (e[3] >> 24) as u8
}

fn holds(e: &Entry, key: &Key, generation_now: u32) -> bool {
    generation(e) == generation_now
        && e[0] == key.cards as u64
        && e[1] == (key.cards >> 64) as u64
        && e[2] == key.rest
}

/// The bounds and lead of an entry.
fn unpack(e: &Entry) -> (i8, i8, u8) {
    (e[3] as u8 as i8, (e[3] >> 8) as u8 as i8, (e[3] >> 16) as u8)
}

/// Entries a bucket: eight (256 bytes) took the bench's whole deals from 1,004,410 nodes to
/// 844,026 on ten and from 2,690,731 to 2,469,951 on thirty, against two (the costlier kept
/// and the newest); four took them to 902,797 and 2,538,000.
const WAYS: usize = 8;

/// No lead known.
pub(crate) const NONE: u8 = u8::MAX;

/// A fixed-size table of buckets of [`WAYS`] entries. A new entry takes the place of one of an
/// older generation, else of the cheapest search of the bucket, so the large early searches,
/// which the later ones cannot rebuild cheaply, are not written over by the many small ones.
#[derive(Debug)]
pub(crate) struct Table {
    /// The entries, four words each, from `start` on: glibc's large blocks begin 16 bytes
    /// into a page, which left every bucket of 256 bytes across five cache lines, not four;
    /// `start` puts the buckets on 256-byte boundaries (a fifth fewer simulated cache misses).
    words: Vec<u64>,
    start: usize,
    mask: usize,
    /// Clearing moves to a new generation instead of writing every entry: a benchmark or a
    /// replay clears for each deal, and writing 16 MiB cost more than solving a late position.
    generation: u32,
}

impl Table {
    pub(crate) fn new(log2: u32) -> Table {
        let size = 1usize << log2;
        let words = vec![0; 4 * (size + WAYS)];
        let start = (256 - words.as_ptr() as usize % 256) % 256 / 8;
        Table { words, start, mask: size - 1, generation: 1 }
    }

    pub(crate) fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Once in four billion clears, the old generations could come back: wipe them.
            self.words.fill(0);
            self.generation = 1;
        }
    }

    fn slot(&self, key: &Key) -> usize {
        let mixed = (key.cards as u64) ^ ((key.cards >> 64) as u64).rotate_left(23) ^ key.rest;
        let h = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 20) as usize & self.mask & !(WAYS - 1)
    }

    /// The entries of `key`'s bucket.
    #[inline]
    fn bucket(&self, key: &Key) -> &[Entry] {
        let at = self.start + 4 * self.slot(key);
        self.words[at..at + 4 * WAYS].as_chunks().0
    }

    /// The bounds known for `key`.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<(i8, i8, u8)> {
        self.bucket(key).iter().find(|e| holds(e, key, self.generation)).map(unpack)
    }

    /// Records that the par of `key` lies in `lo..=hi`, narrowing what was known of it.
    #[inline]
    pub(crate) fn put(&mut self, key: Key, lo: i8, hi: i8, best: u8, work_now: u8) {
        let at = self.start + 4 * self.slot(&key);
        let now = self.generation;
        let bucket = self.words[at..at + 4 * WAYS].as_chunks_mut().0;
        if let Some(e) = bucket.iter_mut().find(|e| holds(e, &key, now)) {
            let (elo, ehi, _) = unpack(e);
            *e = pack(&key, elo.max(lo), ehi.min(hi), best, work(e).max(work_now), now);
            return;
        }
        let new = pack(&key, lo, hi, best, work_now, now);
        // The victim: an entry of an old generation, else the cheapest search.
        let cost = |e: &Entry| if generation(e) != now { 0 } else { u16::from(work(e)) + 1 };
        let mut victim = 0;
        for i in 1..WAYS {
            if cost(&bucket[i]) <= cost(&bucket[victim]) {
                victim = i;
            }
        }
        bucket[victim] = new;
    }
}
