//! What one seat has been shown, as plain data, and the one encoder that turns it into the flat
//! observation of `space.rs`. The environment fills a [`Seen`] from `rules::Game::view` and the
//! events visible to the seat; the bot bridge fills it from the protocol messages the seat was
//! sent. Nothing else reaches an observation, so what a policy sees in training and in a match
//! is built the same way, and from the seat's own knowledge only.

use crate::space::{F, Kind, MAX_SIGNALS, N_SIGNALS, at};
use rules::{Announcement, CardSet, DiscardRule, Rules, Seat, SeatView, SignalDelivery};
use rules::{SignalTruth, Turn};

/// Everything a seat knows of the match at one moment: `rules`' own [`SeatView`], and what a
/// seat keeps beside it (who played which card, the signals it saw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// What the seat may know, as `rules` says: `Game::view` in the environment; in the bridge,
    /// a view begun by [`SeatView::new`] and kept from the messages.
    pub view: SeatView,
    /// The cards each seat (by absolute seat) played in this deal.
    pub played_by: [CardSet; 4],
    /// Signals the seat has seen in this deal, by sender and signal index (its own included).
    pub signals: [[u8; N_SIGNALS]; 4],
}

impl Seen {
    /// What `seat` knows before anything of a match is told.
    pub fn new(seat: Seat) -> Seen {
        Seen {
            view: SeatView::new(seat),
            played_by: [CardSet::EMPTY; 4],
            signals: [[0; N_SIGNALS]; 4],
        }
    }
}

/// The decision a seat is in the middle of: what it is asked, and the sub-steps taken so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asked {
    /// What is asked.
    pub kind: Kind,
    /// Cards picked into the discard so far.
    pub picked: CardSet,
    /// Signals already sent with this answer, by index.
    pub sent: [bool; N_SIGNALS],
    /// How many signals this answer carries so far.
    pub n_sent: u8,
}

impl Asked {
    /// A fresh decision of this kind.
    pub fn new(kind: Kind) -> Asked {
        Asked { kind, picked: CardSet::EMPTY, sent: [false; N_SIGNALS], n_sent: 0 }
    }
}

/// The seat `of` as seen from `me`: 0 itself, 1 its left, 2 its partner, 3 its right.
fn rel(me: Seat, of: Seat) -> usize {
    (of.index() + 4 - me.index()) % 4
}

fn put_cards(out: &mut [f32], at: usize, cards: CardSet) {
    for c in cards.iter() {
        out[at + usize::from(c.index())] = 1.0;
    }
}

fn put_answer(out: &mut [f32], at: usize, answer: Option<bool>) {
    match answer {
        Some(true) => out[at] = 1.0,
        Some(false) => out[at + 1] = 1.0,
        None => {}
    }
}

/// Writes the observation of `seen` (with the decision `asked`, when the seat is asked one) into
/// `out`, which holds [`crate::space::obs_len`] values. Every value not set is zero.
pub fn encode(seen: &Seen, asked: Option<&Asked>, rules: &Rules, out: &mut [f32]) {
    out.fill(0.0);
    let view = &seen.view;
    let me = view.seat;
    put_cards(out, at(F::Hand), view.hand);
    put_cards(out, at(F::Received), view.received);
    put_cards(out, at(F::Discarded), view.discarded);
    let mut table = [CardSet::EMPTY; 4];
    for &(s, c) in view.table() {
        table[s.index()] = table[s.index()].with(c);
    }
    for s in Seat::ALL {
        put_cards(out, at(F::PlayedBy) + 48 * rel(me, s), seen.played_by[s.index()]);
        put_cards(out, at(F::Table) + 48 * rel(me, s), table[s.index()]);
        let r = rel(me, s);
        put_answer(out, at(F::Votes) + 2 * r, view.votes[s.index()]);
        put_answer(out, at(F::Offers) + 2 * r, view.pledges.offers[s.index()]);
        put_answer(out, at(F::Replies) + 2 * r, view.pledges.replies[s.index()]);
        put_answer(out, at(F::Announces) + 2 * r, view.pledges.announces[s.index()]);
        for (i, &n) in seen.signals[s.index()].iter().enumerate() {
            out[at(F::SignalsSeen) + N_SIGNALS * r + i] = f32::from(n);
        }
    }
    if let Some(a) = asked {
        put_cards(out, at(F::Picked), a.picked);
        out[at(F::Decision) + a.kind.index()] = 1.0;
        for (i, &sent) in a.sent.iter().enumerate() {
            out[at(F::SignalsSent) + i] = f32::from(u8::from(sent));
        }
        let left = if rules.signals == SignalDelivery::Off { 0 } else { MAX_SIGNALS - a.n_sent };
        out[at(F::SignalsLeft)] = f32::from(left);
    }
    if let Some(s) = view.to_act.and_then(Turn::seat) {
        out[at(F::ToAct) + rel(me, s)] = 1.0;
    }
    out[at(F::Dealer) + rel(me, view.dealer)] = 1.0;
    out[at(F::Leader) + rel(me, view.leader)] = 1.0;
    put_answer(out, at(F::Chant), view.chant_taken);
    let team = me.team().index();
    let mut won = [0u8; 4];
    for (t, w) in view.trick_winners.iter().take(usize::from(view.tricks_done)).enumerate() {
        let col = w.map_or(4, |w| rel(me, w));
        out[at(F::TrickWinners) + 5 * t + col] = 1.0;
        if let Some(w) = w {
            won[rel(me, *w)] += 1;
        }
    }
    for (r, n) in won.iter().enumerate() {
        out[at(F::TricksWon) + r] = f32::from(*n);
    }
    out[at(F::Trick)] = f32::from((view.tricks_done + 1).min(9));
    out[at(F::Deal)] = f32::from(view.deal);
    out[at(F::Score)] = f32::from(view.score[team]);
    out[at(F::Score) + 1] = f32::from(view.score[1 - team]);
    let r = at(F::Rules);
    let flags = [
        rules.chant,
        rules.discard == DiscardRule::KeepHighest,
        rules.signals == SignalDelivery::Off,
        rules.signals == SignalDelivery::Partner,
        rules.signals == SignalDelivery::Public,
        rules.signals == SignalDelivery::Leaky,
        rules.signal_truth == SignalTruth::Truthful,
        rules.surrender,
        rules.announce == Announcement::Off,
        rules.announce == Announcement::ExtendsMatch,
        rules.announce == Announcement::MatchToTen,
    ];
    for (i, f) in flags.into_iter().enumerate() {
        out[r + i] = f32::from(u8::from(f));
    }
}
