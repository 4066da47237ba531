//! The work queue's server half (issue 28, spec/arena.md section 10): deals whose seats are all
//! house or hosted entrants are queued in the database and leased, whole, to `referee worker`
//! processes over HTTP; a lease lives while its heartbeats come, and one that expires has its
//! unfinished games voided (as a crash voids the games in flight) and its foursomes dealt again
//! with a fresh seed. A worker's result is believed only as far as its record proves it.
//!
//! The rooms: `lease.rs` what happens to a lease (granted, extended, a result taken, expired),
//! over the store; `plan.rs` filling the queue and dealing expired foursomes again; `routes.rs`
//! the HTTP side; `metrics.rs` the counters and `/metrics`. Everything that changes the queue
//! goes through [`Hub`]'s one gate, so a result and an expiry never interleave.

mod lease;
mod metrics;
mod plan;
mod routes;

pub use lease::{Refusal, pick_deals};
pub use metrics::{Metrics, Scrape, Where, render};
pub use routes::routes;

use crate::BotId;
use crate::records::Records;
use crate::store::Store;
use aluette_referee::worker::House;
use aluette_referee::worker::wire::TableConfig;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// How the work queue runs.
#[derive(Clone, Debug)]
pub struct WorkSettings {
    /// A lease whose last heartbeat is older than this expires.
    pub ttl_ms: u64,
    /// Deals in the queue or leased, at most.
    pub deals: u64,
}

impl Default for WorkSettings {
    fn default() -> WorkSettings {
        WorkSettings { ttl_ms: 10_000, deals: 8 }
    }
}

/// The work queue's shared state: the web routes and the server's loop hold it alike.
#[derive(Clone, Debug)]
pub struct Hub(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    store: Store,
    /// `None`: the server runs without `--work`; the routes answer 503 and only `/metrics`
    /// serves.
    settings: Option<WorkSettings>,
    records: Records,
    config: TableConfig,
    house: BTreeMap<BotId, House>,
    metrics: Metrics,
    /// One change of the queue at a time.
    gate: tokio::sync::Mutex<()>,
    /// Deals scored, and the bots of games ended, since the server's loop last asked.
    scored: Mutex<u64>,
    ended: Mutex<Vec<BotId>>,
    stopping: std::sync::atomic::AtomicBool,
    /// Woken when deals are queued: a lease request that found none waits on it.
    queued: tokio::sync::Notify,
    /// Per address: `/metrics` requests, and wrong worker tokens (see `routes::guard`).
    limits: Mutex<Limits>,
}

/// What strangers may ask of the work API: `/metrics` as often as a page, and wrong tokens a few
/// at a time, each past those answered only after a wait.
#[derive(Debug)]
struct Limits {
    metrics: crate::web::limit::Buckets,
    wrong_tokens: crate::web::limit::Buckets,
}

impl Hub {
    /// The hub of a server storing in `store` and writing records to `records`, whose games
    /// are played under `config`; `settings` is `None` without `--work`.
    pub fn new(
        store: Store,
        settings: Option<WorkSettings>,
        records: Records,
        config: &aluette_referee::Config,
        house: BTreeMap<BotId, House>,
    ) -> Hub {
        Hub(Arc::new(Inner {
            store,
            settings,
            records,
            config: aluette_referee::worker::table_config(config),
            house,
            metrics: Metrics::default(),
            gate: tokio::sync::Mutex::new(()),
            scored: Mutex::new(0),
            ended: Mutex::new(Vec::new()),
            stopping: std::sync::atomic::AtomicBool::new(false),
            queued: tokio::sync::Notify::new(),
            limits: Mutex::new(Limits {
                metrics: crate::web::limit::Buckets::new(crate::web::limit::Rate::default()),
                wrong_tokens: crate::web::limit::Buckets::new(WRONG_TOKENS),
            }),
        }))
    }

    /// True when the server runs the work queue.
    pub fn enabled(&self) -> bool {
        self.0.settings.is_some()
    }

    /// The counters `/metrics` shows.
    pub fn metrics(&self) -> &Metrics {
        &self.0.metrics
    }

    /// From now on no lease is granted (the server is stopping).
    pub fn stop_leasing(&self) {
        self.0.stopping.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// How many deals were scored since the last call (the server refits its boards then).
    pub fn take_scored(&self) -> u64 {
        std::mem::take(&mut *self.0.scored.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The bots of the worker games ended since the last call (the server checks their fault
    /// rates).
    pub fn take_ended(&self) -> Vec<BotId> {
        let mut bots =
            std::mem::take(&mut *self.0.ended.lock().unwrap_or_else(PoisonError::into_inner));
        bots.sort_unstable();
        bots.dedup();
        bots
    }

    fn record_path(&self, game: i64) -> String {
        self.0.records.spool(game).display().to_string()
    }
}

/// Wrong worker tokens an address may present at once, and regains a second.
const WRONG_TOKENS: crate::web::limit::Rate =
    crate::web::limit::Rate { burst: 10.0, per_second: 0.2 };

impl Hub {
    /// One `/metrics` request from `addr`: allowed, or the seconds to wait.
    fn metrics_allowed(&self, addr: std::net::IpAddr) -> Result<(), u64> {
        let mut limits = self.0.limits.lock().unwrap_or_else(PoisonError::into_inner);
        limits.metrics.take(addr, std::time::Instant::now())
    }

    /// A wrong token from `addr`: how long to wait before saying so (nothing for the first
    /// few, then the time its bucket needs to refill one, five seconds at most). A stranger
    /// guessing tokens is slowed to a few a second per connection it may hold; a worker, whose
    /// token is right, never waits.
    fn wrong_token_delay(&self, addr: std::net::IpAddr) -> std::time::Duration {
        let mut limits = self.0.limits.lock().unwrap_or_else(PoisonError::into_inner);
        match limits.wrong_tokens.take(addr, std::time::Instant::now()) {
            Ok(()) => std::time::Duration::ZERO,
            Err(wait) => std::time::Duration::from_secs(wait.min(5)),
        }
    }
}

/// Milliseconds since the epoch: the leases' clock.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
