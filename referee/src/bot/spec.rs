//! How a seat's bot is reached (`BotSpec`): a program, a built-in bot, a bot over TCP or a
//! person's page, parsed from the command line or a tournament config, and what the record and
//! the lobby call it.

use super::players::builtin::Builtin;
use super::process::shell;

/// How a seat's bot is reached, as given on the command line or in a tournament config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BotSpec {
    /// A program, split into words.
    Command(Vec<String>),
    /// A bot built into the referee.
    Builtin(Builtin),
    /// A bot that connects to the referee's listener and names this token in its hello.
    TcpSeat {
        /// The seat's token.
        token: String,
    },
    /// A bot that listens at this address; the referee connects to it.
    TcpConnect(String),
    /// A person, whose page in a browser claims the seat with this token over the referee's
    /// web server (`web`); to the referee a byte stream like any other.
    Human {
        /// The seat's token, in the page's URL.
        token: String,
    },
    /// A library user's own [`Player`](super::players::Player), in the referee's process: it
    /// cannot be started again once it has stopped.
    InProcess {
        /// What the record calls it until its hello names it.
        name: String,
    },
    /// A connection a library user accepted and handed over (`api::Seat::tcp`, `::stream`):
    /// reached over the network, but with no lobby behind it to come back to, so it is neither
    /// offered `resume` nor started again.
    Accepted,
}

impl BotSpec {
    /// Parses `builtin:NAME`, `tcp`, `tcp:TOKEN`, `tcp://HOST:PORT`, `human` or a command line.
    pub(crate) fn parse(text: &str) -> Result<BotSpec, String> {
        // A command line is shown in the account and the log, escaped like every text; a line
        // break or a tab has its uses in one (`python3 -c '...'`), a bidirectional control none
        // but to make it read otherwise than it runs.
        if let Some(c) = text.chars().find(|&c| crate::text::is_bidi_control(c)) {
            return Err(format!(
                "the bot command holds the bidirectional control U+{:04X}, which makes it read \
                 otherwise than it runs",
                c as u32
            ));
        }
        if text == "human" {
            return Ok(BotSpec::Human { token: crate::entropy::token() });
        }
        if let Some(addr) = text.strip_prefix("tcp://") {
            if addr.is_empty() || !addr.contains(':') {
                return Err(format!("{text:?}: a bot that listens is given as tcp://HOST:PORT"));
            }
            return Ok(BotSpec::TcpConnect(addr.to_string()));
        }
        if text == "tcp" {
            return Ok(BotSpec::TcpSeat { token: crate::entropy::token() });
        }
        if let Some(token) = text.strip_prefix("tcp:") {
            if token.is_empty() || token.len() > 128 || !token.chars().all(|c| c.is_ascii_graphic())
            {
                return Err(format!(
                    "{text:?}: a seat token is 1 to 128 printable ASCII characters"
                ));
            }
            return Ok(BotSpec::TcpSeat { token: token.to_string() });
        }
        if let Some(name) = text.strip_prefix("builtin:") {
            return Builtin::parse(name).map(BotSpec::Builtin).ok_or_else(|| {
                format!("no built-in bot {name:?} (there are: heuristic, random, search)")
            });
        }
        shell::split(text).map(BotSpec::Command).map_err(|e| format!("bot command {text:?}: {e}"))
    }

    /// The words stored in records.
    pub(crate) fn describe(&self) -> Vec<String> {
        match self {
            BotSpec::Command(argv) => argv.clone(),
            BotSpec::Builtin(b) => {
                vec![format!("builtin:{}", b.name().trim_start_matches("builtin-"))]
            }
            // The token is a credential: records name the seat kind, never the token.
            BotSpec::TcpSeat { .. } => vec!["tcp".into()],
            BotSpec::TcpConnect(addr) => vec![format!("tcp://{addr}")],
            BotSpec::Human { .. } => vec!["human".into()],
            BotSpec::InProcess { name } => vec!["in-process".into(), name.clone()],
            BotSpec::Accepted => vec!["accepted".into()],
        }
    }

    /// True for bots reached over the network (a person's page too): a connection that ends is
    /// `disconnected`, and no process is there to start.
    pub(crate) fn is_tcp(&self) -> bool {
        matches!(
            self,
            BotSpec::TcpSeat { .. }
                | BotSpec::TcpConnect(_)
                | BotSpec::Human { .. }
                | BotSpec::Accepted
        )
    }

    /// The token of a seat that waits in the lobby for its bot (`tcp`, `tcp:TOKEN`).
    pub(crate) fn lobby_token(&self) -> Option<&str> {
        match self {
            BotSpec::TcpSeat { token } => Some(token),
            _ => None,
        }
    }

    /// The token of a person's seat, in its page's address.
    pub(crate) fn page_token(&self) -> Option<&str> {
        match self {
            BotSpec::Human { token } => Some(token),
            _ => None,
        }
    }

    /// A short name before the handshake tells the real one.
    pub(crate) fn short_name(&self) -> String {
        match self {
            // The script a interpreter runs (`python3 bots/mine.py --level 2` is "mine.py"),
            // else the program itself.
            BotSpec::Command(argv) => {
                let file = argv[1..]
                    .iter()
                    .find(|w| !w.starts_with('-') && (w.contains('.') || w.contains('/')));
                let word = file.unwrap_or(&argv[0]);
                word.rsplit('/').next().unwrap_or(word).to_string()
            }
            BotSpec::Builtin(b) => b.name().to_string(),
            BotSpec::TcpSeat { .. } => "tcp-seat".into(),
            BotSpec::TcpConnect(addr) => format!("tcp://{addr}"),
            BotSpec::Human { .. } => "human".into(),
            BotSpec::InProcess { name } => name.clone(),
            BotSpec::Accepted => "accepted".into(),
        }
    }
}
