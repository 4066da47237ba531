//! What sits at a library table: a [`Seat`] says how its bot is reached (a program, a built-in
//! bot, a bot that listens, a connection the caller accepted, any byte stream, an in-process
//! [`Player`]); a [`Connection`] is a network bot already greeted, whose hello (and token) the
//! caller reads before it chooses a table for it.

use super::{Config, Player};
use crate::bot::link;
use crate::bot::{Bot, BotSpec, ConnectConfig};
use std::path::Path;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// How one seat's bot is reached. Seats are started when a [`super::Table`] opens, all four
/// at once.
pub struct Seat(Kind);

enum Kind {
    /// A program, a built-in bot, or a bot that listens: started (again) by the referee.
    Spec(BotSpec),
    Player(String, Box<dyn Player>),
    /// A byte stream to greet: a TCP connection or whatever the caller adapts.
    Stream(link::Reader, link::Writer, Option<link::Socket>),
    /// A bot already started and greeted.
    Ready(Box<Bot>),
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Kind::Spec(spec) => write!(f, "Seat({:?})", spec.describe()),
            Kind::Player(name, _) => write!(f, "Seat(player {name:?})"),
            Kind::Stream(..) => f.write_str("Seat(stream)"),
            Kind::Ready(bot) => write!(f, "Seat(connected {:?})", bot.identity.name),
        }
    }
}

impl Seat {
    /// The words `referee match` takes for a seat: a command line (`python3 bot.py`),
    /// `builtin:NAME` (heuristic, random, search) or `tcp://HOST:PORT` (a bot that listens).
    /// A seat that waits for its bot to connect (`tcp`, `human`) is the caller's to fill: accept
    /// the connection and give it as [`Seat::tcp`] or [`Seat::stream`].
    pub fn parse(text: &str) -> Result<Seat, String> {
        match BotSpec::parse(text)? {
            BotSpec::TcpSeat { .. } | BotSpec::Human { .. } => Err(format!(
                "{text:?} waits for a bot to connect: accept it yourself and give the \
                 connection as Seat::tcp or Seat::stream"
            )),
            spec => Ok(Seat(Kind::Spec(spec))),
        }
    }

    /// A program, from its words (`["python3", "bot.py"]`): started in a process group of its
    /// own, killed with it when the table is done.
    pub fn program<I, S>(argv: I) -> Seat
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let argv: Vec<String> = argv.into_iter().map(Into::into).collect();
        assert!(!argv.is_empty(), "a program seat needs at least the program's name");
        Seat(Kind::Spec(BotSpec::Command(argv)))
    }

    /// A bot built into the referee: `heuristic`, `random` or `search`.
    pub fn builtin(name: &str) -> Result<Seat, String> {
        Seat::parse(&format!("builtin:{name}"))
    }

    /// A TCP connection the caller accepted: greeted when the table opens.
    pub fn tcp(stream: TcpStream) -> Seat {
        let (r, w, socket) = crate::bot::link::split(stream);
        Seat(Kind::Stream(r, w, Some(socket)))
    }

    /// Any byte stream that carries the protocol's lines (a WebSocket adapted to bytes, a
    /// pipe): greeted when the table opens.
    pub fn stream(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Seat {
        Seat(Kind::Stream(Box::new(reader), Box::new(writer), None))
    }

    /// An in-process player; `name` is what the record calls it until its hello names it.
    pub fn player(name: impl Into<String>, player: impl Player) -> Seat {
        Seat(Kind::Player(name.into(), Box::new(player)))
    }

    /// Starts, connects or greets the seat's bot.
    pub(super) async fn start(self, cfg: &ConnectConfig, logs: Option<&Path>, stem: &str) -> Bot {
        match self.0 {
            Kind::Spec(spec) => Bot::connect(spec, cfg, logs, stem, None).await,
            Kind::Player(name, player) => Bot::in_process(name, player, cfg).await,
            Kind::Stream(r, w, fd) => greet(r, w, fd, cfg).await,
            Kind::Ready(bot) => *bot,
        }
    }
}

impl From<Connection> for Seat {
    fn from(c: Connection) -> Seat {
        Seat(Kind::Ready(Box::new(c.bot)))
    }
}

/// A network seat the caller accepted: a connection that ends is `disconnected`; the token it
/// names is a credential, which records never show.
async fn greet(
    r: link::Reader,
    w: link::Writer,
    socket: Option<link::Socket>,
    cfg: &ConnectConfig,
) -> Bot {
    let spec = BotSpec::Accepted;
    let mut bot = Bot::attach(spec, r, w, cfg).await;
    if let Some(socket) = socket {
        bot.watch_socket(socket);
    }
    bot
}

/// A bot that connected and answered its hello (or failed to): the caller reads who it says it
/// is, and its token, before it gives it a seat with `Seat::from`.
#[derive(Debug)]
pub struct Connection {
    bot: Bot,
}

impl Connection {
    /// Greets the bot at the other end of `stream` under `config`'s handshake limit. A bot that
    /// does not answer in time, or answers wrongly, is returned refused ([`Connection::refused`]).
    /// Nothing here caps how many connections a caller accepts: for strangers, a
    /// [`Door`](super::Door) is the way in (its pending handshakes capped in all and per
    /// address, wrong tokens slowed down).
    pub async fn accept(stream: TcpStream, config: &Config) -> Connection {
        let Seat(Kind::Stream(r, w, fd)) = Seat::tcp(stream) else { unreachable!() };
        Connection { bot: greet(r, w, fd, &config.connect).await }
    }

    pub(crate) fn of(bot: Bot) -> Connection {
        Connection { bot }
    }

    /// The name its hello gave.
    pub fn name(&self) -> &str {
        &self.bot.identity.name
    }

    /// The version its hello gave.
    pub fn version(&self) -> &str {
        &self.bot.identity.version
    }

    /// The token its hello gave, if any.
    pub fn token(&self) -> Option<&str> {
        self.bot.identity.token.as_deref()
    }

    /// Why it cannot play (a refused handshake, a closed connection), if it cannot.
    pub fn refused(&self) -> Option<String> {
        self.bot.dead().map(|f| format!("{}: {}", f.kind.as_str(), f.detail))
    }

    /// False once the bot cannot play: its connection ended, or its handshake failed. A closed
    /// connection is noticed here even between games, when no question is open.
    pub async fn is_alive(&mut self) -> bool {
        self.bot.drop_if_closed().await;
        self.bot.is_alive()
    }

    /// Says `bye` with `reason` and closes the connection.
    pub async fn close(self, reason: &str) {
        self.bot.close(reason, crate::bot::BYE_GRACE).await;
    }
}
