//! The value parsers every command's flags share, so a number or a probability is checked, and
//! refused, with the same message whichever command or config file it comes from.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use protocol::options::{BadValue, Words};
use std::str::FromStr;

/// The longest time any clock flag takes, in milliseconds: a day. Beyond it the referee's
/// microsecond arithmetic could overflow, and no game needs more.
pub(super) const MAX_MS: u64 = 86_400_000;
/// The largest `--bot-memory-mib`: 16 TiB, far below what overflows a byte count.
pub(super) const MAX_MIB: u64 = 1 << 24;

/// The value parser of every integer flag of every command (a tournament config's options go
/// through these flags too): a whole number from `lo` to `hi`. A negative value, one out of
/// range and one that is no number get the same message naming the range, and clap names the
/// flag; flags using it take `allow_negative_numbers`, or clap would call `-5` an unknown flag.
pub(super) fn whole<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        let bad = || range("a whole number", lo, hi);
        let n = text.parse::<u64>().map_err(|_| bad())?;
        if n < lo || n > hi {
            return Err(bad());
        }
        T::try_from(n).map_err(|_| bad())
    }
}

/// `--max-line-bytes`, shared by every command that reads bots' lines.
pub(super) fn line_limit() -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync {
    whole::<usize>(64, 16_777_216)
}

/// The value parser of every flag whose values are words of the wire (a rule option, the fault
/// policy): the words of the typed option, listed by `--help` and in clap's error, converted by
/// its `FromStr`.
pub(super) fn word<T>() -> impl TypedValueParser<Value = T>
where
    T: Words + FromStr<Err = BadValue> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(T::NAMES).try_map(|text| text.parse::<T>())
}

/// The value parser of every probability flag.
pub(super) fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(range("a probability", 0, 1)),
    }
}

/// The message of a number out of its flag's range: the one place it is worded, so the
/// tournament config's schema can read each flag's range from its parser (`range_in`).
fn range(what: &str, lo: impl std::fmt::Display, hi: impl std::fmt::Display) -> String {
    format!("expected {what} from {lo} to {hi}")
}

/// The range a parser's refusal names, as the two numbers' text.
#[cfg(test)]
pub(super) fn range_in(message: &str) -> Option<(&str, &str)> {
    let (_, rest) = message.split_once("expected ")?;
    let (_, rest) = rest.split_once(" from ")?;
    let (lo, hi) = rest.split_once(" to ")?;
    let hi = hi.split(|c: char| c.is_whitespace()).next()?;
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_checked_against_their_range() {
        let p = whole::<u8>(2, 3);
        assert_eq!(p("2"), Ok(2));
        assert_eq!(p("3"), Ok(3));
        for bad in ["1", "4", "-2", "2.0", "", "x", "256", "99999999999999999999"] {
            assert_eq!(p(bad), Err("expected a whole number from 2 to 3".to_string()), "{bad:?}");
        }
        assert_eq!(whole::<u64>(0, u64::MAX)("18446744073709551615"), Ok(u64::MAX));
    }
}
