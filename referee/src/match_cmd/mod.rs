//! `referee match`: four bots, N games on the same processes, records, and a readable account.

mod account;
mod json;

use crate::api::{Config, Game, Outcome, Table};
use crate::bot::lobby::{Lobby, NetConfig};
use crate::bot::seat::{self, Place, preflight};
use crate::bot::{BYE_GRACE, Bot, BotSpec, ConnectConfig};
use crate::game_runner::{GameConfig, GameSummary};
use crate::record_io;
use crate::shutdown::{self, Shutdown, Stage};
use crate::text::{self, Shown};
use crate::web::{Web, WebConfig};
use account::{Tally, account};
use json::JsonGames;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `referee match` plays, and how.
#[derive(Debug)]
pub(crate) struct MatchConfig {
    /// Players 0..3.
    pub(crate) players: [BotSpec; 4],
    pub(crate) games: u64,
    /// The match seed; `None`: a random one, printed.
    pub(crate) seed: Option<u64>,
    pub(crate) records: Records,
    /// The result as one JSON document instead of the readable account.
    pub(crate) json: bool,
    /// Pin the referee and its bots to one CPU.
    pub(crate) pin: bool,
    pub(crate) game: GameConfig,
    pub(crate) connect: ConnectConfig,
    pub(crate) net: NetConfig,
    /// The web server of human seats and spectators.
    pub(crate) web: WebConfig,
}

/// Where a match writes its records and its bots' stderr logs.
#[derive(Debug)]
pub(crate) enum Records {
    /// Nowhere (and bot stderr is discarded).
    Off,
    /// `records/seed-S`, S the match seed.
    BySeed,
    In(PathBuf),
}

/// How long a match waits, once over, for its spectators' pages to show its end.
const WATCH_LINGER: Duration = Duration::from_secs(10);

/// The match: its records folder, the lobby and the web server opened, the seats filled and
/// checked, the games played, everything closed, and the totals said.
pub(crate) async fn run(args: MatchConfig) -> Result<(), String> {
    let seed = args.seed.unwrap_or_else(crate::entropy::random_seed);
    let dir = records_dir(&args.records, seed);
    // Held until the match ends: a second referee on this folder is refused before it writes.
    let _lock = open_records(dir.as_deref(), seed, args.json)?;
    let (trigger, shutdown) = shutdown::channel();
    shutdown::listen(trigger);
    let lobby = open_lobby(&args.players, &args.net, &args.connect, args.json).await?;
    let place = Place {
        connect: &args.connect,
        stderr_dir: dir.as_deref(),
        lobby: lobby.as_ref(),
        connect_wait: args.net.connect_wait,
        stop: &shutdown,
    };
    let web = open_web(&args.players, &args.web, &args.connect, args.json).await?;
    let mut table = seat_table(&args, &place, web.as_ref()).await?;
    let mut results = Results::start(args.json);
    let games = Games { args: &args, seed, dir: dir.as_deref(), place: &place, web: web.as_ref() };
    let error = games.play(table.as_mut(), &mut results).await;
    let names = table.as_ref().map(Table::names).unwrap_or_default();
    if let Some(table) = table {
        table.close("match over").await;
    }
    if let Some(lobby) = &lobby {
        lobby.close("match over").await;
    }
    if let Some(web) = &web {
        web.linger(WATCH_LINGER).await;
    }
    let played = results.finish(seed, &args.players, &names);
    match error {
        Some(e) => Err(e),
        // A run cut short by Ctrl-C must not look like a finished match to a script.
        None if played < args.games => Err(format!(
            "stopped by Ctrl-C or SIGTERM: {played} of {} games played to the end",
            args.games
        )),
        None => Ok(()),
    }
}

/// Where the match's records go, if anywhere.
fn records_dir(records: &Records, seed: u64) -> Option<PathBuf> {
    match records {
        Records::Off => None,
        Records::BySeed => Some(PathBuf::from(format!("records/seed-{seed}"))),
        Records::In(dir) => Some(dir.clone()),
    }
}

/// Locks and prepares the records folder (the lock is held while it is kept), and says the
/// seed and the folder unless stdout carries JSON.
fn open_records(
    dir: Option<&Path>,
    seed: u64,
    json: bool,
) -> Result<Option<record_io::DirLock>, String> {
    let lock = dir.map(record_io::lock_dir).transpose()?;
    if let Some(d) = dir {
        record_io::prepare_dir(d)?;
    }
    if !json {
        println!("Match seed {seed} (repeat it with --seed {seed})");
        if let Some(d) = dir {
            println!("Records in {}", d.display());
        }
    }
    Ok(lock)
}

/// The four seats filled (programs, TCP bots, pages) and held to the start-up check, then the
/// table they make; none when a stop came while the seats waited for their bots.
async fn seat_table(
    args: &MatchConfig,
    place: &Place<'_>,
    web: Option<&Web>,
) -> Result<Option<Table>, String> {
    // A stop while the seats wait for their bots (a page, a TCP bot, a slow handshake) ends the
    // match there: the bots being started are dropped, which kills their process groups.
    let fill = seat::fill_all(&args.players, place, stem);
    let mut bots = place.unless_stopped(fill).await.unwrap_or_default();
    if let Some(web) = web {
        seat_humans(&mut bots, web, args, place).await;
    }
    // The first game's bots are the start-up check: a program that cannot play stops the match.
    // A stop while the seats waited for their bots plays no game, and is said as such later.
    let who: Vec<String> = (0..bots.len()).map(|p| format!("player {p}")).collect();
    let stopped = place.stop.stage() >= Stage::Draining;
    if let Some(r) = preflight::refusal(who.iter().map(String::as_str).zip(&bots), place.stderr_dir)
        .filter(|_| !stopped)
    {
        for b in bots {
            b.close("a bot of this match cannot play", BYE_GRACE).await;
        }
        return Err(r.line());
    }
    for (p, bot) in bots.iter().enumerate() {
        if let Some(fault) = bot.dead() {
            // The game goes on with the fallback in that seat; say so where a person sees it.
            eprintln!(
                "referee: warning: player {p} is not playing ({}): {}",
                fault.kind.as_str(),
                Shown(&fault.detail)
            );
        }
    }
    let mut config = Config::from_parts(args.game.clone(), args.connect.clone());
    config.stderr_dir = place.stderr_dir.map(Path::to_path_buf);
    config.connect_wait = args.net.connect_wait;
    let stop: Shutdown = place.stop.clone();
    Ok(<[Bot; 4]>::try_from(bots).ok().map(|bots| Table::of_bots(config, bots, stop)))
}

/// What each game of the match is played with.
struct Games<'a> {
    args: &'a MatchConfig,
    seed: u64,
    /// The records folder, if any.
    dir: Option<&'a Path>,
    place: &'a Place<'a>,
    web: Option<&'a Web>,
}

impl Games<'_> {
    /// Plays the match's games until all are played, a stop, or an error (returned); each
    /// game's result is said as it ends.
    async fn play(&self, mut table: Option<&mut Table>, results: &mut Results) -> Option<String> {
        let stop = self.place.stop;
        let mut error = None;
        for game_no in 1..=self.args.games {
            let Some(table) = table.as_deref_mut().filter(|_| stop.stage() < Stage::Draining)
            else {
                break;
            };
            let tap = self.web.and_then(Web::tap);
            let mut game = Game::of_match(table.config(), self.seed, game_no).tap(tap);
            if let Some(d) = self.dir {
                game = game.record_to(d.join(record_io::game_file_name(game_no)));
            }
            let Outcome { summary, player_at, .. } =
                match table.play_in(game, self.place.lobby).await {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                };
            if let Some(e) = &summary.record_error {
                error.get_or_insert(e.clone());
            }
            results.game(&summary, player_at);
            if error.is_some() {
                break;
            }
        }
        error
    }
}

/// What the match says of its games: one JSON document, or the readable account, game by game
/// and then the totals. Only the counts are kept; each game's result is written as it ends, so
/// a match of millions of games runs in constant memory.
struct Results {
    tally: Tally,
    json: Option<JsonGames>,
}

impl Results {
    fn start(json: bool) -> Results {
        let json = json.then(|| {
            let (out, head) = JsonGames::start();
            print!("{head}");
            out
        });
        Results { tally: Tally::default(), json }
    }

    fn game(&mut self, summary: &GameSummary, player_at: [usize; 4]) {
        match self.json.as_mut() {
            // One write per game (stdout is line-buffered: all up to the last newline).
            Some(out) => print!("{}", out.game(summary, player_at)),
            None => print!("{}", text::printable(&account(summary, player_at))),
        }
        self.tally.add(summary, player_at);
    }

    /// Says the totals; the number of games played to the end.
    fn finish(self, seed: u64, players: &[BotSpec; 4], names: &[String]) -> u64 {
        match self.json {
            Some(out) => println!("{}", out.finish(seed, players, own_cpu_us())),
            None => print!("{}", text::printable(&self.tally.totals(names))),
        }
        self.tally.complete
    }
}

/// The referee process's CPU time so far, user and system, in microseconds: its own threads'
/// alone (the bots are other processes), exact where a reading of `/proc` in clock ticks is not,
/// for whoever measures what refereeing costs (`aluette-bench`).
fn own_cpu_us() -> Option<u64> {
    use nix::sys::resource::{UsageWho, getrusage};
    use nix::sys::time::TimeValLike;
    let usage = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    u64::try_from(usage.user_time().num_microseconds() + usage.system_time().num_microseconds())
        .ok()
}

/// Binds the listener when some seat waits for a TCP bot, and says how to connect.
pub(crate) async fn open_lobby(
    players: &[BotSpec; 4],
    net: &NetConfig,
    connect: &ConnectConfig,
    quiet_stdout: bool,
) -> Result<Option<Lobby>, String> {
    let tokens: Vec<String> =
        players.iter().filter_map(BotSpec::lobby_token).map(str::to_string).collect();
    if tokens.is_empty() {
        return Ok(None);
    }
    let lobby =
        Lobby::bind(&net.listen, &tokens, connect.clone(), net.pending.total, net.pending.per_addr)
            .await?;
    let mut text = format!("Listening for TCP bots on {}\n", lobby.addr());
    for (p, spec) in players.iter().enumerate() {
        if let Some(token) = spec.lobby_token() {
            text.push_str(&format!(
                "  player {p}: token {token}  (e.g. python3 sample-bots/python/heuristic_bot.py --connect {} --token {token})\n",
                lobby.addr()
            ));
        }
    }
    announce(&text, quiet_stdout);
    Ok(Some(lobby))
}

/// Says where bots and people connect: on stdout at once, or on stderr with --json (stdout then
/// carries only the result document).
fn announce(text: &str, quiet_stdout: bool) {
    if quiet_stdout {
        eprint!("{text}");
    } else {
        print!("{text}");
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    }
}

/// Starts the web server when some seat is a person's or spectators are wanted, and prints
/// the pages' addresses as the lobby prints its tokens.
async fn open_web(
    players: &[BotSpec; 4],
    cfg: &WebConfig,
    connect: &ConnectConfig,
    quiet_stdout: bool,
) -> Result<Option<Web>, String> {
    let tokens: Vec<String> =
        players.iter().filter_map(BotSpec::page_token).map(str::to_string).collect();
    if tokens.is_empty() && !cfg.watch {
        return Ok(None);
    }
    let web = Web::bind(cfg, &tokens, connect).await?;
    let mut text = String::new();
    for (p, spec) in players.iter().enumerate() {
        if let Some(token) = spec.page_token() {
            text.push_str(&format!("Player {p} (you): open {}\n", web.seat_url(token)));
        }
    }
    if let Some(url) = web.watch_url() {
        text.push_str(&format!("Watch live: {url}  (every hand)\n"));
        // One link per view: a seat view's token opens only that seat's view.
        for seat in 0..4 {
            if let Some(url) = web.seat_view_url(seat) {
                text.push_str(&format!("  seat {seat}'s view: {url}\n"));
            }
        }
    }
    announce(&text, quiet_stdout);
    Ok(Some(web))
}

/// Human seats take the stream of the page that opened them (waiting at most `wait` for it),
/// on a person's clock; a seat whose page never came is recorded as not started.
async fn seat_humans(bots: &mut [Bot], web: &Web, args: &MatchConfig, place: &Place<'_>) {
    let wait = place.connect_wait;
    let deadline = tokio::time::Instant::now() + wait;
    let clock = protocol::msg::Clock {
        handshake_ms: args.game.clock.handshake_ms,
        answer_ms: args.web.human_answer_ms,
        bank_ms: args.web.human_bank_ms,
        // A person is timed by the wall: a page has no CPU time to charge.
        mode: None,
        wall_cap: None,
    };
    for bot in bots.iter_mut() {
        let Some(token) = bot.spec.page_token() else { continue };
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let arrived = match place.unless_stopped(web.take(token, left)).await.flatten() {
            Some((r, w)) => Some(Bot::attach(bot.spec.clone(), r, w, &args.connect).await),
            None => None,
        };
        let ms = wait.as_millis();
        seat::seat_arrival(bot, arrived, || format!("no page opened this seat within {ms} ms"));
        bot.clock = Some(clock);
    }
}

/// The stderr log name of player `p`'s bot.
fn stem(p: usize) -> String {
    format!("player{p}")
}
