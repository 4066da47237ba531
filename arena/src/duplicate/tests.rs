//! Duplicate scoring checked on hand-made deals whose datum and comparisons are worked out here.

use super::*;

fn table(table: u32, holders: [Team; 2], points: [i32; 2]) -> TableResult {
    TableResult { table, holders, points, faulted: Vec::new(), voided: false }
}

#[test]
fn two_tables_give_one_comparison_per_side() {
    // Table 1: {1,3} hold side 0 and score 2-0; table 2: {5,7} hold side 0 and score 1-0.
    let tables = [table(1, [[1, 3], [2, 4]], [2, 0]), table(2, [[5, 7], [6, 8]], [1, 0])];
    let s = score_deal(9, &tables);
    assert_eq!(s.datum, Some([1.5, -1.5]));
    assert_eq!(s.comparisons.len(), 2);
    let c0 = &s.comparisons[0];
    assert_eq!((c0.side, c0.team_a, c0.team_b), (0, [1, 3], [5, 7]));
    assert_eq!((c0.outcome, c0.score_diff), (Outcome::AWins, 1));
    let c1 = &s.comparisons[1];
    assert_eq!((c1.side, c1.team_a, c1.team_b), (1, [2, 4], [6, 8]));
    assert_eq!((c1.outcome, c1.score_diff), (Outcome::BWins, -1));
    let d: Vec<f64> = s.deviations.iter().map(|d| d.deviation).collect();
    assert_eq!(d, [0.5, -0.5, -0.5, 0.5]);
}

#[test]
fn equal_scores_draw() {
    let tables = [table(0, [[1, 3], [2, 4]], [1, 0]), table(1, [[5, 7], [6, 8]], [1, 0])];
    let s = score_deal(1, &tables);
    assert!(s.comparisons.iter().all(|c| c.outcome == Outcome::Draw && c.score_diff == 0));
}

#[test]
fn a_fault_loses_whatever_the_cards_scored() {
    let mut t1 = table(0, [[1, 3], [2, 4]], [2, 0]);
    t1.faulted = vec![3];
    let t2 = table(1, [[5, 7], [6, 8]], [0, 1]);
    let s = score_deal(1, &[t1, t2]);
    let c0 = &s.comparisons[0];
    assert_eq!(
        (c0.outcome, c0.score_diff, c0.a_faulted, c0.b_faulted),
        (Outcome::BWins, 3, true, false)
    );
    // The other side is compared on its cards: {2,4} scored -2 net, {6,8} +1.
    let c1 = &s.comparisons[1];
    assert_eq!((c1.outcome, c1.a_faulted), (Outcome::BWins, false));
}

#[test]
fn both_faulting_is_a_draw() {
    let mut t1 = table(0, [[1, 3], [2, 4]], [2, 0]);
    t1.faulted = vec![1];
    let mut t2 = table(1, [[5, 7], [6, 8]], [0, 1]);
    t2.faulted = vec![7];
    let s = score_deal(1, &[t1, t2]);
    assert_eq!(s.comparisons[0].outcome, Outcome::Draw);
}

#[test]
fn voided_tables_are_excluded() {
    let mut t2 = table(1, [[5, 7], [6, 8]], [2, 0]);
    t2.voided = true;
    let t1 = table(0, [[1, 3], [2, 4]], [0, 1]);
    let s = score_deal(1, &[t1.clone(), t2]);
    assert_eq!(s.datum, Some([-1.0, 1.0]));
    assert!(s.comparisons.is_empty());
    let t3 = table(2, [[9, 11], [10, 12]], [1, 0]);
    let s = score_deal(1, &[t3, t1]);
    assert_eq!(s.comparisons.len(), 2);
    assert_eq!((s.comparisons[0].table_a, s.comparisons[0].table_b), (0, 2));
    assert!(score_deal(1, &[]).datum.is_none());
}

#[test]
fn three_tables_compare_every_pair() {
    let tables = [
        table(0, [[1, 3], [2, 4]], [1, 0]),
        table(1, [[5, 7], [6, 8]], [0, 1]),
        table(2, [[9, 11], [10, 12]], [2, 0]),
    ];
    let s = score_deal(1, &tables);
    assert_eq!(s.comparisons.len(), 6);
    let pairs: Vec<(u8, u32, u32)> =
        s.comparisons.iter().map(|c| (c.side, c.table_a, c.table_b)).collect();
    assert_eq!(pairs, [(0, 0, 1), (0, 0, 2), (0, 1, 2), (1, 0, 1), (1, 0, 2), (1, 1, 2)]);
    // Side 0's nets are 1, -1 and 2.
    assert_eq!(s.datum, Some([2.0 / 3.0, -2.0 / 3.0]));
}

#[test]
fn orientation_decides_who_holds_which_side() {
    assert_eq!(holders([4, 1, 2, 3], 0), [[2, 4], [1, 3]]);
    assert_eq!(holders([4, 1, 2, 3], 1), [[1, 3], [2, 4]]);
    assert_eq!(holders([4, 1, 2, 3], 2), holders([4, 1, 2, 3], 0));
}

#[test]
fn outcome_codes_round_trip() {
    for o in [Outcome::AWins, Outcome::Draw, Outcome::BWins] {
        assert_eq!(Outcome::from_code(o.code()), Some(o));
    }
    assert_eq!(Outcome::from_code(3), None);
}

#[test]
fn a_comparison_names_both_teams_opponents() {
    let tables = [table(0, [[1, 3], [2, 4]], [2, 0]), table(1, [[5, 7], [6, 8]], [1, 0])];
    let s = score_deal(9, &tables);
    let c0 = &s.comparisons[0];
    assert_eq!((c0.opp_a, c0.opp_b), ([2, 4], [6, 8]));
    let c1 = &s.comparisons[1];
    assert_eq!((c1.team_a, c1.opp_a, c1.team_b, c1.opp_b), ([2, 4], [1, 3], [6, 8], [5, 7]));
}

#[test]
fn without_faults_side_one_mirrors_side_zero() {
    let tables = [table(0, [[1, 3], [2, 4]], [2, 0]), table(1, [[5, 7], [6, 8]], [1, 0])];
    let s = score_deal(9, &tables);
    assert!(is_mirror(&s.comparisons[0], &s.comparisons[1]));
    assert!(!is_mirror(&s.comparisons[0], &s.comparisons[0]));
    let kept = independent(&s.comparisons);
    assert_eq!(kept, [&s.comparisons[0]]);
    // Three tables: three independent comparisons of six.
    let three = [
        table(0, [[1, 3], [2, 4]], [1, 0]),
        table(1, [[5, 7], [6, 8]], [0, 1]),
        table(2, [[9, 11], [10, 12]], [0, 0]),
    ];
    let s3 = score_deal(10, &three);
    assert_eq!(independent(&s3.comparisons).len(), 3);
    // Two deals' comparisons interleaved are still matched within their own deal.
    let mixed = [s.comparisons[0].clone(), s3.comparisons[0].clone(), s.comparisons[1].clone()];
    assert_eq!(independent(&mixed).len(), 2);
}

#[test]
fn a_fault_can_break_the_mirror() {
    // Bot 1 faults while its team wins the cards 2-0: side 0 goes to {5,7}, side 1 is compared
    // on the cards and {2,4} (net -2) also does worse than {6,8} (net -1).
    let mut t0 = table(0, [[1, 3], [2, 4]], [2, 0]);
    t0.faulted = vec![1];
    let s = score_deal(9, &[t0, table(1, [[5, 7], [6, 8]], [1, 0])]);
    assert_eq!(
        (s.comparisons[0].outcome, s.comparisons[1].outcome),
        (Outcome::BWins, Outcome::BWins)
    );
    assert!(!is_mirror(&s.comparisons[0], &s.comparisons[1]));
    assert_eq!(independent(&s.comparisons).len(), 2);
}
