//! `referee match --json`: the result document, written game by game in serde_json's pretty
//! layout (so a script reads one JSON document) without holding the games until the end, and
//! without building a `serde_json::Value` per game.

use crate::bot::BotSpec;
use crate::game_runner::GameSummary;

/// How the `--json` document begins: serde_json's pretty layout of an object whose first key is
/// `games`.
const DOCUMENT_HEAD: &str = "{\n  \"games\": [";

/// The `--json` result, written game by game: the same document serde_json's pretty printer
/// gives for `{"games": [...], "players": [...], "seed": S}` (its keys sorted), without holding
/// the games until the end.
#[derive(Debug)]
pub(super) struct JsonGames {
    any: bool,
}

impl JsonGames {
    /// The writer and the document's opening text.
    pub(super) fn start() -> (JsonGames, &'static str) {
        (JsonGames { any: false }, DOCUMENT_HEAD)
    }

    /// The text of one more game, as the game's element of the top-level array: serde_json's
    /// pretty layout of the object its value used to be (keys sorted, as a value's map sorts
    /// them), written directly (building and printing that value per game cost more than the
    /// rest of the game's bookkeeping). A test holds the two to the same bytes.
    pub(super) fn game(&mut self, s: &GameSummary, player_at: [usize; 4]) -> String {
        let mut p = Pretty { text: Vec::with_capacity(4096), depth: 2, empty: true };
        if self.any {
            p.text.push(b',');
        }
        p.newline();
        p.open(b'{');
        p.key("deals");
        p.open(b'[');
        for d in &s.deals {
            p.item();
            p.open(b'{');
            p.key("counted");
            p.bool(d.counted);
            p.key("deal");
            p.u64(d.deal.into());
            p.key("dealer");
            p.u64(d.dealer.index() as u64);
            p.key("mordienne");
            p.bool(d.mordienne);
            p.key("points");
            p.u64(d.points.into());
            p.key("score");
            p.u64s(d.score.map(u64::from));
            p.key("tricks");
            p.u64s(d.tricks.map(u64::from));
            p.key("winner");
            p.opt(d.winner.map(|w| w.index() as u64));
            p.close(b'}');
        }
        p.close(b']');
        p.key("duration_ms");
        p.u64(s.duration.as_millis() as u64);
        p.key("faults");
        // Rare: as a value prints them, their keys sorted.
        p.serde(&serde_json::to_value(&s.faults).unwrap_or_default());
        p.key("forfeit");
        p.opt(s.forfeit.map(|t| t.index() as u64));
        p.key("game");
        p.u64(s.game_no);
        p.key("names");
        p.open(b'[');
        for name in &s.names {
            p.item();
            p.str(name);
        }
        p.close(b']');
        p.key("players_by_seat");
        p.u64s(player_at.map(|i| i as u64));
        p.key("record");
        match &s.record {
            Some(path) => p.str(&path.to_string_lossy()),
            None => p.text.extend_from_slice(b"null"),
        }
        p.key("score");
        p.u64s(s.score.map(u64::from));
        p.key("seed");
        p.u64(s.seed);
        p.key("stats");
        p.open(b'[');
        for st in &s.stats {
            // Every field named, so a new one does not compile until it has its place here.
            let protocol::record::SeatStats {
                answers,
                think_us,
                max_us,
                cpu_us,
                faults,
                strikes,
                replaced,
            } = *st;
            p.item();
            p.open(b'{');
            p.key("answers");
            p.u64(answers.into());
            if let Some(cpu_us) = cpu_us {
                p.key("cpu_us");
                p.u64(cpu_us);
            }
            p.key("faults");
            p.u64(faults.into());
            p.key("max_us");
            p.u64(max_us);
            p.key("replaced");
            p.bool(replaced);
            p.key("strikes");
            p.u64(strikes.into());
            p.key("think_us");
            p.u64(think_us);
            p.close(b'}');
        }
        p.close(b']');
        p.key("status");
        p.str(s.status.as_str());
        p.key("winner");
        p.opt(s.winner.map(|t| t.index() as u64));
        p.close(b'}');
        self.any = true;
        String::from_utf8(p.text).unwrap_or_default()
    }

    /// The closing text, after the last game. `referee_cpu_us` is the referee process's own CPU
    /// time so far (its bots' left out), when the system tells it.
    pub(super) fn finish(
        self,
        seed: u64,
        players: &[BotSpec; 4],
        referee_cpu_us: Option<u64>,
    ) -> String {
        let players: Vec<_> = players.iter().map(|p| p.describe()).collect();
        let players = serde_json::to_string_pretty(&players).unwrap_or_default();
        let players = players.replace('\n', "\n  ");
        let close = if self.any { "\n  ]" } else { "]" };
        let cpu = match referee_cpu_us {
            Some(us) => format!(",\n  \"referee_cpu_us\": {us}"),
            None => String::new(),
        };
        format!("{close},\n  \"players\": {players}{cpu},\n  \"seed\": {seed}\n}}")
    }
}

/// serde_json's pretty layout (two spaces per level, `"key": value`, one item per line, `[]`
/// and `{}` when empty), written piece by piece.
struct Pretty {
    text: Vec<u8>,
    /// Levels of indentation of the next item.
    depth: usize,
    /// Whether the array or object open has no item yet.
    empty: bool,
}

impl Pretty {
    fn newline(&mut self) {
        self.text.push(b'\n');
        for _ in 0..self.depth {
            self.text.extend_from_slice(b"  ");
        }
    }

    fn open(&mut self, bracket: u8) {
        self.text.push(bracket);
        self.depth += 1;
        self.empty = true;
    }

    fn close(&mut self, bracket: u8) {
        self.depth -= 1;
        if !self.empty {
            self.newline();
        }
        self.text.push(bracket);
        self.empty = false;
    }

    /// Starts an array's next item.
    fn item(&mut self) {
        if !self.empty {
            self.text.push(b',');
        }
        self.empty = false;
        self.newline();
    }

    /// Starts an object's next entry: its key (a plain name, never escaped).
    fn key(&mut self, key: &str) {
        self.item();
        self.text.push(b'"');
        self.text.extend_from_slice(key.as_bytes());
        self.text.extend_from_slice(b"\": ");
    }

    fn u64(&mut self, n: u64) {
        protocol::json::Out(&mut self.text).u64(n);
    }

    fn opt(&mut self, n: Option<u64>) {
        match n {
            Some(n) => self.u64(n),
            None => self.text.extend_from_slice(b"null"),
        }
    }

    fn bool(&mut self, b: bool) {
        self.text.extend_from_slice(if b { b"true" } else { b"false" });
    }

    fn u64s<const N: usize>(&mut self, ns: [u64; N]) {
        self.open(b'[');
        for n in ns {
            self.item();
            self.u64(n);
        }
        self.close(b']');
    }

    /// A string with serde_json's escapes.
    fn str(&mut self, s: &str) {
        protocol::json::Out(&mut self.text).str(s);
    }

    /// Any value, as serde_json prints it at this depth.
    fn serde(&mut self, value: &serde_json::Value) {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        let mut lines = text.split('\n');
        if let Some(first) = lines.next() {
            self.text.extend_from_slice(first.as_bytes());
        }
        for line in lines {
            self.newline();
            self.text.extend_from_slice(line.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_runner::{DealLine, Status};
    use rules::{Seat, Team};
    use serde_json::json;
    use std::time::Duration;

    fn summary(game_no: u64, status: Status, winner: Option<Team>) -> GameSummary {
        GameSummary {
            game_no,
            seed: game_no * 7,
            status,
            score: [5, 3],
            winner,
            forfeit: None,
            deals: vec![DealLine {
                deal: 1,
                dealer: Seat::ALL[1],
                winner: None,
                tricks: [3, 3, 2, 1],
                points: 1,
                mordienne: false,
                counted: true,
                score: [1, 0],
                team: None,
                pledge: None,
            }],
            faults: Vec::new(),
            stats: Default::default(),
            names: ["a".into(), "b \"quoted\"".into(), "c".into(), "d".into()],
            record: None,
            record_error: None,
            duration: Duration::from_millis(12),
        }
    }

    /// The streamed `--json` document is exactly what printing it whole would give.
    #[test]
    fn streamed_json_is_the_pretty_document() {
        let players: [BotSpec; 4] = std::array::from_fn(|i| {
            BotSpec::parse(if i == 1 { "python3 x.py --name 'a b'" } else { "builtin:random" })
                .unwrap()
        });
        for n in [0, 1, 3] {
            let games: Vec<_> = (1..=n)
                .map(|g| summary(g, Status::Complete, Some(Team::ALL[g as usize % 2])))
                .collect();
            let (mut out, head) = JsonGames::start();
            let mut text = head.to_string();
            let mut expected_games = Vec::new();
            for s in &games {
                text.push_str(&out.game(s, [0, 1, 2, 3]));
                // Each game parsed back; the layout around and within them must be serde's.
                expected_games.push(out_value(s));
            }
            // With and without the referee's CPU time (a system that does not tell it).
            let cpu = (n != 1).then_some(1234);
            text.push_str(&out.finish(42, &players, cpu));
            let mut doc = json!({
                "seed": 42,
                "players": players.iter().map(|p| p.describe()).collect::<Vec<_>>(),
                "games": expected_games,
            });
            if let Some(us) = cpu {
                doc["referee_cpu_us"] = json!(us);
            }
            let expected = serde_json::to_string_pretty(&doc).unwrap();
            assert_eq!(text, expected, "{n} games");
        }
    }

    /// Each game's text is, byte for byte, the pretty `serde_json::Value` it used to be built
    /// as (sorted keys, optional fields left out), faults, CPU times and a record path included.
    #[test]
    fn a_game_is_written_as_its_value_was() {
        use protocol::record::{FaultKind, FaultRecord, Penalty};
        let mut s = summary(3, Status::Aborted, None);
        s.forfeit = Some(Team::ALL[1]);
        s.deals.push(DealLine {
            winner: Some(Seat::ALL[2]),
            mordienne: true,
            ..s.deals[0].clone()
        });
        s.faults.push(FaultRecord {
            seat: 2,
            deal: Some(1),
            trick: None,
            kind: FaultKind::IllegalCard,
            detail: "not in hand\n".into(),
            raw: Some("{\"type\":\"play\"}".into()),
            raw_b64: None,
            action: "played Ao for you".into(),
            penalty: Penalty::Fallback,
            strikes: 1,
        });
        s.stats[1].cpu_us = Some(17);
        s.stats[3].replaced = true;
        s.record = Some("records/game-000003.jsonl".into());
        let mut no_deal = summary(2, Status::Complete, None);
        no_deal.deals.clear();
        no_deal.faults = [s.faults.clone(), s.faults.clone()].concat();
        let cases = [(summary(1, Status::Complete, Some(Team::ALL[0])), false), (s, true)];
        for (s, any) in cases.into_iter().chain([(no_deal, true)]) {
            let value = json!({
                "game": s.game_no,
                "seed": s.seed,
                "status": match s.status { Status::Complete => "complete", Status::Aborted => "aborted" },
                "players_by_seat": [3, 0, 1, 2],
                "names": s.names,
                "score": s.score,
                "winner": s.winner.map(|t| t.index()),
                "forfeit": s.forfeit.map(|t| t.index()),
                "deals": s.deals.iter().map(|d| json!({
                    "deal": d.deal, "dealer": d.dealer.index(), "winner": d.winner.map(|w| w.index()),
                    "tricks": d.tricks, "points": d.points, "mordienne": d.mordienne,
                    "counted": d.counted, "score": d.score,
                })).collect::<Vec<_>>(),
                "faults": s.faults,
                "stats": s.stats,
                "record": s.record,
                "duration_ms": s.duration.as_millis() as u64,
            });
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let expected =
                format!("{}\n    {}", if any { "," } else { "" }, pretty.replace('\n', "\n    "));
            let mut out = JsonGames { any };
            assert_eq!(out.game(&s, [3, 0, 1, 2]), expected);
        }
    }

    /// One game as a value, the way `JsonGames::game` prints it.
    fn out_value(s: &GameSummary) -> serde_json::Value {
        let (mut out, _) = JsonGames::start();
        let text = out.game(s, [0, 1, 2, 3]);
        serde_json::from_str(text.trim_start_matches(['\n', ','])).unwrap()
    }
}
