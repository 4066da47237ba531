//! The account people read: one line per deal's section (votes, discards, each trick) with
//! its signals and faults after it, and the spelling of times, cards, seats and scores in it.

use protocol::CardCode;
use protocol::msg::SeatNo;
use protocol::options::ClockMode;
use protocol::record::Header;
use rules::{CardSet, Seat};
use std::fmt::Display;

/// The think time of an answer, with its CPU time when measured, or the mark of a referee's
/// fallback.
pub(super) fn think(us: u64, cpu_us: Option<u64>, auto: bool) -> String {
    if auto {
        return " (auto)".into();
    }
    match cpu_us {
        Some(cpu) => format!(" ({}, cpu {})", time_text(us), time_text(cpu)),
        None => format!(" ({})", time_text(us)),
    }
}

/// A time in microseconds as people read it. Short times keep a tenth of a millisecond: that is
/// where most bots answer.
pub(super) fn time_text(us: u64) -> String {
    match us {
        0..10_000 => {
            let tenths = (us + 50) / 100;
            format!("{}.{}ms", tenths / 10, tenths % 10)
        }
        10_000..1_000_000 => format!("{}ms", (us + 500) / 1000),
        _ => {
            let hundredths = (us + 5_000) / 10_000;
            format!("{}.{:02}s", hundredths / 100, hundredths % 100)
        }
    }
}

/// The header's clock: what the bank is charged by, and which seats' CPU time is measured.
pub(super) fn clock_text(header: &Header) -> String {
    let c = &header.clock;
    let mode = match (c.mode, c.wall_cap) {
        (Some(ClockMode::Cpu), cap) => {
            format!("cpu (wall cap {}x)", cap.map_or("?".into(), |n| n.to_string()))
        }
        _ => "wall".into(),
    };
    let measured: Vec<String> =
        (0..header.seats.len()).filter(|&i| header.seats[i].cpu).map(|i| i.to_string()).collect();
    let measured = if measured.is_empty() { "none".into() } else { measured.join(" ") };
    format!(
        "{mode}, {} ms an answer, bank {} ms; CPU time measured for seats: {measured}",
        c.answer_ms, c.bank_ms
    )
}

pub(super) fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

pub(super) fn score_text([a, b]: [u16; 2]) -> String {
    format!("{a}-{b}")
}

pub(super) fn cards_text(set: CardSet) -> String {
    let cards: Vec<String> = set.iter().map(|c| c.to_string()).collect();
    format!("[{}]", cards.join(" "))
}

pub(super) fn codes_text(codes: &[CardCode]) -> String {
    let cards: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    format!("[{}]", cards.join(" "))
}

pub(super) fn seats_text(seen: [bool; 4]) -> String {
    let seats: Vec<String> =
        Seat::ALL.iter().filter(|s| seen[s.index()]).map(|s| s.to_string()).collect();
    seats.join(" ")
}

pub(super) fn tricks_text(tricks: [u8; 4]) -> String {
    let t: Vec<String> = tricks.iter().map(|n| n.to_string()).collect();
    t.join(" ")
}

pub(super) fn winner_text(winner: Option<SeatNo>) -> String {
    winner.map_or("none (spoiled)".into(), |s| format!("seat {s}"))
}

pub(super) fn team_text(team: Option<u8>) -> String {
    team.map_or("none (a draw)".into(), |t| format!("team {t}"))
}

/// A part of a deal that the account writes as one line, followed by the signals and faults
/// that happened during it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Section {
    Opening,
    /// The pre-lead rounds: surrender offer, reply, announcement.
    Pledges,
    Discard(Seat),
    Trick(u8),
}

/// The account under construction: finished text, plus the line of the section in progress.
#[derive(Debug, Default)]
pub(super) struct Account {
    pub(super) text: String,
    section: Option<Section>,
    current: String,
    sep: &'static str,
    pub(super) signals: Vec<String>,
    notes: Vec<String>,
}

impl Account {
    /// Writes a line of its own, after whatever section was in progress.
    pub(super) fn line(&mut self, line: impl Display) {
        self.flush();
        self.text.push_str(&line.to_string());
        self.text.push('\n');
    }

    /// Continues `section`, or ends the one in progress and starts a line with `start`.
    pub(super) fn enter(&mut self, section: Section, start: &str) {
        if self.section != Some(section) {
            self.flush();
            self.section = Some(section);
            self.current = start.to_string();
            self.sep = "";
        }
    }

    pub(super) fn item(&mut self, item: impl Display) {
        self.current.push_str(self.sep);
        self.current.push_str(&item.to_string());
        self.sep = ", ";
    }

    /// A turning point inside the line (the chant decided, the trick won).
    pub(super) fn mark(&mut self, mark: impl Display) {
        self.current.push(' ');
        self.current.push_str(&mark.to_string());
        self.sep = "; ";
    }

    /// A fault: kept until the section in progress is written, so that line stays whole.
    pub(super) fn note(&mut self, note: String) {
        if self.section.is_some() {
            self.notes.push(note);
        } else {
            self.text.push_str(&note);
            self.text.push('\n');
        }
    }

    pub(super) fn flush(&mut self) {
        if self.section.take().is_some() {
            self.text.push_str(&self.current);
            self.text.push('\n');
        }
        self.current.clear();
        if !self.signals.is_empty() {
            self.text.push_str(&format!("    signals: {}\n", self.signals.join(", ")));
            self.signals.clear();
        }
        for note in self.notes.drain(..) {
            self.text.push_str(&note);
            self.text.push('\n');
        }
    }
}
