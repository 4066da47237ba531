//! The files a tournament writes are valid against their schemas in `spec/schema/tournament/`,
//! checked by an independent JSON Schema implementation on real tournaments (builtin and Python
//! bots, real processes): every journal line, `standings.json` and `tournament.json`, with a
//! disqualified entrant and its unplayed games, a forfeiting one, infinite Elo values and an
//! SPRT that stops its match. The config files that started them (one JSON, one TOML, read as
//! JSON values) and the README's complete example are valid against the config schema, and
//! configs the referee refuses for a bad key or value are refused by the schema too.

use crate::harness::{Scratch, jsonl, read_json, referee_fails, referee_ok, root, s};
use serde_json::Value;
use std::path::Path;

fn validator(name: &str) -> jsonschema::Validator {
    let file = root().join("spec/schema/tournament").join(name);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> =
        v.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{value}");
}

/// A TOML config as the JSON value it stands for (the two formats share one schema).
fn toml_value(text: &str) -> Value {
    let table: toml::Table = toml::from_str(text).unwrap();
    serde_json::to_value(table).unwrap()
}

/// A misbehaving bot of referee/tests/bots/misbehave.py, as an entrant's command.
fn misbehave(scratch: &Scratch, mode: &str) -> String {
    let script = root().join("referee/tests/bots/misbehave.py");
    format!("python3 '{}' {mode} '{}'", script.display(), scratch.join("pids").display())
}

/// Checks the journal, plan and standings of the tournament in `out`; returns the journal.
fn check_files(out: &Path) -> Vec<Value> {
    let journal = jsonl(&out.join("journal.jsonl"));
    let line = validator("journal-line.json");
    for (k, entry) in journal.iter().enumerate() {
        assert_valid(&line, entry, &format!("journal line {}", k + 1));
    }
    assert_valid(&validator("tournament.json"), &read_json(&out.join("tournament.json")), "plan");
    let standings = read_json(&out.join("standings.json"));
    assert_valid(&validator("standings.json"), &standings, "standings.json");
    journal
}

#[test]
fn a_tournaments_files_are_valid_against_their_schemas() {
    let sc = Scratch::new("tournament_schema");
    let config = validator("config.json");

    // A JSON config: three entrants, one of which exits at its 3rd play question of every
    // game and is disqualified, so its later games are settled without play.
    let dq = serde_json::json!({
        "seed": 3,
        "format": "round-robin",
        "games": 2,
        "concurrency": 1,
        "disqualify": { "max-faults": 3 },
        "rules": { "deals": 2, "chant": false, "signals": "public" },
        "clock": { "handshake-ms": 20000 },
        "limits": { "bot-memory-mib": "off" },
        "entrants": [
            { "name": "H", "command": "builtin:heuristic" },
            { "name": "broken", "command": misbehave(&sc, "exit") },
            { "name": "R", "command": "builtin:random" },
        ],
    });
    assert_valid(&config, &dq, "the JSON config");
    let path = sc.write("dq.json", &dq.to_string());
    let out = sc.join("dq");
    referee_ok(&["tournament", s(&path), "--out", s(&out)]);
    let journal = check_files(&out);
    assert!(journal.iter().any(|e| e["status"] == "not_played"), "no game settled unplayed");
    assert!(journal.iter().any(|e| e.get("disqualified").is_some()), "nobody disqualified");
    assert!(journal.iter().any(|e| e["faults"][1]["crashes"].as_u64() > Some(0)));

    // A TOML config: one pairing, the loser forfeiting every game, under an SPRT that stops
    // the match once it has seen enough.
    let toml = format!(
        "seed = 8\nformat = \"round-robin\"\ngames = 40\nconcurrency = 1\n\
         sprt = {{ elo0 = 0, elo1 = 100, alpha = 0.1, beta = 0.1 }}\n\n\
         [rules]\ndeals = 1\ntarget = \"off\"\nmordienne = true\n\n\
         [clock]\nhandshake-ms = 20000\n\n[faults]\non-fault = \"forfeit\"\n\n\
         [[entrants]]\nname = \"H\"\ncommand = \"builtin:heuristic\"\n\n\
         [[entrants]]\nname = \"L\"\ncommand = {:?}\n",
        misbehave(&sc, "illegal-always")
    );
    assert_valid(&config, &toml_value(&toml), "the TOML config");
    let path = sc.write("sweep.toml", &toml);
    let out = sc.join("sweep");
    referee_ok(&["tournament", s(&path), "--out", s(&out)]);
    let journal = check_files(&out);
    assert!(journal.iter().any(|e| e["forfeit"] == "L"), "no forfeit");
    assert!(journal.iter().any(|e| e["status"] == "not_needed"), "the SPRT cut no game");
    let standings = read_json(&out.join("standings.json"));
    assert_eq!(standings["pairs"][0]["elo"], "+inf", "{}", standings["pairs"][0]);
    assert_eq!(standings["sprt"]["verdict"], "h1");
}

/// The README's complete example config, with every key, is valid.
#[test]
fn the_readmes_example_config_is_valid() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("A complete example").expect("the README's example config");
    let block = &readme[start..];
    let block = &block[block.find("```toml\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let value = toml_value(block);
    for section in ["rules", "clock", "faults", "limits", "disqualify", "net"] {
        assert!(value.get(section).is_some(), "the example has no [{section}]");
    }
    assert_valid(&validator("config.json"), &value, "README.md's example");
}

/// A config with a bad key or value is refused by the referee, with one line, and by the
/// schema; the same config without the fault is accepted by both.
#[test]
fn the_config_schema_refuses_what_the_referee_refuses() {
    let sc = Scratch::new("tournament_schema_bad");
    let config = validator("config.json");
    let base = "seed = 1\ngames = 1\n[[entrants]]\nname = \"a\"\ncommand = \"builtin:random\"\n\
                [[entrants]]\nname = \"b\"\ncommand = \"builtin:random\"\n";
    let good = format!("{base}[rules]\ndeals = 1\n");
    assert_valid(&config, &toml_value(&good), "the good config");
    let path = sc.write("good.toml", &good);
    referee_ok(&["tournament", s(&path), "--out", s(&sc.join("good"))]);
    for (k, bad) in [
        "[rules]\ndeals = 1\nchant = \"maybe\"\n",
        "[rules]\ndeals = 1\nmordienne-run = 4\n",
        "[rules]\ndeals = 1\nchants = \"on\"\n",
        "[clock]\nanswer-ms = 86400001\n",
        "[faults]\non-fault = \"lenient\"\n",
        "[limits]\nbot-memory-mib = \"on\"\n",
        "[net]\nmax-pending = 0\n",
        "[disqualify]\nmax-fault = 3\n",
        "format = \"swiss\"\n",
    ]
    .iter()
    .enumerate()
    {
        // Top-level keys must come before the first section.
        let text =
            if bad.starts_with('[') { format!("{base}{bad}") } else { format!("{bad}{base}") };
        assert!(!config.is_valid(&toml_value(&text)), "the schema accepts:\n{text}");
        let path = sc.write(&format!("bad{k}.toml"), &text);
        referee_fails(&["tournament", s(&path), "--out", s(&sc.join(&format!("bad{k}")))]);
    }
}
