//! The pre-lead rounds' questions (spec/protocol.md section 4.12): `offer`, `reply` and
//! `announce`, asked only of a bot that took up the feature `surrender`. For any other bot the
//! referee answers with the fallback, without a fault, so a bot that does not know the rounds
//! is told nothing of them and plays on unchanged.

use super::{Table, Took};
use crate::judge;
use crate::policy;
use convert::seat_no;
use protocol::msg::ToBot;
use protocol::record::RecordLine;
use rules::{Action, Turn};

impl Table<'_> {
    /// Asks the seat whose pre-lead turn it is, and commits its answer (or the fallback).
    pub(super) async fn pledge(&mut self, turn: Turn) {
        let (Some(seat), Some(fallback)) = (turn.seat(), policy::fallback_pledge(turn)) else {
            return;
        };
        let view = self.game.view(seat);
        let (deal, hand, score) = (view.deal, self.spare.hand(view.hand), view.score);
        let offerer = view.pledges.offered_by().map_or(0, seat_no);
        let reply = if self.bots[seat.index()].identity.has(protocol::SURRENDER) {
            let build = move |id, time_ms, bank_ms| match turn {
                Turn::Offer(_) => ToBot::Offer { id, deal, hand, score, time_ms, bank_ms },
                Turn::Reply(_) => {
                    ToBot::Reply { id, deal, seat: offerer, hand, score, time_ms, bank_ms }
                }
                _ => ToBot::Announce { id, deal, hand, score, time_ms, bank_ms },
            };
            let done = move || policy::pledge_done(fallback).to_string();
            self.ask(seat, build, move |game, msg| judge::pledge(game, seat, msg), done).await
        } else {
            None
        };
        let (action, took) = match reply {
            Some((action, took)) => (action, Some(took)),
            None => (fallback, None),
        };
        if self.forfeit.is_some()
            || !matches!(action, Action::Offer(_) | Action::Reply(_) | Action::Announce(_))
        {
            return;
        }
        let s = seat_no(seat);
        let line = move |Took { us, cpu_us }, auto, raw| match action {
            Action::Offer(offer) => RecordLine::Offer { seat: s, offer, us, cpu_us, auto, raw },
            Action::Reply(accept) => RecordLine::Reply { seat: s, accept, us, cpu_us, auto, raw },
            _ => {
                let announce = matches!(action, Action::Announce(true));
                RecordLine::Announce { seat: s, announce, us, cpu_us, auto, raw }
            }
        };
        self.commit(seat, took, line, action, 0).await;
    }
}
