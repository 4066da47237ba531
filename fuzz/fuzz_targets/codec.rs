//! Fuzz target: arbitrary bytes into the line framer (in fuzzer-chosen pieces) and every line
//! into the decoders. The checks live in `../harness/codec.rs`, shared with
//! `protocol/tests/fuzz_regressions.rs`.
#![no_main]

#[path = "../harness/codec.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::check(data));
