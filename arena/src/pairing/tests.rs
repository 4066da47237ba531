//! Pairing checked on many random pools with fixed seeds: the rules hold for every deal planned,
//! and the plan does not depend on the order the pool is given in.

use super::*;
use rules::SplitMix64;

fn entrant(id: BotId, author: i64) -> Entrant {
    Entrant {
        id,
        author,
        house: false,
        admitted: true,
        free_slots: 1,
        mu: 25.0,
        sigma: 25.0 / 3.0,
        last_played: Some(1000),
        games_today: 0,
        games_per_day: 100,
    }
}

fn random_pool(rng: &mut SplitMix64) -> Vec<Entrant> {
    let size = 4 + rng.below(40) as i64;
    let authors = 1 + rng.below(12) as i64;
    (0..size)
        .map(|i| {
            let house = rng.below(4) == 0;
            Entrant {
                id: 10 + i * 3,
                author: if house { 0 } else { 1 + rng.below(authors as u64) as i64 },
                house,
                admitted: rng.below(3) != 0,
                free_slots: rng.below(4) as u32,
                mu: 10.0 + rng.below(3000) as f64 / 100.0,
                sigma: 1.0 + rng.below(800) as f64 / 100.0,
                last_played: if rng.below(5) == 0 { None } else { Some(rng.below(50) as i64) },
                games_today: rng.below(4) as u32,
                games_per_day: 1 + rng.below(12) as u32,
            }
        })
        .collect()
}

fn random_splits(pool: &[Entrant], rng: &mut SplitMix64) -> SplitCounts {
    let ids: Vec<BotId> = pool.iter().map(|e| e.id).collect();
    let mut splits = SplitCounts::new();
    if ids.len() > 14 {
        return splits;
    }
    for a in 0..ids.len() {
        for b in a + 1..ids.len() {
            for c in b + 1..ids.len() {
                for d in c + 1..ids.len() {
                    let counts = [0, 1, 2].map(|_| rng.below(3) as u32);
                    splits.insert([ids[a], ids[b], ids[c], ids[d]], counts);
                }
            }
        }
    }
    splits
}

fn check(pool: &[Entrant], params: &Params, splits: &SplitCounts, plan: &DealPlan) {
    let by_id: BTreeMap<BotId, &Entrant> = pool.iter().map(|e| (e.id, e)).collect();
    assert_eq!(plan.tables.len(), params.tables);
    let mut seen = BTreeSet::new();
    for (t, table) in plan.tables.iter().enumerate() {
        assert_eq!(usize::from(table.orientation), t % 4);
        for id in table.seats {
            assert!(seen.insert(id), "bot {id} twice in one deal: {plan:?}");
            assert!(by_id[&id].ready(), "bot {id} is not ready");
        }
        let bots: Vec<&Entrant> = table.seats.iter().map(|id| by_id[id]).collect();
        for (i, a) in bots.iter().enumerate() {
            for b in &bots[i + 1..] {
                assert!(a.house || b.house || a.author != b.author, "one author twice: {table:?}");
            }
        }
        if bots.iter().any(|e| e.newcomer()) {
            assert_eq!(bots.iter().filter(|e| e.house).count(), 3, "newcomer not with house bots");
        }
        assert_eq!(split_of(table.seats), table.split);
        let mut ids = table.seats;
        ids.sort_unstable();
        let counts = splits.get(&ids).copied().unwrap_or_default();
        let least = counts.iter().min().copied().unwrap_or(0);
        assert_eq!(counts[usize::from(table.split)], least, "not the least played split");
    }
}

#[test]
fn random_pools_keep_every_rule() {
    let mut rng = SplitMix64::new(27);
    let mut planned = 0;
    for round in 0..3000 {
        let pool = random_pool(&mut rng);
        let splits = random_splits(&pool, &mut rng);
        let params = Params { tables: 2 + (round % 3), window: 5.0 };
        let Some(plan) = plan_deal(&pool, &params, &splits) else { continue };
        planned += 1;
        check(&pool, &params, &splits, &plan);
        let mut shuffled = pool.clone();
        shuffled.reverse();
        let half = shuffled.len() / 2;
        shuffled.rotate_left(half);
        assert_eq!(plan_deal(&shuffled, &params, &splits), Some(plan));
    }
    // The pools are meant to exercise the rules, so most must give a deal.
    assert!(planned > 1000, "only {planned} deals planned");
}

#[test]
fn a_full_pool_always_gives_a_deal_seeded_by_the_longest_waiting() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..500 {
        let mut pool: Vec<Entrant> = (0..12).map(|i| entrant(i, i)).collect();
        for e in &mut pool {
            e.last_played = Some(rng.below(100) as i64);
            e.mu = rng.below(50) as f64;
        }
        let first = pool.iter().min_by(|a, b| urgency(a, b)).unwrap().id;
        let plan = plan_deal(&pool, &Params { tables: 3, window: 10.0 }, &SplitCounts::new())
            .expect("twelve ready bots of twelve authors seat three tables");
        assert!(plan.tables[0].seats.contains(&first));
    }
}

#[test]
fn a_newcomer_sits_with_house_bots_only() {
    let mut pool: Vec<Entrant> = (0..8).map(|i| entrant(i, i)).collect();
    let mut newcomer = entrant(100, 100);
    newcomer.admitted = false;
    newcomer.last_played = None;
    pool.push(newcomer.clone());
    // No house bot: the newcomer waits while the others play.
    let plan = plan_deal(&pool, &Params::default(), &SplitCounts::new()).unwrap();
    assert!(plan.tables.iter().all(|t| !t.seats.contains(&100)));
    for e in pool.iter_mut().take(3) {
        e.house = true;
        e.author = 0;
    }
    let plan = plan_deal(&pool, &Params::default(), &SplitCounts::new()).unwrap();
    let mut first = plan.tables[0].seats;
    first.sort_unstable();
    assert_eq!(first, [0, 1, 2, 100]);
}

#[test]
fn tablemates_come_from_the_seeds_window() {
    // Seed 0 (never played) at 50; bots 1..=3 near it, 4..=7 far, but more urgent.
    let mut pool: Vec<Entrant> = (0..12).map(|i| entrant(i, i)).collect();
    pool[0].last_played = None;
    pool[0].mu = 50.0;
    for (i, e) in pool.iter_mut().enumerate().skip(1) {
        e.mu = if i <= 3 { 48.0 } else { 10.0 };
        e.last_played = Some(if i <= 3 { 500 } else { 5 });
    }
    let plan = plan_deal(&pool, &Params { tables: 2, window: 5.0 }, &SplitCounts::new()).unwrap();
    let mut first = plan.tables[0].seats;
    first.sort_unstable();
    assert_eq!(first, [0, 1, 2, 3]);
}

/// Eight bots of two strengths, all ready together and equally urgent (as the bots of two
/// tables that ended together are): both tables mix the strengths instead of seating each
/// strength at a table of its own, where no comparison could tell them apart.
#[test]
fn tablemates_are_spread_across_the_window() {
    let mut pool: Vec<Entrant> = (0..8).map(|i| entrant(i, i)).collect();
    for e in &mut pool {
        e.mu = if e.id < 4 { 22.0 } else { 28.0 };
    }
    let plan = plan_deal(&pool, &Params::default(), &SplitCounts::new()).unwrap();
    for t in &plan.tables {
        let strong = t.seats.iter().filter(|&&b| b >= 4).count();
        assert!((1..=3).contains(&strong), "{plan:?}");
    }
    // Inside the window the farthest from the nearest already seated comes first: the seed at
    // 50 takes 54 (4 from it), then 46 (4 from 50), then 52 (2 from 50 and 54), not 50.5; 70
    // is outside the window.
    let pool: Vec<Entrant> = [50.0, 50.5, 52.0, 54.0, 46.0, 70.0]
        .into_iter()
        .zip(0..)
        .map(|(mu, i)| Entrant { mu, ..entrant(i, i) })
        .collect();
    let ready: Vec<&Entrant> = pool.iter().collect();
    let rank = pool.iter().map(|e| (e.id, e.id as usize)).collect();
    let table = fill(&pool[0], &ready, &BTreeSet::new(), &rank, 5.0).unwrap();
    assert_eq!(table.map(|e| e.id), [0, 3, 4, 2]);
}

#[test]
fn splits_rotate_through_the_three_ways() {
    let pool: Vec<Entrant> = (0..8).map(|i| entrant(i, i)).collect();
    let mut splits = SplitCounts::new();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let plan = plan_deal(&pool, &Params::default(), &splits).unwrap();
        let t = &plan.tables[0];
        let mut ids = t.seats;
        ids.sort_unstable();
        splits.entry(ids).or_default()[usize::from(t.split)] += 1;
        seen.push(t.split);
    }
    assert_eq!(seen, [0, 1, 2]);
    assert_eq!(split_of([1, 2, 3, 4]), 1);
    assert_eq!(split_of([4, 1, 2, 3]), 1);
    assert_eq!(split_of([1, 3, 2, 4]), 0);
    assert_eq!(split_of([1, 2, 4, 3]), 2);
}

#[test]
fn quotas_and_too_few_bots_give_no_deal() {
    let mut pool: Vec<Entrant> = (0..8).map(|i| entrant(i, i)).collect();
    assert!(plan_deal(&pool, &Params { tables: 1, window: 1.0 }, &SplitCounts::new()).is_none());
    pool[3].games_today = 100;
    assert!(plan_deal(&pool, &Params::default(), &SplitCounts::new()).is_none());
    pool[3].games_today = 0;
    pool[4].free_slots = 0;
    assert!(plan_deal(&pool, &Params::default(), &SplitCounts::new()).is_none());
    pool[4].free_slots = 1;
    pool[5].author = 0;
    pool[6].author = 0;
    pool[7].author = 0;
    // Eight bots, but four of author 0 cannot be spread over two tables of four.
    pool[4].author = 0;
    assert!(plan_deal(&pool, &Params::default(), &SplitCounts::new()).is_none());
}

#[test]
fn too_many_faults_pause_a_bot_once_it_has_played_enough() {
    assert_eq!(fault_pause(9, 9, 10, 0.2), None);
    assert_eq!(fault_pause(10, 2, 10, 0.2), None);
    let reason = fault_pause(10, 3, 10, 0.2).unwrap();
    assert!(
        reason.contains("3 of its 10 games") && reason.contains("30%") && reason.contains("20%"),
        "{reason}"
    );
    assert_eq!(fault_pause(0, 0, 0, 0.0), None);
    assert!(admitted(5, 5) && !admitted(4, 5));
}
