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
