//! What the server believes of a worker's result: only what the record proves. The record is
//! replayed by the referee's own rules engine, it must be the game the lease named (its number,
//! seed, first dealer, rules and clock) and have been played to its end; the points and the
//! faulty seats are then read from the replay, never from the worker's word. Pure: text in,
//! verdict out.

use super::wire::TableConfig;
use crate::replay::replay_str;
use protocol::record::{GameStatus, Penalty};

/// The game a lease held, as the server knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// The game's id, which its record's header must give as its number.
    pub game: i64,
    /// The deal's seed.
    pub seed: u64,
    /// The seat that deals first.
    pub first_dealer: u8,
    /// The rules and clock it was leased with.
    pub config: TableConfig,
}

/// What a checked record says happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Points of seats 0+2 and 1+3, as the replay re-derived them.
    pub points: [u16; 2],
    /// Bit `s` set: seat `s` faulted in a way that cost it (anything but an ignored line).
    pub fault_seats: u8,
}

/// Checks `record` (JSON Lines text) against the game the lease named; the result it proves,
/// or why it proves none, in one line.
pub fn check_result(record: &str, expected: &Expected) -> Result<Verdict, String> {
    let replay = replay_str(record).map_err(|e| format!("the record does not replay: {e}"))?;
    let h = &replay.header;
    if h.game != expected.game as u64 {
        return Err(format!("the record is of game {}, not game {}", h.game, expected.game));
    }
    if h.seed != expected.seed {
        return Err(format!("the record's seed is not game {}'s", expected.game));
    }
    if h.first_dealer != expected.first_dealer {
        return Err(format!(
            "the record's first dealer is seat {}, not seat {}",
            h.first_dealer, expected.first_dealer
        ));
    }
    if h.rules != expected.config.rules {
        return Err("the record was played under other rules than the lease's".into());
    }
    let c = &h.clock;
    let want = &expected.config;
    if (c.answer_ms, c.bank_ms, c.handshake_ms) != (want.answer_ms, want.bank_ms, want.handshake_ms)
        || c.mode.is_some()
    {
        return Err("the record was played on another clock than the lease's".into());
    }
    match &replay.footer {
        Some(f) if f.status == GameStatus::Complete => {}
        Some(_) => return Err("the game was aborted, not played to its end".into()),
        None => return Err("the record has no footer".into()),
    }
    let mut fault_seats = 0u8;
    for f in &replay.faults {
        if f.penalty != Penalty::Ignored {
            fault_seats |= 1 << (f.seat & 3);
        }
    }
    Ok(Verdict { points: replay.score, fault_seats })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Config, Game, Seat, Table};
    use rules::{MatchLength, Rules};

    fn config() -> Config {
        Config::default().rules(Rules { length: MatchLength::Deals(1), ..Rules::default() })
    }

    /// A real one-deal game of game number 12, seed 99, seat 3 dealing first; its record and
    /// final score.
    async fn played() -> (String, [u16; 2]) {
        let seats = [(); 4].map(|()| Seat::builtin("random").unwrap());
        let mut table = Table::open(&config(), seats).await;
        let game = Game::new(99).number(12).first_dealer(3).record_in_memory();
        let outcome = table.play(game).await.unwrap();
        table.close("done").await;
        (outcome.record.unwrap(), outcome.summary.score)
    }

    fn expected() -> Expected {
        Expected {
            game: 12,
            seed: 99,
            first_dealer: 3,
            config: super::super::table_config(&config()),
        }
    }

    #[tokio::test]
    async fn a_record_proves_its_own_game_and_nothing_else() {
        let (record, score) = played().await;
        let verdict = check_result(&record, &expected()).unwrap();
        assert_eq!(verdict.points, score);
        let refused = |e: Expected| check_result(&record, &e).unwrap_err();
        assert!(refused(Expected { game: 13, ..expected() }).contains("game 12, not game 13"));
        assert!(refused(Expected { seed: 98, ..expected() }).contains("seed"));
        assert!(refused(Expected { first_dealer: 0, ..expected() }).contains("first dealer"));
        let mut slow = expected();
        slow.config.answer_ms += 1;
        assert!(refused(slow).contains("clock"));
        let mut other = expected();
        other.config.rules =
            convert::rules_wire(&Rules::default(), protocol::options::Seating::Given);
        assert!(refused(other).contains("rules"));
    }

    #[tokio::test]
    async fn a_cut_or_doctored_record_proves_nothing() {
        let (record, score) = played().await;
        let lines: Vec<&str> = record.lines().collect();
        let cut = lines[..lines.len() - 1].join("\n") + "\n";
        assert!(check_result(&cut, &expected()).unwrap_err().contains("does not replay"));
        // The footer claims the other team's score: the replay knows better.
        let footer = lines[lines.len() - 1];
        let mut v: serde_json::Value = serde_json::from_str(footer).unwrap();
        v["score"] = serde_json::json!([score[1] + 1, score[0]]);
        let doctored = lines[..lines.len() - 1].join("\n") + "\n" + &v.to_string() + "\n";
        assert!(check_result(&doctored, &expected()).is_err(), "a footer that lies is refused");
    }
}
