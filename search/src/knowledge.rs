//! What one seat knows of a deal, and the sampler that deals the cards it cannot see in every
//! way consistent with that knowledge: the one place that decides what the search may assume.
//!
//! The hidden cards lie in zones whose sizes the seat knows: each other seat's hand, the
//! discard of each other chant recipient, and the unseen talon. Truthful signals pin cards and
//! ace counts to a seat's holding at the moment it signalled (spec/rules.md §9.4; the check uses
//! the hand held when the question was asked, so a signal on a discard answer still counts the
//! cards then discarded). [`Knowledge::consistent`] is the ground truth; the sampler builds a
//! likely deal and keeps only one that passes it.

use rules::SplitMix64;
use rules::{Card, CardSet, ChantSecond, Pledges, Rank, Rules, Seat, Signal, SignalTruth};

/// A signal this seat saw, with what it needs to know when it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Who signalled.
    pub from: Seat,
    /// What.
    pub signal: Signal,
    /// The cards the signaller had played in this deal when it signalled.
    pub played_before: CardSet,
    /// Made before the first card of the deal was played.
    pub before_play: bool,
    /// Made before the chant was decided.
    pub before_chant: bool,
}

/// Everything one seat knows of the current deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knowledge {
    /// The rules in force.
    pub rules: Rules,
    /// This seat.
    pub seat: Seat,
    /// The dealer.
    pub dealer: Seat,
    /// This seat's hand now.
    pub hand: CardSet,
    /// Talon cards this seat received.
    pub received: CardSet,
    /// Cards this seat discarded.
    pub discarded: CardSet,
    /// Cards played in this deal, by who played them.
    pub played: [CardSet; 4],
    /// The chant: `None` while undecided, then whether it was taken (false when off).
    pub chant: Option<bool>,
    /// Seats that have discarded in this deal.
    pub has_discarded: [bool; 4],
    /// Signals seen in this deal, in order.
    pub seen: Vec<Seen>,
    /// Leader of the current trick.
    pub leader: Seat,
    /// Cards on the table in play order.
    pub table: Vec<(Seat, Card)>,
    /// Winners of the finished tricks.
    pub winners: [Option<Seat>; 9],
    /// Finished tricks.
    pub tricks_done: u8,
    /// The trick phase has begun (a card was asked for or played): every discard is made.
    pub playing: bool,
    /// The answers of the rounds before the first lead (all public): they decide how the deal
    /// is scored, so the playouts score by them ([`rules::Pledges::score`]).
    pub pledges: Pledges,
}

/// One complete assignment of the hidden cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Every seat's hand now (this seat's as it is).
    pub hands: [CardSet; 4],
    /// The discards of the chant recipients (this seat's as it is).
    pub discards: [CardSet; 4],
    /// The undealt talon, when the chant was not (or not yet) taken.
    pub talon: CardSet,
}

fn aces(set: CardSet) -> usize {
    set.iter().filter(|c| c.rank() == Rank::Ace).count()
}

/// Which part of a seat's cards a signal speaks of, as the sampler needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Its nine dealt cards, before it took six talon cards: its later hand and discard hold
    /// them, with six more.
    BeforeTalon,
    /// Its fifteen cards, before it discarded six of them.
    BeforeDiscard,
    /// Its hand.
    InHand,
}

impl Knowledge {
    /// A new deal: this seat's nine cards.
    pub fn new(rules: Rules, seat: Seat, dealer: Seat, hand: CardSet) -> Knowledge {
        Knowledge {
            rules,
            seat,
            dealer,
            hand,
            received: CardSet::EMPTY,
            discarded: CardSet::EMPTY,
            played: [CardSet::EMPTY; 4],
            chant: if rules.chant { None } else { Some(false) },
            has_discarded: [false; 4],
            seen: Vec::new(),
            leader: dealer.left(),
            table: Vec::new(),
            winners: [None; 9],
            tricks_done: 0,
            playing: false,
            pledges: Pledges::default(),
        }
    }

    /// The two talon recipients, first then second.
    pub fn recipients(&self) -> [Seat; 2] {
        let second = match self.rules.chant_second {
            ChantSecond::Dealer => self.dealer,
            ChantSecond::Partner => self.dealer.partner(),
        };
        [self.dealer.left(), second]
    }

    fn is_recipient(&self, seat: Seat) -> bool {
        self.recipients().contains(&seat)
    }

    /// Every card played in this deal.
    pub fn all_played(&self) -> CardSet {
        self.played.iter().fold(CardSet::EMPTY, |a, &b| a.union(b))
    }

    /// Every card this seat knows the place of.
    pub fn known(&self) -> CardSet {
        self.hand.union(self.discarded).union(self.all_played())
    }

    /// Notes a signal seen now.
    pub fn see(&mut self, from: Seat, signal: Signal) {
        let seen = Seen {
            from,
            signal,
            played_before: self.played[from.index()],
            before_play: self.all_played().is_empty(),
            before_chant: self.chant.is_none(),
        };
        self.seen.push(seen);
    }

    /// Notes a card played by anyone, and closes the trick when it is the fourth.
    pub fn on_played(&mut self, seat: Seat, card: Card) {
        self.playing = true;
        self.played[seat.index()] = self.played[seat.index()].with(card);
        if seat == self.seat {
            self.hand = self.hand.without(card);
        }
        self.table.push((seat, card));
        if self.table.len() == 4 {
            let best = self.table.iter().map(|(_, c)| c.level()).min().unwrap_or(20);
            let mut top = self.table.iter().filter(|(_, c)| c.level() == best);
            let winner = match (top.next(), top.next()) {
                (Some(&(s, _)), None) => Some(s),
                _ => None,
            };
            if (self.tricks_done as usize) < 9 {
                self.winners[self.tricks_done as usize] = winner;
            }
            self.tricks_done += 1;
            self.leader = winner.unwrap_or(self.leader);
            self.table.clear();
        }
    }

    /// Notes the chant's decision.
    pub fn on_chant(&mut self, taken: bool) {
        self.chant = Some(taken);
    }

    /// This seat's fifteen cards and the six it received.
    pub fn on_received(&mut self, hand: CardSet, received: CardSet) {
        self.hand = hand;
        self.received = received;
        self.chant = Some(true);
        let [first, _] = self.recipients();
        if self.seat != first {
            self.has_discarded[first.index()] = true;
        }
    }

    /// This seat discarded.
    pub fn on_discarded(&mut self, cards: CardSet) {
        self.discarded = cards;
        self.hand = self.hand.difference(cards);
        self.has_discarded[self.seat.index()] = true;
    }

    /// Play has started: every recipient has discarded.
    fn discards_done(&self) -> [bool; 4] {
        let mut done = self.has_discarded;
        if self.chant == Some(true) && self.playing {
            for r in self.recipients() {
                done[r.index()] = true;
            }
        }
        done
    }

    /// The sizes of the hidden zones: each seat's hand, each recipient's discard, the talon.
    fn zone_sizes(&self) -> ([usize; 4], [usize; 4], usize) {
        let taken = self.chant == Some(true);
        let done = self.discards_done();
        let mut hand = [0; 4];
        let mut disc = [0; 4];
        for s in Seat::ALL {
            let i = s.index();
            if s == self.seat {
                continue;
            }
            let dealt = if taken && self.is_recipient(s) && !done[i] { 15 } else { 9 };
            hand[i] = dealt - self.played[i].len();
            if taken && self.is_recipient(s) && done[i] {
                disc[i] = 6;
            }
        }
        (hand, disc, if taken { 0 } else { 12 })
    }

    /// The stage a seen signal speaks of.
    fn stage(&self, seen: &Seen) -> Stage {
        let recipient_of_taken_chant = self.chant == Some(true) && self.is_recipient(seen.from);
        if !recipient_of_taken_chant || !seen.before_play {
            Stage::InHand
        } else if seen.before_chant {
            Stage::BeforeTalon
        } else {
            Stage::BeforeDiscard
        }
    }

    /// The signals the sampler must respect: none when signals may be false.
    fn binding(&self) -> impl Iterator<Item = &Seen> {
        let truthful = self.rules.signal_truth == SignalTruth::Truthful;
        self.seen.iter().filter(move |s| truthful && s.from != self.seat)
    }

    /// True when `sample` could be the real deal, given everything this seat knows.
    pub fn consistent(&self, sample: &Sample) -> bool {
        let me = self.seat.index();
        if sample.hands[me] != self.hand || sample.discards[me] != self.discarded {
            return false;
        }
        let (hand_n, disc_n, talon_n) = self.zone_sizes();
        let mut all = self.known();
        let mut count = self.known().len();
        for s in Seat::ALL {
            let i = s.index();
            if s == self.seat {
                continue;
            }
            if sample.hands[i].len() != hand_n[i] || sample.discards[i].len() != disc_n[i] {
                return false;
            }
            all = all.union(sample.hands[i]).union(sample.discards[i]);
            count += hand_n[i] + disc_n[i];
        }
        all = all.union(sample.talon);
        count += sample.talon.len();
        if sample.talon.len() != talon_n || count != 48 || all != CardSet::FULL {
            return false;
        }
        self.binding().all(|seen| {
            let i = seen.from.index();
            let stage = self.stage(seen);
            let mut held = sample.hands[i].union(self.played[i].difference(seen.played_before));
            if stage != Stage::InHand {
                held = held.union(sample.discards[i]);
            }
            match seen.signal {
                Signal::Holds(c) => held.contains(c),
                Signal::Aces(n) if stage == Stage::BeforeTalon => aces(held) >= usize::from(n),
                Signal::Aces(n) => aces(held) == usize::from(n),
                Signal::BadHand | Signal::Mordienne => true,
            }
        })
    }

    /// A deal of the hidden cards consistent with this seat's knowledge. Recipients keep their
    /// strongest cards in most samples, as players do; a sample that breaks a constraint is
    /// drawn again. Knowledge no deal can satisfy (possible only with false signals) falls back
    /// to a deal that ignores the signals.
    pub fn sample(&self, rng: &mut SplitMix64) -> Sample {
        for attempt in 0..4000 {
            let s = self.draw(rng, attempt < 2000, true);
            if self.consistent(&s) {
                return s;
            }
        }
        self.draw(rng, false, false)
    }

    fn draw(&self, rng: &mut SplitMix64, realistic: bool, pin: bool) -> Sample {
        let (hand_n, disc_n, talon_n) = self.zone_sizes();
        // Pools: one per other seat (its hand and discard together), and the talon (index 4).
        let mut cap = [0usize; 5];
        for i in 0..4 {
            cap[i] = hand_n[i] + disc_n[i];
        }
        cap[4] = talon_n;
        let mut pool = [CardSet::EMPTY; 5];
        let mut in_hand = [CardSet::EMPTY; 4];
        let mut free = CardSet::FULL.difference(self.known());
        if pin {
            for seen in self.binding() {
                if let Signal::Holds(c) = seen.signal {
                    let i = seen.from.index();
                    if free.contains(c) && pool[i].len() < cap[i] {
                        pool[i] = pool[i].with(c);
                        free = free.without(c);
                        if self.stage(seen) == Stage::InHand {
                            in_hand[i] = in_hand[i].with(c);
                        }
                    }
                }
            }
        }
        // Aces first, so that a stated ace count is met often without whole redraws.
        let mut rest: Vec<Card> = free.iter().filter(|c| c.rank() == Rank::Ace).collect();
        let n_aces = rest.len();
        rest.extend(free.iter().filter(|c| c.rank() != Rank::Ace));
        for k in (1..n_aces).rev() {
            rest.swap(k, rng.below(k as u64 + 1) as usize);
        }
        for k in (n_aces + 1..rest.len()).rev() {
            let j = n_aces + rng.below((k - n_aces) as u64 + 1) as usize;
            rest.swap(k, j);
        }
        // A seat whose ace count over its whole pool is stated gets exactly that many; the
        // other aces go where there is room, each pool by its free room.
        let mut need: [Option<usize>; 5] = [None; 5];
        if pin {
            for seen in self.binding() {
                let i = seen.from.index();
                let whole_pool = disc_n[i] == 0 || self.stage(seen) == Stage::BeforeDiscard;
                if let Signal::Aces(n) = seen.signal
                    && whole_pool
                    && self.stage(seen) != Stage::BeforeTalon
                {
                    let gone = aces(self.played[i].difference(seen.played_before));
                    need[i] = Some(usize::from(n).saturating_sub(gone));
                }
            }
        }
        let mut ace_zone = [4usize; 4];
        let mut placed = [0usize; 5];
        let mut a = 0;
        for z in 0..4 {
            while need[z].is_some_and(|n| placed[z] < n)
                && a < n_aces
                && placed[z] < cap[z] - pool[z].len()
            {
                ace_zone[a] = z;
                placed[z] += 1;
                a += 1;
            }
        }
        while a < n_aces {
            let room = |z: usize| {
                if need[z].is_some() {
                    0
                } else {
                    (cap[z] - pool[z].len()).saturating_sub(placed[z])
                }
            };
            let total: usize = (0..5).map(room).sum();
            if total == 0 {
                break;
            }
            let mut pick = rng.below(total as u64) as usize;
            let z = (0..5)
                .find(|&z| {
                    if pick < room(z) {
                        true
                    } else {
                        pick -= room(z);
                        false
                    }
                })
                .unwrap_or(4);
            ace_zone[a] = z;
            placed[z] += 1;
            a += 1;
        }
        let mut next = 0;
        for (k, card) in rest.into_iter().enumerate() {
            let z = if k < a {
                ace_zone[k]
            } else {
                // The others are shuffled: filling the pools in turn deals them at random.
                while next < 4 && pool[next].len() >= cap[next] {
                    next += 1;
                }
                next
            };
            pool[z] = pool[z].with(card);
        }
        let mut sample =
            Sample { hands: [CardSet::EMPTY; 4], discards: [CardSet::EMPTY; 4], talon: pool[4] };
        for s in Seat::ALL {
            let i = s.index();
            if s == self.seat {
                sample.hands[i] = self.hand;
                sample.discards[i] = self.discarded;
                continue;
            }
            let hand = if disc_n[i] == 0 {
                pool[i]
            } else {
                let others = crate::sim::ranked(pool[i].difference(in_hand[i]));
                let want = hand_n[i].saturating_sub(in_hand[i].len()) as u32;
                let kept = if realistic {
                    crate::sim::keep_strongest(others, want)
                } else {
                    crate::sim::random_subset(others, want, rng)
                };
                in_hand[i].union(crate::sim::unranked(kept))
            };
            sample.hands[i] = hand;
            sample.discards[i] = pool[i].difference(hand);
        }
        sample
    }
}
