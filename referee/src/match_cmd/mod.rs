//! `referee match`: four bots, N games on the same processes, records, and a readable account.

mod json;

use crate::api::{Config, Game, Outcome, Table};
use crate::bot::lobby::Lobby;
use crate::bot::lobby::NetConfig;
use crate::bot::seat::preflight;
use crate::bot::seat::{self, Place};
use crate::bot::{BYE_GRACE, Bot, BotSpec, ConnectConfig};
use crate::game_runner::{GameConfig, GameSummary, Status};
use crate::record_io;
use crate::shutdown::{self, Stage};
use crate::text::{self, Shown};
use crate::web::{Web, WebConfig};
use json::JsonGames;
use rules::Team;
use std::fmt::Write as _;
use std::path::PathBuf;
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

pub(crate) async fn run(args: MatchConfig) -> Result<(), String> {
    let players = &args.players;
    let cfg = &args.game;
    let connect = &args.connect;
    let seed = args.seed.unwrap_or_else(crate::entropy::random_seed);
    let dir: Option<PathBuf> = match &args.records {
        Records::Off => None,
        Records::BySeed => Some(PathBuf::from(format!("records/seed-{seed}"))),
        Records::In(dir) => Some(dir.clone()),
    };
    // Held until the match ends: a second referee on this folder is refused before it writes.
    let _lock = dir.as_deref().map(record_io::lock_dir).transpose()?;
    if let Some(d) = &dir {
        record_io::prepare_dir(d)?;
    }
    if !args.json {
        println!("Match seed {seed} (repeat it with --seed {seed})");
        if let Some(d) = &dir {
            println!("Records in {}", d.display());
        }
    }
    let (trigger, shutdown) = shutdown::channel();
    shutdown::listen(trigger);

    let lobby = open_lobby(players, &args.net, connect, args.json).await?;
    let place = Place {
        connect,
        stderr_dir: dir.as_deref(),
        lobby: lobby.as_ref(),
        connect_wait: args.net.connect_wait,
        stop: &shutdown,
    };
    let web = open_web(players, &args.web, connect, args.json).await?;
    // A stop while the seats wait for their bots (a page, a TCP bot, a slow handshake) ends the
    // match there: the bots being started are dropped, which kills their process groups.
    let mut bots = place.unless_stopped(connect_all(players, &place)).await.unwrap_or_default();
    if let Some(web) = &web {
        seat_humans(&mut bots, web, &args, &place).await;
    }
    // The first game's bots are the start-up check: a program that cannot play stops the match.
    // A stop while the seats waited for their bots plays no game, and is said as such below.
    let who: Vec<String> = (0..bots.len()).map(|p| format!("player {p}")).collect();
    let stopped = shutdown.stage() >= Stage::Draining;
    if let Some(r) = preflight::refusal(who.iter().map(String::as_str).zip(&bots), dir.as_deref())
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
    let mut config = Config::from_parts(cfg.clone(), connect.clone());
    config.stderr_dir = dir.clone();
    config.connect_wait = args.net.connect_wait;
    // A stop while the seats waited left no bots: no game is played, and it is said below.
    let mut table =
        <[Bot; 4]>::try_from(bots).ok().map(|bots| Table::of_bots(config, bots, shutdown.clone()));
    // Only the counts are kept; each game's result is written as it ends, so a match of
    // millions of games runs in constant memory.
    let mut tally = Tally::default();
    let mut json_out = args.json.then(|| {
        let (out, head) = JsonGames::start();
        print!("{head}");
        out
    });
    let mut error = None;
    for game_no in 1..=args.games {
        let Some(table) = table.as_mut().filter(|_| shutdown.stage() < Stage::Draining) else {
            break;
        };
        let mut game =
            Game::of_match(table.config(), seed, game_no).tap(web.as_ref().and_then(Web::tap));
        if let Some(d) = &dir {
            game = game.record_to(d.join(record_io::game_file_name(game_no)));
        }
        let Outcome { summary, player_at, .. } = match table.play_in(game, lobby.as_ref()).await {
            Ok(outcome) => outcome,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        if let Some(e) = &summary.record_error {
            error.get_or_insert(e.clone());
        }
        match json_out.as_mut() {
            // One write per game (stdout is line-buffered: all up to the last newline).
            Some(out) => print!("{}", out.game(&summary, player_at)),
            None => print!("{}", text::printable(&account(&summary, player_at))),
        }
        tally.add(&summary, player_at);
        if error.is_some() {
            break;
        }
    }
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
    match json_out {
        Some(out) => println!("{}", out.finish(seed, players)),
        None => print!("{}", text::printable(&tally.totals(&names))),
    }
    let played = tally.complete;
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
        match place.unless_stopped(web.take(token, left)).await.flatten() {
            Some((r, w)) => {
                let spec = bot.spec.clone();
                bot.replace_with(Bot::attach(spec, r, w, &args.connect).await);
            }
            None => {
                let ms = wait.as_millis();
                let detail = format!("no page opened this seat within {ms} ms");
                let fault = crate::fault::Fault::new(protocol::record::FaultKind::NoStart, detail);
                bot.set_unavailable(fault, true);
            }
        }
        bot.clock = Some(clock);
    }
}

/// Starts the four players' bots at once (handshakes overlap; TCP seats wait for their bots).
pub(crate) async fn connect_all(players: &[BotSpec; 4], place: &Place<'_>) -> Vec<Bot> {
    let tokens: Vec<String> =
        players.iter().filter_map(BotSpec::lobby_token).map(str::to_string).collect();
    // TCP seats are taken from the lobby only once all of them are filled (or the wait is
    // over), just before the game: until then a bot that drops and reconnects keeps its seat.
    let ready = async {
        if let Some(lobby) = place.lobby {
            lobby.wait_ready(&tokens, place.connect_wait).await;
        }
    };
    let [a, b, c, d] = players.clone();
    let connect = |spec: BotSpec, p: usize| async move {
        Bot::connect(spec, place.connect, place.stderr_dir, &stem(p), None).await
    };
    let (a, b, c, d, ()) =
        tokio::join!(connect(a, 0), connect(b, 1), connect(c, 2), connect(d, 3), ready);
    let mut bots = vec![a, b, c, d];
    for bot in bots.iter_mut() {
        seat::take_from_lobby(bot, place, Duration::ZERO).await;
    }
    bots
}

/// The stderr log name of player `p`'s bot.
fn stem(p: usize) -> String {
    format!("player{p}")
}

fn team_name(t: Team) -> String {
    format!("team {} (seats {} and {})", t.index(), t.seats()[0], t.seats()[1])
}

/// The readable account of one game.
pub(crate) fn account(s: &GameSummary, player_at: [usize; 4]) -> String {
    let mut out = String::new();
    let who = |seat: usize| format!("seat {seat} ({})", Shown(&s.names[seat]));
    let _ = writeln!(
        out,
        "\nGame {}: {} + {} against {} + {}",
        s.game_no,
        who(0),
        who(2),
        who(1),
        who(3)
    );
    if player_at != [0, 1, 2, 3] {
        let _ = writeln!(out, "  seating drawn: players {player_at:?} in seats 0..3");
    }
    let mut faults = s.faults.iter().peekable();
    for d in &s.deals {
        while let Some(f) = faults.next_if(|f| f.deal.is_none_or(|n| n <= d.deal)) {
            let _ = writeln!(out, "  fault  {}", fault_line(f, &s.names));
        }
        let pledge = d.pledge.map(|p| {
            let team = d.team.map_or(0, |t| t.index());
            match p.kind {
                rules::PledgeKind::Accepted => format!("seat {}'s surrender accepted: ", p.seat),
                rules::PledgeKind::Refused => {
                    format!("seat {}'s surrender refused, team {team} scores: ", p.seat)
                }
                rules::PledgeKind::Announced => {
                    format!("seat {}'s mordienne announced, team {team} scores: ", p.seat)
                }
            }
        });
        let result = match d.winner {
            None if d.pledge.is_some() => {
                let none = if d.tricks == [0; 4] && d.points == 1 {
                    "no card played"
                } else {
                    "every trick spoiled"
                };
                format!("{none}: team {} +{}", d.team.map_or(0, |t| t.index()), d.points)
            }
            None if !d.counted => "all tricks spoiled: dealt again".to_string(),
            None => "all tricks spoiled: nobody scores".to_string(),
            Some(w) => format!(
                "{} wins with {} tricks{}: team {} +{}",
                who(w.index()),
                d.tricks[w.index()],
                if d.mordienne { " (mordienne)" } else { "" },
                d.team.map_or(0, |t| t.index()),
                d.points
            ),
        };
        let result = pledge.unwrap_or_default() + &result;
        let _ = writeln!(
            out,
            "  deal {} (dealer {}): {result}; tricks {:?}; score {}-{}",
            d.deal, d.dealer, d.tricks, d.score[0], d.score[1]
        );
    }
    for f in faults {
        let _ = writeln!(out, "  fault  {}", fault_line(f, &s.names));
    }
    let result = match (s.status, s.forfeit, s.winner) {
        (Status::Aborted, _, _) => format!("aborted at {}-{}", s.score[0], s.score[1]),
        (_, Some(t), _) => format!("{} forfeits; {} wins", team_name(t), team_name(t.other())),
        // Team 0 first, as in every deal line above, the record and `referee replay`.
        (_, None, Some(w)) => format!("{} wins {}-{}", team_name(w), s.score[0], s.score[1]),
        (_, None, None) => format!("draw {}-{}", s.score[0], s.score[1]),
    };
    let _ = writeln!(out, "  result: {result}");
    if let Some(p) = &s.record {
        let _ = writeln!(out, "  record: {}", p.display());
    }
    out
}

fn fault_line(f: &protocol::record::FaultRecord, names: &[String; 4]) -> String {
    format!(
        "seat {} ({}) {}; {}, strike {}",
        f.seat,
        Shown(&names[f.seat as usize]),
        Shown(&crate::fault::summary(f)),
        f.penalty.shown(),
        f.strikes
    )
}

/// What the match totals need of each game.
#[derive(Debug, Default)]
struct Tally {
    games: u64,
    complete: u64,
    /// Wins of each partnership of players (the lower player first), in the order first met.
    wins: Vec<([usize; 2], u64)>,
    draws: u64,
    aborted: u64,
}

impl Tally {
    /// Counts a game whose seat `s` held player `player_at[s]`.
    fn add(&mut self, s: &GameSummary, player_at: [usize; 4]) {
        self.games += 1;
        for team in [0, 1] {
            let mut pair = [player_at[team], player_at[team + 2]];
            pair.sort_unstable();
            if !self.wins.iter().any(|(p, _)| *p == pair) {
                self.wins.push((pair, 0));
            }
        }
        match (s.status, s.winner) {
            (Status::Aborted, _) => self.aborted += 1,
            (_, Some(t)) => {
                let i = t.index();
                let mut pair = [player_at[i], player_at[i + 2]];
                pair.sort_unstable();
                if let Some((_, n)) = self.wins.iter_mut().find(|(p, _)| *p == pair) {
                    *n += 1;
                }
            }
            (_, None) => self.draws += 1,
        }
        self.complete += u64::from(s.status == Status::Complete);
    }

    /// Wins per partnership over the match, each named by its players' bots.
    fn totals(&self, names: &[String]) -> String {
        let games =
            if self.games == 1 { "1 game".to_string() } else { format!("{} games", self.games) };
        let mut out = format!("\nMatch over: {games}");
        for ([a, b], won) in &self.wins {
            let name = |p: usize| names.get(p).map_or("?".to_string(), |n| Shown(n).to_string());
            let _ = write!(out, "; {} + {} (players {a}+{b}) won {won}", name(*a), name(*b));
        }
        let _ = write!(out, "; {} drawn", self.draws);
        if self.aborted > 0 {
            let _ = write!(out, ", {} aborted", self.aborted);
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The account names the fault's place and its penalty in words, and escapes what the bot
    /// controls.
    #[test]
    fn fault_lines_say_the_penalty_in_words() {
        use protocol::record::{FaultKind, FaultRecord, Penalty};
        let names: [String; 4] = ["a".into(), "b \"quoted\"".into(), "c".into(), "d".into()];
        let mut f = FaultRecord {
            seat: 1,
            deal: Some(2),
            trick: Some(3),
            kind: FaultKind::Timeout,
            detail: "no answer\u{1b} within 100 ms".into(),
            raw: None,
            raw_b64: None,
            action: "played 3s for you".into(),
            penalty: Penalty::Fallback,
            strikes: 1,
        };
        assert_eq!(
            fault_line(&f, &names),
            "seat 1 (b \"quoted\") timeout in deal 2, trick 3: no answer\\u{1b} within 100 ms; \
             fallback played, strike 1"
        );
        f.trick = None;
        for (penalty, said) in [
            (Penalty::Ignored, "ignored"),
            (Penalty::SignalDropped, "signal dropped"),
            (Penalty::Replaced, "replaced by the fallback"),
            (Penalty::Forfeit, "forfeit"),
        ] {
            f.penalty = penalty;
            let line = fault_line(&f, &names);
            assert!(line.ends_with(&format!("100 ms; {said}, strike 1")), "{line}");
            assert!(line.contains(" timeout in deal 2: "), "{line}");
        }
    }
}
