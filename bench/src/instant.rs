//! `aluette-bench --instant-bot`: the cheapest bot that still plays every question legally, so
//! that a table's cost is the referee's and not its bots'. It costs about what the floor's echo
//! child costs: one large read, a byte scan for the line ends, the `type` and the `id`, and one
//! write per answer. Notices are never parsed; no JSON library is involved.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// What the bot answers to a question (the rest of the answer is the protocol's).
const NAME: &str = "instant";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Strength levels (1 strongest .. 19 weakest) by rank `A 2 3 4 5 6 7 8 9 J C K` and suit
/// `o c s b`: the table of spec/rules.md section 1, which a keep-highest discard must respect.
const LEVEL: [[u8; 4]; 12] = [
    [9, 9, 9, 9],     // A
    [3, 4, 8, 7],     // 2: le Borgne, la Vache, deux d'écrit, deux de chêne
    [1, 2, 19, 19],   // 3: Monsieur, Madame
    [18, 18, 18, 18], // 4
    [17, 17, 17, 17], // 5
    [16, 16, 16, 16], // 6
    [15, 15, 15, 15], // 7
    [14, 14, 14, 14], // 8
    [6, 5, 13, 13],   // 9: petit-neuf, grand-neuf
    [12, 12, 12, 12], // J
    [11, 11, 11, 11], // C
    [10, 10, 10, 10], // K
];

/// The level of a two-character card code, `None` for anything else.
fn level(code: &[u8]) -> Option<u8> {
    let [rank, suit] = code else { return None };
    let r = b"A23456789JCK".iter().position(|c| c == rank)?;
    let s = b"ocsb".iter().position(|c| c == suit)?;
    Some(LEVEL[r][s])
}

/// The child side: `args` are what follows `--instant-bot`.
pub(crate) fn main(args: &[String]) -> Result<(), String> {
    let (mut connect, mut token, mut burn) = (None, None, Duration::ZERO);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--connect" => connect = Some(value?.clone()),
            "--token" => token = Some(value?.clone()),
            "--burn-us" => {
                let us = value?.parse().map_err(|_| format!("{flag} needs microseconds"))?;
                burn = Duration::from_micros(us);
            }
            _ => {
                return Err(format!(
                    "unknown argument {flag} (--connect HOST:PORT --token T --burn-us US)"
                ));
            }
        }
    }
    let bot = Bot { token: token.as_deref(), burn };
    match connect {
        None => serve(io::stdin().lock(), io::stdout().lock(), bot),
        Some(addr) => {
            let stream = TcpStream::connect(&addr).map_err(|e| format!("connect {addr}: {e}"))?;
            // Answers are single small writes that must leave at once (spec/protocol.md 8.3).
            stream.set_nodelay(true).map_err(|e| format!("{addr}: {e}"))?;
            serve(&stream, &stream, bot)
        }
    }
}

/// How the bot answers.
#[derive(Clone, Copy, Debug)]
struct Bot<'a> {
    /// The seat token for its `hello`, over TCP.
    token: Option<&'a str>,
    /// CPU time spent before each answer but `hello`'s (`--burn-us`): a bot that thinks a fixed
    /// amount, for the CPU clock's benchmark.
    burn: Duration,
}

/// Spends `amount` of this thread's CPU time in a busy loop: its own clock, so time the
/// scheduler gives to others does not count.
fn burn(amount: Duration) {
    use nix::time::{ClockId, clock_gettime};
    let now = || clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map(Duration::from);
    let Ok(start) = now() else { return };
    while now().is_ok_and(|t| t - start < amount) {}
}

/// What one line from the referee calls for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// `answer` holds one complete line to write.
    Answer,
    /// A notice, or a message type this bot does not know: nothing to say.
    Quiet,
    /// `bye`: the conversation is over.
    Bye,
}

/// Reads lines from `input` and answers each question with one write to `output` until `bye`
/// or the end of input.
fn serve(mut input: impl Read, mut output: impl Write, bot: Bot<'_>) -> Result<(), String> {
    // Larger than a whole batch of notices plus a question: one read usually takes all of it.
    let mut buf = vec![0u8; 64 * 1024];
    let (mut start, mut end) = (0, 0);
    let mut answer = Vec::with_capacity(256);
    loop {
        while let Some(nl) = find_newline(&buf[start..end]) {
            let line = &buf[start..start + nl];
            start += nl + 1;
            match respond(line, bot.token, &mut answer)? {
                Reply::Answer => {
                    if !bot.burn.is_zero() && !answer.starts_with(b"{\"type\":\"hello\"") {
                        burn(bot.burn);
                    }
                    output
                        .write_all(&answer)
                        .and_then(|()| output.flush())
                        .map_err(|e| format!("write: {e}"))?;
                }
                Reply::Quiet => {}
                Reply::Bye => return Ok(()),
            }
        }
        if start == end {
            (start, end) = (0, 0);
        } else if buf.len() - end < 4096 {
            // A partial line near the end: move it to the front, or grow for a very long one
            // (the referee's lines are at most 64 KiB).
            if start > 0 {
                buf.copy_within(start..end, 0);
                (start, end) = (0, end - start);
            } else {
                buf.resize(buf.len() * 2, 0);
            }
        }
        match input.read(&mut buf[end..]) {
            Ok(0) => return Ok(()),
            Ok(n) => end += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // The referee closing a TCP connection after `bye` may reset it: also an end.
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(()),
            Err(e) => return Err(format!("read: {e}")),
        }
    }
}

/// The position of the first `\n`, eight bytes at a time: notices are most of the bytes read,
/// and this scan is all the work they cost.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = ONES * b'\n' as u64;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in chunks.by_ref() {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ NL;
        // A zero byte in x is a newline in the chunk (the classic "has zero byte" test).
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            return chunk.iter().position(|&b| b == b'\n').map(|i| at + i);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&b| b == b'\n').map(|i| at + i)
}

/// Where `needle` starts in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The bytes right after `key` (a `"name":` with its quotes and colon), blanks skipped.
fn after<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let rest = &line[find(line, key)? + key.len()..];
    let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    Some(&rest[blanks..])
}

/// A JSON string's contents at the start of `rest` (which starts with its opening quote). The
/// values read here (message types, card codes, rule names) never hold escapes.
fn string_at(rest: &[u8]) -> Option<&[u8]> {
    let body = rest.strip_prefix(b"\"")?;
    Some(&body[..body.iter().position(|&b| b == b'"')?])
}

/// The message type: the referee writes it first, so the common case is a prefix test.
fn message_type(line: &[u8]) -> Option<&[u8]> {
    const FIRST: &[u8] = b"{\"type\":";
    match line.strip_prefix(FIRST) {
        Some(rest) => string_at(rest),
        None => string_at(after(line, b"\"type\":")?),
    }
}

/// Most cards a hand holds (15, after receiving the talon), with room to spare.
const MAX_HAND: usize = 16;

/// The cards of the `hand` list, in the order given, without an allocation: this runs for
/// every `play` question.
fn hand<'a>(line: &'a [u8], cards: &mut [&'a [u8]; MAX_HAND]) -> Option<usize> {
    let rest = after(line, b"\"hand\":")?.strip_prefix(b"[")?;
    let list = &rest[..rest.iter().position(|&b| b == b']')?];
    let mut n = 0;
    let mut i = 0;
    while let Some(q) = list[i..].iter().position(|&b| b == b'"') {
        let card = string_at(&list[i + q..])?;
        *cards.get_mut(n)? = card;
        n += 1;
        i += q + card.len() + 2;
    }
    Some(n)
}

/// Fills `answer` with the line that answers `line`, if it is a question.
pub(crate) fn respond(
    line: &[u8],
    token: Option<&str>,
    answer: &mut Vec<u8>,
) -> Result<Reply, String> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let kind = match message_type(line) {
        Some(k @ (b"hello" | b"opening" | b"discard" | b"play")) => k,
        Some(b"bye") => return Ok(Reply::Bye),
        _ => return Ok(Reply::Quiet),
    };
    let show = || String::from_utf8_lossy(kind).into_owned();
    // The id is echoed as the digits the referee wrote: nothing to convert.
    let id = after(line, b"\"id\":")
        .map(|rest| &rest[..rest.iter().take_while(|b| b.is_ascii_digit()).count()])
        .filter(|digits| !digits.is_empty())
        .ok_or_else(|| format!("{} question without an id", show()))?;
    answer.clear();
    answer.extend_from_slice(b"{\"type\":\"");
    answer.extend_from_slice(kind);
    answer.extend_from_slice(b"\",\"id\":");
    answer.extend_from_slice(id);
    match kind {
        b"hello" => {
            answer.extend_from_slice(
                format!(",\"name\":\"{NAME}\",\"version\":\"{VERSION}\"").as_bytes(),
            );
            if let Some(t) = token {
                answer.extend_from_slice(b",\"token\":");
                answer.extend_from_slice(json_string(t).as_bytes());
            }
        }
        b"opening" => {
            // `accept` exactly when a vote is asked: anything else is a wrong answer.
            if after(line, b"\"vote\":").is_some_and(|v| v.starts_with(b"true")) {
                answer.extend_from_slice(b",\"accept\":true");
            }
        }
        b"discard" => {
            let mut cards: [&[u8]; MAX_HAND] = [&[]; MAX_HAND];
            let n = hand(line, &mut cards).ok_or("discard question without a readable hand")?;
            if n < 6 {
                return Err(format!("discard question with {n} cards in hand"));
            }
            let keep_highest =
                after(line, b"\"rule\":").and_then(string_at).is_some_and(|r| r == b"keep-highest");
            if keep_highest {
                // The six weakest (highest levels) go first: no discarded card beats a kept one.
                let mut keyed: [(u8, &[u8]); MAX_HAND] = [(0, &[]); MAX_HAND];
                for (k, c) in keyed.iter_mut().zip(&cards[..n]) {
                    let l = level(c)
                        .ok_or_else(|| format!("unknown card {:?}", String::from_utf8_lossy(c)))?;
                    *k = (l, c);
                }
                keyed[..n].sort_by_key(|k| std::cmp::Reverse(k.0));
                for (c, k) in cards.iter_mut().zip(&keyed[..n]) {
                    *c = k.1;
                }
            }
            answer.extend_from_slice(b",\"cards\":[");
            for (i, c) in cards[..6].iter().enumerate() {
                if i > 0 {
                    answer.push(b',');
                }
                answer.push(b'"');
                answer.extend_from_slice(c);
                answer.push(b'"');
            }
            answer.push(b']');
        }
        _ => {
            // Aluette has no suit to follow: every card held is legal.
            let mut cards: [&[u8]; MAX_HAND] = [&[]; MAX_HAND];
            let first = match hand(line, &mut cards) {
                Some(n) if n > 0 => cards[0],
                _ => return Err("play question without a card in hand".into()),
            };
            answer.extend_from_slice(b",\"card\":\"");
            answer.extend_from_slice(first);
            answer.push(b'"');
        }
    }
    answer.extend_from_slice(b"}\n");
    Ok(Reply::Answer)
}

/// `s` as a JSON string literal (a token comes from the command line and may hold anything).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str, token: Option<&str>) -> Option<String> {
        let mut out = Vec::new();
        match respond(line.as_bytes(), token, &mut out).unwrap() {
            Reply::Answer => Some(String::from_utf8(out).unwrap()),
            _ => None,
        }
    }

    #[test]
    fn answers_the_spec_examples() {
        let hello = r#"{"type":"hello","id":1,"protocol":1,"features":["signals","persistent"],"time_ms":10000}"#;
        assert_eq!(
            answer(hello, None).unwrap(),
            format!(
                "{{\"type\":\"hello\",\"id\":1,\"name\":\"instant\",\"version\":\"{VERSION}\"}}\n"
            )
        );
        assert!(answer(hello, Some("a\"b")).unwrap().contains(r#","token":"a\"b"}"#));
        let vote = r#"{"type":"opening","id":57,"deal":1,"dealer":1,"vote":true,"votes":[],"hand":["6o","3c"],"time_ms":1000,"bank_ms":5000}"#;
        assert_eq!(
            answer(vote, None).unwrap(),
            "{\"type\":\"opening\",\"id\":57,\"accept\":true}\n"
        );
        let no_vote = r#"{"type":"opening","id":112,"deal":2,"dealer":2,"vote":false,"votes":[{"seat":3,"accept":true}],"hand":["7o"],"time_ms":1000,"bank_ms":5000}"#;
        assert_eq!(answer(no_vote, None).unwrap(), "{\"type\":\"opening\",\"id\":112}\n");
        let play = r#"{"type":"play","id":4,"deal":1,"trick":2,"leader":0,"table":[{"seat":0,"card":"Kb"}],"hand":["Co","5s","Cs"],"won":[1,0,0,0],"score":[0,0],"time_ms":1000,"bank_ms":5000}"#;
        assert_eq!(answer(play, None).unwrap(), "{\"type\":\"play\",\"id\":4,\"card\":\"Co\"}\n");
        for notice in [
            r#"{"type":"played","seat":1,"card":"Ab","trick":2}"#,
            r#"{"type":"vote","seat":1,"accept":true}"#,
            r#"{"type":"tea_time","cup":1}"#,
        ] {
            assert_eq!(answer(notice, None), None);
        }
        let mut out = Vec::new();
        assert_eq!(respond(br#"{"type":"bye","reason":"x"}"#, None, &mut out).unwrap(), Reply::Bye);
    }

    #[test]
    fn keep_highest_discards_the_six_weakest() {
        let line = r#"{"type":"discard","id":58,"deal":1,"hand":["Ao","2o","6o","9o","3c","5c","9c","Cc","Kc","As","3s","8s","3b","8b","Kb"],"received":["Ao","2o","9o","Kc","8s","Kb"],"rule":"keep-highest","time_ms":1000,"bank_ms":5000}"#;
        let got = answer(line, None).unwrap();
        let v: serde_json::Value = serde_json::from_str(&got).unwrap();
        let mut cards: Vec<&str> =
            v["cards"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        cards.sort_unstable();
        // Levels: 3s 3b 19, 5c 17, 6o 16, 8s 8b 14; the weakest card kept, Cc, is at 11.
        assert_eq!(cards, ["3b", "3s", "5c", "6o", "8b", "8s"]);
        let free = line.replace("keep-highest", "free");
        assert!(
            answer(&free, None).unwrap().contains(r#""cards":["Ao","2o","6o","9o","3c","5c"]"#)
        );
    }

    #[test]
    fn levels_follow_the_rules() {
        let all: Vec<String> = "A23456789JCK"
            .chars()
            .flat_map(|r| "ocsb".chars().map(move |s| format!("{r}{s}")))
            .collect();
        let mut count = [0; 20];
        for c in &all {
            count[level(c.as_bytes()).unwrap() as usize] += 1;
        }
        // Levels 1-8 hold one card each; 48 cards in all.
        assert!(count[1..=8].iter().all(|&n| n == 1));
        assert_eq!(count.iter().sum::<i32>(), 48);
        assert_eq!(level(b"3o"), Some(1));
        assert_eq!(level(b"9s"), Some(13));
        assert_eq!(level(b"1o"), None);
    }

    #[test]
    fn newlines_are_found_anywhere() {
        for len in 0..40 {
            for at in 0..len {
                let mut v = vec![b'x'; len];
                v[at] = b'\n';
                assert_eq!(find_newline(&v), Some(at));
            }
            assert_eq!(find_newline(&vec![b'x'; len]), None);
        }
    }

    #[test]
    fn serves_a_split_stream_until_bye() {
        let input = b"{\"type\":\"hello\",\"id\":1,\"protocol\":1}\n{\"type\":\"game\"}\n{\"type\":\"play\",\"id\":2,\"hand\":[\"Kb\"]}\n{\"type\":\"bye\"}\n{\"type\":\"play\",\"id\":3,\"hand\":[\"Kb\"]}\n";
        // One byte per read: lines that straddle reads are put back together.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        serve(Trickle(input), &mut out, Bot { token: Some("t"), burn: Duration::ZERO }).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with("{\"type\":\"play\",\"id\":2,\"card\":\"Kb\"}\n"));
    }
}
