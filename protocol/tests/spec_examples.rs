//! Keeps the spec honest: every JSON example in spec/protocol.md and spec/records.md decodes
//! strictly into the crate's types and re-encodes to the same value, so a change to a message
//! or record type that the spec does not follow fails here.

use protocol::record::RecordLine;
use protocol::{FromBot, ToBot, decode_line, encode_line};
use serde_json::Value;
use support::examples;

mod support;

fn same_value(original: &str, reencoded: &str) -> bool {
    let a: Value = serde_json::from_str(original).unwrap();
    let b: Value = serde_json::from_str(reencoded).unwrap();
    a == b
}

#[test]
fn protocol_examples_decode_and_round_trip() {
    let all = examples("protocol.md");
    assert!(all.len() >= 20, "only {} examples found", all.len());
    for (n, line) in all {
        let to_bot = decode_line::<ToBot>(line.as_bytes()).ok().filter(|m| *m != ToBot::Unknown);
        let reencoded = match (to_bot, decode_line::<FromBot>(line.as_bytes())) {
            // Questions and answers share their type name; the fields tell them apart.
            (Some(m), _) if same_value(&line, &encode_line(&m)) => encode_line(&m),
            (_, Ok(m)) => encode_line(&m),
            (Some(m), Err(_)) => encode_line(&m),
            (None, Err(e)) => panic!("spec/protocol.md line {n}: not a message: {e}\n{line}"),
        };
        assert!(
            same_value(&line, &reencoded),
            "spec/protocol.md line {n} does not round-trip:\n{line}\n{reencoded}"
        );
    }
}

#[test]
fn record_examples_decode_strictly_and_round_trip() {
    let all = examples("records.md");
    assert!(all.len() >= 13, "only {} examples found", all.len());
    for (n, line) in all {
        let rec = decode_line::<RecordLine>(line.as_bytes())
            .unwrap_or_else(|e| panic!("spec/records.md line {n}: not a record line: {e}\n{line}"));
        assert!(
            same_value(&line, &encode_line(&rec)),
            "spec/records.md line {n} does not round-trip"
        );
    }
}
