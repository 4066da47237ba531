//! `referee tournament` and `referee standings`: many games between entrants on parallel
//! tables, settled in a crash-safe journal, summed up in standings.
//!
//! The main thread is the scheduler and the only writer of the journal: tables (table.rs) take
//! games from a shared queue and send each finished game back; the main thread appends its
//! journal line (after the table has synced the record), disqualifies entrants, runs the SPRT,
//! and draws the progress. Ctrl-C and SIGTERM are heard on a small runtime of its own.
//!
//! Module map: config.rs (the file), schedule.rs (what game N is), journal.rs (the output
//! folder's bookkeeping), table.rs (playing), stats.rs (pure statistics), sprt.rs (the SPRT's
//! walk over the journal), standings/ (tables of results), progress.rs (the bar).

mod config;
mod journal;
mod progress;
mod schedule;
mod sprt;
mod standings;
mod stats;
mod table;

use crate::bot::BotSpec;
use crate::bot::lobby::Lobby;
use crate::bot::seat::preflight;
use crate::game_runner::{GameSummary, Status};
use crate::pin;
use crate::record_io;
use crate::shutdown;
pub(crate) use config::{Config, Disqualify, Entrant, Format};
use journal::{Entry, EntryStatus, Journal, Plan};
use progress::Progress;
use schedule::Job;
pub(crate) use schedule::Shard;
pub(crate) use stats::SprtParams;
/// The types of the files a tournament writes, for the test that derives their schemas.
#[cfg(test)]
pub(crate) mod files {
    pub(crate) use super::journal::{Entry, Plan};
    pub(crate) use super::standings::Standings;
}
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Instant;
use table::{Queue, Report, TableCtx};

/// What `referee tournament` runs: the tournament of a config file, and how to run it.
#[derive(Debug)]
pub(crate) struct TournamentConfig {
    /// The config file, named in messages; its name is the default output folder's.
    pub(crate) file: PathBuf,
    pub(crate) tournament: Config,
    /// Finish the tournament of the output folder.
    pub(crate) resume: bool,
    pub(crate) shard: Option<Shard>,
    /// The output folder given on the command line, before the config's `output`.
    pub(crate) out: Option<PathBuf>,
    /// Tables at once, before the config's `concurrency`.
    pub(crate) concurrency: Option<usize>,
    /// Pin each table (its thread and its bots) to one CPU.
    pub(crate) pin: bool,
}

/// What `referee standings` merges, and where it writes.
#[derive(Debug)]
pub(crate) struct StandingsConfig {
    /// Tournament output folders: the shards of one tournament, or a single folder.
    pub(crate) dirs: Vec<PathBuf>,
    /// Also write the standings files into this folder.
    pub(crate) out: Option<PathBuf>,
    /// Print JSON instead of a table.
    pub(crate) json: bool,
}

pub(crate) fn run(args: TournamentConfig) -> Result<(), String> {
    let cfg = &args.tournament;
    let out = args.out.clone().or_else(|| cfg.output.clone()).unwrap_or_else(|| {
        let stem = args.file.file_stem().map(|s| s.to_string_lossy().into_owned());
        PathBuf::from("tournaments").join(stem.unwrap_or_else(|| "tournament".into()))
    });
    let mut shard = args.shard;
    let no_sprt_in_shards = |shard: Option<Shard>| {
        if cfg.sprt.is_some() && shard.is_some_and(|s| s.n > 1) {
            Err("the SPRT decides on all the games, so it cannot run in shards".to_string())
        } else {
            Ok(())
        }
    };
    let names: Vec<String> = cfg.entrants.iter().map(|e| e.name.clone()).collect();
    let records = out.join("records");
    let shown = out.display();

    // A resume looks for the folder's tournament first, so a mistyped folder is not created.
    let old_plan = if args.resume {
        Some(journal::read_plan(&out).map_err(|e| format!("cannot resume: {e}"))?)
    } else {
        None
    };
    // Held until the referee exits; taken before anything is written into the folder.
    let _lock = record_io::lock_dir(&out)?;
    let (seed, entries) = if let Some(old) = old_plan {
        if cfg.seed.is_some_and(|s| s != old.seed) {
            return Err(format!(
                "cannot resume {shown}: the config's seed differs from the tournament's ({})",
                old.seed
            ));
        }
        match (shard, old.shard) {
            (None, s) => shard = s,
            (s, o) if s == o => {}
            (Some(s), _) => {
                return Err(format!(
                    "cannot resume {shown} as shard {s}: it holds {}",
                    old.shard.map_or("the whole tournament".into(), |o| format!("shard {o}"))
                ));
            }
        }
        no_sprt_in_shards(shard)?;
        let now = Plan::new(cfg, old.seed, old.scheduled, shard);
        if let Some(change) = old.change(&now, true) {
            return Err(format!(
                "cannot resume {shown}: the config changes what its games depend on: {change}"
            ));
        }
        (old.seed, journal::read_journal(&out, true)?)
    } else {
        if out.join(journal::PLAN).exists() || out.join(journal::JOURNAL).exists() {
            return Err(format!(
                "{shown} already holds a tournament: add --resume to finish it, or choose another output folder"
            ));
        }
        if shard.is_some() && cfg.seed.is_none() {
            return Err(
                "a shard needs the config to give the seed, so that every shard plays the same schedule"
                    .into(),
            );
        }
        no_sprt_in_shards(shard)?;
        // A records folder without a journal holds games nobody can account for.
        if std::fs::read_dir(&records).is_ok_and(|mut d| d.next().is_some()) {
            return Err(format!(
                "{} is not empty but {shown} holds no tournament journal; choose another output folder",
                records.display()
            ));
        }
        (cfg.seed.unwrap_or_else(crate::entropy::random_seed), Vec::new())
    };
    let logs = out.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;

    let all = schedule::build(cfg.format, names.len(), cfg.gauntlet, cfg.games, seed);
    let plan = Plan::new(cfg, seed, all.len() as u64, shard);
    let in_shard = |j: &Job| shard.is_none_or(|s| s.contains(j));
    for e in &entries {
        let ok = e.game >= 1
            && all.get(e.game as usize - 1).is_some_and(|j| e.matches(j, &names) && in_shard(j));
        if !ok {
            return Err(format!(
                "cannot resume {shown}: its journal's line for game {} does not match this config's schedule{}",
                e.game,
                shard.map(|s| format!(" (shard {s})")).unwrap_or_default()
            ));
        }
    }
    let mine: Vec<Job> = all.iter().filter(|j| in_shard(j)).copied().collect();
    let done: HashSet<u64> = entries.iter().map(|e| e.game).collect();
    let pending: Vec<Job> = mine.iter().filter(|j| !done.contains(&j.index)).copied().collect();
    check_programs(cfg, &out, &pending, &entries)?;
    // Only a first run writes the plan; a resume was checked against it and leaves it as it is.
    if !args.resume {
        record_io::prepare_dir(&records)?;
        journal::write_plan(&out, &plan)?;
    }
    let concurrency =
        args.concurrency.or(cfg.concurrency).unwrap_or_else(|| pin::allowed_cpus().len()).max(1);
    let run_no = journal::record_run(
        &out,
        args.resume,
        serde_json::json!({
            "shard": shard.map(|s| s.to_string()),
            "concurrency": concurrency,
            "pid": std::process::id(),
        }),
    )?;

    let mut moved = 0;
    for j in &pending {
        if journal::move_aside(&records, &record_io::game_file_name(j.index), run_no)? {
            moved += 1;
        }
    }
    println!(
        "Tournament: {} entrants, {} {} games{}, seed {seed}; output in {shown}",
        names.len(),
        mine.len(),
        cfg.format.as_str(),
        shard.map(|s| format!(" (shard {s} of {} games)", all.len())).unwrap_or_default()
    );
    if args.resume {
        println!(
            "Resuming: {} games settled, {} to play{}",
            mine.len() - pending.len(),
            pending.len(),
            if moved > 0 {
                format!("; {moved} unfinished records moved to records/unfinished/")
            } else {
                String::new()
            }
        );
    }

    let mut pending = pending;
    schedule::play_order(&mut pending);
    let queue = Queue::new(pending);
    let mut book = Book::new(cfg, plan, names, entries, Journal::open(&out)?, mine.len() as u64);
    book.settle_unplayable(&queue)?;
    let started = Instant::now();
    let mut played_now = 0u64;
    let mut error = None;
    let tables = concurrency.min(queue.len());
    if tables > 0 {
        let res = play(&args, &out, seed, run_no, tables, queue, &mut book)?;
        played_now = res.0;
        error = res.1;
    }
    book.progress.finish();
    let elapsed = started.elapsed().as_secs_f64();
    let s = standings::compute(&book.plan, &book.entries);
    standings::write_files(&out, &s)?;
    print!("{}", standings::text(&s));
    if played_now > 0 {
        println!(
            "This run: {played_now} games in {elapsed:.1} s ({:.1} games/s) on {tables} table{}",
            played_now as f64 / elapsed.max(1e-9),
            if tables == 1 { "" } else { "s" }
        );
    }
    println!("Standings written to {shown}/standings.json, standings.csv and pairs.csv");
    if let Some(e) = error {
        return Err(e);
    }
    let left = book.total - book.settled_in_shard();
    if left > 0 {
        return Err(format!(
            "stopped with {left} games left to play; finish them with: referee tournament {} --resume{}",
            args.file.display(),
            args.out.as_ref().map(|o| format!(" --out {}", o.display())).unwrap_or_default()
        ));
    }
    Ok(())
}

/// Starts each entrant's program once before any game (bot/seat/preflight.rs): one that cannot
/// play stops the tournament, naming the entrant. Only entrants with games left are checked.
fn check_programs(
    cfg: &Config,
    out: &Path,
    pending: &[Job],
    entries: &[Entry],
) -> Result<(), String> {
    let out_of_play: HashSet<&str> =
        entries.iter().flat_map(|e| e.disqualified.iter().map(String::as_str)).collect();
    let names: Vec<String> = cfg.entrants.iter().map(|e| e.name.clone()).collect();
    let programs: Vec<preflight::Program> = cfg
        .entrants
        .iter()
        .zip(slugs(&names))
        .enumerate()
        .filter(|(i, (e, _))| {
            pending.iter().any(|j| j.involves(*i)) && !out_of_play.contains(e.name.as_str())
        })
        .map(|(_, (e, slug))| preflight::Program {
            who: format!("entrant {:?}", e.name),
            spec: e.spec.clone(),
            log_stem: format!("{slug}-check"),
        })
        .collect();
    if !programs.iter().any(|p| matches!(p.spec, BotSpec::Command(_))) {
        return Ok(());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    rt.block_on(preflight::check(&programs, &cfg.connect, Some(&out.join("logs"))))
}

/// Plays the queue on `tables` tables; returns the games played and the referee's own error,
/// if one stopped the tournament.
#[allow(clippy::too_many_arguments)]
fn play(
    args: &TournamentConfig,
    out: &Path,
    seed: u64,
    run_no: u64,
    tables: usize,
    queue: Queue,
    book: &mut Book,
) -> Result<(u64, Option<String>), String> {
    // Signals and TCP bots are served by a small runtime of this thread's own; its one worker
    // thread drives them while this thread blocks on the tables' reports.
    let control = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("tournament-control")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let (trigger, shutdown) = shutdown::channel();
    {
        let _guard = control.enter();
        shutdown::listen(trigger);
    }
    let cfg = &args.tournament;
    let rooms = cfg.format.rooms();
    let lobby = open_lobby(&control, cfg, tables, rooms)?;
    let ctx = Arc::new(TableCtx {
        cfg: cfg.game.clone(),
        connect: cfg.connect.clone(),
        entrants: cfg.entrants.clone(),
        slugs: slugs(&book.names),
        seed,
        records: out.join("records"),
        run: run_no,
        rooms,
        queue,
        shutdown,
        lobby,
        connect_wait: cfg.net.connect_wait,
    });
    let cpus = pin::allowed_cpus();
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    let mut error: Option<String> = None;
    for t in 0..tables {
        let cpu = args.pin.then(|| cpus[t % cpus.len()]);
        match table::spawn(ctx.clone(), t, cpu, tx.clone()) {
            Ok(h) => handles.push(h),
            Err(e) => {
                // The tables already started finish their games; nothing new starts.
                ctx.queue.close();
                error = Some(format!("cannot start a table thread: {e}"));
                break;
            }
        }
    }
    // Only the tables hold senders now: the channel closes when the last table ends.
    drop(tx);
    let mut played = 0;
    // Wait for a report, then take every report already waiting: one journal sync for all.
    while let Ok(first) = rx.recv() {
        let mut batch = Vec::new();
        for report in std::iter::once(first).chain(rx.try_iter()) {
            match report {
                Report::Finished(job, summary) => batch.push((job, summary)),
                Report::Failed(e) => {
                    ctx.queue.close();
                    error.get_or_insert(e);
                }
            }
        }
        match book.finished(batch, &ctx.queue) {
            Ok((counted, record_error)) => {
                played += counted;
                if let Some(e) = record_error {
                    ctx.queue.close();
                    error.get_or_insert(e);
                }
            }
            Err(e) => {
                // The journal cannot be written: nothing more can count.
                ctx.queue.close();
                error.get_or_insert(e);
            }
        }
    }
    for (t, h) in handles.into_iter().enumerate() {
        if h.join().is_err() {
            error.get_or_insert(format!("table {} stopped on an internal error", t + 1));
        }
    }
    if let Some(lobby) = &ctx.lobby {
        control.block_on(lobby.close("tournament over"));
    }
    drop(ctx);
    // The signal listener may be waiting for a second Ctrl-C: do not wait for it.
    control.shutdown_background();
    Ok((played, error))
}

/// Binds the listener for TCP entrants and tells which tokens their bots must claim.
fn open_lobby(
    control: &tokio::runtime::Runtime,
    cfg: &Config,
    tables: usize,
    rooms: u64,
) -> Result<Option<Lobby>, String> {
    let mut tokens = Vec::new();
    let mut lines = Vec::new();
    for e in &cfg.entrants {
        if let Some(token) = e.spec.lobby_token() {
            let mine: Vec<String> = (0..tables)
                .flat_map(|t| {
                    (0..rooms).flat_map(move |r| {
                        let room = if rooms == 1 { 0 } else { r as u8 + 1 };
                        (0..2).map(move |s| table::seat_token(token, rooms, t, room, s))
                    })
                })
                .collect();
            lines.push(format!(
                "  entrant {}: {} bots, tokens {} to {}",
                e.name,
                mine.len(),
                mine[0],
                mine[mine.len() - 1]
            ));
            tokens.extend(mine);
        }
    }
    if tokens.is_empty() {
        return Ok(None);
    }
    let lobby = control.block_on(Lobby::bind(
        &cfg.net.listen,
        &tokens,
        cfg.connect.clone(),
        cfg.net.pending.total,
        cfg.net.pending.per_addr,
    ))?;
    println!("Listening for TCP bots on {}", lobby.addr());
    for l in lines {
        println!("{l}");
    }
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    Ok(Some(lobby))
}

/// File-name-safe entrant names, numbered so two names never give the same file.
fn slugs(names: &[String]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let s: String = n
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
                .collect();
            format!("{}-{s}", i + 1)
        })
        .collect()
}

/// The scheduler's bookkeeping: the journal and what follows from it.
struct Book {
    plan: Plan,
    names: Vec<String>,
    entries: Vec<Entry>,
    journal: Journal,
    progress: Progress,
    /// Games of this shard (or tournament).
    total: u64,
    disqualify: config::Disqualify,
    disqualified: BTreeSet<usize>,
    strikes: Vec<u64>,
    games: Vec<u64>,
    sprt: Option<sprt::SprtWalk>,
    /// The SPRT's decision has been announced (and the games it made unnecessary settled).
    sprt_told: bool,
    rooms: u64,
}

impl Book {
    fn new(
        cfg: &Config,
        plan: Plan,
        names: Vec<String>,
        entries: Vec<Entry>,
        journal: Journal,
        total: u64,
    ) -> Book {
        let n = names.len();
        let unplayed = entries.iter().filter(|e| !e.is_played()).count() as u64;
        let played = entries.len() as u64 - unplayed;
        let mut book = Book {
            sprt: cfg.sprt.map(|params| sprt::SprtWalk::new(params, cfg.format)),
            sprt_told: false,
            plan,
            names,
            entries: Vec::new(),
            journal,
            // The bar counts the games to play: those settled without play are not among them.
            progress: Progress::new(total.saturating_sub(unplayed), played),
            total,
            disqualify: cfg.disqualify,
            disqualified: BTreeSet::new(),
            strikes: vec![0; n],
            games: vec![0; n],
            rooms: cfg.format.rooms(),
        };
        for e in entries {
            book.absorb(&e);
            book.entries.push(e);
        }
        book
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Takes a settled game into the running counts.
    fn absorb(&mut self, e: &Entry) {
        for name in &e.disqualified {
            if let Some(i) = self.index(name) {
                self.disqualified.insert(i);
            }
        }
        if !e.is_played() {
            return;
        }
        for (side, name) in [(0, &e.a), (1, &e.b)] {
            if let Some(i) = self.index(name) {
                self.strikes[i] += e.faults[side].strikes;
                self.games[i] += 1;
            }
        }
        if let Some(walk) = self.sprt.as_mut() {
            walk.absorb(e);
        }
    }

    fn settled_in_shard(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Journals a batch of finished games with one write and one sync (tables finish games
    /// faster than a disk syncs, so games that arrive together are committed together).
    /// Returns the games that count (aborted ones do not) and the first record error.
    fn finished(
        &mut self,
        batch: Vec<(Job, Box<GameSummary>)>,
        queue: &Queue,
    ) -> Result<(u64, Option<String>), String> {
        let mut lines = Vec::new();
        let mut error = None;
        for (job, s) in batch {
            if s.status == Status::Aborted {
                continue;
            }
            if let Some(e) = &s.record_error {
                // Without a complete record the game cannot count.
                error.get_or_insert(e.clone());
                continue;
            }
            let record = format!("records/{}", record_io::game_file_name(job.index));
            let mut entry = Entry::played(&job, &s, &self.names, record);
            // Disqualification is decided with this game counted, and written into its line,
            // so a resumed run and the standings know it without recounting.
            for (side, i) in [(0, job.a), (1, job.b)] {
                let strikes = self.strikes[i] + entry.faults[side].strikes;
                if !self.disqualified.contains(&i)
                    && self.disqualify.passed(strikes, self.games[i] + 1)
                {
                    entry.disqualified.push(self.names[i].clone());
                }
            }
            self.absorb(&entry);
            lines.push(entry);
        }
        self.journal.append(&lines)?;
        let counted = lines.len() as u64;
        for entry in lines {
            for name in &entry.disqualified {
                let i = self.index(name).unwrap_or(0);
                self.progress.say(&format!(
                    "referee: {name} is disqualified after {} faults in {} games; its remaining games are not played",
                    self.strikes[i], self.games[i]
                ));
            }
            self.entries.push(entry);
            self.progress.advance(1);
        }
        self.settle_unplayable(queue)?;
        Ok((counted, error))
    }

    /// Journals as settled without play the queued games that must not be played: those of
    /// disqualified entrants, and once the SPRT has decided, every one not needed to complete
    /// a deal set already begun (in duplicate, a stop never leaves half a deal set).
    fn settle_unplayable(&mut self, queue: &Queue) -> Result<(), String> {
        let mut settled = Vec::new();
        if let Some(d) = self.sprt.as_ref().and_then(|w| w.decision()) {
            if !self.sprt_told {
                self.sprt_told = true;
                self.progress.say(&format!(
                    "referee: {}; no new deal sets start, the games under way finish",
                    d.reason()
                ));
            }
            for j in queue.remove_untouched_units(self.rooms) {
                settled.push((j, EntryStatus::NotNeeded, d.reason()));
            }
        }
        for &i in &self.disqualified {
            for j in queue.remove_if(|j| j.involves(i)) {
                settled.push((
                    j,
                    EntryStatus::NotPlayed,
                    format!("{} was disqualified", self.names[i]),
                ));
            }
        }
        settled.sort_by_key(|(j, _, _)| j.index);
        let lines: Vec<Entry> = settled
            .into_iter()
            .map(|(j, status, why)| Entry::unplayed(&j, &self.names, status, why))
            .collect();
        self.journal.append(&lines)?;
        self.progress.skip(lines.len() as u64);
        self.entries.extend(lines);
        Ok(())
    }
}

pub(crate) fn standings(args: StandingsConfig) -> Result<(), String> {
    let mut plan: Option<Plan> = None;
    let mut entries = Vec::new();
    let mut from: HashMap<u64, usize> = HashMap::new();
    for (k, dir) in args.dirs.iter().enumerate() {
        let p = journal::read_plan(dir)?;
        if let Some(first) = &plan {
            if let Some(d) = first.change(&p, false) {
                return Err(format!(
                    "{} holds another tournament than {} ({d})",
                    dir.display(),
                    args.dirs[0].display()
                ));
            }
        } else {
            plan = Some(p);
        }
        for e in journal::read_journal(dir, false)? {
            if let Some(&other) = from.get(&e.game)
                && other != k
            {
                return Err(format!(
                    "game {} is in the journals of both {} and {}",
                    e.game,
                    args.dirs[other].display(),
                    dir.display()
                ));
            }
            from.insert(e.game, k);
            entries.push(e);
        }
    }
    let Some(mut plan) = plan else { return Err("no folder given".into()) };
    plan.shard = None;
    let s = standings::compute(&plan, &entries);
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        standings::write_files(out, &s)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s).unwrap_or_default());
    } else {
        print!("{}", standings::text(&s));
    }
    Ok(())
}
