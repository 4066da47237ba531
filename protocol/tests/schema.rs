//! The committed JSON Schemas of `spec/schema/` are the ones the declarations generate, they are
//! valid draft 2020-12 schemas, and an independent validator (the `jsonschema` crate) agrees
//! with the referee's decoder: it accepts every golden transcript line and every example of the
//! spec, and rejects a bot's answer exactly when the referee's strict decoder does.
//!
//! `UPDATE_SCHEMAS=1 cargo test -p aluette-protocol --test schema` rewrites the files.

use protocol::record::RecordLine;
use protocol::{FromBot, ToBot, decode_line, schema};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod support;

fn spec(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec").join(path)
}

/// The files under `spec/schema/` that this crate generates (the tournament's files are the
/// referee's).
fn committed() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for dir in ["", "to-bot", "from-bot", "record"] {
        let Ok(entries) = std::fs::read_dir(spec("schema").join(dir)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
            if name.ends_with(".json")
                && ["to-bot", "from-bot", "record"].iter().any(|f| path.starts_with(f))
            {
                out.insert(path);
            }
        }
    }
    out
}

#[test]
fn committed_schemas_are_current() {
    let files = schema::files();
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        for path in committed() {
            std::fs::remove_file(spec("schema").join(path)).unwrap();
        }
        for (path, value) in &files {
            let at = spec("schema").join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, schema::text(value)).unwrap();
        }
    }
    let generated: BTreeSet<String> = files.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(
        committed(),
        generated,
        "spec/schema/ holds other files than the declarations give: run \
         UPDATE_SCHEMAS=1 cargo test -p aluette-protocol --test schema"
    );
    for (path, value) in &files {
        let text = std::fs::read_to_string(spec("schema").join(path)).unwrap();
        assert!(
            text == schema::text(value),
            "spec/schema/{path} is not what the declarations give: run \
             UPDATE_SCHEMAS=1 cargo test -p aluette-protocol --test schema"
        );
        assert!(jsonschema::meta::is_valid(value), "{path} is not a valid JSON Schema");
    }
}

/// The validator of a committed file.
fn validator(path: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(spec("schema").join(path)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn errors(v: &jsonschema::Validator, value: &Value) -> String {
    v.iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn every_transcript_line_is_valid() {
    let (to_bot, from_bot) = (validator("to-bot.json"), validator("from-bot.json"));
    let mut n = 0;
    for entry in std::fs::read_dir(spec("transcripts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for (k, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
            let record: Value = serde_json::from_str(line).unwrap();
            let v = if record["dir"] == "to_bot" { &to_bot } else { &from_bot };
            let msg = &record["msg"];
            assert!(v.is_valid(msg), "{}:{}: {}\n{msg}", path.display(), k + 1, errors(v, msg));
            // The one-message schemas accept it too.
            let dir = if record["dir"] == "to_bot" { "to-bot" } else { "from-bot" };
            let own = validator(&format!("{dir}/{}.json", msg["type"].as_str().unwrap()));
            assert!(own.is_valid(msg));
            n += 1;
        }
    }
    assert!(n > 100, "only {n} transcript lines");
}

/// The spec's JSON examples, parsed.
fn examples(file: &str) -> Vec<(usize, Value)> {
    support::examples(file)
        .into_iter()
        .map(|(n, line)| (n, serde_json::from_str(&line).unwrap()))
        .collect()
}

#[test]
fn every_spec_example_is_valid() {
    let (to_bot, from_bot) = (validator("to-bot.json"), validator("from-bot.json"));
    let examples_seen = examples("protocol.md");
    assert!(examples_seen.len() >= 20);
    for (n, msg) in examples_seen {
        // Questions and answers share their type names: an example is one or the other.
        assert!(
            to_bot.is_valid(&msg) || from_bot.is_valid(&msg),
            "spec/protocol.md line {n}: {msg}\n  as a question: {}\n  as an answer: {}",
            errors(&to_bot, &msg),
            errors(&from_bot, &msg)
        );
    }
    let record = validator("record.json");
    let lines = examples("records.md");
    assert!(lines.len() >= 13);
    for (n, line) in lines {
        assert!(record.is_valid(&line), "spec/records.md line {n}: {}", errors(&record, &line));
    }
}

/// Answers, each a transcript answer changed in one way: a field added, removed, or given a
/// value of another type or out of range.
fn mutated_answers() -> Vec<Value> {
    let mut answers = Vec::new();
    for entry in std::fs::read_dir(spec("transcripts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            if record["dir"] == "from_bot" {
                answers.push(record["msg"].clone());
            }
        }
    }
    answers.sort_by_key(|a| a.to_string());
    answers.dedup();
    let values = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(3.5),
        json!(18_446_744_073_709_551_615_u64),
        json!("3o"),
        json!("Zz"),
        json!("10o"),
        json!(""),
        json!([]),
        json!(["3o", "Kc", "Ab", "9s", "Jo", "Cc"]),
        json!(["3o", 1]),
        json!(["monsieur"]),
        json!({}),
        json!("hello"),
        json!("play"),
    ];
    let fields = [
        "type", "id", "card", "cards", "accept", "signals", "name", "version", "author",
        "protocol", "token", "seat", "extra",
    ];
    let mut out = answers.clone();
    for answer in &answers {
        for field in fields {
            let mut without = answer.clone();
            if without.as_object_mut().unwrap().remove(field).is_some() {
                out.push(without);
            }
            for value in &values {
                let mut changed = answer.clone();
                changed[field] = value.clone();
                out.push(changed);
            }
        }
    }
    out
}

#[test]
fn the_answer_schema_rejects_exactly_what_the_referee_rejects() {
    let from_bot = validator("from-bot.json");
    let (mut accepted, mut rejected) = (0, 0);
    for answer in mutated_answers() {
        let line = answer.to_string();
        let decoded = decode_line::<FromBot>(line.as_bytes());
        let valid = from_bot.is_valid(&answer);
        assert_eq!(
            decoded.is_ok(),
            valid,
            "{line}\n  referee: {decoded:?}\n  schema: {}",
            errors(&from_bot, &answer)
        );
        // The message's own schema decides the same for its type.
        if let Some(kind @ ("hello" | "opening" | "discard" | "play")) = answer["type"].as_str() {
            assert_eq!(
                validator(&format!("from-bot/{kind}.json")).is_valid(&answer),
                valid,
                "{line}"
            );
        }
        if valid { accepted += 1 } else { rejected += 1 }
    }
    assert!(accepted > 50 && rejected > 500, "{accepted} accepted, {rejected} rejected");
    // The three the issue names.
    for (line, what) in [
        (r#"{"type":"play","id":3,"card":"3o","seat":1}"#, "an unknown field"),
        (r#"{"type":"play","id":3,"card":"Zz"}"#, "a bad card code"),
        (r#"{"type":"play","card":"3o"}"#, "a missing id"),
    ] {
        let value: Value = serde_json::from_str(line).unwrap();
        assert!(!from_bot.is_valid(&value), "{what} is accepted by the schema");
        assert!(
            decode_line::<FromBot>(line.as_bytes()).is_err(),
            "{what} is accepted by the referee"
        );
    }
}

/// Messages and record lines the referee encodes are valid: every kind, from the crate's own
/// values (the fast encoders' test tables live in the crate; these are the spec's examples,
/// decoded and re-encoded).
#[test]
fn what_the_crate_encodes_is_valid() {
    let (to_bot, from_bot, record) =
        (validator("to-bot.json"), validator("from-bot.json"), validator("record.json"));
    for (_, msg) in examples("protocol.md") {
        let line = msg.to_string();
        if let Ok(m) = decode_line::<ToBot>(line.as_bytes())
            && m != ToBot::Unknown
        {
            let mut buf = Vec::new();
            m.encode_into(&mut buf);
            let again: Value = serde_json::from_slice(&buf).unwrap();
            assert!(to_bot.is_valid(&again), "{again}: {}", errors(&to_bot, &again));
        }
        if let Ok(m) = decode_line::<FromBot>(line.as_bytes()) {
            let again = serde_json::to_value(&m).unwrap();
            assert!(from_bot.is_valid(&again), "{again}");
        }
    }
    for (_, line) in examples("records.md") {
        let rec: RecordLine = serde_json::from_value(line).unwrap();
        let mut buf = Vec::new();
        rec.encode_into(&mut buf);
        let again: Value = serde_json::from_slice(&buf).unwrap();
        assert!(record.is_valid(&again), "{again}: {}", errors(&record, &again));
    }
}

/// A footer's `status` and a header's `policy.on_fault` are closed sets of words: a record
/// with another word is refused by the decoder and by the schema alike (they were free strings).
#[test]
fn footer_status_and_fault_policy_are_enums() {
    let record = validator("record.json");
    let lines = examples("records.md");
    let of = |kind: &str| lines.iter().find(|(_, l)| l["type"] == kind).unwrap().1.clone();
    let (footer, header) = (of("footer"), of("header"));
    let decodes = |v: &Value| serde_json::from_value::<RecordLine>(v.clone()).is_ok();
    for status in ["complete", "aborted"] {
        let mut f = footer.clone();
        f["status"] = json!(status);
        assert!(decodes(&f) && record.is_valid(&f), "{f}");
    }
    for on_fault in ["fallback", "forfeit"] {
        let mut h = header.clone();
        h["policy"]["on_fault"] = json!(on_fault);
        assert!(decodes(&h) && record.is_valid(&h), "{h}");
    }
    let mut f = footer;
    f["status"] = json!("finished");
    let mut h = header;
    h["policy"]["on_fault"] = json!("lenient");
    for bad in [f, h] {
        assert!(!decodes(&bad), "the decoder accepts {bad}");
        assert!(!record.is_valid(&bad), "the schema accepts {bad}");
    }
}
