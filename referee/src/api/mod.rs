//! The referee as a library: a game from a configuration and four seats, run to its end on the
//! caller's runtime, giving back its result and its record. `referee match`, the tournament's
//! tables and the arena are callers of this one room; what a seat is (a program, a connection,
//! an in-process player) is settled in `seat.rs`, and a game's own loop stays in `game_runner`.

mod door;
mod seat;

pub use crate::bot::players::Player;
pub use crate::game_runner::{DealLine, GameSummary, Status};
pub use door::Door;
pub use seat::{Connection, Seat};

use crate::bot::lobby::Lobby;
use crate::bot::seat::{Place, revive};
use crate::bot::{BYE_GRACE, Bot, ConnectConfig};
use crate::game_runner::{GameConfig, GameSetup, draw_deck, first_dealer_draw, game_seed};
use crate::policy::Policy;
use crate::record_io::{Recorder, Tap};
use crate::shutdown::{self, Shutdown, Trigger};
use protocol::msg::Clock;
use protocol::options::{OnFault, Seating};
use rules::{Card, Deck, Rules};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Everything fixed about the games of a table: rules, clocks, fault policy and limits. The
/// defaults are `referee match`'s (a test holds the two together).
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) game: GameConfig,
    pub(crate) connect: ConnectConfig,
    /// Where program seats' stderr logs go; nowhere by default (the output is discarded).
    pub(crate) stderr_dir: Option<PathBuf>,
    /// How long a seat whose bot connects waits for it (a `match`'s TCP seats).
    pub(crate) connect_wait: Duration,
}

impl Default for Config {
    fn default() -> Config {
        let rules = Rules::default();
        let handshake_ms = 10_000;
        Config {
            game: GameConfig {
                rules,
                seating: Seating::Given,
                clock: Clock {
                    handshake_ms,
                    answer_ms: 1_000,
                    bank_ms: 5_000,
                    mode: None,
                    wall_cap: None,
                },
                policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
            },
            connect: ConnectConfig {
                handshake: Duration::from_millis(handshake_ms),
                max_line: protocol::MAX_LINE_BYTES,
                stderr_cap: 1 << 20,
                cpu_time: true,
                resume_grace: Duration::from_secs(60),
                pre_lead_rounds: rules.has_pre_lead_rounds(),
                limits: Default::default(),
            },
            stderr_dir: None,
            connect_wait: Duration::from_secs(60),
        }
    }
}

impl Config {
    /// The configuration of `referee match` with its flags parsed: the command line's own path
    /// into the library.
    pub(crate) fn from_parts(game: GameConfig, connect: ConnectConfig) -> Config {
        Config { game, connect, ..Config::default() }
    }

    /// The rules of every game (spec/rules.md); the default is the rules' own default.
    pub fn rules(mut self, rules: Rules) -> Config {
        self.game.rules = rules;
        self.connect.pre_lead_rounds = rules.has_pre_lead_rounds();
        self
    }

    /// Time for each answer, in milliseconds (default 1,000).
    pub fn answer_ms(mut self, ms: u64) -> Config {
        self.game.clock.answer_ms = ms;
        self
    }

    /// Each seat's bank per game, which absorbs overruns, in milliseconds (default 5,000).
    pub fn bank_ms(mut self, ms: u64) -> Config {
        self.game.clock.bank_ms = ms;
        self
    }

    /// Time for the handshake answer, in milliseconds (default 10,000).
    pub fn handshake_ms(mut self, ms: u64) -> Config {
        self.game.clock.handshake_ms = ms;
        self.connect.handshake = Duration::from_millis(ms);
        self
    }

    /// How long a network seat that took up `resume` waits for its bot to come back before
    /// giving it up, in milliseconds (default 60,000).
    pub fn resume_grace_ms(mut self, ms: u64) -> Config {
        self.connect.resume_grace = Duration::from_millis(ms);
        self
    }

    /// Keep program seats' stderr in `dir` (`player0.stderr.log`, ...), at most 1 MiB each.
    pub fn bot_logs(mut self, dir: impl Into<PathBuf>) -> Config {
        self.stderr_dir = Some(dir.into());
        self
    }

    /// The rules in force.
    pub fn rules_in_force(&self) -> &Rules {
        &self.game.rules
    }
}

/// A stop shared by any number of tables: the first [`Stop::finish`] lets running games end
/// and starts no new one (a wait for a bot to connect ends at once); [`Stop::abort`] ends
/// running games now, their records closed as `aborted`.
#[derive(Clone, Debug)]
pub struct Stop {
    trigger: Arc<Trigger>,
    handle: Shutdown,
}

impl Default for Stop {
    fn default() -> Stop {
        let (trigger, handle) = shutdown::channel();
        Stop { trigger: Arc::new(trigger), handle }
    }
}

impl Stop {
    /// A stop nobody has asked for yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Finish the games under way, start no other.
    pub fn finish(&self) {
        if self.handle.stage() == shutdown::Stage::Running {
            self.trigger.escalate();
        }
    }

    /// True once [`Stop::finish`] or [`Stop::abort`] was called.
    pub fn is_stopping(&self) -> bool {
        self.handle.stage() >= shutdown::Stage::Draining
    }

    /// End the games under way now.
    pub fn abort(&self) {
        while self.handle.stage() != shutdown::Stage::Abort {
            self.trigger.escalate();
        }
    }
}

/// One game to play at a table: its seed (every deck and coin flip derives from it), its
/// number, who deals first, who sits where, and where its record goes.
#[derive(Clone, Debug)]
pub struct Game {
    pub(crate) setup: GameSetup,
    /// `player_at[s]`: the index, in the table's seats, of the bot in seat `s`.
    pub(crate) player_at: [usize; 4],
    record: RecordTo,
    watch: Option<Tap>,
    /// Decks given instead of the seed's (deal `d` uses `decks[d - 1]`): a record's own.
    decks: Option<Vec<Deck>>,
}

#[derive(Clone, Debug)]
enum RecordTo {
    Nowhere,
    Memory,
    File(PathBuf),
}

impl Game {
    /// Game 1 of seed `seed`, seat 0 dealing first, the table's seats in their order, and no
    /// record kept.
    pub fn new(seed: u64) -> Game {
        Game {
            setup: GameSetup {
                game_no: 1,
                match_seed: seed,
                seed,
                first_dealer: rules::Seat::ALL[0],
                draw: None,
            },
            player_at: [0, 1, 2, 3],
            record: RecordTo::Nowhere,
            watch: None,
            decks: None,
        }
    }

    /// Game `game_no` of a match of seed `match_seed`, as `referee match` plays it: its seed
    /// derived from both, and the seating and first dealer the configuration's `seating` rule
    /// gives (a drawn seating, a drawn first dealer, or the deal passing round from game to
    /// game).
    pub fn of_match(config: &Config, match_seed: u64, game_no: u64) -> Game {
        let (player_at, first_dealer, draw) = seating(config.game.seating, match_seed, game_no);
        Game {
            setup: GameSetup {
                game_no,
                match_seed,
                seed: game_seed(match_seed, game_no),
                first_dealer,
                draw,
            },
            player_at,
            record: RecordTo::Nowhere,
            watch: None,
            decks: None,
        }
    }

    /// The game's number, as its record names it.
    pub fn number(mut self, game_no: u64) -> Game {
        self.setup.game_no = game_no;
        self
    }

    /// Seat `seat` (0 to 3) deals first.
    pub fn first_dealer(mut self, seat: u8) -> Game {
        self.setup.first_dealer = rules::Seat::ALL[usize::from(seat % 4)];
        self
    }

    /// Who sits where: `player_at[s]` is the index of the table's seat whose bot plays in
    /// seat `s`. Panics unless it is a permutation of 0..4.
    pub fn seated(mut self, player_at: [usize; 4]) -> Game {
        let mut seen = [false; 4];
        for &p in &player_at {
            assert!(p < 4 && !seen[p], "player_at must be a permutation of 0..4: {player_at:?}");
            seen[p] = true;
        }
        self.player_at = player_at;
        self
    }

    /// Writes the record to a new file at `path` (an existing file is never replaced).
    pub fn record_to(mut self, path: impl Into<PathBuf>) -> Game {
        self.record = RecordTo::File(path.into());
        self
    }

    /// Keeps the record in memory, in [`Outcome::record`].
    pub fn record_in_memory(mut self) -> Game {
        self.record = RecordTo::Memory;
        self
    }

    /// Hands each record line to `watch` as the game adds it (a live spectators' feed): one
    /// whole line, its `\n` included.
    pub fn watch(mut self, watch: impl Fn(&[u8]) + Send + Sync + 'static) -> Game {
        self.watch = Some(Tap(Arc::new(watch)));
        self
    }

    /// A game of exactly this setup (a tournament's schedule, a record being re-run).
    pub(crate) fn of_setup(setup: GameSetup) -> Game {
        Game { setup, ..Game::new(0) }
    }

    /// Deals these decks instead of the seed's (a record's, which are authoritative).
    pub(crate) fn decks(mut self, decks: Vec<Deck>) -> Game {
        self.decks = Some(decks);
        self
    }

    pub(crate) fn tap(mut self, tap: Option<Tap>) -> Game {
        self.watch = tap;
        self
    }

    /// `player_at[s]`, as [`Game::seated`] set it.
    pub fn player_at(&self) -> [usize; 4] {
        self.player_at
    }
}

/// Where each player sits in game `game_no`, who deals first, and the draw's cards if drawn.
pub(crate) fn seating(
    seating: Seating,
    match_seed: u64,
    game_no: u64,
) -> ([usize; 4], rules::Seat, Option<Vec<Card>>) {
    match seating {
        Seating::Draw => {
            let deck = draw_deck(match_seed, game_no);
            let draw = rules::draw_seating(&deck);
            let mut player_at = [0usize; 4];
            for (player, seat) in draw.seat_of.iter().enumerate() {
                player_at[seat.index()] = player;
            }
            (player_at, rules::Seat::ALL[0], Some(deck.cards()[..draw.cards_turned].to_vec()))
        }
        Seating::DrawDealer => {
            let (dealer, turned) = first_dealer_draw(match_seed, game_no);
            ([0, 1, 2, 3], dealer, Some(turned))
        }
        // The first deal passes round the table from game to game, so over four games every
        // seat deals first once.
        Seating::Given => ([0, 1, 2, 3], rules::Seat::ALL[((game_no - 1) % 4) as usize], None),
    }
}

/// What a game gave: its summary (status, score, deals, faults, each seat's figures) and, when
/// asked for with [`Game::record_in_memory`], its whole record.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The game's result, seat by seat.
    pub summary: GameSummary,
    /// The record's lines (spec/records.md), when kept in memory.
    pub record: Option<String>,
    /// `player_at[s]`: which of the table's seats played in seat `s`.
    pub player_at: [usize; 4],
}

/// Four seats with their bots started and greeted, playing one game after another. A bot that
/// could not start or was refused at its handshake is still seated: its games record the
/// fault and the fallback plays for it, since a bot's failure is never the caller's error.
#[derive(Debug)]
pub struct Table {
    bots: Vec<Bot>,
    config: Config,
    stop: Shutdown,
    played: u64,
}

impl Table {
    /// Starts or adopts the four seats' bots at once (their handshakes overlap).
    pub async fn open(config: &Config, seats: [Seat; 4]) -> Table {
        let stems = ["player0", "player1", "player2", "player3"];
        let [a, b, c, d] = seats;
        let dir = config.stderr_dir.as_deref();
        let (a, b, c, d) = tokio::join!(
            a.start(&config.connect, dir, stems[0]),
            b.start(&config.connect, dir, stems[1]),
            c.start(&config.connect, dir, stems[2]),
            d.start(&config.connect, dir, stems[3]),
        );
        Table::of_bots(config.clone(), [a, b, c, d], Stop::new().handle)
    }

    /// A table of bots the caller has seated itself (`referee match`'s lobby and pages).
    pub(crate) fn of_bots(config: Config, bots: [Bot; 4], stop: Shutdown) -> Table {
        Table { bots: bots.into(), config, stop, played: 0 }
    }

    /// From now on, `stop` ends this table's games (see [`Stop`]).
    pub fn stop_with(&mut self, stop: &Stop) {
        self.stop = stop.handle.clone();
    }

    /// The name each seat's bot gave in its handshake (or a short name for one that gave none).
    pub fn names(&self) -> [String; 4] {
        std::array::from_fn(|p| self.bots[p].identity.name.clone())
    }

    /// The seats whose bot is not playing, each with its fault in words.
    pub fn not_playing(&self) -> Vec<(usize, String)> {
        self.bots
            .iter()
            .enumerate()
            .filter_map(|(p, b)| {
                b.dead().map(|f| (p, format!("{}: {}", f.kind.as_str(), f.detail)))
            })
            .collect()
    }

    /// Plays `game` to its end. Between games, a program that died is started again, and a
    /// network seat whose bot left stays empty (its games record the fault).
    ///
    /// The one error is the referee's own: the record file could not be created (it exists
    /// already, or its folder cannot be written), and no game was played.
    pub async fn play(&mut self, game: Game) -> Result<Outcome, String> {
        self.play_in(game, None).await
    }

    /// [`Table::play`], refilling a TCP seat from `lobby` between games.
    pub(crate) async fn play_in(
        &mut self,
        game: Game,
        lobby: Option<&Lobby>,
    ) -> Result<Outcome, String> {
        if self.played > 0 {
            let place = Place {
                connect: &self.config.connect,
                stderr_dir: self.config.stderr_dir.as_deref(),
                lobby,
                connect_wait: self.config.connect_wait,
                stop: &self.stop,
            };
            for (p, bot) in self.bots.iter_mut().enumerate() {
                revive(bot, &place, &format!("player{p}"), None).await;
            }
        }
        self.played += 1;
        let seated = seat_bots(&mut self.bots, game.player_at);
        play_seated(seated, game, &self.config.game, self.stop.clone()).await
    }

    /// Says `bye` to every bot (with `reason`) and stops them; programs that do not leave
    /// within a second are killed with their process group.
    pub async fn close(self, reason: &str) {
        let closing: Vec<_> = self.bots.into_iter().map(|b| b.close(reason, BYE_GRACE)).collect();
        for c in closing {
            c.await;
        }
    }

    /// Gives the four seats' bots back, to seat them elsewhere (the arena moves connected bots
    /// from table to table).
    pub fn release(self) -> [Connection; 4] {
        let mut bots = self.bots.into_iter().map(Connection::of);
        std::array::from_fn(|_| bots.next().expect("a table has four seats"))
    }

    /// The configuration the table plays under.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

/// Plays `game` between four bots already seated (`bots[s]` in seat `s`): the one way every
/// caller (a table, a tournament's rooms, `check-bot`, a re-run of a record) plays a game, so
/// the record's place, the spectators' feed and the in-memory copy are handled once.
pub(crate) async fn play_seated(
    bots: [&mut Bot; 4],
    game: Game,
    cfg: &GameConfig,
    stop: Shutdown,
) -> Result<Outcome, String> {
    let memory = Arc::new(Mutex::new(Vec::new()));
    let path = match &game.record {
        RecordTo::File(path) => Some(path.as_path()),
        RecordTo::Nowhere | RecordTo::Memory => None,
    };
    let mut rec = Recorder::create(path).map_err(|e| e.to_string())?;
    let keep = matches!(game.record, RecordTo::Memory).then(|| Arc::clone(&memory));
    match (keep, game.watch.clone()) {
        (None, None) => {}
        (None, Some(tap)) => rec.set_tap(tap),
        (Some(keep), watch) => rec.set_tap(Tap(Arc::new(move |line: &[u8]| {
            keep.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(line);
            if let Some(Tap(w)) = &watch {
                w(line);
            }
        }))),
    }
    let summary =
        crate::game_runner::run_game_with_decks(bots, &game.setup, cfg, &mut rec, stop, game.decks)
            .await;
    drop(rec);
    let record = matches!(game.record, RecordTo::Memory).then(|| {
        let bytes = std::mem::take(&mut *memory.lock().unwrap_or_else(|e| e.into_inner()));
        String::from_utf8_lossy(&bytes).into_owned()
    });
    Ok(Outcome { summary, record, player_at: game.player_at })
}

/// The players' bots in seat order.
pub(crate) fn seat_bots(bots: &mut [Bot], player_at: [usize; 4]) -> [&mut Bot; 4] {
    let mut slots: Vec<Option<&mut Bot>> = bots.iter_mut().map(Some).collect();
    player_at.map(|p| slots[p].take().expect("each player sits in exactly one seat"))
}
