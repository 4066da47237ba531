//! Whether an answer is one the rules accept: the one judge of opening, discard, play, signal,
//! and surrender round (offer, reply, announce) answers, for the game runner and `check-bot` alike. Pure: it sees the game and the answer,
//! never a clock or a connection, and it leans on the engine's own checks
//! ([`Game::check_discard`], [`Game::check_signal`]), so what the rules would refuse is exactly
//! what is refused here.

use protocol::CardCode;
use protocol::msg::FromBot;
use protocol::record::FaultKind;
use rules::{Action, Card, CardSet, Game, IllegalAction, ParseSignalError, Seat, Signal, Turn};
use std::fmt;

/// Most signals one answer may carry.
pub(crate) const MAX_SIGNALS: usize = 8;

/// Why an answer is refused. Its `Display` is the fault's detail, as recorded and sent in the
/// `error` message; `check-bot` explains the same refusal in its own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// An answer of another type than the question's.
    WrongType { expected: &'static str, got: &'static str },
    /// The opening question asked for a chant vote and the answer has no `accept`.
    VoteMissing,
    /// The opening question asked for no vote and the answer has `accept`.
    VoteUnasked(bool),
    /// A discard names a card twice.
    CardTwice,
    /// A discard the rules refuse (count, a card not held, keep-highest).
    Discard(IllegalAction),
    /// A played card that is not in the hand.
    NotHeld(CardCode),
    /// More than [`MAX_SIGNALS`] signals in one answer.
    TooManySignals(usize),
    /// A word that is no signal.
    UnknownSignal { word: String, error: ParseSignalError },
    /// A signal the rules refuse now (off, not of the vocabulary, false for the hand).
    Signal { word: String, error: IllegalAction },
}

impl Refusal {
    /// The fault class a refused answer is recorded as.
    pub(crate) fn kind(&self) -> FaultKind {
        match self {
            Refusal::WrongType { .. } | Refusal::VoteMissing | Refusal::VoteUnasked(_) => {
                FaultKind::WrongAnswer
            }
            Refusal::CardTwice | Refusal::Discard(_) => FaultKind::WrongDiscard,
            Refusal::NotHeld(_) => FaultKind::IllegalCard,
            Refusal::TooManySignals(_) | Refusal::UnknownSignal { .. } | Refusal::Signal { .. } => {
                FaultKind::BadSignal
            }
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::WrongType { expected, got } => {
                write!(f, "expected a {expected} answer, got {got}")
            }
            Refusal::VoteMissing => {
                f.write_str("the question asked for a chant vote: accept is missing")
            }
            Refusal::VoteUnasked(_) => {
                f.write_str("no chant vote was asked: accept must be absent")
            }
            Refusal::CardTwice => f.write_str("a card is named twice"),
            Refusal::Discard(e) => write!(f, "{e}"),
            Refusal::NotHeld(card) => write!(f, "card {card} is not in your hand"),
            Refusal::TooManySignals(n) => {
                write!(f, "{n} signals in one answer; at most {MAX_SIGNALS}")
            }
            Refusal::UnknownSignal { word, error } => write!(f, "{word:?}: {error}"),
            Refusal::Signal { word, error } => write!(f, "{word}: {error}"),
        }
    }
}

fn wrong_type(expected: &'static str, got: &FromBot) -> Refusal {
    Refusal::WrongType { expected, got: got.kind() }
}

/// True when `seat`'s opening question carries the chant vote: the game waits for its vote.
pub(crate) fn vote_asked(game: &Game, seat: Seat) -> bool {
    game.to_act() == Some(Turn::Vote(seat))
}

/// An answer to `seat`'s opening question: its vote, present exactly when one is asked.
pub(crate) fn opening(game: &Game, seat: Seat, answer: &FromBot) -> Result<Option<bool>, Refusal> {
    let FromBot::Opening { accept, .. } = answer else {
        return Err(wrong_type("opening", answer));
    };
    match (vote_asked(game, seat), *accept) {
        (true, None) => Err(Refusal::VoteMissing),
        (false, Some(a)) => Err(Refusal::VoteUnasked(a)),
        (_, accept) => Ok(accept),
    }
}

/// An answer to `seat`'s discard question: the cards, 6 distinct held ones the discard rule
/// allows.
pub(crate) fn discard(game: &Game, seat: Seat, answer: &FromBot) -> Result<CardSet, Refusal> {
    let FromBot::Discard { cards, .. } = answer else {
        return Err(wrong_type("discard", answer));
    };
    let (set, n) = convert::set(cards);
    if n != set.len() {
        return Err(Refusal::CardTwice);
    }
    game.check_discard(seat, set).map_err(Refusal::Discard)?;
    Ok(set)
}

/// An answer to `seat`'s play question: a card it holds.
pub(crate) fn play(game: &Game, seat: Seat, answer: &FromBot) -> Result<Card, Refusal> {
    let FromBot::Play { card, .. } = answer else {
        return Err(wrong_type("play", answer));
    };
    let held = convert::card(*card);
    if game.hand(seat).contains(held) { Ok(held) } else { Err(Refusal::NotHeld(*card)) }
}

/// The question a pre-lead turn asks (feature `surrender`), by its wire type.
pub(crate) fn pledge_question(turn: Turn) -> Option<&'static str> {
    match turn {
        Turn::Offer(_) => Some("offer"),
        Turn::Reply(_) => Some("reply"),
        Turn::Announce(_) => Some("announce"),
        _ => None,
    }
}

/// An answer to `seat`'s offer, reply or announce question: the engine's action. Any boolean is
/// a legal answer; only the type can be wrong, and a question that is not `seat`'s turn has no
/// right answer at all.
pub(crate) fn pledge(game: &Game, seat: Seat, answer: &FromBot) -> Result<Action, Refusal> {
    let turn = game.to_act().filter(|t| t.seat() == Some(seat));
    let expected = turn.and_then(pledge_question).unwrap_or("pre-lead");
    match (turn, answer) {
        (Some(Turn::Offer(_)), FromBot::Offer { offer, .. }) => Ok(Action::Offer(*offer)),
        (Some(Turn::Reply(_)), FromBot::Reply { accept, .. }) => Ok(Action::Reply(*accept)),
        (Some(Turn::Announce(_)), FromBot::Announce { announce, .. }) => {
            Ok(Action::Announce(*announce))
        }
        _ => Err(wrong_type(expected, answer)),
    }
}

/// How many signals an answer carries: at most [`MAX_SIGNALS`].
pub(crate) fn signal_count(words: &[String]) -> Result<(), Refusal> {
    if words.len() > MAX_SIGNALS { Err(Refusal::TooManySignals(words.len())) } else { Ok(()) }
}

/// One signal word of `seat`'s answer, as the game stands: a signal of the vocabulary that the
/// rules let it send now.
pub(crate) fn signal(game: &Game, seat: Seat, word: &str) -> Result<Signal, Refusal> {
    let signal = word
        .parse::<Signal>()
        .map_err(|error| Refusal::UnknownSignal { word: word.to_string(), error })?;
    game.check_signal(seat, signal)
        .map_err(|error| Refusal::Signal { word: word.to_string(), error })?;
    Ok(signal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::codec::decode_line;
    use rules::{Action, Deck, DiscardRule, Rules, SignalDelivery, SignalTruth};

    fn answer(line: &str) -> FromBot {
        decode_line(line.as_bytes()).unwrap()
    }

    const S0: Seat = Seat::ALL[0];
    const S1: Seat = Seat::ALL[1];

    /// A game of `rules` dealt by seat 0 from the canonical deck: seat 1 votes first.
    fn dealt(rules: Rules) -> Game {
        let mut game = Game::new(rules, S0);
        game.deal(&Deck::canonical()).unwrap();
        game
    }

    /// The same, with the chant taken: seat 1, first recipient, is to discard.
    fn at_discard(rule: DiscardRule) -> Game {
        let mut game = dealt(Rules { discard: rule, ..Rules::default() });
        for seat in [1, 2, 3, 0] {
            game.apply(Seat::ALL[seat], Action::Vote(true)).unwrap();
        }
        assert_eq!(game.to_act(), Some(Turn::Discard(S1)));
        game
    }

    fn codes_of(cards: impl IntoIterator<Item = Card>) -> String {
        let words: Vec<String> = cards.into_iter().map(|c| format!("\"{c}\"")).collect();
        words.join(",")
    }

    #[test]
    fn openings_carry_a_vote_exactly_when_one_is_asked() {
        let game = dealt(Rules::default());
        assert!(vote_asked(&game, S1) && !vote_asked(&game, S0));
        let yes = answer(r#"{"type":"opening","id":2,"accept":true}"#);
        let none = answer(r#"{"type":"opening","id":2}"#);
        assert_eq!(opening(&game, S1, &yes), Ok(Some(true)));
        assert_eq!(opening(&game, S0, &none), Ok(None));
        let missing = opening(&game, S1, &none).unwrap_err();
        assert_eq!(missing, Refusal::VoteMissing);
        assert_eq!(missing.kind(), FaultKind::WrongAnswer);
        assert_eq!(missing.to_string(), "the question asked for a chant vote: accept is missing");
        let unasked = opening(&game, S0, &yes).unwrap_err();
        assert_eq!(unasked, Refusal::VoteUnasked(true));
        assert_eq!(unasked.kind(), FaultKind::WrongAnswer);
        assert_eq!(unasked.to_string(), "no chant vote was asked: accept must be absent");
        let play = answer(r#"{"type":"play","id":2,"card":"3o"}"#);
        let wrong = opening(&game, S1, &play).unwrap_err();
        assert_eq!(
            (wrong.kind(), wrong.to_string().as_str()),
            (FaultKind::WrongAnswer, "expected a opening answer, got play")
        );
    }

    /// Issue 24: one class for each bad answer to the pre-lead questions (spec/protocol.md
    /// 4.12): an `offer`, `accept` or `announce` missing or not a boolean is a line the decoder
    /// refuses (`malformed`); an answer of another type is a `wrong_answer`.
    #[test]
    fn pre_lead_answers_are_booleans_of_the_question_s_type() {
        let game = dealt(Rules { chant: false, surrender: true, ..Rules::default() });
        assert_eq!(game.to_act(), Some(Turn::Offer(S1)));
        let yes = answer(r#"{"type":"offer","id":4,"offer":true}"#);
        assert_eq!(pledge(&game, S1, &yes), Ok(Action::Offer(true)));
        for other in
            [r#"{"type":"reply","id":4,"accept":true}"#, r#"{"type":"play","id":4,"card":"3o"}"#]
        {
            let r = pledge(&game, S1, &answer(other)).unwrap_err();
            assert_eq!(r.kind(), FaultKind::WrongAnswer, "{other}");
            assert!(r.to_string().starts_with("expected a offer answer"), "{r}");
        }
        assert!(pledge(&game, S0, &yes).is_err(), "not seat 0's turn");
        for line in [
            r#"{"type":"offer","id":4,"offer":"yes"}"#,
            r#"{"type":"offer","id":4,"offer":1}"#,
            r#"{"type":"offer","id":4}"#,
            r#"{"type":"reply","id":4,"accept":null}"#,
            r#"{"type":"announce","id":4,"announce":[true]}"#,
        ] {
            assert!(decode_line::<FromBot>(line.as_bytes()).is_err(), "{line} decoded");
        }
    }

    #[test]
    fn discards_are_six_distinct_held_cards_under_the_rule() {
        let game = at_discard(DiscardRule::KeepHighest);
        let hand = game.hand(S1);
        assert_eq!(hand.len(), 15);
        let weakest = crate::policy::fallback_discard(hand);
        let line = |cards: &str| format!(r#"{{"type":"discard","id":3,"cards":[{cards}]}}"#);
        let ok = answer(&line(&codes_of(weakest.iter())));
        assert_eq!(discard(&game, S1, &ok), Ok(weakest));

        let mut twice: Vec<Card> = weakest.iter().collect();
        twice[5] = twice[0];
        let r = discard(&game, S1, &answer(&line(&codes_of(twice)))).unwrap_err();
        assert_eq!(
            (r.kind(), r.to_string().as_str()),
            (FaultKind::WrongDiscard, "a card is named twice")
        );

        let five = weakest.iter().take(5);
        let r = discard(&game, S1, &answer(&line(&codes_of(five)))).unwrap_err();
        assert_eq!(r, Refusal::Discard(IllegalAction::DiscardCount(5)));
        assert_eq!(r.kind(), FaultKind::WrongDiscard);

        let foreign = game.hand(Seat::ALL[2]).iter().next().unwrap();
        let mut cards: Vec<Card> = weakest.iter().take(5).collect();
        cards.push(foreign);
        let r = discard(&game, S1, &answer(&line(&codes_of(cards)))).unwrap_err();
        assert_eq!(r, Refusal::Discard(IllegalAction::DiscardNotHeld(foreign)));
        assert_eq!(r.to_string(), format!("discarded card {foreign} is not in the hand"));

        // The strongest card out, the weakest kept: refused under keep-highest only.
        let strongest = crate::policy::weakest_first(hand).last().copied().unwrap();
        let mut cards: Vec<Card> = weakest.iter().take(5).collect();
        cards.push(strongest);
        let strong = answer(&line(&codes_of(cards)));
        let r = discard(&game, S1, &strong).unwrap_err();
        assert!(
            matches!(r, Refusal::Discard(IllegalAction::DiscardKeepsWeaker { discarded, .. }) if discarded == strongest),
            "{r:?}"
        );
        assert!(r.to_string().starts_with("keep-highest: discarding"), "{r}");
        assert!(discard(&at_discard(DiscardRule::Free), S1, &strong).is_ok());

        let r = discard(&game, S1, &answer(r#"{"type":"opening","id":3}"#)).unwrap_err();
        assert_eq!(r.to_string(), "expected a discard answer, got opening");
        assert_eq!(r.kind(), FaultKind::WrongAnswer);
    }

    #[test]
    fn plays_are_held_cards() {
        let mut game = dealt(Rules { chant: false, ..Rules::default() });
        let Some(Turn::Play(leader)) = game.to_act() else { panic!("{:?}", game.to_act()) };
        let held = game.hand(leader).iter().next().unwrap();
        let line = |c: Card| answer(&format!(r#"{{"type":"play","id":4,"card":"{c}"}}"#));
        assert_eq!(play(&game, leader, &line(held)), Ok(held));
        let other = game.hand(leader.left()).iter().next().unwrap();
        let r = play(&game, leader, &line(other)).unwrap_err();
        assert_eq!(r.kind(), FaultKind::IllegalCard);
        assert_eq!(r.to_string(), format!("card {other} is not in your hand"));
        let r =
            play(&game, leader, &answer(r#"{"type":"discard","id":4,"cards":[]}"#)).unwrap_err();
        assert_eq!(
            (r.kind(), r.to_string().as_str()),
            (FaultKind::WrongAnswer, "expected a play answer, got discard")
        );
        game.apply(leader, Action::Play(held)).unwrap();
        assert!(play(&game, leader, &line(held)).is_err(), "a played card is held no more");
    }

    #[test]
    fn signals_are_few_known_and_allowed_by_the_rules() {
        let words = |n: usize| vec!["bad-hand".to_string(); n];
        assert_eq!(signal_count(&words(MAX_SIGNALS)), Ok(()));
        let r = signal_count(&words(MAX_SIGNALS + 1)).unwrap_err();
        assert_eq!(
            (r.kind(), r.to_string().as_str()),
            (FaultKind::BadSignal, "9 signals in one answer; at most 8")
        );

        let game = dealt(Rules::default());
        let r = signal(&game, S1, "tea").unwrap_err();
        assert_eq!(r.kind(), FaultKind::BadSignal);
        assert!(r.to_string().starts_with("\"tea\": "), "{r}");
        // Truthful signals (the default): a signal is refused when false for the hand.
        let hand = game.hand(S1);
        let aces = hand.iter().filter(|c| c.rank() == rules::Rank::Ace).count();
        assert!(signal(&game, S1, &format!("aces:{aces}")).is_ok());
        let lie = format!("aces:{}", (aces + 1) % 5);
        let r = signal(&game, S1, &lie).unwrap_err();
        assert_eq!(
            r,
            Refusal::Signal {
                word: lie.clone(),
                error: IllegalAction::FalseSignal(lie.parse().unwrap())
            }
        );
        assert_eq!(r.to_string(), format!("{lie}: signal {lie} is false for the hand held"));
        let free = dealt(Rules { signal_truth: SignalTruth::Free, ..Rules::default() });
        assert!(signal(&free, S1, &lie).is_ok());
        let off = dealt(Rules { signals: SignalDelivery::Off, ..Rules::default() });
        let r = signal(&off, S1, "bad-hand").unwrap_err();
        assert_eq!(r.to_string(), "bad-hand: signals are off in this game");
    }
}
