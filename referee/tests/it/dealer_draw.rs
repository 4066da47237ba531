//! `seating=draw-dealer`: partnerships as given, the first dealer of each game drawn (spec/rules.md
//! section 3). The expected draws are the golden vectors of `rules/tests/first_dealer_draw.rs`,
//! computed from the spec's text by an independent script; a record whose stated draw and first
//! dealer disagree is refused by `referee replay`.

use crate::harness::*;
use serde_json::Value;

/// Game 2's record with its header changed by `edit`, written beside it.
fn tampered(scratch: &Scratch, name: &str, edit: impl Fn(&mut Value)) -> std::path::PathBuf {
    let record = Record::read(&scratch.record(2));
    let mut lines: Vec<Value> = record.record().to_vec();
    edit(&mut lines[0]);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    scratch.write(name, &text)
}

#[test]
fn the_madame_s_receiver_deals_first_and_replay_checks_it() {
    let scratch = Scratch::new("draw");
    let records = scratch.records();
    let bots = ["builtin:heuristic", "builtin:random", "builtin:random", "builtin:random"];
    referee_ok(&match_args("--seed 42 --games 2 --seating draw-dealer", &records, &bots));
    // Match seed 42: game 1 turns up 39 cards, the Madame going to seat 1 (seats 0, 2 and 3
    // being out with the Monsieur, the Vache and the Borgne); game 2 turns up 10, no great card
    // before the Madame, seat 9 mod 4 = 1.
    let golden = [
        (
            1,
            "Co 4s 8s Kc 8c Ab 5b 6s 2s Jb 8o Ac As 4c Ko 2b 3o Cs 4b 6b 9c 4o 7b Jo Ks 9b 6c 2c \
             3b 7c 9o 7o Js Ao 2o 6o 5c 5o 3c",
        ),
        (1, "Kb 6c 4b 5b 8b 4o Js 9c Ks 3c"),
    ];
    for (game, (dealer, turned)) in (1..).zip(golden) {
        let record = check_record(&scratch.record(game));
        let header = record.header();
        assert_eq!(header["rules"]["seating"], "draw-dealer");
        assert_eq!(header["first_dealer"], dealer, "game {game}");
        let draw: Vec<&str> =
            header["draw"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        assert_eq!(draw, words(turned), "game {game}");
        assert_eq!(record.lines("deal").next().unwrap()["dealer"], dealer, "game {game}");
        // The partnerships are the given ones: player 0 keeps seat 0.
        assert_eq!(header["seats"][0]["name"], "builtin-heuristic", "game {game}");
    }

    // Game 2 without its first card: the Madame is the ninth card, seat 0's, not seat 1's.
    let shifted = tampered(&scratch, "shifted.jsonl", |h| {
        h["draw"].as_array_mut().unwrap().remove(0);
    });
    let line = referee_fails(&["replay", "--quiet", s(&shifted)]);
    assert!(line.contains("says first dealer 1, the rules say 0"), "{line}");
    // A card after the Madame: the draw would have stopped before it.
    let longer = tampered(&scratch, "longer.jsonl", |h| {
        h["draw"].as_array_mut().unwrap().push("Ao".into());
    });
    let line = referee_fails(&["replay", "--quiet", s(&longer)]);
    assert!(line.contains("the Madame (3c)"), "{line}");
    let none = tampered(&scratch, "none.jsonl", |h| {
        h.as_object_mut().unwrap().remove("draw");
    });
    let line = referee_fails(&["replay", "--quiet", s(&none)]);
    assert!(line.contains("no draw is stated"), "{line}");
}

/// A duplicate tournament accepts the option (a drawn seating it refuses), and both rooms of a
/// deal set draw the same first dealer, from the deck spec/records.md section 4 gives.
#[test]
fn duplicate_rooms_draw_the_same_first_dealer() {
    let scratch = Scratch::new("tournament");
    let config = scratch.write(
        "t.toml",
        "seed = 9\ngames = 2\n[rules]\nseating = \"draw-dealer\"\n\n\
         [[entrants]]\nname = \"H\"\ncommand = \"builtin:heuristic\"\n\n\
         [[entrants]]\nname = \"R\"\ncommand = \"builtin:random\"\n",
    );
    let out = scratch.join("out");
    referee_ok(&["tournament", s(&config), "--out", s(&out)]);
    let journal = jsonl(&out.join("journal.jsonl"));
    assert_eq!(journal.len(), 4);
    let mut dealers = std::collections::BTreeSet::new();
    for entry in &journal {
        let record = check_record(&out.join(entry["record"].as_str().unwrap()));
        let header = record.header();
        let unit = entry["unit"].as_u64().unwrap();
        let deck = rules::Deck::shuffled(rules::derive_seed(&[9, unit, u64::MAX]));
        let drawn = rules::draw_first_dealer(deck.cards()).unwrap();
        assert_eq!(header["first_dealer"], drawn.dealer.index(), "unit {unit}");
        let codes: Vec<String> =
            deck.cards()[..drawn.cards_turned].iter().map(|c| c.to_string()).collect();
        assert_eq!(header["draw"], serde_json::json!(codes), "unit {unit}");
        dealers.insert((unit, drawn.dealer.index()));
    }
    // Two units, each with one first dealer for both rooms.
    assert_eq!(dealers.len(), 2, "{dealers:?}");
}
