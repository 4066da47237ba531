//! Writing and reading record files: whole lines only, never overwriting, so a crash leaves a
//! record that is cut short but never torn inside a line; and one referee per records folder.

use protocol::record::RecordLine;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file of a folder a referee writes into (a `match` records folder, a tournament's
/// output folder). It holds the pid of the referee that holds it.
pub(crate) const LOCK_FILE: &str = "referee.lock";

/// Collects a game's record lines and writes them in batches of complete lines.
#[derive(Debug)]
pub(crate) struct Recorder {
    file: Option<File>,
    path: Option<PathBuf>,
    buf: Vec<u8>,
    error: Option<String>,
    tap: Option<Tap>,
}

/// Who also hears each record line as it is added (a live spectator's feed), before the lines
/// reach the file at the next checkpoint.
#[derive(Clone)]
pub(crate) struct Tap(pub(crate) std::sync::Arc<TapFn>);

/// What a [`Tap`] calls with each line.
pub(crate) type TapFn = dyn Fn(&[u8]) + Send + Sync;

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

impl Recorder {
    /// A recorder writing to a new file at `path` (an existing file is never replaced), or
    /// keeping nothing when `path` is `None`.
    pub(crate) fn create(path: Option<&Path>) -> io::Result<Recorder> {
        let file = match path {
            Some(p) => {
                Some(OpenOptions::new().write(true).create_new(true).open(p).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot create record {}: {e}", p.display()))
                })?)
            }
            None => None,
        };
        Ok(Recorder {
            file,
            path: path.map(Path::to_path_buf),
            buf: Vec::with_capacity(64 * 1024),
            error: None,
            tap: None,
        })
    }

    /// Hands every line added from now on to `tap` too (one whole line, `\n` included).
    pub(crate) fn set_tap(&mut self, tap: Tap) {
        self.tap = Some(tap);
    }

    /// The record file, if any.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether lines added are kept or heard at all: a line that costs something to build is
    /// built only then (`--no-records`, the benchmarks, keep none).
    pub(crate) fn keeps(&self) -> bool {
        self.file.is_some() || self.tap.is_some()
    }

    /// Adds one line.
    pub(crate) fn line(&mut self, line: &RecordLine) {
        if self.keeps() {
            let start = self.buf.len();
            line.encode_into(&mut self.buf);
            if let Some(Tap(tap)) = &self.tap {
                tap(&self.buf[start..]);
            }
            if self.file.is_none() {
                self.buf.truncate(start);
            }
        }
    }

    /// Writes the lines collected so far in one write call, so a kill between calls leaves only
    /// whole lines. Called at the end of each deal, after faults and at the end of the game.
    pub(crate) fn checkpoint(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        if let Some(f) = self.file.as_mut()
            && let Err(e) = f.write_all(&self.buf)
        {
            let path = self.path.as_deref().unwrap_or(Path::new("?")).display().to_string();
            self.error.get_or_insert(format!("writing record {path}: {e}"));
            self.file = None;
        }
        self.buf.clear();
    }

    /// The first write error, if any: the referee's own failure, reported at the end.
    pub(crate) fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

/// The file name of game `n` (1-based) in a records folder.
pub(crate) fn game_file_name(n: u64) -> String {
    format!("game-{n:06}.jsonl")
}

/// Prepares a records folder: creates it, and refuses one that already holds records, so
/// nothing written before is ever lost.
pub(crate) fn prepare_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create records folder {}: {e}", dir.display()))?;
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read records folder {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("game-") && name.ends_with(".jsonl") {
            return Err(format!(
                "records folder {} already holds records ({name}); choose another --records folder or remove them",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// A folder held by this referee: while it lives, no other referee can take the folder. The
/// lock is the kernel's (`flock` on [`LOCK_FILE`]), tied to the open file, so it goes with the
/// process however the process ends (a `kill -9` included) and never needs cleaning up.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

/// Takes `dir` for this referee, creating it if needed, before anything is written into it. A
/// folder another referee holds is refused at once with one line naming that referee's pid:
/// two referees on one folder would interleave their games and journal lines.
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    // Opened without truncating: a referee that is refused must not erase the holder's pid.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            // The holder writes its pid just after taking the lock; a refusal in between
            // finds the file empty.
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!("pid {pid}"),
                Err(_) => "its pid is not written yet".into(),
            };
            return Err(format!(
                "{} is in use by another referee ({holder}); wait for it to end, or stop it first",
                dir.display()
            ));
        }
        Err(TryLockError::Error(e)) => {
            return Err(format!("cannot lock {}: {e}", path.display()));
        }
    }
    let pid = format!("{}\n", std::process::id());
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(pid.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(DirLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locked_folder_is_refused_with_the_holders_pid_and_freed_on_drop() {
        let dir = std::env::temp_dir().join(format!("lock-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = lock_dir(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert_eq!(text, format!("{}\n", std::process::id()));
        // A second open file description conflicts with the first, even in the same process.
        let e = lock_dir(&dir).unwrap_err();
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(!e.contains('\n'), "{e}");
        drop(held);
        let again = lock_dir(&dir).unwrap();
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
