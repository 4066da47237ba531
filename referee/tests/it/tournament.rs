//! End-to-end tests of `referee tournament` and `referee standings`: the real binary, real bot
//! processes and the real clock, and the files a tournament leaves behind. The statistics are
//! unit-tested inside the module on results whose answer is known; these show that the pieces
//! hold together as a user runs them, including a kill with SIGKILL in the middle.

use crate::harness::{
    RUN_LIMIT, Scratch, assert_replays, gated, jsonl, py_random, read_json, record_files, referee,
    referee_cmd, referee_ok, s, text, unplayable,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The referee fails with one line of its own (not clap's) on stderr; returns it.
fn referee_fails(args: &[&str]) -> String {
    let line = crate::harness::referee_fails(args);
    assert!(line.starts_with("referee: "), "{line}");
    line
}

/// Writes the tournament config `file` into the scratch folder: `settings` (TOML) and then the
/// entrants, each (name, command).
fn write_config(sc: &Scratch, file: &str, settings: &str, names: &[(&str, &str)]) -> PathBuf {
    sc.write(file, &format!("{settings}\n\n{}", entrants(names)))
}

fn entrants(names: &[(&str, &str)]) -> String {
    names
        .iter()
        .map(|(n, c)| format!("[[entrants]]\nname = \"{n}\"\ncommand = {c:?}\n\n"))
        .collect()
}

fn row<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings["entrants"]
        .as_array()
        .expect("entrant rows")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row for {name}"))
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

#[test]
fn round_robin_of_three_with_a_python_entrant() {
    let sc = Scratch::new("round-robin");
    let python = py_random();
    let config = write_config(
        &sc,
        "rr.toml",
        "seed = 11\nformat = \"round-robin\"\ngames = 2\nconcurrency = 2\n\n[clock]\nhandshake-ms = 20000",
        &[("heuristic", "builtin:heuristic"), ("random", "builtin:random"), ("python", &python)],
    );
    let out = sc.join("out");
    let stdout = referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    assert!(stdout.contains("Standings: round-robin tournament, 3 entrants"), "{stdout}");
    let st = read_json(&out.join("standings.json"));
    assert_eq!(st["tournament"]["scheduled"], 6);
    assert_eq!(st["tournament"]["played"], 6);
    assert_eq!(st["tournament"]["pending"], 0);
    let (mut wins, mut losses, mut elo_sum) = (0, 0, 0.0);
    let mut ranks = Vec::new();
    for name in ["heuristic", "random", "python"] {
        let r = row(&st, name);
        assert_eq!(n(&r["games"]), 4, "{name} meets both others twice");
        assert_eq!(n(&r["won"]) + n(&r["drawn"]) + n(&r["lost"]), 4);
        assert_eq!(n(&r["deals_played"]), 20, "{name}: 4 games of 5 deals");
        assert!(n(&r["deals_won"]) <= 20);
        assert_eq!(n(&r["faults_total"]), 0, "{name} played cleanly: {r}");
        assert!(r["think_mean_ms"].as_f64().is_some_and(|t| t >= 0.0), "{r}");
        let (elo, low, high) = (&r["elo"], &r["elo_low"], &r["elo_high"]);
        let elo = elo.as_f64().expect("a rating");
        assert!(low.as_f64().is_none_or(|l| l <= elo) && high.as_f64().is_none_or(|h| h >= elo));
        elo_sum += elo;
        wins += n(&r["won"]);
        losses += n(&r["lost"]);
        ranks.push(n(&r["rank"]));
    }
    assert_eq!(wins, losses);
    assert!(elo_sum.abs() < 0.5, "ratings are centred on 0: {elo_sum}");
    ranks.sort();
    assert_eq!(ranks, vec![1, 2, 3]);
    assert_eq!(st["pairs"].as_array().expect("pairs").len(), 3);
    let csv = std::fs::read_to_string(out.join("standings.csv")).expect("standings.csv");
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.starts_with("rank,name,games,won,drawn,lost"));
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).expect("pairs.csv");
    assert_eq!(pairs.lines().count(), 4);
    // Every game is journaled once, recorded, and replays.
    let journal = jsonl(&out.join("journal.jsonl"));
    assert_eq!(journal.len(), 6);
    let files = record_files(&out.join("records"));
    assert_eq!(files.len(), 6);
    for f in &files {
        assert_replays(f);
    }
    // The python bots' stderr logs sit in logs/, where the records' headers point.
    let header = &jsonl(&files[2])[0];
    let stderr = header["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find_map(|seat| seat["stderr"].as_str())
        .expect("game 3 (heuristic against python) has a python seat with a log");
    assert!(stderr.starts_with("../logs/"), "{stderr}");
    assert!(out.join("records").join(stderr).exists(), "{stderr} is missing");
}

#[test]
fn duplicate_rooms_get_the_same_decks_with_partnerships_swapped() {
    let sc = Scratch::new("duplicate");
    let config = write_config(
        &sc,
        "dup.toml",
        "seed = 5\ngames = 3\nconcurrency = 2",
        &[("H", "builtin:heuristic"), ("R", "builtin:random")],
    );
    let out = sc.join("out");
    referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    let journal = jsonl(&out.join("journal.jsonl"));
    assert_eq!(journal.len(), 6);
    let mut sets: BTreeMap<u64, BTreeMap<u64, PathBuf>> = BTreeMap::new();
    for e in &journal {
        let record = out.join(e["record"].as_str().expect("a record"));
        sets.entry(n(&e["unit"])).or_default().insert(n(&e["room"]), record);
    }
    assert_eq!(sets.len(), 3);
    for (unit, rooms) in &sets {
        let r1 = jsonl(&rooms[&1]);
        let r2 = jsonl(&rooms[&2]);
        let (h1, h2) = (&r1[0], &r2[0]);
        // Same seed and first dealer; the game number bots are told is the deal set's, the
        // same in both rooms, so it does not reveal the room.
        assert_eq!(h1["seed"], h2["seed"]);
        assert_eq!(h1["first_dealer"], h2["first_dealer"]);
        assert_eq!(n(&h1["game"]), *unit);
        assert_eq!(h1["game"], h2["game"]);
        // Room 1: H holds seats 0+2 and R seats 1+3; room 2 swaps the partnerships.
        let commands = |h: &Value| -> Vec<String> {
            h["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|x| x["command"][0].to_string())
                .collect()
        };
        let (h, r) = ("\"builtin:heuristic\"".to_string(), "\"builtin:random\"".to_string());
        assert_eq!(commands(h1), vec![h.clone(), r.clone(), h.clone(), r.clone()]);
        assert_eq!(commands(h2), vec![r.clone(), h.clone(), r, h]);
        // Each deck, and so seat s's hand, is the same in both rooms: the cards H held in seat
        // s of room 1 are held by R in seat s of room 2, in the same place relative to the
        // dealer, and the other way round.
        let deals = |lines: &[Value]| -> BTreeMap<u64, (Value, Value, Value)> {
            lines
                .iter()
                .filter(|l| l["type"] == "deal")
                .map(|l| {
                    (n(&l["deal"]), (l["deck"].clone(), l["hands"].clone(), l["dealer"].clone()))
                })
                .collect()
        };
        let (d1, d2) = (deals(&r1), deals(&r2));
        assert!(!d1.is_empty());
        let mut compared = 0;
        for (deal, first) in &d1 {
            if let Some(second) = d2.get(deal) {
                assert_eq!(first, second, "deal set {unit}, deal {deal}");
                compared += 1;
            }
        }
        assert!(compared >= 5, "deal set {unit}: only {compared} deals in both rooms");
        assert_replays(&rooms[&1]);
        assert_replays(&rooms[&2]);
    }
    let st = read_json(&out.join("standings.json"));
    let pair = &st["pairs"][0];
    assert_eq!(pair["units"], 3);
    assert_eq!(n(&pair["paired_deals"]), 15);
    assert!(pair["paired_deal_score"].as_f64().is_some());
}

#[test]
fn kill_and_resume_loses_and_repeats_no_game() {
    let sc = Scratch::new("resume");
    // A Python entrant keeps each game slow enough (tens of milliseconds, whatever the build
    // profile) for the kill to land in the middle of the tournament.
    let python = py_random();
    let config = write_config(
        &sc,
        "kill.toml",
        "seed = 9\ngames = 20\nconcurrency = 2\n\n[clock]\nhandshake-ms = 20000",
        &[("H", "builtin:heuristic"), ("P", &python)],
    );
    let out = sc.join("out");
    let journal = out.join("journal.jsonl");
    let mut child = referee_cmd(&["tournament", s(&config), "--out", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the referee starts");
    let start = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count());
        if lines >= 4 {
            break;
        }
        assert!(start.elapsed() < RUN_LIMIT, "no games finished");
        assert!(child.try_wait().expect("wait").is_none(), "the tournament ended too soon");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL the referee");
    child.wait().expect("reap the referee");
    let before = jsonl(&journal).len();
    assert!(before < 40, "the kill came after the end");
    // Without --resume the folder is refused.
    let line = referee_fails(&["tournament", s(&config), "--out", s(&out)]);
    assert!(line.contains("--resume"), "{line}");
    let stdout = referee_ok(&["tournament", s(&config), "--out", s(&out), "--resume"]);
    assert!(stdout.contains(&format!("Resuming: {before} games settled")), "{stdout}");
    let games: Vec<u64> = jsonl(&journal).iter().map(|e| n(&e["game"])).collect();
    let mut sorted = games.clone();
    sorted.sort();
    assert_eq!(sorted, (1..=40).collect::<Vec<u64>>(), "every game exactly once: {games:?}");
    let files = record_files(&out.join("records"));
    assert_eq!(files.len(), 40);
    for f in &files {
        assert_replays(f);
    }
    let st = read_json(&out.join("standings.json"));
    assert_eq!(st["tournament"]["played"], 40);
}

#[test]
fn shards_merge_to_the_standings_of_one_run() {
    let sc = Scratch::new("shards");
    // A JSON config, to cover that format as well.
    let config = sc.write(
        "sharded.json",
        r#"{
  "seed": 77,
  "format": "duplicate",
  "games": 2,
  "concurrency": 1,
  "rules": { "deals": 3 },
  "entrants": [
    { "name": "H", "command": "builtin:heuristic" },
    { "name": "R", "command": "builtin:random" },
    { "name": "H2", "command": "builtin:heuristic" }
  ]
}"#,
    );
    let (one, a, b, merged) = (sc.join("one"), sc.join("a"), sc.join("b"), sc.join("merged"));
    referee_ok(&["tournament", s(&config), "--out", s(&one)]);
    referee_ok(&["tournament", s(&config), "--out", s(&a), "--shard", "1/2"]);
    referee_ok(&["tournament", s(&config), "--out", s(&b), "--shard", "2/2"]);
    let (ja, jb) = (jsonl(&a.join("journal.jsonl")), jsonl(&b.join("journal.jsonl")));
    assert_eq!(ja.len() + jb.len(), 12);
    assert!(!ja.is_empty() && !jb.is_empty());
    let text = referee_ok(&["standings", s(&a), s(&b), "--out", s(&merged)]);
    assert!(text.contains("12 of 12 games played"), "{text}");
    // Think times differ from run to run; everything else must be identical.
    fn without_timing(mut v: Value) -> Value {
        for r in v["entrants"].as_array_mut().expect("rows") {
            let obj = r.as_object_mut().expect("a row");
            obj.retain(|k, _| !k.starts_with("think_"));
        }
        v
    }
    let single = without_timing(read_json(&one.join("standings.json")));
    let combined = without_timing(read_json(&merged.join("standings.json")));
    assert_eq!(single, combined);
    assert_eq!(single["tournament"]["played"], 12);
    // A folder merged twice is refused rather than counted twice.
    let line = referee_fails(&["standings", s(&a), s(&a)]);
    assert!(line.contains("both"), "{line}");
}

#[test]
fn a_disqualified_entrant_plays_no_more() {
    let sc = Scratch::new("disqualify");
    // It starts and answers its hello (a program that cannot stops the tournament before it
    // begins), then exits at its 3rd play question of every game: one fault per seat and game,
    // two a game. Games come round by round (H-broken, H-R, broken-R, then again), so its third
    // game, the second round's against H, passes the threshold of five; the game after it may
    // have begun before the journal heard (a game's sync runs beside the next game).
    let broken = sc.misbehave("exit");
    let config = write_config(
        &sc,
        "dq.toml",
        "seed = 3\nformat = \"round-robin\"\ngames = 3\nconcurrency = 1\ndisqualify = { max-faults = 5 }\n\n[clock]\nhandshake-ms = 20000",
        &[("H", "builtin:heuristic"), ("broken", &broken), ("R", "builtin:random")],
    );
    let out = sc.join("out");
    referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    let st = read_json(&out.join("standings.json"));
    let broken = row(&st, "broken");
    assert_eq!(broken["disqualified"], true);
    assert!(n(&broken["faults"]["crashes"]) > 5, "{broken}");
    let unplayed_broken = n(&broken["not_played"]);
    assert!((2..=3).contains(&unplayed_broken), "its last games are not played: {broken}");
    assert_eq!(n(&broken["games"]) + unplayed_broken, 6, "{broken}");
    assert_eq!(n(&broken["rank"]), 3, "disqualified entrants rank last");
    let journal = jsonl(&out.join("journal.jsonl"));
    assert_eq!(journal.len(), 9, "every scheduled game is settled, played or not");
    let unplayed: Vec<&Value> = journal.iter().filter(|e| e["status"] == "not_played").collect();
    assert_eq!(unplayed.len() as u64, unplayed_broken);
    for e in &unplayed {
        assert_eq!(e["reason"], "broken was disqualified");
        assert!(e["a"] == "broken" || e["b"] == "broken", "{e}");
    }
    // H and R met in every round all the same.
    let against_r = unplayed.iter().filter(|e| e["a"] == "R" || e["b"] == "R").count() as u64;
    assert_eq!(n(&row(&st, "R")["not_played"]), against_r);
    assert_eq!(n(&row(&st, "R")["games"]) + against_r, 6);
}

#[test]
fn sprt_stops_a_lopsided_match() {
    let sc = Scratch::new("sprt");
    let config = write_config(
        &sc,
        "sprt.toml",
        "seed = 1\ngames = 500\nconcurrency = 2\nsprt = { elo0 = 0, elo1 = 100, alpha = 0.1, beta = 0.1 }",
        &[("H", "builtin:heuristic"), ("R", "builtin:random")],
    );
    let out = sc.join("out");
    let run = referee(&["tournament", s(&config), "--out", s(&out)]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    let st = read_json(&out.join("standings.json"));
    let sprt = &st["sprt"];
    assert_eq!(sprt["verdict"], "h1");
    assert_eq!(sprt["model"], "pentanomial");
    let played = n(&st["tournament"]["played"]);
    assert!(played < 200, "stopped early: {played} games");
    assert_eq!(played + n(&st["tournament"]["not_needed"]), 1000);
    assert_eq!(n(&st["tournament"]["not_played"]), 0, "no game was cut for a disqualification");
    // One LLR: the stop message gives the one the standings report.
    let llr = sprt["llr"].as_f64().expect("an LLR");
    let told = format!("referee: the SPRT accepted H1 (LLR {llr:.2})");
    assert!(stderr.contains(&told), "want {told:?} in:\n{stderr}");
    assert!(
        stdout.contains(&format!("LLR {llr:.2} after {} deal sets", sprt["units"])),
        "{stdout}"
    );
    assert!(llr >= sprt["upper"].as_f64().unwrap());
    let counted: u64 = sprt["counts"].as_array().unwrap().iter().map(n).sum();
    assert_eq!(counted, n(&sprt["units"]));
    // Whole deal sets only: every set begun was finished, in both rooms.
    let journal = jsonl(&out.join("journal.jsonl"));
    let mut rooms: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for e in journal.iter().filter(|e| e["status"] == "played") {
        rooms.entry(n(&e["unit"])).or_default().push(n(&e["room"]));
    }
    for (unit, r) in &rooms {
        assert_eq!(r.len(), 2, "deal set {unit} was cut in half: rooms {r:?}");
    }
    assert_eq!(rooms.len() as u64, n(&sprt["units"]) + n(&sprt["units_after_decision"]));
    let h = row(&st, "H");
    assert_eq!(n(&h["won"]) + n(&h["drawn"]) + n(&h["lost"]), played);
    assert_eq!(played % 2, 0);
    // The games the SPRT made unnecessary say so, and are not "not played".
    for e in journal.iter().filter(|e| e["status"] != "played") {
        assert_eq!(e["status"], "not_needed", "{e}");
        assert!(e["reason"].as_str().unwrap().starts_with("the SPRT accepted H1"), "{e}");
    }
    assert_eq!(n(&sprt["games_not_needed"]), 1000 - played);
    assert!(stdout.contains(&format!("{} not needed (the SPRT had decided)", 1000 - played)));
    assert!(stdout.contains("The match stopped on the SPRT's decision"), "{stdout}");
    assert!(!stdout.contains(" not played)"), "{stdout}");
    // The progress ends at the games played, not at the schedule's 1000 (stderr is a pipe
    // here, so the progress comes as plain lines).
    let last = stderr.lines().rfind(|l| l.starts_with("referee: tournament: "));
    let want = format!("referee: tournament: {played}/{played} games");
    assert!(last.is_some_and(|l| l.starts_with(&want)), "want {want:?}, got {last:?}\n{stderr}");
}

#[test]
fn an_entrant_that_cannot_start_stops_the_tournament_before_any_game() {
    let sc = Scratch::new("cannot-start");
    for (case, command, want) in unplayable(&sc) {
        let config = write_config(
            &sc,
            &format!("{case}.toml"),
            "seed = 1\ngames = 2\n\n[clock]\nhandshake-ms = 20000",
            &[("good", "builtin:heuristic"), ("bad", &command)],
        );
        let out = sc.join(case);
        let line = referee_fails(&["tournament", s(&config), "--out", s(&out)]);
        assert!(line.contains("entrant \"bad\" cannot play"), "{case}: {line}");
        assert!(line.contains(want), "{case}: want {want:?} in {line}");
        assert!(line.contains("no game was played"), "{case}: {line}");
        for file in ["tournament.json", "journal.jsonl", "records", "standings.json"] {
            assert!(!out.join(file).exists(), "{case}: {file} was written");
        }
        if case == "missing" {
            // Nothing is left that blocks the folder: with the bot fixed, it starts afresh.
            let fixed = write_config(
                &sc,
                "fixed.toml",
                "seed = 1\ngames = 1",
                &[("good", "builtin:heuristic"), ("bad", "builtin:random")],
            );
            referee_ok(&["tournament", s(&fixed), "--out", s(&out)]);
        }
    }
}

/// A resumable tournament with a program entrant, and the config text for it with `top` keys,
/// `python` arguments and `sections` added.
fn resumable(top: &str, python: &str, sections: &str) -> String {
    let command = format!("{}{python}", py_random());
    format!(
        "seed = 4\ngames = 2\nconcurrency = 1\n{top}\n{}[clock]\nhandshake-ms = 20000\n{sections}",
        entrants(&[("H", "builtin:heuristic"), ("P", &command)])
    )
}

#[test]
fn resume_refuses_a_config_that_changes_the_games_and_never_rewrites_the_plan() {
    let sc = Scratch::new("resume-changed");
    let config = sc.write("t.toml", &resumable("", "", ""));
    let out = sc.join("out");
    referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    let plan = std::fs::read(out.join("tournament.json")).unwrap();
    let journal = std::fs::read(out.join("journal.jsonl")).unwrap();
    let changes = [
        ("command", resumable("", " --seed 2", ""), "entrant \"P\" has the command"),
        ("rules", resumable("", "", "[rules]\ndeals = 3\n"), "rules.deals is 3"),
        ("clock", resumable("", "", "answer-ms = 900\n"), "clock.answer_ms is 900"),
        ("policy", resumable("", "", "[faults]\non-fault = \"forfeit\"\n"), "policy.on_fault"),
        (
            "limits",
            resumable("", "", "[limits]\nmax-line-bytes = 100000\n"),
            "limits.max_line_bytes is 100000",
        ),
        ("memory", resumable("", "", "[limits]\nbot-memory-mib = 512\n"), "limits.bot_memory_mib"),
        ("net", resumable("", "", "[net]\nconnect-wait-ms = 5\n"), "net.connect_wait_ms"),
        ("format", resumable("format = \"round-robin\"", "", ""), "format is round-robin"),
        ("games", resumable("games = 3", "", "").replacen("games = 2\n", "", 1), "games is 3"),
        ("seed", resumable("", "", "").replacen("seed = 4", "seed = 5", 1), "seed"),
        ("sprt", resumable("sprt = { elo0 = 0, elo1 = 50 }", "", ""), "sprt is"),
        ("disqualify", resumable("disqualify = { max-faults = 9 }", "", ""), "disqualify is"),
    ];
    for (what, text, want) in changes {
        let changed = sc.write(&format!("{what}.toml"), &text);
        let line = referee_fails(&["tournament", s(&changed), "--out", s(&out), "--resume"]);
        assert!(line.contains(want), "{what}: want {want:?} in {line}");
        assert!(line.contains("cannot resume"), "{what}: {line}");
        assert_eq!(std::fs::read(out.join("tournament.json")).unwrap(), plan, "{what}");
        assert_eq!(std::fs::read(out.join("journal.jsonl")).unwrap(), journal, "{what}");
    }
    // What changes no game may change: the output, the tables, the stderr cap.
    let same = sc.write(
        "same.toml",
        &resumable("concurrency = 2", "", "[limits]\nstderr-cap = 4096\n").replacen(
            "concurrency = 1\n",
            "",
            1,
        ),
    );
    let stdout = referee_ok(&["tournament", s(&same), "--out", s(&out), "--resume"]);
    assert!(stdout.contains("Resuming: 4 games settled, 0 to play"), "{stdout}");
    assert_eq!(std::fs::read(out.join("tournament.json")).unwrap(), plan, "a resume rewrote it");
}

/// Waits until `path` exists and holds `want` (a pid), failing after [`RUN_LIMIT`].
fn wait_for(path: &Path, want: &str, child: &mut std::process::Child) {
    let start = Instant::now();
    while !std::fs::read_to_string(path).is_ok_and(|t| t.contains(want)) {
        assert!(start.elapsed() < RUN_LIMIT, "{} never held {want:?}", path.display());
        assert!(child.try_wait().expect("wait").is_none(), "the first referee ended too soon");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_second_referee_on_the_folder_is_refused_and_resume_works_after_kill_9() {
    let sc = Scratch::new("lock");
    let gate = sc.join("gate");
    let python = py_random();
    let config = write_config(
        &sc,
        "lock.toml",
        "seed = 2\ngames = 2\nconcurrency = 1\n\n[clock]\nhandshake-ms = 60000",
        &[("H", "builtin:heuristic"), ("P", &gated(&sc, &gate, 1, &python))],
    );
    let out = sc.join("out");
    let mut first = referee_cmd(&["tournament", s(&config), "--out", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the referee starts");
    let pid = first.id().to_string();
    // Its first game waits at the gate: the folder is held, the plan and the run are written.
    wait_for(&out.join("referee.lock"), &pid, &mut first);
    wait_for(&out.join("runs.jsonl"), "\"run\":1", &mut first);
    for args in [
        vec!["tournament", s(&config), "--out", s(&out), "--resume"],
        vec!["tournament", s(&config), "--out", s(&out)],
    ] {
        let line = referee_fails(&args);
        assert!(line.contains(&format!("in use by another referee (pid {pid})")), "{line}");
    }
    assert_eq!(jsonl(&out.join("runs.jsonl")).len(), 1, "the refused referees wrote nothing");
    assert!(!out.join("records/unfinished").exists(), "nothing was moved aside");
    first.kill().expect("SIGKILL the referee");
    first.wait().expect("reap the referee");
    std::fs::write(&gate, "").unwrap();
    // The kernel dropped the dead referee's lock: the resume takes the folder.
    referee_ok(&["tournament", s(&config), "--out", s(&out), "--resume"]);
    let games: Vec<u64> = jsonl(&out.join("journal.jsonl")).iter().map(|e| n(&e["game"])).collect();
    assert_eq!(games.len(), 4, "{games:?}");
    let lock = std::fs::read_to_string(out.join("referee.lock")).unwrap();
    assert_ne!(lock.trim(), pid, "the lock file names its last holder");
}

#[test]
fn a_clean_sweep_is_an_infinite_elo_in_every_file() {
    let sc = Scratch::new("sweep");
    // Under the forfeit policy its first card not held loses the game: it loses every game.
    let loser = sc.misbehave("illegal-always");
    let config = write_config(
        &sc,
        "sweep.toml",
        "seed = 8\nformat = \"round-robin\"\ngames = 2\nconcurrency = 1\n\n[clock]\nhandshake-ms = 20000\n[faults]\non-fault = \"forfeit\"",
        &[("H", "builtin:heuristic"), ("L", &loser)],
    );
    let out = sc.join("out");
    let stdout = referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    assert!(stdout.contains("H vs L: 2 games, +2 =0 -0 (100.0%)"), "{stdout}");
    assert!(stdout.contains("Elo +inf over 2 games"), "{stdout}");
    let st = read_json(&out.join("standings.json"));
    assert_eq!(st["pairs"][0]["elo"], "+inf", "{}", st["pairs"][0]);
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    let pair = pairs.lines().nth(1).unwrap();
    assert!(pair.starts_with("H,L,") && pair.ends_with(",+inf,+inf,+inf"), "{pair}");
    // The ratings are finite (the fit's virtual draw): numbers in both files.
    assert!(row(&st, "H")["elo"].as_f64().is_some_and(|e| e > 0.0));
    let csv = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    let mut lines = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let elo = header.iter().position(|&h| h == "elo").unwrap();
    for r in lines {
        assert!(r[elo].parse::<f64>().is_ok_and(f64::is_finite), "{csv}");
    }
}

#[test]
fn bad_configs_fail_with_one_clear_line() {
    let sc = Scratch::new("bad-config");
    let two = entrants(&[("A", "builtin:heuristic"), ("B", "builtin:random")]);
    let out = sc.join("out");
    let cases = [
        ("unknown.toml", format!("colour = \"blue\"\n{two}"), "unknown field `colour`"),
        ("value.toml", format!("[rules]\nchant = \"maybe\"\n\n{two}"), "rules.chant"),
        ("section.toml", format!("[clock]\nanswer = 3\n\n{two}"), "unknown option clock.answer"),
        ("alone.toml", entrants(&[("A", "builtin:heuristic")]), "at least two entrants"),
        (
            "same.toml",
            entrants(&[("A", "builtin:heuristic"), ("A", "builtin:random")]),
            "appears twice",
        ),
        ("gauntlet.toml", format!("gauntlet = \"Z\"\n{two}"), "gauntlet \"Z\""),
        // Names people read: a right-to-left override reorders the standings' text, and a name
        // of zero-width spaces and fillers shows nothing (TOML escapes, so the file is ASCII).
        (
            "bidi.toml",
            entrants(&[("A\\u202Eb", "builtin:heuristic"), ("B", "builtin:random")]),
            "entrant name holds the control character U+202E",
        ),
        (
            "blank.toml",
            entrants(&[("\\u200B\\u3164", "builtin:heuristic"), ("B", "builtin:random")]),
            "has no visible character",
        ),
        ("syntax.toml", format!("games = = 3\n{two}"), "line 1"),
        ("syntax.json", "{\"games\": }".to_string(), "syntax.json"),
        ("config.yaml", two.clone(), ".toml or .json"),
    ];
    for (name, text, want) in cases {
        let path = sc.write(name, &text);
        let line = referee_fails(&["tournament", s(&path), "--out", s(&out)]);
        assert!(line.contains(want), "{name}: {line}");
        assert!(!out.exists(), "{name}: a bad config must not create the output folder");
    }
    let line = referee_fails(&["tournament", s(&sc.join("missing.toml"))]);
    assert!(line.contains("cannot read config"), "{line}");
    let ok = sc.write("ok.toml", &format!("games = 1\n{two}"));
    let line = referee_fails(&["tournament", s(&ok), "--out", s(&out), "--resume"]);
    assert!(line.contains("holds no tournament"), "{line}");
    let line = referee_fails(&["standings", s(&out)]);
    assert!(line.contains("holds no tournament"), "{line}");
}
