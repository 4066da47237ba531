//! The decisions, each by determinized Monte-Carlo: deal the hidden cards many times as the
//! seat's knowledge allows, play every candidate out in each deal by the playout policy, and
//! take the candidate whose deal score (points to this partnership minus the opponents') is
//! best on average. Every candidate meets the same deals and the same playout randomness, so
//! their difference is measured with far less noise than their values. The answers of the
//! rounds before the first lead are candidates like any other: each a set of pre-lead answers
//! the playouts are scored by (`rules::Pledges::score`).

use crate::knowledge::{Knowledge, Sample};
use crate::sim::{self, Sim};
use rules::{Card, CardSet, DiscardRule, Pledges, SplitMix64, Turn};

/// How much searching one decision may do: the caller's clock enters only through `elapsed_us`.
pub(crate) struct Budget<'a> {
    /// Samples never exceeded.
    pub max_samples: u32,
    /// Samples always taken, whatever the clock says.
    pub min_samples: u32,
    /// Stop once `elapsed_us` reaches this; `None`: never look at the clock.
    pub deadline_us: Option<u64>,
    /// Microseconds since the question arrived.
    pub elapsed_us: &'a mut dyn FnMut() -> u64,
}

impl Budget<'_> {
    fn spent(&mut self) -> bool {
        self.deadline_us.is_some_and(|d| (self.elapsed_us)() >= d)
    }
}

impl std::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("max_samples", &self.max_samples)
            .field("min_samples", &self.min_samples)
            .field("deadline_us", &self.deadline_us)
            .finish_non_exhaustive()
    }
}

/// Samples between two looks at the clock.
const BATCH: u32 = 8;

/// Runs `each` on fresh samples until the budget says stop; returns the samples taken.
fn run(
    k: &Knowledge,
    budget: &mut Budget<'_>,
    rng: &mut SplitMix64,
    mut each: impl FnMut(&Sample, u64),
) -> u32 {
    let mut n = 0;
    while n < budget.max_samples {
        if n >= budget.min_samples && n % BATCH == 0 && budget.spent() {
            break;
        }
        let sample = k.sample(rng);
        each(&sample, rng.next_u64());
        n += 1;
    }
    n
}

/// The trick phase of `sample` as the fast simulator plays it, from the current trick on.
/// A recipient that has yet to discard keeps its strongest cards.
fn sim_of(k: &Knowledge, sample: &Sample) -> Sim {
    let mut hands = [0u64; 4];
    for (i, h) in hands.iter_mut().enumerate() {
        let left = 9 - k.played[i].len() as u32;
        *h = sim::keep_strongest(sim::ranked(sample.hands[i]), left);
    }
    let mut table = [0u8; 4];
    for (slot, (_, c)) in table.iter_mut().zip(&k.table) {
        *slot = sim::position(*c) as u8;
    }
    Sim {
        hands,
        leader: k.leader.index() as u8,
        table,
        n_table: k.table.len() as u8,
        winners: k.winners,
        tricks_done: k.tricks_done,
        pledges: k.pledges,
        runner: 4,
    }
    .with_runner(&k.rules)
}

/// The index of the candidate that scores best for this seat's partnership over the samples,
/// each candidate applied by `apply` to the same deals and played out with the same
/// randomness; ties go to the earliest candidate.
fn rank<C>(
    k: &Knowledge,
    budget: &mut Budget<'_>,
    rng: &mut SplitMix64,
    cands: &[C],
    apply: impl Fn(&mut Sim, &C),
) -> usize {
    let team = k.seat.team().index();
    let mut totals = vec![0i64; cands.len()];
    run(k, budget, rng, |sample, seed| {
        let base = sim_of(k, sample);
        for (i, c) in cands.iter().enumerate() {
            let mut s = base;
            apply(&mut s, c);
            s.play_out(&mut SplitMix64::new(seed));
            totals[i] += i64::from(s.value(team, &k.rules));
        }
    });
    let mut pick = 0;
    for (i, &t) in totals.iter().enumerate() {
        if t > totals[pick] {
            pick = i;
        }
    }
    pick
}

/// The card to play: one candidate per strength level held (cards of one level play alike),
/// weakest first so that a tie keeps the stronger cards.
pub(crate) fn play(k: &Knowledge, budget: &mut Budget<'_>, rng: &mut SplitMix64) -> Option<Card> {
    let mut cands: Vec<Card> = Vec::new();
    let mut mask = sim::ranked(k.hand);
    while mask != 0 {
        let p = 63 - mask.leading_zeros();
        mask &= !(1u64 << p);
        let card = sim::card_at(p);
        if cands.last().is_none_or(|c| c.level() != card.level()) {
            cands.push(card);
        }
    }
    if cands.len() <= 1 {
        return cands.first().copied();
    }
    let pick = rank(k, budget, rng, &cands, |s, &c| s.play(sim::position(c)));
    Some(cands[pick])
}

/// The chant vote: accept when, over the samples, taking the chant scores better than
/// refusing it. Only a deal where every other seat accepts turns on this vote, so the two are
/// compared as if they all did.
pub(crate) fn vote(k: &Knowledge, budget: &mut Budget<'_>, rng: &mut SplitMix64) -> bool {
    let team = k.seat.team().index();
    let [first, second] = k.recipients();
    let mut diff = 0i64;
    run(k, budget, rng, |sample, seed| {
        let base = sim_of(k, sample);
        let mut refused = base;
        refused.play_out(&mut SplitMix64::new(seed));
        let mut taken = base;
        // The talon's order is unknown: six of its cards, drawn at random, go to each.
        let mut r = SplitMix64::new(seed ^ 0x5EED);
        let talon = sim::ranked(sample.talon);
        let to_first = sim::random_subset(talon, 6, &mut r);
        for (seat, got) in [(first, to_first), (second, talon & !to_first)] {
            let h = &mut taken.hands[seat.index()];
            *h = sim::keep_strongest(*h | got, 9);
        }
        taken.play_out(&mut SplitMix64::new(seed));
        diff += i64::from(taken.value(team, &k.rules)) - i64::from(refused.value(team, &k.rules));
    });
    diff > 0
}

/// The six cards to discard from fifteen. Under `keep-highest` only the weakest six are
/// allowed; under `free` the weakest six are weighed against keeping one or two low cards
/// (to throw under a partner's winning card) in place of the weakest strong ones.
pub(crate) fn discard(k: &Knowledge, budget: &mut Budget<'_>, rng: &mut SplitMix64) -> CardSet {
    let hand = sim::ranked(k.hand);
    let weakest6 = hand & !sim::keep_strongest(hand, 9);
    if k.rules.discard == DiscardRule::KeepHighest || hand.count_ones() != 15 {
        return sim::unranked(weakest6);
    }
    let cands: Vec<u64> = (0..3)
        .map(|low| {
            let kept_low = low_cards(hand, low);
            let strong = sim::keep_strongest(hand & !kept_low, 9 - low);
            hand & !(strong | kept_low)
        })
        .collect();
    let me = k.seat.index();
    let pick = rank(k, budget, rng, &cands, |s, &d| s.hands[me] = hand & !d);
    sim::unranked(cands[pick])
}

/// The `n` weakest cards of a mask.
fn low_cards(mask: u64, n: u32) -> u64 {
    mask & !sim::keep_strongest(mask, mask.count_ones().saturating_sub(n))
}

/// The answer to a pre-lead question (`turn`: an offer, a reply or an announcement of this
/// seat), by the expected deal score of each answer over the samples, the deal played out from
/// the first lead. The safe answer comes first and wins ties: no offer, acceptance, no
/// announcement.
/// - Offer: offering is taken as accepted (the opponents refuse only when that pays them, which
///   is worse still for the offerer), a sure point to them; it is made only when playing on is
///   expected to cost more, as when the opponents hold a mordienne.
/// - Reply: accepting is a sure point; refusing commits this team to a mordienne (both
///   opponents refusing), worth it only when the team makes one often enough (3 times in 4).
/// - Announce: the announced deal scored as the option says (`announce-penalty`, and under
///   `announced-only` the 2 points of an announced mordienne) against the same deal unannounced,
///   both played for this team's mordienne.
///
/// A team committed to a mordienne (or playing for one) plays it out with a runner
/// (`Sim::choose_runner`), so that a hand that can make it is seen to.
pub(crate) fn pledge(
    k: &Knowledge,
    turn: Turn,
    budget: &mut Budget<'_>,
    rng: &mut SplitMix64,
) -> bool {
    let me = k.seat;
    let answer = |f: &dyn Fn(&mut Pledges)| {
        let mut p = k.pledges;
        f(&mut p);
        p
    };
    let cands: [Pledges; 2] = match turn {
        Turn::Offer(_) => [
            answer(&|p| p.offers[me.index()] = Some(false)),
            answer(&|p| {
                p.offers[me.index()] = Some(true);
                p.replies[me.left().index()] = Some(true);
            }),
        ],
        Turn::Reply(_) => [
            answer(&|p| p.replies[me.index()] = Some(true)),
            answer(&|p| {
                p.replies[me.index()] = Some(false);
                p.replies[me.partner().index()] = Some(false);
            }),
        ],
        _ => [
            answer(&|p| p.announces[me.index()] = Some(false)),
            answer(&|p| p.announces[me.index()] = Some(true)),
        ],
    };
    // An announcement is weighed by what it changes in the score alone: both candidates play
    // for this team's mordienne, as its seats would whether they announce or not.
    let announcing = matches!(turn, Turn::Announce(_));
    rank(k, budget, rng, &cands, |s, p| {
        s.pledges = *p;
        if announcing {
            s.choose_runner_of(Some(me.team()), &k.rules);
        } else {
            s.choose_runner(&k.rules);
        }
    }) == 1
}
