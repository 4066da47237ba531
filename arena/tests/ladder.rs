//! The ladder without a referee: twenty simulated bots of known strengths (eight house bots,
//! twelve entrants of three tiers, two per author) are paired, play simulated deals at two
//! tables, are scored and rated through the public API on a real database file, until the
//! official board separates the tiers. Checks the pairing rules over the whole run, that
//! newcomers met only house bots, and that the boards recomputed from the database are the
//! stored ones. On SQLite and on PostgreSQL (issue 28).

use aluette_arena::BotId;
use aluette_arena::pairing::Params;
use aluette_arena::rating::{batch, boards};
use aluette_arena::store::{BoardKind, GameEnd, Location, NewBot, NewGame, Store};
use rules::SplitMix64;
use std::collections::{BTreeMap, BTreeSet};

#[path = "common/pg.rs"]
mod pg;

struct TempDb(std::path::PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

const QUALIFYING: u32 = 3;

#[tokio::test(flavor = "current_thread")]
async fn a_simulated_ladder_separates_three_tiers() {
    let db = TempDb(
        std::env::temp_dir().join(format!("aluette-arena-ladder-{}.db", std::process::id())),
    );
    ladder(Store::open(&db.0).await.unwrap()).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_simulated_ladder_on_postgres_separates_three_tiers() {
    let Some(db) = pg::fresh("ladder") else { return };
    ladder(Store::connect(&Location::Postgres(db.url.clone())).await.unwrap()).await;
}

async fn ladder(store: Store) {
    let mut strength: BTreeMap<BotId, f64> = BTreeMap::new();
    let mut house = BTreeSet::new();
    let mut author_of = BTreeMap::new();
    for (i, s) in [-0.5, -0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0].iter().enumerate() {
        let new = NewBot {
            author: "house".into(),
            name: format!("house{i}"),
            version: "1".into(),
            house: true,
            tables_at_once: 4,
            games_per_day: 100_000,
        };
        let (bot, _) = store.add_bot(&new, 0).await.unwrap();
        strength.insert(bot.id, *s);
        house.insert(bot.id);
        author_of.insert(bot.id, bot.author_id);
    }
    // Tiers: weak -2.5, middling 0, strong 2.5 (a random player, a heuristic, a search); author k has bots of two different tiers.
    let mut tier: BTreeMap<BotId, usize> = BTreeMap::new();
    for i in 0..12usize {
        let t = i % 3;
        let new = NewBot {
            author: format!("author{}", i / 2),
            name: format!("bot{i}"),
            version: "1".into(),
            house: false,
            tables_at_once: 1,
            games_per_day: 100_000,
        };
        let (bot, _) = store.add_bot(&new, 0).await.unwrap();
        strength.insert(bot.id, [-2.5, 0.0, 2.5][t]);
        tier.insert(bot.id, t);
        author_of.insert(bot.id, bot.author_id);
    }
    let offered: BTreeMap<BotId, u32> = strength.keys().map(|&b| (b, 4)).collect();
    let mut rng = SplitMix64::new(2027);
    let mut finished: BTreeMap<BotId, u32> = BTreeMap::new();
    let mut seeds_seen: BTreeMap<BotId, BTreeSet<u64>> = BTreeMap::new();
    let config = batch::Config::default();
    let mut now = 1_000;
    for round in 0..1000 {
        now += 10;
        let plan = store
            .plan_deal(&offered, QUALIFYING, &Params::default(), now)
            .await
            .unwrap()
            .expect("twenty bots seat a deal");
        let seed = rng.next_u64();
        let deal = store.new_deal(seed, now).await.unwrap();
        // The luck of the cards: how much side 0's hands favour their holders, the same at
        // every table of the deal.
        let luck = 2.0 * (uniform(&mut rng) - 0.5);
        let mut in_deal = BTreeSet::new();
        for (t, table) in plan.tables.iter().enumerate() {
            for &b in &table.seats {
                assert!(in_deal.insert(b), "bot {b} twice in deal {deal}");
                assert!(
                    seeds_seen.entry(b).or_default().insert(seed),
                    "bot {b} dealt seed {seed} twice"
                );
                if !house.contains(&b) && finished.get(&b).copied().unwrap_or(0) < QUALIFYING {
                    let others: Vec<_> = table.seats.iter().filter(|&&o| o != b).collect();
                    assert!(
                        others.iter().all(|o| house.contains(o)),
                        "newcomer {b} with non-house bots"
                    );
                }
            }
            for (i, a) in table.seats.iter().enumerate() {
                for b in &table.seats[i + 1..] {
                    let both_entrants = !house.contains(a) && !house.contains(b);
                    assert!(!both_entrants || author_of[a] != author_of[b], "one author twice");
                }
            }
            let game = NewGame {
                deal,
                table_no: t as u32,
                seats: table.seats,
                orientation: table.orientation,
            };
            let g = store.add_game(&game).await.unwrap();
            store.start_game(g, None, now).await.unwrap();
            let s = |seat: usize| strength[&table.seats[seat]];
            let side_luck = if table.orientation % 2 == 0 { luck } else { -luck };
            let edge = s(0) + s(2) - s(1) - s(3) + side_luck;
            let even_wins = uniform(&mut rng) < 1.0 / (1.0 + (-edge).exp());
            let points = if uniform(&mut rng) < 0.1 { 2 } else { 1 };
            let (points02, points13) = if even_wins { (points, 0) } else { (0, points) };
            let end = GameEnd { points02, points13, fault_seats: 0, record_path: None };
            store.end_game(g, &end, now + 5).await.unwrap();
            for &b in &table.seats {
                *finished.entry(b).or_default() += 1;
            }
        }
        let scoring = store.score_deal(deal).await.unwrap();
        assert_eq!(scoring.comparisons.len(), 2);
        assert_eq!(store.published_seed(deal).await.unwrap(), Some(seed));
        if round % 25 == 24 {
            store.refresh_boards(&config, now + 6).await.unwrap();
        }
    }
    assert!(store.deals_to_score().await.unwrap().is_empty());
    let official = store.latest_snapshot(BoardKind::Official).await.unwrap().unwrap();
    let row = |b: BotId| official.rows.iter().find(|r| r.bot == b).unwrap().clone();
    let mut weakest_above = [f64::INFINITY; 3];
    let mut strongest_below = [f64::NEG_INFINITY; 3];
    for (&b, &t) in &tier {
        let r = row(b);
        weakest_above[t] = weakest_above[t].min(r.low);
        strongest_below[t] = strongest_below[t].max(r.high);
        assert!(!r.provisional, "bot {b} still provisional: {r:?}");
    }
    // Every bot's interval lies wholly above every interval of the tier below.
    for t in 1..3 {
        assert!(
            weakest_above[t] > strongest_below[t - 1],
            "tiers {} and {t} overlap: {:?}",
            t - 1,
            official.rows
        );
    }
    // Recomputed from the database, the boards are the stored ones.
    let house_ids: Vec<BotId> = house.iter().copied().collect();
    let comparisons: Vec<_> =
        store.comparisons().await.unwrap().into_iter().map(|(_, c)| c).collect();
    assert_eq!(comparisons.len(), 2000);
    let (live, recomputed) = boards(&comparisons, &house_ids, &config).unwrap();
    assert_eq!(recomputed, official.rows);
    assert_eq!(live, store.latest_snapshot(BoardKind::Live).await.unwrap().unwrap().rows);
    store.close().await;
}
