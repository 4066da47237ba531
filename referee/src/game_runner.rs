//! Drives one game: the rules decide, this module does the talking, the clock and the record.
//! A bot's misbehaviour becomes a fault line and a fallback move, never an error here.

use crate::bot::ask::{IgnoredLines, MAX_IGNORED_KEPT};
use crate::bot::{Bot, Reply};
use crate::convert::{self, code, codes, seat_no, table_card};
use crate::fault::Fault;
use crate::judge::{self, Refusal};
use crate::policy::{self, Policy};
use crate::record_io::Recorder;
use crate::shutdown::Shutdown;
use protocol::msg::{Clock, FromBot, ToBot, VoteCast};
use protocol::record::{
    FaultKind, FaultRecord, Footer, Header, Penalty, RecordLine, SeatInfo, SeatStats,
};
use protocol::record::{GameStatus, RECORD_FORMAT, RECORD_VERSION};
use rules::{Action, Card, Deck, Event, Events, Game, Rules, Seat, SeatView, SignalDelivery};
use rules::{SplitMix64, Team, Turn, derive_seed};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Ignored lines (stale or unknown ids) recorded per seat and game; more are only counted.
pub(crate) const MAX_IGNORED_RECORDED: u32 = MAX_IGNORED_KEPT as u32;
/// Tag mixed into the game seed for the leaky-signal coin flips.
const LEAK_TAG: u64 = 0x5349_474E;

/// Everything fixed about the games of a match or tournament.
#[derive(Clone, Debug)]
pub(crate) struct GameConfig {
    pub(crate) rules: Rules,
    pub(crate) seating_draw: bool,
    pub(crate) clock: Clock,
    pub(crate) policy: Policy,
}

/// One game to play.
#[derive(Clone, Debug)]
pub(crate) struct GameSetup {
    /// 1-based game number, as in the record's name.
    pub(crate) game_no: u64,
    pub(crate) match_seed: u64,
    /// The game's seed, from which every deck and coin flip derives. A match uses
    /// [`game_seed`]; duplicate tournaments give both rooms of a deal set the same seed.
    pub(crate) seed: u64,
    pub(crate) first_dealer: Seat,
    /// Cards turned up by a seating draw, for the record.
    pub(crate) draw: Option<Vec<Card>>,
}

/// The seed of game `game_no` of a match: a documented, fixed derivation.
pub(crate) fn game_seed(match_seed: u64, game_no: u64) -> u64 {
    derive_seed(&[match_seed, game_no])
}

/// The deck of deal `deal` (1-based) of a game: a documented, fixed derivation.
pub(crate) fn deck_for(game_seed: u64, deal: u16) -> Deck {
    Deck::shuffled(derive_seed(&[game_seed, u64::from(deal)]))
}

/// The votes of the deal `view` sees, in the order cast: from the dealer's left
/// (spec/protocol.md section 4.4).
pub(crate) fn votes_cast(view: &SeatView) -> Vec<VoteCast> {
    (1..=4)
        .map(|k| view.dealer.plus(k))
        .filter_map(|s| view.votes[s.index()].map(|accept| VoteCast { seat: seat_no(s), accept }))
        .collect()
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Complete,
    Aborted,
}

/// One deal's outcome, for accounts and statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DealLine {
    pub(crate) deal: u16,
    pub(crate) dealer: Seat,
    pub(crate) winner: Option<Seat>,
    pub(crate) tricks: [u8; 4],
    pub(crate) points: u8,
    pub(crate) mordienne: bool,
    pub(crate) counted: bool,
    pub(crate) score: [u16; 2],
}

/// What a finished game reports to the match or tournament.
#[derive(Clone, Debug)]
pub(crate) struct GameSummary {
    pub(crate) game_no: u64,
    pub(crate) seed: u64,
    pub(crate) status: Status,
    pub(crate) score: [u16; 2],
    pub(crate) winner: Option<Team>,
    pub(crate) forfeit: Option<Team>,
    pub(crate) deals: Vec<DealLine>,
    pub(crate) faults: Vec<FaultRecord>,
    pub(crate) stats: [SeatStats; 4],
    pub(crate) names: [String; 4],
    pub(crate) record: Option<std::path::PathBuf>,
    pub(crate) record_error: Option<String>,
    pub(crate) duration: Duration,
}

#[derive(Debug, Default)]
struct SeatState {
    strikes: u32,
    replaced: bool,
    /// Bank left, in whole microseconds: the same arithmetic on the recorded think times
    /// gives the same `bank_ms` in a replay.
    bank_us: u64,
    stats: SeatStats,
    ignored_recorded: u32,
}

struct Table<'a> {
    game: Game,
    bots: [&'a mut Bot; 4],
    seats: [SeatState; 4],
    cfg: &'a GameConfig,
    rec: &'a mut Recorder,
    seed: u64,
    leak_rng: SplitMix64,
    deck: Deck,
    /// Decks given by the caller, by deal number.
    given_decks: Vec<Deck>,
    /// Scratch buffer for encoding a notice once for all seats.
    line_buf: Vec<u8>,
    /// Dealer of the deal in progress.
    dealer: Seat,
    /// Winners of the finished tricks of the deal in progress, for `deal_over`.
    trick_winners: Vec<Option<u8>>,
    forfeit: Option<Team>,
    /// The seat whose question is open, if any (faults then carry the question's id).
    asking: Option<Seat>,
    /// The seat whose play question is open, if any (faults then carry the trick number).
    asking_play: Option<Seat>,
    deals: Vec<DealLine>,
    faults: Vec<FaultRecord>,
    answer: Duration,
}

/// Plays one game between four connected bots (`bots[s]` sits in seat `s`) and records it.
pub(crate) async fn run_game(
    bots: [&mut Bot; 4],
    setup: &GameSetup,
    cfg: &GameConfig,
    rec: &mut Recorder,
    shutdown: Shutdown,
) -> GameSummary {
    run_game_with_decks(bots, setup, cfg, rec, shutdown, None).await
}

/// [`run_game`] with the decks given instead of derived from the seed (deal `d` uses
/// `decks[d - 1]`; past the end, the seed's decks): for replaying a record, whose decks are
/// authoritative, and for tests that change what no seat may see.
pub(crate) async fn run_game_with_decks(
    bots: [&mut Bot; 4],
    setup: &GameSetup,
    cfg: &GameConfig,
    rec: &mut Recorder,
    mut shutdown: Shutdown,
    decks: Option<Vec<Deck>>,
) -> GameSummary {
    let started = Instant::now();
    let seed = setup.seed;
    let names: [String; 4] = std::array::from_fn(|i| bots[i].identity.name.clone());
    let mut table = Table {
        game: Game::new(cfg.rules, setup.first_dealer),
        bots,
        seats: Default::default(),
        cfg,
        rec,
        seed,
        leak_rng: SplitMix64::new(derive_seed(&[seed, LEAK_TAG])),
        deck: Deck::canonical(),
        given_decks: decks.unwrap_or_default(),
        line_buf: Vec::with_capacity(512),
        dealer: setup.first_dealer,
        trick_winners: Vec::with_capacity(9),
        forfeit: None,
        asking: None,
        asking_play: None,
        deals: Vec::new(),
        faults: Vec::new(),
        answer: Duration::from_millis(cfg.clock.answer_ms),
    };
    table.start(setup, seed);
    let aborted = tokio::select! {
        () = table.play() => false,
        () = shutdown.aborted() => true,
    };
    table.finish(setup, seed, aborted, names, started).await
}

impl Table<'_> {
    fn start(&mut self, setup: &GameSetup, seed: u64) {
        let header = Header {
            format: RECORD_FORMAT.into(),
            version: RECORD_VERSION,
            referee: env!("CARGO_PKG_VERSION").into(),
            protocol: protocol::PROTOCOL_VERSION,
            game: setup.game_no,
            match_seed: setup.match_seed,
            seed,
            rules: convert::rules_wire(&self.cfg.rules, self.cfg.seating_draw),
            clock: self.cfg.clock,
            policy: protocol::record::Policy {
                on_fault: self.cfg.policy.on_fault,
                max_strikes: self.cfg.policy.max_strikes,
            },
            seats: self
                .bots
                .iter_mut()
                .map(|b| SeatInfo {
                    name: b.identity.name.clone(),
                    version: b.identity.version.clone(),
                    author: b.identity.author.clone(),
                    command: b.spec.describe(),
                    stderr: b.stderr_log.clone(),
                    first_id: b.next_id(),
                    hello: b.take_hello(),
                })
                .collect(),
            first_dealer: seat_no(setup.first_dealer),
            draw: setup.draw.as_ref().map(|cards| cards.iter().map(|&c| code(c)).collect()),
            started_unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        };
        self.rec.line(&RecordLine::Header(Box::new(header)));
        let players: Vec<String> = self.bots.iter().map(|b| b.identity.name.clone()).collect();
        let rules = convert::rules_wire(&self.cfg.rules, self.cfg.seating_draw);
        for seat in Seat::ALL {
            self.seats[seat.index()].bank_us = self.cfg.clock.bank_ms * 1000;
            // Faults met while (re)connecting belong to this game's record.
            let pending = self.bots[seat.index()].take_pending_faults();
            let had_pending = !pending.is_empty();
            for fault in pending {
                self.fault(seat, fault, String::new());
            }
            // A bot that is gone without a new fault to show for it (it died in an earlier
            // game and could not come back) is still recorded once for this game.
            if !self.bots[seat.index()].is_alive() && !had_pending {
                let dead = self.bots[seat.index()].dead();
                let fault = match dead {
                    Some(f) => Fault::new(f.kind, format!("still unavailable: {}", f.detail)),
                    None => Fault::new(FaultKind::ClosedStdout, "still unavailable: no connection"),
                };
                self.fault(seat, fault, String::new());
            }
            self.bots[seat.index()].notify(&ToBot::Game {
                game: setup.game_no,
                seat: seat_no(seat),
                partner: seat_no(seat.partner()),
                players: players.clone(),
                rules: rules.clone(),
                clock: self.cfg.clock,
            });
        }
        self.rec.checkpoint();
    }

    async fn play(&mut self) {
        while let Some(turn) = self.game.to_act() {
            if self.forfeit.is_some() {
                return;
            }
            match turn {
                Turn::Deal => self.deal().await,
                Turn::Vote(seat) => self.opening(seat).await,
                Turn::Discard(seat) => self.discard(seat).await,
                Turn::Play(seat) => self.play_card(seat).await,
            }
        }
    }

    async fn deal(&mut self) {
        let deal_no = self.game.deal_number() + 1;
        self.deck = match self.given_decks.get(usize::from(deal_no) - 1) {
            Some(deck) => *deck,
            None => deck_for(self.seed, deal_no),
        };
        let dealer = self.game.dealer();
        self.dealer = dealer;
        self.trick_winners.clear();
        let hands = self.deck.hands(dealer);
        self.rec.line(&RecordLine::Deal {
            deal: deal_no,
            dealer: seat_no(dealer),
            deck: self.deck.cards().iter().map(|&c| code(c)).collect(),
            hands: hands.iter().map(|&h| codes(h)).collect(),
        });
        if self.game.deal(&self.deck).is_err() {
            return;
        }
        for seat in Seat::ALL {
            self.bots[seat.index()].notify(&ToBot::Deal {
                deal: deal_no,
                dealer: seat_no(dealer),
                hand: codes(hands[seat.index()]),
            });
        }
        // The opening round: every seat, from the dealer's left, gets one question before the
        // first lead; it carries the chant vote while one is asked.
        for i in 1..=4 {
            if self.forfeit.is_some() {
                return;
            }
            self.opening(dealer.plus(i)).await;
        }
    }

    /// Asks `seat` a question; `None` when the referee must choose for the bot (it is replaced,
    /// or it faulted, in which case the fault is already recorded with `fallback` as the action
    /// taken). The answer comes with its think time in microseconds and its raw line, its
    /// signals already checked and delivered: while the question is still open, so that a
    /// refused signal's fault names the question (and its trick) like any other fault about it.
    async fn ask(
        &mut self,
        seat: Seat,
        build: impl FnOnce(u64, u64, u64) -> ToBot,
        validate: impl FnOnce(&Game, &FromBot) -> Result<(), Refusal>,
        fallback: impl FnOnce() -> String,
    ) -> Option<(FromBot, u64, String)> {
        let i = seat.index();
        if self.seats[i].replaced || !self.bots[i].is_alive() {
            return None;
        }
        let answer_ms = self.cfg.clock.answer_ms;
        let answer_us = answer_ms * 1000;
        let bank_us = self.seats[i].bank_us;
        let limit = Duration::from_micros(answer_us + bank_us);
        let mut ignored = IgnoredLines::default();
        self.asking = Some(seat);
        let reply =
            self.bots[i].ask(|id| build(id, answer_ms, bank_us / 1000), limit, &mut ignored).await;
        for fault in ignored.kept {
            self.fault(seat, fault, String::new());
        }
        // Beyond the kept lines a flood is only counted, so the statistics stay exact.
        let more = u32::try_from(ignored.more).unwrap_or(u32::MAX);
        self.seats[i].stats.faults = self.seats[i].stats.faults.saturating_add(more);
        let result = match reply {
            Reply::Answer(msg, took, raw) => match validate(&self.game, &msg) {
                Ok(()) => {
                    let us = took.as_micros() as u64;
                    let st = &mut self.seats[i];
                    st.bank_us = st.bank_us.saturating_sub(us.saturating_sub(answer_us));
                    self.signals(seat, msg.signals(), &raw);
                    Some((msg, us, raw))
                }
                Err(refusal) => {
                    let fault = Fault::new(refusal.kind(), refusal.to_string());
                    self.fault(seat, fault.with_raw(raw.into_bytes()), fallback());
                    None
                }
            },
            Reply::Fault(fault) => {
                if fault.kind == FaultKind::Timeout {
                    self.seats[i].bank_us = 0;
                }
                self.fault(seat, fault, fallback());
                None
            }
        };
        self.asking = None;
        result
    }

    /// A bot replaced during its last question is told `bye` and stopped, so nothing it sends
    /// later can leak into another game; the match starts it again for the next game.
    async fn settle(&mut self, seat: Seat) {
        let i = seat.index();
        if self.seats[i].replaced && self.bots[i].is_alive() {
            let flush_limit = self.answer.max(Duration::from_millis(100));
            self.bots[i].flush(flush_limit).await;
            self.bots[i].stop("replaced by the fallback for the rest of the game").await;
        }
    }

    /// Records a fault, applies the policy and tells the bot. `done` is what the referee did
    /// about the question instead of the bot (the fallback move), empty when it did nothing.
    fn fault(&mut self, seat: Seat, fault: Fault, done: String) {
        let Fault { kind, detail, raw } = fault;
        let i = seat.index();
        // A bot that can no longer be reached (it was killed for not reading, say) is replaced
        // whatever the class of the fault that revealed it.
        let gone = !self.bots[i].is_alive();
        let st = &mut self.seats[i];
        st.stats.faults += 1;
        if policy::is_ignorable(kind) {
            if st.ignored_recorded >= MAX_IGNORED_RECORDED {
                return;
            }
            st.ignored_recorded += 1;
        } else {
            st.strikes += 1;
            st.stats.strikes = st.strikes;
        }
        let mut penalty = policy::penalty(self.cfg.policy, kind, st.strikes);
        if gone && matches!(penalty, Penalty::Fallback | Penalty::SignalDropped) {
            penalty = Penalty::Replaced;
        }
        match penalty {
            Penalty::Replaced => {
                st.replaced = true;
                st.stats.replaced = true;
            }
            Penalty::Forfeit => {
                // The first forfeit decides the game; later faults are facts only.
                self.forfeit.get_or_insert(seat.team());
            }
            _ => {}
        }
        let view = self.game.view(seat);
        let in_deal =
            matches!(self.game.to_act(), Some(Turn::Vote(_) | Turn::Discard(_) | Turn::Play(_)));
        let action = policy::action_text(penalty, &done);
        let mut record = FaultRecord {
            seat: seat_no(seat),
            deal: in_deal.then_some(view.deal),
            trick: (self.asking_play == Some(seat)).then_some(view.trick),
            kind,
            detail: detail.clone(),
            raw: None,
            raw_b64: None,
            action: action.clone(),
            penalty,
            strikes: st.strikes,
        };
        record.keep_raw(raw);
        tracing::debug!(seat = i, kind = kind.as_str(), "{}", crate::text::Shown(&detail));
        self.rec.line(&RecordLine::Fault(record.clone()));
        self.rec.checkpoint();
        self.faults.push(record);
        // The question the fault concerns; ignored lines concern no question.
        let id = (!policy::is_ignorable(kind) && self.asking.is_some())
            .then(|| self.bots[i].next_id() - 1);
        self.bots[i].notify(&ToBot::Error {
            id,
            fault: kind.as_str().into(),
            message: detail,
            action,
        });
    }

    /// Checks and delivers the signals of an accepted answer, whose line is `raw`. The first
    /// refused signal is a fault and drops it and the rest of the answer's signals.
    fn signals(&mut self, seat: Seat, words: &[String], raw: &str) {
        if let Err(refusal) = judge::signal_count(words) {
            return self.refuse_signal(seat, refusal, raw);
        }
        for word in words {
            let signal = match judge::signal(&self.game, seat, word) {
                Ok(s) => s,
                Err(refusal) => return self.refuse_signal(seat, refusal, raw),
            };
            // Checked before the coins are drawn: only a delivered signal takes any, so the
            // record's signal lines alone say which outputs of the stream each one took.
            let coins = self.leak_coins();
            let Ok(Event::Signalled { seen_by, .. }) = self.game.signal(seat, signal, coins) else {
                tracing::error!("referee bug: seat {seat}'s checked signal {word} was refused");
                return;
            };
            let seen: Vec<u8> = (0..4u8).filter(|&s| seen_by[s as usize]).collect();
            self.rec.line(&RecordLine::Signal {
                from: seat_no(seat),
                signal: word.clone(),
                seen_by: seen,
            });
            for s in Seat::ALL {
                if s != seat && seen_by[s.index()] {
                    self.bots[s.index()]
                        .notify(&ToBot::Signal { from: seat_no(seat), signal: word.clone() });
                }
            }
        }
    }

    /// A refused signal's fault. It keeps the answer's line, which has no line of its own in the
    /// record when the fault forfeits the game.
    fn refuse_signal(&mut self, seat: Seat, refusal: Refusal, raw: &str) {
        let fault = Fault::new(refusal.kind(), refusal.to_string());
        let done = policy::SIGNAL_DROPPED.to_string();
        self.fault(seat, fault.with_raw(raw.as_bytes().to_vec()), done);
    }

    /// The coin flips of a delivered signal, for the opponent on the sender's left and then the
    /// one on its right: under `signals=leaky`, the next two outputs of the game's stream
    /// (spec/records.md section 4); otherwise none are drawn.
    fn leak_coins(&mut self) -> [bool; 2] {
        if self.cfg.rules.signals != SignalDelivery::Leaky {
            return [false, false];
        }
        let threshold = (u128::from(self.cfg.rules.signal_leak_ppm) << 64) / 1_000_000;
        let mut flip = || u128::from(self.leak_rng.next_u64()) < threshold;
        [flip(), flip()]
    }

    async fn opening(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        let vote = judge::vote_asked(&self.game, seat);
        let votes = votes_cast(&view);
        let (deal, dealer, hand) = (view.deal, seat_no(view.dealer), codes(view.hand));
        let fallback = move || policy::opening_done(vote).to_string();
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Opening {
                    id,
                    deal,
                    dealer,
                    vote,
                    votes,
                    hand,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::opening(game, seat, msg).map(drop),
                fallback,
            )
            .await;
        let (accept, us, raw) = match reply {
            Some((FromBot::Opening { accept, .. }, us, raw)) => {
                (accept.unwrap_or(policy::FALLBACK_VOTE), us, Some(raw))
            }
            _ => (policy::FALLBACK_VOTE, 0, None),
        };
        let auto = raw.is_none();
        if self.forfeit.is_some() {
            return;
        }
        if !vote {
            self.action_line(seat, &RecordLine::Opening { seat: seat_no(seat), us, auto, raw });
            self.settle(seat).await;
            return;
        }
        let line = RecordLine::Vote { seat: seat_no(seat), accept, us, auto, raw };
        self.commit(seat, line, Action::Vote(accept), 0).await;
    }

    async fn discard(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        let fallback_cards = policy::fallback_discard(view.hand);
        let fallback = move || policy::discard_done(fallback_cards);
        let (deal, hand, received) = (view.deal, codes(view.hand), self.received_in_order(seat));
        let rule = convert::discard_rule(self.cfg.rules.discard);
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Discard {
                    id,
                    deal,
                    hand,
                    received,
                    rule,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::discard(game, seat, msg).map(drop),
                fallback,
            )
            .await;
        let (cards, us, raw) = match reply {
            Some((FromBot::Discard { cards, .. }, us, raw)) => {
                (convert::set(&cards).0, us, Some(raw))
            }
            _ => (fallback_cards, 0, None),
        };
        let auto = raw.is_none();
        if self.forfeit.is_some() {
            return;
        }
        let line = RecordLine::Discard { seat: seat_no(seat), cards: codes(cards), us, auto, raw };
        self.commit(seat, line, Action::Discard(cards), 0).await;
    }

    async fn play_card(&mut self, seat: Seat) {
        let view = self.game.view(seat);
        if view.hand.is_empty() {
            return;
        }
        // The weakest card is worked out only when a fault needs it: this is the hot path.
        let held = view.hand;
        let fallback = move || policy::play_done(policy::fallback_play(held));
        let table = view.table().iter().map(|&(s, c)| table_card(s, c)).collect();
        let (deal, trick, leader, hand) =
            (view.deal, view.trick, seat_no(view.leader), codes(view.hand));
        let (won, score) = (view.tricks_won(), view.score);
        self.asking_play = Some(seat);
        let reply = self
            .ask(
                seat,
                |id, time_ms, bank_ms| ToBot::Play {
                    id,
                    deal,
                    trick,
                    leader,
                    table,
                    hand,
                    won,
                    score,
                    time_ms,
                    bank_ms,
                },
                move |game, msg| judge::play(game, seat, msg).map(drop),
                fallback,
            )
            .await;
        self.asking_play = None;
        let (card, us, raw) = match reply {
            Some((FromBot::Play { card, .. }, us, raw)) => (convert::card(card), us, Some(raw)),
            _ => match policy::fallback_play(held) {
                Some(card) => (card, 0, None),
                None => return,
            },
        };
        let auto = raw.is_none();
        if self.forfeit.is_some() {
            return;
        }
        let line = RecordLine::Play { seat: seat_no(seat), card: code(card), us, auto, raw };
        self.commit(seat, line, Action::Play(card), trick).await;
    }

    /// Records an action, applies it, tells everyone what followed, and settles a replaced bot.
    /// The action was validated (or is the fallback), so the rules accept it; a refusal here
    /// would be a referee bug, logged loudly rather than hidden.
    async fn commit(&mut self, seat: Seat, line: RecordLine, action: Action, trick: u8) {
        self.action_line(seat, &line);
        match self.game.apply(seat, action) {
            Ok(ev) => {
                let ev = *ev;
                self.broadcast(&ev, trick);
            }
            Err(e) => {
                tracing::error!("referee bug: seat {seat}'s checked {action:?} was refused: {e}")
            }
        }
        self.settle(seat).await;
    }

    /// Records the line of a seat's vote, opening answer, discard or play. The footer's answer
    /// statistics are counted here, from the lines themselves, so they are exactly those of the
    /// seat's lines without `auto`: an answer refused for any reason (an illegal card, or a
    /// false signal that forfeits the game) has no line and counts for nothing.
    fn action_line(&mut self, seat: Seat, line: &RecordLine) {
        if let RecordLine::Vote { us, auto: false, .. }
        | RecordLine::Opening { us, auto: false, .. }
        | RecordLine::Discard { us, auto: false, .. }
        | RecordLine::Play { us, auto: false, .. } = *line
        {
            let stats = &mut self.seats[seat.index()].stats;
            stats.answers += 1;
            stats.think_us += us;
            stats.max_us = stats.max_us.max(us);
        }
        self.rec.line(line);
    }

    /// Turns the engine's public events of an action into notices and record lines. `trick` is
    /// the number of the trick the action was made in.
    fn broadcast(&mut self, ev: &Events, trick: u8) {
        for e in ev.iter() {
            match *e {
                Event::Voted { seat, accept } => {
                    self.tell_all(&ToBot::Vote { seat: seat_no(seat), accept })
                }
                Event::ChantDecided { taken } => {
                    self.rec.line(&RecordLine::Chant { taken });
                    self.tell_all(&ToBot::Chant { taken });
                }
                Event::Received { seat, .. } => {
                    let cards = self.received_in_order(seat);
                    self.rec.line(&RecordLine::Receive { seat: seat_no(seat), cards });
                }
                Event::Played { seat, card } => {
                    self.tell_all(&ToBot::Played { seat: seat_no(seat), card: code(card), trick });
                }
                Event::TrickOver(t) => {
                    self.trick_winners.push(t.winner.map(seat_no));
                    let cards: Vec<_> =
                        (0..4).map(|k| table_card(t.leader.plus(k as u8), t.cards[k])).collect();
                    self.rec.line(&RecordLine::Trick {
                        trick: t.number,
                        leader: seat_no(t.leader),
                        cards: cards.clone(),
                        winner: t.winner.map(seat_no),
                    });
                    self.tell_all(&ToBot::Trick {
                        trick: t.number,
                        leader: seat_no(t.leader),
                        cards,
                        winner: t.winner.map(seat_no),
                        next: seat_no(t.next_leader),
                    });
                }
                Event::DealOver(d) => {
                    let s = d.score;
                    self.deals.push(DealLine {
                        deal: d.deal,
                        dealer: self.dealer,
                        winner: s.winner,
                        tricks: s.tricks,
                        points: s.points,
                        mordienne: s.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                    });
                    self.rec.line(&RecordLine::DealOver {
                        deal: d.deal,
                        tricks: s.tricks,
                        winner: s.winner.map(seat_no),
                        points: s.points,
                        mordienne: s.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                    });
                    self.rec.checkpoint();
                    let winners = std::mem::take(&mut self.trick_winners);
                    self.tell_all(&ToBot::DealOver {
                        deal: d.deal,
                        tricks: s.tricks,
                        winners,
                        winner: s.winner.map(seat_no),
                        points: s.points,
                        mordienne: s.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                    });
                }
                Event::DealStarted { .. }
                | Event::Hand { .. }
                | Event::Discarded { .. }
                | Event::MatchOver(_)
                | Event::Signalled { .. } => {}
            }
        }
    }

    /// A chant recipient's talon cards in the order dealt: alternately, the dealer's left first.
    fn received_in_order(&self, seat: Seat) -> Vec<protocol::CardCode> {
        let parity = usize::from(seat != self.game.dealer().left());
        self.deck.talon().iter().skip(parity).step_by(2).map(|&c| code(c)).collect()
    }

    fn tell_all(&mut self, msg: &ToBot) {
        // Encoded once for the four bots.
        self.line_buf.clear();
        msg.encode_into(&mut self.line_buf);
        for bot in self.bots.iter_mut() {
            bot.notify_encoded(&self.line_buf);
        }
    }

    /// Ends the game: `game_over`, the footer, and the summary.
    async fn finish(
        mut self,
        setup: &GameSetup,
        seed: u64,
        aborted: bool,
        names: [String; 4],
        started: Instant,
    ) -> GameSummary {
        let score = self.game.score();
        let (status, winner) = if aborted {
            (Status::Aborted, None)
        } else if let Some(team) = self.forfeit {
            (Status::Complete, Some(team.other()))
        } else {
            (Status::Complete, self.game.outcome().and_then(|r| r.winner))
        };
        let deals = self.game.deals_counted();
        self.tell_all(&ToBot::GameOver {
            game: setup.game_no,
            score,
            winner: winner.map(|t| t.index() as u8),
            forfeit: self.forfeit.map(|t| t.index() as u8),
        });
        let flush_limit = self.answer.max(Duration::from_secs(1));
        for bot in self.bots.iter_mut() {
            bot.flush(flush_limit).await;
        }
        let stats: [SeatStats; 4] = std::array::from_fn(|i| self.seats[i].stats.clone());
        let duration = started.elapsed();
        self.rec.line(&RecordLine::Footer(Box::new(Footer {
            status: if aborted { GameStatus::Aborted } else { GameStatus::Complete },
            score,
            winner: winner.map(|t| t.index() as u8),
            forfeit: self.forfeit.map(|t| t.index() as u8),
            deals,
            stats: stats.to_vec(),
            duration_ms: duration.as_millis() as u64,
        })));
        self.rec.checkpoint();
        GameSummary {
            game_no: setup.game_no,
            seed,
            status,
            score,
            winner,
            forfeit: self.forfeit,
            deals: self.deals,
            faults: self.faults,
            stats,
            names,
            record: self.rec.path().map(|p| p.to_path_buf()),
            record_error: self.rec.error().map(str::to_string),
            duration,
        }
    }
}

#[cfg(test)]
#[path = "game_runner_tests.rs"]
mod tests;
