//! Fresh randomness for what must differ from run to run (default seeds, seat tokens), from the
//! standard library's per-process random hash keys mixed with the clock: no extra dependency,
//! and nothing the rules or a record depend on.

use std::hash::{BuildHasher, Hasher};

/// 64 fresh random bits.
pub(crate) fn random_u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// A default seed: 53 bits, so it survives being written into JSON or a TOML config.
pub(crate) fn random_seed() -> u64 {
    random_u64() >> 11
}
