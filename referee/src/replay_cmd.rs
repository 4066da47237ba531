//! `referee replay FILE [--html OUT] [--par]`: a record checked against the rules, then its
//! account printed or its viewer written, with each card's par when asked (`par.rs`).
//! (`--seat` without `--html` is `seat_replay/`.)

use crate::html;
use crate::par;
use crate::replay::{self, ReplayError};
use crate::text;
use std::path::PathBuf;

/// Which record to check, and what to make of it.
#[derive(Debug)]
pub(crate) struct ReplayConfig {
    pub(crate) file: PathBuf,
    /// Print nothing but errors.
    pub(crate) quiet: bool,
    /// Write this viewer instead of printing the account.
    pub(crate) html: Option<html::Page>,
    /// Print each card's par, searched with this node budget a position (spec/par.md).
    pub(crate) par: Option<u64>,
}

/// Checks the record at `path` against the rules, as `referee replay` does: its game number
/// when every line replays exactly, else why not (one line).
pub fn check_record(path: &std::path::Path) -> Result<u64, String> {
    replay::replay_file(path).map(|r| r.header.game).map_err(|e| e.to_string())
}

/// The HTML viewer of the record at `path` (the page `referee replay --html` writes: one
/// self-contained file), after checking the record as [`check_record`] does.
pub fn viewer_page(path: &std::path::Path) -> Result<String, String> {
    let r = replay::replay_file(path).map_err(|e| e.to_string())?;
    html::render(&r, path, None, None, None)
}

pub(crate) fn run(args: ReplayConfig) -> Result<(), String> {
    match replay::replay_file(&args.file) {
        Ok(r) => match &args.html {
            Some(page) => html::write(&r, &args.file, page, args.quiet, None),
            None => {
                if !args.quiet {
                    print!("{}", text::printable(&r.account));
                    println!(
                        "Record consistent with the rules: game {}, {} lines, {} faults, final score {}-{}",
                        r.header.game,
                        r.lines,
                        r.faults.len(),
                        r.score[0],
                        r.score[1]
                    );
                }
                if let Some(nodes) = args.par {
                    let analysed = par::analyse(&args.file, nodes)?;
                    print!("{}", text::printable(&par::account(&analysed)));
                }
                Ok(())
            }
        },
        Err(ReplayError::CutShort { lines, replay }) => match &args.html {
            Some(page) => html::write(&replay, &args.file, page, args.quiet, Some(lines)),
            None => {
                if !args.quiet {
                    print!("{}", text::printable(&replay.account));
                }
                Err(format!(
                    "{}: the record is cut short after line {lines} (no footer): the game did not finish or the referee was stopped",
                    args.file.display()
                ))
            }
        },
        Err(e @ ReplayError::Io(_)) => Err(e.to_string()),
        Err(e) => Err(format!("{}: {e}", args.file.display())),
    }
}
