//! The bot bridge's seat: the referee's lines in (decoded by `protocol`, converted by
//! `convert`), the seat's [`Seen`] kept from them, and each question turned into the same
//! decision, observation and action mask a policy meets in the environment; the policy's actions
//! become the answer line. `aluette/bot.py` only moves the bytes.

use crate::legal;
use crate::py_game::f32_bytes;
use crate::seen::{Asked, Seen, encode};
use crate::space::{self, DISCARD, Kind, N_ACTIONS, NO, PLAY, SIGNAL, YES};
use protocol::{FromBot, ToBot};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rules::{Card, CardSet, Rules, Seat, Turn};

/// The question being answered.
#[derive(Clone, Copy, Debug)]
struct Open {
    id: u64,
    asked: Asked,
}

/// One seat of a real match, as the bridge plays it.
#[derive(Debug)]
#[pyclass(name = "SeatBot", module = "aluette._core")]
pub struct SeatBot {
    name: String,
    token: Option<String>,
    rules: Rules,
    seen: Option<Seen>,
    open: Option<Open>,
    signals: Vec<String>,
}

fn seat_of(no: protocol::msg::SeatNo) -> PyResult<Seat> {
    convert::seat(no).ok_or_else(|| PyValueError::new_err("the referee named no seat"))
}

fn set_of(codes: &[protocol::CardCode]) -> CardSet {
    convert::set(codes).0
}

fn line(answer: &FromBot) -> Vec<u8> {
    protocol::encode_line(answer).into_bytes()
}

impl SeatBot {
    fn seen_mut(&mut self) -> PyResult<&mut Seen> {
        self.seen
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("a deal message came before the game"))
    }

    fn ask(&mut self, id: u64, kind: Kind, hand: CardSet) -> PyResult<()> {
        let view = &mut self.seen_mut()?.view;
        view.hand = hand;
        view.to_act = Some(turn(kind, view.seat));
        self.open = Some(Open { id, asked: Asked::new(kind) });
        self.signals.clear();
        Ok(())
    }

    /// Folds one referee message in; returns the answer line when one is due without asking
    /// the policy.
    fn fold(&mut self, msg: ToBot) -> PyResult<Option<Vec<u8>>> {
        match msg {
            ToBot::Hello { id, features, .. } => {
                let take = features
                    .iter()
                    .filter(|f| f.as_str() == protocol::SURRENDER)
                    .cloned()
                    .collect();
                let hello = FromBot::Hello {
                    id,
                    name: self.name.clone(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    author: None,
                    protocol: Some(protocol::PROTOCOL_VERSION),
                    token: self.token.clone(),
                    features: take,
                };
                return Ok(Some(line(&hello)));
            }
            ToBot::Game { seat, rules, .. } => {
                self.rules = convert::rules_from_wire(&rules).map_err(PyValueError::new_err)?.0;
                let seat = seat_of(seat)?;
                self.seen = Some(Seen::new(seat));
            }
            ToBot::Deal { deal, dealer, hand } => {
                let dealer = seat_of(dealer)?;
                let s = self.seen_mut()?;
                let (seat, score) = (s.view.seat, s.view.score);
                *s = Seen::new(seat);
                let v = &mut s.view;
                (v.dealer, v.deal, v.hand, v.leader, v.score) =
                    (dealer, deal, set_of(&hand), dealer.left(), score);
            }
            ToBot::Opening { id, vote, hand, .. } => {
                if !vote {
                    let answer = FromBot::Opening { id, accept: None, signals: Vec::new() };
                    return Ok(Some(line(&answer)));
                }
                self.ask(id, Kind::Vote, set_of(&hand))?;
            }
            ToBot::Vote { seat, accept } => {
                let seat = seat_of(seat)?;
                self.seen_mut()?.view.votes[seat.index()] = Some(accept);
            }
            ToBot::Chant { taken } => self.seen_mut()?.view.chant_taken = Some(taken),
            ToBot::Discard { id, hand, received, .. } => {
                self.ask(id, Kind::Discard, set_of(&hand))?;
                self.seen_mut()?.view.received = set_of(&received);
            }
            ToBot::Offer { id, hand, score, .. } => {
                self.ask(id, Kind::Offer, set_of(&hand))?;
                self.seen_mut()?.view.score = score;
            }
            ToBot::Reply { id, hand, score, .. } => {
                self.ask(id, Kind::Reply, set_of(&hand))?;
                self.seen_mut()?.view.score = score;
            }
            ToBot::Announce { id, hand, score, .. } => {
                self.ask(id, Kind::Announce, set_of(&hand))?;
                self.seen_mut()?.view.score = score;
            }
            ToBot::Offered { seat, offer } => {
                let seat = seat_of(seat)?;
                self.seen_mut()?.view.pledges.offers[seat.index()] = Some(offer);
            }
            ToBot::Replied { seat, accept } => {
                let seat = seat_of(seat)?;
                self.seen_mut()?.view.pledges.replies[seat.index()] = Some(accept);
            }
            ToBot::Announced { seat, announce } => {
                let seat = seat_of(seat)?;
                self.seen_mut()?.view.pledges.announces[seat.index()] = Some(announce);
            }
            ToBot::Play { id, hand, leader, score, trick, .. } => {
                self.ask(id, Kind::Play, set_of(&hand))?;
                let leader = seat_of(leader)?;
                let v = &mut self.seen_mut()?.view;
                (v.leader, v.score, v.trick) = (leader, score, trick);
                v.tricks_done = trick.saturating_sub(1);
            }
            ToBot::Played { seat, card, .. } => {
                let (seat, card) = (seat_of(seat)?, convert::card(card));
                let s = self.seen_mut()?;
                s.played_by[seat.index()] = s.played_by[seat.index()].with(card);
                s.view.lay(seat, card);
                s.view.to_act = Some(Turn::Play(seat.left()));
            }
            ToBot::Trick { trick, winner, next, .. } => {
                let winner = winner.map(seat_of).transpose()?;
                let next = seat_of(next)?;
                let v = &mut self.seen_mut()?.view;
                if let Some(slot) = v.trick_winners.get_mut(usize::from(trick).wrapping_sub(1)) {
                    *slot = winner;
                }
                (v.tricks_done, v.trick, v.leader) = (trick, (trick + 1).min(9), next);
                v.clear_table();
            }
            ToBot::DealOver { score, .. } => self.seen_mut()?.view.score = score,
            ToBot::Signal { from, signal } => {
                let from = seat_of(from)?;
                let index = signal.parse::<rules::Signal>().ok().and_then(space::signal_index);
                if let Some(i) = index {
                    let n = &mut self.seen_mut()?.signals[from.index()][i];
                    *n = n.saturating_add(1);
                }
            }
            _ => {}
        }
        Ok(None)
    }
}

/// What `feed` hands back: what to do, and the answer line when the bridge wrote one.
type Fed<'py> = (&'static str, Option<Bound<'py, PyBytes>>);

/// The turn a question of `kind` to `seat` is.
fn turn(kind: Kind, seat: Seat) -> Turn {
    match kind {
        Kind::Vote => Turn::Vote(seat),
        Kind::Discard => Turn::Discard(seat),
        Kind::Play => Turn::Play(seat),
        Kind::Offer => Turn::Offer(seat),
        Kind::Reply => Turn::Reply(seat),
        Kind::Announce => Turn::Announce(seat),
    }
}

#[pymethods]
impl SeatBot {
    #[new]
    #[pyo3(signature = (name="py-policy", token=None))]
    fn new(name: &str, token: Option<String>) -> SeatBot {
        SeatBot {
            name: name.to_string(),
            token,
            rules: Rules::default(),
            seen: None,
            open: None,
            signals: Vec::new(),
        }
    }

    /// Folds in one line from the referee. Returns `("answer", line)` when the bridge answers
    /// by itself, `("ask", None)` when the policy must act (see `observe`, `action_mask`,
    /// `act`), `("bye", None)` at the end, and `None` for a notice.
    fn feed<'py>(&mut self, py: Python<'py>, raw: &[u8]) -> PyResult<Option<Fed<'py>>> {
        let msg: ToBot =
            protocol::decode_line(raw).map_err(|e| PyValueError::new_err(e.to_string()))?;
        if matches!(msg, ToBot::Bye { .. }) {
            return Ok(Some(("bye", None)));
        }
        Ok(match self.fold(msg)? {
            Some(answer) => Some(("answer", Some(PyBytes::new(py, &answer)))),
            None if self.open.is_some() => Some(("ask", None)),
            None => None,
        })
    }

    /// What the open question asks: `"play"`, `"discard"`, `"vote"`, ...
    #[getter]
    fn asked(&self) -> Option<&'static str> {
        self.open.map(|o| o.asked.kind.word())
    }

    /// The seat's observation now, laid out as in the environment.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let seen = self.seen.as_ref().ok_or_else(|| PyValueError::new_err("no game yet"))?;
        let mut out = vec![0f32; space::obs_len()];
        encode(seen, self.open.as_ref().map(|o| &o.asked), &self.rules, &mut out);
        f32_bytes(py, &out)
    }

    /// The action mask of the open question (all zero when none is open).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = [0u8; N_ACTIONS];
        if let (Some(o), Some(s)) = (self.open, self.seen) {
            legal::mask(&o.asked, s.view.hand, s.view.hand, &self.rules, &mut out);
        }
        PyBytes::new(py, &out)
    }

    /// The policy's action `a` for the open question: a sub-step (a signal, a discard pick but
    /// the sixth) returns `None` and the question stays open; the action that completes the
    /// answer returns its line. An action the mask refuses raises `ValueError`.
    fn act<'py>(&mut self, py: Python<'py>, a: usize) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let (Some(mut open), Some(mut seen)) = (self.open, self.seen) else {
            return Err(PyValueError::new_err("no question is open"));
        };
        let mut mask = [0u8; N_ACTIONS];
        legal::mask(&open.asked, seen.view.hand, seen.view.hand, &self.rules, &mut mask);
        if mask.get(a) != Some(&1) {
            return Err(PyValueError::new_err(format!(
                "action {a} is not legal for this {}",
                open.asked.kind.word()
            )));
        }
        let card = |i: usize| {
            Card::from_index(i as u8)
                .map(convert::code)
                .ok_or_else(|| PyValueError::new_err("no card"))
        };
        let signals = std::mem::take(&mut self.signals);
        let id = open.id;
        let answer = match a {
            _ if a >= SIGNAL => {
                let i = a - SIGNAL;
                let signal = space::signal(i).ok_or_else(|| PyValueError::new_err("no signal"))?;
                open.asked.sent[i] = true;
                open.asked.n_sent += 1;
                // The sender is told its own signal in the environment too.
                seen.signals[seen.view.seat.index()][i] += 1;
                self.signals = signals;
                self.signals.push(signal.to_string());
                (self.open, self.seen) = (Some(open), Some(seen));
                return Ok(None);
            }
            NO | YES => {
                let yes = a == YES;
                match open.asked.kind {
                    Kind::Vote => FromBot::Opening { id, accept: Some(yes), signals },
                    Kind::Offer => FromBot::Offer { id, offer: yes, signals },
                    Kind::Reply => FromBot::Reply { id, accept: yes, signals },
                    _ => FromBot::Announce { id, announce: yes, signals },
                }
            }
            _ if a >= DISCARD => {
                let c = Card::from_index((a - DISCARD) as u8)
                    .ok_or_else(|| PyValueError::new_err("no card"))?;
                open.asked.picked = open.asked.picked.with(c);
                if open.asked.picked.len() < 6 {
                    self.signals = signals;
                    self.open = Some(open);
                    return Ok(None);
                }
                seen.view.discarded = open.asked.picked;
                seen.view.hand = seen.view.hand.difference(open.asked.picked);
                FromBot::Discard { id, cards: convert::codes(open.asked.picked), signals }
            }
            _ => FromBot::Play { id, card: card(a - PLAY)?, signals },
        };
        seen.view.to_act = None;
        (self.open, self.seen) = (None, Some(seen));
        Ok(Some(PyBytes::new(py, &line(&answer))))
    }
}
