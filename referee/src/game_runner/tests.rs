//! Timeout and fault logic against scripted bots over in-memory pipes, on tokio's paused clock:
//! exact, instant and deterministic, which real processes can never be.

use super::*;
use crate::bot::link::{Reader, Writer};
use crate::bot::players::builtin::Builtin;
use crate::bot::{Bot, BotSpec, ConnectConfig};
use crate::policy::OnFault;
use protocol::codec::{LineFramer, decode_line, encode_line};
use protocol::record::FaultKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// What a scripted bot does with the `n`-th question (0-based, hello included).
#[derive(Clone, Debug)]
enum Step {
    /// Answers correctly after this many milliseconds.
    After(u64),
    /// Answers correctly after this delay, then repeats the same answer.
    Twice(u64),
    /// Writes this raw line instead of an answer.
    Raw(&'static str),
    /// Never answers this question (keeps reading).
    Silent,
    /// Answers at once, and the referee is then kept from running for this many milliseconds
    /// (a machine too busy to run it): it reads the answer only after the deadline.
    StarvedReferee(u64),
}

/// A correct answer to a question: first card, refuse the chant, first six cards.
fn correct(msg: &ToBot) -> Option<FromBot> {
    Some(match msg {
        ToBot::Hello { id, .. } => FromBot::Hello {
            id: *id,
            name: "scripted".into(),
            version: "1".into(),
            author: None,
            protocol: None,
            token: None,
            features: Vec::new(),
        },
        ToBot::Opening { id, vote, .. } => {
            FromBot::Opening { id: *id, accept: vote.then_some(false), signals: vec![] }
        }
        ToBot::Discard { id, hand, .. } => {
            FromBot::Discard { id: *id, cards: hand[..6].to_vec(), signals: vec![] }
        }
        ToBot::Play { id, hand, .. } => FromBot::Play { id: *id, card: hand[0], signals: vec![] },
        _ => return None,
    })
}

async fn scripted(stream: DuplexStream, script: Vec<Step>) {
    let (mut r, mut w) = tokio::io::split(stream);
    let mut framer = LineFramer::new(1 << 20);
    let mut buf = vec![0u8; 4096];
    let mut n_question = 0;
    loop {
        let n = match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&buf[..n]);
        let mut questions = Vec::new();
        while let Some(protocol::codec::Frame::Line(line)) = framer.next_line() {
            if let Ok(msg) = decode_line::<ToBot>(line) {
                questions.push(msg);
            }
        }
        for msg in questions {
            let Some(answer) = correct(&msg) else { continue };
            let step = script.get(n_question).cloned().unwrap_or(Step::After(0));
            n_question += 1;
            let line = encode_line(&answer);
            match step {
                Step::After(ms) => {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let _ = w.write_all(line.as_bytes()).await;
                }
                Step::Twice(ms) => {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let _ = w.write_all(format!("{line}{line}").as_bytes()).await;
                }
                Step::Raw(text) => {
                    let _ = w.write_all(format!("{text}\n").as_bytes()).await;
                }
                Step::Silent => {}
                Step::StarvedReferee(ms) => {
                    let _ = w.write_all(line.as_bytes()).await;
                    // Moves the paused clock without letting the referee's task run meanwhile.
                    tokio::time::advance(Duration::from_millis(ms)).await;
                }
            }
        }
    }
}

fn config(on_fault: OnFault) -> GameConfig {
    GameConfig {
        rules: Rules { chant: false, length: rules::MatchLength::Deals(1), ..Rules::default() },
        seating: protocol::options::Seating::Given,
        clock: Clock {
            handshake_ms: 1000,
            answer_ms: 100,
            bank_ms: 150,
            mode: None,
            wall_cap: None,
        },
        policy: Policy { on_fault, max_strikes: 3 },
    }
}

fn connect_config() -> ConnectConfig {
    ConnectConfig {
        cpu_time: false,
        resume_grace: Duration::ZERO,
        pre_lead_rounds: true,
        handshake: Duration::from_millis(1000),
        max_line: 4096,
        stderr_cap: 0,
        limits: Default::default(),
    }
}

/// Seat 0 is scripted; the others are honest built-in bots.
async fn play(script: Vec<Step>, on_fault: OnFault) -> GameSummary {
    let cfg = config(on_fault);
    let cc = connect_config();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(scripted(theirs, script));
    let (r, w) = tokio::io::split(ours);
    let (r, w): (Reader, Writer) = (Box::new(r), Box::new(w));
    let mut fake = Bot::attach(BotSpec::Command(vec!["scripted".into()]), r, w, &cc).await;
    let mut others = Vec::new();
    for _ in 0..3 {
        others.push(Bot::connect(BotSpec::Builtin(Builtin::Random), &cc, None, "x", None).await);
    }
    let [b1, b2, b3] = &mut others[..] else { unreachable!() };
    let setup = GameSetup {
        game_no: 1,
        match_seed: 9,
        seed: game_seed(9, 1),
        first_dealer: Seat::ALL[3],
        draw: None,
    };
    let mut rec = Recorder::create(None).unwrap();
    run_game([&mut fake, b1, b2, b3], &setup, &cfg, &mut rec, crate::shutdown::Shutdown::never())
        .await
}

fn kinds(s: &GameSummary) -> Vec<(FaultKind, Penalty)> {
    s.faults.iter().map(|f| (f.kind, f.penalty)).collect()
}

// Seat 0 is the dealer's left (dealer 3): its questions are hello (0), opening (1), then its
// plays (2..).

#[tokio::test(start_paused = true)]
async fn the_bank_absorbs_an_overrun_then_runs_out() {
    // 100 ms answers plus a 150 ms bank: 200 ms uses 100 of the bank, a second 200 ms answer
    // needs 100 more but only 50 are left, so it times out at 150 ms.
    let s = play(vec![Step::After(0), Step::After(200), Step::After(200)], OnFault::Fallback).await;
    assert_eq!(s.status, Status::Complete);
    let k = kinds(&s);
    assert_eq!(k[0], (FaultKind::Timeout, Penalty::Fallback), "{:?}", s.faults);
    assert_eq!(s.faults[0].strikes, 1);
    // The late answer arrives while the next question is open and is never taken for it.
    assert!(k.contains(&(FaultKind::StaleId, Penalty::Ignored)), "{k:?}");
    assert_eq!(s.stats[0].answers, 9, "the opening and eight plays answered in time");
}

/// An answer that was waiting when the referee, kept from running past the deadline, got to
/// look is taken, and charged as if it came at the deadline: its think time is the question's
/// `time_ms + bank_ms` (250 ms), never the referee's own delay (400 ms), which spec/protocol.md
/// section 5 says a recorded `us` cannot exceed.
#[tokio::test(start_paused = true)]
async fn an_answer_waiting_for_a_starved_referee_is_charged_at_most_the_deadline() {
    let s =
        play(vec![Step::After(0), Step::After(0), Step::StarvedReferee(400)], OnFault::Fallback)
            .await;
    assert!(s.faults.is_empty(), "{:?}", s.faults);
    assert_eq!(s.stats[0].answers, 10, "the opening and nine plays, the late-read one included");
    assert_eq!(s.stats[0].max_us, 250_000, "charged as at the deadline");
}

#[tokio::test(start_paused = true)]
async fn a_silent_bot_is_replaced_after_three_strikes() {
    let s = play(
        vec![Step::After(0), Step::Silent, Step::Silent, Step::Silent, Step::Silent],
        OnFault::Fallback,
    )
    .await;
    let k = kinds(&s);
    assert_eq!(
        k,
        [
            (FaultKind::Timeout, Penalty::Fallback),
            (FaultKind::Timeout, Penalty::Fallback),
            (FaultKind::Timeout, Penalty::Replaced)
        ]
    );
    assert!(s.stats[0].replaced);
    assert_eq!(s.status, Status::Complete);
    assert_eq!(s.deals.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn garbage_and_double_answers_are_classified() {
    let s =
        play(vec![Step::After(0), Step::Raw("not json"), Step::Twice(0)], OnFault::Fallback).await;
    let k = kinds(&s);
    assert_eq!(k[0], (FaultKind::Malformed, Penalty::Fallback));
    assert_eq!(k[1], (FaultKind::StaleId, Penalty::Ignored));
    assert_eq!(s.faults[1].strikes, 1, "an ignored line costs no strike");
}

#[tokio::test(start_paused = true)]
async fn forfeit_policy_ends_the_game_at_the_first_fault() {
    let s = play(
        vec![Step::After(0), Step::Raw(r#"{"type":"play","id":2,"card":"3o"}"#)],
        OnFault::Forfeit,
    )
    .await;
    assert_eq!(kinds(&s), [(FaultKind::WrongAnswer, Penalty::Forfeit)]);
    assert_eq!(s.forfeit, Team::new(0));
    assert_eq!(s.winner, Team::new(1));
    assert!(s.deals.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_handshake_that_never_comes_is_refused_and_the_game_still_finishes() {
    let s = play(vec![Step::Silent], OnFault::Fallback).await;
    assert_eq!(kinds(&s), [(FaultKind::HandshakeRefused, Penalty::Replaced)]);
    assert_eq!(s.status, Status::Complete);
    assert_eq!(s.stats[0].answers, 0);
}
