//! A small referee over the engine for the search crate's tests: it deals real decks, sends
//! each seat the messages the protocol would (spec/protocol.md), applies the answers and
//! delivers the signals, and lets a test look at every question before it is answered.

use protocol::CardCode;
use protocol::msg::{FromBot, TableCard, ToBot, VoteCast};
use protocol::options as o;
use rules::{Action, Card, CardSet, Deck, Event, Game, Rules, Seat, Signal, Turn};
use search::{Player, Sample, Settings};

pub(crate) fn code(c: Card) -> CardCode {
    CardCode::ALL[c.index() as usize]
}

pub(crate) fn codes(set: CardSet) -> Vec<CardCode> {
    set.iter().map(code).collect()
}

fn card(c: CardCode) -> Card {
    Card::from_ascii(c.as_bytes()).expect("a card")
}

/// The `game` message of `seat` under `rules` (chant and signal delivery as given, the rest at
/// the defaults), read from its JSON as a bot would.
fn game_message(rules: &Rules, seat: Seat) -> ToBot {
    let chant = if rules.chant { "on" } else { "off" };
    let signals = match rules.signals {
        rules::SignalDelivery::Public => "public",
        _ => "partner",
    };
    let line = format!(
        concat!(
            r#"{{"type":"game","game":1,"seat":{},"partner":{},"players":["a","b","c","d"],"#,
            r#""rules":{{"seating":"given","chant":"{}","chant-second":"dealer","#,
            r#""discard":"free","all-spoiled":"nothing","mordienne":"on","mordienne-run":2,"#,
            r#""deals":1,"on-tie":"draw","signals":"{}","signal-leak":0,"#,
            r#""signal-truth":"truthful"}},"#,
            r#""clock":{{"handshake_ms":1000,"answer_ms":1000,"bank_ms":5000}}}}"#,
            "\n"
        ),
        seat.index(),
        seat.partner().index(),
        chant,
        signals
    );
    protocol::codec::decode_line::<ToBot>(line.as_bytes()).expect("a game message")
}

/// What the seats' hidden cards really are now: the sample a perfect sampler could draw.
pub(crate) fn truth(game: &Game, deck: &Deck) -> Sample {
    let mut hands = [CardSet::EMPTY; 4];
    let mut discards = [CardSet::EMPTY; 4];
    for s in Seat::ALL {
        hands[s.index()] = game.hand(s);
        discards[s.index()] = game.view(s).discarded;
    }
    let taken = game.view(Seat::ALL[0]).chant_taken == Some(true);
    let talon = if taken { CardSet::EMPTY } else { deck.talon().iter().copied().collect() };
    Sample { hands, discards, talon }
}

/// One deal of one game, every seat a search player with `samples` per decision; `look` sees
/// each question with its seat's player and the game, once the player has read the question and
/// before the engine takes the answer (a discard's just after). With
/// `force_chant` every vote is taken as an accept, whatever the seat answered. Returns every
/// answer line, in order.
pub(crate) fn play_deal(
    rules: Rules,
    force_chant: bool,
    deck: &Deck,
    seed: u64,
    samples: u32,
    mut look: impl FnMut(Seat, &Player, &Game),
) -> Vec<String> {
    let dealer = Seat::ALL[0];
    let mut game = Game::new(rules, dealer);
    let mut players: Vec<Player> = (0..4)
        .map(|_| Player::new(Settings { seed, samples: Some(samples), ..Settings::default() }))
        .collect();
    fn never() -> u64 {
        panic!("a fixed sample count never reads the clock")
    }
    let mut log = Vec::new();
    let tell = |players: &mut Vec<Player>, to: Seat, msg: ToBot| {
        let got = players[to.index()].handle(&msg, &mut never);
        assert!(got.is_none(), "a notice got an answer: {msg:?}");
    };
    for s in Seat::ALL {
        let hello =
            ToBot::Hello { id: 1, protocol: 1, features: vec!["signals".into()], time_ms: 1000 };
        tell(&mut players, s, hello);
        tell(&mut players, s, game_message(&rules, s));
    }
    game.deal(deck).expect("a deck");
    for s in Seat::ALL {
        let hand = codes(game.hand(s));
        tell(&mut players, s, ToBot::Deal { deal: 1, dealer: 0, hand });
    }
    let mut id = 10;
    let mut opened = [false; 4];
    while game.deals_counted() == 0 {
        let turn = game.to_act().expect("the deal goes on");
        let seat = turn.seat().expect("a seat acts");
        id += 1;
        // Every seat answers its opening question before the first lead, in vote order.
        let question = match turn {
            Turn::Vote(_) => None,
            Turn::Play(_) => (1..=4u8).map(|k| dealer.plus(k)).find(|s| !opened[s.index()]),
            _ => None,
        };
        let asked = question.unwrap_or(seat);
        let view = game.view(asked);
        let msg = match turn {
            Turn::Vote(_) | Turn::Play(_) if !opened[asked.index()] => {
                opened[asked.index()] = true;
                let votes = Seat::ALL
                    .iter()
                    .filter_map(|s| {
                        view.votes[s.index()].map(|a| VoteCast { seat: s.index() as u8, accept: a })
                    })
                    .collect();
                ToBot::Opening {
                    id,
                    deal: 1,
                    dealer: 0,
                    vote: matches!(turn, Turn::Vote(_)),
                    votes,
                    hand: codes(view.hand),
                    time_ms: 1000,
                    bank_ms: 5000,
                }
            }
            Turn::Discard(_) => ToBot::Discard {
                id,
                deal: 1,
                hand: codes(view.hand),
                received: codes(view.received),
                rule: o::DiscardRule::Free,
                time_ms: 1000,
                bank_ms: 5000,
            },
            _ => ToBot::Play {
                id,
                deal: 1,
                trick: view.trick,
                leader: view.leader.index() as u8,
                table: view
                    .table()
                    .iter()
                    .map(|&(s, c)| TableCard { seat: s.index() as u8, card: code(c) })
                    .collect(),
                hand: codes(view.hand),
                won: view.tricks_won(),
                score: view.score,
                time_ms: 1000,
                bank_ms: 5000,
            },
        };
        // The seat is looked at as it decided: with the question read, and for a discard with
        // the engine holding the discard too.
        let discard = matches!(msg, ToBot::Discard { .. });
        let answer = players[asked.index()].handle(&msg, &mut never).expect("an answer");
        if !discard {
            look(asked, &players[asked.index()], &game);
        }
        log.push(protocol::codec::encode_line(&answer));
        let (action, signals) = match answer {
            FromBot::Opening { accept, signals, .. } => {
                (accept.map(|a| Action::Vote(a || force_chant)), signals)
            }
            FromBot::Discard { cards, signals, .. } => {
                (Some(Action::Discard(cards.iter().map(|&c| card(c)).collect())), signals)
            }
            FromBot::Play { card: c, signals, .. } => (Some(Action::Play(card(c))), signals),
            other => panic!("not an answer to a question: {other:?}"),
        };
        for word in &signals {
            let signal: Signal = word.parse().expect("a signal of the vocabulary");
            let Event::Signalled { seen_by, .. } =
                game.signal(asked, signal, [false, false]).expect("a true signal")
            else {
                unreachable!()
            };
            for s in Seat::ALL {
                if s != asked && seen_by[s.index()] {
                    let from = asked.index() as u8;
                    tell(&mut players, s, ToBot::Signal { from, signal: word.clone() });
                }
            }
        }
        let Some(action) = action else { continue };
        let events: Vec<Event> =
            game.apply(asked, action).expect("a legal answer").iter().copied().collect();
        if discard {
            look(asked, &players[asked.index()], &game);
        }
        for e in events {
            for s in Seat::ALL {
                let msg = match e {
                    Event::Voted { seat, accept } => {
                        ToBot::Vote { seat: seat.index() as u8, accept }
                    }
                    Event::ChantDecided { taken } => ToBot::Chant { taken },
                    Event::Played { seat, card } => {
                        ToBot::Played { seat: seat.index() as u8, card: code(card), trick: 1 }
                    }
                    _ => continue,
                };
                tell(&mut players, s, msg);
            }
        }
    }
    log
}
