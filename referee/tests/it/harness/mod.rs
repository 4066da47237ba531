//! What the referee's integration tests share, in one place: the scratch folder of a test, the
//! time-limited referee run, the bot programs, record reading and /proc probes. The test files
//! were separate test crates once, and each kept its own copy of these; the copies drifted
//! apart. This is the one version, with the strongest behaviour of the copies: a hung referee is
//! killed and the test fails, a failing test's folder is kept for inspection and its bots are
//! killed, and a bot process that outlives the referee fails the test.

// Each module uses a different subset of these helpers.
#![allow(dead_code)]

mod bots;
mod browser;
mod procs;
mod record;
mod run;
mod suite;

pub(crate) use bots::*;
pub(crate) use browser::*;
pub(crate) use procs::*;
pub(crate) use record::*;
pub(crate) use run::*;
pub(crate) use suite::*;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The workspace root, where the sample bots live.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the referee crate sits in the workspace")
        .to_path_buf()
}

/// A path quoted for the referee's shell-like `--bot` splitting, so a checkout in a folder with
/// blanks still works.
pub(crate) fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// A path as `&str`, for an argument list.
pub(crate) fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Bytes as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Command-line words written as one string: `words("--seed 11 --games 2")`. For fixed words
/// only (paths may hold blanks: pass them on their own).
pub(crate) fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The arguments of `referee match`: `flags` (fixed words, in one string), the records folder,
/// and a `--bot` for each of `bots`.
pub(crate) fn match_args<'a>(flags: &'a str, records: &'a Path, bots: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["match"];
    args.extend(words(flags));
    args.extend(["--records", s(records)]);
    for bot in bots {
        args.extend(["--bot", bot]);
    }
    args
}

/// Names of the scratch folders made so far by this test process.
static CLAIMED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A fresh folder for one test under Cargo's scratch space, in a subfolder named after the test
/// module that asks for it. All tests share one process, and run in parallel, so a name may be
/// used once per module: a second use fails at once, whichever test comes second, instead of
/// two tests writing into one folder now and then. The folder is removed when the test passes
/// and kept when it fails, so the files of a failure can be read; the bot processes its `pids`
/// file lists are then killed, so that one failure does not load the machine for the tests that
/// follow.
#[derive(Debug)]
pub(crate) struct Scratch {
    dir: PathBuf,
    /// When it was made, in clock ticks since boot: a pid in its `pids` file that belongs to a
    /// process started earlier is not one of its bots.
    born: u64,
}

impl Scratch {
    #[track_caller]
    pub(crate) fn new(name: &str) -> Scratch {
        let file = Path::new(std::panic::Location::caller().file());
        let module = file.file_stem().and_then(|m| m.to_str()).unwrap_or("harness");
        let claim = format!("{module}/{name}");
        let fresh = CLAIMED.lock().unwrap_or_else(|e| e.into_inner()).insert(claim.clone());
        assert!(fresh, "the scratch folder {claim:?} is asked for twice: give each test its own");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(env!("CARGO_CRATE_NAME"))
            .join(module)
            .join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch folder");
        Scratch { dir, born: ticks_since_boot() }
    }

    /// The folder itself.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn join(&self, p: &str) -> PathBuf {
        self.dir.join(p)
    }

    /// Writes a file into the scratch folder and returns its path.
    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.join(name);
        std::fs::write(&p, text).expect("write a scratch file");
        p
    }

    /// Where the test bots that note their pids (and their children's) append them.
    pub(crate) fn pidfile(&self) -> PathBuf {
        self.join("pids")
    }

    /// The records folder of a match played in this folder.
    pub(crate) fn records(&self) -> PathBuf {
        self.join("records")
    }

    /// Record `game` (from 1) of that match.
    pub(crate) fn record(&self, game: u64) -> PathBuf {
        record_path(&self.records(), game)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The bots of a failed test may still run (they clear their parent-death signal,
            // and the referee may have been killed).
            for pid in pids_in(&self.pidfile()) {
                kill_if_started_since(pid, self.born);
            }
            eprintln!("kept {} for inspection", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
