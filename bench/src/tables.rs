//! Many tables in one referee: `referee tournament` with instant bots and a given number of
//! tables playing at once, to read the referee's peak memory as the tables grow (the issue asks
//! for 1, 16 and 64) and the games per second they reach together.

use crate::referee;
use crate::sys;
use serde_json::{Value, json};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What one tournament run did and cost.
#[derive(Debug)]
pub(crate) struct TablesRun {
    pub(crate) tables: usize,
    /// Games the journal settled as played.
    pub(crate) games: u64,
    pub(crate) faults: u64,
    /// From spawning the referee to its exit: the start of every table's bots included.
    pub(crate) wall: Duration,
    pub(crate) peak_rss_kib: Option<u64>,
}

/// A scratch folder for one tournament, removed when dropped (also after a failure).
#[derive(Debug)]
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Plays `games` games of a round robin between two entrants that are both `bot`, on `tables`
/// tables at once, and reads the referee's peak memory.
///
/// Round robin, because a duplicate table runs a set of bots per room (twice the processes);
/// two entrants, because that is one pairing whose games any table may take.
pub(crate) fn run(
    referee: &Path,
    bot: &str,
    tables: usize,
    games: u64,
    seed: u64,
    pin: bool,
) -> io::Result<TablesRun> {
    let dir =
        std::env::temp_dir().join(format!("aluette-bench-{}-{tables}-tables", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    let scratch = Scratch(dir);
    let config = scratch.0.join("tournament.json");
    let out = scratch.0.join("out");
    // JSON rather than TOML: serde_json quotes the bot's command line, whatever its path holds.
    let doc = json!({
        "seed": seed,
        "format": "round-robin",
        "games": games,
        "concurrency": tables,
        "entrants": [
            {"name": "instant-a", "command": bot},
            {"name": "instant-b", "command": bot},
        ],
    });
    std::fs::write(&config, doc.to_string())
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", config.display())))?;
    let mut cmd = sys::command(referee);
    cmd.arg("tournament").arg(&config).arg("--out").arg(&out);
    if !pin {
        cmd.arg("--no-pin");
    }
    let finished = referee::spawn(cmd, None, referee)?
        .finish()
        .map_err(|e| io::Error::new(e.kind(), format!("tournament on {tables} tables: {e}")))?;
    let journal = out.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", journal.display())))?;
    let (played, faults) = count_journal(&text)?;
    Ok(TablesRun {
        tables,
        games: played,
        faults,
        wall: finished.wall,
        peak_rss_kib: finished.peak_rss_kib,
    })
}

/// Games played and faults (every class, both entrants) in a tournament journal.
fn count_journal(text: &str) -> io::Result<(u64, u64)> {
    let (mut played, mut faults) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let entry: Value = serde_json::from_str(line).map_err(|e| {
            io::Error::new(io::ErrorKind::InvalidData, format!("tournament journal: {e}"))
        })?;
        played += u64::from(entry.get("status").and_then(Value::as_str) == Some("played"));
        for side in entry.get("faults").and_then(Value::as_array).into_iter().flatten() {
            for class in ["timeouts", "crashes", "illegal", "protocol"] {
                faults += side.get(class).and_then(Value::as_u64).unwrap_or(0);
            }
        }
    }
    Ok((played, faults))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_journal() {
        let text = r#"{"game":1,"status":"played","faults":[{"timeouts":1,"crashes":0,"illegal":2,"protocol":0,"strikes":3},{}]}
{"game":2,"status":"not_played","faults":[{},{"protocol":4}]}
"#;
        assert_eq!(count_journal(text).unwrap(), (1, 7));
    }
}
