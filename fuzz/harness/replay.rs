//! What the stable tests that replay a fuzz target's committed inputs share
//! (`protocol/tests/fuzz_regressions.rs`, `rules/tests/fuzz_regressions.rs`): reading a folder
//! of inputs under `fuzz/`, and running each through the target's harness.

use std::path::{Path, PathBuf};

/// The files of a folder under `fuzz/`, sorted; a missing folder has none. Names starting
/// with a dot (an editor's or a tool's) are not inputs.
pub(crate) fn inputs(sub: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.retain(|p| p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')));
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

/// Runs each input of `sub` through `check` (the `target` harness), naming the file of the
/// first that fails; how many there were.
pub(crate) fn replay(sub: &str, target: &str, check: fn(&[u8])) -> usize {
    let files = inputs(sub);
    for (path, data) in &files {
        if std::panic::catch_unwind(|| check(data)).is_err() {
            panic!("fuzz input {} fails the {target} harness", path.display());
        }
    }
    files.len()
}
