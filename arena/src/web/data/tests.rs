//! The pure parts of what the pages show: partners' and opponents' tallies, their best and
//! worst, and a live table's progress read from its record lines.

use super::*;
use crate::duplicate::Outcome;
use crate::team;

fn cmp(
    team_a: [BotId; 2],
    opp_a: [BotId; 2],
    team_b: [BotId; 2],
    opp_b: [BotId; 2],
    outcome: Outcome,
) -> Comparison {
    Comparison {
        deal: 1,
        side: 0,
        table_a: 0,
        table_b: 1,
        team_a: team(team_a[0], team_a[1]),
        team_b: team(team_b[0], team_b[1]),
        opp_a: team(opp_a[0], opp_a[1]),
        opp_b: team(opp_b[0], opp_b[1]),
        outcome,
        score_diff: 0,
        a_faulted: false,
        b_faulted: false,
    }
}

fn names() -> Names {
    Names(BTreeMap::new())
}

#[test]
fn tallies_take_the_bots_side_of_each_comparison() {
    // Bot 1 with partner 2 beats the field (as team A), then with partner 3 loses (as team B:
    // A winning is B losing), then draws with 2 as team B.
    let cs = [
        cmp([1, 2], [5, 6], [3, 4], [7, 8], Outcome::AWins),
        cmp([5, 6], [2, 4], [1, 3], [7, 8], Outcome::AWins),
        cmp([3, 4], [5, 6], [1, 2], [7, 9], Outcome::Draw),
        // Bot 1 is not in this one.
        cmp([2, 3], [5, 6], [4, 7], [8, 9], Outcome::BWins),
    ];
    let (p, o) = tallies(1, &cs);
    assert_eq!(p.get(&2), Some(&(2, 1.5)));
    assert_eq!(p.get(&3), Some(&(1, 0.0)));
    assert!(!p.contains_key(&1), "a bot is not its own partner");
    assert_eq!(o.get(&5), Some(&(1, 1.0)));
    assert_eq!(o.get(&7), Some(&(2, 0.5)));
    assert_eq!(o.get(&9), Some(&(1, 0.5)));
    assert_eq!(o.get(&2), None, "team A's opponents are not team B's");
    let bw = best_worst(&p, 1, &names());
    assert_eq!(bw.best[0].bot.id, 2);
    assert!((bw.best[0].score - 0.75).abs() < 1e-12);
    assert_eq!(bw.worst[0].bot.id, 3);
    assert_eq!(bw.worst[0].score, 0.0);
}

#[test]
fn best_and_worst_break_ties_by_comparisons_then_id() {
    let mut t = Tally::new();
    t.insert(4, (1, 1.0));
    t.insert(3, (5, 5.0));
    t.insert(9, (2, 0.0));
    t.insert(8, (2, 0.0));
    let bw = best_worst(&t, 2, &names());
    let ids = |v: &[Standing]| v.iter().map(|s| s.bot.id).collect::<Vec<_>>();
    assert_eq!(ids(&bw.best), [3, 4]);
    assert_eq!(ids(&bw.worst), [8, 9]);
    assert_eq!(bw.best[0].bot.name, "bot 3");
    assert!(best_worst(&Tally::new(), 3, &names()).best.is_empty());
}

#[test]
fn progress_counts_tricks_and_faults_and_keeps_the_last_score() {
    let lines: Vec<String> = [
        r#"{"type":"header","game":1}"#,
        r#"{"type":"trick","trick":1,"leader":0,"cards":[],"winner":1}"#,
        r#"{"type":"fault","seat":2}"#,
        "not json",
        r#"{"type":"trick","trick":2,"leader":1,"cards":[],"winner":null}"#,
        r#"{"type":"deal_over","deal":1,"score":[7,3]}"#,
        r#"{"type":"trick","trick":1,"leader":0,"cards":[],"winner":0}"#,
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(progress(&lines), (3, [7, 3], 1));
    assert_eq!(progress(&[]), (0, [0, 0], 0));
}

#[test]
fn a_live_view_has_no_card_in_it() {
    let table = LiveTable {
        game: 7,
        deal: 3,
        table_no: 1,
        seats: [1, 2, 3, 4],
        started_at: 100,
        lines: vec![
            r#"{"type":"deal","deal":1,"hands":[["Ao","2o"]]}"#.into(),
            r#"{"type":"trick","trick":1,"leader":0,"cards":[{"seat":0,"card":"Ko"}],"winner":0}"#
                .into(),
        ],
    };
    let v = live_view(&names(), &table);
    assert_eq!((v.tricks, v.lines, v.seats.len()), (1, 2, 4));
    let json = serde_json::to_string(&v).unwrap();
    for card in ["Ao", "2o", "Ko", "hands", "cards"] {
        assert!(!json.contains(card), "{card} in {json}");
    }
}
