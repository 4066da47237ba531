//! Game records: JSON Lines, one fact a line, plain data shared with tools in any language.
//!
//! A record alone replays its game: it stores the deck of every deal, every action with its
//! think time, every fault with its penalty, and who saw each signal. The seed is informative
//! only. Each line is written whole; a record without its `footer` line was cut short. Every
//! line type and nested object is declared once here (`declare.rs`).

use crate::json::{Defs, Json};
use crate::msg::{Clock, SeatNo, TableCard};
use crate::options::{OnFault, RulesWire};
use crate::wire::CardCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The value of [`Header::format`].
pub const RECORD_FORMAT: &str = "aluette-record";
/// The record format version; readers refuse other major versions.
pub const RECORD_VERSION: u32 = 2;

/// The fields every answer of a bot ends with in a record (`vote`, `opening`, `discard`, `play`
/// lines): a fragment of [`RecordLine`]'s declaration (`declare.rs`).
macro_rules! answered {
    ($($given:tt)*) => {
        tagged!($($given)* {
            /// Think time in microseconds, measured by the referee (0 for a fallback).
            us: u64,
            /// CPU time in microseconds the bot's process used since the referee read its
            /// previous answer (or since the game began); absent for a seat not measured
            /// (see `cpu` in the header's seats) and for a fallback.
            cpu_us: Option<u64> = optional,
            /// True when the referee answered for the bot (a fault's fallback).
            auto: bool = optional,
            /// The bot's answer line exactly as received (absent for `auto`).
            raw: Option<String> = optional,
        });
    };
}

tagged! {
    strict
    /// One line of a record.
    #[derive(Clone, Debug, PartialEq)]
    pub enum RecordLine in record_line {
        /// First line: who, what and under which rules.
        Header = "header" (header: Box<Header>),
        /// A deal: the whole deck order, and the hands it gave.
        Deal = "deal" {
            /// Deal number, 1-based, redeals included.
            deal: u16,
            /// The dealer.
            dealer: SeatNo,
            /// The deck order, index 0 dealt first.
            deck: Vec<CardCode>,
            /// The nine cards of seats 0..3.
            hands: Vec<Vec<CardCode>>,
        },
        /// A chant vote.
        Vote = "vote" {
            /// The voter.
            seat: SeatNo,
            /// Accepted?
            accept: bool,
        } + answered,
        /// An opening answer that carried no vote (chant off or already refused), kept for its
        /// think time.
        Opening = "opening" {
            /// The seat.
            seat: SeatNo,
        } + answered,
        /// An answer in the surrender round.
        Offer = "offer" {
            /// The seat.
            seat: SeatNo,
            /// True for the offer.
            offer: bool,
        } + answered,
        /// An answer to the surrender offer.
        Reply = "reply" {
            /// The opponent who answered.
            seat: SeatNo,
            /// True for the acceptance.
            accept: bool,
        } + answered,
        /// An answer in the announcement round.
        Announce = "announce" {
            /// The seat.
            seat: SeatNo,
            /// True for the announcement.
            announce: bool,
        } + answered,
        /// The chant was decided.
        Chant = "chant" {
            /// True when taken.
            taken: bool,
        },
        /// Talon cards received in the chant.
        Receive = "receive" {
            /// The recipient.
            seat: SeatNo,
            /// The six cards, in the order received.
            cards: Vec<CardCode>,
        },
        /// A discard.
        Discard = "discard" {
            /// The recipient.
            seat: SeatNo,
            /// The six cards.
            cards: Vec<CardCode>,
        } + answered,
        /// A card played.
        Play = "play" {
            /// The player.
            seat: SeatNo,
            /// The card.
            card: CardCode,
        } + answered,
        /// A signal that was accepted and delivered.
        Signal = "signal" {
            /// Sender.
            from: SeatNo,
            /// Wire name.
            signal: String,
            /// Seats that were told, sender included.
            seen_by: Vec<SeatNo>,
        },
        /// A finished trick.
        Trick = "trick" {
            /// Trick number, 1..=9.
            trick: u8,
            /// Leader.
            leader: SeatNo,
            /// Cards in play order.
            cards: Vec<TableCard>,
            /// Winner; `null` when spoiled.
            winner: Option<SeatNo>,
        },
        /// A finished deal.
        DealOver = "deal_over" {
            /// Deal number.
            deal: u16,
            /// Tricks per seat.
            tricks: [u8; 4],
        } + deal_result,
        /// A bot fault and what it cost.
        Fault = "fault" (fault: FaultRecord),
        /// Last line: the result and per-seat statistics.
        Footer = "footer" (footer: Box<Footer>),
    }
}

/// The fields an answer line (`vote`, `opening`, `discard`, `play`, `offer`, `reply`,
/// `announce`) ends with, and the question type it answers: the one list of which lines are
/// answers, for statistics, replays and scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answered<'a> {
    /// The seat that answered.
    pub seat: SeatNo,
    /// Think time in microseconds.
    pub us: u64,
    /// The referee answered for the bot.
    pub auto: bool,
    /// The bot's CPU time in microseconds, when measured.
    pub cpu_us: Option<u64>,
    /// The bot's line.
    pub raw: Option<&'a String>,
    /// The type of the question answered (a vote answers an `opening`).
    pub question: &'static str,
}

impl RecordLine {
    /// The answer this line records, for an answer line.
    pub fn answered(&self) -> Option<Answered<'_>> {
        let (seat, us, cpu_us, auto, raw, question) = match self {
            RecordLine::Vote { seat, us, cpu_us, auto, raw, .. }
            | RecordLine::Opening { seat, us, cpu_us, auto, raw } => {
                (seat, us, cpu_us, auto, raw, "opening")
            }
            RecordLine::Discard { seat, us, cpu_us, auto, raw, .. } => {
                (seat, us, cpu_us, auto, raw, "discard")
            }
            RecordLine::Play { seat, us, cpu_us, auto, raw, .. } => {
                (seat, us, cpu_us, auto, raw, "play")
            }
            RecordLine::Offer { seat, us, cpu_us, auto, raw, .. } => {
                (seat, us, cpu_us, auto, raw, "offer")
            }
            RecordLine::Reply { seat, us, cpu_us, auto, raw, .. } => {
                (seat, us, cpu_us, auto, raw, "reply")
            }
            RecordLine::Announce { seat, us, cpu_us, auto, raw, .. } => {
                (seat, us, cpu_us, auto, raw, "announce")
            }
            _ => return None,
        };
        Some(Answered {
            seat: *seat,
            us: *us,
            cpu_us: *cpu_us,
            auto: *auto,
            raw: raw.as_ref(),
            question,
        })
    }

    /// The CPU time of an answer line, when measured.
    pub fn cpu_us(&self) -> Option<u64> {
        self.answered().and_then(|a| a.cpu_us)
    }
}

object! {
    closed
    /// The record's first line.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Header {
        /// Always `aluette-record`.
        pub format: String,
        /// The record format version, 2 for this crate; readers refuse other versions.
        pub version: u32,
        /// The referee's version.
        pub referee: String,
        /// Protocol major version.
        pub protocol: u32,
        /// Game number within its match or tournament.
        pub game: u64,
        /// The match (or tournament) seed this game's seed came from; may exceed 2^53.
        pub match_seed: u64,
        /// This game's seed, which may exceed 2^53: decks are derived from it, but the record
        /// stores every deck anyway.
        pub seed: u64,
        /// Rules in force.
        pub rules: RulesWire,
        /// Clocks.
        pub clock: Clock,
        /// Fault policy.
        pub policy: Policy,
        /// Bots in seats 0..3.
        pub seats: Vec<SeatInfo>,
        /// Dealer of the first deal.
        pub first_dealer: SeatNo,
        /// Cards turned up by the traditional draw, when seating was drawn.
        pub draw: Option<Vec<CardCode>> = optional,
        /// Wall-clock start, Unix milliseconds (informative).
        pub started_unix_ms: u64,
    }
}

object! {
    closed
    /// What a fault costs.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Policy {
        /// What a fault costs.
        pub on_fault: OnFault,
        /// Under `fallback`: strikes after which the bot is replaced for the rest of the game.
        pub max_strikes: u32,
    }
}

object! {
    closed
    /// A seat's bot.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct SeatInfo {
        /// Name from the handshake (or the lineup's name when the bot never answered).
        pub name: String,
        /// Version from the handshake.
        pub version: String,
        /// Author from the handshake.
        pub author: Option<String> = optional,
        /// How the bot was reached: its command line, or `tcp:...`.
        pub command: Vec<String>,
        /// File holding the bot's stderr, relative to the record's folder.
        pub stderr: Option<String> = optional,
        /// Id of the first question this game asks on the bot's connection (ids go on across the
        /// games of a persistent connection).
        pub first_id: u64,
        /// The bot's hello answer exactly as received, when the connection (and so its handshake)
        /// began just before this game; absent for later games on the same connection.
        pub hello: Option<String> = optional,
        /// The optional features the bot took up that change what it is asked (`surrender`);
        /// absent when none.
        pub features: Vec<String> = optional,
        /// True when the referee measures this bot's CPU time: its answers carry `cpu_us`
        /// (bot programs, unless measuring is off; never TCP or built-in bots).
        pub cpu: bool = optional,
        /// The seat's own clock, when it is not the game's (a human seat's, spec/protocol.md
        /// section 9).
        pub clock: Option<Clock> = optional,
    }
}

wire_enum! {
    /// The class of a bot fault.
    pub enum FaultKind {
        /// The program could not be started.
        NoStart = "no_start",
        /// The handshake failed: no answer in time, a wrong answer, or another protocol version.
        HandshakeRefused = "handshake_refused",
        /// No answer before the deadline (after the bank ran out).
        Timeout = "timeout",
        /// The process exited or was killed by a signal.
        Exited = "exited",
        /// The bot closed its stdout (or the connection) while still running.
        ClosedStdout = "closed_stdout",
        /// The line is not a valid message.
        Malformed = "malformed",
        /// The line is longer than the limit.
        LineTooLong = "line_too_long",
        /// An answer to a question that was already answered or timed out.
        StaleId = "stale_id",
        /// An id that was never asked, or a line when no question was open.
        UnknownId = "unknown_id",
        /// A valid message that does not answer the question asked (wrong type, vote missing or
        /// unasked).
        WrongAnswer = "wrong_answer",
        /// A card the bot does not hold.
        IllegalCard = "illegal_card",
        /// A discard that is not exactly 6 held cards or breaks the discard rule.
        WrongDiscard = "wrong_discard",
        /// A signal refused by the signal rules.
        BadSignal = "bad_signal",
        /// A TCP connection dropped.
        Disconnected = "disconnected",
    }
}

wire_enum! {
    /// What the referee did about a fault.
    pub enum Penalty {
        /// The line was ignored; no strike.
        Ignored = "ignored",
        /// The signal was not delivered; a strike counted; the rest of the answer stands.
        SignalDropped = "signal_dropped",
        /// The referee played the fallback for this question; a strike counted.
        Fallback = "fallback",
        /// The bot is replaced by the fallback for the rest of the game.
        Replaced = "replaced",
        /// The bot's partnership forfeits the game.
        Forfeit = "forfeit",
    }
}

impl Penalty {
    /// What an account for people calls it (`referee match`): what the referee did.
    pub fn shown(self) -> &'static str {
        match self {
            Penalty::Ignored => "ignored",
            Penalty::SignalDropped => "signal dropped",
            Penalty::Fallback => "fallback played",
            Penalty::Replaced => "replaced by the fallback",
            Penalty::Forfeit => "forfeit",
        }
    }
}

object! {
    closed
    /// A fault in a record.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct FaultRecord {
        /// The faulty seat.
        pub seat: SeatNo,
        /// Deal in progress, if any.
        pub deal: Option<u16> = optional,
        /// Trick in progress, if any.
        pub trick: Option<u8> = optional,
        /// Class.
        pub kind: FaultKind,
        /// What happened, for people.
        pub detail: String,
        /// The offending line exactly as received, when the fault is about a line that was kept
        /// (never for `line_too_long`) and that line is UTF-8. Set with `FaultRecord::keep_raw`.
        pub raw: Option<String> = optional,
        /// The offending line's bytes, when it is not UTF-8 (in place of `raw`, which could only
        /// hold it with its bad bytes replaced, and then not reproduce it).
        pub raw_b64: Option<RawBytes> = optional,
        /// What the referee did instead, as told to the bot in its `error` message.
        pub action: String,
        /// What it cost.
        pub penalty: Penalty,
        /// Strikes of this seat after this fault.
        pub strikes: u32,
    }
}

impl FaultRecord {
    /// Keeps the offending line losslessly: as `raw` when it is UTF-8, as `raw_b64` otherwise
    /// (and neither for `None`).
    pub fn keep_raw(&mut self, line: Option<Vec<u8>>) {
        (self.raw, self.raw_b64) = match line.map(String::from_utf8) {
            None => (None, None),
            Some(Ok(text)) => (Some(text), None),
            Some(Err(e)) => (None, Some(RawBytes(e.into_bytes()))),
        };
    }

    /// The offending line's bytes exactly as received, from whichever field keeps them.
    pub fn raw_bytes(&self) -> Option<&[u8]> {
        match (&self.raw, &self.raw_b64) {
            (Some(text), _) => Some(text.as_bytes()),
            (None, Some(RawBytes(bytes))) => Some(bytes),
            (None, None) => None,
        }
    }
}

/// Bytes that are not UTF-8, kept in a record as standard base64 with padding (RFC 4648
/// section 4): JSON strings hold only text, and a lossy conversion would make the record lie
/// about what a bot sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawBytes(pub Vec<u8>);

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

impl RawBytes {
    /// The base64 text.
    pub fn to_base64(&self) -> String {
        let mut out = String::with_capacity(self.0.len().div_ceil(3) * 4);
        for chunk in self.0.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(char::from(B64[(n >> (18 - 6 * i) & 63) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// Reads base64 text; only the canonical spelling [`RawBytes::to_base64`] writes is
    /// accepted, so a record has one way to say one line.
    pub fn from_base64(text: &str) -> Result<RawBytes, String> {
        let bad = || format!("{text:?} is not canonical base64");
        let bytes = text.as_bytes();
        if !bytes.len().is_multiple_of(4) {
            return Err(bad());
        }
        let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
        for (k, quad) in bytes.chunks(4).enumerate() {
            let last = (k + 1) * 4 == bytes.len();
            let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
            if pad > 2 || (pad > 0 && !last) {
                return Err(bad());
            }
            let mut n = 0u32;
            for &c in &quad[..4 - pad] {
                let v = B64.iter().position(|&x| x == c).ok_or_else(bad)?;
                n = n << 6 | v as u32;
            }
            n <<= 6 * pad as u32;
            let got = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            out.extend_from_slice(&got[..3 - pad]);
        }
        let decoded = RawBytes(out);
        // Non-zero bits after the last byte would be a second spelling of the same bytes.
        if decoded.to_base64() != text {
            return Err(bad());
        }
        Ok(decoded)
    }
}

impl Json for RawBytes {
    type De = RawBytes;
    fn from_de(de: RawBytes) -> RawBytes {
        de
    }
    fn schema(_: &mut Defs) -> Value {
        serde_json::json!({
            "type": "string",
            "contentEncoding": "base64",
            "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
        })
    }
}

impl Serialize for RawBytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for RawBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RawBytes, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        RawBytes::from_base64(&text).map_err(serde::de::Error::custom)
    }
}

wire_enum! {
    /// How a game's record ends.
    pub enum GameStatus {
        /// The game was played to its end (or to a forfeit).
        Complete = "complete",
        /// The referee was stopped mid-game: the score is the one reached, and nobody won.
        Aborted = "aborted",
    }
}

object! {
    closed
    /// The record's last line.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Footer {
        /// Whether the game was played to its end.
        pub status: GameStatus,
        /// Final score per team.
        pub score: [u16; 2],
        /// Winning team, `null` for a draw (or an aborted game).
        pub winner: Option<u8>,
        /// Team that forfeited, if any.
        pub forfeit: Option<u8> = optional,
        /// Deals that counted.
        pub deals: u16,
        /// Per-seat statistics, seats 0..3.
        pub stats: Vec<SeatStats>,
        /// Wall-clock duration of the game in milliseconds (informative).
        pub duration_ms: u64,
    }
}

object! {
    closed
    /// One seat's statistics in a game.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct SeatStats {
        /// The seat's answer lines without `auto`: answers the bot gave in time that stood.
        pub answers: u32,
        /// Their total think time in microseconds.
        pub think_us: u64,
        /// The longest think time in microseconds.
        pub max_us: u64,
        /// The total `cpu_us` of those answers, when the seat is measured.
        pub cpu_us: Option<u64> = optional,
        /// Faults of every kind.
        pub faults: u32,
        /// Strikes counted.
        pub strikes: u32,
        /// True when the bot was replaced by the fallback.
        pub replaced: bool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_is_canonical() {
        let cases: &[(&[u8], &str)] = &[
            (b"", ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"\xff\xfe\x00", "//4A"),
            (b"ma\xffdame", "bWH/ZGFtZQ=="),
        ];
        for (bytes, text) in cases {
            assert_eq!(RawBytes(bytes.to_vec()).to_base64(), *text);
            assert_eq!(RawBytes::from_base64(text), Ok(RawBytes(bytes.to_vec())));
        }
        let every: Vec<u8> = (0..=255).collect();
        let text = RawBytes(every.clone()).to_base64();
        assert_eq!(RawBytes::from_base64(&text).unwrap().0, every);
        for bad in ["Zg", "Zg=", "Zh==", "Z===", "Zg==Zg==", "Zm9v\n", "Zm 9", "Zm9-", "=Zm9"] {
            assert!(RawBytes::from_base64(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_fault_keeps_any_line_losslessly() {
        let mut f = FaultRecord {
            seat: 1,
            deal: None,
            trick: None,
            kind: FaultKind::Malformed,
            detail: String::new(),
            raw: None,
            raw_b64: None,
            action: String::new(),
            penalty: Penalty::Fallback,
            strikes: 1,
        };
        for line in [&b"plain"[..], b"", b"\xff", "é".as_bytes(), b"{\"signals\":[\"ma\xffdame\"]}"]
        {
            f.keep_raw(Some(line.to_vec()));
            assert_eq!(f.raw_bytes(), Some(line));
            assert_eq!(f.raw.is_some(), std::str::from_utf8(line).is_ok());
            let json = serde_json::to_string(&f).unwrap();
            let back: FaultRecord = serde_json::from_str(&json).unwrap();
            assert_eq!(back, f, "{json}");
            assert_eq!(back.raw_bytes(), Some(line));
        }
        f.keep_raw(None);
        assert_eq!((f.raw_bytes(), &f.raw, &f.raw_b64), (None, &None, &None));
        let bad = r#"{"seat":1,"kind":"malformed","detail":"","raw_b64":"Zg","action":"","penalty":"fallback","strikes":1}"#;
        assert!(serde_json::from_str::<FaultRecord>(bad).is_err());
    }
}
