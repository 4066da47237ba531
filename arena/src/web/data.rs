//! What the pages and the API show, gathered once from the store and the live registry into
//! serde types: the API writes them as JSON (spec/schema/arena/ describes each), the pages
//! render the same values, so the two never disagree. The pure parts (a bot's best and worst
//! partners and opponents, a live table's progress) are separate functions of their inputs.

use crate::BotId;
use crate::duplicate::Comparison;
use crate::serve::live::LiveTable;
use crate::store::{Activity, BoardKind, Bot, GameRow, GameStatus, RatingRow, Store, StoreError};
use serde::Serialize;
use std::collections::BTreeMap;

/// A bot as other answers name it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BotRef {
    pub id: BotId,
    pub name: String,
    pub version: String,
    pub author: String,
    pub house: bool,
}

impl BotRef {
    fn of(b: &Bot) -> BotRef {
        BotRef {
            id: b.id,
            name: b.name.clone(),
            version: b.version.clone(),
            author: b.author.clone(),
            house: b.house,
        }
    }

    /// A seat whose bot is not in the database any more (it cannot be: bots are never
    /// deleted), shown by its id alone.
    fn unknown(id: BotId) -> BotRef {
        BotRef {
            id,
            name: format!("bot {id}"),
            version: String::new(),
            author: String::new(),
            house: false,
        }
    }
}

/// Every bot by id, for naming seats.
#[derive(Debug)]
pub struct Names(BTreeMap<BotId, Bot>);

impl Names {
    pub async fn load(store: &Store) -> Result<Names, StoreError> {
        Ok(Names(store.bots().await?.into_iter().map(|b| (b.id, b)).collect()))
    }

    pub fn get(&self, id: BotId) -> BotRef {
        self.0.get(&id).map_or_else(|| BotRef::unknown(id), BotRef::of)
    }
}

/// A line of the official board.
#[derive(Clone, Debug, Serialize)]
pub struct OfficialRow {
    pub rank: u32,
    pub bot: BotRef,
    pub rating: f64,
    pub low: f64,
    pub high: f64,
    pub provisional: bool,
    pub comparisons: u32,
    pub games: u32,
    pub faulted_games: u32,
    pub fault_rate: f64,
    pub last_seen: Option<i64>,
    pub paused: bool,
}

/// A line of the live board.
#[derive(Clone, Debug, Serialize)]
pub struct LiveRow {
    pub rank: u32,
    pub bot: BotRef,
    pub mu: f64,
    pub sigma: f64,
    /// mu - 3 sigma: what the board is ordered by.
    pub conservative: f64,
    pub provisional: bool,
    pub comparisons: u32,
}

/// A board's snapshot.
#[derive(Clone, Debug, Serialize)]
pub struct Board<R> {
    pub taken_at: Option<i64>,
    pub upto_comparison: i64,
    pub rows: Vec<R>,
}

/// `/api/leaderboard`.
#[derive(Clone, Debug, Serialize)]
pub struct Leaderboard {
    pub official: Board<OfficialRow>,
    pub live: Board<LiveRow>,
}

fn fault_rate(a: &Activity) -> f64 {
    if a.games_done == 0 { 0.0 } else { f64::from(a.games_faulted) / f64::from(a.games_done) }
}

fn rank<T>(rows: &mut [T], key: impl Fn(&T) -> f64, set: impl Fn(&mut T, u32)) {
    rows.sort_by(|a, b| key(b).total_cmp(&key(a)));
    for (i, r) in rows.iter_mut().enumerate() {
        set(r, i as u32 + 1);
    }
}

pub async fn leaderboard(store: &Store, now: i64) -> Result<Leaderboard, StoreError> {
    let names = Names::load(store).await?;
    let activity = store.activity(now).await?;
    let official = store.latest_snapshot(BoardKind::Official).await?;
    let live = store.latest_snapshot(BoardKind::Live).await?;
    let mut orows: Vec<OfficialRow> = official
        .as_ref()
        .map(|s| s.rows.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let a = activity.get(&r.bot).cloned().unwrap_or_default();
            OfficialRow {
                rank: 0,
                bot: names.get(r.bot),
                rating: r.value,
                low: r.low,
                high: r.high,
                provisional: r.provisional,
                comparisons: r.comparisons,
                games: a.games_done,
                faulted_games: a.games_faulted,
                fault_rate: fault_rate(&a),
                last_seen: a.last_played,
                paused: names.0.get(&r.bot).is_some_and(|b| b.paused_reason.is_some()),
            }
        })
        .collect();
    rank(&mut orows, |r| r.rating, |r, n| r.rank = n);
    let mut lrows: Vec<LiveRow> = live
        .as_ref()
        .map(|s| s.rows.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|r| LiveRow {
            rank: 0,
            bot: names.get(r.bot),
            mu: r.value,
            sigma: r.spread,
            conservative: r.low,
            provisional: r.provisional,
            comparisons: r.comparisons,
        })
        .collect();
    rank(&mut lrows, |r| r.conservative, |r, n| r.rank = n);
    let board = |s: &Option<crate::store::Snapshot>| {
        (s.as_ref().map(|s| s.taken_at), s.as_ref().map_or(0, |s| s.upto_comparison))
    };
    let (ot, ou) = board(&official);
    let (lt, lu) = board(&live);
    Ok(Leaderboard {
        official: Board { taken_at: ot, upto_comparison: ou, rows: orows },
        live: Board { taken_at: lt, upto_comparison: lu, rows: lrows },
    })
}

/// A game as lists show it.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    pub id: i64,
    pub deal: i64,
    pub table_no: u32,
    pub status: &'static str,
    pub seats: Vec<BotRef>,
    pub started_at: Option<i64>,
    pub ended_at: Option<i64>,
    /// Points of seats 0+2 and 1+3, once done.
    pub points: Option<[i32; 2]>,
    /// Whether the bot in each seat faulted.
    pub faulted: [bool; 4],
    pub void_reason: Option<String>,
    /// Its deal's last table has ended and its seed is published.
    pub published: bool,
    /// Its record may be watched now (done, published, recorded).
    pub viewable: bool,
}

/// `/api/games/{id}`: a game with its deal's seed once published (as a decimal string: it is
/// 64 bits).
#[derive(Clone, Debug, Serialize)]
pub struct GameDetail {
    #[serde(flatten)]
    pub game: GameView,
    pub seed: Option<String>,
}

async fn game_views(
    store: &Store,
    names: &Names,
    rows: Vec<GameRow>,
) -> Result<Vec<GameView>, StoreError> {
    let mut published: BTreeMap<i64, bool> = BTreeMap::new();
    let mut out = Vec::with_capacity(rows.len());
    for g in rows {
        let p = match published.get(&g.deal) {
            Some(p) => *p,
            None => {
                let p = store.published_seed(g.deal).await?.is_some();
                published.insert(g.deal, p);
                p
            }
        };
        out.push(view_of(names, g, p));
    }
    Ok(out)
}

fn view_of(names: &Names, g: GameRow, published: bool) -> GameView {
    let viewable = g.status == GameStatus::Done && published && g.record_path.is_some();
    GameView {
        id: g.id,
        deal: g.deal,
        table_no: g.table_no,
        status: g.status.as_str(),
        seats: g.seats.iter().map(|&id| names.get(id)).collect(),
        started_at: g.started_at,
        ended_at: g.ended_at,
        points: g.points,
        faulted: [0, 1, 2, 3].map(|s| g.fault_seats & (1 << s) != 0),
        void_reason: g.void_reason,
        published,
        viewable,
    }
}

/// `/api/games`.
#[derive(Clone, Debug, Serialize)]
pub struct Games {
    pub games: Vec<GameView>,
}

pub async fn games(store: &Store, limit: u32) -> Result<Games, StoreError> {
    let names = Names::load(store).await?;
    let rows = store.recent_games(limit).await?;
    Ok(Games { games: game_views(store, &names, rows).await? })
}

/// One game, with its record's path (for the viewer, never shown), or `None`.
pub async fn game(
    store: &Store,
    id: i64,
) -> Result<Option<(GameDetail, Option<String>)>, StoreError> {
    let Some(g) = store.game(id).await? else { return Ok(None) };
    let names = Names::load(store).await?;
    let seed = store.published_seed(g.deal).await?;
    let path = g.record_path.clone();
    let game = view_of(&names, g, seed.is_some());
    Ok(Some((GameDetail { game, seed: seed.map(|s| s.to_string()) }, path)))
}

/// A rating at one snapshot.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rated {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub provisional: bool,
    pub comparisons: u32,
}

impl Rated {
    fn of(r: &RatingRow) -> Rated {
        Rated {
            value: r.value,
            low: r.low,
            high: r.high,
            provisional: r.provisional,
            comparisons: r.comparisons,
        }
    }
}

/// A bot's record with one other bot, as its partner or as an opponent.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Standing {
    pub bot: BotRef,
    pub comparisons: u32,
    /// The bot's mean share of the win in those comparisons (1 won, 0.5 even, 0 lost).
    pub score: f64,
}

/// Best and worst, most comparisons first among equals.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BestWorst {
    pub best: Vec<Standing>,
    pub worst: Vec<Standing>,
}

/// `/api/bots/{id}`.
#[derive(Clone, Debug, Serialize)]
pub struct BotPage {
    pub bot: BotRef,
    pub created_at: i64,
    pub admitted_at: Option<i64>,
    pub paused_reason: Option<String>,
    pub tables_at_once: u32,
    pub games_per_day: u32,
    pub official: Option<Rated>,
    pub live: Option<Rated>,
    pub games: u32,
    pub faulted_games: u32,
    pub fault_rate: f64,
    pub last_seen: Option<i64>,
    pub recent_games: Vec<GameView>,
    pub partners: BestWorst,
    pub opponents: BestWorst,
}

/// How many of each a bot page lists.
const SHOWN: usize = 3;
const RECENT: u32 = 20;

/// Per other bot: (comparisons, sum of shares), as partner and as opponent.
type Tally = BTreeMap<BotId, (u32, f64)>;

/// `bot`'s partners and opponents over `comparisons`, each with the bot's mean share of the
/// win when it sat with or against them.
pub fn tallies(bot: BotId, comparisons: &[Comparison]) -> (Tally, Tally) {
    let (mut partners, mut opponents) = (Tally::new(), Tally::new());
    for c in comparisons {
        let (team, opp, share) = if c.team_a.contains(&bot) {
            (c.team_a, c.opp_a, c.outcome.score_a())
        } else if c.team_b.contains(&bot) {
            (c.team_b, c.opp_b, 1.0 - c.outcome.score_a())
        } else {
            continue;
        };
        for p in team.into_iter().filter(|&p| p != bot) {
            let e = partners.entry(p).or_default();
            *e = (e.0 + 1, e.1 + share);
        }
        for o in opp {
            let e = opponents.entry(o).or_default();
            *e = (e.0 + 1, e.1 + share);
        }
    }
    (partners, opponents)
}

/// The `n` best and `n` worst of a tally (a bot in both lists only when there are fewer than
/// `2n`): by mean share, then by comparisons, then by id.
pub fn best_worst(tally: &Tally, n: usize, names: &Names) -> BestWorst {
    let mut all: Vec<(BotId, u32, f64)> =
        tally.iter().map(|(&id, &(k, sum))| (id, k, sum / f64::from(k.max(1)))).collect();
    all.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    let standing = |&(id, k, score): &(BotId, u32, f64)| Standing {
        bot: names.get(id),
        comparisons: k,
        score,
    };
    let best = all.iter().take(n).map(standing).collect();
    let mut worst_first = all.clone();
    worst_first.sort_by(|a, b| a.2.total_cmp(&b.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    let worst = worst_first.iter().take(n).map(standing).collect();
    BestWorst { best, worst }
}

pub async fn bot_page(store: &Store, id: BotId, now: i64) -> Result<Option<BotPage>, StoreError> {
    let Some(bot) = store.bot(id).await? else { return Ok(None) };
    let names = Names::load(store).await?;
    let a = store.activity(now).await?.get(&id).cloned().unwrap_or_default();
    let line = |s: Option<crate::store::Snapshot>| {
        s.and_then(|s| s.rows.iter().find(|r| r.bot == id).map(Rated::of))
    };
    let official = line(store.latest_snapshot(BoardKind::Official).await?);
    let live = line(store.latest_snapshot(BoardKind::Live).await?);
    let rows = store.bot_games(id, RECENT).await?;
    let recent_games = game_views(store, &names, rows).await?;
    let (p, o) = tallies(id, &store.bot_comparisons(id).await?);
    Ok(Some(BotPage {
        bot: BotRef::of(&bot),
        created_at: bot.created_at,
        admitted_at: bot.admitted_at,
        paused_reason: bot.paused_reason.clone(),
        tables_at_once: bot.tables_at_once,
        games_per_day: bot.games_per_day,
        official,
        live,
        games: a.games_done,
        faulted_games: a.games_faulted,
        fault_rate: fault_rate(&a),
        last_seen: a.last_played,
        recent_games,
        partners: best_worst(&p, SHOWN, &names),
        opponents: best_worst(&o, SHOWN, &names),
    }))
}

/// A rating history point.
#[derive(Clone, Debug, Serialize)]
pub struct HistoryPoint {
    pub taken_at: i64,
    #[serde(flatten)]
    pub rating: Rated,
}

/// Points of each board's history a page draws, and the API answers unless asked otherwise.
pub const HISTORY_POINTS: u32 = 200;

/// `/api/bots/{id}/history`: both boards, oldest first, each thinned evenly to the points
/// asked (its first and newest kept), with how many snapshots it was thinned from.
#[derive(Clone, Debug, Serialize)]
pub struct History {
    pub bot: BotId,
    pub official: Vec<HistoryPoint>,
    pub official_snapshots: u64,
    pub live: Vec<HistoryPoint>,
    pub live_snapshots: u64,
}

pub async fn history(
    store: &Store,
    id: BotId,
    at_most: u32,
) -> Result<Option<History>, StoreError> {
    if store.bot(id).await?.is_none() {
        return Ok(None);
    }
    let points = |(rows, total): (Vec<(i64, RatingRow)>, u64)| -> (Vec<HistoryPoint>, u64) {
        let points =
            rows.iter().map(|(t, r)| HistoryPoint { taken_at: *t, rating: Rated::of(r) }).collect();
        (points, total)
    };
    let (official, official_snapshots) =
        points(store.rating_history(id, BoardKind::Official, at_most).await?);
    let (live, live_snapshots) = points(store.rating_history(id, BoardKind::Live, at_most).await?);
    Ok(Some(History { bot: id, official, official_snapshots, live, live_snapshots }))
}

/// A table in play: who plays and how far they are, never a card (the deal's other tables
/// are playing the same cards).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LiveView {
    pub game: i64,
    pub deal: i64,
    pub table_no: u32,
    pub seats: Vec<BotRef>,
    pub started_at: i64,
    /// Tricks finished so far.
    pub tricks: u32,
    /// The score of seats 0+2 and 1+3 after the last finished deal.
    pub score: [i64; 2],
    /// Faults so far.
    pub faults: u32,
    /// Record lines so far.
    pub lines: u32,
}

/// `/api/live`.
#[derive(Clone, Debug, Serialize)]
pub struct LiveList {
    pub tables: Vec<LiveView>,
}

/// What a table's record lines so far say of its progress: (tricks, score, faults). Lines
/// that are not JSON objects count for nothing.
pub fn progress(lines: &[String]) -> (u32, [i64; 2], u32) {
    let (mut tricks, mut score, mut faults) = (0, [0, 0], 0);
    for line in lines {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        match v.get("type").and_then(|t| t.as_str()) {
            Some("trick") => tricks += 1,
            Some("fault") => faults += 1,
            Some("deal_over") => {
                if let Some([a, b]) =
                    v.get("score").and_then(|s| s.as_array()).map(|s| s.as_slice())
                {
                    score = [a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0)];
                }
            }
            _ => {}
        }
    }
    (tricks, score, faults)
}

pub fn live_view(names: &Names, t: &LiveTable) -> LiveView {
    let (tricks, score, faults) = progress(&t.lines);
    LiveView {
        game: t.game,
        deal: t.deal,
        table_no: t.table_no,
        seats: t.seats.iter().map(|&id| names.get(id)).collect(),
        started_at: t.started_at,
        tricks,
        score,
        faults,
        lines: u32::try_from(t.lines.len()).unwrap_or(u32::MAX),
    }
}

/// `/api/me`: a bot's own quotas and their use.
#[derive(Clone, Debug, Serialize)]
pub struct Me {
    pub bot: BotRef,
    pub paused_reason: Option<String>,
    pub tables_at_once: u32,
    pub tables_now: u32,
    pub games_per_day: u32,
    pub games_today: u32,
    /// Seconds until the games-a-day quota renews (the next UTC day), when it is spent.
    pub retry_after: Option<i64>,
}

pub async fn me(store: &Store, token: &str, now: i64) -> Result<Option<Me>, StoreError> {
    let Some(bot) = store.bot_by_token(token).await? else { return Ok(None) };
    let a = store.activity(now).await?.get(&bot.id).cloned().unwrap_or_default();
    let next_day = (crate::store::day_of(now) + 1) * crate::store::DAY_SECONDS;
    let spent = a.started_today >= bot.games_per_day;
    Ok(Some(Me {
        bot: BotRef::of(&bot),
        paused_reason: bot.paused_reason.clone(),
        tables_at_once: bot.tables_at_once,
        tables_now: a.running,
        games_per_day: bot.games_per_day,
        games_today: a.started_today,
        retry_after: spent.then_some(next_day - now),
    }))
}

#[cfg(test)]
mod tests;
