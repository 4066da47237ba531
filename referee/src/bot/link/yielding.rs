//! When a direct read finds no answer yet, whether the referee's thread gives its CPU to the bot
//! before it reads again, instead of parking the runtime: known for a bot program that inherited
//! the referee's pin, learnt from what the yields find for a TCP bot, which may run anywhere.

/// Most credit a learning connection holds: after a change (the bot moved away), this many
/// fruitless yields at most before they stop.
const MAX_CREDIT: u8 = 16;
/// Credit a yield that found the answer earns. A fruitless yield costs a `sched_yield` and a
/// read that fails (about 0.5 us); one that finds the answer saves the runtime's park, its
/// `epoll_wait` and its second read (2-3 us), so yielding pays down to about one hit in five.
const HIT_CREDIT: u8 = 4;
/// Waits without a yield, once the credit is spent, before one yield is tried again: a bot
/// that comes to share the CPU later is found, and one that never does costs a failed yield
/// per this many answers.
const PROBE_EVERY: u8 = 64;

/// The rule of one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Yield {
    /// Never: the bot is not known to share the thread's CPU, and nothing is learnt.
    Never,
    /// Each time: the bot runs on the thread's one CPU (it inherited the referee's pin) and is
    /// about to run anyway; a bot that does not preempt the referee as it wakes (a Python bot,
    /// mostly) answers during the yield.
    Always,
    /// While it pays: each yield that finds the answer earns credit, each that finds nothing
    /// spends one; with none left, one yield per [`PROBE_EVERY`] waits looks again.
    Learning {
        /// What the recent yields earned.
        credit: u8,
        /// Waits without a yield since the credit ran out.
        skipped: u8,
    },
}

impl Yield {
    /// A rule that starts by yielding and keeps it up while the bot answers during its yields
    /// (a TCP bot pinned beside the referee, as the bench's are).
    pub(crate) fn learning() -> Yield {
        Yield::Learning { credit: MAX_CREDIT, skipped: 0 }
    }

    /// Whether to yield before reading again, now that a read found nothing.
    pub(crate) fn now(&mut self) -> bool {
        match self {
            Yield::Never => false,
            Yield::Always => true,
            Yield::Learning { credit: 0, skipped } => {
                *skipped += 1;
                if *skipped < PROBE_EVERY {
                    return false;
                }
                *skipped = 0;
                true
            }
            Yield::Learning { .. } => true,
        }
    }

    /// What the read after a yield found: the answer (or anything but "nothing yet"), or not.
    pub(crate) fn found(&mut self, answered: bool) {
        if let Yield::Learning { credit, .. } = self {
            *credit = if answered {
                credit.saturating_add(HIT_CREDIT).min(MAX_CREDIT)
            } else {
                credit.saturating_sub(1)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields out of `n` waits when each yield finds the answer as `hit` says.
    fn yields(rule: &mut Yield, n: usize, hit: impl Fn(usize) -> bool) -> usize {
        let mut yielded = 0;
        for i in 0..n {
            if rule.now() {
                yielded += 1;
                rule.found(hit(i));
            }
        }
        yielded
    }

    #[test]
    fn fixed_rules_do_as_they_say() {
        assert_eq!(yields(&mut Yield::Always, 100, |_| false), 100);
        assert_eq!(yields(&mut Yield::Never, 100, |_| true), 0);
    }

    #[test]
    fn a_learning_rule_keeps_yielding_while_a_fifth_of_its_yields_find_the_answer() {
        let mut rule = Yield::learning();
        assert_eq!(yields(&mut rule, 10_000, |_| true), 10_000);
        let mut rule = Yield::learning();
        assert_eq!(yields(&mut rule, 10_000, |i| i % 5 == 0), 10_000);
    }

    #[test]
    fn a_learning_rule_stops_when_yields_find_nothing_and_probes_now_and_then() {
        let mut rule = Yield::learning();
        // The credit's worth of fruitless yields, then one per probe period.
        let n = 64 * 100;
        let yielded = yields(&mut rule, n, |_| false);
        assert_eq!(yielded, MAX_CREDIT as usize + (n - MAX_CREDIT as usize) / PROBE_EVERY as usize);
        // A probe that finds the answer starts the yields again.
        let mut rule = Yield::Learning { credit: 0, skipped: PROBE_EVERY - 1 };
        assert!(rule.now());
        rule.found(true);
        assert_eq!(rule, Yield::Learning { credit: HIT_CREDIT, skipped: 0 });
        assert!(rule.now());
    }
}
