//! The server: the door bots join through, the house players, and the loop that plans deals,
//! plays each at its tables through the referee library, and turns finished deals into
//! comparisons and ratings in the database. What it holds in memory (connections, tables in
//! play) a kill -9 loses; what it wrote to the database is the arena, and a restart voids the
//! games that were in flight, so no deal is ever counted twice.

pub mod house;
pub mod live;
pub mod seats;

use crate::BotId;
use crate::pairing::Params;
use crate::rating::batch;
use crate::records::Records;
use crate::store::{GameEnd, Location, SchedulerLock, Store};
use aluette_referee::protocol::record::Penalty;
use aluette_referee::rules::{MatchLength, Rules};
use aluette_referee::{Config, Connection, Door, Game, Outcome, Seat, Status, Stop, Table};
use seats::{Index, Pool};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The database file (SQLite), unless `database` names another.
    pub db: PathBuf,
    /// The database, when it is not the file `db`: a Postgres URL, or a SQLite file.
    pub database: Option<Location>,
    /// How often a standby server (one that found another holding the scheduler's lock)
    /// tries the lock again.
    pub standby_retry: Duration,
    /// How long a standby that won a Postgres lock waits before it schedules: longer than a
    /// scheduler takes to notice it lost its session (its 2 s check and a ping's 5 s bound), so
    /// the one that lost the lock has stopped planning before the winner starts.
    pub takeover_grace: Duration,
    /// Where game records go (one file per game); with `record_store`, where they are written
    /// while their games play.
    pub records: PathBuf,
    /// The object store finished records are kept in (`s3://...`, `file:///...`); `None`: the
    /// `records` folder keeps them.
    pub record_store: Option<String>,
    /// Where bots connect (`HOST:PORT`).
    pub listen: String,
    /// Time for each answer, in milliseconds.
    pub answer_ms: u64,
    /// Each seat's bank per game, in milliseconds.
    pub bank_ms: u64,
    /// Time for the handshake, in milliseconds.
    pub handshake_ms: u64,
    /// Tables each deal is played at (two or more).
    pub tables_per_deal: usize,
    /// Deals in play at once, at most; 0 seats nobody (the bots connect and wait: an arena
    /// held for maintenance, or measured idle).
    pub deals_at_once: usize,
    /// Games without a fault a newcomer plays against the house before it enters the ladder.
    pub qualifying_games: u32,
    /// A bot whose share of faulted games exceeds this (after `min_games`) is paused.
    pub max_fault_rate: f64,
    /// Games before the fault rate is judged.
    pub min_games: u32,
    /// Seat the house players.
    pub house: bool,
    /// Tables each house entrant may sit at at once.
    pub house_tables: u32,
    /// The official board is refitted at most this often.
    pub refit_every: Duration,
    /// Where the web pages and API listen (`HOST:PORT`); `None`: no web server.
    pub web: Option<String>,
    /// The web server's admin token, rate limit and address announcement.
    pub web_options: crate::web::Options,
    /// Queue the deals of house and hosted entrants for workers (`--work`); `None`: the house
    /// plays in the server and hosted entrants are never seated.
    pub work: Option<crate::work::WorkSettings>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            db: PathBuf::from("arena.db"),
            database: None,
            standby_retry: Duration::from_secs(2),
            takeover_grace: Duration::from_secs(8),
            records: PathBuf::from("arena-records"),
            record_store: None,
            listen: "127.0.0.1:7878".into(),
            answer_ms: 1_000,
            bank_ms: 5_000,
            handshake_ms: 10_000,
            tables_per_deal: 2,
            deals_at_once: 4,
            qualifying_games: 4,
            max_fault_rate: 0.2,
            min_games: 10,
            house: true,
            house_tables: house::HOUSE_TABLES,
            refit_every: Duration::from_secs(5),
            web: None,
            web_options: crate::web::Options::default(),
            work: None,
        }
    }
}

/// Seconds since the epoch: the database's clock.
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// How long the boards wait between refits: `every`, or twenty times the last refit's length
/// if that is longer. A refit reads and fits every comparison ever stored, so on a long-lived
/// arena it grows without end; this keeps it to a twentieth of the server's time, however many
/// comparisons there are, at the cost of a staler official board.
fn refit_period(every: Duration, last_took: Duration) -> Duration {
    every.max(last_took.saturating_mul(20))
}

/// One table's game, back from its task.
struct Finished {
    deal: i64,
    game: i64,
    seats: [BotId; 4],
    outcome: Result<Outcome, String>,
    /// The seats' connections, `None` for the house's.
    conns: Vec<Option<Connection>>,
}

/// The server's state between turns of its loop.
struct Server {
    settings: Settings,
    store: Store,
    config: Config,
    house: BTreeMap<BotId, house::Kind>,
    records: Records,
    index: Index,
    pool: Pool,
    /// Tables still playing, per deal in play.
    in_play: BTreeMap<i64, usize>,
    done_tx: mpsc::UnboundedSender<Finished>,
    /// When the boards were last refitted, and how long that took.
    last_refit: Option<(std::time::Instant, Duration)>,
    stop: Stop,
    live: live::Live,
    /// The work queue (idle without `--work`) and the counters of `/metrics`.
    hub: crate::work::Hub,
    /// Time spent waiting on the database, games finished and the answers they took: the
    /// figures `arena serve` prints when it ends (the benchmark reads them).
    db: Duration,
    games: u64,
    answers: u64,
}

/// `f`, with the time it took added to `spent`.
async fn timed<T>(spent: &mut Duration, f: impl Future<Output = T>) -> T {
    let started = std::time::Instant::now();
    let out = f.await;
    *spent += started.elapsed();
    out
}

/// Runs the arena until `stop` finishes it: returns once the games in play have ended. The
/// door's address is sent on `ready` once it listens.
pub async fn run(
    settings: Settings,
    stop: Stop,
    ready: Option<tokio::sync::oneshot::Sender<std::net::SocketAddr>>,
) -> Result<(), String> {
    // Where records go is checked before the database is touched.
    let records = match &settings.record_store {
        Some(url) => Records::object_store(&settings.records, url)?,
        None => Records::folder(&settings.records),
    };
    records.prepare()?;
    let location = settings.database.clone().unwrap_or_else(|| Location::from(&*settings.db));
    let store = Store::connect(&location)
        .await
        .map_err(|e| format!("cannot open the database {location}: {e}"))?;
    let live = live::Live::default();
    // One server per database schedules (spec/arena.md, "Two servers on one database"); until
    // this one holds the lock it serves its pages and seats nobody.
    let elected = elect(&settings, &location, &store, &records, &live, &stop).await?;
    let Some((mut lock, standby_web)) = elected else { return Ok(()) };
    // The turn first: a predecessor still writing (its lock lost, not yet noticed) is fenced
    // off before its games in flight are voided, so none it opens after escapes the voiding.
    store.take_scheduling().await.map_err(|e| e.to_string())?;
    let voided = store.void_in_flight(now()).await.map_err(|e| e.to_string())?;
    if voided > 0 {
        tracing::warn!("{voided} games in flight when the server last stopped are void");
    }
    // The deals those games belonged to are scored from the tables that finished, and their
    // seeds published: nothing in play holds their cards any more.
    for deal in store.deals_to_score().await.map_err(|e| e.to_string())? {
        store.score_deal(deal).await.map_err(|e| e.to_string())?;
    }
    let house = if settings.house {
        house::ensure(&store, now()).await.map_err(|e| e.to_string())?.into_iter().collect()
    } else {
        BTreeMap::new()
    };
    let rules = Rules { length: MatchLength::Deals(1), ..Rules::default() };
    let config = Config::default()
        .rules(rules)
        .answer_ms(settings.answer_ms)
        .bank_ms(settings.bank_ms)
        .handshake_ms(settings.handshake_ms);
    let hub = crate::work::Hub::new(
        store.clone(),
        settings.work.clone(),
        records.clone(),
        &config,
        house.clone(),
    );
    hub.recover().await.map_err(|e| e.to_string())?;
    let index = Index::default();
    index.reload(&store).await.map_err(|e| e.to_string())?;
    let admit = {
        let index = index.clone();
        move |token: &str| index.admit(token)
    };
    let door = std::sync::Arc::new(Door::bind(&settings.listen, &config, 64, 8, admit).await?);
    if let Some(ready) = ready {
        let _ = ready.send(door.addr());
    }
    // Dropped when the server returns, which stops the pages. A standby's pages had no door
    // to carry WebSockets to: they start again, on the address they had, with it.
    let web_listen = match &standby_web {
        Some(web) => Some(web.addr().to_string()),
        None => settings.web.clone(),
    };
    let restarting = standby_web.is_some();
    drop(standby_web);
    let _web = match &web_listen {
        Some(listen) => Some({
            let mut options = settings.web_options.clone();
            options.bots = Some(door.clone());
            options.records = Some(records.clone());
            let mut tries = 0;
            loop {
                // The standby's listener closes once its aborted task is dropped: soon, not
                // at once.
                let work = Some(crate::work::routes(hub.clone(), &options.trusted_proxies));
                let started =
                    crate::web::start_with(listen, &options, store.clone(), live.clone(), work);
                match started.await {
                    Ok(web) => break web,
                    Err(_) if restarting && tries < 50 => {
                        tries += 1;
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Err(e) => return Err(e),
                }
            }
        }),
        None => None,
    };
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let mut server = Server {
        settings,
        store,
        config,
        house,
        records,
        index,
        pool: Pool::default(),
        in_play: BTreeMap::new(),
        done_tx,
        last_refit: None,
        stop: stop.clone(),
        live,
        hub,
        db: Duration::ZERO,
        games: 0,
        answers: 0,
    };
    let mut reload = tokio::time::interval(Duration::from_secs(2));
    let mut work_tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        let stopping = server.stopping();
        // Leased games end too (or their leases expire) before the server does.
        if stopping
            && server.in_play.is_empty()
            && server.hub.idle().await.map_err(|e| e.to_string())?
        {
            break;
        }
        server.pool.gather(&door).await;
        if !stopping {
            server.plan().await?;
        }
        tokio::select! {
            Some(done) = done_rx.recv() => server.finish(done).await?,
            () = door.changed(Duration::from_millis(250)) => {}
            _ = reload.tick() => {
                server.index.reload(&server.store).await.map_err(|e| e.to_string())?;
                // A Postgres session cut (and its advisory lock with it) lets another server
                // schedule: this one must not plan beside it.
                if !lock.holds().await {
                    return Err("lost the scheduler's lock (the database connection dropped)".into());
                }
            }
            _ = work_tick.tick() => server.work_turn().await?,
        }
    }
    server.hub.close().await.map_err(|e| e.to_string())?;
    server.refit(true).await?;
    eprintln!(
        "arena: served {} games ({} answers); database time {} us",
        server.games,
        server.answers,
        server.db.as_micros()
    );
    server.pool.close_all("the arena is closing").await;
    door.close("the arena is closing").await;
    server.store.close().await;
    Ok(())
}

/// Takes the scheduler's lock, waiting as a standby (pages served, nobody seated, no door) while
/// another server holds it; the lock, and the standby's pages if it had to wait. `None`: the
/// server was stopped before it won.
async fn elect(
    settings: &Settings,
    location: &Location,
    store: &Store,
    records: &Records,
    live: &live::Live,
    stop: &Stop,
) -> Result<Option<(SchedulerLock, Option<crate::web::Web>)>, String> {
    let take = || async {
        SchedulerLock::try_take(location)
            .await
            .map_err(|e| format!("the scheduler's lock on {location}: {e}"))
    };
    if let Some(lock) = take().await? {
        return Ok(Some((lock, None)));
    }
    {
        use std::io::Write as _;
        println!(
            "arena: standby: another server schedules on {location}; trying every {} s",
            settings.standby_retry.as_secs_f64()
        );
        let _ = std::io::stdout().flush();
    }
    // The standby's pages: no door, no work API (the scheduler holds the queue).
    let mut options = settings.web_options.clone();
    options.records = Some(records.clone());
    let web = match &settings.web {
        Some(listen) => {
            Some(crate::web::start(listen, &options, store.clone(), live.clone()).await?)
        }
        None => None,
    };
    let mut next_try = tokio::time::Instant::now() + settings.standby_retry;
    loop {
        if stop.is_stopping() {
            return Ok(None);
        }
        if tokio::time::Instant::now() >= next_try {
            if let Some(mut lock) = take().await? {
                // A Postgres lock frees when its session ends, which may be before the server
                // that held it notices (a cut session, not a dead process): it is given the
                // time to stop. A lock file frees only when its holder is dead.
                if location.backend() == crate::store::Backend::Postgres {
                    tracing::warn!("the scheduler's lock is free: this server schedules soon");
                    tokio::time::sleep(settings.takeover_grace).await;
                    if stop.is_stopping() {
                        return Ok(None);
                    }
                    if !lock.holds().await {
                        continue;
                    }
                }
                tracing::warn!("the scheduler's lock is free: this server schedules now");
                return Ok(Some((lock, web)));
            }
            next_try = tokio::time::Instant::now() + settings.standby_retry;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

impl Server {
    fn stopping(&self) -> bool {
        self.stop.is_stopping()
    }

    /// Starts as many deals as the bots connected now allow, up to `deals_at_once`.
    async fn plan(&mut self) -> Result<(), String> {
        while self.in_play.len() < self.settings.deals_at_once {
            let mut offered = self.pool.offered();
            for &id in self.house.keys() {
                offered.insert(id, self.settings.house_tables);
            }
            let params = Params { tables: self.settings.tables_per_deal, ..Params::default() };
            let t = now();
            let planned =
                self.store.plan_deal(&offered, self.settings.qualifying_games, &params, t);
            let plan = timed(&mut self.db, planned).await.map_err(|e| e.to_string())?;
            let Some(plan) = plan else { return Ok(()) };
            // With workers, a deal of the house alone is theirs (see `work_turn`).
            let house_only =
                plan.tables.iter().flat_map(|t| t.seats).all(|id| self.house.contains_key(&id));
            if self.hub.enabled() && house_only {
                return Ok(());
            }
            // A planned external seat whose connection is gone since the pool was counted:
            // the deal waits for the next turn.
            let all_there = plan
                .tables
                .iter()
                .flat_map(|t| t.seats)
                .all(|id| self.house.contains_key(&id) || self.pool.idle(id) > 0);
            if !all_there {
                return Ok(());
            }
            let seed = crate::token::random_seed().map_err(|e| format!("no random seed: {e}"))?;
            let tables: Vec<_> = plan.tables.iter().map(|t| (t.seats, t.orientation)).collect();
            let records = &self.records;
            let record_of = |game| records.spool(game).display().to_string();
            let opened = self.store.open_deal(seed, &tables, record_of, t);
            let (deal, games) = timed(&mut self.db, opened).await.map_err(|e| e.to_string())?;
            self.in_play.insert(deal, plan.tables.len());
            for (table, game) in plan.tables.iter().zip(games) {
                let record = self.records.spool(game);
                let mut seats = Vec::with_capacity(4);
                for (s, &id) in table.seats.iter().enumerate() {
                    seats.push(match self.house.get(&id) {
                        Some(kind) => kind.seat(house::Kind::seat_seed(seed, game, s)),
                        // Each bot sits once per deal, and an idle connection of each was
                        // checked above, in this same turn of the loop.
                        None => Seat::from(self.pool.take(id).expect("an idle connection")),
                    });
                }
                let seats: [Seat; 4] = seats.try_into().expect("four seats");
                let first_dealer = crate::pairing::first_dealer(table.orientation);
                let g = Game::new(seed)
                    .number(game as u64)
                    .first_dealer(first_dealer)
                    .record_to(&record);
                self.spawn_table(deal, game, table.seats, seats, g);
            }
            tracing::info!("deal {deal} started at {} tables", plan.tables.len());
        }
        Ok(())
    }

    fn spawn_table(&self, deal: i64, game: i64, ids: [BotId; 4], seats: [Seat; 4], g: Game) {
        let config = self.config.clone();
        let stop = self.stop.clone();
        let tx = self.done_tx.clone();
        let house: Vec<bool> = ids.iter().map(|id| self.house.contains_key(id)).collect();
        tokio::spawn(async move {
            let mut table = Table::open(&config, seats).await;
            table.stop_with(&stop);
            let outcome = table.play(g).await;
            let conns = table
                .release()
                .into_iter()
                .zip(house)
                .map(|(c, is_house)| (!is_house).then_some(c))
                .collect();
            let _ = tx.send(Finished { deal, game, seats: ids, outcome, conns });
        });
    }

    /// A table's game is over: stored, its bots back in the pool, its deal scored when it was
    /// the last, bots over the fault rate paused.
    async fn finish(&mut self, done: Finished) -> Result<(), String> {
        self.live.end(done.game);
        let t = now();
        let started = std::time::Instant::now();
        let store = &self.store;
        let kept = match &done.outcome {
            Ok(o) if o.summary.status == Status::Complete => self.records.keep(done.game).await,
            _ => Err(String::new()),
        };
        match &done.outcome {
            // A result whose record could not be kept could not be checked by anyone: void.
            Ok(outcome) if outcome.summary.status == Status::Complete && kept.is_err() => {
                let e = kept.as_ref().err().map_or("", String::as_str);
                tracing::error!("game {}: its record could not be kept: {e}", done.game);
                let reason = format!("its record could not be kept: {e}");
                store.void_game(done.game, &reason, t).await.map_err(|e| e.to_string())?
            }
            Ok(outcome) if outcome.summary.status == Status::Complete => {
                let s = &outcome.summary;
                let mut fault_seats = 0u8;
                for f in &s.faults {
                    // Stale or unknown lines cost nothing in play; every other fault is one.
                    if f.penalty != Penalty::Ignored {
                        fault_seats |= 1 << f.seat;
                    }
                }
                let end = GameEnd {
                    points02: i32::from(s.score[0]),
                    points13: i32::from(s.score[1]),
                    fault_seats,
                    record_path: kept.ok(),
                };
                store.end_game(done.game, &end, t).await.map_err(|e| e.to_string())?;
                self.hub.metrics().game_ended(crate::work::Where::Server);
            }
            Ok(_) => store
                .void_game(done.game, "the server stopped", t)
                .await
                .map_err(|e| e.to_string())?,
            Err(e) => {
                tracing::error!("game {}: {e}", done.game);
                store.void_game(done.game, e, t).await.map_err(|e| e.to_string())?
            }
        }
        self.db += started.elapsed();
        if let Ok(outcome) = &done.outcome {
            self.games += 1;
            self.answers += outcome.summary.stats.iter().map(|s| u64::from(s.answers)).sum::<u64>();
        }
        for (id, conn) in done.seats.iter().zip(done.conns) {
            if !self.house.contains_key(id) {
                self.pool.give_back(*id, conn).await;
            }
        }
        let left = self.in_play.get_mut(&done.deal).map(|n| {
            *n -= 1;
            *n
        });
        if left == Some(0) {
            self.in_play.remove(&done.deal);
            match timed(&mut self.db, self.store.score_deal(done.deal)).await {
                Ok(scoring) => tracing::info!(
                    "deal {} scored: {} comparisons",
                    done.deal,
                    scoring.comparisons.len()
                ),
                Err(e) => tracing::warn!("deal {} not scored: {e}", done.deal),
            }
            self.refit(false).await?;
        }
        self.pause_faulty(&done.seats).await
    }

    /// The work queue's turn (`--work`): stale leases expired, the queue filled, the boards
    /// refitted after deals the workers finished, their bots' fault rates checked.
    async fn work_turn(&mut self) -> Result<(), String> {
        if !self.hub.enabled() {
            return Ok(());
        }
        self.hub.expire_stale().await.map_err(|e| e.to_string())?;
        if !self.stopping() {
            let params = Params { tables: self.settings.tables_per_deal, ..Params::default() };
            let fill = self.hub.fill(self.settings.qualifying_games, &params);
            timed(&mut self.db, fill).await.map_err(|e| e.to_string())?;
        }
        if self.hub.take_scored() > 0 {
            self.refit(false).await?;
        }
        let ended = self.hub.take_ended();
        self.pause_faulty(&ended).await
    }

    /// Refits both boards when the last refit is old enough (or `now`).
    async fn refit(&mut self, now_: bool) -> Result<(), String> {
        let due = self
            .last_refit
            .is_none_or(|(at, took)| at.elapsed() >= refit_period(self.settings.refit_every, took));
        if now_ || due {
            let config = batch::Config::default();
            let started = std::time::Instant::now();
            let refit = self.store.refresh_boards(&config, now());
            timed(&mut self.db, refit).await.map_err(|e| e.to_string())?;
            self.last_refit = Some((std::time::Instant::now(), started.elapsed()));
        }
        Ok(())
    }

    /// Pauses those of `bots` whose fault rate is over the limit, and tells their connections.
    async fn pause_faulty(&mut self, bots: &[BotId]) -> Result<(), String> {
        let activity = timed(&mut self.db, self.store.activity_of(bots, now()))
            .await
            .map_err(|e| e.to_string())?;
        for id in bots.iter().filter(|id| !self.house.contains_key(id)) {
            let Some(a) = activity.get(id) else { continue };
            let Some(reason) = crate::pairing::fault_pause(
                a.games_done,
                a.games_faulted,
                self.settings.min_games,
                self.settings.max_fault_rate,
            ) else {
                continue;
            };
            timed(&mut self.db, self.store.set_paused(*id, Some(&reason)))
                .await
                .map_err(|e| e.to_string())?;
            self.index.forget(*id);
            self.pool.dismiss(*id, &reason).await;
            tracing::warn!("bot {id} {reason}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::refit_period;
    use std::time::Duration;

    #[test]
    fn a_slow_refit_waits_longer_before_the_next() {
        let every = Duration::from_secs(5);
        assert_eq!(refit_period(every, Duration::from_millis(10)), every);
        assert_eq!(refit_period(every, Duration::from_millis(250)), every);
        assert_eq!(refit_period(every, Duration::from_secs(1)), Duration::from_secs(20));
        assert_eq!(
            refit_period(Duration::ZERO, Duration::from_millis(3)),
            Duration::from_millis(60)
        );
        assert_eq!(refit_period(every, Duration::MAX), Duration::MAX);
    }
}
