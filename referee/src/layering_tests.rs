//! The layering of ARCHITECTURE.md, checked against the source: every `crate::` path in
//! `referee/src` may only name its own module or one of a lower row of the table, so no module
//! imports its caller and nothing but `main` knows the command line; inside `bot`, the same rule
//! holds for its rooms (`process`, `link`, `lobby`, ...) by a table of their own. The tables are
//! read from ARCHITECTURE.md itself, so the rule is written down once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ARCHITECTURE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../ARCHITECTURE.md"));

/// The head of the table of the crate's layers, and of the table of `bot`'s rooms.
const LAYERS: &str = "| Layer | Modules |";
const ROOMS: &str = "| Room of bot | Modules |";

/// The rows of the layering table, top first: each a list of top-level modules.
fn layers(doc: &str) -> Result<Vec<Vec<String>>, String> {
    table(doc, LAYERS)
}

/// The rows of the table headed `head`, top first: each a list of modules.
fn table(doc: &str, head: &str) -> Result<Vec<Vec<String>>, String> {
    let mut lines = doc.lines().skip_while(|l| !l.trim_start().starts_with(head));
    if lines.next().is_none() {
        return Err(format!("ARCHITECTURE.md has no table headed {head}"));
    }
    let rows: Vec<Vec<String>> = lines
        .skip(1)
        .take_while(|l| l.trim_start().starts_with('|'))
        .map(|l| {
            let cell = l.split('|').nth(2).unwrap_or_default();
            cell.split(',').map(|m| m.trim().trim_matches('`').to_string()).collect()
        })
        .collect();
    if rows.len() < 2 {
        return Err(format!("the table headed {head} has fewer than two rows"));
    }
    Ok(rows)
}

/// A source file: its path under `src/`, the top-level module it belongs to, how deep its
/// module sits (1 for `x.rs` and `x/mod.rs`), and its text.
#[derive(Clone, Debug)]
struct Source {
    path: String,
    module: String,
    depth: usize,
    text: String,
}

impl Source {
    /// The folder under the top-level module's own that the file is in, if any (`link` for
    /// `bot/link/tcp.rs`; none for `bot/ask.rs`).
    fn folder(&self) -> Option<&str> {
        let mut parts = self.path.split('/');
        parts.next()?;
        let second = parts.next()?;
        parts.next().map(|_| second)
    }
}

/// Every `.rs` file under `src`, with the module it belongs to. A file included by a
/// `#[path = "..."]` attribute belongs to the module that includes it.
fn sources(src: &Path) -> Result<Vec<Source>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(src, &mut files)?;
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).map_err(|e| e.to_string())?;
        let parts: Vec<String> =
            rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        let depth = parts.iter().filter(|p| p.as_str() != "mod").count();
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        found.push(Source {
            path: rel.to_string_lossy().into_owned(),
            module: parts[0].clone(),
            depth,
            text,
        });
    }
    // `#[path]` files: relative to the directory of the file that names them.
    let mut owner: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for s in &found {
        for rest in s.text.split("#[path = \"").skip(1) {
            let Some(name) = rest.split('"').next() else { continue };
            let dir = Path::new(&s.path).parent().unwrap_or(Path::new(""));
            owner
                .insert(dir.join(name).to_string_lossy().into_owned(), (s.module.clone(), s.depth));
        }
    }
    for s in &mut found {
        if let Some((module, depth)) = owner.get(&s.path) {
            s.module = module.clone();
            s.depth = depth + 1;
        }
    }
    Ok(found)
}

fn ident(t: &str) -> String {
    t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// The first name of every path that follows `prefix` in `text`: `prefix` `m`, and each item of
/// `prefix` `{m, ..}`.
fn path_heads(text: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for rest in text.split(prefix).skip(1) {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            out.push(ident(item.trim()));
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// The names a `super::` path of `s` gives right after climbing `climbs` modules, for each
/// path that climbs at least `at_least`, as `(climbs, name)`.
fn super_heads(s: &Source, at_least: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = s.text.as_str();
    while let Some(at) = rest.find("super::") {
        let mut after = &rest[at..];
        let mut climbs = 0;
        while let Some(r) = after.strip_prefix("super::") {
            climbs += 1;
            after = r;
        }
        if climbs >= at_least {
            out.push((climbs, ident(after)));
        }
        rest = after;
    }
    out
}

/// The top-level modules a file's code names: `crate::m`, the items of `crate::{m, ..}`, and a
/// `super::` path that climbs to the crate root.
fn named_modules(s: &Source) -> Vec<String> {
    let mut out = path_heads(&s.text, "crate::");
    // A file's own `super::` only reaches the root from a top-level file (or by climbing past
    // its own module); an inline `mod tests` counts one more, which errs on the strict side.
    out.extend(super_heads(s, s.depth).into_iter().map(|(_, m)| m));
    out.retain(|m| !m.is_empty());
    out
}

/// The room of `bot` a file of `bot` is in: its folder's, or `bot` itself for the files beside
/// `bot/mod.rs` (the bot, its handshake, its questions, its lifecycle).
fn room_of(s: &Source) -> String {
    s.folder().unwrap_or("bot").to_string()
}

/// The rooms of `bot` a file of `bot` names: `crate::bot::x` and `super::` paths that climb to
/// `bot`, each as the room its first name is, an item of `bot` itself (`Bot`, say) being the room
/// `bot`. Like the crate's check, it errs on the strict side: a `super::` in an inline `mod
/// tests` is taken to climb one module less than it does.
fn named_rooms(s: &Source, rooms: &BTreeMap<&str, usize>) -> Vec<String> {
    let as_room = |name: String| {
        if rooms.contains_key(name.as_str()) { name } else { "bot".to_string() }
    };
    let mut out: Vec<String> = path_heads(&s.text, "crate::bot::")
        .into_iter()
        .filter(|name| !name.is_empty())
        .map(as_room)
        .collect();
    // `bot` is module depth 1: a file at depth d reaches it by climbing d - 1.
    let to_bot = s.depth.saturating_sub(1);
    if to_bot > 0 {
        out.extend(
            super_heads(s, to_bot)
                .into_iter()
                .filter(|(climbs, name)| *climbs == to_bot && !name.is_empty())
                .map(|(_, name)| as_room(name)),
        );
    }
    out
}

/// Inside `bot`: every path that names a room of the same or a higher row, and every room the
/// table and the folders of `bot` do not agree on.
fn room_violations(rows: &[Vec<String>], files: &[Source]) -> Vec<String> {
    let row_of: BTreeMap<&str, usize> =
        rows.iter().enumerate().flat_map(|(i, r)| r.iter().map(move |m| (m.as_str(), i))).collect();
    let bot: Vec<&Source> = files.iter().filter(|f| f.module == "bot").collect();
    let mut out = Vec::new();
    let mut found: std::collections::BTreeSet<String> = bot.iter().map(|f| room_of(f)).collect();
    found.insert("bot".into());
    for room in &found {
        if !row_of.contains_key(room.as_str()) {
            out.push(format!("room {room} of bot is in no row of the rooms table"));
        }
    }
    for room in row_of.keys() {
        if !found.contains(*room) {
            out.push(format!("the rooms table names {room}, which is not a folder of src/bot/"));
        }
    }
    for f in bot {
        let mine = room_of(f);
        let Some(&my_row) = row_of.get(mine.as_str()) else { continue };
        for used in named_rooms(f, &row_of) {
            let Some(&theirs) = row_of.get(used.as_str()) else { continue };
            if used != mine && theirs <= my_row {
                out.push(format!(
                    "src/{} (room {mine}, row {}) uses {used} (row {}): a room may only use lower rows",
                    f.path,
                    my_row + 1,
                    theirs + 1
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every path that names a module of the same or a higher row, and every module the table and
/// the source do not agree on.
fn violations(rows: &[Vec<String>], files: &[Source]) -> Vec<String> {
    let row_of: BTreeMap<&str, usize> =
        rows.iter().enumerate().flat_map(|(i, r)| r.iter().map(move |m| (m.as_str(), i))).collect();
    let mut out = Vec::new();
    let modules: std::collections::BTreeSet<&str> =
        files.iter().map(|f| f.module.as_str()).collect();
    for m in &modules {
        if !row_of.contains_key(m) {
            out.push(format!("module {m} is in no row of the layering table"));
        }
    }
    for m in row_of.keys() {
        if !modules.contains(m) {
            out.push(format!("the layering table names {m}, which is not a module of src/"));
        }
    }
    for f in files {
        let Some(&mine) = row_of.get(f.module.as_str()) else { continue };
        for used in named_modules(f) {
            if used == f.module {
                continue;
            }
            // A name that is no module (a function reached by `super::`) is not a dependency.
            let Some(&theirs) = row_of.get(used.as_str()) else { continue };
            if theirs <= mine {
                out.push(format!(
                    "src/{} ({}, row {}) uses {used} (row {}): a module may only use lower rows",
                    f.path,
                    f.module,
                    mine + 1,
                    theirs + 1
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Issue 17: `cli` and `tournament` imported each other, and `html`, `seat_replay` and
/// `tournament/table.rs` reached up into the command line and `match_cmd`.
#[test]
fn every_module_uses_only_lower_layers_of_the_architecture_table() {
    let rows = layers(ARCHITECTURE).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = sources(&src).unwrap();
    // This checker, whose examples name modules in strings, is not part of the layering.
    let me = Path::new(file!()).file_name().unwrap().to_string_lossy().into_owned();
    files.retain(|f| f.path != me);
    assert!(files.len() > 20 && rows.iter().flatten().count() > 10, "the walk saw too little");
    let found = violations(&rows, &files);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
    // Only the entry knows the command line: above it stand main, the library root whose
    // `cli_main` main calls, and tests of the whole program, which do not use it either.
    let cli_row = rows.iter().position(|r| r.iter().any(|m| m == "cli")).unwrap();
    let above: Vec<&String> = rows[..cli_row].iter().flatten().collect();
    assert!(above.iter().any(|m| *m == "main"), "{above:?}");
    assert!(
        above.iter().all(|m| *m == "main" || *m == "lib" || m.ends_with("_tests")),
        "{above:?}"
    );
    for f in files.iter().filter(|f| f.module.ends_with("_tests")) {
        assert!(!named_modules(f).iter().any(|m| m == "cli"), "src/{} uses cli", f.path);
    }
    let rooms = table(ARCHITECTURE, ROOMS).unwrap();
    assert!(files.iter().filter(|f| f.module == "bot").count() > 15, "the walk saw too little");
    let found = room_violations(&rooms, &files);
    assert!(found.is_empty(), "the rooms of bot broken:\n{}", found.join("\n"));
}

/// The rooms' check sees each way a file of `bot` names a room or `bot` itself, and reports a
/// folder missing from its table.
#[test]
fn the_rooms_check_catches_a_room_that_uses_its_caller() {
    let rows: Vec<Vec<String>> = [&["lobby"][..], &["bot"], &["relay", "players"], &["link"]]
        .iter()
        .map(|r| r.iter().map(|m| m.to_string()).collect())
        .collect();
    let file = |path: &str, depth: usize, text: &str| Source {
        path: path.into(),
        module: "bot".into(),
        depth,
        text: text.into(),
    };
    let clean = vec![
        file("bot/mod.rs", 1, "use crate::bot::link::LineConn; use crate::bot::relay::X;"),
        file("bot/ask.rs", 2, "use super::link::Incoming; mod tests { use super::*; }"),
        file("bot/lobby/door.rs", 3, "use crate::bot::{Bot, relay::Resumable}; use super::Gate;"),
        file("bot/relay/carry.rs", 3, "use crate::bot::link::{LineConn, Reader};"),
        file("bot/players/mod.rs", 2, "use super::players::Player;"),
        file("bot/link/mod.rs", 2, "mod tcp; mod tests { use super::*; }"),
        file("bot/link/tcp.rs", 3, "use super::{Reader, Socket};"),
    ];
    assert_eq!(room_violations(&rows, &clean), Vec::<String>::new());
    for (path, depth, text) in [
        ("bot/link/tcp.rs", 3, "use crate::bot::Bot;"),
        ("bot/link/tcp.rs", 3, "use super::super::relay::Resumable;"),
        ("bot/link/mod.rs", 2, "use super::ConnectConfig;"),
        ("bot/relay/mod.rs", 2, "use crate::bot::{players::Player};"),
        ("bot/ask.rs", 2, "use crate::bot::lobby::Lobby;"),
    ] {
        let mut files = clean.clone();
        files.push(file(path, depth, text));
        assert_eq!(room_violations(&rows, &files).len(), 1, "{text}");
    }
    let mut files = clean.clone();
    files.push(file("bot/process/mod.rs", 2, ""));
    assert_eq!(
        room_violations(&rows, &files),
        ["room process of bot is in no row of the rooms table"]
    );
    let files: Vec<Source> =
        clean.into_iter().filter(|f| !f.path.starts_with("bot/players/")).collect();
    assert_eq!(
        room_violations(&rows, &files),
        ["the rooms table names players, which is not a folder of src/bot/"]
    );
}

/// The checker sees each way of naming a module, and reports a module missing from the table.
#[test]
fn the_layering_check_catches_an_import_of_a_caller() {
    let rows: Vec<Vec<String>> =
        [&["main"][..], &["cli"], &["match_cmd", "tournament"], &["bot"], &["text"]]
            .iter()
            .map(|r| r.iter().map(|m| m.to_string()).collect())
            .collect();
    let file = |path: &str, module: &str, depth: usize, text: &str| Source {
        path: path.into(),
        module: module.into(),
        depth,
        text: text.into(),
    };
    let clean = vec![
        file("main.rs", "main", 1, "mod cli;"),
        file("cli/mod.rs", "cli", 1, "use crate::{bot::X, match_cmd};"),
        file("match_cmd.rs", "match_cmd", 1, "use crate::bot::{self, Y};"),
        file("tournament/table.rs", "tournament", 2, "use super::Queue; crate::text::escape(x)"),
        file("bot/mod.rs", "bot", 1, "mod tests { use super::*; }"),
        file("text.rs", "text", 1, ""),
    ];
    assert_eq!(violations(&rows, &clean), Vec::<String>::new());
    for (path, module, depth, text) in [
        ("tournament/config.rs", "tournament", 2, "use crate::cli::NetArgs;"),
        ("tournament/table.rs", "tournament", 2, "f(crate::match_cmd::BYE_GRACE)"),
        ("bot/tcp.rs", "bot", 2, "use crate::{text, tournament::Config};"),
        ("bot/tcp.rs", "bot", 2, "use super::super::match_cmd::X;"),
        ("text.rs", "text", 1, "use super::bot::Bot;"),
    ] {
        let mut files = clean.clone();
        files.push(file(path, module, depth, text));
        assert_eq!(violations(&rows, &files).len(), 1, "{text}");
    }
    let mut files = clean.clone();
    files.push(file("judge.rs", "judge", 1, ""));
    assert_eq!(violations(&rows, &files), ["module judge is in no row of the layering table"]);
    files.pop();
    files.retain(|f| f.module != "text");
    assert_eq!(
        violations(&rows, &files),
        ["the layering table names text, which is not a module of src/"]
    );
    assert_eq!(
        layers("x\n| Layer | Modules |\n|---|---|\n| a | `main` |\n| b | `cli`, `x` |\n\nmore")
            .unwrap(),
        [vec!["main".to_string()], vec!["cli".to_string(), "x".to_string()]]
    );
}
