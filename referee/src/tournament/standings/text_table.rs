//! The standings as a table people read: what `referee tournament` and `referee standings`
//! print.

use super::Standings;
use crate::tournament::config::Format;
use crate::tournament::stats::Verdict;
use std::fmt::Write as _;

/// An Elo value for a person: signed and rounded, `+inf`/`-inf`, or `-` without data.
fn signed(x: Option<f64>) -> String {
    match x.map(f64::round) {
        None => "-".into(),
        Some(0.0) => "0".into(),
        Some(v) if v.is_infinite() => if v > 0.0 { "+inf" } else { "-inf" }.into(),
        Some(v) => format!("{v:+}"),
    }
}

/// An Elo value and its interval; no interval when the value itself is infinite or absent.
fn with_interval(elo: Option<f64>, low: Option<f64>, high: Option<f64>) -> String {
    match elo {
        Some(v) if v.is_finite() => format!("{} [{}, {}]", signed(elo), signed(low), signed(high)),
        _ => signed(elo),
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

/// The standings as a readable table.
pub(crate) fn text(s: &Standings) -> String {
    let t = &s.tournament;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nStandings: {} tournament, {} entrants, {} games per pairing{}, seed {}",
        t.format.as_str(),
        t.entrants,
        t.games_per_pairing,
        t.gauntlet.as_ref().map(|g| format!(", gauntlet of {g}")).unwrap_or_default(),
        t.seed
    );
    let mut settled =
        format!("{} of {} games played, {} not played", t.played, t.scheduled, t.not_played);
    if t.not_needed > 0 {
        let _ = write!(settled, ", {} not needed (the SPRT had decided)", t.not_needed);
    }
    let _ = writeln!(out, "{settled}, {} pending", t.pending);
    let width = s.entrants.iter().map(|r| r.name.chars().count()).max().unwrap_or(5).max(7);
    let _ = writeln!(
        out,
        "\n  # {:<width$}  games    W    D    L  score    Elo [95% CI]        points     deals won  paired  faults t/c/i/p  think ms mean/max  cpu ms mean/p50/p90",
        "entrant"
    );
    for r in &s.entrants {
        let ci = with_interval(r.elo.0, r.elo_low.0, r.elo_high.0);
        let think = match r.think_mean_ms {
            Some(m) => format!("{m:.2}/{:.1}", r.think_max_ms),
            None => "-".into(),
        };
        let cpu = match (r.cpu_mean_ms, r.cpu_p50_ms, r.cpu_p90_ms) {
            (Some(m), Some(p50), Some(p90)) => format!("{m:.2}/{p50:.2}/{p90:.2}"),
            _ => "-".into(),
        };
        let f = &r.faults;
        let _ = writeln!(
            out,
            "{:>3} {:<width$}  {:>5} {:>4} {:>4} {:>4} {:>6}  {:<19} {:>5}-{:<5} {:>5}/{:<5} {:>6}  {:>15}  {:<17}  {}{}",
            r.rank,
            r.name,
            r.games,
            r.won,
            r.drawn,
            r.lost,
            pct(r.score),
            ci,
            r.points_for,
            r.points_against,
            r.deals_won,
            r.deals_played,
            r.paired_deal_score.map_or("-".into(), |p| format!("{p:+.2}")),
            format!("{}/{}/{}/{}", f.timeouts, f.crashes, f.illegal, f.protocol),
            think,
            cpu,
            if r.disqualified {
                "  DISQUALIFIED".to_string()
            } else if r.not_played > 0 {
                format!("  ({} not played)", r.not_played)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "\nPairs (from the first entrant's side):");
    for p in &s.pairs {
        let mut line = format!(
            "  {} vs {}: {} games, +{} ={} -{} ({}), points {}-{}, Elo {} over {} {}",
            p.a,
            p.b,
            p.games,
            p.a_won,
            p.drawn,
            p.b_won,
            pct(p.a_score),
            p.a_points,
            p.b_points,
            with_interval(p.elo.0, p.elo_low.0, p.elo_high.0),
            p.units,
            if t.format == Format::Duplicate { "deal sets" } else { "games" }
        );
        if let Some(d) = p.paired_deal_score {
            let _ = write!(line, ", paired deal score {d:+.3} over {} deals", p.paired_deals);
        }
        if p.not_played > 0 {
            let _ = write!(line, ", {} not played", p.not_played);
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(sp) = &s.sprt {
        let verdict = match sp.verdict {
            Some(Verdict::H1) => {
                format!("H1 accepted: {} is stronger by about {} Elo or more", sp.a, sp.params.elo1)
            }
            Some(Verdict::H0) => {
                format!("H0 accepted: {} is not stronger by {} Elo", sp.a, sp.params.elo1)
            }
            None => "no decision yet".into(),
        };
        let unit = if sp.model == "pentanomial" { "deal sets" } else { "games" };
        let _ = writeln!(
            out,
            "\nSPRT [{}, {}] alpha {} beta {} ({} GSPRT): LLR {:.2} after {} {unit}, bounds ({:.2}, {:.2}): {verdict}",
            sp.params.elo0,
            sp.params.elo1,
            sp.params.alpha,
            sp.params.beta,
            sp.model,
            sp.llr,
            sp.units,
            sp.lower,
            sp.upper
        );
        if sp.verdict.is_some() {
            let mut line = format!(
                "The match stopped on the SPRT's decision: {} games not needed",
                sp.games_not_needed
            );
            match sp.units_after_decision {
                0 => {}
                n => {
                    let what = if n == 1 { unit.trim_end_matches('s') } else { unit };
                    let _ = write!(
                        line,
                        "; {n} {what} under way at the decision finished, and count in the results above but not in the test",
                    );
                }
            }
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(
        out,
        "\nfaults t/c/i/p: timeouts, crashes, illegal moves, protocol errors; paired: mean paired deal score (duplicate)"
    );
    out
}
