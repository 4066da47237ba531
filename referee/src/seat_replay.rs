//! `referee replay --seat`: scaffolding, replaced by the seat conversation replay.

pub(crate) fn run(_args: crate::cli::ReplayArgs) -> Result<(), String> {
    Err("--seat is not available yet".into())
}
