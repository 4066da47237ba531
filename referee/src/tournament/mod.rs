//! `referee tournament` and `referee standings`: scaffolding, replaced by the tournament runner.

use clap::Args;
use std::path::PathBuf;

/// Arguments of `referee tournament`.
#[derive(Debug, Args)]
pub(crate) struct TournamentArgs {
    /// The tournament config (TOML or JSON).
    pub(crate) config: PathBuf,
}

/// Arguments of `referee standings`.
#[derive(Debug, Args)]
pub(crate) struct StandingsArgs {
    /// Tournament output folders to merge.
    #[arg(required = true)]
    pub(crate) dirs: Vec<PathBuf>,
}

pub(crate) fn run(_args: TournamentArgs) -> Result<(), String> {
    Err("tournaments are not available yet".into())
}

pub(crate) fn standings(_args: StandingsArgs) -> Result<(), String> {
    Err("standings are not available yet".into())
}
