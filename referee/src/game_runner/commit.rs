//! The commit step: an accepted action recorded, applied, and what followed told to every seat
//! and written to the record.

use super::{DealLine, Table, Took};
use crate::bot::ask;
use convert::{code, seat_no, table_card};
use protocol::msg::ToBot;
use protocol::record::RecordLine;
use rules::{Action, Event, Events, Seat};

impl Table<'_> {
    /// Records an action, applies it, tells everyone what followed, and settles a replaced bot.
    /// The action was validated (or is the fallback), so the rules accept it; a refusal here
    /// would be a referee bug, logged loudly rather than hidden.
    pub(super) async fn commit(
        &mut self,
        seat: Seat,
        answer: Option<Took>,
        line: impl FnOnce(Took, bool, Option<String>) -> RecordLine,
        action: Action,
        trick: u8,
    ) {
        self.action_line(seat, answer, line);
        match self.game.apply(seat, action) {
            Ok(ev) => {
                let ev = *ev;
                self.broadcast(&ev, trick);
            }
            Err(e) => {
                tracing::error!("referee bug: seat {seat}'s checked {action:?} was refused: {e}")
            }
        }
        self.settle(seat).await;
    }

    /// Counts and records a seat's vote, opening answer, discard or play: `answer` is what the
    /// bot's answer took (none when the referee answered for the bot, `auto`), from which, with
    /// the bot's line, `line` builds the record line, only when a record or a spectator keeps it. The footer's
    /// answer statistics are counted from the same values, so they are exactly those of the
    /// seat's lines without `auto`: an answer refused for any reason (an illegal card, or a
    /// false signal that forfeits the game) has no line and counts for nothing.
    pub(super) fn action_line(
        &mut self,
        seat: Seat,
        answer: Option<Took>,
        line: impl FnOnce(Took, bool, Option<String>) -> RecordLine,
    ) {
        let i = seat.index();
        if let Some(took) = answer {
            let stats = &mut self.seats[i].stats;
            stats.answers += 1;
            stats.think_us += took.us;
            stats.max_us = stats.max_us.max(took.us);
            if let (Some(total), Some(cpu)) = (stats.cpu_us.as_mut(), took.cpu_us) {
                *total += cpu;
            }
        }
        if self.rec.keeps() {
            // The answer's line is still the bot's last: nothing has read from it since.
            let raw = answer.map(|_| ask::answer_text(self.bots[i].answer_line()));
            let line = line(answer.unwrap_or_default(), answer.is_none(), raw);
            self.rec.line(&line);
        }
    }

    /// Turns the engine's public events of an action into notices and record lines. `trick` is
    /// the number of the trick the action was made in.
    fn broadcast(&mut self, ev: &Events, trick: u8) {
        for e in ev.iter() {
            match *e {
                Event::Voted { seat, accept } => {
                    self.tell_all(&ToBot::Vote { seat: seat_no(seat), accept })
                }
                Event::ChantDecided { taken } => {
                    self.rec.line(&RecordLine::Chant { taken });
                    self.tell_all(&ToBot::Chant { taken });
                }
                Event::Received { seat, .. } if self.rec.keeps() => {
                    let cards = self.received_in_order(seat);
                    self.rec.line(&RecordLine::Receive { seat: seat_no(seat), cards });
                }
                Event::Offered { seat, offer } => {
                    self.tell_surrender(&ToBot::Offered { seat: seat_no(seat), offer })
                }
                Event::Replied { seat, accept } => {
                    self.tell_surrender(&ToBot::Replied { seat: seat_no(seat), accept })
                }
                Event::Announced { seat, announce } => {
                    self.tell_surrender(&ToBot::Announced { seat: seat_no(seat), announce })
                }
                Event::Played { seat, card } => {
                    self.tell_all(&ToBot::Played { seat: seat_no(seat), card: code(card), trick });
                }
                Event::TrickOver(t) => {
                    self.trick_winners.push(t.winner.map(seat_no));
                    let cards: Vec<_> =
                        (0..4).map(|k| table_card(t.leader.plus(k as u8), t.cards[k])).collect();
                    if self.rec.keeps() {
                        self.rec.line(&RecordLine::Trick {
                            trick: t.number,
                            leader: seat_no(t.leader),
                            cards: cards.clone(),
                            winner: t.winner.map(seat_no),
                        });
                    }
                    self.tell_all(&ToBot::Trick {
                        trick: t.number,
                        leader: seat_no(t.leader),
                        cards,
                        winner: t.winner.map(seat_no),
                        next: seat_no(t.next_leader),
                    });
                }
                Event::DealOver(d) => {
                    let s = d.score;
                    let pledge = convert::pledge(&d);
                    self.deals.push(DealLine {
                        deal: d.deal,
                        dealer: self.dealer,
                        winner: s.winner,
                        tricks: s.tricks,
                        points: s.points,
                        mordienne: s.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                        team: s.team,
                        pledge: d.pledge,
                    });
                    // The record's line and the bots' message end a deal with the same
                    // fields (the protocol's `deal_result` fragment); they are filled once here.
                    macro_rules! deal_over {
                        ($($line:ident)::+ { $($only:tt)* }) => {
                            $($line)::+ {
                                deal: d.deal,
                                tricks: s.tricks,
                                winner: s.winner.map(seat_no),
                                points: s.points,
                                mordienne: s.mordienne,
                                counted: d.counted,
                                score: d.match_score,
                                pledge,
                                $($only)*
                            }
                        };
                    }
                    self.rec.line(&deal_over!(RecordLine::DealOver {}));
                    self.rec.checkpoint();
                    let winners = std::mem::take(&mut self.trick_winners);
                    self.tell_all(&deal_over!(ToBot::DealOver { winners }));
                }
                Event::DealStarted { .. }
                | Event::Received { .. }
                | Event::Hand { .. }
                | Event::Discarded { .. }
                | Event::MatchOver(_)
                | Event::Signalled { .. } => {}
            }
        }
    }

    /// A chant recipient's talon cards in the order dealt, as wire codes.
    pub(super) fn received_in_order(&self, seat: Seat) -> Vec<protocol::CardCode> {
        self.game.received_in_order(seat).map(code).collect()
    }

    /// Tells the bots that took up the feature `surrender` (spec/protocol.md section 4.12); the
    /// others are never told of the pre-lead rounds.
    fn tell_surrender(&mut self, msg: &ToBot) {
        for bot in self.bots.iter_mut() {
            if bot.identity.has(protocol::SURRENDER) {
                bot.notify(msg);
            }
        }
    }

    pub(super) fn tell_all(&mut self, msg: &ToBot) {
        // Encoded once for the four bots.
        self.line_buf.clear();
        msg.encode_into(&mut self.line_buf);
        for bot in self.bots.iter_mut() {
            bot.notify_encoded(&self.line_buf);
        }
    }
}
