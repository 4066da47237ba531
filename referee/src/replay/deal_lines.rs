//! The lines of a deal re-applied through the rules: the deal and its hands, the opening
//! answers and the chant, the cards received and discarded, each play and signal, and the
//! trick and deal results the record states, each checked against the engine's.

use super::account::{
    Section, cards_text, codes_text, plural, score_text, seats_text, tricks_text, winner_text,
};
use super::read::{ReplayError, corrupt, differs, refused};
use super::{Replayer, is_stated};
use protocol::CardCode;
use protocol::msg::SeatNo;
use protocol::record::RecordLine;
use rules::{Action, DealResult, Deck, Event, Seat, Signal, TrickResult, Turn};

impl Replayer {
    pub(super) fn deal(
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

    pub(super) fn vote(
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

    pub(super) fn opening(
        &mut self,
        seat: SeatNo,
        time: String,
        line: usize,
    ) -> Result<(), ReplayError> {
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

    pub(super) fn chant(&mut self, taken: bool, line: usize) -> Result<(), ReplayError> {
        let what = "chant line";
        let rules = self.owed_next(line, what, "no vote decided the chant", |e| match *e {
            Event::ChantDecided { taken } => Some(taken),
            _ => None,
        })?;
        if taken != rules {
            return Err(differs(line, what, "taken", taken, rules));
        }
        self.owed.pop_front();
        self.account.enter(Section::Opening, "  votes: ");
        self.account.mark(if taken { "-> chant taken" } else { "-> no chant" });
        Ok(())
    }

    pub(super) fn receive(
        &mut self,
        seat: SeatNo,
        cards: &[CardCode],
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("receive line of seat {seat}");
        let (s, received) =
            self.owed_next(line, &what, "nobody receives cards now", |e| match *e {
                Event::Received { seat, cards } => Some((seat, cards)),
                _ => None,
            })?;
        if convert::seat(seat) != Some(s) {
            return Err(differs(line, &what, "recipient seat", seat, s));
        }
        let (set, n) = convert::set(cards);
        if set != received || n != received.len() {
            return Err(differs(line, &what, "cards", codes_text(cards), cards_text(received)));
        }
        self.owed.pop_front();
        self.account.line(format_args!("  {seat} receives {}", cards_text(received)));
        Ok(())
    }

    pub(super) fn discard(
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

    pub(super) fn play(
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

    pub(super) fn signal(
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
                Some(Turn::Offer(_) | Turn::Reply(_) | Turn::Announce(_)) => Section::Pledges,
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
            Section::Pledges => "  before the lead: ".to_string(),
            Section::Trick(t) => format!("  trick {t}: "),
        };
        self.account.enter(section, &start);
        self.account.signals.push(format!("{s} -> {signal} (seen by {})", seats_text(rules)));
        Ok(())
    }

    pub(super) fn trick(
        &mut self,
        number: u8,
        leader: SeatNo,
        cards: &[protocol::msg::TableCard],
        winner: Option<SeatNo>,
        line: usize,
    ) -> Result<(), ReplayError> {
        let what = format!("trick {number}");
        let t: TrickResult = self.owed_next(line, &what, "no trick is over", |e| match *e {
            Event::TrickOver(t) => Some(t),
            _ => None,
        })?;
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

    pub(super) fn deal_over(
        &mut self,
        stated: &RecordLine,
        line: usize,
    ) -> Result<(), ReplayError> {
        let &RecordLine::DealOver {
            deal,
            tricks,
            winner,
            points,
            mordienne,
            counted,
            score,
            pledge,
        } = stated
        else {
            return Err(corrupt(line, "not a deal_over line"));
        };
        let what = format!("deal_over of deal {deal}");
        let d: DealResult = self.owed_next(line, &what, "no deal is over", |e| match *e {
            Event::DealOver(d) => Some(d),
            _ => None,
        })?;
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
        if pledge != convert::pledge(&d) {
            let text = |p: Option<protocol::msg::Pledge>| {
                p.map_or("none".into(), |p| {
                    format!("{} by seat {}, to team {}", p.kind, p.seat, p.team)
                })
            };
            return Err(differs(line, &what, "pledge", text(pledge), text(convert::pledge(&d))));
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
        if let Some(p) = d.pledge {
            self.account.line(super::pledge_lines::pledge_text(&d, p, &score));
            return Ok(());
        }
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
}
