//! Placeholder replaced by the benchmark helper.
fn main() {}
