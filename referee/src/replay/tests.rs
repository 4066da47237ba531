//! The replayer's tests: whole games recorded the way the referee records them, replayed, then
//! changed line by line to see every change caught where it is made.

use super::read::{replay_bytes, replay_str};
use super::*;
use protocol::msg::Clock;
use protocol::options::OnFault;
use protocol::record::{
    FaultKind, GameStatus, Penalty, Policy, RECORD_FORMAT, RECORD_VERSION, SeatInfo, SeatStats,
};
use rules::{
    Action, Card, CardSet, Deck, MatchLength, Rules, Signal, SignalDelivery, SplitMix64,
    derive_seed,
};

/// Plays a whole game the way the referee records one: every seat plays the first card of
/// its hand, discards its first six, and signals its ace count before its opening answer and
/// the Madame whenever it holds it before a card.
fn record_game(rules: Rules, seed: u64) -> Vec<RecordLine> {
    let mut lines = vec![header(&rules, seed, 1)];
    let mut game = Game::new(rules, Seat::ALL[1]);
    let mut coins = SplitMix64::new(seed);
    let mut us = 1_000;
    while let Some(turn) = game.to_act() {
        us = (us * 7 + 333) % 25_000;
        match turn {
            Turn::Deal => {
                let n = game.deal_number() + 1;
                let deck = Deck::shuffled(derive_seed(&[seed, n.into()]));
                let dealer = game.dealer();
                lines.push(RecordLine::Deal {
                    deal: n,
                    dealer: convert::seat_no(dealer),
                    deck: deck.cards().iter().map(|&c| convert::code(c)).collect(),
                    hands: deck.hands(dealer).iter().map(|&h| convert::codes(h)).collect(),
                });
                game.deal(&deck).unwrap();
                for k in 1..=4 {
                    let seat = dealer.plus(k);
                    let aces = game.hand(seat).iter().filter(|c| c.rank() == rules::Rank::Ace);
                    let signal = format!("aces:{}", aces.count());
                    signal_line(&mut game, &mut lines, &mut coins, seat, &signal);
                    let us = us + u64::from(k) * 97;
                    if game.to_act() == Some(Turn::Vote(seat)) {
                        let accept = !(n + seat.index() as u16).is_multiple_of(5);
                        let auto = k == 3;
                        let us = if auto { 0 } else { us };
                        let seat_no = convert::seat_no(seat);
                        lines.push(RecordLine::Vote {
                            seat: seat_no,
                            accept,
                            us,
                            cpu_us: None,
                            auto,
                            raw: None,
                        });
                        let events = game.apply(seat, Action::Vote(accept)).unwrap();
                        stated_lines(events.iter(), &mut lines);
                    } else {
                        let seat = convert::seat_no(seat);
                        lines.push(RecordLine::Opening {
                            seat,
                            us,
                            cpu_us: None,
                            auto: false,
                            raw: None,
                        });
                    }
                }
            }
            Turn::Vote(_) => unreachable!("votes are cast in the opening round"),
            // The pre-lead rounds: a mix of answers that reaches every outcome over a few deals.
            Turn::Offer(seat) | Turn::Reply(seat) | Turn::Announce(seat) => {
                let n = u64::from(game.deal_number()) + seat.index() as u64 + us;
                let yes = n.is_multiple_of(3);
                let (s, auto) = (convert::seat_no(seat), n.is_multiple_of(7));
                let us = if auto { 0 } else { us };
                let (line, action) = match turn {
                    Turn::Offer(_) => (
                        RecordLine::Offer {
                            seat: s,
                            offer: yes,
                            us,
                            cpu_us: None,
                            auto,
                            raw: None,
                        },
                        Action::Offer(yes),
                    ),
                    Turn::Reply(_) => (
                        RecordLine::Reply {
                            seat: s,
                            accept: yes,
                            us,
                            cpu_us: None,
                            auto,
                            raw: None,
                        },
                        Action::Reply(yes),
                    ),
                    _ => (
                        RecordLine::Announce {
                            seat: s,
                            announce: yes,
                            us,
                            cpu_us: None,
                            auto,
                            raw: None,
                        },
                        Action::Announce(yes),
                    ),
                };
                lines.push(line);
                let events = game.apply(seat, action).unwrap();
                stated_lines(events.iter(), &mut lines);
            }
            Turn::Discard(seat) => {
                let cards: CardSet = game.hand(seat).iter().take(6).collect();
                let seat_no = convert::seat_no(seat);
                let codes = convert::codes(cards);
                lines.push(RecordLine::Discard {
                    seat: seat_no,
                    cards: codes,
                    us,
                    cpu_us: None,
                    auto: false,
                    raw: None,
                });
                game.apply(seat, Action::Discard(cards)).unwrap();
            }
            Turn::Play(seat) => {
                if game.hand(seat).contains(Card::MADAME) {
                    signal_line(&mut game, &mut lines, &mut coins, seat, "madame");
                }
                let card = game.hand(seat).iter().next().unwrap();
                let (seat_no, code) = (convert::seat_no(seat), convert::code(card));
                lines.push(RecordLine::Play {
                    seat: seat_no,
                    card: code,
                    us,
                    cpu_us: None,
                    auto: false,
                    raw: None,
                });
                let events = game.apply(seat, Action::Play(card)).unwrap();
                stated_lines(events.iter(), &mut lines);
            }
        }
    }
    let outcome = game.outcome().unwrap();
    let winner = outcome.winner.map(|t| t.index() as u8);
    lines.push(footer(&lines, GameStatus::Complete, outcome.score, winner, None, outcome.deals));
    lines
}

fn header(rules: &Rules, seed: u64, first_dealer: SeatNo) -> RecordLine {
    let seat = |i: usize| SeatInfo {
        name: ["alpha", "beta"][i % 2].into(),
        version: ["1.0", "0.3"][i % 2].into(),
        author: None,
        command: vec!["./bot".into()],
        stderr: None,
        first_id: 1,
        hello: None,
        features: Vec::new(),
        cpu: false,
        clock: None,
    };
    RecordLine::Header(Box::new(Header {
        format: RECORD_FORMAT.into(),
        version: RECORD_VERSION,
        referee: "0.1.0".into(),
        protocol: 1,
        game: 3,
        match_seed: 99,
        seed,
        rules: convert::rules_wire(rules, protocol::options::Seating::Given),
        clock: Clock {
            handshake_ms: 2000,
            answer_ms: 1000,
            bank_ms: 10_000,
            mode: None,
            wall_cap: None,
        },
        policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
        seats: (0..4).map(seat).collect(),
        first_dealer,
        draw: None,
        started_unix_ms: 0,
    }))
}

/// A footer after `lines`, with their statistics as records.md defines them.
fn footer(
    lines: &[RecordLine],
    status: GameStatus,
    score: [u16; 2],
    winner: Option<u8>,
    forfeit: Option<u8>,
    deals: u16,
) -> RecordLine {
    let mut stats = vec![SeatStats::default(); 4];
    for line in lines {
        if let Some(a) = line.answered().filter(|a| !a.auto) {
            let s = &mut stats[usize::from(a.seat)];
            s.answers += 1;
            s.think_us += a.us;
            s.max_us = s.max_us.max(a.us);
        }
        if let RecordLine::Fault(f) = line {
            let s = &mut stats[usize::from(f.seat)];
            s.faults += 1;
            s.strikes = f.strikes;
            s.replaced |= f.penalty == Penalty::Replaced;
        }
    }
    RecordLine::Footer(Box::new(Footer {
        status,
        score,
        winner,
        forfeit,
        deals,
        stats,
        duration_ms: 1234,
    }))
}

/// Makes a signal through the engine, with leak coins from the test's generator, and records
/// it as delivered.
fn signal_line(
    game: &mut Game,
    lines: &mut Vec<RecordLine>,
    coins: &mut SplitMix64,
    seat: Seat,
    name: &str,
) {
    let signal: Signal = name.parse().unwrap();
    let flips = [coins.below(2) == 0, coins.below(2) == 0];
    if let Ok(Event::Signalled { seen_by, .. }) = game.signal(seat, signal, flips) {
        let seen_by =
            Seat::ALL.iter().filter(|s| seen_by[s.index()]).map(|&s| convert::seat_no(s)).collect();
        lines.push(RecordLine::Signal {
            from: convert::seat_no(seat),
            signal: name.into(),
            seen_by,
        });
    }
}

fn stated_lines<'a>(events: impl Iterator<Item = &'a Event>, lines: &mut Vec<RecordLine>) {
    for event in events {
        lines.push(match *event {
            Event::ChantDecided { taken } => RecordLine::Chant { taken },
            Event::Received { seat, cards } => {
                RecordLine::Receive { seat: convert::seat_no(seat), cards: convert::codes(cards) }
            }
            Event::TrickOver(t) => RecordLine::Trick {
                trick: t.number,
                leader: convert::seat_no(t.leader),
                cards: (0..4)
                    .map(|i| convert::table_card(t.leader.plus(i), t.cards[i as usize]))
                    .collect(),
                winner: t.winner.map(convert::seat_no),
            },
            Event::DealOver(d) => RecordLine::DealOver {
                deal: d.deal,
                tricks: d.score.tricks,
                winner: d.score.winner.map(convert::seat_no),
                points: d.score.points,
                mordienne: d.score.mordienne,
                counted: d.counted,
                score: d.match_score,
                pledge: convert::pledge(&d),
            },
            _ => continue,
        });
    }
}

fn text(lines: &[RecordLine]) -> String {
    lines.iter().map(|l| serde_json::to_string(l).unwrap() + "\n").collect()
}

fn index_of(lines: &[RecordLine], from: usize, pred: impl Fn(&RecordLine) -> bool) -> usize {
    from + lines[from..].iter().position(pred).unwrap()
}

fn diverged_at(result: Result<Replay, ReplayError>) -> (usize, String) {
    match result {
        Err(ReplayError::Diverged { line, message }) => (line, message),
        other => panic!("expected a divergence, got {other:?}"),
    }
}

fn default_rules() -> Rules {
    Rules { signals: SignalDelivery::Leaky, ..Rules::default() }
}

#[test]
fn complete_records_replay_with_their_score() {
    let variants = [
        default_rules(),
        Rules { chant: false, signals: SignalDelivery::Partner, ..Rules::default() },
        Rules {
            length: MatchLength::Target(3),
            chant_second: rules::ChantSecond::Partner,
            ..default_rules()
        },
    ];
    for rules in variants {
        for seed in [1, 2, 12345] {
            let lines = record_game(rules, seed);
            let replay = replay_str(&text(&lines)).unwrap();
            let Some(RecordLine::Footer(footer)) = lines.last() else { unreachable!() };
            assert_eq!(replay.score, footer.score);
            assert_eq!(replay.lines, lines.len());
            assert_eq!(replay.footer.as_ref(), Some(&**footer));
            assert!(replay.faults.is_empty());
            assert_eq!((replay.header.game, replay.header.seed), (3, seed));
            assert!(replay.account.starts_with("Game 3, seed "), "{}", replay.account);
            assert!(replay.account.contains("Deal 1, dealer 1\n"));
            assert!(replay.account.contains("  trick 9: "));
            assert!(replay.account.lines().last().unwrap().starts_with("Result: "));
            // Deterministic: the same record gives the same account.
            assert_eq!(replay_str(&text(&lines)).unwrap().account, replay.account);
        }
    }
}

#[test]
fn the_test_games_cover_chant_taken_refused_and_signals() {
    let lines = record_game(default_rules(), 1);
    let has = |f: &dyn Fn(&RecordLine) -> bool| lines.iter().any(f);
    assert!(has(&|l| matches!(l, RecordLine::Chant { taken: true })));
    assert!(has(&|l| matches!(l, RecordLine::Chant { taken: false })));
    assert!(has(&|l| matches!(l, RecordLine::Receive { .. })));
    assert!(has(&|l| matches!(l, RecordLine::Discard { .. })));
    assert!(has(&|l| matches!(l, RecordLine::Opening { .. })));
    assert!(has(&|l| matches!(l, RecordLine::Signal { signal, .. } if signal == "madame")));
    let account = replay_str(&text(&lines)).unwrap().account;
    assert!(account.contains("-> chant taken"), "{account}");
    assert!(account.contains("-> no chant; "), "{account}");
    assert!(account.contains("    signals: "), "{account}");
    assert!(account.contains(" (auto)"), "{account}");
    assert!(account.contains(" receives ["), "{account}");
    assert!(account.contains(" discards ["), "{account}");
}

#[test]
fn a_play_of_another_held_card_is_caught_at_its_trick_line() {
    let mut lines = record_game(default_rules(), 1);
    let first_play = index_of(&lines, 0, |l| matches!(l, RecordLine::Play { .. }));
    let RecordLine::Play { seat, card, .. } = lines[first_play].clone() else { unreachable!() };
    // The hand as the engine holds it, after any chant.
    let replayed = replay_until(&lines, first_play);
    let other = replayed
        .hand(Seat::new(seat).unwrap())
        .iter()
        .map(convert::code)
        .find(|&c| c != card)
        .unwrap();
    if let RecordLine::Play { card, .. } = &mut lines[first_play] {
        *card = other;
    }
    let trick_line = index_of(&lines, first_play, |l| matches!(l, RecordLine::Trick { .. })) + 1;
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, trick_line, "{message}");
    assert!(
        message
            .contains(&format!("the rules say {other} by seat {seat} (line {})", first_play + 1)),
        "{message}"
    );
}

/// The engine state just before record line `index` (0-based), rebuilt from the record.
fn replay_until(lines: &[RecordLine], index: usize) -> Game {
    let mut replayer = None;
    for (i, record) in lines[..index].iter().cloned().enumerate() {
        match &mut replayer {
            None => replayer = Some(Replayer::start(record, i + 1).unwrap()),
            Some(r) => r.line(record, i + 1).unwrap(),
        }
    }
    replayer.unwrap().game
}

#[test]
fn a_card_not_held_diverges_at_its_play_line() {
    let mut lines = record_game(default_rules(), 2);
    let at = index_of(&lines, lines.len() / 2, |l| matches!(l, RecordLine::Play { .. }));
    let RecordLine::Play { seat, .. } = lines[at] else { unreachable!() };
    let game = replay_until(&lines, at);
    let hand = game.hand(Seat::new(seat).unwrap());
    let foreign = convert::code(Card::all().find(|&c| !hand.contains(c)).unwrap());
    if let RecordLine::Play { card, .. } = &mut lines[at] {
        *card = foreign;
    }
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    let expected = format!(
        "line {line}: play by seat {seat} of {foreign} does not follow from the rules: card {foreign} is not in the hand"
    );
    assert_eq!(diverged_display(&lines), expected);
    assert!(message.contains("is not in the hand"));
}

fn diverged_display(lines: &[RecordLine]) -> String {
    replay_str(&text(lines)).unwrap_err().to_string()
}

#[test]
fn a_changed_trick_winner_diverges() {
    let mut lines = record_game(default_rules(), 3);
    let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Trick { winner: Some(_), .. }));
    let RecordLine::Trick { winner: Some(w), .. } = &mut lines[at] else { unreachable!() };
    let rules_winner = *w;
    *w = (*w + 1) % 4;
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    assert!(message.ends_with(&format!("the rules say seat {rules_winner}")), "{message}");
}

fn pledge_rules() -> Rules {
    Rules {
        surrender: true,
        announce: rules::Announcement::ExtendsMatch,
        length: MatchLength::Target(5),
        ..default_rules()
    }
}

#[test]
fn records_of_surrenders_and_announcements_replay() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 1..12 {
        let lines = record_game(pledge_rules(), seed);
        let replay = replay_str(&text(&lines)).unwrap();
        let Some(RecordLine::Footer(footer)) = lines.last() else { unreachable!() };
        assert_eq!(replay.score, footer.score);
        assert!(replay.account.contains("  before the lead: "), "{}", replay.account);
        for l in &lines {
            if let RecordLine::DealOver { pledge: Some(p), .. } = l {
                kinds.insert(p.kind.as_str());
            }
        }
    }
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["accepted", "announced", "refused"]);
}

#[test]
fn a_changed_pledge_answer_or_outcome_diverges() {
    let find = |lines: &[RecordLine]| {
        index_of(lines, 0, |l| matches!(l, RecordLine::DealOver { pledge: Some(_), .. }))
    };
    let seed = (1..).find(|&s| {
        let lines = record_game(pledge_rules(), s);
        lines.iter().any(|l| matches!(l, RecordLine::DealOver { pledge: Some(_), .. }))
    });
    let lines = record_game(pledge_rules(), seed.unwrap());
    // The stated scoring team of a pledged deal.
    let mut changed = lines.clone();
    let at = find(&changed);
    let RecordLine::DealOver { pledge: Some(p), .. } = &mut changed[at] else { unreachable!() };
    p.team = 1 - p.team;
    let (line, message) = diverged_at(replay_str(&text(&changed)));
    assert_eq!(line, at + 1);
    assert!(message.contains("says pledge "), "{message}");
    // A dropped pledge.
    let mut changed = lines.clone();
    let RecordLine::DealOver { pledge, .. } = &mut changed[at] else { unreachable!() };
    *pledge = None;
    assert_eq!(diverged_at(replay_str(&text(&changed))).0, at + 1);
    // An answer turned over: the offer line before the pledged deal's end.
    let mut changed = lines;
    let first = index_of(&changed, 0, |l| matches!(l, RecordLine::Offer { .. }));
    let RecordLine::Offer { offer, .. } = &mut changed[first] else { unreachable!() };
    *offer = !*offer;
    assert!(replay_str(&text(&changed)).is_err());
    // An offer line where a play is due.
    let mut changed = record_game(pledge_rules(), 1);
    let play = index_of(&changed, 0, |l| matches!(l, RecordLine::Play { .. }));
    changed.insert(
        play,
        RecordLine::Offer { seat: 0, offer: false, us: 1, cpu_us: None, auto: false, raw: None },
    );
    let (line, message) = diverged_at(replay_str(&text(&changed)));
    assert_eq!(line, play + 1);
    assert!(message.starts_with("offer answer of seat 0"), "{message}");
}

#[test]
fn changed_deal_over_points_diverge() {
    let mut lines = record_game(default_rules(), 4);
    let at = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. }));
    let RecordLine::DealOver { deal, points, .. } = &mut lines[at] else { unreachable!() };
    let (deal, rules_points) = (*deal, *points);
    *points = 2 - rules_points.min(2) + 1;
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    let stated = 2 - rules_points.min(2) + 1;
    assert_eq!(
        message,
        format!("deal_over of deal {deal} says points {stated}, the rules say {rules_points}")
    );
}

#[test]
fn a_changed_seen_by_diverges() {
    let mut lines = record_game(default_rules(), 5);
    let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Signal { .. }));
    let RecordLine::Signal { from, seen_by, .. } = &mut lines[at] else { unreachable!() };
    // The partner always sees a signal.
    let partner = (*from + 2) % 4;
    seen_by.retain(|&s| s != partner);
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    assert!(message.contains("says seen by"), "{message}");
}

#[test]
fn a_missing_opening_answer_diverges() {
    let mut lines = record_game(Rules { chant: false, ..default_rules() }, 6);
    let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Opening { .. }));
    lines.remove(at);
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert!(line > at, "{message}");
}

#[test]
fn a_record_torn_mid_line_is_cut_short() {
    let lines = record_game(default_rules(), 7);
    let full = text(&lines);
    let keep = lines.len() / 2;
    let head: String = text(&lines[..keep]);
    let torn = format!("{head}{}", &serde_json::to_string(&lines[keep]).unwrap()[..7]);
    for cut in [torn, format!("{head}{{\"type\":\"pl\n")] {
        match replay_str(&cut) {
            Err(ReplayError::CutShort { lines, replay }) => {
                assert_eq!(lines, keep);
                assert_eq!(replay.lines, keep);
                assert!(replay.footer.is_none());
                assert!(replay.account.contains("Cut short after"), "{}", replay.account);
            }
            other => panic!("expected cut short, got {other:?}"),
        }
    }
    // A complete line without its newline was not finished either.
    let unterminated = full.strip_suffix('\n').unwrap();
    assert!(
        matches!(replay_str(unterminated), Err(ReplayError::CutShort { lines: n, .. }) if n == lines.len() - 1)
    );
    // A multi-byte character torn at the end of a file.
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&"{\"type\":\"é".as_bytes()[..10]);
    assert!(
        matches!(replay_bytes(&bytes), Err(ReplayError::CutShort { lines: n, .. }) if n == keep)
    );
}

#[test]
fn bad_json_before_the_end_is_corrupt() {
    let lines = record_game(default_rules(), 7);
    let mut text = text(&lines[..5]);
    text.push_str("{\"type\":\"pl\n");
    text.push_str(&serde_json::to_string(&lines[5]).unwrap());
    text.push('\n');
    assert!(matches!(replay_str(&text), Err(ReplayError::Corrupt { line: 6, .. })));
    let unknown = format!("{}{{\"type\":\"shrug\",\"seat\":1}}\n", self::text(&lines[..5]));
    assert!(matches!(replay_str(&unknown), Err(ReplayError::Corrupt { line: 6, .. })));
}

#[test]
fn a_record_without_footer_is_cut_short_with_the_engine_score() {
    let lines = record_game(default_rules(), 8);
    let last_deal_over =
        lines.iter().rposition(|l| matches!(l, RecordLine::DealOver { .. })).unwrap();
    let RecordLine::DealOver { score, .. } = lines[last_deal_over] else { unreachable!() };
    match replay_str(&text(&lines[..lines.len() - 1])) {
        Err(e @ ReplayError::CutShort { .. }) => {
            assert!(e.to_string().starts_with("the record was cut short after"));
            let ReplayError::CutShort { lines: n, replay } = e else { unreachable!() };
            assert_eq!(n, lines.len() - 1);
            assert_eq!(replay.score, score);
        }
        other => panic!("expected cut short, got {other:?}"),
    }
}

#[test]
fn another_format_version_is_corrupt() {
    let mut lines = record_game(default_rules(), 9);
    let RecordLine::Header(h) = &mut lines[0] else { unreachable!() };
    h.version = RECORD_VERSION + 1;
    match replay_str(&text(&lines)) {
        Err(ReplayError::Corrupt { line: 1, message }) => {
            assert!(message.contains("version"), "{message}")
        }
        other => panic!("expected corrupt, got {other:?}"),
    }
    let RecordLine::Header(h) = &mut lines[0] else { unreachable!() };
    h.version = RECORD_VERSION;
    h.format = "something-else".into();
    assert!(matches!(replay_str(&text(&lines)), Err(ReplayError::Corrupt { line: 1, .. })));
    assert!(matches!(replay_str(""), Err(ReplayError::Corrupt { line: 1, .. })));
    assert!(matches!(replay_str(&text(&lines[1..])), Err(ReplayError::Corrupt { line: 1, .. })));
}

#[test]
fn a_forfeit_fault_ends_the_game_with_its_footer() {
    let lines = record_game(default_rules(), 10);
    // Cut after the first deal, while seat 3 is asked for its opening answer of deal 2.
    let end = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. })) + 1;
    let RecordLine::DealOver { score, .. } = lines[end - 1] else { unreachable!() };
    let fault = FaultRecord {
        seat: 3,
        deal: Some(2),
        trick: None,
        kind: FaultKind::Exited,
        detail: "exit status 1".into(),
        raw: None,
        raw_b64: None,
        action: "your partnership forfeits the game".into(),
        penalty: Penalty::Forfeit,
        strikes: 1,
    };
    let mut record = lines[..end].to_vec();
    record.push(RecordLine::Fault(fault.clone()));
    record.push(footer(&record, GameStatus::Complete, score, Some(0), Some(1), 1));
    let replay = replay_str(&text(&record)).unwrap();
    assert_eq!(replay.faults, vec![fault.clone()]);
    assert_eq!(replay.score, score);
    assert!(
        replay.account.contains(
            "  fault: seat 3 exited (deal 2): exit status 1; penalty forfeit, 1 strike\n"
        ),
        "{}",
        replay.account
    );
    assert!(replay.account.contains("Result: team 1 forfeits (seat 3) at "), "{}", replay.account);

    // The wrong team, and anything but the footer after the forfeit, diverge.
    let n = record.len();
    record[n - 1] = footer(&record[..n - 1], GameStatus::Complete, score, Some(1), Some(0), 1);
    assert_eq!(diverged_at(replay_str(&text(&record))).0, n);
    record[n - 1] = lines[end].clone();
    assert_eq!(diverged_at(replay_str(&text(&record))).0, n);

    // Connection-time forfeit, before any deal.
    let mut record = vec![lines[0].clone(), RecordLine::Fault(fault)];
    record.push(footer(&record, GameStatus::Complete, [0, 0], Some(0), Some(1), 0));
    assert_eq!(replay_str(&text(&record)).unwrap().score, [0, 0]);
}

/// Issue 12: a footer counted an answer refused for a false signal, which has no line, and
/// nothing noticed. The statistics are the lines' own, so every change to them diverges.
#[test]
fn footer_statistics_are_those_of_the_lines() {
    let lines = record_game(default_rules(), 14);
    assert!(replay_str(&text(&lines)).is_ok());
    let n = lines.len();
    let RecordLine::Footer(f) = lines[n - 1].clone() else { unreachable!() };
    type Change = fn(&mut SeatStats);
    let changes: [(&str, Change); 6] = [
        ("answers", |s| s.answers += 1),
        ("think_us", |s| s.think_us += 1),
        ("max_us", |s| s.max_us += 1),
        ("strikes", |s| s.strikes += 1),
        ("replaced", |s| s.replaced = true),
        ("nothing", |_| {}),
    ];
    for (field, change) in changes {
        let mut changed = f.clone();
        change(&mut changed.stats[2]);
        let mut record = lines.clone();
        record[n - 1] = RecordLine::Footer(changed);
        if field == "nothing" {
            assert!(replay_str(&text(&record)).is_ok());
            continue;
        }
        let (line, message) = diverged_at(replay_str(&text(&record)));
        assert_eq!(line, n, "{message}");
        assert!(message.contains(&format!("statistics of seat 2 says {field} ")), "{message}");
    }
    // A fault line the footer does not count.
    let mut record = lines[..n - 1].to_vec();
    record.push(RecordLine::Fault(FaultRecord {
        seat: 1,
        deal: None,
        trick: None,
        kind: FaultKind::StaleId,
        detail: "id 3 was answered already".into(),
        raw: Some("{}".into()),
        raw_b64: None,
        action: "line ignored".into(),
        penalty: Penalty::Ignored,
        strikes: 0,
    }));
    let mut uncounted = f.clone();
    uncounted.stats[1].faults = 0;
    record.push(RecordLine::Footer(uncounted));
    let (line, message) = diverged_at(replay_str(&text(&record)));
    assert_eq!(line, n + 1, "{message}");
    assert!(message.contains("says 0 faults, but the seat has 1 fault lines"), "{message}");
}

/// A malformed line that is not UTF-8 is kept as base64; a record that spells a line both
/// ways, or base64 for text, is not a record the referee writes.
#[test]
fn a_faulty_line_is_kept_one_way() {
    use protocol::record::RawBytes;
    let lines = record_game(default_rules(), 12);
    let mut fault = FaultRecord {
        seat: 1,
        deal: None,
        trick: None,
        kind: FaultKind::Malformed,
        detail: "line is not valid UTF-8".into(),
        raw: None,
        raw_b64: None,
        action: "voted for you".into(),
        penalty: Penalty::Fallback,
        strikes: 1,
    };
    let with = |f: &FaultRecord| {
        let mut record = lines.clone();
        record.insert(1, RecordLine::Fault(f.clone()));
        // The footer counts the fault, as the runner's would.
        if let Some(RecordLine::Footer(footer)) = record.last_mut() {
            let stats = &mut footer.stats[usize::from(f.seat)];
            stats.faults += 1;
            stats.strikes = stats.strikes.max(f.strikes);
        }
        replay_str(&text(&record))
    };
    fault.keep_raw(Some(b"{\"type\":\"opening\",\"id\":2,\"signals\":[\"\xff\"]}".to_vec()));
    assert!(fault.raw.is_none() && fault.raw_b64.is_some());
    assert!(with(&fault).is_ok());
    let mut both = fault.clone();
    both.raw = Some("x".into());
    assert!(matches!(with(&both), Err(ReplayError::Corrupt { line: 2, .. })));
    let mut text_as_b64 = fault.clone();
    text_as_b64.raw_b64 = Some(RawBytes(b"plain".to_vec()));
    assert!(matches!(with(&text_as_b64), Err(ReplayError::Corrupt { line: 2, .. })));
}

#[test]
fn footers_are_checked() {
    let mut lines = record_game(default_rules(), 11);
    let n = lines.len();
    let RecordLine::Footer(f) = lines[n - 1].clone() else { unreachable!() };
    // An aborted game stops between two answers, with the engine's score: here after the
    // first card of deal 2.
    let deal_over = index_of(&lines, 0, |l| matches!(l, RecordLine::DealOver { .. }));
    let RecordLine::DealOver { score, .. } = lines[deal_over] else { unreachable!() };
    let end = index_of(&lines, deal_over, |l| matches!(l, RecordLine::Play { .. })) + 1;
    let mut aborted = lines[..end].to_vec();
    aborted.push(footer(&aborted, GameStatus::Aborted, score, None, None, 1));
    let replay = replay_str(&text(&aborted)).unwrap();
    assert!(
        replay
            .account
            .ends_with(&format!("Result: aborted at {} after 1 deal\n", score_text(score))),
        "{}",
        replay.account
    );
    // A complete footer before the end of the game.
    let k = aborted.len();
    aborted[k - 1] = footer(&aborted[..k - 1], GameStatus::Complete, score, None, None, 1);
    assert_eq!(diverged_at(replay_str(&text(&aborted))).0, k);
    // A wrong final score.
    let wrong_score = [f.score[0] + 1, f.score[1]];
    lines[n - 1] =
        footer(&lines[..n - 1], GameStatus::Complete, wrong_score, f.winner, None, f.deals);
    assert_eq!(diverged_at(replay_str(&text(&lines))).0, n);
    // Nothing may follow the footer.
    lines[n - 1] = RecordLine::Footer(f);
    let mut after = text(&lines);
    after.push_str(&serde_json::to_string(&lines[1]).unwrap());
    after.push('\n');
    assert!(matches!(replay_str(&after), Err(ReplayError::Corrupt { line, .. }) if line == n + 1));
}

#[test]
fn trick_lines_must_follow_their_fourth_card() {
    let mut lines = record_game(default_rules(), 12);
    let at = index_of(&lines, 0, |l| matches!(l, RecordLine::Trick { .. }));
    let trick = lines.remove(at);
    lines.insert(at + 1, trick);
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    assert!(message.contains("the trick line of trick 1 comes first"), "{message}");
    // Cards listed out of play order.
    let mut lines = record_game(default_rules(), 12);
    let RecordLine::Trick { cards, .. } = &mut lines[at] else { unreachable!() };
    cards.swap(0, 1);
    let (line, message) = diverged_at(replay_str(&text(&lines)));
    assert_eq!(line, at + 1);
    assert!(message.contains("says card 1 was"), "{message}");
}

/// The account's rules line spells every option as its flag does, from the one table of
/// option names: `name value`, in the table's order, defaults left out but for the options
/// that say what game this is.
#[test]
fn the_rules_line_names_options_as_their_flags_do() {
    use protocol::options::Seating;
    let line = |r: &Rules, seating| rules_text(&convert::rules_wire(r, seating));
    let given = Seating::Given;
    assert_eq!(line(&Rules::default(), given), "chant on, mordienne on, deals 5, signals partner");
    let leaky = Rules { signals: SignalDelivery::Leaky, ..Rules::default() };
    assert_eq!(
        line(&leaky, given),
        "chant on, mordienne on, deals 5, signals leaky, signal-leak 0.25"
    );
    let every = Rules {
        chant: false,
        chant_second: rules::ChantSecond::Partner,
        discard: rules::DiscardRule::KeepHighest,
        all_spoiled: rules::AllSpoiled::Redeal,
        mordienne: false,
        mordienne_run: 3,
        length: MatchLength::Target(5),
        on_tie: rules::OnTie::ExtraDeals,
        signals: SignalDelivery::Leaky,
        signal_leak_ppm: 125_000,
        signal_truth: rules::SignalTruth::Free,
        announce: rules::Announcement::Off,
        surrender: true,
        announce_penalty: true,
    };
    assert_eq!(
        line(&every, Seating::Draw),
        "seating draw, chant off, chant-second partner, discard keep-highest, \
         all-spoiled redeal, mordienne off, mordienne-run 3, target 5, on-tie extra-deals, \
         signals leaky, signal-leak 0.125, signal-truth free, surrender on, announce-penalty on"
    );
    // Every name the line shows is an option's name.
    let names: Vec<&str> = protocol::RULE_OPTIONS.iter().map(|o| o.name).collect();
    for part in
        line(&every, Seating::Draw).split(", ").chain(line(&Rules::default(), given).split(", "))
    {
        let name = part.split(' ').next().unwrap();
        assert!(names.contains(&name), "{part}");
    }
}

#[test]
fn think_times_are_compact() {
    assert_eq!(think(0, None, false), " (0.0ms)");
    assert_eq!(think(449, None, false), " (0.4ms)");
    assert_eq!(think(12_345, None, false), " (12ms)");
    assert_eq!(think(1_234_567, None, false), " (1.23s)");
    assert_eq!(think(5, None, true), " (auto)");
    assert_eq!(think(12_345, Some(449), false), " (12ms, cpu 0.4ms)");
}

#[test]
fn replay_file_reads_and_reports_io_errors() {
    let dir = std::env::temp_dir().join(format!("replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.jsonl");
    let lines = record_game(default_rules(), 13);
    std::fs::write(&path, text(&lines)).unwrap();
    assert_eq!(replay_file(&path).unwrap().lines, lines.len());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(replay_file(&path), Err(ReplayError::Io(_))));
}
