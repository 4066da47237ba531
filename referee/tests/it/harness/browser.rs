//! Headless Chromium for the tests that drive pages (the HTML viewer, the web seat): where it
//! is, and the one line that says how to get it when it is not there. A test never installs
//! it; `.ci/run` provisions Debian's package.

use std::path::{Path, PathBuf};

/// The browser: `CHROMIUM` when set (scripts/test.sh passes it on), else where Debian's
/// `chromium` package puts it. The drivers in referee/browser read the same variable.
pub(crate) fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// Fails the test, in one line, when headless Chromium is missing: the test cannot run.
pub(crate) fn ensure_chromium() {
    if let Err(line) = chromium_at(&chromium()) {
        panic!("{line}");
    }
}

/// What is wrong with running Chromium from `path`, in one line.
pub(crate) fn chromium_at(path: &Path) -> Result<(), String> {
    match path.exists() {
        true => Ok(()),
        false => Err(format!(
            "{} is missing: install Debian's chromium package (.ci/run installs it)",
            path.display()
        )),
    }
}
