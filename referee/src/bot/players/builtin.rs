//! Bots built into the referee, speaking the real protocol over in-memory pipes: the default
//! lineup that works on a fresh checkout with nothing installed, honest opponents for tests, and
//! the search bot (crate `aluette-search`) as the yardstick to measure bots against.

use protocol::msg::{FromBot, TableCard, ToBot};
use protocol::{CardCode, PROTOCOL_VERSION};
use rules::SplitMix64;
use rules::{Announcement, Card, CardSet, DiscardRule, Rules, SignalDelivery, SignalTruth};
use std::time::Instant;
use tokio::io::DuplexStream;

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
    /// The referee offered the feature `surrender`, and the heuristic and search bots take it up.
    surrender: bool,
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
            ToBot::Hello { id, features, .. } => {
                // The random bot stays without the rounds: the referee's automatic answers,
                // which cost least, answer for it.
                self.surrender = self.kind != Builtin::Random
                    && features.iter().any(|f| f == protocol::SURRENDER);
                Some(FromBot::Hello {
                    id,
                    name: self.kind.name().into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    author: None,
                    protocol: Some(PROTOCOL_VERSION),
                    token: None,
                    features: if self.surrender {
                        vec![protocol::SURRENDER.to_owned()]
                    } else {
                        Vec::new()
                    },
                })
            }
            ToBot::Offer { id, hand, .. } => Some(FromBot::Offer {
                id,
                offer: heuristic_offer(&hand_set(&hand)),
                signals: vec![],
            }),
            ToBot::Reply { id, hand, .. } => {
                let accept = !mordienne_hand(hand_set(&hand));
                Some(FromBot::Reply { id, accept, signals: vec![] })
            }
            ToBot::Announce { id, hand, .. } => {
                let announce = self.heuristic_announce(hand_set(&hand));
                Some(FromBot::Announce { id, announce, signals: vec![] })
            }
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

    /// Whether to announce (spec/rules.md section 12.3), only when it pays: under
    /// `announced-only` an announced mordienne scores 2 where an unannounced one scores 1, so
    /// without `announce-penalty` announcing costs nothing and is always made, and with it only
    /// with a hand that can make the mordienne. Under `announced` a mordienne scores 2 announced
    /// or not, so an announcement only risks the penalty: never made.
    fn heuristic_announce(&self, hand: CardSet) -> bool {
        match (self.rules.announce, self.rules.announce_penalty) {
            (Announcement::MatchToTen, false) => true,
            (Announcement::MatchToTen, true) => mordienne_hand(hand),
            _ => false,
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

/// Whether the heuristic offers to surrender (spec/rules.md section 12.2). An accepted offer
/// costs a sure point, while a deal played on costs at most 2 and is worth about 0 on average: an
/// offer pays only when the opponents are all but sure of a mordienne, which the heuristic sees
/// only in a hand with nothing above the jacks (levels 13 to 19), one that wins no trick.
fn heuristic_offer(hand: &CardSet) -> bool {
    hand.iter().all(|c| c.level() >= 13)
}

/// A hand that can make a mordienne on its own: at least three of the four great cards (`3o 3c
/// 2o 2c`), which nobody beats once kept for the last tricks. Refusing a surrender commits the
/// team to a mordienne, worth it over the sure point of accepting only with such a hand.
fn mordienne_hand(hand: CardSet) -> bool {
    hand.iter().filter(|c| c.level() <= 4).count() >= 3
}

/// Runs a built-in bot on its end of an in-memory pipe until the referee closes it.
pub(crate) async fn run(kind: Builtin, stream: DuplexStream, max_line: usize) {
    super::serve(state(kind), stream, max_line).await;
}

/// A built-in bot before its first message.
fn state(kind: Builtin) -> State {
    // No signals before a `game` message says which rules hold.
    let rules = Rules { signals: SignalDelivery::Off, ..Rules::default() };
    let search =
        (kind == Builtin::Search).then(|| search::Player::new(search::Settings::default()));
    State { kind, search, rng: SplitMix64::new(0), seat: 0, rules, surrender: false }
}

impl super::Player for State {
    fn answer(&mut self, msg: ToBot, asked: Instant) -> Option<FromBot> {
        State::answer(self, msg, asked)
    }

    // A search takes milliseconds of CPU: off the runtime's threads, which serve the referee's
    // own clocks meanwhile.
    fn blocking(&self) -> bool {
        self.search.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::codec::{decode_line, encode_line};
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
        State {
            kind,
            search: None,
            rng: SplitMix64::new(0),
            seat: 0,
            rules: Rules::default(),
            surrender: false,
        }
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

    /// Issue 24: the heuristic takes up `surrender` when offered and answers the rounds by what
    /// each answer costs (no offer with a hand that wins tricks, accept unless it holds three
    /// great cards, announce under `announced-only` where it is free); the random bot leaves
    /// them to the referee.
    #[test]
    fn the_heuristic_takes_up_the_rounds_and_weighs_them() {
        let hello = |features: &[&str]| {
            msg(json!({"type": "hello", "id": 1, "protocol": 1, "features": features,
                "time_ms": 1000}))
        };
        for (kind, offered, taken) in [
            (Builtin::Heuristic, true, true),
            (Builtin::Heuristic, false, false),
            (Builtin::Random, true, false),
        ] {
            let mut state = new_state(kind);
            let features = if offered { vec!["signals", "surrender"] } else { vec!["signals"] };
            let got = answer(&mut state, hello(&features))["features"].clone();
            let want = if taken { json!(["surrender"]) } else { json!([]) };
            assert_eq!(
                got.as_array().cloned().unwrap_or_default(),
                want.as_array().cloned().unwrap(),
                "{kind:?}"
            );
        }
        let cards = by_level();
        let (strong, weak) = (codes(&cards[..9]), codes(&cards[cards.len() - 9..]));
        let ask = |state: &mut State, kind: &str, hand: &[String]| {
            let q = msg(json!({"type": kind, "id": 4, "deal": 1, "seat": 0, "hand": hand,
                "score": [0, 0], "time_ms": 1000, "bank_ms": 5000}));
            let a = answer(state, q);
            a["offer"].as_bool().or(a["accept"].as_bool()).or(a["announce"].as_bool()).unwrap()
        };
        let mut state = new_state(Builtin::Heuristic);
        assert!(!ask(&mut state, "offer", &strong));
        assert!(ask(&mut state, "offer", &weak), "nothing above the jacks wins no trick");
        assert!(!ask(&mut state, "reply", &strong), "three great cards refuse");
        assert!(ask(&mut state, "reply", &weak));
        assert!(!ask(&mut state, "announce", &strong), "under announced it only risks");
        state.rules = Rules {
            announce: Announcement::MatchToTen,
            mordienne: false,
            length: rules::MatchLength::Target(10),
            ..Rules::default()
        };
        assert!(ask(&mut state, "announce", &weak), "free under announced-only");
        state.rules.announce_penalty = true;
        assert!(!ask(&mut state, "announce", &weak));
        assert!(ask(&mut state, "announce", &strong));
    }
}
