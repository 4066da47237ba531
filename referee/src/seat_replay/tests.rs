//! `replay --seat`'s own pieces: `--until`, the tape cut into lines, answers compared.

use super::redrive::Said;
use super::rerun::split_lines;
use super::tape::Event;
use super::{Dir, Until};
use std::time::Duration;

#[test]
fn until_is_a_deal_or_a_deal_and_trick() {
    assert_eq!(Until::parse("3").unwrap(), Until { deal: 3, trick: None });
    assert_eq!(Until::parse("3.5").unwrap(), Until { deal: 3, trick: Some(5) });
    for bad in ["", "0", "3.", "3.0", "3.10", "x", "3.5.1", "-1"] {
        assert!(Until::parse(bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn lines_take_the_time_of_their_newline() {
    let ms = Duration::from_millis;
    let events = vec![
        Event { at: ms(0), dir: Dir::ToBot, bytes: b"a\nb".to_vec() },
        Event { at: ms(1), dir: Dir::FromBot, bytes: b"x\n".to_vec() },
        Event { at: ms(2), dir: Dir::ToBot, bytes: b"c\n".to_vec() },
    ];
    let lines = split_lines(&events);
    let seen: Vec<(u128, char, &[u8])> =
        lines.iter().map(|l| (l.at.as_millis(), l.dir.marker(), l.text.as_slice())).collect();
    assert_eq!(seen, vec![(0, '>', &b"a"[..]), (1, '<', b"x"), (2, '>', b"bc")]);
}

#[test]
fn answers_compare_by_meaning() {
    let a = Said::of_line(br#"{"type":"discard","id":5,"cards":["Ao","2o","3o","4o","5o","6o"]}"#);
    let b = Said::of_line(br#"{"id":5,"type":"discard","cards":["6o","5o","4o","3o","2o","Ao"]}"#);
    assert!(a.same(&b));
    let c = Said::of_line(br#"{"type":"play","id":5,"card":"Kc","signals":["madame"]}"#);
    let d = Said::of_line(br#"{"type":"play","id":5,"card":"Kc"}"#);
    assert!(!c.same(&d));
    assert_eq!(d.text("play"), "Kc");
    assert_eq!(c.text("play"), "Kc, signals madame");
    assert!(Said::Nothing.same(&Said::Nothing));
    assert!(!Said::Nothing.same(&d));
}

/// A game followed as it is played gives each seat exactly the lines `replay --seat` re-derives
/// from the whole record, whatever order the lines and the re-run's reading interleave in: the
/// live seat views (`web`) are the seats' conversations, line for line.
#[test]
fn a_game_followed_line_by_line_is_the_rederived_conversation() {
    follows_as_rederived(&builtin_game());
}

/// The same with seat 0 on the CPU clock: its banks depend on its answers' `cpu_us`, which a
/// followed game charges as the record gets them (here one answer in four overruns its time
/// by 300 ms of CPU time, so the bank each later question states is the CPU clock's).
#[test]
fn a_game_on_the_cpu_clock_followed_line_by_line_is_the_rederived_conversation() {
    let mut k = 0u64;
    let mut total = 0u64;
    let lines: Vec<String> = builtin_game()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            match v["type"].as_str().unwrap() {
                "header" => {
                    v["seats"][0]["cpu"] = true.into();
                    v["clock"]["mode"] = "cpu".into();
                    v["clock"]["wall_cap"] = 4.into();
                }
                "vote" | "opening" | "discard" | "play" | "offer" | "reply" | "announce"
                    if v["seat"] == 0 && v.get("auto").is_none() =>
                {
                    k += 1;
                    let cpu_us = if k.is_multiple_of(4) { 1_300_000 } else { 1_000 + 37 * k };
                    total += cpu_us;
                    v["cpu_us"] = cpu_us.into();
                }
                "footer" => v["stats"][0]["cpu_us"] = total.into(),
                _ => {}
            }
            v.to_string()
        })
        .collect();
    assert!(k > 8, "seat 0 answered {k} questions");
    let text = lines.join("\n") + "\n";
    follows_as_rederived(&text);
    // The CPU clock did count: seat 0's later questions state a bank its overruns drained.
    let (_, conv) = super::rederive_text(&text, 0, "the game").unwrap();
    let banks: Vec<u64> = conv
        .lines
        .iter()
        .filter(|l| l.dir == Dir::ToBot)
        .filter_map(|l| serde_json::from_slice::<serde_json::Value>(&l.text).ok())
        .filter_map(|v| v["bank_ms"].as_u64())
        .collect();
    assert!(banks.first() == Some(&1000) && banks.last() < Some(&1000), "{banks:?}");
}

/// A game of built-in bots (seed 7), as its record's text.
fn builtin_game() -> String {
    use crate::bot::players::builtin::Builtin;
    use crate::bot::{Bot, BotSpec, ConnectConfig};
    use crate::game_runner::{GameConfig, GameSetup, game_seed, run_game};
    use crate::record_io::{Recorder, Tap};
    use std::sync::{Arc, Mutex};

    let cc = ConnectConfig {
        cpu_time: false,
        resume_grace: Duration::ZERO,
        pre_lead_rounds: true,
        handshake: Duration::from_millis(1000),
        max_line: protocol::MAX_LINE_BYTES,
        stderr_cap: 0,
        limits: Default::default(),
    };
    let cfg = GameConfig {
        rules: rules::Rules::default(),
        seating: protocol::options::Seating::Given,
        clock: protocol::msg::Clock {
            handshake_ms: 1000,
            answer_ms: 1000,
            bank_ms: 1000,
            mode: None,
            wall_cap: None,
        },
        policy: crate::policy::Policy {
            on_fault: crate::policy::OnFault::Fallback,
            max_strikes: 3,
        },
    };
    let text = Arc::new(Mutex::new(String::new()));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let mut bots = Vec::new();
        for kind in [Builtin::Random, Builtin::Heuristic, Builtin::Random, Builtin::Heuristic] {
            bots.push(Bot::connect(BotSpec::Builtin(kind), &cc, None, "b", None).await);
        }
        let setup = GameSetup {
            game_no: 1,
            match_seed: 7,
            seed: game_seed(7, 1),
            first_dealer: rules::Seat::ALL[0],
            draw: None,
        };
        let mut rec = Recorder::create(None).unwrap();
        let sink = text.clone();
        rec.set_tap(Tap(Arc::new(move |b: &[u8]| {
            sink.lock().unwrap().push_str(std::str::from_utf8(b).unwrap())
        })));
        let [a, b, c, d] = &mut bots[..] else { unreachable!() };
        run_game([a, b, c, d], &setup, &cfg, &mut rec, crate::shutdown::Shutdown::never()).await;
    });
    text.lock().unwrap().clone()
}

/// Follows the game of the record `text` line by line and holds each seat's lines to what
/// `replay --seat` re-derives from the whole record.
fn follows_as_rederived(text: &str) {
    use protocol::record::RecordLine;
    use std::sync::{Arc, Mutex};
    let lines: Vec<RecordLine> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let RecordLine::Header(header) = &lines[0] else { panic!("no header") };
    let live = super::Live::new(header);
    let seen: Arc<Mutex<[Vec<String>; 4]>> = Arc::default();
    let into = seen.clone();
    let sink: super::Sink = Arc::new(move |seat, line: &[u8]| {
        into.lock().unwrap()[seat].push(String::from_utf8_lossy(line).into_owned());
    });
    let feeder = {
        let (live, lines) = (live.clone(), lines.clone());
        std::thread::spawn(move || {
            for line in &lines[1..] {
                live.push(line);
                std::thread::yield_now();
            }
        })
    };
    super::follow(header, &live, protocol::MAX_LINE_BYTES, sink).unwrap();
    feeder.join().unwrap();
    let seen = seen.lock().unwrap();
    for seat in 0..4 {
        let (_, conv) = super::rederive_text(text, seat, "the game").unwrap();
        let want: Vec<String> = conv
            .lines
            .iter()
            .filter(|l| l.dir == Dir::ToBot)
            .map(|l| String::from_utf8_lossy(&l.text).into_owned())
            .collect();
        assert!(want.len() > 50, "seat {seat}: {} lines", want.len());
        assert_eq!(seen[seat], want, "seat {seat}");
    }
}
