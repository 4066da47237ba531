//! A heuristic Aluette bot in Rust, fast enough for referee benchmarks: a starting point for bot authors.
//!
//! It speaks the line protocol of `spec/protocol.md` on stdin/stdout, or over TCP with
//! `--connect HOST:PORT --token T`. `--random` turns it into an instant random player, and
//! `--search` into the search bot of the `aluette-search` crate (search_glue.rs).
//! Stdout is the protocol, so nothing but answers may ever be printed there.
#![deny(clippy::print_stdout)]

mod cards;
mod search_glue;
mod strategy;

use protocol::codec::{decode_line, encode_into};
use protocol::msg::{FromBot, ToBot};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use strategy::Bot;

const USAGE: &str =
    "usage: aluette-bot [--name NAME] [--random | --search [--seed S] [--samples N] [--think F]]
                   [--connect HOST:PORT --token T]

  --name NAME          name given in the hello answer (default rust-heuristic, or rust-search)
  --random             play random legal moves (an instant bot for benchmarks)
  --search             search each decision by determinized Monte-Carlo (the yardstick bot)
  --seed S             the search's seed (default 0)
  --samples N          exactly N samples per decision, whatever the clock: same seed, same answers
  --think F            share of each answer's time to spend, F x (time_ms + bank_ms / 10),
                       at most half of time_ms (default 0.005)
  --connect HOST:PORT  talk to the referee over TCP instead of stdin/stdout
  --token T            seat token to put in the hello answer (TCP)";

/// The command line.
#[derive(Debug)]
struct Args {
    name: String,
    connect: Option<String>,
    token: Option<String>,
    random: bool,
    /// `Some`: play by search with these settings.
    search: Option<search::Settings>,
}

fn parse_args() -> Result<Args, String> {
    let mut args =
        Args { name: String::new(), connect: None, token: None, random: false, search: None };
    let mut settings = search::Settings::default();
    let (mut search, mut tuned) = (false, false);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--name" => args.name = value()?,
            "--connect" => args.connect = Some(value()?),
            "--token" => args.token = Some(value()?),
            "--random" => args.random = true,
            "--search" => search = true,
            "--seed" => settings.seed = number(&flag, &value()?)?,
            "--samples" => settings.samples = Some(number(&flag, &value()?)?),
            "--think" => settings.think = number(&flag, &value()?)?,
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument {flag}")),
        }
        tuned |= matches!(flag.as_str(), "--seed" | "--samples" | "--think");
    }
    if tuned && !search {
        return Err("--seed, --samples and --think go with --search".into());
    }
    if search && args.random {
        return Err("--random and --search exclude each other".into());
    }
    if !(settings.think > 0.0 && settings.think <= 1.0) || settings.samples == Some(0) {
        return Err("--think takes a share in (0, 1] and --samples at least 1".into());
    }
    if args.name.is_empty() {
        args.name = if search { "rust-search" } else { "rust-heuristic" }.into();
    }
    args.search = search.then_some(settings);
    Ok(args)
}

/// A flag's number.
fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{flag}: not a number: {text:?}"))
}

/// How the conversation ended.
enum End {
    /// `bye` or end of input: a normal end.
    Done,
    /// The referee speaks a protocol version we do not.
    WrongProtocol(u32),
    /// Over TCP, the conversation ended before the first game: the referee refused this bot
    /// (a wrong token, a seat already taken, a full lobby); its reason, when it gave one.
    Refused(Option<String>),
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
            run(&args, reader, BufWriter::new(stream), true)
        }),
        None => {
            let stdout = io::stdout();
            let input = BufReader::new(io::stdin().lock());
            run(&args, input, BufWriter::new(stdout.lock()), false)
        }
    };
    match result {
        Ok(End::Done) => ExitCode::SUCCESS,
        Ok(End::WrongProtocol(v)) => {
            eprintln!("aluette-bot: the referee speaks protocol {v}; this bot speaks protocol 1");
            ExitCode::FAILURE
        }
        Ok(End::Refused(Some(reason))) => {
            eprintln!("aluette-bot: the referee refused this bot: {reason}");
            ExitCode::FAILURE
        }
        Ok(End::Refused(None)) => {
            eprintln!("aluette-bot: the referee closed the connection before the first game");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("aluette-bot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `type` of a line that starts as the referee writes it, `{"type":"played",...`, found
/// without parsing the line, so that the many notices the bot does not need cost next to nothing.
/// `None` when the line starts any other way (spacing, key order, escapes): the caller then
/// parses it in full, which gives the same answer, only slower.
fn quick_type(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(br#"{"type":""#)?;
    let kind = &rest[..rest.iter().position(|&b| b == b'"')?];
    kind.iter().all(|&b| b.is_ascii_lowercase() || b == b'_').then_some(kind)
}

/// The conversation: read a message, answer the questions, until `bye` or end of input. `tcp`:
/// the bot connected to a referee's lobby, so an end before the first game is a refusal.
fn run(args: &Args, mut input: impl BufRead, mut output: impl Write, tcp: bool) -> io::Result<End> {
    let mut bot = Bot::new(args.random);
    let mut searcher = args.search.map(search_glue::Searcher::new);
    let mut seated = !tcp;
    let mut line = Vec::with_capacity(1024);
    let mut out = Vec::with_capacity(256);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(if seated { End::Done } else { End::Refused(None) });
        }
        let asked = std::time::Instant::now();
        if searcher.is_none() && quick_type(&line).is_some_and(|kind| !bot.needs(kind)) {
            continue;
        }
        let msg = match decode_line::<ToBot>(&line) {
            Ok(msg) => msg,
            Err(e) => {
                eprintln!("aluette-bot: ignoring a line: {e}");
                continue;
            }
        };
        if let Some(searcher) = &mut searcher
            && let Some(answer) = searcher.answer(&msg, asked)
        {
            seated = true;
            out.clear();
            encode_into(&answer, &mut out);
            output.write_all(&out)?;
            output.flush()?;
            continue;
        }
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
                    features: bot.features(),
                })
            }
            ToBot::Game { game, seat, partner, rules, .. } => {
                seated = true;
                bot.on_game(
                    game,
                    seat,
                    partner,
                    rules.signals.as_str(),
                    rules.chant_second.as_str(),
                );
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
                let (cards, signals) = bot.discard(
                    &hand,
                    &received,
                    rule == protocol::options::DiscardRule::KeepHighest,
                );
                Some(FromBot::Discard { id, cards, signals })
            }
            ToBot::Play { id, hand, table, .. } => match bot.play(&hand, &table) {
                Some(card) => Some(FromBot::Play { id, card, signals: Vec::new() }),
                None => {
                    eprintln!("aluette-bot: asked to play (id {id}) with an empty hand");
                    None
                }
            },
            ToBot::Offer { id, hand, .. } => {
                Some(FromBot::Offer { id, offer: bot.offer(&hand), signals: Vec::new() })
            }
            ToBot::Reply { id, hand, .. } => {
                Some(FromBot::Reply { id, accept: bot.accept(&hand), signals: Vec::new() })
            }
            ToBot::Announce { id, hand, .. } => {
                Some(FromBot::Announce { id, announce: bot.announce(&hand), signals: Vec::new() })
            }
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
            ToBot::Bye { reason } if !seated => return Ok(End::Refused(Some(reason))),
            ToBot::Bye { .. } => return Ok(End::Done),
            ToBot::Vote { .. }
            | ToBot::Chant { .. }
            | ToBot::Trick { .. }
            | ToBot::DealOver { .. }
            | ToBot::GameOver { .. }
            | ToBot::Offered { .. }
            | ToBot::Replied { .. }
            | ToBot::Announced { .. }
            // It lists no `resume`, so it is never sent one.
            | ToBot::Resume { .. }
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

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::codec::encode_line;
    use protocol::msg::{Clock, TableCard};
    use protocol::options as o;
    use protocol::{CardCode, RulesWire};

    #[test]
    fn quick_type_reads_only_the_usual_start() {
        assert_eq!(
            quick_type(br#"{"type":"played","seat":1,"card":"3o","trick":1}"#),
            Some(&b"played"[..])
        );
        assert_eq!(quick_type(br#"{"type":"deal_over","deal":1}"#), Some(&b"deal_over"[..]));
        for unsure in [
            &br#"{ "type":"played"}"#[..],
            br#"{"seat":1,"type":"played"}"#,
            br#"{"type":"pl\u0061y","id":1}"#,
            br#"{"type":"Play"}"#,
            br#"{"type":3}"#,
            br#"{"type":"play"#,
            b"",
        ] {
            assert_eq!(quick_type(unsure), None, "{}", String::from_utf8_lossy(unsure));
        }
    }

    fn cards(codes: &str) -> Vec<CardCode> {
        codes.split_whitespace().map(|c| c.parse().unwrap()).collect()
    }

    /// A short conversation, as the referee writes it.
    fn conversation() -> Vec<ToBot> {
        let rules = RulesWire {
            seating: o::Seating::Given,
            chant: o::OnOff::On,
            chant_second: o::ChantSecond::Dealer,
            discard: o::DiscardRule::Free,
            all_spoiled: o::AllSpoiled::Nothing,
            mordienne: o::Mordienne::On,
            mordienne_run: 2,
            deals: Some(1),
            target: None,
            on_tie: o::OnTie::Draw,
            signals: o::Signals::Public,
            signal_leak: 0.0,
            signal_truth: o::SignalTruth::Truthful,
            surrender: None,
            announce_penalty: None,
        };
        let hand = cards("2o Ab 4b 5s Jo Cc 6b 7s 8c");
        let card = |seat, code: &str| TableCard { seat, card: code.parse().unwrap() };
        vec![
            ToBot::Hello { id: 1, protocol: 1, features: vec!["signals".into()], time_ms: 5000 },
            ToBot::Game {
                game: 7,
                seat: 1,
                partner: 3,
                players: vec!["a".into(), "b".into(), "c".into(), "d".into()],
                rules,
                clock: Clock {
                    handshake_ms: 5000,
                    answer_ms: 1000,
                    bank_ms: 10000,
                    mode: None,
                    wall_cap: None,
                },
            },
            ToBot::Deal { deal: 1, dealer: 0, hand: hand.clone() },
            ToBot::Opening {
                id: 2,
                deal: 1,
                dealer: 0,
                vote: true,
                votes: vec![],
                hand: hand.clone(),
                time_ms: 1000,
                bank_ms: 10000,
            },
            ToBot::Vote { seat: 1, accept: true },
            ToBot::Chant { taken: false },
            // The partner holds the 3c (strength 2)...
            ToBot::Signal { from: 3, signal: "madame".into() },
            ToBot::Play {
                id: 3,
                deal: 1,
                trick: 1,
                leader: 0,
                table: vec![card(0, "4o")],
                hand,
                won: [0; 4],
                score: [0; 2],
                time_ms: 1000,
                bank_ms: 10000,
            },
            ToBot::Played { seat: 1, card: "Jo".parse().unwrap(), trick: 1 },
            // ... and the 3o (strength 1) is gone, so the 2o cannot be beaten any more.
            ToBot::Played { seat: 2, card: "3o".parse().unwrap(), trick: 1 },
            ToBot::Played { seat: 3, card: "5o".parse().unwrap(), trick: 1 },
            ToBot::Trick {
                trick: 1,
                leader: 0,
                cards: vec![card(0, "4o"), card(1, "Jo"), card(2, "3o"), card(3, "5o")],
                winner: Some(2),
                next: 2,
            },
            ToBot::Play {
                id: 4,
                deal: 1,
                trick: 2,
                leader: 0,
                table: vec![card(0, "Kc")],
                hand: cards("2o Ab 4b 5s"),
                won: [0, 0, 1, 0],
                score: [0; 2],
                time_ms: 1000,
                bank_ms: 10000,
            },
            ToBot::Bye { reason: "done".into() },
        ]
    }

    /// The answers of a bot to `lines`.
    fn answers(random: bool, lines: &[String]) -> String {
        let args = Args { name: "t".into(), connect: None, token: None, random, search: None };
        let mut out = Vec::new();
        run(&args, lines.concat().as_bytes(), &mut out, false).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Over TCP, a conversation that ends before the first game is a refusal, with the
    /// referee's reason when it sent a `bye`; after a game, `bye` is the normal end.
    #[test]
    fn an_end_before_the_first_game_over_tcp_is_a_refusal() {
        let args =
            Args { name: "t".into(), connect: None, token: None, random: true, search: None };
        let end = |lines: &[String]| run(&args, lines.concat().as_bytes(), Vec::new(), true);
        let all: Vec<String> = conversation().iter().map(encode_line).collect();
        let bye = encode_line(&ToBot::Bye { reason: "unknown seat token".into() });
        let refused = end(&[all[0].clone(), bye]).unwrap();
        assert!(matches!(refused, End::Refused(Some(r)) if r == "unknown seat token"));
        assert!(matches!(end(&all[..1]).unwrap(), End::Refused(None)));
        assert!(matches!(end(&all).unwrap(), End::Done));
    }

    #[test]
    fn skipping_notices_unread_changes_no_answer() {
        let lines: Vec<String> = conversation().iter().map(encode_line).collect();
        // With a space after `{`, no line passes the quick look: every one is parsed in full.
        let parsed: Vec<String> = lines.iter().map(|l| l.replacen('{', "{ ", 1)).collect();
        for random in [false, true] {
            let got = answers(random, &lines);
            assert_eq!(got.lines().count(), 4, "{got}");
            assert_eq!(got, answers(random, &parsed));
        }
        // The heuristic used the notices: knowing the 3o gone and the 3c with its partner, it
        // wins the trick with its 2o rather than spend its ace.
        let last = answers(false, &lines).lines().last().unwrap().to_owned();
        assert_eq!(last, r#"{"type":"play","id":4,"card":"2o"}"#);
    }
}
