//! The work API's bodies against the spec: every example in spec/arena.md's "Workers" section
//! (a fenced block whose info string is `json work-NAME`) decodes strictly into its type, writes
//! back to the same JSON, and is valid against spec/schema/arena/work-NAME.json; unknown fields
//! and kinds are refused.

use super::*;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// The spec's examples, by name.
fn examples() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(spec_dir().join("arena.md")).unwrap();
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("```json work-") else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let name = format!("work-{}", name.trim());
        assert!(out.insert(name.clone(), body.join("\n")).is_none(), "{name} twice");
    }
    out
}

fn round_trip<T: Serialize + DeserializeOwned>(name: &str, text: &str) -> T {
    let value: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let again: Value = serde_json::to_value(&value).unwrap();
    let given: Value = serde_json::from_str(text).unwrap();
    assert_eq!(again, given, "{name} does not write back as given");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(spec_dir().join(format!("schema/arena/{name}.json"))).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
    let errors: Vec<String> = validator.iter_errors(&given).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name} is not valid against its schema: {errors:?}");
    value
}

#[test]
fn every_example_of_the_spec_decodes_strictly_and_matches_its_schema() {
    let examples = examples();
    let names: Vec<&str> = examples.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "work-heartbeat",
            "work-heartbeat-answer",
            "work-lease",
            "work-lease-request",
            "work-result",
            "work-result-answer"
        ]
    );
    let request: LeaseRequest = round_trip("work-lease-request", &examples["work-lease-request"]);
    assert_eq!(request.slots, 2);
    let lease: Lease = round_trip("work-lease", &examples["work-lease"]);
    assert!(lease.deals[0].seed > 1 << 53, "the example shows a seed past 2^53, kept exactly");
    assert_eq!(lease.deals[0].games.len(), 2);
    assert!(lease.deals[0].games.iter().flat_map(|g| &g.seats).any(|s| s.kind == SeatKind::Hosted));
    let _: Heartbeat = round_trip("work-heartbeat", &examples["work-heartbeat"]);
    let _: HeartbeatAnswer =
        round_trip("work-heartbeat-answer", &examples["work-heartbeat-answer"]);
    let _: ResultPost = round_trip("work-result", &examples["work-result"]);
    let answer: ResultAnswer = round_trip("work-result-answer", &examples["work-result-answer"]);
    assert_eq!(answer.status, ResultStatus::AlreadyCounted);
}

#[test]
fn unknown_fields_kinds_and_missing_fields_are_refused() {
    let bad = |text: &str| serde_json::from_str::<LeaseRequest>(text).unwrap_err().to_string();
    assert!(bad(r#"{"slots":1,"can_run":[],"priority":9}"#).contains("unknown field"));
    assert!(bad(r#"{"slots":1}"#).contains("missing field"));
    assert!(bad(r#"{"slots":-1,"can_run":[]}"#).contains("invalid value"));
    let seat = serde_json::from_str::<LeasedSeat>(r#"{"entrant":"x","kind":"oracle"}"#);
    assert!(seat.unwrap_err().to_string().contains("unknown variant"));
    let post =
        serde_json::from_str::<ResultPost>(r#"{"lease":1,"game":2,"record":"","points":[9,0]}"#);
    assert!(
        post.unwrap_err().to_string().contains("unknown field"),
        "a worker's own score is no field"
    );
    let three = r#"{"game":1,"first_dealer":0,"seats":[{"entrant":"a","kind":"random"},{"entrant":"b","kind":"random"},{"entrant":"c","kind":"random"}]}"#;
    assert!(serde_json::from_str::<LeasedGame>(three).is_err(), "a table has four seats");
}
