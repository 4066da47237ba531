//! The trick phase played out fast on one fully known deal (a determinization): hands as bit
//! masks in strength order, and the playout policy every seat follows in it.
//!
//! Bit `p` of a mask is the card of rank `p` in strength order (strongest first, canonical
//! order within a level), so "the strongest card" is the lowest bit and "every card stronger
//! than level L" is a contiguous low mask: the policy's questions are a few instructions each.
//! The order and the trick's winner are `rules`' own; the tables here only renumber by them.

use rules::{Card, CardSet, Pledges, Rules, Seat, SplitMix64, Team};

/// The level of each strength position.
const LEVEL: [u8; 48] = {
    let mut lv = [0u8; 48];
    let mut p = 0;
    while p < 48 {
        lv[p] = Card::BY_STRENGTH[p].level();
        p += 1;
    }
    lv
};

/// `BELOW[l]`: the positions of every card strictly stronger than level `l` (1..=21).
const BELOW: [u64; 22] = {
    let mut t = [0u64; 22];
    let mut l = 1;
    while l <= 21 {
        let mut p = 0;
        while p < 48 {
            if LEVEL[p] < l as u8 {
                t[l] |= 1 << p;
            }
            p += 1;
        }
        l += 1;
    }
    t
};

/// `AT[l]`: the positions of the cards of level `l`.
const AT: [u64; 21] = {
    let mut t = [0u64; 21];
    let mut l = 1;
    while l <= 20 {
        t[l] = BELOW[l + 1] & !BELOW[l];
        l += 1;
    }
    t
};

/// A card set as a strength-order mask.
pub(crate) fn ranked(set: CardSet) -> u64 {
    set.iter().fold(0, |m, c| m | 1 << c.strength())
}

/// A strength-order mask as a card set.
pub(crate) fn unranked(mut mask: u64) -> CardSet {
    let mut set = CardSet::EMPTY;
    while mask != 0 {
        let p = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        set = set.with(Card::BY_STRENGTH[p % 48]);
    }
    set
}

/// The card at a strength position.
pub(crate) fn card_at(p: u32) -> Card {
    Card::BY_STRENGTH[p as usize % 48]
}

/// The strength position of a card.
pub(crate) fn position(card: Card) -> u32 {
    u32::from(card.strength())
}

/// The level of the strongest card of a mask; 20 (weaker than any card) when empty.
fn top_level(mask: u64) -> u8 {
    if mask == 0 { 20 } else { LEVEL[mask.trailing_zeros() as usize] }
}

/// The weakest card of a non-empty mask, as a one-bit mask.
fn weakest(mask: u64) -> u64 {
    1 << (63 - mask.leading_zeros())
}

/// The `keep` strongest cards of a mask.
pub(crate) fn keep_strongest(mut mask: u64, keep: u32) -> u64 {
    while mask.count_ones() > keep {
        mask &= !weakest(mask);
    }
    mask
}

/// `n` cards of `mask` chosen uniformly.
pub(crate) fn random_subset(mask: u64, n: u32, rng: &mut SplitMix64) -> u64 {
    let mut left = mask;
    let mut out = 0;
    for _ in 0..n.min(mask.count_ones()) {
        let mut pick = left;
        for _ in 0..rng.below(u64::from(left.count_ones())) {
            pick &= pick - 1;
        }
        let bit = pick & pick.wrapping_neg();
        out |= bit;
        left &= !bit;
    }
    out
}

/// One deal in its trick phase, every hand known.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sim {
    pub(crate) hands: [u64; 4],
    /// Who leads the current trick.
    pub(crate) leader: u8,
    /// Cards on the table in play order (strength positions).
    pub(crate) table: [u8; 4],
    pub(crate) n_table: u8,
    pub(crate) winners: [Option<Seat>; 9],
    pub(crate) tricks_done: u8,
    /// The pre-lead answers the deal is scored by (a candidate answer, in a pre-lead decision).
    pub(crate) pledges: Pledges,
    /// The seat playing for a mordienne its team is committed to or announced ([`Sim::runner`]),
    /// 4 for none.
    pub(crate) runner: u8,
}

impl Sim {
    /// The seat to play.
    pub(crate) fn next_seat(&self) -> u8 {
        (self.leader + self.n_table) & 3
    }

    /// Plays the card at strength position `p` for the seat to play, closing the trick when it
    /// is the fourth.
    pub(crate) fn play(&mut self, p: u32) {
        let seat = self.next_seat();
        self.hands[seat as usize] &= !(1u64 << p);
        self.table[self.n_table as usize] = p as u8;
        self.n_table += 1;
        if self.n_table < 4 {
            return;
        }
        let levels = self.table.map(|q| LEVEL[q as usize % 48]);
        let winner = rules::trick_winner_by_level(levels).map(|i| (self.leader + i as u8) & 3);
        self.winners[self.tricks_done as usize] = winner.and_then(Seat::new);
        self.tricks_done += 1;
        self.n_table = 0;
        if let Some(w) = winner {
            self.leader = w;
        }
    }

    /// Plays the deal to its end by the playout policy.
    pub(crate) fn play_out(&mut self, rng: &mut SplitMix64) {
        while self.tricks_done < 9 {
            let p = self.policy(rng);
            self.play(p);
        }
    }

    /// The deal's value for `team` (0 or 1): the points it scores, minus those the other
    /// team scores.
    pub(crate) fn value(&self, team: usize, rules: &Rules) -> i32 {
        // Section 7 or, after a surrender or an announcement, section 12: the points go to the
        // scoring team, which need not be the deal winner's.
        let score = self.pledges.score(&self.winners, rules);
        match score.team {
            Some(t) if t.index() == team => i32::from(score.points),
            Some(_) => -i32::from(score.points),
            None => 0,
        }
    }

    /// Picks the seat that plays for the mordienne of the committed or announcing team (spec/rules.md
    /// section 12): the one of its two seats with more sure winners (cards no other hand can beat
    /// or match), when it has at least `mordienne-run` of them and its tricks so far end the
    /// deal's (none, or a run to the last trick played). Without it the policy, which takes
    /// tricks as they come, would almost never make a mordienne, and a refusal or an
    /// announcement would look like a loss however strong the hand.
    pub(crate) fn choose_runner(&mut self, rules: &Rules) {
        let team = self.pledges.committed(rules).or(self.pledges.announced_by().map(Seat::team));
        self.choose_runner_of(team, rules);
    }

    /// The same for `team`'s mordienne, whatever the pledges say (`None`: no runner).
    pub(crate) fn choose_runner_of(&mut self, team: Option<Team>, rules: &Rules) {
        self.runner = 4;
        let Some(team) = team else { return };
        let mut best = (0u32, 4u8);
        for seat in [team.index() as u8, team.index() as u8 + 2] {
            let masters = self.masters(seat).count_ones();
            let done = usize::from(self.tricks_done);
            let me = Seat::new(seat);
            let won = self.winners[..done].iter().filter(|w| **w == me).count();
            let tail = self.winners[..done].iter().rev().take_while(|w| **w == me).count();
            if won == tail && masters >= u32::from(rules.mordienne_run) && masters > best.0 {
                best = (masters, seat);
            }
        }
        self.runner = best.1;
    }

    /// The same sim with its runner chosen.
    pub(crate) fn with_runner(mut self, rules: &Rules) -> Sim {
        self.choose_runner(rules);
        self
    }

    /// The cards of `seat` that no other hand can beat or match.
    fn masters(&self, seat: u8) -> u64 {
        let others = (1..4).fold(0, |m, k| m | self.hands[((seat + k) & 3) as usize]);
        self.hands[seat as usize] & BELOW[top_level(others) as usize]
    }

    /// The playout policy, for the seat to play: lead the cheapest card no opponent can beat
    /// (else the weakest), win a trick as cheaply as it can be held, let
    /// a partner's winning card stand, spoil an opponent's trick when nothing wins it, and
    /// otherwise throw the weakest card. A few moves in a hundred are random, so the playouts
    /// of one determinization do not all follow one line.
    fn policy(&self, rng: &mut SplitMix64) -> u32 {
        let seat = self.next_seat();
        let hand = self.hands[seat as usize];
        if hand.count_ones() == 1 {
            return hand.trailing_zeros();
        }
        // The mordienne's runner loses its other cards first, then wins the rest with its sure
        // winners.
        if seat == self.runner && hand & !self.masters(seat) != 0 {
            return weakest(hand).trailing_zeros();
        }
        if rng.below(100) < 6 {
            let mut pick = hand;
            for _ in 0..rng.below(u64::from(hand.count_ones())) {
                pick &= pick - 1;
            }
            return pick.trailing_zeros();
        }
        let partner = (seat + 2) & 3;
        let opp = [(seat + 1) & 3, (seat + 3) & 3];
        let pick = if self.n_table == 0 {
            let opp_best = top_level(self.hands[opp[0] as usize] | self.hands[opp[1] as usize]);
            let mine = hand & BELOW[opp_best as usize];
            if mine != 0 { weakest(mine) } else { weakest(hand) }
        } else {
            let table = &self.table[..self.n_table as usize];
            let best = table.iter().map(|&q| LEVEL[q as usize]).min().unwrap_or(20);
            let holders: u8 = table.iter().filter(|&&q| LEVEL[q as usize] == best).count() as u8;
            let holder = table
                .iter()
                .position(|&q| LEVEL[q as usize] == best)
                .map_or(seat, |i| (self.leader + i as u8) & 3);
            // The seats still to play after this one.
            let later: u64 = (1..4 - self.n_table)
                .map(|k| (seat + k) & 3)
                .filter(|&s| s != partner)
                .fold(0, |m, s| m | self.hands[s as usize]);
            let partner_later = (1..4 - self.n_table).any(|k| (seat + k) & 3 == partner);
            let threat = top_level(later);
            let not_spoiling = hand & !AT[best as usize];
            if holders == 1 && holder == partner {
                if threat < best {
                    // The partner's card will be beaten: take the trick above the threat.
                    let over = hand & BELOW[threat as usize];
                    if over != 0 {
                        weakest(over)
                    } else if not_spoiling != 0 {
                        weakest(not_spoiling)
                    } else {
                        weakest(hand)
                    }
                } else if not_spoiling != 0 {
                    weakest(not_spoiling)
                } else {
                    weakest(hand)
                }
            } else {
                let win = hand & BELOW[best.min(threat) as usize];
                let partner_wins =
                    partner_later && top_level(self.hands[partner as usize]) < best.min(threat);
                let equal = hand & AT[best as usize];
                if win != 0 && !partner_wins {
                    weakest(win)
                } else if partner_wins {
                    weakest(hand)
                } else if holders == 1 && equal != 0 && threat >= best {
                    // Nobody after can beat it: matching the opponent's card spoils the trick.
                    equal
                } else {
                    weakest(hand)
                }
            }
        };
        pick.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_order_is_the_level_order() {
        for p in 1..48 {
            assert!(LEVEL[p - 1] <= LEVEL[p]);
        }
        for card in Card::all() {
            assert_eq!(card_at(position(card)), card);
            assert_eq!(LEVEL[position(card) as usize], card.level());
        }
        let all = CardSet::FULL;
        assert_eq!(unranked(ranked(all)), all);
        assert_eq!(card_at(0), Card::MONSIEUR);
        assert_eq!(AT[9].count_ones(), 4);
    }

    /// The fast trick agrees with the rules: the unique strongest card wins, equal top cards
    /// spoil and the leader leads again.
    #[test]
    fn tricks_are_won_and_spoiled_as_the_rules_say() {
        let c = |s: &str| position(s.parse().unwrap());
        let mut sim = Sim {
            hands: [0; 4],
            leader: 1,
            table: [0; 4],
            n_table: 0,
            winners: [None; 9],
            tricks_done: 0,
            pledges: Pledges::default(),
            runner: 4,
        };
        for s in ["4o", "Ko", "Ao", "5c"] {
            sim.hands[sim.next_seat() as usize] |= 1 << c(s);
            sim.play(c(s));
        }
        assert_eq!(sim.winners[0], Seat::new(3));
        assert_eq!(sim.leader, 3);
        for s in ["Ab", "Ac", "Kb", "4c"] {
            sim.hands[sim.next_seat() as usize] |= 1 << c(s);
            sim.play(c(s));
        }
        assert_eq!(sim.winners[1], None);
        assert_eq!(sim.leader, 3);
    }
}
