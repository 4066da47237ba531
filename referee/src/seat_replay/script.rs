//! Scripts: what each seat sent, question by question, read out of the record for its
//! playback bot.

use super::Recorded;
use crate::policy::{self};
use protocol::record::{FaultKind, FaultRecord, Header, Penalty, RecordLine};

/// What a playback bot does about one question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Move {
    /// The recorded answer, sent exactly `us` microseconds after the question.
    Answer {
        raw: String,
        us: u64,
        /// Its recorded `cpu_us`, charged under the CPU clock.
        cpu_us: Option<u64>,
    },
    /// A faulty line (malformed, wrong answer, illegal card, wrong discard), sent at once, byte
    /// for byte as the record keeps it (it need not be UTF-8).
    Line(Vec<u8>),
    /// A line over the length limit; its bytes are not recorded.
    TooLong,
    /// Nothing: the question times out.
    Silent,
    /// The bot ends the connection on reading the question (exited, closed, disconnected).
    Close,
}

/// One question a seat was asked, in the order asked, and what it did.
#[derive(Clone, Debug)]
pub(super) struct Step {
    /// The question's type, when the record says (`opening`, `discard`, `play`, `offer`,
    /// `reply`, `announce`).
    pub(super) kind: Option<&'static str>,
    /// Lines the referee read and ignored while this question was open (stale or unknown ids),
    /// sent before the move.
    pub(super) ignored: Vec<Vec<u8>>,
    pub(super) mv: Move,
    /// The fault the record charges to this question, if any.
    pub(super) fault: Option<FaultKind>,
    /// The bot was gone when the referee next wrote to it: the connection ends after this step.
    pub(super) then_close: bool,
}

/// How a seat's connection stands when the game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// The connection began just before this game: its handshake is part of the game's
    /// conversation, with this move for the `hello`.
    Handshake(Move),
    /// The connection goes on from an earlier game: no handshake.
    Continue,
    /// No bot: it could not be started or reached. `pending` when the fault was met just before
    /// this game (rather than carried over from an earlier one).
    Dead { kind: FaultKind, detail: String, pending: bool },
}

#[derive(Clone, Debug)]
pub(super) struct Script {
    pub(super) start: Start,
    /// The record says the handshake was refused.
    pub(super) refused: bool,
    pub(super) steps: Vec<Step>,
    /// The bot was found gone at the referee's first write of this game.
    pub(super) close_first: bool,
}

/// Faults found while writing to a bot rather than reading it: the question never reached it.
pub(super) fn found_on_write(f: &FaultRecord) -> bool {
    match f.kind {
        // Records of earlier versions called a closed stdin `closed_stdout`.
        FaultKind::ClosedStdout => {
            f.detail.starts_with("closed its stdin") || f.detail.starts_with("connection closed:")
        }
        FaultKind::Disconnected => f.detail.starts_with("the connection failed:"),
        FaultKind::Timeout => f.detail.starts_with("stopped reading its input"),
        _ => false,
    }
}

/// Reads the four seats' scripts out of the record.
pub(super) fn scripts(game: &Recorded) -> [Script; 4] {
    let mut b = Builder::new(&game.header);
    for line in &game.lines {
        b.feed(line);
    }
    b.scripts
}

/// The four seats' scripts read line by line, as far as the record goes: a game followed as it
/// is played (`follow.rs`) feeds each line as it comes.
#[derive(Debug)]
pub(super) struct Builder {
    pub(super) scripts: [Script; 4],
    ignored: [Vec<Vec<u8>>; 4],
    /// A question fault waits for its seat's `auto` action line, which names the question.
    open_fault: [bool; 4],
    /// A deal line has been read: faults before it are the connections'.
    pub(super) dealt: bool,
}

impl Builder {
    pub(super) fn new(header: &Header) -> Builder {
        let scripts = std::array::from_fn(|i| {
            let seat = &header.seats[i];
            Script {
                start: match &seat.hello {
                    Some(raw) => {
                        Start::Handshake(Move::Answer { raw: raw.clone(), us: 0, cpu_us: None })
                    }
                    None => Start::Continue,
                },
                refused: false,
                steps: Vec::new(),
                close_first: false,
            }
        });
        Builder { scripts, ignored: Default::default(), open_fault: [false; 4], dealt: false }
    }

    pub(super) fn feed(&mut self, line: &RecordLine) {
        let (scripts, ignored, open_fault) =
            (&mut self.scripts, &mut self.ignored, &mut self.open_fault);
        if let RecordLine::Deal { .. } = line {
            self.dealt = true;
        }
        if let RecordLine::Fault(f) = line {
            let i = usize::from(f.seat);
            if i >= 4 {
                return;
            }
            let s = &mut scripts[i];
            if !self.dealt && connection_fault(f, s) {
                return;
            }
            if policy::is_ignorable(f.kind) {
                ignored[i].extend(f.raw_bytes().map(<[u8]>::to_vec));
            } else if f.kind == FaultKind::BadSignal && f.penalty != Penalty::Forfeit {
                // About an accepted answer's signals: re-derived from the answer itself. An
                // answer whose signal forfeited the game has no line; its fault keeps it.
            } else if found_on_write(f) {
                match s.steps.last_mut() {
                    Some(step) => step.then_close = true,
                    None => s.close_first = true,
                }
            } else {
                let mv = match f.kind {
                    FaultKind::Timeout => Move::Silent,
                    FaultKind::LineTooLong => Move::TooLong,
                    FaultKind::Exited | FaultKind::ClosedStdout | FaultKind::Disconnected => {
                        Move::Close
                    }
                    _ => f.raw_bytes().map_or(Move::Silent, |line| Move::Line(line.to_vec())),
                };
                s.steps.push(Step {
                    kind: None,
                    ignored: std::mem::take(&mut ignored[i]),
                    mv,
                    fault: Some(f.kind),
                    then_close: false,
                });
                open_fault[i] = true;
            }
        }
        if let Some(a) = line.answered() {
            let (seat, auto, raw, us, kind) = (a.seat, a.auto, a.raw, a.us, a.question);
            let cpu_us = a.cpu_us;
            let i = usize::from(seat);
            if i >= 4 {
                return;
            }
            match (auto, raw) {
                (false, Some(raw)) => scripts[i].steps.push(Step {
                    kind: Some(kind),
                    ignored: std::mem::take(&mut ignored[i]),
                    mv: Move::Answer { raw: raw.clone(), us, cpu_us },
                    fault: None,
                    then_close: false,
                }),
                _ if open_fault[i] => {
                    if let Some(step) = scripts[i].steps.last_mut() {
                        step.kind = Some(kind);
                    }
                }
                // The referee chose without asking: the bot was replaced or gone.
                _ => {}
            }
            open_fault[i] = false;
        }
    }
}

/// Applies a fault met while connecting (before the first deal); false when it is not one.
fn connection_fault(f: &FaultRecord, s: &mut Script) -> bool {
    if let Some(detail) = f.detail.strip_prefix("still unavailable: ") {
        s.start = Start::Dead { kind: f.kind, detail: detail.to_string(), pending: false };
        return true;
    }
    match f.kind {
        FaultKind::NoStart => {
            s.start = Start::Dead { kind: f.kind, detail: f.detail.clone(), pending: true };
            true
        }
        FaultKind::HandshakeRefused => {
            s.refused = true;
            // A hello answer that was read is refused again by the same checks; otherwise
            // what the bot sent is not recorded, and only a timeout can be reproduced.
            if !matches!(s.start, Start::Handshake(Move::Answer { .. })) {
                let silent = f.detail.starts_with("timeout");
                s.start = Start::Handshake(if silent { Move::Silent } else { Move::Close });
            }
            true
        }
        _ => false,
    }
}
