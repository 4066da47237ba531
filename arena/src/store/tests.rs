//! The store against real database files in the temporary folder: tokens, the life of a game,
//! a restart that finds games in flight, a deal scored only once, and ratings recomputed from
//! the stored comparisons equal to the stored ones.

use super::*;
use crate::duplicate::score_deal;
use crate::rating::{batch, boards};
use crate::{BotId, team};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

#[path = "../../tests/common/pg.rs"]
mod pg;

/// A fresh database for one test: a SQLite file, or a Postgres database of its own.
enum TestDb {
    Sqlite(TempDb),
    Postgres(pg::PgDb),
}

impl TestDb {
    fn location(&self) -> Location {
        match self {
            TestDb::Sqlite(file) => Location::Sqlite(file.0.clone()),
            TestDb::Postgres(db) => Location::Postgres(db.url.clone()),
        }
    }

    async fn open(&self) -> Result<Store> {
        Store::connect(&self.location()).await
    }
}

/// Each test named runs twice: `on_sqlite::NAME` and `on_postgres::NAME` (skipped, or failed
/// under `ARENA_REQUIRE_POSTGRES=1`, when no server is configured; see tests/common/pg.rs).
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(super::TestDb::Sqlite(super::TempDb::new())).await
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    if let Some(db) = super::pg::fresh(stringify!($name)) {
                        super::$name(super::TestDb::Postgres(db)).await
                    }
                }
            )*
        }
    };
}

on_both!(
    a_bot_is_found_by_its_token_and_only_by_it,
    a_deal_is_scored_once_and_its_seed_published_then,
    a_restart_voids_games_in_flight_and_keeps_the_rest,
    ratings_recomputed_from_the_database_equal_the_stored_ones,
    two_racing_scorers_count_a_deal_once,
    activity_counts_faults_quotas_and_admits_newcomers_for_good,
    two_claimers_never_claim_the_same_game,
    the_schema_has_the_same_tables_and_columns_live,
    the_web_pages_queries_read_a_bots_games_and_comparisons,
    the_scheduler_lock_is_held_once_and_freed_with_its_holder,
    a_rating_history_is_thinned_to_the_points_asked,
    a_deal_opens_whole_with_its_tables_running,
    a_superseded_scheduler_writes_nothing_more,
);

/// The scheduler's turns fence a predecessor off (spec/arena.md 8.4): once another server's
/// store takes a turn, the first one's writes fail with nothing written, while the successor's,
/// and those of a store that took no turn (the admin commands), go on.
async fn a_superseded_scheduler_writes_nothing_more(db: TestDb) {
    let first = db.open().await.unwrap();
    let ids = eight_bots(&first).await;
    let table = [([ids[0], ids[1], ids[2], ids[3]], 0)];
    let record = |g| format!("r{g}.jsonl");
    let mine = first.take_scheduling().await.unwrap();
    let (_, games) = first.open_deal(61, &table, record, 100).await.unwrap();
    let second = db.open().await.unwrap();
    assert_eq!(second.take_scheduling().await.unwrap(), mine + 1);
    assert_eq!(second.void_in_flight(200).await.unwrap(), 1);
    // The predecessor, still running: no new deal, no result for the game voided.
    let refused = first.open_deal(62, &table, record, 300).await;
    assert!(matches!(refused, Err(StoreError::Superseded { mine: m }) if m == mine), "{refused:?}");
    let end = GameEnd { points02: 1, points13: 0, fault_seats: 0, record_path: None };
    let refused = first.end_game(games[0], &end, 300).await;
    assert!(matches!(refused, Err(StoreError::Superseded { .. })), "{refused:?}");
    assert!(refused.unwrap_err().to_string().contains("another server took over"));
    let refused = first.queue_new_deal(64, &table, 300, 300_000).await;
    assert!(matches!(refused, Err(StoreError::Superseded { .. })), "{refused:?}");
    // The refused deal left nothing: its seed opens a deal for the successor.
    let (deal, _) = second.open_deal(62, &table, record, 400).await.unwrap();
    assert_eq!(second.deal_games(deal).await.unwrap().len(), 1);
    assert_eq!(second.recent_games(10).await.unwrap().len(), 2, "the void one and this one");
    let admin = db.open().await.unwrap();
    admin.open_deal(63, &table, record, 500).await.unwrap();
    for store in [first, second, admin] {
        store.close().await;
    }
}

/// The server opens a deal in one transaction: every table running, with its record, its
/// bots counted as playing; a seed used before opens nothing, not even a deal without games.
async fn a_deal_opens_whole_with_its_tables_running(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let tables = [([ids[0], ids[1], ids[2], ids[3]], 0), ([ids[4], ids[5], ids[6], ids[7]], 1)];
    let (deal, games) = store.open_deal(41, &tables, |g| format!("r{g}.jsonl"), 500).await.unwrap();
    let rows = store.deal_games(deal).await.unwrap();
    assert_eq!(rows.iter().map(|g| g.id).collect::<Vec<_>>(), games);
    for (row, (seats, orientation)) in rows.iter().zip(tables) {
        assert_eq!(
            (row.seats, row.orientation, row.status),
            (seats, orientation, GameStatus::Running)
        );
        assert_eq!(
            (row.record_path.clone(), row.started_at),
            (Some(format!("r{}.jsonl", row.id)), Some(500))
        );
    }
    let activity = store.activity_of(&ids, 500).await.unwrap();
    assert!(ids.iter().all(|id| activity[id].running == 1), "{activity:?}");
    // None is left queued on the way.
    assert!(store.claim_queued(10, 510).await.unwrap().is_empty());
    let again = store.open_deal(41, &tables, |g| format!("r{g}.jsonl"), 520).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    assert_eq!(store.recent_games(100).await.unwrap().len(), 2, "the refused deal left no game");
    let activity = store.activity_of(&ids, 520).await.unwrap();
    assert!(ids.iter().all(|id| activity[id].running == 1), "nor a count: {activity:?}");
    store.close().await;
}

/// A fresh database file path, removed (with its WAL files and lock file) when dropped.
struct TempDb(PathBuf);

impl TempDb {
    fn new() -> TempDb {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        TempDb(std::env::temp_dir().join(format!("aluette-arena-{}-{n}.db", std::process::id())))
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", ".scheduler"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

fn new_bot(author: &str, name: &str) -> NewBot {
    NewBot {
        author: author.into(),
        name: name.into(),
        version: "1".into(),
        house: false,
        tables_at_once: 2,
        games_per_day: 100,
    }
}

async fn eight_bots(store: &Store) -> Vec<BotId> {
    let mut ids = Vec::new();
    for i in 0..8 {
        let mut b = new_bot(&format!("author{i}"), &format!("bot{i}"));
        b.house = i == 0;
        ids.push(store.add_bot(&b, 100).await.unwrap().0.id);
    }
    ids
}

/// Plays a two-table deal to the end: table 0 scores `p0`, table 1 `p1` (seats 0+2, 1+3).
async fn play_deal(store: &Store, ids: &[BotId], seed: u64, p0: [i32; 2], p1: [i32; 2]) -> i64 {
    let deal = store.new_deal(seed, 200).await.unwrap();
    for (t, points) in [(0u32, p0), (1, p1)] {
        let base = t as usize * 4;
        let seats = [ids[base], ids[base + 1], ids[base + 2], ids[base + 3]];
        let g = store
            .add_game(&NewGame { deal, table_no: t, seats, orientation: t as u8 })
            .await
            .unwrap();
        store.start_game(g, Some("r.json"), 210).await.unwrap();
        let end =
            GameEnd { points02: points[0], points13: points[1], fault_seats: 0, record_path: None };
        store.end_game(g, &end, 220).await.unwrap();
    }
    deal
}

async fn score(store: &Store, deal: i64) -> Result<()> {
    let tables: Vec<_> =
        store.deal_games(deal).await?.iter().filter_map(GameRow::table_result).collect();
    store.record_comparisons(deal, &score_deal(deal, &tables).comparisons).await
}

#[tokio::test]
async fn the_database_is_a_wal_file_with_foreign_keys() {
    let db = TempDb::new();
    let store = Store::open(&db.0).await.unwrap();
    let mode: String =
        sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&store.pool).await.unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys").fetch_one(&store.pool).await.unwrap();
    assert_eq!(fk, 1);
    let bad = store
        .add_game(&NewGame { deal: 99, table_no: 0, seats: [1, 2, 3, 4], orientation: 0 })
        .await;
    assert!(matches!(bad, Err(StoreError::Db(_))), "{bad:?}");
    assert!(db.0.exists());
}

/// Pairing reads a foursome's games before every deal: through the index on all four seats,
/// never through every finished game (which the status index, or the seat0 index a house bot
/// fills, would be), so planning does not slow down as the arena's history grows.
#[tokio::test]
async fn a_foursome_s_games_are_found_through_its_own_index() {
    let db = TempDb::new();
    let store = Store::open(&db.0).await.unwrap();
    let explain = format!("EXPLAIN QUERY PLAN {}", games::FOURSOME_GAMES);
    let mut query = sqlx::query_as::<_, (i64, i64, i64, String)>(sqlx::AssertSqlSafe(explain));
    for id in [1i64, 2, 3, 4] {
        query = query.bind(id);
    }
    let plan = query.fetch_all(&store.pool).await.unwrap();
    let steps: Vec<&str> = plan.iter().map(|row| row.3.as_str()).collect();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert!(
        steps[0].starts_with("SEARCH games USING INDEX games_by_foursome (seat0=?"),
        "{steps:?}"
    );
}

async fn a_bot_is_found_by_its_token_and_only_by_it(db: TestDb) {
    let store = db.open().await.unwrap();
    let (bot, token) = store.add_bot(&new_bot("ada", "lovelace"), 100).await.unwrap();
    assert_eq!(
        (bot.author.as_str(), bot.name.as_str(), bot.tables_at_once),
        ("ada", "lovelace", 2)
    );
    assert_eq!(store.bot_by_token(token.as_str()).await.unwrap(), Some(bot.clone()));
    assert_eq!(
        store.bot_by_token(&format!("{}\n", token.as_str())).await.unwrap(),
        Some(bot.clone())
    );
    assert_eq!(store.bot_by_token("0123456789abcdef0123456789abcdef").await.unwrap(), None);
    let hashes: Vec<Vec<u8>> =
        sqlx::query_scalar("SELECT token_hash FROM bots").fetch_all(&store.pool).await.unwrap();
    assert_eq!(hashes, [token.hash().to_vec()]);
    let again = store.add_bot(&new_bot("ada", "lovelace"), 100).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    // A new version is a new entrant of the same author.
    let mut v2 = new_bot("ada", "lovelace");
    v2.version = "2".into();
    let (second, _) = store.add_bot(&v2, 101).await.unwrap();
    assert_eq!(second.author_id, bot.author_id);
    assert_eq!(store.bots().await.unwrap().len(), 2);
    store.set_paused(bot.id, Some("too many timeouts")).await.unwrap();
    let paused = store.bot_by_name("lovelace", "1").await.unwrap().unwrap();
    assert_eq!(paused.paused_reason.as_deref(), Some("too many timeouts"));
    store.set_paused(bot.id, None).await.unwrap();
    assert_eq!(store.bot(bot.id).await.unwrap().unwrap().paused_reason, None);
    assert!(matches!(store.set_paused(999, None).await, Err(StoreError::NotFound(_))));
}

async fn a_deal_is_scored_once_and_its_seed_published_then(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let deal = store.new_deal(0xFEED_FACE_CAFE_BEEF, 200).await.unwrap();
    assert!(matches!(
        store.new_deal(0xFEED_FACE_CAFE_BEEF, 201).await,
        Err(StoreError::Conflict(_))
    ));
    let g0 = store
        .add_game(&NewGame {
            deal,
            table_no: 0,
            seats: [ids[0], ids[1], ids[2], ids[3]],
            orientation: 0,
        })
        .await
        .unwrap();
    let g1 = store
        .add_game(&NewGame {
            deal,
            table_no: 1,
            seats: [ids[4], ids[5], ids[6], ids[7]],
            orientation: 1,
        })
        .await
        .unwrap();
    store.start_game(g0, None, 210).await.unwrap();
    store.start_game(g1, None, 210).await.unwrap();
    let end = GameEnd {
        points02: 2,
        points13: 0,
        fault_seats: 0b0010,
        record_path: Some("a.json".into()),
    };
    store.end_game(g0, &end, 220).await.unwrap();
    assert!(matches!(store.end_game(g0, &end, 221).await, Err(StoreError::Conflict(_))));
    assert_eq!(store.published_seed(deal).await.unwrap(), None);
    assert!(store.deals_to_score().await.unwrap().is_empty());
    assert!(matches!(store.record_comparisons(deal, &[]).await, Err(StoreError::Conflict(_))));
    store
        .end_game(g1, &GameEnd { points02: 1, points13: 0, fault_seats: 0, record_path: None }, 230)
        .await
        .unwrap();
    assert_eq!(store.deals_to_score().await.unwrap(), [deal]);
    let row = store.game(g0).await.unwrap().unwrap();
    assert_eq!(
        (row.status, row.points, row.record_path.as_deref()),
        (GameStatus::Done, Some([2, 0]), Some("a.json"))
    );
    score(&store, deal).await.unwrap();
    assert_eq!(store.published_seed(deal).await.unwrap(), Some(0xFEED_FACE_CAFE_BEEF));
    let stored = store.comparisons().await.unwrap();
    assert_eq!(stored.len(), 2);
    // Table 0 (orientation 0): {0,2} hold side 0, net +2; table 1 (orientation 1): {5,7} hold
    // side 0, net 0 - 1 = -1. Bot 1 faulted, so {1,3} lose side 1 whatever the cards said.
    let (_, c0) = &stored[0];
    assert_eq!(
        (c0.team_a, c0.team_b, c0.score_diff),
        (team(ids[0], ids[2]), team(ids[5], ids[7]), 3)
    );
    let (_, c1) = &stored[1];
    assert!(c1.a_faulted && c1.outcome == crate::duplicate::Outcome::BWins);
    // Scoring again is refused, and nothing is added.
    assert!(matches!(score(&store, deal).await, Err(StoreError::Conflict(_))));
    assert_eq!(store.comparisons().await.unwrap().len(), 2);
    let activity = store.activity(215).await.unwrap();
    assert_eq!(
        activity[&ids[1]],
        Activity {
            games_done: 1,
            games_faulted: 1,
            clean_since_fault: 0,
            running: 0,
            started_today: 1,
            last_played: Some(210)
        }
    );
    assert_eq!(activity[&ids[0]].clean_since_fault, 1);
    // A few bots' rows are theirs alone, as in the whole table.
    let some = store.activity_of(&[ids[1], ids[0]], 215).await.unwrap();
    assert_eq!(some.keys().copied().collect::<Vec<_>>(), [ids[0], ids[1]]);
    assert!(some.iter().all(|(id, a)| activity[id] == *a));
    assert!(store.activity_of(&[], 215).await.unwrap().is_empty());
    let four = [ids[0], ids[1], ids[2], ids[3]];
    let other = [ids[0], ids[1], ids[2], ids[4]];
    let splits = store.split_counts(&[four, other]).await.unwrap();
    // Seated 0 1 2 3: the smallest id's partner is the third smallest.
    assert_eq!((splits[&four], splits[&other]), ([0, 1, 0], [0, 0, 0]));
}

async fn a_restart_voids_games_in_flight_and_keeps_the_rest(db: TestDb) {
    let (ids, finished, in_flight) = {
        let store = db.open().await.unwrap();
        let ids = eight_bots(&store).await;
        let finished = play_deal(&store, &ids, 1, [1, 0], [0, 1]).await;
        score(&store, finished).await.unwrap();
        let in_flight = store.new_deal(2, 300).await.unwrap();
        let g0 = store
            .add_game(&NewGame {
                deal: in_flight,
                table_no: 0,
                seats: [ids[0], ids[1], ids[2], ids[3]],
                orientation: 0,
            })
            .await
            .unwrap();
        let g1 = store
            .add_game(&NewGame {
                deal: in_flight,
                table_no: 1,
                seats: [ids[4], ids[5], ids[6], ids[7]],
                orientation: 1,
            })
            .await
            .unwrap();
        store.start_game(g0, None, 310).await.unwrap();
        store.start_game(g1, None, 310).await.unwrap();
        store
            .end_game(
                g0,
                &GameEnd { points02: 2, points13: 0, fault_seats: 0, record_path: None },
                320,
            )
            .await
            .unwrap();
        // The process dies here: the pool is dropped without being closed.
        (ids, finished, in_flight)
    };
    let store = db.open().await.unwrap();
    assert_eq!(store.void_in_flight(400).await.unwrap(), 1);
    assert_eq!(store.void_in_flight(401).await.unwrap(), 0);
    let games = store.deal_games(in_flight).await.unwrap();
    assert_eq!(games[1].status, GameStatus::Void);
    assert_eq!(games[1].void_reason.as_deref(), Some("server restarted"));
    // The table that was running cannot report afterwards.
    let late = store
        .end_game(
            games[1].id,
            &GameEnd { points02: 0, points13: 2, fault_seats: 0, record_path: None },
            402,
        )
        .await;
    assert!(matches!(late, Err(StoreError::Conflict(_))));
    // The interrupted deal is scored from its one finished table: no comparison, but done.
    assert_eq!(store.deals_to_score().await.unwrap(), [in_flight]);
    score(&store, in_flight).await.unwrap();
    assert_eq!(store.published_seed(in_flight).await.unwrap(), Some(2));
    assert!(store.deals_to_score().await.unwrap().is_empty());
    let comparisons = store.comparisons().await.unwrap();
    assert_eq!(comparisons.len(), 2);
    assert!(comparisons.iter().all(|(_, c)| c.deal == finished));
    assert_eq!(store.bots().await.unwrap().len(), ids.len());
}

async fn ratings_recomputed_from_the_database_equal_the_stored_ones(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let scores = [([2, 0], [0, 1]), ([1, 0], [1, 0]), ([0, 1], [2, 0]), ([1, 0], [0, 2])];
    for (k, (p0, p1)) in scores.iter().enumerate() {
        let mut order = ids.clone();
        order.rotate_left(k);
        let deal = play_deal(&store, &order, 10 + k as u64, *p0, *p1).await;
        score(&store, deal).await.unwrap();
    }
    let compute = |stored: &[(i64, crate::duplicate::Comparison)]| {
        let cs: Vec<_> = stored.iter().map(|(_, c)| c.clone()).collect();
        boards(&cs, &[ids[0]], &batch::Config::default()).unwrap()
    };
    let stored = store.comparisons().await.unwrap();
    let upto = stored.last().unwrap().0;
    let (live, official) = compute(&stored);
    assert_eq!(official.iter().find(|r| r.bot == ids[0]).unwrap().value, 0.0);
    let live_id = store.save_snapshot(BoardKind::Live, upto, 500, &live).await.unwrap();
    store.save_snapshot(BoardKind::Official, upto, 500, &official).await.unwrap();
    assert_eq!(store.save_snapshot(BoardKind::Live, upto, 501, &live).await.unwrap(), live_id);
    // Reopened, as after a restart: the same comparisons give the same boards, to the bit.
    store.close().await;
    let store = db.open().await.unwrap();
    let (live_again, official_again) = compute(&store.comparisons().await.unwrap());
    let latest = store.latest_snapshot(BoardKind::Official).await.unwrap().unwrap();
    assert_eq!((latest.upto_comparison, latest.taken_at), (upto, 500));
    assert_eq!(latest.rows, official_again);
    assert_eq!(store.latest_snapshot(BoardKind::Live).await.unwrap().unwrap().rows, live_again);
    let (history, total) = store.rating_history(ids[3], BoardKind::Live, 100).await.unwrap();
    assert_eq!((history.len(), total), (1, 1));
    assert!(store.latest_snapshot(BoardKind::Live).await.unwrap().unwrap().rows.len() == 8);
}

/// A long history is thinned evenly to what was asked, its first and newest points kept, in
/// order; a short one comes whole.
async fn a_rating_history_is_thinned_to_the_points_asked(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let row = |upto: i64| RatingRow {
        bot: ids[0],
        value: upto as f64,
        spread: 1.0,
        low: 0.0,
        high: 2.0,
        provisional: false,
        comparisons: upto as u32,
    };
    for upto in 1..=25 {
        store.save_snapshot(BoardKind::Live, upto, 1000 + upto, &[row(upto)]).await.unwrap();
    }
    let values = |points: &[(i64, RatingRow)]| -> Vec<i64> {
        points.iter().map(|(_, r)| r.value as i64).collect()
    };
    for (at_most, expected) in [
        (2, vec![1, 25]),
        (3, vec![1, 13, 25]),
        (5, vec![1, 7, 13, 19, 25]),
        (6, vec![1, 6, 11, 16, 21, 25]),
        (7, vec![1, 5, 9, 13, 17, 21, 25]),
        (25, (1..=25).collect()),
        (1000, (1..=25).collect()),
    ] {
        let (points, total) = store.rating_history(ids[0], BoardKind::Live, at_most).await.unwrap();
        assert_eq!(total, 25);
        assert_eq!(values(&points), expected, "at most {at_most}");
        assert!(points.iter().all(|(t, r)| *t == 1000 + r.value as i64));
    }
    let (none, total) = store.rating_history(ids[1], BoardKind::Live, 10).await.unwrap();
    assert_eq!((none.len(), total), (0, 0));
}

async fn two_racing_scorers_count_a_deal_once(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    for round in 0..20u64 {
        let deal = play_deal(&store, &ids, 100 + round, [2, 0], [0, 1]).await;
        // Two handles on the same file, as two tasks of a server (or a restart racing a late
        // scorer) would have.
        let other = db.open().await.unwrap();
        let (a, b) = tokio::join!(score(&store, deal), score(&other, deal));
        assert!(a.is_ok() != b.is_ok(), "round {round}: {a:?} {b:?}");
        let refused = if a.is_ok() { b } else { a };
        assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
        other.close().await;
    }
    let stored = store.comparisons().await.unwrap();
    assert_eq!(stored.len(), 40);
    let deals: BTreeSet<i64> = stored.iter().map(|(_, c)| c.deal).collect();
    assert_eq!(deals.len(), 20);
}

async fn activity_counts_faults_quotas_and_admits_newcomers_for_good(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let offered: BTreeMap<BotId, u32> = ids.iter().map(|&b| (b, 1)).collect();
    let pool = store.pool(&offered, 2, 300).await.unwrap();
    assert_eq!(pool.len(), 8);
    assert!(pool.iter().all(|e| e.admitted == e.house && e.last_played.is_none()));
    // Two clean deals each: everyone qualifies with two games, and is admitted when the
    // server next plans a deal.
    for k in 0..2 {
        play_deal(&store, &ids, 50 + k, [1, 0], [0, 1]).await;
    }
    assert_eq!(store.bot(ids[3]).await.unwrap().unwrap().admitted_at, None);
    let pool = store.pool(&offered, 2, 290).await.unwrap();
    assert!(pool.iter().all(|e| e.admitted));
    // A third deal in which bot 1 (seat 1, table 0) faults, and which is still running at
    // table 1.
    let deal = store.new_deal(60, 300).await.unwrap();
    let g0 = store
        .add_game(&NewGame {
            deal,
            table_no: 0,
            seats: [ids[0], ids[1], ids[2], ids[3]],
            orientation: 0,
        })
        .await
        .unwrap();
    let g1 = store
        .add_game(&NewGame {
            deal,
            table_no: 1,
            seats: [ids[4], ids[5], ids[6], ids[7]],
            orientation: 1,
        })
        .await
        .unwrap();
    store.start_game(g0, None, 310).await.unwrap();
    store.start_game(g1, None, 310).await.unwrap();
    store
        .end_game(
            g0,
            &GameEnd { points02: 1, points13: 0, fault_seats: 0b0010, record_path: None },
            320,
        )
        .await
        .unwrap();
    let activity = store.activity(300).await.unwrap();
    let a1 = &activity[&ids[1]];
    assert_eq!(
        (a1.games_done, a1.games_faulted, a1.clean_since_fault, a1.started_today),
        (3, 1, 0, 3)
    );
    // The next UTC day, the count of starts begins again.
    assert_eq!(store.activity(DAY_SECONDS + 5).await.unwrap()[&ids[1]].started_today, 0);
    let a5 = &activity[&ids[5]];
    assert_eq!(
        (a5.games_done, a5.running, a5.clean_since_fault, a5.last_played),
        (2, 1, 2, Some(310))
    );
    let pool = store.pool(&offered, 2, 330).await.unwrap();
    let e = |b: BotId| pool.iter().find(|e| e.id == b).unwrap().clone();
    // Bot 1's fault came after its admission: it stays admitted. Bot 5 sits at a running table.
    assert!(e(ids[1]).admitted && e(ids[5]).admitted);
    assert_eq!((e(ids[5]).free_slots, e(ids[1]).free_slots), (0, 1));
    assert_eq!(store.bot(ids[3]).await.unwrap().unwrap().admitted_at, Some(290));
    // A paused bot and a bot not connected are not in the pool.
    store.set_paused(ids[2], Some("r")).await.unwrap();
    let mut fewer = offered.clone();
    fewer.remove(&ids[3]);
    let pool = store.pool(&fewer, 2, 340).await.unwrap();
    assert!(pool.iter().all(|e| e.id != ids[2] && e.id != ids[3]));
    assert_eq!(pool.len(), 6);
    // Voiding the running table frees its seats; a restart finds nothing running.
    store.void_game(g1, "referee lost", 350).await.unwrap();
    assert_eq!(store.activity(350).await.unwrap()[&ids[5]].running, 0);
    let deal = store.new_deal(61, 360).await.unwrap();
    let g = store
        .add_game(&NewGame {
            deal,
            table_no: 0,
            seats: [ids[4], ids[5], ids[6], ids[7]],
            orientation: 0,
        })
        .await
        .unwrap();
    store.start_game(g, None, DAY_SECONDS + 10).await.unwrap();
    let a5 = &store.activity(DAY_SECONDS + 20).await.unwrap()[&ids[5]];
    assert_eq!((a5.running, a5.started_today, a5.last_played), (1, 1, Some(DAY_SECONDS + 10)));
    assert_eq!(store.void_in_flight(DAY_SECONDS + 30).await.unwrap(), 1);
    let activity = store.activity(DAY_SECONDS + 40).await.unwrap();
    assert!(activity.values().all(|a| a.running == 0));
    // Voided games count for nothing but the day's starts.
    assert_eq!((activity[&ids[5]].games_done, activity[&ids[5]].started_today), (2, 1));
}

async fn two_claimers_never_claim_the_same_game(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let mut queued = BTreeSet::new();
    for d in 0..12u64 {
        let deal = store.new_deal(700 + d, 100).await.unwrap();
        for t in 0..2u32 {
            let base = t as usize * 4;
            let seats = [ids[base], ids[base + 1], ids[base + 2], ids[base + 3]];
            let new = NewGame { deal, table_no: t, seats, orientation: 0 };
            queued.insert(store.add_game(&new).await.unwrap());
        }
    }
    // Two handles, as two servers on one database have, claiming three at a time until the
    // queue is empty.
    let other = db.open().await.unwrap();
    let drain = |s: Store| async move {
        let mut mine = Vec::new();
        loop {
            let batch = s.claim_queued(3, 200).await.unwrap();
            if batch.is_empty() {
                return mine;
            }
            mine.extend(batch.into_iter().map(|(id, _)| id));
        }
    };
    let (a, b) = tokio::join!(tokio::spawn(drain(store.clone())), tokio::spawn(drain(other)));
    let (a, b) = (a.unwrap(), b.unwrap());
    let both: BTreeSet<i64> = a.iter().chain(&b).copied().collect();
    assert_eq!(a.len() + b.len(), both.len(), "a game claimed twice: {a:?} {b:?}");
    assert_eq!(both, queued);
    let running = store.activity(200).await.unwrap();
    // Every bot sits at one table of each of the twelve deals.
    assert!(running.values().all(|x| x.running == 12), "{running:?}");
}

/// Table name to its columns, from a migration's `CREATE TABLE` statements.
type Schema = BTreeMap<String, Vec<String>>;

/// A migration's statements without comments, one line each.
fn statements(sql: &str) -> Vec<String> {
    let text: String = sql
        .lines()
        .map(|l| l.split("--").next().unwrap_or_default().trim())
        .collect::<Vec<_>>()
        .join(" ");
    text.split(';')
        .map(|st| st.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|st| !st.is_empty())
        .collect()
}

fn schema(statements: &[String]) -> Schema {
    let mut tables = Schema::new();
    for st in statements {
        let Some(rest) = st.strip_prefix("CREATE TABLE ") else { continue };
        let (name, body) = rest.split_once('(').unwrap();
        // The definitions are split at the commas outside parentheses (a CHECK's list, a
        // UNIQUE's columns).
        let mut defs = vec![String::new()];
        let mut depth = 0;
        for c in body.trim().strip_suffix(')').unwrap().chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    defs.push(String::new());
                    continue;
                }
                _ => {}
            }
            defs.last_mut().unwrap().push(c);
        }
        let columns = defs
            .iter()
            .map(|def| def.split_whitespace().next().unwrap().to_string())
            .filter(|c| !["UNIQUE", "PRIMARY", "CHECK", "FOREIGN"].contains(&c.as_str()))
            .collect();
        tables.insert(name.trim().to_string(), columns);
    }
    tables
}

fn migration_files(backend: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(backend);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn both_migration_folders_declare_the_same_tables_and_columns() {
    let lite = migration_files("sqlite");
    let pg = migration_files("postgres");
    let names = |f: &[(String, String)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&lite), names(&pg), "the same numbered files in both folders");
    assert!(!lite.is_empty());
    let mut tables = 0;
    for ((name, lite), (_, pg)) in lite.iter().zip(&pg) {
        let lite = statements(lite);
        // Postgres spells two things its own way; with them spelt as SQLite does, the files
        // must be the same statements, so a column or a check cannot be added to one alone.
        let pg: Vec<String> = statements(pg)
            .into_iter()
            .map(|st| {
                st.replace("BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "INTEGER PRIMARY KEY")
                    .replace("BYTEA", "BLOB")
            })
            .collect();
        assert_eq!(schema(&lite), schema(&pg), "{name}: tables and columns differ");
        tables += schema(&lite).len();
        assert_eq!(lite, pg, "{name}: the statements differ beyond the two spellings");
        // Every integer is 64 bits on Postgres too: the code reads them all as i64.
        assert!(
            !pg.iter().any(|st| st.contains(" INTEGER ") && !st.contains("INTEGER PRIMARY KEY"))
        );
    }
    // The arena's eight tables, the work queue's four and the scheduler's turns: the parser
    // found them all.
    assert_eq!(tables, 13, "tables declared by the migrations");
}

/// The migrated database's own catalogue: table to columns in declared order.
async fn live_schema(store: &Store) -> Schema {
    let sql = match store.backend() {
        Backend::Sqlite => {
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_sqlx%' \
             ORDER BY m.name, p.cid"
        }
        Backend::Postgres => {
            "SELECT table_name::TEXT, column_name::TEXT FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name NOT LIKE '_sqlx%' \
             ORDER BY table_name, ordinal_position"
        }
    };
    let rows: Vec<(String, String)> = sqlx::query_as(sql).fetch_all(&store.pool).await.unwrap();
    let mut tables = Schema::new();
    for (table, column) in rows {
        tables.entry(table).or_default().push(column);
    }
    tables
}

async fn the_schema_has_the_same_tables_and_columns_live(db: TestDb) {
    let store = db.open().await.unwrap();
    let declared: Schema =
        migration_files("sqlite").iter().flat_map(|(_, sql)| schema(&statements(sql))).collect();
    assert_eq!(live_schema(&store).await, declared);
}

async fn the_web_pages_queries_read_a_bots_games_and_comparisons(db: TestDb) {
    let store = db.open().await.unwrap();
    let ids = eight_bots(&store).await;
    let first = play_deal(&store, &ids, 901, [3, 1], [0, 2]).await;
    score(&store, first).await.unwrap();
    let second = play_deal(&store, &ids, 902, [1, 1], [2, 0]).await;
    score(&store, second).await.unwrap();
    // ids[1] sat at table 0 of both deals: its two games, newest first.
    let games = store.bot_games(ids[1], 10).await.unwrap();
    assert_eq!(games.iter().map(|g| g.deal).collect::<Vec<_>>(), [second, first]);
    assert_eq!(store.bot_games(ids[1], 1).await.unwrap().len(), 1);
    let all = store.comparisons().await.unwrap();
    let mine: Vec<_> = all
        .iter()
        .map(|(_, c)| c.clone())
        .filter(|c| [c.team_a, c.team_b].iter().any(|t| t.contains(&ids[1])))
        .collect();
    assert!(!mine.is_empty());
    assert_eq!(store.bot_comparisons(ids[1]).await.unwrap(), mine);
    assert_eq!(store.recent_games(3).await.unwrap().len(), 3);
    let index = store.token_index().await.unwrap();
    assert_eq!(index.iter().map(|(_, id, _)| *id).collect::<Vec<_>>(), ids);
    store.set_paused(ids[2], Some("r")).await.unwrap();
    assert_eq!(store.token_index().await.unwrap().len(), 7);
}

async fn the_scheduler_lock_is_held_once_and_freed_with_its_holder(db: TestDb) {
    let location = db.location();
    // The store (and its migrations) first, as a server opens them.
    let store = db.open().await.unwrap();
    let mut held = SchedulerLock::try_take(&location).await.unwrap().expect("a free lock");
    assert!(SchedulerLock::try_take(&location).await.unwrap().is_none(), "taken twice");
    assert!(held.holds().await);
    drop(held);
    // Postgres frees a session's lock when its connection ends, which a drop starts.
    let mut again = None;
    for _ in 0..50 {
        again = SchedulerLock::try_take(&location).await.unwrap();
        if again.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(again.is_some(), "the lock was not freed with its holder");
    store.close().await;
}
