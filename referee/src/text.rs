//! The one room where text that a bot, a network peer or a record file controls is made safe
//! to show a person: a terminal, a log file or a page must never receive a control character
//! from a stranger, so every such text the referee prints or logs passes through here.
//!
//! "Unsafe" means anything a terminal or a text viewer acts on instead of showing: the C0 and C1
//! control ranges and DEL (cursor moves, screen clears, title and clipboard escapes, bells,
//! carriage returns that overwrite a line, newlines that forge one), the Unicode line and
//! paragraph separators, and the bidirectional controls that reorder what is displayed (the
//! "trojan source" characters). Each is shown as `\u{XX}`, so nothing is lost and nothing acts.

use std::borrow::Cow;
use std::fmt;

/// True for a character a terminal, a log viewer or an editor would act on rather than show.
pub(crate) fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Line and paragraph separators: a line break to many viewers.
        | '\u{2028}' | '\u{2029}'
        // Bidirectional marks, embeddings, overrides and isolates.
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The first unsafe character of `s`, for refusing a text outright (a bot's name).
pub(crate) fn first_unsafe(s: &str) -> Option<char> {
    s.chars().find(|&c| is_unsafe(c))
}

/// `s` with every unsafe character written as `\u{XX}`; borrowed when there is none, which is
/// the common case, so the hot paths pay one scan.
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
    if first_unsafe(s).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Bytes that may not be UTF-8 (a raw line as a bot sent it): an invalid sequence is shown as
/// `\xNN`, and the rest escaped as by [`escape`].
pub(crate) fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Shows an untrusted text through [`escape`]: `format!("{}", Shown(&name))`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shown<'a>(pub(crate) &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(self.0))
    }
}

/// Text the referee is about to print whole (an account, an error): its own line breaks stay,
/// every other unsafe character is escaped. The last wall, behind the per-field escaping: a
/// field someone forgets to wrap in [`Shown`] still cannot move the cursor or clear the screen.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.split('\n').map(escape).collect::<Vec<_>>().join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_of_control_is_escaped() {
        let evil = "\u{1b}[2J\u{1b}[H\u{1b}[31mPWNED\u{1b}[0m\r\nGame 9: fake\u{7}\u{0}\u{7f}\u{9b}\u{85}\u{2028}\u{2029}\u{202e}\u{2066}";
        let shown = escape(evil);
        assert!(shown.chars().all(|c| !is_unsafe(c)), "{shown}");
        assert_eq!(
            shown,
            "\\u{1b}[2J\\u{1b}[H\\u{1b}[31mPWNED\\u{1b}[0m\\u{d}\\u{a}Game 9: fake\\u{7}\\u{0}\\u{7f}\\u{9b}\\u{85}\\u{2028}\\u{2029}\\u{202e}\\u{2066}"
        );
        assert_eq!(first_unsafe("a\tb"), Some('\t'));
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for s in ["heuristic-bot", "Zoë's bot ♠ 1.0", "日本語", "emoji 👍🏽 with ZWJ 👩‍💻", ""]
        {
            assert!(matches!(escape(s), Cow::Borrowed(b) if b == s), "{s}");
            assert!(first_unsafe(s).is_none());
        }
    }

    #[test]
    fn bytes_keep_every_invalid_byte_visible() {
        assert_eq!(
            escape_bytes(b"ok \xff\xfe \x1b[0m \xe2\x80\xa8"),
            "ok \\xff\\xfe \\u{1b}[0m \\u{2028}"
        );
    }

    #[test]
    fn printable_keeps_the_referees_own_line_breaks() {
        assert_eq!(printable("a\nb\n"), "a\nb\n");
        assert_eq!(printable("a\u{1b}]52;c;AAAA\u{7}\nb\r"), "a\\u{1b}]52;c;AAAA\\u{7}\nb\\u{d}");
    }
}
