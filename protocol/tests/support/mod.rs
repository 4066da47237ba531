//! What the protocol's test files share: the JSON examples of the spec.

/// The one-line JSON objects inside the fenced code blocks of a spec file, with line numbers.
pub(crate) fn examples(file: &str) -> Vec<(usize, String)> {
    let path = format!("{}/../spec/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut in_code = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        // Conversation excerpts mark the direction with `> ` or `< `.
        let json = line.trim_start_matches(['>', '<']).trim();
        if in_code && json.starts_with('{') {
            out.push((n + 1, json.to_string()));
        }
    }
    out
}
