//! `referee check-bot`: scaffolding, replaced by the conformance checker.

use clap::Args;

/// Arguments of `referee check-bot`.
#[derive(Debug, Args)]
pub(crate) struct CheckBotArgs {
    /// The bot's command line.
    pub(crate) command: String,
}

pub(crate) async fn run(_args: CheckBotArgs) -> Result<(), String> {
    Err("check-bot is not available yet".into())
}
