//! Bounds on the par at the start of a trick from the tally and the cards left, without
//! searching: how many more tricks each seat can win at most (its cards against each other
//! hand's) and at least (its cards that nothing left can beat) often settle who can still be the
//! deal winner and who can still make a mordienne, long before the last trick.

use crate::slots::{LEVEL, STRONGER, weakest};
use crate::tally::{Scoring, Tally};

/// The most tricks the cards of `o` can win against the cards of `p` alone, or `cap` when that
/// is less: each trick `o` wins, `p` plays a strictly weaker card, so it is the largest matching
/// of `o`'s cards to weaker cards of `p`. Taken greedily from `p`'s strongest card down, any card
/// of `o` that beats the card at hand will do, since it beats every weaker card too. The callers
/// want the least over several hands, so the matching stops at the least found so far (2.8%
/// fewer instructions on the bench).
#[inline]
fn wins_against(o: u64, p: u64, cap: u8) -> u8 {
    let mut avail = o;
    let mut rest = p;
    let mut n = 0;
    // No more pairs than cards of `o` either: the matching ends when they run out.
    let cap = cap.min(o.count_ones() as u8);
    while rest != 0 && n < cap {
        let slot = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        // The strongest card of `o` left is its lowest slot: it beats this card exactly when
        // some card of `o` does. Without a branch: which way it goes is anybody's guess.
        let pair = u64::from(avail & STRONGER[slot & 63] != 0);
        avail &= avail.wrapping_sub(pair);
        n += pair as u8;
    }
    n
}

/// How many cards of `hand` are stronger than every card of `set` (not empty): the cards no
/// card of `set` can beat nor tie.
#[inline]
fn above(hand: u64, set: u64) -> u8 {
    (hand & STRONGER[set.trailing_zeros() as usize & 63]).count_ones() as u8
}

/// For each seat, the fewest and the most tricks it can still win: at least its cards stronger
/// than every card of the other hands (it can play one in each of the next tricks), at most
/// what its cards win against the hand that holds it to fewest.
/// `known`, when given, is a seat `x` and for each other seat the fewest tricks it wins against
/// the hands but its own and `x`'s ([`Known::new`]): the look-ahead at a trick's last card asks
/// for each card of seat `x`, and only `x`'s hand changes between them.
#[inline]
pub(crate) fn reach(hands: &[u64; 4], leader: usize, known: Option<&Known>) -> ([u8; 4], [u8; 4]) {
    let mut least = [0u8; 4];
    let mut most = [0u8; 4];
    // The hands are disjoint.
    let all = hands[0] | hands[1] | hands[2] | hands[3];
    for o in 0..4 {
        let others = all ^ hands[o];
        let left = hands[o].count_ones() as u8;
        least[o] = above(hands[o], others);
        let mut m = match known {
            Some(k) if k.seat != o => wins_against(hands[o], hands[k.seat], left.min(k.most[o])),
            _ => least_wins(hands, o, 4),
        };
        // A seat that wins every trick left leads each one after the first (each one, when
        // it leads this one), and the other team, playing after it, keeps its best card to tie
        // or beat the first card of the seat that is not stronger.
        let opp = hands[o ^ 1] | hands[o ^ 3];
        if m == left && opp != 0 && above(hands[o], opp) < left - u8::from(o != leader) {
            m -= 1;
        }
        most[o] = m;
    }
    (least, most)
}

/// The fewest tricks seat `o`'s cards win against one other hand, but `skip`'s; at most its
/// cards' count (its number of cards when every hand is skipped).
#[inline]
fn least_wins(hands: &[u64; 4], o: usize, skip: usize) -> u8 {
    let mut m = hands[o].count_ones() as u8;
    // The matchings after the first stop at the least found, and the partner's hand first
    // found it soonest on the bench (0.6% fewer instructions than the next seats in turn).
    for p in [o ^ 2, o ^ 1, o ^ 3] {
        if p != skip {
            m = wins_against(hands[o], hands[p], m);
        }
    }
    m
}

/// What [`reach`] finds the same for every card seat `seat` may play: each other seat's fewest
/// tricks against the hands but `seat`'s.
pub(crate) struct Known {
    seat: usize,
    most: [u8; 4],
}

impl Known {
    /// Found from `hands` (`seat`'s hand is not read).
    pub(crate) fn new(hands: &[u64; 4], seat: usize) -> Known {
        let mut most = [0u8; 4];
        for (o, m) in most.iter_mut().enumerate() {
            if o != seat {
                *m = least_wins(hands, o, seat);
            }
        }
        Known { seat, most }
    }
}

/// The tricks seat `o`'s team can make it win: its cards stronger than every card of the other
/// team, each with a weaker card of its partner to play under it.
#[inline]
fn forced(hands: &[u64; 4], o: usize) -> u8 {
    let opp = hands[o ^ 1] | hands[o ^ 3];
    if opp == 0 {
        return 0;
    }
    wins_against(hands[o] & STRONGER[opp.trailing_zeros() as usize & 63], hands[o ^ 2], u8::MAX)
}

/// True when the other team, holding `opp`, can stop a seat holding `hand` from winning the
/// last `need` tricks: it keeps its `need` best cards for them, one a trick, its best for the
/// last, and the seat would need, for each j, a j-th best card stronger than their j-th best.
#[inline]
fn stoppable(hand: u64, opp: u64, need: u8) -> bool {
    let (mut a, mut b) = (hand, opp);
    for _ in 0..need {
        if a == 0 {
            return true;
        }
        if b == 0 {
            return false;
        }
        if LEVEL[a.trailing_zeros() as usize & 63] >= LEVEL[b.trailing_zeros() as usize & 63] {
            return true;
        }
        a &= a - 1;
        b &= b - 1;
    }
    false
}

/// Bounds from the last tricks, at any point where they are all still to play: a mordienne
/// ends with a run of at least `run` tricks won by one seat (all the tricks left, at the start
/// of a trick, for a seat that has some), and the other team can keep its best cards for them.
/// A team whose mordienne the other can stop scores at most 1, and a committed team fails.
#[inline]
pub(crate) fn run_bounds(
    hands: &[u64; 4],
    tally: &Tally,
    at_start: bool,
    scoring: Scoring,
) -> (i8, i8) {
    let (mut lo, mut hi) = scoring.range();
    if scoring.committed.is_none() && hi == 1 {
        // No mordienne scores more than a point: nothing to bound.
        return (lo, hi);
    }
    let left = 9 - tally.done;
    let possible = |t: usize| {
        let opp = hands[1 - t] | hands[3 - t];
        [t, t + 2].iter().any(|&s| {
            if tally.clean & (1 << s) == 0 {
                return false;
            }
            // A seat with tricks must win all the rest; one without, a final run longer than
            // any other seat's count (it reaches its count last), and at least `run` long.
            let most_other = (1..4).map(|k| tally.won[(s + k) & 3]).fold(0, u8::max);
            let need = if tally.won[s] > 0 {
                // In a trick under way: at least all the tricks after it.
                if at_start { left } else { left - 1 }
            } else {
                scoring.run.max(most_other + 1)
            };
            // At the start of a trick, fewer tricks left than the run needs is no mordienne;
            // in a trick under way, whose cards are partly down, it says nothing.
            // Once its run has begun, the seat leads every trick of it, and the other team,
            // playing after it, keeps its best card to tie or beat the first card of the seat
            // that is not stronger: all but the run's first trick need such cards.
            let led = if tally.won[s] > 0 { need } else { need - 1 };
            if opp != 0 && above(hands[s], opp) < led {
                return false;
            }
            let unknown = !at_start && need >= left;
            unknown || (need <= left && !stoppable(hands[s], opp, need))
        })
    };
    match scoring.committed {
        Some(c) if !possible(c.index()) => {
            let fail = if c.index() == 0 { -2 } else { 2 };
            (fail, fail)
        }
        Some(_) => (lo, hi),
        None => {
            if !possible(1) {
                lo = lo.max(-1);
            }
            if !possible(0) {
                hi = hi.min(1);
            }
            (lo, hi)
        }
    }
}

/// Bounds on the final value from the start of a trick: `least` and `most` are each seat's
/// fewest and most tricks still to win (`reach`), with `9 - tally.done` tricks to play.
pub(crate) fn bounds(
    tally: &Tally,
    hands: &[u64; 4],
    (least, most): ([u8; 4], [u8; 4]),
    scoring: Scoring,
) -> (i8, i8) {
    let left = 9 - tally.done;
    // A seat whose cards beat all the others' wins every trick left: the deal is decided.
    if let Some(s) = (0..4).find(|&s| least[s] == left) {
        let end = (0..left).fold(*tally, |t, _| t.after(Some(s as u8)));
        let v = end.value(scoring);
        return (v, v);
    }
    let won = tally.won;
    let top = |s: usize| won[s] + most[s];
    // Seat s can end the deal winner only if no other seat already has what s can reach at
    // best and got there first: earlier than s when s can win no more, else certainly.
    let first = |w: usize, s: usize| {
        won[w] > top(s)
            || (won[w] == top(s) && (most[s] > 0 || tally.reached[w] < tally.reached[s]))
    };
    // Bit s: seat s can still be the deal winner; and make a mordienne (a clean run to the
    // last trick: a seat with tricks must win all the rest, one without a long enough final
    // run). Each is found once for the tests below: with `forced` only looked at where it can
    // narrow the bounds, 9.6% fewer instructions on the bench's whole deals than asking again.
    let mut can_win = 0u8;
    let mut can_run = 0u8;
    for s in 0..4 {
        if top(s) > 0 && (0..4).all(|w| w == s || !first(w, s)) {
            can_win |= 1 << s;
            let long = if won[s] > 0 { most[s] == left } else { most[s] >= scoring.run };
            if tally.clean & (1 << s) != 0 && long {
                can_run |= 1 << s;
            }
        }
    }
    let team = |t: usize| 0b0101u8 << t;
    if let Some(c) = scoring.committed {
        let c = c.index();
        let fail = if c == 0 { -2 } else { 2 };
        return if can_run & team(c) != 0 { (-2, 2) } else { (fail, fail) };
    }
    let counts = |t: usize| if scoring.counts(t) { team(t) } else { 0 };
    let mordienne = |t: usize| can_run & counts(t) != 0;
    let wins = |t: usize| can_win & team(t) != 0;
    // Nobody scores only when every trick is spoiled.
    let nobody = won == [0; 4];
    // A seat of a team that takes the tricks its team can make it win ends above all the
    // other team can reach in the tricks that are left.
    let forces = |t: usize| {
        [t, t + 2].iter().any(|&w| {
            let f = forced(hands, w);
            // Taken in the next tricks, they give the seat its count first.
            [1 - t, 3 - t].iter().all(|&o| ahead(won[w] + f, won[o], most[o].min(left - f)))
        })
    };
    let mut hi = if mordienne(0) {
        2
    } else if wins(0) {
        1
    } else if nobody {
        0
    } else {
        -1
    };
    let mut lo = if mordienne(1) {
        -2
    } else if wins(1) {
        -1
    } else if nobody {
        0
    } else {
        1
    };
    // Only what can still narrow the bounds is looked at.
    if lo < 1 && hi >= 1 && (forces(0) || holds_off(hands, tally, most, 0)) {
        lo = 1;
    }
    if hi > -1 && lo <= -1 && (forces(1) || holds_off(hands, tally, most, 1)) {
        hi = -1;
    }
    (lo, hi)
}

/// True when team `t` ends the deal winner whatever the other team does, counting the two
/// teams' tricks together: its cards above the other team's best win the tricks they are
/// played in, one a trick (two in one trick could tie), so the team takes at least that many;
/// one of its seats then ends with at least half the team's tricks, and a seat of the other
/// team with at most its own reach, within the tricks the team leaves it.
#[inline]
pub(crate) fn holds_off(hands: &[u64; 4], tally: &Tally, most: [u8; 4], t: usize) -> bool {
    let left = 9 - tally.done;
    let opp = hands[1 - t] | hands[3 - t];
    if opp == 0 {
        return false;
    }
    let (a, b) = (above(hands[t], opp), above(hands[t + 2], opp));
    // Past one a trick, each extra card above may meet its partner's in a trick.
    let sure = if a + b <= left { a + b } else { 2 * left - a - b };
    let floor = (tally.won[t] + tally.won[t + 2] + sure).div_ceil(2);
    // Played in the next tricks, those cards give a seat of the team its `floor` first (with
    // more of them than tricks, the other team never wins again).
    [1 - t, 3 - t].iter().all(|&o| ahead(floor, tally.won[o], most[o].min(left - sure)))
}

/// True when a seat that reaches `count` in the next tricks, none of them won by the other
/// team, ends ahead of a seat of the other team that has `won` tricks and can win at most `more`
/// of the rest: above all it can reach, or level with it when it must win more to get there,
/// since it then gets there later and a tie goes to the first to reach the count.
#[inline]
fn ahead(count: u8, won: u8, more: u8) -> bool {
    count > won + more || (more > 0 && count == won + more)
}

/// True when seat `s` can win every trick left whatever the other team does: each of its cards
/// beats every card of the other team, and its partner has a weaker card to play under each of
/// them (its cards matched, weakest to weakest, below the seat's).
#[inline]
fn sweeps(hands: &[u64; 4], s: usize) -> bool {
    let (mine, partner) = (hands[s], hands[s ^ 2]);
    let opp = hands[s ^ 1] | hands[s ^ 3];
    if mine == 0 {
        return false;
    }
    if opp != 0 && weakest(mine) >= LEVEL[opp.trailing_zeros() as usize & 63] {
        return false;
    }
    let (mut a, mut b) = (mine, partner);
    while a != 0 && b != 0 {
        if weakest(a) >= weakest(b) {
            return false;
        }
        a &= !(1 << (63 - a.leading_zeros()));
        b &= !(1 << (63 - b.leading_zeros()));
    }
    true
}

/// Bounds at the start of a trick from a seat that can win all the tricks left
/// ([`sweeps`]): its team gets at least what that scores.
pub(crate) fn sweep_bounds(hands: &[u64; 4], tally: &Tally, scoring: Scoring) -> (i8, i8) {
    let (mut lo, mut hi) = scoring.range();
    let left = 9 - tally.done;
    for s in 0..4 {
        if sweeps(hands, s) {
            let v = (0..left).fold(*tally, |t, _| t.after(Some(s as u8))).value(scoring);
            if s & 1 == 0 {
                lo = lo.max(v);
            } else {
                hi = hi.min(v);
            }
        }
    }
    (lo, hi)
}
