//! `referee par PATH...`: each bot's mean cost per card against perfect play with every hand
//! visible (spec/par.md), over record files and the records below folders (a records folder, a
//! tournament's output), as a table to read beside the standings.

use crate::par::{self, Decision};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which records to analyse, and the node budget of one position.
#[derive(Debug)]
pub(crate) struct ParConfig {
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) nodes: u64,
}

/// One bot's decisions over the records.
#[derive(Debug, Default)]
struct Tally {
    solved: u64,
    unsolved: u64,
    cost: u64,
    costly: u64,
}

pub(crate) fn run(cfg: ParConfig) -> Result<(), String> {
    let mut files = Vec::new();
    for p in &cfg.paths {
        collect(p, &mut files)?;
    }
    if files.is_empty() {
        return Err("no record (game-*.jsonl) in the paths given".into());
    }
    files.sort();
    let mut bots: BTreeMap<String, Tally> = BTreeMap::new();
    for f in &files {
        let r = par::analyse(f, cfg.nodes)?;
        for d in r.deals.iter().flat_map(|d| &d.decisions) {
            let t = bots.entry(r.seats[d.seat.index()].clone()).or_default();
            add(t, d);
        }
    }
    print!("{}", crate::text::printable(&table(&bots, files.len())));
    Ok(())
}

fn add(t: &mut Tally, d: &Decision) {
    match d.cost() {
        Some(c) => {
            t.solved += 1;
            t.cost += c as u64;
            t.costly += u64::from(c > 0);
        }
        None => t.unsolved += 1,
    }
}

/// The table people read: the lowest mean cost first.
fn table(bots: &BTreeMap<String, Tally>, records: usize) -> String {
    use std::fmt::Write as _;
    let mut rows: Vec<(&String, &Tally)> = bots.iter().collect();
    let mean = |t: &Tally| if t.solved == 0 { f64::NAN } else { t.cost as f64 / t.solved as f64 };
    rows.sort_by(|a, b| mean(a.1).total_cmp(&mean(b.1)).then(a.0.cmp(b.0)));
    let width = rows.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(3).max(3);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Par over {records} record{}: cost = points of par a card gave away, against perfect \
         play with every hand visible",
        if records == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "{:<width$}  {:>9}  {:>10}  {:>10}  {:>7}  {:>8}",
        "bot", "decisions", "mean cost", "total cost", "costly", "unsolved"
    );
    for (name, t) in rows {
        let _ = writeln!(
            s,
            "{name:<width$}  {:>9}  {:>10.4}  {:>10}  {:>7}  {:>8}",
            t.solved,
            mean(t),
            t.cost,
            t.costly,
            t.unsolved
        );
    }
    s
}

/// The record files at `path`: the file itself, or every game-*.jsonl below the folder.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    for entry in entries.flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            collect(&p, out)?;
        } else if name.starts_with("game-") && name.ends_with(".jsonl") {
            out.push(p);
        }
    }
    Ok(())
}
