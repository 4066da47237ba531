//! A bot's lifecycle as one state machine: where a [`Bot`](super::Bot) is (not connected,
//! greeting, ready, dead of a fault, closed), and every move between those states in one
//! `match`, so what each verb of `Bot` (start, the handshake, a question that finds it gone,
//! stop, replace, relay, close) may do from each state is written once and tested as a table.
//! The connection is data of the states that have one (greeting, ready), so a bot alive and
//! unconnected cannot be written. Pure: a move hands back the connection that leaves, and the
//! `Bot` performs what the move says with it (dropping it, retiring its process, handing it to
//! a relay); nothing else changes its state.

use crate::fault::Fault;
use std::time::Duration;

/// How long a stopped bot may take to read its `bye` and exit before it is killed.
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(500);

/// Where a bot is in its life, with its connection `C` while it has one (the referee's is a
/// `LineConn`; the table's test uses a number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Life<C> {
    /// No connection yet: not started, or being started again.
    Idle,
    /// Connected, its handshake under way: the hello is the one question it may be asked.
    Greeting(C),
    /// Its handshake passed: it is asked the game's questions.
    Ready(C),
    /// It cannot play, for this reason, until it is started again or replaced (a fault of its
    /// own, a seat nobody took, a stop by the referee).
    Dead(Fault),
    /// Closed for good: it said its last word.
    Closed,
}

/// What happens to a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event<C> {
    /// A (re)start begins: what is left of an earlier connection goes.
    Restart,
    /// This connection is open (a program started, a socket connected, a stream adopted).
    Connected(C),
    /// The hello answer passed the checks (or the connection continues one that did).
    Greeted,
    /// The handshake failed.
    Refused(Fault),
    /// It could not be started or reached, or nobody came for its seat, or a replay says it was
    /// not playing: outside any question.
    Unavailable(Fault),
    /// Found gone: a question or a write met its end, or its peer closed between games.
    Gone(Fault),
    /// The referee stopped it mid-match (it was replaced by the fallback).
    Stopped(Fault),
    /// A relay's end takes its connection's place (a seat that outlives its connection): the
    /// connection leaves for the relay to carry, not retired.
    Relayed(C),
    /// Another bot for the same seat takes its place, in that bot's state (its connection
    /// with it).
    Replaced(Box<Life<C>>),
    /// The match is over for it.
    Close,
}

/// A move of the table: the state after, the connection that leaves on the way (the state
/// before held it, the state after does not), and whether the bot is retired on the way: what
/// is left of its connection dropped, its process given that grace to exit, then its group
/// killed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step<C> {
    pub(crate) to: Life<C>,
    pub(crate) leaves: Option<C>,
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

impl<C> Life<C> {
    /// True while the bot can be asked questions (the hello included).
    pub(crate) fn is_alive(&self) -> bool {
        matches!(self, Life::Greeting(_) | Life::Ready(_))
    }

    /// Why the bot cannot play, when it cannot.
    pub(crate) fn dead(&self) -> Option<&Fault> {
        match self {
            Life::Dead(f) => Some(f),
            _ => None,
        }
    }

    /// The connection, while the bot is alive (and only then).
    pub(crate) fn conn(&self) -> Option<&C> {
        match self {
            Life::Greeting(c) | Life::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// The connection, to use, while the bot is alive.
    pub(crate) fn conn_mut(&mut self) -> Option<&mut C> {
        match self {
            Life::Greeting(c) | Life::Ready(c) => Some(c),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Life::Idle => "not connected",
            Life::Greeting(_) => "greeting",
            Life::Ready(_) => "ready",
            Life::Dead(_) => "dead",
            Life::Closed => "closed",
        }
    }

    /// The one table of the lifecycle. A move it does not have hands the state back as it
    /// was, with why.
    pub(crate) fn on(self, event: Event<C>) -> Result<Step<C>, (Life<C>, Refused)> {
        use Event as E;
        use Life as L;
        let to = |to: Life<C>| Ok(Step { to, leaves: None, retire: None });
        let retiring = |to: Life<C>, leaves: Option<C>, grace: Duration| {
            Ok(Step { to, leaves, retire: Some(grace) })
        };
        match (self, event) {
            (L::Idle | L::Dead(_), E::Restart) => retiring(L::Idle, None, Duration::ZERO),
            (L::Idle, E::Connected(c)) => to(L::Greeting(c)),
            (L::Greeting(c), E::Greeted) => to(L::Ready(c)),
            (L::Greeting(c), E::Refused(f)) => retiring(L::Dead(f), Some(c), Duration::ZERO),
            // A bot found gone during its hello is refused on top: the refusal is its record.
            (L::Dead(_), E::Refused(f)) => retiring(L::Dead(f), None, Duration::ZERO),
            (L::Idle | L::Dead(_), E::Unavailable(f)) => to(L::Dead(f)),
            // A replay's seat that was not playing: its stream goes (the playback reads on
            // only to find its end).
            (L::Ready(c), E::Unavailable(f)) => retiring(L::Dead(f), Some(c), Duration::ZERO),
            (L::Greeting(c) | L::Ready(c), E::Gone(f)) => {
                retiring(L::Dead(f), Some(c), Duration::ZERO)
            }
            (L::Greeting(c) | L::Ready(c), E::Stopped(f)) => {
                retiring(L::Dead(f), Some(c), STOP_GRACE)
            }
            (L::Ready(c), E::Relayed(relay)) => {
                Ok(Step { to: L::Ready(relay), leaves: Some(c), retire: None })
            }
            (from @ (L::Idle | L::Greeting(_) | L::Ready(_) | L::Dead(_)), E::Replaced(other)) => {
                retiring(*other, from.into_conn(), Duration::ZERO)
            }
            // Closing ends the process itself, with the grace the caller gives.
            (from @ (L::Idle | L::Greeting(_) | L::Ready(_) | L::Dead(_)), E::Close) => {
                Ok(Step { to: L::Closed, leaves: from.into_conn(), retire: None })
            }
            (from, event) => {
                let refused = Refused { from: from.name(), event: event.name() };
                Err((from, refused))
            }
        }
    }

    fn into_conn(self) -> Option<C> {
        match self {
            Life::Greeting(c) | Life::Ready(c) => Some(c),
            _ => None,
        }
    }
}

impl<C> Event<C> {
    fn name(&self) -> &'static str {
        match self {
            Event::Restart => "restarted",
            Event::Connected(_) => "connected",
            Event::Greeted => "greeted",
            Event::Refused(_) => "refused",
            Event::Unavailable(_) => "made unavailable",
            Event::Gone(_) => "found gone",
            Event::Stopped(_) => "stopped",
            Event::Relayed(_) => "relayed",
            Event::Replaced(_) => "replaced",
            Event::Close => "closed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::record::FaultKind;

    /// Every state against every event: the moves the table has, with their state after, the
    /// connection that leaves and their retirement, and the ones it must refuse (handing the
    /// state back). Connections are numbers: the greeting bot holds 1, the ready one 2; 3 is
    /// connected, 4 is a relay's end, 5 the replacement's.
    #[test]
    fn the_transition_table() {
        let f = Fault::new(FaultKind::Exited, "x");
        let g = Fault::new(FaultKind::Timeout, "y");
        let states =
            [Life::Idle, Life::Greeting(1), Life::Ready(2), Life::Dead(g.clone()), Life::Closed];
        let events = [
            Event::Restart,
            Event::Connected(3),
            Event::Greeted,
            Event::Refused(f.clone()),
            Event::Unavailable(f.clone()),
            Event::Gone(f.clone()),
            Event::Stopped(f.clone()),
            Event::Relayed(4),
            Event::Replaced(Box::new(Life::Ready(5))),
            Event::Close,
        ];
        let zero = Some(Duration::ZERO);
        let stop = Some(STOP_GRACE);
        let d = Life::Dead(f.clone());
        // (state, event) -> (state after, connection that leaves, retirement), None where
        // refused. Rows: the states above; columns: the events above.
        type Cell = Option<(Life<u8>, Option<u8>, Option<Duration>)>;
        let (i, c) = (Life::Idle, Life::Closed);
        let ok = |l: &Life<u8>, leaves: Option<u8>, retire| Some((l.clone(), leaves, retire));
        let (gr3, r1, r4, r5) = (Life::Greeting(3), Life::Ready(1), Life::Ready(4), Life::Ready(5));
        #[rustfmt::skip]
        let table: [[Cell; 10]; 5] = [
            // Idle
            [ok(&i, None, zero), ok(&gr3, None, None), None, None, ok(&d, None, None), None,
             None, None, ok(&r5, None, zero), ok(&c, None, None)],
            // Greeting(1)
            [None, None, ok(&r1, None, None), ok(&d, Some(1), zero), None,
             ok(&d, Some(1), zero), ok(&d, Some(1), stop), None, ok(&r5, Some(1), zero),
             ok(&c, Some(1), None)],
            // Ready(2)
            [None, None, None, None, ok(&d, Some(2), zero), ok(&d, Some(2), zero),
             ok(&d, Some(2), stop), ok(&r4, Some(2), None), ok(&r5, Some(2), zero),
             ok(&c, Some(2), None)],
            // Dead
            [ok(&i, None, zero), None, None, ok(&d, None, zero), ok(&d, None, None), None, None,
             None, ok(&r5, None, zero), ok(&c, None, None)],
            // Closed: nothing moves it.
            [None, None, None, None, None, None, None, None, None, None],
        ];
        for (s, row) in states.iter().zip(&table) {
            for (e, want) in events.iter().zip(row) {
                let got = match s.clone().on(e.clone()) {
                    Ok(step) => Some((step.to, step.leaves, step.retire)),
                    Err((state, _)) => {
                        assert_eq!(&state, s, "a refusal hands the state back");
                        None
                    }
                };
                assert_eq!(&got, want, "{s:?} on {e:?}");
            }
        }
        assert!(!Life::<u8>::Idle.is_alive() && Life::Greeting(1).is_alive());
        assert!(Life::Ready(2).is_alive() && !d.is_alive() && !c.is_alive());
        assert!(d.dead() == Some(&f) && Life::Ready(2).dead().is_none());
        let conns = states.map(|s| s.conn().copied());
        assert_eq!(conns, [None, Some(1), Some(2), None, None], "a connection only when alive");
        let (_, refused) = Life::<u8>::Closed.on(Event::Greeted).unwrap_err();
        assert_eq!(refused.to_string(), "a bot closed cannot be greeted");
    }
}
