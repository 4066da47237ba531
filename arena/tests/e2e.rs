//! The arena end to end (issue 27): the real server, real TCP bots of three strengths joining
//! with the tokens `arena admin` printed, the house filling the tables; run until the official
//! board orders the strengths with intervals that do not overlap, then check what was stored:
//! no bot was dealt a deal twice, every game's record replays, and the ratings recomputed from
//! the database are the stored ones.

// The arena and the bots are programs under test, run directly.
#![allow(clippy::disallowed_methods)]

mod common;

use aluette_arena::BotId;
use aluette_arena::rating::{batch, boards};
use aluette_arena::store::{BoardKind, GameStatus, Store};
use common::{Scratch, add_bot, bot, rt, serve};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The three strengths, weakest first, as the Rust sample bot's flags.
const TIERS: [(&str, &[&str]); 3] =
    [("random", &["--random"]), ("heuristic", &[]), ("search", &["--search", "--samples", "48"])];

/// Bots per tier.
const PER_TIER: usize = 4;

/// How long the ladder may take to separate the tiers before the test gives up.
const PATIENCE: Duration = Duration::from_secs(420);

#[test]
fn twelve_tcp_bots_of_three_strengths_are_ordered_by_the_official_board() {
    let dir = Scratch::new("e2e-ladder");
    let db = dir.join("arena.db");
    let mut tier_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut tokens = Vec::new();
    for (t, (tier, _)) in TIERS.iter().enumerate() {
        for k in 0..PER_TIER {
            let name = format!("{tier}-{k}");
            tokens.push((name.clone(), t, add_bot(&db, &format!("author-{name}"), &name, 1)));
            tier_of.insert(name, t);
        }
    }
    let (mut server, addr) = serve(&dir, &["--answer-ms", "500", "--deals-at-once", "8"]);
    let bots: Vec<_> = tokens
        .iter()
        .map(|(name, t, token)| {
            let log = dir.join(&format!("{name}.stderr.log"));
            bot(&addr, token, name, TIERS[*t].1, &log)
        })
        .collect();

    let store = rt().block_on(Store::open(&db)).unwrap();
    let started = Instant::now();
    let ids: BTreeMap<BotId, usize> = rt()
        .block_on(store.bots())
        .unwrap()
        .into_iter()
        .filter_map(|b| tier_of.get(&b.name).map(|&t| (b.id, t)))
        .collect();
    let separated = loop {
        std::thread::sleep(Duration::from_secs(3));
        let official = rt().block_on(store.latest_snapshot(BoardKind::Official)).unwrap();
        let Some(official) = official else { continue };
        if tiers_separated(&official.rows, &ids) {
            break true;
        }
        if started.elapsed() > PATIENCE {
            eprintln!("after {:?}: {:#?}", started.elapsed(), official.rows);
            break false;
        }
    };
    server.signal(2);
    let status = server.wait_for(Duration::from_secs(60));
    assert!(status.success(), "the arena ends cleanly on SIGINT: {status:?}");
    drop(bots);
    let games = rt().block_on(store.recent_games(u32::MAX)).unwrap();
    eprintln!(
        "{} games in {:?}, {} of them void",
        games.len(),
        started.elapsed(),
        games.iter().filter(|g| g.status == GameStatus::Void).count()
    );
    assert!(separated, "the official board did not separate the tiers in {PATIENCE:?}");
    check_stored(&store, &games);
    rt().block_on(store.close());
}

/// Every bot of a tier above another has its whole interval above every interval of that tier.
fn tiers_separated(
    rows: &[aluette_arena::rating::RatingRow],
    ids: &BTreeMap<BotId, usize>,
) -> bool {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    let mut seen = 0;
    for r in rows {
        let Some(&t) = ids.get(&r.bot) else { continue };
        seen += 1;
        low[t] = low[t].min(r.low);
        high[t] = high[t].max(r.high);
    }
    seen == ids.len() && low[1] > high[0] && low[2] > high[1]
}

/// What every finished arena must hold: no bot dealt a deal twice, every finished game's record
/// replays, every scored deal counted once, and the boards a function of the comparisons.
fn check_stored(store: &Store, games: &[aluette_arena::store::GameRow]) {
    let mut dealt: BTreeMap<BotId, BTreeSet<i64>> = BTreeMap::new();
    for g in games.iter().filter(|g| g.status != GameStatus::Void) {
        for b in g.seats {
            assert!(
                dealt.entry(b).or_default().insert(g.deal),
                "bot {b} was dealt deal {} twice",
                g.deal
            );
        }
    }
    let mut replayed = 0;
    for g in games.iter().filter(|g| g.status == GameStatus::Done) {
        let path = g.record_path.as_deref().expect("a finished game has its record");
        aluette_referee::check_record(std::path::Path::new(path))
            .unwrap_or_else(|e| panic!("game {}'s record does not replay: {e}", g.id));
        replayed += 1;
    }
    assert!(replayed > 0);
    let comparisons: Vec<_> =
        rt().block_on(store.comparisons()).unwrap().into_iter().map(|(_, c)| c).collect();
    let mut per_deal: BTreeMap<i64, usize> = BTreeMap::new();
    for c in &comparisons {
        *per_deal.entry(c.deal).or_default() += 1;
        let void = games.iter().any(|g| g.deal == c.deal && g.status == GameStatus::Void);
        let done =
            games.iter().filter(|g| g.deal == c.deal && g.status == GameStatus::Done).count();
        assert!(done >= 2 || void, "deal {} compared with {done} finished tables", c.deal);
    }
    // Two tables: one comparison per side, never more.
    assert!(per_deal.values().all(|&n| n <= 2), "a deal counted twice: {per_deal:?}");
    let house: Vec<BotId> =
        rt().block_on(store.bots()).unwrap().iter().filter(|b| b.house).map(|b| b.id).collect();
    let (live, official) = boards(&comparisons, &house, &batch::Config::default()).unwrap();
    let stored = |k| rt().block_on(store.latest_snapshot(k)).unwrap().expect("a board").rows;
    assert_eq!(official, stored(BoardKind::Official), "the official board is its recompute");
    assert_eq!(live, stored(BoardKind::Live), "the live board is its recompute");
}
