//! The playback bots of the re-run: each reads the referee's lines and does what the record
//! says its seat did, at exactly the recorded time.

use super::End;
use super::live::LiveSteps;
use super::script::{Move, Script, Start, Step};
use super::tape::{Dir, Shared, Tape, question};
use serde_json::Value;
use std::future::Future;
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Where a playback bot takes its moves, question by question.
pub(super) enum Steps {
    /// A whole record's.
    Recorded(std::vec::IntoIter<Step>),
    /// A game being played: each move as the record gets it (`follow.rs`).
    Live(LiveSteps),
}

impl Steps {
    fn next(&mut self) -> Option<Step> {
        match self {
            Steps::Recorded(steps) => steps.next(),
            Steps::Live(live) => live.next(),
        }
    }

    /// The moves the record has that were not asked for.
    fn left(&self) -> usize {
        match self {
            Steps::Recorded(steps) => steps.len(),
            Steps::Live(_) => 0,
        }
    }
}

/// One seat's playback bot: reads the referee's lines and, question by question, does what the
/// record says the seat did.
pub(super) async fn playback(
    seat: usize,
    stream: DuplexStream,
    script: Script,
    mut steps: Steps,
    tape: Option<Tape>,
    shared: Shared,
) -> Result<(), String> {
    let (r, mut w) = tokio::io::split(stream);
    let mut r = BufReader::new(r);
    let mut hello = match script.start {
        Start::Handshake(mv) => Some(mv),
        Start::Continue if script.close_first => return Ok(()),
        Start::Continue => None,
        // The referee never writes to a dead bot; reading on just waits for the end.
        Start::Dead { .. } => None,
    };
    let mut line = Vec::new();
    let mut over = false;
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if over {
            continue;
        }
        let Some((kind, id, _)) = question(line.strip_suffix(b"\n").unwrap_or(&line)) else {
            continue;
        };
        if kind == "hello" {
            let Some(mv) = hello.take() else {
                shared.stop();
                return Err(format!("seat {seat} got a hello the record does not have"));
            };
            let close = script.close_first;
            if !perform(&mut w, &mv, id, &tape, &shared).await? || close {
                return Ok(());
            }
            continue;
        }
        let Some(step) = steps.next() else {
            // The record ends with this question open: the game was stopped here.
            shared.stop();
            if shared.end == End::Complete {
                return Err(format!(
                    "seat {seat} was asked question {id} ({kind}), which the record does not have"
                ));
            }
            shared.tape.mark_cut();
            over = true;
            continue;
        };
        if let Some(want) = step.kind
            && want != kind
        {
            shared.stop();
            return Err(format!(
                "seat {seat}'s question {id} is a {kind} question; the record answers a {want}"
            ));
        }
        for raw in &step.ignored {
            send(&mut w, raw, &tape).await?;
        }
        if !perform(&mut w, &step.mv, id, &tape, &shared).await? || step.then_close {
            return Ok(());
        }
    }
    let left = steps.left() + usize::from(hello.is_some());
    if left > 0 && shared.end != End::CutShort {
        return Err(format!("seat {seat} was asked {left} questions fewer than the record has"));
    }
    Ok(())
}

/// Does one move; false when the connection ends.
async fn perform(
    w: &mut tokio::io::WriteHalf<DuplexStream>,
    mv: &Move,
    id: u64,
    tape: &Option<Tape>,
    shared: &Shared,
) -> Result<bool, String> {
    match mv {
        Move::Answer { raw, us, .. } => {
            let said = serde_json::from_str::<Value>(raw).ok().and_then(|v| v["id"].as_u64());
            if said != Some(id) {
                shared.stop();
                return Err(format!(
                    "the re-run asked question {id} where the record's answer has id {}",
                    said.map_or("none".into(), |s| s.to_string())
                ));
            }
            at_after(Duration::from_micros(*us), send(w, raw.as_bytes(), tape)).await?;
        }
        Move::Line(raw) => send(w, raw, tape).await?,
        Move::TooLong => {
            let mut line = vec![b'x'; shared.max_line + 1];
            line.push(b'\n');
            w.write_all(&line).await.map_err(|e| format!("playback: {e}"))?;
            if let Some(t) = tape {
                let note = format!(
                    "[a line longer than {} bytes; the record does not keep it]\n",
                    shared.max_line
                );
                t.push(Dir::FromBot, note.as_bytes());
            }
        }
        Move::Silent => {}
        Move::Close => return Ok(false),
    }
    Ok(true)
}

/// Sends one line (its newline added) and logs it for the captured seat.
async fn send(
    w: &mut tokio::io::WriteHalf<DuplexStream>,
    raw: &[u8],
    tape: &Option<Tape>,
) -> Result<(), String> {
    let mut line = raw.to_vec();
    line.push(b'\n');
    // A referee that has already given up on this bot (it was replaced) closed the connection:
    // nothing more to send, and nothing wrong with the re-run.
    if w.write_all(&line).await.is_ok() {
        let _ = w.flush().await;
        if let Some(t) = tape {
            t.push(Dir::FromBot, &line);
        }
    }
    Ok(())
}

/// Runs `then` exactly `d` after now on the paused clock, before any timer due by then fires.
/// Sleeping would round `d` up to the timer wheel's millisecond and change the banks;
/// `tokio::time::advance` moves the clock by `d` when first polled, then yields to the timer
/// driver, which would let a deadline that the recorded answer beat fire first. So it is polled
/// once, the line is sent at the new instant, and only then does the task yield.
async fn at_after<F: Future>(d: Duration, then: F) -> F::Output {
    let mut advance = std::pin::pin!(tokio::time::advance(d));
    let mut done = false;
    std::future::poll_fn(|cx| {
        done = advance.as_mut().poll(cx).is_ready();
        Poll::Ready(())
    })
    .await;
    let out = then.await;
    if !done {
        advance.await;
    }
    out
}
