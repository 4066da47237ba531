//! Progress on stderr: a live bar on a terminal; on a pipe or a log file, a plain line every
//! few seconds, since a bar's redraws would only fill the log with control characters.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Plain lines come at most this often.
const PLAIN_EVERY: Duration = Duration::from_secs(2);

#[derive(Debug)]
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    /// Games settled before this run started (a resumed tournament).
    before: u64,
    done: u64,
    total: u64,
}

impl Progress {
    /// `done` of the `total` games to play are played already.
    pub(crate) fn new(total: u64, done: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} games  {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_position(done);
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        let now = Instant::now();
        Progress { bar, started: now, last_line: now, before: done, done, total }
    }

    /// Games per second in this run, and the time left at that pace.
    fn pace(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let this_run = self.done - self.before;
        if this_run == 0 || secs <= 0.0 {
            return "starting".into();
        }
        let rate = this_run as f64 / secs;
        let left = (self.total.saturating_sub(self.done)) as f64 / rate;
        format!("{rate:.1} games/s, about {} left", human(left))
    }

    /// `n` more games played.
    pub(crate) fn advance(&mut self, n: u64) {
        self.done = (self.done + n).min(self.total);
        self.draw();
    }

    /// `n` games will not be played after all (the SPRT decided, an entrant was disqualified):
    /// the total shrinks, so the bar ends at the games played and the pace counts only them.
    pub(crate) fn skip(&mut self, n: u64) {
        if n > 0 {
            self.total = self.total.saturating_sub(n).max(self.done);
            if let Some(bar) = &self.bar {
                bar.set_length(self.total);
            }
            self.draw();
        }
    }

    fn draw(&mut self) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.done);
                bar.set_message(self.pace());
            }
            None if self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total => {
                self.last_line = Instant::now();
                eprintln!(
                    "referee: tournament: {}/{} games, {}",
                    self.done,
                    self.total,
                    self.pace()
                );
            }
            None => {}
        }
    }

    /// A message that must not be overdrawn by the bar.
    pub(crate) fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Seconds as `42 s`, `3 min 20 s` or `2 h 05 min`.
fn human(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}
