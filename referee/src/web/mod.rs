//! The referee's web server for `referee match`: a human seat's page (`--bot human`), which is
//! itself a bot speaking the protocol over a WebSocket, and the live spectator pages (`--watch`).
//!
//! Everything a page needs is embedded (`assets/`), served with a strict content security
//! policy (scripts and styles from this server only, no inline script). The server runs on a
//! thread and runtime of its own, off the table's pinned CPU, so neither pages nor strangers take
//! the table's time; all the table does for it is hand each record line over (`watch::Feed`).
//! Each token opens one thing: a human seat, the organiser's view, or one seat's view.
//!
//! The rooms: `door.rs` connections, their caps and deadlines; `routes.rs` the answers and
//! checks (`Host`, `Origin`, tokens); `follow.rs` a spectator's socket, sent the view afresh
//! when it falls behind and told when the match is over; `human.rs` a person's seat carried
//! over its page's WebSocket (the seat itself, which outlives the page's connection, is
//! `bot::relay`);
//! `watch.rs` the record lines as they are added, for spectators; `seat_view.rs` each seat's
//! view, derived once for all its spectators; this file the server's start and its addresses.

mod bot_socket;
mod door;
mod follow;
mod hosts;
mod human;
mod routes;
mod seat_view;
mod watch;

use crate::bot::ConnectConfig;
use crate::bot::link::{Reader, Writer};
use crate::bot::lobby::PendingLimits;
use crate::bot::lobby::gate::Gate;
use crate::bot::relay::Resumable;
use crate::record_io::Tap;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use door::{Door, Limits};
use routes::{html, secured};
use seat_view::SeatViews;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use watch::Feed;

/// The server as the organiser sets it.
#[derive(Clone, Debug)]
pub(crate) struct WebConfig {
    /// Where it listens (`--web`).
    pub(crate) listen: String,
    /// Whether spectators are served (`--watch`).
    pub(crate) watch: bool,
    /// A person's time per answer and bank (`--human-answer-ms`, `--human-bank-ms`).
    pub(crate) human_answer_ms: u64,
    pub(crate) human_bank_ms: u64,
}

const PAGE: &str = include_str!("assets/page.html");
/// The panels only a seat's page has: its move, and the signals it may send.
const SEAT_PANELS: &str = r#"    <div class="panel"><h2>Your move</h2><div id="ask" data-testid="ask"></div><div id="clock" class="clock" data-testid="clock"></div></div>
    <div class="panel"><h2>Signals to send</h2><div id="signals-out" data-testid="signals-out"></div></div>
"#;

/// A page from the one template; nothing in it comes from a bot or a record.
fn page(title: &str, panels: &str, script: &str) -> String {
    PAGE.replace("{{TITLE}}", title).replace("{{PANELS}}", panels).replace("{{SCRIPT}}", script)
}

/// What a spectator's token opens.
#[derive(Clone, Copy, Debug)]
enum View {
    /// The organiser's: every hand.
    All,
    /// One seat's: what that seat may know.
    Seat(usize),
}

#[derive(Debug)]
struct App {
    addr: SocketAddr,
    /// The names a `Host` may give for this server.
    hosts: Hosts,
    seats: HashMap<String, Arc<Resumable>>,
    feed: Option<Arc<Feed>>,
    seat_views: Option<Arc<SeatViews>>,
    /// The spectators' tokens: the organiser's view's, then each seat view's.
    views: HashMap<String, View>,
    watch_tokens: Option<(String, [String; 4])>,
    max_line: usize,
    play: String,
    watch: String,
    /// Wrong tokens by address, slowed down as at the lobby.
    strikes: Mutex<Gate>,
}

/// The running server; dropping it stops the server's thread.
#[derive(Debug)]
pub(crate) struct Web {
    app: Arc<App>,
    _stop: oneshot::Sender<()>,
}

impl Web {
    /// Binds `cfg.listen` and serves a page for each human seat token, and the spectators when
    /// asked, on a thread of its own; `connect.max_line` bounds a page's message like any bot's
    /// line, and a seat whose page left waits `connect.resume_grace` for it.
    pub(crate) async fn bind(
        cfg: &WebConfig,
        tokens: &[String],
        connect: &ConnectConfig,
    ) -> Result<Web, String> {
        let (ready, app) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let (cfg, tokens, connect) = (cfg.clone(), tokens.to_vec(), connect.clone());
        let table_cpu = crate::pin::pinned_cpu();
        let thread = move || {
            // Off the table's CPU (the thread would otherwise inherit its pinning).
            if let Some(cpu) = table_cpu {
                crate::pin::avoid_cpu(cpu);
            }
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready.send(Err(format!("cannot start the web server's runtime: {e}")));
                    return;
                }
            };
            rt.block_on(async move {
                let (app, listener) = match open(&cfg, &tokens, &connect).await {
                    Ok(opened) => opened,
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                let door = Door::new(Limits::within_fd_budget());
                let router = router(app.clone());
                let follow = app.seat_views.clone().map(SeatViews::follow);
                let pump = app.feed.clone().map(Feed::pump);
                let _ = ready.send(Ok(app));
                tokio::select! {
                    () = door::serve(listener, door, router) => {}
                    () = or_never(follow) => {}
                    () = or_never(pump) => {}
                    _ = stopped => {}
                }
            });
            // A seat view being derived is not waited for.
            rt.shutdown_background();
        };
        std::thread::Builder::new()
            .name("web".into())
            .spawn(thread)
            .map_err(|e| format!("cannot start the web server's thread: {e}"))?;
        let app = app.await.map_err(|_| "the web server's thread ended".to_string())??;
        Ok(Web { app, _stop: stop })
    }

    /// The page of the human seat with this token.
    pub(crate) fn seat_url(&self, token: &str) -> String {
        format!("http://{}/play?token={token}", self.app.addr)
    }

    /// The organiser's spectator page, when spectators are served.
    pub(crate) fn watch_url(&self) -> Option<String> {
        let (all, _) = self.app.watch_tokens.as_ref()?;
        Some(format!("http://{}/watch?token={all}", self.app.addr))
    }

    /// Seat `seat`'s spectator page, when spectators are served.
    pub(crate) fn seat_view_url(&self, seat: usize) -> Option<String> {
        let (_, seats) = self.app.watch_tokens.as_ref()?;
        Some(format!("http://{}/watch?token={}", self.app.addr, seats.get(seat)?))
    }

    /// What the recorder hands the spectators, when they are served.
    pub(crate) fn tap(&self) -> Option<Tap> {
        self.app.feed.as_ref().map(Feed::tap)
    }

    /// After the match: gives the spectators up to `limit` to be shown its end.
    pub(crate) async fn linger(&self, limit: Duration) {
        // The pages are served by a thread of their own: without waiting, the referee could
        // exit while a person's page is still being sent the game's end and its `bye`, and the
        // page would be left reconnecting to a server that is gone.
        let done = || {
            self.app.feed.as_ref().is_none_or(|feed| feed.caught_up())
                && self.app.seats.values().all(|seat| seat.settled())
        };
        let deadline = tokio::time::Instant::now() + limit;
        let shown_by = deadline - TELL_END.min(limit / 2);
        while !done() && tokio::time::Instant::now() < shown_by {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Then every spectator is told the match is over (its page says so and stops, instead
        // of reconnecting to a server that is gone), for as long as the linger has left: one
        // still catching up is sent what it lacks first.
        if let Some(feed) = &self.app.feed {
            feed.close();
            while feed.watched() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }

    /// The human seat's byte stream, once its page has connected (waiting at most `wait`).
    pub(crate) async fn take(&self, token: &str, wait: Duration) -> Option<(Reader, Writer)> {
        let stream = self.app.seats.get(token)?.take(wait).await?;
        let (r, w) = tokio::io::split(stream);
        Some((Box::new(r), Box::new(w)))
    }
}

pub use bot_socket::bot_socket_route;
pub use hosts::Hosts;

/// Serves `router` on `listener` behind the referee's web door until the task is dropped: each
/// request's head must come within 5 s, connections are capped in all and per address within
/// the process's file descriptors (a full address gives up its oldest connection), and each
/// request carries its peer's address as axum's `ConnectInfo<SocketAddr>`. The arena's pages
/// are served this way, so a stranger meets the same door at every web server of the project.
pub async fn serve_http(listener: tokio::net::TcpListener, router: axum::Router) {
    let door = door::Door::new(door::Limits::within_fd_budget());
    door::serve(listener, door, router).await;
}

/// Of a linger, what is kept for telling the spectators the match is over, however long they
/// took to be shown its end: without it, a page still catching up when the linger ran out would
/// see the server vanish, and connect again for ever.
const TELL_END: Duration = Duration::from_secs(2);

/// How long one message to a page (a spectator's, a person's seat) may take to leave: a page
/// that stops reading is dropped, never waited for. A message is at most about 64 KiB
/// (`follow::CHUNK_BYTES`) and the sockets' buffers hold far more: only a page that takes less
/// than a message in that time misses it.
const SEND_DEADLINE: Duration = Duration::from_secs(5);

/// Sends one text message to a page; false when the page is gone or too slow.
async fn send(socket: &mut axum::extract::ws::WebSocket, text: String) -> bool {
    let message = axum::extract::ws::Message::Text(text.into());
    matches!(tokio::time::timeout(SEND_DEADLINE, socket.send(message)).await, Ok(Ok(())))
}

/// The next message of a socket that speaks the protocol, as one line: a text message of at
/// most `max_line` bytes without a line break (one holding a line break would be several
/// lines). `None` at the socket's end and on anything else, which ends the connection.
/// Cancel-safe: pings and pongs are skipped, and a message is taken only when it is returned.
async fn recv_line(
    socket: &mut axum::extract::ws::WebSocket,
    max_line: usize,
) -> Option<axum::extract::ws::Utf8Bytes> {
    use axum::extract::ws::Message;
    loop {
        match socket.recv().await {
            Some(Ok(Message::Text(text))) if !text.contains('\n') && text.len() <= max_line => {
                return Some(text);
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            _ => return None,
        }
    }
}

/// A task the server may not have: without it, one that never ends.
async fn or_never(task: Option<impl Future<Output = ()>>) {
    match task {
        Some(t) => t.await,
        None => std::future::pending().await,
    }
}

/// Binds the listener and makes the server's state, on the server's own runtime (the seats'
/// relays run there).
async fn open(
    cfg: &WebConfig,
    tokens: &[String],
    connect: &ConnectConfig,
) -> Result<(Arc<App>, tokio::net::TcpListener), String> {
    let listen = &cfg.listen;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let seats =
        tokens.iter().map(|t| (t.clone(), Resumable::new(false, connect.resume_grace))).collect();
    let watch_tokens = cfg
        .watch
        .then(|| (crate::entropy::token(), std::array::from_fn(|_| crate::entropy::token())));
    let mut views = HashMap::new();
    if let Some((all, seats)) = &watch_tokens {
        views.insert(all.clone(), View::All);
        for (s, t) in seats.iter().enumerate() {
            views.insert(t.clone(), View::Seat(s));
        }
    }
    let feed = cfg.watch.then(Feed::new);
    let seat_views = feed.clone().map(|f| SeatViews::new(f, connect.max_line));
    let hosts = Hosts::of_listener(listen, addr);
    let play = page("Aluette: your seat", SEAT_PANELS, "play.js");
    let watch = page("Aluette: live", "", "watch.js");
    // The lobby's strikes; its places are not used here (the door has its own).
    let strikes = Mutex::new(Gate::new(PendingLimits { total: 0, per_addr: 0 }));
    let max_line = connect.max_line;
    let app = App {
        addr,
        hosts,
        seats,
        feed,
        seat_views,
        views,
        watch_tokens,
        max_line,
        play,
        watch,
        strikes,
    };
    Ok((Arc::new(app), listener))
}

fn router(app: Arc<App>) -> axum::Router {
    let router = axum::Router::new()
        .route("/play", get(|State(app): State<Arc<App>>| async move { html(&app.play) }))
        .route("/watch", get(|State(app): State<Arc<App>>| async move { html(&app.watch) }))
        .route("/assets/{name}", get(routes::asset))
        // Browsers ask for it on their own: nothing, rather than an error in the console.
        .route("/favicon.ico", get(|| async { secured(StatusCode::NO_CONTENT.into_response()) }))
        .route("/ws/seat", get(routes::seat_socket))
        .route("/ws/watch", get(routes::watch_socket));
    app.hosts.clone().guard(router).with_state(app)
}
