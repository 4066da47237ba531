//! Bots built into the referee, speaking the real protocol over in-memory pipes: the default
//! lineup that works on a fresh checkout with nothing installed, and honest opponents for tests.

use protocol::codec::{LineFramer, decode_line, encode_line};
use protocol::msg::{FromBot, TableCard, ToBot};
use protocol::{CardCode, PROTOCOL_VERSION};
use rules::{Card, CardSet, SplitMix64};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// The built-in strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// Plays sensibly: takes tricks cheaply, lets its partner win, signals its top cards.
    Heuristic,
    /// Plays a random card; votes and discards at random (seeded, so games reproduce).
    Random,
}

impl Builtin {
    pub(crate) fn parse(name: &str) -> Option<Builtin> {
        match name {
            "heuristic" => Some(Builtin::Heuristic),
            "random" => Some(Builtin::Random),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::Heuristic => "builtin-heuristic",
            Builtin::Random => "builtin-random",
        }
    }
}

fn card(c: CardCode) -> Card {
    crate::convert::card(c)
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
    rng: SplitMix64,
    seat: u8,
    signals_on: bool,
    truthful: bool,
}

impl State {
    fn answer(&mut self, msg: ToBot) -> Option<FromBot> {
        match msg {
            ToBot::Hello { id, .. } => Some(FromBot::Hello {
                id,
                name: self.kind.name().into(),
                version: env!("CARGO_PKG_VERSION").into(),
                author: None,
                protocol: Some(PROTOCOL_VERSION),
                token: None,
            }),
            ToBot::Game { game, seat, rules, .. } => {
                self.seat = seat;
                self.signals_on = rules.signals != protocol::options::Signals::Off;
                self.truthful = rules.signal_truth == protocol::options::SignalTruth::Truthful;
                self.rng = SplitMix64::new(rules::derive_seed(&[game, u64::from(seat)]));
                None
            }
            ToBot::Opening { id, vote, hand, .. } => {
                let hand = hand_set(&hand);
                let accept = vote.then(|| match self.kind {
                    Builtin::Random => self.rng.below(2) == 0,
                    // Strong cards are worth keeping the deal as it is only when few are held.
                    Builtin::Heuristic => hand.iter().filter(|c| c.level() <= 9).count() < 3,
                });
                Some(FromBot::Opening { id, accept, signals: self.top_card_signals(hand) })
            }
            ToBot::Discard { id, hand, rule, .. } => {
                let hand = hand_set(&hand);
                // Under keep-highest only the weakest six are allowed, so even the random bot
                // obeys it.
                let cards: Vec<Card> = if self.kind == Builtin::Random
                    && rule == protocol::options::DiscardRule::Free
                {
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
                let cards = cards.into_iter().map(crate::convert::code).collect();
                Some(FromBot::Discard { id, cards, signals: vec![] })
            }
            ToBot::Play { id, hand, table, .. } => {
                let hand = hand_set(&hand);
                let pick = match self.kind {
                    Builtin::Random => hand.nth(self.rng.below(hand.len() as u64) as usize)?,
                    Builtin::Heuristic => self.heuristic_play(hand, &table)?,
                };
                Some(FromBot::Play { id, card: crate::convert::code(pick), signals: vec![] })
            }
            _ => None,
        }
    }

    fn top_card_signals(&self, hand: CardSet) -> Vec<String> {
        if self.kind != Builtin::Heuristic || !self.signals_on || !self.truthful {
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
    let mut state =
        State { kind, rng: SplitMix64::new(0), seat: 0, signals_on: false, truthful: true };
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
            if let Some(answer) = state.answer(msg) {
                out.push_str(&encode_line(&answer));
            }
        }
        if !out.is_empty() && writer.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}
