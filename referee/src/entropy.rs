//! Fresh randomness for what must differ from run to run (default seeds, seat and page tokens),
//! from the operating system's random source (`getrandom`); nothing the rules or a record
//! depend on.

/// 64 fresh random bits.
pub(crate) fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    fill(&mut b);
    u64::from_le_bytes(b)
}

/// A default seed: 53 bits, so it survives being written into JSON or a TOML config.
pub(crate) fn random_seed() -> u64 {
    random_u64() >> 11
}

/// A fresh token: 128 bits from the operating system's random source, as 32 hex digits. What
/// a token opens (a seat, a page, a spectator's view) is worth one that nobody can guess.
pub(crate) fn token() -> String {
    let mut b = [0u8; 16];
    fill(&mut b);
    format!("{:032x}", u128::from_le_bytes(b))
}

fn fill(buf: &mut [u8]) {
    // On Linux this is the getrandom(2) system call (or /dev/urandom on kernels before 3.17);
    // it cannot fail once the kernel's pool is initialised, which it is long before a referee
    // runs. Going on without randomness would hand out guessable tokens.
    getrandom::fill(buf).expect("the operating system's random source is readable");
}

#[cfg(test)]
mod tests {
    /// Tokens are 32 hex digits, and two are never the same.
    #[test]
    fn tokens_are_128_random_bits() {
        let a = super::token();
        let b = super::token();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }
}
