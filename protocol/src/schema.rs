//! The JSON Schemas (draft 2020-12) of every message and record line, built from the same
//! declarations as the types: `spec/schema/` holds what [`files`] returns, and
//! `tests/schema.rs` fails when the two differ.
//!
//! Answers are closed (`additionalProperties: false`, as the referee decodes them); referee
//! messages are open, since bots must ignore fields they do not know. Shared parts (card codes,
//! option values, fault classes) are `$defs` of each file, so every file stands alone.

use crate::json::{Defs, Object};
use crate::msg::{FromBot, ToBot};
use crate::record::RecordLine;
use serde_json::{Map, Value, json};

/// The dialect every file declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Doc comment lines as one description: lines joined, blank lines kept as paragraph breaks.
pub fn doc(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines.iter().map(|l| l.trim()) {
        if line.is_empty() {
            out.push_str("\n\n");
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line);
        }
    }
    out.trim().to_owned()
}

/// A schema with a description (beside a `$ref` too, as 2020-12 allows).
pub fn described(mut schema: Value, doc: String) -> Value {
    if let Some(map) = schema.as_object_mut() {
        map.insert("description".into(), Value::String(doc));
    }
    schema
}

/// The schema of a declared object.
pub fn object<T: Object>(defs: &mut Defs, doc: String) -> Value {
    let (props, required, closed) = T::properties(defs);
    let mut s = json!({ "type": "object", "properties": props, "required": required });
    if !doc.is_empty() {
        s["description"] = Value::String(doc);
    }
    if closed {
        s["additionalProperties"] = Value::Bool(false);
    }
    s
}

/// The schema of one variant of a tagged enum: its fields and its `type`.
pub fn variant(
    wire: &str,
    doc: String,
    mut props: Map<String, Value>,
    mut required: Vec<&'static str>,
    closed: bool,
) -> Value {
    props.insert("type".into(), json!({ "const": wire }));
    required.insert(0, "type");
    let mut s = json!({ "type": "object", "properties": props, "required": required });
    if !doc.is_empty() {
        s["description"] = Value::String(doc);
    }
    if closed {
        s["additionalProperties"] = Value::Bool(false);
    }
    s
}

/// A whole file: the dialect, a title, the schema and the shared parts it uses.
fn file(title: &str, schema: Value, defs: Defs) -> Value {
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DIALECT));
    out.insert("title".into(), json!(title));
    if let Value::Object(fields) = schema {
        out.extend(fields);
    }
    if !defs.is_empty() {
        out.insert("$defs".into(), Value::Object(defs.into_iter().collect()));
    }
    Value::Object(out)
}

/// The shared parts `schema` refers to, directly or through other shared parts.
fn used(schema: &Value, all: &Defs) -> Defs {
    fn walk(v: &Value, all: &Defs, out: &mut Defs) {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    let name = r.trim_start_matches("#/$defs/");
                    if let (false, Some(def)) = (out.contains_key(name), all.get(name)) {
                        out.insert(name.to_owned(), def.clone());
                        walk(def, all, out);
                    }
                }
                map.values().for_each(|v| walk(v, all, out));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, all, out)),
            _ => {}
        }
    }
    let mut out = Defs::new();
    walk(schema, all, &mut out);
    out
}

/// The files of one tagged enum: one per variant under `dir/`, and `dir.json` for a whole line
/// (`oneOf` on `type`).
fn family(
    dir: &str,
    title: &str,
    doc: &str,
    schemas: fn(&mut Defs) -> Vec<(&'static str, Value)>,
) -> Vec<(String, Value)> {
    let mut defs = Defs::new();
    let variants = schemas(&mut defs);
    let mut out = Vec::new();
    let mut one_of = Vec::new();
    for (wire, schema) in &variants {
        let own = used(schema, &defs);
        out.push((
            format!("{dir}/{wire}.json"),
            file(&format!("{title}: {wire}"), schema.clone(), own),
        ));
        one_of.push(json!({ "$ref": format!("#/$defs/{dir}.{wire}") }));
    }
    for (wire, schema) in variants {
        defs.insert(format!("{dir}.{wire}"), schema);
    }
    out.push((
        format!("{dir}.json"),
        file(title, json!({ "description": doc, "oneOf": one_of }), defs),
    ));
    out
}

/// Every schema file, by path under `spec/schema/`, with its content.
pub fn files() -> Vec<(String, Value)> {
    let mut out = family(
        "to-bot",
        "Referee to bot",
        "A line the referee sends to a bot. Bots must ignore fields they do not know.",
        ToBot::schemas,
    );
    out.extend(family(
        "from-bot",
        "Bot to referee",
        "A bot's answer line, decoded strictly: unknown fields are refused.",
        FromBot::schemas,
    ));
    out.extend(family(
        "record",
        "Record line",
        "One line of a game record (spec/records.md).",
        RecordLine::schemas,
    ));
    out
}

/// A file's text as committed: pretty JSON and a final newline.
pub fn text(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}
