//! What the game waits for next: a module of its own below both the game and its errors
//! (`IllegalAction::NotExpected` names the turn that was expected), so neither imports the
//! other's module.

use crate::seat::Seat;
use core::fmt;

/// What the game waits for next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// A deck for the next deal (the dealer is [`Game::dealer`](crate::Game::dealer)).
    Deal,
    /// This seat's chant vote.
    Vote(Seat),
    /// This chant recipient's discard of 6 cards.
    Discard(Seat),
    /// This seat's card.
    Play(Seat),
    /// This seat's answer in the surrender round: offer or not.
    Offer(Seat),
    /// This opponent's answer to a surrender offer: accept or refuse.
    Reply(Seat),
    /// This seat's answer in the announcement round: announce a mordienne or not.
    Announce(Seat),
}

impl Turn {
    /// The seat that must act, `None` for a deal.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Turn::Deal => None,
            Turn::Vote(s) | Turn::Discard(s) | Turn::Play(s) => Some(s),
            Turn::Offer(s) | Turn::Reply(s) | Turn::Announce(s) => Some(s),
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turn::Deal => f.write_str("a new deal"),
            Turn::Vote(s) => write!(f, "a chant vote from seat {s}"),
            Turn::Discard(s) => write!(f, "a discard from seat {s}"),
            Turn::Play(s) => write!(f, "a card from seat {s}"),
            Turn::Offer(s) => write!(f, "a surrender offer or not from seat {s}"),
            Turn::Reply(s) => write!(f, "an answer to the surrender offer from seat {s}"),
            Turn::Announce(s) => write!(f, "a mordienne announcement or not from seat {s}"),
        }
    }
}
