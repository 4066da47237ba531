//! Replays a game record through the rules engine, so a record is never taken on trust: every
//! outcome it states is re-derived, and the same pass writes an account people can read.
//!
//! The record is the referee's only lasting output, and it is written line by line while the
//! game runs; a referee that is killed leaves a record without its footer, possibly with half a
//! line at the end. Such a record is still worth reading, so it is replayed as far as it goes and
//! reported as cut short rather than refused.

use crate::convert;
use crate::text::Shown;
use protocol::msg::SeatNo;
use protocol::options::Signals;
use protocol::record::RecordLine;
use protocol::record::SeatStats;
use protocol::record::{
    FaultRecord, Footer, GameStatus, Header, Penalty, RECORD_FORMAT, RECORD_VERSION,
};
use protocol::{CardCode, RulesWire};
use rules::{
    Action, CardSet, DealResult, Deck, Event, Game, Rules, Seat, Signal, TrickResult, Turn,
};
use std::collections::VecDeque;
use std::fmt::{self, Display};
use std::path::Path;

/// A record that replayed without contradiction.
#[derive(Debug)]
pub(crate) struct Replay {
    pub(crate) header: Header,
    /// `None`: the record was cut short.
    pub(crate) footer: Option<Footer>,
    /// The readable trick-by-trick account.
    pub(crate) account: String,
    /// Complete record lines read.
    pub(crate) lines: usize,
    pub(crate) faults: Vec<FaultRecord>,
    /// Score per team as the engine re-derived it.
    pub(crate) score: [u16; 2],
}

/// Why a record could not be replayed to its footer.
#[derive(Debug)]
pub(crate) enum ReplayError {
    /// The file cannot be read.
    Io(String),
    /// Not a record: bad JSON, an unknown line, a bad header, another format or version.
    Corrupt { line: usize, message: String },
    /// A line that does not follow from the rules and the lines before it.
    Diverged { line: usize, message: String },
    /// Every line is valid but the footer is missing: the referee stopped writing mid-game.
    CutShort { lines: usize, replay: Box<Replay> },
}

impl Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Io(message) => write!(f, "cannot read the record: {message}"),
            ReplayError::Corrupt { line, message } | ReplayError::Diverged { line, message } => {
                write!(f, "line {line}: {message}")
            }
            ReplayError::CutShort { lines, replay } => write!(
                f,
                "the record was cut short after {lines} complete lines, without a footer \
                 (score {})",
                score_text(replay.score)
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Replays the record in `path`.
pub(crate) fn replay_file(path: &Path) -> Result<Replay, ReplayError> {
    let bytes =
        std::fs::read(path).map_err(|e| ReplayError::Io(format!("{}: {e}", path.display())))?;
    replay_bytes(&bytes)
}

/// Replays a record's raw bytes. A write torn inside a multi-byte character leaves invalid UTF-8
/// on the last line only, which is a cut, not corruption.
fn replay_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let bad_at = match std::str::from_utf8(bytes) {
        Ok(text) => return replay_str(text),
        Err(e) => e.valid_up_to(),
    };
    let line_start = bytes[..bad_at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = bytes[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
    let not_utf8 = || corrupt(line, "not UTF-8 text");
    let newline_after = bytes[bad_at..].iter().position(|&b| b == b'\n');
    let on_last_line = newline_after.is_none_or(|p| bad_at + p + 1 == bytes.len());
    if line_start == 0 || !on_last_line {
        return Err(not_utf8());
    }
    let prefix = std::str::from_utf8(&bytes[..line_start]).map_err(|_| not_utf8())?;
    match replay_str(prefix) {
        // The garbage follows a footer: nothing may.
        Ok(_) => Err(corrupt(line, "text after the footer")),
        Err(e) => Err(e),
    }
}

/// Replays a record held in memory.
pub(crate) fn replay_str(text: &str) -> Result<Replay, ReplayError> {
    let segments: Vec<&str> = text.split_inclusive('\n').collect();
    let mut replayer: Option<Replayer> = None;
    let mut complete = 0;
    for (i, segment) in segments.iter().enumerate() {
        let line = i + 1;
        let last = line == segments.len();
        let after_footer = replayer.as_ref().is_some_and(|r| r.footer.is_some());
        // Only the last segment can lack its newline: a write that never finished.
        let Some(body) = segment.strip_suffix('\n') else {
            if after_footer {
                return Err(corrupt(line, "text after the footer"));
            }
            break;
        };
        let record = match decode(body, line) {
            Ok(record) => record,
            Err(Bad::NotJson(_)) if last && !after_footer => break,
            Err(Bad::NotJson(e)) => return Err(corrupt(line, format!("not JSON: {e}"))),
            Err(Bad::Corrupt(message)) => return Err(corrupt(line, message)),
        };
        match &mut replayer {
            None => replayer = Some(Replayer::start(record, line)?),
            Some(r) => r.line(record, line)?,
        }
        complete = line;
    }
    match replayer {
        Some(r) => r.finish(complete),
        None if text.is_empty() => Err(corrupt(1, "the record is empty")),
        None => Err(corrupt(1, "the header line is cut short")),
    }
}

enum Bad {
    NotJson(serde_json::Error),
    Corrupt(String),
}

fn decode(body: &str, line: usize) -> Result<RecordLine, Bad> {
    let not_json = |e: &serde_json::Error| e.is_syntax() || e.is_eof();
    if line == 1 {
        // Format and version are checked before the strict decode, so a newer record is
        // reported as such rather than as an unknown field.
        let value: serde_json::Value = serde_json::from_str(body).map_err(Bad::NotJson)?;
        if value.get("type").and_then(|t| t.as_str()) != Some("header") {
            return Err(Bad::Corrupt("the first line is not a header line".into()));
        }
        let format = value.get("format").and_then(|f| f.as_str());
        if format != Some(RECORD_FORMAT) {
            return Err(Bad::Corrupt(format!(
                "the header's format is {}, not {RECORD_FORMAT:?}",
                value.get("format").map_or("missing".into(), |f| f.to_string())
            )));
        }
        let version = value.get("version").and_then(|v| v.as_u64());
        if version != Some(u64::from(RECORD_VERSION)) {
            return Err(Bad::Corrupt(format!(
                "the record is format version {}; this referee reads version {RECORD_VERSION}",
                value.get("version").map_or("missing".into(), |v| v.to_string())
            )));
        }
    }
    serde_json::from_str(body).map_err(|e| {
        if not_json(&e) { Bad::NotJson(e) } else { Bad::Corrupt(format!("not a record line: {e}")) }
    })
}

fn corrupt(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Corrupt { line, message: message.into() }
}

fn diverged(line: usize, message: impl Into<String>) -> ReplayError {
    ReplayError::Diverged { line, message: message.into() }
}

/// The usual form of a divergence: what the line says and why the rules disagree.
fn refused(line: usize, what: &str, why: impl Display) -> ReplayError {
    diverged(line, format!("{what} does not follow from the rules: {why}"))
}

/// A stated outcome that differs from the engine's.
fn differs(
    line: usize,
    what: &str,
    field: &str,
    stated: impl Display,
    rules: impl Display,
) -> ReplayError {
    diverged(line, format!("{what} says {field} {stated}, the rules say {rules}"))
}

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
        let (rules, _) = convert::rules_from_wire(&header.rules).map_err(|e| corrupt(line, e))?;
        let dealer = convert::seat(header.first_dealer).ok_or_else(|| {
            corrupt(line, format!("first dealer {} is not a seat 0..3", header.first_dealer))
        })?;
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
        Ok(Replayer {
            header,
            game: Game::new(rules, dealer),
            owed: VecDeque::new(),
            answers: 0,
            tricks_done: 0,
            play_lines: Vec::new(),
            forfeits: Vec::new(),
            faults: Vec::new(),
            answered: Default::default(),
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
        let answer = match record {
            RecordLine::Vote { seat, us, auto: false, .. }
            | RecordLine::Opening { seat, us, auto: false, .. }
            | RecordLine::Discard { seat, us, auto: false, .. }
            | RecordLine::Play { seat, us, auto: false, .. } => Some((seat, us)),
            _ => None,
        };
        self.apply(record, line)?;
        // The line's seat is a seat: the line was accepted.
        if let Some((seat, us)) = answer {
            let stats = &mut self.answered[usize::from(seat)];
            stats.answers += 1;
            stats.think_us += us;
            stats.max_us = stats.max_us.max(us);
        }
        Ok(())
    }

    fn apply(&mut self, record: RecordLine, line: usize) -> Result<(), ReplayError> {
        match record {
            RecordLine::Header(_) => Err(corrupt(line, "a second header line")),
            RecordLine::Deal { deal, dealer, deck, hands } => {
                self.deal(deal, dealer, &deck, &hands, line)
            }
            RecordLine::Vote { seat, accept, us, auto, .. } => {
                self.vote(seat, accept, think(us, auto), line)
            }
            RecordLine::Opening { seat, us, auto, .. } => self.opening(seat, think(us, auto), line),
            RecordLine::Chant { taken } => self.chant(taken, line),
            RecordLine::Receive { seat, cards } => self.receive(seat, &cards, line),
            RecordLine::Discard { seat, cards, us, auto, .. } => {
                self.discard(seat, &cards, think(us, auto), line)
            }
            RecordLine::Play { seat, card, us, auto, .. } => {
                self.play(seat, card, think(us, auto), line)
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

    fn deal(
        &mut self,
        deal: u16,
        dealer: SeatNo,
        deck: &[CardCode],
        hands: &[Vec<CardCode>],
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("deal {deal}");
        self.settled(&what, line)?;
        if self.game.to_act() != Some(Turn::Deal) {
            return Err(refused(line, &what, self.waits_for()));
        }
        let expected = self.game.deal_number() + 1;
        if deal != expected {
            return Err(differs(line, &what, "deal number", deal, expected));
        }
        let dealer_seat = self.game.dealer();
        if convert::seat(dealer) != Some(dealer_seat) {
            return Err(differs(line, &what, "dealer seat", dealer, dealer_seat));
        }
        let cards: Vec<_> = deck.iter().map(|&c| convert::card(c)).collect();
        let deck = Deck::from_cards(&cards).map_err(|e| refused(line, &what, e))?;
        if hands.len() != 4 {
            return Err(refused(line, &what, format!("{} hands listed, not 4", hands.len())));
        }
        let dealt = deck.hands(dealer_seat);
        for (seat, (stated, dealt)) in hands.iter().zip(dealt).enumerate() {
            let (set, n) = convert::set(stated);
            if set != dealt || n != dealt.len() {
                let field = format!("seat {seat} holds");
                return Err(differs(line, &what, &field, codes_text(stated), cards_text(dealt)));
            }
        }
        self.game.deal(&deck).map_err(|e| refused(line, &what, e))?;
        self.answers = 0;
        self.tricks_done = 0;
        self.play_lines.clear();
        self.account.line(format_args!("Deal {deal}, dealer {dealer_seat}"));
        let hands: Vec<String> =
            Seat::ALL.iter().map(|&s| format!("{s} {}", cards_text(self.game.hand(s)))).collect();
        self.account.line(format_args!("  hands: {}", hands.join(" ")));
        Ok(())
    }

    /// Checks that `seat` gives the next opening answer.
    fn opening_turn(&self, seat: Seat, what: &str, line: usize) -> Result<(), ReplayError> {
        if self.answers < 4 && self.next_answer() == Some(seat) {
            Ok(())
        } else {
            Err(refused(line, what, self.waits_for()))
        }
    }

    fn vote(
        &mut self,
        seat: SeatNo,
        accept: bool,
        time: String,
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("vote by seat {seat} ({})", if accept { "accept" } else { "refuse" });
        self.settled(&what, line)?;
        let s = self.seat(seat, &what, line)?;
        self.opening_turn(s, &what, line)?;
        if self.game.to_act() != Some(Turn::Vote(s)) {
            let why = if self.game.rules().chant {
                "the chant is already decided; an opening line was expected"
            } else {
                "the chant is off; an opening line was expected"
            };
            return Err(refused(line, &what, why));
        }
        let events =
            self.game.apply(s, Action::Vote(accept)).map_err(|e| refused(line, &what, e))?;
        self.owed.extend(events.iter().copied().filter(is_stated));
        self.answers += 1;
        self.account.enter(Section::Opening, "  votes: ");
        let vote = if accept { "accept" } else { "refuse" };
        self.account.item(format_args!("{s} {vote}{time}"));
        Ok(())
    }

    fn opening(&mut self, seat: SeatNo, time: String, line: usize) -> Result<(), ReplayError> {
        let what = format!("opening answer of seat {seat}");
        self.settled(&what, line)?;
        let s = self.seat(seat, &what, line)?;
        self.opening_turn(s, &what, line)?;
        if self.game.to_act() == Some(Turn::Vote(s)) {
            return Err(refused(
                line,
                &what,
                format!("seat {s}'s chant vote is asked: a vote line was expected"),
            ));
        }
        self.answers += 1;
        self.account.enter(Section::Opening, "  opening: ");
        self.account.item(format_args!("{s}{time}"));
        Ok(())
    }

    fn chant(&mut self, taken: bool, line: usize) -> Result<(), ReplayError> {
        let what = "chant line";
        match self.owed.front() {
            Some(&Event::ChantDecided { taken: rules }) => {
                if taken != rules {
                    return Err(differs(line, what, "taken", taken, rules));
                }
            }
            Some(event) => {
                return Err(refused(line, what, format!("{} comes first", owed_text(event))));
            }
            None => {
                return Err(refused(
                    line,
                    what,
                    format!("no vote decided the chant; {}", self.waits_for()),
                ));
            }
        }
        self.owed.pop_front();
        self.account.enter(Section::Opening, "  votes: ");
        self.account.mark(if taken { "-> chant taken" } else { "-> no chant" });
        Ok(())
    }

    fn receive(
        &mut self,
        seat: SeatNo,
        cards: &[CardCode],
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("receive line of seat {seat}");
        let received = match self.owed.front() {
            Some(&Event::Received { seat: s, cards }) => {
                if convert::seat(seat) != Some(s) {
                    return Err(differs(line, &what, "recipient seat", seat, s));
                }
                cards
            }
            Some(event) => {
                return Err(refused(line, &what, format!("{} comes first", owed_text(event))));
            }
            None => {
                return Err(refused(
                    line,
                    &what,
                    format!("nobody receives cards now; {}", self.waits_for()),
                ));
            }
        };
        let (set, n) = convert::set(cards);
        if set != received || n != received.len() {
            return Err(differs(line, &what, "cards", codes_text(cards), cards_text(received)));
        }
        self.owed.pop_front();
        self.account.line(format_args!("  {seat} receives {}", cards_text(received)));
        Ok(())
    }

    fn discard(
        &mut self,
        seat: SeatNo,
        cards: &[CardCode],
        time: String,
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("discard by seat {seat} of {}", codes_text(cards));
        self.settled(&what, line)?;
        let s = self.seat(seat, &what, line)?;
        if self.answers < 4 || self.game.to_act() != Some(Turn::Discard(s)) {
            return Err(refused(line, &what, self.waits_for()));
        }
        let (set, n) = convert::set(cards);
        if set.len() != n {
            return Err(refused(line, &what, "a card is listed twice"));
        }
        self.game.apply(s, Action::Discard(set)).map_err(|e| refused(line, &what, e))?;
        self.account.enter(Section::Discard(s), "  ");
        self.account.item(format_args!("{s} discards {}{time}", cards_text(set)));
        Ok(())
    }

    fn play(
        &mut self,
        seat: SeatNo,
        card: CardCode,
        time: String,
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("play by seat {seat} of {card}");
        self.settled(&what, line)?;
        let s = self.seat(seat, &what, line)?;
        if self.answers < 4 {
            return Err(refused(line, &what, self.waits_for()));
        }
        let events = self
            .game
            .apply(s, Action::Play(convert::card(card)))
            .map_err(|e| refused(line, &what, e))?;
        self.owed.extend(events.iter().copied().filter(is_stated));
        let trick = self.tricks_done + 1;
        if events.iter().any(|e| matches!(e, Event::TrickOver(_))) {
            self.tricks_done += 1;
        }
        self.play_lines.push(line);
        self.account.enter(Section::Trick(trick), &format!("  trick {trick}: "));
        self.account.item(format_args!("{s} {card}{time}"));
        Ok(())
    }

    fn signal(
        &mut self,
        from: SeatNo,
        name: &str,
        seen_by: &[SeatNo],
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("signal {name} from seat {from}");
        self.settled(&what, line)?;
        let s = self.seat(from, &what, line)?;
        let signal: Signal = name.parse().map_err(|e| refused(line, &what, e))?;
        // A signal rides on its sender's next answer, so the sender must be the one to answer.
        let section = match self.next_answer() {
            Some(next) if next == s => match self.game.to_act() {
                _ if self.answers < 4 => Section::Opening,
                Some(Turn::Discard(_)) => Section::Discard(s),
                _ => Section::Trick(self.tricks_done + 1),
            },
            _ => {
                let why = format!("only the seat about to answer may signal; {}", self.waits_for());
                return Err(refused(line, &what, why));
            }
        };
        let mut stated = [false; 4];
        for &no in seen_by {
            let seen = self.seat(no, &what, line)?;
            stated[seen.index()] = true;
        }
        let coins = [stated[s.left().index()], stated[s.plus(3).index()]];
        let event = self.game.signal(s, signal, coins).map_err(|e| refused(line, &what, e))?;
        let Event::Signalled { seen_by: rules, .. } = event else {
            return Err(refused(line, &what, "the engine made no signal"));
        };
        if stated != rules {
            return Err(differs(line, &what, "seen by", seats_text(stated), seats_text(rules)));
        }
        let start = match section {
            Section::Opening if self.game.rules().chant => "  votes: ".to_string(),
            Section::Opening => "  opening: ".to_string(),
            Section::Discard(_) => "  ".to_string(),
            Section::Trick(t) => format!("  trick {t}: "),
        };
        self.account.enter(section, &start);
        self.account.signals.push(format!("{s} -> {signal} (seen by {})", seats_text(rules)));
        Ok(())
    }

    fn trick(
        &mut self,
        number: u8,
        leader: SeatNo,
        cards: &[protocol::msg::TableCard],
        winner: Option<SeatNo>,
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("trick {number}");
        let t: TrickResult = match self.owed.front() {
            Some(&Event::TrickOver(t)) => t,
            Some(event) => {
                return Err(refused(line, &what, format!("{} comes first", owed_text(event))));
            }
            None => {
                return Err(refused(
                    line,
                    &what,
                    format!("no trick is over; {}", self.waits_for()),
                ));
            }
        };
        if number != t.number {
            return Err(differs(line, &what, "trick number", number, t.number));
        }
        if convert::seat(leader) != Some(t.leader) {
            return Err(differs(line, &what, "leader seat", leader, t.leader));
        }
        if cards.len() != 4 {
            return Err(refused(
                line,
                &what,
                format!("{} cards listed, a trick has 4", cards.len()),
            ));
        }
        for (i, (stated, &card)) in cards.iter().zip(&t.cards).enumerate() {
            let seat = t.leader.plus(i as u8);
            if convert::seat(stated.seat) != Some(seat) || convert::card(stated.card) != card {
                let played =
                    self.play_lines.get(i).map_or(String::new(), |l| format!(" (line {l})"));
                let field = format!("card {} was", i + 1);
                let stated = format!("{} by seat {}", stated.card, stated.seat);
                return Err(differs(
                    line,
                    &what,
                    &field,
                    stated,
                    format!("{card} by seat {seat}{played}"),
                ));
            }
        }
        if winner != t.winner.map(convert::seat_no) {
            return Err(differs(
                line,
                &what,
                "winner",
                winner_text(winner),
                winner_text(t.winner.map(convert::seat_no)),
            ));
        }
        self.owed.pop_front();
        self.play_lines.clear();
        self.account.enter(Section::Trick(t.number), &format!("  trick {}: ", t.number));
        match t.winner {
            Some(w) => self.account.mark(format_args!(" -> seat {w} wins")),
            None => self.account.mark(format_args!(" -> spoiled, {} leads again", t.leader)),
        }
        self.account.flush();
        Ok(())
    }

    fn deal_over(&mut self, stated: &RecordLine, line: usize) -> Result<(), ReplayError> {
        let &RecordLine::DealOver { deal, tricks, winner, points, mordienne, counted, score } =
            stated
        else {
            return Err(corrupt(line, "not a deal_over line"));
        };
        let what = format!("deal_over of deal {deal}");
        let d: DealResult = match self.owed.front() {
            Some(&Event::DealOver(d)) => d,
            Some(event) => {
                return Err(refused(line, &what, format!("{} comes first", owed_text(event))));
            }
            None => {
                return Err(refused(line, &what, format!("no deal is over; {}", self.waits_for())));
            }
        };
        let rules_winner = d.score.winner.map(convert::seat_no);
        if deal != d.deal {
            return Err(differs(line, &what, "deal number", deal, d.deal));
        }
        if tricks != d.score.tricks {
            return Err(differs(
                line,
                &what,
                "tricks",
                tricks_text(tricks),
                tricks_text(d.score.tricks),
            ));
        }
        if winner != rules_winner {
            return Err(differs(
                line,
                &what,
                "winner",
                winner_text(winner),
                winner_text(rules_winner),
            ));
        }
        if points != d.score.points {
            return Err(differs(line, &what, "points", points, d.score.points));
        }
        if mordienne != d.score.mordienne {
            return Err(differs(line, &what, "mordienne", mordienne, d.score.mordienne));
        }
        if counted != d.counted {
            return Err(differs(line, &what, "counted", counted, d.counted));
        }
        if score != d.match_score {
            return Err(differs(
                line,
                &what,
                "score",
                score_text(score),
                score_text(d.match_score),
            ));
        }
        self.owed.pop_front();
        self.account.flush();
        let score = score_text(d.match_score);
        match d.score.winner {
            Some(w) => {
                let tricks = d.score.tricks[w.index()];
                let mordienne = if d.score.mordienne { " (mordienne)" } else { "" };
                let (team, points) = (w.team(), d.score.points);
                self.account.line(format_args!(
                    "  deal {}: seat {w} wins with {}{mordienne} -> team {team} +{points}, score {score}",
                    d.deal,
                    plural(tricks.into(), "trick")
                ));
            }
            None => {
                let void = if d.counted { "" } else { "; void, dealt again" };
                self.account.line(format_args!(
                    "  deal {}: every trick spoiled -> nobody scores, score {score}{void}",
                    d.deal
                ));
            }
        }
        Ok(())
    }

    fn fault(&mut self, fault: FaultRecord, line: usize) -> Result<(), ReplayError> {
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

    fn footer(&mut self, footer: Footer, line: usize) -> Result<(), ReplayError> {
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
        RecordLine::Receive { seat, .. } => format!("receive line of seat {seat}"),
        RecordLine::Discard { seat, .. } => format!("discard by seat {seat}"),
        RecordLine::Play { seat, card, .. } => format!("play by seat {seat} of {card}"),
        RecordLine::Signal { from, signal, .. } => format!("signal {signal} from seat {from}"),
        RecordLine::Trick { trick, .. } => format!("trick {trick}"),
        RecordLine::DealOver { deal, .. } => format!("deal_over of deal {deal}"),
        other => format!("{} line", other.kind()),
    }
}

/// The think time of an answer, or the mark of a referee's fallback.
fn think(us: u64, auto: bool) -> String {
    if auto {
        return " (auto)".into();
    }
    // Short times keep a tenth of a millisecond: that is where most bots answer.
    match us {
        0..10_000 => {
            let tenths = (us + 50) / 100;
            format!(" ({}.{}ms)", tenths / 10, tenths % 10)
        }
        10_000..1_000_000 => format!(" ({}ms)", (us + 500) / 1000),
        _ => {
            let hundredths = (us + 5_000) / 10_000;
            format!(" ({}.{:02}s)", hundredths / 100, hundredths % 100)
        }
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn score_text([a, b]: [u16; 2]) -> String {
    format!("{a}-{b}")
}

fn cards_text(set: CardSet) -> String {
    let cards: Vec<String> = set.iter().map(|c| c.to_string()).collect();
    format!("[{}]", cards.join(" "))
}

fn codes_text(codes: &[CardCode]) -> String {
    let cards: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    format!("[{}]", cards.join(" "))
}

fn seats_text(seen: [bool; 4]) -> String {
    let seats: Vec<String> =
        Seat::ALL.iter().filter(|s| seen[s.index()]).map(|s| s.to_string()).collect();
    seats.join(" ")
}

fn tricks_text(tricks: [u8; 4]) -> String {
    let t: Vec<String> = tricks.iter().map(|n| n.to_string()).collect();
    t.join(" ")
}

fn winner_text(winner: Option<SeatNo>) -> String {
    winner.map_or("none (spoiled)".into(), |s| format!("seat {s}"))
}

fn team_text(team: Option<u8>) -> String {
    team.map_or("none (a draw)".into(), |t| format!("team {t}"))
}

/// The rule options in force, each as `name value` in its flag's spelling and in the table's
/// order (`protocol::RULE_OPTIONS`): every option that differs from its default, and always the
/// ones that say what game this is (the chant, the mordienne, the game's length, the signals);
/// under leaky signals, their leak too.
fn rules_text(rules: &RulesWire) -> String {
    const ALWAYS: &[&str] = &["chant", "mordienne", "deals", "target", "signals"];
    let defaults = convert::rules_wire(&Rules::default(), false).values();
    let leaky = rules.signals == Signals::Leaky;
    let shown: Vec<String> = rules
        .values()
        .into_iter()
        .filter(|(name, value)| {
            ALWAYS.contains(name)
                || (leaky && *name == "signal-leak")
                || !defaults.iter().any(|(n, v)| n == name && v == value)
        })
        .map(|(name, value)| format!("{name} {value}"))
        .collect();
    shown.join(", ")
}

/// A part of a deal that the account writes as one line, followed by the signals and faults
/// that happened during it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Opening,
    Discard(Seat),
    Trick(u8),
}

/// The account under construction: finished text, plus the line of the section in progress.
#[derive(Debug, Default)]
struct Account {
    text: String,
    section: Option<Section>,
    current: String,
    sep: &'static str,
    signals: Vec<String>,
    notes: Vec<String>,
}

impl Account {
    /// Writes a line of its own, after whatever section was in progress.
    fn line(&mut self, line: impl Display) {
        self.flush();
        self.text.push_str(&line.to_string());
        self.text.push('\n');
    }

    /// Continues `section`, or ends the one in progress and starts a line with `start`.
    fn enter(&mut self, section: Section, start: &str) {
        if self.section != Some(section) {
            self.flush();
            self.section = Some(section);
            self.current = start.to_string();
            self.sep = "";
        }
    }

    fn item(&mut self, item: impl Display) {
        self.current.push_str(self.sep);
        self.current.push_str(&item.to_string());
        self.sep = ", ";
    }

    /// A turning point inside the line (the chant decided, the trick won).
    fn mark(&mut self, mark: impl Display) {
        self.current.push(' ');
        self.current.push_str(&mark.to_string());
        self.sep = "; ";
    }

    /// A fault: kept until the section in progress is written, so that line stays whole.
    fn note(&mut self, note: String) {
        if self.section.is_some() {
            self.notes.push(note);
        } else {
            self.text.push_str(&note);
            self.text.push('\n');
        }
    }

    fn flush(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::msg::Clock;
    use protocol::options::OnFault;
    use protocol::record::{FaultKind, Policy, SeatInfo, SeatStats};
    use rules::{Card, MatchLength, SignalDelivery, SplitMix64, derive_seed};

    /// Plays a whole game the way the referee records one: every seat plays the first card of
    /// its hand, discards its first six, and signals its ace count before its opening answer and
    /// the Madame whenever it holds it before a card.
    fn record_game(rules: Rules, seed: u64) -> Vec<RecordLine> {
        let mut lines = vec![header(&rules, seed, 1)];
        let mut game = Game::new(rules, Seat::ALL[1]);
        let mut coins = SplitMix64::new(seed);
        let mut us = 1_000;
        while let Some(turn) = game.to_act() {
            us = (us * 7 + 333) % 25_000;
            match turn {
                Turn::Deal => {
                    let n = game.deal_number() + 1;
                    let deck = Deck::shuffled(derive_seed(&[seed, n.into()]));
                    let dealer = game.dealer();
                    lines.push(RecordLine::Deal {
                        deal: n,
                        dealer: convert::seat_no(dealer),
                        deck: deck.cards().iter().map(|&c| convert::code(c)).collect(),
                        hands: deck.hands(dealer).iter().map(|&h| convert::codes(h)).collect(),
                    });
                    game.deal(&deck).unwrap();
                    for k in 1..=4 {
                        let seat = dealer.plus(k);
                        let aces = game.hand(seat).iter().filter(|c| c.rank() == rules::Rank::Ace);
                        let signal = format!("aces:{}", aces.count());
                        signal_line(&mut game, &mut lines, &mut coins, seat, &signal);
                        let us = us + u64::from(k) * 97;
                        if game.to_act() == Some(Turn::Vote(seat)) {
                            let accept = !(n + seat.index() as u16).is_multiple_of(5);
                            let auto = k == 3;
                            let us = if auto { 0 } else { us };
                            let seat_no = convert::seat_no(seat);
                            lines.push(RecordLine::Vote {
                                seat: seat_no,
                                accept,
                                us,
                                auto,
                                raw: None,
                            });
                            let events = game.apply(seat, Action::Vote(accept)).unwrap();
                            stated_lines(events.iter(), &mut lines);
                        } else {
                            let seat = convert::seat_no(seat);
                            lines.push(RecordLine::Opening { seat, us, auto: false, raw: None });
                        }
                    }
                }
                Turn::Vote(_) => unreachable!("votes are cast in the opening round"),
                Turn::Discard(seat) => {
                    let cards: CardSet = game.hand(seat).iter().take(6).collect();
                    let seat_no = convert::seat_no(seat);
                    let codes = convert::codes(cards);
                    lines.push(RecordLine::Discard {
                        seat: seat_no,
                        cards: codes,
                        us,
                        auto: false,
                        raw: None,
                    });
                    game.apply(seat, Action::Discard(cards)).unwrap();
                }
                Turn::Play(seat) => {
                    if game.hand(seat).contains(Card::MADAME) {
                        signal_line(&mut game, &mut lines, &mut coins, seat, "madame");
                    }
                    let card = game.hand(seat).iter().next().unwrap();
                    let (seat_no, code) = (convert::seat_no(seat), convert::code(card));
                    lines.push(RecordLine::Play {
                        seat: seat_no,
                        card: code,
                        us,
                        auto: false,
                        raw: None,
                    });
                    let events = game.apply(seat, Action::Play(card)).unwrap();
                    stated_lines(events.iter(), &mut lines);
                }
            }
        }
        let outcome = game.outcome().unwrap();
        let winner = outcome.winner.map(|t| t.index() as u8);
        lines.push(footer(
            &lines,
            GameStatus::Complete,
            outcome.score,
            winner,
            None,
            outcome.deals,
        ));
        lines
    }

    fn header(rules: &Rules, seed: u64, first_dealer: SeatNo) -> RecordLine {
        let seat = |i: usize| SeatInfo {
            name: ["alpha", "beta"][i % 2].into(),
            version: ["1.0", "0.3"][i % 2].into(),
            author: None,
            command: vec!["./bot".into()],
            stderr: None,
            first_id: 1,
            hello: None,
        };
        RecordLine::Header(Box::new(Header {
            format: RECORD_FORMAT.into(),
            version: RECORD_VERSION,
            referee: "0.1.0".into(),
            protocol: 1,
            game: 3,
            match_seed: 99,
            seed,
            rules: convert::rules_wire(rules, false),
            clock: Clock { handshake_ms: 2000, answer_ms: 1000, bank_ms: 10_000 },
            policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
            seats: (0..4).map(seat).collect(),
            first_dealer,
            draw: None,
            started_unix_ms: 0,
        }))
    }

    /// A footer after `lines`, with their statistics as records.md defines them.
    fn footer(
        lines: &[RecordLine],
        status: GameStatus,
        score: [u16; 2],
        winner: Option<u8>,
        forfeit: Option<u8>,
        deals: u16,
    ) -> RecordLine {
        let mut stats = vec![SeatStats::default(); 4];
        for line in lines {
            match line {
                RecordLine::Vote { seat, us, auto: false, .. }
                | RecordLine::Opening { seat, us, auto: false, .. }
                | RecordLine::Discard { seat, us, auto: false, .. }
                | RecordLine::Play { seat, us, auto: false, .. } => {
                    let s = &mut stats[usize::from(*seat)];
                    s.answers += 1;
                    s.think_us += us;
                    s.max_us = s.max_us.max(*us);
                }
                RecordLine::Fault(f) => {
                    let s = &mut stats[usize::from(f.seat)];
                    s.faults += 1;
                    s.strikes = f.strikes;
                    s.replaced |= f.penalty == Penalty::Replaced;
                }
                _ => {}
            }
        }
        RecordLine::Footer(Box::new(Footer {
            status,
            score,
            winner,
            forfeit,
            deals,
            stats,
            duration_ms: 1234,
        }))
    }

    /// Makes a signal through the engine, with leak coins from the test's generator, and records
    /// it as delivered.
    fn signal_line(
        game: &mut Game,
        lines: &mut Vec<RecordLine>,
        coins: &mut SplitMix64,
        seat: Seat,
        name: &str,
    ) {
        let signal: Signal = name.parse().unwrap();
        let flips = [coins.below(2) == 0, coins.below(2) == 0];
        if let Ok(Event::Signalled { seen_by, .. }) = game.signal(seat, signal, flips) {
            let seen_by = Seat::ALL
                .iter()
                .filter(|s| seen_by[s.index()])
                .map(|&s| convert::seat_no(s))
                .collect();
            lines.push(RecordLine::Signal {
                from: convert::seat_no(seat),
                signal: name.into(),
                seen_by,
            });
        }
    }

    fn stated_lines<'a>(events: impl Iterator<Item = &'a Event>, lines: &mut Vec<RecordLine>) {
        for event in events {
            lines.push(match *event {
                Event::ChantDecided { taken } => RecordLine::Chant { taken },
                Event::Received { seat, cards } => RecordLine::Receive {
                    seat: convert::seat_no(seat),
                    cards: convert::codes(cards),
                },
                Event::TrickOver(t) => RecordLine::Trick {
                    trick: t.number,
                    leader: convert::seat_no(t.leader),
                    cards: (0..4)
                        .map(|i| convert::table_card(t.leader.plus(i), t.cards[i as usize]))
                        .collect(),
                    winner: t.winner.map(convert::seat_no),
                },
                Event::DealOver(d) => RecordLine::DealOver {
                    deal: d.deal,
                    tricks: d.score.tricks,
                    winner: d.score.winner.map(convert::seat_no),
                    points: d.score.points,
                    mordienne: d.score.mordienne,
                    counted: d.counted,
                    score: d.match_score,
                },
                _ => continue,
            });
        }
    }

    fn text(lines: &[RecordLine]) -> String {
        lines.iter().map(|l| serde_json::to_string(l).unwrap() + "\n").collect()
    }

    fn index_of(lines: &[RecordLine], from: usize, pred: impl Fn(&RecordLine) -> bool) -> usize {
        from + lines[from..].iter().position(pred).unwrap()
    }

    fn diverged_at(result: Result<Replay, ReplayError>) -> (usize, String) {
        match result {
            Err(ReplayError::Diverged { line, message }) => (line, message),
            other => panic!("expected a divergence, got {other:?}"),
        }
    }

    fn default_rules() -> Rules {
        Rules { signals: SignalDelivery::Leaky, ..Rules::default() }
    }

    #[test]
    fn complete_records_replay_with_their_score() {
        let variants = [
            default_rules(),
            Rules { chant: false, signals: SignalDelivery::Partner, ..Rules::default() },
            Rules {
                length: MatchLength::Target(3),
                chant_second: rules::ChantSecond::Partner,
                ..default_rules()
            },
        ];
        for rules in variants {
            for seed in [1, 2, 12345] {
                let lines = record_game(rules, seed);
                let replay = replay_str(&text(&lines)).unwrap();
                let Some(RecordLine::Footer(footer)) = lines.last() else { unreachable!() };
                assert_eq!(replay.score, footer.score);
                assert_eq!(replay.lines, lines.len());
                assert_eq!(replay.footer.as_ref(), Some(&**footer));
                assert!(replay.faults.is_empty());
                assert_eq!((replay.header.game, replay.header.seed), (3, seed));
                assert!(replay.account.starts_with("Game 3, seed "), "{}", replay.account);
                assert!(replay.account.contains("Deal 1, dealer 1\n"));
                assert!(replay.account.contains("  trick 9: "));
                assert!(replay.account.lines().last().unwrap().starts_with("Result: "));
                // Deterministic: the same record gives the same account.
                assert_eq!(replay_str(&text(&lines)).unwrap().account, replay.account);
            }
        }
    }

    #[test]
    fn the_test_games_cover_chant_taken_refused_and_signals() {
        let lines = record_game(default_rules(), 1);
        let has = |f: &dyn Fn(&RecordLine) -> bool| lines.iter().any(f);
        assert!(has(&|l| matches!(l, RecordLine::Chant { taken: true })));
        assert!(has(&|l| matches!(l, RecordLine::Chant { taken: false })));
        assert!(has(&|l| matches!(l, RecordLine::Receive { .. })));
        assert!(has(&|l| matches!(l, RecordLine::Discard { .. })));
        assert!(has(&|l| matches!(l, RecordLine::Opening { .. })));
        assert!(has(&|l| matches!(l, RecordLine::Signal { signal, .. } if signal == "madame")));
        let account = replay_str(&text(&lines)).unwrap().account;
        assert!(account.contains("-> chant taken"), "{account}");
        assert!(account.contains("-> no chant; "), "{account}");
        assert!(account.contains("    signals: "), "{account}");
        assert!(account.contains(" (auto)"), "{account}");
        assert!(account.contains(" receives ["), "{account}");
        assert!(account.contains(" discards ["), "{account}");
    }

    #[test]
    fn a_play_of_another_held_card_is_caught_at_its_trick_line() {
        let mut lines = record_game(default_rules(), 1);
        let first_play = index_of(&lines, 0, |l| matches!(l, RecordLine::Play { .. }));
        let RecordLine::Play { seat, card, .. } = lines[first_play].clone() else { unreachable!() };
        // The hand as the engine holds it, after any chant.
        let replayed = replay_until(&lines, first_play);
        let other = replayed
            .hand(Seat::new(seat).unwrap())
            .iter()
            .map(convert::code)
            .find(|&c| c != card)
            .unwrap();
        if let RecordLine::Play { card, .. } = &mut lines[first_play] {
            *card = other;
        }
        let trick_line =
            index_of(&lines, first_play, |l| matches!(l, RecordLine::Trick { .. })) + 1;
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, trick_line, "{message}");
        assert!(
            message.contains(&format!(
                "the rules say {other} by seat {seat} (line {})",
                first_play + 1
            )),
            "{message}"
        );
    }

    /// The engine state just before record line `index` (0-based), rebuilt from the record.
    fn replay_until(lines: &[RecordLine], index: usize) -> Game {
        let mut replayer = None;
        for (i, record) in lines[..index].iter().cloned().enumerate() {
            match &mut replayer {
                None => replayer = Some(Replayer::start(record, i + 1).unwrap()),
                Some(r) => r.line(record, i + 1).unwrap(),
            }
        }
        replayer.unwrap().game
    }

    #[test]
    fn a_card_not_held_diverges_at_its_play_line() {
        let mut lines = record_game(default_rules(), 2);
        let at = index_of(&lines, lines.len() / 2, |l| matches!(l, RecordLine::Play { .. }));
        let RecordLine::Play { seat, .. } = lines[at] else { unreachable!() };
        let game = replay_until(&lines, at);
        let hand = game.hand(Seat::new(seat).unwrap());
        let foreign = convert::code(Card::all().find(|&c| !hand.contains(c)).unwrap());
        if let RecordLine::Play { card, .. } = &mut lines[at] {
            *card = foreign;
        }
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        let expected = format!(
            "line {line}: play by seat {seat} of {foreign} does not follow from the rules: card {foreign} is not in the hand"
        );
        assert_eq!(diverged_display(&lines), expected);
        assert!(message.contains("is not in the hand"));
    }

    fn diverged_display(lines: &[RecordLine]) -> String {
        replay_str(&text(lines)).unwrap_err().to_string()
    }

    #[test]
    fn a_changed_trick_winner_diverges() {
        let mut lines = record_game(default_rules(), 3);
        let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Trick { winner: Some(_), .. }));
        let RecordLine::Trick { winner: Some(w), .. } = &mut lines[at] else { unreachable!() };
        let rules_winner = *w;
        *w = (*w + 1) % 4;
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        assert!(message.ends_with(&format!("the rules say seat {rules_winner}")), "{message}");
    }

    #[test]
    fn changed_deal_over_points_diverge() {
        let mut lines = record_game(default_rules(), 4);
        let at = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. }));
        let RecordLine::DealOver { deal, points, .. } = &mut lines[at] else { unreachable!() };
        let (deal, rules_points) = (*deal, *points);
        *points = 2 - rules_points.min(2) + 1;
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        let stated = 2 - rules_points.min(2) + 1;
        assert_eq!(
            message,
            format!("deal_over of deal {deal} says points {stated}, the rules say {rules_points}")
        );
    }

    #[test]
    fn a_changed_seen_by_diverges() {
        let mut lines = record_game(default_rules(), 5);
        let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Signal { .. }));
        let RecordLine::Signal { from, seen_by, .. } = &mut lines[at] else { unreachable!() };
        // The partner always sees a signal.
        let partner = (*from + 2) % 4;
        seen_by.retain(|&s| s != partner);
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        assert!(message.contains("says seen by"), "{message}");
    }

    #[test]
    fn a_missing_opening_answer_diverges() {
        let mut lines = record_game(Rules { chant: false, ..default_rules() }, 6);
        let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Opening { .. }));
        lines.remove(at);
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert!(line > at, "{message}");
    }

    #[test]
    fn a_record_torn_mid_line_is_cut_short() {
        let lines = record_game(default_rules(), 7);
        let full = text(&lines);
        let keep = lines.len() / 2;
        let head: String = text(&lines[..keep]);
        let torn = format!("{head}{}", &serde_json::to_string(&lines[keep]).unwrap()[..7]);
        for cut in [torn, format!("{head}{{\"type\":\"pl\n")] {
            match replay_str(&cut) {
                Err(ReplayError::CutShort { lines, replay }) => {
                    assert_eq!(lines, keep);
                    assert_eq!(replay.lines, keep);
                    assert!(replay.footer.is_none());
                    assert!(replay.account.contains("Cut short after"), "{}", replay.account);
                }
                other => panic!("expected cut short, got {other:?}"),
            }
        }
        // A complete line without its newline was not finished either.
        let unterminated = full.strip_suffix('\n').unwrap();
        assert!(
            matches!(replay_str(unterminated), Err(ReplayError::CutShort { lines: n, .. }) if n == lines.len() - 1)
        );
        // A multi-byte character torn at the end of a file.
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&"{\"type\":\"é".as_bytes()[..10]);
        assert!(
            matches!(replay_bytes(&bytes), Err(ReplayError::CutShort { lines: n, .. }) if n == keep)
        );
    }

    #[test]
    fn bad_json_before_the_end_is_corrupt() {
        let lines = record_game(default_rules(), 7);
        let mut text = text(&lines[..5]);
        text.push_str("{\"type\":\"pl\n");
        text.push_str(&serde_json::to_string(&lines[5]).unwrap());
        text.push('\n');
        assert!(matches!(replay_str(&text), Err(ReplayError::Corrupt { line: 6, .. })));
        let unknown = format!("{}{{\"type\":\"shrug\",\"seat\":1}}\n", self::text(&lines[..5]));
        assert!(matches!(replay_str(&unknown), Err(ReplayError::Corrupt { line: 6, .. })));
    }

    #[test]
    fn a_record_without_footer_is_cut_short_with_the_engine_score() {
        let lines = record_game(default_rules(), 8);
        let last_deal_over =
            lines.iter().rposition(|l| matches!(l, RecordLine::DealOver { .. })).unwrap();
        let RecordLine::DealOver { score, .. } = lines[last_deal_over] else { unreachable!() };
        match replay_str(&text(&lines[..lines.len() - 1])) {
            Err(e @ ReplayError::CutShort { .. }) => {
                assert!(e.to_string().starts_with("the record was cut short after"));
                let ReplayError::CutShort { lines: n, replay } = e else { unreachable!() };
                assert_eq!(n, lines.len() - 1);
                assert_eq!(replay.score, score);
            }
            other => panic!("expected cut short, got {other:?}"),
        }
    }

    #[test]
    fn another_format_version_is_corrupt() {
        let mut lines = record_game(default_rules(), 9);
        let RecordLine::Header(h) = &mut lines[0] else { unreachable!() };
        h.version = RECORD_VERSION + 1;
        match replay_str(&text(&lines)) {
            Err(ReplayError::Corrupt { line: 1, message }) => {
                assert!(message.contains("version"), "{message}")
            }
            other => panic!("expected corrupt, got {other:?}"),
        }
        let RecordLine::Header(h) = &mut lines[0] else { unreachable!() };
        h.version = RECORD_VERSION;
        h.format = "something-else".into();
        assert!(matches!(replay_str(&text(&lines)), Err(ReplayError::Corrupt { line: 1, .. })));
        assert!(matches!(replay_str(""), Err(ReplayError::Corrupt { line: 1, .. })));
        assert!(matches!(
            replay_str(&text(&lines[1..])),
            Err(ReplayError::Corrupt { line: 1, .. })
        ));
    }

    #[test]
    fn a_forfeit_fault_ends_the_game_with_its_footer() {
        let lines = record_game(default_rules(), 10);
        // Cut after the first deal, while seat 3 is asked for its opening answer of deal 2.
        let end = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. })) + 1;
        let RecordLine::DealOver { score, .. } = lines[end - 1] else { unreachable!() };
        let fault = FaultRecord {
            seat: 3,
            deal: Some(2),
            trick: None,
            kind: FaultKind::Exited,
            detail: "exit status 1".into(),
            raw: None,
            raw_b64: None,
            action: "your partnership forfeits the game".into(),
            penalty: Penalty::Forfeit,
            strikes: 1,
        };
        let mut record = lines[..end].to_vec();
        record.push(RecordLine::Fault(fault.clone()));
        record.push(footer(&record, GameStatus::Complete, score, Some(0), Some(1), 1));
        let replay = replay_str(&text(&record)).unwrap();
        assert_eq!(replay.faults, vec![fault.clone()]);
        assert_eq!(replay.score, score);
        assert!(
            replay.account.contains(
                "  fault: seat 3 exited (deal 2): exit status 1; penalty forfeit, 1 strike\n"
            ),
            "{}",
            replay.account
        );
        assert!(
            replay.account.contains("Result: team 1 forfeits (seat 3) at "),
            "{}",
            replay.account
        );

        // The wrong team, and anything but the footer after the forfeit, diverge.
        let n = record.len();
        record[n - 1] = footer(&record[..n - 1], GameStatus::Complete, score, Some(1), Some(0), 1);
        assert_eq!(diverged_at(replay_str(&text(&record))).0, n);
        record[n - 1] = lines[end].clone();
        assert_eq!(diverged_at(replay_str(&text(&record))).0, n);

        // Connection-time forfeit, before any deal.
        let mut record = vec![lines[0].clone(), RecordLine::Fault(fault)];
        record.push(footer(&record, GameStatus::Complete, [0, 0], Some(0), Some(1), 0));
        assert_eq!(replay_str(&text(&record)).unwrap().score, [0, 0]);
    }

    /// Issue 12: a footer counted an answer refused for a false signal, which has no line, and
    /// nothing noticed. The statistics are the lines' own, so every change to them diverges.
    #[test]
    fn footer_statistics_are_those_of_the_lines() {
        let lines = record_game(default_rules(), 14);
        assert!(replay_str(&text(&lines)).is_ok());
        let n = lines.len();
        let RecordLine::Footer(f) = lines[n - 1].clone() else { unreachable!() };
        type Change = fn(&mut SeatStats);
        let changes: [(&str, Change); 6] = [
            ("answers", |s| s.answers += 1),
            ("think_us", |s| s.think_us += 1),
            ("max_us", |s| s.max_us += 1),
            ("strikes", |s| s.strikes += 1),
            ("replaced", |s| s.replaced = true),
            ("nothing", |_| {}),
        ];
        for (field, change) in changes {
            let mut changed = f.clone();
            change(&mut changed.stats[2]);
            let mut record = lines.clone();
            record[n - 1] = RecordLine::Footer(changed);
            if field == "nothing" {
                assert!(replay_str(&text(&record)).is_ok());
                continue;
            }
            let (line, message) = diverged_at(replay_str(&text(&record)));
            assert_eq!(line, n, "{message}");
            assert!(message.contains(&format!("statistics of seat 2 says {field} ")), "{message}");
        }
        // A fault line the footer does not count.
        let mut record = lines[..n - 1].to_vec();
        record.push(RecordLine::Fault(FaultRecord {
            seat: 1,
            deal: None,
            trick: None,
            kind: FaultKind::StaleId,
            detail: "id 3 was answered already".into(),
            raw: Some("{}".into()),
            raw_b64: None,
            action: "line ignored".into(),
            penalty: Penalty::Ignored,
            strikes: 0,
        }));
        let mut uncounted = f.clone();
        uncounted.stats[1].faults = 0;
        record.push(RecordLine::Footer(uncounted));
        let (line, message) = diverged_at(replay_str(&text(&record)));
        assert_eq!(line, n + 1, "{message}");
        assert!(message.contains("says 0 faults, but the seat has 1 fault lines"), "{message}");
    }

    /// A malformed line that is not UTF-8 is kept as base64; a record that spells a line both
    /// ways, or base64 for text, is not a record the referee writes.
    #[test]
    fn a_faulty_line_is_kept_one_way() {
        use protocol::record::RawBytes;
        let lines = record_game(default_rules(), 12);
        let mut fault = FaultRecord {
            seat: 1,
            deal: None,
            trick: None,
            kind: FaultKind::Malformed,
            detail: "line is not valid UTF-8".into(),
            raw: None,
            raw_b64: None,
            action: "voted for you".into(),
            penalty: Penalty::Fallback,
            strikes: 1,
        };
        let with = |f: &FaultRecord| {
            let mut record = lines.clone();
            record.insert(1, RecordLine::Fault(f.clone()));
            // The footer counts the fault, as the runner's would.
            if let Some(RecordLine::Footer(footer)) = record.last_mut() {
                let stats = &mut footer.stats[usize::from(f.seat)];
                stats.faults += 1;
                stats.strikes = stats.strikes.max(f.strikes);
            }
            replay_str(&text(&record))
        };
        fault.keep_raw(Some(b"{\"type\":\"opening\",\"id\":2,\"signals\":[\"\xff\"]}".to_vec()));
        assert!(fault.raw.is_none() && fault.raw_b64.is_some());
        assert!(with(&fault).is_ok());
        let mut both = fault.clone();
        both.raw = Some("x".into());
        assert!(matches!(with(&both), Err(ReplayError::Corrupt { line: 2, .. })));
        let mut text_as_b64 = fault.clone();
        text_as_b64.raw_b64 = Some(RawBytes(b"plain".to_vec()));
        assert!(matches!(with(&text_as_b64), Err(ReplayError::Corrupt { line: 2, .. })));
    }

    #[test]
    fn footers_are_checked() {
        let mut lines = record_game(default_rules(), 11);
        let n = lines.len();
        let RecordLine::Footer(f) = lines[n - 1].clone() else { unreachable!() };
        // An aborted game stops between two answers, with the engine's score: here after the
        // first card of deal 2.
        let deal_over = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. }));
        let RecordLine::DealOver { score, .. } = lines[deal_over] else { unreachable!() };
        let end = index_of(&lines, deal_over, |l| matches!(l, RecordLine::Play { .. })) + 1;
        let mut aborted = lines[..end].to_vec();
        aborted.push(footer(&aborted, GameStatus::Aborted, score, None, None, 1));
        let replay = replay_str(&text(&aborted)).unwrap();
        assert!(
            replay
                .account
                .ends_with(&format!("Result: aborted at {} after 1 deal\n", score_text(score))),
            "{}",
            replay.account
        );
        // A complete footer before the end of the game.
        let k = aborted.len();
        aborted[k - 1] = footer(&aborted[..k - 1], GameStatus::Complete, score, None, None, 1);
        assert_eq!(diverged_at(replay_str(&text(&aborted))).0, k);
        // A wrong final score.
        let wrong_score = [f.score[0] + 1, f.score[1]];
        lines[n - 1] =
            footer(&lines[..n - 1], GameStatus::Complete, wrong_score, f.winner, None, f.deals);
        assert_eq!(diverged_at(replay_str(&text(&lines))).0, n);
        // Nothing may follow the footer.
        lines[n - 1] = RecordLine::Footer(f);
        let mut after = text(&lines);
        after.push_str(&serde_json::to_string(&lines[1]).unwrap());
        after.push('\n');
        assert!(
            matches!(replay_str(&after), Err(ReplayError::Corrupt { line, .. }) if line == n + 1)
        );
    }

    #[test]
    fn trick_lines_must_follow_their_fourth_card() {
        let mut lines = record_game(default_rules(), 12);
        let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Trick { .. }));
        let trick = lines.remove(at);
        lines.insert(at + 1, trick);
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        assert!(message.contains("the trick line of trick 1 comes first"), "{message}");
        // Cards listed out of play order.
        let mut lines = record_game(default_rules(), 12);
        let RecordLine::Trick { cards, .. } = &mut lines[at] else { unreachable!() };
        cards.swap(0, 1);
        let (line, message) = diverged_at(replay_str(&text(&lines)));
        assert_eq!(line, at + 1);
        assert!(message.contains("says card 1 was"), "{message}");
    }

    /// The account's rules line spells every option as its flag does, from the one table of
    /// option names: `name value`, in the table's order, defaults left out but for the options
    /// that say what game this is.
    #[test]
    fn the_rules_line_names_options_as_their_flags_do() {
        let line = |r: &Rules, draw: bool| rules_text(&convert::rules_wire(r, draw));
        assert_eq!(
            line(&Rules::default(), false),
            "chant on, mordienne on, deals 5, signals partner"
        );
        let leaky = Rules { signals: SignalDelivery::Leaky, ..Rules::default() };
        assert_eq!(
            line(&leaky, false),
            "chant on, mordienne on, deals 5, signals leaky, signal-leak 0.25"
        );
        let every = Rules {
            chant: false,
            chant_second: rules::ChantSecond::Partner,
            discard: rules::DiscardRule::KeepHighest,
            all_spoiled: rules::AllSpoiled::Redeal,
            mordienne: false,
            mordienne_run: 3,
            length: MatchLength::Target(5),
            on_tie: rules::OnTie::ExtraDeals,
            signals: SignalDelivery::Leaky,
            signal_leak_ppm: 125_000,
            signal_truth: rules::SignalTruth::Free,
        };
        assert_eq!(
            line(&every, true),
            "seating draw, chant off, chant-second partner, discard keep-highest, \
             all-spoiled redeal, mordienne off, mordienne-run 3, target 5, on-tie extra-deals, \
             signals leaky, signal-leak 0.125, signal-truth free"
        );
        // Every name the line shows is an option's name.
        let names: Vec<&str> = protocol::RULE_OPTIONS.iter().map(|o| o.name).collect();
        for part in line(&every, true).split(", ").chain(line(&Rules::default(), false).split(", "))
        {
            let name = part.split(' ').next().unwrap();
            assert!(names.contains(&name), "{part}");
        }
    }

    #[test]
    fn think_times_are_compact() {
        assert_eq!(think(0, false), " (0.0ms)");
        assert_eq!(think(449, false), " (0.4ms)");
        assert_eq!(think(12_345, false), " (12ms)");
        assert_eq!(think(1_234_567, false), " (1.23s)");
        assert_eq!(think(5, true), " (auto)");
    }

    #[test]
    fn replay_file_reads_and_reports_io_errors() {
        let dir = std::env::temp_dir().join(format!("replay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.jsonl");
        let lines = record_game(default_rules(), 13);
        std::fs::write(&path, text(&lines)).unwrap();
        assert_eq!(replay_file(&path).unwrap().lines, lines.len());
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(replay_file(&path), Err(ReplayError::Io(_))));
    }
}
