//! Drives one game: the rules decide, this module does the talking, the clock and the record.
//! A bot's misbehaviour becomes a fault line and a fallback move, never an error here.
//!
//! The rooms: this file holds a game's configuration, its summary and the table's own loop
//! (start, deals, asking, faults, the end); `questions.rs` asks each kind of question and judges
//! its answer; `pledges.rs` the pre-lead rounds (surrender, announcement) of the feature
//! `surrender`; `commit.rs` records an accepted action, applies it and tells every seat what
//! followed.

mod commit;
mod pledges;
mod questions;
#[cfg(test)]
mod tests;

use crate::bot::ask::{IgnoredLines, Limit, MAX_IGNORED_KEPT};
use crate::bot::{Bot, Reply};
use crate::fault::Fault;
use crate::judge::Refusal;
use crate::policy::{self, Policy};
use crate::record_io::Recorder;
use crate::shutdown::Shutdown;
use convert::{code, codes, seat_no};
use protocol::msg::{Clock, FromBot, ToBot, VoteCast};
use protocol::options::ClockMode;
use protocol::record::{
    FaultKind, FaultRecord, Footer, Header, Penalty, RecordLine, SeatInfo, SeatStats,
};
use protocol::record::{GameStatus, RECORD_FORMAT, RECORD_VERSION};
use rules::{Card, Deck, Game, Rules, Seat, SeatView};
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
    /// The referee's: the engine takes seats and a first dealer as given.
    pub(crate) seating: protocol::options::Seating,
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

/// The deck a seating draw or a first dealer's draw of game `game_no` turns up: a documented,
/// fixed derivation (spec/records.md section 4). A duplicate tournament's two rooms of a deal set
/// share their game number, so they draw the same first dealer.
pub(crate) fn draw_deck(match_seed: u64, game_no: u64) -> Deck {
    Deck::shuffled(derive_seed(&[match_seed, game_no, u64::MAX]))
}

/// The first dealer of game `game_no` under `seating=draw-dealer`, and the cards the draw turned
/// up, for the record.
pub(crate) fn first_dealer_draw(match_seed: u64, game_no: u64) -> (Seat, Vec<Card>) {
    let deck = draw_deck(match_seed, game_no);
    // A whole deck holds the Madame, so the draw always ends and the fallback is never taken.
    let draw = rules::draw_first_dealer(deck.cards())
        .unwrap_or(rules::DealerDraw { dealer: Seat::ALL[0], cards_turned: 48 });
    (draw.dealer, deck.cards()[..draw.cards_turned].to_vec())
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

/// How a game ended: the record's own word for it, so the summary and the footer cannot differ.
pub use protocol::record::GameStatus as Status;

/// One deal's outcome, for accounts and statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealLine {
    /// The deal's number in the game, 1-based, redeals included.
    pub deal: u16,
    /// Who dealt it.
    pub dealer: Seat,
    /// The seat that won the point, if one did.
    pub winner: Option<Seat>,
    /// Tricks won, per seat.
    pub tricks: [u8; 4],
    /// Points scored by `team`.
    pub points: u8,
    /// Won by a mordienne (the first tricks in a row).
    pub mordienne: bool,
    /// Whether the deal counts toward the match length (an all-spoiled deal dealt again does
    /// not).
    pub counted: bool,
    /// The game score after it, per team.
    pub score: [u16; 2],
    /// The team that scored `points`: the winner's, unless a surrender or an announcement
    /// decided otherwise (`pledge`).
    pub team: Option<Team>,
    /// The surrender or announcement that decided the deal before its first lead, if any.
    pub pledge: Option<rules::Pledge>,
}

/// What a finished game reports to its caller: a match, a tournament, a library user.
#[derive(Clone, Debug)]
pub struct GameSummary {
    /// The game's number, as in its record.
    pub game_no: u64,
    /// The seed every deck and coin flip of the game derives from.
    pub seed: u64,
    /// Complete, or aborted by a stop.
    pub status: Status,
    /// The final score, per team.
    pub score: [u16; 2],
    /// The winning team; `None` for a draw or an aborted game.
    pub winner: Option<Team>,
    /// The team that forfeited, if one did (the fault policy `forfeit`).
    pub forfeit: Option<Team>,
    /// Every deal, in order.
    pub deals: Vec<DealLine>,
    /// Every fault, in order, with its penalty.
    pub faults: Vec<FaultRecord>,
    /// Each seat's figures: answers, think time, CPU time, ignored lines.
    pub stats: [SeatStats; 4],
    /// The name each seat's bot gave.
    pub names: [String; 4],
    /// The record file, if one was written.
    pub record: Option<std::path::PathBuf>,
    /// Why the record could not be written in full, if it could not: the referee's own
    /// failure, never a bot's.
    pub record_error: Option<String>,
    /// How long the game took.
    pub duration: Duration,
}

/// What an accepted answer took, in microseconds: wall time, and CPU time when measured.
#[derive(Clone, Copy, Debug, Default)]
struct Took {
    us: u64,
    cpu_us: Option<u64>,
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
    /// The lists of the last question asked, kept for the next one.
    spare: questions::Spare,
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
#[cfg(test)]
pub(crate) async fn run_game(
    bots: [&mut Bot; 4],
    setup: &GameSetup,
    cfg: &GameConfig,
    rec: &mut Recorder,
    shutdown: Shutdown,
) -> GameSummary {
    run_game_with_decks(bots, setup, cfg, rec, shutdown, None).await
}

/// `run_game` with the decks given instead of derived from the seed (deal `d` uses
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
        spare: questions::Spare::default(),
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
    /// The clock of the seat at `i`: its bot's own (recorded in the header), or the game's.
    fn clock(&self, i: usize) -> Clock {
        self.bots[i].clock.unwrap_or(self.cfg.clock)
    }

    fn start(&mut self, setup: &GameSetup, seed: u64) {
        let header = Header {
            format: RECORD_FORMAT.into(),
            version: RECORD_VERSION,
            referee: env!("CARGO_PKG_VERSION").into(),
            protocol: protocol::PROTOCOL_VERSION,
            game: setup.game_no,
            match_seed: setup.match_seed,
            seed,
            rules: convert::rules_wire(&self.cfg.rules, self.cfg.seating),
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
                    features: b.identity.features.clone(),
                    cpu: b.cpu_measured(),
                    clock: b.clock,
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
        let rules = convert::rules_wire(&self.cfg.rules, self.cfg.seating);
        for seat in Seat::ALL {
            let clock = self.clock(seat.index());
            self.seats[seat.index()].bank_us = clock.bank_ms * 1000;
            let bot = &mut self.bots[seat.index()];
            if bot.cpu_measured() {
                bot.restart_cpu();
                self.seats[seat.index()].stats.cpu_us = Some(0);
            }
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
                clock,
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
                Turn::Offer(_) | Turn::Reply(_) | Turn::Announce(_) => self.pledge(turn).await,
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
        if self.rec.keeps() {
            self.rec.line(&RecordLine::Deal {
                deal: deal_no,
                dealer: seat_no(dealer),
                deck: self.deck.cards().iter().map(|&c| code(c)).collect(),
                hands: hands.iter().map(|&h| codes(h)).collect(),
            });
        }
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
    /// taken). An answer is decoded once and judged once: `judge` turns it into what it means
    /// in the rules' terms (a card, a discard, a vote), and that value is what comes back, with
    /// the think time and CPU time in microseconds (the bank is charged the one the clock
    /// counts). Its line is the bot's [`Bot::answer_line`], its signals already checked and
    /// delivered: while the question is still open, so that a refused signal's fault names the
    /// question (and its trick) like any other fault about it.
    async fn ask<T>(
        &mut self,
        seat: Seat,
        build: impl FnOnce(u64, u64, u64) -> ToBot,
        judge: impl FnOnce(&Game, &FromBot) -> Result<T, Refusal>,
        fallback: impl FnOnce() -> String,
    ) -> Option<(T, Took)> {
        let i = seat.index();
        if self.seats[i].replaced || !self.bots[i].is_alive() {
            return None;
        }
        let answer_ms = self.clock(i).answer_ms;
        let answer_us = answer_ms * 1000;
        let bank_us = self.seats[i].bank_us;
        let allowed = Duration::from_micros(answer_us + bank_us);
        let cpu_clock = self.cfg.clock.mode == Some(ClockMode::Cpu);
        let limit = match self.cfg.clock.wall_cap {
            Some(cap) if cpu_clock => Limit::Cpu { cpu: allowed, wall: allowed * cap },
            _ => Limit::Wall(allowed),
        };
        let mut ignored = IgnoredLines::default();
        self.asking = Some(seat);
        let spare = &mut self.spare;
        let question = |id, out: &mut Vec<u8>| {
            let question = build(id, answer_ms, bank_us / 1000);
            question.encode_into(out);
            spare.recycle(question);
        };
        let reply = self.bots[i].ask(question, limit, &mut ignored).await;
        for fault in ignored.kept {
            self.fault(seat, fault, String::new());
        }
        // Beyond the kept lines a flood is only counted, so the statistics stay exact.
        let more = u32::try_from(ignored.more).unwrap_or(u32::MAX);
        self.seats[i].stats.faults = self.seats[i].stats.faults.saturating_add(more);
        let result = match reply {
            Reply::Answer(msg, took, cpu) => match judge(&self.game, &msg) {
                Ok(meant) => {
                    let took =
                        Took { us: took.as_micros() as u64, cpu_us: self.bots[i].cpu_charged(cpu) };
                    let charged = match took.cpu_us {
                        Some(cpu_us) if cpu_clock => cpu_us,
                        _ => took.us,
                    };
                    let st = &mut self.seats[i];
                    st.bank_us = st.bank_us.saturating_sub(charged.saturating_sub(answer_us));
                    self.signals(seat, msg.signals());
                    Some((meant, took))
                }
                Err(refusal) => {
                    let fault = Fault::new(refusal.kind(), refusal.to_string());
                    let raw = self.bots[i].answer_line().to_vec();
                    self.fault(seat, fault.with_raw(raw), fallback());
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
        let in_deal = !matches!(self.game.to_act(), Some(Turn::Deal) | None);
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
