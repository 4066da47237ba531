//! One seeded match on the engine, as Python drives it: decks dealt from the seed exactly as the
//! referee deals them (spec/records.md section 4), leaky signals' coin flips from the same
//! stream, each seat's played cards and seen signals kept from the events it is told, and the
//! environment's sub-steps (discard picks, signals) on top of the engine's actions.

use crate::legal;
use crate::seen::{Asked, Seen};
use crate::space::{self, DISCARD, Kind, N_ACTIONS, NO, PLAY, SIGNAL, YES};
use rules::{Action, Card, CardSet, Deck, Event, Game, Rules, Seat, SignalDelivery, SplitMix64};
use rules::{Signal, Turn, derive_seed};

/// The tag of the leaky signals' stream (`SIGN` in ASCII), as the referee derives it.
const LEAK_TAG: u64 = 0x5349_474E;

/// A match, its seed and what each seat has been shown.
#[derive(Clone, Debug)]
pub struct Table {
    game: Game,
    seed: u64,
    leak: SplitMix64,
    asked: Option<Asked>,
    played_by: [CardSet; 4],
    /// Signals seen in this deal: `[viewer][sender][signal]`.
    signals: [[[u8; space::N_SIGNALS]; 4]; 4],
    /// Every event of the last action, the deal that followed it included.
    events: Vec<Event>,
    /// Deal points won by each seat's team in the last action (lost by the other team's seats).
    rewards: [f32; 4],
}

impl Table {
    /// A match under `rules` with game seed `seed`, `first_dealer` dealing first; the first deal
    /// is dealt at once.
    pub fn new(rules: Rules, seed: u64, first_dealer: Seat) -> Table {
        let mut t = Table {
            game: Game::new(rules, first_dealer),
            seed,
            leak: SplitMix64::new(derive_seed(&[seed, LEAK_TAG])),
            asked: None,
            played_by: [CardSet::EMPTY; 4],
            signals: [[[0; space::N_SIGNALS]; 4]; 4],
            events: Vec::new(),
            rewards: [0.0; 4],
        };
        t.settle();
        t
    }

    /// The engine's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The events of the last action (and of the deal it led to).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The rewards of the last action, per seat.
    pub fn rewards(&self) -> [f32; 4] {
        self.rewards
    }

    /// The seat asked to act and what it is asked; `None` once the match is over.
    pub fn to_act(&self) -> Option<(Seat, Kind)> {
        let kind = |t| match t {
            Turn::Vote(s) => Some((s, Kind::Vote)),
            Turn::Discard(s) => Some((s, Kind::Discard)),
            Turn::Play(s) => Some((s, Kind::Play)),
            Turn::Offer(s) => Some((s, Kind::Offer)),
            Turn::Reply(s) => Some((s, Kind::Reply)),
            Turn::Announce(s) => Some((s, Kind::Announce)),
            Turn::Deal => None,
        };
        self.game.to_act().and_then(kind)
    }

    /// The decision in progress, with its sub-steps.
    pub fn asked(&self) -> Option<&Asked> {
        self.asked.as_ref()
    }

    /// Deals while the engine waits for a deck, and opens the next decision.
    fn settle(&mut self) {
        while self.game.to_act() == Some(Turn::Deal) {
            let deck =
                Deck::shuffled(derive_seed(&[self.seed, u64::from(self.game.deal_number()) + 1]));
            if let Ok(events) = self.game.deal(&deck) {
                self.events.extend(events.iter().copied());
            }
            self.played_by = [CardSet::EMPTY; 4];
            self.signals = [[[0; space::N_SIGNALS]; 4]; 4];
        }
        self.asked = self.to_act().map(|(_, kind)| Asked::new(kind));
    }

    /// What `seat` has been shown.
    pub fn seen(&self, seat: Seat) -> Seen {
        Seen {
            view: self.game.view(seat),
            played_by: self.played_by,
            signals: self.signals[seat.index()],
        }
    }

    /// The decision `seat` is in, if it is the one asked.
    fn asked_of(&self, seat: Seat) -> Option<&Asked> {
        match self.to_act() {
            Some((s, _)) if s == seat => self.asked.as_ref(),
            _ => None,
        }
    }

    /// Writes `seat`'s observation into `out` ([`space::obs_len`] values).
    pub fn observe(&self, seat: Seat, out: &mut [f32]) {
        crate::seen::encode(&self.seen(seat), self.asked_of(seat), self.game.rules(), out);
    }

    /// Writes `seat`'s action mask into `out` ([`N_ACTIONS`] bytes): all zero when it is not
    /// asked anything.
    pub fn mask(&self, seat: Seat, out: &mut [u8]) {
        match self.asked_of(seat) {
            Some(asked) => {
                let plays = self.game.legal_plays(seat);
                legal::mask(asked, plays, self.game.hand(seat), self.game.rules(), out);
            }
            None => out.fill(0),
        }
    }

    /// Applies the engine action of `seat`, or refuses it and changes nothing.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<(), String> {
        let events = self.game.apply(seat, action).map_err(|e| e.to_string())?;
        self.events.clear();
        self.events.extend(events.iter().copied());
        self.rewards = [0.0; 4];
        for e in events.iter() {
            match *e {
                Event::Played { seat, card } => {
                    self.played_by[seat.index()] = self.played_by[seat.index()].with(card);
                }
                Event::DealOver(d) => {
                    if let Some(team) = d.score.team {
                        for s in Seat::ALL {
                            let p = f32::from(d.score.points);
                            self.rewards[s.index()] += if s.team() == team { p } else { -p };
                        }
                    }
                }
                _ => {}
            }
        }
        self.settle();
        Ok(())
    }

    /// `seat` sends `signal` now, delivered as the rules say (leaky coin flips from the seed).
    pub fn signal(&mut self, seat: Seat, signal: Signal) -> Result<Event, String> {
        self.game.check_signal(seat, signal).map_err(|e| e.to_string())?;
        let flips = if self.game.rules().signals == SignalDelivery::Leaky {
            let threshold = (u128::from(self.game.rules().signal_leak_ppm) << 64) / 1_000_000;
            let mut flip = || u128::from(self.leak.next_u64()) < threshold;
            [flip(), flip()]
        } else {
            [false, false]
        };
        let event = self.game.signal(seat, signal, flips).map_err(|e| e.to_string())?;
        if let (Event::Signalled { from, seen_by, .. }, Some(i)) =
            (event, space::signal_index(signal))
        {
            for viewer in Seat::ALL.into_iter().filter(|v| seen_by[v.index()]) {
                let n = &mut self.signals[viewer.index()][from.index()][i];
                *n = n.saturating_add(1);
            }
        }
        self.events.clear();
        self.events.push(event);
        self.rewards = [0.0; 4];
        Ok(event)
    }

    /// One step of the environment: action `a` of the space for the seat asked. An action the
    /// mask refuses is refused here too, and changes nothing.
    pub fn step(&mut self, a: usize) -> Result<(), String> {
        let (seat, kind) = self.to_act().ok_or("the match is over")?;
        let mut mask = [0u8; N_ACTIONS];
        self.mask(seat, &mut mask);
        if mask.get(a) != Some(&1) {
            return Err(format!(
                "action {a} is not legal now (seat {seat} is asked to {})",
                kind.word()
            ));
        }
        let card = |i: usize| Card::from_index(i as u8).ok_or("no such card");
        match a {
            _ if a >= SIGNAL => {
                let i = a - SIGNAL;
                let signal = space::signal(i).ok_or("no such signal")?;
                self.signal(seat, signal)?;
                if let Some(asked) = self.asked.as_mut() {
                    asked.sent[i] = true;
                    asked.n_sent += 1;
                }
                Ok(())
            }
            NO | YES => {
                let yes = a == YES;
                let action = match kind {
                    Kind::Vote => Action::Vote(yes),
                    Kind::Offer => Action::Offer(yes),
                    Kind::Reply => Action::Reply(yes),
                    Kind::Announce => Action::Announce(yes),
                    Kind::Discard | Kind::Play => return Err("not a yes-or-no decision".into()),
                };
                self.apply(seat, action)
            }
            _ if a >= DISCARD => {
                let c = card(a - DISCARD)?;
                let picked = self.asked.map_or(CardSet::EMPTY, |x| x.picked).with(c);
                if picked.len() == 6 {
                    return self.apply(seat, Action::Discard(picked));
                }
                if let Some(asked) = self.asked.as_mut() {
                    asked.picked = picked;
                }
                self.events.clear();
                self.rewards = [0.0; 4];
                Ok(())
            }
            _ => self.apply(seat, Action::Play(card(a - PLAY)?)),
        }
    }
}
