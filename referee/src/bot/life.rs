//! A bot's lifecycle as one state machine: where a [`Bot`](super::Bot) is (not connected,
//! greeting, ready, dead of a fault, closed), and every move between those states in one
//! `match`, so what each verb of `Bot` (start, the handshake, a question that finds it gone,
//! stop, replace, relay, close) may do from each state is written once and tested as a table.
//! Pure: the `Bot` performs what a step says (retiring its connection) and nothing else
//! changes its state.

use crate::fault::Fault;
use std::time::Duration;

/// How long a stopped bot may take to read its `bye` and exit before it is killed.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(500);

/// Where a bot is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Life {
    /// No connection yet: not started, or being started again.
    Idle,
    /// Connected, its handshake under way: the hello is the one question it may be asked.
    Greeting,
    /// Its handshake passed: it is asked the game's questions.
    Ready,
    /// It cannot play, for this reason, until it is started again or replaced (a fault of its
    /// own, a seat nobody took, a stop by the referee).
    Dead(Fault),
    /// Closed for good: it said its last word.
    Closed,
}

/// What happens to a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A (re)start begins: what is left of an earlier connection goes.
    Restart,
    /// A connection is open (a program started, a socket connected, a stream adopted).
    Connected,
    /// The hello answer passed the checks (or the connection continues one that did).
    Greeted,
    /// The handshake failed.
    Refused(Fault),
    /// It could not be started or reached, or nobody came for its seat, or a replay says it was
    /// not playing: outside any question, with nothing to retire.
    Unavailable(Fault),
    /// Found gone: a question or a write met its end, or its peer closed between games.
    Gone(Fault),
    /// The referee stopped it mid-match (it was replaced by the fallback).
    Stopped(Fault),
    /// A relay takes its connection's place (a seat that outlives its connection).
    Relayed,
    /// Another bot for the same seat takes its place, in that bot's state.
    Replaced(Box<Life>),
    /// The match is over for it.
    Close,
}

/// A move of the table: the state after, and whether the connection is retired on the way
/// (dropped, the process given that grace to exit, then its group killed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) to: Life,
    pub(crate) retire: Option<Duration>,
}

/// A move the table does not have: the referee asked a bot in one state for something only
/// another state allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) from: &'static str,
    pub(crate) event: &'static str,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a bot {} cannot be {}", self.from, self.event)
    }
}

impl Life {
    /// True while the bot can be asked questions (the hello included).
    pub(crate) fn is_alive(&self) -> bool {
        matches!(self, Life::Greeting | Life::Ready)
    }

    /// Why the bot cannot play, when it cannot.
    pub(crate) fn dead(&self) -> Option<&Fault> {
        match self {
            Life::Dead(f) => Some(f),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Life::Idle => "not connected",
            Life::Greeting => "greeting",
            Life::Ready => "ready",
            Life::Dead(_) => "dead",
            Life::Closed => "closed",
        }
    }

    /// The one table of the lifecycle.
    pub(crate) fn on(&self, event: Event) -> Result<Step, Refused> {
        use Event as E;
        use Life as L;
        let to = |to: Life| Ok(Step { to, retire: None });
        let retiring = |to: Life, grace: Duration| Ok(Step { to, retire: Some(grace) });
        match (self, event) {
            (L::Idle | L::Dead(_), E::Restart) => retiring(L::Idle, Duration::ZERO),
            (L::Idle, E::Connected) => to(L::Greeting),
            (L::Greeting, E::Greeted) => to(L::Ready),
            // A bot found gone during its hello is refused on top: the refusal is its record.
            (L::Greeting | L::Dead(_), E::Refused(f)) => retiring(L::Dead(f), Duration::ZERO),
            // Nothing to retire: not started, or (a replay) its stream is kept for the record.
            (L::Idle | L::Dead(_) | L::Ready, E::Unavailable(f)) => to(L::Dead(f)),
            (L::Greeting | L::Ready, E::Gone(f)) => retiring(L::Dead(f), Duration::ZERO),
            (L::Greeting | L::Ready, E::Stopped(f)) => retiring(L::Dead(f), STOP_GRACE),
            (L::Ready, E::Relayed) => to(L::Ready),
            (L::Idle | L::Greeting | L::Ready | L::Dead(_), E::Replaced(other)) => {
                retiring(*other, Duration::ZERO)
            }
            // Closing ends the process itself, with the grace the caller gives.
            (L::Idle | L::Greeting | L::Ready | L::Dead(_), E::Close) => to(L::Closed),
            (from, event) => Err(Refused { from: from.name(), event: event.name() }),
        }
    }
}

impl Event {
    fn name(&self) -> &'static str {
        match self {
            Event::Restart => "restarted",
            Event::Connected => "connected",
            Event::Greeted => "greeted",
            Event::Refused(_) => "refused",
            Event::Unavailable(_) => "made unavailable",
            Event::Gone(_) => "found gone",
            Event::Stopped(_) => "stopped",
            Event::Relayed => "relayed",
            Event::Replaced(_) => "replaced",
            Event::Close => "closed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::record::FaultKind;

    /// Every state against every event: the moves the table has, with their state after and
    /// their retirement, and the ones it must refuse.
    #[test]
    fn the_transition_table() {
        let f = Fault::new(FaultKind::Exited, "x");
        let g = Fault::new(FaultKind::Timeout, "y");
        let states = [Life::Idle, Life::Greeting, Life::Ready, Life::Dead(g.clone()), Life::Closed];
        let events = [
            Event::Restart,
            Event::Connected,
            Event::Greeted,
            Event::Refused(f.clone()),
            Event::Unavailable(f.clone()),
            Event::Gone(f.clone()),
            Event::Stopped(f.clone()),
            Event::Relayed,
            Event::Replaced(Box::new(Life::Ready)),
            Event::Close,
        ];
        let zero = Some(Duration::ZERO);
        let dead = Life::Dead(f.clone());
        // (state, event) -> (state after, retirement), None where refused. Rows: the states
        // above; columns: the events above.
        type Cell = Option<(Life, Option<Duration>)>;
        let (i, gr, r, d, c) = (Life::Idle, Life::Greeting, Life::Ready, dead, Life::Closed);
        let ok = |l: &Life, retire: Option<Duration>| Some((l.clone(), retire));
        #[rustfmt::skip]
        let table: [[Cell; 10]; 5] = [
            // Idle
            [ok(&i, zero), ok(&gr, None), None, None, ok(&d, None), None, None, None,
             ok(&r, zero), ok(&c, None)],
            // Greeting
            [None, None, ok(&r, None), ok(&d, zero), None, ok(&d, zero),
             ok(&d, Some(STOP_GRACE)), None, ok(&r, zero), ok(&c, None)],
            // Ready
            [None, None, None, None, ok(&d, None), ok(&d, zero), ok(&d, Some(STOP_GRACE)),
             ok(&r, None), ok(&r, zero), ok(&c, None)],
            // Dead
            [ok(&i, zero), None, None, ok(&d, zero), ok(&d, None), None, None, None,
             ok(&r, zero), ok(&c, None)],
            // Closed: nothing moves it.
            [None, None, None, None, None, None, None, None, None, None],
        ];
        for (s, row) in states.iter().zip(&table) {
            for (e, want) in events.iter().zip(row) {
                let got = s.on(e.clone()).ok().map(|step| (step.to, step.retire));
                assert_eq!(&got, want, "{s:?} on {e:?}");
            }
        }
        assert!(!Life::Idle.is_alive() && Life::Greeting.is_alive() && Life::Ready.is_alive());
        assert!(!d.is_alive() && !c.is_alive() && d.dead() == Some(&f));
        let refused = Life::Closed.on(Event::Greeted).unwrap_err();
        assert_eq!(refused.to_string(), "a bot closed cannot be greeted");
    }
}
