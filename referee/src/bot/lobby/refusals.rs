//! Refusals as the log tells them: at most one counted summary a second per cause, so a flood
//! of strangers is not a flood of log lines.

use super::origin::Origin;
use std::time::Duration;
use tokio::time::Instant;

/// Refusals of one cause reach the log at most once per this period, counted.
pub(super) const SUMMARY_EVERY: Duration = Duration::from_secs(1);

/// Why the lobby turned a connection away, as its log summaries group them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    Busy = 0,
    Handshake = 1,
    Token = 2,
    Taken = 3,
    Resumes = 4,
}

impl Refusal {
    fn what(self) -> &'static str {
        match self {
            Refusal::Busy => "too many pending connections",
            Refusal::Handshake => "no valid hello answer within the handshake limit",
            Refusal::Token => "a missing or unknown seat token",
            Refusal::Taken => "the token of a seat that has its bot",
            Refusal::Resumes => "a seat resumed too often",
        }
    }
}

/// Addresses a summary names; the others are only counted.
const NAMED: usize = 3;

/// Refusals of one cause not logged yet.
#[derive(Debug, Default)]
struct Unsaid {
    count: u64,
    since: Option<Instant>,
    from: Vec<Origin>,
    others: bool,
}

/// Turns refusals into at most one log line per cause and [`SUMMARY_EVERY`]: a flood of
/// strangers must not become a flood of log lines. The first refusal after a quiet period is
/// logged at once; the ones that follow are counted and told by the next line.
#[derive(Debug, Default)]
pub(super) struct RefusalLog {
    last_line: [Option<Instant>; 5],
    unsaid: [Unsaid; 5],
}

impl RefusalLog {
    /// Counts a refusal; the log line to write now, if any.
    pub(super) fn note(&mut self, why: Refusal, from: Origin, now: Instant) -> Option<String> {
        let u = &mut self.unsaid[why as usize];
        u.count += 1;
        u.since.get_or_insert(now);
        if !u.from.contains(&from) {
            if u.from.len() < NAMED {
                u.from.push(from);
            } else {
                u.others = true;
            }
        }
        self.due(why, now).then(|| self.say(why, now))
    }

    /// The lines owed: causes with refusals not logged whose last line is old enough.
    pub(super) fn flush(&mut self, now: Instant) -> Vec<String> {
        let mut lines = Vec::new();
        for why in
            [Refusal::Busy, Refusal::Handshake, Refusal::Token, Refusal::Taken, Refusal::Resumes]
        {
            if self.unsaid[why as usize].count > 0 && self.due(why, now) {
                lines.push(self.say(why, now));
            }
        }
        lines
    }

    /// Every line owed, due or not: the last word when the lobby closes.
    pub(super) fn flush_all(&mut self) -> Vec<String> {
        let now = Instant::now();
        let mut lines = Vec::new();
        for why in
            [Refusal::Busy, Refusal::Handshake, Refusal::Token, Refusal::Taken, Refusal::Resumes]
        {
            if self.unsaid[why as usize].count > 0 {
                lines.push(self.say(why, now));
            }
        }
        lines
    }

    fn due(&self, why: Refusal, now: Instant) -> bool {
        self.last_line[why as usize]
            .is_none_or(|t| now.saturating_duration_since(t) >= SUMMARY_EVERY)
    }

    fn say(&mut self, why: Refusal, now: Instant) -> String {
        let u = std::mem::take(&mut self.unsaid[why as usize]);
        self.last_line[why as usize] = Some(now);
        let mut from = u.from.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        if u.others {
            from.push_str(" and others");
        }
        if u.count == 1 {
            format!("TCP lobby: refused a connection from {from}: {}", why.what())
        } else {
            let secs = u.since.map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
            format!(
                "TCP lobby: refused {} connections in {secs:.1} s from {from}: {}",
                u.count,
                why.what()
            )
        }
    }
}
