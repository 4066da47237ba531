//! A search bot for Aluette, the yardstick other bots are measured against: determinized
//! Monte-Carlo over the cards its seat cannot see, optimising the deal score of its
//! partnership.
//!
//! Why determinized Monte-Carlo rather than information-set MCTS: a deal is only nine tricks
//! and suits never constrain play, so a flat search of each candidate over a few thousand
//! consistent deals, each played out by a sensible policy, already separates the moves; ISMCTS
//! would spend the same budget growing a tree whose deeper nodes see a handful of visits.
//!
//! The crate is pure: no I/O, no clock, no hidden randomness. The caller hands each message to
//! a [`Player`] together with a way to read the time spent on it, and the [`Settings`] fix the
//! seed and, when the answers must be reproducible, an exact number of samples.
//! [`Knowledge`] and its sampler are public so tests can hold every sample to what the seat
//! knows.

mod decide;
mod knowledge;
mod player;
mod sim;

pub use knowledge::{Knowledge, Sample, Seen};
pub use player::{DEFAULT_THINK, Player, Settings};
