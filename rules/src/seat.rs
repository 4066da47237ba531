//! Seats around the table and the two partnerships, so seat arithmetic is written once.

use core::fmt;
use core::ops::{Index, IndexMut};

/// A seat, 0..3 clockwise. Seat `s + 1` sits to the left of seat `s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(u8);

impl Seat {
    /// The four seats in order.
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    /// The seat with this number, if it is 0..3.
    pub const fn new(n: u8) -> Option<Seat> {
        if n < 4 { Some(Seat(n)) } else { None }
    }

    /// The seat number 0..3.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The player to the left, who plays next.
    #[must_use]
    pub const fn left(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The seat `n` places to the left.
    #[must_use]
    pub const fn plus(self, n: u8) -> Seat {
        Seat(self.0.wrapping_add(n) & 3)
    }

    /// The partner opposite.
    #[must_use]
    pub const fn partner(self) -> Seat {
        Seat((self.0 + 2) & 3)
    }

    /// The partnership: team 0 is seats 0 and 2, team 1 is seats 1 and 3.
    pub const fn team(self) -> Team {
        Team(self.0 % 2)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A partnership: team 0 holds seats 0 and 2, team 1 holds seats 1 and 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Team(u8);

impl Team {
    /// Both teams.
    pub const ALL: [Team; 2] = [Team(0), Team(1)];

    /// The team with this number, if it is 0 or 1.
    pub const fn new(n: u8) -> Option<Team> {
        if n < 2 { Some(Team(n)) } else { None }
    }

    /// 0 or 1.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The other team.
    #[must_use]
    pub const fn other(self) -> Team {
        Team(1 - self.0)
    }

    /// The two seats, lower first.
    pub const fn seats(self) -> [Seat; 2] {
        [Seat(self.0), Seat(self.0 + 2)]
    }
}

impl fmt::Display for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One value per seat, indexed by [`Seat`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySeat<T>(pub [T; 4]);

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_arithmetic() {
        let s = Seat::new(3).unwrap();
        assert_eq!(s.left(), Seat(0));
        assert_eq!(s.partner(), Seat(1));
        assert_eq!(s.team(), Team(1));
        assert_eq!(Seat(0).plus(7), Seat(3));
        assert_eq!(Team(1).seats(), [Seat(1), Seat(3)]);
        assert!(Seat::new(4).is_none());
    }
}
