//! What happens to a lease: granted on whole queued deals a worker can play, extended by its
//! heartbeats, a result taken only for a game it holds and only as its record proves, done when
//! its last game ends, expired when its heartbeats stop. The store's conditional UPDATEs make
//! each step happen once; the hub's gate keeps a result and an expiry from interleaving.

use super::{Hub, Where, now_ms};
use crate::BotId;
use crate::store::{GameEnd, GameStatus, LeaseState, QueuedDeal, StoreError, Worker};
use aluette_referee::worker::wire::{
    Lease, LeaseRequest, LeasedDeal, LeasedGame, LeasedSeat, ResultAnswer, ResultPost,
    ResultStatus, SeatKind,
};
use aluette_referee::worker::{Expected, Verdict, check_result};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Why a request was refused: the HTTP status and its one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// 400, 403, 404, 409, 422 or 500.
    pub status: u16,
    /// Why, in one line.
    pub why: String,
}

impl Refusal {
    fn new(status: u16, why: impl Into<String>) -> Refusal {
        Refusal { status, why: why.into() }
    }
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        tracing::error!("work queue: {e}");
        Refusal::new(500, e.to_string())
    }
}

/// The deals of `queued` (oldest first) a lease of `slots` tables takes: those whose every seat
/// `runnable` accepts, in order, as long as their tables fit in `slots`; always the first
/// runnable one, even if it has more tables than `slots` (a deal is never split).
pub fn pick_deals(queued: &[QueuedDeal], runnable: impl Fn(BotId) -> bool, slots: u32) -> Vec<i64> {
    let mut picked = Vec::new();
    let mut tables = 0usize;
    for d in queued {
        if !d.games.iter().flat_map(|g| g.seats).all(&runnable) {
            continue;
        }
        if !picked.is_empty() && tables + d.games.len() > slots as usize {
            break;
        }
        tables += d.games.len();
        picked.push(d.deal);
        if tables >= slots as usize {
            break;
        }
    }
    picked
}

impl Hub {
    fn settings(&self) -> Result<&super::WorkSettings, Refusal> {
        self.0.settings.as_ref().ok_or_else(|| {
            Refusal::new(503, "this arena runs no work queue (start it with arena serve --work)")
        })
    }

    /// A lease of whole deals for `worker`, or `None` when there is nothing it can play now.
    pub async fn lease(
        &self,
        worker: &Worker,
        req: &LeaseRequest,
    ) -> Result<Option<Lease>, Refusal> {
        let settings = self.settings()?.clone();
        if req.slots == 0 {
            return Err(Refusal::new(400, "slots must be 1 or more"));
        }
        if self.0.stopping.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(Refusal::new(503, "the arena is stopping"));
        }
        let _gate = self.0.gate.lock().await;
        let started = std::time::Instant::now();
        let leased = self.grant(worker, req, &settings).await;
        self.0.metrics.db_time(started.elapsed());
        leased
    }

    /// [`Hub::lease`], waiting up to `wait` for deals to be queued when there are none now:
    /// a worker is answered as soon as work comes (a long poll) instead of sleeping out a
    /// retry time while the queue fills, and an idle arena is asked once per `wait`.
    pub async fn lease_waiting(
        &self,
        worker: &Worker,
        req: &LeaseRequest,
        wait: std::time::Duration,
    ) -> Result<Option<Lease>, Refusal> {
        let until = tokio::time::Instant::now() + wait;
        loop {
            // Armed before the queue is looked at, so a fill in between is not missed.
            let queued = self.0.queued.notified();
            tokio::pin!(queued);
            queued.as_mut().enable();
            if let Some(lease) = self.lease(worker, req).await? {
                return Ok(Some(lease));
            }
            if tokio::time::timeout_at(until, queued).await.is_err() {
                return Ok(None);
            }
        }
    }

    async fn grant(
        &self,
        worker: &Worker,
        req: &LeaseRequest,
        settings: &super::WorkSettings,
    ) -> Result<Option<Lease>, Refusal> {
        let store = &self.0.store;
        let hosted = store.hosted_bots().await?;
        let names: BTreeMap<BotId, String> =
            store.bots().await?.into_iter().map(|b| (b.id, b.name)).collect();
        let can_run: BTreeSet<&str> = req.can_run.iter().map(String::as_str).collect();
        let runnable = |id: BotId| {
            self.0.house.contains_key(&id)
                || (hosted.contains(&id)
                    && names.get(&id).is_some_and(|n| can_run.contains(n.as_str())))
        };
        let queued = store.queued_deals(64).await?;
        let picked = pick_deals(&queued, runnable, req.slots);
        if picked.is_empty() {
            return Ok(None);
        }
        let ttl = settings.ttl_ms as i64;
        let path = |game: i64| self.record_path(game);
        let Some((lease, got)) =
            store.grant_lease(worker.id, &picked, ttl, now_ms(), &path).await?
        else {
            return Ok(None);
        };
        let seat = |id: BotId| LeasedSeat {
            entrant: names.get(&id).cloned().unwrap_or_default(),
            kind: self.0.house.get(&id).map_or(SeatKind::Hosted, |h| h.kind()),
        };
        let deals = queued
            .iter()
            .filter(|d| got.contains(&d.deal))
            .map(|d| LeasedDeal {
                deal: d.deal,
                seed: d.seed,
                games: d
                    .games
                    .iter()
                    .map(|g| LeasedGame {
                        game: g.id,
                        first_dealer: crate::pairing::first_dealer(g.orientation),
                        seats: g.seats.map(seat),
                    })
                    .collect(),
            })
            .collect();
        tracing::info!("lease {lease} to worker {}: deals {got:?}", worker.name);
        Ok(Some(Lease { lease, ttl_ms: settings.ttl_ms, config: self.0.config.clone(), deals }))
    }

    /// Extends `worker`'s lease; refused when it is not open (409) or not the worker's (403).
    pub async fn heartbeat(&self, worker: &Worker, lease: i64) -> Result<u64, Refusal> {
        let ttl = self.settings()?.ttl_ms;
        let store = &self.0.store;
        let started = std::time::Instant::now();
        let row = store.lease(lease).await;
        self.0.metrics.db_time(started.elapsed());
        let Some(row) = row? else {
            return Err(Refusal::new(404, format!("no lease {lease}")));
        };
        if row.worker != worker.id {
            self.0.metrics.error("lease_not_held");
            return Err(Refusal::new(403, format!("lease {lease} is not this worker's")));
        }
        let started = std::time::Instant::now();
        let extended = store.heartbeat(lease, worker.id, now_ms()).await;
        self.0.metrics.db_time(started.elapsed());
        if !extended? {
            self.0.metrics.error("lease_gone");
            let state = if row.state == LeaseState::Done { "done" } else { "expired" };
            return Err(Refusal::new(409, format!("lease {lease} is {state}")));
        }
        Ok(ttl)
    }

    /// Takes a game's result: only for a game the worker's lease holds, only as its record
    /// proves it, and once (a second post of a counted game is answered "already counted").
    /// The record is replayed before the gate, on a blocking thread, so workers' results are
    /// proved side by side; the gate holds only the database's part, which looks at the game
    /// again first (an expiry or another post may have come meanwhile).
    ///
    /// It runs to the end on a task of its own even if the caller stops waiting. The web
    /// server drops a request's future when its client hangs up (a worker killed while its
    /// post is on the wire), and the commit's statements cut apart there would leave a game
    /// counted with its deal unscored and its lease open, to expire with nothing voided.
    pub async fn result(
        &self,
        worker: &Worker,
        post: &ResultPost,
    ) -> Result<ResultAnswer, Refusal> {
        self.settings()?;
        let (hub, worker, post) = (self.clone(), worker.clone(), Arc::new(post.clone()));
        tokio::spawn(async move { hub.take_result(&worker, post).await })
            .await
            .unwrap_or_else(|e| Err(Refusal::new(500, format!("the result's handling: {e}"))))
    }

    async fn take_result(
        &self,
        worker: &Worker,
        post: Arc<ResultPost>,
    ) -> Result<ResultAnswer, Refusal> {
        let started = std::time::Instant::now();
        let mut checking = std::time::Duration::ZERO;
        let outcome = match self.admissible(worker, &post).await {
            Ok(Admissible::Counted(answer)) => Ok(answer),
            Ok(Admissible::Open { expected, .. }) => {
                let check_started = std::time::Instant::now();
                let read = post.clone();
                let proved =
                    tokio::task::spawn_blocking(move || check_result(&read.record, &expected))
                        .await;
                checking = check_started.elapsed();
                match proved {
                    Ok(Ok(verdict)) => {
                        let _gate = self.0.gate.lock().await;
                        self.commit(worker, &post, &verdict).await
                    }
                    Ok(Err(e)) => Err(Refusal::new(422, e)),
                    Err(e) => Err(Refusal::new(500, format!("the record's check: {e}"))),
                }
            }
            Err(r) => Err(r),
        };
        // The database's time: the result's whole handling but the record's replay.
        self.0.metrics.db_time(started.elapsed().saturating_sub(checking));
        if let Err(r) = &outcome {
            self.0.metrics.error(if r.status == 422 {
                "record_rejected"
            } else {
                "result_refused"
            });
        }
        outcome
    }

    /// Whether `post` may be taken: refused (not this worker's lease, not its game, void,
    /// not started, lease closed), already counted, or open, with what its record must prove.
    async fn admissible(&self, worker: &Worker, post: &ResultPost) -> Result<Admissible, Refusal> {
        let store = &self.0.store;
        let (lease, game) = (post.lease, post.game);
        let Some(row) = store.lease(lease).await? else {
            return Err(Refusal::new(404, format!("no lease {lease}")));
        };
        if row.worker != worker.id {
            return Err(Refusal::new(403, format!("lease {lease} is not this worker's")));
        }
        let Some(deal) = store.lease_holds(lease, game).await? else {
            return Err(Refusal::new(403, format!("lease {lease} does not hold game {game}")));
        };
        let Some(g) = store.game(game).await? else {
            return Err(Refusal::new(404, format!("no game {game}")));
        };
        match g.status {
            GameStatus::Done => {
                let [a, b] = g.points.unwrap_or([0, 0]);
                let points = [a.clamp(0, 65_535) as u16, b.clamp(0, 65_535) as u16];
                let answer = ResultAnswer { game, status: ResultStatus::AlreadyCounted, points };
                return Ok(Admissible::Counted(answer));
            }
            GameStatus::Void => {
                return Err(Refusal::new(
                    409,
                    format!(
                        "game {game} is void ({}): not counted",
                        g.void_reason.unwrap_or_default()
                    ),
                ));
            }
            GameStatus::Queued => {
                return Err(Refusal::new(409, format!("game {game} has not started")));
            }
            GameStatus::Running if row.state != LeaseState::Open => {
                return Err(Refusal::new(409, format!("lease {lease} is no longer open")));
            }
            GameStatus::Running => {}
        }
        let seed = store.deal_seed(deal).await?.unwrap_or_default();
        let expected = Expected {
            game,
            seed,
            first_dealer: crate::pairing::first_dealer(g.orientation),
            config: self.0.config.clone(),
        };
        Ok(Admissible::Open { expected, deal, seats: g.seats })
    }

    /// Counts a proved result, behind the gate, if the game is still open to it.
    async fn commit(
        &self,
        worker: &Worker,
        post: &ResultPost,
        verdict: &Verdict,
    ) -> Result<ResultAnswer, Refusal> {
        let (deal, seats) = match self.admissible(worker, post).await? {
            Admissible::Counted(answer) => return Ok(answer),
            Admissible::Open { deal, seats, .. } => (deal, seats),
        };
        let (lease, game) = (post.lease, post.game);
        let store = &self.0.store;
        // Kept whole or not at all (a file renamed into place, or one object put).
        let path =
            self.0.records.keep_text(game, &post.record).await.map_err(|e| Refusal::new(500, e))?;
        let end = GameEnd {
            points02: i32::from(verdict.points[0]),
            points13: i32::from(verdict.points[1]),
            fault_seats: verdict.fault_seats,
            record_path: Some(path),
        };
        store.end_game(game, &end, crate::serve::now()).await?;
        self.0.metrics.game_ended(Where::Worker);
        self.0.ended.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(seats);
        self.score_if_over(deal).await?;
        store.close_lease_if_done(lease).await?;
        Ok(ResultAnswer { game, status: ResultStatus::Counted, points: verdict.points })
    }

    /// Scores `deal` if none of its tables is in flight any more.
    pub(super) async fn score_if_over(&self, deal: i64) -> Result<(), StoreError> {
        let games = self.0.store.deal_games(deal).await?;
        if games.iter().any(|g| matches!(g.status, GameStatus::Queued | GameStatus::Running)) {
            return Ok(());
        }
        match self.0.store.score_deal(deal).await {
            Ok(s) => {
                tracing::info!("deal {deal} scored: {} comparisons", s.comparisons.len());
                *self.0.scored.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
                Ok(())
            }
            Err(StoreError::Conflict(why)) => {
                tracing::warn!("deal {deal} not scored: {why}");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Expires every open lease whose heartbeat is older than its ttl: its unfinished games are
    /// voided, its deals scored from the tables that finished, and their foursomes dealt again
    /// with fresh seeds. The leases expired.
    pub async fn expire_stale(&self) -> Result<Vec<i64>, StoreError> {
        if self.0.settings.is_none() {
            return Ok(Vec::new());
        }
        let store = &self.0.store;
        let _gate = self.0.gate.lock().await;
        let started = std::time::Instant::now();
        let mut expired = Vec::new();
        for lease in store.stale_leases(now_ms()).await? {
            if !store.expire_lease(lease, now_ms()).await? {
                continue;
            }
            self.0.metrics.lease_expired();
            tracing::warn!("lease {lease} expired: its unfinished games are void");
            for deal in store.lease_deals(lease).await? {
                let why = format!("lease {lease} expired");
                // A deal whose tables had all ended lost nothing, and is not dealt again.
                let lost = self.void_deal(deal, &why).await?;
                if lost && !self.0.stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    self.deal_again(deal).await?;
                }
            }
            expired.push(lease);
        }
        self.0.metrics.db_time(started.elapsed());
        Ok(expired)
    }

    /// Voids `deal`'s tables still in flight and scores it from those that finished; true if
    /// a table was voided.
    async fn void_deal(&self, deal: i64, why: &str) -> Result<bool, StoreError> {
        let store = &self.0.store;
        let mut voided = false;
        for g in store.deal_games(deal).await? {
            if matches!(g.status, GameStatus::Queued | GameStatus::Running) {
                match store.void_game(g.id, why, crate::serve::now()).await {
                    Ok(()) => voided = true,
                    Err(StoreError::Conflict(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        if voided {
            self.score_if_over(deal).await?;
        }
        Ok(voided)
    }

    /// The server stops: no more leases; every open lease is expired and every game of the
    /// queue still queued or running is voided, its deal scored from what finished.
    pub async fn close(&self) -> Result<(), StoreError> {
        self.stop_leasing();
        if self.0.settings.is_none() {
            return Ok(());
        }
        let store = &self.0.store;
        let _gate = self.0.gate.lock().await;
        store.expire_all_leases().await?;
        let mut deals: Vec<i64> =
            store.work_games_in_flight().await?.into_iter().map(|(_, d)| d).collect();
        deals.dedup();
        for deal in deals {
            self.void_deal(deal, "the server stopped").await?;
        }
        Ok(())
    }
}

/// What a posted result may become.
enum Admissible {
    /// The game is counted already: the answer to a second post.
    Counted(ResultAnswer),
    /// The game waits for this result, which its record must prove.
    Open { expected: Expected, deal: i64, seats: [BotId; 4] },
}
