//! Replays the hand-written deals of `tests/data/golden.txt` through the engine and checks every
//! dealt hand, chant step, pre-lead answer (surrender, announcement), trick winner and deal
//! result the file states.

use rules::{Action, Card, CardSet, Deck, Event, Game, Rules, Seat, Turn};
use rules::{AllSpoiled, Announcement, ChantSecond, DiscardRule, PledgeKind};

fn card(s: &str) -> Card {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn cards(words: &[&str]) -> Vec<Card> {
    words.iter().map(|w| card(w)).collect()
}

fn seat(s: &str) -> Seat {
    Seat::new(s.parse().unwrap()).unwrap()
}

fn rules_from(options: &[&str]) -> Rules {
    let mut rules = Rules::default();
    for opt in options {
        let (k, v) = opt.split_once('=').unwrap();
        match (k, v) {
            ("chant", v) => rules.chant = v == "on",
            ("chant-second", "dealer") => rules.chant_second = ChantSecond::Dealer,
            ("chant-second", "partner") => rules.chant_second = ChantSecond::Partner,
            ("discard", "free") => rules.discard = DiscardRule::Free,
            ("discard", "keep-highest") => rules.discard = DiscardRule::KeepHighest,
            ("mordienne", "on" | "off") => rules.mordienne = v == "on",
            ("mordienne", "announced") => {
                (rules.mordienne, rules.announce) = (true, Announcement::ExtendsMatch)
            }
            ("mordienne", "announced-only") => {
                (rules.mordienne, rules.announce) = (false, Announcement::MatchToTen)
            }
            ("surrender", v) => rules.surrender = v == "on",
            ("announce-penalty", v) => rules.announce_penalty = v == "on",
            ("all-spoiled", "redeal") => rules.all_spoiled = AllSpoiled::Redeal,
            ("mordienne-run", n) => rules.mordienne_run = n.parse().unwrap(),
            _ => panic!("unknown option {opt}"),
        }
    }
    rules
}

/// Runs one deal block; returns its name for the summary.
fn run_deal(block: &[Vec<&str>]) -> String {
    let name = block[0][1].to_string();
    let mut rules = Rules::default();
    let mut game: Option<Game> = None;
    let mut last_events: Vec<Event> = Vec::new();
    let mut received: Vec<(Seat, CardSet)> = Vec::new();
    let mut dealer = Seat::ALL[0];
    for words in &block[1..] {
        let ctx = format!("deal {name}, line `{}`", words.join(" "));
        match words[0] {
            "options" => rules = rules_from(&words[1..]),
            "dealer" => dealer = seat(words[1]),
            "deck" => {
                let deck = Deck::from_cards(&cards(&words[1..])).expect(&ctx);
                let mut g = Game::new(rules, dealer);
                last_events = g.deal(&deck).expect(&ctx).iter().copied().collect();
                game = Some(g);
            }
            "hand" => {
                let g = game.as_ref().expect(&ctx);
                let s = seat(words[1]);
                assert_eq!(g.hand(s), CardSet::from_cards(&cards(&words[2..])), "{ctx}");
                let told = last_events.iter().any(|e| {
                    matches!(e, Event::Hand { seat, cards } if *seat == s && *cards == g.hand(s))
                });
                assert!(told, "{ctx}: no private Hand event");
            }
            "vote" => {
                let g = game.as_mut().expect(&ctx);
                let s = seat(words[1]);
                assert_eq!(g.to_act(), Some(Turn::Vote(s)), "{ctx}");
                let ev = g.apply(s, Action::Vote(words[2] == "yes")).expect(&ctx);
                for e in ev.iter() {
                    if let Event::Received { seat, cards } = e {
                        received.push((*seat, *cards));
                    }
                }
            }
            "offer" | "reply" | "announce" => {
                let g = game.as_mut().expect(&ctx);
                let s = seat(words[1]);
                let yes = words[2] == "yes";
                let (turn, action) = match words[0] {
                    "offer" => (Turn::Offer(s), Action::Offer(yes)),
                    "reply" => (Turn::Reply(s), Action::Reply(yes)),
                    _ => (Turn::Announce(s), Action::Announce(yes)),
                };
                assert_eq!(g.to_act(), Some(turn), "{ctx}");
                last_events = g.apply(s, action).expect(&ctx).iter().copied().collect();
            }
            "receive" => {
                let s = seat(words[1]);
                let want = CardSet::from_cards(&cards(&words[2..]));
                assert!(received.contains(&(s, want)), "{ctx}: received {received:?}");
            }
            "discard" => {
                let g = game.as_mut().expect(&ctx);
                let s = seat(words[1]);
                assert_eq!(g.to_act(), Some(Turn::Discard(s)), "{ctx}");
                let set = CardSet::from_cards(&cards(&words[2..]));
                g.apply(s, Action::Discard(set)).expect(&ctx);
            }
            "trick" => {
                let g = game.as_mut().expect(&ctx);
                let leader = seat(words[1]);
                assert_eq!(words[6], "->", "{ctx}");
                let mut trick_end = None;
                for (i, code) in words[2..6].iter().enumerate() {
                    let player = leader.plus(i as u8);
                    assert_eq!(g.to_act(), Some(Turn::Play(player)), "{ctx}");
                    let ev = g.apply(player, Action::Play(card(code))).expect(&ctx);
                    last_events = ev.iter().copied().collect();
                    for e in ev.iter() {
                        if let Event::TrickOver(t) = e {
                            trick_end = Some(*t);
                        }
                    }
                }
                let t = trick_end.expect(&ctx);
                let want = if words[7] == "spoiled" { None } else { Some(seat(words[7])) };
                assert_eq!(t.winner, want, "{ctx}");
                assert_eq!(t.leader, leader, "{ctx}");
            }
            "result" => {
                let deal = last_events
                    .iter()
                    .find_map(|e| if let Event::DealOver(d) = e { Some(*d) } else { None })
                    .expect(&ctx);
                let mut expect_tricks = String::new();
                let mut expect = std::collections::BTreeMap::new();
                for kv in &words[1..] {
                    let (k, v) = kv.split_once('=').unwrap();
                    expect.insert(k, v);
                    if k == "tricks" {
                        expect_tricks = v.to_string();
                    }
                }
                let tricks = deal.score.tricks.map(|t| t.to_string()).join(",");
                assert_eq!(tricks, expect_tricks, "{ctx}");
                let winner = deal.score.winner.map_or("none".to_string(), |s| s.to_string());
                assert_eq!(winner, expect["winner"], "{ctx}");
                assert_eq!(deal.score.points.to_string(), expect["points"], "{ctx}");
                let mord = if deal.score.mordienne { "yes" } else { "no" };
                assert_eq!(mord, expect["mordienne"], "{ctx}");
                // The keys of the pre-lead rounds (spec/rules.md section 12), when given.
                if let Some(team) = expect.get("team") {
                    let got = deal.score.team.map_or("none".to_string(), |t| t.index().to_string());
                    assert_eq!(&got, team, "{ctx}");
                }
                if let Some(pledge) = expect.get("pledge") {
                    let got = match deal.pledge.map(|p| p.kind) {
                        None => "none",
                        Some(PledgeKind::Accepted) => "accepted",
                        Some(PledgeKind::Refused) => "refused",
                        Some(PledgeKind::Announced) => "announced",
                    };
                    assert_eq!(&got, pledge, "{ctx}");
                }
                if let Some(score) = expect.get("score") {
                    let got = deal.match_score.map(|t| t.to_string()).join(",");
                    assert_eq!(&got, score, "{ctx}");
                }
                if let Some(counted) = expect.get("counted") {
                    assert_eq!(if deal.counted { "yes" } else { "no" }, *counted, "{ctx}");
                }
            }
            "end" => {}
            other => panic!("{ctx}: unknown keyword {other}"),
        }
    }
    name
}

#[test]
fn golden_deals() {
    let text = include_str!("data/golden.txt");
    let mut blocks: Vec<Vec<Vec<&str>>> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "deal" {
            blocks.push(Vec::new());
        }
        blocks.last_mut().expect("a line before the first `deal`").push(words);
    }
    let names: Vec<String> = blocks.iter().map(|b| run_deal(b)).collect();
    assert!(names.len() >= 5, "only {} golden deals", names.len());
    for path in ["surrender-", "announced-"] {
        assert!(names.iter().filter(|n| n.starts_with(path)).count() >= 3, "{path}");
    }
}

/// The shuffle is frozen: these decks must never change between versions.
#[test]
fn pinned_decks() {
    let first12 = |seed: u64| {
        Deck::shuffled(seed).cards()[..12]
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Seed 0 as computed independently from the spec's description (spec/rules.md).
    assert_eq!(first12(0), "Jb 6b 2s Cc Cs 6s Kb Jc Co 9b 3o Ks");
    let last6: Vec<String> =
        Deck::shuffled(0).cards()[42..].iter().map(|c| c.to_string()).collect();
    assert_eq!(last6.join(" "), "3c 5o 8b 2o 9c 7b");
    assert_eq!(rules::SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    // Further seeds, pinned from this implementation so any change to the algorithm fails here.
    assert_eq!(first12(1), PINNED_1);
    assert_eq!(first12(0xDEAD_BEEF), PINNED_DEADBEEF);
}

const PINNED_1: &str = "7b 8b 3s 8o 2c 6b 5o Cb 5b 6c 9o 5s";
const PINNED_DEADBEEF: &str = "6b As 4s 7s 9b 2c 2s 4c Cc 8b 3s 4b";
