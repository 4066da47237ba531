//! The alpha-beta search over the trick phase: team 0 maximises, team 1 minimises team 0's
//! points minus team 1's. Cards a hand holds that no other card in play separates are one move
//! (`moves`), and positions at the start of a trick go through the transposition table.

use crate::slots::{LEVEL, levels};
use crate::table::{Key, Table};
use crate::tally::{Scoring, Tally};

/// The search's state: slot masks of the hands and the trick in progress.
pub(crate) struct Search<'t> {
    pub(crate) hands: [u64; 4],
    pub(crate) leader: u8,
    pub(crate) table: [u8; 4],
    pub(crate) n_table: u8,
    pub(crate) table_mask: u64,
    pub(crate) tally: Tally,
    pub(crate) scoring: Scoring,
    pub(crate) tt: &'t mut Table,
    pub(crate) nodes: u64,
}

/// The moves of `hand`, one per class of interchangeable cards, strongest first: two cards of
/// the hand are interchangeable when no card of `others` lies at or between their levels.
#[inline]
pub(crate) fn moves(hand: u64, others: u64) -> ([u8; 9], usize) {
    let mut out = [0u8; 9];
    let mut n = 0;
    let mut rest = hand;
    let mut prev = 0u8;
    while rest != 0 {
        let slot = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let level = LEVEL[slot as usize & 63];
        if n == 0 || (level != prev && others & levels(prev, level) != 0) {
            if n < 9 {
                out[n] = slot;
            }
            n += 1;
        }
        prev = level;
    }
    (out, n.min(9))
}

impl Search<'_> {
    /// The par of the current position within the window `alpha..beta` (fail-soft).
    pub(crate) fn search(&mut self, mut alpha: i8, mut beta: i8) -> i8 {
        self.nodes += 1;
        let mut key = None;
        if self.n_table == 0 {
            if self.tally.done == 9 {
                return self.tally.value(self.scoring);
            }
            let k = self.key();
            if let Some((lo, hi)) = self.tt.get(&k) {
                if lo == hi || lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
            }
            key = Some(k);
        }
        let (alpha0, beta0) = (alpha, beta);
        let seat = (self.leader + self.n_table) & 3;
        let hand = self.hands[seat as usize];
        let mut others = self.table_mask;
        for s in 0..4 {
            if s != seat {
                others |= self.hands[s as usize];
            }
        }
        let (list, n) = moves(hand, others);
        let maximise = seat & 1 == 0;
        let mut best = if maximise { i8::MIN } else { i8::MAX };
        for &slot in &list[..n] {
            let v = self.play(seat, slot, alpha, beta);
            if maximise {
                best = best.max(v);
                alpha = alpha.max(best);
            } else {
                best = best.min(v);
                beta = beta.min(best);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some(k) = key {
            let (lo, hi) = self.scoring.range();
            if best <= alpha0 {
                self.tt.put(k, lo, best);
            } else if best >= beta0 {
                self.tt.put(k, best, hi);
            } else {
                self.tt.put(k, best, best);
            }
        }
        best
    }

    /// Plays `slot` for `seat`, searches on, and takes the card back.
    #[inline]
    fn play(&mut self, seat: u8, slot: u8, alpha: i8, beta: i8) -> i8 {
        let bit = 1u64 << slot;
        self.hands[seat as usize] &= !bit;
        self.table[self.n_table as usize & 3] = slot;
        self.n_table += 1;
        let v = if self.n_table < 4 {
            self.table_mask |= bit;
            let v = self.search(alpha, beta);
            self.table_mask &= !bit;
            v
        } else {
            // The next tricks write over the table: the cards of this one come back with it.
            let (tally, leader, mask, table) =
                (self.tally, self.leader, self.table_mask, self.table);
            let winner = self.trick_winner();
            self.tally = self.tally.after(winner);
            self.leader = winner.unwrap_or(leader);
            self.n_table = 0;
            self.table_mask = 0;
            let v = self.search(alpha, beta);
            (self.tally, self.leader, self.table_mask, self.table) = (tally, leader, mask, table);
            self.n_table = 4;
            v
        };
        self.n_table -= 1;
        self.hands[seat as usize] |= bit;
        v
    }

    /// The winner of the four cards on the table, `None` when the strongest level is tied.
    #[inline]
    fn trick_winner(&self) -> Option<u8> {
        let lv = self.table.map(|s| LEVEL[s as usize & 63]);
        let best = lv.iter().copied().min().unwrap_or(0);
        let mut at = None;
        for (i, &l) in lv.iter().enumerate() {
            if l == best {
                if at.is_some() {
                    return None;
                }
                at = Some(i as u8);
            }
        }
        at.map(|i| (self.leader + i) & 3)
    }

    /// The key of a position at the start of a trick: for each level with cards left, in
    /// order, who holds them (three bits a card: the seat, and whether a new group starts);
    /// runs of levels held by one seat alone are one group, since nothing tells them apart.
    fn key(&self) -> Key {
        let mut cards = 0u128;
        let mut last_owner = 4u8;
        for level in 1..=19u8 {
            let m = levels(level, level);
            let counts = self.hands.map(|h| (h & m).count_ones() as u8);
            let owners = counts.iter().filter(|&&c| c > 0).count();
            if owners == 0 {
                continue;
            }
            let single = if owners == 1 { counts.iter().position(|&c| c > 0) } else { None };
            let mut start = match single {
                Some(s) => s as u8 != last_owner,
                None => true,
            };
            last_owner = single.map_or(4, |s| s as u8);
            for (s, &c) in counts.iter().enumerate() {
                for _ in 0..c {
                    cards = cards << 3 | u128::from(start) << 2 | s as u128;
                    start = false;
                }
            }
        }
        Key { cards, rest: u64::from(self.tally.key()) | u64::from(self.leader) << 32 }
    }
}
