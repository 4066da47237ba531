//! The match as a state machine: it says who acts next, applies or refuses actions, and reports
//! what each seat is told. A deck is always handed in, so the engine never draws randomness.
//!
//! `view.rs` holds what one seat may know: [`SeatView`] and [`Game::view`], the one place the
//! engine decides what a seat is shown. `surrender.rs` holds the rounds before the first lead
//! (surrender and announced mordienne) and the scoring and match length they change.

mod events;
mod surrender;
mod view;

pub use events::{DealResult, Event, Events, MatchResult, TrickResult};
pub use surrender::{Pledge, PledgeKind, Pledges};
pub use view::SeatView;

use crate::card::{Card, CardSet};
use crate::deal::Deck;
use crate::error::IllegalAction;
use crate::options::{AllSpoiled, ChantSecond, MatchLength, OnTie, Rules, SignalDelivery};
use crate::seat::{Seat, Team};
use crate::signal::Signal;
pub use crate::turn::Turn;

/// A player's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Accept (`true`) or refuse the chant.
    Vote(bool),
    /// Discard these 6 cards after receiving chant cards.
    Discard(CardSet),
    /// Play this card to the trick.
    Play(Card),
    /// Offer (`true`) to surrender for the team, or not.
    Offer(bool),
    /// Accept (`true`) or refuse the surrender offered.
    Reply(bool),
    /// Announce (`true`) a mordienne for the team, or not.
    Announce(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    NeedDeck,
    Vote(Seat),
    Discard(Seat),
    Play(Seat),
    Offer(Seat),
    Reply(Seat),
    Announce(Seat),
    Over,
}

/// A whole match: score, dealer, and the deal in progress. Fields are private because the
/// phase and the hands must stay consistent; read them through the accessors and [`Game::view`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    rules: Rules,
    phase: Phase,
    result: Option<MatchResult>,
    score: [u16; 2],
    deals_counted: u16,
    deal_no: u16,
    dealer: Seat,
    hands: [CardSet; 4],
    talon: [Card; 12],
    received: [CardSet; 4],
    discarded: [CardSet; 4],
    votes: [Option<bool>; 4],
    chant_taken: Option<bool>,
    tricks_done: u8,
    leader: Seat,
    table: [Card; 4],
    n_table: u8,
    winners: [Option<Seat>; 9],
    played: CardSet,
    pledges: Pledges,
    /// Under `mordienne=announced`, a mordienne has been announced in this match.
    extended: bool,
    /// Events of the last successful action; only ever reset after validation succeeded, so a
    /// refused action leaves it (like everything else) untouched.
    events: Events,
}

impl Game {
    /// A new match; `first_dealer` deals the first deal.
    pub fn new(rules: Rules, first_dealer: Seat) -> Game {
        Game {
            rules,
            phase: Phase::NeedDeck,
            result: None,
            score: [0; 2],
            deals_counted: 0,
            deal_no: 0,
            dealer: first_dealer,
            hands: [CardSet::EMPTY; 4],
            talon: [Card::MONSIEUR; 12],
            received: [CardSet::EMPTY; 4],
            discarded: [CardSet::EMPTY; 4],
            votes: [None; 4],
            chant_taken: None,
            tricks_done: 0,
            leader: first_dealer.left(),
            table: [Card::MONSIEUR; 4],
            n_table: 0,
            winners: [None; 9],
            played: CardSet::EMPTY,
            pledges: Pledges::default(),
            extended: false,
            events: Events::new(),
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// What the game waits for; `None` once the match is over.
    #[inline]
    pub fn to_act(&self) -> Option<Turn> {
        match self.phase {
            Phase::NeedDeck => Some(Turn::Deal),
            Phase::Vote(s) => Some(Turn::Vote(s)),
            Phase::Discard(s) => Some(Turn::Discard(s)),
            Phase::Play(s) => Some(Turn::Play(s)),
            Phase::Offer(s) => Some(Turn::Offer(s)),
            Phase::Reply(s) => Some(Turn::Reply(s)),
            Phase::Announce(s) => Some(Turn::Announce(s)),
            Phase::Over => None,
        }
    }

    /// The result, once the match is over.
    pub fn outcome(&self) -> Option<MatchResult> {
        self.result
    }

    /// Score per team.
    pub fn score(&self) -> [u16; 2] {
        self.score
    }

    /// The current (or next) dealer.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    /// Sequence number of the current deal (1-based; 0 before the first).
    pub fn deal_number(&self) -> u16 {
        self.deal_no
    }

    /// Deals that counted so far.
    pub fn deals_counted(&self) -> u16 {
        self.deals_counted
    }

    /// A seat's current hand (the referee's view; bots get [`Game::view`]).
    #[inline]
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }

    /// The cards a seat may play now: its hand when it is to play, nothing otherwise.
    #[inline]
    pub fn legal_plays(&self, seat: Seat) -> CardSet {
        match self.phase {
            Phase::Play(s) if s == seat => self.hands[seat.index()],
            _ => CardSet::EMPTY,
        }
    }

    /// Tricks won per seat in the current deal.
    pub fn tricks_won(&self) -> [u8; 4] {
        let mut won = [0; 4];
        for w in self.winners[..self.tricks_done as usize].iter().flatten() {
            won[w.index()] += 1;
        }
        won
    }

    /// The second chant recipient under the rules in force.
    fn second_recipient(&self) -> Seat {
        match self.rules.chant_second {
            ChantSecond::Dealer => self.dealer,
            ChantSecond::Partner => self.dealer.partner(),
        }
    }

    /// Starts the next deal from `deck`, dealt by [`Game::dealer`].
    pub fn deal(&mut self, deck: &Deck) -> Result<&Events, IllegalAction> {
        match self.phase {
            Phase::NeedDeck => {}
            Phase::Over => return Err(IllegalAction::MatchOver),
            _ => return Err(IllegalAction::NotExpected { seat: None, expected: self.to_act() }),
        }
        self.deal_no += 1;
        self.hands = deck.hands(self.dealer);
        self.talon.copy_from_slice(deck.talon());
        self.received = [CardSet::EMPTY; 4];
        self.discarded = [CardSet::EMPTY; 4];
        self.votes = [None; 4];
        self.chant_taken = None;
        self.tricks_done = 0;
        self.leader = self.dealer.left();
        self.n_table = 0;
        self.winners = [None; 9];
        self.played = CardSet::EMPTY;
        self.pledges = Pledges::default();
        self.phase =
            if self.rules.chant { Phase::Vote(self.dealer.left()) } else { self.first_lead() };
        self.events.clear();
        self.events.push(Event::DealStarted { deal: self.deal_no, dealer: self.dealer });
        for i in 1..=4 {
            let seat = self.dealer.plus(i);
            self.events.push(Event::Hand { seat, cards: self.hands[seat.index()] });
        }
        Ok(&self.events)
    }

    /// Applies `seat`'s action, or refuses it and leaves the game exactly as it was.
    #[inline(always)]
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<&Events, IllegalAction> {
        // Playing a held card is nearly every action of a game: that path is small enough to
        // inline into the caller's loop; everything else goes through `apply_other`.
        if let (Phase::Play(s), Action::Play(card)) = (self.phase, action)
            && s == seat
            && self.hands[seat.index()].contains(card)
        {
            self.events.only(Event::Played { seat, card });
            self.play(seat, card);
            return Ok(&self.events);
        }
        self.apply_other(seat, action)
    }

    #[inline(never)]
    fn apply_other(&mut self, seat: Seat, action: Action) -> Result<&Events, IllegalAction> {
        match (self.phase, action) {
            (Phase::Play(s), Action::Play(card)) if s == seat => {
                return Err(IllegalAction::CardNotHeld(card));
            }
            (Phase::Vote(s), Action::Vote(accept)) if s == seat => {
                self.events.clear();
                self.vote(seat, accept);
            }
            (Phase::Discard(s), Action::Discard(cards)) if s == seat => {
                self.check_discard(seat, cards)?;
                self.events.clear();
                self.discard(seat, cards);
            }
            (Phase::Offer(s), Action::Offer(offer)) if s == seat => {
                self.events.clear();
                self.offer(seat, offer);
            }
            (Phase::Reply(s), Action::Reply(accept)) if s == seat => {
                self.events.clear();
                self.reply(seat, accept);
            }
            (Phase::Announce(s), Action::Announce(announce)) if s == seat => {
                self.events.clear();
                self.announce(seat, announce);
            }
            (Phase::Over, _) => return Err(IllegalAction::MatchOver),
            _ => {
                return Err(IllegalAction::NotExpected {
                    seat: Some(seat),
                    expected: self.to_act(),
                });
            }
        }
        Ok(&self.events)
    }

    fn vote(&mut self, seat: Seat, accept: bool) {
        self.votes[seat.index()] = Some(accept);
        self.events.push(Event::Voted { seat, accept });
        if !accept {
            self.chant_taken = Some(false);
            self.events.push(Event::ChantDecided { taken: false });
            self.phase = self.first_lead();
        } else if seat == self.dealer {
            self.chant_taken = Some(true);
            self.events.push(Event::ChantDecided { taken: true });
            let first = self.dealer.left();
            let second = self.second_recipient();
            for (i, &card) in self.talon.iter().enumerate() {
                let to = if i % 2 == 0 { first } else { second };
                self.received[to.index()] = self.received[to.index()].with(card);
            }
            for to in [first, second] {
                self.hands[to.index()] = self.hands[to.index()].union(self.received[to.index()]);
                self.events.push(Event::Received { seat: to, cards: self.received[to.index()] });
            }
            self.phase = Phase::Discard(first);
        } else {
            self.phase = Phase::Vote(seat.left());
        }
    }

    /// Checks a discard against the hand and the discard rule without changing anything
    /// ([`crate::check_discard`], once the seat is the one to discard).
    pub fn check_discard(&self, seat: Seat, cards: CardSet) -> Result<(), IllegalAction> {
        if !matches!(self.phase, Phase::Discard(s) if s == seat) {
            return Err(IllegalAction::NotExpected { seat: Some(seat), expected: self.to_act() });
        }
        crate::check::check_discard(self.hands[seat.index()], cards, self.rules.discard)
    }

    fn discard(&mut self, seat: Seat, cards: CardSet) {
        self.hands[seat.index()] = self.hands[seat.index()].difference(cards);
        self.discarded[seat.index()] = cards;
        self.events.push(Event::Discarded { seat, cards });
        self.phase = if seat == self.dealer.left() {
            Phase::Discard(self.second_recipient())
        } else {
            self.first_lead()
        };
    }

    #[inline(always)]
    fn play(&mut self, seat: Seat, card: Card) {
        self.hands[seat.index()] = self.hands[seat.index()].without(card);
        self.played = self.played.with(card);
        // `n_table` is below 4 here; the mask lets the compiler drop the bounds check.
        self.table[(self.n_table & 3) as usize] = card;
        self.n_table += 1;
        if self.n_table < 4 {
            self.phase = Phase::Play(seat.left());
            return;
        }
        self.end_trick();
    }

    /// The fourth card's work, out of line so that the three plays before it stay small enough
    /// to inline into the caller's loop.
    #[inline(never)]
    fn end_trick(&mut self) {
        let trick = self.finish_trick();
        self.events.push(Event::TrickOver(trick));
        if self.tricks_done < 9 {
            self.phase = Phase::Play(trick.next_leader);
            return;
        }
        self.end_deal();
    }

    fn finish_trick(&mut self) -> TrickResult {
        let winner = crate::check::trick_winner(&self.table).map(|i| self.leader.plus(i as u8));
        let number = self.tricks_done + 1;
        self.winners[self.tricks_done as usize] = winner;
        self.tricks_done += 1;
        self.n_table = 0;
        let trick = TrickResult {
            number,
            leader: self.leader,
            cards: self.table,
            winner,
            next_leader: winner.unwrap_or(self.leader),
        };
        self.leader = trick.next_leader;
        trick
    }

    #[cold]
    #[inline(never)]
    fn end_deal(&mut self) {
        let (deal, over) = self.finish_deal();
        self.events.push(Event::DealOver(deal));
        if let Some(result) = over {
            self.events.push(Event::MatchOver(result));
        }
    }

    fn finish_deal(&mut self) -> (DealResult, Option<MatchResult>) {
        let score = self.deal_score();
        let counted = !(score.team.is_none() && self.rules.all_spoiled == AllSpoiled::Redeal);
        if counted {
            if let Some(t) = score.team {
                self.score[t.index()] += u16::from(score.points);
            }
            self.deals_counted += 1;
            self.dealer = self.dealer.left();
        }
        let pledge = self.pledges.outcome();
        let deal =
            DealResult { deal: self.deal_no, score, counted, match_score: self.score, pledge };
        let [a, b] = self.score;
        let reached_end = match self.match_length() {
            MatchLength::Deals(n) => self.deals_counted >= n,
            MatchLength::Target(t) => a.max(b) >= t,
        };
        let over = counted && reached_end && (a != b || self.rules.on_tie == OnTie::Draw);
        if over {
            let winner = match a.cmp(&b) {
                core::cmp::Ordering::Greater => Team::new(0),
                core::cmp::Ordering::Less => Team::new(1),
                core::cmp::Ordering::Equal => None,
            };
            let result = MatchResult { score: self.score, winner, deals: self.deals_counted };
            self.phase = Phase::Over;
            self.result = Some(result);
            (deal, Some(result))
        } else {
            self.phase = Phase::NeedDeck;
            (deal, None)
        }
    }

    /// Checks a signal from `seat` now, without changing anything ([`crate::check_signal`],
    /// once a deal is in progress).
    pub fn check_signal(&self, seat: Seat, signal: Signal) -> Result<(), IllegalAction> {
        if self.rules.signals == SignalDelivery::Off {
            return Err(IllegalAction::SignalsOff);
        }
        if matches!(self.phase, Phase::NeedDeck | Phase::Over) {
            return Err(IllegalAction::NoDealInProgress);
        }
        crate::check::check_signal(signal, self.hands[seat.index()], &self.rules)
    }

    /// Makes a signal. `opponent_sees` is the coin flip for each opponent (the seat to the
    /// sender's left, then to its right), used only when delivery is leaky.
    pub fn signal(
        &mut self,
        seat: Seat,
        signal: Signal,
        opponent_sees: [bool; 2],
    ) -> Result<Event, IllegalAction> {
        self.check_signal(seat, signal)?;
        let mut seen_by = [false; 4];
        seen_by[seat.index()] = true;
        seen_by[seat.partner().index()] = true;
        let (left, right) = (seat.left(), seat.plus(3));
        match self.rules.signals {
            SignalDelivery::Public => {
                seen_by[left.index()] = true;
                seen_by[right.index()] = true;
            }
            SignalDelivery::Leaky => {
                seen_by[left.index()] = opponent_sees[0];
                seen_by[right.index()] = opponent_sees[1];
            }
            SignalDelivery::Partner | SignalDelivery::Off => {}
        }
        Ok(Event::Signalled { from: seat, signal, seen_by })
    }
}
