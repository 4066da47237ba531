//! `referee replay --html`: scaffolding, replaced by the viewer.

pub(crate) fn write(
    _replay: &crate::replay::Replay,
    _args: &crate::cli::ReplayArgs,
) -> Result<(), String> {
    Err("--html is not available yet".into())
}
