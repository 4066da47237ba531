//! The readable account of a match: each game's lines (its deals, faults and result) and the
//! match totals, which `referee match` prints when it does not print JSON.

use crate::game_runner::{GameSummary, Status};
use crate::text::Shown;
use rules::Team;
use std::fmt::Write as _;

fn team_name(t: Team) -> String {
    format!("team {} (seats {} and {})", t.index(), t.seats()[0], t.seats()[1])
}

/// The readable account of one game.
pub(crate) fn account(s: &GameSummary, player_at: [usize; 4]) -> String {
    let mut out = String::new();
    let who = |seat: usize| format!("seat {seat} ({})", Shown(&s.names[seat]));
    let _ = writeln!(
        out,
        "\nGame {}: {} + {} against {} + {}",
        s.game_no,
        who(0),
        who(2),
        who(1),
        who(3)
    );
    if player_at != [0, 1, 2, 3] {
        let _ = writeln!(out, "  seating drawn: players {player_at:?} in seats 0..3");
    }
    let mut faults = s.faults.iter().peekable();
    for d in &s.deals {
        while let Some(f) = faults.next_if(|f| f.deal.is_none_or(|n| n <= d.deal)) {
            let _ = writeln!(out, "  fault  {}", fault_line(f, &s.names));
        }
        let pledge = d.pledge.map(|p| {
            let team = d.team.map_or(0, |t| t.index());
            match p.kind {
                rules::PledgeKind::Accepted => format!("seat {}'s surrender accepted: ", p.seat),
                rules::PledgeKind::Refused => {
                    format!("seat {}'s surrender refused, team {team} scores: ", p.seat)
                }
                rules::PledgeKind::Announced => {
                    format!("seat {}'s mordienne announced, team {team} scores: ", p.seat)
                }
            }
        });
        let result = match d.winner {
            None if d.pledge.is_some() => {
                let none = if d.tricks == [0; 4] && d.points == 1 {
                    "no card played"
                } else {
                    "every trick spoiled"
                };
                format!("{none}: team {} +{}", d.team.map_or(0, |t| t.index()), d.points)
            }
            None if !d.counted => "all tricks spoiled: dealt again".to_string(),
            None => "all tricks spoiled: nobody scores".to_string(),
            Some(w) => format!(
                "{} wins with {} tricks{}: team {} +{}",
                who(w.index()),
                d.tricks[w.index()],
                if d.mordienne { " (mordienne)" } else { "" },
                d.team.map_or(0, |t| t.index()),
                d.points
            ),
        };
        let result = pledge.unwrap_or_default() + &result;
        let _ = writeln!(
            out,
            "  deal {} (dealer {}): {result}; tricks {:?}; score {}-{}",
            d.deal, d.dealer, d.tricks, d.score[0], d.score[1]
        );
    }
    for f in faults {
        let _ = writeln!(out, "  fault  {}", fault_line(f, &s.names));
    }
    let result = match (s.status, s.forfeit, s.winner) {
        (Status::Aborted, _, _) => format!("aborted at {}-{}", s.score[0], s.score[1]),
        (_, Some(t), _) => format!("{} forfeits; {} wins", team_name(t), team_name(t.other())),
        // Team 0 first, as in every deal line above, the record and `referee replay`.
        (_, None, Some(w)) => format!("{} wins {}-{}", team_name(w), s.score[0], s.score[1]),
        (_, None, None) => format!("draw {}-{}", s.score[0], s.score[1]),
    };
    let _ = writeln!(out, "  result: {result}");
    if let Some(p) = &s.record {
        let _ = writeln!(out, "  record: {}", p.display());
    }
    out
}

fn fault_line(f: &protocol::record::FaultRecord, names: &[String; 4]) -> String {
    format!(
        "seat {} ({}) {}; {}, strike {}",
        f.seat,
        Shown(&names[f.seat as usize]),
        Shown(&crate::fault::summary(f)),
        f.penalty.shown(),
        f.strikes
    )
}

/// What the match totals need of each game.
#[derive(Debug, Default)]
pub(super) struct Tally {
    games: u64,
    pub(super) complete: u64,
    /// Wins of each partnership of players (the lower player first), in the order first met.
    wins: Vec<([usize; 2], u64)>,
    draws: u64,
    aborted: u64,
}

impl Tally {
    /// Counts a game whose seat `s` held player `player_at[s]`.
    pub(super) fn add(&mut self, s: &GameSummary, player_at: [usize; 4]) {
        self.games += 1;
        for team in [0, 1] {
            let mut pair = [player_at[team], player_at[team + 2]];
            pair.sort_unstable();
            if !self.wins.iter().any(|(p, _)| *p == pair) {
                self.wins.push((pair, 0));
            }
        }
        match (s.status, s.winner) {
            (Status::Aborted, _) => self.aborted += 1,
            (_, Some(t)) => {
                let i = t.index();
                let mut pair = [player_at[i], player_at[i + 2]];
                pair.sort_unstable();
                if let Some((_, n)) = self.wins.iter_mut().find(|(p, _)| *p == pair) {
                    *n += 1;
                }
            }
            (_, None) => self.draws += 1,
        }
        self.complete += u64::from(s.status == Status::Complete);
    }

    /// Wins per partnership over the match, each named by its players' bots.
    pub(super) fn totals(&self, names: &[String]) -> String {
        let games =
            if self.games == 1 { "1 game".to_string() } else { format!("{} games", self.games) };
        let mut out = format!("\nMatch over: {games}");
        for ([a, b], won) in &self.wins {
            let name = |p: usize| names.get(p).map_or("?".to_string(), |n| Shown(n).to_string());
            let _ = write!(out, "; {} + {} (players {a}+{b}) won {won}", name(*a), name(*b));
        }
        let _ = write!(out, "; {} drawn", self.draws);
        if self.aborted > 0 {
            let _ = write!(out, ", {} aborted", self.aborted);
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The account names the fault's place and its penalty in words, and escapes what the bot
    /// controls.
    #[test]
    fn fault_lines_say_the_penalty_in_words() {
        use protocol::record::{FaultKind, FaultRecord, Penalty};
        let names: [String; 4] = ["a".into(), "b \"quoted\"".into(), "c".into(), "d".into()];
        let mut f = FaultRecord {
            seat: 1,
            deal: Some(2),
            trick: Some(3),
            kind: FaultKind::Timeout,
            detail: "no answer\u{1b} within 100 ms".into(),
            raw: None,
            raw_b64: None,
            action: "played 3s for you".into(),
            penalty: Penalty::Fallback,
            strikes: 1,
        };
        assert_eq!(
            fault_line(&f, &names),
            "seat 1 (b \"quoted\") timeout in deal 2, trick 3: no answer\\u{1b} within 100 ms; \
             fallback played, strike 1"
        );
        f.trick = None;
        for (penalty, said) in [
            (Penalty::Ignored, "ignored"),
            (Penalty::SignalDropped, "signal dropped"),
            (Penalty::Replaced, "replaced by the fallback"),
            (Penalty::Forfeit, "forfeit"),
        ] {
            f.penalty = penalty;
            let line = fault_line(&f, &names);
            assert!(line.ends_with(&format!("100 ms; {said}, strike 1")), "{line}");
            assert!(line.contains(" timeout in deal 2: "), "{line}");
        }
    }
}
