//! Fault lines and the footer: a forfeit ends the game, and the footer's result and
//! statistics must be those that the lines before it give.

use super::Replayer;
use super::account::{plural, score_text, team_text};
use super::read::{ReplayError, corrupt, differs, diverged, refused};
use crate::text::Shown;
use protocol::record::{FaultRecord, Footer, GameStatus, Penalty};

impl Replayer {
    pub(super) fn fault(&mut self, fault: FaultRecord, line: usize) -> Result<(), ReplayError> {
        let what = format!("fault of seat {}", fault.seat);
        let seat = self.seat(fault.seat, &what, line)?;
        // One line, one spelling: as text when it is UTF-8, as base64 only when it is not.
        if fault
            .raw_b64
            .as_ref()
            .is_some_and(|b| fault.raw.is_some() || std::str::from_utf8(&b.0).is_ok())
        {
            return Err(corrupt(
                line,
                "a fault keeps its line in `raw` when the line is UTF-8, and in `raw_b64` only when it is not",
            ));
        }
        if fault.penalty == Penalty::Forfeit {
            self.forfeits.push(seat);
        }
        let place = match (fault.deal, fault.trick) {
            (Some(d), Some(t)) => format!(" (deal {d}, trick {t})"),
            (Some(d), None) => format!(" (deal {d})"),
            (None, Some(t)) => format!(" (trick {t})"),
            (None, None) => String::new(),
        };
        self.account.note(format!(
            "  fault: seat {seat} {}{place}: {}; penalty {}, {}",
            fault.kind.as_str(),
            Shown(&fault.detail),
            fault.penalty.as_str(),
            plural(fault.strikes.into(), "strike")
        ));
        self.faults.push(fault);
        Ok(())
    }

    pub(super) fn footer(&mut self, footer: Footer, line: usize) -> Result<(), ReplayError> {
        let what = "footer";
        self.settled(what, line)?;
        let score = self.game.score();
        let deals = self.game.deals_counted();
        if footer.score != score {
            return Err(differs(line, what, "score", score_text(footer.score), score_text(score)));
        }
        if footer.deals != deals {
            return Err(differs(line, what, "deals counted", footer.deals, deals));
        }
        let result = match self.forfeits.first() {
            Some(&first) => {
                let forfeiting =
                    |t: u8| self.forfeits.iter().find(|s| s.team().index() == usize::from(t));
                let Some(seat) = footer.forfeit.and_then(forfeiting) else {
                    let stated = footer
                        .forfeit
                        .map_or("no forfeit".into(), |t| format!("team {t} forfeits"));
                    let rules = format!("team {} forfeits (seat {first})", first.team());
                    return Err(diverged(
                        line,
                        format!("footer says {stated}, the rules say {rules}"),
                    ));
                };
                let team = seat.team();
                if footer.winner == Some(team.index() as u8) {
                    let rules = format!("team {team} forfeited");
                    return Err(differs(line, what, "winner", format!("team {team}"), rules));
                }
                format!("team {team} forfeits (seat {seat}) at {}", score_text(score))
            }
            None => {
                if let Some(team) = footer.forfeit {
                    let why = format!(
                        "footer says team {team} forfeits, but no fault line with penalty forfeit came before it"
                    );
                    return Err(diverged(line, why));
                }
                if footer.status == GameStatus::Complete {
                    let Some(outcome) = self.game.outcome() else {
                        let why = format!("the game is not over; {}", self.waits_for());
                        return Err(refused(line, "footer with status complete", why));
                    };
                    let winner = outcome.winner.map(|t| t.index() as u8);
                    if footer.winner != winner {
                        return Err(differs(
                            line,
                            what,
                            "winner",
                            team_text(footer.winner),
                            team_text(winner),
                        ));
                    }
                    match winner {
                        Some(t) => format!("team {t} wins {}", score_text(score)),
                        None => format!("draw {}", score_text(score)),
                    }
                } else {
                    format!("aborted at {}", score_text(score))
                }
            }
        };
        self.stats(&footer, line)?;
        self.account.flush();
        self.account.line(format_args!("Result: {result} after {}", plural(deals.into(), "deal")));
        self.footer = Some(footer);
        Ok(())
    }

    /// The footer's statistics follow from the lines (records.md, `footer`): a seat's answers,
    /// think times and longest think time are those of its answer lines without `auto`; its
    /// strikes are those of its last fault line, and it was replaced when one of its faults
    /// says so. Its fault count may exceed its fault lines (ignored lines beyond those kept).
    fn stats(&self, footer: &Footer, line: usize) -> Result<(), ReplayError> {
        if footer.stats.len() != 4 {
            let message =
                format!("the footer has statistics for {} seats, not 4", footer.stats.len());
            return Err(corrupt(line, message));
        }
        for (seat, stated) in footer.stats.iter().enumerate() {
            let what = format!("footer statistics of seat {seat}");
            let lines = &self.answered[seat];
            let faults: Vec<&FaultRecord> =
                self.faults.iter().filter(|f| usize::from(f.seat) == seat).collect();
            let strikes = faults.last().map_or(0, |f| f.strikes);
            let replaced = faults.iter().any(|f| f.penalty == Penalty::Replaced);
            let checks = [
                ("answers", stated.answers.to_string(), lines.answers.to_string()),
                ("think_us", stated.think_us.to_string(), lines.think_us.to_string()),
                ("max_us", stated.max_us.to_string(), lines.max_us.to_string()),
                ("strikes", stated.strikes.to_string(), strikes.to_string()),
                ("replaced", stated.replaced.to_string(), replaced.to_string()),
                ("cpu_us", opt(stated.cpu_us), opt(lines.cpu_us)),
            ];
            for (field, stated, derived) in checks {
                if stated != derived {
                    let why = format!("{what} says {field} {stated}, its lines give {derived}");
                    return Err(diverged(line, why));
                }
            }
            if (stated.faults as usize) < faults.len() {
                let why = format!(
                    "{what} says {} faults, but the seat has {} fault lines",
                    stated.faults,
                    faults.len()
                );
                return Err(diverged(line, why));
            }
        }
        Ok(())
    }
}

/// An optional statistic as the check names it.
fn opt(value: Option<u64>) -> String {
    value.map_or_else(|| "absent".into(), |v| v.to_string())
}
