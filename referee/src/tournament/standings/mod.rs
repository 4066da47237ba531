//! Standings computed from journal lines alone, so a finished tournament, a stopped one and the
//! merge of several shards' folders give the same table for the same games: entrants' results,
//! ratings, each pair's results, faults and think times; as text, JSON and CSV.
//!
//! This file holds the shape of `standings.json`, which the other two files and the text table
//! are written from.

mod compute;
mod files;
#[cfg(test)]
mod tests;
mod text_table;

pub(crate) use compute::compute;
pub(crate) use files::write_files;
pub(crate) use text_table::text;

use crate::tournament::config::Format;
use crate::tournament::journal::FaultCounts;
use crate::tournament::stats::{SprtParams, Verdict};
use serde::Serialize;

/// What the rating and paired columns mean, written into the JSON so a reader of the file
/// alone knows.
const METHOD: &str = "Ratings: Bradley-Terry (logistic Elo) maximum-likelihood fit, centred on 0, with a 95% sandwich interval computed from the spread of the results. \
An Elo value is a number, \"+inf\" or \"-inf\" when one side won every unit (or an interval end is unbounded), and null when there is no unit to estimate it from. \
A unit of result is a game in a round robin and a deal set (both rooms, averaged) in duplicate. \
Paired deal score (duplicate): for each deal played in both rooms, the entrant's points minus its opponent's, summed over the two rooms (-4..+4): the two partnerships compared on the same cards in the same seats.";

/// `standings.json`: the table computed from the journal alone.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Standings {
    pub(crate) tournament: Overview,
    /// How units and Elo were computed, for people.
    pub(crate) method: String,
    /// One per entrant, best first.
    pub(crate) entrants: Vec<EntrantRow>,
    /// One per pairing.
    pub(crate) pairs: Vec<PairRow>,
    /// The SPRT's state, when the tournament has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sprt: Option<SprtRow>,
}

/// What the tournament is and how far it went.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Overview {
    pub(crate) format: Format,
    /// The tournament seed.
    pub(crate) seed: u64,
    /// Number of entrants.
    pub(crate) entrants: usize,
    pub(crate) games_per_pairing: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) gauntlet: Option<String>,
    /// Games in the whole tournament.
    pub(crate) scheduled: u64,
    pub(crate) played: u64,
    /// Games settled without play because an entrant was disqualified.
    pub(crate) not_played: u64,
    /// Games settled without play because the SPRT had decided.
    pub(crate) not_needed: u64,
    /// Games neither played nor settled yet (stopped, or left to other shards).
    pub(crate) pending: u64,
}

/// One entrant's results (spec/records.md 5.3).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct EntrantRow {
    pub(crate) rank: usize,
    pub(crate) name: String,
    pub(crate) games: u64,
    pub(crate) won: u64,
    pub(crate) drawn: u64,
    pub(crate) lost: u64,
    pub(crate) not_played: u64,
    /// Mean game score (win 1, draw 1/2).
    pub(crate) score: Option<f64>,
    pub(crate) elo: Elo,
    pub(crate) elo_low: Elo,
    pub(crate) elo_high: Elo,
    pub(crate) points_for: u64,
    pub(crate) points_against: u64,
    pub(crate) deals_won: u64,
    pub(crate) deals_played: u64,
    pub(crate) paired_deals: u64,
    pub(crate) paired_deal_score: Option<f64>,
    pub(crate) faults: FaultCounts,
    pub(crate) faults_total: u64,
    pub(crate) disqualified: bool,
    pub(crate) think_mean_ms: Option<f64>,
    pub(crate) think_max_ms: f64,
    /// Total CPU time of the measured answers, in seconds (null when none was measured).
    pub(crate) cpu_s: Option<f64>,
    /// Their mean CPU time per answer, in milliseconds.
    pub(crate) cpu_mean_ms: Option<f64>,
    /// The median and the 90th percentile over the entrant's games of a game's mean CPU time
    /// per answer, in milliseconds: how steady its cost is from game to game.
    pub(crate) cpu_p50_ms: Option<f64>,
    pub(crate) cpu_p90_ms: Option<f64>,
}

/// One pairing's results, from the point of view of its first entrant `a`.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PairRow {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) games: u64,
    pub(crate) a_won: u64,
    pub(crate) drawn: u64,
    pub(crate) b_won: u64,
    pub(crate) not_played: u64,
    pub(crate) a_points: u64,
    pub(crate) b_points: u64,
    /// Entrant a's mean game score.
    pub(crate) a_score: Option<f64>,
    /// Units (games, or complete deal sets) behind the Elo estimate.
    pub(crate) units: u64,
    pub(crate) paired_deals: u64,
    /// Mean paired deal score of a.
    pub(crate) paired_deal_score: Option<f64>,
    /// Elo of a over b, from the units (trinomial or pentanomial interval); infinite when one
    /// side won every unit, `None` without units.
    pub(crate) elo: Elo,
    pub(crate) elo_low: Elo,
    pub(crate) elo_high: Elo,
}

/// The SPRT's state (spec/records.md 5.1).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SprtRow {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) model: &'static str,
    #[serde(flatten)]
    pub(crate) params: SprtParams,
    /// Units by score: loss, draw, win (trinomial) or 0, 1/4, 1/2, 3/4, 1 (pentanomial), as
    /// the test counted them: up to its decision.
    pub(crate) counts: Vec<u64>,
    /// The LLR of `counts`: the decision's, once there is one.
    pub(crate) llr: f64,
    pub(crate) lower: f64,
    pub(crate) upper: f64,
    pub(crate) verdict: Option<Verdict>,
    /// The units (games, or whole deal sets in duplicate) in `counts`.
    pub(crate) units: u64,
    /// Units completed after the decision: their games were under way when it came, and count
    /// in the results but not in the test.
    pub(crate) units_after_decision: u64,
    /// Games the decision made unnecessary (settled without play).
    pub(crate) games_not_needed: u64,
}

/// An Elo value in the JSON file: a number, "+inf" or "-inf" (JSON has no infinity, and
/// serde_json would write `null`, the value of "no data"), or null without data.
/// An Elo value or interval end: infinite when one side won every unit (or the interval is
/// unbounded), `None` without units. JSON has no infinity, so it is written "+inf" or "-inf".
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Elo(pub(crate) Option<f64>);

impl Serialize for Elo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(v) if v.is_infinite() => s.serialize_str(if v > 0.0 { "+inf" } else { "-inf" }),
            Some(v) => s.serialize_f64(v),
        }
    }
}

/// The schema of what [`Elo`] writes, inline at each field like the fields' own.
#[cfg(test)]
impl schemars::JsonSchema for Elo {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Elo".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An Elo value: a number, \"+inf\" or \"-inf\" when one side won every unit (or an interval end is unbounded), null without units.",
            "anyOf": [{ "type": "number" }, { "enum": ["+inf", "-inf"] }, { "type": "null" }]
        })
    }
}
