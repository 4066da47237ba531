//! The search bot as a conversation: it takes the referee's messages one by one, keeps the
//! seat's knowledge up to date from the notices, and answers the questions. It never reads a
//! clock: the caller passes one in with each message, and the budget of an answer is a share
//! of the time the question allows (`time_ms`, plus a slice of `bank_ms`).

use crate::decide::{self, Budget};
use crate::knowledge::Knowledge;
use convert::{card, code};
use protocol::CardCode;
use protocol::msg::{FromBot, ToBot};
use rules::derive_seed;
use rules::{CardSet, Rules, Seat, Signal, SignalDelivery, SignalTruth, SplitMix64, Turn};

/// How the bot searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Mixed into every decision's random stream.
    pub seed: u64,
    /// `Some(n)`: exactly `n` samples per decision and no look at the clock, so that the same
    /// seed gives the same answers (a replay re-drives it). `None`: as many as the time allows.
    pub samples: Option<u32>,
    /// The share of an answer's time to spend: the budget is `think` × (`time_ms` + `bank_ms`
    /// / 10), and never more than half of `time_ms`.
    pub think: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { seed: 0, samples: None, think: DEFAULT_THINK }
    }
}

/// The default share of the clock: 7.5 ms of the default 1000 ms answer and 5000 ms bank,
/// which holds a 400-set duplicate benchmark to about half an hour on two busy cores.
pub const DEFAULT_THINK: f64 = 0.005;

/// Samples taken even when the budget is spent, so that a busy machine still gets a decision
/// better than a guess.
const MIN_SAMPLES: u32 = 16;

/// Samples never exceeded in a timed decision: past this the choice no longer changes.
const MAX_SAMPLES: u32 = 20_000;

/// The search bot of one connection.
#[derive(Debug)]
pub struct Player {
    settings: Settings,
    signals_offered: bool,
    /// The referee offered the feature `surrender` (the bot takes it up, [`Player::features`]).
    surrender_offered: bool,
    rules: Rules,
    seat: Seat,
    game: u64,
    deal: u16,
    k: Option<Knowledge>,
    /// Signals to send with the next play answer (the hand after a discard).
    pending_signals: bool,
}

/// The game's rules, from the `game` message. The referee checked them before it sent them; a
/// field this referee does not know (a newer referee's) leaves the defaults, as the search needs
/// only what a deal's play depends on.
fn rules_of(w: &protocol::RulesWire) -> Rules {
    convert::rules_from_wire(w).map_or_else(|_| Rules::default(), |(rules, _)| rules)
}

fn set(codes: &[CardCode]) -> CardSet {
    convert::set(codes).0
}

/// The referee's seat numbers are 0..3.
fn seat(n: u8) -> Seat {
    Seat::new(n & 3).unwrap_or(Seat::ALL[0])
}

/// The decision kinds, mixed into each decision's seed.
const VOTE: u64 = 1;
const DISCARD: u64 = 2;
const PLAY: u64 = 3;
const PLEDGE: u64 = 4;

impl Player {
    /// A player with these settings.
    pub fn new(settings: Settings) -> Player {
        Player {
            settings,
            signals_offered: true,
            surrender_offered: false,
            rules: Rules::default(),
            seat: Seat::ALL[0],
            game: 0,
            deal: 0,
            k: None,
            pending_signals: false,
        }
    }

    /// Reads one message; returns the answer when it is a question. `elapsed_us` tells the
    /// microseconds since the message arrived; it is called only in a timed search.
    pub fn handle(&mut self, msg: &ToBot, elapsed_us: &mut dyn FnMut() -> u64) -> Option<FromBot> {
        match msg {
            ToBot::Hello { features, .. } => {
                self.signals_offered = features.iter().any(|f| f == "signals");
                self.surrender_offered = features.iter().any(|f| f == protocol::SURRENDER);
                None
            }
            ToBot::Offer { id, hand, time_ms, bank_ms, .. }
            | ToBot::Reply { id, hand, time_ms, bank_ms, .. }
            | ToBot::Announce { id, hand, time_ms, bank_ms, .. } => {
                // The rounds come after every discard: the hands are those of the play. A reply
                // names the offerer, whose `offered` notice may be missing (a question without
                // its notices).
                let offerer = match msg {
                    ToBot::Reply { seat: s, .. } => Some(seat(*s)),
                    _ => None,
                };
                let k = self.know(|k| {
                    k.playing = true;
                    k.hand = set(hand);
                    if let Some(o) = offerer {
                        k.pledges.offers[o.index()] = Some(true);
                    }
                });
                let turn = match msg {
                    ToBot::Offer { .. } => Turn::Offer(self.seat),
                    ToBot::Reply { .. } => Turn::Reply(self.seat),
                    _ => Turn::Announce(self.seat),
                };
                let mut rng = self.rng(PLEDGE, &k);
                let mut budget = self.budget(*time_ms, *bank_ms, elapsed_us);
                let yes = decide::pledge(&k, turn, &mut budget, &mut rng);
                let (id, signals) = (*id, Vec::new());
                Some(match turn {
                    Turn::Offer(_) => FromBot::Offer { id, offer: yes, signals },
                    Turn::Reply(_) => FromBot::Reply { id, accept: !yes, signals },
                    _ => FromBot::Announce { id, announce: yes, signals },
                })
            }
            ToBot::Offered { seat: s, offer } => {
                self.update(|k| {
                    k.playing = true;
                    k.pledges.offers[seat(*s).index()] = Some(*offer);
                });
                None
            }
            ToBot::Replied { seat: s, accept } => {
                self.update(|k| k.pledges.replies[seat(*s).index()] = Some(*accept));
                None
            }
            ToBot::Announced { seat: s, announce } => {
                self.update(|k| {
                    k.playing = true;
                    k.pledges.announces[seat(*s).index()] = Some(*announce);
                });
                None
            }
            ToBot::Game { game, seat: s, rules, .. } => {
                self.game = *game;
                self.seat = seat(*s);
                self.rules = rules_of(rules);
                self.k = None;
                None
            }
            ToBot::Deal { deal, dealer, hand } => {
                self.deal = *deal;
                self.pending_signals = false;
                self.k = Some(Knowledge::new(self.rules, self.seat, seat(*dealer), set(hand)));
                None
            }
            ToBot::Opening { id, vote, hand, time_ms, bank_ms, .. } => {
                let k = self.know(|k| k.hand = set(hand));
                let accept = vote.then(|| {
                    let mut rng = self.rng(VOTE, &k);
                    decide::vote(&k, &mut self.budget(*time_ms, *bank_ms, elapsed_us), &mut rng)
                });
                let signals = self.signals_of(k.hand);
                Some(FromBot::Opening { id: *id, accept, signals })
            }
            ToBot::Vote { accept, .. } => {
                if !accept {
                    self.update(|k| k.on_chant(false));
                }
                None
            }
            ToBot::Chant { taken } => {
                self.update(|k| k.on_chant(*taken));
                None
            }
            ToBot::Discard { id, hand, received, time_ms, bank_ms, .. } => {
                let k = self.know(|k| k.on_received(set(hand), set(received)));
                let mut rng = self.rng(DISCARD, &k);
                let cards =
                    decide::discard(&k, &mut self.budget(*time_ms, *bank_ms, elapsed_us), &mut rng);
                self.update(|k| k.on_discarded(cards));
                self.pending_signals = true;
                Some(FromBot::Discard {
                    id: *id,
                    cards: cards.iter().map(code).collect(),
                    signals: Vec::new(),
                })
            }
            ToBot::Play { id, hand, table, leader, time_ms, bank_ms, .. } => {
                let k = self.know(|k| {
                    k.playing = true;
                    k.hand = set(hand);
                    k.leader = seat(*leader);
                    k.table = table.iter().map(|t| (seat(t.seat), card(t.card))).collect();
                });
                let mut rng = self.rng(PLAY, &k);
                let pick =
                    decide::play(&k, &mut self.budget(*time_ms, *bank_ms, elapsed_us), &mut rng)?;
                let signals = if std::mem::take(&mut self.pending_signals) {
                    self.signals_of(k.hand)
                } else {
                    Vec::new()
                };
                Some(FromBot::Play { id: *id, card: code(pick), signals })
            }
            ToBot::Played { seat: s, card: c, .. } => {
                self.update(|k| k.on_played(seat(*s), card(*c)));
                None
            }
            ToBot::Signal { from, signal } => {
                if let Ok(signal) = signal.parse::<Signal>() {
                    self.update(|k| k.see(seat(*from), signal));
                }
                None
            }
            _ => None,
        }
    }

    /// The features to take up in the `hello` answer: `surrender` when the referee offers it,
    /// since the search answers the rounds before the first lead.
    pub fn features(&self) -> Vec<String> {
        if self.surrender_offered { vec![protocol::SURRENDER.to_owned()] } else { Vec::new() }
    }

    /// What this seat knows of the current deal, once a deal has started.
    pub fn knowledge(&self) -> Option<&Knowledge> {
        self.k.as_ref()
    }

    /// The deal's knowledge after `change`, kept and returned (a fresh one if a question
    /// comes without its `deal` notice).
    fn know(&mut self, change: impl FnOnce(&mut Knowledge)) -> Knowledge {
        let k = self.k.get_or_insert_with(|| {
            Knowledge::new(self.rules, self.seat, Seat::ALL[0], CardSet::EMPTY)
        });
        change(k);
        k.clone()
    }

    fn update(&mut self, change: impl FnOnce(&mut Knowledge)) {
        if let Some(k) = &mut self.k {
            change(k);
        }
    }

    /// The random stream of one decision: from the seed, the game, the seat and the moment, so
    /// that a decision never depends on how many samples earlier ones took.
    fn rng(&self, kind: u64, k: &Knowledge) -> SplitMix64 {
        let moment = u64::from(k.tricks_done) * 4 + k.table.len() as u64;
        SplitMix64::new(derive_seed(&[
            self.settings.seed,
            self.game,
            self.seat.index() as u64,
            u64::from(self.deal),
            kind,
            moment,
        ]))
    }

    fn budget<'a>(
        &self,
        time_ms: u64,
        bank_ms: u64,
        elapsed_us: &'a mut dyn FnMut() -> u64,
    ) -> Budget<'a> {
        let spend = self.settings.think * (time_ms as f64 + bank_ms as f64 / 10.0);
        let limit_us = (spend.min(time_ms as f64 / 2.0) * 1000.0) as u64;
        match self.settings.samples {
            Some(n) => Budget { max_samples: n, min_samples: n, deadline_us: None, elapsed_us },
            None => Budget {
                max_samples: MAX_SAMPLES,
                min_samples: MIN_SAMPLES,
                deadline_us: Some(limit_us),
                elapsed_us,
            },
        }
    }

    /// True signals that help the partner read this hand: each top card held and the number
    /// of aces, when the rules deliver signals and require them true.
    fn signals_of(&self, hand: CardSet) -> Vec<String> {
        if !self.signals_offered
            || self.rules.signals == SignalDelivery::Off
            || self.rules.signal_truth != SignalTruth::Truthful
        {
            return Vec::new();
        }
        let mut out: Vec<String> =
            hand.iter().filter(|c| c.level() <= 8).map(|c| Signal::Holds(c).to_string()).collect();
        let aces = hand.iter().filter(|c| c.rank() == rules::Rank::Ace).count() as u8;
        out.truncate(7);
        out.push(Signal::Aces(aces).to_string());
        out
    }
}
