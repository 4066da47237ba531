//! A seat's page (`replay --seat S --html`): the steps of seat S's conversation as
//! `replay --seat S` re-derives it, by playing the recorded game again through the referee's
//! own code. What the page shows of the game and of the other seats is what the referee told
//! the seat, in the order it was told: the `game`, `deal`, `vote`, `chant`, `played`, `trick`,
//! `deal_over`, `signal` and `game_over` notices, which come from `rules::Game::view` and the
//! events visible to the seat, like every message. So the page obeys the same rule, and the
//! leak tests that hold every conversation to it hold the page to it too.
//!
//! What the seat did itself it knows without being told: its answers and their think times, the
//! fallback the referee played for it, its signals, its faults and its statistics. Those come
//! from the record's lines about that seat alone, each matched to the question or `error`
//! notice of the conversation it belongs to, and a line that does not match is an error.
//! The other seats' think times, fallbacks, faults, talon cards and discards, the deck, the
//! seeds and the seating draw are told to no seat, so they are on no seat's page.

use super::{
    chant_step, deal_over_step, deal_step, event, footer_step, play_step, pledge_step, signal_step,
    step, trick_step, vote_step,
};
use crate::seat_replay::{self, Conversation, Dir, End, Recorded};
use protocol::codec::decode_line;
use protocol::msg::{SeatNo, ToBot};
use protocol::record::RecordLine;
use rules::SignalDelivery;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::path::Path;

/// The page data of seat `seat` for the record at `path` (already verified by the caller);
/// `cut_short` when the record has no footer.
pub(super) fn seat_data(path: &Path, seat: SeatNo, cut_short: bool) -> Result<Value, String> {
    let (game, conv) = seat_replay::rederive(path, usize::from(seat))?;
    build(&game, &conv, seat, cut_short)
        .map_err(|e| format!("{}: seat {seat}'s page: {e}", path.display()))
}

/// Which of the seat's own record lines a message of its conversation settles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Own {
    Vote,
    Opening,
    Receive,
    Discard,
    Play,
    Fault,
}

impl Own {
    fn of(line: &RecordLine) -> Option<Own> {
        Some(match line {
            RecordLine::Vote { .. } => Own::Vote,
            RecordLine::Opening { .. } => Own::Opening,
            RecordLine::Receive { .. } => Own::Receive,
            RecordLine::Discard { .. } => Own::Discard,
            RecordLine::Play { .. } => Own::Play,
            RecordLine::Fault(_) => Own::Fault,
            _ => return None,
        })
    }

    /// An answer to a question (or the fallback played for one).
    fn is_action(self) -> bool {
        matches!(self, Own::Vote | Own::Opening | Own::Discard | Own::Play)
    }
}

/// The record's lines about one seat, in order, taken as its conversation reaches them.
struct OwnLines<'a> {
    seat: SeatNo,
    lines: VecDeque<&'a RecordLine>,
    /// The seat's signals under the rules in force, once the `game` notice named them.
    delivery: Option<SignalDelivery>,
    /// Questions the seat was asked, and actions of its own taken so far: every question gets
    /// one action line (the answer, or the fallback), unless the game ends at it.
    asked: usize,
    acted: usize,
}

impl<'a> OwnLines<'a> {
    fn new(game: &'a Recorded, seat: SeatNo) -> OwnLines<'a> {
        let mine = |line: &&RecordLine| match line {
            RecordLine::Vote { seat: s, .. }
            | RecordLine::Opening { seat: s, .. }
            | RecordLine::Receive { seat: s, .. }
            | RecordLine::Discard { seat: s, .. }
            | RecordLine::Play { seat: s, .. }
            | RecordLine::Signal { from: s, .. } => *s == seat,
            RecordLine::Fault(f) => f.seat == seat,
            _ => false,
        };
        let lines = game.lines.iter().filter(mine).collect();
        OwnLines { seat, lines, delivery: None, asked: 0, acted: 0 }
    }

    /// The seat's own signals at the front, as steps: they were sent with the answer that
    /// follows them, or before the fault that refused the rest.
    fn signals(&mut self, steps: &mut Vec<Value>) -> Result<(), String> {
        while let Some(RecordLine::Signal { from, signal, .. }) = self.lines.front().copied() {
            let delivery = self.delivery.ok_or("a signal before the game notice")?;
            let (seen_by, partial) = known_watchers(delivery, *from, self.seat)?;
            steps.push(signal_step(*from, signal, &seen_by, partial));
            self.lines.pop_front();
        }
        Ok(())
    }

    /// Takes the seat's next own line, which must be a `want` (after its signals), as a step.
    fn take(&mut self, want: Own, steps: &mut Vec<Value>) -> Result<&'a RecordLine, String> {
        self.signals(steps)?;
        let line = self.lines.pop_front().filter(|l| Own::of(l) == Some(want));
        let line = line.ok_or_else(|| {
            format!("the conversation reaches the seat's {want:?}, not its next record line")
        })?;
        if want.is_action() {
            self.acted += 1;
        }
        steps.extend(event(line));
        Ok(line)
    }

    /// Takes an opening answer or a discard of the seat's that was asked and has no notice of
    /// its own: the referee tells nobody, so it stands at the seat's next message.
    fn settle(&mut self, steps: &mut Vec<Value>) -> Result<(), String> {
        let next = self.lines.iter().find(|l| !matches!(l, RecordLine::Signal { .. }));
        if let Some(kind @ (Own::Opening | Own::Discard)) = next.and_then(|l| Own::of(l))
            && self.asked > self.acted
        {
            self.take(kind, steps)?;
        }
        Ok(())
    }

    /// What is left when the conversation ends: the faults and signals of the seat, which are
    /// its own whether or not it could be told (a bot that exited is told nothing). The
    /// referee's later answers for a bot it no longer talks to are not the seat's to see.
    fn finish(mut self, steps: &mut Vec<Value>) -> Result<(), String> {
        self.settle(steps)?;
        while let Some(line) = self.lines.pop_front() {
            match line {
                RecordLine::Signal { .. } => {
                    self.lines.push_front(line);
                    self.signals(steps)?;
                }
                RecordLine::Fault(_) => steps.extend(event(line)),
                _ => {}
            }
        }
        Ok(())
    }
}

/// The seats that `view` knows saw a signal of `from`, and whether others may have: the rules
/// name the watchers under `public` (all) and `partner` (the sender and its partner); under
/// `leaky` a seat knows only of the sender, its partner and itself.
fn known_watchers(
    delivery: SignalDelivery,
    from: SeatNo,
    view: SeatNo,
) -> Result<(Vec<SeatNo>, bool), String> {
    if delivery == SignalDelivery::Public {
        return Ok(((0..4).collect(), false));
    }
    let sender = convert::seat(from).ok_or_else(|| format!("{from} is not a seat"))?;
    let mut seen = vec![from, convert::seat_no(sender.partner())];
    if !seen.contains(&view) {
        seen.push(view);
    }
    seen.sort_unstable();
    Ok((seen, delivery == SignalDelivery::Leaky))
}

/// The page data of `seat` from its conversation and its own record lines.
fn build(
    game: &Recorded,
    conv: &Conversation,
    seat: SeatNo,
    cut_short: bool,
) -> Result<Value, String> {
    let mut own = OwnLines::new(game, seat);
    let mut steps = Vec::new();
    let mut header = None;
    let mut over = None;
    let mut counted: u16 = 0;
    let status = match game.end {
        End::Aborted => "aborted",
        End::Complete | End::CutShort => "complete",
    };
    for line in conv.lines.iter().filter(|l| l.dir == Dir::ToBot) {
        let msg =
            decode_line::<ToBot>(&line.text).map_err(|e| format!("a line to the seat: {e}"))?;
        if !matches!(msg, ToBot::Error { .. }) {
            own.settle(&mut steps)?;
        }
        match msg {
            // A seat's re-derived conversation is of one connection: it resumes nothing.
            ToBot::Hello { .. } | ToBot::Resume { .. } => {}
            ToBot::Game { game, players, rules, clock, .. } => {
                own.delivery = Some(convert::rules_from_wire(&rules)?.0.signals);
                let seats: Vec<Value> =
                    players.iter().map(|name| json!({ "name": name })).collect();
                header =
                    Some(json!({ "game": game, "rules": rules, "clock": clock, "seats": seats }));
            }
            ToBot::Deal { deal, dealer, hand } => {
                let hands: Vec<Value> = (0..4u8)
                    .map(|s| if s == seat { super::cards(&hand) } else { Value::Null })
                    .collect();
                steps.push(deal_step(deal, dealer, Value::Array(hands), None));
            }
            ToBot::Opening { .. } | ToBot::Play { .. } => own.asked += 1,
            ToBot::Discard { .. } => {
                own.asked += 1;
                // The talon cards the seat received come with its question.
                own.take(Own::Receive, &mut steps)?;
            }
            ToBot::Vote { seat: s, .. } if s == seat => {
                own.take(Own::Vote, &mut steps)?;
            }
            ToBot::Vote { seat: s, accept } => steps.push(vote_step(s, accept, None)),
            ToBot::Chant { taken } => steps.push(chant_step(taken)),
            ToBot::Played { seat: s, .. } if s == seat => {
                own.take(Own::Play, &mut steps)?;
            }
            ToBot::Played { seat: s, card, .. } => steps.push(play_step(s, &card, None)),
            ToBot::Trick { trick, leader, cards, winner, .. } => {
                steps.push(trick_step(trick, leader, &cards, winner))
            }
            ToBot::DealOver {
                deal,
                tricks,
                winner,
                points,
                mordienne,
                counted: c,
                score,
                pledge,
                ..
            } => {
                counted += u16::from(c);
                steps.push(deal_over_step(json!({
                    "deal": deal, "tricks": tricks, "winner": winner, "points": points,
                    "mordienne": mordienne, "counted": c, "score": score, "pledge": pledge,
                })));
            }
            // The pre-lead rounds (feature `surrender`): every answer, the seat's own too, is
            // told to every seat that took the feature up, so the notices are the steps. A seat
            // without the feature is told nothing of them, and its page shows nothing.
            ToBot::Offer { .. } | ToBot::Reply { .. } | ToBot::Announce { .. } => {}
            ToBot::Offered { seat: s, offer } => steps.push(pledge_step("offer", s, offer, None)),
            ToBot::Replied { seat: s, accept } => steps.push(pledge_step("reply", s, accept, None)),
            ToBot::Announced { seat: s, announce } => {
                steps.push(pledge_step("announce", s, announce, None))
            }
            ToBot::Signal { from, signal } => {
                let delivery = own.delivery.ok_or("a signal before the game notice")?;
                let (seen_by, partial) = known_watchers(delivery, from, seat)?;
                steps.push(signal_step(from, &signal, &seen_by, partial));
            }
            ToBot::Error { fault, .. } => {
                let line = own.take(Own::Fault, &mut steps)?;
                if let RecordLine::Fault(f) = line
                    && f.kind.as_str() != fault
                {
                    return Err(format!(
                        "the seat was told of a {fault} fault, the record has {}",
                        f.kind.as_str()
                    ));
                }
            }
            ToBot::GameOver { score, winner, forfeit, .. } => {
                over = Some((score, winner, forfeit));
                steps.push(footer_step(status, score, winner, forfeit, counted));
            }
            // A bot the referee stopped during the game: the seat is told nothing more.
            ToBot::Bye { reason } => steps.push(step("bye", json!({ "reason": reason }))),
            ToBot::Unknown => return Err("a line to the seat that is no message".into()),
        }
    }
    own.finish(&mut steps)?;
    let header = header.ok_or_else(|| {
        "the seat's bot was told nothing of this game (it could not be started or reached, or \
         its handshake was refused): there is nothing to show"
            .to_string()
    })?;
    let footer = match over {
        None => Value::Null,
        Some((score, winner, forfeit)) => {
            // The seat's own statistics are its own; the others' are not told to it.
            let stats: Vec<Value> = (0..4u8)
                .map(|s| match &game.footer {
                    Some(f) if s == seat => json!(f.stats.get(usize::from(s))),
                    _ => Value::Null,
                })
                .collect();
            json!({
                "status": status, "score": score, "winner": winner, "forfeit": forfeit,
                "deals": counted, "stats": stats,
            })
        }
    };
    let mut data = Map::new();
    data.insert("view".into(), json!(seat));
    data.insert("header".into(), header);
    data.insert("events".into(), Value::Array(steps));
    data.insert("footer".into(), footer);
    if cut_short {
        // A seat learns that the record stops, not after how many lines.
        data.insert("cut_short".into(), json!({}));
    }
    Ok(Value::Object(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_knows_who_saw_a_signal_only_as_far_as_the_rules_tell() {
        use SignalDelivery::*;
        assert_eq!(known_watchers(Partner, 3, 1), Ok((vec![1, 3], false)));
        assert_eq!(known_watchers(Partner, 0, 0), Ok((vec![0, 2], false)));
        // Seat 1 saw seat 0's signal, but cannot know whether seat 3 did.
        assert_eq!(known_watchers(Leaky, 0, 1), Ok((vec![0, 1, 2], true)));
        // The sender is not told which opponents saw its signal.
        assert_eq!(known_watchers(Leaky, 0, 0), Ok((vec![0, 2], true)));
        assert_eq!(known_watchers(Public, 2, 1), Ok((vec![0, 1, 2, 3], false)));
    }
}
