//! Headless Chromium for the tests that drive pages (the HTML viewer, the web seat): where it
//! is, and the one line that says how to get it when it is not there. A test never installs
//! it; `.ci/run` provisions Debian's package.

use std::path::Path;

/// Debian's `chromium` package puts the browser here.
pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";

/// Fails the test, in one line, when headless Chromium is missing: the test cannot run.
pub(crate) fn ensure_chromium() {
    if let Err(line) = chromium_at(Path::new(CHROMIUM)) {
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
