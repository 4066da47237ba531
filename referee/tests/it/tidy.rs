//! Tidy checks of the tree itself, as rust-analyzer's tidy does: every source file says why it
//! exists in its first lines, and the message tables of spec/protocol.md and the code agree.
//!
//! The tables are held to the code through the protocol crate's own types, not by reading its
//! source: every example message of the spec and of `spec/transcripts/` is decoded (answers
//! strictly, as the referee reads them) and encoded again, and the fields that come out are the
//! code's fields of that message. So the check does not care how the crate declares its types.

use crate::harness::root;
use protocol::{FromBot, ToBot, decode_line, encode_line};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---- Every file says why it exists ---------------------------------------------------------

/// Folders no source of ours is in: build output, version control, caches, run output.
const NOT_SOURCE: &[&str] =
    &["target", "node_modules", "__pycache__", "out", "records", "tournaments", "artifacts"];

/// The files below `dir` whose name ends in `.ext`, skipping [`NOT_SOURCE`] and hidden folders.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if !name.starts_with('.') && !NOT_SOURCE.contains(&name) {
                files(&path, ext, out);
            }
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// A check of a file's text: what is wrong with it, if anything.
type Check = fn(&str) -> Result<(), String>;

/// A Rust file starts with a `//!` line that says something.
fn rust_doc(text: &str) -> Result<(), String> {
    let first = text.lines().next().unwrap_or_default();
    match first.strip_prefix("//!") {
        Some(rest) if !rest.trim().is_empty() => Ok(()),
        _ => {
            Err(format!("the first line is not a `//!` line saying why the file exists: {first:?}"))
        }
    }
}

/// The lines after a shebang line and blank lines.
fn after_shebang(text: &str) -> impl Iterator<Item = &str> {
    let mut lines = text.lines().peekable();
    if lines.peek().is_some_and(|l| l.starts_with("#!")) {
        lines.next();
    }
    lines.skip_while(|l| l.trim().is_empty())
}

/// A Python file's first statement is its module docstring, and it says something.
fn python_doc(text: &str) -> Result<(), String> {
    let first = after_shebang(text).find(|l| !l.starts_with('#')).unwrap_or_default();
    let body = first.trim_start_matches(['r', 'R']);
    let quote = ["\"\"\"", "'''"].into_iter().find(|q| body.starts_with(q));
    match quote {
        Some(q) if !body[q.len()..].trim().is_empty() => Ok(()),
        _ => Err(format!("no module docstring opens the file: {first:?}")),
    }
}

/// A JavaScript file opens with a comment that says something.
fn javascript_doc(text: &str) -> Result<(), String> {
    let first = after_shebang(text).next().unwrap_or_default();
    let said = first.strip_prefix("//").or_else(|| first.strip_prefix("/*"));
    match said {
        Some(rest) if !rest.trim().is_empty() => Ok(()),
        _ => Err(format!("no comment opens the file: {first:?}")),
    }
}

#[test]
fn the_doc_checks_catch_a_file_that_does_not_say_why_it_exists() {
    assert!(rust_doc("//! Why.\nfn main() {}\n").is_ok());
    for bad in ["fn main() {}\n", "// Why.\n", "//!\n//! Why.\n", "#![allow(x)]\n//! Why.\n", ""] {
        assert!(rust_doc(bad).is_err(), "{bad:?}");
    }
    assert!(python_doc("#!/usr/bin/env python3\n\"\"\"Why.\n\"\"\"\nimport sys\n").is_ok());
    assert!(python_doc("# coding: utf-8\n'''Why.'''\n").is_ok());
    for bad in ["import sys\n\"\"\"Why.\"\"\"\n", "#!/usr/bin/env python3\n# Why.\nx = 1\n", ""] {
        assert!(python_doc(bad).is_err(), "{bad:?}");
    }
    assert!(javascript_doc("#!/usr/bin/env node\n// Why.\n").is_ok());
    assert!(javascript_doc("/* Why. */\n").is_ok());
    for bad in ["\"use strict\";\n// Why.\n", "//\n", ""] {
        assert!(javascript_doc(bad).is_err(), "{bad:?}");
    }
}

/// The longest a source file may be: past it, a file holds more than one concern and is split
/// along them (issue 25). Tests are not held to it: a test file is a list of cases.
const MAX_SOURCE_LINES: usize = 700;

/// A test file: under a `tests` folder, or a `tests.rs` / `*_tests.rs` module.
fn is_test_file(root: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    rel.components().any(|c| c.as_os_str() == "tests")
        || stem == "tests"
        || stem.ends_with("_tests")
}

#[test]
fn no_source_file_is_longer_than_700_lines() {
    let root = root();
    let mut rust = Vec::new();
    files(&root, "rs", &mut rust);
    let sources: Vec<&PathBuf> = rust.iter().filter(|p| !is_test_file(&root, p)).collect();
    assert!(sources.len() > 100, "only {} source files found", sources.len());
    let long: Vec<String> = sources
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
            let shown = p.strip_prefix(&root).unwrap_or(p).display();
            (n > MAX_SOURCE_LINES).then(|| format!("{shown}: {n} lines"))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_SOURCE_LINES} lines, split along their concerns: {long:?}");
    assert!(is_test_file(&root, &root.join("referee/src/replay/tests.rs")));
    assert!(is_test_file(&root, &root.join("referee/src/leak_tests.rs")));
    assert!(!is_test_file(&root, &root.join("referee/src/bot/mod.rs")));
}

#[test]
fn every_source_file_says_why_it_exists() {
    let root = root();
    let mut checked: Vec<(PathBuf, Check)> = Vec::new();
    let mut rust = Vec::new();
    files(&root, "rs", &mut rust);
    checked.extend(rust.into_iter().map(|p| (p, rust_doc as Check)));
    for dir in ["sample-bots", "referee/tests", "python"] {
        let (mut py, mut js) = (Vec::new(), Vec::new());
        files(&root.join(dir), "py", &mut py);
        files(&root.join(dir), "js", &mut js);
        checked.extend(py.into_iter().map(|p| (p, python_doc as Check)));
        checked.extend(js.into_iter().map(|p| (p, javascript_doc as Check)));
    }
    // The tree has far more files than this: a walk that found few went wrong.
    assert!(
        checked.len() > 100,
        "only {} source files found under {}",
        checked.len(),
        root.display()
    );
    let failures: Vec<String> = checked
        .iter()
        .filter_map(|(path, check)| {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let shown = path.strip_prefix(&root).unwrap_or(path).display().to_string();
            check(&text).err().map(|e| format!("{shown}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "files that do not say why they exist:\n{}", failures.join("\n"));
}

// ---- The message tables of spec/protocol.md are the code's messages -------------------------

/// Which way a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dir {
    ToBot,
    FromBot,
}

/// A message: its `type` and its direction (a question and its answer share their type).
type Message = (String, Dir);

/// A message's fields as a table gives them: name, and whether it may be absent.
type Fields = BTreeMap<String, bool>;

/// The backticked names of a table cell: "`id`, `author`?, `accept` (when asked)" gives `id`,
/// `author` (optional) and `accept` (optional: it comes with a condition).
fn cell_fields(cell: &str) -> Fields {
    let mut out = Fields::new();
    for item in cell.split(", ") {
        let item = item.trim();
        let Some(rest) = item.strip_prefix('`') else { continue };
        let Some((name, after)) = rest.split_once('`') else { continue };
        out.insert(name.to_string(), !after.trim().is_empty());
    }
    out
}

/// The cells of a Markdown table row, trimmed; `None` for a line that is no row.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// The tables of protocol.md that describe messages.
#[derive(Debug, Default)]
struct Tables {
    /// The table of all messages (section 4.10): every message and all its fields.
    all: BTreeMap<Message, Fields>,
    /// Each `| field | type | meaning |` table, with the line it starts on and the message types
    /// its section's heading names.
    sections: Vec<(usize, Vec<String>, Fields)>,
}

fn parse_tables(spec: &str) -> Tables {
    let mut tables = Tables::default();
    let mut heading_types: Vec<String> = Vec::new();
    let lines: Vec<&str> = spec.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('#') {
            heading_types = cell_fields(&line.replace(':', ",")).into_keys().collect();
        }
        let header = cells(line);
        let kind = header.as_ref().map(|h| h.first().copied());
        let start = i;
        if matches!(kind, Some(Some("type" | "field"))) {
            i += 2; // the header and its `|---|` line
            let mut fields = Fields::new();
            while let Some(row) = lines.get(i).and_then(|l| cells(l)) {
                if kind == Some(Some("type")) {
                    let name = row[0].trim_matches('`').to_string();
                    let dir = if row[1] == "bot to referee" { Dir::FromBot } else { Dir::ToBot };
                    let prev = tables.all.insert((name.clone(), dir), cell_fields(row[3]));
                    assert!(prev.is_none(), "protocol.md line {}: {name} twice", i + 1);
                } else {
                    let optional = row[1].contains("optional") || row[1].contains("only when");
                    let name = row[0].trim_matches('`').to_string();
                    fields.insert(name, optional);
                }
                i += 1;
            }
            if kind == Some(Some("field")) {
                tables.sections.push((start + 1, heading_types.clone(), fields));
            }
            continue;
        }
        i += 1;
    }
    tables
}

/// The field tables agree with the table of all messages: each is the whole field list of one
/// message its section is about, optional fields marked alike.
fn check_tables(tables: &Tables) -> Vec<String> {
    let mut problems = Vec::new();
    if tables.all.len() < 10 {
        problems.push(format!("the table of all messages has {} rows", tables.all.len()));
    }
    for (line, types, fields) in &tables.sections {
        let found = tables.all.iter().find(|((t, _), f)| types.contains(t) && *f == fields);
        if found.is_none() {
            problems.push(format!(
                "protocol.md line {line}: the fields {fields:?} are those of no message of \
                 {types:?} in the table of all messages"
            ));
        }
    }
    problems
}

/// The example messages of protocol.md's code blocks and of the transcripts, with where each is.
fn examples(root: &Path) -> Vec<(String, Dir, String)> {
    let mut out = Vec::new();
    let spec = std::fs::read_to_string(root.join("spec/protocol.md")).expect("spec/protocol.md");
    let mut in_code = false;
    for (n, line) in spec.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let dir = match line.get(..2) {
            Some("> ") => Dir::ToBot,
            Some("< ") => Dir::FromBot,
            _ => continue,
        };
        if in_code && line[2..].starts_with('{') {
            out.push((format!("protocol.md line {}", n + 1), dir, line[2..].to_string()));
        }
    }
    let mut transcripts = Vec::new();
    files(&root.join("spec/transcripts"), "jsonl", &mut transcripts);
    transcripts.sort();
    for path in transcripts {
        let text = std::fs::read_to_string(&path).expect("a transcript");
        for (n, line) in text.lines().enumerate() {
            let entry: Value = serde_json::from_str(line).expect("a transcript line is JSON");
            let dir = if entry["dir"] == "from_bot" { Dir::FromBot } else { Dir::ToBot };
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            out.push((format!("{name} line {}", n + 1), dir, entry["msg"].to_string()));
        }
    }
    out
}

/// What the code makes of an example: decoded as the referee reads that direction and encoded
/// again, the message's type and fields (`type` left out).
fn through_the_code(dir: Dir, line: &str) -> Result<(String, BTreeSet<String>), String> {
    let encoded = match dir {
        Dir::ToBot => {
            encode_line(&decode_line::<ToBot>(line.as_bytes()).map_err(|e| e.to_string())?)
        }
        Dir::FromBot => {
            encode_line(&decode_line::<FromBot>(line.as_bytes()).map_err(|e| e.to_string())?)
        }
    };
    let Value::Object(mut fields) = serde_json::from_str(&encoded).map_err(|e| e.to_string())?
    else {
        return Err(format!("encoded as {encoded}"));
    };
    let kind = fields.remove("type").and_then(|t| t.as_str().map(str::to_string));
    Ok((kind.unwrap_or_default(), fields.keys().cloned().collect()))
}

/// The code and the table of all messages agree: every example is a message of the table and
/// the code keeps exactly the fields the table lists for it, no more; every message of the table
/// has an example, every field it requires is in each of them, and every optional field is in
/// one at least.
fn check_code(tables: &Tables, examples: &[(String, Dir, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<Message, BTreeSet<String>> = BTreeMap::new();
    for (at, dir, line) in examples {
        let given: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let kind = given["type"].as_str().unwrap_or_default().to_string();
        let (code_kind, code_fields) = match through_the_code(*dir, line) {
            Ok(it) => it,
            Err(e) => {
                problems.push(format!("{at}: the code does not read it ({e}): {line}"));
                continue;
            }
        };
        if code_kind != kind {
            problems.push(format!("{at}: the code knows no {kind:?} message {dir:?}: {line}"));
            continue;
        }
        let given_fields: BTreeSet<String> = given
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .filter(|k| k != "type")
            .collect();
        for lost in given_fields.difference(&code_fields) {
            problems.push(format!("{at}: the code has no field {lost:?} in {kind} {dir:?}"));
        }
        let message = (kind.clone(), *dir);
        let Some(spec_fields) = tables.all.get(&message) else {
            problems.push(format!("{at}: {kind} {dir:?} is not in the table of all messages"));
            continue;
        };
        for field in &code_fields {
            if !spec_fields.contains_key(field) {
                problems.push(format!(
                    "{at}: {kind} {dir:?} has the field {field:?}, not in the table"
                ));
            }
        }
        for (field, optional) in spec_fields {
            if !optional && !code_fields.contains(field) {
                problems.push(format!(
                    "{at}: {kind} {dir:?} lacks the field {field:?} the table requires"
                ));
            }
        }
        seen.entry(message).or_default().extend(code_fields);
    }
    for (message, fields) in &tables.all {
        match seen.get(message) {
            None => problems.push(format!("{message:?}: no example, so the code is not checked")),
            Some(had) => {
                for field in fields.keys().filter(|f| !had.contains(*f)) {
                    problems.push(format!("{message:?}: the field {field:?} is in no example"));
                }
            }
        }
    }
    problems
}

#[test]
fn the_message_tables_of_the_spec_are_the_messages_of_the_code() {
    let root = root();
    let spec = std::fs::read_to_string(root.join("spec/protocol.md")).expect("spec/protocol.md");
    let tables = parse_tables(&spec);
    let examples = examples(&root);
    assert!(examples.len() > 100, "only {} examples", examples.len());
    let mut problems = check_tables(&tables);
    problems.extend(check_code(&tables, &examples));
    assert!(
        problems.is_empty(),
        "spec/protocol.md and the code disagree:\n{}",
        problems.join("\n")
    );
}

/// The check is only worth something if it fails: a field or a message added to or taken from
/// either side is reported.
#[test]
fn the_table_check_catches_a_field_or_message_on_one_side_only() {
    let root = root();
    let spec = std::fs::read_to_string(root.join("spec/protocol.md")).expect("spec/protocol.md");
    let examples = examples(&root);
    let fails = |spec: &str, examples: &[(String, Dir, String)], want: &str| {
        let tables = parse_tables(spec);
        let mut problems = check_tables(&tables);
        problems.extend(check_code(&tables, examples));
        assert!(problems.iter().any(|p| p.contains(want)), "want {want:?} in {problems:#?}");
    };
    // A field the code has and the table of all messages does not.
    let row = "| `played` | referee to bot | | `seat`, `card`, `trick` |";
    assert!(spec.contains(row));
    let no_trick = spec.replace(row, "| `played` | referee to bot | | `seat`, `card` |");
    fails(&no_trick, &examples, "has the field \"trick\", not in the table");
    // A field the table lists and the code does not have.
    let extra =
        spec.replace(row, "| `played` | referee to bot | | `seat`, `card`, `trick`, `colour` |");
    fails(&extra, &examples, "lacks the field \"colour\"");
    // A message the table lists and no example (hence no code) shows.
    let added = spec.replace(row, &format!("{row}\n| `wink` | referee to bot | | `seat` |"));
    fails(&added, &examples, "(\"wink\", ToBot): no example");
    // A message the code reads and the table does not list.
    fails(&spec.replace(&format!("{row}\n"), ""), &examples, "played ToBot is not in the table");
    // A field table that disagrees with the table of all messages.
    let time = "| `time_ms` | integer | time allowed for the answer (the handshake limit, default 10000) |";
    assert!(spec.contains(time));
    fails(&spec.replace(time, ""), &examples, "are those of no message of [\"hello\"]");
    // An example with a field no message of the code has.
    let odd = vec![(
        "a test".to_string(),
        Dir::FromBot,
        r#"{"type":"play","id":4,"card":"Ab","colour":"red"}"#.to_string(),
    )];
    fails(&spec, &odd, "the code does not read it");
}
