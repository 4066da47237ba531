//! The fit checked on synthetic comparisons drawn from known strengths with a fixed seed.

use super::*;
use crate::duplicate::Outcome;
use rules::SplitMix64;

fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `count` comparisons between random disjoint teams of bots 0..strengths.len(), each won by
/// A with the model's probability; `draw_band` of the probability mass around even is a draw.
fn synthetic(strengths: &[f64], count: usize, seed: u64, draw_band: f64) -> Vec<Comparison> {
    let mut rng = SplitMix64::new(seed);
    let n = strengths.len() as u64;
    (0..count)
        .map(|k| {
            let mut four = Vec::new();
            while four.len() < 4 {
                let b = rng.below(n) as BotId;
                if !four.contains(&b) {
                    four.push(b);
                }
            }
            let s = |b: BotId| strengths[b as usize];
            let p = sigmoid(s(four[0]) + s(four[1]) - s(four[2]) - s(four[3]));
            let u = uniform(&mut rng);
            let outcome = if u < p - draw_band / 2.0 {
                Outcome::AWins
            } else if u < p + draw_band / 2.0 {
                Outcome::Draw
            } else {
                Outcome::BWins
            };
            Comparison {
                deal: k as i64,
                side: 0,
                table_a: 0,
                table_b: 1,
                team_a: crate::team(four[0], four[1]),
                team_b: crate::team(four[2], four[3]),
                outcome,
                score_diff: 0,
                a_faulted: false,
                b_faulted: false,
            }
        })
        .collect()
}

/// Bot 0 is the anchor at 0; three tiers of three bots each around it.
const TRUE: [f64; 10] = [0.0, -1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];

fn anchor() -> BTreeMap<BotId, f64> {
    BTreeMap::from([(0, 0.0)])
}

#[test]
fn the_fit_recovers_the_tiers() {
    let cs = synthetic(&TRUE, 4000, 7, 0.1);
    let board = fit(&cs, &anchor(), &Config::default()).unwrap();
    assert_eq!(board.len(), 10);
    assert!(board[&0].anchored && board[&0].strength == 0.0);
    for (weak, strong) in [(1..4, 4..7), (4..7, 7..10)] {
        for w in weak.clone() {
            for s in strong.clone() {
                assert!(board[&w].strength < board[&s].strength, "{w} vs {s}: {board:?}");
            }
        }
    }
    // With this much data the tiers are a logit apart and every estimate is within 0.3.
    for (b, f) in &board {
        assert!((f.strength - TRUE[*b as usize]).abs() < 0.3, "{b}: {f:?}");
        assert!(
            f.low() < TRUE[*b as usize] + 0.05 && TRUE[*b as usize] - 0.05 < f.high() || f.anchored
        );
    }
}

#[test]
fn intervals_shrink_with_more_data() {
    let widths = |count: usize| -> Vec<f64> {
        let board = fit(&synthetic(&TRUE, count, 11, 0.1), &anchor(), &Config::default()).unwrap();
        board.values().filter(|f| !f.anchored).map(|f| f.half_width).collect()
    };
    let (few, many) = (widths(200), widths(3200));
    for (f, m) in few.iter().zip(&many) {
        assert!(m < f, "{few:?} {many:?}");
        // Sixteen times the data: about a quarter of the width.
        assert!(*m < f * 0.35, "{few:?} {many:?}");
    }
    let board = fit(&synthetic(&TRUE, 200, 11, 0.1), &anchor(), &Config::default()).unwrap();
    assert!(board.values().any(|f| f.provisional));
    let board = fit(&synthetic(&TRUE, 3200, 11, 0.1), &anchor(), &Config::default()).unwrap();
    assert!(board.values().all(|f| !f.provisional), "{board:?}");
}

#[test]
fn the_fit_is_a_pure_function_of_the_comparisons() {
    let cs = synthetic(&TRUE, 500, 3, 0.2);
    assert_eq!(fit(&cs, &anchor(), &Config::default()), fit(&cs, &anchor(), &Config::default()));
}

#[test]
fn draws_between_mirror_teams_leave_them_equal() {
    let cs = synthetic(&[0.0; 4], 0, 1, 0.0);
    assert!(fit(&cs, &anchor(), &Config::default()).unwrap()[&0].anchored);
    let mut cs = Vec::new();
    for k in 0..20 {
        let mut c = synthetic(&[0.0; 4], 1, k, 1.0).remove(0);
        c.team_a = [1, 2];
        c.team_b = [3, 4];
        cs.push(c);
    }
    assert!(cs.iter().all(|c| c.outcome == Outcome::Draw));
    let board = fit(&cs, &BTreeMap::new(), &Config::default()).unwrap();
    for b in 1..=4 {
        assert!(board[&b].strength.abs() < 1e-9, "{board:?}");
    }
}

#[test]
fn without_data_a_bot_sits_at_the_prior() {
    let mut c = synthetic(&[0.0; 4], 1, 5, 0.0).remove(0);
    c.outcome = Outcome::AWins;
    let board = fit(&[c.clone()], &BTreeMap::new(), &Config::default()).unwrap();
    let a = board[&c.team_a[0]];
    assert!(a.strength > 0.0 && a.provisional);
    // One comparison barely narrows a prior of 2 logits: the interval is nearly +-3.92.
    assert!(a.half_width > 3.5 && a.half_width < Z95 * 2.0, "{a:?}");
    let bad = Config { prior_sd: 0.0, ..Config::default() };
    assert_eq!(fit(&[c], &BTreeMap::new(), &bad), Err(FitError::BadPrior));
}

#[test]
fn a_lopsided_record_still_converges() {
    // Team {1,2} always wins: without the prior the likelihood has no maximum.
    let mut cs = synthetic(&[0.0; 5], 300, 9, 0.0);
    for c in &mut cs {
        c.team_a = [1, 2];
        c.team_b = [3, 4];
        c.outcome = Outcome::AWins;
    }
    let board = fit(&cs, &anchor(), &Config::default()).unwrap();
    // Only the sum of a team is identified; the prior splits it evenly between partners.
    assert!(board[&1].strength > 1.0 && board[&3].strength < -1.0, "{board:?}");
    assert!((board[&1].strength - board[&2].strength).abs() < 1e-9);
    assert!(board.values().all(|f| f.half_width.is_finite()));
}
