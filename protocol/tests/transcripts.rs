//! Keeps the golden transcripts in `spec/transcripts/` and the wire types in agreement: every
//! line a real referee and a real bot exchanged must decode strictly and re-encode to exactly the
//! same JSON, and the conversations must follow the order `spec/protocol.md` prescribes.
//!
//! `ToBot` decodes leniently by design (bots must ignore what they do not know), so a decode
//! alone would let a misspelled or unknown field through; the re-encode comparison is what
//! catches it.

use protocol::{FromBot, ToBot, decode_line, encode_line};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every `ToBot` variant a transcript must show. `error` is missing because well-behaved bots
/// get none, `unknown` because the referee never sends it, and `resume` because it opens a
/// second connection, which a transcript of one connection cannot hold (the web seat's unit
/// test in `referee/src/web/human.rs` shows it).
const TO_BOT_KINDS: &[&str] = &[
    "hello",
    "game",
    "deal",
    "opening",
    "vote",
    "chant",
    "discard",
    "play",
    "played",
    "trick",
    "deal_over",
    "game_over",
    "signal",
    "bye",
    "offer",
    "offered",
    "reply",
    "replied",
    "announce",
    "announced",
];

/// Every `FromBot` variant.
const FROM_BOT_KINDS: &[&str] =
    &["hello", "opening", "discard", "play", "offer", "reply", "announce"];

/// The name of a `ToBot` variant. An exhaustive match on purpose: a new variant does not
/// compile here until someone decides whether the transcripts must show it.
fn to_bot_kind(m: &ToBot) -> &'static str {
    match m {
        ToBot::Hello { .. } => "hello",
        ToBot::Game { .. } => "game",
        ToBot::Deal { .. } => "deal",
        ToBot::Opening { .. } => "opening",
        ToBot::Vote { .. } => "vote",
        ToBot::Chant { .. } => "chant",
        ToBot::Discard { .. } => "discard",
        ToBot::Play { .. } => "play",
        ToBot::Played { .. } => "played",
        ToBot::Trick { .. } => "trick",
        ToBot::DealOver { .. } => "deal_over",
        ToBot::GameOver { .. } => "game_over",
        ToBot::Signal { .. } => "signal",
        ToBot::Error { .. } => "error",
        ToBot::Bye { .. } => "bye",
        ToBot::Offer { .. } => "offer",
        ToBot::Reply { .. } => "reply",
        ToBot::Announce { .. } => "announce",
        ToBot::Offered { .. } => "offered",
        ToBot::Replied { .. } => "replied",
        ToBot::Announced { .. } => "announced",
        ToBot::Resume { .. } => "resume",
        ToBot::Unknown => "unknown",
    }
}

/// The same guard for `FromBot`.
fn from_bot_kind(m: &FromBot) -> &'static str {
    match m {
        FromBot::Hello { .. } => "hello",
        FromBot::Opening { .. } => "opening",
        FromBot::Discard { .. } => "discard",
        FromBot::Play { .. } => "play",
        FromBot::Offer { .. } => "offer",
        FromBot::Reply { .. } => "reply",
        FromBot::Announce { .. } => "announce",
    }
}

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/transcripts")
}

fn transcript_files() -> Vec<PathBuf> {
    let dir = transcripts_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts in {}", dir.display());
    files
}

/// One decoded transcript line.
#[derive(Debug)]
enum Line {
    To(ToBot),
    From(FromBot),
}

/// Which message kinds (and notable variants of them) the transcripts showed.
#[derive(Debug, Default)]
struct Coverage {
    to_bot: BTreeSet<&'static str>,
    from_bot: BTreeSet<&'static str>,
    /// Features of the game that a reader of the transcripts should be able to see.
    cases: BTreeSet<&'static str>,
}

/// Reads one transcript, checking every line's shape, strict decoding and exact re-encoding.
fn read_transcript(path: &Path) -> (u8, Vec<Line>) {
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut seat = None;
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let at = format!("{name}:{}", n + 1);
        let entry: Value =
            serde_json::from_str(raw).unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
        let obj = entry.as_object().unwrap_or_else(|| panic!("{at}: not an object"));
        let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(["seat", "dir", "msg"]), "{at}: keys");
        let s = obj["seat"].as_u64().filter(|s| *s < 4).unwrap_or_else(|| panic!("{at}: bad seat"));
        // A transcript is one seat's view of the conversation.
        assert_eq!(*seat.get_or_insert(s), s, "{at}: a transcript holds one seat");
        let msg = &obj["msg"];
        let msg_text = serde_json::to_string(msg).expect("a Value always serializes");
        let (line, reencoded) = match obj["dir"].as_str() {
            Some("to_bot") => {
                let m: ToBot = decode_line(msg_text.as_bytes())
                    .unwrap_or_else(|e| panic!("{at}: to_bot does not decode: {e}"));
                assert_ne!(m, ToBot::Unknown, "{at}: unknown message type");
                let again = encode_line(&m);
                // What the referee really writes: its hand-written encoder, byte for byte.
                let mut fast = Vec::new();
                m.encode_into(&mut fast);
                assert_eq!(String::from_utf8_lossy(&fast), again, "{at}: fast encoding differs");
                (Line::To(m), again)
            }
            Some("from_bot") => {
                let m: FromBot = decode_line(msg_text.as_bytes())
                    .unwrap_or_else(|e| panic!("{at}: from_bot does not decode: {e}"));
                let again = encode_line(&m);
                (Line::From(m), again)
            }
            other => panic!("{at}: dir is {other:?}, not to_bot or from_bot"),
        };
        // Compared as JSON values: key order and spacing are not part of the protocol, but
        // every field name and value is.
        let back: Value = serde_json::from_str(&reencoded).expect("encode_line writes JSON");
        assert_eq!(
            &back, msg,
            "{at}: re-encoding changes the message (unknown or misspelled field?)"
        );
        lines.push(line);
    }
    let seat = seat.unwrap_or_else(|| panic!("{name}: empty transcript"));
    (seat as u8, lines)
}

/// Checks the order of the conversation against `spec/protocol.md` sections 2 and 4, and notes
/// what it covered.
fn check_conversation(name: &str, seat: u8, lines: &[Line], cov: &mut Coverage) {
    let first_to = lines.iter().find_map(|l| if let Line::To(m) = l { Some(m) } else { None });
    assert!(
        matches!(first_to, Some(ToBot::Hello { id: 1, .. })),
        "{name}: the first message is not hello id 1"
    );
    let first_from = lines.iter().find_map(|l| if let Line::From(m) = l { Some(m) } else { None });
    assert!(
        matches!(first_from, Some(FromBot::Hello { .. })),
        "{name}: the first answer is not a hello answer"
    );
    let last_to = lines.iter().rev().find_map(|l| if let Line::To(m) = l { Some(m) } else { None });
    assert!(matches!(last_to, Some(ToBot::Bye { .. })), "{name}: the last message is not bye");

    // The question still open (its kind and id), and the id the next question must carry:
    // ids run 1, 2, 3, ... on one connection.
    let mut open: Option<(&'static str, u64)> = None;
    let mut next_id = 1;
    let mut votes_seen = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let at = format!("{name}: message {}", n + 1);
        match line {
            Line::To(m) => {
                let kind = to_bot_kind(m);
                cov.to_bot.insert(kind);
                if let Some(id) = m.id() {
                    assert_eq!(open, None, "{at}: a {kind} question while another is unanswered");
                    assert_eq!(id, next_id, "{at}: question ids are consecutive from 1");
                    next_id += 1;
                    open = Some((kind, id));
                }
                match m {
                    ToBot::Game { seat: s, partner, .. } => {
                        assert_eq!(*s, seat, "{at}: game names another seat");
                        assert_eq!(*partner, (seat + 2) % 4, "{at}: partner");
                    }
                    ToBot::Deal { .. } => votes_seen.clear(),
                    ToBot::Vote { seat: voter, accept } => {
                        votes_seen.push(protocol::msg::VoteCast { seat: *voter, accept: *accept })
                    }
                    ToBot::Opening { vote, votes, .. } => {
                        cov.cases.insert(if *vote {
                            "opening with vote"
                        } else {
                            "opening without vote"
                        });
                        // The votes listed are exactly those announced so far in this deal.
                        assert_eq!(votes, &votes_seen, "{at}: opening votes");
                    }
                    ToBot::Chant { taken: true } => {
                        cov.cases.insert("chant taken");
                    }
                    ToBot::Signal { from, .. } => {
                        // spec/protocol.md 4.8: the sender is not sent its own signal.
                        assert_ne!(*from, seat, "{at}: a seat was sent its own signal");
                    }
                    _ => {}
                }
            }
            Line::From(m) => {
                let kind = from_bot_kind(m);
                cov.from_bot.insert(kind);
                // Every answer echoes the type and id of the question asked last, once.
                assert_eq!(
                    open.take(),
                    Some((kind, m.id())),
                    "{at}: {kind} answer with id {}",
                    m.id()
                );
                if !m.signals().is_empty() {
                    cov.cases.insert("signals sent");
                }
            }
        }
    }
    assert_eq!(open, None, "{name}: the last question was never answered");
}

#[test]
fn transcripts_decode_strictly_and_follow_the_protocol() {
    let mut cov = Coverage::default();
    for path in transcript_files() {
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let (seat, lines) = read_transcript(&path);
        check_conversation(&name, seat, &lines, &mut cov);
    }
    let want: BTreeSet<&str> = TO_BOT_KINDS.iter().copied().collect();
    let missing: Vec<_> = want.difference(&cov.to_bot).collect();
    assert!(missing.is_empty(), "no transcript shows the referee messages {missing:?}");
    let want: BTreeSet<&str> = FROM_BOT_KINDS.iter().copied().collect();
    let missing: Vec<_> = want.difference(&cov.from_bot).collect();
    assert!(missing.is_empty(), "no transcript shows the bot messages {missing:?}");
    for case in ["opening with vote", "opening without vote", "chant taken", "signals sent"] {
        assert!(cov.cases.contains(case), "no transcript shows: {case}");
    }
}

/// The re-encode check itself must notice a misspelled field, or the test above proves little.
#[test]
fn reencoding_catches_a_misspelled_field() {
    let line = r#"{"type":"chant","taken":true,"takne":false}"#;
    let m: ToBot = decode_line(line.as_bytes()).expect("lenient decode");
    let back: Value = serde_json::from_str(&encode_line(&m)).expect("JSON");
    let orig: Value = serde_json::from_str(line).expect("JSON");
    assert_ne!(back, orig);
}
