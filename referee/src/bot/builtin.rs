//! Bots built into the referee, speaking the real protocol over in-memory pipes: the default
//! lineup that works on a fresh checkout with nothing installed, honest opponents for tests, and
//! the search bot (crate `aluette-search`) as the yardstick to measure bots against.

use protocol::codec::{LineFramer, decode_line, encode_line};
use protocol::msg::{FromBot, TableCard, ToBot};
use protocol::{CardCode, PROTOCOL_VERSION};
use rules::{Card, CardSet, DiscardRule, Rules, SignalDelivery, SignalTruth, SplitMix64};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// The built-in strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// Plays sensibly: takes tricks cheaply, lets its partner win, signals its top cards.
    Heuristic,
    /// Plays a random card; votes and discards at random (seeded, so games reproduce).
    Random,
    /// Searches: determinized Monte-Carlo at the search crate's default share of the clock.
    Search,
}

impl Builtin {
    pub(crate) fn parse(name: &str) -> Option<Builtin> {
        match name {
            "heuristic" => Some(Builtin::Heuristic),
            "random" => Some(Builtin::Random),
            "search" => Some(Builtin::Search),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::Heuristic => "builtin-heuristic",
            Builtin::Random => "builtin-random",
            Builtin::Search => "builtin-search",
        }
    }
}

fn card(c: CardCode) -> Card {
    convert::card(c)
}

fn hand_set(hand: &[CardCode]) -> CardSet {
    hand.iter().map(|&c| card(c)).collect()
}

/// Weakest first; ties in canonical order, as the referee's fallback does.
fn weakest_first(set: CardSet) -> Vec<Card> {
    let mut v: Vec<Card> = set.iter().collect();
    v.sort_by_key(|c| (std::cmp::Reverse(c.level()), c.index()));
    v
}

struct State {
    kind: Builtin,
    /// The search bot's own state, for [`Builtin::Search`].
    search: Option<search::Player>,
    rng: SplitMix64,
    seat: u8,
    /// The game's rules, from its `game` message.
    rules: Rules,
}

impl State {
    /// The answer to `msg`; `asked` is when it arrived, the search's clock. The search bot
    /// answers everything but `hello` itself; the rest of this function is the other two.
    fn answer(&mut self, msg: ToBot, asked: Instant) -> Option<FromBot> {
        if let Some(player) = &mut self.search {
            let mut elapsed = || asked.elapsed().as_micros() as u64;
            let answer = player.handle(&msg, &mut elapsed);
            if !matches!(msg, ToBot::Hello { .. }) {
                return answer;
            }
        }
        match msg {
            ToBot::Hello { id, .. } => Some(FromBot::Hello {
                id,
                name: self.kind.name().into(),
                version: env!("CARGO_PKG_VERSION").into(),
                author: None,
                protocol: Some(PROTOCOL_VERSION),
                token: None,
                features: Vec::new(),
            }),
            ToBot::Game { game, seat, rules, .. } => {
                self.seat = seat;
                // The referee's own message states valid rules; were one not, the defaults.
                self.rules =
                    convert::rules_from_wire(&rules).map_or_else(|_| Rules::default(), |r| r.0);
                self.rng = SplitMix64::new(rules::derive_seed(&[game, u64::from(seat)]));
                None
            }
            ToBot::Opening { id, vote, hand, .. } => {
                let hand = hand_set(&hand);
                let accept = vote.then(|| match self.kind {
                    Builtin::Random => self.rng.below(2) == 0,
                    // Strong cards are worth keeping the deal as it is only when few are held.
                    _ => hand.iter().filter(|c| c.level() <= 9).count() < 3,
                });
                Some(FromBot::Opening { id, accept, signals: self.top_card_signals(hand) })
            }
            ToBot::Discard { id, hand, .. } => {
                let hand = hand_set(&hand);
                // Under keep-highest only the weakest six are allowed, so even the random bot
                // obeys it.
                let free = self.rules.discard == DiscardRule::Free;
                let cards: Vec<Card> = if self.kind == Builtin::Random && free {
                    let mut left = hand;
                    let mut out = Vec::new();
                    while out.len() < 6 {
                        let c = left.nth(self.rng.below(left.len() as u64) as usize)?;
                        left = left.without(c);
                        out.push(c);
                    }
                    out
                } else {
                    weakest_first(hand).into_iter().take(6).collect()
                };
                let cards = cards.into_iter().map(convert::code).collect();
                Some(FromBot::Discard { id, cards, signals: vec![] })
            }
            ToBot::Play { id, hand, table, .. } => {
                let hand = hand_set(&hand);
                let pick = match self.kind {
                    Builtin::Random => hand.nth(self.rng.below(hand.len() as u64) as usize)?,
                    _ => self.heuristic_play(hand, &table)?,
                };
                Some(FromBot::Play { id, card: convert::code(pick), signals: vec![] })
            }
            _ => None,
        }
    }

    fn top_card_signals(&self, hand: CardSet) -> Vec<String> {
        if self.kind != Builtin::Heuristic
            || self.rules.signals == SignalDelivery::Off
            || self.rules.signal_truth != SignalTruth::Truthful
        {
            return vec![];
        }
        hand.iter()
            .filter(|c| c.level() <= 8)
            .map(|c| rules::Signal::Holds(c).to_string())
            .collect()
    }

    fn heuristic_play(&self, hand: CardSet, table: &[TableCard]) -> Option<Card> {
        let weakest = weakest_first(hand);
        let Some(best_level) = table.iter().map(|t| card(t.card).level()).min() else {
            return weakest.first().copied();
        };
        let holders: Vec<u8> =
            table.iter().filter(|t| card(t.card).level() == best_level).map(|t| t.seat).collect();
        let partner_wins = holders == [(self.seat + 2) % 4];
        if partner_wins {
            return weakest.first().copied();
        }
        // The cheapest card that beats the table, else the cheapest that spoils an opponent's
        // trick when playing last, else the weakest.
        let winner = weakest.iter().find(|c| c.level() < best_level);
        let spoiler =
            (table.len() == 3).then(|| weakest.iter().find(|c| c.level() == best_level)).flatten();
        winner.or(spoiler).or(weakest.first()).copied()
    }
}

/// Runs a built-in bot on its end of an in-memory pipe until the referee closes it.
pub(crate) async fn run(kind: Builtin, stream: DuplexStream, max_line: usize) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    // No signals before a `game` message says which rules hold.
    let rules = Rules { signals: SignalDelivery::Off, ..Rules::default() };
    let search =
        (kind == Builtin::Search).then(|| search::Player::new(search::Settings::default()));
    let mut state = State { kind, search, rng: SplitMix64::new(0), seat: 0, rules };
    let mut framer = LineFramer::new(max_line);
    let mut buf = vec![0u8; 8192];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&buf[..n]);
        let mut out = String::new();
        while let Some(frame) = framer.next_line() {
            let protocol::codec::Frame::Line(line) = frame else { continue };
            let Ok(msg) = decode_line::<ToBot>(line) else { continue };
            if matches!(msg, ToBot::Bye { .. }) {
                return;
            }
            let asked = Instant::now();
            let answer = if state.search.is_some() && msg.id().is_some() {
                // A search takes milliseconds of CPU: off the runtime's threads, which serve
                // the referee's own clocks meanwhile.
                let Ok((back, answer)) = tokio::task::spawn_blocking(move || {
                    let answer = state.answer(msg, asked);
                    (state, answer)
                })
                .await
                else {
                    return;
                };
                state = back;
                answer
            } else {
                state.answer(msg, asked)
            };
            if let Some(answer) = answer {
                out.push_str(&encode_line(&answer));
            }
        }
        if !out.is_empty() && writer.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::options::Seating;
    use serde_json::{Value, json};

    /// A message as the referee would send it, decoded as the bot decodes it.
    fn msg(v: Value) -> ToBot {
        decode_line::<ToBot>(format!("{v}\n").as_bytes()).expect("a referee message")
    }

    /// The bot's answer as JSON.
    fn answer(state: &mut State, m: ToBot) -> Value {
        let line = encode_line(&state.answer(m, Instant::now()).expect("an answer"));
        serde_json::from_str(&line).unwrap()
    }

    fn game(no: u64, rules: &Rules) -> ToBot {
        msg(json!({"type": "game", "game": no, "seat": 1, "partner": 3,
            "players": ["a", "b", "c", "d"], "rules": convert::rules_wire(rules, Seating::Given),
            "clock": {"handshake_ms": 10000, "answer_ms": 1000, "bank_ms": 5000}}))
    }

    fn by_level() -> Vec<Card> {
        let mut cards: Vec<Card> = Card::all().collect();
        cards.sort_by_key(|c| (c.level(), c.index()));
        cards
    }

    fn codes(cards: &[Card]) -> Vec<String> {
        cards.iter().map(|&c| convert::code(c).as_str().to_string()).collect()
    }

    fn new_state(kind: Builtin) -> State {
        State { kind, search: None, rng: SplitMix64::new(0), seat: 0, rules: Rules::default() }
    }

    /// The heuristic bot signals its top cards only when the game's rules deliver signals and
    /// want them true, as its `game` message states them.
    #[test]
    fn signals_follow_the_rules_of_the_game_message() {
        let opening = || {
            msg(json!({"type": "opening", "id": 2, "deal": 1, "dealer": 0, "vote": false,
                "votes": [], "hand": codes(&by_level()[..9]), "time_ms": 1000, "bank_ms": 5000}))
        };
        let cases = [
            (Rules::default(), true),
            (Rules { signals: SignalDelivery::Off, ..Rules::default() }, false),
            (Rules { signals: SignalDelivery::Leaky, ..Rules::default() }, true),
            (Rules { signal_truth: SignalTruth::Free, ..Rules::default() }, false),
        ];
        for (rules, signals) in cases {
            let mut state = new_state(Builtin::Heuristic);
            assert_eq!(state.answer(game(1, &rules), Instant::now()), None);
            let sent = answer(&mut state, opening())["signals"].as_array().map_or(0, Vec::len);
            assert_eq!(sent > 0, signals, "{rules:?}");
        }
    }

    /// Under keep-highest even the random bot discards its weakest six; under free it picks.
    #[test]
    fn the_random_bot_discards_by_the_rule_of_the_game() {
        let cards = by_level();
        let hand = codes(&cards[..15]);
        let weakest: Vec<String> =
            codes(&weakest_first(cards[..15].iter().copied().collect())[..6]);
        let discard = |rule: DiscardRule| {
            msg(json!({"type": "discard", "id": 3, "deal": 1, "hand": hand,
                "received": hand[..6], "rule": convert::discard_rule(rule),
                "time_ms": 1000, "bank_ms": 5000}))
        };
        let mut differs = 0;
        for no in 1..=8 {
            for rule in [DiscardRule::Free, DiscardRule::KeepHighest] {
                let mut state = new_state(Builtin::Random);
                state
                    .answer(game(no, &Rules { discard: rule, ..Rules::default() }), Instant::now());
                let got: Vec<String> =
                    serde_json::from_value(answer(&mut state, discard(rule))["cards"].clone())
                        .unwrap();
                match rule {
                    DiscardRule::KeepHighest => assert_eq!(got, weakest, "game {no}"),
                    DiscardRule::Free => differs += usize::from(got != weakest),
                }
            }
        }
        assert!(differs > 0, "the free discards were all the weakest six");
    }
}
