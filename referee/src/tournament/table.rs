//! A table: one OS thread with its own single-threaded tokio runtime, pinned to one CPU, that
//! takes games from the shared queue one after another and reports each finished game back.
//!
//! A table keeps its bot processes from game to game (starting a process costs more than a
//! game of the built-in bots), grouped by (entrant, room): the two processes of an entrant for
//! one room. A process only ever plays one room, so in duplicate no process sees a deck twice:
//! the other room of its deal set is played by other processes, at this table or another. A
//! bot that died is started again before its next game; groups not used for a while are
//! closed when the table needs room for others.

use crate::api::{Game, play_seated};
use crate::bot::lobby::Lobby;
use crate::bot::seat::{self, Place};
use crate::bot::{BYE_GRACE, Bot, BotSpec, ConnectConfig};
use crate::game_runner::{GameConfig, GameSetup, GameSummary, first_dealer_draw};
use crate::pin;
use crate::record_io;
use crate::shutdown::{Shutdown, Stage};
use crate::tournament::config::Entrant;
use crate::tournament::schedule::Job;
use protocol::options::Seating;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::Duration;

/// Bot groups a table keeps at most: games come round by round, every pairing in turn
/// (`schedule::play_order`), so a table meets every entrant in both rooms; this is every group
/// of eight entrants (32 processes), and past that the least recently used are closed and
/// started again when their entrant comes round.
const MAX_GROUPS: usize = 16;
/// How far down the queue a table looks for a game its bots are already running for: far
/// enough to keep to its own room of a deal set, near enough that the two rooms of a set finish
/// close together (an SPRT only counts complete sets).
const PREFER_WINDOW: usize = 4;

/// The games not yet handed to a table.
#[derive(Debug)]
pub(crate) struct Queue {
    state: Mutex<QueueState>,
}

#[derive(Debug)]
struct QueueState {
    pending: VecDeque<Job>,
    closed: bool,
}

impl Queue {
    pub(crate) fn new(jobs: Vec<Job>) -> Queue {
        Queue { state: Mutex::new(QueueState { pending: jobs.into(), closed: false }) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        // A table that panicked holding the lock leaves a queue that is still consistent.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next game for a table, preferring one its bots are already running for; `None` once
    /// the queue is empty, closed, or a stop was asked for.
    pub(crate) fn take(&self, shutdown: &Shutdown, prefer: impl Fn(&Job) -> bool) -> Option<Job> {
        let mut st = self.lock();
        if st.closed || shutdown.stage() >= Stage::Draining {
            return None;
        }
        let k = st.pending.iter().take(PREFER_WINDOW).position(prefer).unwrap_or(0);
        st.pending.remove(k)
    }

    /// Starts no more games.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
    }

    /// Takes out the games `f` selects (they will not be played).
    pub(crate) fn remove_if(&self, f: impl Fn(&Job) -> bool) -> Vec<Job> {
        let mut st = self.lock();
        let (out, keep): (Vec<Job>, Vec<Job>) = st.pending.drain(..).partition(|j| f(j));
        st.pending = keep.into();
        out
    }

    /// Takes out the games of the units none of whose `rooms` games has left the queue, so a
    /// stop never cuts a deal set that a table has begun.
    pub(crate) fn remove_untouched_units(&self, rooms: u64) -> Vec<Job> {
        let mut st = self.lock();
        let mut queued: HashMap<u64, u64> = HashMap::new();
        for j in &st.pending {
            *queued.entry(j.unit).or_default() += 1;
        }
        let (out, keep): (Vec<Job>, Vec<Job>) =
            st.pending.drain(..).partition(|j| queued[&j.unit] == rooms);
        st.pending = keep.into();
        out
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().pending.len()
    }
}

/// What every table shares.
#[derive(Debug)]
pub(crate) struct TableCtx {
    pub(crate) cfg: GameConfig,
    pub(crate) connect: ConnectConfig,
    pub(crate) entrants: Vec<Entrant>,
    /// Entrant names made safe for file names.
    pub(crate) slugs: Vec<String>,
    pub(crate) seed: u64,
    pub(crate) records: PathBuf,
    /// This run's number, so a resumed run's bot logs do not overwrite the last run's.
    pub(crate) run: u64,
    /// 2 in duplicate, 1 in a round robin.
    pub(crate) rooms: u64,
    pub(crate) queue: Queue,
    pub(crate) shutdown: Shutdown,
    pub(crate) lobby: Option<Lobby>,
    pub(crate) connect_wait: Duration,
}

/// What a table tells the scheduler.
#[derive(Debug)]
pub(crate) enum Report {
    Finished(Job, Box<GameSummary>),
    /// The table cannot go on (it cannot create a record, say): the referee's own failure.
    Failed(String),
}

/// The seat token of a TCP entrant's bot: TOKEN-N, N from 1, one per (table, room, slot).
pub(crate) fn seat_token(base: &str, rooms: u64, table: usize, room: u8, slot: usize) -> String {
    let n = table as u64 * 2 * rooms + u64::from(room.saturating_sub(1)) * 2 + slot as u64 + 1;
    format!("{base}-{n}")
}

/// Starts table `table` on a thread of its own, pinned to `cpu` when given.
pub(crate) fn spawn(
    ctx: std::sync::Arc<TableCtx>,
    table: usize,
    cpu: Option<usize>,
    tx: Sender<Report>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name(format!("table-{}", table + 1)).spawn(move || {
        // Pinned before anything starts: bot processes inherit the thread's CPU set.
        if let Some(c) = cpu {
            pin::pin_current_thread(c);
        }
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                let _ = tx.send(Report::Failed(format!("cannot start a table's runtime: {e}")));
                return;
            }
        };
        rt.block_on(serve(&ctx, table, cpu, &tx));
    })
}

/// The bots of one entrant for one room at this table.
#[derive(Debug)]
struct Group {
    bots: [Bot; 2],
    last_used: u64,
    /// TCP bots cannot be started again by the referee, so they are never closed early.
    tcp: bool,
    /// Just started: its dead bots (if any) already carry their fault for the next game.
    fresh: bool,
}

/// (entrant, room)
type Key = (usize, u8);

#[derive(Debug, Default)]
struct Bots {
    groups: HashMap<Key, Group>,
    clock: u64,
    closing: Vec<tokio::task::JoinHandle<()>>,
}

async fn serve(ctx: &TableCtx, table: usize, cpu: Option<usize>, tx: &Sender<Report>) {
    let mut bots = Bots::default();
    let mut syncs: Vec<tokio::task::JoinHandle<()>> = Vec::new();
    while let Some(job) = ctx.queue.take(&ctx.shutdown, |j| {
        bots.groups.contains_key(&(j.a, j.room)) && bots.groups.contains_key(&(j.b, j.room))
    }) {
        let path = ctx.records.join(record_io::game_file_name(job.index));
        let (ka, kb) = ((job.a, job.room), (job.b, job.room));
        let mut ga = bots.checkout(ctx, table, cpu, ka).await;
        let mut gb = bots.checkout(ctx, table, cpu, kb).await;
        let setup = GameSetup {
            game_no: job.unit,
            match_seed: ctx.seed,
            seed: job.seed,
            first_dealer: job.first_dealer,
            draw: None,
        };
        // Drawn, the first dealer replaces the schedule's; both rooms of a deal set share the
        // unit number, so they draw the same one.
        let setup = match ctx.cfg.seating {
            Seating::DrawDealer => {
                let (first_dealer, turned) = first_dealer_draw(ctx.seed, job.unit);
                GameSetup { first_dealer, draw: Some(turned), ..setup }
            }
            Seating::Given | Seating::Draw => setup,
        };
        let played = {
            let [a0, a1] = &mut ga.bots;
            let [b0, b1] = &mut gb.bots;
            // Team 0 holds seats 0 and 2, team 1 seats 1 and 3.
            let seated = if job.a_team.index() == 0 { [a0, b0, a1, b1] } else { [b0, a0, b1, a1] };
            let game = Game::of_setup(setup).record_to(&path);
            play_seated(seated, game, &ctx.cfg, ctx.shutdown.clone()).await
        };
        bots.checkin(ka, ga);
        bots.checkin(kb, gb);
        let mut summary = match played {
            Ok(outcome) => outcome.summary,
            Err(e) => {
                let _ = tx.send(Report::Failed(e));
                break;
            }
        };
        // The game is reported (and so journaled) only once its record is on disk. The sync
        // waits for the disk, not the CPU, so it runs beside the next game.
        let tx = tx.clone();
        syncs.push(tokio::spawn(async move {
            let synced = tokio::task::spawn_blocking(move || {
                std::fs::File::open(&path)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| format!("syncing {}: {e}", path.display()))
            })
            .await;
            if let Err(e) = synced.unwrap_or_else(|e| Err(e.to_string())) {
                summary.record_error.get_or_insert(e);
            }
            let _ = tx.send(Report::Finished(job, Box::new(summary)));
        }));
        // At most one game's sync runs beside the next game. Without a bound, a slow disk let
        // a table play a whole 40-game SPRT match before the journal heard of its first game,
        // so the stop the journal decides (an SPRT verdict, a disqualification) came too late
        // to spare any game; now it takes effect within a game or two.
        syncs.retain(|t| !t.is_finished());
        while syncs.len() > 1 {
            let _ = syncs.remove(0).await;
        }
    }
    for t in syncs {
        let _ = t.await;
    }
    bots.close_all().await;
}

impl Bots {
    /// The group for `key`, started if needed, with dead bots started again.
    async fn checkout(
        &mut self,
        ctx: &TableCtx,
        table: usize,
        cpu: Option<usize>,
        key: Key,
    ) -> Group {
        self.clock += 1;
        let mut group = match self.groups.remove(&key) {
            Some(g) => g,
            None => {
                self.make_room();
                let (b0, b1) = tokio::join!(
                    open_bot(ctx, table, cpu, key, 0),
                    open_bot(ctx, table, cpu, key, 1)
                );
                let tcp = ctx.entrants[key.0].spec.is_tcp();
                Group { bots: [b0, b1], last_used: 0, tcp, fresh: true }
            }
        };
        group.last_used = self.clock;
        if !group.fresh {
            for (slot, bot) in group.bots.iter_mut().enumerate() {
                seat::revive(bot, &place(ctx), &stem(ctx, table, key, slot), cpu).await;
            }
        }
        group.fresh = false;
        group
    }

    fn checkin(&mut self, key: Key, group: Group) {
        self.groups.insert(key, group);
    }

    /// Closes least recently used groups until two more fit.
    fn make_room(&mut self) {
        while self.groups.len() + 2 > MAX_GROUPS {
            let Some(key) = self
                .groups
                .iter()
                .filter(|(_, g)| !g.tcp)
                .min_by_key(|(_, g)| g.last_used)
                .map(|(k, _)| *k)
            else {
                return;
            };
            if let Some(g) = self.groups.remove(&key) {
                self.closing.push(tokio::spawn(close_group(g, "no more games for this bot here")));
            }
        }
    }

    async fn close_all(mut self) {
        let groups: Vec<Group> = self.groups.drain().map(|(_, g)| g).collect();
        for g in groups {
            self.closing.push(tokio::spawn(close_group(g, "tournament over")));
        }
        for task in self.closing {
            let _ = task.await;
        }
    }
}

async fn close_group(g: Group, reason: &'static str) {
    let [b0, b1] = g.bots;
    tokio::join!(b0.close(reason, BYE_GRACE), b1.close(reason, BYE_GRACE));
}

/// The stderr log name of a bot, relative to the records folder (the logs folder is its
/// sibling, so the path in each record's header leads to it).
fn stem(ctx: &TableCtx, table: usize, key: Key, slot: usize) -> String {
    let room = if key.1 == 0 { String::new() } else { format!("-r{}", key.1) };
    let run = if ctx.run > 1 { format!("-run{}", ctx.run) } else { String::new() };
    format!("../logs/{}-t{}{room}-s{}{run}", ctx.slugs[key.0], table + 1, slot + 1)
}

fn spec_for(ctx: &TableCtx, table: usize, key: Key, slot: usize) -> BotSpec {
    match &ctx.entrants[key.0].spec {
        BotSpec::TcpSeat { token } => {
            BotSpec::TcpSeat { token: seat_token(token, ctx.rooms, table, key.1, slot) }
        }
        other => other.clone(),
    }
}

async fn open_bot(ctx: &TableCtx, table: usize, cpu: Option<usize>, key: Key, slot: usize) -> Bot {
    let spec = spec_for(ctx, table, key, slot);
    let stem = stem(ctx, table, key, slot);
    seat::fill(spec, &place(ctx), &stem, cpu, ctx.connect_wait).await
}

/// Where this tournament's seats are filled from.
fn place(ctx: &TableCtx) -> Place<'_> {
    Place {
        connect: &ctx.connect,
        stderr_dir: Some(&ctx.records),
        lobby: ctx.lobby.as_ref(),
        connect_wait: ctx.connect_wait,
        stop: &ctx.shutdown,
    }
}
