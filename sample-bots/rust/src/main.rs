//! A heuristic Aluette bot in Rust, fast enough for referee benchmarks: a starting point for bot authors.
//!
//! It speaks the line protocol of `spec/protocol.md` on stdin/stdout, or over TCP with
//! `--connect HOST:PORT --token T`. `--random` turns it into an instant random player.
//! Stdout is the protocol, so nothing but answers may ever be printed there.
#![deny(clippy::print_stdout)]

mod cards;
mod strategy;

use protocol::codec::{decode_line, encode_into};
use protocol::msg::{FromBot, ToBot};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use strategy::Bot;

const USAGE: &str = "usage: aluette-bot [--name NAME] [--random] [--connect HOST:PORT --token T]

  --name NAME          name given in the hello answer (default rust-heuristic)
  --random             play random legal moves (an instant bot for benchmarks)
  --connect HOST:PORT  talk to the referee over TCP instead of stdin/stdout
  --token T            seat token to put in the hello answer (TCP)";

/// The command line.
#[derive(Debug)]
struct Args {
    name: String,
    connect: Option<String>,
    token: Option<String>,
    random: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args =
        Args { name: "rust-heuristic".into(), connect: None, token: None, random: false };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--name" => args.name = value()?,
            "--connect" => args.connect = Some(value()?),
            "--token" => args.token = Some(value()?),
            "--random" => args.random = true,
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(args)
}

/// How the conversation ended.
enum End {
    /// `bye` or end of input: a normal end.
    Done,
    /// The referee speaks a protocol version we do not.
    WrongProtocol(u32),
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("aluette-bot: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match &args.connect {
        Some(addr) => TcpStream::connect(addr).and_then(|stream| {
            // One small line per answer: do not let Nagle hold it back.
            stream.set_nodelay(true)?;
            let reader = BufReader::new(stream.try_clone()?);
            run(&args, reader, BufWriter::new(stream))
        }),
        None => {
            let stdout = io::stdout();
            run(&args, BufReader::new(io::stdin().lock()), BufWriter::new(stdout.lock()))
        }
    };
    match result {
        Ok(End::Done) => ExitCode::SUCCESS,
        Ok(End::WrongProtocol(v)) => {
            eprintln!("aluette-bot: the referee speaks protocol {v}; this bot speaks protocol 1");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("aluette-bot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The conversation: read a message, answer the questions, until `bye` or end of input.
fn run(args: &Args, mut input: impl BufRead, mut output: impl Write) -> io::Result<End> {
    let mut bot = Bot::new(args.random);
    let mut line = Vec::with_capacity(1024);
    let mut out = Vec::with_capacity(256);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(End::Done);
        }
        let msg = match decode_line::<ToBot>(&line) {
            Ok(msg) => msg,
            Err(e) => {
                eprintln!("aluette-bot: ignoring a line: {e}");
                continue;
            }
        };
        let answer = match msg {
            ToBot::Hello { id, protocol, features, .. } => {
                if protocol != protocol::PROTOCOL_VERSION {
                    return Ok(End::WrongProtocol(protocol));
                }
                bot.on_hello(&features);
                Some(FromBot::Hello {
                    id,
                    name: args.name.clone(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    protocol: Some(protocol::PROTOCOL_VERSION),
                    author: Some("aluette sample bots".to_owned()),
                    token: args.token.clone(),
                })
            }
            ToBot::Game { game, seat, partner, rules, .. } => {
                bot.on_game(game, seat, partner, &rules.signals, &rules.chant_second);
                None
            }
            ToBot::Deal { .. } => {
                bot.on_deal();
                None
            }
            ToBot::Opening { id, dealer, vote, hand, .. } => {
                let accept = vote.then(|| bot.vote(dealer, &hand));
                Some(FromBot::Opening { id, accept, signals: bot.opening_signals(&hand) })
            }
            ToBot::Discard { id, hand, received, rule, .. } => {
                let (cards, signals) = bot.discard(&hand, &received, rule == "keep-highest");
                Some(FromBot::Discard { id, cards, signals })
            }
            ToBot::Play { id, hand, table, .. } => match bot.play(&hand, &table) {
                Some(card) => Some(FromBot::Play { id, card, signals: Vec::new() }),
                None => {
                    eprintln!("aluette-bot: asked to play (id {id}) with an empty hand");
                    None
                }
            },
            ToBot::Played { card, .. } => {
                bot.on_played(card);
                None
            }
            ToBot::Signal { from, signal } => {
                bot.on_signal(from, &signal);
                None
            }
            ToBot::Error { id, fault, message, action } => {
                eprintln!("aluette-bot: referee error (id {id:?}, {fault}): {message}; {action}");
                None
            }
            ToBot::Bye { .. } => return Ok(End::Done),
            ToBot::Vote { .. }
            | ToBot::Chant { .. }
            | ToBot::Trick { .. }
            | ToBot::DealOver { .. }
            | ToBot::GameOver { .. }
            | ToBot::Unknown => None,
        };
        if let Some(answer) = answer {
            out.clear();
            encode_into(&answer, &mut out);
            output.write_all(&out)?;
            output.flush()?;
        }
    }
}
