//! Information hiding, tested from the bots' side of the wire: every card a seat is told of is
//! one it may know at that moment, and changing cards a seat can never see leaves its whole
//! conversation byte-identical. The views of `rules` are tested in the engine; these tests catch
//! a leak in what the referee builds from them (a field filled from the wrong seat, a private
//! event broadcast, a signal delivered to the wrong seat). A seat's page (`replay --seat S
//! --html`) is held to the same two rules, from the record each game writes.
//!
//! Bots are in-memory: scripted recording bots, and honest built-in bots behind a tee that
//! records what they receive, all on tokio's paused clock, so think times are zero and two runs
//! of the same game produce the same bytes.

use crate::bot::link::{Reader, Writer};
use crate::bot::players::builtin::{self, Builtin};
use crate::bot::{Bot, BotSpec, ConnectConfig};
use crate::game_runner::*;
use crate::judge::MAX_SIGNALS;
use crate::policy::OnFault;
use crate::policy::{self, Policy};
use crate::record_io::Recorder;
use protocol::codec::{Frame, LineFramer, decode_line, encode_line};
use protocol::msg::Clock;
use protocol::msg::{FromBot, ToBot};
use rules::{Card, Deck, Rules, Seat, SignalDelivery, SplitMix64};
use rules::{CardSet, ChantSecond, DiscardRule, MatchLength, Signal};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::task::JoinHandle;

/// The bytes one seat received from the referee, in order.
type Tape = Arc<Mutex<Vec<u8>>>;

/// How a scripted recording bot votes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VoteWith {
    Accept,
    Refuse,
}

/// A scripted bot: always a legal answer, chosen so that the tests can reason about what its
/// behaviour depends on.
#[derive(Clone, Copy, Debug)]
struct Script {
    vote: VoteWith,
    /// Discard exactly the six cards received: the hand after the discard is then the dealt
    /// hand, whatever the talon held, so the rest of the bot's game cannot depend on the talon.
    discard_received: bool,
    /// Send truthful signals in each opening answer (its top cards and its number of aces) and
    /// `bad-hand` with each play.
    signal: bool,
    /// Seed of the bot's card choices; plays are random, so games differ between seeds.
    seed: u64,
    /// Take up the feature `surrender` and answer its rounds by the hand alone: offer with no
    /// top card, refuse an offer and announce with three top cards or more.
    pledge: bool,
}

impl Script {
    fn new(vote: VoteWith, seed: u64) -> Script {
        Script { vote, discard_received: false, signal: false, seed, pledge: false }
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, Debug)]
enum Sitter {
    Scripted(Script),
    /// An honest built-in bot behind a recording tee.
    Builtin(Builtin),
}

fn card(c: &protocol::CardCode) -> Card {
    convert::card(*c)
}

fn answer(msg: &ToBot, script: &Script, rng: &mut SplitMix64) -> Option<FromBot> {
    Some(match msg {
        ToBot::Hello { id, .. } => FromBot::Hello {
            id: *id,
            name: "recorder".into(),
            version: "1".into(),
            author: None,
            protocol: None,
            token: None,
            features: if script.pledge { vec![protocol::SURRENDER.into()] } else { Vec::new() },
        },
        ToBot::Offer { id, hand, .. }
        | ToBot::Reply { id, hand, .. }
        | ToBot::Announce { id, hand, .. } => {
            let tops = hand.iter().filter(|c| card(c).level() <= 8).count();
            match msg {
                ToBot::Offer { .. } => {
                    FromBot::Offer { id: *id, offer: tops == 0, signals: vec![] }
                }
                ToBot::Reply { .. } => {
                    FromBot::Reply { id: *id, accept: tops < 3, signals: vec![] }
                }
                _ => FromBot::Announce { id: *id, announce: tops >= 3, signals: vec![] },
            }
        }
        ToBot::Opening { id, vote, hand, .. } => {
            let mut signals = Vec::new();
            if script.signal {
                let hand: CardSet = hand.iter().map(card).collect();
                let aces = hand.iter().filter(|c| c.rank() == rules::Rank::Ace).count();
                signals.extend(
                    hand.iter()
                        .filter(|c| c.level() <= 8)
                        .take(MAX_SIGNALS - 1)
                        .map(|c| Signal::Holds(c).to_string()),
                );
                signals.push(format!("aces:{aces}"));
            }
            let accept = vote.then_some(script.vote == VoteWith::Accept);
            FromBot::Opening { id: *id, accept, signals }
        }
        ToBot::Discard { id, hand, received, rule, .. } => {
            let cards = if script.discard_received {
                received.clone()
            } else if *rule == protocol::options::DiscardRule::KeepHighest {
                let hand: CardSet = hand.iter().map(card).collect();
                policy::weakest_first(hand).into_iter().take(6).map(convert::code).collect()
            } else {
                let mut left: CardSet = hand.iter().map(card).collect();
                let mut out = Vec::new();
                while out.len() < 6 {
                    let c = left.nth(rng.below(left.len() as u64) as usize)?;
                    left = left.without(c);
                    out.push(convert::code(c));
                }
                out
            };
            FromBot::Discard { id: *id, cards, signals: vec![] }
        }
        ToBot::Play { id, hand, .. } => {
            let pick = hand[rng.below(hand.len() as u64) as usize];
            let signals = if script.signal { vec!["bad-hand".into()] } else { vec![] };
            FromBot::Play { id: *id, card: pick, signals }
        }
        _ => return None,
    })
}

/// A scripted bot that answers every question correctly and records every byte it receives.
async fn recorder(stream: DuplexStream, script: Script, tape: Tape) {
    let (mut r, mut w) = tokio::io::split(stream);
    let mut framer = LineFramer::new(1 << 20);
    let mut buf = vec![0u8; 8192];
    let mut rng = SplitMix64::new(script.seed);
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        tape.lock().unwrap().extend_from_slice(&buf[..n]);
        framer.push(&buf[..n]);
        let mut out = String::new();
        while let Some(frame) = framer.next_line() {
            let Frame::Line(line) = frame else { continue };
            let Ok(msg) = decode_line::<ToBot>(line) else { continue };
            if let Some(a) = answer(&msg, &script, &mut rng) {
                out.push_str(&encode_line(&a));
            }
        }
        if !out.is_empty() && w.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A built-in bot behind a tee: the referee's bytes are recorded on their way to it.
async fn teed_builtin(kind: Builtin, stream: DuplexStream, tape: Tape) {
    let (inner, theirs) = tokio::io::duplex(1 << 16);
    let bot = tokio::spawn(builtin::run(kind, theirs, 1 << 20));
    let (mut r, mut w) = tokio::io::split(stream);
    let (mut ir, mut iw) = tokio::io::split(inner);
    let back = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut ir, &mut w).await;
    });
    let mut buf = vec![0u8; 8192];
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        tape.lock().unwrap().extend_from_slice(&buf[..n]);
        if iw.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    // End of input tells the built-in bot to stop, which ends the copy back.
    let _ = iw.shutdown().await;
    drop(iw);
    let _ = bot.await;
    let _ = back.await;
}

/// One game's result, the four seats' conversations, and its record.
struct Played {
    summary: GameSummary,
    tapes: [Vec<u8>; 4],
    record: RecordFile,
}

/// A game's record in a file of its own, removed with it.
struct RecordFile(std::path::PathBuf);

impl RecordFile {
    fn new() -> RecordFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("aluette-leak-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("game-{n}.jsonl"));
        let _ = std::fs::remove_file(&path);
        RecordFile(path)
    }

    /// Seat `seat`'s page of the game, as `replay --seat S --html` writes it. It re-runs the
    /// game on a runtime of its own, so it runs on a thread of its own.
    fn page(&self, seat: usize) -> String {
        std::thread::scope(|s| {
            s.spawn(|| crate::html::seat_page(&self.0, seat as u8)).join().expect("a page")
        })
        .unwrap_or_else(|e| panic!("seat {seat}'s page: {e}"))
    }
}

impl Drop for RecordFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn config(rules: Rules) -> GameConfig {
    GameConfig {
        rules,
        seating: protocol::options::Seating::Given,
        clock: Clock {
            handshake_ms: 1000,
            answer_ms: 1000,
            bank_ms: 1000,
            mode: None,
            wall_cap: None,
        },
        policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
    }
}

/// Plays one game with these sitters, from the seed's decks or from `decks`.
async fn play_game(
    cfg: GameConfig,
    sitters: [Sitter; 4],
    seed: u64,
    first_dealer: Seat,
    decks: Option<Vec<Deck>>,
) -> Played {
    let cc = ConnectConfig {
        cpu_time: false,
        resume_grace: Duration::ZERO,
        pre_lead_rounds: true,
        handshake: Duration::from_millis(1000),
        max_line: 1 << 16,
        stderr_cap: 0,
        limits: Default::default(),
    };
    let tapes: [Tape; 4] = Default::default();
    let mut tasks: Vec<JoinHandle<()>> = Vec::new();
    let mut bots = Vec::new();
    for (sitter, tape) in sitters.iter().zip(&tapes) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        tasks.push(match *sitter {
            Sitter::Scripted(script) => tokio::spawn(recorder(theirs, script, tape.clone())),
            Sitter::Builtin(kind) => tokio::spawn(teed_builtin(kind, theirs, tape.clone())),
        });
        let (r, w) = tokio::io::split(ours);
        let (r, w): (Reader, Writer) = (Box::new(r), Box::new(w));
        bots.push(Bot::attach(BotSpec::Command(vec!["recorder".into()]), r, w, &cc).await);
    }
    // Under a seating draw, the draw's cards go into the record, as a match does it.
    let (_, _, draw) = crate::api::seating(cfg.seating, seed, 1);
    let setup =
        GameSetup { game_no: 1, match_seed: seed, seed: game_seed(seed, 1), first_dealer, draw };
    let record = RecordFile::new();
    let mut rec = Recorder::create(Some(&record.0)).unwrap();
    let summary = {
        let [b0, b1, b2, b3] = &mut bots[..] else { unreachable!() };
        run_game_with_decks(
            [b0, b1, b2, b3],
            &setup,
            &cfg,
            &mut rec,
            crate::shutdown::Shutdown::never(),
            decks,
        )
        .await
    };
    for bot in bots {
        bot.close("test over", Duration::from_secs(1)).await;
    }
    for task in tasks {
        task.await.unwrap();
    }
    let tapes = tapes.map(|t| std::mem::take(&mut *t.lock().unwrap()));
    Played { summary, tapes, record }
}

/// The lines of a tape, each without its newline; the tape must end with one.
fn lines(tape: &[u8]) -> Vec<&[u8]> {
    assert!(tape.ends_with(b"\n"), "a conversation ends with a complete line");
    tape[..tape.len() - 1].split(|&b| b == b'\n').collect()
}

/// Every card code named anywhere in a message: whole strings, words inside strings (an error
/// message that names cards) and object keys.
fn cards_named(v: &Value, out: &mut Vec<Card>) {
    match v {
        Value::String(s) => words_named(s, out),
        Value::Array(items) => items.iter().for_each(|i| cards_named(i, out)),
        Value::Object(map) => {
            for (k, item) in map {
                words_named(k, out);
                cards_named(item, out);
            }
        }
        _ => {}
    }
}

fn words_named(s: &str, out: &mut Vec<Card>) {
    for word in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        if let Ok(c) = word.parse::<Card>() {
            out.push(c);
        }
    }
}

fn card_list(v: &Value) -> CardSet {
    let mut out = Vec::new();
    cards_named(v, &mut out);
    CardSet::from_cards(&out)
}

/// What walking one conversation saw, so tests can show they exercised what they claim to.
#[derive(Debug, Default)]
struct Walk {
    cards_checked: usize,
    discard_questions: usize,
    signals: usize,
    deals: usize,
}

/// Walks what a seat got, item by item in order, keeping what it may know, which `learn`
/// updates from each item before its cards are checked (a `trick` makes its cards known in
/// every vocabulary); fails at the first item that names a card outside it.
fn walk_knowledge<'v>(
    seat: usize,
    items: impl IntoIterator<Item = (String, &'v Value)>,
    learn: impl Fn(&Value, &mut CardSet, &mut Walk) -> Result<(), String>,
) -> Result<Walk, String> {
    let mut known = CardSet::EMPTY;
    let mut walk = Walk::default();
    for (at, v) in items {
        match v["type"].as_str().unwrap_or("") {
            "trick" => known = known.union(card_list(&v["cards"])),
            "signal" => walk.signals += 1,
            _ => learn(v, &mut known, &mut walk).map_err(|e| format!("seat {seat} {at}: {e}"))?,
        }
        let mut named = Vec::new();
        cards_named(v, &mut named);
        walk.cards_checked += named.len();
        if let Some(c) = named.iter().find(|&&c| !known.contains(c)) {
            return Err(format!("seat {seat} {at}: card {c} is not known to the seat: {v}"));
        }
    }
    Ok(walk)
}

/// Walks a seat's conversation in order, keeping what the seat may know (its dealt hand, the
/// cards it received in the chant, every card played so far in the deal), and fails at the first
/// message that names a card outside it. Only `deal`, `discard` (its received cards), `played`
/// and `trick` may make a card known by naming it.
fn check_knowledge(seat: usize, tape: &[u8]) -> Result<Walk, String> {
    let mut messages = Vec::new();
    for (n, line) in lines(tape).into_iter().enumerate() {
        let v: Value = serde_json::from_slice(line).map_err(|e| {
            format!("seat {seat} line {n}: not JSON ({e}): {}", String::from_utf8_lossy(line))
        })?;
        messages.push((format!("line {n}"), v));
    }
    let items = messages.iter().map(|(at, v)| (at.clone(), v));
    walk_knowledge(seat, items, |v, known, walk| {
        match v["type"].as_str().unwrap_or("") {
            "deal" => {
                // A new deck: what was known of the last deal says nothing about this one.
                *known = card_list(&v["hand"]);
                walk.deals += 1;
                if known.len() != 9 {
                    return Err(format!("a dealt hand of {}", known.len()));
                }
            }
            "discard" => {
                *known = known.union(card_list(&v["received"]));
                walk.discard_questions += 1;
            }
            "played" => *known = known.union(card_list(&v["card"])),
            _ => {}
        }
        Ok(())
    })
}

/// The JSON a page embeds.
fn page_data(page: &str) -> Value {
    let open = r#"<script type="application/json" id="game-data">"#;
    let start = page.find(open).expect("a data block") + open.len();
    let len = page[start..].find("</script>").expect("the data block ends");
    serde_json::from_str(&page[start..start + len]).expect("the data is JSON")
}

/// Walks a seat's page as [`check_knowledge`] walks its conversation: its header (before the
/// first deal a seat knows no card), each step, and its footer. Only `deal` (the seat's own
/// hand), the seat's own `receive`, `play` and `trick` may make a card known by naming it.
fn check_page_knowledge(seat: usize, page: &str) -> Result<Walk, String> {
    let data = page_data(page);
    let steps = data["events"].as_array().expect("steps").iter();
    let items = std::iter::once(("header".to_string(), &data["header"]))
        .chain(steps.enumerate().map(|(n, e)| (format!("page step {n}"), e)))
        .chain(std::iter::once(("footer".to_string(), &data["footer"])));
    walk_knowledge(seat, items, |e, known, walk| {
        match e["type"].as_str().unwrap_or("") {
            "deal" => {
                *known = card_list(&e["hands"][seat]);
                walk.deals += 1;
            }
            "receive" if e["seat"] == seat as u64 => {
                *known = known.union(card_list(&e["cards"]));
                walk.discard_questions += 1;
            }
            "play" => *known = known.union(card_list(&e["card"])),
            _ => {}
        }
        Ok(())
    })
}

fn rules_for(seed: u64, chant: bool) -> Rules {
    Rules {
        chant,
        chant_second: if seed.is_multiple_of(2) {
            ChantSecond::Dealer
        } else {
            ChantSecond::Partner
        },
        discard: if seed.is_multiple_of(3) { DiscardRule::KeepHighest } else { DiscardRule::Free },
        length: MatchLength::Deals(6),
        signals: SignalDelivery::Public,
        // The rounds before the first lead, and their notices, in half the games.
        surrender: !seed.is_multiple_of(2),
        ..Rules::default()
    }
}

#[test]
fn the_checker_catches_a_leak() {
    let deal = r#"{"type":"deal","deal":1,"dealer":0,"hand":["3o","4o","5o","6o","7o","8o","9o","Jo","Co"]}"#;
    let ok = format!("{deal}\n{}\n", r#"{"type":"played","seat":2,"card":"Kb","trick":1}"#);
    assert!(check_knowledge(0, ok.as_bytes()).is_ok());
    // A card neither dealt to the seat nor played, in a field, inside a message's text, and a
    // card of a previous deal after a new deal.
    for leak in [
        r#"{"type":"play","id":3,"hand":["3o"],"table":[{"seat":1,"card":"Ac"}]}"#,
        r#"{"type":"error","fault":"x","message":"seat 2 holds Ab.","action":"none"}"#,
    ] {
        let tape = format!("{deal}\n{leak}\n");
        assert!(check_knowledge(0, tape.as_bytes()).is_err(), "{leak}");
    }
    let later = deal.replace("\"deal\":1", "\"deal\":2").replace("Co", "Kc");
    let stale = format!("{ok}{later}\n{}\n", r#"{"type":"x","c":"Kb"}"#);
    assert!(check_knowledge(0, stale.as_bytes()).is_err());
}

#[test]
fn the_page_checker_catches_a_leak() {
    let page =
        |data: Value| format!(r#"<script type="application/json" id="game-data">{data}</script>"#);
    let deal = json!({"type": "deal", "deal": 1, "dealer": 0,
        "hands": [null, ["3o", "4o", "5o", "6o", "7o", "8o", "9o", "Jo", "Co"], null, null]});
    let play = json!({"type": "play", "seat": 2, "card": "Kb"});
    let ok = json!({"header": {"game": 1}, "events": [deal, play], "footer": null});
    assert!(check_page_knowledge(1, &page(ok)).is_ok());
    for leak in [
        // A card before any deal (a seating draw), another seat's hand, another seat's talon
        // cards, a card of the deck.
        json!({"header": {"draw": ["Ab"]}, "events": [deal], "footer": null}),
        json!({"header": {}, "events": [{"type": "deal", "hands": [["Ab"], [], null, null]}]}),
        json!({"header": {}, "events": [deal, {"type": "receive", "seat": 2, "cards": ["Ab"]}]}),
        json!({"header": {}, "events": [deal, {"type": "discard", "seat": 1, "cards": ["Ab"]}]}),
    ] {
        assert!(check_page_knowledge(1, &page(leak.clone())).is_err(), "{leak}");
    }
}

/// Part (a) with built-in opponents: the recording bot in each seat in turn, chant on (it always
/// accepts, the random built-ins accept half the time) and off, signals public.
#[tokio::test(start_paused = true)]
async fn every_card_told_to_a_seat_is_one_it_may_know() {
    let mut totals = Walk::default();
    let mut page_totals = Walk::default();
    let mut pledge_questions = 0;
    for seed in 1..=3u64 {
        for chant in [true, false] {
            for pos in 0..4 {
                let mut sitters = [
                    Sitter::Builtin(Builtin::Random),
                    Sitter::Builtin(Builtin::Heuristic),
                    Sitter::Builtin(Builtin::Random),
                    Sitter::Builtin(Builtin::Random),
                ];
                let script = Script {
                    signal: true,
                    pledge: true,
                    ..Script::new(VoteWith::Accept, seed * 10 + pos)
                };
                sitters[pos as usize] = Sitter::Scripted(script);
                let dealer = Seat::ALL[(seed as usize + pos as usize) % 4];
                let rules = rules_for(seed, chant);
                let p = play_game(config(rules), sitters, seed * 100 + pos, dealer, None).await;
                assert_eq!(p.summary.status, Status::Complete);
                assert!(
                    p.summary.faults.is_empty(),
                    "honest bots commit no fault: {:?}",
                    p.summary.faults
                );
                let own = String::from_utf8_lossy(&p.tapes[pos as usize]).into_owned();
                pledge_questions += own.matches(r#"{"type":"offer","id""#).count();
                // The recording seat, and the built-in seats' tapes too; and their pages.
                for (seat, tape) in p.tapes.iter().enumerate() {
                    let w = check_knowledge(seat, tape).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(w.deals, 6);
                    totals.cards_checked += w.cards_checked;
                    totals.discard_questions += w.discard_questions;
                    totals.signals += w.signals;
                    let page = p.record.page(seat);
                    let w = check_page_knowledge(seat, &page).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(w.deals, 6);
                    page_totals.cards_checked += w.cards_checked;
                    page_totals.discard_questions += w.discard_questions;
                    page_totals.signals += w.signals;
                }
            }
        }
    }
    // The runs went through the chant, the surrender rounds and carried signals, so the check
    // saw those paths.
    assert!(pledge_questions > 0, "no offer question was checked");
    assert!(totals.discard_questions > 0, "{totals:?}");
    assert!(totals.signals > 0, "{totals:?}");
    assert!(totals.cards_checked > 10_000, "{totals:?}");
    // The pages showed the chant's cards and signals, and many cards, too.
    assert!(page_totals.discard_questions > 0, "{page_totals:?}");
    assert!(page_totals.signals > 0, "{page_totals:?}");
    assert!(page_totals.cards_checked > 10_000, "{page_totals:?}");
}

/// A seat's page used to show the cards of the seating draw (`header.draw`), which no seat is
/// ever told: its own visibility rules in `html.rs` said so. Built from the seat's conversation,
/// the page holds none of them, and no other card the seat does not know.
#[tokio::test(start_paused = true)]
async fn a_seat_page_holds_no_card_of_the_seating_draw() {
    for seed in 1..=3u64 {
        let sitters = [
            Sitter::Builtin(Builtin::Heuristic),
            Sitter::Scripted(Script { signal: true, ..Script::new(VoteWith::Accept, seed) }),
            Sitter::Builtin(Builtin::Random),
            Sitter::Scripted(Script::new(VoteWith::Accept, seed + 1)),
        ];
        let cfg = GameConfig {
            seating: protocol::options::Seating::Draw,
            ..config(rules_for(seed, true))
        };
        let p = play_game(cfg, sitters, seed, Seat::ALL[0], None).await;
        let record = std::fs::read_to_string(&p.record.0).unwrap();
        assert!(record.lines().next().unwrap().contains(r#""draw":["#), "the record has a draw");
        for seat in 0..4 {
            check_page_knowledge(seat, &p.record.page(seat)).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Part (a) with the chant taken in every deal: four recording bots that all accept.
#[tokio::test(start_paused = true)]
async fn every_card_told_is_known_when_the_chant_is_always_taken() {
    for seed in 1..=4u64 {
        let sitters = std::array::from_fn(|s| {
            Sitter::Scripted(Script {
                signal: seed.is_multiple_of(2),
                ..Script::new(VoteWith::Accept, seed * 7 + s as u64)
            })
        });
        let rules = rules_for(seed, true);
        let p = play_game(config(rules), sitters, seed, Seat::ALL[seed as usize % 4], None).await;
        assert!(p.summary.faults.is_empty(), "{:?}", p.summary.faults);
        let mut discards = 0;
        for (seat, tape) in p.tapes.iter().enumerate() {
            discards +=
                check_knowledge(seat, tape).unwrap_or_else(|e| panic!("{e}")).discard_questions;
        }
        assert_eq!(discards, 2 * 6, "two recipients in each of six deals");
    }
}

/// The seed's decks of a game, for `deals` deals.
fn seed_decks(seed: u64, deals: u16) -> Vec<Deck> {
    (1..=deals).map(|d| deck_for(game_seed(seed, 1), d)).collect()
}

/// The same decks with each talon (deck cards 36..48) rotated by one place: the same hands, and
/// every talon card moves to the other chant recipient.
fn rotate_talons(decks: &[Deck]) -> Vec<Deck> {
    decks
        .iter()
        .map(|d| {
            let mut cards = *d.cards();
            cards[36..].rotate_left(1);
            let rotated = Deck::from_cards(&cards).unwrap();
            assert_eq!(rotated.hands(Seat::ALL[0]), d.hands(Seat::ALL[0]));
            rotated
        })
        .collect()
}

/// Plays the game twice, from the seed's decks and from the same decks with the talons rotated.
async fn with_and_without_rotation(
    rules: Rules,
    sitters: [Sitter; 4],
    seed: u64,
    dealer: Seat,
) -> (Played, Played) {
    // More decks than deals: the whole game uses given decks.
    let decks = seed_decks(seed, 30);
    let a = play_game(config(rules), sitters, seed, dealer, Some(decks.clone())).await;
    let b = play_game(config(rules), sitters, seed, dealer, Some(rotate_talons(&decks))).await;
    assert_eq!(a.summary.status, Status::Complete);
    assert!(a.summary.faults.is_empty(), "{:?}", a.summary.faults);
    (a, b)
}

fn assert_same_tapes(a: &Played, b: &Played, what: &str) {
    for seat in 0..4 {
        if a.tapes[seat] != b.tapes[seat] {
            let (la, lb) = (lines(&a.tapes[seat]), lines(&b.tapes[seat]));
            let n = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
            panic!(
                "{what}: seat {seat}'s conversation depends on cards it never sees; first \
                 difference at line {n}:\n  {}\n  {}",
                la.get(n).map_or("(end)".into(), |l| String::from_utf8_lossy(l)),
                lb.get(n).map_or("(end)".into(), |l| String::from_utf8_lossy(l)),
            );
        }
    }
}

/// Every seat's page is the same in both games, byte for byte.
fn assert_same_pages(a: &Played, b: &Played, what: &str) {
    for seat in 0..4 {
        let (pa, pb) = (a.record.page(seat), b.record.page(seat));
        if pa != pb {
            let at = pa.bytes().zip(pb.bytes()).take_while(|(x, y)| x == y).count();
            let around = |s: &str| {
                s.get(at.saturating_sub(60)..(at + 60).min(s.len())).unwrap_or("").to_string()
            };
            panic!(
                "{what}: seat {seat}'s page depends on cards it never sees; first difference:\
                 \n  {}\n  {}",
                around(&pa),
                around(&pb)
            );
        }
    }
}

/// Part (b), chant off: nobody ever sees the talon, so no seat's bytes may depend on it.
#[tokio::test(start_paused = true)]
async fn the_talon_is_invisible_when_the_chant_is_off() {
    for seed in 1..=4u64 {
        let sitters = [
            Sitter::Builtin(Builtin::Heuristic),
            Sitter::Scripted(Script {
                signal: true,
                pledge: true,
                ..Script::new(VoteWith::Accept, seed)
            }),
            Sitter::Builtin(Builtin::Random),
            Sitter::Builtin(Builtin::Heuristic),
        ];
        let rules = rules_for(seed, false);
        let (a, b) =
            with_and_without_rotation(rules, sitters, seed, Seat::ALL[seed as usize % 4]).await;
        assert_same_tapes(&a, &b, "chant off");
        assert_same_pages(&a, &b, "chant off");
    }
}

/// Part (b), chant refused: one scripted seat always refuses (wherever it sits in the vote
/// order, the chant is never taken), so again the talon is never seen.
#[tokio::test(start_paused = true)]
async fn the_talon_is_invisible_when_the_chant_is_refused() {
    for seed in 1..=4u64 {
        let mut sitters = [Sitter::Builtin(Builtin::Random); 4];
        sitters[seed as usize % 4] = Sitter::Scripted(Script::new(VoteWith::Refuse, seed));
        sitters[(seed as usize + 1) % 4] = Sitter::Builtin(Builtin::Heuristic);
        let rules = rules_for(seed, true);
        let (a, b) = with_and_without_rotation(rules, sitters, seed, Seat::ALL[0]).await;
        let text = String::from_utf8_lossy(&a.tapes[0]).into_owned();
        assert_eq!(text.matches(r#"{"type":"chant","taken":false}"#).count(), 6, "{text}");
        assert_same_tapes(&a, &b, "chant refused");
        assert_same_pages(&a, &b, "chant refused");
    }
}

/// The tape without its `discard` questions.
fn without_discard_questions(tape: &[u8]) -> Vec<Vec<u8>> {
    lines(tape)
        .into_iter()
        .filter(|l| !l.starts_with(br#"{"type":"discard""#))
        .map(<[u8]>::to_vec)
        .collect()
}

/// Part (b), chant taken: every seat accepts and a recipient discards exactly the cards it
/// received, so its hand, and hence everything it does afterwards, is the same whatever the talon
/// held. The talon is then seen only in the recipients' own `discard` questions: with the talons
/// rotated, every conversation must be identical once those are set aside, and those must differ
/// (the rotation really changed what the recipients received).
#[tokio::test(start_paused = true)]
async fn the_talon_is_seen_only_by_its_recipients_when_the_chant_is_taken() {
    for seed in 1..=4u64 {
        let sitters = std::array::from_fn(|s| {
            Sitter::Scripted(Script {
                discard_received: true,
                signal: true,
                ..Script::new(VoteWith::Accept, seed * 13 + s as u64)
            })
        });
        let rules = Rules { discard: DiscardRule::Free, ..rules_for(seed, true) };
        let (a, b) =
            with_and_without_rotation(rules, sitters, seed, Seat::ALL[seed as usize % 4]).await;
        let mut discard_questions_differ = false;
        for seat in 0..4 {
            assert_eq!(
                without_discard_questions(&a.tapes[seat]),
                without_discard_questions(&b.tapes[seat]),
                "seed {seed}: seat {seat}'s conversation depends on talon cards it never received"
            );
            discard_questions_differ |= a.tapes[seat] != b.tapes[seat];
        }
        assert!(discard_questions_differ, "seed {seed}: the rotation changed nothing");
    }
}

/// Part (b), signals to the partner only: the same game with and without one seat's signals.
/// Every bot is scripted and ignores the signals it gets, so nothing else changes: the
/// signaller's and its opponents' conversations must be identical, and the partner's must differ
/// by exactly the `signal` lines.
#[tokio::test(start_paused = true)]
async fn partner_signals_reach_the_partner_only() {
    for seed in 1..=4u64 {
        let signaller = seed as usize % 4;
        let game = |signal: bool| {
            let sitters = std::array::from_fn(|s| {
                Sitter::Scripted(Script {
                    signal: signal && s == signaller,
                    ..Script::new(VoteWith::Accept, seed * 17 + s as u64)
                })
            });
            let rules = Rules { signals: SignalDelivery::Partner, ..rules_for(seed, true) };
            play_game(config(rules), sitters, seed, Seat::ALL[(seed as usize * 3) % 4], None)
        };
        let quiet = game(false).await;
        let loud = game(true).await;
        assert!(loud.summary.faults.is_empty(), "{:?}", loud.summary.faults);
        let partner = (signaller + 2) % 4;
        for seat in 0..4 {
            if seat == partner {
                let not_signal = |tape: &[u8]| -> Vec<Vec<u8>> {
                    lines(tape)
                        .into_iter()
                        .filter(|l| !l.starts_with(br#"{"type":"signal""#))
                        .map(<[u8]>::to_vec)
                        .collect()
                };
                assert_eq!(not_signal(&quiet.tapes[seat]), not_signal(&loud.tapes[seat]));
                let signals = check_knowledge(seat, &loud.tapes[seat]).unwrap().signals;
                // One per opening (at least aces:N) and one per play, in six deals.
                assert!(signals >= 6 * 10, "seed {seed}: {signals} signals reached the partner");
            } else {
                assert!(
                    quiet.tapes[seat] == loud.tapes[seat],
                    "seed {seed}: seat {seat} (signaller {signaller}) learnt of a partner signal"
                );
            }
        }
    }
}
