//! `referee replay FILE [--html OUT]`: a record checked against the rules, then its account
//! printed or its viewer written. (`--seat` without `--html` is `seat_replay/`.)

use crate::html;
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
