//! The tournament config file, TOML or JSON by extension, read into the plain
//! [`tournament::Config`]. Rule, clock, fault and limit options carry the names of the match
//! flags (and of spec/rules.md): each section's keys are the flags under its heading in
//! `--help`, and the values are parsed by those very flags and converted like the match's, so a
//! tournament and a match can never disagree on an option.

use super::table::{CLOCK, FAULTS, LIMITS, NET, NetArgs, RULES, TableArgs};
use crate::bot::BotSpec;
use crate::tournament::{self, Disqualify, Entrant, Format, SprtParams};
use clap::{CommandFactory as _, Parser};
use protocol::options::Seating;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A tournament config file (TOML or JSON): the entrants, the format, and the options that
/// shape every table, in sections named like the match flags' headings.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    /// The tournament seed; default: random, printed, and kept in the plan (required with
    /// `--shard`).
    seed: Option<u64>,
    /// How the games of a pairing are played; default `duplicate`.
    format: Option<Format>,
    /// Per pairing: deal sets in duplicate (each played twice), games in a round robin;
    /// default 10.
    games: Option<u64>,
    /// Only this entrant's pairings, against every other entrant.
    gauntlet: Option<String>,
    /// Tables playing at once; default: the CPUs the referee may use.
    concurrency: Option<usize>,
    /// The output folder; default `tournaments/<config file name>`.
    output: Option<PathBuf>,
    /// At least two entrants, each a bot command that plays both seats of a partnership.
    #[serde(default)]
    entrants: Vec<RawEntrant>,
    #[serde(default)]
    rules: BTreeMap<String, Value>,
    #[serde(default)]
    clock: BTreeMap<String, Value>,
    #[serde(default)]
    faults: BTreeMap<String, Value>,
    #[serde(default)]
    limits: BTreeMap<String, Value>,
    disqualify: Option<RawDisqualify>,
    sprt: Option<RawSprt>,
    #[serde(default)]
    net: BTreeMap<String, Value>,
}

/// An entrant.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntrant {
    /// 1 to 40 bytes of printable text with a visible character (no control or bidirectional
    /// control character), unique.
    name: String,
    /// The bot's command line (split like a shell, never run by one), `builtin:NAME`, or
    /// `tcp:TOKEN` for bots that connect.
    command: String,
}

/// When an entrant is disqualified (never, without this section).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawDisqualify {
    /// Disqualified once its faults exceed this number.
    max_faults: Option<u64>,
    /// Disqualified once its faults per game played exceed this rate.
    max_fault_rate: Option<f64>,
    /// Games played before the rate is judged; default 10.
    min_games: Option<u64>,
}

/// A sequential probability ratio test that stops a two-entrant match.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSprt {
    /// Elo difference of the null hypothesis.
    elo0: f64,
    /// Elo difference of the alternative, above `elo0`.
    elo1: f64,
    /// The test's false positive rate; default 0.05.
    alpha: Option<f64>,
    /// The test's false negative rate; default 0.05.
    beta: Option<f64>,
}

/// Parses the match's table and network flags, so a config is checked by the same definitions.
#[derive(Debug, Parser)]
#[command(name = "config", no_binary_name = true)]
struct Flags {
    #[command(flatten)]
    table: TableArgs,
    #[command(flatten)]
    net: NetArgs,
}

/// The option sections, each with the `--help` heading of the flags it holds.
const SECTIONS: [(&str, &str); 5] =
    [("rules", RULES), ("clock", CLOCK), ("faults", FAULTS), ("limits", LIMITS), ("net", NET)];

impl RawConfig {
    /// The option sections with their keys and values, in the order of [`SECTIONS`].
    fn sections(&self) -> [(&'static str, &'static str, &BTreeMap<String, Value>); 5] {
        let values = [&self.rules, &self.clock, &self.faults, &self.limits, &self.net];
        std::array::from_fn(|k| (SECTIONS[k].0, SECTIONS[k].1, values[k]))
    }
}

/// A key a section accepts: a flag under the section's heading.
#[derive(Debug)]
struct Key {
    name: String,
    /// A flag without a default: its value may be `off` for "not set".
    off_means_absent: bool,
}

/// The flags under `heading`, in the order `--help` lists them.
fn flags_under(heading: &str) -> Vec<clap::Arg> {
    Flags::command()
        .get_arguments()
        .filter(|a| a.get_help_heading() == Some(heading) && a.get_long().is_some())
        .cloned()
        .collect()
}

/// The keys of the section whose flags carry `heading`, in the order `--help` lists them.
fn keys(heading: &str) -> Vec<Key> {
    flags_under(heading)
        .iter()
        .filter_map(|a| {
            let name = a.get_long()?.to_string();
            Some(Key { name, off_means_absent: a.get_default_values().is_empty() })
        })
        .collect()
}

/// Reads and validates a config file. Every error is one line naming the file.
pub(super) fn load(path: &Path) -> Result<tournament::Config, String> {
    let shown = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read config {shown}: {e}"))?;
    let raw: RawConfig = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            format!("config {shown}{at}: {}", e.message().trim().replace('\n', " "))
        })?,
        Some("json") => serde_json::from_str(&text).map_err(|e| format!("config {shown}: {e}"))?,
        _ => {
            return Err(format!(
                "config {shown}: the file name must end in .toml or .json (it gives the format)"
            ));
        }
    };
    validate(raw).map_err(|e| format!("config {shown}: {e}"))
}

fn validate(raw: RawConfig) -> Result<tournament::Config, String> {
    if raw.entrants.len() < 2 {
        return Err(format!(
            "a tournament needs at least two entrants ([[entrants]] with name and command), not {}",
            raw.entrants.len()
        ));
    }
    let mut entrants = Vec::new();
    for e in &raw.entrants {
        let name = e.name.trim().to_string();
        crate::text::check_name("entrant name", &name, 40)?;
        if entrants.iter().any(|x: &Entrant| x.name == name) {
            return Err(format!("entrant names must differ: {name:?} appears twice"));
        }
        let spec = BotSpec::parse(&e.command).map_err(|m| format!("entrant {name:?}: {m}"))?;
        if matches!(spec, BotSpec::Human { .. }) {
            return Err(format!(
                "entrant {name:?}: a human seat plays in `referee match`, not in a tournament"
            ));
        }
        if matches!(spec, BotSpec::TcpConnect(_)) {
            return Err(format!(
                "entrant {name:?}: tcp://HOST:PORT is one bot, but an entrant needs a bot per seat; use tcp:TOKEN"
            ));
        }
        if e.command.trim() == "tcp" {
            return Err(format!(
                "entrant {name:?}: give the TCP seat a token (tcp:TOKEN): its bots connect with TOKEN-1, TOKEN-2, ..."
            ));
        }
        entrants.push(Entrant { name, command: e.command.clone(), spec });
    }
    let gauntlet = match &raw.gauntlet {
        None => None,
        Some(g) => Some(
            entrants
                .iter()
                .position(|e| &e.name == g)
                .ok_or_else(|| format!("gauntlet {g:?} is not the name of an entrant"))?,
        ),
    };
    let games = raw.games.unwrap_or(10);
    if games == 0 {
        return Err("games (per pairing) must be at least 1".into());
    }
    if raw.concurrency == Some(0) {
        return Err("concurrency (tables in parallel) must be at least 1".into());
    }
    let flags = flags(&raw)?;
    let game = flags.table.game_config()?;
    if game.seating == Seating::Draw {
        return Err("rules.seating must be \"given\" or \"draw-dealer\": a drawn seating would \
                    split partnerships"
            .into());
    }
    let disqualify = match raw.disqualify {
        None => Disqualify::default(),
        Some(d) => {
            if d.max_fault_rate.is_some_and(|r| r.is_nan() || r < 0.0) {
                return Err(
                    "disqualify.max-fault-rate must be a number of faults per game, at least 0"
                        .into(),
                );
            }
            Disqualify {
                max_faults: d.max_faults,
                max_fault_rate: d.max_fault_rate,
                min_games: d.min_games.unwrap_or(10),
            }
        }
    };
    let sprt = match raw.sprt {
        None => None,
        Some(s) => {
            let p = SprtParams {
                elo0: s.elo0,
                elo1: s.elo1,
                alpha: s.alpha.unwrap_or(0.05),
                beta: s.beta.unwrap_or(0.05),
            };
            if p.elo0.is_nan()
                || p.elo1.is_nan()
                || p.elo0 >= p.elo1
                || p.elo0.abs() > 2000.0
                || p.elo1.abs() > 2000.0
            {
                return Err(format!(
                    "sprt: elo0 ({}) must be below elo1 ({}), both within +-2000",
                    p.elo0, p.elo1
                ));
            }
            if !(0.0..0.5).contains(&p.alpha)
                || !(0.0..0.5).contains(&p.beta)
                || p.alpha == 0.0
                || p.beta == 0.0
            {
                return Err("sprt: alpha and beta are error rates between 0 and 0.5".into());
            }
            let pairings = match gauntlet {
                Some(_) => entrants.len() - 1,
                None => entrants.len() * (entrants.len() - 1) / 2,
            };
            if pairings != 1 {
                return Err(format!(
                    "sprt stops a two-entrant match, but this config has {pairings} pairings"
                ));
            }
            Some(p)
        }
    };
    Ok(tournament::Config {
        seed: raw.seed,
        format: raw.format.unwrap_or(Format::Duplicate),
        games,
        gauntlet,
        concurrency: raw.concurrency,
        output: raw.output,
        entrants,
        game,
        connect: flags.table.connect_config(),
        disqualify,
        sprt,
        net: flags.net.net_config(),
    })
}

/// Turns the option sections into match flags and parses them with the match's definitions.
fn flags(raw: &RawConfig) -> Result<Flags, String> {
    let mut argv: Vec<String> = Vec::new();
    for (section, heading, values) in raw.sections() {
        let known = keys(heading);
        for (key, value) in values.iter() {
            let Some(k) = known.iter().find(|k| &k.name == key) else {
                let names: Vec<&str> = known.iter().map(|k| k.name.as_str()).collect();
                return Err(format!(
                    "unknown option {section}.{key} (known: {})",
                    names.join(", ")
                ));
            };
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => if *b { "on" } else { "off" }.to_string(),
                other => return Err(format!("{section}.{key}: {other} is not a single value")),
            };
            if text == "off" && k.off_means_absent {
                continue;
            }
            let pair = [format!("--{key}"), text.clone()];
            // Each option alone first, so an error names the option it is about.
            Flags::try_parse_from(&pair)
                .map_err(|e| format!("{section}.{key} = {text:?}: {}", one_line(&e)))?;
            argv.extend(pair);
        }
    }
    Flags::try_parse_from(&argv).map_err(|e| one_line(&e))
}

/// A clap error on one line, without the usage hints meant for a command line.
fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("For more information") && !l.starts_with("Usage")
        })
        .collect();
    parts.join(" ").trim_start_matches("error: ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::OnFault;
    use rules::MatchLength;

    fn parse_toml(text: &str) -> Result<tournament::Config, String> {
        validate(toml::from_str(text).map_err(|e| e.to_string())?)
    }

    const TWO: &str = "[[entrants]]\nname = \"a\"\ncommand = \"builtin:heuristic\"\n[[entrants]]\nname = \"b\"\ncommand = \"builtin:random\"\n";

    #[test]
    fn defaults_are_duplicate_and_the_match_defaults() {
        let c = parse_toml(TWO).unwrap();
        assert_eq!(c.format, Format::Duplicate);
        assert_eq!(c.games, 10);
        assert_eq!(c.game.clock.answer_ms, 1000);
        assert_eq!(c.game.rules.length, MatchLength::Deals(5));
    }

    #[test]
    fn options_use_the_match_flag_names() {
        let text = format!(
            "{TWO}[rules]\nchant = \"off\"\ndeals = 3\ntarget = \"off\"\nmordienne = false\n[clock]\nanswer-ms = 250\n[faults]\non-fault = \"forfeit\"\n"
        );
        let c = parse_toml(&text).unwrap();
        assert!(!c.game.rules.chant);
        assert!(!c.game.rules.mordienne);
        assert_eq!(c.game.rules.length, MatchLength::Deals(3));
        assert_eq!(c.game.clock.answer_ms, 250);
        assert_eq!(c.game.policy.on_fault, OnFault::Forfeit);
    }

    #[test]
    fn errors_name_the_option() {
        let e = parse_toml(&format!("{TWO}[rules]\nchant = \"maybe\"\n")).unwrap_err();
        assert!(e.starts_with("rules.chant = \"maybe\": invalid value"), "{e}");
        assert!(!e.contains('\n'));
        let e = parse_toml(&format!("{TWO}[clock]\nanswer = 3\n")).unwrap_err();
        assert!(e.starts_with("unknown option clock.answer"), "{e}");
        let e = parse_toml(&format!("{TWO}[rules]\nseating = \"draw\"\n")).unwrap_err();
        assert!(e.contains("seating"), "{e}");
        let c = parse_toml(&format!("{TWO}[rules]\nseating = \"draw-dealer\"\n")).unwrap();
        assert_eq!(c.game.seating, Seating::DrawDealer);
    }

    /// The sections' keys come from the flags' headings: each section knows exactly the flags
    /// of its group, in their order, and every table and network flag has a section.
    #[test]
    fn each_section_knows_the_flags_of_its_group() {
        let e = parse_toml(&format!("{TWO}[clock]\nanswer = 3\n")).unwrap_err();
        assert!(
            e.ends_with(
                "(known: handshake-ms, answer-ms, bank-ms, clock, wall-cap, resume-grace-ms, cpu-time)"
            ),
            "{e}"
        );
        let e = parse_toml(&format!("{TWO}[net]\nx = 3\n")).unwrap_err();
        assert!(
            e.ends_with("(known: listen, connect-wait-ms, max-pending, max-pending-per-addr)"),
            "{e}"
        );
        let raw: RawConfig = toml::from_str(TWO).unwrap();
        let in_sections: usize = raw.sections().iter().map(|(_, h, _)| keys(h).len()).sum();
        // Every flag but --help, which no section could hold.
        let flags = Flags::command()
            .get_arguments()
            .filter(|a| a.get_long().is_some_and(|l| l != "help"))
            .count();
        assert_eq!(in_sections, flags);
        assert!(flags >= 26, "only {flags} flags: the walk must see them all");
        let absent: Vec<String> = raw
            .sections()
            .iter()
            .flat_map(|(_, h, _)| keys(h))
            .filter(|k| k.off_means_absent)
            .map(|k| k.name)
            .collect();
        assert_eq!(absent, ["target", "bot-memory-mib", "bot-cpu-seconds"]);
        let c = parse_toml(&format!("{TWO}[limits]\nbot-memory-mib = \"off\"\n")).unwrap();
        assert_eq!(c.connect.limits.memory_bytes, None);
        let c = parse_toml(&format!("{TWO}[limits]\nbot-memory-mib = 3\n")).unwrap();
        assert_eq!(c.connect.limits.memory_bytes, Some(3 << 20));
    }

    #[test]
    fn sprt_needs_one_pairing() {
        let three = format!("{TWO}[[entrants]]\nname = \"c\"\ncommand = \"builtin:random\"\n");
        let e = parse_toml(&format!("sprt = {{ elo0 = 0, elo1 = 10 }}\n{three}")).unwrap_err();
        assert!(e.contains("3 pairings"), "{e}");
        let ok = parse_toml(&format!("gauntlet = \"a\"\nsprt = {{ elo0 = 0, elo1 = 10 }}\n{TWO}"))
            .unwrap();
        assert_eq!(ok.sprt.unwrap().alpha, 0.05);
    }
}

/// The JSON Schemas of the tournament's files, committed under `spec/schema/tournament/`:
/// derived by schemars from the serde types that read and write them (the journal line, the
/// plan, the standings, and this file's `RawConfig`), and for the config's option sections from
/// the match flags each section holds. `UPDATE_SCHEMAS=1 cargo test -p aluette-referee --bin
/// referee tournament_schemas` rewrites them.
#[cfg(test)]
mod schemas {
    use super::*;
    use crate::tournament::files::{Entry, Plan, Standings};
    use schemars::generate::SchemaSettings;
    use serde_json::{Map, json};

    /// Where the files live, relative to the workspace.
    const DIR: &str = "tournament";

    fn spec_schema() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/schema")
    }

    /// A root schema of `T`: what the referee writes (`write`) or what it reads.
    fn root<T: schemars::JsonSchema>(title: &str, write: bool) -> Value {
        let settings = SchemaSettings::draft2020_12();
        let settings = if write { settings.for_serialize() } else { settings.for_deserialize() };
        let mut v = settings.into_generator().into_root_schema_for::<T>().to_value();
        v["title"] = json!(title);
        as_protocol_does(&mut v);
        v
    }

    /// Gives every part what `protocol`'s schemas give theirs: descriptions as paragraphs (doc
    /// lines joined), and 64-bit integers flagged, since a JSON parser that reads numbers as
    /// doubles loses precision above 2^53.
    fn as_protocol_does(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if map.get("format") == Some(&json!("uint64")) {
                    let why = "may exceed 2^53: read it as a 64-bit integer";
                    map.insert("$comment".into(), json!(why));
                }
                if let Some(Value::String(doc)) = map.get_mut("description") {
                    *doc = protocol::schema::doc(&doc.lines().collect::<Vec<_>>());
                }
                map.values_mut().for_each(as_protocol_does);
            }
            Value::Array(items) => items.iter_mut().for_each(as_protocol_does),
            _ => {}
        }
    }

    /// The schema of one section's value: each flag under its heading is a key, described by
    /// the flag's help, taking the flag's words, or its type within the range its own parser
    /// names when it refuses a non-number; `true`/`false` stand for `on`/`off`, and a flag
    /// without a default may be `"off"` (or `false`): not set.
    fn section(heading: &str) -> Value {
        let mut props = Map::new();
        for arg in flags_under(heading) {
            let name = arg.get_long().unwrap_or_default().to_string();
            let words: Vec<String> =
                arg.get_possible_values().iter().map(|p| p.get_name().to_owned()).collect();
            let is_float = arg.get_value_parser().type_id() == std::any::TypeId::of::<f64>();
            // A number flag refuses a word, naming its range; any other takes it as text.
            let refused = Flags::try_parse_from([format!("--{name}"), "x".into()])
                .err()
                .map(|e| e.to_string());
            let range = refused.as_deref().and_then(super::super::values::range_in);
            let mut value = if !words.is_empty() {
                let s = json!({ "enum": words });
                if words.iter().any(|w| w == "on") && words.iter().any(|w| w == "off") {
                    json!({ "anyOf": [s, { "type": "boolean" }] })
                } else {
                    s
                }
            } else if let Some((lo, hi)) = range {
                let kind = if is_float { "number" } else { "integer" };
                let mut s = json!({ "type": kind });
                s["minimum"] = serde_json::from_str(lo).unwrap();
                s["maximum"] = serde_json::from_str(hi).unwrap();
                if arg.get_default_values().is_empty() {
                    s = json!({ "anyOf": [s, { "const": "off" }, { "const": false }] });
                }
                s
            } else {
                assert!(refused.is_none(), "--{name} refuses a word without a range: {refused:?}");
                json!({ "type": "string" })
            };
            if let Some(help) = arg.get_help() {
                value["description"] = json!(help.to_string());
            }
            if let Some(d) = arg.get_default_values().first() {
                let d = d.to_string_lossy().into_owned();
                let typed = serde_json::from_str::<Value>(&d).ok().filter(Value::is_number);
                value["default"] = typed.unwrap_or(Value::String(d));
            }
            props.insert(name, value);
        }
        json!({
            "description": format!("The options under \"{heading}\" in `referee match --help`, named like the flags."),
            "type": "object",
            "properties": props,
            "additionalProperties": false,
        })
    }

    /// Every file, by path under `spec/schema/`.
    pub(super) fn files() -> Vec<(String, Value)> {
        let mut config = root::<RawConfig>("Tournament config file (TOML or JSON)", false);
        for (name, heading) in SECTIONS {
            config["properties"][name] = section(heading);
        }
        vec![
            (format!("{DIR}/config.json"), config),
            (format!("{DIR}/journal-line.json"), root::<Entry>("Tournament journal line", true)),
            (format!("{DIR}/standings.json"), root::<Standings>("standings.json", true)),
            (format!("{DIR}/tournament.json"), root::<Plan>("tournament.json", true)),
        ]
    }

    #[test]
    fn committed_tournament_schemas_are_current() {
        let files = files();
        let dir = spec_schema().join(DIR);
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (path, value) in &files {
                std::fs::write(spec_schema().join(path), protocol::schema::text(value)).unwrap();
            }
        }
        let mut committed: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("{DIR}/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        committed.sort();
        let generated: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
        let again =
            "run UPDATE_SCHEMAS=1 cargo test -p aluette-referee --bin referee tournament_schemas";
        assert_eq!(committed, generated, "spec/schema/{DIR}/ holds other files: {again}");
        for (path, value) in &files {
            let text = std::fs::read_to_string(spec_schema().join(path)).unwrap();
            assert!(text == protocol::schema::text(value), "spec/schema/{path} is stale: {again}");
            assert!(jsonschema::meta::is_valid(value), "{path} is not a valid JSON Schema");
        }
    }
}
