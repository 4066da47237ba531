//! The official board: a Bradley-Terry fit of all duplicate comparisons at once. Team strength
//! is the sum of its two bots' strengths; team A did better than team B with the same cards
//! with probability 1 / (1 + e^-d), d = (s_A - s_oppA) - (s_B - s_oppB), because each team's
//! net score was made against its own opponents (spec/arena.md section 6 says why the opponents
//! cannot be left out). Mirrored comparisons count once ([`crate::duplicate::independent`]).
//! A draw is left out: the model is of which team did better given that one did (the
//! conditional likelihood of Davidson's model of ties, whose tie parameter then needs no fit).
//! Counted as half a win each way, as this board once did, most comparisons being draws would
//! pull every strength towards the others by the draw share while the curvature, blind to
//! outcomes, kept each draw's full weight: intervals wider than the estimates' own spread (in a
//! simulation with 60% draws, 99.8% of nominal 95% intervals covered the truth) and gaps
//! shrunk to a third, so separating two bots took some 2.5 times the comparisons. The fit is the maximum a
//! posteriori under an independent Gaussian prior N(0, prior_sd^2) on each free strength,
//! found by Newton's method on the (strictly concave) log-posterior; the 95% intervals come
//! from the inverse of its negated Hessian at the optimum (the Laplace approximation).
//! Anchored bots are held at given values and are not fitted; the arena anchors one house bot
//! at 0 (spec/arena.md, "Rating") so the scale has a fixed origin the prior alone would let
//! drift as the field changes.

use crate::BotId;
use crate::duplicate::{Comparison, Outcome, independent};
use std::collections::BTreeMap;

/// The fit's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Standard deviation of the prior on each free strength, in logits.
    pub prior_sd: f64,
    /// A bot stays provisional while its 95% interval's half-width is at least this (logits).
    pub provisional_half_width: f64,
}

impl Default for Config {
    fn default() -> Config {
        // A prior of 2 logits leaves room for a 7:1 gap between two bots of one team and
        // another. A half-width under 1 logit of a decisive comparison takes a bot about as
        // many comparisons as 0.5 did when draws counted as halves (whose unit was some 2.5
        // times smaller): some 300 to 500 in the simulated ladder and the end-to-end run.
        Config { prior_sd: 2.0, provisional_half_width: 1.0 }
    }
}

/// A bot on the official board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fitted {
    /// Estimated strength, in logits relative to the anchor.
    pub strength: f64,
    /// Half-width of its 95% interval (0 for an anchor).
    pub half_width: f64,
    /// The interval is still too wide to rank it with confidence.
    pub provisional: bool,
    /// Whether the strength was fixed rather than fitted.
    pub anchored: bool,
    /// Independent comparisons it took part in (as one of the four teams).
    pub comparisons: u32,
}

impl Fitted {
    /// The 95% interval's lower end.
    pub fn low(&self) -> f64 {
        self.strength - self.half_width
    }

    /// The 95% interval's upper end.
    pub fn high(&self) -> f64 {
        self.strength + self.half_width
    }
}

/// Why a fit failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FitError {
    /// Newton's method did not settle in the allowed iterations.
    NoConvergence,
    /// The prior's standard deviation is not a positive finite number.
    BadPrior,
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::NoConvergence => f.write_str("the rating fit did not converge"),
            FitError::BadPrior => f.write_str("the rating prior's deviation must be positive"),
        }
    }
}

impl std::error::Error for FitError {}

/// A comparison as the fit sees it: the free strengths in it with their signs in d, the
/// anchored part of d, and A's score (1 or 0: draws are left out).
type Term = (Vec<(usize, f64)>, f64, f64);

const Z95: f64 = 1.959_963_984_540_054;
const MAX_ITERATIONS: usize = 200;

/// Fits every bot seen in `comparisons` (plus every anchor) and returns the board by id.
pub fn fit(
    comparisons: &[Comparison],
    anchors: &BTreeMap<BotId, f64>,
    config: &Config,
) -> Result<BTreeMap<BotId, Fitted>, FitError> {
    if !(config.prior_sd.is_finite() && config.prior_sd > 0.0) {
        return Err(FitError::BadPrior);
    }
    let comparisons = independent(comparisons);
    let mut counts: BTreeMap<BotId, u32> = anchors.keys().map(|&b| (b, 0)).collect();
    for c in &comparisons {
        for b in [c.team_a, c.team_b, c.opp_a, c.opp_b].iter().flatten() {
            *counts.entry(*b).or_default() += 1;
        }
    }
    let free: Vec<BotId> = counts.keys().copied().filter(|b| !anchors.contains_key(b)).collect();
    let index: BTreeMap<BotId, usize> = free.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let n = free.len();
    let precision = 1.0 / (config.prior_sd * config.prior_sd);
    let mut theta = vec![0.0; n];
    let terms: Vec<Term> = comparisons
        .iter()
        .filter(|c| c.outcome != Outcome::Draw)
        .map(|c| {
            let mut x = Vec::with_capacity(8);
            let mut offset = 0.0;
            for (bots, sign) in
                [(&c.team_a, 1.0), (&c.opp_a, -1.0), (&c.team_b, -1.0), (&c.opp_b, 1.0)]
            {
                for b in bots {
                    match anchors.get(b) {
                        Some(v) => offset += sign * v,
                        None => x.push((index[b], sign)),
                    }
                }
            }
            (x, offset, c.outcome.score_a())
        })
        .collect();
    let objective = |theta: &[f64]| -> f64 {
        let mut l = -0.5 * precision * theta.iter().map(|t| t * t).sum::<f64>();
        for (x, offset, y) in &terms {
            let d = offset + x.iter().map(|&(i, s)| s * theta[i]).sum::<f64>();
            // log sigma(d) = -ln(1 + e^-d), written to stay finite for large |d|.
            l -= y * softplus(-d) + (1.0 - y) * softplus(d);
        }
        l
    };
    let mut converged = n == 0;
    let mut hessian = vec![0.0; n * n];
    for _ in 0..MAX_ITERATIONS {
        if converged {
            break;
        }
        // Gradient g and the negated Hessian h of the log-posterior.
        let mut g: Vec<f64> = theta.iter().map(|t| -precision * t).collect();
        hessian.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..n {
            hessian[i * n + i] = precision;
        }
        for (x, offset, y) in &terms {
            let d = offset + x.iter().map(|&(i, s)| s * theta[i]).sum::<f64>();
            let p = sigmoid(d);
            let w = p * (1.0 - p);
            for &(i, si) in x {
                g[i] += si * (y - p);
                for &(j, sj) in x {
                    hessian[i * n + j] += w * si * sj;
                }
            }
        }
        let factor = cholesky(&hessian, n).ok_or(FitError::NoConvergence)?;
        let step = solve(&factor, n, &g);
        // Backtracking keeps every step an ascent, which Newton alone does not promise far from
        // the optimum.
        let before = objective(&theta);
        let mut scale = 1.0;
        let mut next: Vec<f64> = theta.iter().zip(&step).map(|(t, s)| t + s).collect();
        while objective(&next) < before - 1e-12 && scale > 1e-6 {
            scale *= 0.5;
            next = theta.iter().zip(&step).map(|(t, s)| t + scale * s).collect();
        }
        let moved = step.iter().map(|s| (scale * s).abs()).fold(0.0, f64::max);
        theta = next;
        converged = moved < 1e-10;
    }
    if !converged {
        return Err(FitError::NoConvergence);
    }
    // The curvature at the optimum itself, for the intervals.
    hessian.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..n {
        hessian[i * n + i] = precision;
    }
    for (x, offset, _) in &terms {
        let d = offset + x.iter().map(|&(i, s)| s * theta[i]).sum::<f64>();
        let p = sigmoid(d);
        for &(i, si) in x {
            for &(j, sj) in x {
                hessian[i * n + j] += p * (1.0 - p) * si * sj;
            }
        }
    }
    let factor = cholesky(&hessian, n).ok_or(FitError::NoConvergence)?;
    let mut board = BTreeMap::new();
    for (&bot, &count) in &counts {
        let fitted = match anchors.get(&bot) {
            Some(&v) => Fitted {
                strength: v,
                half_width: 0.0,
                provisional: false,
                anchored: true,
                comparisons: count,
            },
            None => {
                let i = index[&bot];
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                let column = solve(&factor, n, &e);
                let half_width = Z95 * column[i].max(0.0).sqrt();
                Fitted {
                    strength: theta[i],
                    half_width,
                    provisional: half_width >= config.provisional_half_width,
                    anchored: false,
                    comparisons: count,
                }
            }
        };
        board.insert(bot, fitted);
    }
    Ok(board)
}

fn sigmoid(d: f64) -> f64 {
    if d >= 0.0 { 1.0 / (1.0 + (-d).exp()) } else { d.exp() / (1.0 + d.exp()) }
}

fn softplus(d: f64) -> f64 {
    if d > 0.0 { d + (-d).exp().ln_1p() } else { d.exp().ln_1p() }
}

/// The Cholesky factor `l` (lower, row-major) of a symmetric positive definite `a`, n by n;
/// `None` if `a` is not positive definite (the prior makes it so, barring NaN).
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if sum.is_nan() || sum <= 0.0 {
                    return None;
                }
                l[i * n + i] = sum.sqrt();
            } else {
                l[i * n + j] = sum / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves `l l^T x = b` given the Cholesky factor `l`.
fn solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i * n + i];
    }
    x
}

#[cfg(test)]
mod tests;
