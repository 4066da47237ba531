//! `referee worker`'s loop: lease whole deals from the arena while slots are free, play each
//! game through the library (house kinds and the hosted entrants' programs), heartbeat every
//! lease at a third of its ttl, post each result, and back off (jittered, exponential) on
//! errors and on "busy, retry after". The first Ctrl-C stops leasing and lets the games in hand
//! end and be posted; the second aborts them.

use super::client::Client;
use super::house::House;
use super::wire::{self, Lease, LeasedGame, ResultAnswer, SeatKind, TableConfig};
use crate::api::{Config, Game, Seat, Status, Stop, Table};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{Notify, Semaphore};

/// What `referee worker` was told.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The arena's web address, `http://HOST:PORT`.
    pub server: String,
    /// The worker's token (`arena admin add-worker`).
    pub token: String,
    /// Tables played at once.
    pub slots: u32,
    /// Hosted entrants' programs: entrant name to the command line that plays it.
    pub bots: BTreeMap<String, String>,
}

/// Deadline of each request.
const DEADLINE: Duration = Duration::from_secs(20);

/// Shared by the loop and its leases' tasks.
struct Ctx {
    client: Client,
    bots: BTreeMap<String, String>,
    slots: Arc<Semaphore>,
    /// Games leased and not yet played and posted.
    in_hand: AtomicUsize,
    /// A game ended (a slot may be free).
    freed: Notify,
    /// Every open lease's stop, by lease, aborted by the second Ctrl-C.
    stops: Mutex<BTreeMap<i64, Stop>>,
    aborted: AtomicBool,
    played: AtomicU64,
    counted: AtomicU64,
    refused: AtomicU64,
}

/// Runs the worker until a Ctrl-C (or SIGTERM) and its games in hand are done.
pub(crate) async fn run(cfg: WorkerConfig) -> Result<(), String> {
    let client = Client::new(&cfg.server, &cfg.token, DEADLINE)?;
    let ctx = Arc::new(Ctx {
        client,
        bots: cfg.bots,
        slots: Arc::new(Semaphore::new(cfg.slots as usize)),
        in_hand: AtomicUsize::new(0),
        freed: Notify::new(),
        stops: Mutex::new(BTreeMap::new()),
        aborted: AtomicBool::new(false),
        played: AtomicU64::new(0),
        counted: AtomicU64::new(0),
        refused: AtomicU64::new(0),
    });
    let draining = Arc::new(Notify::new());
    let drain_flag = Arc::new(AtomicBool::new(false));
    signals(ctx.clone(), draining.clone(), drain_flag.clone());
    let can_run: Vec<String> = ctx.bots.keys().cloned().collect();
    let mut backoff = Backoff::default();
    let mut leases = tokio::task::JoinSet::new();
    let result = loop {
        if drain_flag.load(Ordering::SeqCst) {
            break Ok(());
        }
        let free = (cfg.slots as usize).saturating_sub(ctx.in_hand.load(Ordering::SeqCst));
        if free == 0 {
            tokio::select! {
                () = ctx.freed.notified() => {}
                () = draining.notified() => {}
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            continue;
        }
        let wait = match lease(&ctx.client, free as u32, &can_run).await {
            Ok(Leased::Work(lease)) => {
                backoff.reset();
                let games: usize = lease.deals.iter().map(|d| d.games.len()).sum();
                tracing::info!("lease {}: {} deals, {games} games", lease.lease, lease.deals.len());
                ctx.in_hand.fetch_add(games, Ordering::SeqCst);
                leases.spawn(play_lease(ctx.clone(), lease));
                continue;
            }
            Ok(Leased::Busy(after)) => backoff.after(after),
            Ok(Leased::Refused(why)) => break Err(format!("the server refuses the token: {why}")),
            Err(e) => {
                tracing::warn!("lease: {e}");
                backoff.next()
            }
        };
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = draining.notified() => {}
        }
    };
    if result.is_err() {
        ctx.abort();
    }
    while leases.join_next().await.is_some() {}
    eprintln!(
        "referee worker: {} games played, {} counted, {} refused",
        ctx.played.load(Ordering::SeqCst),
        ctx.counted.load(Ordering::SeqCst),
        ctx.refused.load(Ordering::SeqCst)
    );
    result
}

impl Ctx {
    fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
        for stop in self.stops.lock().unwrap_or_else(PoisonError::into_inner).values() {
            stop.abort();
        }
    }
}

/// Ctrl-C or SIGTERM: the first drains, the second aborts.
fn signals(ctx: Arc<Ctx>, draining: Arc<Notify>, flag: Arc<AtomicBool>) {
    crate::shutdown::on_stop_signals(
        move || {
            eprintln!(
                "referee worker: stopping: no new leases; games in hand finish (again to abort them)"
            );
            flag.store(true, Ordering::SeqCst);
            draining.notify_waiters();
            draining.notify_one();
        },
        move || ctx.abort(),
    );
}

enum Leased {
    Work(Lease),
    /// Nothing now: retry after this many seconds (if the server said).
    Busy(Option<u64>),
    /// The token is not a worker's.
    Refused(String),
}

async fn lease(client: &Client, slots: u32, can_run: &[String]) -> Result<Leased, String> {
    let body = wire::LeaseRequest { slots, can_run: can_run.to_vec() };
    let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    let a = client.post("/api/work/lease", body, wire::MAX_LEASE_BYTES).await?;
    match a.status {
        200 => serde_json::from_slice(&a.body)
            .map(Leased::Work)
            .map_err(|e| format!("the server's lease is not one this worker reads: {e}")),
        204 | 503 => Ok(Leased::Busy(a.retry_after)),
        401 | 403 => Ok(Leased::Refused(a.text())),
        429 => Ok(Leased::Busy(a.retry_after.or(Some(1)))),
        s => Err(format!("lease: HTTP {s}: {}", a.text())),
    }
}

/// Plays every game of `lease` (each when a slot is free), heartbeating it meanwhile; a lease
/// the server says is gone stops its games, whose results would be refused.
async fn play_lease(ctx: Arc<Ctx>, lease: Lease) {
    let stop = Stop::new();
    ctx.stops.lock().unwrap_or_else(PoisonError::into_inner).insert(lease.lease, stop.clone());
    if ctx.aborted.load(Ordering::SeqCst) {
        stop.abort();
    }
    let gone = Arc::new(AtomicBool::new(false));
    let beat =
        tokio::spawn(heartbeat(ctx.clone(), lease.lease, lease.ttl_ms, stop.clone(), gone.clone()));
    let config = table_config(&lease.config);
    let mut games = tokio::task::JoinSet::new();
    for deal in &lease.deals {
        for g in &deal.games {
            let (ctx, stop, gone, config, g) =
                (ctx.clone(), stop.clone(), gone.clone(), config.clone(), g.clone());
            let (id, seed) = (lease.lease, deal.seed);
            games.spawn(async move {
                let permit = ctx.slots.clone().acquire_owned().await;
                if permit.is_ok() && !gone.load(Ordering::SeqCst) && !stop.is_stopping() {
                    play_and_post(&ctx, id, seed, &g, &config, &stop).await;
                }
                drop(permit);
                ctx.in_hand.fetch_sub(1, Ordering::SeqCst);
                ctx.freed.notify_one();
            });
        }
    }
    while games.join_next().await.is_some() {}
    beat.abort();
    ctx.stops.lock().unwrap_or_else(PoisonError::into_inner).remove(&lease.lease);
}

async fn heartbeat(ctx: Arc<Ctx>, lease: i64, ttl_ms: u64, stop: Stop, gone: Arc<AtomicBool>) {
    let every = Duration::from_millis((ttl_ms / 3).max(100));
    loop {
        tokio::time::sleep(every).await;
        let body = serde_json::to_vec(&wire::Heartbeat { lease }).unwrap_or_default();
        match ctx.client.post("/api/work/heartbeat", body, 64 << 10).await {
            Ok(a) if a.status == 200 => {}
            Ok(a) if matches!(a.status, 403 | 404 | 409) => {
                tracing::warn!("lease {lease} is gone ({}): its games stop", a.text());
                gone.store(true, Ordering::SeqCst);
                stop.abort();
                return;
            }
            Ok(a) => tracing::warn!("heartbeat of lease {lease}: HTTP {}: {}", a.status, a.text()),
            Err(e) => tracing::warn!("heartbeat of lease {lease}: {e}"),
        }
    }
}

fn table_config(c: &TableConfig) -> Config {
    let rules = match convert::rules_from_wire(&c.rules) {
        Ok((rules, _)) => rules,
        Err(e) => {
            tracing::warn!(
                "the lease's rules: {e}; the defaults are used (the result will be refused)"
            );
            rules::Rules::default()
        }
    };
    Config::default()
        .rules(rules)
        .answer_ms(c.answer_ms)
        .bank_ms(c.bank_ms)
        .handshake_ms(c.handshake_ms)
}

/// The seat a leased seat names: a house kind, or the program given for a hosted entrant.
fn seat(
    ctx: &Ctx,
    seed: u64,
    game: i64,
    s: usize,
    kind: SeatKind,
    entrant: &str,
) -> Result<Seat, String> {
    match House::of_kind(kind) {
        Some(house) => Ok(house.seat(House::seat_seed(seed, game, s))),
        None => {
            let program = ctx
                .bots
                .get(entrant)
                .ok_or_else(|| format!("no --bot was given for the hosted entrant {entrant:?}"))?;
            Seat::parse(program)
        }
    }
}

async fn play_and_post(
    ctx: &Ctx,
    lease: i64,
    seed: u64,
    g: &LeasedGame,
    config: &Config,
    stop: &Stop,
) {
    let mut seats = Vec::with_capacity(4);
    for (s, leased) in g.seats.iter().enumerate() {
        match seat(ctx, seed, g.game, s, leased.kind, &leased.entrant) {
            Ok(seat) => seats.push(seat),
            Err(e) => {
                tracing::error!("game {}: {e}", g.game);
                return;
            }
        }
    }
    let seats: [Seat; 4] = match seats.try_into() {
        Ok(s) => s,
        Err(_) => return,
    };
    let mut table = Table::open(config, seats).await;
    table.stop_with(stop);
    let game =
        Game::new(seed).number(g.game as u64).first_dealer(g.first_dealer).record_in_memory();
    let outcome = table.play(game).await;
    table.close("the game is over").await;
    let record = match outcome {
        Ok(o) if o.summary.status == Status::Complete => o.record.unwrap_or_default(),
        Ok(_) => return,
        Err(e) => {
            tracing::error!("game {}: {e}", g.game);
            return;
        }
    };
    ctx.played.fetch_add(1, Ordering::SeqCst);
    let body = wire::ResultPost { lease, game: g.game, record };
    let Ok(body) = serde_json::to_vec(&body) else { return };
    let mut backoff = Backoff::default();
    for _ in 0..8 {
        // The second Ctrl-C gives up what is still to post, as it aborts what is in play.
        if ctx.aborted.load(Ordering::SeqCst) {
            return;
        }
        match ctx.client.post("/api/work/result", body.clone(), 64 << 10).await {
            Ok(a) if a.status == 200 => {
                let status = serde_json::from_slice::<ResultAnswer>(&a.body).map(|r| r.status);
                tracing::info!("game {}: {status:?}", g.game);
                ctx.counted.fetch_add(1, Ordering::SeqCst);
                return;
            }
            Ok(a) if (400..500).contains(&a.status) && a.status != 429 => {
                ctx.refused.fetch_add(1, Ordering::SeqCst);
                tracing::warn!(
                    "game {}: the result is refused: HTTP {}: {}",
                    g.game,
                    a.status,
                    a.text()
                );
                return;
            }
            Ok(a) => {
                tracing::warn!("game {}: HTTP {}: {}", g.game, a.status, a.text());
                tokio::time::sleep(backoff.after(a.retry_after)).await;
            }
            Err(e) => {
                tracing::warn!("game {}: {e}", g.game);
                tokio::time::sleep(backoff.next()).await;
            }
        }
    }
    tracing::error!("game {}: the result could not be posted", g.game);
}

/// Jittered exponential back-off. Each failure doubles the wait, from 250 ms to 30 s; each
/// "busy" in a row doubles the server's `Retry-After` (1 s when it gave none), up to four times
/// it, so an idle arena is asked again within seconds. Every wait is drawn between half and all
/// of its ceiling (never below a `Retry-After`), so workers that failed together do not retry
/// in step.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    failures: u32,
    busy: u32,
}

impl Backoff {
    const FIRST_MS: u64 = 250;
    const MOST_MS: u64 = 30_000;

    pub(crate) fn reset(&mut self) {
        *self = Backoff::default();
    }

    /// The wait after one more failure.
    pub(crate) fn next(&mut self) -> Duration {
        let ceiling = Self::FIRST_MS.saturating_mul(1 << self.failures.min(16)).min(Self::MOST_MS);
        self.failures += 1;
        Duration::from_millis(jitter(ceiling / 2, ceiling))
    }

    /// The wait after a "busy, retry after `retry_after` seconds".
    pub(crate) fn after(&mut self, retry_after: Option<u64>) -> Duration {
        // A busy answer is an answer: the errors' doubling starts again.
        self.failures = 0;
        let floor = retry_after.unwrap_or(1).min(3_600).saturating_mul(1000);
        let ceiling = (floor << self.busy.min(2)).min(Self::MOST_MS.max(floor));
        self.busy += 1;
        Duration::from_millis(jitter(floor.max(ceiling / 2), ceiling.max(floor)))
    }
}

/// A whole number drawn from `low..=high`.
fn jitter(low: u64, high: u64) -> u64 {
    let r = getrandom::u64().unwrap_or(0);
    low + r % (high.saturating_sub(low) + 1)
}

#[cfg(test)]
mod tests {
    use super::Backoff;
    use std::time::Duration;

    #[test]
    fn back_off_doubles_to_its_ceiling_and_honours_retry_after() {
        let mut b = Backoff::default();
        let waits: Vec<Duration> = (0..12).map(|_| b.next()).collect();
        assert!(waits[0] >= Duration::from_millis(125) && waits[0] <= Duration::from_millis(250));
        assert!(waits[3] >= Duration::from_millis(1000) && waits[3] <= Duration::from_millis(2000));
        assert!(waits[11] >= Duration::from_secs(15) && waits[11] <= Duration::from_secs(30));
        b.reset();
        let busy: Vec<Duration> = (0..5).map(|_| b.after(Some(2))).collect();
        assert!(busy.iter().all(|w| *w >= Duration::from_secs(2) && *w <= Duration::from_secs(8)));
        assert!(busy[0] == Duration::from_secs(2), "the first busy waits what was asked");
        assert!(b.after(None) >= Duration::from_secs(1));
    }
}
