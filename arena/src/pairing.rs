//! Matchmaking for one deal, as a pure function of the entrants ready now: which disjoint
//! foursomes play it, how each is split into partnerships and seated, and in which orientation
//! (spec/arena.md, "Pairing"). Every choice is made by sorting on explicit keys ending in the
//! bot's id, so the same pool gives the same deal whatever order it is passed in.

use crate::BotId;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// An entrant that could be seated now, as the caller sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// The bot.
    pub id: BotId,
    /// Its author: two bots of one author never share a table (house bots excepted).
    pub author: i64,
    /// One of the server's own bots.
    pub house: bool,
    /// Finished its qualifying games in a row without a fault (see [`admitted`]); house bots
    /// count as admitted whatever this says.
    pub admitted: bool,
    /// Tables it may still join now (its tables-at-once quota less the tables it sits at).
    pub free_slots: u32,
    /// Live rating's mean.
    pub mu: f64,
    /// Live rating's uncertainty.
    pub sigma: f64,
    /// When it last started a game (seconds), `None` if never.
    pub last_played: Option<i64>,
    /// Games it started today.
    pub games_today: u32,
    /// Its games-a-day quota.
    pub games_per_day: u32,
}

impl Entrant {
    fn ready(&self) -> bool {
        self.free_slots > 0 && self.games_today < self.games_per_day
    }

    fn newcomer(&self) -> bool {
        !self.house && !self.admitted
    }
}

/// The caller's choices for a deal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Tables that play the deal: two or more, for a duplicate comparison.
    pub tables: usize,
    /// Half-width of the rating window (in the live board's units) around a table's seed from
    /// which its other three bots are preferably drawn.
    pub window: f64,
}

impl Default for Params {
    fn default() -> Params {
        // Two tables is the least that compares; the window is a newcomer's sigma (25/3), the
        // widest uncertainty a live rating has, so tablemates inside it are not known to differ.
        Params { tables: 2, window: 25.0 / 3.0 }
    }
}

/// For each foursome (ids ascending), how often it has played each of its three splits: split
/// `k` partners the smallest id with the `k + 1`-th smallest (see [`split_of`]).
pub type SplitCounts = BTreeMap<[BotId; 4], [u32; 3]>;

/// One table of the deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTable {
    /// The bot in each seat; seats 0 and 2 are partners, as are 1 and 3.
    pub seats: [BotId; 4],
    /// Which of the foursome's three splits this seating is.
    pub split: u8,
    /// The deal's orientation at this table: the bot in seat `s` holds the deal's hand `s +
    /// orientation` (mod 4). Rotated by one from table to table.
    pub orientation: u8,
}

/// The tables of one deal, in table order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealPlan {
    /// Disjoint foursomes: no bot appears twice in a deal.
    pub tables: Vec<PlannedTable>,
}

/// Whether a newcomer has earned its place on the ladder: `needed` finished games in a row
/// without a fault of its own, so a newcomer that faults starts its run again. Admission is
/// kept (`bots.admitted_at`): an admitted bot's later faults are losses (and, too many, a
/// pause: [`fault_pause`]), not a return to qualifying.
pub fn admitted(clean_since_fault: u32, needed: u32) -> bool {
    clean_since_fault >= needed
}

/// The reason to pause a bot whose faults are too frequent, or `None`: once it has finished
/// `min_games`, a share of games with a fault above `max_rate` pauses it. The count is over
/// the entrant's whole life, because a repaired bot comes back as a new version, a new
/// entrant with a clean count.
pub fn fault_pause(
    games_done: u32,
    games_faulted: u32,
    min_games: u32,
    max_rate: f64,
) -> Option<String> {
    if games_done == 0 || games_done < min_games {
        return None;
    }
    let rate = f64::from(games_faulted) / f64::from(games_done);
    (rate > max_rate).then(|| {
        format!(
            "paused: {games_faulted} of its {games_done} games had a timeout, crash or illegal \
             move ({:.0}%, above the {:.0}% allowed); connect a new version to play again",
            rate * 100.0,
            max_rate * 100.0
        )
    })
}

/// Which split `seats` uses: the index of the smallest id's partner among the other three
/// sorted ascending.
pub fn split_of(seats: [BotId; 4]) -> u8 {
    let mut sorted = seats;
    sorted.sort_unstable();
    let low = sorted[0];
    let at = seats.iter().position(|&b| b == low).unwrap_or(0);
    let partner = seats[(at + 2) % 4];
    let rank = sorted[1..].iter().position(|&b| b == partner).unwrap_or(0);
    rank as u8
}

/// Plans one deal from the entrants ready now, or `None` when `params.tables` disjoint tables
/// cannot be formed under the rules: [`foursomes`] then [`seat`].
pub fn plan_deal(pool: &[Entrant], params: &Params, splits: &SplitCounts) -> Option<DealPlan> {
    foursomes(pool, params).map(|fours| seat(&fours, splits))
}

/// Who plays the deal: `params.tables` disjoint foursomes (ids ascending), table by table, or
/// `None` when they cannot all be formed under the rules. The choice does not depend on the
/// split counts, so a caller can fetch the counts of just these foursomes before [`seat`].
pub fn foursomes(pool: &[Entrant], params: &Params) -> Option<Vec<[BotId; 4]>> {
    if params.tables < 2 {
        return None;
    }
    let mut ready: Vec<&Entrant> = pool.iter().filter(|e| e.ready()).collect();
    ready.sort_by(|a, b| urgency(a, b));
    // An id passed twice is one bot: keep its most urgent entry.
    let mut seen = BTreeSet::new();
    ready.retain(|e| seen.insert(e.id));
    let rank: BTreeMap<BotId, usize> = ready.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
    let mut used = BTreeSet::new();
    let mut tables = Vec::with_capacity(params.tables);
    for _ in 0..params.tables {
        let four = ready
            .iter()
            .filter(|e| !used.contains(&e.id))
            .find_map(|seed| fill(seed, &ready, &used, &rank, params.window))?;
        used.extend(four.iter().map(|e| e.id));
        let mut ids = four.map(|e| e.id);
        ids.sort_unstable();
        tables.push(ids);
    }
    Some(tables)
}

/// Seats each foursome in the split it played least (the lowest split on a tie), the smallest
/// id in seat 0 with its partner in seat 2, and rotates the orientation by one per table.
pub fn seat(foursomes: &[[BotId; 4]], splits: &SplitCounts) -> DealPlan {
    let tables = foursomes
        .iter()
        .enumerate()
        .map(|(t, four)| {
            let mut ids = *four;
            ids.sort_unstable();
            let counts = splits.get(&ids).copied().unwrap_or_default();
            let split = (0..3).min_by_key(|&k| (counts[k], k)).unwrap_or(0);
            let partner = ids[split + 1];
            let others: Vec<BotId> = ids[1..].iter().copied().filter(|&b| b != partner).collect();
            PlannedTable {
                seats: [ids[0], others[0], partner, others[1]],
                split: split as u8,
                orientation: (t % 4) as u8,
            }
        })
        .collect();
    DealPlan { tables }
}

/// Seeding order: the bot that has waited longest first (never played before all), then the
/// least certain rating, then the smallest id.
fn urgency(a: &Entrant, b: &Entrant) -> Ordering {
    let waited = |e: &Entrant| e.last_played.unwrap_or(i64::MIN);
    waited(a).cmp(&waited(b)).then(b.sigma.total_cmp(&a.sigma)).then(a.id.cmp(&b.id))
}

/// The seed and three tablemates, or `None` if this seed cannot be seated now. A newcomer sits
/// only with house bots; anyone else with admitted or house bots, never two non-house bots of
/// one author. Tablemates are drawn first from inside the seed's rating window, each time the
/// one whose live mean is farthest from the nearest of those already seated (the most urgent on
/// a tie), then from outside it, nearest to the seed first.
///
/// Why spread them: a duplicate comparison measures a team against its own opponents, so a
/// table of four bots of one strength says nothing about any other strength, and bots that
/// finish together are ready together: seated most urgent first, they sat together again and
/// again (in measured runs, up to 85% of the tables held bots of one strength only), and the board's
/// intervals stopped narrowing.
fn fill<'a>(
    seed: &'a Entrant,
    ready: &[&'a Entrant],
    used: &BTreeSet<BotId>,
    rank: &BTreeMap<BotId, usize>,
    window: f64,
) -> Option<[&'a Entrant; 4]> {
    let eligible = |e: &&Entrant| if seed.newcomer() { e.house } else { !e.newcomer() };
    let (mut inside, mut outside): (Vec<&Entrant>, Vec<&Entrant>) = ready
        .iter()
        .copied()
        .filter(|e| e.id != seed.id && !used.contains(&e.id))
        .filter(eligible)
        .partition(|e| (e.mu - seed.mu).abs() <= window);
    let distance = |e: &Entrant| (e.mu - seed.mu).abs();
    outside.sort_by(|a, b| distance(a).total_cmp(&distance(b)).then(a.id.cmp(&b.id)));
    let mut chosen = vec![seed];
    let clash = |chosen: &[&Entrant], c: &Entrant| {
        !c.house && chosen.iter().any(|x| !x.house && x.author == c.author)
    };
    while chosen.len() < 4 {
        inside.retain(|c| !clash(&chosen, c));
        let spread =
            |c: &Entrant| chosen.iter().map(|x| (c.mu - x.mu).abs()).fold(f64::INFINITY, f64::min);
        let best = (0..inside.len()).min_by(|&i, &j| {
            let (a, b) = (inside[i], inside[j]);
            spread(b).total_cmp(&spread(a)).then(rank[&a.id].cmp(&rank[&b.id]))
        });
        match best {
            Some(i) => chosen.push(inside.swap_remove(i)),
            None => break,
        }
    }
    for c in outside {
        if chosen.len() == 4 {
            break;
        }
        if !clash(&chosen, c) {
            chosen.push(c);
        }
    }
    (chosen.len() == 4).then(|| [chosen[0], chosen[1], chosen[2], chosen[3]])
}

/// The first dealer of a table dealt in `orientation`: the bot in seat s holds the deal's hand
/// s + orientation, and the first dealer turns the deal by the same amount (the dealer always
/// holds hand 0), so the deal is the same at every table, turned. The server's tables and the
/// workers' are dealt by it.
pub fn first_dealer(orientation: u8) -> u8 {
    (4 - orientation % 4) % 4
}

#[cfg(test)]
mod tests;
