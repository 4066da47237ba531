//! A point of the trick phase with every hand visible: the solver's input, built from a
//! `rules::Game` or played forward card by card (as `referee replay --par` walks a record).

use rules::{Card, CardSet, DealScore, Game, Rules, Seat, Team, Turn};
use rules::{score_announced, score_committed, score_deal};

/// Every hand, the trick on the table and the tricks already played, with the scoring in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) hands: [CardSet; 4],
    pub(crate) leader: Seat,
    pub(crate) table: [Card; 4],
    pub(crate) n_table: u8,
    pub(crate) winners: [Option<Seat>; 9],
    pub(crate) done: u8,
    pub(crate) rules: Rules,
    pub(crate) committed: Option<Team>,
    /// The team that announced a mordienne, when it is not committed to it (section 12.3).
    pub(crate) announced: Option<Team>,
}

/// Why a card cannot be played in a [`Position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// All nine tricks are over.
    DealOver,
    /// The seat to play does not hold this card.
    NotHeld {
        /// The seat to play.
        seat: Seat,
        /// The card it was asked to play.
        card: Card,
    },
}

impl core::fmt::Display for PlayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PlayError::DealOver => f.write_str("the deal's nine tricks are over"),
            PlayError::NotHeld { seat, card } => write!(f, "seat {seat} does not hold {card}"),
        }
    }
}

impl core::error::Error for PlayError {}

impl Position {
    /// The position of a game waiting for a card (`Turn::Play`); `None` at any other turn.
    pub fn from_game(game: &Game) -> Option<Position> {
        let Some(Turn::Play(_)) = game.to_act() else { return None };
        let view = game.view(Seat::ALL[0]);
        let mut table = [Card::MONSIEUR; 4];
        for (slot, (_, card)) in table.iter_mut().zip(view.table()) {
            *slot = *card;
        }
        Some(Position {
            hands: Seat::ALL.map(|s| game.hand(s)),
            leader: view.leader,
            table,
            n_table: view.table().len() as u8,
            winners: view.trick_winners,
            done: view.tricks_done,
            rules: *game.rules(),
            committed: view.pledges.committed(game.rules()),
            announced: view.pledges.announced_by().map(Seat::team),
        })
    }

    /// The seat to play, `None` once the nine tricks are over.
    pub fn to_play(&self) -> Option<Seat> {
        (self.done < 9).then(|| self.leader.plus(self.n_table))
    }

    /// A seat's cards.
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }

    /// Tricks finished.
    pub fn tricks_done(&self) -> u8 {
        self.done
    }

    /// The cards on the table, in play order.
    pub fn table(&self) -> &[Card] {
        &self.table[..usize::from(self.n_table)]
    }

    /// The team committed to a mordienne in this deal (spec/rules.md 12.4).
    pub fn committed(&self) -> Option<Team> {
        self.committed
    }

    /// Plays a card of the seat to play, ending the trick on the fourth, as `rules` does.
    pub fn play(&mut self, card: Card) -> Result<(), PlayError> {
        let seat = self.to_play().ok_or(PlayError::DealOver)?;
        if !self.hands[seat.index()].contains(card) {
            return Err(PlayError::NotHeld { seat, card });
        }
        self.hands[seat.index()] = self.hands[seat.index()].without(card);
        self.table[usize::from(self.n_table)] = card;
        self.n_table += 1;
        if self.n_table == 4 {
            let winner = rules::trick_winner(&self.table).map(|i| self.leader.plus(i as u8));
            self.winners[usize::from(self.done)] = winner;
            self.done += 1;
            self.n_table = 0;
            self.leader = winner.unwrap_or(self.leader);
        }
        Ok(())
    }

    /// The deal's score once the nine tricks are over, by `rules`' own scoring.
    pub fn score(&self) -> Option<DealScore> {
        (self.done == 9).then(|| match (self.committed, self.announced) {
            (Some(team), _) => score_committed(&self.winners, &self.rules, team),
            (None, Some(team)) => score_announced(&self.winners, &self.rules, team),
            (None, None) => score_deal(&self.winners, &self.rules),
        })
    }
}
