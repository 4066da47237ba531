//! Replays a game record through the rules engine, so a record is never taken on trust: every
//! outcome it states is re-derived, and the same pass writes an account people can read.
//!
//! The record is the referee's only lasting output, and it is written line by line while the
//! game runs; a referee that is killed leaves a record without its footer, possibly with half a
//! line at the end. Such a record is still worth reading, so it is replayed as far as it goes and
//! reported as cut short rather than refused.

mod account;
mod deal_lines;
mod footer;
mod pledge_lines;
mod read;
mod rules_line;
#[cfg(test)]
mod tests;

pub(crate) use read::{Replay, ReplayError, replay_file, replay_str};

use crate::text::Shown;
use account::{Account, clock_text, plural, score_text, think};
use protocol::CardCode;
use protocol::msg::SeatNo;
use protocol::options::Seating;
use protocol::record::{FaultRecord, Footer, Header, RecordLine, SeatStats};
use read::{corrupt, differs, refused};
use rules::{Action, Event, Game, Seat, Turn};
use rules_line::rules_text;
use std::collections::VecDeque;

/// The state of one replay: the engine, and what the record still owes it.
#[derive(Debug)]
struct Replayer {
    header: Header,
    game: Game,
    /// Engine events the record must state next, in order (chant, receive, trick, deal_over).
    owed: VecDeque<Event>,
    /// Opening answers given in the current deal: every seat answers once, voting or not.
    answers: u8,
    /// Finished tricks in the current deal.
    tricks_done: u8,
    /// Lines of the plays of the trick in progress, to point at them when a trick line differs.
    play_lines: Vec<usize>,
    /// Seats whose fault cost their partnership the game, in record order. Several can forfeit
    /// at once (bots that all fail to start), so the footer names the team of any of them.
    forfeits: Vec<Seat>,
    faults: Vec<FaultRecord>,
    /// Each seat's answers so far, from its answer lines without `auto`, for the footer.
    answered: [SeatStats; 4],
    footer: Option<Footer>,
    account: Account,
}

impl Replayer {
    fn start(record: RecordLine, line: usize) -> Result<Replayer, ReplayError> {
        let RecordLine::Header(header) = record else {
            return Err(corrupt(line, "the first line is not a header line"));
        };
        let header = *header;
        let (rules, seating) =
            convert::rules_from_wire(&header.rules).map_err(|e| corrupt(line, e))?;
        let dealer = convert::seat(header.first_dealer).ok_or_else(|| {
            corrupt(line, format!("first dealer {} is not a seat 0..3", header.first_dealer))
        })?;
        if seating == Seating::DrawDealer {
            check_dealer_draw(header.draw.as_deref(), dealer, line)?;
        }
        if header.seats.len() != 4 {
            return Err(corrupt(line, format!("{} seats, not 4", header.seats.len())));
        }
        let mut account = Account::default();
        account.line(format_args!(
            "Game {}, seed {}, rules: {}",
            header.game,
            header.seed,
            rules_text(&header.rules)
        ));
        let seats: Vec<String> = header
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // A record is a file anyone can hand us: its names are shown, never obeyed.
                format!("{i} {} {}", Shown(&s.name), Shown(&s.version)).trim_end().to_string()
            })
            .collect();
        account.line(format_args!("Seats: {}   (teams: 0+2, 1+3)", seats.join(" | ")));
        account.line(format_args!("Clock: {}", clock_text(&header)));
        // A measured seat's footer states its answers' CPU time, from 0.
        let answered = std::array::from_fn(|i| SeatStats {
            cpu_us: header.seats[i].cpu.then_some(0),
            ..SeatStats::default()
        });
        Ok(Replayer {
            header,
            game: Game::new(rules, dealer),
            owed: VecDeque::new(),
            answers: 0,
            tricks_done: 0,
            play_lines: Vec::new(),
            forfeits: Vec::new(),
            faults: Vec::new(),
            answered,
            footer: None,
            account,
        })
    }

    fn line(&mut self, record: RecordLine, line: usize) -> Result<(), ReplayError> {
        if self.footer.is_some() {
            return Err(corrupt(line, format!("a {} line after the footer", record.kind())));
        }
        // Faults are facts about bots, not moves, so they may fall anywhere; after a forfeit
        // nothing but more faults and the footer may follow.
        if let Some(&seat) = self.forfeits.first()
            && !matches!(record, RecordLine::Footer(_) | RecordLine::Fault(_))
        {
            let why = format!("seat {seat} forfeited, so the footer comes next");
            return Err(refused(line, &describe(&record), why));
        }
        let answer = record.answered().filter(|a| !a.auto).map(|a| (a.seat, a.us, a.cpu_us));
        self.apply(record, line)?;
        // The line's seat is a seat: the line was accepted.
        if let Some((seat, us, cpu_us)) = answer {
            let stats = &mut self.answered[usize::from(seat)];
            stats.answers += 1;
            stats.think_us += us;
            stats.max_us = stats.max_us.max(us);
            if let (Some(total), Some(cpu)) = (stats.cpu_us.as_mut(), cpu_us) {
                *total += cpu;
            }
        }
        Ok(())
    }

    fn apply(&mut self, record: RecordLine, line: usize) -> Result<(), ReplayError> {
        match record {
            RecordLine::Header(_) => Err(corrupt(line, "a second header line")),
            RecordLine::Deal { deal, dealer, deck, hands } => {
                self.deal(deal, dealer, &deck, &hands, line)
            }
            RecordLine::Vote { seat, accept, us, cpu_us, auto, .. } => {
                self.vote(seat, accept, think(us, cpu_us, auto), line)
            }
            RecordLine::Opening { seat, us, cpu_us, auto, .. } => {
                self.opening(seat, think(us, cpu_us, auto), line)
            }
            RecordLine::Chant { taken } => self.chant(taken, line),
            RecordLine::Receive { seat, cards } => self.receive(seat, &cards, line),
            RecordLine::Discard { seat, cards, us, cpu_us, auto, .. } => {
                self.discard(seat, &cards, think(us, cpu_us, auto), line)
            }
            RecordLine::Play { seat, card, us, cpu_us, auto, .. } => {
                self.play(seat, card, think(us, cpu_us, auto), line)
            }
            RecordLine::Offer { seat, offer, us, cpu_us, auto, .. } => {
                self.pledge(seat, Action::Offer(offer), think(us, cpu_us, auto), line)
            }
            RecordLine::Reply { seat, accept, us, cpu_us, auto, .. } => {
                self.pledge(seat, Action::Reply(accept), think(us, cpu_us, auto), line)
            }
            RecordLine::Announce { seat, announce, us, cpu_us, auto, .. } => {
                self.pledge(seat, Action::Announce(announce), think(us, cpu_us, auto), line)
            }
            RecordLine::Signal { from, signal, seen_by } => {
                self.signal(from, &signal, &seen_by, line)
            }
            RecordLine::Trick { trick, leader, cards, winner } => {
                self.trick(trick, leader, &cards, winner, line)
            }
            stated @ RecordLine::DealOver { .. } => self.deal_over(&stated, line),
            RecordLine::Fault(fault) => self.fault(fault, line),
            RecordLine::Footer(footer) => self.footer(*footer, line),
        }
    }

    /// Refuses a line while the record still owes lines for earlier engine events.
    fn settled(&self, what: &str, line: usize) -> Result<(), ReplayError> {
        match self.owed.front() {
            None => Ok(()),
            Some(event) => Err(refused(line, what, format!("{} comes first", owed_text(event)))),
        }
    }

    fn seat(&self, no: SeatNo, what: &str, line: usize) -> Result<Seat, ReplayError> {
        convert::seat(no).ok_or_else(|| refused(line, what, format!("{no} is not a seat 0..3")))
    }

    /// Who answers next, counting the opening answers the engine does not see (chant off, or
    /// after a refusal); `None` between deals.
    fn next_answer(&self) -> Option<Seat> {
        match self.game.to_act()? {
            Turn::Deal => None,
            _ if self.answers < 4 => Some(self.game.dealer().plus(1 + self.answers)),
            turn => turn.seat(),
        }
    }

    /// The next event the engine owes the record, when `pick` takes it (the kind the line at
    /// `line` states); otherwise why the line does not follow: another event comes first, or
    /// none is owed (`none` says what is missing).
    fn owed_next<T>(
        &self,
        line: usize,
        what: &str,
        none: &str,
        pick: impl FnOnce(&Event) -> Option<T>,
    ) -> Result<T, ReplayError> {
        match self.owed.front() {
            Some(event) => pick(event)
                .ok_or_else(|| refused(line, what, format!("{} comes first", owed_text(event)))),
            None => Err(refused(line, what, format!("{none}; {}", self.waits_for()))),
        }
    }

    /// What the record must state next, for messages.
    fn waits_for(&self) -> String {
        match self.game.to_act() {
            None => "the game is over".into(),
            Some(Turn::Deal) => "the game waits for a new deal".into(),
            Some(Turn::Vote(s))
                if self.answers < 4 && s == self.game.dealer().plus(1 + self.answers) =>
            {
                format!("the game waits for a chant vote from seat {s}")
            }
            Some(_) if self.answers < 4 => format!(
                "the game waits for the opening answer of seat {} (no vote)",
                self.game.dealer().plus(1 + self.answers)
            ),
            Some(turn) => format!("the game waits for {turn}"),
        }
    }

    fn finish(mut self, lines: usize) -> Result<Replay, ReplayError> {
        self.account.flush();
        if self.footer.is_none() {
            self.account.line(format_args!(
                "Cut short after {}: no footer, score {} after {}",
                plural(lines as u64, "line"),
                score_text(self.game.score()),
                plural(self.game.deals_counted().into(), "deal")
            ));
        }
        let replay = Replay {
            header: self.header,
            footer: self.footer,
            account: self.account.text,
            lines,
            faults: self.faults,
            score: self.game.score(),
        };
        if replay.footer.is_none() {
            return Err(ReplayError::CutShort { lines, replay: Box::new(replay) });
        }
        Ok(replay)
    }
}

/// Under `seating=draw-dealer` the header's `draw` is the first dealer's draw (spec/rules.md
/// section 3): it must stop at the Madame, its last card, and its first dealer must be hers.
fn check_dealer_draw(
    draw: Option<&[CardCode]>,
    dealer: Seat,
    line: usize,
) -> Result<(), ReplayError> {
    let what = "the header's draw";
    let Some(codes) = draw else {
        return Err(refused(
            line,
            what,
            "seating draw-dealer draws the first dealer, and no draw is stated",
        ));
    };
    let cards: Vec<rules::Card> = codes.iter().map(|&c| convert::card(c)).collect();
    match rules::draw_first_dealer(&cards) {
        Some(drawn) if drawn.cards_turned == cards.len() => {
            if drawn.dealer == dealer {
                Ok(())
            } else {
                Err(differs(line, "the header", "first dealer", dealer, drawn.dealer))
            }
        }
        _ => Err(refused(
            line,
            what,
            "the draw stops when the Madame (3c) is turned up, so she is its last card",
        )),
    }
}

/// Engine events that the record states as lines of their own.
fn is_stated(event: &Event) -> bool {
    matches!(
        event,
        Event::ChantDecided { .. }
            | Event::Received { .. }
            | Event::TrickOver(_)
            | Event::DealOver(_)
    )
}

fn owed_text(event: &Event) -> String {
    match event {
        Event::ChantDecided { .. } => "the chant line".into(),
        Event::Received { seat, .. } => format!("the receive line of seat {seat}"),
        Event::TrickOver(t) => format!("the trick line of trick {}", t.number),
        Event::DealOver(d) => format!("the deal_over line of deal {}", d.deal),
        other => format!("{other:?}"),
    }
}

fn describe(record: &RecordLine) -> String {
    match record {
        RecordLine::Deal { deal, .. } => format!("deal {deal}"),
        RecordLine::Vote { seat, .. } => format!("vote by seat {seat}"),
        RecordLine::Opening { seat, .. } => format!("opening answer of seat {seat}"),
        RecordLine::Offer { seat, .. } => format!("offer answer of seat {seat}"),
        RecordLine::Reply { seat, .. } => format!("reply of seat {seat} to the surrender"),
        RecordLine::Announce { seat, .. } => format!("announce answer of seat {seat}"),
        RecordLine::Receive { seat, .. } => format!("receive line of seat {seat}"),
        RecordLine::Discard { seat, .. } => format!("discard by seat {seat}"),
        RecordLine::Play { seat, card, .. } => format!("play by seat {seat} of {card}"),
        RecordLine::Signal { from, signal, .. } => format!("signal {signal} from seat {from}"),
        RecordLine::Trick { trick, .. } => format!("trick {trick}"),
        RecordLine::DealOver { deal, .. } => format!("deal_over of deal {deal}"),
        other => format!("{} line", other.kind()),
    }
}
