//! The lines of the pre-lead rounds re-applied through the rules (spec/rules.md section 12):
//! `offer`, `reply` and `announce`, each where the engine waits for it, after the four opening
//! answers; and the account's words for a deal they changed the scoring of.

use super::account::{Section, plural};
use super::read::{ReplayError, refused};
use super::{Replayer, is_stated};
use protocol::msg::SeatNo;
use rules::{Action, DealResult, Pledge, PledgeKind, Seat, Turn};

impl Replayer {
    /// An answer of a pre-lead round: `action` is the offer, reply or announcement it states.
    pub(super) fn pledge(
        &mut self,
        seat: SeatNo,
        action: Action,
        time: String,
        line: usize,
    ) -> Result<(), ReplayError> {
        let (kind, yes, no, word) = match action {
            Action::Offer(b) => ("offer", "offers to surrender", "no offer", b),
            Action::Reply(b) => ("reply", "accepts", "refuses", b),
            Action::Announce(b) => ("announce", "announces mordienne", "no announcement", b),
            _ => return Err(refused(line, "pre-lead answer", "not a pre-lead action")),
        };
        let what = format!("{kind} answer of seat {seat}");
        self.settled(&what, line)?;
        let s = self.seat(seat, &what, line)?;
        let turn = match action {
            Action::Offer(_) => Turn::Offer(s),
            Action::Reply(_) => Turn::Reply(s),
            _ => Turn::Announce(s),
        };
        // The opening round comes first: its answers do not show in the engine's turns.
        if self.answers < 4 || self.game.to_act() != Some(turn) {
            return Err(refused(line, &what, self.waits_for()));
        }
        let events = self.game.apply(s, action).map_err(|e| refused(line, &what, e))?;
        self.owed.extend(events.iter().copied().filter(is_stated));
        self.account.enter(Section::Pledges, "  before the lead: ");
        self.account.item(format_args!("{s} {}{time}", if word { yes } else { no }));
        Ok(())
    }
}

/// The account's line for a deal whose surrender or announcement decided its score.
pub(super) fn pledge_text(d: &DealResult, p: Pledge, score: &str) -> String {
    let (deal, points) = (d.deal, d.score.points);
    let team = d.score.team.map_or(0, |t| t.index());
    match p.kind {
        PledgeKind::Accepted => {
            format!(
                "  deal {deal}: surrender of seat {} accepted -> team {team} +{points}, score {score}",
                p.seat
            )
        }
        PledgeKind::Refused | PledgeKind::Announced => {
            let why = if p.kind == PledgeKind::Refused {
                "surrender refused"
            } else {
                "mordienne announced"
            };
            // The mordienne of the team that refused or announced: under `announced` the other
            // team's unannounced one scores too, and is not the one announced.
            let team_of =
                if p.kind == PledgeKind::Refused { p.seat.team().other() } else { p.seat.team() };
            let theirs = d.score.winner.map(Seat::team) == Some(team_of);
            let made = if d.score.mordienne && theirs { "made" } else { "not made" };
            let by = match d.score.winner {
                Some(w) => format!(
                    "seat {w} wins with {}",
                    plural(d.score.tricks[w.index()].into(), "trick")
                ),
                None => "every trick spoiled".into(),
            };
            format!(
                "  deal {deal}: {why} (seat {}), {by}, mordienne {made} -> team {team} +{points}, score {score}",
                p.seat
            )
        }
    }
}
