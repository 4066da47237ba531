//! The scripted games: check-bot's own games on the rules engine, the questions and notices a
//! match would send in them, and the fixed decks they are dealt from.

use super::answers::{judge_discard, judge_opening, judge_play, judge_pledge};
use super::{BANK_MS, Checker, Judged, Outcome, SEAT, SEED_TAG};
use crate::fault::Fault;
use crate::game_runner::votes_cast;
use crate::judge;
use crate::policy;
use convert::{code, codes, rules_wire, seat_no, table_card};
use protocol::msg::{SeatNo, TableCard, ToBot};
use protocol::record::Penalty;
use rules::{
    Action, Card, CardSet, Deck, Event, Game, MatchLength, Rules, Seat, Turn, derive_seed,
};

impl Checker {
    fn players(&self) -> Vec<String> {
        let mut names: Vec<String> = (0..4).map(|s| format!("check-bot-{s}")).collect();
        names[usize::from(SEAT)] = self.identity.name.clone();
        names
    }

    pub(super) fn game_message(&mut self, rules: &Rules) -> ToBot {
        self.game_no += 1;
        ToBot::Game {
            game: self.game_no,
            seat: SEAT,
            partner: (SEAT + 2) % 4,
            players: self.players(),
            rules: rules_wire(rules, protocol::options::Seating::Given),
            clock: self.clock(),
        }
    }

    /// Ends a scripted game early, as a forfeit does: the bot's team forfeits when its answer
    /// was refused (after an `error` saying why), the other team otherwise.
    pub(super) fn end_early(&mut self, refused: Option<(u64, Fault)>) {
        let bot_team = SEAT % 2;
        let forfeit = if let Some((id, fault)) = refused {
            self.refused(id, fault, Penalty::Forfeit, "");
            bot_team
        } else {
            1 - bot_team
        };
        let msg = ToBot::GameOver {
            game: self.game_no,
            score: [0, 0],
            winner: Some(1 - forfeit),
            forfeit: Some(forfeit),
        };
        self.queue(&msg);
    }

    /// Public notices after the bot's vote in a deal dealt by seat 0 or 3: when it accepts,
    /// seat 2 refuses next, so the chant is never taken here.
    pub(super) fn after_vote(&mut self, accept: bool) {
        self.queue(&ToBot::Vote { seat: SEAT, accept });
        if accept {
            self.queue(&ToBot::Vote { seat: 2, accept: false });
        }
        self.queue(&ToBot::Chant { taken: false });
    }

    /// Tells the bot that its answer to question `id` was refused, and what the referee did
    /// about it (`done`, as in a match).
    fn refused(&mut self, id: u64, fault: Fault, penalty: Penalty, done: &str) {
        self.queue(&ToBot::Error {
            id: Some(id),
            fault: fault.kind.as_str().into(),
            message: fault.detail,
            action: policy::action_text(penalty, done),
        });
    }

    /// Asks the bot's opening question in `game` and judges the answer: `Ok` with the vote (if
    /// any) and a short account, `Err` with what was expected and what came back.
    pub(super) async fn ask_opening(
        &mut self,
        game: &Game,
        extra: Option<(&str, &str)>,
    ) -> Result<Judged<(Option<bool>, String)>, String> {
        let me = Seat::ALL[usize::from(SEAT)];
        let view = game.view(me);
        let vote = judge::vote_asked(game, me);
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let label = if vote { "opening question (vote asked)" } else { "opening question" };
        let got = self
            .ask(
                label,
                |id| ToBot::Opening {
                    id,
                    deal: view.deal,
                    dealer: seat_no(view.dealer),
                    vote,
                    votes: votes_cast(&view),
                    hand: codes(view.hand),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                extra,
            )
            .await?;
        Ok(judge_opening(&got, game, me).map_err(|e| (id, e)))
    }

    /// Asks the bot's offer, reply or announce question in `game` (its turn) and judges the
    /// answer, as a match asks a bot that took up the feature `surrender`.
    pub(super) async fn ask_pledge(&mut self, game: &Game) -> Result<Judged<String>, String> {
        let me = Seat::ALL[usize::from(SEAT)];
        let view = game.view(me);
        let turn = game.to_act().ok_or("the scripted game is over")?;
        let label = judge::pledge_question(turn).ok_or("not a pre-lead turn")?;
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let (deal, hand, score) = (view.deal, codes(view.hand), view.score);
        let offerer = view.pledges.offered_by().map_or(0, seat_no);
        let got = self
            .ask(
                &format!("{label} question"),
                |id| match turn {
                    Turn::Offer(_) => {
                        ToBot::Offer { id, deal, hand, score, time_ms, bank_ms: BANK_MS }
                    }
                    Turn::Reply(_) => ToBot::Reply {
                        id,
                        deal,
                        seat: offerer,
                        hand,
                        score,
                        time_ms,
                        bank_ms: BANK_MS,
                    },
                    _ => ToBot::Announce { id, deal, hand, score, time_ms, bank_ms: BANK_MS },
                },
                None,
            )
            .await?;
        Ok(judge_pledge(&got, game, me).map_err(|e| (id, e)))
    }

    /// Asks the bot's discard question in `game` and judges the answer.
    pub(super) async fn ask_discard(&mut self, game: &Game) -> Result<Judged<String>, String> {
        let me = Seat::ALL[usize::from(SEAT)];
        let view = game.view(me);
        let id = self.next_id;
        let time_ms = self.answer.as_millis() as u64;
        let got = self
            .ask(
                "discard question",
                |id| ToBot::Discard {
                    id,
                    deal: view.deal,
                    hand: codes(view.hand),
                    received: game.received_in_order(me).map(code).collect(),
                    rule: convert::discard_rule(game.rules().discard),
                    time_ms,
                    bank_ms: BANK_MS,
                },
                None,
            )
            .await?;
        Ok(judge_discard(&got, game, me).map_err(|e| (id, e)))
    }

    /// Plays one whole game of one deal with the chant off: the bot in seat 1, the other seats
    /// by the referee's fallback, every notice a match would send. Each play answer is judged;
    /// a refused one gets an `error` and the fallback, as in a match, and is reported in
    /// `faults`. `seen` collects the situations met, for the account.
    pub(super) async fn scripted_deal(
        &mut self,
        dealer: Seat,
        deck: &Deck,
        seen: &mut Situations,
        faults: &mut Vec<String>,
    ) -> Result<(), String> {
        let rules = Rules { chant: false, length: MatchLength::Deals(1), ..Rules::default() };
        let msg = self.game_message(&rules);
        self.queue(&msg);
        let me = Seat::ALL[usize::from(SEAT)];
        let mut game = Game::new(rules, dealer);
        game.deal(deck).map_err(|e| format!("check-bot's own deal failed: {e:?}"))?;
        let view = game.view(me);
        self.queue(&ToBot::Deal {
            deal: view.deal,
            dealer: seat_no(dealer),
            hand: codes(view.hand),
        });
        // The opening is the opening check's business; here a refused one gets what a match
        // would give it, an `error`, and the game goes on.
        if let Err((id, fault)) = self.ask_opening(&game, None).await? {
            self.refused(id, fault, Penalty::Fallback, policy::opening_done(false));
        }
        let mut winners = Vec::new();
        while let Some(Turn::Play(seat)) = game.to_act() {
            let view = game.view(seat);
            let fallback = policy::fallback_play(view.hand).ok_or("a player without cards")?;
            let card = if seat == me {
                let id = self.next_id;
                let table: Vec<TableCard> =
                    view.table().iter().map(|&(s, c)| table_card(s, c)).collect();
                let time_ms = self.answer.as_millis() as u64;
                let got = self
                    .ask(
                        &format!("play question (trick {})", view.trick),
                        |id| ToBot::Play {
                            id,
                            deal: view.deal,
                            trick: view.trick,
                            leader: seat_no(view.leader),
                            table: table.clone(),
                            hand: codes(view.hand),
                            won: view.tricks_won(),
                            score: view.score,
                            time_ms,
                            bank_ms: BANK_MS,
                        },
                        None,
                    )
                    .await?;
                let situation = Situations::of(view.trick, &table, view.hand);
                // As in a match: a refused signal leaves the card standing (it is dropped); any
                // other refusal is answered by the fallback.
                let (card, refused) = match judge_play(&got, &game, me) {
                    Ok((card, Ok(()))) => {
                        seen.note(situation, &table, view.hand, card);
                        (card, None)
                    }
                    Ok((card, Err(signal))) => (
                        card,
                        Some((signal, Penalty::SignalDropped, policy::SIGNAL_DROPPED.into())),
                    ),
                    Err(fault) => (
                        fallback,
                        Some((fault, Penalty::Fallback, policy::play_done(Some(fallback)))),
                    ),
                };
                if let Some((fault, penalty, done)) = refused {
                    faults.push(format!(
                        "{} (trick {}): {}",
                        situation.name(),
                        view.trick,
                        fault.detail
                    ));
                    self.refused(id, fault, penalty, &done);
                }
                card
            } else {
                fallback
            };
            let trick = view.trick;
            let events = *game
                .apply(seat, Action::Play(card))
                .map_err(|e| format!("check-bot's own play failed: {e:?}"))?;
            for e in events.iter() {
                match *e {
                    Event::Played { seat, card } => {
                        self.queue(&ToBot::Played { seat: seat_no(seat), card: code(card), trick })
                    }
                    Event::TrickOver(t) => {
                        winners.push(t.winner.map(seat_no));
                        let cards =
                            (0..4).map(|k| table_card(t.leader.plus(k), t.cards[usize::from(k)]));
                        self.queue(&ToBot::Trick {
                            trick: t.number,
                            leader: seat_no(t.leader),
                            cards: cards.collect(),
                            winner: t.winner.map(seat_no),
                            next: seat_no(t.next_leader),
                        });
                    }
                    Event::DealOver(d) => self.queue(&ToBot::DealOver {
                        deal: d.deal,
                        tricks: d.score.tricks,
                        winners: std::mem::take(&mut winners),
                        winner: d.score.winner.map(seat_no),
                        points: d.score.points,
                        mordienne: d.score.mordienne,
                        counted: d.counted,
                        score: d.match_score,
                        pledge: convert::pledge(&d),
                    }),
                    _ => {}
                }
            }
        }
        let msg = ToBot::GameOver {
            game: self.game_no,
            score: game.score(),
            winner: game.outcome().and_then(|r| r.winner).map(|t| t.index() as u8),
            forfeit: None,
        };
        self.queue(&msg);
        Ok(())
    }
}

/// The play situations the checks look for, with the first answer seen in each.
#[derive(Debug, Default)]
pub(super) struct Situations {
    leading: Option<String>,
    last_to_win: Option<String>,
    one_card: Option<String>,
    plays: usize,
}

/// Which situation a play question is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Situation {
    Leading,
    LastToWin,
    OneCard,
    Other,
}

impl Situation {
    fn name(self) -> &'static str {
        match self {
            Situation::Leading => "leading",
            Situation::LastToWin => "last to play with a trick to win",
            Situation::OneCard => "1 card left",
            Situation::Other => "play",
        }
    }
}

impl Situations {
    fn of(trick: u8, table: &[TableCard], hand: CardSet) -> Situation {
        let best = table.iter().map(|t| convert::card(t.card).level()).min();
        if hand.len() == 1 {
            Situation::OneCard
        } else if table.is_empty() && trick == 1 {
            Situation::Leading
        } else if table.len() == 3 && best.is_some_and(|b| hand.iter().any(|c| c.level() < b)) {
            Situation::LastToWin
        } else {
            Situation::Other
        }
    }

    fn note(&mut self, situation: Situation, table: &[TableCard], hand: CardSet, card: Card) {
        self.plays += 1;
        let shown = |cards: &[TableCard]| {
            cards.iter().map(|t| t.card.as_str().to_string()).collect::<Vec<_>>().join(" ")
        };
        let slot = match situation {
            Situation::Leading => &mut self.leading,
            Situation::LastToWin => &mut self.last_to_win,
            Situation::OneCard => &mut self.one_card,
            Situation::Other => return,
        };
        slot.get_or_insert_with(|| match situation {
            Situation::LastToWin => {
                let best = table.iter().map(|t| convert::card(t.card).level()).min();
                let wins = best.is_some_and(|b| card.level() < b);
                format!(
                    "{} (table {}, {} cards held): played {card}{}",
                    situation.name(),
                    shown(table),
                    hand.len(),
                    if wins { ", taking the trick" } else { "" }
                )
            }
            Situation::OneCard => format!("{} (trick 9): played {card}", situation.name()),
            _ => format!("{} ({} cards held): played {card}", situation.name(), hand.len()),
        });
    }

    pub(super) fn account(&self) -> Outcome {
        let found = [&self.leading, &self.last_to_win, &self.one_card];
        let mut parts: Vec<String> = found.iter().filter_map(|s| s.as_ref().cloned()).collect();
        if found.iter().any(|s| s.is_none()) {
            // The decks are chosen so that each situation arises; this only guards that choice.
            return Err(format!("check-bot did not meet every situation: {}", parts.join("; ")));
        }
        parts.push(format!("{} play answers in 2 deals, all cards from the hand", self.plays));
        Ok(parts.join("; "))
    }
}

/// The first scripted deck (from `salt` on) that `fits`: fixed, so every run is the same.
pub(super) fn scripted_deck(salt: u64, fits: impl Fn(&Deck) -> bool) -> Deck {
    (salt..salt + 10_000)
        .map(|n| Deck::shuffled(derive_seed(&[SEED_TAG, n])))
        .find(|d| fits(d))
        .unwrap_or_else(|| Deck::shuffled(derive_seed(&[SEED_TAG, salt])))
}

/// check-bot's own scripted game: `rules`, dealt by `dealer` from `deck`.
pub(super) fn dealt(rules: Rules, dealer: Seat, deck: &Deck) -> Result<Game, String> {
    let mut game = Game::new(rules, dealer);
    game.deal(deck).map_err(|e| format!("check-bot's own deal failed: {e}"))?;
    Ok(game)
}

/// Applies a scripted action to check-bot's own game, so that the game the answers are judged
/// in is the conversation's.
pub(super) fn act(game: &mut Game, seat: SeatNo, action: Action) -> Result<(), String> {
    let seat = Seat::ALL[usize::from(seat)];
    game.apply(seat, action).map_err(|e| format!("check-bot's own {action:?} failed: {e}"))?;
    Ok(())
}
