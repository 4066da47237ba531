//! The counters `/metrics` shows, in Prometheus' text format (version 0.0.4): kept in memory by
//! the server (they start at zero with each run, as Prometheus counters may), beside the two
//! gauges read from the database when scraped (queue depth, oldest lease's age).

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where a game was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// At a table of the server itself (connected bots, or house games without `--work`).
    Server,
    /// By a worker, through a lease.
    Worker,
}

/// The window of the games-per-second gauge.
const WINDOW: Duration = Duration::from_secs(60);

/// The server's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    server_games: AtomicU64,
    worker_games: AtomicU64,
    leases_expired: AtomicU64,
    /// Microseconds the work queue spent on the database.
    db_us: AtomicU64,
    errors: Mutex<BTreeMap<&'static str, u64>>,
    /// When each game of the last minute ended.
    recent: Mutex<VecDeque<Instant>>,
}

/// What one scrape shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scrape {
    /// Games waiting in the queue.
    pub queue_depth: u64,
    /// Age of the oldest open lease, in seconds (0 with none).
    pub oldest_lease_s: f64,
    /// Games ended at the server's tables.
    pub server_games: u64,
    /// Games ended by workers' results.
    pub worker_games: u64,
    /// Leases expired.
    pub leases_expired: u64,
    /// Seconds the work queue spent on the database.
    pub db_seconds: f64,
    /// Errors by kind.
    pub errors: BTreeMap<String, u64>,
    /// Games ended per second over the last minute.
    pub games_per_second: f64,
}

impl Metrics {
    /// A game ended, played `at`.
    pub fn game_ended(&self, at: Where) {
        match at {
            Where::Server => &self.server_games,
            Where::Worker => &self.worker_games,
        }
        .fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.push_back(now);
        prune(&mut recent, now);
    }

    /// The work queue spent `spent` on the database.
    pub fn db_time(&self, spent: Duration) {
        self.db_us.fetch_add(spent.as_micros() as u64, Ordering::Relaxed);
    }

    /// A lease expired.
    pub fn lease_expired(&self) {
        self.leases_expired.fetch_add(1, Ordering::Relaxed);
    }

    /// An error of `kind` (a result refused, a record that failed its check, ...).
    pub fn error(&self, kind: &'static str) {
        *self.errors.lock().unwrap_or_else(PoisonError::into_inner).entry(kind).or_default() += 1;
    }

    /// The counters now, with the database's two gauges.
    pub fn scrape(&self, queue_depth: u64, oldest_lease_s: f64) -> Scrape {
        let now = Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        prune(&mut recent, now);
        Scrape {
            queue_depth,
            oldest_lease_s,
            server_games: self.server_games.load(Ordering::Relaxed),
            worker_games: self.worker_games.load(Ordering::Relaxed),
            leases_expired: self.leases_expired.load(Ordering::Relaxed),
            db_seconds: self.db_us.load(Ordering::Relaxed) as f64 / 1e6,
            errors: self
                .errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            games_per_second: recent.len() as f64 / WINDOW.as_secs_f64(),
        }
    }
}

fn prune(recent: &mut VecDeque<Instant>, now: Instant) {
    while recent.front().is_some_and(|t| now.duration_since(*t) > WINDOW) {
        recent.pop_front();
    }
}

/// The scrape in Prometheus' text exposition format.
pub fn render(s: &Scrape) -> String {
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, String)]| {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(out, "{name}{labels} {value}");
        }
    };
    let one = |v: String| vec![(String::new(), v)];
    metric(
        "aluette_arena_queue_depth",
        "gauge",
        "Games waiting in the work queue.",
        &one(s.queue_depth.to_string()),
    );
    metric(
        "aluette_arena_lease_oldest_age_seconds",
        "gauge",
        "Age of the oldest open lease (0 with none).",
        &one(format!("{:.3}", s.oldest_lease_s)),
    );
    metric(
        "aluette_arena_games_total",
        "counter",
        "Games ended since the server started, by where they were played.",
        &[
            ("{where=\"server\"}".into(), s.server_games.to_string()),
            ("{where=\"worker\"}".into(), s.worker_games.to_string()),
        ],
    );
    metric(
        "aluette_arena_games_per_second",
        "gauge",
        "Games ended per second over the last minute.",
        &one(format!("{:.3}", s.games_per_second)),
    );
    metric(
        "aluette_arena_leases_expired_total",
        "counter",
        "Leases expired since the server started.",
        &one(s.leases_expired.to_string()),
    );
    metric(
        "aluette_arena_database_seconds_total",
        "counter",
        "Time the work queue spent on the database (leases, heartbeats, results, expiry, planning).",
        &one(format!("{:.6}", s.db_seconds)),
    );
    let errors: Vec<(String, String)> =
        s.errors.iter().map(|(k, v)| (format!("{{kind=\"{k}\"}}"), v.to_string())).collect();
    metric(
        "aluette_arena_errors_total",
        "counter",
        "Work requests refused, by kind (result_refused, record_rejected, lease_gone, lease_not_held, unauthorized).",
        &errors,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_has_help_type_and_labelled_samples() {
        let m = Metrics::default();
        m.game_ended(Where::Worker);
        m.game_ended(Where::Worker);
        m.game_ended(Where::Server);
        m.lease_expired();
        m.error("result_refused");
        m.error("result_refused");
        let text = render(&m.scrape(6, 1.5));
        for line in [
            "# TYPE aluette_arena_queue_depth gauge",
            "aluette_arena_queue_depth 6",
            "aluette_arena_lease_oldest_age_seconds 1.500",
            "aluette_arena_games_total{where=\"server\"} 1",
            "aluette_arena_games_total{where=\"worker\"} 2",
            "aluette_arena_leases_expired_total 1",
            "aluette_arena_errors_total{kind=\"result_refused\"} 2",
            "aluette_arena_games_per_second 0.050",
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} missing from:\n{text}");
        }
        // Every sample line is NAME[{LABELS}] VALUE with a number for its value.
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = l.rsplit_once(' ').unwrap();
            assert!(value.parse::<f64>().is_ok(), "{l}");
        }
    }
}
