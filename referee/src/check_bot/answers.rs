//! Judging the bot's answers as the referee judges them (through `judge`), and explaining a
//! refusal to the bot's author: what was expected, what came back, and the line.

use super::{Got, RAW_MAX};
use crate::fault::Fault;
use crate::judge::{self, Refusal};
use convert::codes;
use protocol::CardCode;
use protocol::msg::FromBot;
use protocol::record::FaultKind;
use rules::{Card, CardSet, Game, IllegalAction, Seat};

/// A raw line as quoted in details: at most [`RAW_MAX`] characters.
pub(super) fn shorten(raw: &str) -> String {
    if raw.chars().count() <= RAW_MAX {
        raw.to_string()
    } else {
        format!("{}...", raw.chars().take(RAW_MAX).collect::<String>())
    }
}

/// Cards as a JSON list, as a bot would have sent them.
fn card_list(cards: &[CardCode]) -> String {
    serde_json::to_string(cards).unwrap_or_default()
}

/// A line that is not an answer of the expected kind, explained.
pub(super) fn wrong_kind(expected: &'static str, got: &Got) -> Fault {
    match got {
        Got::Bad(error, raw) if raw.is_empty() => {
            Fault::new(FaultKind::LineTooLong, format!("expected a {expected} answer, got {error}"))
        }
        Got::Bad(error, raw) => Fault::new(
            FaultKind::Malformed,
            format!(
                "expected a {expected} answer, got a line that is not a valid answer ({error}); \
                 line: {}",
                shorten(raw)
            ),
        ),
        Got::Answer(msg, raw) => {
            explain(&Refusal::WrongType { expected, got: msg.kind() }, msg, CardSet::EMPTY, raw)
        }
    }
}

/// An answer the judge refused, explained to the bot's author: what was expected, what came
/// back, and the line (`raw`). `hand` is the bot's hand when it was asked.
fn explain(refusal: &Refusal, msg: &FromBot, hand: CardSet, raw: &str) -> Fault {
    let cards = match msg {
        FromBot::Discard { cards, .. } => cards.as_slice(),
        _ => &[],
    };
    let hand_list = || card_list(&codes(hand));
    let said = match refusal {
        Refusal::WrongType { expected, got } => {
            format!("expected a {expected} answer, got a {got} answer")
        }
        Refusal::VoteMissing => "the question asked for a chant vote: expected an \"accept\" \
                                 field, got none"
            .into(),
        Refusal::VoteUnasked(a) => {
            format!("no chant vote was asked: expected no \"accept\" field, got \"accept\":{a}")
        }
        Refusal::CardTwice
        | Refusal::Discard(IllegalAction::DiscardCount(_) | IllegalAction::DiscardNotHeld(_)) => {
            let not_held: Vec<CardCode> =
                cards.iter().copied().filter(|&c| !hand.contains(convert::card(c))).collect();
            let why = if not_held.is_empty() {
                String::new()
            } else {
                format!(" ({} not in the hand)", card_list(&not_held))
            };
            format!("expected 6 distinct cards from the hand, got {}{why}", card_list(cards))
        }
        Refusal::Discard(IllegalAction::DiscardKeepsWeaker { discarded, kept }) => format!(
            "expected the 6 weakest cards under keep-highest (no discarded card stronger than a \
             kept one), got {}: {discarded} is discarded but {kept} is kept",
            card_list(cards)
        ),
        Refusal::NotHeld(card) => {
            format!("expected a card from the hand {}, got {:?}", hand_list(), card.as_str())
        }
        Refusal::TooManySignals(n) => {
            format!("expected at most {} signals, got {n}", judge::MAX_SIGNALS)
        }
        Refusal::UnknownSignal { word, error } => {
            format!("expected signals of the vocabulary, got {word:?}: {error}")
        }
        Refusal::Signal { word, error: error @ IllegalAction::InvalidSignal(_) } => {
            format!("expected signals of the vocabulary, got {word:?}: {error}")
        }
        Refusal::Signal { word, error: IllegalAction::FalseSignal(_) } => format!(
            "expected true signals (signal-truth=truthful), got {word:?}, false for the hand {}",
            hand_list()
        ),
        other => format!("expected an answer the rules accept, got one they refuse: {other}"),
    };
    Fault::new(refusal.kind(), format!("{said}; line: {}", shorten(raw)))
}

/// The signals of an answer, judged in turn as the referee judges them.
fn judge_signals(game: &Game, seat: Seat, msg: &FromBot, raw: &str) -> Result<(), Fault> {
    let words = msg.signals();
    judge::signal_count(words)
        .and_then(|()| words.iter().try_for_each(|w| judge::signal(game, seat, w).map(drop)))
        .map_err(|r| explain(&r, msg, game.hand(seat), raw))
}

fn show_signals(signals: &[String]) -> String {
    if signals.is_empty() {
        String::new()
    } else {
        format!(", signals {} (true)", serde_json::to_string(signals).unwrap_or_default())
    }
}

/// `seat`'s answer to its opening question in `game`: the vote (if any) and an account.
pub(super) fn judge_opening(
    got: &Got,
    game: &Game,
    seat: Seat,
) -> Result<(Option<bool>, String), Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("opening", got));
    };
    let accept =
        judge::opening(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    judge_signals(game, seat, msg, raw)?;
    let vote_text = match accept {
        Some(a) => format!("\"accept\":{a}"),
        None => "no \"accept\"".to_string(),
    };
    Ok((accept, format!("answered with {vote_text}{}", show_signals(msg.signals()))))
}

/// `seat`'s answer to its discard question in `game`: an account.
pub(super) fn judge_discard(got: &Got, game: &Game, seat: Seat) -> Result<String, Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("discard", got));
    };
    let cards =
        judge::discard(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    judge_signals(game, seat, msg, raw)?;
    debug_assert_eq!(cards.len(), 6);
    let listed = if let FromBot::Discard { cards, .. } = msg { cards.as_slice() } else { &[] };
    Ok(format!("discarded {}{}", card_list(listed), show_signals(msg.signals())))
}

/// `seat`'s answer to its play question in `game`: the card, and whether its signals were
/// refused (the card stands then, as in a match).
pub(super) fn judge_play(
    got: &Got,
    game: &Game,
    seat: Seat,
) -> Result<(Card, Result<(), Fault>), Fault> {
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind("play", got));
    };
    let card = judge::play(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    Ok((card, judge_signals(game, seat, msg, raw)))
}

/// `seat`'s answer to its offer, reply or announce question in `game`: an account.
pub(super) fn judge_pledge(got: &Got, game: &Game, seat: Seat) -> Result<String, Fault> {
    let expected = game.to_act().and_then(judge::pledge_question).unwrap_or("pre-lead");
    let Got::Answer(msg, raw) = got else {
        return Err(wrong_kind(expected, got));
    };
    let action =
        judge::pledge(game, seat, msg).map_err(|r| explain(&r, msg, game.hand(seat), raw))?;
    judge_signals(game, seat, msg, raw)?;
    let said = match action {
        rules::Action::Offer(b) => format!("\"offer\":{b}"),
        rules::Action::Reply(b) => format!("\"accept\":{b}"),
        rules::Action::Announce(b) => format!("\"announce\":{b}"),
        _ => String::new(),
    };
    Ok(format!("answered {expected} with {said}{}", show_signals(msg.signals())))
}

/// Faults of the checked seat, for people: kind, where, what, and the line.
pub(super) fn fault_list(faults: &[&protocol::record::FaultRecord]) -> String {
    let mut parts: Vec<String> = faults
        .iter()
        .take(5)
        .map(|f| {
            let at = match (f.deal, f.trick) {
                (Some(d), Some(t)) => format!(" in deal {d}, trick {t}"),
                (Some(d), None) => format!(" in deal {d}"),
                _ => String::new(),
            };
            let line = f
                .raw_bytes()
                .map(|r| format!("; line: {}", shorten(&String::from_utf8_lossy(r))))
                .unwrap_or_default();
            format!("{}{at}: {}{line}", f.kind.as_str(), f.detail)
        })
        .collect();
    if faults.len() > 5 {
        parts.push(format!("and {} more", faults.len() - 5));
    }
    if parts.is_empty() { "none recorded".into() } else { parts.join("; ") }
}
