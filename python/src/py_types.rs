//! The engine's values as plain Python values: rule options from keyword arguments (through the
//! wire's `rules` object and `convert`, so the names, values and checks are the referee's own),
//! cards as their codes, events and views as dictionaries.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rules::{Card, CardSet, Event, Rules, Seat, SeatView};

/// Cards as their codes, in canonical order.
pub(crate) fn codes(set: CardSet) -> Vec<String> {
    set.iter().map(|c| c.to_string()).collect()
}

/// The card of a code, or a clear error.
pub(crate) fn card(code: &str) -> PyResult<Card> {
    let bytes: [u8; 2] = code.as_bytes().try_into().map_err(|_| bad_card(code))?;
    Card::from_ascii(bytes).ok_or_else(|| bad_card(code))
}

fn bad_card(code: &str) -> PyErr {
    PyValueError::new_err(format!("{code:?} is not a card code (rank A2-9JCK, suit o c s b)"))
}

/// A seat number 0..=3, or a clear error.
pub(crate) fn seat(n: i64) -> PyResult<Seat> {
    u8::try_from(n)
        .ok()
        .and_then(Seat::new)
        .ok_or_else(|| PyValueError::new_err(format!("seat {n} is not a seat (0..=3)")))
}

/// The rules of keyword options named as in spec/rules.md section 10, `_` for `-`
/// (`chant_second="partner"`, `deals=7`, `target=5`, `signals="public"`, `signal_leak=0.5`,
/// `mordienne="announced"`, `surrender=True`); `True`/`False` stand for `on`/`off`.
pub(crate) fn rules_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let defaults = convert::rules_wire(&Rules::default(), protocol::options::Seating::Given);
    let mut object = match serde_json::to_value(&defaults) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => return Err(PyValueError::new_err("the default rules do not serialize")),
    };
    for (key, value) in options.into_iter().flat_map(|d| d.iter()) {
        let key: String = key.extract()?;
        let name = key.replace('_', "-");
        if !protocol::RULE_OPTIONS.iter().any(|o| o.name == name) || name == "seating" {
            let known: Vec<&str> =
                protocol::RULE_OPTIONS.iter().map(|o| o.name).filter(|&n| n != "seating").collect();
            return Err(PyValueError::new_err(format!(
                "unknown rule option {key:?} (options: {})",
                known.join(", ").replace('-', "_")
            )));
        }
        let json = if value.is_none() {
            serde_json::Value::Null
        } else if let Ok(b) = value.cast::<pyo3::types::PyBool>() {
            serde_json::Value::from(if b.is_true() { "on" } else { "off" })
        } else if let Ok(n) = value.extract::<u64>() {
            serde_json::Value::from(n)
        } else if let Ok(x) = value.extract::<f64>() {
            serde_json::Value::from(x)
        } else {
            serde_json::Value::from(value.extract::<String>()?)
        };
        match name.as_str() {
            "deals" => drop(object.remove("target")),
            "target" => drop(object.remove("deals")),
            _ => {}
        }
        if json.is_null() {
            object.remove(&name);
        } else {
            object.insert(name, json);
        }
        // Checked one option at a time, so the error names the option that is wrong.
        let checked: Result<protocol::RulesWire, _> =
            serde_json::from_value(serde_json::Value::Object(object.clone()));
        if let Err(e) = checked {
            return Err(PyValueError::new_err(format!("rule option {key}: {e}")));
        }
    }
    let wire: protocol::RulesWire = serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| PyValueError::new_err(format!("bad rule option: {e}")))?;
    convert::rules_from_wire(&wire).map(|(r, _)| r).map_err(PyValueError::new_err)
}

/// The rules as the wire's `rules` object, a dict with the option names of spec/rules.md.
pub(crate) fn rules_dict<'py>(py: Python<'py>, rules: &Rules) -> PyResult<Bound<'py, PyAny>> {
    let wire = convert::rules_wire(rules, protocol::options::Seating::Given);
    let text = serde_json::to_string(&wire).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

fn seat_list(s: Option<Seat>) -> Option<usize> {
    s.map(Seat::index)
}

/// One event as a dict: `type` and its fields; `visible_to` lists the seats told of it.
pub(crate) fn event_dict<'py>(py: Python<'py>, e: &Event) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let visible: Vec<usize> =
        Seat::ALL.into_iter().filter(|s| e.visible_to(*s)).map(Seat::index).collect();
    match *e {
        Event::DealStarted { deal, dealer } => {
            d.set_item("type", "deal")?;
            d.set_item("deal", deal)?;
            d.set_item("dealer", dealer.index())?;
        }
        Event::Hand { seat, cards } => {
            d.set_item("type", "hand")?;
            d.set_item("seat", seat.index())?;
            d.set_item("cards", codes(cards))?;
        }
        Event::Voted { seat, accept } => {
            d.set_item("type", "vote")?;
            d.set_item("seat", seat.index())?;
            d.set_item("accept", accept)?;
        }
        Event::ChantDecided { taken } => {
            d.set_item("type", "chant")?;
            d.set_item("taken", taken)?;
        }
        Event::Received { seat, cards } => {
            d.set_item("type", "received")?;
            d.set_item("seat", seat.index())?;
            d.set_item("cards", codes(cards))?;
        }
        Event::Discarded { seat, cards } => {
            d.set_item("type", "discarded")?;
            d.set_item("seat", seat.index())?;
            d.set_item("cards", codes(cards))?;
        }
        Event::Offered { seat, offer } => {
            d.set_item("type", "offered")?;
            d.set_item("seat", seat.index())?;
            d.set_item("offer", offer)?;
        }
        Event::Replied { seat, accept } => {
            d.set_item("type", "replied")?;
            d.set_item("seat", seat.index())?;
            d.set_item("accept", accept)?;
        }
        Event::Announced { seat, announce } => {
            d.set_item("type", "announced")?;
            d.set_item("seat", seat.index())?;
            d.set_item("announce", announce)?;
        }
        Event::Played { seat, card } => {
            d.set_item("type", "played")?;
            d.set_item("seat", seat.index())?;
            d.set_item("card", card.to_string())?;
        }
        Event::TrickOver(t) => {
            d.set_item("type", "trick")?;
            d.set_item("trick", t.number)?;
            d.set_item("leader", t.leader.index())?;
            let cards: Vec<String> = t.cards.iter().map(Card::to_string).collect();
            d.set_item("cards", cards)?;
            d.set_item("winner", seat_list(t.winner))?;
            d.set_item("next", t.next_leader.index())?;
        }
        Event::DealOver(r) => {
            d.set_item("type", "deal_over")?;
            d.set_item("deal", r.deal)?;
            d.set_item("tricks", r.score.tricks.to_vec())?;
            d.set_item("winner", seat_list(r.score.winner))?;
            d.set_item("points", r.score.points)?;
            d.set_item("team", r.score.team.map(|t| t.index()))?;
            d.set_item("mordienne", r.score.mordienne)?;
            d.set_item("counted", r.counted)?;
            d.set_item("score", r.match_score.to_vec())?;
        }
        Event::MatchOver(m) => {
            d.set_item("type", "game_over")?;
            d.set_item("score", m.score.to_vec())?;
            d.set_item("winner", m.winner.map(|t| t.index()))?;
            d.set_item("deals", m.deals)?;
        }
        Event::Signalled { from, signal, seen_by } => {
            d.set_item("type", "signal")?;
            d.set_item("from", from.index())?;
            d.set_item("signal", signal.to_string())?;
            d.set_item("seen_by", seen_by.to_vec())?;
        }
    }
    d.set_item("visible_to", visible)?;
    Ok(d)
}

/// What a turn asks, as Python sees it: `("play", 2)`.
pub(crate) fn turn_tuple(turn: rules::Turn) -> Option<(&'static str, usize)> {
    use rules::Turn;
    Some(match turn {
        Turn::Deal => return None,
        Turn::Vote(s) => ("vote", s.index()),
        Turn::Discard(s) => ("discard", s.index()),
        Turn::Play(s) => ("play", s.index()),
        Turn::Offer(s) => ("offer", s.index()),
        Turn::Reply(s) => ("reply", s.index()),
        Turn::Announce(s) => ("announce", s.index()),
    })
}

/// A seat's view as a dict of plain values.
pub(crate) fn view_dict<'py>(py: Python<'py>, v: &SeatView) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("seat", v.seat.index())?;
    d.set_item("dealer", v.dealer.index())?;
    d.set_item("deal", v.deal)?;
    d.set_item("hand", codes(v.hand))?;
    d.set_item("received", codes(v.received))?;
    d.set_item("discarded", codes(v.discarded))?;
    d.set_item("votes", v.votes.to_vec())?;
    d.set_item("chant_taken", v.chant_taken)?;
    d.set_item("offers", v.pledges.offers.to_vec())?;
    d.set_item("replies", v.pledges.replies.to_vec())?;
    d.set_item("announces", v.pledges.announces.to_vec())?;
    d.set_item("trick", v.trick)?;
    d.set_item("leader", v.leader.index())?;
    let table = PyList::empty(py);
    for &(s, c) in v.table() {
        table.append((s.index(), c.to_string()))?;
    }
    d.set_item("table", table)?;
    let winners: Vec<Option<usize>> =
        v.trick_winners[..usize::from(v.tricks_done)].iter().map(|w| seat_list(*w)).collect();
    d.set_item("trick_winners", winners)?;
    d.set_item("tricks_done", v.tricks_done)?;
    d.set_item("played", codes(v.played))?;
    d.set_item("score", v.score.to_vec())?;
    d.set_item("to_act", v.to_act.and_then(turn_tuple))?;
    Ok(d)
}
