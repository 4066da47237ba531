//! Writing and reading record files: whole lines only, never overwriting, so a crash leaves a
//! record that is cut short but never torn inside a line.

use protocol::record::RecordLine;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Collects a game's record lines and writes them in batches of complete lines.
#[derive(Debug)]
pub(crate) struct Recorder {
    file: Option<File>,
    path: Option<PathBuf>,
    buf: Vec<u8>,
    error: Option<String>,
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
        })
    }

    /// The record file, if any.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Adds one line.
    pub(crate) fn line(&mut self, line: &RecordLine) {
        if self.file.is_some() {
            line.encode_into(&mut self.buf);
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
