//! A tournament as its config file describes it, validated and in plain types (the file itself
//! is read by the command line layer, `cli/tournament_file.rs`): the entrants, the format, what
//! shapes each table, and when an entrant is disqualified.

use crate::bot::lobby::NetConfig;
use crate::bot::{BotSpec, ConnectConfig};
use crate::game_runner::GameConfig;
use crate::tournament::stats::SprtParams;
use serde::Deserialize;
use std::path::PathBuf;

/// How the games of a pairing are played.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Format {
    /// Each deal set is played twice, partnerships swapped, by different bot processes.
    Duplicate,
    /// Plain games, the partnerships changing sides from game to game.
    RoundRobin,
}

impl Format {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Format::Duplicate => "duplicate",
            Format::RoundRobin => "round-robin",
        }
    }

    /// Games per unit: a deal set is two games (two rooms), a round-robin unit one game.
    pub(crate) fn rooms(self) -> u64 {
        match self {
            Format::Duplicate => 2,
            Format::RoundRobin => 1,
        }
    }
}

/// One entrant: a bot that plays both seats of a partnership.
#[derive(Clone, Debug)]
pub(crate) struct Entrant {
    pub(crate) name: String,
    /// The command as written in the config (kept for the plan file and messages).
    pub(crate) command: String,
    pub(crate) spec: BotSpec,
}

/// When an entrant is disqualified. Faults are those that cost a strike (every fault but the
/// ignored stale or unknown ids), counted over both of the entrant's seats.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, Deserialize)]
pub(crate) struct Disqualify {
    /// Disqualified once its faults exceed this number.
    pub(crate) max_faults: Option<u64>,
    /// Disqualified once its faults per game played exceed this rate (after `min_games`).
    pub(crate) max_fault_rate: Option<f64>,
    /// Games played before the rate is judged.
    pub(crate) min_games: u64,
}

impl Disqualify {
    /// Whether `faults` over `games` played passes the threshold.
    pub(crate) fn passed(&self, faults: u64, games: u64) -> bool {
        self.max_faults.is_some_and(|m| faults > m)
            || self
                .max_fault_rate
                .is_some_and(|r| games >= self.min_games.max(1) && faults as f64 / games as f64 > r)
    }
}

/// A validated tournament config.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub(crate) seed: Option<u64>,
    pub(crate) format: Format,
    /// Games per pairing (deal sets in duplicate).
    pub(crate) games: u64,
    /// Index of the gauntlet entrant, if any.
    pub(crate) gauntlet: Option<usize>,
    pub(crate) concurrency: Option<usize>,
    pub(crate) output: Option<PathBuf>,
    pub(crate) entrants: Vec<Entrant>,
    pub(crate) game: GameConfig,
    pub(crate) connect: ConnectConfig,
    pub(crate) disqualify: Disqualify,
    pub(crate) sprt: Option<SprtParams>,
    pub(crate) net: NetConfig,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disqualification_threshold() {
        let d = Disqualify { max_faults: Some(5), max_fault_rate: Some(0.5), min_games: 4 };
        assert!(!d.passed(5, 100));
        assert!(d.passed(6, 100));
        assert!(!d.passed(3, 3), "the rate waits for min-games");
        assert!(d.passed(3, 4));
        assert!(!Disqualify::default().passed(1000, 1));
    }
}
