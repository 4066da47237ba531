//! The checks, in the order `run` makes them: each says what was expected and what came back.

use super::answers::{fault_list, shorten, wrong_kind};
use super::scripted::{Situations, act, dealt, scripted_deck};
use super::{BYE_GRACE, CHANT_TRIES, Checker, Got, Outcome, SEAT, SEED_TAG, with_extra};
use crate::api::{Game, play_seated};
use crate::bot::process;
use crate::bot::{Bot, Identity};
use crate::game_runner::{GameConfig, GameSetup, game_seed};
use crate::policy::{self, OnFault, Policy};
use crate::shutdown;
use convert::{codes, seat_no};
use protocol::msg::{FromBot, ToBot};
use protocol::record::FaultKind;
use protocol::{FEATURES, PROTOCOL_VERSION};
use rules::{Action, Announcement, Card, ChantSecond, DiscardRule, Rules, Seat, SignalDelivery};
use std::time::Duration;
use tokio::time::Instant;

impl Checker {
    /// Check 1: `hello` answered in time, with the id, a name, a version, and protocol 1 if any.
    pub(super) async fn handshake(&mut self) -> Outcome {
        if let Err(e) = self.start() {
            self.blocked = Some("the bot could not be started".into());
            return Err(e);
        }
        let time_ms = self.handshake_limit.as_millis() as u64;
        let features = all_features();
        let got = self
            .ask(
                "hello",
                |id| ToBot::Hello { id, protocol: PROTOCOL_VERSION, features, time_ms },
                None,
            )
            .await;
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                // Without a handshake nothing else can be checked; the bot is killed at the end.
                self.blocked = Some(format!("not checked: no valid handshake ({e})"));
                return Err(e);
            }
        };
        let judged = match &got {
            Got::Answer(FromBot::Hello { name, version, author, protocol, features, .. }, raw) => {
                if let Err(e) = crate::bot::check_hello(*protocol, name, version, author.as_deref())
                {
                    Err(format!("expected a valid hello answer: {e}"))
                } else {
                    self.identity = Identity {
                        name: name.clone(),
                        version: version.clone(),
                        author: author.clone(),
                        token: None,
                        features: crate::bot::taken_up(&all_features(), features),
                    };
                    let mut d = format!("answered hello with name {name:?} version {version:?}");
                    if let Some(a) = author {
                        d.push_str(&format!(" author {a:?}"));
                    }
                    return Ok(d);
                }
                .map_err(|e| format!("{e}; line: {}", shorten(raw)))
            }
            other => Err(wrong_kind("hello", other).detail),
        };
        self.blocked = Some("not checked: no valid handshake".into());
        judged
    }

    /// Check 2: A `game` with an unknown field, a line of an unknown type, then a `deal` and an
    /// `opening` question with unknown fields: the question must still be answered correctly.
    pub(super) async fn unknown_fields(&mut self) -> Outcome {
        let rules = Rules::default();
        let msg = self.game_message(&rules);
        let (deck, dealer) = (scripted_deck(1, |_| true), Seat::ALL[0]);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let game = dealt(rules, dealer, &deck)?;
        if let Some(w) = self.wire.as_mut() {
            w.queue_bytes(with_extra(&msg, "x_future", r#"{"nested":[1,"two",null]}"#).as_bytes());
            w.queue_bytes(b"{\"type\":\"tea_time\",\"cup\":1}\n");
            let deal = ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) };
            w.queue_bytes(with_extra(&deal, "x_cut", "17").as_bytes());
        }
        let sent = "a game with an unknown field, a {\"type\":\"tea_time\",\"cup\":1} line, \
                    and a deal and an opening question with unknown fields";
        match self.ask_opening(&game, Some(("x_hint", "\"ignore me\""))).await {
            Err(e) => Err(format!("after {sent}: {e}")),
            Ok(Err((id, fault))) => {
                let e = fault.detail.clone();
                self.end_early(Some((id, fault)));
                Err(format!("after {sent}, the opening question was not answered correctly: {e}"))
            }
            Ok(Ok((accept, _))) => {
                self.after_vote(accept.unwrap_or(false));
                self.end_early(None);
                Ok(format!("ignored {sent}, and answered the opening question correctly"))
            }
        }
    }

    /// Check 3: `accept` exactly when a vote is asked; signals known and true for the hand.
    pub(super) async fn opening(&mut self) -> Outcome {
        let mut accounts = Vec::new();
        let mut failures = Vec::new();
        // Vote asked: seat 0 (the dealer's left) accepted before the bot.
        let msg = self.game_message(&Rules::default());
        self.queue(&msg);
        let dealer = Seat::ALL[3];
        let deck = scripted_deck(2, |_| true);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let mut game = dealt(Rules::default(), dealer, &deck)?;
        act(&mut game, 0, Action::Vote(true))?;
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 0, accept: true });
        match self.ask_opening(&game, None).await? {
            Ok((accept, account)) => {
                accounts.push(format!("vote asked: {account}"));
                self.after_vote(accept.unwrap_or(false));
                self.end_early(None);
            }
            Err((id, fault)) => {
                failures.push(format!("vote asked (\"vote\":true): {}", fault.detail));
                self.end_early(Some((id, fault)));
            }
        }
        // No vote asked: seat 2 (the dealer's left) refused, so the chant is already decided.
        let msg = self.game_message(&Rules::default());
        self.queue(&msg);
        let dealer = Seat::ALL[1];
        let deck = scripted_deck(3, |_| true);
        let hand = deck.hands(dealer)[usize::from(SEAT)];
        let mut game = dealt(Rules::default(), dealer, &deck)?;
        act(&mut game, 2, Action::Vote(false))?;
        self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
        self.queue(&ToBot::Vote { seat: 2, accept: false });
        self.queue(&ToBot::Chant { taken: false });
        match self.ask_opening(&game, None).await? {
            Ok((_, account)) => {
                accounts.push(format!("no vote asked: {account}"));
                self.end_early(None);
            }
            Err((id, fault)) => {
                failures.push(format!("no vote asked (\"vote\":false): {}", fault.detail));
                self.end_early(Some((id, fault)));
            }
        }
        if failures.is_empty() { Ok(accounts.join("; ")) } else { Err(failures.join("; ")) }
    }

    /// Check 4: Discards: 6 distinct held cards under `free`, the 6 weakest under `keep-highest`.
    pub(super) async fn discard(&mut self) -> Outcome {
        let mut accounts = Vec::new();
        let mut failures = Vec::new();
        for (rule, name, salt) in
            [(DiscardRule::Free, "free", 10), (DiscardRule::KeepHighest, "keep-highest", 30)]
        {
            match self.discard_under(rule, salt).await? {
                Ok(account) => accounts.push(format!("{name}: {account}")),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        if failures.is_empty() { Ok(accounts.join("; ")) } else { Err(failures.join("; ")) }
    }

    /// One discard scenario: deals where the bot, on the dealer's left, votes first, until it
    /// accepts; the other three accept too, and the bot, first recipient, discards.
    async fn discard_under(
        &mut self,
        rule: DiscardRule,
        salt: u64,
    ) -> Result<Result<String, String>, String> {
        let rules = Rules { discard: rule, ..Rules::default() };
        let dealer = Seat::ALL[0];
        for attempt in 0..CHANT_TRIES {
            let msg = self.game_message(&rules);
            self.queue(&msg);
            let deck = scripted_deck(salt + attempt, |_| true);
            let hand = deck.hands(dealer)[usize::from(SEAT)];
            let mut game = dealt(rules, dealer, &deck)?;
            self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
            let accept = match self.ask_opening(&game, None).await? {
                Ok((accept, _)) => accept.unwrap_or(false),
                Err((id, fault)) => {
                    let e = format!("the opening answer before the discard: {}", fault.detail);
                    self.end_early(Some((id, fault)));
                    return Ok(Err(e));
                }
            };
            if !accept {
                self.after_vote(false);
                self.end_early(None);
                continue;
            }
            for seat in [SEAT, 2, 3, 0] {
                act(&mut game, seat, Action::Vote(true))?;
                self.queue(&ToBot::Vote { seat, accept: true });
            }
            self.queue(&ToBot::Chant { taken: true });
            // The dealer's left, first to receive, discards first (rules.md 5.2).
            let judged = self.ask_discard(&game).await?;
            return Ok(match judged {
                Ok(account) => {
                    self.end_early(None);
                    Ok(account)
                }
                Err((id, fault)) => {
                    let e = fault.detail.clone();
                    self.end_early(Some((id, fault)));
                    Err(e)
                }
            });
        }
        // Refusing is always allowed, and a bot that never accepts is never asked to discard.
        Ok(Ok(format!(
            "not checked: the bot refused the chant in all {CHANT_TRIES} deals offered (a bot \
             that never accepts is never asked to discard)"
        )))
    }

    /// Check 5: Plays: a card of the hand when leading, when last with a trick to win, and with one
    /// card left; two whole deals, every answer judged.
    pub(super) async fn play(&mut self) -> Outcome {
        let mut seen = Situations::default();
        let mut faults = Vec::new();
        // Dealt by seat 0, the bot leads the first trick.
        let deck = scripted_deck(50, |_| true);
        self.scripted_deal(Seat::ALL[0], &deck, &mut seen, &mut faults).await?;
        // Dealt by the bot, it plays last to the first trick, holding Monsieur: the other
        // seats play their weakest cards, so it has a trick to win.
        let me = usize::from(SEAT);
        let deck = scripted_deck(60, |d| d.hands(Seat::ALL[me])[me].contains(Card::MONSIEUR));
        self.scripted_deal(Seat::ALL[me], &deck, &mut seen, &mut faults).await?;
        if let Some(first) = faults.first() {
            let more = if faults.len() > 1 {
                format!(" (and {} more refused plays)", faults.len() - 1)
            } else {
                String::new()
            };
            return Err(format!("{first}{more}"));
        }
        seen.account()
    }

    /// Check 5b: The rounds before the first lead (feature `surrender`, spec/protocol.md section
    /// 4.12): in three scripted deals the bot is asked, after its opening question, an `offer`
    /// (it speaks first), a `reply` (the opponent on its right offered), and an `announce`; each
    /// answer must be of the question's type, with its boolean and true signals.
    pub(super) async fn surrender(&mut self) -> Outcome {
        if !self.identity.has(protocol::SURRENDER) {
            return Ok("not asked: the bot did not take up the feature surrender in its hello \
                       answer, so in a match the fallback answers for it"
                .into());
        }
        let both = Rules {
            chant: false,
            surrender: true,
            announce: Announcement::ExtendsMatch,
            // `announced` goes with a target below 10 (spec/rules.md section 8).
            length: rules::MatchLength::Target(5),
            ..Rules::default()
        };
        let announcing = Rules { surrender: false, ..both };
        let (right, me) = ((SEAT + 3) % 4, usize::from(SEAT));
        let mut accounts = Vec::new();
        let mut failures = Vec::new();
        // The bot is the dealer's left in the first and last deals, so it speaks first; in the
        // second the seat on its right, an opponent, speaks first and offers.
        for (name, rules, dealer, salt) in [
            ("offer", both, (me + 3) % 4, 70),
            ("reply", both, (me + 2) % 4, 71),
            ("announce", announcing, (me + 3) % 4, 72),
        ] {
            let msg = self.game_message(&rules);
            self.queue(&msg);
            let dealer = Seat::ALL[dealer];
            let deck = scripted_deck(salt, |_| true);
            let hand = deck.hands(dealer)[me];
            let mut game = dealt(rules, dealer, &deck)?;
            self.queue(&ToBot::Deal { deal: 1, dealer: seat_no(dealer), hand: codes(hand) });
            if let Err((id, fault)) = self.ask_opening(&game, None).await? {
                failures.push(format!("{name}: the opening answer before it: {}", fault.detail));
                self.end_early(Some((id, fault)));
                continue;
            }
            if name == "reply" {
                act(&mut game, right, Action::Offer(true))?;
                self.queue(&ToBot::Offered { seat: right, offer: true });
            }
            match self.ask_pledge(&game).await? {
                Ok(account) => {
                    accounts.push(account);
                    self.end_early(None);
                }
                Err((id, fault)) => {
                    failures.push(format!("{name}: {}", fault.detail));
                    self.end_early(Some((id, fault)));
                }
            }
        }
        if failures.is_empty() { Ok(accounts.join("; ")) } else { Err(failures.join("; ")) }
    }

    /// Check 6: A whole game through the game runner, against three built-in random bots: no faults.
    pub(super) async fn first_game(&mut self) -> Outcome {
        self.hand_over().await?;
        self.real_game(0, Rules::default(), "default rules").await
    }

    /// Check 7: A second game on the same connection, in another seat, under other rules.
    pub(super) async fn second_game(&mut self) -> Outcome {
        let rules = Rules {
            discard: DiscardRule::KeepHighest,
            chant_second: ChantSecond::Partner,
            signals: SignalDelivery::Public,
            ..Rules::default()
        };
        self.real_game(
            3,
            rules,
            "same connection; discard keep-highest, chant-second partner, public signals",
        )
        .await
    }

    async fn real_game(&mut self, seat: usize, rules: Rules, what: &str) -> Outcome {
        self.game_no += 1;
        let game_no = self.game_no;
        let cfg = GameConfig {
            rules,
            seating: protocol::options::Seating::Given,
            clock: self.clock(),
            policy: Policy { on_fault: OnFault::Fallback, max_strikes: 3 },
        };
        let setup = GameSetup {
            game_no,
            match_seed: SEED_TAG,
            seed: game_seed(SEED_TAG, game_no),
            first_dealer: Seat::ALL[0],
            draw: None,
        };
        let (_trigger, shutdown) = shutdown::channel();
        let Some(bot) = self.bot.as_mut() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        let mut me = Some(bot);
        let mut others = self.opponents.iter_mut();
        let seats: [&mut Bot; 4] = std::array::from_fn(|i| {
            if i == seat { me.take() } else { others.next() }.expect("one bot per seat")
        });
        let summary = play_seated(seats, Game::of_setup(setup), &cfg, shutdown).await?.summary;
        let stats = &summary.stats[seat];
        self.note_time(Duration::from_micros(stats.max_us), format!("an answer in game {game_no}"));
        let faults: Vec<_> =
            summary.faults.iter().filter(|f| usize::from(f.seat) == seat).collect();
        if let Some(f) = faults.iter().find(|f| f.kind == FaultKind::Timeout) {
            self.timed_out.get_or_insert(format!("game {game_no}: {}", f.detail));
        }
        let alive = self.bot.as_ref().is_some_and(Bot::is_alive);
        let played = format!(
            "game {game_no} in seat {seat} ({what}) against three builtin:random bots: {} deals, \
             {} answers, final score {}-{}",
            summary.deals.len(),
            stats.answers,
            summary.score[0],
            summary.score[1]
        );
        let mut problems = Vec::new();
        if !faults.is_empty() {
            problems.push(format!(
                "expected no faults, got {}: {}",
                faults.len(),
                fault_list(&faults)
            ));
        }
        if !alive {
            // The runner stops a bot it replaced after too many strikes (a match restarts it
            // for the next game); any other end is the bot's own.
            let stopped = faults.iter().any(|f| {
                f.penalty == protocol::record::Penalty::Replaced && !policy::is_fatal(f.kind)
            });
            if stopped {
                let why = format!(
                    "the referee replaced the bot after {} strikes and stopped it",
                    cfg.policy.max_strikes
                );
                self.blocked = Some(format!("not checked: in game {game_no}, {why}"));
                problems.push(why);
            } else {
                let fault = self.ended().await;
                problems.push(self.gone(&fault));
            }
        }
        if problems.is_empty() {
            Ok(format!("{played}, no faults"))
        } else {
            Err(format!("{played}; {}", problems.join("; ")))
        }
    }

    /// Check 8: `bye` and end of input: the bot exits with status 0 within 2 s.
    pub(super) async fn bye(&mut self) -> Outcome {
        let Some(bot) = self.bot.take() else {
            return Err(self.blocked.clone().unwrap_or_else(|| "the bot is not connected".into()));
        };
        let start = Instant::now();
        bot.close("check-bot is over", Duration::ZERO).await;
        let grace = BYE_GRACE.as_secs();
        match (self.process.take(), self.builtin.take()) {
            (Some(p), _) => match p.finish(BYE_GRACE).await {
                Some(status) if status.success() => Ok(format!(
                    "exited with status 0, {} ms after bye",
                    start.elapsed().as_millis()
                )),
                Some(status) => Err(format!(
                    "expected exit status 0 within {grace} s of bye, got {}",
                    process::describe_exit(status)
                )),
                None => Err(format!(
                    "expected the bot to exit within {grace} s of bye and end of input, but it \
                     was still running (it was killed)"
                )),
            },
            (None, Some(task)) => match tokio::time::timeout(BYE_GRACE, task).await {
                Ok(_) => Ok(format!(
                    "the built-in bot ended its conversation, {} ms after bye",
                    start.elapsed().as_millis()
                )),
                Err(_) => Err(format!("the built-in bot was still running {grace} s after bye")),
            },
            (None, None) => Err("the bot is not running".into()),
        }
    }

    /// Check 9: Every answer within `--answer-ms`; reports the slowest.
    pub(super) async fn time(&mut self) -> Outcome {
        let limit = self.answer.as_millis();
        if let Some(t) = &self.timed_out {
            return Err(format!("expected every answer within {limit} ms: {t}"));
        }
        let Some((took, what)) = &self.slowest else {
            return Err("no answers were timed".into());
        };
        let shown = show_duration(*took);
        if *took > self.answer {
            Err(format!(
                "expected every answer within {limit} ms, the slowest took {shown} ({what}; a \
                 match would draw the excess from the bank)"
            ))
        } else {
            Ok(format!("slowest answer {shown} ({what}), limit {limit} ms"))
        }
    }
}

fn show_duration(d: Duration) -> String {
    if d < Duration::from_millis(10) {
        format!("{:.2} ms", d.as_secs_f64() * 1000.0)
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// check-bot offers every feature, so that it can check each one the bot takes up.
fn all_features() -> Vec<String> {
    FEATURES.iter().map(|f| f.to_string()).collect()
}
