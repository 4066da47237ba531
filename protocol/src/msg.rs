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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

impl FromBot {
    /// The echoed id.
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
