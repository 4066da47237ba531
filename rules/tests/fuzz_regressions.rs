//! Replays the engine fuzz target's committed inputs through the fuzz target's own harness
//! (`fuzz/harness/engine.rs`), so a stable `cargo test` runs the same checks without cargo-fuzz:
//! the small seed corpus (`fuzz/corpus/engine`), every minimised finding
//! (`fuzz/regressions/engine`, one file per bug found; the test fails while the bug is there),
//! and a few thousand generated inputs, so the harness code stays compiled and exercised.

#[path = "../../fuzz/harness/engine.rs"]
mod harness;

use rules::SplitMix64;
#[path = "../../fuzz/harness/replay.rs"]
mod replay;

/// Runs each input of `sub`, naming the file of the first that fails.
fn replay(sub: &str) -> usize {
    replay::replay(sub, "engine", harness::check)
}

#[test]
fn the_seed_corpus_passes() {
    assert!(replay("corpus/engine") >= 5, "the committed seed corpus is missing");
}

#[test]
fn minimised_findings_pass() {
    replay("regressions/engine");
}

#[test]
fn generated_inputs_pass() {
    let mut rng = SplitMix64::new(0xF022);
    for _ in 0..1500 {
        let len = rng.below(1200) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        harness::check(&data);
    }
    // The empty input and all-zero inputs are whole programs too.
    harness::check(&[]);
    harness::check(&[0; 64]);
    harness::check(&[0xff; 300]);
}
