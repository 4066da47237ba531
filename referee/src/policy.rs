//! What a fault costs and what the referee plays for a bot: pure functions, documented in
//! spec/protocol.md, so organisers and bot authors can predict every penalty.

use protocol::record::{FaultKind, Penalty};
use rules::{Action, Card, CardSet, Turn};

/// The organiser's choice of what a fault costs: the wire's own values, named once in
/// `protocol::options`. Under `Fallback`, a bot is replaced after `max_strikes`.
pub(crate) use protocol::options::OnFault;

/// The fault policy of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    pub(crate) on_fault: OnFault,
    pub(crate) max_strikes: u32,
}

/// Faults after which the bot cannot go on in this game.
pub(crate) fn is_fatal(kind: FaultKind) -> bool {
    matches!(
        kind,
        FaultKind::NoStart
            | FaultKind::HandshakeRefused
            | FaultKind::Exited
            | FaultKind::ClosedStdout
            | FaultKind::Disconnected
    )
}

/// Faults that only cost the offending line.
pub(crate) fn is_ignorable(kind: FaultKind) -> bool {
    matches!(kind, FaultKind::StaleId | FaultKind::UnknownId)
}

/// The penalty for a fault, given the strikes the seat has after counting it.
pub(crate) fn penalty(policy: Policy, kind: FaultKind, strikes_after: u32) -> Penalty {
    if is_ignorable(kind) {
        Penalty::Ignored
    } else if policy.on_fault == OnFault::Forfeit {
        Penalty::Forfeit
    } else if is_fatal(kind) || strikes_after >= policy.max_strikes {
        Penalty::Replaced
    } else if kind == FaultKind::BadSignal {
        Penalty::SignalDropped
    } else {
        Penalty::Fallback
    }
}

/// Cards weakest first; among equal strength, earlier in canonical order first.
pub(crate) fn weakest_first(hand: CardSet) -> Vec<Card> {
    let mut cards: Vec<Card> = hand.iter().collect();
    cards.sort_by_key(|c| (std::cmp::Reverse(c.level()), c.index()));
    cards
}

/// The fallback card: the weakest held.
pub(crate) fn fallback_play(hand: CardSet) -> Option<Card> {
    weakest_first(hand).first().copied()
}

/// The fallback discard: the six weakest (legal under either discard rule).
pub(crate) fn fallback_discard(hand: CardSet) -> CardSet {
    weakest_first(hand).into_iter().take(6).collect()
}

/// The fallback chant vote.
pub(crate) const FALLBACK_VOTE: bool = false;

/// What the referee did about an opening question it answered for a bot (the `done` of
/// [`action_text`]): the fallback vote when one was asked.
pub(crate) fn opening_done(vote: bool) -> &'static str {
    if vote { "voted refuse for you" } else { "nothing needed" }
}

/// The fallback answer of a pre-lead round (spec/protocol.md section 6.3): never offer, accept
/// an offer, never announce. It also answers for every bot that did not take up the feature
/// `surrender`, which is never asked these questions. Each is the answer that costs the seat's
/// team least in expectation (spec/rules.md section 12.2): accepting is a sure point, while a
/// refusal answered for a bot committed its team to a mordienne it made about 0.5% of the time,
/// so that offering every deal beat every bot that could not answer (issue 24).
pub(crate) fn fallback_pledge(turn: Turn) -> Option<Action> {
    match turn {
        Turn::Offer(_) => Some(Action::Offer(false)),
        Turn::Reply(_) => Some(Action::Reply(true)),
        Turn::Announce(_) => Some(Action::Announce(false)),
        _ => None,
    }
}

/// What the referee did about an offer, reply or announce question it answered for a bot.
pub(crate) fn pledge_done(action: Action) -> &'static str {
    match action {
        Action::Offer(_) => "offered no surrender for you",
        Action::Reply(_) => "accepted the surrender for you",
        Action::Announce(_) => "announced nothing for you",
        _ => "nothing needed",
    }
}

/// What the referee did about a discard question it answered for a bot.
pub(crate) fn discard_done(cards: CardSet) -> String {
    let codes: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    format!("discarded {} for you", codes.join(" "))
}

/// What the referee did about a play question it answered for a bot (`card`: the fallback).
pub(crate) fn play_done(card: Option<Card>) -> String {
    match card {
        Some(card) => format!("played {card} for you"),
        None => "nothing to play".into(),
    }
}

/// What the referee does about a refused signal: the answer's action stands.
pub(crate) const SIGNAL_DROPPED: &str = "signal not delivered; the rest of the answer stands";

/// What the referee tells a bot it did after a fault (the `action` of its `error` and of the
/// fault line). `done` is what it did about the question instead of the bot (the fallback move,
/// or [`SIGNAL_DROPPED`]), empty when there was no question (a fault met between games); the
/// penalty adds its own part. Parts are joined only when both say something, so no text starts
/// or ends with a bare separator.
pub(crate) fn action_text(penalty: Penalty, done: &str) -> String {
    let parts = match penalty {
        Penalty::Ignored => ["line ignored", ""],
        Penalty::SignalDropped | Penalty::Fallback => [done, ""],
        Penalty::Replaced => [done, "the referee plays for this bot for the rest of the game"],
        Penalty::Forfeit => ["your partnership forfeits the game", ""],
    };
    let said: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    if said.is_empty() { "nothing".into() } else { said.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(codes: &str) -> CardSet {
        codes.split_whitespace().map(|c| c.parse::<Card>().unwrap()).collect()
    }

    #[test]
    fn fallbacks_pick_the_weakest() {
        // 3s and 3b tie at level 19; 3s comes first in canonical order (swords before batons).
        assert_eq!(fallback_play(set("3o 3b 3s Kc")).unwrap().to_string(), "3s");
        let d = fallback_discard(set("3o 3c 2o 2c 9c 9o 2b 2s Ao Ac 4b 5s 6c 7o 8b"));
        assert_eq!(d, set("4b 5s 6c 7o 8b Ao"));
    }

    #[test]
    fn penalties() {
        let p = Policy { on_fault: OnFault::Fallback, max_strikes: 3 };
        assert_eq!(penalty(p, FaultKind::Timeout, 1), Penalty::Fallback);
        assert_eq!(penalty(p, FaultKind::Timeout, 3), Penalty::Replaced);
        assert_eq!(penalty(p, FaultKind::Exited, 1), Penalty::Replaced);
        assert_eq!(penalty(p, FaultKind::BadSignal, 1), Penalty::SignalDropped);
        assert_eq!(penalty(p, FaultKind::StaleId, 0), Penalty::Ignored);
        let f = Policy { on_fault: OnFault::Forfeit, max_strikes: 3 };
        assert_eq!(penalty(f, FaultKind::IllegalCard, 1), Penalty::Forfeit);
        assert_eq!(penalty(f, FaultKind::UnknownId, 0), Penalty::Ignored);
    }

    /// Issue 12: a refused signal that replaced its bot said "; the referee plays for this bot
    /// ...", and a bot that failed between games "the referee plays for the bot; the referee
    /// plays for this bot ...".
    #[test]
    fn action_texts_say_each_thing_once() {
        let rest = "the referee plays for this bot for the rest of the game";
        assert_eq!(
            action_text(Penalty::Replaced, SIGNAL_DROPPED),
            format!("signal not delivered; the rest of the answer stands; {rest}")
        );
        assert_eq!(action_text(Penalty::Replaced, ""), rest);
        assert_eq!(
            action_text(Penalty::Replaced, "played 3s for you"),
            format!("played 3s for you; {rest}")
        );
        assert_eq!(action_text(Penalty::SignalDropped, SIGNAL_DROPPED), SIGNAL_DROPPED);
        assert_eq!(action_text(Penalty::Fallback, "voted refuse for you"), "voted refuse for you");
        assert_eq!(
            action_text(Penalty::Forfeit, "played 3s for you"),
            "your partnership forfeits the game"
        );
        assert_eq!(action_text(Penalty::Ignored, ""), "line ignored");
        for penalty in [
            Penalty::Ignored,
            Penalty::SignalDropped,
            Penalty::Fallback,
            Penalty::Replaced,
            Penalty::Forfeit,
        ] {
            for done in ["", "played 3s for you"] {
                let text = action_text(penalty, done);
                assert!(
                    !text.is_empty() && !text.starts_with(';') && !text.ends_with(' '),
                    "{text:?}"
                );
                assert!(!text.contains("; ;") && !text.ends_with(';'), "{text:?}");
            }
        }
    }
}
