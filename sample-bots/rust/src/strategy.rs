//! The bot's decisions, apart from all I/O so they stay cheap and easy to read: what to vote,
//! discard, signal and play, either by heuristic or (for benchmarks) at random.

use crate::cards::{self, CardSet};
use protocol::CardCode;
use protocol::msg::TableCard;

/// A tiny xorshift generator: reproducible, no dependency, no allocation.
#[derive(Debug)]
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator from a seed (zero is replaced, since xorshift would stay at zero).
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What the bot remembers across messages.
#[derive(Debug)]
pub(crate) struct Bot {
    /// Some: play at random (the "instant" benchmark bot).
    rng: Option<XorShift>,
    seat: u8,
    partner: u8,
    /// The referee offered the `signals` feature in `hello`.
    signals_offered: bool,
    /// Signals may be sent in the current game.
    signals_on: bool,
    /// The referee offered the `surrender` feature in `hello` (and the heuristic takes it up).
    surrender: bool,
    /// The second chant recipient is the dealer (else the dealer's partner).
    second_is_dealer: bool,
    /// Cards known to be out of play this deal: played, or discarded by us.
    gone: CardSet,
    /// Top cards our partner said it holds this deal.
    partner_holds: CardSet,
}

impl Bot {
    /// A heuristic bot, or a random one when `random` is set.
    pub(crate) fn new(random: bool) -> Bot {
        Bot {
            rng: random.then(|| XorShift::new(1)),
            seat: 0,
            partner: 2,
            signals_offered: true,
            signals_on: false,
            surrender: false,
            second_is_dealer: true,
            gone: 0,
            partner_holds: 0,
        }
    }

    /// Whether the bot acts on messages of this `type`. The others (`vote`, `chant`, `trick`,
    /// `deal_over`, `game_over` and types it does not know) may be skipped unread; so may `played`
    /// and `signal` at random, since only the heuristic keeps track of cards and signals.
    pub(crate) fn needs(&self, kind: &[u8]) -> bool {
        match kind {
            b"hello" | b"game" | b"deal" | b"opening" | b"discard" | b"play" | b"error"
            | b"bye" | b"offer" | b"reply" | b"announce" => true,
            b"played" | b"signal" => self.rng.is_none(),
            _ => false,
        }
    }

    /// Notes the features offered in `hello`.
    pub(crate) fn on_hello(&mut self, features: &[String]) {
        self.signals_offered = features.iter().any(|f| f == "signals");
        // The random player stays without the pre-lead rounds: the fallback answers for it.
        self.surrender = self.rng.is_none() && features.iter().any(|f| f == protocol::SURRENDER);
    }

    /// The features to take up in the `hello` answer.
    pub(crate) fn features(&self) -> Vec<String> {
        if self.surrender { vec![protocol::SURRENDER.to_owned()] } else { Vec::new() }
    }

    /// The surrender round (spec/rules.md section 12.2): offer when the hand is useless, no top
    /// card and at most one ace, and the partner has signalled no top card either. Giving the
    /// opponents one point is cheaper than the likely loss, and a refusal then gives us 2 unless
    /// they make a mordienne.
    pub(crate) fn offer(&self, hand: &[CardCode]) -> bool {
        let tops = hand.iter().filter(|&&c| cards::level(c) <= 8).count();
        let aces = hand.iter().filter(|&&c| cards::is_ace(c)).count();
        tops == 0 && aces <= 1 && self.partner_holds == 0
    }

    /// Whether to accept the opponents' surrender: always, except with a mordienne in hand,
    /// which needs the last tricks won by one player: at least three of the four great cards
    /// (`3o 3c 2o 2c`), which nobody can beat once kept for the end.
    pub(crate) fn accept(&self, hand: &[CardCode]) -> bool {
        !mordienne_hand(hand)
    }

    /// Whether to announce a mordienne (spec/rules.md section 12.3): with the same hand that
    /// refuses a surrender.
    pub(crate) fn announce(&self, hand: &[CardCode]) -> bool {
        mordienne_hand(hand)
    }

    /// A game starts.
    pub(crate) fn on_game(
        &mut self,
        game: u64,
        seat: u8,
        partner: u8,
        signals: &str,
        chant_second: &str,
    ) {
        self.seat = seat;
        self.partner = partner;
        self.signals_on = self.signals_offered && signals != "off";
        self.second_is_dealer = chant_second != "partner";
        if let Some(rng) = &mut self.rng {
            // Reproducible whatever the order of games on the connection.
            *rng = XorShift::new(game.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(seat) << 56);
        }
    }

    /// A deal starts: forget what we knew about the previous one.
    pub(crate) fn on_deal(&mut self) {
        self.gone = 0;
        self.partner_holds = 0;
    }

    /// A card was played by anyone.
    pub(crate) fn on_played(&mut self, card: CardCode) {
        self.gone |= cards::bit(card);
    }

    /// A signal reached us.
    pub(crate) fn on_signal(&mut self, from: u8, signal: &str) {
        if from == self.partner
            && let Some(card) = cards::signalled_card(signal)
        {
            self.partner_holds |= 1 << card;
        }
    }

    /// The chant vote, asked only when `vote` is true.
    pub(crate) fn vote(&mut self, dealer: u8, hand: &[CardCode]) -> bool {
        if let Some(rng) = &mut self.rng {
            return rng.next() & 1 == 0;
        }
        let second = if self.second_is_dealer { dealer } else { (dealer + 2) % 4 };
        // The two recipients choose from six more cards; anyone else with a good hand keeps
        // its edge only while the chant is refused.
        let receives = self.seat == (dealer + 1) % 4 || self.seat == second;
        let strong = hand.iter().filter(|&&c| cards::level(c) <= 8).count();
        receives || strong <= 1
    }

    /// True signals for the opening: each top card held, the number of aces, or bad-hand.
    pub(crate) fn opening_signals(&self, hand: &[CardCode]) -> Vec<String> {
        if !self.signals_on || self.rng.is_some() {
            return Vec::new();
        }
        let held = cards::set_of(hand);
        let mut out: Vec<String> = (0..8)
            .filter(|&lvl| held & (1 << cards::TOP_CARD[lvl]) != 0)
            .map(|lvl| cards::CARD_SIGNALS[lvl].to_owned())
            .collect();
        let aces = hand.iter().filter(|&&c| cards::is_ace(c)).count();
        let no_tops = out.is_empty();
        out.push(cards::ACES_SIGNALS[aces.min(4)].to_owned());
        if no_tops && aces == 0 {
            out.push("bad-hand".to_owned());
        }
        out
    }

    /// Six distinct cards of `hand` to discard, and signals true before and after the discard.
    pub(crate) fn discard(
        &mut self,
        hand: &[CardCode],
        received: &[CardCode],
        keep_highest: bool,
    ) -> (Vec<CardCode>, Vec<String>) {
        let mut order: Vec<CardCode> = hand.to_vec();
        if let (Some(rng), false) = (&mut self.rng, keep_highest) {
            for i in 0..6.min(order.len()) {
                let j = i + rng.below(order.len() - i);
                order.swap(i, j);
            }
        } else {
            // The weakest six: legal under free choice and keep-highest alike.
            order.sort_unstable_by_key(|&c| (std::cmp::Reverse(cards::level(c)), c));
        }
        order.truncate(6);
        self.gone |= cards::set_of(&order);
        let mut signals = Vec::new();
        if self.signals_on && self.rng.is_none() {
            for &card in received {
                let lvl = cards::level(card);
                if lvl <= 8 && !order.contains(&card) {
                    signals.push(cards::CARD_SIGNALS[lvl as usize - 1].to_owned());
                }
            }
        }
        (order, signals)
    }

    /// The card to play; `None` only for an empty hand, which the referee never asks about.
    pub(crate) fn play(&mut self, hand: &[CardCode], table: &[TableCard]) -> Option<CardCode> {
        // The weakest card of the hand: also proves the hand is not empty.
        let weakest = pick(hand, |_| true)?;
        if let Some(rng) = &mut self.rng {
            return Some(hand[rng.below(hand.len())]);
        }
        for t in table {
            self.gone |= cards::bit(t.card);
        }
        let unknown = cards::ALL_CARDS & !cards::set_of(hand) & !self.gone & !self.partner_holds;
        // The strongest level an opponent may still hold (the hidden talon included).
        let threat = cards::strongest_level(unknown);

        let Some(best_level) = table.iter().map(|t| cards::level(t.card)).min() else {
            // Lead a card nobody can match or beat; otherwise lead low and let others spend.
            let strongest = strongest(hand).unwrap_or(weakest);
            return Some(if cards::level(strongest) < threat { strongest } else { weakest });
        };
        let mut at_best = table.iter().filter(|t| cards::level(t.card) == best_level);
        let winner = match (at_best.next(), at_best.next()) {
            (Some(t), None) => Some(t.seat),
            _ => None, // spoiled so far
        };
        let beat = pick(hand, |l| l < best_level); // the cheapest winning card
        let equal = pick(hand, |l| l == best_level);
        let low = pick(hand, |l| l > best_level).unwrap_or(weakest);

        if winner == Some(self.partner) {
            // Leave it to the partner, and never match (so spoil) the partner's card.
            return pick(hand, |l| l > best_level).or(beat).or(Some(weakest));
        }
        let opponent_winning = winner.is_some();
        if table.len() == 3 {
            return beat.or(equal.filter(|_| opponent_winning)).or(Some(low));
        }
        let safe_limit = best_level.min(threat);
        if let Some(safe) = pick(hand, |l| l < safe_limit) {
            return Some(safe);
        }
        // Seats alternate teams, so after the first card our partner still plays last.
        let partner_to_play = table.len() == 1;
        if partner_to_play && cards::strongest_level(self.partner_holds & !self.gone) < safe_limit {
            return Some(low);
        }
        if opponent_winning {
            // Make the opponents pay for the trick, or spoil it.
            return beat.or(equal).or(Some(low));
        }
        Some(low)
    }
}

/// The weakest card whose level satisfies `keep` (ties: the smallest code), if any.
/// At least three of the four great cards: the last three tricks are the holder's to take.
fn mordienne_hand(hand: &[CardCode]) -> bool {
    hand.iter().filter(|&&c| cards::level(c) <= 4).count() >= 3
}

fn pick(hand: &[CardCode], keep: impl Fn(u8) -> bool) -> Option<CardCode> {
    hand.iter()
        .copied()
        .filter(|&c| keep(cards::level(c)))
        .max_by_key(|&c| (cards::level(c), std::cmp::Reverse(c)))
}

/// The strongest card of the hand (ties: the smallest code).
fn strongest(hand: &[CardCode]) -> Option<CardCode> {
    hand.iter().copied().min_by_key(|&c| (cards::level(c), c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(codes: &str) -> Vec<CardCode> {
        codes.split(' ').map(|c| c.parse().unwrap()).collect()
    }

    /// The rule of sample-bots/README.md: offer with a useless hand, refuse and announce with
    /// three of the four great cards; the random player does not take the feature up.
    #[test]
    fn the_surrender_rule() {
        let mut bot = Bot::new(false);
        bot.on_hello(&["signals".into(), "surrender".into()]);
        assert_eq!(bot.features(), ["surrender"]);
        let useless = hand("4o 5o 6c 7c 8s Js Cb Kb Ab");
        let great = hand("3o 3c 2c 4o 5o 6c 7c 8s Js");
        assert!(bot.offer(&useless) && !bot.offer(&great));
        assert!(bot.accept(&useless) && !bot.accept(&great));
        assert!(!bot.announce(&useless) && bot.announce(&great));
        bot.on_signal(2, "madame");
        assert!(!bot.offer(&useless), "the partner holds a top card");
        let mut random = Bot::new(true);
        random.on_hello(&["surrender".into()]);
        assert!(random.features().is_empty());
    }
}
