//! `referee replay --html`: writes one self-contained page that steps through a verified record,
//! so a game can be watched in any browser, offline, from a single file that can be mailed.
//!
//! The page is a template (`html/viewer.html`) with its style and script inlined and the game
//! embedded as JSON in a `<script type="application/json">` block. The JSON is not the record
//! itself but a list of steps built from it here. With `--seat S` the steps come from another
//! source: seat S's conversation as `replay --seat S` re-derives it (`html/seat.rs`), so the page
//! holds what the referee told that seat and nothing else, by the one rule every message obeys
//! (`rules::Game::view` and the events visible to the seat), not by rules of its own. Anyone can
//! read a page's source: what a seat may not know is left out of the data, not hidden by the
//! script.

mod seat;

use protocol::CardCode;
use protocol::msg::{SeatNo, TableCard};
use protocol::record::{FaultRecord, Footer, Header, RecordLine};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("html/viewer.html");
// The cards' names, levels and drawing come first: shared with the live pages (`web`).
const STYLE: &str = concat!(include_str!("html/cards.css"), include_str!("html/viewer.css"));
const SCRIPT: &str = concat!(include_str!("html/cards.js"), include_str!("html/viewer.js"));

/// The page to write: where, and whose view (`None`: the whole game).
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) out: PathBuf,
    pub(crate) seat: Option<SeatNo>,
    /// The par of each card (spec/par.md), searched with this node budget a position; only on
    /// the whole game's page, since it is computed from every hand.
    pub(crate) par: Option<u64>,
}

/// Writes the viewer for the record `file`, which the caller has already verified.
/// `cut_short` is the last complete line of a record without its footer (a killed referee):
/// such a game is still worth watching as far as it went, so the page is written, and says
/// so on every step. `quiet`: nothing is printed.
pub(crate) fn write(
    replay: &crate::replay::Replay,
    file: &Path,
    page: &Page,
    quiet: bool,
    cut_short: Option<usize>,
) -> Result<(), String> {
    let out = &page.out;
    let html = render(replay, file, page.seat, page.par, cut_short)?;
    std::fs::write(out, html).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    if !quiet {
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

/// The viewer of the record `file` (verified by the caller as `replay`): the whole game, or
/// what `seat` could see; with each card's par searched with `par` nodes a position.
pub(crate) fn render(
    replay: &crate::replay::Replay,
    file: &Path,
    seat: Option<SeatNo>,
    par: Option<u64>,
    cut_short: Option<usize>,
) -> Result<String, String> {
    let data = match seat {
        None => {
            let bytes = std::fs::read(file)
                .map_err(|e| format!("{}: cannot read the record: {e}", file.display()))?;
            // Only a cut can leave bytes that are not UTF-8, inside the half-written last
            // line, which is dropped below.
            let text = String::from_utf8_lossy(&bytes);
            let lines = parse_lines(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            let mut data = game_data(replay, &lines, cut_short);
            if let Some(nodes) = par {
                add_par(&mut data, &crate::par::analyse(file, nodes)?);
            }
            data
        }
        Some(seat) => seat::seat_data(file, seat, cut_short.is_some())?,
    };
    Ok(render_page(&data, replay.header.game, seat))
}

/// Seat `seat`'s whole page for the record at `path`, for the leak tests, which hold it to what
/// the seat may know like every message.
#[cfg(test)]
pub(crate) fn seat_page(path: &std::path::Path, seat: SeatNo) -> Result<String, String> {
    let game = crate::replay::replay_file(path).map_err(|e| e.to_string())?.header.game;
    Ok(render_page(&seat::seat_data(path, seat, false)?, game, Some(seat)))
}

/// Each play step gets its card's par (`par.rs`): before and after for the seat's team, and
/// the cost; the plays of a deal the record does not finish get none.
fn add_par(data: &mut Value, par: &crate::par::RecordPar) {
    let mut decisions = par.deals.iter().flat_map(|d| &d.decisions);
    if let Some(Value::Array(events)) = data.get_mut("events") {
        for e in events.iter_mut().filter(|e| e["type"] == "play") {
            let (Some(d), Value::Object(m)) = (decisions.next(), e) else { break };
            m.insert(
                "par".into(),
                json!({ "before": d.before, "after": d.after, "cost": d.cost() }),
            );
        }
    }
    if let Value::Object(m) = data {
        let starts: Vec<Value> =
            par.deals.iter().map(|d| json!({ "deal": d.deal, "par": d.start })).collect();
        m.insert("par".into(), Value::Array(starts));
    }
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

/// The whole game's page: every line of the record a step.
fn game_data(
    replay: &crate::replay::Replay,
    lines: &[RecordLine],
    cut_short: Option<usize>,
) -> Value {
    let mut events = Vec::new();
    let mut footer = Value::Null;
    for line in lines {
        match line {
            RecordLine::Header(_) => {}
            RecordLine::Footer(f) => {
                events.push(footer_step(f.status.as_str(), f.score, f.winner, f.forfeit, f.deals));
                footer = footer_data(f);
            }
            other => events.extend(event(other)),
        }
    }
    let mut data = Map::new();
    data.insert("view".into(), Value::Null);
    data.insert("header".into(), header_data(&replay.header));
    data.insert("events".into(), Value::Array(events));
    data.insert("footer".into(), footer);
    data.insert("verified".into(), json!({ "lines": replay.lines, "score": replay.score }));
    if let Some(line) = cut_short {
        data.insert("cut_short".into(), json!({ "after_line": line }));
    }
    Value::Object(data)
}

fn header_data(h: &Header) -> Value {
    let mut d = Map::new();
    d.insert("game".into(), json!(h.game));
    d.insert("rules".into(), json!(h.rules));
    d.insert("clock".into(), json!(h.clock));
    d.insert("first_dealer".into(), json!(h.first_dealer));
    if let Some(draw) = &h.draw {
        d.insert("draw".into(), json!(draw));
    }
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
    Value::Object(d)
}

fn footer_data(f: &Footer) -> Value {
    json!({
        "status": f.status,
        "score": f.score,
        "winner": f.winner,
        "forfeit": f.forfeit,
        "deals": f.deals,
        "stats": f.stats,
        "duration_ms": f.duration_ms,
    })
}

/// One record line as a step of the page, with an answer's CPU time when it was measured;
/// `None` for the header and footer.
fn event(line: &RecordLine) -> Option<Value> {
    let mut e = line_step(line)?;
    if let (Some(cpu), Value::Object(m)) = (line.cpu_us(), &mut e) {
        m.insert("cpu_us".into(), json!(cpu));
    }
    Some(e)
}

fn line_step(line: &RecordLine) -> Option<Value> {
    Some(match line {
        RecordLine::Header(_) | RecordLine::Footer(_) => return None,
        RecordLine::Deal { deal, dealer, deck, hands } => {
            let hands = Value::Array(hands.iter().map(|h| cards(h)).collect());
            deal_step(*deal, *dealer, hands, Some(deck))
        }
        RecordLine::Vote { seat, accept, us, auto, .. } => {
            vote_step(*seat, *accept, Some((*us, *auto)))
        }
        RecordLine::Opening { seat, us, auto, .. } => {
            with_timing(step("opening", json!({ "seat": seat })), Some((*us, *auto)))
        }
        RecordLine::Chant { taken } => chant_step(*taken),
        RecordLine::Receive { seat, cards: received } => step(
            "receive",
            json!({ "seat": seat, "count": received.len(), "cards": cards(received) }),
        ),
        RecordLine::Discard { seat, cards: discarded, us, auto, .. } => with_timing(
            step(
                "discard",
                json!({ "seat": seat, "count": discarded.len(), "cards": cards(discarded) }),
            ),
            Some((*us, *auto)),
        ),
        RecordLine::Play { seat, card, us, auto, .. } => play_step(*seat, card, Some((*us, *auto))),
        RecordLine::Signal { from, signal, seen_by } => signal_step(*from, signal, seen_by, false),
        RecordLine::Trick { trick, leader, cards: table, winner } => {
            trick_step(*trick, *leader, table, *winner)
        }
        RecordLine::Offer { seat, offer, us, auto, .. } => {
            pledge_step("offer", *seat, *offer, Some((*us, *auto)))
        }
        RecordLine::Reply { seat, accept, us, auto, .. } => {
            pledge_step("reply", *seat, *accept, Some((*us, *auto)))
        }
        RecordLine::Announce { seat, announce, us, auto, .. } => {
            pledge_step("announce", *seat, *announce, Some((*us, *auto)))
        }
        // Every field of the line is the page's to show.
        RecordLine::DealOver { .. } => {
            deal_over_step(serde_json::to_value(line).unwrap_or_default())
        }
        RecordLine::Fault(f) => fault_step(f),
    })
}

// ---- Steps. Both pages build each kind of step here, from a record line or a message.

/// A step: its type and its fields.
fn step(kind: &str, fields: Value) -> Value {
    let mut e = match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    e.insert("type".into(), json!(kind));
    Value::Object(e)
}

/// The think time and fallback flag of an action, for the pages that may show them (the whole
/// game's, and a seat's for its own actions: a seat is never told how long another bot
/// thought, nor that the referee answered for it).
type Timing = Option<(u64, bool)>;

fn with_timing(mut e: Value, timing: Timing) -> Value {
    if let (Some((us, auto)), Value::Object(m)) = (timing, &mut e) {
        m.insert("us".into(), json!(us));
        if auto {
            m.insert("auto".into(), json!(true));
        }
    }
    e
}

fn cards(cards: &[CardCode]) -> Value {
    Value::Array(cards.iter().map(|c| json!(c.as_str())).collect())
}

/// A deal: the hands the page may show (`null` for the others), and the deck when it may.
fn deal_step(deal: u16, dealer: SeatNo, hands: Value, deck: Option<&[CardCode]>) -> Value {
    let mut e = step("deal", json!({ "deal": deal, "dealer": dealer, "hands": hands }));
    if let (Some(deck), Value::Object(m)) = (deck, &mut e) {
        m.insert("deck".into(), cards(deck));
    }
    e
}

fn vote_step(seat: SeatNo, accept: bool, timing: Timing) -> Value {
    with_timing(step("vote", json!({ "seat": seat, "accept": accept })), timing)
}

/// An answer of a pre-lead round (`offer`, `reply`, `announce`): `yes` is the offer, the
/// acceptance or the announcement.
fn pledge_step(kind: &str, seat: SeatNo, yes: bool, timing: Timing) -> Value {
    with_timing(step(kind, json!({ "seat": seat, "yes": yes })), timing)
}

/// How a deal ended; its `pledge` is `null` when no surrender or announcement changed it.
fn deal_over_step(fields: Value) -> Value {
    step("deal_over", fields)
}

fn chant_step(taken: bool) -> Value {
    step("chant", json!({ "taken": taken }))
}

fn play_step(seat: SeatNo, card: &CardCode, timing: Timing) -> Value {
    with_timing(step("play", json!({ "seat": seat, "card": card.as_str() })), timing)
}

/// A signal and the seats the page knows saw it; `partial` when others may have too.
fn signal_step(from: SeatNo, signal: &str, seen_by: &[SeatNo], partial: bool) -> Value {
    let mut e = step("signal", json!({ "from": from, "signal": signal, "seen_by": seen_by }));
    if let (true, Value::Object(m)) = (partial, &mut e) {
        m.insert("partial".into(), json!(true));
    }
    e
}

fn trick_step(trick: u8, leader: SeatNo, table: &[TableCard], winner: Option<SeatNo>) -> Value {
    step("trick", json!({ "trick": trick, "leader": leader, "cards": table, "winner": winner }))
}

fn fault_step(f: &FaultRecord) -> Value {
    let mut e = Map::new();
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
    step("fault", Value::Object(e))
}

fn footer_step(
    status: &str,
    score: [u16; 2],
    winner: Option<u8>,
    forfeit: Option<u8>,
    deals: u16,
) -> Value {
    step(
        "footer",
        json!({
            "status": status, "score": score, "winner": winner, "forfeit": forfeit, "deals": deals,
        }),
    )
}

// ---- The page

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

fn render_page(data: &Value, game: u64, view: Option<SeatNo>) -> String {
    let title = match view {
        Some(s) => format!("Aluette game {game}, seat {s}'s view"),
        None => format!("Aluette game {game}"),
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

    #[test]
    fn the_whole_game_shows_every_hand_the_deck_and_the_think_times() {
        let line = |v: Value| serde_json::from_value::<RecordLine>(v).expect("a record line");
        let deck: Vec<String> = (0..48)
            .map(|i| {
                format!("{}{}", &"A23456789JCK"[i % 12..i % 12 + 1], &"ocsb"[i / 12..i / 12 + 1])
            })
            .collect();
        let hands: Vec<Vec<String>> = (0..4).map(|s| deck[s * 9..s * 9 + 9].to_vec()).collect();
        let deal =
            line(json!({"type": "deal", "deal": 1, "dealer": 0, "deck": deck, "hands": hands}));
        let e = event(&deal).unwrap();
        assert_eq!((&e["deck"], &e["hands"]), (&json!(deck), &json!(hands)));
        let play = line(json!({"type": "play", "seat": 1, "card": "3o", "us": 70, "auto": true}));
        assert_eq!(
            event(&play).unwrap(),
            json!({"type": "play", "seat": 1, "card": "3o", "us": 70, "auto": true})
        );
        let timed =
            line(json!({"type": "play", "seat": 2, "card": "Kb", "us": 900, "cpu_us": 450}));
        assert_eq!(
            event(&timed).unwrap(),
            json!({"type": "play", "seat": 2, "card": "Kb", "us": 900, "cpu_us": 450})
        );
        let signal =
            line(json!({"type": "signal", "from": 0, "signal": "aces:1", "seen_by": [0, 2, 3]}));
        assert_eq!(event(&signal).unwrap()["seen_by"], json!([0, 2, 3]));
    }

    #[test]
    fn fill_expands_each_placeholder_once() {
        let page = fill("<t>{{A}}</t>{{B}}{{C}}", &[("A", "{{B}}"), ("B", "x")]);
        assert_eq!(page, "<t>{{B}}</t>x{{C}}");
    }
}
