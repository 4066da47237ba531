//! The questions of a game (opening, discard, play) asked and their answers judged, and the
//! signals an accepted answer carries checked and delivered.

use super::{Table, Took, votes_cast};
use crate::fault::Fault;
use crate::judge::{self, Refusal};
use crate::policy;
use convert::{code, codes, seat_no, table_card};
use protocol::CardCode;
use protocol::msg::TableCard;
use protocol::msg::ToBot;
use protocol::record::RecordLine;
use rules::{Action, Card, CardSet, Event, Seat, SignalDelivery};

/// The lists of the last question asked (its hand, its table), emptied and kept for the next
/// question: a question is asked once per answer, and its lists need not be allocated each time.
#[derive(Debug, Default)]
pub(super) struct Spare {
    hand: Vec<CardCode>,
    table: Vec<TableCard>,
}

impl Spare {
    /// The cards of `set` as wire codes, in the kept list.
    pub(super) fn hand(&mut self, set: CardSet) -> Vec<CardCode> {
        let mut hand = std::mem::take(&mut self.hand);
        hand.clear();
        hand.extend(set.iter().map(code));
        hand
    }

    /// The cards on the table as the question lists them, in the kept list.
    fn table(&mut self, cards: &[(Seat, Card)]) -> Vec<TableCard> {
        let mut table = std::mem::take(&mut self.table);
        table.clear();
        table.extend(cards.iter().map(|&(s, c)| table_card(s, c)));
        table
    }

    /// Keeps the lists of a question once it is encoded.
    pub(super) fn recycle(&mut self, question: ToBot) {
        match question {
            ToBot::Play { hand, table, .. } => {
                self.hand = hand;
                self.table = table;
            }
            ToBot::Opening { hand, .. }
            | ToBot::Discard { hand, .. }
            | ToBot::Offer { hand, .. }
            | ToBot::Reply { hand, .. }
            | ToBot::Announce { hand, .. } => self.hand = hand,
            _ => {}
        }
    }
}

impl Table<'_> {
    /// Checks and delivers the signals of an accepted answer (the seat's bot's last line). The
    /// first refused signal is a fault and drops it and the rest of the answer's signals.
    pub(super) fn signals(&mut self, seat: Seat, words: &[String]) {
        if let Err(refusal) = judge::signal_count(words) {
            return self.refuse_signal(seat, refusal);
        }
        for word in words {
            let signal = match judge::signal(&self.game, seat, word) {
                Ok(s) => s,
                Err(refusal) => return self.refuse_signal(seat, refusal),
            };
            // Checked before the coins are drawn: only a delivered signal takes any, so the
            // record's signal lines alone say which outputs of the stream each one took.
            let coins = self.leak_coins();
            let Ok(Event::Signalled { seen_by, .. }) = self.game.signal(seat, signal, coins) else {
                tracing::error!("referee bug: seat {seat}'s checked signal {word} was refused");
                return;
            };
            if self.rec.keeps() {
                let seen: Vec<u8> = (0..4u8).filter(|&s| seen_by[s as usize]).collect();
                self.rec.line(&RecordLine::Signal {
                    from: seat_no(seat),
                    signal: word.clone(),
                    seen_by: seen,
                });
            }
            for s in Seat::ALL {
                if s != seat && seen_by[s.index()] {
                    self.bots[s.index()]
                        .notify(&ToBot::Signal { from: seat_no(seat), signal: word.clone() });
                }
            }
        }
    }

    /// A refused signal's fault. It keeps the answer's line, which has no line of its own in the
    /// record when the fault forfeits the game.
    fn refuse_signal(&mut self, seat: Seat, refusal: Refusal) {
        let fault = Fault::new(refusal.kind(), refusal.to_string());
        let done = policy::SIGNAL_DROPPED.to_string();
        let raw = self.bots[seat.index()].answer_line().to_vec();
        self.fault(seat, fault.with_raw(raw), done);
    }

    /// The coin flips of a delivered signal, for the opponent on the sender's left and then the
    /// one on its right: under `signals=leaky`, the next two outputs of the game's stream
    /// (spec/records.md section 4); otherwise none are drawn.
    fn leak_coins(&mut self) -> [bool; 2] {
        if self.cfg.rules.signals != SignalDelivery::Leaky {
            return [false, false];
        }
        let threshold = (u128::from(self.cfg.rules.signal_leak_ppm) << 64) / 1_000_000;
        let mut flip = || u128::from(self.leak_rng.next_u64()) < threshold;
        [flip(), flip()]
    }

    pub(super) async fn opening(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        let vote = judge::vote_asked(&self.game, seat);
        let votes = votes_cast(&view);
        let (deal, dealer, hand) = (view.deal, seat_no(view.dealer), self.spare.hand(view.hand));
        let fallback = move || policy::opening_done(vote).to_string();
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Opening {
                    id,
                    deal,
                    dealer,
                    vote,
                    votes,
                    hand,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::opening(game, seat, msg),
                fallback,
            )
            .await;
        let (accept, took) = match reply {
            Some((accept, took)) => (accept.unwrap_or(policy::FALLBACK_VOTE), Some(took)),
            None => (policy::FALLBACK_VOTE, None),
        };
        if self.forfeit.is_some() {
            return;
        }
        let s = seat_no(seat);
        if !vote {
            self.action_line(seat, took, |Took { us, cpu_us }, auto, raw| RecordLine::Opening {
                seat: s,
                us,
                cpu_us,
                auto,
                raw,
            });
            self.settle(seat).await;
            return;
        }
        let line = move |Took { us, cpu_us }, auto, raw| RecordLine::Vote {
            seat: s,
            accept,
            us,
            cpu_us,
            auto,
            raw,
        };
        self.commit(seat, took, line, Action::Vote(accept), 0).await;
    }

    pub(super) async fn discard(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        // The fallback discard is worked out only when a fault needs it, as for a play.
        let held = view.hand;
        let fallback = move || policy::discard_done(policy::fallback_discard(held));
        let (deal, received) = (view.deal, self.received_in_order(seat));
        let hand = self.spare.hand(view.hand);
        let rule = convert::discard_rule(self.cfg.rules.discard);
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Discard {
                    id,
                    deal,
                    hand,
                    received,
                    rule,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::discard(game, seat, msg),
                fallback,
            )
            .await;
        let (cards, took) = match reply {
            Some((cards, took)) => (cards, Some(took)),
            None => (policy::fallback_discard(held), None),
        };
        if self.forfeit.is_some() {
            return;
        }
        let line = move |Took { us, cpu_us }, auto, raw| RecordLine::Discard {
            seat: seat_no(seat),
            cards: codes(cards),
            us,
            cpu_us,
            auto,
            raw,
        };
        self.commit(seat, took, line, Action::Discard(cards), 0).await;
    }

    pub(super) async fn play_card(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        if view.hand.is_empty() {
            return;
        }
        // The weakest card is worked out only when a fault needs it: this is the hot path.
        let held = view.hand;
        let fallback = move || policy::play_done(policy::fallback_play(held));
        let (table, hand) = (self.spare.table(view.table()), self.spare.hand(view.hand));
        let (deal, trick, leader) = (view.deal, view.trick, seat_no(view.leader));
        let (won, score) = (view.tricks_won(), view.score);
        self.asking_play = Some(seat);
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Play {
                    id,
                    deal,
                    trick,
                    leader,
                    table,
                    hand,
                    won,
                    score,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::play(game, seat, msg),
                fallback,
            )
            .await;
        self.asking_play = None;
        let (card, took) = match reply {
            Some((card, took)) => (card, Some(took)),
            None => match policy::fallback_play(held) {
                Some(card) => (card, None),
                None => return,
            },
        };
        if self.forfeit.is_some() {
            return;
        }
        let line = move |Took { us, cpu_us }, auto, raw| RecordLine::Play {
            seat: seat_no(seat),
            card: code(card),
            us,
            cpu_us,
            auto,
            raw,
        };
        self.commit(seat, took, line, Action::Play(card), trick).await;
    }
}
