//! The rule options of spec/rules.md as one plain value, so a game's variant is data, not code paths.

/// Who receives the second half of the talon when the chant is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ChantSecond {
    /// The dealer (traditional default).
    #[default]
    Dealer,
    /// The dealer's partner.
    Partner,
}

/// What a chant recipient may discard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DiscardRule {
    /// Any 6 of the 15 cards.
    #[default]
    Free,
    /// No discarded card may be stronger than a kept one.
    KeepHighest,
}

/// What happens when all nine tricks are spoiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AllSpoiled {
    /// Nobody scores; the deal counts.
    #[default]
    Nothing,
    /// The deal does not count and the same dealer deals again.
    Redeal,
}

/// What a match that ends level does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OnTie {
    /// Equal scores are a draw.
    #[default]
    Draw,
    /// Deal again until the scores differ.
    ExtraDeals,
}

/// Whether a mordienne may be announced before the first lead (spec/rules.md section 12.3).
/// The wire's `mordienne` values are the pair (`Rules::mordienne`, this): `on` is (true, `Off`),
/// `off` (false, `Off`), `announced` (true, `ExtendsMatch`), `announced-only` (false,
/// `MatchToTen`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Announcement {
    /// No announcement round.
    #[default]
    Off,
    /// Rebour: a mordienne may be announced, and the first announcement plays the match to 10.
    ExtendsMatch,
    /// McLeod: a mordienne may be announced, and the match is always to 10.
    MatchToTen,
}

/// When a match ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchLength {
    /// A fixed number of counted deals.
    Deals(u16),
    /// After the deal in which a team first has at least this many points.
    Target(u16),
}

/// Who sees a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SignalDelivery {
    /// Signals are refused.
    Off,
    /// Only the partner sees it.
    #[default]
    Partner,
    /// All three other players see it.
    Public,
    /// The partner sees it, and each opponent sees it when a coin flip (an input) says so.
    Leaky,
}

/// Whether card signals must be true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SignalTruth {
    /// A card signal requires holding the card; `aces:N` requires exactly N aces.
    #[default]
    Truthful,
    /// Bluffing is allowed.
    Free,
}

/// Every rule option the engine knows, with the defaults of spec/rules.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Whether the chant is played.
    pub chant: bool,
    /// Second chant recipient.
    pub chant_second: ChantSecond,
    /// Discard constraint.
    pub discard: DiscardRule,
    /// All tricks spoiled.
    pub all_spoiled: AllSpoiled,
    /// Whether a mordienne that nobody committed to scores 2 (section 7.2).
    pub mordienne: bool,
    /// Whether a mordienne may be announced, and the match length that goes with it.
    pub announce: Announcement,
    /// Whether a team may offer to surrender before the first lead (section 12.2).
    pub surrender: bool,
    /// `announce-penalty`: whether an announcement commits its team as a refused surrender does,
    /// a failed one giving the other team 2 points (section 12.4). A house rule no source gives,
    /// so off by default.
    pub announce_penalty: bool,
    /// Mordienne's minimum run, 2 or 3. It is kept when mordienne is off, like
    /// `signal_leak_ppm` under other deliveries, so a record's rules say what the organiser set.
    pub mordienne_run: u8,
    /// Match length.
    pub length: MatchLength,
    /// Level match at its end.
    pub on_tie: OnTie,
    /// Signal delivery.
    pub signals: SignalDelivery,
    /// Probability, in millionths, that an opponent sees a signal under [`SignalDelivery::Leaky`].
    /// The engine never draws it: the coin flips are an input. It is kept here so a record's
    /// rules are complete.
    pub signal_leak_ppm: u32,
    /// Signal truthfulness.
    pub signal_truth: SignalTruth,
}

impl Rules {
    /// Whether a deal may hold the rounds before the first lead (section 12): a surrender round,
    /// an announcement round, or both.
    pub fn has_pre_lead_rounds(&self) -> bool {
        self.surrender || self.announce != Announcement::Off
    }

    /// Whether the match length goes with the announcement reading (spec/rules.md section 8):
    /// under `announced-only` the match is to 10 points, and under `announced` it is to a target
    /// below 10, which an announcement raises to 10. Any other length would be changed by the
    /// rules behind the organiser's back, so it is refused where rules are read.
    pub fn check_length(&self) -> Result<(), LengthConflict> {
        match (self.announce, self.length) {
            (Announcement::MatchToTen, MatchLength::Target(10)) => Ok(()),
            (Announcement::MatchToTen, length) => Err(LengthConflict::ToTen(length)),
            (Announcement::ExtendsMatch, MatchLength::Target(n)) if n < 10 => Ok(()),
            (Announcement::ExtendsMatch, length) => Err(LengthConflict::Extends(length)),
            (Announcement::Off, _) => Ok(()),
        }
    }
}

/// A match length that the announcement reading in force would change (see
/// [`Rules::check_length`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthConflict {
    /// `announced-only` plays to 10 points, but the length set is another.
    ToTen(MatchLength),
    /// `announced` extends a match to a target below 10 up to 10, but the length set is not one.
    Extends(MatchLength),
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            chant: true,
            chant_second: ChantSecond::Dealer,
            discard: DiscardRule::Free,
            all_spoiled: AllSpoiled::Nothing,
            mordienne: true,
            announce: Announcement::Off,
            surrender: false,
            announce_penalty: false,
            mordienne_run: 2,
            length: MatchLength::Deals(5),
            on_tie: OnTie::Draw,
            signals: SignalDelivery::Partner,
            signal_leak_ppm: 250_000,
            signal_truth: SignalTruth::Truthful,
        }
    }
}
