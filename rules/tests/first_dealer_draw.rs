//! Golden vectors of the draw for the first dealer (`seating=draw-dealer`, spec/rules.md
//! section 3), computed from the spec's text by an independent script before the engine ran
//! them: the decks the referee draws for games 1 to 3 of match seed 42, and game 1 of seed 7.
//! The draw skips a seat that has received a great card (issue 24); without that rule games 1
//! and 3 of seed 42 and game 1 of seed 7 would name another dealer (2, 3 and 1).

use rules::{Card, DealerDraw, Deck, Seat, derive_seed, draw_first_dealer};

/// The deck of game `game`'s draw (spec/records.md section 4): the seating draw's deck.
fn draw_deck(match_seed: u64, game: u64) -> Deck {
    Deck::shuffled(derive_seed(&[match_seed, game, u64::MAX]))
}

fn cards(codes: &str) -> Vec<Card> {
    codes.split_whitespace().map(|c| c.parse().unwrap()).collect()
}

#[test]
fn golden_first_dealer_draws() {
    let cases = [
        (
            42,
            1,
            "Co 4s 8s Kc 8c Ab 5b 6s 2s Jb 8o Ac As 4c Ko 2b 3o Cs 4b 6b 9c 4o 7b Jo Ks 9b 6c 2c \
             3b 7c 9o 7o Js Ao 2o 6o 5c 5o 3c",
            1,
        ),
        (42, 2, "Kb 6c 4b 5b 8b 4o Js 9c Ks 3c", 1),
        (
            42,
            3,
            "As 8s 7o Ao 2c Ks 8c Co 7s Cs 8o Jb 6o 5c 9c Js Ac 4c 9o 4s 9s 7b 6c 5b 2s 2o Ko 3c",
            2,
        ),
        (
            7,
            1,
            "6s 3s 7o Js Ks 9b 5b Ac 2c 8c 7s 9o 4s Cc Kc 7c Ko Co 2o 8s 5s 4o Cb Kb 2s 3b 6c 5c \
             9s 3o As 4b 8b 4c Jo 7b Cs 8o 5o 6b 2b 3c",
            3,
        ),
    ];
    for (match_seed, game, turned, dealer) in cases {
        let deck = draw_deck(match_seed, game);
        let turned = cards(turned);
        let draw = draw_first_dealer(deck.cards()).unwrap();
        assert_eq!(
            draw,
            DealerDraw { dealer: Seat::new(dealer).unwrap(), cards_turned: turned.len() },
            "match seed {match_seed}, game {game}"
        );
        assert_eq!(deck.cards()[..draw.cards_turned], turned[..], "seed {match_seed} game {game}");
        // The turned cards alone, as a record keeps them, give the same draw.
        assert_eq!(draw_first_dealer(&turned), Some(draw));
    }
}
