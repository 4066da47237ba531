//! What one seat may know at one moment: its own cards and what is public, and the one function
//! that builds it from the whole game.

use super::{Game, Pledges, Turn};
use crate::card::{Card, CardSet};
use crate::seat::Seat;

impl Game {
    /// Exactly what `seat` may know now.
    pub fn view(&self, seat: Seat) -> SeatView {
        let mut table = [(seat, Card::MONSIEUR); 4];
        for (i, slot) in table.iter_mut().enumerate().take(self.n_table as usize) {
            *slot = (self.leader.plus(i as u8), self.table[i]);
        }
        SeatView {
            seat,
            dealer: self.dealer,
            deal: self.deal_no,
            hand: self.hands[seat.index()],
            received: self.received[seat.index()],
            discarded: self.discarded[seat.index()],
            votes: self.votes,
            chant_taken: self.chant_taken,
            pledges: self.pledges,
            trick: (self.tricks_done + 1).min(9),
            leader: self.leader,
            table,
            n_table: self.n_table as usize,
            trick_winners: self.winners,
            tricks_done: self.tricks_done,
            played: self.played,
            score: self.score,
            to_act: self.to_act(),
        }
    }

    /// The talon cards `seat` received in this deal, in the order they were dealt to it: the
    /// talon goes to the two recipients in turn, the dealer's left first. None for a seat that
    /// received nothing. (The view's `received` is a set; a seat saw the order.)
    pub fn received_in_order(&self, seat: Seat) -> impl Iterator<Item = Card> + '_ {
        let second = usize::from(seat != self.dealer.left());
        let got = self.received[seat.index()];
        self.talon.iter().skip(second).step_by(2).copied().filter(move |&c| got.contains(c))
    }
}

/// Everything one seat may know at one moment: its own cards, and what is public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Whose view.
    pub seat: Seat,
    /// Dealer of the current deal.
    pub dealer: Seat,
    /// Deal sequence number.
    pub deal: u16,
    /// The seat's hand.
    pub hand: CardSet,
    /// Talon cards this seat received in the chant.
    pub received: CardSet,
    /// Cards this seat discarded.
    pub discarded: CardSet,
    /// Chant votes so far.
    pub votes: [Option<bool>; 4],
    /// Whether the chant was taken, once decided.
    pub chant_taken: Option<bool>,
    /// The surrender and announcement answers of this deal so far (all public).
    pub pledges: Pledges,
    /// Current trick number, 1..=9.
    pub trick: u8,
    /// Leader of the current trick.
    pub leader: Seat,
    table: [(Seat, Card); 4],
    n_table: usize,
    /// Winners of the finished tricks (first `tricks_done` entries).
    pub trick_winners: [Option<Seat>; 9],
    /// Finished tricks in this deal.
    pub tricks_done: u8,
    /// Every card played so far in this deal.
    pub played: CardSet,
    /// Match score per team.
    pub score: [u16; 2],
    /// What the game waits for.
    pub to_act: Option<Turn>,
}

impl SeatView {
    /// What `seat` knows before anything of a match is told: no deal, no cards, nothing
    /// asked, itself as dealer and leader. For a seat that keeps its view from the messages it
    /// is sent rather than from a [`Game`] (a bot's bridge); [`Game::view`] is the engine's.
    pub fn new(seat: Seat) -> SeatView {
        SeatView {
            seat,
            dealer: seat,
            deal: 0,
            hand: CardSet::EMPTY,
            received: CardSet::EMPTY,
            discarded: CardSet::EMPTY,
            votes: [None; 4],
            chant_taken: None,
            pledges: Pledges::default(),
            trick: 1,
            leader: seat,
            table: [(seat, Card::MONSIEUR); 4],
            n_table: 0,
            trick_winners: [None; 9],
            tricks_done: 0,
            played: CardSet::EMPTY,
            score: [0; 2],
            to_act: None,
        }
    }

    /// `by` played `card`: it goes on the table, among the played cards, and out of the hand
    /// when it is this seat's, as [`Game::view`] shows it after the play. A card laid on a
    /// full table starts the next trick's: a view kept from messages need not clear it first.
    pub fn lay(&mut self, by: Seat, card: Card) {
        if self.n_table == self.table.len() {
            self.n_table = 0;
        }
        self.table[self.n_table] = (by, card);
        self.n_table += 1;
        self.played = self.played.with(card);
        if by == self.seat {
            self.hand = self.hand.without(card);
        }
    }

    /// Takes the finished trick's cards off the table.
    pub fn clear_table(&mut self) {
        self.n_table = 0;
    }

    /// The cards on the table in play order, with who played them.
    pub fn table(&self) -> &[(Seat, Card)] {
        &self.table[..self.n_table]
    }

    /// Tricks won per seat in this deal.
    pub fn tricks_won(&self) -> [u8; 4] {
        let mut won = [0; 4];
        for w in self.trick_winners[..self.tricks_done as usize].iter().flatten() {
            won[w.index()] += 1;
        }
        won
    }

    /// Every card this seat may know of: its hand, its chant cards and discards, and all
    /// played cards.
    pub fn known_cards(&self) -> CardSet {
        self.hand.union(self.received).union(self.discarded).union(self.played)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Action, Deck, Game, Rules, Seat, Turn};

    /// A view kept by laying each card played shows the table, the played cards and the hand
    /// as the engine's own view does, trick after trick.
    #[test]
    fn a_view_kept_from_the_plays_is_the_engines() {
        let mut game = Game::new(Rules { chant: false, ..Rules::default() }, Seat::ALL[0]);
        game.deal(&Deck::shuffled(11)).unwrap();
        let me = Seat::ALL[2];
        let mut kept = game.view(me);
        while let Some(Turn::Play(seat)) = game.to_act() {
            let card = game.hand(seat).iter().next().unwrap();
            let was_last = game.view(me).table().len() == 3;
            game.apply(seat, Action::Play(card)).unwrap();
            kept.lay(seat, card);
            let engine = game.view(me);
            if was_last {
                kept.clear_table();
            }
            assert_eq!(kept.table(), engine.table());
            assert_eq!((kept.played, kept.hand), (engine.played, engine.hand));
        }
    }

    #[test]
    fn a_new_view_knows_nothing() {
        let view = super::SeatView::new(Seat::ALL[3]);
        assert!(view.table().is_empty() && view.known_cards().is_empty());
        assert_eq!((view.seat, view.dealer, view.to_act), (Seat::ALL[3], Seat::ALL[3], None));
    }
}
