//! Splits a bot command line into words the way a POSIX shell would, without running a shell,
//! so `--bot "python3 my bot.py --level 2"` means the same here as at a prompt.

/// Why a command line could not be split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SplitError {
    /// A quote was opened and never closed.
    UnclosedQuote(char),
    /// A backslash ended the line.
    TrailingBackslash,
    /// No words at all.
    Empty,
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::UnclosedQuote(q) => write!(f, "unclosed {q} quote"),
            SplitError::TrailingBackslash => f.write_str("a backslash ends the command"),
            SplitError::Empty => f.write_str("empty command"),
        }
    }
}

/// Splits `line` into words: blanks separate words; single quotes keep everything literally;
/// double quotes keep blanks and allow `\"`, `\\`, `\$` and `` \` `` escapes; a backslash outside
/// quotes escapes the next character. No variables, globs or other expansions.
pub(crate) fn split(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err(SplitError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => word.push(ch),
                            Some(ch) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err(SplitError::UnclosedQuote('"')),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err(SplitError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(ch) => word.push(ch),
                    None => return Err(SplitError::TrailingBackslash),
                }
            }
            ch => {
                in_word = true;
                word.push(ch);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() { Err(SplitError::Empty) } else { Ok(words) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        let ok = |s: &str| split(s).unwrap();
        assert_eq!(ok("python3 bot.py"), ["python3", "bot.py"]);
        assert_eq!(ok("  a   b\tc "), ["a", "b", "c"]);
        assert_eq!(ok("node 'my bot.js' --x"), ["node", "my bot.js", "--x"]);
        assert_eq!(ok(r#"a "b \"c\" $d" e\ f"#), ["a", r#"b "c" $d"#, "e f"]);
        assert_eq!(ok(r#"a '' "" b"#), ["a", "", "", "b"]);
        assert_eq!(ok(r"it\'s\ ok"), ["it's ok"]);
        assert_eq!(split("a 'b"), Err(SplitError::UnclosedQuote('\'')));
        assert_eq!(split("a \"b"), Err(SplitError::UnclosedQuote('"')));
        assert_eq!(split("a\\"), Err(SplitError::TrailingBackslash));
        assert_eq!(split("   "), Err(SplitError::Empty));
        assert_eq!(ok("echo $HOME *"), ["echo", "$HOME", "*"]);
    }
}
