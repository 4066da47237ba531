//! `referee replay --html`: writes one self-contained page that steps through a verified record,
//! so a game can be watched in any browser, offline, from a single file that can be mailed.
//!
//! The page is a template (`html/viewer.html`) with its style and script inlined and the game
//! embedded as JSON in a `<script type="application/json">` block. The JSON is not the record
//! itself but a view of it built here: with `--seat S` every fact seat S could not know is left
//! out of the data (not merely hidden by the script), because anyone can read a page's source.
//! What a seat knows follows spec/protocol.md: its own hand, receive and discard; every vote,
//! chant, card played, trick and deal result; the signals it was sent; its own faults, think
//! times and statistics; the players' names and the rules. Never the deck, the seeds, the other
//! hands, other seats' talon cards, discards, signals it did not see, faults or think times.

use protocol::CardCode;
use protocol::msg::SeatNo;
use protocol::record::{FaultRecord, Footer, Header, RecordLine};
use serde_json::{Map, Value, json};

const TEMPLATE: &str = include_str!("html/viewer.html");
const STYLE: &str = include_str!("html/viewer.css");
const SCRIPT: &str = include_str!("html/viewer.js");

/// Writes the viewer for the record `args.file`, which the caller has already verified.
/// `cut_short` is the last complete line of a record without its footer (a killed referee):
/// such a game is still worth watching as far as it went, so the page is written, and says
/// so on every step.
pub(crate) fn write(
    replay: &crate::replay::Replay,
    args: &crate::cli::ReplayArgs,
    cut_short: Option<usize>,
) -> Result<(), String> {
    let out = args.html.as_ref().ok_or("--html needs an output file")?;
    let bytes = std::fs::read(&args.file)
        .map_err(|e| format!("{}: cannot read the record: {e}", args.file.display()))?;
    // Only a cut can leave bytes that are not UTF-8, inside the half-written last line, which
    // is dropped below.
    let text = String::from_utf8_lossy(&bytes);
    let lines = parse_lines(&text).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let data = view_data(replay, &lines, args.seat, cut_short);
    let page = render_page(&data, &replay.header, args.seat);
    std::fs::write(out, page).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    if !args.quiet {
        match cut_short {
            None => println!(
                "Record consistent with the rules: game {}; viewer written to {}",
                replay.header.game,
                out.display()
            ),
            Some(line) => println!(
                "Record cut short after line {line} (no footer), consistent with the rules as far \
                 as it goes: game {}; viewer written to {}, marked cut short",
                replay.header.game,
                out.display()
            ),
        }
    }
    Ok(())
}

/// The record's lines. The replay verified them already; a half-written last line (which the
/// replay accepts as a cut) is dropped rather than refused.
fn parse_lines(text: &str) -> Result<Vec<RecordLine>, String> {
    let mut lines = Vec::new();
    let segments: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, segment) in segments.iter().enumerate() {
        let body = segment.trim_end_matches('\n');
        if body.is_empty() {
            continue;
        }
        match serde_json::from_str::<RecordLine>(body) {
            Ok(line) => lines.push(line),
            Err(_) if i + 1 == segments.len() && !segment.ends_with('\n') => break,
            Err(e) => return Err(format!("line {}: {e}", i + 1)),
        }
    }
    Ok(lines)
}

/// What the page shows: the whole game, or what `view` could know of it.
fn view_data(
    replay: &crate::replay::Replay,
    lines: &[RecordLine],
    view: Option<SeatNo>,
    cut_short: Option<usize>,
) -> Value {
    let mut events = Vec::new();
    let mut footer = None;
    for line in lines {
        match line {
            RecordLine::Header(_) => {}
            RecordLine::Footer(f) => {
                events.push(footer_event(f));
                footer = Some(footer_data(f, view));
            }
            other => events.extend(event(other, &replay.header, view)),
        }
    }
    let mut data = Map::new();
    data.insert("view".into(), json!(view));
    data.insert("header".into(), header_data(&replay.header, view));
    data.insert("events".into(), Value::Array(events));
    data.insert("footer".into(), footer.unwrap_or(Value::Null));
    if view.is_none() {
        // The line count would tell a seat how many lines it was not shown.
        data.insert("verified".into(), json!({ "lines": replay.lines, "score": replay.score }));
    }
    if let Some(line) = cut_short {
        // Likewise: a seat learns that the record stops, not after how many lines.
        let cut = if view.is_none() { json!({ "after_line": line }) } else { json!({}) };
        data.insert("cut_short".into(), cut);
    }
    Value::Object(data)
}

fn header_data(h: &Header, view: Option<SeatNo>) -> Value {
    let mut d = Map::new();
    d.insert("game".into(), json!(h.game));
    d.insert("rules".into(), json!(h.rules));
    d.insert("clock".into(), json!(h.clock));
    d.insert("first_dealer".into(), json!(h.first_dealer));
    if let Some(draw) = &h.draw {
        // The seating draw is turned up on the table for everybody.
        d.insert("draw".into(), json!(draw));
    }
    if view.is_some() {
        // The `game` message gives a seat the players' names and nothing else about them.
        let seats: Vec<Value> = h.seats.iter().map(|s| json!({ "name": s.name })).collect();
        d.insert("seats".into(), Value::Array(seats));
    } else {
        // Seeds may exceed 2^53: strings, so the page's JSON.parse keeps every digit.
        d.insert("match_seed".into(), json!(h.match_seed.to_string()));
        d.insert("seed".into(), json!(h.seed.to_string()));
        d.insert("referee".into(), json!(h.referee));
        d.insert("policy".into(), json!(h.policy));
        d.insert("started_unix_ms".into(), json!(h.started_unix_ms));
        let seats: Vec<Value> = h
            .seats
            .iter()
            .map(|s| {
                json!({
                    "name": s.name,
                    "version": s.version,
                    "author": s.author,
                    "command": s.command,
                })
            })
            .collect();
        d.insert("seats".into(), Value::Array(seats));
    }
    Value::Object(d)
}

/// Think time and the fallback flag of an action, shown only to the seat that acted (a seat is
/// never told how long another bot thought, nor that the referee answered for it).
fn timing(e: &mut Map<String, Value>, seat: SeatNo, us: u64, auto: bool, view: Option<SeatNo>) {
    if view.is_none_or(|v| v == seat) {
        e.insert("us".into(), json!(us));
        if auto {
            e.insert("auto".into(), json!(true));
        }
    }
}

fn cards(cards: &[CardCode]) -> Value {
    Value::Array(cards.iter().map(|c| json!(c.as_str())).collect())
}

/// One record line as a step of the page, or `None` when `view` could not know of it.
fn event(line: &RecordLine, header: &Header, view: Option<SeatNo>) -> Option<Value> {
    let sees = |seat: SeatNo| view.is_none_or(|v| v == seat);
    let mut e = Map::new();
    let kind = match line {
        RecordLine::Header(_) | RecordLine::Footer(_) => return None,
        RecordLine::Deal { deal, dealer, deck, hands } => {
            e.insert("deal".into(), json!(deal));
            e.insert("dealer".into(), json!(dealer));
            let hands: Vec<Value> = (0..4u8)
                .map(|s| match hands.get(usize::from(s)) {
                    Some(h) if sees(s) => cards(h),
                    _ => Value::Null,
                })
                .collect();
            e.insert("hands".into(), Value::Array(hands));
            if view.is_none() {
                e.insert("deck".into(), cards(deck));
            }
            "deal"
        }
        RecordLine::Vote { seat, accept, us, auto, .. } => {
            e.insert("seat".into(), json!(seat));
            e.insert("accept".into(), json!(accept));
            timing(&mut e, *seat, *us, *auto, view);
            "vote"
        }
        RecordLine::Opening { seat, us, auto, .. } => {
            e.insert("seat".into(), json!(seat));
            timing(&mut e, *seat, *us, *auto, view);
            "opening"
        }
        RecordLine::Chant { taken } => {
            e.insert("taken".into(), json!(taken));
            "chant"
        }
        RecordLine::Receive { seat, cards: received } => {
            // Who receives, and how many, follows from the rules; the cards do not.
            e.insert("seat".into(), json!(seat));
            e.insert("count".into(), json!(received.len()));
            if sees(*seat) {
                e.insert("cards".into(), cards(received));
            }
            "receive"
        }
        RecordLine::Discard { seat, cards: discarded, us, auto, .. } => {
            e.insert("seat".into(), json!(seat));
            e.insert("count".into(), json!(discarded.len()));
            if sees(*seat) {
                e.insert("cards".into(), cards(discarded));
            }
            timing(&mut e, *seat, *us, *auto, view);
            "discard"
        }
        RecordLine::Play { seat, card, us, auto, .. } => {
            e.insert("seat".into(), json!(seat));
            e.insert("card".into(), json!(card.as_str()));
            timing(&mut e, *seat, *us, *auto, view);
            "play"
        }
        RecordLine::Signal { from, signal, seen_by } => {
            e.insert("from".into(), json!(from));
            e.insert("signal".into(), json!(signal));
            e.insert("seen_by".into(), json!(known_seen_by(*from, seen_by, header, view)?));
            if view.is_some() && header.rules.signals == protocol::options::Signals::Leaky {
                e.insert("partial".into(), json!(true));
            }
            "signal"
        }
        RecordLine::Trick { trick, leader, cards: table, winner } => {
            e.insert("trick".into(), json!(trick));
            e.insert("leader".into(), json!(leader));
            e.insert("cards".into(), json!(table));
            e.insert("winner".into(), json!(winner));
            "trick"
        }
        RecordLine::DealOver { deal, tricks, winner, points, mordienne, counted, score } => {
            e.insert("deal".into(), json!(deal));
            e.insert("tricks".into(), json!(tricks));
            e.insert("winner".into(), json!(winner));
            e.insert("points".into(), json!(points));
            e.insert("mordienne".into(), json!(mordienne));
            e.insert("counted".into(), json!(counted));
            e.insert("score".into(), json!(score));
            "deal_over"
        }
        RecordLine::Fault(f) => {
            // A fault is told only to the faulty bot, in its `error` notice.
            if !sees(f.seat) {
                return None;
            }
            fault_data(f, &mut e);
            "fault"
        }
    };
    e.insert("type".into(), json!(kind));
    Some(Value::Object(e))
}

/// The seats `view` knows saw a signal, or `None` when `view` did not see it. Under `partner`
/// and `public` the rules name the watchers; under `leaky` a seat knows only that the sender's
/// partner saw it, and that it did itself.
fn known_seen_by(
    from: SeatNo,
    seen_by: &[SeatNo],
    header: &Header,
    view: Option<SeatNo>,
) -> Option<Vec<SeatNo>> {
    let Some(v) = view else { return Some(seen_by.to_vec()) };
    if v != from && !seen_by.contains(&v) {
        return None;
    }
    let public = header.rules.signals == protocol::options::Signals::Public;
    Some(
        seen_by
            .iter()
            .copied()
            .filter(|&s| public || s == from || s == (from + 2) % 4 || s == v)
            .collect(),
    )
}

fn fault_data(f: &FaultRecord, e: &mut Map<String, Value>) {
    e.insert("seat".into(), json!(f.seat));
    if let Some(deal) = f.deal {
        e.insert("deal".into(), json!(deal));
    }
    if let Some(trick) = f.trick {
        e.insert("trick".into(), json!(trick));
    }
    e.insert("kind".into(), json!(f.kind.as_str()));
    e.insert("detail".into(), json!(f.detail));
    e.insert("action".into(), json!(f.action));
    e.insert("penalty".into(), json!(f.penalty));
    e.insert("strikes".into(), json!(f.strikes));
    if let Some(raw) = f.raw_bytes() {
        // The bot's own line, its bytes that are not UTF-8 shown as U+FFFD; long ones are cut
        // so one fault cannot bloat the page.
        let cut: String = String::from_utf8_lossy(raw).chars().take(300).collect();
        e.insert("raw".into(), json!(cut));
    }
}

fn footer_event(f: &Footer) -> Value {
    json!({
        "type": "footer",
        "status": f.status,
        "score": f.score,
        "winner": f.winner,
        "forfeit": f.forfeit,
        "deals": f.deals,
    })
}

fn footer_data(f: &Footer, view: Option<SeatNo>) -> Value {
    let stats: Vec<Value> = f
        .stats
        .iter()
        .enumerate()
        .map(|(s, st)| match view {
            Some(v) if usize::from(v) != s => Value::Null,
            _ => json!(st),
        })
        .collect();
    let mut d = json!({
        "status": f.status,
        "score": f.score,
        "winner": f.winner,
        "forfeit": f.forfeit,
        "deals": f.deals,
        "stats": stats,
    });
    if view.is_none() {
        d["duration_ms"] = json!(f.duration_ms);
    }
    d
}

/// JSON that can sit inside a `<script>` element: `<`, `>` and `&` only ever occur inside JSON
/// strings, where their `\u` escapes mean the same, so `</script>` and `<!--` cannot appear.
/// U+2028 and U+2029 are escaped too, for readers that treat them as line ends.
fn script_safe_json(data: &Value) -> String {
    let text = data.to_string();
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn render_page(data: &Value, header: &Header, view: Option<SeatNo>) -> String {
    let title = match view {
        Some(s) => format!("Aluette game {}, seat {s}'s view", header.game),
        None => format!("Aluette game {}", header.game),
    };
    fill(
        TEMPLATE,
        &[
            ("TITLE", &html_escape(&title)),
            ("STYLE", STYLE),
            ("DATA", &script_safe_json(data)),
            ("SCRIPT", SCRIPT),
        ],
    )
}

/// Replaces each `{{KEY}}` of the template in one pass, so a value (a bot's name, say) that
/// happens to contain `{{...}}` is never expanded itself.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| {
            values.iter().find(|(k, _)| *k == &after[..end]).map(|(_, v)| (end, *v))
        }) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_assets_cannot_end_their_elements_early() {
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
        assert!(!SCRIPT.to_ascii_lowercase().contains("</script"));
        for key in ["TITLE", "STYLE", "DATA", "SCRIPT"] {
            assert_eq!(TEMPLATE.matches(&format!("{{{{{key}}}}}")).count(), 1, "{key}");
        }
    }

    #[test]
    fn embedded_json_has_no_markup_and_parses_back() {
        let data = json!({ "name": "</script><!-- & \u{2028} >", "n": 1 });
        let text = script_safe_json(&data);
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), data);
    }

    /// A header with the given `signals` option, as a record states it.
    fn header(signals: &str) -> Header {
        serde_json::from_value(json!({
            "format": "aluette-record", "version": 1, "referee": "0.1.0", "protocol": 1,
            "game": 1, "match_seed": 5, "seed": 7,
            "rules": {"seating": "given", "chant": "on", "chant-second": "dealer",
                "discard": "free", "all-spoiled": "nothing", "mordienne": "on",
                "mordienne-run": 2, "deals": 5, "on-tie": "draw", "signals": signals,
                "signal-leak": 0.25, "signal-truth": "truthful"},
            "clock": {"handshake_ms": 10000, "answer_ms": 1000, "bank_ms": 5000},
            "policy": {"on_fault": "fallback", "max_strikes": 3},
            "seats": (0..4).map(|s| json!({"name": format!("bot{s}"), "version": "1",
                "command": ["builtin:random"], "first_id": 2})).collect::<Vec<_>>(),
            "first_dealer": 0, "started_unix_ms": 0,
        }))
        .expect("a header")
    }

    #[test]
    fn a_seat_knows_who_saw_a_signal_only_as_far_as_the_rules_tell() {
        let partner = header("partner");
        assert_eq!(known_seen_by(3, &[1, 3], &partner, Some(1)), Some(vec![1, 3]));
        assert_eq!(known_seen_by(0, &[0, 2], &partner, Some(1)), None, "not seen");
        assert_eq!(known_seen_by(0, &[0, 2], &partner, None), Some(vec![0, 2]));
        let leaky = header("leaky");
        // Seat 1 saw seat 0's signal, but cannot know whether seat 3 did.
        assert_eq!(known_seen_by(0, &[0, 1, 2, 3], &leaky, Some(1)), Some(vec![0, 1, 2]));
        // The sender is not told which opponents saw its signal.
        assert_eq!(known_seen_by(0, &[0, 1, 2, 3], &leaky, Some(0)), Some(vec![0, 2]));
        assert_eq!(known_seen_by(0, &[0, 2, 3], &leaky, Some(1)), None);
        let public = header("public");
        assert_eq!(known_seen_by(2, &[0, 1, 2, 3], &public, Some(1)), Some(vec![0, 1, 2, 3]));
    }

    #[test]
    fn a_seat_view_leaves_out_other_seats_secrets() {
        let h = header("partner");
        let line = |v: Value| serde_json::from_value::<RecordLine>(v).expect("a record line");
        let deck: Vec<String> = (0..48)
            .map(|i| {
                format!("{}{}", &"A23456789JCK"[i % 12..i % 12 + 1], &"ocsb"[i / 12..i / 12 + 1])
            })
            .collect();
        let hands: Vec<Vec<String>> = (0..4).map(|s| deck[s * 9..s * 9 + 9].to_vec()).collect();
        let deal =
            line(json!({"type": "deal", "deal": 1, "dealer": 0, "deck": deck, "hands": hands}));
        let e = event(&deal, &h, Some(2)).unwrap();
        assert!(e.get("deck").is_none());
        assert_eq!(e["hands"], json!([null, null, hands[2], null]));
        assert_eq!(event(&deal, &h, None).unwrap()["deck"], json!(deck));

        let play = line(json!({"type": "play", "seat": 1, "card": "3o", "us": 70, "auto": true}));
        assert_eq!(
            event(&play, &h, Some(2)).unwrap(),
            json!({"type": "play", "seat": 1, "card": "3o"})
        );
        assert_eq!(event(&play, &h, Some(1)).unwrap()["us"], 70);
        assert_eq!(event(&play, &h, Some(1)).unwrap()["auto"], true);

        let six = ["Ao", "2o", "3o", "4o", "5o", "6o"];
        let discard = line(json!({"type": "discard", "seat": 1, "cards": six, "us": 9}));
        let e = event(&discard, &h, Some(2)).unwrap();
        assert!(e.get("cards").is_none() && e.get("us").is_none());
        assert_eq!(e["count"], 6);

        let fault = line(json!({"type": "fault", "seat": 1, "kind": "timeout", "detail": "late",
            "action": "played for you", "penalty": "fallback", "strikes": 1}));
        assert!(event(&fault, &h, Some(2)).is_none());
        assert_eq!(event(&fault, &h, Some(1)).unwrap()["kind"], "timeout");
    }

    #[test]
    fn fill_expands_each_placeholder_once() {
        let page = fill("<t>{{A}}</t>{{B}}{{C}}", &[("A", "{{B}}"), ("B", "x")]);
        assert_eq!(page, "<t>{{B}}</t>x{{C}}");
    }
}
