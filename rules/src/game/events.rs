//! What the match reports: finished tricks, deals and the match, and the events of an action
//! with who may be told each one (the one list `Game::view` and the referee's notices follow).

use super::Pledge;
use crate::card::{Card, CardSet};
use crate::score::DealScore;
use crate::seat::{Seat, Team};
use crate::signal::Signal;

/// A finished trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrickResult {
    /// 1..=9.
    pub number: u8,
    /// Who led it.
    pub leader: Seat,
    /// The cards in play order, the leader's first.
    pub cards: [Card; 4],
    /// The winner, `None` when spoiled.
    pub winner: Option<Seat>,
    /// Who leads the next trick (meaningless after the ninth).
    pub next_leader: Seat,
}

/// A finished deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DealResult {
    /// Sequence number of the deal in the match, 1-based, redeals included.
    pub deal: u16,
    /// The scoring of the deal.
    pub score: DealScore,
    /// False when the deal was voided for a redeal (all tricks spoiled, option `redeal`).
    pub counted: bool,
    /// Match score per team after this deal.
    pub match_score: [u16; 2],
    /// The surrender or announcement that changed how the deal was scored, if any.
    pub pledge: Option<Pledge>,
}

/// The end of the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchResult {
    /// Final score per team.
    pub score: [u16; 2],
    /// The winning team, `None` for a draw.
    pub winner: Option<Team>,
    /// Deals that counted.
    pub deals: u16,
}

/// Something that happened, and who may be told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A deal began (public).
    DealStarted {
        /// Sequence number, 1-based.
        deal: u16,
        /// The dealer.
        dealer: Seat,
    },
    /// A seat's nine dealt cards (private to that seat).
    Hand {
        /// Whose hand.
        seat: Seat,
        /// The cards.
        cards: CardSet,
    },
    /// A chant vote (public).
    Voted {
        /// The voter.
        seat: Seat,
        /// Accepted?
        accept: bool,
    },
    /// The chant was decided (public): taken after four accepts, or refused.
    ChantDecided {
        /// True when taken.
        taken: bool,
    },
    /// Talon cards a chant recipient received (private to that seat).
    Received {
        /// The recipient.
        seat: Seat,
        /// Its 6 cards.
        cards: CardSet,
    },
    /// A recipient's discard (private to that seat).
    Discarded {
        /// The recipient.
        seat: Seat,
        /// The 6 discarded cards.
        cards: CardSet,
    },
    /// An answer in the surrender round (public).
    Offered {
        /// Who answered.
        seat: Seat,
        /// True for the offer.
        offer: bool,
    },
    /// An answer to a surrender offer (public).
    Replied {
        /// The opponent who answered.
        seat: Seat,
        /// True for the acceptance.
        accept: bool,
    },
    /// An answer in the announcement round (public).
    Announced {
        /// Who answered.
        seat: Seat,
        /// True for the announcement.
        announce: bool,
    },
    /// A card was played (public).
    Played {
        /// The player.
        seat: Seat,
        /// The card.
        card: Card,
    },
    /// A trick ended (public).
    TrickOver(TrickResult),
    /// A deal ended (public).
    DealOver(DealResult),
    /// The match ended (public).
    MatchOver(MatchResult),
    /// A signal, delivered to the seats marked in `seen_by` (its sender included).
    Signalled {
        /// The sender.
        from: Seat,
        /// The gesture.
        signal: Signal,
        /// Who sees it, by seat.
        seen_by: [bool; 4],
    },
}

impl Event {
    /// True when `seat` is told of this event.
    pub fn visible_to(&self, seat: Seat) -> bool {
        match *self {
            Event::Hand { seat: s, .. }
            | Event::Received { seat: s, .. }
            | Event::Discarded { seat: s, .. } => s == seat,
            Event::Signalled { seen_by, .. } => seen_by[seat.index()],
            _ => true,
        }
    }
}

/// The events of one action. A fixed array kept inside the [`Game`](super::Game) and handed out by reference,
/// so the hot path neither allocates nor copies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Events {
    items: [Event; 6],
    len: usize,
}

impl Events {
    pub(super) fn new() -> Events {
        // The filler is never read: only the first `len` items are exposed.
        Events { items: [Event::ChantDecided { taken: false }; 6], len: 0 }
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// Just `e`: a play's one event (three plays in four) written with one store and no length
    /// read back.
    #[inline(always)]
    pub(super) fn only(&mut self, e: Event) {
        self.items[0] = e;
        self.len = 1;
    }

    pub(super) fn push(&mut self, e: Event) {
        // At most 5 events come from one action; the capacity is 6.
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = e;
            self.len += 1;
        }
    }

    /// The events in order.
    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.items[..self.len].iter()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
