//! A match against misbehaving bot processes, and what every misbehaviour must leave intact: the
//! referee exits 0 within its memory bound, every game's record is complete and replays, and no
//! bot process (children included) is left alive. The hostile, fault and wire tests each play
//! their own bots this way.

use super::{Logged, RANDOM, Record, Scratch, reaped, record_files, referee_logged, s};
use std::path::Path;

/// How one family of test bots is played.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Suite {
    /// Flags given unless a test gives its own value: short clocks keep a file fast.
    pub(crate) clocks: &'static [(&'static str, &'static str)],
    /// What the command line of one of the family's processes holds (a reused pid does not).
    pub(crate) marks: &'static [&'static str],
    /// The `--bot` command of the family's bot called NAME, noting its pids in the folder.
    pub(crate) command: fn(&Scratch, &str) -> String,
}

/// Short clocks: a timeout costs answer + bank = 500 ms, then 300 ms once the bank is spent.
/// Python takes seconds to start when many tests (and builds) share a small machine: 2 s made
/// healthy bots miss the handshake, hence the long handshake limit.
pub(crate) const SHORT_CLOCKS: &[(&str, &str)] =
    &[("--answer-ms", "300"), ("--bank-ms", "200"), ("--handshake-ms", "5000")];

/// A finished match: each game's record, the pids its bots wrote, the referee's peak memory.
/// It reads as its first game's record.
#[derive(Debug)]
pub(crate) struct Played {
    pub(crate) games: Vec<Record>,
    pub(crate) pids: Vec<u32>,
    pub(crate) peak_kb: u64,
}

impl std::ops::Deref for Played {
    type Target = Record;

    fn deref(&self) -> &Record {
        &self.games[0]
    }
}

impl Suite {
    /// The arguments of a match (seed 1) with `bots` in seats 0..3.
    fn args<'a>(&self, records: &'a Path, bots: &[&'a str; 4], extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["match", "--seed", "1", "--records", s(records)];
        for &(flag, value) in self.clocks {
            if !extra.contains(&flag) {
                args.extend([flag, value]);
            }
        }
        for b in bots {
            args.extend(["--bot", b]);
        }
        args.extend(extra);
        args
    }

    fn run(&self, sc: &Scratch, bots: [&str; 4], extra: &[&str]) -> Logged {
        let records = sc.records();
        let run = referee_logged(&self.args(&records, &bots, extra), &sc.join("match"));
        eprintln!("{}: referee peak VmHWM {} kB", sc.path().display(), run.peak_kb);
        run
    }

    /// [`Suite::run`] of a match that plays: its memory must have been sampled (a referee that
    /// refuses its bots may end before the first sample, and has nothing to hold to a bound).
    /// A match that ended before the sampler first looked is played again, at most twice: on a
    /// starved machine the test's own thread can sleep through a short match (CI saw one such
    /// run, beside the ladders and Chromium). The runs left aside leave no bot behind either.
    fn run_sampled(&self, sc: &Scratch, bots: [&str; 4], extra: &[&str]) -> Logged {
        for run_no in 1.. {
            let run = self.run(sc, bots, extra);
            if run.peak_kb > 0 {
                return run;
            }
            assert!(run_no < 3, "the referee's memory was never sampled, in three runs");
            eprintln!(
                "{}: the match ended before its memory was sampled; again",
                sc.path().display()
            );
            reaped(&sc.pidfile(), self.marks);
            let _ = std::fs::remove_dir_all(sc.records());
            let _ = std::fs::remove_file(sc.pidfile());
        }
        unreachable!("the loop returns or fails")
    }

    /// Plays a match (seed 1) with `bots` in seats 0..3 and `extra` flags, and checks what every
    /// misbehaviour must leave intact.
    pub(crate) fn play(&self, sc: &Scratch, bots: [&str; 4], extra: &[&str]) -> Played {
        let run = self.run_sampled(sc, bots, extra);
        assert!(run.status.success(), "referee match: {}; see {}", run.status, sc.path().display());
        let mut games = Vec::new();
        for (g, path) in record_files(&sc.records()).iter().enumerate() {
            let record = Record::read(path);
            let footer = record.footer();
            assert_eq!(
                (&footer["type"], &footer["status"]),
                (&"footer".into(), &"complete".into()),
                "game {}: {footer}",
                g + 1
            );
            let replay = referee_logged(
                &["replay", "--quiet", s(path)],
                &sc.join(&format!("replay{}", g + 1)),
            );
            assert!(replay.status.success(), "replay of game {}: {}", g + 1, replay.stderr);
            games.push(record);
        }
        assert!(!games.is_empty(), "no record in {}", sc.records().display());
        Played { games, pids: reaped(&sc.pidfile(), self.marks), peak_kb: run.peak_kb }
    }

    /// Plays [`Suite::play`] with the family's bot `bot` in seat 0 against random bots, in the
    /// scratch folder `name`.
    #[track_caller]
    pub(crate) fn in_seat0(&self, name: &str, bot: &str, extra: &[&str]) -> (Scratch, Played) {
        let s = Scratch::new(name);
        let game = self.play(&s, [&(self.command)(&s, bot), RANDOM, RANDOM, RANDOM], extra);
        (s, game)
    }

    /// Runs a match (seed 1) whose seat-0 bot can never play, and checks the start-up check's
    /// answer: a non-zero exit before any game, one line on stderr naming player 0 and why, no
    /// record, and no bot process alive once the referee is gone. Returns that line and the
    /// pids the bots wrote.
    pub(crate) fn refused(
        &self,
        sc: &Scratch,
        bots: [&str; 4],
        extra: &[&str],
    ) -> (String, Vec<u32>) {
        let run = self.run(sc, bots, extra);
        let see = sc.path().display();
        assert!(!run.status.success(), "the match should stop before game 1; see {see}");
        let line = super::one_line(&run.stderr, |_| false, "referee match");
        assert!(line.starts_with("referee: player 0 cannot play: "), "{line}");
        assert!(record_files(&sc.records()).is_empty(), "no game is played");
        (line, reaped(&sc.pidfile(), self.marks))
    }
}
