//! The referee's integration tests, as one test binary: one module per concern, all sharing
//! the harness. One binary links once, where a file per binary linked the whole referee's
//! dependencies a dozen times; and helpers written once cannot drift apart between files.
//!
//! The tests run the real `referee` binary with real bot processes on the real clock. They
//! build nothing themselves: the Rust sample bot comes from `cargo build --workspace --locked
//! --bins` (`.ci/run` runs it before the tests), and the viewer test's Chromium from Debian's
//! `chromium` package (`.ci/run` installs it).
//!
//! Run one module with `cargo test -p aluette-referee --test it MODULE::`, e.g. `hostile::`.

// The lint steers the referee's own code to its process module (process groups, kill on drop);
// here running the referee, its bots and a browser directly is the whole point.
#![allow(clippy::disallowed_methods)]

mod harness;

mod check_bot;
mod cpu_clock;
mod ctrl_c;
mod dealer_draw;
mod end_to_end;
mod faults;
mod game_messages;
mod hostile;
mod html_viewer;
mod kill;
mod library;
mod par;
mod replay_seat;
mod schema;
mod search_bot;
mod signals;
mod surrender;
mod tcp;
mod tidy;
mod tournament;
mod tournament_schema;
mod transcripts;
mod web;
mod web_hostile;
mod web_seat;
mod wire;
