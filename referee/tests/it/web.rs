//! `referee match --bot human` and `--watch` (spec/protocol.md section 9), end to end: the real
//! referee binary, its web server on 127.0.0.1, and the system Chromium driven through the
//! DevTools protocol by puppeteer-core (`referee/browser/drive.js`), clicking as a person
//! would. Also the pages' own logic under `node --test`, and the server's checks (token,
//! `Origin`, content security policy) with plain sockets.
//!
//! puppeteer-core comes from npm (`referee/browser/package.json`), installed by `.ci/run`
//! with `npm ci`; Chromium is Debian's package. A test never installs anything: without them it
//! fails in one line saying how to get them.

use crate::harness::{
    Scratch, check_record, ensure_chromium, jsonl, referee, root, run_limited, s, text,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A browser game takes seconds; past this the run is hung.
const BROWSER_LIMIT: Duration = Duration::from_secs(300);
/// Deals in the browser games: 4 deals are the human seat's 36 cards.
const DEALS: &str = "4";
/// With the heuristic bots, this seed's chant is taken in a deal where seat 0 receives the
/// talon, so the person is asked to discard (the bots' votes depend on their hands only).
const SEED: &str = "30";

fn browser_dir() -> PathBuf {
    root().join("referee/browser")
}

/// Fails in one line when the browser test's tools are missing.
pub(crate) fn ensure_tools() {
    let modules = browser_dir().join("node_modules/puppeteer-core");
    assert!(
        modules.exists(),
        "{} is missing: run `npm ci --prefix referee/browser` (.ci/run does it)",
        modules.display()
    );
    ensure_chromium();
}

/// A running match whose web pages are open.
pub(crate) struct Served {
    pub(crate) child: Child,
    pub(crate) seat_url: String,
    pub(crate) watch_url: Option<String>,
    /// Each seat view's page.
    pub(crate) view_urls: [Option<String>; 4],
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts `referee match` with these arguments and reads the pages' addresses it prints.
    pub(crate) fn start(args: &[&str]) -> Served {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
        cmd.args(args);
        Served::spawn(cmd, args)
    }

    /// [`Served::start`] with the command given (`args` are its match arguments).
    pub(crate) fn spawn(mut cmd: Command, args: &[&str]) -> Served {
        let mut child = cmd
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the referee starts");
        let out = child.stdout.take().expect("stdout piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Read to the end: the referee's account must not meet a closed pipe.
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut served = Served {
            child,
            seat_url: String::new(),
            watch_url: None,
            view_urls: Default::default(),
        };
        let watching = args.contains(&"--watch");
        let seated = args.contains(&"human");
        let url = |line: &str| {
            line.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_string)
        };
        while (seated && served.seat_url.is_empty())
            || (watching && served.view_urls.iter().any(Option::is_none))
        {
            let line =
                rx.recv_timeout(Duration::from_secs(30)).expect("the referee prints its pages");
            if line.starts_with("Player 0 (you): open ") {
                served.seat_url = url(&line).expect("a seat URL");
            } else if line.starts_with("Watch live: ") {
                served.watch_url = url(&line);
            } else if let Some(rest) = line.trim_start().strip_prefix("seat ") {
                let seat: usize = rest[..1].parse().expect("a seat number");
                served.view_urls[seat] = url(&line);
            }
        }
        served
    }

    /// Where the server listens.
    pub(crate) fn addr(&self) -> String {
        let url = if self.seat_url.is_empty() {
            self.watch_url.as_ref().unwrap()
        } else {
            &self.seat_url
        };
        url.trim_start_matches("http://").split('/').next().unwrap().to_string()
    }

    /// Waits for the match to end by itself, successfully. The limit only catches a match that
    /// never ends: the 400 games of the stalled spectator's test take 16 s alone, and took more
    /// than 30 beside the Chromium tests.
    pub(super) fn finish(mut self) {
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the referee") {
                assert!(status.success(), "the referee failed: {status}");
                return;
            }
            assert!(start.elapsed() < Duration::from_secs(120), "the match did not end");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Plays the human seat in Chromium; the driver's report.
fn drive(seat_url: &str, out: &Path, watch: Option<(&str, &str)>) -> Value {
    let mut args = vec![seat_url.to_string(), s(out).to_string()];
    if let Some((all, seat1)) = watch {
        args.extend([all.to_string(), seat1.to_string()]);
    }
    run_driver("drive.js", &args)
}

/// Runs one of the browser drivers (`referee/browser/SCRIPT`); its JSON report.
pub(crate) fn run_driver(script: &str, args: &[String]) -> Value {
    let mut cmd = Command::new("node");
    cmd.arg(browser_dir().join(script)).args(args);
    let done = run_limited(cmd.current_dir(root()).stdin(Stdio::null()), BROWSER_LIMIT);
    assert!(done.status.success(), "{script} failed: {}", text(&done.stderr));
    serde_json::from_slice(&done.stdout).expect("the driver's report is JSON")
}

/// Screenshots are kept where people look for build output.
pub(super) fn screenshots() -> PathBuf {
    let dir = root().join("target/web-screenshots");
    std::fs::create_dir_all(&dir).expect("create target/web-screenshots");
    dir
}

pub(super) fn match_args<'a>(records: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "match",
        "--bot",
        "human",
        "--bot",
        "builtin:heuristic",
        "--bot",
        "builtin:heuristic",
        "--bot",
        "builtin:heuristic",
        "--deals",
        DEALS,
        "--seed",
        SEED,
        "--records",
        records,
        "--discard",
        "keep-highest",
        "--no-pin",
    ];
    args.extend_from_slice(extra);
    args
}

/// Starts the match and drives its pages.
fn start_and_drive(records: &Path, extra: &[&str], watch: bool) -> (Served, Value) {
    let served = Served::start(&match_args(s(records), extra));
    let all = served.watch_url.clone();
    let seat1 = served.view_urls[1].clone();
    let urls = watch.then(|| (all.as_deref().expect("a spectator URL"), seat1.as_deref().unwrap()));
    let report = drive(&quick(&served.seat_url), &screenshots(), urls);
    (served, report)
}

/// The human seat's page with each finished trick held 50 ms instead of a second
/// (spec/protocol.md 9.1): the drivers click as soon as a question shows, and a game's 36
/// tricks held a second each were most of its minute in these tests.
pub(super) fn quick(seat_url: &str) -> String {
    format!("{seat_url}&hold=50")
}

/// Issue 14: a person plays a whole game by clicking (chant votes, a discard under
/// keep-highest, 36 cards, a signal), reloads the page in the middle of a deal and goes on; the
/// record then replays, with every one of the person's moves their own (no fallback, no fault)
/// and the seat's own clock in its header.
#[test]
fn a_person_plays_a_whole_game_by_clicking_and_a_reload_loses_nothing() {
    ensure_tools();
    let sc = Scratch::new("web-play");
    let records = sc.records();
    let (served, report) = start_and_drive(&records, &["--human-answer-ms", "90000"], false);
    served.finish();
    assert_eq!(report["plays"], 36, "{report}");
    assert_eq!(report["reloaded"], true, "{report}");
    assert!(report["votes"].as_u64() >= Some(1), "{report}");
    assert!(report["discards"].as_u64() >= Some(1), "{report}");
    assert_eq!(report["signals"].as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "the page's console: {report}");
    assert!(report["result"].as_str().unwrap_or("").starts_with("game over"), "{report}");

    let path = records.join("game-000001.jsonl");
    check_record(&path);
    let lines = jsonl(&path);
    let seat0 = &lines[0]["seats"][0];
    assert_eq!(seat0["command"], serde_json::json!(["human"]), "never the token: {seat0}");
    assert_eq!(seat0["clock"]["answer_ms"], 90000, "{seat0}");
    let mine = |t: &'static str| lines.iter().filter(move |l| l["type"] == t && l["seat"] == 0);
    assert_eq!(mine("play").count(), 36);
    assert!(mine("play").chain(mine("discard")).chain(mine("vote")).all(|l| l["auto"].is_null()));
    assert_eq!(mine("fault").count(), 0, "{:?}", mine("fault").collect::<Vec<_>>());
    assert!(lines.iter().any(|l| l["type"] == "signal" && l["from"] == 0));
    // The re-derived conversation of the seat is its conversation: one connection, resumed or
    // not, with the seat's own clock.
    let seat = referee(&["replay", s(&path), "--seat", "0"]);
    assert!(seat.status.success(), "{}", text(&seat.stderr));
    assert!(text(&seat.stdout).contains("\"time_ms\":90000"), "{}", text(&seat.stdout));
}

/// The cards seat `seat` may know in each deal of a record: its hand, the talon it received and
/// every card played.
fn known_by(lines: &[Value], seat: u64) -> Vec<BTreeSet<String>> {
    let mut deals: Vec<BTreeSet<String>> = Vec::new();
    let cards = |v: &Value| -> Vec<String> {
        v.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
    };
    for l in lines {
        match l["type"].as_str() {
            Some("deal") => deals.push(cards(&l["hands"][seat as usize]).into_iter().collect()),
            Some("receive") if l["seat"] == seat => {
                deals.last_mut().unwrap().extend(cards(&l["cards"]))
            }
            Some("play") => {
                deals.last_mut().unwrap().insert(l["card"].as_str().unwrap().to_string());
            }
            _ => {}
        }
    }
    deals
}

/// Issue 14: the spectator pages, open while a match is played, follow it to its end; the
/// organiser's view shows every hand, and seat 1's view never a card seat 1 may not know.
#[test]
fn spectators_follow_the_game_and_a_seat_view_shows_only_what_the_seat_knows() {
    ensure_tools();
    let sc = Scratch::new("web-watch");
    let records = sc.records();
    let (served, report) = start_and_drive(&records, &["--watch"], true);
    served.finish();
    assert_eq!(report["plays"], 36, "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "the pages' consoles: {report}");
    let path = records.join("game-000001.jsonl");
    check_record(&path);
    let lines = jsonl(&path);
    let footer = lines.last().unwrap();
    let score = format!("{}–{}", footer["score"][0], footer["score"][1]);
    for view in ["omniscientResult", "seatResult"] {
        let shown = report[view].as_str().unwrap_or("");
        assert!(shown.contains(&score), "{view} did not follow the game to {score}: {report}");
    }
    assert_eq!(report["omniscientTricks"], 9, "the last deal's tricks: {report}");
    assert!(report["omniscientCards"].as_u64() > Some(27), "every hand is shown: {report}");
    let known = known_by(&lines, 1);
    let snapshots = report["watch"].as_array().unwrap();
    assert!(snapshots.len() > 30, "{report}");
    let mut own_seen = 0;
    for snap in snapshots {
        let label = snap["deal"].as_str().unwrap();
        let Some(deal) = label.split("deal ").nth(1).and_then(|d| d.split(' ').next()) else {
            continue;
        };
        let deal: usize = deal.parse().unwrap();
        for card in snap["cards"].as_array().unwrap() {
            let card = card.as_str().unwrap();
            assert!(known[deal - 1].contains(card), "seat 1's view shows {card} in deal {deal}");
        }
        own_seen += usize::from(!snap["cards"].as_array().unwrap().is_empty());
    }
    assert!(own_seen > 30, "seat 1's view showed its cards: {report}");
}

/// The pages' logic (legal discards, signal truth, the clock, the fold of a conversation)
/// passes its unit tests under Node's test runner.
/// Issue 26: when the match is over, the spectators' pages say so and stop, instead of saying
/// "reconnecting..." for ever to a server that has gone: the referee closes each spectator's
/// socket with "match over" before it exits.
#[test]
fn the_spectators_pages_say_when_the_match_is_over() {
    ensure_tools();
    let sc = Scratch::new("watch-end");
    let records = sc.records();
    // A bot that naps 100 ms an answer makes a deal last about five seconds: the pages are open
    // before the second ends.
    let napper = crate::harness::Scratch::misbehave(&sc, "nap");
    let args = [
        "match",
        "--watch",
        "--no-pin",
        "--deals",
        "2",
        "--records",
        s(&records),
        "--bot",
        &napper,
    ];
    let served = Served::start(&args);
    let urls = vec![served.watch_url.clone().unwrap(), served.view_urls[1].clone().unwrap()];
    let report = run_driver("watch_end.js", &urls);
    served.finish();
    for page in report.as_array().unwrap() {
        assert!(page["status"].as_str().unwrap().contains("the match is over"), "{report}");
        assert_eq!(page["sockets"], 1, "a page reconnected after the end: {report}");
    }
}

#[test]
fn the_pages_logic_passes_its_node_tests() {
    let test = browser_dir().join("game.test.js");
    let out = run_limited(
        Command::new("node").arg("--test").arg(&test).current_dir(root()),
        BROWSER_LIMIT,
    );
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    assert!(said.contains("# fail 0") && !said.contains("# pass 0"), "{said}");
}

/// One HTTP request to the server; the response head.
fn request(addr: &str, head: &str) -> String {
    request_on(addr, head).0
}

/// [`request`], and the connection, still open.
pub(crate) fn request_on(addr: &str, head: &str) -> (String, TcpStream) {
    let mut stream = TcpStream::connect(addr).expect("connect to the web server");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut buf = vec![0; 4096];
    let n = stream.read(&mut buf).unwrap_or(0);
    (String::from_utf8_lossy(&buf[..n]).to_string(), stream)
}

/// The head of a WebSocket upgrade request for `path`, sent from a page of `origin`.
pub(crate) fn upgrade_head(addr: &str, path: &str, origin: &str) -> String {
    format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
}

/// The server's checks: pages carry a strict content security policy (no inline script); a
/// WebSocket from another site's page, or with a wrong token, is refused; the right token from
/// the server's own page is upgraded. The spectators' token is not a seat's, nor the reverse.
#[test]
fn the_web_server_checks_origin_token_and_serves_a_strict_policy() {
    let sc = Scratch::new("web-checks");
    let records = sc.records();
    let served = Served::start(&match_args(s(&records), &["--watch"]));
    let addr = served.seat_url.trim_start_matches("http://").split('/').next().unwrap().to_string();
    let token = served.seat_url.split("token=").nth(1).unwrap().to_string();
    let watch_token =
        served.watch_url.as_ref().unwrap().split("token=").nth(1).unwrap().to_string();
    let page = request(&addr, &format!("GET /play HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
    let csp = page
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("content-security-policy:"))
        .unwrap_or_else(|| panic!("no policy: {page}"));
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "{csp}");
    let upgrade = |path: &str, origin: &str| request(&addr, &upgrade_head(&addr, path, origin));
    let own = format!("http://{addr}");
    let status = |r: String| r.lines().next().unwrap_or("").to_string();
    let seat = format!("/ws/seat?token={token}");
    assert!(status(upgrade(&seat, "http://evil.example")).contains(" 403 "));
    assert!(status(upgrade(&format!("/ws/seat?token={watch_token}"), &own)).contains(" 403 "));
    assert!(status(upgrade(&format!("/ws/watch?token={token}"), &own)).contains(" 403 "));
    assert!(status(upgrade(&format!("/ws/watch?token={watch_token}"), &own)).contains(" 101 "));
    assert!(status(upgrade(&seat, &own)).contains(" 101 "));
}

/// A human seat waits for its page like a TCP seat for its bot (`--connect-wait-ms`); one whose
/// page never came is recorded as not started, without its token, and the fallback plays it.
/// `check-bot` and tournaments, which start their bots themselves, refuse a human seat.
#[test]
fn a_human_seat_whose_page_never_comes_is_not_started_and_other_commands_refuse_one() {
    let sc = Scratch::new("web-absent");
    let records = sc.records();
    let served = Served::start(&[
        "match",
        "--bot",
        "human",
        "--bot",
        "builtin:random",
        "--deals",
        "1",
        "--seed",
        "1",
        "--connect-wait-ms",
        "300",
        "--records",
        s(&records),
        "--no-pin",
    ]);
    let token = served.seat_url.split("token=").nth(1).unwrap().to_string();
    served.finish();
    let path = records.join("game-000001.jsonl");
    check_record(&path);
    let text_of_record = std::fs::read_to_string(&path).unwrap();
    assert!(!text_of_record.contains(&token), "the record names the seat's token");
    let lines = jsonl(&path);
    let fault = lines.iter().find(|l| l["type"] == "fault" && l["seat"] == 0).expect("a fault");
    assert_eq!(fault["kind"], "no_start", "{fault}");
    assert_eq!(fault["detail"], "no page opened this seat within 300 ms", "{fault}");

    let out = referee(&["check-bot", "human"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("check-bot starts the bot itself"), "{}", text(&out.stderr));
    let config = sc.write(
        "t.toml",
        "games = 1\n\n[[entrants]]\nname = \"me\"\ncommand = \"human\"\n\n\
         [[entrants]]\nname = \"r\"\ncommand = \"builtin:random\"\n",
    );
    let out = referee(&["tournament", s(&config), "--out", s(&sc.join("t"))]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("a human seat plays in `referee match`"),
        "{}",
        text(&out.stderr)
    );
}

/// A spectator whose page stops reading never slows the table: with one connected from the
/// start and never read, a match of many games (far more lines than a spectator may fall
/// behind by, and more bytes than the sockets' buffers hold) plays through and ends by itself,
/// while the stalled spectator was sent only part of it.
#[test]
fn a_spectator_that_stops_reading_never_slows_the_table() {
    const GAMES: usize = 400;
    let sc = Scratch::new("web-stalled");
    let records = sc.records();
    let games = GAMES.to_string();
    let args = ["match", "--games", &games, "--seed", "4", "--watch", "--no-pin", "--records"];
    let served = Served::start(&[&args[..], &[s(&records)]].concat());
    let watch = served.watch_url.clone().expect("a spectator URL");
    let addr = watch.trim_start_matches("http://").split('/').next().unwrap().to_string();
    let token = watch.split("token=").nth(1).unwrap();
    let path = format!("/ws/watch?token={token}");
    let head = upgrade_head(&addr, &path, &format!("http://{addr}"));
    let (answer, mut stalled) = request_on(&addr, &head);
    assert!(answer.lines().next().unwrap_or("").contains(" 101 "), "{answer}");
    served.finish();
    let mut played = 0;
    let mut recorded = 0;
    for entry in std::fs::read_dir(&records).unwrap().filter_map(Result::ok) {
        if entry.file_name().to_string_lossy().starts_with("game-") {
            played += 1;
            recorded += entry.metadata().unwrap().len();
        }
    }
    assert_eq!(played, GAMES, "every game was played and recorded");
    // The referee has exited: what the stalled spectator can still read is all it was sent.
    let mut sent = Vec::new();
    let _ = stalled.read_to_end(&mut sent);
    assert!((sent.len() as u64) < recorded / 2, "{} of {recorded} bytes", sent.len());
}

/// The seat's page opened a second time (another tab): the second page takes the seat; the
/// first is told so and stays closed. Neither connects again, as two pages that took the seat
/// from each other in turn would.
#[test]
fn a_second_page_takes_the_seat_and_the_first_stays_closed() {
    ensure_tools();
    let sc = Scratch::new("web-two-pages");
    let records = sc.records();
    let served = Served::start(&match_args(s(&records), &[]));
    let report = run_driver("two_pages.js", std::slice::from_ref(&served.seat_url));
    assert_eq!(report["first"]["sockets"], 1, "{report}");
    assert_eq!(report["second"]["sockets"], 1, "{report}");
    let first = report["first"]["status"].as_str().unwrap_or_default();
    assert!(first.contains("another connection took this seat"), "{report}");
    let second = report["second"]["status"].as_str().unwrap_or_default();
    assert!(!second.contains("closed") && !second.contains("lost"), "{report}");
}
