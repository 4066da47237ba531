//! The two rating boards, both pure functions of the ordered duplicate comparisons: the online
//! Weng-Lin board moves after every comparison (matchmaking and the live board), the batch
//! Bradley-Terry fit is recomputed from all of them (the official board with 95% intervals).

pub mod batch;
pub mod online;

use crate::BotId;
use crate::duplicate::Comparison;
use std::collections::BTreeMap;

/// One bot's line in a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// The bot.
    pub bot: BotId,
    /// Live: mu. Official: the fitted strength.
    pub value: f64,
    /// Live: sigma. Official: the 95% interval's half-width.
    pub spread: f64,
    /// The interval's lower end (live: mu - 3 sigma, OpenSkill's conservative estimate).
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// Still provisional.
    pub provisional: bool,
    /// Comparisons it took part in.
    pub comparisons: u32,
}

/// A live rating is shown as provisional while its sigma is above this. A newcomer starts at
/// 25/3; in a measured run (one bot in every comparison, seven random others, random outcomes)
/// its sigma was 6.1 after 40 comparisons, 4.6 after 100 and 2.3 after 400: 5 marks a bot seen
/// in some 80 comparisons, 80 deals at two tables.
pub const LIVE_PROVISIONAL_SIGMA: f64 = 5.0;

/// Both boards from the comparisons in their stored order. The official fit anchors the house
/// bot with the smallest id at 0 (when a house bot has been compared or is listed): one fixed
/// point is what identifiability needs, and fixing more would impose differences between
/// house bots that nobody measured. The anchor is on the official board even before it has
/// been compared; every other bot appears once it has been.
pub fn boards(
    comparisons: &[Comparison],
    house: &[BotId],
    config: &batch::Config,
) -> Result<(Vec<RatingRow>, Vec<RatingRow>), batch::FitError> {
    let live = online::Board::replay(comparisons);
    let live_rows = live
        .iter()
        .map(|(bot, l)| RatingRow {
            bot,
            value: l.mu,
            spread: l.sigma,
            low: l.mu - 3.0 * l.sigma,
            high: l.mu + 3.0 * l.sigma,
            provisional: l.sigma > LIVE_PROVISIONAL_SIGMA,
            comparisons: l.comparisons,
        })
        .collect();
    let anchors: BTreeMap<BotId, f64> = house.iter().min().map(|&b| (b, 0.0)).into_iter().collect();
    let fitted = batch::fit(comparisons, &anchors, config)?;
    let official_rows = fitted
        .into_iter()
        .map(|(bot, f)| RatingRow {
            bot,
            value: f.strength,
            spread: f.half_width,
            low: f.low(),
            high: f.high(),
            provisional: f.provisional,
            comparisons: f.comparisons,
        })
        .collect();
    Ok((live_rows, official_rows))
}
