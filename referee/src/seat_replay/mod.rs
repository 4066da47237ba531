//! `referee replay FILE --seat S [--bot CMD [--until DEAL[.TRICK]]]`: one seat's conversation,
//! re-derived from a record, and a real bot re-driven with it.
//!
//! A record stores facts (decks, answers as received, think times, faults), not the bytes each
//! bot was sent. Rather than re-implement how the referee talks, the recorded game is played
//! again through the real
//! [`run_game_with_decks`](crate::game_runner::run_game_with_decks), with the record's own
//! decks, against four in-memory playback bots that send what the record says each seat sent,
//! on tokio's paused clock: the very same code produces the very same bytes, and every answer
//! arrives after exactly its recorded think time, so the banks and `bank_ms` of later questions
//! come out the same too. The re-run writes no record, but its result and statistics must equal
//! the record's footer: a re-run that drifts from the record is an error, never a silently
//! wrong conversation.
//!
//! With `--bot`, the seat's re-derived conversation is fed to a real bot program (started by
//! the process module, like any bot), and each of its answers is compared with the recorded
//! one; the recorded conversation goes on whatever the bot says, so the rest of the game stays
//! the recorded one. `--until` stops before one question, leaving the bot running for a
//! debugger.
//!
//! The rooms: `record.rs` the record as loaded and checked; `script.rs` what each seat sent,
//! read out of it question by question; `rerun.rs` the game played again and the captured
//! seat's bytes; `playback.rs` the playback bots; `redrive.rs` a real bot fed the conversation.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A line on stdout; a reader that went away (`| head`) is no reason to stop a re-drive half
/// way and leave the bot behind.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // What is said quotes bot lines and names: its own line breaks stay, nothing acts.
        let _ = writeln!(std::io::stdout(), "{}", crate::text::printable(&format!($($arg)*)));
    }};
}

mod follow;
mod live;
mod playback;
mod record;
mod redrive;
mod rerun;
mod script;
mod tape;
#[cfg(test)]
mod tests;

pub(crate) use follow::{Sink, follow};
pub(crate) use live::Live;
pub(crate) use record::{End, Recorded};
use redrive::redrive;
pub(crate) use redrive::{Until, bot_command};
pub(crate) use rerun::Conversation;
use rerun::rerun;
pub(crate) use tape::Dir;

/// Room in each in-memory connection: far more than one batch of notices and a question, so
/// the referee never waits on a playback bot's reading.
const PIPE_BYTES: usize = 1 << 20;
/// Time a re-driven bot gets beyond the question's own limit: people debug.
const MARGIN: Duration = Duration::from_secs(10);

/// Whose conversation `replay --seat` shows, from which record, and which bot it re-drives.
#[derive(Debug)]
pub(crate) struct SeatReplayConfig {
    pub(crate) file: PathBuf,
    /// 0 to 3.
    pub(crate) seat: usize,
    /// The program to re-drive (`--bot`), as its argv.
    pub(crate) bot: Option<Vec<String>>,
    pub(crate) until: Option<Until>,
}

pub(crate) fn run(args: SeatReplayConfig) -> Result<(), String> {
    let SeatReplayConfig { file, seat, bot: argv, until } = args;
    let (game, conv) = rederive(&file, seat)?;
    let name = crate::text::Shown(&game.header.seats[seat].name);
    match argv {
        None => {
            print_conversation(&conv);
            eprintln!(
                "seat {seat} ({name}), game {}: {} lines re-derived from the record{}{}",
                game.header.game,
                conv.lines.len(),
                game.end.note(),
                conv.note
            );
            Ok(())
        }
        Some(argv) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            rt.block_on(redrive(&game, seat, &conv, argv, until))
        }
    }
}

/// Seat `seat`'s conversation in the recorded game at `path`, re-derived by playing the game
/// again on a paused clock, with the record it comes from: what `replay --seat` prints, and
/// what a seat's page (`html`) is built from.
pub(crate) fn rederive(path: &Path, seat: usize) -> Result<(Recorded, Conversation), String> {
    rerun_paused(Recorded::load(path)?, seat, &path.display().to_string())
}

/// [`rederive`] for a record held in memory: the live spectator's seat view (`web`) of a game
/// as far as it has been played, named `shown` in errors.
pub(crate) fn rederive_text(
    text: &str,
    seat: usize,
    shown: &str,
) -> Result<(Recorded, Conversation), String> {
    rerun_paused(Recorded::from_text(text, shown)?, seat, shown)
}

fn rerun_paused(
    game: Recorded,
    seat: usize,
    shown: &str,
) -> Result<(Recorded, Conversation), String> {
    let paused = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let conv = paused.block_on(rerun(&game, seat)).map_err(|e| format!("{shown}: {e}"))?;
    Ok((game, conv))
}

fn print_conversation(conv: &Conversation) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    for l in &conv.lines {
        let _ = writeln!(
            out,
            "{:>10.3}  {}  {}",
            l.at.as_secs_f64(),
            l.dir.marker(),
            crate::text::escape_bytes(&l.text)
        );
    }
    let _ = out.flush();
}
