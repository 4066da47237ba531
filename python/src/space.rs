//! The environment's action space and observation layout: the one table spec/python.md
//! documents field by field, and the Python package reads (`aluette.env.LAYOUT`) instead of
//! hard-coding offsets.

use rules::{Card, Signal};

/// Actions `0..48`: play the card of that canonical index.
pub const PLAY: usize = 0;
/// Actions `48..96`: pick the card of that index into the discard (one card per sub-step).
pub const DISCARD: usize = 48;
/// Action `96`: "no" to the boolean decision asked (chant vote, offer, reply, announce).
pub const NO: usize = 96;
/// Action `97`: "yes" to the boolean decision asked.
pub const YES: usize = 97;
/// Actions `98..113`: send signal `i` of [`signal`] with the coming answer (a sub-step).
pub const SIGNAL: usize = 98;
/// Number of actions.
pub const N_ACTIONS: usize = SIGNAL + N_SIGNALS;

/// The signal vocabulary's size.
pub const N_SIGNALS: usize = 15;

/// The most signals one answer carries (spec/protocol.md section 4.8).
pub const MAX_SIGNALS: u8 = 8;

/// The signal of index `i`: the eight card signals strongest first, `aces:0..=4`, `bad-hand`,
/// `mordienne`.
pub fn signal(i: usize) -> Option<Signal> {
    match i {
        0..8 => Card::all().find(|c| usize::from(c.level()) == i + 1).map(Signal::Holds),
        8..13 => Some(Signal::Aces((i - 8) as u8)),
        13 => Some(Signal::BadHand),
        14 => Some(Signal::Mordienne),
        _ => None,
    }
}

/// The index of a signal in [`signal`] order; `None` for a card signal on a card below the top
/// eight (which the vocabulary does not hold).
pub fn signal_index(s: Signal) -> Option<usize> {
    match s {
        Signal::Holds(c) if (1..=8).contains(&c.level()) => Some(usize::from(c.level()) - 1),
        Signal::Holds(_) => None,
        Signal::Aces(n) if n <= 4 => Some(8 + usize::from(n)),
        Signal::Aces(_) => None,
        Signal::BadHand => Some(13),
        Signal::Mordienne => Some(14),
    }
}

/// The decision a seat is asked, in the observation's `decision` field order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The chant vote.
    Vote,
    /// The discard of 6 cards, one pick per sub-step.
    Discard,
    /// A card to play.
    Play,
    /// Offer to surrender, or not.
    Offer,
    /// Accept the surrender offered, or not.
    Reply,
    /// Announce a mordienne, or not.
    Announce,
}

impl Kind {
    /// The position in the `decision` field.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The word Python sees.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Vote => "vote",
            Kind::Discard => "discard",
            Kind::Play => "play",
            Kind::Offer => "offer",
            Kind::Reply => "reply",
            Kind::Announce => "announce",
        }
    }
}

/// One field of the observation: its name, where it starts and its shape (rows, columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name, as in spec/python.md.
    pub name: &'static str,
    /// Offset of its first value in the flat vector.
    pub offset: usize,
    /// Rows and columns (a plain vector is one row).
    pub shape: (usize, usize),
}

const SHAPES: [(&str, (usize, usize)); 24] = [
    ("hand", (1, 48)),
    ("received", (1, 48)),
    ("discarded", (1, 48)),
    ("picked", (1, 48)),
    ("played_by", (4, 48)),
    ("table", (4, 48)),
    ("decision", (1, 6)),
    ("to_act", (1, 4)),
    ("dealer", (1, 4)),
    ("leader", (1, 4)),
    ("votes", (4, 2)),
    ("chant", (1, 2)),
    ("offers", (4, 2)),
    ("replies", (4, 2)),
    ("announces", (4, 2)),
    ("trick_winners", (9, 5)),
    ("tricks_won", (1, 4)),
    ("trick", (1, 1)),
    ("deal", (1, 1)),
    ("score", (1, 2)),
    ("signals_seen", (4, N_SIGNALS)),
    ("signals_sent", (1, N_SIGNALS)),
    ("rules", (1, 11)),
    ("signals_left", (1, 1)),
];

/// A field of the observation, in layout order: `at(F::Hand)` is where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F {
    /// `hand`.
    Hand,
    /// `received`.
    Received,
    /// `discarded`.
    Discarded,
    /// `picked`.
    Picked,
    /// `played_by`.
    PlayedBy,
    /// `table`.
    Table,
    /// `decision`.
    Decision,
    /// `to_act`.
    ToAct,
    /// `dealer`.
    Dealer,
    /// `leader`.
    Leader,
    /// `votes`.
    Votes,
    /// `chant`.
    Chant,
    /// `offers`.
    Offers,
    /// `replies`.
    Replies,
    /// `announces`.
    Announces,
    /// `trick_winners`.
    TrickWinners,
    /// `tricks_won`.
    TricksWon,
    /// `trick`.
    Trick,
    /// `deal`.
    Deal,
    /// `score`.
    Score,
    /// `signals_seen`.
    SignalsSeen,
    /// `signals_sent`.
    SignalsSent,
    /// `rules`.
    Rules,
    /// `signals_left`.
    SignalsLeft,
}

/// Where each field starts, computed once from [`SHAPES`] at compile time.
const OFFSETS: [usize; SHAPES.len()] = {
    let mut o = [0; SHAPES.len()];
    let mut i = 1;
    while i < SHAPES.len() {
        let (_, (rows, cols)) = SHAPES[i - 1];
        o[i] = o[i - 1] + rows * cols;
        i += 1;
    }
    o
};

/// The offset of a field: a table read, for the encoder's hot path.
pub const fn at(f: F) -> usize {
    OFFSETS[f as usize]
}

/// Every field in order, with its offset.
pub fn layout() -> Vec<Field> {
    let mut offset = 0;
    SHAPES
        .iter()
        .map(|&(name, shape)| {
            let f = Field { name, offset, shape };
            offset += shape.0 * shape.1;
            f
        })
        .collect()
}

/// Length of the flat observation.
pub fn obs_len() -> usize {
    SHAPES.iter().map(|(_, (r, c))| r * c).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_round_trip_through_their_index() {
        for i in 0..N_SIGNALS {
            let s = signal(i).unwrap();
            assert!(s.is_valid());
            assert_eq!(signal_index(s), Some(i));
        }
        assert_eq!(signal(0).unwrap().to_string(), "monsieur");
        assert_eq!(signal(N_SIGNALS), None);
    }

    #[test]
    fn the_fields_tile_the_vector() {
        let l = layout();
        assert_eq!(l[0].offset, 0);
        let last = l.last().unwrap();
        assert_eq!(last.offset + last.shape.0 * last.shape.1, obs_len());
        assert_eq!(at(F::SignalsLeft), last.offset);
        for (i, f) in l.iter().enumerate() {
            assert_eq!(OFFSETS[i], f.offset, "{}", f.name);
        }
        assert_eq!(at(F::PlayedBy), 192);
    }
}
