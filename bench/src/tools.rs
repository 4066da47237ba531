//! Small helpers of the bench's main flow: the real Python interpreter, the engine's own
//! benchmark run and read, and a word quoted for the referee's `--bot` splitter.

use crate::{Res, sys};
use std::path::PathBuf;
use std::process::Stdio;

/// The real interpreter behind `python` (a pyenv shim costs ~60 ms per start), asked once.
pub(crate) fn resolve_python(python: &str) -> Result<String, String> {
    let out = sys::command(python)
        .args(["-c", "import sys; print(sys.executable)"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{python}: {e}"))?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || path.is_empty() {
        return Err(format!("{python} did not tell its executable"));
    }
    Ok(path)
}

/// Runs the rules crate's `deals` benchmark and reads its `... N deals/s` lines.
pub(crate) fn engine(bin: &PathBuf, quick: bool) -> Res<Vec<(String, f64)>> {
    let mut cmd = sys::command(bin);
    // The benchmark takes a numeric argument as its number of deals; its default (3 million)
    // runs for half a minute here, 300 thousand for 2-3 s, which is enough for a best of 3.
    cmd.arg("--bench").arg(if quick { "50000" } else { "300000" }).stdin(Stdio::null());
    let out = cmd.output().map_err(|e| format!("{}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed: {}", bin.display(), out.status).into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<(String, f64)> = text
        .lines()
        .filter_map(|line| {
            let (label, rest) = line.split_once(':')?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "deals/s")?;
            let label =
                label.trim_start_matches("engine,").trim().trim_end_matches(',').to_string();
            Some((
                label.split_whitespace().collect::<Vec<_>>().join(" ").replace(" ,", ","),
                words.get(at.checked_sub(1)?)?.parse().ok()?,
            ))
        })
        .collect();
    if rows.is_empty() {
        return Err(format!("{} printed no `deals/s` figure", bin.display()).into());
    }
    Ok(rows)
}

/// A word for the referee's `--bot` splitter (shell-like, never run by a shell): quoted when it
/// holds blanks or quotes.
pub(crate) fn shell_word(word: &str) -> String {
    if !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || "'\"\\$`".contains(c)) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_with_blanks_are_quoted() {
        assert_eq!(shell_word("/usr/bin/python3"), "/usr/bin/python3");
        assert_eq!(shell_word("/my dir/bot"), "'/my dir/bot'");
    }
}
