//! The rounds before the first lead (spec/rules.md section 12): the surrender offer and its
//! reply, the mordienne announcement, the score of a deal they decide ([`Pledges::score`], which
//! the search bot scores its playouts by too), and the match length an announcement changes.
//! Kept apart from the play path of `mod.rs`.

use super::{Event, Game, Phase};
use crate::options::{Announcement, MatchLength, Rules};
use crate::score::{DealScore, score_accepted, score_announced, score_committed, score_deal};
use crate::seat::{Seat, Team};

/// The pre-lead answers of the deal in progress, all public (section 12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pledges {
    /// Each seat's answer in the surrender round: `Some(true)` for the offer.
    pub offers: [Option<bool>; 4],
    /// Each opponent's answer to the offer: `Some(true)` for an acceptance.
    pub replies: [Option<bool>; 4],
    /// Each seat's answer in the announcement round: `Some(true)` for the announcement.
    pub announces: [Option<bool>; 4],
}

impl Pledges {
    /// The seat that offered to surrender in this deal.
    pub fn offered_by(&self) -> Option<Seat> {
        Seat::ALL.into_iter().find(|s| self.offers[s.index()] == Some(true))
    }

    /// Whether the offer was accepted, once decided: by the first acceptance, or by the second
    /// refusal.
    pub fn accepted(&self) -> Option<bool> {
        let answers = self.replies.iter().flatten();
        if answers.clone().any(|&a| a) {
            Some(true)
        } else if answers.count() == 2 {
            Some(false)
        } else {
            None
        }
    }

    /// The seat that announced a mordienne in this deal.
    pub fn announced_by(&self) -> Option<Seat> {
        Seat::ALL.into_iter().find(|s| self.announces[s.index()] == Some(true))
    }

    /// The team committed to a mordienne (section 12.4): the refusers of a surrender, or under
    /// `announce-penalty` the announcing team.
    pub fn committed(&self, rules: &Rules) -> Option<Team> {
        match (self.offered_by(), self.accepted()) {
            (Some(offerer), Some(false)) => Some(offerer.team().other()),
            _ if rules.announce_penalty => self.announced_by().map(Seat::team),
            _ => None,
        }
    }

    /// The score of a deal with these pre-lead answers and these trick winners (spec/rules.md
    /// sections 7 and 12): an accepted surrender's point, a committed deal's 2 points, an
    /// announced deal's, or section 7's.
    pub fn score(&self, winners: &[Option<Seat>; 9], rules: &Rules) -> DealScore {
        if let (Some(offerer), Some(true)) = (self.offered_by(), self.accepted()) {
            return score_accepted(offerer.team().other());
        }
        match (self.committed(rules), self.announced_by()) {
            (Some(team), _) => score_committed(winners, rules, team),
            (None, Some(announcer)) => score_announced(winners, rules, announcer.team()),
            (None, None) => score_deal(winners, rules),
        }
    }

    /// What the deal's pre-lead rounds came to, for its result.
    pub fn outcome(&self) -> Option<Pledge> {
        let kind = |accepted| if accepted { PledgeKind::Accepted } else { PledgeKind::Refused };
        match (self.offered_by(), self.accepted()) {
            (Some(seat), Some(accepted)) => Some(Pledge { kind: kind(accepted), seat }),
            _ => self.announced_by().map(|seat| Pledge { kind: PledgeKind::Announced, seat }),
        }
    }
}

/// How a deal's pre-lead rounds ended, when they changed its scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PledgeKind {
    /// The surrender was accepted: one point to the accepters, no card played.
    Accepted,
    /// The surrender was refused: the refusers were committed to a mordienne.
    Refused,
    /// A mordienne was announced (its team committed to it under `announce-penalty`).
    Announced,
}

/// A deal's surrender or announcement, in its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pledge {
    /// What happened.
    pub kind: PledgeKind,
    /// The seat that offered the surrender or announced the mordienne.
    pub seat: Seat,
}

impl Game {
    /// The phase a deal enters when it reaches the first lead: the first pre-lead round in
    /// force, or the lead itself.
    pub(super) fn first_lead(&self) -> Phase {
        if self.rules.surrender {
            Phase::Offer(self.dealer.left())
        } else {
            self.after_surrender_round()
        }
    }

    fn after_surrender_round(&self) -> Phase {
        if self.rules.announce != Announcement::Off && self.pledges.offered_by().is_none() {
            Phase::Announce(self.dealer.left())
        } else {
            Phase::Play(self.leader)
        }
    }

    /// `seat`'s answer in the surrender round (it is that seat's turn).
    pub(super) fn offer(&mut self, seat: Seat, offer: bool) {
        self.pledges.offers[seat.index()] = Some(offer);
        self.events.push(Event::Offered { seat, offer });
        self.phase = if offer {
            Phase::Reply(seat.left())
        } else if seat == self.dealer {
            self.after_surrender_round()
        } else {
            Phase::Offer(seat.left())
        };
    }

    /// An opponent's answer to the offer (it is that seat's turn).
    pub(super) fn reply(&mut self, seat: Seat, accept: bool) {
        self.pledges.replies[seat.index()] = Some(accept);
        self.events.push(Event::Replied { seat, accept });
        match self.pledges.accepted() {
            Some(true) => self.end_deal(),
            Some(false) => self.phase = Phase::Play(self.leader),
            // The offerer's left refused: the other opponent, across the table from it, answers.
            None => self.phase = Phase::Reply(seat.partner()),
        }
    }

    /// `seat`'s answer in the announcement round (it is that seat's turn).
    pub(super) fn announce(&mut self, seat: Seat, announce: bool) {
        self.pledges.announces[seat.index()] = Some(announce);
        self.events.push(Event::Announced { seat, announce });
        if announce && self.rules.announce == Announcement::ExtendsMatch {
            self.extended = true;
        }
        self.phase = if announce || seat == self.dealer {
            Phase::Play(self.leader)
        } else {
            Phase::Announce(seat.left())
        };
    }

    /// The deal's score (section 7, or section 12).
    pub(super) fn deal_score(&self) -> DealScore {
        self.pledges.score(&self.winners, &self.rules)
    }

    /// How the match ends now (section 8): the configured length, and under `announced` a
    /// target of 10 from the first announcement on.
    pub(super) fn match_length(&self) -> MatchLength {
        to_ten(&self.rules, self.extended)
    }
}

/// The length of a match whose rules passed [`Rules::check_length`]: `announced-only` is then
/// set to 10 points already, and `announced` to a target below 10, which an announcement raises
/// to 10. Rules that did not pass keep their length: an announcement never shortens a match.
fn to_ten(rules: &Rules, extended: bool) -> MatchLength {
    match (rules.announce, rules.length) {
        (Announcement::ExtendsMatch, MatchLength::Target(n)) if extended => {
            MatchLength::Target(n.max(10))
        }
        (_, length) => length,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deal::Deck;
    use crate::game::{Action, Turn};

    /// Plays deals until the match ends: in each, the dealer's left offers and its left accepts
    /// (one point to the dealer's team), except that `announce_in` deals open with an
    /// announcement by the dealer's left and are played out with the first card held.
    fn play(rules: Rules, announce_in: &[u16]) -> Game {
        let mut game = Game::new(rules, Seat::ALL[0]);
        while let Some(turn) = game.to_act() {
            let announcing = announce_in.contains(&game.deal_number());
            let (seat, action) = match turn {
                Turn::Deal => {
                    game.deal(&Deck::shuffled(u64::from(game.deal_number()))).unwrap();
                    continue;
                }
                Turn::Vote(s) => (s, Action::Vote(false)),
                Turn::Offer(s) => (s, Action::Offer(!announcing)),
                Turn::Reply(s) => (s, Action::Reply(true)),
                Turn::Announce(s) => (s, Action::Announce(announcing)),
                Turn::Discard(_) => unreachable!("the chant is refused"),
                Turn::Play(s) => (s, Action::Play(game.hand(s).iter().next().unwrap())),
            };
            let before = game.clone();
            // Nobody else may answer in the seat's place, and a refusal changes nothing.
            assert!(game.apply(seat.left(), action).is_err());
            assert_eq!(game, before);
            game.apply(seat, action).unwrap();
        }
        game
    }

    #[test]
    fn announced_only_plays_to_ten() {
        let rules = Rules {
            surrender: true,
            announce: Announcement::MatchToTen,
            mordienne: false,
            length: MatchLength::Target(10),
            ..Rules::default()
        };
        assert_eq!(rules.check_length(), Ok(()));
        let game = play(rules, &[]);
        // The points alternate, dealer's team first: 10-9 after deal 19.
        let result = game.outcome().unwrap();
        assert_eq!((result.score, result.deals), ([10, 9], 19));
        assert_eq!(result.winner, Team::new(0));
    }

    #[test]
    fn an_announcement_extends_the_match_to_ten() {
        let rules = Rules {
            surrender: true,
            announce: Announcement::ExtendsMatch,
            length: MatchLength::Target(3),
            ..Rules::default()
        };
        let plain = play(rules, &[]).outcome().unwrap();
        assert_eq!((plain.score, plain.deals), ([3, 2], 5));
        let extended = play(rules, &[2]).outcome().unwrap();
        assert!(extended.deals > 5, "{extended:?}");
        assert!(extended.score.iter().any(|&p| p >= 10), "{extended:?}");
        assert!(extended.score.iter().all(|&p| p <= 11), "{extended:?}");
    }

    /// The target rule of spec/rules.md section 8 (issue 24): the length set is the length
    /// played, except that an announcement under `announced` raises a target below 10 to 10;
    /// every length the reading would change is refused.
    #[test]
    fn the_length_rule() {
        use crate::options::LengthConflict;
        let target = |n| Rules { length: MatchLength::Target(n), ..Rules::default() };
        let ext = |r: Rules| Rules { announce: Announcement::ExtendsMatch, ..r };
        let only = |r: Rules| Rules { announce: Announcement::MatchToTen, mordienne: false, ..r };
        assert_eq!(to_ten(&ext(target(7)), true), MatchLength::Target(10));
        assert_eq!(to_ten(&ext(target(7)), false), MatchLength::Target(7));
        assert_eq!(to_ten(&Rules::default(), true), MatchLength::Deals(5));
        assert_eq!(to_ten(&only(target(10)), false), MatchLength::Target(10));
        assert_eq!(ext(target(9)).check_length(), Ok(()));
        assert_eq!(only(target(10)).check_length(), Ok(()));
        assert_eq!(target(15).check_length(), Ok(()));
        assert_eq!(Rules::default().check_length(), Ok(()));
        let deals = MatchLength::Deals(5);
        assert_eq!(ext(target(10)).check_length(), Err(LengthConflict::Extends(target(10).length)));
        assert_eq!(ext(target(15)).check_length(), Err(LengthConflict::Extends(target(15).length)));
        assert_eq!(ext(Rules::default()).check_length(), Err(LengthConflict::Extends(deals)));
        assert_eq!(only(target(15)).check_length(), Err(LengthConflict::ToTen(target(15).length)));
        assert_eq!(only(Rules::default()).check_length(), Err(LengthConflict::ToTen(deals)));
        // Rules that did not pass are not shortened by an announcement.
        assert_eq!(to_ten(&ext(Rules::default()), true), deals);
        assert_eq!(to_ten(&ext(target(15)), true), MatchLength::Target(15));
    }

    /// `announce-penalty` (spec/rules.md section 12.4): off, an announcement that fails costs
    /// nothing; on, it gives the other team 2 points, as a refused surrender does.
    #[test]
    fn the_announcement_penalty_is_an_option() {
        // Team 0 (seat 2) wins the deal with one trick more than the others, no mordienne.
        let winners = [2, 1, 0, 3, 2, 1, 9, 0, 3].map(Seat::new);
        let announced = Pledges {
            announces: [None, Some(false), Some(false), Some(true)],
            ..Pledges::default()
        };
        let rules = Rules { announce: Announcement::ExtendsMatch, ..Rules::default() };
        let plain = announced.score(&winners, &rules);
        assert_eq!((plain.team, plain.points), (Team::new(0), 1));
        assert_eq!(announced.committed(&rules), None);
        let penalty = Rules { announce_penalty: true, ..rules };
        let failed = announced.score(&winners, &penalty);
        assert_eq!((failed.team, failed.points), (Team::new(0), 2));
        assert_eq!(announced.committed(&penalty), Team::new(1));
    }
}
