//! Bot tokens (and deal seeds, the arena's other secret draw): 128 random bits shown once as hex, kept only as a SHA-256 hash, so a leaked
//! database does not let anyone connect as a bot; hashes are compared in constant time.

use sha2::{Digest, Sha256};
use std::fmt;

/// A freshly made token in plain text: give it to the bot's author once, store only its hash.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl fmt::Debug for Token {
    // The plain token must not reach a log by accident.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// 128 bits from the operating system's random source, as 32 lowercase hex digits.
    pub fn generate() -> Result<Token, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(Token(hex(&bytes)))
    }

    /// The token as the author types it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The hash that is stored in place of the token.
    pub fn hash(&self) -> [u8; 32] {
        hash_token(&self.0)
    }
}

/// The SHA-256 of a presented token's text (trimmed, so a pasted newline does not lock a bot out).
pub fn hash_token(presented: &str) -> [u8; 32] {
    Sha256::digest(presented.trim().as_bytes()).into()
}

/// Compares two hashes without stopping at the first differing byte, so the time taken says
/// nothing of how much of a guess was right.
pub fn hashes_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh deal seed: 64 bits from the operating system's random source, so deals cannot be
/// foreseen from earlier ones (the store refuses a seed used before).
pub fn random_seed() -> Result<u64, getrandom::Error> {
    getrandom::u64()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_32_hex_digits_and_differ() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_eq!(a.as_str().len(), 32);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn the_hash_is_sha256_of_the_text() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let h = hash_token("abc\n");
        assert_eq!(hex(&h), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn seeds_differ() {
        assert_ne!(random_seed().unwrap(), random_seed().unwrap());
    }

    #[test]
    fn comparison_is_exact() {
        let t = Token::generate().unwrap();
        assert!(hashes_equal(&t.hash(), &hash_token(t.as_str())));
        let mut other = t.hash();
        other[31] ^= 1;
        assert!(!hashes_equal(&t.hash(), &other));
        assert!(!hashes_equal(&t.hash(), &other[..31]));
        assert!(!format!("{t:?}").contains(t.as_str()));
    }
}
