//! `aluette.Game`: the engine itself for Python, on a [`Table`] (so decks come from the seed as
//! the referee deals them), with the environment's flat observation and action mask beside the
//! plain-value API.

use crate::py_types::{self, card, codes, event_dict, seat, turn_tuple, view_dict};
use crate::space::{self, N_ACTIONS};
use crate::table::Table;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use rules::{Action, CardSet, Turn};

pyo3::create_exception!(
    _core,
    IllegalAction,
    PyValueError,
    "An action the rules refuse; the game it was offered to is unchanged."
);

/// A whole match on the rules engine, dealt from `seed`.
#[pyclass(name = "Game", module = "aluette._core", skip_from_py_object)]
#[derive(Clone, Debug)]
pub struct PyGame {
    pub(crate) table: Table,
}

impl PyGame {
    fn action_of(&self, action: &Bound<'_, PyAny>) -> PyResult<Action> {
        let tuple = action.cast::<PyTuple>().map_err(|_| {
            PyValueError::new_err(
                "an action is a tuple such as (\"play\", \"3o\") or (\"vote\", True)",
            )
        })?;
        if tuple.len() != 2 {
            return Err(PyValueError::new_err("an action is a pair (kind, value)"));
        }
        let kind: String = tuple.get_item(0)?.extract()?;
        let value = tuple.get_item(1)?;
        Ok(match kind.as_str() {
            "play" => Action::Play(card(&value.extract::<String>()?)?),
            "discard" => {
                let cards: Vec<String> = value.extract()?;
                let mut set = CardSet::EMPTY;
                for c in &cards {
                    set = set.with(card(c)?);
                }
                if set.len() != cards.len() {
                    return Err(IllegalAction::new_err("a discard names 6 distinct cards"));
                }
                Action::Discard(set)
            }
            "vote" => Action::Vote(value.extract()?),
            "offer" => Action::Offer(value.extract()?),
            "reply" => Action::Reply(value.extract()?),
            "announce" => Action::Announce(value.extract()?),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown action kind {kind:?} (play, discard, vote, offer, reply, announce)"
                )));
            }
        })
    }

    fn events_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for e in self.table.events() {
            list.append(event_dict(py, e)?)?;
        }
        Ok(list)
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (seed=0, first_dealer=0, **rules))]
    fn new(seed: u64, first_dealer: i64, rules: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
        let rules = py_types::rules_from(rules)?;
        Ok(PyGame { table: Table::new(rules, seed, seat(first_dealer)?) })
    }

    /// The game seed: deal `d` is the deck of seed `derive_seed([seed, d])`.
    #[getter]
    fn seed(&self) -> u64 {
        self.table.seed()
    }

    /// The rules in force, as the wire's `rules` object.
    #[getter]
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_types::rules_dict(py, self.table.game().rules())
    }

    /// What the game waits for, `("play", 2)`; `None` once the match is over.
    #[getter]
    fn to_act(&self) -> Option<(&'static str, usize)> {
        self.table.game().to_act().and_then(turn_tuple)
    }

    /// The match score per team.
    #[getter]
    fn score(&self) -> Vec<u16> {
        self.table.game().score().to_vec()
    }

    /// The deal in progress, 1-based.
    #[getter]
    fn deal_number(&self) -> u16 {
        self.table.game().deal_number()
    }

    /// True once the match is over.
    #[getter]
    fn over(&self) -> bool {
        self.table.game().to_act().is_none()
    }

    /// The result once the match is over: `{"score", "winner" (team or None), "deals"}`.
    #[getter]
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.table.game().outcome().map(|m| event_dict(py, &rules::Event::MatchOver(m))).transpose()
    }

    /// The events of the last action (and of the deal it led to), each with `visible_to`.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.events_list(py)
    }

    /// A seat's cards (the referee's view; a seat's own knowledge is `view`).
    fn hand(&self, seat_no: i64) -> PyResult<Vec<String>> {
        Ok(codes(self.table.game().hand(seat(seat_no)?)))
    }

    /// Exactly what `seat` may know now.
    fn view<'py>(&self, py: Python<'py>, seat_no: i64) -> PyResult<Bound<'py, PyDict>> {
        view_dict(py, &self.table.game().view(seat(seat_no)?))
    }

    /// Every legal action of the seat to act, as `apply` takes them.
    fn legal_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let game = self.table.game();
        let list = PyList::empty(py);
        match game.to_act() {
            Some(Turn::Play(s)) => {
                for c in game.legal_plays(s).iter() {
                    list.append(("play", c.to_string()))?;
                }
            }
            Some(Turn::Discard(s)) => {
                let hand: Vec<_> = game.hand(s).iter().collect();
                for mask in 0u32..(1 << hand.len()) {
                    if mask.count_ones() != 6 {
                        continue;
                    }
                    let set: CardSet = hand
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask >> i & 1 == 1)
                        .map(|(_, c)| *c)
                        .collect();
                    if game.check_discard(s, set).is_ok() {
                        list.append(("discard", codes(set)))?;
                    }
                }
            }
            Some(t) => {
                if let Some((kind, _)) = turn_tuple(t) {
                    list.append((kind, false))?;
                    list.append((kind, true))?;
                }
            }
            None => {}
        }
        Ok(list)
    }

    /// Applies an action of the seat to act (`seat` checks whose it is); returns its events.
    /// An illegal action raises `IllegalAction` and changes nothing.
    #[pyo3(signature = (action, seat_no=None))]
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
        seat_no: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let action = self.action_of(action)?;
        let turn_seat = self.table.game().to_act().and_then(Turn::seat);
        let who = match seat_no {
            Some(n) => seat(n)?,
            None => turn_seat.ok_or_else(|| IllegalAction::new_err("the match is over"))?,
        };
        self.table.apply(who, action).map_err(IllegalAction::new_err)?;
        self.events_list(py)
    }

    /// `seat` sends a signal (its wire name, `"madame"`, `"aces:2"`); returns the signal event.
    fn signal<'py>(
        &mut self,
        py: Python<'py>,
        seat_no: i64,
        signal: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let s =
            signal.parse::<rules::Signal>().map_err(|e| IllegalAction::new_err(e.to_string()))?;
        let event = self.table.signal(seat(seat_no)?, s).map_err(IllegalAction::new_err)?;
        event_dict(py, &event)
    }

    /// The seat the environment asks next and what: `(2, "discard")`; `None` once over.
    #[getter]
    fn asked(&self) -> Option<(usize, &'static str)> {
        self.table.to_act().map(|(s, k)| (s.index(), k.word()))
    }

    /// `seat`'s observation: float32 bytes laid out as `aluette.env.LAYOUT` says.
    fn observe<'py>(&self, py: Python<'py>, seat_no: i64) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = vec![0f32; space::obs_len()];
        self.table.observe(seat(seat_no)?, &mut out);
        f32_bytes(py, &out)
    }

    /// `seat`'s action mask: one byte per action, 1 for legal.
    fn action_mask<'py>(&self, py: Python<'py>, seat_no: i64) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = [0u8; N_ACTIONS];
        self.table.mask(seat(seat_no)?, &mut out);
        Ok(PyBytes::new(py, &out))
    }

    /// One environment step: action index `a` for the seat asked. Returns the four seats'
    /// rewards (deal points won, or lost by the other team). An illegal action raises
    /// `IllegalAction` and changes nothing.
    fn step(&mut self, a: usize) -> PyResult<Vec<f32>> {
        self.table.step(a).map_err(IllegalAction::new_err)?;
        Ok(self.table.rewards().to_vec())
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        self.clone()
    }
}

/// Float values as a `bytes` of their little-endian bytes, for `numpy.frombuffer`: written
/// straight into the new object, with no buffer in between.
pub(crate) fn f32_bytes<'py>(py: Python<'py>, values: &[f32]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, 4 * values.len(), |buf| {
        for (dst, v) in buf.chunks_exact_mut(4).zip(values) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    })
}
