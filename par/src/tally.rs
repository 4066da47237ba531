//! The part of the trick history that the deal's score still depends on: tricks per seat, who
//! reached their count first, and who still has a clean run to the last trick. Positions with
//! the same tally and the same cards left have the same par, whatever order the tricks came in,
//! so the transposition table keys on it instead of on the history.

use rules::{Seat, Team};

/// How the score is computed at the end: fixed for a whole deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Scoring {
    /// A mordienne is worth 2 (`Rules::mordienne`).
    pub(crate) mordienne: bool,
    /// The shortest run that counts (`Rules::mordienne_run`).
    pub(crate) run: u8,
    /// The team committed to a mordienne (spec/rules.md 12.4).
    pub(crate) committed: Option<Team>,
    /// The team that announced a mordienne without being committed to it (section 12.3): its
    /// mordienne scores 2 even where an unannounced one scores 1.
    pub(crate) announced: Option<Team>,
}

impl Scoring {
    /// The lowest and highest value (team 0's points minus team 1's) a deal can end with.
    pub(crate) fn range(self) -> (i8, i8) {
        match (self.committed, self.mordienne, self.announced) {
            (Some(_), _, _) | (None, true, _) | (None, false, Some(_)) => (-2, 2),
            (None, false, None) => (-1, 1),
        }
    }

    /// True when a mordienne by seat `s` scores 2 (outside a committed deal).
    pub(crate) fn counts(self, s: usize) -> bool {
        self.mordienne || self.announced == Some(Seat::ALL[s].team())
    }
}

/// The score-relevant summary of the tricks played so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Tally {
    /// Tricks won per seat.
    pub(crate) won: [u8; 4],
    /// The trick (0-based) at which each seat reached its count.
    pub(crate) reached: [u8; 4],
    /// Bit s: seat s's tricks are exactly the last `won[s]` tricks (always set while it has none).
    pub(crate) clean: u8,
    /// Tricks played.
    pub(crate) done: u8,
}

impl Tally {
    /// A tally with no trick played.
    pub(crate) const fn new() -> Tally {
        Tally { won: [0; 4], reached: [0; 4], clean: 0b1111, done: 0 }
    }

    /// The tally after one more trick, won by `winner` (`None`: spoiled).
    #[inline]
    pub(crate) fn after(mut self, winner: Option<u8>) -> Tally {
        // Seats with tricks lose their clean run unless they won this one too.
        // Bit s: seat s has tricks. Without a branch a seat: the counts are below 128, so adding
        // 127 to each byte sets its top bit exactly when it is not zero.
        let nonzero = (u32::from_le_bytes(self.won) + 0x7f7f_7f7f) & 0x8080_8080;
        let holders = ((nonzero >> 7).wrapping_mul(0x0020_4081) >> 21) as u8 & 0xf;
        let keep = winner.map_or(0, |w| 1u8 << w);
        self.clean &= !holders | keep;
        if let Some(w) = winner {
            self.won[w as usize] += 1;
            self.reached[w as usize] = self.done;
        }
        self.done += 1;
        self
    }

    /// The deal winner once the tricks are over: most tricks, first to reach them.
    fn winner(&self) -> Option<usize> {
        let key = |s: usize| (u16::from(self.won[s]) << 8) | u16::from(15 - self.reached[s]);
        let best = (1..4).fold(0, |best, s| if key(s) > key(best) { s } else { best });
        (self.won[best] > 0).then_some(best)
    }

    /// Team 0's points minus team 1's, once the tricks are over, as `rules::score_deal`,
    /// `rules::score_announced` and `rules::score_committed` count them (the tests hold them to
    /// each other).
    pub(crate) fn value(&self, scoring: Scoring) -> i8 {
        let winner = self.winner();
        let mordienne = winner.is_some_and(|w| {
            self.clean & (1 << w) != 0 && self.won[w] >= scoring.run && self.done == 9
        });
        let sign = |team: Team| if team.index() == 0 { 1 } else { -1 };
        let team_of = |w: usize| Seat::ALL[w].team();
        match scoring.committed {
            Some(c) => {
                let made = mordienne && winner.map(team_of) == Some(c);
                if made { 2 * sign(c) } else { 2 * sign(c.other()) }
            }
            None => match winner {
                None => 0,
                Some(w) => sign(team_of(w)) * if mordienne && scoring.counts(w) { 2 } else { 1 },
            },
        }
    }

    /// The tally packed for the transposition key: counts, the order in which the seats with
    /// tricks reached them, and the clean runs of those seats. The order counts only among
    /// seats with the same count: of two seats that meet at a count later, the one that has it
    /// now got there first, whenever the other arrives.
    /// Only the clean runs of the seats in `live` count: a seat whose run cannot reach the
    /// last trick any more scores the same with or without it.
    pub(crate) fn key(&self, live: u8) -> u32 {
        // Each pair of seats once.
        let mut earlier = [0u32; 4];
        for (s, t) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            if self.won[s] == self.won[t] {
                earlier[t] += u32::from(self.reached[s] < self.reached[t]);
                earlier[s] += u32::from(self.reached[t] < self.reached[s]);
            }
        }
        let mut k = 0u32;
        for (s, &before) in earlier.iter().enumerate() {
            let has = self.won[s] > 0;
            let clean = u32::from(has && self.clean & live & (1 << s) != 0);
            let order = if has { before } else { 0 };
            k |= (u32::from(self.won[s]) | order << 4 | clean << 6) << (7 * s);
        }
        k | u32::from(self.done) << 28
    }
}
