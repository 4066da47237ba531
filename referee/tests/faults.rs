//! probe
#[test]
fn probe() {
    let v: serde_json::Value = serde_json::from_str("{\"a\":1}").unwrap();
    assert_eq!(v["a"], 1);
}
