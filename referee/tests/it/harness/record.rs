//! Reading what a run left behind: records, journals and JSON files, and the questions the tests
//! ask of a record (its faults, a seat's plays, the footer).

use super::{referee, s, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A JSON file as a value.
pub(crate) fn read_json(p: &Path) -> Value {
    let text =
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A JSONL file (a game record, a journal) as one value per line.
pub(crate) fn jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: {e}: {l}", path.display(), n + 1))
        })
        .collect()
}

/// Record `game` (from 1) of a records folder.
pub(crate) fn record_path(dir: &Path, game: u64) -> PathBuf {
    dir.join(format!("game-{game:06}.jsonl"))
}

/// The record files of a folder, in game order (none when the folder does not exist).
pub(crate) fn record_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("directory entry").path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("game-") && n.ends_with(".jsonl"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Insists that `referee replay --quiet RECORD` exits 0, showing its stderr otherwise.
pub(crate) fn assert_replays(record: &Path) {
    let out = referee(&["replay", "--quiet", s(record)]);
    assert!(out.status.success(), "{} does not replay: {}", record.display(), text(&out.stderr));
}

/// Checks that a record replays cleanly, starts with its header and ends with a complete
/// footer; returns its lines.
pub(crate) fn check_record(path: &Path) -> Record {
    assert_replays(path);
    let record = Record::read(path);
    let lines = record.record();
    assert_eq!(lines.first().map(|h| &h["type"]), Some(&"header".into()), "{}", path.display());
    let footer = record.footer();
    assert_eq!(
        (&footer["type"], &footer["status"]),
        (&"footer".into(), &"complete".into()),
        "{}: {footer}",
        path.display()
    );
    record
}

/// One game's record, as its lines.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) path: PathBuf,
    all: Vec<Value>,
}

/// A record reads as its lines.
impl std::ops::Deref for Record {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.all
    }
}

impl Record {
    pub(crate) fn read(path: &Path) -> Record {
        Record { path: path.to_path_buf(), all: jsonl(path) }
    }

    /// Every line, the header first.
    pub(crate) fn record(&self) -> &[Value] {
        &self.all
    }

    /// The lines of one type, in order.
    pub(crate) fn lines<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.all.iter().filter(move |l| l["type"] == kind)
    }

    pub(crate) fn faults(&self) -> Vec<&Value> {
        self.lines("fault").collect()
    }

    /// Checks that the record's faults are exactly `want`, in order, each as (seat, kind,
    /// penalty, strikes after it); returns them.
    pub(crate) fn assert_faults(&self, want: &[(u64, &str, &str, u64)]) -> Vec<&Value> {
        let faults = self.faults();
        assert_eq!(faults.len(), want.len(), "{faults:#?}");
        for (fault, &(seat, kind, penalty, strikes)) in faults.iter().zip(want) {
            assert_fault(fault, seat, kind, penalty, strikes);
        }
        faults
    }

    /// The `play` lines of a seat, in order.
    pub(crate) fn plays(&self, seat: u64) -> Vec<&Value> {
        self.lines("play").filter(|l| l["seat"] == seat).collect()
    }

    pub(crate) fn header(&self) -> &Value {
        &self.all[0]
    }

    /// The last line, which a finished game's footer is.
    pub(crate) fn footer(&self) -> &Value {
        self.all.last().expect("a record has lines")
    }

    /// Seat `seat`'s statistics in the footer.
    pub(crate) fn stats(&self, seat: usize) -> &Value {
        &self.footer()["stats"][seat]
    }
}

/// True for an action line the referee chose for the bot (the fallback).
pub(crate) fn auto(line: &Value) -> bool {
    line["auto"] == true
}

pub(crate) fn assert_fault(fault: &Value, seat: u64, kind: &str, penalty: &str, strikes: u64) {
    assert_eq!(
        (&fault["seat"], &fault["kind"], &fault["penalty"], &fault["strikes"]),
        (&Value::from(seat), &Value::from(kind), &Value::from(penalty), &Value::from(strikes)),
        "{fault}"
    );
}

/// A fault's text for people.
pub(crate) fn detail(fault: &Value) -> &str {
    fault["detail"].as_str().unwrap_or_default()
}

/// What player `p` received, as the test bots that echo every line they read to their stderr
/// (misbehave.py, signaller.py) left it in the referee's log of them; a line cut short by a kill
/// is skipped.
pub(crate) fn received(records: &Path, p: usize) -> Vec<Value> {
    let log =
        std::fs::read_to_string(records.join(format!("player{p}.stderr.log"))).unwrap_or_default();
    log.lines().filter_map(|l| serde_json::from_str(l.strip_prefix("< ")?).ok()).collect()
}
