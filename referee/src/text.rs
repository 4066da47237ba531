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
        | '\u{2028}' | '\u{2029}')
        || is_bidi_control(c)
}

/// True for a bidirectional control (marks, embeddings, overrides, isolates): it reorders what
/// a viewer shows around it, the "trojan source" characters.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The first unsafe character of `s`, for refusing a text outright (a bot's name).
pub(crate) fn first_unsafe(s: &str) -> Option<char> {
    s.chars().find(|&c| is_unsafe(c))
}

/// True for a character that shows nothing by itself: white space, the format characters that
/// only steer other characters (zero-width spaces and joiners, the soft hyphen, the byte order
/// mark, tags), the blank letters (Hangul fillers, the braille blank) and the marks that only
/// combine with a character before them. A name made only of these looks empty, or like
/// somebody else's name with nothing added.
pub(crate) fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}'
            | '\u{8e2}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
            | '\u{2800}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}' | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}'
            // Combining marks.
            | '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// Refuses a text shown to people that holds a control character (bidirectional controls
/// included), naming the `field` and the character's code.
pub(crate) fn check_printable(field: &str, s: &str) -> Result<(), String> {
    match first_unsafe(s) {
        Some(c) => Err(format!(
            "the {field} holds the control character U+{:04X}; it must be printable text, with \
             no control character and no bidirectional control",
            c as u32
        )),
        None => Ok(()),
    }
}

/// The rule for every name the referee takes and shows people (a bot's hello, a tournament
/// entrant, a command line): at most `max` bytes, not one control character (bidirectional
/// controls included), and at least one character that shows. `field` names it in the refusal.
pub(crate) fn check_name(field: &str, s: &str, max: usize) -> Result<(), String> {
    check_printable(field, s)?;
    if s.len() > max {
        return Err(format!("the {field} is {} bytes long; at most {max}", s.len()));
    }
    if s.chars().all(is_invisible) {
        return Err(format!(
            "the {field} {:?} has no visible character (only spaces, joiners, fillers or marks)",
            escape(s)
        ));
    }
    Ok(())
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

    /// Names that look empty or hide a reordering are refused; names in any script, with
    /// emoji, accents or inner spaces, are taken.
    #[test]
    fn a_name_needs_a_visible_character_and_no_control() {
        for ok in
            ["heuristic-bot", "Zoë's bot ♠", "日本語", "a\u{200d}b", "e\u{301}", "👩\u{200d}💻"]
        {
            assert_eq!(check_name("name", ok, 64), Ok(()), "{ok:?}");
        }
        for blank in [
            "",
            "   ",
            "\u{200b}\u{200b}",
            "\u{3164}",
            "\u{2800}\u{feff}",
            "\u{301}",
            "\u{ad}\u{a0}",
        ] {
            let e = check_name("name", blank, 64).unwrap_err();
            assert!(e.contains("no visible character"), "{blank:?}: {e}");
        }
        let e = check_name("name", "bot\u{202e}gnp.exe", 64).unwrap_err();
        assert!(e.contains("U+202E"), "{e}");
        assert!(check_name("name", &"x".repeat(65), 64).unwrap_err().contains("65 bytes"));
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
