//! Every message of the conversation as a type, named by direction: [`ToBot`] and [`FromBot`].
//!
//! Referee messages may grow new fields and new types; bots must ignore what they do not know, so
//! [`ToBot`] decodes leniently (unknown fields dropped, unknown types as [`ToBot::Unknown`]); the
//! spec's transcripts are kept exact by a decode-and-re-encode test instead. Bot messages are
//! decoded strictly (`deny_unknown_fields`), so a bot's typo is caught and reported at once
//! instead of silently ignored.

use crate::wire::{CardCode, RulesWire};
use serde::{Deserialize, Serialize};

/// A seat number, 0..3 clockwise; teams are {0,2} and {1,3}.
pub type SeatNo = u8;

/// A card on the table, with who played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCard {
    /// The player.
    pub seat: SeatNo,
    /// The card.
    pub card: CardCode,
}

/// A chant vote made public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteCast {
    /// The voter.
    pub seat: SeatNo,
    /// True for accept.
    pub accept: bool,
}

/// The clocks of a game, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// Time for the handshake answer.
    pub handshake_ms: u64,
    /// Time for each answer, before the bank is drawn on.
    pub answer_ms: u64,
    /// Bank per game that absorbs overruns.
    pub bank_ms: u64,
}

/// A message from the referee to a bot. Questions carry an `id` that the answer must echo.
///
/// `Deserialize` is written by hand (see the `de` module below) to the exact behaviour of
/// `#[derive(Deserialize)]` with these attributes, without serde's buffering of every field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// First message of a connection; the bot answers with [`FromBot::Hello`].
    Hello {
        /// Question id.
        id: u64,
        /// Major protocol version the referee speaks.
        protocol: u32,
        /// Optional features offered.
        features: Vec<String>,
        /// Time allowed for the answer.
        time_ms: u64,
    },
    /// A game starts on this connection.
    Game {
        /// Game number, as in the record.
        game: u64,
        /// Your seat.
        seat: SeatNo,
        /// Your partner's seat.
        partner: SeatNo,
        /// Names of the bots in seats 0..3.
        players: Vec<String>,
        /// Rule options in force.
        rules: RulesWire,
        /// Clocks in force.
        clock: Clock,
    },
    /// A deal starts: your nine cards.
    Deal {
        /// Deal number in the game, 1-based (redeals included).
        deal: u16,
        /// The dealer.
        dealer: SeatNo,
        /// Your nine cards.
        hand: Vec<CardCode>,
    },
    /// The question before the first lead: the chant vote (when `vote` is true) and signals.
    Opening {
        /// Question id.
        id: u64,
        /// Deal number.
        deal: u16,
        /// The dealer.
        dealer: SeatNo,
        /// True when your chant vote is asked; the answer must then carry `accept`.
        vote: bool,
        /// Votes cast so far in this deal.
        votes: Vec<VoteCast>,
        /// Your hand.
        hand: Vec<CardCode>,
        /// Time for this answer.
        time_ms: u64,
        /// Bank left in this game.
        bank_ms: u64,
    },
    /// A chant vote, told to everyone.
    Vote {
        /// The voter.
        seat: SeatNo,
        /// True for accept.
        accept: bool,
    },
    /// The chant was decided.
    Chant {
        /// True when all four accepted.
        taken: bool,
    },
    /// You received talon cards: name 6 of your 15 cards to discard.
    Discard {
        /// Question id.
        id: u64,
        /// Deal number.
        deal: u16,
        /// Your 15 cards.
        hand: Vec<CardCode>,
        /// The 6 talon cards you received (also in `hand`).
        received: Vec<CardCode>,
        /// `free` or `keep-highest`.
        rule: String,
        /// Time for this answer.
        time_ms: u64,
        /// Bank left in this game.
        bank_ms: u64,
    },
    /// Your turn to play. Self-contained: a bot that keeps no state can answer it.
    Play {
        /// Question id.
        id: u64,
        /// Deal number.
        deal: u16,
        /// Trick number, 1..=9.
        trick: u8,
        /// Who led this trick.
        leader: SeatNo,
        /// Cards already played to this trick, in order.
        table: Vec<TableCard>,
        /// Your hand.
        hand: Vec<CardCode>,
        /// Tricks won so far in this deal, per seat.
        won: [u8; 4],
        /// Game score per team.
        score: [u16; 2],
        /// Time for this answer.
        time_ms: u64,
        /// Bank left in this game.
        bank_ms: u64,
    },
    /// A card was played.
    Played {
        /// The player.
        seat: SeatNo,
        /// The card.
        card: CardCode,
        /// Trick number.
        trick: u8,
    },
    /// A trick ended.
    Trick {
        /// Trick number.
        trick: u8,
        /// Who led it.
        leader: SeatNo,
        /// The four cards in play order.
        cards: Vec<TableCard>,
        /// The winner; `null` when spoiled.
        winner: Option<SeatNo>,
        /// Who leads next.
        next: SeatNo,
    },
    /// A deal ended.
    DealOver {
        /// Deal number.
        deal: u16,
        /// Tricks won per seat.
        tricks: [u8; 4],
        /// Winner of each trick, `null` when spoiled.
        winners: Vec<Option<SeatNo>>,
        /// The deal winner; `null` when every trick was spoiled.
        winner: Option<SeatNo>,
        /// Points scored by the winner's team.
        points: u8,
        /// True for mordienne.
        mordienne: bool,
        /// False when the deal is void and will be dealt again.
        counted: bool,
        /// Game score per team after this deal.
        score: [u16; 2],
    },
    /// The game ended.
    GameOver {
        /// Game number.
        game: u64,
        /// Final score per team.
        score: [u16; 2],
        /// Winning team, `null` for a draw.
        winner: Option<u8>,
        /// Team that forfeited, if the game ended by forfeit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forfeit: Option<u8>,
    },
    /// A partner's (or, by the rules in force, an opponent's) signal.
    Signal {
        /// Who signalled.
        from: SeatNo,
        /// The signal's wire name.
        signal: String,
    },
    /// Something the bot sent was not accepted.
    Error {
        /// The question it concerned, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// Fault class, as in records (`timeout`, `malformed`, `illegal_card`, ...).
        fault: String,
        /// What was wrong.
        message: String,
        /// What the referee did instead.
        action: String,
    },
    /// The connection ends; the bot should exit.
    Bye {
        /// Why.
        reason: String,
    },
    /// A message type this version does not know (a newer referee). Never sent.
    #[serde(other)]
    Unknown,
}

impl ToBot {
    /// The question id, for messages that need an answer.
    pub fn id(&self) -> Option<u64> {
        match self {
            ToBot::Hello { id, .. }
            | ToBot::Opening { id, .. }
            | ToBot::Discard { id, .. }
            | ToBot::Play { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// The `type` tag, for messages in logs and errors.
    pub fn kind(&self) -> &'static str {
        match self {
            ToBot::Hello { .. } => "hello",
            ToBot::Game { .. } => "game",
            ToBot::Deal { .. } => "deal",
            ToBot::Opening { .. } => "opening",
            ToBot::Vote { .. } => "vote",
            ToBot::Chant { .. } => "chant",
            ToBot::Discard { .. } => "discard",
            ToBot::Play { .. } => "play",
            ToBot::Played { .. } => "played",
            ToBot::Trick { .. } => "trick",
            ToBot::DealOver { .. } => "deal_over",
            ToBot::GameOver { .. } => "game_over",
            ToBot::Signal { .. } => "signal",
            ToBot::Error { .. } => "error",
            ToBot::Bye { .. } => "bye",
            ToBot::Unknown => "unknown",
        }
    }
}

/// A bot's answer. Its `type` is the type of the question it answers and its `id` echoes it.
///
/// An `id` may be any JSON number: an integer from 1 to 2^64 − 1, written without sign,
/// fraction or exponent, names the question with that id; every other number (`0`, `-1`, `-0`,
/// `18446744073709551616`, `3.0`, `3e0`) names no question the referee can ask, and decodes as
/// [`NO_QUESTION`]. So an answer to "a question never asked" is always a valid message with an
/// id the referee never gave out (`unknown_id` in records), never a malformed line.
///
/// `Deserialize` is written by hand (see the `de` module below) to the exact behaviour of
/// `#[derive(Deserialize)]` with these attributes, without serde's buffering of every field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromBot {
    /// Answer to `hello`.
    Hello {
        /// Echoed id.
        id: u64,
        /// The bot's name.
        name: String,
        /// The bot's version.
        version: String,
        /// The author, optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        author: Option<String>,
        /// The protocol major version the bot speaks, when it says; another version than the
        /// referee's is refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<u32>,
        /// The seat token, for bots that connect over TCP.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Answer to `opening`.
    Opening {
        /// Echoed id.
        id: u64,
        /// The chant vote; required exactly when the question asked for it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accept: Option<bool>,
        /// Signals, by wire name.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        signals: Vec<String>,
    },
    /// Answer to `discard`.
    Discard {
        /// Echoed id.
        id: u64,
        /// Exactly 6 cards of the hand.
        cards: Vec<CardCode>,
        /// Signals, by wire name.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        signals: Vec<String>,
    },
    /// Answer to `play`.
    Play {
        /// Echoed id.
        id: u64,
        /// The card played.
        card: CardCode,
        /// Signals, by wire name.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        signals: Vec<String>,
    },
}

/// The id an answer carries when its `id` was a number that no question can have (see
/// [`FromBot`]). Questions are numbered from 1, so this one is never asked.
pub const NO_QUESTION: u64 = 0;

impl FromBot {
    /// The echoed id; [`NO_QUESTION`] when it was a number that names no question.
    pub fn id(&self) -> u64 {
        match self {
            FromBot::Hello { id, .. }
            | FromBot::Opening { id, .. }
            | FromBot::Discard { id, .. }
            | FromBot::Play { id, .. } => *id,
        }
    }

    /// The `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            FromBot::Hello { .. } => "hello",
            FromBot::Opening { .. } => "opening",
            FromBot::Discard { .. } => "discard",
            FromBot::Play { .. } => "play",
        }
    }

    /// Signals carried by the answer.
    pub fn signals(&self) -> &[String] {
        match self {
            FromBot::Hello { .. } => &[],
            FromBot::Opening { signals, .. }
            | FromBot::Discard { signals, .. }
            | FromBot::Play { signals, .. } => signals,
        }
    }
}

/// Decoding of [`ToBot`] and [`FromBot`] without serde's generic buffering.
///
/// `#[derive(Deserialize)]` on an internally tagged enum first copies every key and value of the
/// object into serde's `Content` tree (strings, vectors, boxes), because the tag might come last,
/// and only then decodes the variant from that copy. The referee writes `type` first, and so do
/// the sample bots, so these decoders read the tag, then decode the variant's fields straight
/// from the input with a derived struct that has exactly the variant's fields and attributes.
/// An object whose first key is not `type`, and the array form that serde also accepts
/// (`["play", 3, "3o"]`), are buffered as serde does and decoded from the copy. Card codes are
/// read from the borrowed string rather than through a `String` each.
///
/// Accepted lines, decoded values and error messages are those of the derive (errors may now also
/// say where in the line they were found); the unit tests compare both on a table of lines. One
/// exception, in the lenient direction only: an unknown field nested inside a known one (`rules`,
/// `clock`, `table`, ...) is skipped by serde_json's fast skipper, which checks its JSON syntax
/// but not the range of its numbers nor its `\u` escapes; the derive rejected such a line.
mod de {
    use super::{Clock, FromBot, SeatNo, TableCard, ToBot, VoteCast};
    use crate::wire::{CardCode, RulesWire};
    use serde::de::value::{
        BorrowedStrDeserializer, MapAccessDeserializer, MapDeserializer, SeqDeserializer,
        StringDeserializer, UnitDeserializer,
    };
    use serde::de::{
        self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, IntoDeserializer, MapAccess,
        SeqAccess, Unexpected, Visitor,
    };
    use serde::{Deserialize, forward_to_deserialize_any};
    use std::borrow::Cow;
    use std::fmt;
    use std::marker::PhantomData;

    /// The tag key.
    const TAG: &str = "type";

    /// An internally tagged enum as the derive sees it: its variant identifiers and, per variant,
    /// a decoder of the fields. Implemented by `tagged_enum!`.
    trait Tagged: Sized {
        /// The variant identifier.
        type Tag: Copy;
        /// What the derive says it expected when the input is not an object: "internally tagged
        /// enum Name".
        const EXPECTING: &'static str;
        /// The variant named `name`, or the error the derive gives.
        fn tag_by_name<E: de::Error>(name: &str) -> Result<Self::Tag, E>;
        /// The variant at `index`, or the error the derive gives.
        fn tag_by_index<E: de::Error>(index: u64) -> Result<Self::Tag, E>;
        /// True when `key` is not a field of the variant and the enum ignores unknown fields: its
        /// value is then read in full, as serde's buffer did, before being ignored. Always false
        /// for strict enums, whose variants refuse unknown fields themselves.
        fn skips(tag: Self::Tag, key: &str) -> bool;
        /// Decodes the variant's fields (the object without its tag, or the array after it).
        fn variant<'de, D: Deserializer<'de>>(tag: Self::Tag, fields: D) -> Result<Self, D::Error>;
    }

    /// Declares the `Tagged` implementation of an enum: one derived struct per variant, which
    /// must list the variant's fields in order with their serde attributes (the conversion into
    /// the variant does not compile when a field is missing or extra), and the wire names.
    macro_rules! tagged_enum {
        (
            $enum:ident, $expecting:literal, lenient: $lenient:literal, other: [$($other:ident)?],
            container: $cattr:tt,
            $(
                $variant:ident = $wire:literal, $vexpecting:literal {
                    $( $(#[$fattr:meta])* $field:ident: $fty:ty, )*
                }
            )*
        ) => {
            /// Variant identifiers.
            #[derive(Clone, Copy, Debug)]
            pub(super) enum Tag { $( $variant, )* $( $other, )? }

            /// Every variant's fields as a struct; `expecting` gives the derive's error messages
            /// for the array form.
            mod fields {
                use super::*;
                $(
                    #[derive(Deserialize)]
                    #[serde(expecting = $vexpecting)]
                    #$cattr
                    pub(super) struct $variant { $( $(#[$fattr])* pub(super) $field: $fty, )* }
                )*
            }

            impl Tagged for $enum {
                type Tag = Tag;
                const EXPECTING: &'static str = $expecting;

                fn tag_by_name<E: de::Error>(name: &str) -> Result<Tag, E> {
                    const VARIANTS: &[&str] = &[$( $wire, )*];
                    let other: Option<Tag> = None $( .or(Some(Tag::$other)) )?;
                    match name {
                        $( $wire => Ok(Tag::$variant), )*
                        _ => other.ok_or_else(|| E::unknown_variant(name, VARIANTS)),
                    }
                }

                fn tag_by_index<E: de::Error>(index: u64) -> Result<Tag, E> {
                    const ALL: &[Tag] = &[$( Tag::$variant, )* $( Tag::$other, )?];
                    let other: Option<Tag> = None $( .or(Some(Tag::$other)) )?;
                    let found = usize::try_from(index).ok().and_then(|i| ALL.get(i).copied());
                    found.or(other).ok_or_else(|| {
                        let expected = format!("variant index 0 <= i < {}", ALL.len());
                        E::invalid_value(Unexpected::Unsigned(index), &expected.as_str())
                    })
                }

                fn skips(tag: Tag, key: &str) -> bool {
                    $lenient && match tag {
                        $( Tag::$variant => !matches!(key, $( stringify!($field) )|*), )*
                        $( Tag::$other => true, )?
                    }
                }

                fn variant<'de, D: Deserializer<'de>>(tag: Tag, d: D) -> Result<Self, D::Error> {
                    match tag {
                        $(
                            Tag::$variant => {
                                let v = fields::$variant::deserialize(d)?;
                                Ok($enum::$variant { $( $field: v.$field, )* })
                            }
                        )*
                        $(
                            Tag::$other => {
                                let name = concat!("unit variant ", stringify!($enum), "::", stringify!($other));
                                d.deserialize_any(UnitVariant(name))?;
                                Ok($enum::$other)
                            }
                        )?
                    }
                }
            }
        };
    }

    mod from_bot {
        use super::*;

        tagged_enum! {
            FromBot, "internally tagged enum FromBot", lenient: false, other: [],
            container: [serde(deny_unknown_fields)],
            Hello = "hello", "struct variant FromBot::Hello with 6 elements" {
                #[serde(deserialize_with = "answer_id")]
                id: u64,
                name: String,
                version: String,
                #[serde(default)]
                author: Option<String>,
                #[serde(default)]
                protocol: Option<u32>,
                #[serde(default)]
                token: Option<String>,
            }
            Opening = "opening", "struct variant FromBot::Opening with 3 elements" {
                #[serde(deserialize_with = "answer_id")]
                id: u64,
                #[serde(default)]
                accept: Option<bool>,
                #[serde(default)]
                signals: Vec<String>,
            }
            Discard = "discard", "struct variant FromBot::Discard with 3 elements" {
                #[serde(deserialize_with = "answer_id")]
                id: u64,
                #[serde(deserialize_with = "cards")]
                cards: Vec<CardCode>,
                #[serde(default)]
                signals: Vec<String>,
            }
            Play = "play", "struct variant FromBot::Play with 3 elements" {
                #[serde(deserialize_with = "answer_id")]
                id: u64,
                #[serde(deserialize_with = "card")]
                card: CardCode,
                #[serde(default)]
                signals: Vec<String>,
            }
        }
    }

    mod to_bot {
        use super::*;

        tagged_enum! {
            ToBot, "internally tagged enum ToBot", lenient: true, other: [Unknown],
            container: [serde()],
            Hello = "hello", "struct variant ToBot::Hello with 4 elements" {
                id: u64,
                protocol: u32,
                features: Vec<String>,
                time_ms: u64,
            }
            Game = "game", "struct variant ToBot::Game with 6 elements" {
                game: u64,
                seat: SeatNo,
                partner: SeatNo,
                players: Vec<String>,
                rules: RulesWire,
                clock: Clock,
            }
            Deal = "deal", "struct variant ToBot::Deal with 3 elements" {
                deal: u16,
                dealer: SeatNo,
                #[serde(deserialize_with = "cards")]
                hand: Vec<CardCode>,
            }
            Opening = "opening", "struct variant ToBot::Opening with 8 elements" {
                id: u64,
                deal: u16,
                dealer: SeatNo,
                vote: bool,
                votes: Vec<VoteCast>,
                #[serde(deserialize_with = "cards")]
                hand: Vec<CardCode>,
                time_ms: u64,
                bank_ms: u64,
            }
            Vote = "vote", "struct variant ToBot::Vote with 2 elements" {
                seat: SeatNo,
                accept: bool,
            }
            Chant = "chant", "struct variant ToBot::Chant with 1 element" {
                taken: bool,
            }
            Discard = "discard", "struct variant ToBot::Discard with 7 elements" {
                id: u64,
                deal: u16,
                #[serde(deserialize_with = "cards")]
                hand: Vec<CardCode>,
                #[serde(deserialize_with = "cards")]
                received: Vec<CardCode>,
                rule: String,
                time_ms: u64,
                bank_ms: u64,
            }
            Play = "play", "struct variant ToBot::Play with 10 elements" {
                id: u64,
                deal: u16,
                trick: u8,
                leader: SeatNo,
                #[serde(deserialize_with = "table_cards")]
                table: Vec<TableCard>,
                #[serde(deserialize_with = "cards")]
                hand: Vec<CardCode>,
                won: [u8; 4],
                score: [u16; 2],
                time_ms: u64,
                bank_ms: u64,
            }
            Played = "played", "struct variant ToBot::Played with 3 elements" {
                seat: SeatNo,
                #[serde(deserialize_with = "card")]
                card: CardCode,
                trick: u8,
            }
            Trick = "trick", "struct variant ToBot::Trick with 5 elements" {
                trick: u8,
                leader: SeatNo,
                #[serde(deserialize_with = "table_cards")]
                cards: Vec<TableCard>,
                winner: Option<SeatNo>,
                next: SeatNo,
            }
            DealOver = "deal_over", "struct variant ToBot::DealOver with 8 elements" {
                deal: u16,
                tricks: [u8; 4],
                winners: Vec<Option<SeatNo>>,
                winner: Option<SeatNo>,
                points: u8,
                mordienne: bool,
                counted: bool,
                score: [u16; 2],
            }
            GameOver = "game_over", "struct variant ToBot::GameOver with 4 elements" {
                game: u64,
                score: [u16; 2],
                winner: Option<u8>,
                #[serde(default)]
                forfeit: Option<u8>,
            }
            Signal = "signal", "struct variant ToBot::Signal with 2 elements" {
                from: SeatNo,
                signal: String,
            }
            Error = "error", "struct variant ToBot::Error with 4 elements" {
                #[serde(default)]
                id: Option<u64>,
                fault: String,
                message: String,
                action: String,
            }
            Bye = "bye", "struct variant ToBot::Bye with 1 element" {
                reason: String,
            }
        }
    }

    /// An answer's `id` (see [`FromBot`]): any JSON number. serde_json hands a visitor a `u64`
    /// only for an integer written without sign, fraction or exponent that fits; a negative
    /// integer comes as `i64`, and everything else (fractions, exponents, `-0`, integers beyond
    /// 2^64 − 1) as `f64`. Those name no question. A number beyond the range of a double
    /// (`1e999`) is an error of serde_json itself, as everywhere else in a line.
    pub(super) fn answer_id<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(AnswerIdVisitor)
    }

    struct AnswerIdVisitor;

    impl<'de> Visitor<'de> for AnswerIdVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an integer id")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            Ok(u64::try_from(v).unwrap_or(super::NO_QUESTION))
        }

        fn visit_f64<E: de::Error>(self, _: f64) -> Result<u64, E> {
            Ok(super::NO_QUESTION)
        }
    }

    /// A card code read from the borrowed string: `CardCode`'s own `Deserialize` makes a `String`
    /// of it first. Same errors.
    fn card<'de, D: Deserializer<'de>>(d: D) -> Result<CardCode, D::Error> {
        d.deserialize_str(CardVisitor)
    }

    /// A list of card codes, as `Vec<CardCode>` decodes it, without a `String` per card.
    fn cards<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<CardCode>, D::Error> {
        d.deserialize_seq(ListVisitor::<Card, CardCode>(PhantomData))
    }

    /// A list of table cards, as `Vec<TableCard>` decodes it, without a `String` per card.
    fn table_cards<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TableCard>, D::Error> {
        d.deserialize_seq(ListVisitor::<table::TableCard, TableCard>(PhantomData))
    }

    struct CardVisitor;

    impl<'de> Visitor<'de> for CardVisitor {
        type Value = CardCode;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<CardCode, E> {
            v.parse().map_err(E::custom)
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<CardCode, E> {
            match std::str::from_utf8(v) {
                Ok(v) => self.visit_str(v),
                Err(_) => Err(E::invalid_value(Unexpected::Bytes(v), &self)),
            }
        }
    }

    /// One card of a list.
    struct Card(CardCode);

    impl<'de> Deserialize<'de> for Card {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
            card(d).map(Card)
        }
    }

    impl From<Card> for CardCode {
        fn from(Card(card): Card) -> CardCode {
            card
        }
    }

    mod table {
        use super::{CardCode, SeatNo, card};
        use serde::Deserialize;

        /// `msg::TableCard` with the cheaper card; the same name, so the same error messages.
        #[derive(Deserialize)]
        pub(super) struct TableCard {
            seat: SeatNo,
            #[serde(deserialize_with = "card")]
            card: CardCode,
        }

        impl From<TableCard> for super::TableCard {
            fn from(TableCard { seat, card }: TableCard) -> super::TableCard {
                super::TableCard { seat, card }
            }
        }
    }

    /// The visitor of `Vec<T>`, each element decoded as `F`. Room for the whole list (16 when
    /// the input does not tell, as serde_json does not) is made at the first element.
    struct ListVisitor<F, T>(PhantomData<(F, T)>);

    impl<'de, F: Deserialize<'de> + Into<T>, T> Visitor<'de> for ListVisitor<F, T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut list = Vec::new();
            while let Some(item) = seq.next_element::<F>()? {
                if list.is_empty() {
                    list.reserve(1 + seq.size_hint().unwrap_or(15).min(63));
                }
                list.push(item.into());
            }
            Ok(list)
        }
    }

    impl<'de> Deserialize<'de> for FromBot {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FromBot, D::Error> {
            d.deserialize_any(TaggedVisitor(PhantomData))
        }
    }

    impl<'de> Deserialize<'de> for ToBot {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ToBot, D::Error> {
            d.deserialize_any(TaggedVisitor(PhantomData))
        }
    }

    /// The visitor of the whole message: an object (or an array) whose `type` names the variant.
    struct TaggedVisitor<T>(PhantomData<T>);

    impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(T::EXPECTING)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let Some(Key(first)) = map.next_key()? else {
                return Err(A::Error::missing_field(TAG));
            };
            if first == TAG {
                // The usual case: the fields are decoded as they come.
                let TagOf(tag) = map.next_value::<TagOf<T>>()?;
                let rest = Rest::<A, T> { map, tag, skip_value: false };
                return T::variant(tag, MapAccessDeserializer::new(rest));
            }
            // The tag comes later: keep the fields until it is known, as the derive does.
            let mut tag = None;
            let mut entries = Vec::new();
            let mut key = Some(first);
            while let Some(k) = key {
                if k == TAG {
                    if tag.is_some() {
                        return Err(A::Error::duplicate_field(TAG));
                    }
                    tag = Some(map.next_value::<TagOf<T>>()?.0);
                } else {
                    entries.push((Buf::from(k), map.next_value::<Buf<'de>>()?));
                }
                key = map.next_key::<Key<'de>>()?.map(|Key(k)| k);
            }
            let tag = tag.ok_or_else(|| A::Error::missing_field(TAG))?;
            T::variant(tag, BufDeserializer::new(Buf::Map(entries)))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            // `["play", 3, "3o"]`: the tag, then the fields in order. No bot writes this, but the
            // derive accepts it, so it is kept.
            let Some(TagOf(tag)) = seq.next_element::<TagOf<T>>()? else {
                return Err(A::Error::missing_field(TAG));
            };
            let mut rest = Vec::new();
            while let Some(value) = seq.next_element::<Buf<'de>>()? {
                rest.push(value);
            }
            T::variant(tag, BufDeserializer::new(Buf::Seq(rest)))
        }
    }

    /// The value of `type`: a variant identifier.
    struct TagOf<T: Tagged>(T::Tag);

    impl<'de, T: Tagged> Deserialize<'de> for TagOf<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TagOf<T>, D::Error> {
            d.deserialize_identifier(TagVisitor(PhantomData))
        }
    }

    struct TagVisitor<T>(PhantomData<T>);

    impl<'de, T: Tagged> Visitor<'de> for TagVisitor<T> {
        type Value = TagOf<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("variant identifier")
        }

        fn visit_u64<E: de::Error>(self, index: u64) -> Result<TagOf<T>, E> {
            T::tag_by_index(index).map(TagOf)
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<TagOf<T>, E> {
            T::tag_by_name(name).map(TagOf)
        }

        fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<TagOf<T>, E> {
            T::tag_by_name(&String::from_utf8_lossy(name)).map(TagOf)
        }
    }

    /// An object key, borrowed from the input when it has no escapes.
    struct Key<'de>(Cow<'de, str>);

    impl<'de> Deserialize<'de> for Key<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
            d.deserialize_str(KeyVisitor)
        }
    }

    struct KeyVisitor;

    impl<'de> Visitor<'de> for KeyVisitor {
        type Value = Key<'de>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a field name")
        }

        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
            Ok(Key(Cow::Borrowed(v)))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
            Ok(Key(Cow::Owned(v.to_owned())))
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
            Ok(Key(Cow::Owned(v)))
        }
    }

    /// The rest of an object after its leading `type`, as the variant's struct sees it: a second
    /// `type` is an error (the derive's "duplicate field"), and for lenient enums the values of
    /// unknown fields are read in full, as serde's buffer read them, before being ignored.
    struct Rest<A, T: Tagged> {
        map: A,
        tag: T::Tag,
        /// The key just given is unknown: its value is skipped here.
        skip_value: bool,
    }

    impl<'de, A: MapAccess<'de>, T: Tagged> MapAccess<'de> for Rest<A, T> {
        type Error = A::Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, A::Error> {
            let Some(Key(key)) = self.map.next_key()? else { return Ok(None) };
            if key == TAG {
                return Err(A::Error::duplicate_field(TAG));
            }
            self.skip_value = T::skips(self.tag, &key);
            match key {
                Cow::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::new(key)),
                Cow::Owned(key) => seed.deserialize(StringDeserializer::new(key)),
            }
            .map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, A::Error> {
            if std::mem::take(&mut self.skip_value) {
                // The derived struct ignores an unknown field's value with `IgnoredAny`, which
                // accepts the unit given here once the real value has been checked.
                self.map.next_value::<Buf<'de>>()?;
                return seed.deserialize(UnitDeserializer::new());
            }
            self.map.next_value_seed(seed)
        }

        fn size_hint(&self) -> Option<usize> {
            self.map.size_hint()
        }
    }

    /// The derive's visitor of a unit variant's content (`ToBot::Unknown`): every field of an
    /// object is ignored; an array must be empty (its leftovers are the caller's error).
    struct UnitVariant(&'static str);

    impl<'de> Visitor<'de> for UnitVariant {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            Ok(())
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(())
        }
    }

    /// A JSON value kept whole, in order and with duplicate keys: serde's `Content`, for the rare
    /// message that must be buffered.
    #[derive(Debug)]
    enum Buf<'de> {
        Unit,
        Bool(bool),
        U64(u64),
        I64(i64),
        F64(f64),
        Str(&'de str),
        String(String),
        Seq(Vec<Buf<'de>>),
        Map(Vec<(Buf<'de>, Buf<'de>)>),
    }

    impl<'de> From<Cow<'de, str>> for Buf<'de> {
        fn from(s: Cow<'de, str>) -> Buf<'de> {
            match s {
                Cow::Borrowed(s) => Buf::Str(s),
                Cow::Owned(s) => Buf::String(s),
            }
        }
    }

    impl<'de> Deserialize<'de> for Buf<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Buf<'de>, D::Error> {
            d.deserialize_any(BufVisitor)
        }
    }

    struct BufVisitor;

    impl<'de> Visitor<'de> for BufVisitor {
        type Value = Buf<'de>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any value")
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Buf<'de>, E> {
            Ok(Buf::Bool(v))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Buf<'de>, E> {
            Ok(Buf::I64(v))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Buf<'de>, E> {
            Ok(Buf::U64(v))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Buf<'de>, E> {
            Ok(Buf::F64(v))
        }

        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Buf<'de>, E> {
            Ok(Buf::Str(v))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Buf<'de>, E> {
            Ok(Buf::String(v.to_owned()))
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Buf<'de>, E> {
            Ok(Buf::String(v))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Buf<'de>, E> {
            Ok(Buf::Unit)
        }

        fn visit_none<E: de::Error>(self) -> Result<Buf<'de>, E> {
            Ok(Buf::Unit)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Buf<'de>, D::Error> {
            Buf::deserialize(d)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Buf<'de>, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(Buf::Seq(items))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Buf<'de>, A::Error> {
            let mut entries = Vec::new();
            while let Some(entry) = map.next_entry()? {
                entries.push(entry);
            }
            Ok(Buf::Map(entries))
        }
    }

    /// Replays a [`Buf`] to a visitor, as serde's `ContentDeserializer` does.
    struct BufDeserializer<'de, E> {
        buf: Buf<'de>,
        error: PhantomData<E>,
    }

    impl<'de, E> BufDeserializer<'de, E> {
        fn new(buf: Buf<'de>) -> Self {
            BufDeserializer { buf, error: PhantomData }
        }
    }

    impl<'de, E: de::Error> IntoDeserializer<'de, E> for Buf<'de> {
        type Deserializer = BufDeserializer<'de, E>;

        fn into_deserializer(self) -> BufDeserializer<'de, E> {
            BufDeserializer::new(self)
        }
    }

    impl<'de, E: de::Error> Deserializer<'de> for BufDeserializer<'de, E> {
        type Error = E;

        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
            match self.buf {
                Buf::Unit => visitor.visit_unit(),
                Buf::Bool(v) => visitor.visit_bool(v),
                Buf::U64(v) => visitor.visit_u64(v),
                Buf::I64(v) => visitor.visit_i64(v),
                Buf::F64(v) => visitor.visit_f64(v),
                Buf::Str(v) => visitor.visit_borrowed_str(v),
                Buf::String(v) => visitor.visit_string(v),
                Buf::Seq(items) => {
                    let mut seq = SeqDeserializer::new(items.into_iter());
                    let value = visitor.visit_seq(&mut seq)?;
                    seq.end()?;
                    Ok(value)
                }
                Buf::Map(entries) => {
                    let mut map = MapDeserializer::new(entries.into_iter());
                    let value = visitor.visit_map(&mut map)?;
                    map.end()?;
                    Ok(value)
                }
            }
        }

        fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
            match self.buf {
                Buf::Unit => visitor.visit_none(),
                _ => visitor.visit_some(self),
            }
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
            visitor.visit_unit()
        }

        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        }
    }
}

#[cfg(test)]
mod tests {
    //! The hand-written decoders against the derive they replace.

    use super::*;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    /// The derived decoders, on copies of the two enums with the same names and attributes.
    mod derived {
        use super::super::{Clock, SeatNo, TableCard, VoteCast};
        use crate::wire::{CardCode, RulesWire};
        use serde::{Deserialize, Serialize};

        #[derive(Debug, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
        pub(super) enum FromBot {
            Hello {
                #[serde(deserialize_with = "crate::msg::de::answer_id")]
                id: u64,
                name: String,
                version: String,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                author: Option<String>,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                protocol: Option<u32>,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                token: Option<String>,
            },
            Opening {
                #[serde(deserialize_with = "crate::msg::de::answer_id")]
                id: u64,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                accept: Option<bool>,
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                signals: Vec<String>,
            },
            Discard {
                #[serde(deserialize_with = "crate::msg::de::answer_id")]
                id: u64,
                cards: Vec<CardCode>,
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                signals: Vec<String>,
            },
            Play {
                #[serde(deserialize_with = "crate::msg::de::answer_id")]
                id: u64,
                card: CardCode,
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                signals: Vec<String>,
            },
        }

        #[derive(Debug, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub(super) enum ToBot {
            Hello {
                id: u64,
                protocol: u32,
                features: Vec<String>,
                time_ms: u64,
            },
            Game {
                game: u64,
                seat: SeatNo,
                partner: SeatNo,
                players: Vec<String>,
                rules: RulesWire,
                clock: Clock,
            },
            Deal {
                deal: u16,
                dealer: SeatNo,
                hand: Vec<CardCode>,
            },
            Opening {
                id: u64,
                deal: u16,
                dealer: SeatNo,
                vote: bool,
                votes: Vec<VoteCast>,
                hand: Vec<CardCode>,
                time_ms: u64,
                bank_ms: u64,
            },
            Vote {
                seat: SeatNo,
                accept: bool,
            },
            Chant {
                taken: bool,
            },
            Discard {
                id: u64,
                deal: u16,
                hand: Vec<CardCode>,
                received: Vec<CardCode>,
                rule: String,
                time_ms: u64,
                bank_ms: u64,
            },
            Play {
                id: u64,
                deal: u16,
                trick: u8,
                leader: SeatNo,
                table: Vec<TableCard>,
                hand: Vec<CardCode>,
                won: [u8; 4],
                score: [u16; 2],
                time_ms: u64,
                bank_ms: u64,
            },
            Played {
                seat: SeatNo,
                card: CardCode,
                trick: u8,
            },
            Trick {
                trick: u8,
                leader: SeatNo,
                cards: Vec<TableCard>,
                winner: Option<SeatNo>,
                next: SeatNo,
            },
            DealOver {
                deal: u16,
                tricks: [u8; 4],
                winners: Vec<Option<SeatNo>>,
                winner: Option<SeatNo>,
                points: u8,
                mordienne: bool,
                counted: bool,
                score: [u16; 2],
            },
            GameOver {
                game: u64,
                score: [u16; 2],
                winner: Option<u8>,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                forfeit: Option<u8>,
            },
            Signal {
                from: SeatNo,
                signal: String,
            },
            Error {
                #[serde(default, skip_serializing_if = "Option::is_none")]
                id: Option<u64>,
                fault: String,
                message: String,
                action: String,
            },
            Bye {
                reason: String,
            },
            #[serde(other)]
            Unknown,
        }
    }

    /// An error message without serde_json's " at line L column C", which the derive could not
    /// add to errors found after its buffering.
    fn without_position(message: &str) -> &str {
        match message.rfind(" at line ") {
            Some(at) if message[at..].contains(" column ") => &message[..at],
            _ => message,
        }
    }

    /// How both decoders take `line`: the same value (compared through the shared encoding), or
    /// both an error. With `messages`, the errors must also say the same thing.
    fn same<New, Old>(line: &str, messages: bool) -> Result<Value, String>
    where
        New: DeserializeOwned + Serialize + fmt::Debug,
        Old: DeserializeOwned + Serialize + fmt::Debug,
    {
        let new = serde_json::from_str::<New>(line);
        let old = serde_json::from_str::<Old>(line);
        match (new, old) {
            (Ok(new), Ok(old)) => {
                let new = serde_json::to_value(&new).unwrap();
                assert_eq!(new, serde_json::to_value(&old).unwrap(), "{line}");
                Ok(new)
            }
            (Err(new), Err(old)) => {
                let (new, old) = (new.to_string(), old.to_string());
                if messages {
                    assert_eq!(without_position(&new), without_position(&old), "{line}");
                }
                Err(new)
            }
            (new, old) => panic!("{line}\n  hand-written: {new:?}\n  derived: {old:?}"),
        }
    }

    fn from_bot(line: &str) -> Result<Value, String> {
        same::<FromBot, derived::FromBot>(line, true)
    }

    fn to_bot(line: &str) -> Result<Value, String> {
        same::<ToBot, derived::ToBot>(line, true)
    }

    use std::fmt;

    /// Issue 12: `-1` and `-0` were malformed lines (a strike), although spec 6.1 makes an id
    /// never asked an ignored `unknown_id`. Every number that cannot be a question's id decodes,
    /// in every spelling of the message, to the one id no question has.
    #[test]
    fn ids_no_question_can_have_decode_as_no_question() {
        let never = [
            "-1",
            "-0",
            "-0.0",
            "-9223372036854775809",
            "18446744073709551616",
            "123456789012345678901234567890",
            "3.0",
            "3.5",
            "3e0",
            "0.3e1",
            "1E2",
            "0",
        ];
        for id in never {
            for line in [
                format!(r#"{{"type":"play","id":{id},"card":"3o"}}"#),
                format!(r#"{{"card":"3o","id":{id},"type":"play"}}"#),
                format!(r#"["play",{id},"3o"]"#),
                format!(r#"{{"type":"hello","id":{id},"name":"b","version":"1"}}"#),
                format!(r#"{{"type":"opening","id":{id}}}"#),
                format!(r#"{{"id":{id},"type":"discard","cards":[]}}"#),
            ] {
                let value = from_bot(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(value["id"], NO_QUESTION, "{line}");
                let msg: FromBot = serde_json::from_str(&line).unwrap();
                assert_eq!(msg.id(), NO_QUESTION, "{line}");
            }
        }
        for (id, want) in [("1", 1), ("18446744073709551615", u64::MAX), ("42", 42)] {
            let line = format!(r#"{{"type":"play","id":{id},"card":"3o"}}"#);
            assert_eq!(serde_json::from_str::<FromBot>(&line).unwrap().id(), want, "{line}");
            assert_eq!(crate::codec::decode_line::<FromBot>(line.as_bytes()).unwrap().id(), want);
        }
    }

    #[test]
    fn from_bot_decodes_as_the_derive() {
        let ok = [
            r#"{"type":"hello","id":1,"name":"b","version":"1"}"#,
            r#"{"type":"hello","id":1,"name":"b","version":"1","author":"a","protocol":1,"token":"t"}"#,
            r#"{"type":"hello","id":1,"name":"b","version":"1","author":null,"protocol":null}"#,
            r#"{"type":"hello","id":1,"name":"b\u00e9\n","version":"\ud83d\ude00"}"#,
            r#"{"type":"opening","id":2}"#,
            r#"{"type":"opening","id":2,"accept":true,"signals":["monsieur","aces:2"]}"#,
            r#"{"type":"opening","id":2,"accept":null,"signals":[]}"#,
            r#"{"type":"discard","id":3,"cards":["3o","Kc","Ab","9s","Jo","Cc"]}"#,
            r#"{"type":"discard","id":3,"cards":[],"signals":["borgne"]}"#,
            r#"{"type":"play","id":4,"card":"3o"}"#,
            r#"{"type":"play","id":4,"card":"3o","signals":["vache"]}"#,
            r#"{"type":"play","id":0,"card":"\u0033o"}"#,
            r#"  { "type" : "play" , "id" : 4 , "card" : "3o" }  "#,
            // The tag need not come first, nor be spelled without escapes.
            r#"{"id":4,"card":"3o","type":"play"}"#,
            r#"{"card":"3o","type":"play","id":4,"signals":["vache"]}"#,
            r#"{"\u0074ype":"play","id":4,"card":"3o"}"#,
            r#"{"type":"pl\u0061y","i\u0064":4,"card":"3o"}"#,
            // The derive also takes an array: the tag, then the fields in order.
            r#"["play",4,"3o"]"#,
            r#"["play",4,"3o",["vache"]]"#,
            r#"["opening",2]"#,
            r#"["hello",1,"b","1",null,1]"#,
        ];
        for line in ok {
            assert!(from_bot(line).is_ok(), "{line}");
        }
        // Lines with one fault each, and what the derive says about them.
        let bad = [
            (
                r#"{"type":"opening","id":2,"card":"3o"}"#,
                "unknown field `card`, expected one of `id`, `accept`, `signals`",
            ),
            (
                r#"{"type":"play","id":3,"card":"3o","seat":1}"#,
                "unknown field `seat`, expected one of `id`, `card`, `signals`",
            ),
            (
                r#"{"seat":1,"type":"play","id":3,"card":"3o"}"#,
                "unknown field `seat`, expected one of `id`, `card`, `signals`",
            ),
            (
                r#"{"type":"hello","id":1,"name":"b","version":"1","vote":true}"#,
                "unknown field `vote`, expected one of `id`, `name`, `version`, `author`, `protocol`, `token`",
            ),
            (r#"{"type":"play","id":3}"#, "missing field `card`"),
            (r#"{"type":"play","card":"3o"}"#, "missing field `id`"),
            (r#"{"type":"discard","id":3}"#, "missing field `cards`"),
            (r#"{"type":"hello","id":1,"version":"1"}"#, "missing field `name`"),
            (
                r#"{"type":"dance","id":3}"#,
                "unknown variant `dance`, expected one of `hello`, `opening`, `discard`, `play`",
            ),
            (
                r#"{"id":3,"type":"dance"}"#,
                "unknown variant `dance`, expected one of `hello`, `opening`, `discard`, `play`",
            ),
            (r#"{"type":"Play","id":3,"card":"3o"}"#, "unknown variant `Play`"),
            (
                r#"{"type":3,"id":3,"card":"3o"}"#,
                "invalid type: integer `3`, expected variant identifier",
            ),
            (
                r#"{"type":null,"id":3,"card":"3o"}"#,
                "invalid type: null, expected variant identifier",
            ),
            (r#"{"id":3,"card":"3o"}"#, "missing field `type`"),
            (r#"{}"#, "missing field `type`"),
            (r#"[]"#, "missing field `type`"),
            (r#"{"type":"play","type":"play","id":3,"card":"3o"}"#, "duplicate field `type`"),
            (r#"{"id":3,"type":"play","card":"3o","type":"play"}"#, "duplicate field `type`"),
            (r#"{"type":"play","id":3,"id":3,"card":"3o"}"#, "duplicate field `id`"),
            (r#"{"id":3,"type":"play","id":4,"card":"3o"}"#, "duplicate field `id`"),
            (r#"{"type":"play","id":3,"card":"Zz"}"#, "\"Zz\" is not a card code"),
            (r#"{"type":"play","id":3,"card":null}"#, "invalid type: null, expected a string"),
            (
                r#"{"type":"play","id":null,"card":"3o"}"#,
                "invalid type: null, expected an integer id",
            ),
            (
                r#"{"type":"play","id":"3","card":"3o"}"#,
                "invalid type: string \"3\", expected an integer id",
            ),
            (
                r#"{"type":"play","id":true,"card":"3o"}"#,
                "invalid type: boolean `true`, expected an integer id",
            ),
            (r#"{"type":"play","id":[3],"card":"3o"}"#, "invalid type: sequence"),
            (r#"{"type":"play","id":1e999,"card":"3o"}"#, "number out of range"),
            (
                r#"{"type":"play","id":3,"card":"3o","signals":null}"#,
                "invalid type: null, expected a sequence",
            ),
            (
                r#"{"type":"play","id":3,"card":"3o","signals":[1]}"#,
                "invalid type: integer `1`, expected a string",
            ),
            (
                r#"{"type":"hello","id":1,"name":"b","version":"1","protocol":4294967296}"#,
                "invalid value: integer `4294967296`, expected u32",
            ),
            (
                r#"{"type":"opening","id":2,"accept":"yes"}"#,
                "invalid type: string \"yes\", expected a boolean",
            ),
            (
                r#"{"type":"discard","id":3,"cards":"3o"}"#,
                "invalid type: string \"3o\", expected a sequence",
            ),
            (r#"{"type":"play","id":3,"card":{"x":1}}"#, "invalid type: map, expected a string"),
            (r#""play""#, "invalid type: string \"play\", expected internally tagged enum FromBot"),
            (r#"null"#, "invalid type: null, expected internally tagged enum FromBot"),
            (
                r#"["play",3]"#,
                "invalid length 1, expected struct variant FromBot::Play with 3 elements",
            ),
            (r#"["play",3,"3o",[],1]"#, "invalid length 4, expected 3 elements in sequence"),
            (
                r#"["hello"]"#,
                "invalid length 0, expected struct variant FromBot::Hello with 6 elements",
            ),
            (r#"["dance",3]"#, "unknown variant `dance`"),
        ];
        for (line, says) in bad {
            let error = from_bot(line).expect_err(line);
            assert!(error.contains(says), "{line}: {error}");
        }
        // Syntax errors: where the derive stops first, so does the hand-written decoder.
        for line in [
            r#"{"type":"play","id":3,"card":"3o"} junk"#,
            r#"{"type":"play","id":3,"card":"3o""#,
            r#"{"type":"play","id":3,"card":"3o",}"#,
            r#"{"type":"play","id":3,"card":"3o"#,
            r#"{"type":"play","id":3,"card":"\ud800"}"#,
            r#"{"type":"play","id":3,"card":"3o","signals":[1e999]}"#,
            r#"{"id":3,"card":"3o","type":"play","x":[1e999]}"#,
            r#"{"type":"pla"#,
            r#"{"typ"#,
            "{\"type\":\"play\",\"id\":3,\"card\":\"3\no\"}",
            "",
        ] {
            assert!(from_bot(line).is_err(), "{line}");
        }
    }

    #[test]
    fn to_bot_decodes_as_the_derive() {
        let rules = r#"{"seating":"given","chant":"on","chant-second":"dealer","discard":"free","all-spoiled":"nothing","mordienne":"on","mordienne-run":2,"deals":4,"on-tie":"draw","signals":"partner","signal-leak":0.25,"signal-truth":"truthful"}"#;
        let clock = r#"{"handshake_ms":5000,"answer_ms":1000,"bank_ms":10000}"#;
        let ok = [
            r#"{"type":"hello","id":1,"protocol":1,"features":["signals","persistent"],"time_ms":5000}"#.to_string(),
            format!(r#"{{"type":"game","game":1,"seat":0,"partner":2,"players":["a","b","c","d"],"rules":{rules},"clock":{clock}}}"#),
            format!(r#"{{"clock":{clock},"type":"game","game":1,"seat":0,"partner":2,"players":["a","b","c","d"],"rules":{rules},"new":{{"a":[1,2]}}}}"#),
            r#"{"type":"deal","deal":1,"dealer":3,"hand":["3o","Kc"]}"#.into(),
            r#"{"type":"opening","id":2,"deal":1,"dealer":3,"vote":true,"votes":[{"seat":0,"accept":true}],"hand":["3o"],"time_ms":1000,"bank_ms":9000}"#.into(),
            r#"{"type":"vote","seat":1,"accept":false}"#.into(),
            r#"{"type":"chant","taken":true}"#.into(),
            r#"{"type":"discard","id":3,"deal":1,"hand":["3o"],"received":["Kc"],"rule":"free","time_ms":1000,"bank_ms":9000}"#.into(),
            r#"{"type":"play","id":4,"deal":1,"trick":2,"leader":1,"table":[{"seat":1,"card":"Ab"}],"hand":["3o"],"won":[1,0,0,0],"score":[0,3],"time_ms":1000,"bank_ms":9000}"#.into(),
            r#"{"type":"played","seat":1,"card":"Ab","trick":2}"#.into(),
            r#"{"type":"played","seat":1,"card":"Ab","trick":2,"extra":{"deep":[null,1.5,-2,"x\u00e9"]}}"#.into(),
            r#"{"seat":1,"card":"Ab","trick":2,"type":"played"}"#.into(),
            r#"{"type":"trick","trick":2,"leader":1,"cards":[{"seat":1,"card":"Ab"}],"winner":null,"next":1}"#.into(),
            r#"{"type":"trick","trick":2,"leader":1,"cards":[],"next":1}"#.into(),
            r#"{"type":"deal_over","deal":1,"tricks":[5,2,1,1],"winners":[0,null],"winner":0,"points":1,"mordienne":false,"counted":true,"score":[1,0]}"#.into(),
            r#"{"type":"game_over","game":1,"score":[5,3],"winner":0}"#.into(),
            r#"{"type":"game_over","game":1,"score":[5,3],"winner":null,"forfeit":1}"#.into(),
            r#"{"type":"signal","from":2,"signal":"monsieur"}"#.into(),
            r#"{"type":"error","fault":"malformed","message":"m","action":"a"}"#.into(),
            r#"{"type":"error","id":null,"fault":"malformed","message":"m","action":"a"}"#.into(),
            r#"{"type":"bye","reason":"x","extra":1}"#.into(),
            r#"{"type":"future_thing","x":1,"y":{"z":[]}}"#.into(),
            r#"{"x":1,"type":"future_thing"}"#.into(),
            r#"{"type":"unknown"}"#.into(),
            r#"["bye","x"]"#.into(),
            r#"["future_thing"]"#.into(),
            r#"["chant",true]"#.into(),
        ];
        for line in &ok {
            assert!(to_bot(line).is_ok(), "{line}");
        }
        let bad = [
            (r#"{"type":"bye"}"#, "missing field `reason`"),
            (r#"{"type":"bye","reason":"x","reason":"y"}"#, "duplicate field `reason`"),
            (r#"{"type":"bye","type":"bye","reason":"x"}"#, "duplicate field `type`"),
            (r#"{"type":"future","type":"x"}"#, "duplicate field `type`"),
            (r#"{"reason":"x","type":"bye","type":"bye"}"#, "duplicate field `type`"),
            (r#"{"reason":"x"}"#, "missing field `type`"),
            (
                r#"{"type":1,"reason":"x"}"#,
                "invalid type: integer `1`, expected variant identifier",
            ),
            (
                r#"{"type":"played","seat":1,"card":"Ab","trick":256}"#,
                "invalid value: integer `256`, expected u8",
            ),
            (
                r#"{"type":"played","seat":1,"card":"Ab","trick":2,"extra":1e999}"#,
                "number out of range",
            ),
            (
                r#"{"type":"played","seat":1,"card":"Ab","trick":2,"extra":"\udc00"}"#,
                "lone leading surrogate",
            ),
            (
                r#"{"type":"error","id":-1,"fault":"f","message":"m","action":"a"}"#,
                "invalid value: integer `-1`, expected u64",
            ),
            (
                r#"{"type":"hello","id":null,"protocol":1,"features":[],"time_ms":1}"#,
                "invalid type: null, expected u64",
            ),
            (
                r#"{"type":"deal_over","deal":1,"tricks":[5,2,1],"winners":[],"winner":0,"points":1,"mordienne":false,"counted":true,"score":[1,0]}"#,
                "invalid length 3, expected an array of length 4",
            ),
            (r#"["future_thing",1]"#, "invalid length 1, expected 0 elements in sequence"),
            (r#"["bye"]"#, "invalid length 0, expected struct variant ToBot::Bye with 1 element"),
            (r#"["bye","x",1]"#, "invalid length 2, expected 1 element in sequence"),
            (r#"1"#, "invalid type: integer `1`, expected internally tagged enum ToBot"),
        ];
        for (line, says) in bad {
            let error = to_bot(line).expect_err(line);
            assert!(error.contains(says), "{line}: {error}");
        }
    }

    /// The one known difference, in the lenient direction: an unknown field nested in a known
    /// one is skipped without checking its numbers' range (nor its `\u` escapes).
    #[test]
    fn nested_unknown_fields_are_skipped_unchecked() {
        let line = r#"{"type":"trick","trick":2,"leader":1,"cards":[{"seat":1,"card":"Ab","x":1e999}],"winner":null,"next":1}"#;
        assert!(serde_json::from_str::<ToBot>(line).is_ok());
        assert!(serde_json::from_str::<derived::ToBot>(line).is_err());
        // At the top level, and everywhere in `FromBot`, the checks are the derive's.
        assert!(to_bot(r#"{"type":"bye","reason":"x","y":[1e999]}"#).is_err());
    }

    /// Lines of the golden transcripts, each as written (tag first) and with its keys sorted
    /// (`type` mostly last, so buffered).
    fn transcript_lines() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/transcripts");
        let mut lines = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                for line in std::fs::read_to_string(&path).unwrap().lines() {
                    let record: Value = serde_json::from_str(line).unwrap();
                    let msg = &record["msg"];
                    let sorted = msg.to_string();
                    let tag_first = if record["dir"] == "to_bot" {
                        serde_json::to_string(
                            &serde_json::from_str::<derived::ToBot>(&sorted).unwrap(),
                        )
                    } else {
                        serde_json::to_string(
                            &serde_json::from_str::<derived::FromBot>(&sorted).unwrap(),
                        )
                    };
                    lines.push(tag_first.unwrap());
                    lines.push(sorted);
                }
            }
        }
        assert!(lines.len() > 100, "the transcripts are missing");
        lines
    }

    #[test]
    fn transcripts_decode_as_the_derive() {
        let lines = transcript_lines();
        for line in &lines {
            let _ = from_bot(line);
            let _ = to_bot(line);
        }
    }

    /// Almost-valid lines, where decoders differ if they do: the transcripts' lines mutated at
    /// random. Lines with several faults may be reported by another of their faults, so only
    /// acceptance and the decoded values are compared.
    #[test]
    fn mutated_lines_decode_as_the_derive() {
        let lines = transcript_lines();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let pieces: &[&str] = &[
            "\"type\":\"play\",",
            "\"type\":",
            ",\"card\":\"3o\"",
            ",\"x\":[1,{}]",
            "null",
            "1e999",
            "-1",
            "3.5",
            "\"\\u0041\"",
            "\"\\ud800\"",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            "\"",
            "0",
            "true",
            "\"id\":",
            "\"signals\":[]",
            "\"hand\":",
            "\"rules\":{\"x\":1}",
        ];
        let (mut accepted, mut rejected) = (0, 0);
        for round in 0..if cfg!(debug_assertions) { 20_000 } else { 200_000 } {
            let mut line = lines[round % lines.len()].clone().into_bytes();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % (line.len() + 1);
                match next() % 4 {
                    0 if at < line.len() => drop(line.remove(at)),
                    1 if at < line.len() => line[at] = b"{}[]\":,0a-"[(next() % 10) as usize],
                    _ => {
                        let piece = pieces[(next() as usize) % pieces.len()];
                        line.splice(at..at, piece.bytes());
                    }
                }
            }
            let Ok(line) = String::from_utf8(line) else { continue };
            for result in [
                same::<FromBot, derived::FromBot>(&line, false),
                same::<ToBot, derived::ToBot>(&line, false),
            ] {
                match result {
                    Ok(_) => accepted += 1,
                    Err(_) => rejected += 1,
                }
            }
        }
        assert!(accepted > 1000 && rejected > 1000, "{accepted} accepted, {rejected} rejected");
    }

    /// Nanoseconds per decode, hand-written and derived, printed; nothing is asserted. Run with
    /// `cargo test --release -p aluette-protocol -- --nocapture bench_`.
    #[test]
    fn bench_decode() {
        /// Nanoseconds per decode of `line` by each decoder: the best of many short batches,
        /// taken in turn, since the machine may be busy.
        fn time<New: DeserializeOwned, Old: DeserializeOwned>(line: &str) -> (f64, f64) {
            fn batch<T: DeserializeOwned>(line: &str, rounds: u32) -> f64 {
                let start = std::time::Instant::now();
                for _ in 0..rounds {
                    let line = std::hint::black_box(line);
                    std::hint::black_box(serde_json::from_str::<T>(line).unwrap());
                }
                start.elapsed().as_nanos() as f64 / f64::from(rounds)
            }
            let (batches, rounds) = if cfg!(debug_assertions) { (2, 10) } else { (60, 2000) };
            let (mut new, mut old) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..batches {
                new = new.min(batch::<New>(line, rounds));
                old = old.min(batch::<Old>(line, rounds));
            }
            (new, old)
        }
        let from_bot = [
            r#"{"type":"play","id":1234,"card":"3o"}"#,
            r#"{"type":"opening","id":1234,"accept":true,"signals":["monsieur","aces:1"]}"#,
            r#"{"type":"discard","id":1234,"cards":["3o","Kc","Ab","9s","Jo","Cc"]}"#,
            r#"{"type":"hello","id":1,"name":"rust-heuristic","version":"0.1.0","author":"aluette sample bots","protocol":1}"#,
        ];
        let to_bot = [
            r#"{"type":"played","seat":1,"card":"Ab","trick":2}"#,
            r#"{"type":"trick","trick":2,"leader":1,"cards":[{"seat":1,"card":"Ab"},{"seat":2,"card":"3o"},{"seat":3,"card":"Kc"},{"seat":0,"card":"4b"}],"winner":2,"next":2}"#,
            r#"{"type":"play","id":40,"deal":1,"trick":2,"leader":1,"table":[{"seat":1,"card":"Ab"}],"hand":["3o","Kc","Ab","9s","Jo","Cc","4b","5s"],"won":[1,0,0,0],"score":[0,3],"time_ms":1000,"bank_ms":9000}"#,
        ];
        println!("ns per decode      hand-written  derived  line");
        for line in from_bot {
            let (new, old) = time::<FromBot, derived::FromBot>(line);
            println!("FromBot            {new:>12.0} {old:>8.0}  {}", &line[..30]);
        }
        for line in to_bot {
            let (new, old) = time::<ToBot, derived::ToBot>(line);
            println!("ToBot              {new:>12.0} {old:>8.0}  {}", &line[..30]);
        }
    }
}
