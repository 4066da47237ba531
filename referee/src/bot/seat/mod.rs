//! A seat's bot across the games of a match or a tournament: filling the seat before its first
//! game (one seat, or a match's four at once) and bringing its bot back between games, written
//! once for `match` and `tournament`; a seat a connecting bot or a page fills takes it here too.
//! What a seat's bot is dead of, and which faults the next game must record, stay inside
//! [`Bot`]; this module and the game runner only use its methods.

pub(crate) mod preflight;

use crate::bot::lobby::Lobby;
use crate::bot::{Bot, BotSpec, ConnectConfig};
use crate::fault::Fault;
use crate::shutdown::Shutdown;
use protocol::record::FaultKind;
use std::path::Path;
use std::time::Duration;

/// What filling any seat of a match or tournament takes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place<'a> {
    pub(crate) connect: &'a ConnectConfig,
    /// Where bots' stderr logs go (the records folder), if anywhere.
    pub(crate) stderr_dir: Option<&'a Path>,
    /// Where bots that connect to the referee wait for their seats.
    pub(crate) lobby: Option<&'a Lobby>,
    /// How long a seat whose bot connects waits for it before the first game.
    pub(crate) connect_wait: Duration,
    /// Ends every wait for a bot at the first Ctrl-C or SIGTERM: no game will start.
    pub(crate) stop: &'a Shutdown,
}

impl Place<'_> {
    /// `wait`, cut short when a stop begins: `None` then.
    pub(crate) async fn unless_stopped<T>(&self, wait: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            out = wait => Some(out),
            () = self.stop.stopping() => None,
        }
    }
}

/// Fills a seat for its first game: its program is started, or the bot that listens is reached,
/// or the bot that connected with the seat's token is taken from the lobby (waiting at most
/// `wait` for it). `stem` names its stderr log; `cpu` pins its process. A bot that cannot play
/// is returned dead, its fault kept for the first game's record.
pub(crate) async fn fill(
    spec: BotSpec,
    place: &Place<'_>,
    stem: &str,
    cpu: Option<usize>,
    wait: Duration,
) -> Bot {
    let mut bot = Bot::connect(spec, place.connect, place.stderr_dir, stem, cpu).await;
    take_from_lobby(&mut bot, place, wait).await;
    bot
}

/// Fills a match's four seats at once (the programs' handshakes overlap, TCP seats wait for
/// their bots); `stem` names each player's stderr log.
pub(crate) async fn fill_all(
    players: &[BotSpec; 4],
    place: &Place<'_>,
    stem: impl Fn(usize) -> String,
) -> Vec<Bot> {
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
    let stem = &stem;
    let connect = |spec: BotSpec, p: usize| async move {
        Bot::connect(spec, place.connect, place.stderr_dir, &stem(p), None).await
    };
    let (a, b, c, d, ()) =
        tokio::join!(connect(a, 0), connect(b, 1), connect(c, 2), connect(d, 3), ready);
    let mut bots = vec![a, b, c, d];
    for bot in bots.iter_mut() {
        take_from_lobby(bot, place, Duration::ZERO).await;
    }
    bots
}

/// A TCP seat takes the bot that connected with its token, waiting at most `wait`; a seat still
/// empty then is recorded by its first game as not started. Other seats are left as they are.
pub(crate) async fn take_from_lobby(bot: &mut Bot, place: &Place<'_>, wait: Duration) {
    let (BotSpec::TcpSeat { token }, Some(lobby)) = (&bot.spec, place.lobby) else { return };
    let token = token.clone();
    let arrived = place.unless_stopped(lobby.take(&token, wait)).await.flatten();
    // The token is a credential: records never name it.
    let ms = place.connect_wait.as_millis();
    seat_arrival(bot, arrived, || {
        format!("no bot connected with this seat's token within {ms} ms")
    });
}

/// A seat that waited for its bot to come (a TCP bot from the lobby, a person's page) takes the
/// one that `arrived`; without one, its first game records it as not started, `why_not`.
pub(crate) fn seat_arrival(bot: &mut Bot, arrived: Option<Bot>, why_not: impl FnOnce() -> String) {
    match arrived {
        Some(arrived) => bot.replace_with(arrived),
        None => bot.set_unavailable(Fault::new(FaultKind::NoStart, why_not()), true),
    }
}

/// Between games: a TCP bot whose connection closed since its last question is marked gone and
/// gets a handshake's time to come back, once; a bot that is not alive is started again (a
/// program, a bot that listens) or, on a TCP seat, replaced by one that reconnected with its
/// token, if one did. A bot that stays dead is recorded so by the next game.
pub(crate) async fn revive(bot: &mut Bot, place: &Place<'_>, stem: &str, cpu: Option<usize>) {
    let wait = if bot.drop_if_closed().await { place.connect.handshake } else { Duration::ZERO };
    if bot.is_alive() {
        return;
    }
    match (&bot.spec, place.lobby) {
        (BotSpec::TcpSeat { token }, Some(lobby)) => {
            let token = token.clone();
            if let Some(arrived) = place.unless_stopped(lobby.take(&token, wait)).await.flatten() {
                bot.replace_with(arrived);
            }
        }
        _ => bot.start(place.connect, place.stderr_dir, stem, cpu).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::players::builtin::Builtin;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn connect_config() -> ConnectConfig {
        ConnectConfig {
            cpu_time: false,
            resume_grace: Duration::ZERO,
            pre_lead_rounds: true,
            handshake: Duration::from_secs(5),
            max_line: 4096,
            stderr_cap: 0,
            limits: Default::default(),
        }
    }

    const TOKEN: &str = "s3cr3t-token";

    async fn lobby(connect: &ConnectConfig) -> Lobby {
        Lobby::bind("127.0.0.1:0", &[TOKEN.to_string()], connect.clone(), 8, 8).await.unwrap()
    }

    fn place<'a>(
        connect: &'a ConnectConfig,
        lobby: Option<&'a Lobby>,
        stop: &'a Shutdown,
    ) -> Place<'a> {
        Place { connect, stderr_dir: None, lobby, connect_wait: Duration::from_millis(50), stop }
    }

    /// A bot that connects with the seat's token and answers its hello; its connection.
    async fn tcp_bot(addr: std::net::SocketAddr) -> BufReader<tokio::net::TcpStream> {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut stream = BufReader::new(stream);
        let mut hello = String::new();
        stream.read_line(&mut hello).await.unwrap();
        assert!(hello.starts_with(r#"{"type":"hello","id":1,"#), "{hello}");
        let answer = format!(
            "{{\"type\":\"hello\",\"id\":1,\"name\":\"tcp-bot\",\"version\":\"1\",\"token\":\"{TOKEN}\"}}\n"
        );
        stream.get_mut().write_all(answer.as_bytes()).await.unwrap();
        stream
    }

    /// A TCP seat nobody took is dead of `no_start` for the first game's record, which never
    /// names the seat's token (a credential; the tournament's text used to).
    #[tokio::test]
    async fn a_tcp_seat_nobody_takes_is_recorded_once_without_its_token() {
        let connect = connect_config();
        let stop = Shutdown::never();
        let lobby = lobby(&connect).await;
        let spec = BotSpec::TcpSeat { token: TOKEN.into() };
        let mut bot =
            fill(spec, &place(&connect, Some(&lobby), &stop), "seat", None, Duration::ZERO).await;
        assert!(!bot.is_alive());
        let expected =
            Fault::new(FaultKind::NoStart, "no bot connected with this seat's token within 50 ms");
        assert_eq!(bot.dead(), Some(&expected));
        assert_eq!(bot.take_pending_faults(), std::slice::from_ref(&expected));
        assert!(bot.take_pending_faults().is_empty(), "a fault is recorded by one game only");
        assert_eq!(bot.dead(), Some(&expected), "the seat stays empty");
    }

    #[tokio::test]
    async fn a_tcp_seat_takes_the_bot_that_connected_and_gets_it_back_after_a_drop() {
        let connect = connect_config();
        let stop = Shutdown::never();
        let lobby = lobby(&connect).await;
        let place = place(&connect, Some(&lobby), &stop);
        let client = tokio::spawn(tcp_bot(lobby.addr()));
        let spec = BotSpec::TcpSeat { token: TOKEN.into() };
        let mut bot = fill(spec, &place, "seat", None, Duration::from_secs(10)).await;
        assert!(bot.is_alive(), "{:?}", bot.dead());
        assert_eq!(bot.identity.name, "tcp-bot");
        assert!(bot.take_pending_faults().is_empty());
        // The bot drops between games (its close given time to reach the referee's socket)
        // and connects again: the seat waits for it and takes the new connection.
        drop(client.await.unwrap());
        tokio::time::sleep(Duration::from_millis(200)).await;
        let again = tokio::spawn(tcp_bot(lobby.addr()));
        revive(&mut bot, &place, "seat", None).await;
        assert!(bot.is_alive(), "{:?}", bot.dead());
        let mut again = again.await.unwrap();
        bot.notify(&protocol::ToBot::Bye { reason: "over".into() });
        bot.flush(Duration::from_secs(5)).await;
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(10), again.read_line(&mut line));
        assert!(read.await.is_ok(), "the seat's bot is not the one that came back");
        assert_eq!(line, "{\"type\":\"bye\",\"reason\":\"over\"}\n");
    }

    #[tokio::test]
    async fn a_program_that_ended_is_started_again_and_a_live_one_left_alone() {
        let connect = connect_config();
        let stop = Shutdown::never();
        let place = place(&connect, None, &stop);
        let spec = BotSpec::Builtin(Builtin::Random);
        let mut bot = fill(spec, &place, "seat", None, Duration::ZERO).await;
        assert!(bot.is_alive());
        assert_eq!(bot.next_id(), 2, "its hello was question 1");
        revive(&mut bot, &place, "seat", None).await;
        assert_eq!(bot.next_id(), 2, "a live bot is not started again");
        bot.stop("replaced").await;
        assert!(!bot.is_alive());
        revive(&mut bot, &place, "seat", None).await;
        assert!(bot.is_alive(), "{:?}", bot.dead());
        assert_eq!(bot.next_id(), 2, "a fresh start, with a fresh handshake");
    }
}
