//! The SPRT's course over a match: settled games taken in the order the journal settled them,
//! units counted as they complete, the log-likelihood ratio computed once per unit, and the
//! decision fixed the first time it crosses a bound. The scheduler walks the journal this way
//! to stop the match, and the standings walk it the same way to report it, so the stop message
//! and the summary give one LLR from the same counts, however many games were still in flight
//! when the decision came (those count in the results, not in the test).

use crate::tournament::config::Format;
use crate::tournament::journal::Entry;
use crate::tournament::stats::{SprtParams, Verdict};
use std::collections::{HashMap, HashSet};

/// The decision, as it stood when it was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Decision {
    pub(crate) verdict: Verdict,
    pub(crate) llr: f64,
    /// Units (games, or whole deal sets in duplicate) the test had counted.
    pub(crate) units: u64,
}

impl Decision {
    /// The decision in words, with its LLR (the journal's reason for the games not needed).
    pub(crate) fn reason(&self) -> String {
        let what = match self.verdict {
            Verdict::H1 => "H1",
            Verdict::H0 => "H0",
        };
        format!("the SPRT accepted {what} (LLR {:.2})", self.llr)
    }
}

#[derive(Debug)]
pub(crate) struct SprtWalk {
    params: SprtParams,
    format: Format,
    /// Units by score: loss, draw, win (trinomial) or 0, 1/4, 1/2, 3/4, 1 (pentanomial). Frozen
    /// at the decision.
    counts: Vec<u64>,
    llr: f64,
    /// Duplicate: the first room's score of deal sets waiting for their second room.
    half: HashMap<u64, f64>,
    /// Games taken, so a game listed twice counts once.
    seen: HashSet<u64>,
    decision: Option<Decision>,
    /// Units completed after the decision.
    after: u64,
}

impl SprtWalk {
    pub(crate) fn new(params: SprtParams, format: Format) -> SprtWalk {
        SprtWalk {
            params,
            format,
            counts: vec![0; if format == Format::Duplicate { 5 } else { 3 }],
            llr: 0.0,
            half: HashMap::new(),
            seen: HashSet::new(),
            decision: None,
            after: 0,
        }
    }

    /// Takes the next settled game. Only a played game can complete a unit; in duplicate a deal
    /// set is a unit once both its rooms are played, so a half set never counts.
    pub(crate) fn absorb(&mut self, e: &Entry) {
        if !e.is_played() || !self.seen.insert(e.game) {
            return;
        }
        let x = e.score_a();
        let unit = match self.format {
            Format::RoundRobin => x,
            Format::Duplicate => match self.half.remove(&e.unit) {
                Some(first) => (first + x) / 2.0,
                None => {
                    self.half.insert(e.unit, x);
                    return;
                }
            },
        };
        if self.decision.is_some() {
            self.after += 1;
            return;
        }
        let k = (self.counts.len() - 1) as f64;
        self.counts[(unit * k).round() as usize] += 1;
        self.llr = self.params.llr(&self.counts);
        if let Some(verdict) = self.params.verdict(self.llr) {
            self.decision =
                Some(Decision { verdict, llr: self.llr, units: self.counts.iter().sum() });
        }
    }

    /// The counts the test saw (up to its decision).
    pub(crate) fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The LLR of [`SprtWalk::counts`]: the decision's, once there is one.
    pub(crate) fn llr(&self) -> f64 {
        self.llr
    }

    pub(crate) fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// Units completed after the decision (their games were in flight when it came).
    pub(crate) fn units_after(&self) -> u64 {
        self.after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::journal::{Entry, EntryStatus};

    fn game(game: u64, unit: u64, room: u8, a_wins: bool) -> Entry {
        let job = crate::tournament::schedule::Job {
            index: game,
            unit,
            pairing: 0,
            a: 0,
            b: 1,
            round: unit,
            room,
            a_team: rules::Team::ALL[0],
            seed: unit,
            first_dealer: rules::Seat::ALL[0],
        };
        let names = ["A".to_string(), "B".to_string()];
        let mut e = Entry::unplayed(&job, &names, EntryStatus::NotPlayed, String::new());
        e.status = EntryStatus::Played;
        e.reason = None;
        e.winner = Some(if a_wins { "A" } else { "B" }.into());
        e
    }

    const P: SprtParams = SprtParams { elo0: 0.0, elo1: 100.0, alpha: 0.1, beta: 0.1 };

    #[test]
    fn duplicate_counts_whole_deal_sets_only() {
        let mut w = SprtWalk::new(P, Format::Duplicate);
        w.absorb(&game(1, 1, 1, true));
        assert_eq!(w.counts(), &[0, 0, 0, 0, 0], "half a deal set is no unit");
        w.absorb(&game(2, 1, 2, false));
        assert_eq!(w.counts(), &[0, 0, 1, 0, 0]);
        // The same game again (a merged journal) counts once.
        w.absorb(&game(2, 1, 2, false));
        w.absorb(&game(4, 2, 2, true));
        w.absorb(&game(3, 2, 1, true));
        assert_eq!(w.counts(), &[0, 0, 1, 0, 1]);
        assert_eq!(w.llr(), P.llr(&[0, 0, 1, 0, 1]));
    }

    #[test]
    fn the_decision_is_the_first_crossing_and_later_units_do_not_move_it() {
        let mut w = SprtWalk::new(P, Format::RoundRobin);
        let mut g = 0;
        while w.decision().is_none() {
            g += 1;
            assert!(g < 100, "a run of wins must decide");
            w.absorb(&game(g, g, 0, true));
        }
        let d = w.decision().unwrap();
        assert_eq!(d.verdict, Verdict::H1);
        assert_eq!(d.units, g);
        assert!(d.llr >= P.bounds().1);
        assert_eq!(d.llr, P.llr(&[0, 0, g]), "the LLR of the counts at the decision");
        // Losses in flight at the decision finish later: they would pull the LLR back inside
        // the bounds, but the test is over.
        for k in 1..=5 {
            w.absorb(&game(g + k, g + k, 0, false));
        }
        assert_eq!(w.decision(), Some(d));
        assert_eq!((w.llr(), w.counts()), (d.llr, &[0, 0, g][..]));
        assert_eq!(w.units_after(), 5);
        assert_eq!(d.reason(), format!("the SPRT accepted H1 (LLR {:.2})", d.llr));
    }
}
