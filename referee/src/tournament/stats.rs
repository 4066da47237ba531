//! Tournament statistics as pure functions of plain numbers, so each can be checked against
//! results whose right answer is known: Elo from a score with its confidence interval, a
//! Bradley-Terry fit for many entrants, and the GSPRT chess engine testers stop matches with.
//!
//! Every method works on *units* with a score in [0, 1] from one entrant's point of view. A
//! unit is a game in a round robin, and a deal set (the two rooms of duplicate, averaged) in
//! duplicate: the two rooms share their cards, so their results are correlated and only the
//! pair is an independent observation. Variances are taken over units, as fishtest does with
//! game pairs (the "pentanomial" model), which is what makes the intervals honest in duplicate.

use serde::{Deserialize, Serialize};

/// The two-sided 95% quantile of the normal distribution.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// Natural log of 10 over 400: the slope of the logistic Elo curve's exponent.
const C: f64 = std::f64::consts::LN_10 / 400.0;

/// The Elo difference whose expected score is `score` (logistic model): infinite at 0% and
/// 100% (and beyond, where an interval's end can fall), a result no finite difference explains.
pub(crate) fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of an Elo difference (logistic model).
pub(crate) fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and (population) variance.
pub(crate) fn mean_var(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Some((mean, var))
}

/// An Elo value with its 95% interval. `None` means no estimate at all (no units); an infinite
/// value is a score of 0% or 100%, and an infinite end one within reach of the interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct EloEstimate {
    pub(crate) elo: Option<f64>,
    pub(crate) low: Option<f64>,
    pub(crate) high: Option<f64>,
}

/// The Elo difference of one entrant over another from its unit scores: the mean score turned
/// into Elo, and the interval mean +- 1.96 standard errors, where the standard error is the
/// units' standard deviation over the square root of their number, mapped through the same
/// curve (the trinomial method for games, the pentanomial one for deal sets).
pub(crate) fn elo_estimate(scores: &[f64]) -> EloEstimate {
    let Some((mean, var)) = mean_var(scores) else { return EloEstimate::default() };
    let se = (var / scores.len() as f64).sqrt();
    EloEstimate {
        elo: Some(elo_from_score(mean)),
        low: Some(elo_from_score(mean - Z95 * se)),
        high: Some(elo_from_score(mean + Z95 * se)),
    }
}

/// One result: entrant `i` scored `x` in [0, 1] against entrant `j`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Unit {
    pub(crate) i: usize,
    pub(crate) j: usize,
    pub(crate) x: f64,
}

/// A fitted rating: Elo relative to the mean of the entrants it is connected to, and its
/// standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rating {
    pub(crate) elo: f64,
    pub(crate) se: f64,
}

impl Rating {
    pub(crate) fn low(&self) -> f64 {
        self.elo - Z95 * self.se
    }

    pub(crate) fn high(&self) -> f64 {
        self.elo + Z95 * self.se
    }
}

/// Bradley-Terry ratings on the Elo scale for `n` entrants.
///
/// The ratings r solve, for every entrant i, sum over its units (x - E(r_i - r_j)) = 0, with E
/// the logistic expected score: the maximum-likelihood fit in which every unit is a weighted
/// win (a draw is half a win each). They are centred on 0 over each group of entrants that met
/// (directly or through others). With two entrants, r_a - r_b is exactly `elo_from_score` of
/// a's mean score.
///
/// The interval is the sandwich (robust) one: Cov = L+ V L+, where L is the information matrix
/// (the graph Laplacian weighted by E(1-E) ln10/400 per unit), L+ its pseudo-inverse (which
/// imposes the centring), and V the observed spread of the units' residuals x - E. Because V
/// is measured rather than assumed binomial, draws and the pairing of duplicate rooms into one
/// unit are accounted for. With two entrants it gives the same interval on r_a - r_b as
/// [`elo_estimate`], to first order.
///
/// When the maximum-likelihood fit does not exist (some entrant or group won or lost every
/// unit against the rest), one virtual draw per pairing that met is added, as BayesElo's prior
/// does, so every rating stays finite; the virtual draws weigh in the fit but not in V.
///
/// Entrants without units get `None`.
pub(crate) fn bradley_terry(n: usize, units: &[Unit]) -> Vec<Option<Rating>> {
    let mut out = vec![None; n];
    // Group the entrants that met, directly or through others (union-find).
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut a: usize) -> usize {
        while parent[a] != a {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        a
    }
    for u in units {
        let (a, b) = (root(&mut parent, u.i), root(&mut parent, u.j));
        parent[a] = b;
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for u in units {
        for e in [u.i, u.j] {
            let r = root(&mut parent, e);
            let g = groups.entry(r).or_default();
            if !g.contains(&e) {
                g.push(e);
            }
        }
    }
    for members in groups.values_mut() {
        members.sort_unstable();
        let local = |e: usize| members.binary_search(&e).ok();
        let mine: Vec<Unit> = units
            .iter()
            .filter_map(|u| Some(Unit { i: local(u.i)?, j: local(u.j)?, x: u.x }))
            .collect();
        for (k, r) in fit(members.len(), &mine).into_iter().enumerate() {
            out[members[k]] = Some(r);
        }
    }
    out
}

/// [`bradley_terry`] for one connected group of `m` entrants numbered 0..m.
fn fit(m: usize, units: &[Unit]) -> Vec<Rating> {
    let mut prior = Vec::new();
    if !strongly_connected(m, units) {
        let mut met = std::collections::BTreeSet::new();
        for u in units {
            met.insert((u.i.min(u.j), u.i.max(u.j)));
        }
        prior = met.into_iter().map(|(i, j)| Unit { i, j, x: 0.5 }).collect();
    }
    let all: Vec<Unit> = units.iter().chain(prior.iter()).copied().collect();
    let mut r = vec![0.0; m];
    let mut pinv = vec![vec![0.0; m]; m];
    for _ in 0..200 {
        let (g, lap) = gradient(&r, &all);
        pinv = pseudo_inverse(&lap);
        let step: Vec<f64> = (0..m)
            .map(|i| (0..m).map(|k| pinv[i][k] * g[k]).sum::<f64>().clamp(-200.0, 200.0))
            .collect();
        for (ri, s) in r.iter_mut().zip(&step) {
            *ri += s;
        }
        if step.iter().all(|s| s.abs() < 1e-10) {
            break;
        }
    }
    let mean = r.iter().sum::<f64>() / m as f64;
    r.iter_mut().for_each(|x| *x -= mean);
    // V: the spread of the residuals of the real units only.
    let mut v = vec![vec![0.0; m]; m];
    for u in units {
        let e = u.x - score_from_elo(r[u.i] - r[u.j]);
        let e2 = e * e;
        v[u.i][u.i] += e2;
        v[u.j][u.j] += e2;
        v[u.i][u.j] -= e2;
        v[u.j][u.i] -= e2;
    }
    let (_, lap) = gradient(&r, &all);
    pinv = pseudo_inverse(&lap);
    (0..m)
        .map(|i| {
            let mut var = 0.0;
            for a in 0..m {
                for b in 0..m {
                    var += pinv[i][a] * v[a][b] * pinv[b][i];
                }
            }
            Rating { elo: r[i], se: var.max(0.0).sqrt() }
        })
        .collect()
}

/// The estimating equations' values g and the information matrix L at ratings `r`.
fn gradient(r: &[f64], units: &[Unit]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let m = r.len();
    let mut g = vec![0.0; m];
    let mut lap = vec![vec![0.0; m]; m];
    for u in units {
        let e = score_from_elo(r[u.i] - r[u.j]);
        g[u.i] += u.x - e;
        g[u.j] -= u.x - e;
        let w = C * e * (1.0 - e);
        lap[u.i][u.i] += w;
        lap[u.j][u.j] += w;
        lap[u.i][u.j] -= w;
        lap[u.j][u.i] -= w;
    }
    (g, lap)
}

/// Whether every entrant scored something against some entrant that scored something
/// against it, around the whole group: the condition for a finite maximum-likelihood fit.
fn strongly_connected(m: usize, units: &[Unit]) -> bool {
    let mut edges = vec![Vec::new(); m];
    for u in units {
        if u.x > 0.0 {
            edges[u.i].push(u.j);
        }
        if u.x < 1.0 {
            edges[u.j].push(u.i);
        }
    }
    let reach = |edges: &Vec<Vec<usize>>| {
        let mut seen = vec![false; m];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(a) = stack.pop() {
            for &b in &edges[a] {
                if !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    let mut back = vec![Vec::new(); m];
    for (a, outs) in edges.iter().enumerate() {
        for &b in outs {
            back[b].push(a);
        }
    }
    reach(&edges) && reach(&back)
}

/// The pseudo-inverse of a connected graph's Laplacian: (L + J/m)^-1 - J/m, J all ones.
fn pseudo_inverse(lap: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let m = lap.len();
    let k = 1.0 / m as f64;
    let a: Vec<Vec<f64>> = lap.iter().map(|row| row.iter().map(|x| x + k).collect()).collect();
    let mut inv = invert(a);
    for row in inv.iter_mut() {
        for x in row.iter_mut() {
            *x -= k;
        }
    }
    inv
}

/// Gauss-Jordan inversion with partial pivoting (the matrices here are small and well
/// conditioned: a Laplacian plus a constant).
fn invert(mut a: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let m = a.len();
    let mut inv: Vec<Vec<f64>> =
        (0..m).map(|i| (0..m).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for col in 0..m {
        let pivot =
            (col..m).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-300 {
            continue;
        }
        for j in 0..m {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..m {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..m {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    inv
}

/// A sequential probability ratio test between two Elo hypotheses (logistic Elo).
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SprtParams {
    pub(crate) elo0: f64,
    pub(crate) elo1: f64,
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
}

/// What an SPRT concluded.
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Verdict {
    /// elo1 accepted: the first entrant is stronger by about elo1 or more.
    H1,
    /// elo0 accepted.
    H0,
}

impl SprtParams {
    /// Wald's bounds on the log-likelihood ratio: (ln(beta/(1-alpha)), ln((1-beta)/alpha)).
    pub(crate) fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The generalized log-likelihood ratio (GSPRT) of `counts`, where `counts[k]` units scored
    /// k/(K-1), K = counts.len(): K = 3 is the trinomial model (loss, draw, win) and K = 5 the
    /// pentanomial one (deal sets scoring 0, 1/4, 1/2, 3/4, 1).
    ///
    /// This is fishtest's exact GSPRT (Van den Bergh's LLR_logistic): each hypothesis' score
    /// s = score_from_elo(elo) is met by the maximum-likelihood multinomial with mean s, found by
    /// solving the secular equation sum p_k d_k / (1 + x d_k) = 0 (d_k = value_k - s); the
    /// LLR is N sum p_k ln(q1_k / q0_k). As in fishtest, empty outcomes count 0.001, so a
    /// lopsided start gives a finite ratio.
    pub(crate) fn llr(&self, counts: &[u64]) -> f64 {
        if counts.len() < 2 || counts.iter().all(|&c| c == 0) {
            return 0.0;
        }
        let reg: Vec<f64> = counts.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
        let n: f64 = reg.iter().sum();
        let p: Vec<f64> = reg.iter().map(|c| c / n).collect();
        let k = (counts.len() - 1) as f64;
        let values: Vec<f64> = (0..counts.len()).map(|i| i as f64 / k).collect();
        let q0 = constrained_mle(&p, &values, score_from_elo(self.elo0));
        let q1 = constrained_mle(&p, &values, score_from_elo(self.elo1));
        n * p.iter().zip(q0.iter().zip(&q1)).map(|(pi, (a, b))| pi * (b / a).ln()).sum::<f64>()
    }

    /// The decision for a log-likelihood ratio, if it crossed a bound.
    pub(crate) fn verdict(&self, llr: f64) -> Option<Verdict> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Verdict::H1)
        } else if llr <= lower {
            Some(Verdict::H0)
        } else {
            None
        }
    }
}

/// The multinomial closest (in likelihood) to `p` over `values` whose mean is `s`.
fn constrained_mle(p: &[f64], values: &[f64], s: f64) -> Vec<f64> {
    let d: Vec<f64> = values.iter().map(|v| v - s).collect();
    let max = d.iter().copied().fold(f64::MIN, f64::max);
    let min = d.iter().copied().fold(f64::MAX, f64::min);
    // 1 + x d_k > 0 for every k bounds x to (-1/max, -1/min); f decreases on it.
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let f = |x: f64| p.iter().zip(&d).map(|(pi, di)| pi * di / (1.0 + x * di)).sum::<f64>();
    for _ in 0..300 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    p.iter().zip(&d).map(|(pi, di)| pi / (1.0 + x * di)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn a_75_percent_score_is_190_8_elo() {
        assert!(close(elo_from_score(0.75), 190.8485, 1e-3));
        assert!(close(score_from_elo(190.848_501_887_865), 0.75, 1e-12));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(0.5), 0.0);
    }

    #[test]
    fn interval_of_known_trinomial_results() {
        // 60 wins, 20 draws, 20 losses: mean 0.7, variance 0.16, standard error 0.04.
        let mut xs = vec![1.0; 60];
        xs.extend([0.5; 20]);
        xs.extend([0.0; 20]);
        let e = elo_estimate(&xs);
        assert!(close(e.elo.unwrap(), 147.1907, 1e-3), "{e:?}");
        assert!(close(e.low.unwrap(), 86.2250, 1e-3), "{e:?}");
        assert!(close(e.high.unwrap(), 218.2518, 1e-3), "{e:?}");
        // Three wins and a loss: the upper end is unbounded.
        let e = elo_estimate(&[1.0, 1.0, 1.0, 0.0]);
        assert_eq!(e.high, Some(f64::INFINITY));
        assert!(e.elo.unwrap().is_finite());
    }

    #[test]
    fn a_clean_sweep_is_infinite_and_no_units_is_no_estimate() {
        let sweep = elo_estimate(&[1.0; 5]);
        assert_eq!((sweep.elo, sweep.high), (Some(f64::INFINITY), Some(f64::INFINITY)));
        let lost = elo_estimate(&[0.0; 5]);
        assert_eq!((lost.elo, lost.low), (Some(f64::NEG_INFINITY), Some(f64::NEG_INFINITY)));
        assert_eq!(elo_estimate(&[]), EloEstimate { elo: None, low: None, high: None });
    }

    #[test]
    fn bradley_terry_with_two_entrants_is_the_plain_elo_difference() {
        let mut units = vec![Unit { i: 0, j: 1, x: 1.0 }; 30];
        units.extend(vec![Unit { i: 0, j: 1, x: 0.0 }; 10]);
        let r = bradley_terry(3, &units);
        let (a, b) = (r[0].unwrap(), r[1].unwrap());
        assert!(close(a.elo - b.elo, 190.848_501_887_865, 1e-6), "{a:?} {b:?}");
        assert!(close(a.elo, -b.elo, 1e-9));
        assert_eq!(r[2], None, "an entrant without games has no rating");
        // The interval on the difference matches the two-player one to first order: the
        // standard error of the mean score over the slope of the Elo curve, halved for each
        // of the two centred ratings.
        let se_mean = (0.75f64 * 0.25 / 40.0).sqrt();
        let slope = C * 0.75 * 0.25;
        assert!(close(a.se, se_mean / slope / 2.0, 1e-6), "{a:?}");
    }

    #[test]
    fn bradley_terry_solves_its_equations_for_many_entrants() {
        let results = [(0, 1, 0.75, 20), (1, 2, 0.6, 20), (0, 2, 0.9, 10), (2, 3, 0.5, 8)];
        let mut units = Vec::new();
        for (i, j, share, n) in results {
            let wins = (share * n as f64).round() as usize;
            for k in 0..n {
                units.push(Unit { i, j, x: if k < wins { 1.0 } else { 0.0 } });
            }
        }
        let r: Vec<Rating> = bradley_terry(4, &units).into_iter().map(Option::unwrap).collect();
        assert!(close(r.iter().map(|x| x.elo).sum::<f64>(), 0.0, 1e-6));
        for e in 0..4 {
            let residual: f64 = units
                .iter()
                .map(|u| {
                    let d = u.x - score_from_elo(r[u.i].elo - r[u.j].elo);
                    if u.i == e {
                        d
                    } else if u.j == e {
                        -d
                    } else {
                        0.0
                    }
                })
                .sum();
            assert!(close(residual, 0.0, 1e-6), "entrant {e}: {residual}");
        }
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo);
        assert!(r.iter().all(|x| x.se > 0.0 && x.low() < x.elo && x.elo < x.high()));
    }

    #[test]
    fn perfect_scores_stay_finite() {
        let units = vec![Unit { i: 0, j: 1, x: 1.0 }; 10];
        let r = bradley_terry(2, &units);
        // Ten wins and one virtual draw: a mean of 10.5/11.
        let want = elo_from_score(10.5 / 11.0);
        assert!(close(r[0].unwrap().elo - r[1].unwrap().elo, want, 1e-6), "{r:?}");
    }

    #[test]
    fn sprt_llr_of_known_counts() {
        // Values computed independently from fishtest's definition (see the doc comment).
        let p = SprtParams { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05 };
        assert!(close(p.llr(&[30, 40, 50]), 0.413_456_5, 1e-6), "{}", p.llr(&[30, 40, 50]));
        let p = SprtParams { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        assert!(close(p.llr(&[10, 20, 40, 25, 5]), -0.437_486_2, 1e-6));
        assert!(close(p.llr(&[0, 3, 10, 12, 6]), 0.879_197_1, 1e-6));
        let (lo, hi) = p.bounds();
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        assert_eq!(p.verdict(3.0), Some(Verdict::H1));
        assert_eq!(p.verdict(-3.0), Some(Verdict::H0));
        assert_eq!(p.verdict(0.0), None);
        assert_eq!(p.llr(&[0, 0, 0]), 0.0);
    }
}
