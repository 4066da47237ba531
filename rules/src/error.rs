//! Why the engine refused an action: rule violations only, since the pure core cannot fail for
//! any other reason.

use crate::card::Card;
use crate::seat::Seat;
use crate::signal::Signal;
use crate::turn::Turn;
use core::fmt;

/// An action the rules do not allow. The game it was offered to is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalAction {
    /// The match is over; nothing more can happen.
    MatchOver,
    /// This seat, or this kind of action, is not what the game waits for.
    NotExpected {
        /// Who offered the action.
        seat: Option<Seat>,
        /// What the game waits for.
        expected: Option<Turn>,
    },
    /// The card is not in the player's hand.
    CardNotHeld(Card),
    /// A discard must name exactly 6 distinct cards.
    DiscardCount(usize),
    /// A discarded card is not in the player's hand.
    DiscardNotHeld(Card),
    /// Under keep-highest, this discarded card is stronger than a kept one.
    DiscardKeepsWeaker {
        /// The discarded card.
        discarded: Card,
        /// A kept card it outranks.
        kept: Card,
    },
    /// Signals are off in this game.
    SignalsOff,
    /// No deal is in progress, so there is nothing to signal about.
    NoDealInProgress,
    /// Not a signal of the vocabulary (e.g. a card signal for a card that is not a top card).
    InvalidSignal(Signal),
    /// A truthful-signals game, and the signal is false for the player's hand.
    FalseSignal(Signal),
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalAction::MatchOver => f.write_str("the match is over"),
            IllegalAction::NotExpected { seat, expected } => {
                match seat {
                    Some(seat) => write!(f, "seat {seat} may not do that now")?,
                    None => f.write_str("that is not expected now")?,
                }
                match expected {
                    Some(turn) => write!(f, "; the game waits for {turn}"),
                    None => Ok(()),
                }
            }
            IllegalAction::CardNotHeld(c) => write!(f, "card {c} is not in the hand"),
            IllegalAction::DiscardCount(n) => {
                write!(f, "a discard names exactly 6 distinct cards, not {n}")
            }
            IllegalAction::DiscardNotHeld(c) => write!(f, "discarded card {c} is not in the hand"),
            IllegalAction::DiscardKeepsWeaker { discarded, kept } => {
                write!(f, "keep-highest: discarding {discarded} while keeping the weaker {kept}")
            }
            IllegalAction::SignalsOff => f.write_str("signals are off in this game"),
            IllegalAction::NoDealInProgress => f.write_str("no deal is in progress"),
            IllegalAction::InvalidSignal(s) => write!(f, "{s} is not a signal of the vocabulary"),
            IllegalAction::FalseSignal(s) => write!(f, "signal {s} is false for the hand held"),
        }
    }
}

impl core::error::Error for IllegalAction {}
