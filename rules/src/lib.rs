//! The rules of Aluette as a pure state machine: no I/O, no clock, no hidden randomness.
//!
//! A [`Game`] is a whole match. It says what it waits for ([`Game::to_act`]), takes a deck for
//! each deal ([`Game::deal`]), applies each player's [`Action`] or refuses it with an
//! [`IllegalAction`] and leaves itself unchanged, and reports [`Event`]s that say who may be
//! told ([`Event::visible_to`]). [`Game::view`] is exactly what one seat may know.
//!
//! `#![no_std]` makes the compiler refuse clocks, files and sockets here: the crate can only
//! compute. Randomness is an input: [`Deck::shuffled`] turns a seed into a deck by a frozen
//! algorithm, and signal coin flips are arguments.
//!
//! ```
//! use rules::{Action, Deck, Game, Rules, Seat, Turn};
//! let mut game = Game::new(Rules { chant: false, ..Rules::default() }, Seat::ALL[0]);
//! game.deal(&Deck::shuffled(7)).unwrap();
//! // Seat 1, on the dealer's left, leads the first trick with any card of its hand.
//! assert_eq!(game.to_act(), Some(Turn::Play(Seat::ALL[1])));
//! let card = game.hand(Seat::ALL[1]).iter().next().unwrap();
//! let before = game.clone();
//! assert!(game.apply(Seat::ALL[2], Action::Play(card)).is_err());
//! assert_eq!(game, before); // a refused action changes nothing
//! game.apply(Seat::ALL[1], Action::Play(card)).unwrap();
//! assert_eq!(game.to_act(), Some(Turn::Play(Seat::ALL[2])));
//! ```
#![no_std]
#![deny(missing_docs)]

extern crate alloc;

mod card;
mod check;
mod deal;
mod error;
mod game;
mod options;
mod score;
mod seat;
mod signal;
mod turn;

pub use card::{Card, CardSet, CardSetIter, ParseCardError, Rank, Suit};
pub use check::{DISCARD_COUNT, DiscardChoice, allowed_signals, check_discard, check_signal};
pub use check::{trick_winner, trick_winner_by_level};
pub use deal::{DealerDraw, Deck, DeckError, Draw, SplitMix64, derive_seed};
pub use deal::{draw_first_dealer, draw_seating};
pub use error::IllegalAction;
pub use game::{Action, DealResult, Event, Events, Game, MatchResult, SeatView, TrickResult, Turn};
pub use game::{Pledge, PledgeKind, Pledges};
pub use options::{AllSpoiled, Announcement, ChantSecond, DiscardRule, MatchLength, OnTie, Rules};
pub use options::{LengthConflict, SignalDelivery, SignalTruth};
pub use score::{DealScore, score_accepted, score_announced, score_committed, score_deal};
pub use seat::{BySeat, Seat, Team};
pub use signal::{ParseSignalError, Signal};
