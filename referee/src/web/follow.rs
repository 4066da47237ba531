//! A spectator's socket: the organiser's view (the record lines) or a seat's view (its
//! conversation), sent as the game goes, and the match's end told when it comes.
//!
//! Why this shape: a page that falls behind its broadcast (a slow browser on a loaded machine)
//! used to be dropped, and its page connected again; a page that reconnected once the referee
//! had gone never learnt the match was over. Here a page that falls behind is sent a reset and
//! the view afresh on its own socket, and stays connected. Only a page that takes nothing
//! within the send deadline (it stopped reading) is let go.
//!
//! What a slow page holds: nothing in the broadcasts (a ring per feed, shared by every page,
//! that a lagging receiver does not pin); a fresh copy is the feed's own lines (shared
//! pointers, not text), rendered one message of about [`CHUNK_BYTES`] at a time as it is sent;
//! what it is sent from the broadcast is gathered up to about [`CHUNK_BYTES`] too; and its
//! socket buffers at most what `routes::bounded` allows.

use super::seat_view::{Change, SeatViews, Watching};
use super::watch::{Feed, Viewer};
use super::{SEND_DEADLINE, send};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use std::sync::Arc;
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::TryRecvError;

/// The most a message holds, in bytes of lines (one line more than that goes alone).
pub(super) const CHUNK_BYTES: usize = 64 * 1024;

/// The reason of the close a spectator gets when the match is over; its page stops there.
const MATCH_OVER: &str = "match over";

/// The omniscient view: the record so far, then each line as it comes.
pub(super) async fn watch_all(socket: WebSocket, feed: Arc<Feed>) {
    let viewer = feed.spectator();
    let (view, first) = AllView::new(&feed);
    follow(socket, &feed, &viewer, view, hello_all(), first).await;
    feed.gone(viewer.n);
}

/// One seat's view: what it shows so far, then each change as it is derived.
pub(super) async fn watch_seat(
    socket: WebSocket,
    feed: Arc<Feed>,
    views: Arc<SeatViews>,
    seat: usize,
) {
    let viewer = feed.spectator();
    let (view, first) = SeatView::new(&views, seat);
    let hello = serde_json::json!({ "view": "seat", "seat": seat }).to_string();
    follow(socket, &feed, &viewer, view, hello, first).await;
    feed.gone(viewer.n);
}

fn hello_all() -> String {
    serde_json::json!({ "view": "all" }).to_string()
}

/// What a page is sent next: rendered as it is sent, so a copy of the view is never held as
/// text whole.
enum Out {
    Text(String),
    /// Lines, in messages of at most about [`CHUNK_BYTES`], each rendered by the function.
    Lines(Vec<Arc<str>>, fn(&[Arc<str>]) -> String),
}

/// Messages to send, and the count of record lines the page reflects once they are sent.
type Batch = (Vec<Out>, u64);

/// What a spectator follows: a broadcast of items, and the view afresh when it falls behind.
trait Source {
    type Item: Clone;
    fn rx(&mut self) -> &mut Receiver<Self::Item>;
    /// `first` and what came meanwhile, up to about [`CHUNK_BYTES`] of lines; `None` when the
    /// broadcast dropped some of it.
    fn gather(&mut self, first: Self::Item) -> Option<Batch>;
    /// A reset and the whole view so far, from a fresh subscription.
    fn afresh(&mut self) -> Batch;
}

/// Sends `hello` and `first`, then what the source broadcasts, until the page leaves or the
/// match is over: a page that fell behind is sent the view afresh; the match's end is told
/// once every item broadcast before it was sent.
async fn follow<S: Source>(
    mut socket: WebSocket,
    feed: &Feed,
    viewer: &Viewer,
    mut source: S,
    hello: String,
    first: Batch,
) {
    let (mut outs, mut added) = first;
    outs.insert(0, Out::Text(hello));
    loop {
        for out in std::mem::take(&mut outs) {
            if !send_out(&mut socket, out).await {
                return;
            }
        }
        viewer.shown(added);
        let next = tokio::select! {
            // What was broadcast goes before the end, which comes after the last line.
            biased;
            item = source.rx().recv() => item.ok(),
            msg = socket.recv() => match msg {
                Some(Ok(_)) => continue,
                _ => return,
            },
            // The match is over and its every line broadcast: what came since the last look is
            // sent before the close.
            () = feed.over() => match source.rx().try_recv() {
                Ok(item) => Some(item),
                Err(TryRecvError::Empty) => return close_over(socket).await,
                Err(_) => None,
            },
        };
        (outs, added) = match next.and_then(|item| source.gather(item)) {
            Some(batch) => batch,
            // Fallen behind (or the feed's lines were lost): the view afresh, on this socket.
            None => source.afresh(),
        };
    }
}

/// Sends one [`Out`]; false when the page is gone or too slow.
async fn send_out(socket: &mut WebSocket, out: Out) -> bool {
    match out {
        Out::Text(text) => send(socket, text).await,
        Out::Lines(lines, render) => {
            for run in runs(&lines) {
                if !send(socket, render(run)).await {
                    return false;
                }
            }
            true
        }
    }
}

/// Tells a spectator the match is over, within the send deadline, and lets it go.
async fn close_over(mut socket: WebSocket) {
    let frame = CloseFrame { code: 1000, reason: MATCH_OVER.into() };
    let _ = tokio::time::timeout(SEND_DEADLINE, socket.send(Message::Close(Some(frame)))).await;
}

/// The organiser's view: the feed's record lines, one or more a message, one a text line.
struct AllView<'a> {
    feed: &'a Feed,
    rx: Receiver<Arc<str>>,
    added: u64,
}

impl<'a> AllView<'a> {
    fn new(feed: &'a Feed) -> (AllView<'a>, Batch) {
        let (_, added, rx) = feed.snapshot();
        let mut view = AllView { feed, rx, added };
        let first = view.afresh();
        (view, first)
    }
}

impl Source for AllView<'_> {
    type Item = Arc<str>;

    fn rx(&mut self) -> &mut Receiver<Arc<str>> {
        &mut self.rx
    }

    fn gather(&mut self, first: Arc<str>) -> Option<Batch> {
        let mut text = first.to_string();
        self.added += 1;
        while text.len() < CHUNK_BYTES {
            match self.rx.try_recv() {
                Ok(line) => {
                    text.push('\n');
                    text.push_str(&line);
                    self.added += 1;
                }
                Err(TryRecvError::Empty) => break,
                Err(_) => return None,
            }
        }
        Some((vec![Out::Text(text)], self.added))
    }

    fn afresh(&mut self) -> Batch {
        let (so_far, added, rx) = self.feed.snapshot();
        (self.rx, self.added) = (rx, added);
        (vec![Out::Text(reset()), Out::Lines(so_far, |run| run.join("\n"))], added)
    }
}

/// One seat's view: its conversation, as `{"lines":[...]}`, `{"reset":true}` and
/// `{"error":...}` messages.
struct SeatView<'a> {
    views: &'a Arc<SeatViews>,
    seat: usize,
    w: Watching,
}

impl<'a> SeatView<'a> {
    fn new(views: &'a Arc<SeatViews>, seat: usize) -> (SeatView<'a>, Batch) {
        let mut w = views.watch(seat);
        let first = as_shown(&mut w);
        (SeatView { views, seat, w }, first)
    }
}

/// A reset and what a seat's view shows now.
fn as_shown(w: &mut Watching) -> Batch {
    let mut outs = vec![Out::Text(reset()), Out::Lines(std::mem::take(&mut w.lines), seat_lines)];
    outs.extend(w.error.as_deref().map(|e| Out::Text(error(e))));
    (outs, w.added)
}

impl Source for SeatView<'_> {
    type Item = Change;

    fn rx(&mut self) -> &mut Receiver<Change> {
        &mut self.w.rx
    }

    fn gather(&mut self, first: Change) -> Option<Batch> {
        let (mut outs, mut lines, mut bytes) = (Vec::new(), Vec::new(), 0);
        let mut change = first;
        let added = loop {
            let (text, added) = match change {
                Change::Lines(more, added) => {
                    bytes += more.iter().map(|l| l.len()).sum::<usize>();
                    lines.extend(more.iter().cloned());
                    (None, added)
                }
                Change::Reset(added) => (Some(reset()), added),
                Change::Error(e, added) => (Some(error(&e)), added),
            };
            if let Some(text) = text {
                outs.push(Out::Lines(std::mem::take(&mut lines), seat_lines));
                outs.push(Out::Text(text));
            }
            if bytes >= CHUNK_BYTES {
                break added;
            }
            change = match self.w.rx.try_recv() {
                Ok(change) => change,
                Err(TryRecvError::Empty) => break added,
                Err(_) => return None,
            };
        };
        outs.push(Out::Lines(lines, seat_lines));
        Some((outs, added))
    }

    fn afresh(&mut self) -> Batch {
        self.w = self.views.watch(self.seat);
        as_shown(&mut self.w)
    }
}

fn reset() -> String {
    serde_json::json!({ "reset": true }).to_string()
}

fn error(e: &str) -> String {
    serde_json::json!({ "error": e }).to_string()
}

/// A seat view's lines as one `{"lines":[...]}` message.
fn seat_lines(run: &[Arc<str>]) -> String {
    let part: Vec<&str> = run.iter().map(|l| &**l).collect();
    serde_json::json!({ "lines": part }).to_string()
}

/// Lines cut into runs of at most about [`CHUNK_BYTES`] each (a longer line alone).
fn runs(lines: &[Arc<str>]) -> Vec<&[Arc<str>]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let mut end = start + 1;
        let mut bytes = lines[start].len();
        while end < lines.len() && bytes + lines[end].len() <= CHUNK_BYTES {
            bytes += lines[end].len();
            end += 1;
        }
        out.push(&lines[start..end]);
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::door::{self, Door, Limits};
    use crate::web::routes::bounded;
    use axum::extract::ws::WebSocketUpgrade;
    use std::net::{SocketAddr, TcpStream};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Lines a broadcast holds in these tests: far fewer than a test sends at once.
    const ROOM: usize = 4;
    const WAIT: Duration = Duration::from_secs(10);

    /// Serves one spectator socket at `/ws`: the organiser's view, or seat 0's when `views`.
    async fn serve(feed: Arc<Feed>, views: Option<Arc<SeatViews>>) -> SocketAddr {
        let handler = move |ws: WebSocketUpgrade| {
            let (feed, views) = (feed.clone(), views.clone());
            async move {
                bounded(ws, 4096).on_upgrade(move |socket| async move {
                    match views {
                        Some(views) => watch_seat(socket, feed, views, 0).await,
                        None => watch_all(socket, feed).await,
                    }
                })
            }
        };
        let router = axum::Router::new().route("/ws", axum::routing::get(handler));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(door::serve(listener, Door::new(Limits::within_fd_budget()), router));
        addr
    }

    /// A page, on a thread of its own: each text message as it comes, and at the end the
    /// close's reason (`None`: the socket ended without one).
    struct Page {
        texts: mpsc::Receiver<String>,
        end: std::thread::JoinHandle<Option<String>>,
    }

    fn open(addr: SocketAddr) -> Page {
        let (tx, texts) = mpsc::channel();
        let end = std::thread::spawn(move || {
            let stream = TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(WAIT)).unwrap();
            let (mut ws, _) = tungstenite::client(format!("ws://{addr}/ws"), stream).unwrap();
            loop {
                match ws.read() {
                    Ok(tungstenite::Message::Text(t)) => tx.send(t.to_string()).unwrap(),
                    Ok(tungstenite::Message::Close(frame)) => {
                        return frame.map(|f| f.reason.to_string());
                    }
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        });
        Page { texts, end }
    }

    impl Page {
        /// The next message, waited for on the runtime's terms (the server runs on it).
        async fn next(&self) -> String {
            let deadline = tokio::time::Instant::now() + WAIT;
            loop {
                match self.texts.try_recv() {
                    Ok(text) => return text,
                    Err(mpsc::TryRecvError::Empty) if tokio::time::Instant::now() < deadline => {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    Err(e) => panic!("no message from the server: {e}"),
                }
            }
        }

        /// Every message after those read, and the close's reason.
        async fn rest(self) -> (Vec<String>, Option<String>) {
            let end = tokio::task::spawn_blocking(move || self.end.join().unwrap()).await;
            (self.texts.try_iter().collect(), end.unwrap())
        }
    }

    fn line(i: usize) -> String {
        if i == 0 {
            r#"{"type":"header"}"#.to_string()
        } else {
            format!(r#"{{"type":"line","n":{i}}}"#)
        }
    }

    /// The organiser's page falls behind the broadcast by far more than it holds: it is sent a
    /// reset and the game afresh on the same socket, ends showing every line, and is told the
    /// match is over. (It used to be dropped there, its page left to connect again.)
    #[tokio::test]
    async fn an_organisers_page_that_falls_behind_is_sent_the_game_afresh_and_told_the_end() {
        let feed = Feed::holding(ROOM);
        for i in 0..3 {
            feed.push(line(i).as_bytes());
        }
        feed.take();
        let page = open(serve(feed.clone(), None).await);
        assert_eq!(page.next().await, r#"{"view":"all"}"#);
        let mut shown = Vec::new();
        while shown.len() < 3 {
            let text = page.next().await;
            shown.extend(text.split('\n').filter(|l| !l.contains("reset")).map(String::from));
        }
        // Far more lines than the broadcast holds, with no await between: the page's task
        // cannot run meanwhile, so it falls behind for certain.
        for i in 3..40 {
            feed.push(line(i).as_bytes());
        }
        feed.take();
        feed.close();
        let (texts, end) = page.rest().await;
        assert_eq!(end.as_deref(), Some(MATCH_OVER), "{texts:?}");
        assert_eq!(texts.first().map(String::as_str), Some(r#"{"reset":true}"#), "{texts:?}");
        let afresh: Vec<&str> = texts[1..].iter().flat_map(|t| t.split('\n')).collect();
        let every: Vec<String> = (0..40).map(line).collect();
        assert_eq!(afresh, every);
    }

    /// A seat view's page falls behind its view's broadcast: it is sent a reset and the view
    /// afresh, and told the match is over.
    #[tokio::test]
    async fn a_seat_views_page_that_falls_behind_is_sent_the_view_afresh_and_told_the_end() {
        let feed = Feed::holding(ROOM);
        let views = SeatViews::holding(feed.clone(), 4096, ROOM);
        let page = open(serve(feed.clone(), Some(views.clone())).await);
        assert_eq!(page.next().await, r#"{"seat":0,"view":"seat"}"#);
        assert_eq!(page.next().await, r#"{"reset":true}"#);
        for i in 0..40 {
            views.add(0, 0, line(i).as_bytes());
        }
        feed.close();
        let (texts, end) = page.rest().await;
        assert_eq!(end.as_deref(), Some(MATCH_OVER), "{texts:?}");
        assert_eq!(texts.first().map(String::as_str), Some(r#"{"reset":true}"#), "{texts:?}");
        let mut lines = Vec::new();
        for text in &texts[1..] {
            let m: serde_json::Value = serde_json::from_str(text).unwrap();
            for l in m["lines"].as_array().unwrap() {
                lines.push(l.as_str().unwrap().to_string());
            }
        }
        assert_eq!(lines, (0..40).map(line).collect::<Vec<_>>());
    }

    /// Lines are cut into messages of at most about [`CHUNK_BYTES`], a longer line alone, none
    /// lost or repeated.
    #[test]
    fn runs_are_bounded_and_keep_every_line() {
        let long: Arc<str> = "x".repeat(CHUNK_BYTES + 1).into();
        let short: Arc<str> = "y".repeat(CHUNK_BYTES / 2).into();
        let lines = vec![short.clone(), short.clone(), short.clone(), long, short.clone()];
        let cut = runs(&lines);
        assert_eq!(cut.iter().map(|r| r.len()).collect::<Vec<_>>(), [2, 1, 1, 1]);
        assert_eq!(cut.concat(), lines);
    }
}
