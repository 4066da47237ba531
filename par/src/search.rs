//! The alpha-beta search over the trick phase: team 0 maximises, team 1 minimises team 0's
//! points minus team 1's. Cards a hand holds that no other card in play separates are one move
//! (`moves`), so are the cards no trick can turn on any more (`dead`), and positions at the
//! start of a trick go through the transposition table, keyed without those cards.

use crate::bounds;
use crate::slots::{LEVEL, SAME, STRONGER, levels};
use crate::table::{Key, NONE, Table};
use crate::tally::{Scoring, Tally};

/// The search's state: slot masks of the hands and the trick in progress.
pub(crate) struct Search<'t> {
    pub(crate) hands: [u64; 4],
    pub(crate) leader: u8,
    pub(crate) table: [u8; 4],
    pub(crate) n_table: u8,
    pub(crate) table_mask: u64,
    /// The cards no trick can turn on any more ([`dead`]), as of the last trick start.
    pub(crate) dead: u64,
    pub(crate) tally: Tally,
    pub(crate) scoring: Scoring,
    pub(crate) tt: &'t mut Table,
    pub(crate) nodes: u64,
    /// The search stops once `nodes` passes this; what it then returns means nothing, and it
    /// stores nothing more in the table.
    pub(crate) budget: u64,
    /// What the last seat's look ahead (`etc`) found at the start of the trick its next card
    /// leads to, for that search to take instead of finding it again.
    pub(crate) pre: Option<Pre>,
}

/// A trick start looked at (`Search::start`), with the dead cards it found.
pub(crate) type Pre = Result<(i8, i8, u8, Key, u64), i8>;

/// The moves of `hand`, one per class of interchangeable cards, strongest first: two cards of
/// the hand are interchangeable when no card of `others` lies at or between their levels.
#[inline]
pub(crate) fn moves(hand: u64, others: u64) -> ([u8; 9], usize) {
    let mut out = [0u8; 9];
    let mut n = 0;
    let mut rest = hand;
    // The slots of the levels stronger than the last level of the hand seen.
    let mut above = 0u64;
    // A level at a time: the hand's cards of one level are always one move.
    while rest != 0 {
        let slot = rest.trailing_zeros() as usize & 63;
        let level = SAME[slot];
        rest &= !level;
        if n == 0 || others & (STRONGER[slot] | level) & !above != 0 {
            if n < 9 {
                out[n] = slot as u8;
            }
            n += 1;
        }
        above = STRONGER[slot];
    }
    (out, n.min(9))
}

/// The cards that can never decide a trick again: those weaker than every card of some other
/// hand, which plays a stronger card in each trick they are played in. They neither win nor
/// tie, so a hand's are one move (a throwaway), they tell no other cards apart, and the table's
/// key leaves them out (their number is the hand's size less its other cards). A card once
/// dead stays dead: the other hand's cards only leave it.
#[inline]
pub(crate) fn dead(hands: &[u64; 4]) -> u64 {
    // Each hand's weakest slot (an empty hand's the weakest of all: it holds nothing back);
    // slots rise with levels, so the least of them is the strongest floor.
    let floor = hands.map(|h| if h == 0 { 47 } else { 63 - h.leading_zeros() as usize });
    let mut out = 0;
    for s in 0..4 {
        let t = floor[s ^ 1].min(floor[s ^ 2]).min(floor[s ^ 3]) & 63;
        out |= hands[s] & !(STRONGER[t] | SAME[t]);
    }
    out
}

/// The moves of `hand`, as `moves`, with its dead cards (of `dead`) one move, the weakest.
#[inline]
fn moves_alive(hand: u64, others: u64, dead: u64) -> ([u8; 9], usize) {
    let (mut list, mut n) = moves(hand & !dead, others & !dead);
    let gone = hand & dead;
    if gone != 0 && n < 9 {
        list[n] = 63 - gone.leading_zeros() as u8;
        n += 1;
    }
    (list, n)
}

/// What the transposition key writes for one level, indexed by who holds each of its slots (at
/// most four: bits 0-3 the slots held, bits 4-7 and 8-11 the low and high bit of each one's
/// seat): the seats' three-bit fields, seat 0's first, a field a card, in the low twelve bits,
/// their width at bit 12, and at bit 16 the one seat that holds the level alone (4 when none
/// does). One load instead of a loop over the seats and their cards (5% fewer instructions on
/// the bench), its index from two masks of the seats' bits, not a count a seat (1% fewer).
const LEVEL_KEY: [u32; 4096] = {
    let mut out = [0u32; 4096];
    let mut code = 0;
    while code < 4096 {
        let mut counts = [0u32; 4];
        let mut j = 0;
        while j < 4 {
            if code >> j & 1 != 0 {
                counts[(code >> (4 + j) & 1) | (code >> (8 + j) & 1) << 1] += 1;
            }
            j += 1;
        }
        let (mut fields, mut width, mut held) = (0u32, 0u32, 0u32);
        let mut s = 0;
        while s < 4 {
            let mut k = 0;
            while k < counts[s] {
                fields = fields << 3 | s as u32;
                k += 1;
            }
            width += 3 * counts[s];
            if counts[s] > 0 {
                held |= 1 << s;
            }
            s += 1;
        }
        let single = if held.is_power_of_two() { held.trailing_zeros() } else { 4 };
        out[code] = fields | width << 12 | single << 16;
        code += 1;
    }
    out
};

/// The value that ends a search with bounds `lo..=hi` in the window `alpha..beta` (fail-soft):
/// `lo` when the bounds meet or `lo` fails high, `hi` when `hi` fails low; `None` when the
/// window is still open.
#[inline]
fn cut(lo: i8, hi: i8, alpha: i8, beta: i8) -> Option<i8> {
    if lo >= hi || lo >= beta {
        Some(lo)
    } else if hi <= alpha {
        Some(hi)
    } else {
        None
    }
}

impl Search<'_> {
    /// The par of the current position within the window `alpha..beta` (fail-soft).
    pub(crate) fn search(&mut self, mut alpha: i8, mut beta: i8) -> i8 {
        // Taken first, so that no later search finds it.
        let pre = self.pre.take();
        self.nodes += 1;
        if self.nodes > self.budget {
            return 0;
        }
        let mut key = None;
        let mut first = NONE;
        let (mut lo, mut hi) = self.scoring.range();
        if self.n_table == 0 {
            let start = match pre {
                Some(Ok((lo, hi, first, key, dead))) => {
                    self.dead = dead;
                    // The window may have narrowed since.
                    if let Some(v) = cut(lo, hi, alpha, beta) {
                        return v;
                    }
                    Ok((lo, hi, first, key))
                }
                Some(Err(v)) => Err(v),
                None => self.start(alpha, beta, None),
            };
            match start {
                Err(v) => return v,
                Ok((l, h, f, k)) => {
                    (lo, hi, first, key) = (l, h, f, Some(k));
                    alpha = alpha.max(lo);
                    beta = beta.min(hi);
                }
            }
        } else if self.tally.done < 8 && self.runs_matter(alpha, beta) {
            let (lo, hi) = bounds::run_bounds(&self.hands, &self.tally, false, self.scoring);
            if lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let (alpha0, beta0) = (alpha, beta);
        let nodes0 = self.nodes;
        let seat = (self.leader + self.n_table) & 3;
        let (list, n) = self.ordered(seat, first, alpha, beta);
        let maximise = seat & 1 == 0;
        let mut best = if maximise { i8::MIN } else { i8::MAX };
        let mut best_slot = NONE;
        // The last card of a trick: what each card leads to is looked at before any search.
        let mut pre = [Err(0); 9];
        if self.n_table == 3 {
            match self.etc(seat, &list[..n], alpha, beta) {
                Ok(found) => pre = found,
                Err(v) => return v,
            }
        }
        for (i, &slot) in list[..n].iter().enumerate() {
            if self.n_table == 3 {
                self.pre = Some(pre[i]);
            }
            let v = self.play(seat, slot, alpha, beta);
            if (maximise && v > best) || (!maximise && v < best) {
                best = v;
                best_slot = slot;
            }
            if maximise {
                alpha = alpha.max(best);
            } else {
                beta = beta.min(best);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some(k) = key
            && self.nodes <= self.budget
        {
            let work = (64 - (self.nodes - nodes0).leading_zeros()) as u8;
            if best <= alpha0 {
                self.tt.put(k, lo, best, best_slot, work);
            } else if best >= beta0 {
                self.tt.put(k, best, hi, best_slot, work);
            } else {
                self.tt.put(k, best, best, best_slot, work);
            }
        }
        best
    }

    /// At the start of a trick, what settles the position without searching: the deal's end,
    /// the bounds (the cheaper first) and the table. `Err` is the position's value or a bound
    /// outside `alpha..beta`; `Ok` the bounds, the remembered lead and the key, to search on.
    /// Sets `dead` for the trick.
    #[inline]
    fn start(
        &mut self,
        alpha: i8,
        beta: i8,
        known: Option<&bounds::Known>,
    ) -> Result<(i8, i8, u8, Key), i8> {
        if self.tally.done == 9 {
            return Err(self.tally.value(self.scoring));
        }
        if self.tally.done == 8 {
            return Err(self.last_trick());
        }
        let (mut lo, mut hi) = if self.runs_matter(alpha, beta) {
            bounds::run_bounds(&self.hands, &self.tally, true, self.scoring)
        } else {
            self.scoring.range()
        };
        if let Some(v) = cut(lo, hi, alpha, beta) {
            return Err(v);
        }
        let reach = bounds::reach(&self.hands, usize::from(self.leader), known);
        let most = reach.1;
        let (clo, chi) = bounds::bounds(&self.tally, &self.hands, reach, self.scoring);
        (lo, hi) = (lo.max(clo), hi.min(chi));
        if cut(lo, hi, alpha, beta).is_none() {
            let (slo, shi) = bounds::sweep_bounds(&self.hands, &self.tally, self.scoring);
            (lo, hi) = (lo.max(slo), hi.min(shi));
        }
        if let Some(v) = cut(lo, hi, alpha, beta) {
            return Err(v);
        }
        // A seat with tricks whose cards cannot win all the rest has no run left.
        let left = 9 - self.tally.done;
        let live = (0..4).fold(0u8, |m, s| m | u8::from(most[s] == left) << s);
        self.dead = dead(&self.hands);
        let k = self.key(live);
        let mut first = NONE;
        if let Some((tlo, thi, best)) = self.tt.get(&k) {
            (lo, hi) = (lo.max(tlo), hi.min(thi));
            first = best;
        }
        if let Some(v) = cut(lo, hi, alpha, beta) {
            return Err(v);
        }
        Ok((lo, hi, first, k))
    }

    /// False when the mordienne bounds (`bounds::run_bounds`) cannot cut the window: outside a
    /// committed deal they only say a team scores at most 1, so they settle the tests of a
    /// mordienne (is the par at least 2, or at most -2) and never the deal winner's, which the
    /// costliest deals spend nearly all their nodes on (5-7% of the time went to them).
    #[inline]
    fn runs_matter(&self, alpha: i8, beta: i8) -> bool {
        self.scoring.committed.is_some() || alpha >= 1 || beta <= -1
    }

    /// An enhanced transposition cutoff for the last card of a trick: the positions it leads
    /// to start a trick, so their bounds and table entries may already cut this one, whichever
    /// card would have been searched first.
    /// `Err` is a value that cuts, or the position's own bound when every card's trick start
    /// is settled outside the window; `Ok` what each card's position start found, for its
    /// search.
    fn etc(&mut self, seat: u8, list: &[u8], alpha: i8, beta: i8) -> Result<[Pre; 9], i8> {
        let maximise = seat & 1 == 0;
        let mut out = [Err(0); 9];
        // Only this seat's hand differs between the trick starts looked at.
        let known = bounds::Known::new(&self.hands, usize::from(seat));
        for (o, &slot) in out.iter_mut().zip(list) {
            let bit = 1u64 << slot;
            self.hands[seat as usize] &= !bit;
            self.table[3] = slot;
            let saved = self.close_trick();
            let r = self
                .start(alpha, beta, Some(&known))
                .map(|(lo, hi, first, k)| (lo, hi, first, k, self.dead));
            *o = r;
            self.reopen_trick(saved);
            self.n_table = 3;
            self.hands[seat as usize] |= bit;
            if let Err(v) = r
                && ((maximise && v >= beta) || (!maximise && v <= alpha))
            {
                return Err(v);
            }
        }
        // Every card settled and none good enough: the best of their bounds is this position's,
        // without playing them (the bounds inside a trick, from each winner it can still have,
        // were measured before this and cut nothing more once it was in).
        let mut best = None;
        for o in &out[..list.len()] {
            match (*o, best) {
                (Ok(_), _) => return Ok(out),
                (Err(v), None) => best = Some(v),
                (Err(v), Some(b)) => best = Some(if maximise { v.max(b) } else { v.min(b) }),
            }
        }
        best.map_or(Ok(out), Err)
    }

    /// The moves of `seat` in the window `alpha..beta`, in the order most likely to cut the
    /// search short. A team stopping a mordienne (the window is about one) plays its weakest
    /// cards first. Otherwise leads go strongest first, and in a trick the last seat, unless its
    /// partner holds the trick, tries the cheapest card that takes it, then the weakest first;
    /// the second and third seats their weakest, then (unless the partner holds the trick) the
    /// cheapest that takes it, then the rest weakest first. The table's remembered lead goes
    /// before all.
    #[inline]
    fn ordered(&self, seat: u8, first: u8, alpha: i8, beta: i8) -> ([u8; 9], usize) {
        let hand = self.hands[seat as usize];
        let mut others = 0;
        for s in 0..4 {
            if s != seat {
                others |= self.hands[s as usize];
            }
        }
        // Against a mordienne the other team keeps its best cards for the last tricks: it plays
        // its weakest first, leads too (from trick 1 this took a mordienne test of 1.89 M nodes
        // to 48 k, and leading so alone took one of 3.82 M to 1.89 M).
        let stopping = match self.scoring.committed {
            // In a committed deal every test is whether the committed team makes its mordienne.
            Some(c) => usize::from(seat & 1) != c.index(),
            None if seat & 1 == 0 => beta <= -1,
            None => alpha >= 1,
        };
        if self.n_table == 0 {
            let (mut list, n) = moves_alive(hand, others, self.dead);
            if stopping {
                let alive = n - usize::from(self.dead & hand != 0);
                list[..alive].reverse();
            }
            // A dead card remembered is any dead card.
            let first = if first != NONE && self.dead & hand & 1 << (first & 63) != 0 {
                list[n - 1]
            } else {
                first
            };
            if first != NONE
                && let Some(i) = list[..n].iter().position(|&s| s == first)
            {
                list[..=i].rotate_right(1);
            }
            return (list, n);
        }
        // The table's strongest level, and whether one card alone holds it (and whose).
        let mut top = u8::MAX;
        let mut holder = None;
        for i in 0..self.n_table {
            let l = LEVEL[self.table[i as usize] as usize & 63];
            if l < top {
                top = l;
                holder = Some((self.leader + i) & 3);
            } else if l == top {
                holder = None;
            }
        }
        // Of the table, only its strongest level can tell two cards apart: the weaker cards
        // on it decide nothing in this trick and are gone after it.
        let (mut list, n) =
            moves_alive(hand, others | (self.table_mask & levels(top, top)), self.dead);
        let partner_holds = holder == Some(seat ^ 2);
        // The second and third seats keep their strong cards (a seat after them may take the
        // trick anyway): weakest first, which halved the nodes from trick 2. The last seat
        // takes the trick with its cheapest card that does, unless its partner holds it.
        let last = self.n_table == 3;
        // The moves come strongest first, one a level (the dead card last, the weakest), so
        // the cards that take the trick are a prefix: two reversals put them weakest first,
        // then the rest weakest first, without a sort (4.7% fewer instructions on the bench).
        debug_assert!(list[..n].windows(2).all(|w| LEVEL[w[0] as usize] < LEVEL[w[1] as usize]));
        let takers = if last && !stopping && !partner_holds {
            list[..n].iter().take_while(|&&s| LEVEL[s as usize & 63] < top).count()
        } else {
            0
        };
        list[..takers].reverse();
        list[takers..n].reverse();
        // A second or third seat tries next, after its weakest card, its cheapest that takes
        // the trick (the whole deals of the bench: 7% fewer nodes).
        if !last
            && !stopping
            && !partner_holds
            && let Some(j) = (1..n).find(|&j| LEVEL[list[j] as usize & 63] < top)
        {
            list[1..=j].rotate_right(1);
        }
        (list, n)
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
            let saved = self.close_trick();
            let v = self.search(alpha, beta);
            self.reopen_trick(saved);
            self.n_table = 4;
            v
        };
        self.n_table -= 1;
        self.hands[seat as usize] |= bit;
        v
    }

    /// Ends the trick on the table (its four cards played): the winner's tally, the next
    /// leader, an empty table. Returns what [`Search::reopen_trick`] puts back: the next tricks
    /// write over the table, so the cards of this one come back with it. The search and the
    /// look-ahead at a trick's last card (`etc`) both close a trick through it.
    #[inline]
    fn close_trick(&mut self) -> (Tally, u8, u64, [u8; 4], u64) {
        let saved = (self.tally, self.leader, self.table_mask, self.table, self.dead);
        let winner = self.trick_winner();
        self.tally = self.tally.after(winner);
        self.leader = winner.unwrap_or(self.leader);
        self.n_table = 0;
        self.table_mask = 0;
        saved
    }

    /// Undoes [`Search::close_trick`], but for the count of cards on the table, which its
    /// caller sets.
    #[inline]
    fn reopen_trick(&mut self, saved: (Tally, u8, u64, [u8; 4], u64)) {
        (self.tally, self.leader, self.table_mask, self.table, self.dead) = saved;
    }

    /// The value of the last trick's one card a hand, played out at once.
    fn last_trick(&mut self) -> i8 {
        for i in 0..4 {
            let seat = (self.leader + i) & 3;
            self.table[i as usize] = self.hands[seat as usize].trailing_zeros() as u8;
        }
        let winner = self.trick_winner();
        self.tally.after(winner).value(self.scoring)
    }

    /// The winner of the four cards on the table, `None` when the strongest level is tied.
    #[inline]
    fn trick_winner(&self) -> Option<u8> {
        let lv = self.table.map(|s| LEVEL[s as usize & 63]);
        rules::trick_winner_by_level(lv).map(|i| (self.leader + i as u8) & 3)
    }

    /// The key of a position at the start of a trick: for each level with cards left, in
    /// order, who holds them (three bits a card: the seat, and whether a new group starts);
    /// runs of levels held by one seat alone are one group, since nothing tells them apart.
    fn key(&self, live: u8) -> Key {
        let mut cards = 0u128;
        let mut last_owner = 4u32;
        let alive = self.hands.map(|h| h & !self.dead);
        let all = alive[0] | alive[1] | alive[2] | alive[3];
        // Each card's seat, its low bit and its high bit.
        let (low, high) = (alive[1] | alive[3], alive[2] | alive[3]);
        let mut rest = all;
        // Level by level, only the levels with cards left.
        while rest != 0 {
            let first = rest.trailing_zeros();
            let m = SAME[first as usize & 63];
            rest &= !m;
            let code = (all & m) >> first | ((low & m) >> first) << 4 | ((high & m) >> first) << 8;
            let entry = LEVEL_KEY[code as usize & 4095];
            let (width, single) = ((entry >> 12) & 15, entry >> 16);
            let start = single == 4 || single != last_owner;
            last_owner = single;
            let group = entry & 0xfff | u32::from(start) << (width - 1);
            cards = cards << width | u128::from(group);
        }
        Key { cards, rest: u64::from(self.tally.key(live)) | u64::from(self.leader) << 32 }
    }
}
