//! Par for Aluette: the deal score each partnership gets when all four seats play perfectly with
//! every hand visible (double dummy), from any point of the trick phase.
//!
//! The value optimised is the rules' deal score, not tricks: the point to the most tricks with
//! the first-to-reach tie break, mordienne with its run and its option, a committed team's
//! mordienne (spec/rules.md 7 and 12.4), spoiled tricks led again by their leader. It is one
//! number, team 0's points minus team 1's ([`Par::value`], from -2 to 2): the two teams'
//! interests are opposed in every deal, since exactly one team scores.
//!
//! The search is alpha-beta over the legal plays, with two reductions the bridge solvers use:
//! the cards of one hand that no other card in play separates are one move (suits never
//! matter here, so cards of one level always are; a card weaker than every card of another
//! hand can never win nor tie a trick again, and all such cards of a hand are one throwaway
//! move that separates nothing), and positions at the start of a trick go through a
//! transposition table keyed on the cards left (up to such equivalences) and on the part of the
//! trick history the score still depends on (`tally.rs`). Bounds from the cards left cut it
//! short (`bounds.rs`): how many tricks each seat can still win at most and at least, and how
//! many its team can make it win; whether a team's sure tricks, the two teams counted together,
//! leave both seats of the other below one of its own; whether a seat can take every trick
//! left; whether the other team can stop a mordienne by keeping its best cards for the last
//! tricks (or its best card for the tricks the run's seat leads). Moves are ordered for cuts
//! (`search.rs`): a team stopping a mordienne plays its weakest cards first.
//! `tests/exhaustive.rs` holds it to a plain search over `rules::Game` on thousands of small
//! endings, `tests/recorded.rs` to the pars the search found before those bounds.
//!
//! ```
//! use par::{Position, Solver};
//! use rules::{Action, Deck, Game, Rules, Seat, Turn};
//! let mut game = Game::new(Rules { chant: false, ..Rules::default() }, Seat::ALL[0]);
//! game.deal(&Deck::shuffled(7)).unwrap();
//! // Six tricks of the first cards in hand, then the last three solved.
//! for _ in 0..24 {
//!     let Some(Turn::Play(seat)) = game.to_act() else { unreachable!() };
//!     let card = game.hand(seat).iter().next().unwrap();
//!     game.apply(seat, Action::Play(card)).unwrap();
//! }
//! let mut solver = Solver::new();
//! let position = Position::from_game(&game).unwrap();
//! let par = solver.solve(&position);
//! assert!((-2..=2).contains(&par.value()));
//! // The best card the seat to play has keeps the par; none does better.
//! let options = solver.options(&position);
//! let mover = position.to_play().unwrap().team();
//! let best = options.iter().map(|(_, p)| p.for_team(mover)).max();
//! assert_eq!(best, Some(par.for_team(mover)));
//! ```
#![no_std]
#![deny(missing_docs)]

extern crate alloc;

mod bounds;
mod position;
mod search;
mod slots;
mod table;
mod tally;

pub use position::{PlayError, Position};

use rules::{Card, Team};
use search::Search;
use table::Table;
use tally::{Scoring, Tally};

/// What perfect play by all four seats scores from a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Par(i8);

impl Par {
    /// Team 0's points minus team 1's: from -2 to 2.
    pub fn value(self) -> i8 {
        self.0
    }

    /// The par from `team`'s side: its points, or minus the other team's.
    pub fn for_team(self, team: Team) -> i8 {
        if team.index() == 0 { self.0 } else { -self.0 }
    }

    /// The team that scores and its points; `None` when nobody does.
    pub fn scorer(self) -> Option<(Team, u8)> {
        let team = Team::ALL[usize::from(self.0 < 0)];
        (self.0 != 0).then_some((team, self.0.unsigned_abs()))
    }
}

/// A solver, with its transposition table kept across calls: solving the positions of one deal
/// one after the other (as a replay does) reuses what the earlier searches found.
#[derive(Debug)]
pub struct Solver {
    tt: Table,
    scoring: Option<Scoring>,
    nodes: u64,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a table of 2^22 entries (128 MiB at most: the memory is taken as the
    /// search writes to it). The size matters little since the dead cards left the key: on
    /// the first position of the bench's costliest whole deal, 2^18 entries took 1.17 times
    /// the nodes of 2^22, and 2^24 0.95 times.
    pub fn new() -> Solver {
        Solver::with_table(22)
    }

    /// A solver with a table of 2^`log2` entries of 32 bytes.
    pub fn with_table(log2: u32) -> Solver {
        Solver { tt: Table::new(log2.clamp(4, 28)), scoring: None, nodes: 0 }
    }

    /// Forgets every position searched: for a new deal, whose positions share nothing with the
    /// last one's (a benchmark clears between deals to measure each from scratch).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// Nodes searched since this solver was made (a measure of work for the benchmark).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The par of `position`: its score when the deal is over, else perfect play's.
    pub fn solve(&mut self, position: &Position) -> Par {
        // An unbounded budget cannot run out.
        self.solve_within(position, u64::MAX).unwrap_or(Par(0))
    }

    /// The par of `position`, or `None` when finding it takes more than `max_nodes` nodes.
    /// Deterministic: the same positions asked in the same order give the same answers. What
    /// the table learnt before the budget ran out is kept, and true.
    pub fn solve_within(&mut self, position: &Position, max_nodes: u64) -> Option<Par> {
        self.solve_between(position, max_nodes, None)
    }

    /// [`Solver::solve_within`], with the par known to lie in `known` (team 0's side) when given.
    fn solve_between(
        &mut self,
        position: &Position,
        max_nodes: u64,
        known: Option<(i8, i8)>,
    ) -> Option<Par> {
        if let Some(score) = position.score() {
            return Some(Par(score_value(&score)));
        }
        let scoring = Scoring {
            mordienne: position.rules.mordienne,
            run: position.rules.mordienne_run,
            committed: position.committed,
            announced: position.announced,
        };
        // The table's keys leave the scoring out: it is the same for a whole deal.
        if self.scoring != Some(scoring) {
            self.tt.clear();
            self.scoring = Some(scoring);
        }
        let tally = position.winners[..usize::from(position.done)]
            .iter()
            .fold(Tally::new(), |t, w| t.after(w.map(|s| s.index() as u8)));
        let mut table = [0u8; 4];
        let mut table_mask = 0;
        for (slot, card) in table.iter_mut().zip(position.table()) {
            *slot = card.strength();
            table_mask |= 1 << *slot;
        }
        let mut search = Search {
            hands: position.hands.map(slots::mask),
            leader: position.leader.index() as u8,
            table,
            n_table: position.n_table,
            table_mask,
            dead: 0,
            tally,
            scoring,
            tt: &mut self.tt,
            nodes: 0,
            budget: max_nodes,
            pre: None,
        };
        // Null-window tests ("is the par at least t?") bisect the five possible values: each
        // test cuts far more than one wide search, and the table carries bounds between them.
        let (mut lo, mut hi) = scoring.range();
        if let Some((klo, khi)) = known {
            (lo, hi) = (lo.max(klo), hi.min(khi));
        }
        while lo < hi {
            let t = (lo + hi + 1).div_euclid(2);
            let r = search.search(t - 1, t);
            if search.nodes > max_nodes {
                self.nodes += search.nodes;
                return None;
            }
            if r >= t { lo = r } else { hi = r }
        }
        self.nodes += search.nodes;
        Some(Par(lo))
    }

    /// The par of each position of one line of play (a deal's positions in the order they
    /// came), solved last first: the later, smaller searches fill the table the earlier ones
    /// read. Once a position needs more than `max_nodes`, the earlier ones, which hold it in
    /// their trees, are not tried: they are `None` too. The table is cleared first.
    /// A position one card before the next one has a par on the side of its seat to play at
    /// least that position's (the seat can play that card): the search starts from that bound.
    pub fn solve_line(
        &mut self,
        line: &[Position],
        max_nodes: u64,
    ) -> alloc::vec::Vec<Option<Par>> {
        self.tt.clear();
        let mut out = alloc::vec![None; line.len()];
        let mut next: Option<(&Position, Par)> = None;
        for (slot, p) in out.iter_mut().zip(line).rev() {
            let known = next.and_then(|(n, par)| one_card_before(p, n).then_some(par.0)).map(|v| {
                match p.to_play().map(|s| s.team().index()) {
                    Some(0) => (v, i8::MAX),
                    _ => (i8::MIN, v),
                }
            });
            *slot = self.solve_between(p, max_nodes, known);
            match *slot {
                Some(par) => next = Some((p, par)),
                None => break,
            }
        }
        out
    }

    /// The par after each card the seat to play may play, one card per class of
    /// interchangeable cards (the others score the same), strongest first.
    pub fn options(&mut self, position: &Position) -> alloc::vec::Vec<(Card, Par)> {
        let Some(seat) = position.to_play() else { return alloc::vec::Vec::new() };
        let mut others = 0;
        for s in rules::Seat::ALL {
            if s != seat {
                others |= slots::mask(position.hand(s));
            }
        }
        others |= slots::mask(position.table().iter().copied().collect());
        let (list, n) = search::moves(slots::mask(position.hand(seat)), others);
        list[..n]
            .iter()
            .map(|&slot| {
                let card = slots::card_at(slot);
                let mut next = *position;
                // The card comes from the seat's own hand, so playing it cannot fail.
                let _ = next.play(card);
                (card, self.solve(&next))
            })
            .collect()
    }
}

/// True when one card of the seat to play in `p` makes it `next`.
fn one_card_before(p: &Position, next: &Position) -> bool {
    let Some(seat) = p.to_play() else { return false };
    p.hand(seat).iter().any(|card| {
        let mut q = *p;
        q.play(card).is_ok() && q == *next
    })
}

/// A deal score as team 0's points minus team 1's.
fn score_value(score: &rules::DealScore) -> i8 {
    match score.team {
        Some(t) if t.index() == 0 => score.points as i8,
        Some(_) => -(score.points as i8),
        None => 0,
    }
}

#[cfg(test)]
mod tests;
