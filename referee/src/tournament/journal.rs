//! The output folder's bookkeeping: the plan (what tournament this folder holds), the journal
//! (one line per settled game, appended and fsync'd only once the game's record is complete),
//! and the list of runs. A game counts if and only if its journal line is there, so a referee
//! killed at any moment, even by SIGKILL, loses at most the games in flight, and `--resume`
//! replays exactly those.

use crate::game_runner::GameSummary;
use crate::tournament::config::{Config, Disqualify, Format};
use crate::tournament::schedule::{Job, Shard};
use crate::tournament::stats::SprtParams;
use protocol::RulesWire;
use protocol::msg::Clock;
use protocol::record::{FaultKind, FaultRecord, Penalty, Policy};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal's file name in the output folder.
pub(crate) const JOURNAL: &str = "journal.jsonl";
/// The plan's file name.
pub(crate) const PLAN: &str = "tournament.json";
/// One line per start of the referee on this folder.
pub(crate) const RUNS: &str = "runs.jsonl";
/// The plan's `file` value.
const PLAN_FILE: &str = "aluette-tournament";

/// Faults of one entrant in one game, by class.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct FaultCounts {
    /// No answer in time.
    pub(crate) timeouts: u64,
    /// The bot could not start, refused the handshake, exited, closed its output or
    /// disconnected.
    pub(crate) crashes: u64,
    /// A valid message that breaks the rules: a card not held, a wrong discard, a refused
    /// signal, an answer of the wrong kind.
    pub(crate) illegal: u64,
    /// Lines that are not valid messages, too long, or carry a stale or unknown id.
    pub(crate) protocol: u64,
    /// Faults that cost a strike (all but ignored lines): what disqualification counts.
    pub(crate) strikes: u64,
}

impl FaultCounts {
    pub(crate) fn count(&mut self, f: &FaultRecord) {
        match f.kind {
            FaultKind::Timeout => self.timeouts += 1,
            FaultKind::NoStart
            | FaultKind::HandshakeRefused
            | FaultKind::Exited
            | FaultKind::ClosedStdout
            | FaultKind::Disconnected => self.crashes += 1,
            FaultKind::IllegalCard
            | FaultKind::WrongDiscard
            | FaultKind::BadSignal
            | FaultKind::WrongAnswer => self.illegal += 1,
            FaultKind::Malformed
            | FaultKind::LineTooLong
            | FaultKind::StaleId
            | FaultKind::UnknownId => self.protocol += 1,
        }
        if f.penalty != Penalty::Ignored {
            self.strikes += 1;
        }
    }

    pub(crate) fn add(&mut self, o: &FaultCounts) {
        self.timeouts += o.timeouts;
        self.crashes += o.crashes;
        self.illegal += o.illegal;
        self.protocol += o.protocol;
        self.strikes += o.strikes;
    }

    pub(crate) fn total(&self) -> u64 {
        self.timeouts + self.crashes + self.illegal + self.protocol
    }
}

/// Think times of one entrant (both seats) in one game.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Think {
    /// Answers given in time that stood (the record footer's `answers`, both seats).
    pub(crate) answers: u64,
    /// Their total think time in microseconds.
    pub(crate) think_us: u64,
    /// The longest think time in microseconds.
    pub(crate) max_us: u64,
    /// Answers whose CPU time was measured (the seats' footer `cpu_us` present).
    pub(crate) cpu_answers: u64,
    /// Their total CPU time in microseconds.
    pub(crate) cpu_us: u64,
}

/// Points of each entrant in one counted deal.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DealPoints {
    /// Deal number in the game (redeals included): the deck's number, so the same number is
    /// the same deck in both rooms.
    pub(crate) deal: u16,
    /// Points of entrant a.
    pub(crate) a: u8,
    /// Points of entrant b.
    pub(crate) b: u8,
}

/// How a game was settled.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EntryStatus {
    /// Played, and its record is complete.
    Played,
    /// Settled without play: an entrant was disqualified.
    NotPlayed,
    /// Settled without play because the SPRT had decided: the match needed no more games.
    NotNeeded,
}

/// One journal line: a settled game, from the point of view of its pairing's entrants `a`
/// and `b` (the first and second of the pairing, whatever seats they held).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    /// The game's number in the schedule, as in its record's file name.
    pub(crate) game: u64,
    /// The unit it belongs to: the game itself in a round robin, its deal set in duplicate.
    pub(crate) unit: u64,
    /// The pairing's first entrant.
    pub(crate) a: String,
    /// The pairing's second entrant.
    pub(crate) b: String,
    /// The round of the schedule.
    pub(crate) round: u64,
    /// 1 or 2 in duplicate (the same decks, seats swapped), 0 in a round robin.
    pub(crate) room: u8,
    /// Entrant a's partnership: 0 (seats 0+2) or 1 (seats 1+3).
    pub(crate) a_team: u8,
    pub(crate) status: EntryStatus,
    /// Why a game was settled without play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// The record, relative to the output folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) record: Option<String>,
    /// The game's seed.
    pub(crate) seed: u64,
    /// Final score of a and b.
    #[serde(default)]
    pub(crate) score: [u16; 2],
    /// The winning entrant; `null` for a draw.
    #[serde(default)]
    pub(crate) winner: Option<String>,
    /// The entrant whose partnership forfeited, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) forfeit: Option<String>,
    /// The deals that counted.
    #[serde(default)]
    pub(crate) deals: Vec<DealPoints>,
    /// Faults of a and of b.
    #[serde(default)]
    pub(crate) faults: [FaultCounts; 2],
    /// Think times of a and of b.
    #[serde(default)]
    pub(crate) think: [Think; 2],
    /// The game's wall-clock duration in milliseconds.
    #[serde(default)]
    pub(crate) duration_ms: u64,
    /// Entrants disqualified as a result of this game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) disqualified: Vec<String>,
}

impl Entry {
    /// The line of a finished game.
    pub(crate) fn played(job: &Job, s: &GameSummary, names: &[String], record: String) -> Entry {
        let t = job.a_team.index();
        let side = |team: usize| usize::from(team != t);
        let name_of = |team: rules::Team| names[job.entrant_of(team)].clone();
        let mut faults = [FaultCounts::default(); 2];
        for f in &s.faults {
            faults[side(usize::from(f.seat) % 2)].count(f);
        }
        let mut think = [Think::default(); 2];
        for (seat, st) in s.stats.iter().enumerate() {
            let th = &mut think[side(seat % 2)];
            th.answers += u64::from(st.answers);
            th.think_us += st.think_us;
            th.max_us = th.max_us.max(st.max_us);
            if let Some(cpu) = st.cpu_us {
                th.cpu_answers += u64::from(st.answers);
                th.cpu_us += cpu;
            }
        }
        let deals = s
            .deals
            .iter()
            .filter(|d| d.counted)
            .map(|d| {
                let to = |team: usize| {
                    if d.team.is_some_and(|t| t.index() == team) { d.points } else { 0 }
                };
                DealPoints { deal: d.deal, a: to(t), b: to(1 - t) }
            })
            .collect();
        Entry {
            game: job.index,
            unit: job.unit,
            a: names[job.a].clone(),
            b: names[job.b].clone(),
            round: job.round,
            room: job.room,
            a_team: t as u8,
            status: EntryStatus::Played,
            reason: None,
            record: Some(record),
            seed: job.seed,
            score: [s.score[t], s.score[1 - t]],
            winner: s.winner.map(name_of),
            forfeit: s.forfeit.map(name_of),
            deals,
            faults,
            think,
            duration_ms: s.duration.as_millis() as u64,
            disqualified: Vec::new(),
        }
    }

    /// The line of a game settled without play (`status` says why; `reason` says it in words).
    pub(crate) fn unplayed(
        job: &Job,
        names: &[String],
        status: EntryStatus,
        reason: String,
    ) -> Entry {
        Entry {
            game: job.index,
            unit: job.unit,
            a: names[job.a].clone(),
            b: names[job.b].clone(),
            round: job.round,
            room: job.room,
            a_team: job.a_team.index() as u8,
            status,
            reason: Some(reason),
            record: None,
            seed: job.seed,
            score: [0, 0],
            winner: None,
            forfeit: None,
            deals: Vec::new(),
            faults: Default::default(),
            think: Default::default(),
            duration_ms: 0,
            disqualified: Vec::new(),
        }
    }

    pub(crate) fn is_played(&self) -> bool {
        self.status == EntryStatus::Played
    }

    /// Entrant a's game score: 1 for a win, 1/2 for a draw, 0 for a loss.
    pub(crate) fn score_a(&self) -> f64 {
        match &self.winner {
            Some(w) if *w == self.a => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// Whether this line is the schedule's game `job` (same number, entrants and room).
    pub(crate) fn matches(&self, job: &Job, names: &[String]) -> bool {
        self.game == job.index
            && self.unit == job.unit
            && self.room == job.room
            && self.a == names[job.a]
            && self.b == names[job.b]
            && self.seed == job.seed
    }
}

/// What an output folder holds: written at every start, checked by `--resume` and `standings`.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Plan {
    /// Always "aluette-tournament".
    pub(crate) file: String,
    /// The plan's format version, 1.
    pub(crate) version: u32,
    /// The tournament seed.
    pub(crate) seed: u64,
    pub(crate) format: Format,
    /// Games per pairing.
    pub(crate) games: u64,
    /// The entrant every other one plays, in a gauntlet.
    #[serde(default)]
    pub(crate) gauntlet: Option<String>,
    /// The entrants, in config order.
    pub(crate) entrants: Vec<PlanEntrant>,
    /// What shapes every game (kept as a value: a resume compares it key by key, and names the
    /// first that differs).
    #[cfg_attr(test, schemars(with = "Settings"))]
    pub(crate) settings: Value,
    /// Games in the whole tournament (all shards).
    pub(crate) scheduled: u64,
    /// The shard this folder plays, when it plays one.
    #[serde(default)]
    pub(crate) shard: Option<Shard>,
    /// The SPRT that stops the match, if any.
    #[serde(default)]
    pub(crate) sprt: Option<SprtParams>,
    #[serde(default)]
    pub(crate) disqualify: Disqualify,
}

/// An entrant of the plan.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanEntrant {
    /// Its name, as in the config.
    pub(crate) name: String,
    /// Its command, as written in the config.
    pub(crate) command: String,
}

/// A plan's `settings`: what shapes every game of the tournament.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Serialize)]
struct Settings {
    /// The rules, as in a record's header.
    #[cfg_attr(test, schemars(schema_with = "protocol_schema::<RulesWire>"))]
    rules: RulesWire,
    /// The clocks, as in a record's header.
    #[cfg_attr(test, schemars(schema_with = "protocol_schema::<Clock>"))]
    clock: Clock,
    /// The fault policy, as in a record's header.
    #[cfg_attr(test, schemars(schema_with = "protocol_schema::<Policy>"))]
    policy: Policy,
    /// What a bot may send and use decides faults (the stderr cap changes no game).
    limits: Limits,
    /// How long a TCP seat waits for its bot decides whether its game starts with one (the
    /// address listened on changes no game).
    net: Net,
}

/// A plan's limits.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Serialize)]
struct Limits {
    /// `--max-line-bytes`.
    max_line_bytes: usize,
    /// `--bot-memory-mib`, `null` when off.
    bot_memory_mib: Option<u64>,
    /// `--bot-cpu-seconds`, `null` when off.
    bot_cpu_seconds: Option<u64>,
}

/// A plan's network setting.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Serialize)]
struct Net {
    /// `--connect-wait-ms`.
    connect_wait_ms: u64,
}

/// The schema of a protocol type, from its declaration (`protocol::json`), with the shared parts
/// it uses added to the file's `$defs`.
#[cfg(test)]
pub(crate) fn protocol_schema<T: protocol::json::Json>(
    g: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    let mut defs = protocol::json::Defs::new();
    let schema = T::schema(&mut defs);
    g.definitions_mut().extend(defs);
    schemars::Schema::try_from(schema).unwrap_or_default()
}

impl Plan {
    pub(crate) fn new(cfg: &Config, seed: u64, scheduled: u64, shard: Option<Shard>) -> Plan {
        let gc = &cfg.game;
        Plan {
            file: PLAN_FILE.into(),
            version: 1,
            seed,
            format: cfg.format,
            games: cfg.games,
            gauntlet: cfg.gauntlet.map(|g| cfg.entrants[g].name.clone()),
            entrants: cfg
                .entrants
                .iter()
                .map(|e| PlanEntrant { name: e.name.clone(), command: e.command.clone() })
                .collect(),
            settings: serde_json::to_value(Settings {
                rules: convert::rules_wire(&gc.rules, gc.seating),
                clock: gc.clock,
                policy: Policy { on_fault: gc.policy.on_fault, max_strikes: gc.policy.max_strikes },
                limits: Limits {
                    max_line_bytes: cfg.connect.max_line,
                    bot_memory_mib: cfg.connect.limits.memory_bytes.map(|b| b >> 20),
                    bot_cpu_seconds: cfg.connect.limits.cpu_seconds,
                },
                net: Net { connect_wait_ms: cfg.net.connect_wait.as_millis() as u64 },
            })
            .unwrap_or_default(),
            scheduled,
            shard,
            sprt: cfg.sprt,
            disqualify: cfg.disqualify,
        }
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.entrants.iter().map(|e| e.name.clone()).collect()
    }

    /// What `now` changes of this plan that the games depend on, named for a person, or `None`
    /// when it describes the same tournament. `commands` says whether the entrants' commands
    /// count: they do for a resume (another program under an entrant's name would play its
    /// remaining games), not for merging shards, whose machines may keep a bot at another path.
    pub(crate) fn change(&self, now: &Plan, commands: bool) -> Option<String> {
        let (old, new) = (self, now);
        if old.seed != new.seed {
            return Some(format!("the seed is {}, the tournament's is {}", new.seed, old.seed));
        }
        if old.format != new.format {
            return Some(format!(
                "the format is {}, the tournament's is {}",
                new.format.as_str(),
                old.format.as_str()
            ));
        }
        if old.games != new.games {
            return Some(format!("games is {}, the tournament's is {}", new.games, old.games));
        }
        if old.gauntlet != new.gauntlet {
            return Some(format!(
                "the gauntlet is {:?}, the tournament's is {:?}",
                new.gauntlet, old.gauntlet
            ));
        }
        if old.names() != new.names() {
            return Some(format!(
                "the entrants are {:?}, the tournament's are {:?}",
                new.names(),
                old.names()
            ));
        }
        if commands
            && let Some((o, n)) =
                old.entrants.iter().zip(&new.entrants).find(|(o, n)| o.command != n.command)
        {
            return Some(format!(
                "entrant {:?} has the command {:?}, the tournament's is {:?}",
                n.name, n.command, o.command
            ));
        }
        if let Some(d) = first_difference("", &old.settings, &new.settings) {
            return Some(d);
        }
        if old.sprt != new.sprt {
            return Some(format!(
                "sprt is {}, the tournament's is {}",
                json(&new.sprt),
                json(&old.sprt)
            ));
        }
        if old.disqualify != new.disqualify {
            return Some(format!(
                "disqualify is {}, the tournament's is {}",
                json(&new.disqualify),
                json(&old.disqualify)
            ));
        }
        None
    }
}

fn json(v: &impl Serialize) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The first setting (as a dotted path) whose value differs between two plans' settings.
fn first_difference(path: &str, old: &Value, new: &Value) -> Option<String> {
    let (Value::Object(o), Value::Object(n)) = (old, new) else {
        return (old != new).then(|| format!("{path} is {new}, the tournament's is {old}"));
    };
    let keys: std::collections::BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    keys.into_iter().find_map(|k| {
        let here = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
        match (o.get(k), n.get(k)) {
            (Some(a), Some(b)) => first_difference(&here, a, b),
            (Some(a), None) => Some(format!("{here} is not set, the tournament's is {a}")),
            (None, Some(b)) => {
                Some(format!("{here} is {b}, the tournament's tournament.json has none"))
            }
            (None, None) => None,
        }
    })
}

pub(crate) fn read_plan(dir: &Path) -> Result<Plan, String> {
    let path = dir.join(PLAN);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("{} holds no tournament (no {PLAN})", dir.display())
        } else {
            format!("cannot read {}: {e}", path.display())
        }
    })?;
    let plan: Plan =
        serde_json::from_str(&text).map_err(|e| format!("{} is damaged: {e}", path.display()))?;
    if plan.file != PLAN_FILE || plan.version != 1 {
        return Err(format!("{} is not a tournament plan this referee reads", path.display()));
    }
    Ok(plan)
}

/// Writes the plan whole or not at all (a temporary file renamed over it).
pub(crate) fn write_plan(dir: &Path, plan: &Plan) -> Result<(), String> {
    let path = dir.join(PLAN);
    let tmp = dir.join(format!("{PLAN}.tmp"));
    let text = serde_json::to_string_pretty(plan).unwrap_or_default() + "\n";
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        sync_dir(dir);
        Ok(())
    };
    write().map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Flushes a folder's entries (new and renamed files) to disk; best effort.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Reads a journal. A last line without its newline was cut by a kill in the middle of its
/// write: its game does not count; with `repair` the file is cut back to its last whole line,
/// so later lines append cleanly. A damaged whole line is an error: the journal is not ours.
pub(crate) fn read_journal(dir: &Path, repair: bool) -> Result<Vec<Entry>, String> {
    let path = dir.join(JOURNAL);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    if whole < bytes.len() && repair {
        let f = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
        f.set_len(whole as u64)
            .and_then(|()| f.sync_all())
            .map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
        eprintln!(
            "referee: {}: dropped a journal line cut short by a kill; its game is played again",
            path.display()
        );
    }
    let mut entries = Vec::new();
    for (n, line) in bytes[..whole].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let entry: Entry = serde_json::from_slice(line)
            .map_err(|e| format!("{} line {} is damaged: {e}", path.display(), n + 1))?;
        entries.push(entry);
    }
    Ok(entries)
}

/// The journal, open for appending.
#[derive(Debug)]
pub(crate) struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    pub(crate) fn open(dir: &Path) -> Result<Journal, String> {
        let path = dir.join(JOURNAL);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        sync_dir(dir);
        Ok(Journal { file, path })
    }

    /// Appends whole lines in a single write and waits until they are on disk.
    pub(crate) fn append(&mut self, entries: &[Entry]) -> Result<(), String> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::new();
        for e in entries {
            buf.extend(serde_json::to_vec(e).unwrap_or_default());
            buf.push(b'\n');
        }
        self.file
            .write_all(&buf)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Appends a line to the runs file and returns this run's number (from 1).
pub(crate) fn record_run(dir: &Path, resume: bool, info: Value) -> Result<u64, String> {
    let path = dir.join(RUNS);
    let before = std::fs::read_to_string(&path).unwrap_or_default();
    let run = before.lines().filter(|l| !l.trim().is_empty()).count() as u64 + 1;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut line = serde_json::json!({ "run": run, "resume": resume, "started_unix_ms": started });
    if let (Some(obj), Value::Object(more)) = (line.as_object_mut(), info) {
        obj.extend(more);
    }
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    writeln!(f, "{line}").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(run)
}

/// Moves the record of a game that has no journal line (it was in flight when the referee
/// stopped) out of the way, into records/unfinished/, so the game can be played again and the
/// cut-short file is kept for inspection. Never counted: only the journal counts.
pub(crate) fn move_aside(records: &Path, file_name: &str, run: u64) -> Result<bool, String> {
    let from = records.join(file_name);
    if !from.exists() {
        return Ok(false);
    }
    let dir = records.join("unfinished");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = file_name.trim_end_matches(".jsonl");
    let to = dir.join(format!("{stem}.run{run}.jsonl"));
    std::fs::rename(&from, &to)
        .map_err(|e| format!("cannot move {} aside: {e}", from.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_dropped_and_repaired() {
        let dir = std::env::temp_dir().join(format!("journal-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let job = crate::tournament::schedule::build(Format::RoundRobin, 2, None, 1, 1)[0];
        let names = vec!["x".to_string(), "y".to_string()];
        let mut j = Journal::open(&dir).unwrap();
        j.append(&[Entry::unplayed(&job, &names, EntryStatus::NotPlayed, "test".into())]).unwrap();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(dir.join(JOURNAL)).unwrap();
        f.write_all(b"{\"game\":2,\"un").unwrap();
        assert_eq!(read_journal(&dir, false).unwrap().len(), 1);
        assert_eq!(read_journal(&dir, true).unwrap().len(), 1);
        let text = std::fs::read_to_string(dir.join(JOURNAL)).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        std::fs::write(dir.join(JOURNAL), "{not json}\n").unwrap();
        assert!(read_journal(&dir, true).unwrap_err().contains("line 1 is damaged"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
