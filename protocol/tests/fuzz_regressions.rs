//! Replays the codec fuzz target's committed inputs through the fuzz target's own harness
//! (`fuzz/harness/codec.rs`), so a stable `cargo test` runs the same checks without cargo-fuzz:
//! the small seed corpus (`fuzz/corpus/codec`, real messages and record lines cut at various
//! limits), every minimised finding (`fuzz/regressions/codec`; the test fails while the bug is
//! there), and generated inputs, so the harness code stays compiled and exercised.

#[path = "../../fuzz/harness/codec.rs"]
mod harness;

#[path = "../../fuzz/harness/replay.rs"]
mod replay;

use replay::inputs;

/// Runs each input of `sub`, naming the file of the first that fails.
fn replay(sub: &str) -> usize {
    replay::replay(sub, "codec", harness::check)
}

#[test]
fn the_seed_corpus_passes() {
    assert!(replay("corpus/codec") >= 5, "the committed seed corpus is missing");
}

#[test]
fn minimised_findings_pass() {
    replay("regressions/codec");
}

#[test]
fn generated_inputs_pass() {
    // The seed lines, mutated byte by byte: mostly almost-valid JSON, which is where decoders
    // break. A xorshift generator keeps this crate free of other dependencies.
    let seeds = inputs("corpus/codec");
    let mut state = 0x2545_F491_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..3000 {
        let mut data = seeds[round % seeds.len()].1.clone();
        let alphabet = b"\n{}\":,[]0e-\\u";
        for _ in 0..1 + next() % 6 {
            if data.is_empty() {
                break;
            }
            let at = (next() as usize) % data.len();
            match next() % 4 {
                0 => data[at] = next() as u8,
                1 => drop(data.remove(at)),
                2 => data.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                _ => data.truncate(at.max(2)),
            }
        }
        harness::check(&data);
    }
    harness::check(&[]);
    harness::check(&[0, 0, b'\n', b'\n', b'x']);
}
