//! A seat that outlives its bot's connection (feature `resume`, spec/protocol.md section 9.2),
//! whatever carries it: the referee's end is a byte stream like any bot's (`Bot::attach`); the
//! other end is handed, line by line, to whichever connection holds the seat now, by the one
//! carrying loop of `bot/relay/carry.rs` (a TCP connection there, a page's WebSocket in
//! `web/human.rs`). A bot that listed `resume` may connect again within a grace
//! (`--resume-grace-ms`, a minute by default) and is sent the current game again, while the
//! referee only sees a bot that is slow to answer.
//!
//! Everything here is bounded like any other read or write of a bot's: the lines a connection
//! sends wait in a short queue and then hold the connection's own reads back (back-pressure,
//! down to TCP's flow control); the lines for a connection wait in a bounded queue, and one that
//! does not keep up is let go (its grace begins) rather than buffered; resumes are rate-limited
//! per seat, and a seat resumed too often in one game is given up for that game.

pub(crate) mod carry;

use protocol::msg::{FromBot, ToBot};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

/// Room in the in-memory pipe between the referee and the seat: its end is read at once.
const PIPE_BYTES: usize = 1 << 20;

/// The `bye` of a connection whose seat another connection of the seat took.
const TAKEN_OVER: &str = "another connection took this seat";

/// Lines the referee sends a connection that may wait for it beyond the game so far: a few
/// tricks' worth. A connection further behind is too slow to play, and is let go.
const LIVE_LINES: usize = 256;

/// Lines of a connection that may wait for the referee to read them; then the connection's
/// reads wait too. A bot says one line per question.
const HEARD_LINES: usize = 16;

/// Resumes a seat may make at once; after them, one per [`RESUME_EVERY`].
const RESUME_BURST: u32 = 3;
const RESUME_EVERY: Duration = Duration::from_secs(1);

/// Tries to resume one seat in one game (refused ones included) beyond which the seat is given
/// up for that game: a bot that keeps coming back is broken, or its token is in hands that are
/// not its author's.
pub(crate) const MAX_RESUMES_PER_GAME: u32 = 20;

/// A connection holding the seat (a page, a TCP connection): its number and where its
/// messages go.
#[derive(Debug)]
struct Page {
    n: u64,
    out: mpsc::Sender<String>,
}

/// The rate of a seat's resumes: a bucket of [`RESUME_BURST`] refilled one per
/// [`RESUME_EVERY`], and the count of this game's.
#[derive(Debug)]
struct Resumes {
    tokens: u32,
    refilled: Instant,
    this_game: u32,
}

impl Resumes {
    fn new() -> Resumes {
        Resumes { tokens: RESUME_BURST, refilled: Instant::now(), this_game: 0 }
    }

    /// Takes one resume if the rate allows it now.
    fn take(&mut self, now: Instant) -> bool {
        let due = now.saturating_duration_since(self.refilled).as_millis()
            / RESUME_EVERY.as_millis().max(1);
        if due > 0 {
            self.tokens =
                (self.tokens + due.min(u128::from(RESUME_BURST)) as u32).min(RESUME_BURST);
            self.refilled = now;
        }
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
    }
}

#[derive(Debug)]
struct State {
    /// The referee's end of the pipe, until the match takes it.
    referee_end: Option<DuplexStream>,
    /// Where the page's lines go; `None` once the seat is given up.
    to_referee: Option<mpsc::Sender<Vec<u8>>>,
    page: Option<Page>,
    pages_so_far: u64,
    /// What the seat was sent in the current game (from its `game` message; before any game,
    /// from the connection's start).
    history: Vec<String>,
    /// The id of the question the last line of `history` asks, until the page answers it.
    open: Option<u64>,
    /// When that question was sent: a connection that takes the seat back is sent it with the
    /// time that is left, since the clock ran on meanwhile.
    open_since: Instant,
    /// The bot's hello answer listed `resume`.
    resume: bool,
    resumes: Resumes,
    /// Why the seat was given up, when it was for more than its connection's end (a storm of
    /// resumes): the referee's fault says so.
    why_given_up: Option<String>,
    /// Connections attached and not yet detached: each still sending what it was given.
    carrying: usize,
    /// The referee's end has closed: no more lines will come.
    closed: bool,
}

/// One seat that may be taken back.
#[derive(Debug)]
pub(crate) struct Resumable {
    state: Mutex<State>,
    /// How long the seat waits for a connection that left, once its bot listed `resume`,
    /// before it is given up (the referee then sees the connection end, as for any bot).
    grace: Duration,
    /// Wakes whoever waits for the first page.
    arrived: Notify,
}

/// Why a connection may not take the seat.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Another connection holds it: its bot did not list `resume`, or it is still open and may
    /// not be taken over.
    Held,
    /// The seat was given up, or the match is over.
    Gone,
    /// The seat was resumed too often just now; the connection may try again a second later.
    TooOften,
}

impl Refused {
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Refused::Held => "this seat is already open in another page",
            Refused::Gone => "this seat was given up or its match is over",
            Refused::TooOften => "resumed too often: at most one resume a second, after three",
        }
    }
}

/// A connection's hold on the seat: the messages for it (what it must be sent first, then the
/// referee's lines as they come), and its number for [`Resumable::heard`].
#[derive(Debug)]
pub(crate) struct Attached {
    pub(crate) n: u64,
    backlog: VecDeque<String>,
    messages: mpsc::Receiver<String>,
}

impl Attached {
    /// The next message for the connection; `None` once it no longer holds the seat (another
    /// took it, it fell too far behind, the seat was given up or the match is over).
    /// Cancel-safe: a message is taken only when it is returned.
    pub(crate) async fn next(&mut self) -> Option<String> {
        match self.backlog.pop_front() {
            Some(line) => Some(line),
            None => self.messages.recv().await,
        }
    }
}

/// The `bye` a connection is told, for `reason`, as one of the seat's lines.
pub(crate) fn bye_line(reason: &str) -> String {
    protocol::encode_line(&ToBot::Bye { reason: reason.into() }).trim_end().to_string()
}

/// A question as it stands `spent` after it was sent: its `time_ms` less what was spent, then
/// its `bank_ms` less the rest, as the referee's clock counts them (section 5 of
/// spec/protocol.md: wall time, which is every resumable seat's clock).
fn time_left(line: &str, spent: Duration) -> String {
    let Ok(mut msg) = protocol::decode_line::<ToBot>(line.as_bytes()) else { return line.into() };
    let Some((time_ms, bank_ms)) = msg.clock_mut() else { return line.into() };
    let spent = spent.as_millis().min(u128::from(u64::MAX)) as u64;
    let over = spent.saturating_sub(*time_ms);
    *time_ms = time_ms.saturating_sub(spent);
    *bank_ms = bank_ms.saturating_sub(over);
    protocol::encode_line(&msg).trim_end().to_string()
}

impl Resumable {
    /// A seat and the tasks that move its bytes. With `resume`, the bot took the feature up in
    /// a handshake made before the seat existed (a TCP bot's, with its token); otherwise the
    /// first connection's hello answer, which passes through here, says whether it did.
    pub(crate) fn new(resume: bool, grace: Duration) -> Arc<Resumable> {
        let (referee_end, ours) = tokio::io::duplex(PIPE_BYTES);
        let (read, mut write) = tokio::io::split(ours);
        let (to_referee, mut lines) = mpsc::channel::<Vec<u8>>(HEARD_LINES);
        let seat = Arc::new(Resumable {
            state: Mutex::new(State {
                referee_end: Some(referee_end),
                to_referee: Some(to_referee),
                page: None,
                pages_so_far: 0,
                history: Vec::new(),
                open: None,
                open_since: Instant::now(),
                resume,
                resumes: Resumes::new(),
                why_given_up: None,
                carrying: 0,
                closed: false,
            }),
            grace,
            arrived: Notify::new(),
        });
        tokio::spawn(async move {
            while let Some(line) = lines.recv().await {
                if write.write_all(&line).await.is_err() {
                    break;
                }
            }
            // The seat's output ends: the referee sees the connection end (the pipe's other
            // half is still being read, so dropping this one would not say it).
            let _ = write.shutdown().await;
        });
        tokio::spawn(seat.clone().pump(BufReader::new(read)));
        seat
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The referee's end, once a connection has come (waiting at most `wait`); `None` when no
    /// page came.
    pub(crate) async fn take(&self, wait: Duration) -> Option<DuplexStream> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let notified = self.arrived.notified();
            {
                let mut st = self.state();
                if st.pages_so_far > 0 {
                    return st.referee_end.take();
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Reads the referee's lines: each is kept for a resumed bot and sent to the connection there
    /// is. Never waits for a connection: one whose queue is full is let go.
    async fn pump(self: Arc<Self>, mut read: BufReader<tokio::io::ReadHalf<DuplexStream>>) {
        let mut line = String::new();
        // The referee's own lines: valid UTF-8, at most 64 KiB each (spec/protocol.md 1).
        while matches!(read.read_line(&mut line).await, Ok(n) if n > 0) {
            let text = line.trim_end_matches('\n').to_string();
            line.clear();
            let msg = protocol::decode_line::<ToBot>(text.as_bytes()).ok();
            let mut st = self.state();
            if matches!(msg, Some(ToBot::Game { .. })) {
                st.history.clear();
                st.resumes.this_game = 0;
            }
            st.open = msg.as_ref().and_then(ToBot::id);
            st.open_since = Instant::now();
            st.history.push(text.clone());
            let behind = st.page.as_ref().and_then(|page| match page.out.try_send(text) {
                Err(mpsc::error::TrySendError::Full(_)) => Some(page.n),
                _ => None,
            });
            if let Some(n) = behind {
                tracing::debug!("a resumable seat's connection fell {LIVE_LINES} lines behind");
                self.let_go(&mut st, n);
            }
        }
        // The match closed the seat: no connection may take it any more.
        let mut st = self.state();
        st.page = None;
        st.to_referee = None;
        st.closed = true;
    }

    /// The match closed the seat and every connection has sent what it was given (or ended):
    /// nothing of the seat's conversation is still on its way.
    pub(crate) fn settled(&self) -> bool {
        let st = self.state();
        st.closed && st.carrying == 0
    }

    /// A connection comes. A first one gets the conversation from its start; a later one, when
    /// the seat's bot listed `resume`, takes the seat back and is sent `resume`, the current
    /// game so far and the open question. A connection still holding the seat is dropped for
    /// it: a person who opened the page again, or a bot whose earlier connection lost its
    /// network and still looks open. Nothing is dropped for a connection that is refused: a
    /// seat resumed too often just now, or too often in this game (then given up for it).
    pub(crate) fn attach(&self) -> Result<Attached, Refused> {
        let mut st = self.state();
        if st.to_referee.is_none() {
            return Err(Refused::Gone);
        }
        let first = st.pages_so_far == 0;
        if !first && !st.resume {
            // Without `resume`, a connection that left gave the seat up (`detach`).
            return Err(Refused::Held);
        }
        if !first {
            // Every try counts towards the game's limit, the refused ones too: a storm is
            // ended by the limit whatever the rate lets through.
            st.resumes.this_game += 1;
            if st.resumes.this_game > MAX_RESUMES_PER_GAME {
                st.why_given_up = Some(format!(
                    "resumed more than {MAX_RESUMES_PER_GAME} times in one game; the seat was \
                     given up for the rest of it"
                ));
                st.page = None;
                st.to_referee = None;
                return Err(Refused::Gone);
            }
            if !st.resumes.take(Instant::now()) {
                return Err(Refused::TooOften);
            }
        }
        let (out, messages) = mpsc::channel(LIVE_LINES);
        let mut backlog = VecDeque::with_capacity(st.history.len() + 1);
        if !first {
            let replayed = st.history.len() - usize::from(st.open.is_some());
            let resume = ToBot::Resume { replay: replayed as u64 };
            backlog.push_back(protocol::encode_line(&resume).trim_end().to_string());
        }
        backlog.extend(st.history.iter().cloned());
        if !first && st.open.is_some() {
            let spent = Instant::now().saturating_duration_since(st.open_since);
            if let Some(open) = backlog.back_mut() {
                *open = time_left(open, spent);
            }
        }
        st.pages_so_far += 1;
        st.carrying += 1;
        let n = st.pages_so_far;
        if let Some(earlier) = st.page.replace(Page { n, out }) {
            // Its last message: a page told why does not connect again, and take the seat
            // back in turn, as one merely cut off would. A connection too far behind to take
            // it is let go all the same.
            let _ = earlier.out.try_send(bye_line(TAKEN_OVER));
        }
        drop(st);
        self.arrived.notify_waiters();
        Ok(Attached { n, backlog, messages })
    }

    /// Why the seat was given up, when it was for a storm of resumes rather than its
    /// connection's end.
    pub(crate) fn why_given_up(&self) -> Option<String> {
        self.state().why_given_up.clone()
    }

    /// The seat was given up (after its grace, or by a connection without `resume`), or its
    /// match is over: its referee end has ended or is ending.
    pub(crate) fn given_up(&self) -> bool {
        self.state().to_referee.is_none()
    }

    /// A line from connection `n` (without its newline), sent on as one line. A connection that
    /// no longer holds the seat is not heard. Waits while the referee has [`HEARD_LINES`] of the
    /// seat's lines unread, so a connection that floods is held back by its own reads.
    pub(crate) async fn heard(&self, n: u64, text: &[u8]) {
        let to = {
            let mut st = self.state();
            if st.page.as_ref().is_none_or(|p| p.n != n) {
                return;
            }
            if let Ok(answer) = protocol::decode_line::<FromBot>(text) {
                if let FromBot::Hello { features, .. } = &answer {
                    st.resume = features.iter().any(|f| f == protocol::RESUME);
                }
                if st.open == Some(answer.id()) {
                    st.open = None;
                }
            }
            st.to_referee.clone()
        };
        if let Some(to) = to {
            let mut line = Vec::with_capacity(text.len() + 1);
            line.extend_from_slice(text);
            line.push(b'\n');
            let _ = to.send(line).await;
        }
    }

    /// Connection `n` ended (every connection that was attached says so once, at its end).
    /// Without `resume` the seat is given up at once; with it, after its grace unless a
    /// connection came back.
    pub(crate) fn detach(self: &Arc<Self>, n: u64) {
        let mut st = self.state();
        st.carrying = st.carrying.saturating_sub(1);
        self.let_go(&mut st, n);
    }

    /// Connection `n` no longer holds the seat (it left, or fell too far behind).
    fn let_go(self: &Arc<Self>, st: &mut State, n: u64) {
        if st.page.as_ref().is_none_or(|p| p.n != n) {
            return;
        }
        st.page = None;
        if !st.resume {
            st.to_referee = None;
            return;
        }
        let seat = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(seat.grace).await;
            let mut st = seat.state();
            if st.page.is_none() && st.pages_so_far == n {
                st.to_referee = None;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    const GRACE: Duration = Duration::from_secs(60);

    async fn next(a: &mut Attached) -> String {
        tokio::time::timeout(Duration::from_secs(5), a.next()).await.unwrap().unwrap()
    }

    /// A page that listed `resume` and comes back is sent `resume`, the game so far and the open
    /// question; its answer reaches the referee as one line. Without `resume`, a page that left
    /// gave the seat up, and the referee's read ends.
    #[tokio::test]
    async fn a_page_that_listed_resume_gets_the_game_again_and_one_that_did_not_gives_the_seat_up()
    {
        let seat = Resumable::new(false, GRACE);
        let mut first = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        referee.write_all(b"{\"type\":\"hello\",\"id\":1,\"protocol\":1,\"features\":[\"resume\"],\"time_ms\":10}\n").await.unwrap();
        assert!(next(&mut first).await.starts_with("{\"type\":\"hello\""));
        seat.heard(
            first.n,
            br#"{"type":"hello","id":1,"name":"p","version":"1","features":["resume"]}"#,
        )
        .await;
        let mut buf = vec![0; 512];
        let n = referee.read(&mut buf).await.unwrap();
        assert!(buf[..n].ends_with(b"\"features\":[\"resume\"]}\n"));
        let game = "{\"type\":\"chant\",\"taken\":false}\n{\"type\":\"opening\",\"id\":2,\"deal\":1,\"dealer\":0,\"vote\":false,\"votes\":[],\"hand\":[],\"time_ms\":1,\"bank_ms\":1}\n";
        referee.write_all(game.as_bytes()).await.unwrap();
        next(&mut first).await;
        next(&mut first).await;
        // A second connection takes the seat over; the first is told so, and let go.
        let mut second = seat.attach().unwrap();
        let bye = format!(r#"{{"type":"bye","reason":"{TAKEN_OVER}"}}"#);
        assert_eq!(next(&mut first).await, bye);
        assert!(first.next().await.is_none(), "the first connection is let go");
        assert_eq!(next(&mut second).await, r#"{"type":"resume","replay":2}"#);
        assert!(next(&mut second).await.starts_with("{\"type\":\"hello\""));
        assert_eq!(next(&mut second).await, r#"{"type":"chant","taken":false}"#);
        assert!(next(&mut second).await.starts_with("{\"type\":\"opening\",\"id\":2"));
        seat.heard(first.n, br#"{"type":"opening","id":2}"#).await;
        seat.heard(second.n, br#"{"type":"opening","id":2}"#).await;
        let n = referee.read(&mut buf).await.unwrap();
        assert_eq!(
            &buf[..n],
            b"{\"type\":\"opening\",\"id\":2}\n",
            "only the seat's page is heard"
        );

        let seat = Resumable::new(false, GRACE);
        let page = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        seat.detach(page.n);
        assert_eq!(seat.attach().unwrap_err(), Refused::Gone);
        let read = tokio::time::timeout(Duration::from_secs(5), referee.read(&mut buf));
        assert_eq!(read.await.unwrap().unwrap(), 0, "the referee sees the connection end");
    }

    /// A seat whose page listed `resume` waits its grace for it: a page back in time keeps the
    /// seat, and after a whole grace without one the referee sees the connection end.
    #[tokio::test(start_paused = true)]
    async fn a_seat_whose_page_listed_resume_is_given_up_after_the_grace_only() {
        let seat = Resumable::new(false, GRACE);
        let first = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        seat.heard(
            first.n,
            br#"{"type":"hello","id":1,"name":"p","version":"1","features":["resume"]}"#,
        )
        .await;
        let mut buf = vec![0; 512];
        assert!(referee.read(&mut buf).await.unwrap() > 0);
        seat.detach(first.n);
        tokio::time::sleep(GRACE - Duration::from_secs(1)).await;
        let back = seat.attach().expect("back within the grace");
        seat.detach(back.n);
        tokio::time::sleep(GRACE - Duration::from_secs(1)).await;
        assert!(seat.attach().is_ok(), "a page that came back started the grace again");
        let last = seat.state().pages_so_far;
        seat.detach(last);
        assert!(!seat.given_up());
        tokio::time::sleep(GRACE + Duration::from_secs(1)).await;
        assert!(seat.given_up());
        assert_eq!(seat.attach().unwrap_err(), Refused::Gone);
        let read = tokio::time::timeout(Duration::from_secs(5), referee.read(&mut buf));
        assert_eq!(read.await.unwrap().unwrap(), 0, "the referee sees the connection end");
    }

    /// The hello answer that takes `resume` up, heard from connection `n`.
    async fn takes_up_resume(seat: &Resumable, n: u64) {
        let hello = br#"{"type":"hello","id":1,"name":"p","version":"1","features":["resume"]}"#;
        seat.heard(n, hello).await;
    }

    /// A connection that reads nothing while the referee writes on is let go once its queue is
    /// full, instead of being buffered for: its messages end, and the seat's grace begins.
    #[tokio::test(start_paused = true)]
    async fn a_connection_that_does_not_keep_up_is_let_go() {
        let seat = Resumable::new(false, GRACE);
        let mut slow = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        takes_up_resume(&seat, slow.n).await;
        for i in 0..LIVE_LINES + 10 {
            referee
                .write_all(format!("{{\"type\":\"chant\",\"n\":{i}}}\n").as_bytes())
                .await
                .unwrap();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        let mut got = 0;
        while slow.next().await.is_some() {
            got += 1;
        }
        assert_eq!(got, LIVE_LINES, "its queue, then nothing");
        assert!(!seat.given_up(), "the seat waits its grace for a connection");
        assert!(seat.attach().is_ok(), "and may be taken back");
    }

    /// Resumes come three at once, then one a second; one refused for its rate drops nobody.
    /// Past the game's limit of tries the seat is given up, with the reason the referee's
    /// fault gives.
    #[tokio::test(start_paused = true)]
    async fn resumes_are_rate_limited_and_limited_per_game() {
        let seat = Resumable::new(false, GRACE);
        let first = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        takes_up_resume(&seat, first.n).await;
        let mut held = seat.attach().unwrap();
        for _ in 1..RESUME_BURST {
            held = seat.attach().unwrap();
        }
        assert_eq!(seat.attach().unwrap_err(), Refused::TooOften);
        referee.write_all(b"{\"type\":\"chant\",\"taken\":false}\n").await.unwrap();
        while let Some(line) = held.next().await {
            if line.contains("chant") {
                break;
            }
        }
        tokio::time::sleep(RESUME_EVERY).await;
        held = seat.attach().expect("a second later");
        assert!(seat.why_given_up().is_none());
        let mut tries = RESUME_BURST + 2;
        while tries < MAX_RESUMES_PER_GAME {
            let _ = seat.attach();
            tries += 1;
        }
        assert_eq!(seat.attach().unwrap_err(), Refused::Gone, "try {}", tries + 1);
        assert!(seat.why_given_up().unwrap().contains("more than 20 times in one game"));
        while held.next().await.is_some() {}
    }

    /// A page back after a reload is sent the open question with the time that is left: the
    /// answer's time first, then the bank, so its clock shows the referee's.
    #[tokio::test(start_paused = true)]
    async fn the_open_question_is_sent_again_with_the_time_left() {
        let seat = Resumable::new(false, GRACE);
        let first = seat.attach().unwrap();
        let mut referee = seat.take(Duration::from_secs(1)).await.unwrap();
        takes_up_resume(&seat, first.n).await;
        let play = "{\"type\":\"play\",\"id\":7,\"deal\":1,\"trick\":1,\"leader\":0,\"table\":[],\"hand\":[\"Ao\"],\"won\":[0,0,0,0],\"score\":[0,0],\"time_ms\":20000,\"bank_ms\":600000}\n";
        referee.write_all(play.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
        seat.detach(first.n);
        tokio::time::sleep(Duration::from_secs(30)).await;
        let mut back = seat.attach().unwrap();
        let mut last = String::new();
        while let Ok(Some(line)) = tokio::time::timeout(Duration::from_millis(1), back.next()).await
        {
            last = line;
        }
        assert!(last.contains("\"id\":7"), "{last}");
        assert!(last.contains("\"time_ms\":0,\"bank_ms\":589990"), "{last}");
    }
}
