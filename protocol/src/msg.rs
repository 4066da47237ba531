//! Every message of the conversation, declared once and named by direction: [`ToBot`] and
//! [`FromBot`].
//!
//! Referee messages may grow new fields and new types; bots must ignore what they do not know, so
//! [`ToBot`] decodes leniently (unknown fields dropped, unknown types as [`ToBot::Unknown`]); the
//! spec's transcripts are kept exact by a decode-and-re-encode test instead. Bot messages are
//! decoded strictly (`deny_unknown_fields`), so a bot's typo is caught and reported at once
//! instead of silently ignored. Each declaration below is the only list of a message's fields:
//! the type, the fast encoder, the decoder and the schema come from it (`declare.rs`).

use crate::de::AnswerId;
pub use crate::de::NO_QUESTION;
pub use crate::options::PledgeKind;
use crate::options::{ClockMode, DiscardRule, RulesWire};
use crate::wire::CardCode;

/// A seat number, 0..3 clockwise; teams are {0,2} and {1,3}.
pub type SeatNo = u8;

object! {
    open
    /// A card on the table, with who played it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct TableCard {
        /// The player.
        pub seat: SeatNo,
        /// The card.
        pub card: CardCode,
    }
}

object! {
    open
    /// A chant vote made public.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct VoteCast {
        /// The voter.
        pub seat: SeatNo,
        /// True for accept.
        pub accept: bool,
    }
}

object! {
    open
    /// The clocks of a game, in milliseconds.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Clock {
        /// Time for the handshake answer.
        pub handshake_ms: u64,
        /// Time for each answer, before the bank is drawn on.
        pub answer_ms: u64,
        /// Bank per game that absorbs overruns.
        pub bank_ms: u64,
        /// What the bank is charged by: absent for wall time, `cpu` for the bot's CPU time.
        pub mode: Option<ClockMode> = optional,
        /// Under the CPU clock, the wall-time limit of an answer as a multiple of its CPU limit
        /// (`time_ms + bank_ms`), so a bot that sleeps or blocks still times out.
        pub wall_cap: Option<u32> = optional,
    }
}

object! {
    open
    /// A deal's surrender or mordienne announcement, when it changed how the deal was scored
    /// (spec/rules.md section 12.4).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Pledge {
        /// `accepted` (no card was played), `refused` (the refusers were committed to a
        /// mordienne) or `announced` (the announcer's team was).
        pub kind: PledgeKind,
        /// The seat that offered the surrender or announced the mordienne.
        pub seat: SeatNo,
        /// The team that scored the deal's `points`.
        pub team: u8,
    }
}

/// How a deal ended, as both a bot's `deal_over` message and a record's `deal_over` line
/// state it: a fragment of both declarations (`declare.rs`).
macro_rules! deal_result {
    ($($given:tt)*) => {
        tagged!($($given)* {
            /// The deal winner; `null` when every trick was spoiled.
            winner: Option<SeatNo>,
            /// Points scored by the winner's team, or with a `pledge` by its `team`.
            points: u8,
            /// True for mordienne.
            mordienne: bool,
            /// False when the deal is void and will be dealt again.
            counted: bool,
            /// Game score per team after this deal.
            score: [u16; 2],
            /// The surrender or announcement of the deal, when there was one that changed its
            /// scoring.
            pledge: Option<$crate::msg::Pledge> = optional,
        });
    };
}

/// What ends each question of the rounds before the first lead (`offer`, `reply`, `announce`):
/// a fragment of their declarations (`declare.rs`).
macro_rules! pre_lead {
    ($($given:tt)*) => {
        tagged!($($given)* {
            /// Your hand.
            hand: Vec<CardCode>,
            /// Game score per team.
            score: [u16; 2],
            /// Time for this answer.
            time_ms: u64,
            /// Bank left in this game.
            bank_ms: u64,
        });
    };
}

tagged! {
    lenient
    /// A message from the referee to a bot. Questions carry an `id` that the answer must echo.
    #[derive(Clone, Debug, PartialEq)]
    pub enum ToBot in to_bot, other = Unknown {
        /// First message of a connection; the bot answers with a `hello`.
        Hello = "hello" {
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
        Game = "game" {
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
        Deal = "deal" {
            /// Deal number in the game, 1-based (redeals included).
            deal: u16,
            /// The dealer.
            dealer: SeatNo,
            /// Your nine cards.
            hand: Vec<CardCode>,
        },
        /// The question before the first lead: the chant vote (when `vote` is true) and signals.
        Opening = "opening" {
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
        /// The surrender round (feature `surrender`): do you offer to surrender for your team?
        Offer = "offer" {
            /// Question id.
            id: u64,
            /// Deal number.
            deal: u16,
        } + pre_lead,
        /// An opponent offered to surrender (feature `surrender`): do you accept?
        Reply = "reply" {
            /// Question id.
            id: u64,
            /// Deal number.
            deal: u16,
            /// The seat that offered.
            seat: SeatNo,
        } + pre_lead,
        /// The announcement round (feature `surrender`): do you announce a mordienne?
        Announce = "announce" {
            /// Question id.
            id: u64,
            /// Deal number.
            deal: u16,
        } + pre_lead,
        /// An answer in the surrender round, told to everyone (feature `surrender`).
        Offered = "offered" {
            /// Who answered.
            seat: SeatNo,
            /// True for the offer.
            offer: bool,
        },
        /// An answer to the surrender offer, told to everyone (feature `surrender`).
        Replied = "replied" {
            /// The opponent who answered.
            seat: SeatNo,
            /// True for the acceptance.
            accept: bool,
        },
        /// An answer in the announcement round, told to everyone (feature `surrender`).
        Announced = "announced" {
            /// Who answered.
            seat: SeatNo,
            /// True for the announcement.
            announce: bool,
        },
        /// A chant vote, told to everyone.
        Vote = "vote" {
            /// The voter.
            seat: SeatNo,
            /// True for accept.
            accept: bool,
        },
        /// The chant was decided.
        Chant = "chant" {
            /// True when all four accepted.
            taken: bool,
        },
        /// You received talon cards: name 6 of your 15 cards to discard.
        Discard = "discard" {
            /// Question id.
            id: u64,
            /// Deal number.
            deal: u16,
            /// Your 15 cards.
            hand: Vec<CardCode>,
            /// The 6 talon cards you received (also in `hand`).
            received: Vec<CardCode>,
            /// The discard rule in force.
            rule: DiscardRule,
            /// Time for this answer.
            time_ms: u64,
            /// Bank left in this game.
            bank_ms: u64,
        },
        /// Your turn to play. Self-contained: a bot that keeps no state can answer it.
        Play = "play" {
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
        Played = "played" {
            /// The player.
            seat: SeatNo,
            /// The card.
            card: CardCode,
            /// Trick number.
            trick: u8,
        },
        /// A trick ended.
        Trick = "trick" {
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
        DealOver = "deal_over" {
            /// Deal number.
            deal: u16,
            /// Tricks won per seat.
            tricks: [u8; 4],
            /// Winner of each trick, `null` when spoiled.
            winners: Vec<Option<SeatNo>>,
        } + deal_result,
        /// The game ended.
        GameOver = "game_over" {
            /// Game number.
            game: u64,
            /// Final score per team.
            score: [u16; 2],
            /// Winning team, `null` for a draw.
            winner: Option<u8>,
            /// Team that forfeited, if the game ended by forfeit.
            forfeit: Option<u8> = optional,
        },
        /// A partner's (or, by the rules in force, an opponent's) signal.
        Signal = "signal" {
            /// Who signalled.
            from: SeatNo,
            /// The signal's wire name.
            signal: String,
        },
        /// Something the bot sent was not accepted.
        Error = "error" {
            /// The question it concerned, if any.
            id: Option<u64> = optional,
            /// Fault class, as in records (`timeout`, `malformed`, `illegal_card`, ...).
            fault: String,
            /// What was wrong.
            message: String,
            /// What the referee did instead.
            action: String,
        },
        /// The first message of a connection that takes over a seat's earlier one (feature
        /// `resume`): the next `replay` messages are the ones the seat was sent in the current
        /// game, again, to be folded without answering; the open question follows them.
        Resume = "resume" {
            /// How many messages are sent again.
            replay: u64,
        },
        /// The connection ends; the bot should exit.
        Bye = "bye" {
            /// Why.
            reason: String,
        },
    }
}

impl ToBot {
    /// The question id, for messages that need an answer.
    pub fn id(&self) -> Option<u64> {
        match self {
            ToBot::Hello { id, .. }
            | ToBot::Opening { id, .. }
            | ToBot::Discard { id, .. }
            | ToBot::Play { id, .. }
            | ToBot::Offer { id, .. }
            | ToBot::Reply { id, .. }
            | ToBot::Announce { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// The `time_ms` and `bank_ms` of a question that has a bank (every one but `hello`).
    pub fn clock_mut(&mut self) -> Option<(&mut u64, &mut u64)> {
        match self {
            ToBot::Opening { time_ms, bank_ms, .. }
            | ToBot::Discard { time_ms, bank_ms, .. }
            | ToBot::Play { time_ms, bank_ms, .. }
            | ToBot::Offer { time_ms, bank_ms, .. }
            | ToBot::Reply { time_ms, bank_ms, .. }
            | ToBot::Announce { time_ms, bank_ms, .. } => Some((time_ms, bank_ms)),
            _ => None,
        }
    }
}

tagged! {
    strict
    /// A bot's answer. Its `type` is the type of the question it answers and its `id` echoes it.
    ///
    /// An `id` may be any JSON number: an integer from 1 to 2^64 − 1, written without sign,
    /// fraction or exponent, names the question with that id; every other number (`0`, `-1`,
    /// `-0`, `18446744073709551616`, `3.0`, `3e0`) names no question the referee can ask, and
    /// decodes as [`NO_QUESTION`]. So an answer to "a question never asked" is always a valid
    /// message with an id the referee never gave out (`unknown_id` in records), never a
    /// malformed line.
    #[derive(Clone, Debug, PartialEq)]
    pub enum FromBot in from_bot {
        /// Answer to `hello`.
        Hello = "hello" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// The bot's name.
            name: String,
            /// The bot's version.
            version: String,
            /// The author, optional.
            author: Option<String> = optional,
            /// The protocol major version the bot speaks, when it says; another version than the
            /// referee's is refused.
            protocol: Option<u32> = optional,
            /// The seat token, for bots that connect over TCP.
            token: Option<String> = optional,
            /// The optional features the bot takes up, of those the referee offered (`surrender`,
            /// `resume`).
            features: Vec<String> = optional,
        },
        /// Answer to `opening`.
        Opening = "opening" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// The chant vote; required exactly when the question asked for it.
            accept: Option<bool> = optional,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
        /// Answer to `discard`.
        Discard = "discard" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// Exactly 6 cards of the hand.
            cards: Vec<CardCode>,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
        /// Answer to `play`.
        Play = "play" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// The card played.
            card: CardCode,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
        /// Answer to `offer`.
        Offer = "offer" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// True to offer to surrender for your team.
            offer: bool,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
        /// Answer to `reply`.
        Reply = "reply" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// True to accept the surrender (your team scores 1), false to refuse it (your team
            /// must then make a mordienne).
            accept: bool,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
        /// Answer to `announce`.
        Announce = "announce" {
            /// Echoed id.
            id: u64 as AnswerId,
            /// True to announce a mordienne for your team.
            announce: bool,
            /// Signals, by wire name.
            signals: Vec<String> = optional,
        },
    }
}

impl FromBot {
    /// The echoed id; [`NO_QUESTION`] when it was a number that names no question.
    pub fn id(&self) -> u64 {
        match self {
            FromBot::Hello { id, .. }
            | FromBot::Opening { id, .. }
            | FromBot::Discard { id, .. }
            | FromBot::Play { id, .. }
            | FromBot::Offer { id, .. }
            | FromBot::Reply { id, .. }
            | FromBot::Announce { id, .. } => *id,
        }
    }

    /// Signals carried by the answer.
    pub fn signals(&self) -> &[String] {
        match self {
            FromBot::Hello { .. } => &[],
            FromBot::Opening { signals, .. }
            | FromBot::Discard { signals, .. }
            | FromBot::Play { signals, .. }
            | FromBot::Offer { signals, .. }
            | FromBot::Reply { signals, .. }
            | FromBot::Announce { signals, .. } => signals,
        }
    }
}

#[cfg(test)]
#[path = "msg_tests.rs"]
mod tests;
