//! Fuzz target: arbitrary bytes drive a match of the rules engine (rules, decks, legal and
//! illegal actions, signals) against its invariants. The checks live in `../harness/engine.rs`,
//! shared with `rules/tests/fuzz_regressions.rs`.
#![no_main]

#[path = "../harness/engine.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::check(data));
