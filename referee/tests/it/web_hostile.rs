//! The web server as a stranger on the network would try it (issue 23): half-open connections
//! by the thousand under a small descriptor limit, a DNS-rebinding page, tokens guessed, a
//! view's token tried on another view, a spectator's oversized message, and where the server's
//! thread runs. Real referee, real sockets.

use crate::harness::{Scratch, s};
use crate::web::{Served, request_on, upgrade_head};
use serde_json::{Value, json};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// A match that waits a minute for its human seat's page, serving spectators meanwhile.
fn waiting_match(records: &str) -> Vec<&str> {
    vec![
        "match",
        "--bot",
        "human",
        "--bot",
        "builtin:random",
        "--deals",
        "1",
        "--connect-wait-ms",
        "60000",
        "--records",
        records,
        "--watch",
        "--no-pin",
    ]
}

fn status(answer: &str) -> String {
    answer.lines().next().unwrap_or("").to_string()
}

fn token_of(url: &str) -> String {
    url.split("token=").nth(1).unwrap().to_string()
}

/// Issue 23: a stranger holding idle connections by the thousand, under a limit of 1024 open
/// files, neither keeps the seat's page out nor takes the descriptors the match needs: the
/// referee holds at most its budget of them (the limit less what it keeps for its bots), the
/// page still loads, and a connection that never sends its request is closed by the server.
#[test]
fn half_open_connections_are_capped_closed_and_never_keep_the_page_out() {
    const FLOOD: usize = 1500;
    const NOFILE: usize = 1024;
    let sc = Scratch::new("web-flood");
    let records = sc.records();
    let args = waiting_match(s(&records));
    let mut cmd = Command::new("sh");
    // `ulimit -n` sets the soft and hard limits both: the referee cannot raise its own.
    cmd.arg("-c").arg(format!("ulimit -n {NOFILE} && exec \"$0\" \"$@\""));
    cmd.arg(env!("CARGO_BIN_EXE_referee")).args(&args);
    let served = Served::spawn(cmd, &args);
    let addr = served.addr();
    let mut idle = Vec::with_capacity(FLOOD);
    for _ in 0..FLOOD {
        let mut c = TcpStream::connect(&addr).expect("connect");
        // Half a request head, never finished.
        let _ = c.write_all(b"GET /play HTTP/1.1\r\n");
        idle.push(c);
    }
    // Connections are accepted in order: once this one is answered, all before it were taken.
    let (page, _) = request_on(&addr, &format!("GET /play HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
    assert!(status(&page).contains(" 200 "), "the page did not load: {page}");
    let pid = served.child.id();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap().count();
    assert!(fds <= NOFILE - 256, "the referee holds {fds} descriptors of {NOFILE}");
    // The newest idle connection is still held; the server closes it past its deadline.
    let last = idle.last_mut().unwrap();
    last.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut buf = [0u8; 256];
    let closed = match last.read(&mut buf) {
        Ok(_) => true,
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    };
    assert!(closed, "a connection that never sent its request head is still open after 30 s");
}

/// Issue 23: a page of another site whose name a rebinding DNS points at the referee names that
/// site in its `Host`: refused, pages and WebSockets alike, even from its own `Origin`; the
/// server's own names are served.
#[test]
fn a_dns_rebinding_page_is_refused() {
    let sc = Scratch::new("web-rebind");
    let records = sc.records();
    let served = Served::start(&waiting_match(s(&records)));
    let addr = served.addr();
    let port = addr.rsplit_once(':').unwrap().1.to_string();
    let token = token_of(served.watch_url.as_ref().unwrap());
    let evil = format!("evil.example:{port}");
    let get =
        |host: &str| request_on(&addr, &format!("GET /watch HTTP/1.1\r\nHost: {host}\r\n\r\n")).0;
    assert!(!status(&get(&evil)).contains(" 200 "), "{}", get(&evil));
    for own in [addr.clone(), format!("localhost:{port}")] {
        assert!(status(&get(&own)).contains(" 200 "), "{own}: {}", get(&own));
    }
    let head = format!(
        "GET /ws/watch?token={token} HTTP/1.1\r\nHost: {evil}\r\nOrigin: http://{evil}\r\n\
         Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    let answer = request_on(&addr, &head).0;
    assert!(!status(&answer).contains(" 101 "), "a rebinding page's WebSocket: {answer}");
}

/// Sends an upgrade request; the answer's head, the connection, and the first WebSocket text
/// message (unmasked and short, as the server's first is) when upgraded.
fn upgrade(addr: &str, head: &str) -> (String, Option<String>) {
    let mut stream = TcpStream::connect(addr).expect("connect to the web server");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk) {
            Ok(n) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ => return (String::from_utf8_lossy(&buf).to_string(), None),
        }
    };
    let answer = String::from_utf8_lossy(&buf[..end]).to_string();
    if !status(&answer).contains(" 101 ") {
        return (answer, None);
    }
    let mut frame = buf[end..].to_vec();
    while frame.len() < 2 || frame.len() < 2 + usize::from(frame[1] & 0x7f) {
        let n = stream.read(&mut chunk).expect("a message");
        assert!(n > 0, "closed before its first message");
        frame.extend_from_slice(&chunk[..n]);
    }
    let len = usize::from(frame[1] & 0x7f);
    (answer, Some(String::from_utf8_lossy(&frame[2..2 + len]).to_string()))
}

/// Issue 23: one token per view. The organiser's view, each seat's view and the human seat have
/// tokens of their own, 128 bits each; none opens another's view (a seat view's link is not the
/// organiser's with `&seat=S`).
#[test]
fn each_view_has_its_own_token_and_none_opens_another() {
    let sc = Scratch::new("web-tokens");
    let records = sc.records();
    let served = Served::start(&waiting_match(s(&records)));
    let addr = served.addr();
    let all = token_of(served.watch_url.as_ref().unwrap());
    let seats: Vec<String> = served
        .view_urls
        .iter()
        .map(|u| token_of(u.as_ref().expect("a seat view's link")))
        .collect();
    let human = token_of(&served.seat_url);
    let mut tokens = vec![all.clone(), human.clone()];
    tokens.extend(seats.iter().cloned());
    for t in &tokens {
        assert!(t.len() == 32 && t.chars().all(|c| c.is_ascii_hexdigit()), "token {t}");
    }
    let distinct: std::collections::BTreeSet<_> = tokens.iter().collect();
    assert_eq!(distinct.len(), tokens.len(), "{tokens:?}");
    let own = format!("http://{addr}");
    let open = |path: &str| upgrade(&addr, &upgrade_head(&addr, path, &own));
    for (seat, t) in seats.iter().enumerate() {
        let (head, first) = open(&format!("/ws/watch?token={t}"));
        let hello: Value =
            serde_json::from_str(&first.unwrap_or_else(|| panic!("{head}"))).unwrap();
        assert_eq!(hello, json!({"view": "seat", "seat": seat}), "seat {seat}'s link");
        // The seat's view token opens no seat, and the organiser's with `seat=` stays the
        // organiser's.
        assert!(status(&open(&format!("/ws/seat?token={t}")).0).contains(" 403 "));
    }
    let (head, first) = open(&format!("/ws/watch?token={all}&seat=1"));
    let hello: Value = serde_json::from_str(&first.unwrap_or_else(|| panic!("{head}"))).unwrap();
    assert_eq!(hello, json!({"view": "all"}));
    assert!(status(&open(&format!("/ws/watch?token={human}")).0).contains(" 403 "));
}

/// Issue 23: wrong tokens are slowed down as at the lobby: past a few free ones, an address's
/// refusals come later and later.
#[test]
fn wrong_web_tokens_are_slowed_down() {
    let sc = Scratch::new("web-guess");
    let records = sc.records();
    let served = Served::start(&waiting_match(s(&records)));
    let addr = served.addr();
    let own = format!("http://{addr}");
    let mut last = Duration::ZERO;
    for n in 0..5 {
        let path = format!("/ws/watch?token={n:032x}");
        let t0 = Instant::now();
        let answer = request_on(&addr, &upgrade_head(&addr, &path, &own)).0;
        last = t0.elapsed();
        assert!(status(&answer).contains(" 403 "), "{answer}");
    }
    // The fifth wrong token waits 500 ms before its refusal (a lower bound: a slow machine only
    // makes it longer).
    assert!(last >= Duration::from_millis(500), "the fifth wrong token was refused in {last:?}");
}

/// Issue 23: a spectator's message is bounded by the line limit, like a bot's line: a larger
/// one ends the spectator's connection, rather than being buffered.
#[test]
fn a_spectators_oversized_message_ends_its_connection() {
    let sc = Scratch::new("web-big");
    let records = sc.records();
    let mut args = waiting_match(s(&records));
    args.extend(["--max-line-bytes", "1024"]);
    let served = Served::start(&args);
    let addr = served.addr();
    let token = token_of(served.watch_url.as_ref().unwrap());
    let own = format!("http://{addr}");
    let (head, mut stream) =
        request_on(&addr, &upgrade_head(&addr, &format!("/ws/watch?token={token}"), &own));
    assert!(status(&head).contains(" 101 "), "{head}");
    // One masked text frame of 4000 bytes, as a browser would send it.
    let payload = vec![b'x'; 4000];
    let mut frame = vec![0x81, 0xfe, (payload.len() >> 8) as u8, payload.len() as u8];
    let mask = [1u8, 2, 3, 4];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    stream.write_all(&frame).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut buf = [0u8; 65536];
    let ended = loop {
        match stream.read(&mut buf) {
            Ok(0) => break true,
            // A close frame (opcode 8) says it too.
            Ok(n) if buf[..n].windows(1).any(|w| w[0] == 0x88) => break true,
            Ok(_) => continue,
            Err(e) => break !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        }
    };
    assert!(ended, "a 4000-byte message under a 1024-byte line limit left the spectator connected");
}

/// Issue 23: the web server runs on a thread of its own, off the CPU the table is pinned to, so
/// pages and strangers take none of the table's time; so do the seat views' re-runs.
#[test]
fn the_web_server_runs_off_the_tables_cpu() {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if cpus < 2 {
        eprintln!("one CPU: nowhere else to run");
        return;
    }
    let sc = Scratch::new("web-cpu");
    let records = sc.records();
    let mut args = waiting_match(s(&records));
    args.retain(|a| *a != "--no-pin");
    let served = Served::start(&args);
    let pid = served.child.id();
    let allowed = |tid: &str| -> String {
        let status = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap();
        line.split_whitespace().nth(1).unwrap().to_string()
    };
    let table = allowed(&pid.to_string());
    assert!(!table.contains(['-', ',']), "the table is pinned to one CPU: {table}");
    let web = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().to_string())
        .find(|tid| {
            std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm"))
                .is_ok_and(|c| c.trim() == "web")
        })
        .expect("the web server's thread");
    let web_cpus = allowed(&web);
    let list: Vec<String> = expand(&web_cpus);
    assert!(
        !list.contains(&table),
        "the web thread may run on the table's CPU {table}: {web_cpus}"
    );
    drop(served);

    // A match being played, a seat view watched: the view's re-run has a thread of its own,
    // off the table's CPU too.
    let args = ["match", "--games", "100000", "--watch", "--records", s(&records)];
    let served = Served::start(&args);
    let pid = served.child.id();
    let addr = served.addr();
    let seat0 = token_of(served.view_urls[0].as_ref().unwrap());
    let own = format!("http://{addr}");
    let (head, _watching) =
        request_on(&addr, &upgrade_head(&addr, &format!("/ws/watch?token={seat0}"), &own));
    assert!(status(&head).contains(" 101 "), "{head}");
    let allowed = |tid: &str| -> Option<String> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:"))?;
        Some(line.split_whitespace().nth(1)?.to_string())
    };
    let table = allowed(&pid.to_string()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let views = loop {
        let found = std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .find_map(|tid| {
                let comm = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")).ok()?;
                if comm.trim() == "seat-views" { allowed(&tid) } else { None }
            });
        if let Some(cpus) = found {
            break cpus;
        }
        assert!(Instant::now() < deadline, "no thread derives the seat views");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!expand(&views).contains(&table), "seat views on the table's CPU {table}: {views}");
}

/// A CPU list (`0-2,5`) as its CPUs.
fn expand(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                out.extend((a..=b).map(|c| c.to_string()));
            }
            None => out.push(part.to_string()),
        }
    }
    out
}
