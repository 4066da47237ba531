//! Tests of `referee replay --html`: the page is self-contained, a seat's page holds nothing the
//! seat could not know, and the page really works in a browser (headless Chromium): stepping by
//! URL hash, by the ▶ button's click handler and by the keyboard shows the table the record
//! describes. The expected tables are derived here from the record itself, independently of the
//! page's script.
//!
//! Chromium is Debian's `chromium` package, which `.ci/run` installs. A test never installs
//! anything: without Chromium it fails, never skips, with one line saying how to get it.

use crate::harness::{
    RANDOM, RUN_LIMIT, Scratch, chromium_at, ensure_chromium, match_args, record_path, referee_cmd,
    referee_fails, referee_ok, run_limited, s as s_, starts_once,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Flags this machine needs: no sandbox (root in a container), no GPU, and nothing that talks
/// to the network or keeps state between runs.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// Runs a command to its end with stdin closed, within [`RUN_LIMIT`] (one Chromium run takes a
/// few seconds; a hang fails instead of blocking CI).
fn run(cmd: &mut Command) -> Output {
    run_limited(cmd.stdin(Stdio::null()), RUN_LIMIT)
}

/// The tests used to install Chromium themselves when it was missing. They never
/// install anything now: a missing browser is one line saying how to get it.
#[test]
fn a_missing_chromium_is_one_line_saying_how_to_get_it() {
    let line = chromium_at(Path::new("/nonexistent/chromium")).unwrap_err();
    assert!(!line.contains('\n'), "{line}");
    assert!(line.contains("Debian's chromium package (.ci/run installs it)"), "{line}");
    assert!(chromium_at(Path::new(env!("CARGO_BIN_EXE_referee"))).is_ok());
}

/// The record and the two pages every test uses, made once per test process.
#[derive(Debug)]
pub(crate) struct Fixture {
    pub(crate) dir: PathBuf,
    /// The record's lines after the header: the page's events, one step each.
    pub(crate) events: Vec<Value>,
    pub(crate) full: PathBuf,
    seat1: PathBuf,
}

fn referee(args: &[&str]) -> Output {
    let out = run(&mut referee_cmd(args));
    assert!(
        out.status.success(),
        "referee {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub(crate) fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // One folder, emptied first: the last run's record and pages stay there to look at.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html_viewer");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch folder");
        let records = dir.join("records");
        let records_arg = records.to_str().expect("a UTF-8 path");
        // Built-in bots, public signals so every seat's page shows them.
        referee(&["match", "--seed", "5", "--records", records_arg, "--signals", "public"]);
        let record = records.join("game-000001.jsonl");
        let full = dir.join("game.html");
        let seat1 = dir.join("game-seat1.html");
        let record_arg = record.to_str().expect("a UTF-8 path");
        referee(&["replay", record_arg, "--html", full.to_str().unwrap()]);
        referee(&["replay", record_arg, "--seat", "1", "--html", seat1.to_str().unwrap()]);
        let text = std::fs::read_to_string(&record).expect("read the record");
        let mut events: Vec<Value> =
            text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        assert_eq!(events.remove(0)["type"], "header");
        Fixture { dir, events, full, seat1 }
    })
}

/// The JSON embedded in a page, checked to be inert inside its `<script>` element.
pub(crate) fn embedded_data(page: &str) -> Value {
    let open = r#"<script type="application/json" id="game-data">"#;
    assert_eq!(page.matches(open).count(), 1, "exactly one data block");
    let start = page.find(open).unwrap() + open.len();
    let len = page[start..].find("</script>").expect("the data block ends");
    let json = &page[start..start + len];
    assert!(!json.contains('<'), "markup characters are escaped in the embedded JSON");
    serde_json::from_str(json).expect("the embedded data is JSON")
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn seat_of(e: &Value) -> Option<u64> {
    e.get("seat").or_else(|| e.get("from")).and_then(Value::as_u64)
}

#[test]
fn the_page_is_one_self_contained_file() {
    let f = fixture();
    let page = read(&f.full);
    for banned in ["<link", "@import", "url(", " src=", "<iframe", "fetch(", "XMLHttpRequest"] {
        assert!(!page.contains(banned), "the page must load nothing: found {banned:?}");
    }
    // The only URL is the SVG namespace, which is a name, not a fetch.
    let urls = page.matches("http://").count() + page.matches("https://").count();
    assert_eq!(urls, page.matches("http://www.w3.org/2000/svg").count(), "no external URL");
    assert!(page.contains("default-src 'none'"), "a content policy forbids any network use");

    let data = embedded_data(&page);
    assert!(data["view"].is_null());
    let events = data["events"].as_array().expect("events");
    assert_eq!(events.len(), f.events.len(), "one step per record line after the header");
    for (got, line) in events.iter().zip(&f.events) {
        assert_eq!(got["type"], line["type"]);
    }
    // The whole-game page has every hand and the deck; seeds are strings (beyond 2^53).
    let deal = &events[0];
    assert_eq!(deal["hands"], f.events[0]["hands"]);
    assert_eq!(deal["deck"], f.events[0]["deck"]);
    assert!(data["header"]["seed"].is_string());
    assert_eq!(data["header"]["match_seed"], "5");
}

/// Every key anywhere in a JSON value.
fn keys(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

#[test]
fn a_seat_page_holds_nothing_the_seat_could_not_know() {
    let f = fixture();
    let page = read(&f.seat1);
    let data = embedded_data(&page);
    assert_eq!(data["view"], 1);
    let mut all_keys = BTreeSet::new();
    keys(&data, &mut all_keys);
    for secret in ["deck", "seed", "match_seed", "raw", "command", "duration_ms", "verified"] {
        assert!(!all_keys.contains(secret), "seat 1's page must not hold {secret:?}");
    }
    // The bots' own answer lines are not in the page in any form.
    for line in &f.events {
        if let Some(raw) = line.get("raw").and_then(Value::as_str) {
            assert!(!page.contains(raw), "an answer line leaked: {raw}");
        }
    }
    let events = data["events"].as_array().expect("events");
    let record_deals: Vec<&Value> = f.events.iter().filter(|e| e["type"] == "deal").collect();
    let page_deals: Vec<&Value> = events.iter().filter(|e| e["type"] == "deal").collect();
    assert_eq!(page_deals.len(), record_deals.len());
    for (got, want) in page_deals.iter().zip(&record_deals) {
        let hands = got["hands"].as_array().expect("hands");
        for (s, hand) in hands.iter().enumerate() {
            if s == 1 {
                assert_eq!(hand, &want["hands"][1], "seat 1 sees its own hand");
            } else {
                assert!(hand.is_null(), "seat {s}'s hand is not in seat 1's page");
            }
        }
    }
    for e in events {
        let seat = seat_of(e);
        let others = seat.is_some_and(|s| s != 1);
        match e["type"].as_str().unwrap() {
            "receive" | "discard" if others => assert!(e.get("cards").is_none(), "{e}"),
            "fault" => assert_eq!(seat, Some(1), "only seat 1's own faults: {e}"),
            "signal" => {
                let seen: Vec<u64> =
                    e["seen_by"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
                assert!(seen.contains(&1) || seat == Some(1), "a signal seat 1 saw: {e}");
            }
            _ => {}
        }
        if others {
            assert!(e.get("us").is_none() && e.get("auto").is_none(), "no think time: {e}");
        }
    }
    // Under `--signals public` seat 1 saw every signal.
    let signals = |v: &[Value]| v.iter().filter(|e| e["type"] == "signal").count();
    assert_eq!(signals(events), signals(&f.events));
    assert!(signals(events) > 0, "the seed-5 game has signals to show");
    let stats = data["footer"]["stats"].as_array().expect("stats");
    for (s, st) in stats.iter().enumerate() {
        assert_eq!(st.is_null(), s != 1, "only seat 1's own statistics");
    }
}

// ---- Reading Chromium's DOM dump: it is well-formed, so counting one tag name's opening and
// closing tags finds where an element ends.

/// The outer HTML of the element with this `data-testid`.
pub(crate) fn element<'a>(dom: &'a str, testid: &str) -> &'a str {
    let marker = format!("data-testid=\"{testid}\"");
    let at = dom.find(&marker).unwrap_or_else(|| panic!("no element {testid} in the page"));
    let start = dom[..at].rfind('<').expect("a tag");
    let name: String =
        dom[start + 1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 0usize;
    let mut i = start;
    loop {
        let next_open = dom[i..]
            .find(&open)
            .map(|p| p + i)
            .filter(|&p| dom[p + open.len()..].starts_with([' ', '>', '/']));
        let next_close = dom[i..].find(&close).map(|p| p + i).expect("the element ends");
        match next_open {
            Some(o) if o < next_close => {
                depth += 1;
                i = o + open.len();
            }
            _ => {
                depth -= 1;
                i = next_close + close.len();
                if depth == 0 {
                    return &dom[start..i];
                }
            }
        }
    }
}

/// An attribute of an element's opening tag.
fn attr(element: &str, name: &str) -> Option<String> {
    let tag = &element[..element.find('>').expect("an opening tag")];
    let marker = format!(" {name}=\"");
    let at = tag.find(&marker)? + marker.len();
    Some(tag[at..].split('"').next().unwrap_or_default().to_string())
}

/// The card codes shown inside an element, in page order.
fn cards_in(element: &str) -> Vec<String> {
    element
        .split("data-card=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_string())
        .collect()
}

/// An element's text, tags removed.
pub(crate) fn text(element: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in element.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Runs headless Chromium on a page with a URL hash and returns the DOM after the page's
/// script ran; with `screenshot`, the same run also saves a 1200×800 picture of the page.
pub(crate) fn chromium(page: &Path, hash: &str, screenshot: Option<&Path>) -> String {
    browse(page, hash, screenshot, None)
}

/// [`chromium`] in a window of the given width and height.
fn browse(
    page: &Path,
    hash: &str,
    screenshot: Option<&Path>,
    window: Option<(u32, u32)>,
) -> String {
    let profile = fixture().dir.join(format!(
        "profile-{}",
        PROFILE_COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let url = format!("file://{}#{hash}", page.display());
    let mut cmd = Command::new(crate::harness::chromium());
    cmd.args(CHROMIUM_FLAGS).arg(format!("--user-data-dir={}", profile.display()));
    if let Some(png) = screenshot {
        let _ = std::fs::remove_file(png);
        cmd.arg(format!("--screenshot={}", png.display()));
    }
    if let Some((w, h)) = window.or(screenshot.map(|_| (1200, 800))) {
        cmd.arg(format!("--window-size={w},{h}"));
    }
    let out = run(cmd.arg("--dump-dom").arg(&url));
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8(out.stdout).expect("UTF-8 DOM");
    assert!(dom.contains("data-testid=\"step-counter\""), "no page in the dump of {url}");
    if let Some(png) = screenshot {
        let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
            "{} is a picture",
            png.display()
        );
    }
    dom
}

static PROFILE_COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The canonical order of cards, as the record's hands are sorted.
fn canonical(code: &str) -> usize {
    let b = code.as_bytes();
    let rank = b"A23456789JCK".iter().position(|&r| r == b[0]).expect("a rank");
    let suit = b"ocsb".iter().position(|&s| s == b[1]).expect("a suit");
    12 * suit + rank
}

/// What the table shows after `step` events, derived from the record alone.
#[derive(Debug, Default)]
struct Table {
    hands: [Vec<String>; 4],
    trick: Vec<String>,
    trick_done: bool,
    won: [u64; 4],
    score: [u64; 2],
}

fn table_at(events: &[Value], step: usize) -> Table {
    let mut t = Table::default();
    let strs = |v: &Value| -> Vec<String> {
        v.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
    };
    for e in &events[..step] {
        let seat = seat_of(e).unwrap_or(0) as usize;
        match e["type"].as_str().unwrap() {
            "deal" => {
                for s in 0..4 {
                    t.hands[s] = strs(&e["hands"][s]);
                }
                t.trick.clear();
                t.won = [0; 4];
            }
            "receive" => t.hands[seat].extend(strs(&e["cards"])),
            "discard" => {
                let gone = strs(&e["cards"]);
                t.hands[seat].retain(|c| !gone.contains(c));
            }
            "play" => {
                if t.trick_done || t.trick.len() == 4 {
                    t.trick.clear();
                }
                t.trick_done = false;
                let card = e["card"].as_str().unwrap().to_string();
                t.hands[seat].retain(|c| *c != card);
                t.trick.push(card);
            }
            "trick" => {
                t.trick_done = true;
                if let Some(w) = e["winner"].as_u64() {
                    t.won[w as usize] += 1;
                }
            }
            "deal_over" => {
                t.score = [e["score"][0].as_u64().unwrap(), e["score"][1].as_u64().unwrap()];
            }
            _ => {}
        }
    }
    for hand in &mut t.hands {
        hand.sort_by_key(|c| canonical(c));
    }
    t
}

/// The step just after the `n`-th (0-based) event of this type.
fn step_after(events: &[Value], kind: &str, n: usize) -> usize {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == kind)
        .nth(n)
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("the record has no {kind} #{n}"))
}

/// Checks the table a dumped page shows against the record.
fn check_table(dom: &str, events: &[Value], step: usize) {
    let want = table_at(events, step);
    let counter = element(dom, "step-counter");
    assert_eq!(attr(counter, "data-step"), Some(step.to_string()), "{}", text(counter));
    assert_eq!(attr(counter, "data-last"), Some(events.len().to_string()));
    for s in 0..4 {
        let hand = element(dom, &format!("hand-{s}"));
        let count = want.hands[s].len();
        assert_eq!(attr(hand, "data-count"), Some(count.to_string()), "seat {s} at step {step}");
        assert_eq!(cards_in(hand), want.hands[s], "seat {s}'s hand at step {step}");
        assert_eq!(attr(hand, "data-cards"), Some(want.hands[s].join(" ")));
        let won = element(dom, &format!("won-{s}"));
        assert_eq!(attr(won, "data-won"), Some(want.won[s].to_string()), "seat {s}'s tricks");
    }
    let trick = element(dom, "trick");
    assert_eq!(cards_in(trick), want.trick, "the trick at step {step}");
    let score = element(dom, "score");
    assert_eq!(attr(score, "data-score"), Some(format!("{}-{}", want.score[0], want.score[1])));
    let log = element(dom, "log");
    assert_eq!(log.matches("<li").count(), step, "one log line per step so far");
    // The log's last line is the current step's, highlighted.
    assert_eq!(log.matches(" current\"").count(), usize::from(step > 0));
    if step > 0 {
        let last = &log[log.rfind("<li").unwrap()..];
        assert!(last.contains(" current\""), "the current step is the highlighted line");
    }
}

/// Checks that two dumps show the same game: the same markup for every part that shows it
/// (not the controls, whose focus may differ).
fn assert_same_game(got: &str, want: &str, what: &str) {
    let mut ids = vec!["step-counter", "trick", "score", "log", "current", "chant", "signals"];
    ids.extend(["faults", "deal-info", "banner", "seat-0", "seat-1", "seat-2", "seat-3"]);
    for id in ids {
        let (g, w) = (element(got, id), element(want, id));
        if g != w {
            let at = g.bytes().zip(w.bytes()).take_while(|(a, b)| a == b).count();
            let around = |s: &str| {
                s[at.saturating_sub(80).min(s.len())..].chars().take(200).collect::<String>()
            };
            panic!("{what}: {id} differs:\n  got  …{}\n  want …{}", around(g), around(w));
        }
    }
}

#[test]
fn the_page_steps_through_the_game_in_headless_chromium() {
    ensure_chromium();
    let f = fixture();
    let ev = &f.events;
    let last = ev.len();
    // Mid-deal, with signals and tricks won, a card just played to a half-played trick.
    let mid = step_after(ev, "play", 4 * 4 + 2);
    let first_trick = step_after(ev, "trick", 0);
    let first_deal_over = step_after(ev, "deal_over", 0);
    // Seat 1's page has its own step numbers (it may leave lines out): the same moment there.
    let seat_events = embedded_data(&read(&f.seat1))["events"].as_array().unwrap().clone();
    let seat_mid = step_after(&seat_events, "play", 4 * 4 + 2);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target folder");
    let (shot, seat_shot) = (target.join("html-viewer.png"), target.join("html-viewer-seat1.png"));

    let jobs: Vec<(&Path, String, Option<&Path>)> = vec![
        (&f.full, format!("step={mid}"), Some(&shot)),
        (&f.full, format!("play={mid}"), None),
        (&f.full, format!("step={first_trick}"), None),
        (&f.full, format!("step={first_deal_over}"), None),
        (&f.full, "keys=End".into(), None),
        (&f.full, "step=8&keys=ArrowRight,ArrowRight,ArrowLeft,ArrowRight".into(), None),
        (&f.full, "step=30&keys=Home".into(), None),
        (&f.seat1, format!("step={seat_mid}"), Some(&seat_shot)),
    ];
    // Each run starts a whole browser; two at a time suit a small CI machine.
    let mut doms: Vec<String> = Vec::new();
    for pair in jobs.chunks(2) {
        std::thread::scope(|scope| {
            let runs: Vec<_> =
                pair.iter().map(|(p, h, png)| scope.spawn(move || chromium(p, h, *png))).collect();
            doms.extend(runs.into_iter().map(|r| r.join().expect("a chromium run")));
        });
    }
    let dom = |hash: &str| -> &str {
        let i = jobs.iter().position(|(p, h, _)| h == hash && *p == f.full).expect("a job");
        &doms[i]
    };

    // A card was just played: the trick shows it last, and its player no longer holds it.
    let d = dom(&format!("step={mid}"));
    check_table(d, ev, mid);
    let card = ev[mid - 1]["card"].as_str().unwrap();
    assert_eq!(cards_in(element(d, "trick")).last().map(String::as_str), Some(card));
    assert!(text(element(d, "current-event")).contains(&format!("plays {card}")));
    // Think times vary from run to run: only their presence and unit are checked.
    let think = text(element(d, "think-time"));
    assert!(
        ["µs", " ms", " s"].iter().any(|u| think.ends_with(u)),
        "the play's think time: {think}"
    );
    assert!(element(d, "signals").contains("<td>"), "this deal's signals are listed");

    // ▶ pressed N times through its click handler shows exactly what #step=N shows.
    assert_same_game(dom(&format!("play={mid}")), d, "▶ pressed");

    // The first trick's result: its winner's count and highlight.
    let d = dom(&format!("step={first_trick}"));
    check_table(d, ev, first_trick);
    let trick = element(d, "trick");
    let shown = attr(trick, "data-winner").expect("a finished trick names its winner");
    match ev[first_trick - 1]["winner"].as_u64() {
        Some(w) => {
            assert_eq!(shown, w.to_string());
            assert!(trick.contains("slot s-") && trick.contains(" winner\""), "highlighted");
        }
        None => assert_eq!(shown, "spoiled"),
    }

    // After the first deal: the score the record states.
    let d = dom(&format!("step={first_deal_over}"));
    check_table(d, ev, first_deal_over);
    let score = &ev[first_deal_over - 1]["score"];
    assert_eq!(text(element(d, "score-0")), score[0].to_string());
    assert_eq!(text(element(d, "score-1")), score[1].to_string());

    // The End key: the footer's score and result, the forward buttons off.
    let d = dom("keys=End");
    check_table(d, ev, last);
    let footer = &ev[last - 1];
    assert_eq!(footer["type"], "footer");
    let want = format!("{}-{}", footer["score"][0], footer["score"][1]);
    assert_eq!(attr(element(d, "score"), "data-score"), Some(want));
    let result = element(d, "result");
    match footer["winner"].as_u64() {
        Some(w) => assert!(text(result).contains(&format!("team {w} wins")), "{result}"),
        None => assert!(text(result).contains("no winner"), "{result}"),
    }
    assert!(element(d, "next").contains("disabled") && element(d, "last").contains("disabled"));

    // The arrows and Home.
    check_table(dom("step=8&keys=ArrowRight,ArrowRight,ArrowLeft,ArrowRight"), ev, 10);
    let d = dom("step=30&keys=Home");
    check_table(d, ev, 0);
    assert!(element(d, "prev").contains("disabled") && element(d, "first").contains("disabled"));

    // Seat 1's page: its own hand face up, the others face down with their counts.
    let d = doms.last().unwrap();
    assert_eq!(attr(element(d, "step-counter"), "data-step"), Some(seat_mid.to_string()));
    let want = table_at(ev, mid);
    for s in 0..4 {
        let hand = element(d, &format!("hand-{s}"));
        assert_eq!(attr(hand, "data-count"), Some(want.hands[s].len().to_string()));
        if s == 1 {
            assert_eq!(cards_in(hand), want.hands[1]);
        } else {
            assert!(cards_in(hand).is_empty(), "seat {s}'s cards are hidden from seat 1");
            assert_eq!(hand.matches("class=\"back\"").count(), want.hands[s].len());
        }
    }
    assert_eq!(cards_in(element(d, "trick")), want.trick);
    assert!(text(element(d, "title")).contains("seat 1"));
    eprintln!("screenshots: {} and {}", shot.display(), seat_shot.display());
}

/// The fixture's record with its last lines cut off, as a killed referee leaves it: no footer,
/// and half of the line it was writing.
fn cut_short_record() -> (PathBuf, usize) {
    let f = fixture();
    let text = read(&f.dir.join("records/game-000001.jsonl"));
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines.len() * 2 / 3;
    let mut cut = lines[..kept].join("\n");
    cut.push('\n');
    cut.push_str(&lines[kept][..lines[kept].len() / 2]);
    let path = f.dir.join("cut-short.jsonl");
    std::fs::write(&path, cut).expect("write the cut record");
    (path, kept)
}

/// Issue 12: `replay --html` of a record cut short wrote nothing and exited 1, while `--seat`
/// worked on it. The page is written, with the game as far as it goes, and says so.
#[test]
fn a_cut_short_record_gets_a_page_that_says_so() {
    let (record, kept) = cut_short_record();
    let dir = &fixture().dir;
    let (page, seat_page) = (dir.join("cut-short.html"), dir.join("cut-short-seat2.html"));
    let out = referee(&["replay", record.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("cut short after line {kept}")), "{said}");
    let data = embedded_data(&read(&page));
    assert_eq!(data["cut_short"]["after_line"], kept);
    assert_eq!(
        data["events"].as_array().unwrap().len(),
        kept - 1,
        "every whole line but the header"
    );
    assert!(data["footer"].is_null());
    let args =
        ["replay", record.to_str().unwrap(), "--seat", "2", "--html", seat_page.to_str().unwrap()];
    referee(&args);
    let seat_data = embedded_data(&read(&seat_page));
    assert!(seat_data["cut_short"].is_object(), "a seat's page says so too");
    assert!(seat_data["cut_short"].get("after_line").is_none(), "without the line count");

    // In the browser: the banner is shown at the start and at the end.
    ensure_chromium();
    let last = kept - 1;
    for hash in ["step=0".to_string(), format!("step={last}")] {
        let dom = chromium(&page, &hash, None);
        let banner = element(&dom, "cut-short");
        assert!(attr(banner, "hidden").is_none(), "the banner is shown at {hash}: {banner}");
        assert!(text(banner).contains(&format!("Cut short: this record ends after line {kept}")));
        if hash != "step=0" {
            assert!(text(element(&dom, "banner")).contains("cut short here"), "{hash}");
        }
    }
    // A complete record's page has the banner hidden.
    let dom = chromium(&fixture().full, "step=0", None);
    assert!(attr(element(&dom, "cut-short"), "hidden").is_some());
}

/// Issue 12: at 1280 px the faults table was wider than its panel, and its penalty column was
/// cut off. Measured in the browser: every cell of every side-panel table ends inside its
/// panel, no panel scrolls sideways, nothing in the side or the table's corners is drawn wider
/// than its box, and the page does not scroll sideways.
#[test]
fn the_side_panels_fit_a_1280_px_window_and_a_390_px_phone() {
    ensure_chromium();
    let f = fixture();
    let record = read(&f.dir.join("records/game-000001.jsonl"));
    let mut lines: Vec<String> = record.lines().map(str::to_string).collect();
    // Faults as real runs write them, long unbroken excerpts of bots' lines included.
    let line = r#"{"type":"play","id":4,"card":"3c","signals":["monsieur","madame","aces:4"],"x":"0123456789abcdef"}"#;
    let faults = [
        ("malformed", format!("invalid message: unknown field `x` in line {line:?}"), "fallback"),
        (
            "handshake_refused",
            "hello answer needs a name of 1 to 64 bytes and a version of at most 64".into(),
            "fallback",
        ),
        (
            "unknown_id",
            format!(
                "play answer with id 18446744073709551615 that was never asked{}",
                "!".repeat(60)
            ),
            "ignored",
        ),
        (
            "bad_signal",
            format!("{}: not a signal of the vocabulary", "z".repeat(150)),
            "signal_dropped",
        ),
    ];
    for (i, (kind, detail, penalty)) in faults.into_iter().enumerate() {
        let fault = serde_json::json!({
            "type": "fault", "seat": i % 4, "deal": 1, "trick": 2, "kind": kind, "detail": detail,
            "raw": line, "action": "played 6b for you", "penalty": penalty, "strikes": 2,
        });
        lines.insert(2, fault.to_string());
        // The footer's statistics are the lines' own (replay checks them): count the fault.
        let last = lines.len() - 1;
        let mut footer: Value = serde_json::from_str(&lines[last]).expect("the footer");
        let stats = &mut footer["stats"][i % 4];
        stats["faults"] = (stats["faults"].as_u64().unwrap_or(0) + 1).into();
        stats["strikes"] = 2.into();
        lines[last] = footer.to_string();
    }
    let path = f.dir.join("faults.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write the record");
    let page = f.dir.join("faults.html");
    referee(&["replay", path.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    // The page with a script that measures it, after the viewer's own script has drawn it.
    let measure = r##"<script>
(function () {
  const r = (x) => Math.round(x * 10) / 10;
  const out = ["viewport:" + window.innerWidth + ":" + document.documentElement.scrollWidth];
  for (const panel of document.querySelectorAll(".side .panel")) {
    const cells = [...panel.querySelectorAll("td, th")].map((c) => c.getBoundingClientRect().right);
    const box = panel.getBoundingClientRect();
    out.push(panel.id + ":" + r(box.right) + ":" + panel.clientWidth + ":" + panel.scrollWidth +
      ":" + r(Math.max(0, ...cells)) + ":" + cells.length);
  }
  // Anything else drawn wider than its box: a log line, a corner of the table.
  const wide = [...document.querySelectorAll(".side, .side *, .corner, .corner *")]
    .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
  out.push("wide:" + wide.join(","));
  document.body.setAttribute("data-measure", out.join(" "));
})();
</script>
</body>"##;
    let measured = f.dir.join("faults-measured.html");
    std::fs::write(&measured, read(&page).replace("</body>", measure)).expect("write the page");
    let last = lines.len() - 1;
    // A wide screen, and a phone (issue 26: at 390 px the viewer overlapped).
    for width in [1280u32, 390] {
        let measure = if width >= 500 {
            let dom = browse(&measured, &format!("step={last}"), None, Some((width, 800)));
            let body = &dom[dom.find("<body").expect("a body")..];
            attr(body, "data-measure").expect("the measuring script ran")
        } else {
            // A headless window is at least 500 px wide: a phone's width is a viewport, set
            // through the DevTools protocol by the browser tests' driver.
            crate::web::ensure_tools();
            let url = format!("file://{}#step={last}", measured.display());
            let args = [url, width.to_string(), "800".to_string()];
            let report = crate::web::run_driver("measure.js", &args);
            report["measure"].as_str().expect("the measuring script ran").to_string()
        };
        let mut parts = measure.split(' ');
        let viewport: Vec<f64> =
            parts.next().unwrap().split(':').skip(1).map(|n| n.parse().unwrap()).collect();
        assert_eq!(viewport[0], f64::from(width), "{measure}");
        assert!(viewport[1] <= viewport[0], "the page scrolls sideways: {measure}");
        let mut faults_cells = 0.0;
        let mut parts: Vec<&str> = parts.collect();
        let wide = parts.pop().expect("the wide elements").strip_prefix("wide:").unwrap();
        assert!(wide.is_empty(), "drawn wider than their box: {wide}");
        for panel in parts {
            let v: Vec<&str> = panel.split(':').collect();
            let n = |i: usize| v[i].parse::<f64>().unwrap();
            let (id, right, client, scroll, cell_right, cells) =
                (v[0], n(1), n(2), n(3), n(4), n(5));
            assert!(scroll <= client, "{id} scrolls sideways ({scroll} > {client}): {measure}");
            assert!(
                cell_right <= right + 0.5,
                "a cell of {id} ends at {cell_right}, the panel at {right}"
            );
            assert!(
                cell_right <= f64::from(width),
                "a cell of {id} is outside the window: {measure}"
            );
            if id == "faults" {
                faults_cells = cells;
            }
        }
        // Four faults of two rows (three cells, then the detail), and the header row: the
        // table was really drawn.
        assert_eq!(faults_cells, 19.0, "{width} px: {measure}");
    }
}

/// A seat's page is built from the seat's conversation: a bot replaced for its strikes is told
/// `bye` and nothing more, so its page stops there, while the whole game's page goes on to the
/// end; and a seat whose bot was told nothing of the game has no page, which the referee says
/// in one line.
#[test]
fn a_seat_page_stops_where_its_bot_was_stopped() {
    let s = Scratch::new("stopped");
    let bots = [&s.misbehave("illegal-always"), RANDOM, RANDOM, RANDOM];
    referee_ok(&match_args("--seed 1", &s.records(), &bots));
    let record = s.record(1);
    let (page, seat0) = (s.join("game.html"), s.join("seat0.html"));
    referee(&["replay", s_(&record), "--html", s_(&page)]);
    referee(&["replay", s_(&record), "--seat", "0", "--html", s_(&seat0)]);
    let whole = embedded_data(&read(&page))["events"].as_array().unwrap().clone();
    let seat = embedded_data(&read(&seat0))["events"].as_array().unwrap().clone();
    let kinds = |v: &[Value], kind: &str| v.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(seat.last().map(|e| &e["type"]), Some(&Value::from("bye")), "{seat:?}");
    assert_eq!(kinds(&seat, "fault"), 3, "the seat's three faults");
    assert!(kinds(&seat, "play") < kinds(&whole, "play") / 2, "the seat saw a few plays");
    assert_eq!(whole.last().map(|e| &e["type"]), Some(&Value::from("footer")));

    // A bot that plays game 1, exits between games, and cannot be started again for game 3.
    let bot = starts_once(&s);
    let dir = s.join("restarts");
    let flags = "--seed 1 --games 3 --handshake-ms 20000";
    referee_ok(&match_args(flags, &dir, &[&bot, RANDOM, RANDOM, RANDOM]));
    let game3 = record_path(&dir, 3);
    let line =
        referee_fails(&["replay", s_(&game3), "--seat", "0", "--html", s_(&s.join("no.html"))]);
    assert!(line.contains("seat 0's page: the seat's bot was told nothing of this game"), "{line}");
    assert!(!s.join("no.html").exists(), "no page is written");
    referee(&["replay", s_(&game3), "--seat", "1", "--html", s_(&s.join("seat1.html"))]);
}

/// The rounds before the first lead (rules.md section 12) in the browser: the page says each
/// answer and how a deal the rounds decided was scored, in words, on the whole game's page and
/// on a seat's page (which builds them from the seat's notices).
#[test]
fn the_page_tells_the_surrender_rounds() {
    ensure_chromium();
    let tmp = Scratch::new("surrender-rounds");
    let pids = tmp.pidfile();
    let bot = crate::harness::python(
        "referee/tests/bots/misbehave.py",
        &format!("pledger {}", crate::harness::quoted(&pids)),
    );
    let flags = "--seed 11 --target 3 --surrender on --mordienne announced";
    referee_ok(&match_args(flags, &tmp.records(), &[&bot]));
    let record = tmp.record(1);
    let (full, seat1) = (tmp.join("game.html"), tmp.join("seat1.html"));
    referee_ok(&["replay", s_(&record), "--html", s_(&full)]);
    referee_ok(&["replay", s_(&record), "--seat", "1", "--html", s_(&seat1)]);
    // Deal 1 of the pledger's script: an offer, accepted; deal 2: an offer, refused.
    for page in [&full, &seat1] {
        let ev = embedded_data(&read(page))["events"].as_array().unwrap().clone();
        let said = |kind: &str, n: usize| {
            let dom = chromium(page, &format!("step={}", step_after(&ev, kind, n)), None);
            text(element(&dom, "current-event"))
        };
        assert!(said("offer", 0).contains("offers to surrender for team"), "{}", page.display());
        assert!(said("reply", 0).contains("accepts the surrender"), "{}", page.display());
        let first = said("deal_over", 0);
        assert!(first.contains("surrender accepted") && first.contains("without play"), "{first}");
        let second = said("deal_over", 1);
        assert!(second.contains("surrender refused") && second.contains("mordienne"), "{second}");
    }
}
