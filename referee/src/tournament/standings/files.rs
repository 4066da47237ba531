//! The three files the standings are written to: `standings.json`, and `standings.csv` and
//! `pairs.csv` for spreadsheets.

use super::{Elo, Standings};
use std::fmt::Write as _;
use std::path::Path;

/// An Elo value in a CSV file: a number, `+inf` or `-inf`, or empty without data.
fn elo_csv(Elo(x): Elo) -> String {
    match x {
        Some(v) if v.is_infinite() => if v > 0.0 { "+inf" } else { "-inf" }.into(),
        other => opt(other),
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// Writes standings.json, standings.csv (one row per entrant) and pairs.csv into `dir`.
pub(crate) fn write_files(dir: &Path, s: &Standings) -> Result<(), String> {
    let json = serde_json::to_string_pretty(s).unwrap_or_default() + "\n";
    let mut entrants = String::from(
        "rank,name,games,won,drawn,lost,not_played,score,elo,elo_low,elo_high,points_for,points_against,deals_won,deals_played,paired_deals,paired_deal_score,timeouts,crashes,illegal,protocol,faults,disqualified,think_mean_ms,think_max_ms,cpu_s,cpu_mean_ms,cpu_p50_ms,cpu_p90_ms\n",
    );
    for r in &s.entrants {
        let f = &r.faults;
        let _ = writeln!(
            entrants,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.rank,
            csv_field(&r.name),
            r.games,
            r.won,
            r.drawn,
            r.lost,
            r.not_played,
            opt(r.score),
            elo_csv(r.elo),
            elo_csv(r.elo_low),
            elo_csv(r.elo_high),
            r.points_for,
            r.points_against,
            r.deals_won,
            r.deals_played,
            r.paired_deals,
            opt(r.paired_deal_score),
            f.timeouts,
            f.crashes,
            f.illegal,
            f.protocol,
            r.faults_total,
            r.disqualified,
            opt(r.think_mean_ms),
            r.think_max_ms,
            opt(r.cpu_s),
            opt(r.cpu_mean_ms),
            opt(r.cpu_p50_ms),
            opt(r.cpu_p90_ms)
        );
    }
    let mut pairs = String::from(
        "a,b,games,a_won,drawn,b_won,not_played,a_score,a_points,b_points,units,paired_deals,paired_deal_score,elo,elo_low,elo_high\n",
    );
    for p in &s.pairs {
        let _ = writeln!(
            pairs,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&p.a),
            csv_field(&p.b),
            p.games,
            p.a_won,
            p.drawn,
            p.b_won,
            p.not_played,
            opt(p.a_score),
            p.a_points,
            p.b_points,
            p.units,
            p.paired_deals,
            opt(p.paired_deal_score),
            elo_csv(p.elo),
            elo_csv(p.elo_low),
            elo_csv(p.elo_high)
        );
    }
    for (name, text) in
        [("standings.json", json), ("standings.csv", entrants), ("pairs.csv", pairs)]
    {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
