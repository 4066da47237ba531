//! How the measured runs become the report's rows: the headline's medians, each table's rows
//! against the floor, and the parallel tables' rows, with the checks that a run measured what it
//! claims. `main.rs` runs the sections; this is what they print.

use crate::referee::{self, Launch, Outcome};
use crate::report::{self, Report};
use crate::{Res, floor};

/// One run of the headline: the pinned floor and the pinned tables measured beside it.
#[derive(Debug)]
pub(crate) struct HeadRun {
    pub(crate) floor: FloorRef,
    pub(crate) instant: (Outcome, Outcome),
    /// The Python table's runs and the floor with Python echo children beside them.
    pub(crate) python: Option<((Outcome, Outcome), FloorRef)>,
    pub(crate) unclocked: Unclocked,
}

/// The headline's tables again with `--cpu-time off`: no reading of the bots' CPU clock.
#[derive(Debug)]
pub(crate) struct Unclocked {
    pub(crate) instant: (Outcome, Outcome),
    pub(crate) python: Option<(Outcome, Outcome)>,
}

/// The median of some figures (the mean of the middle two for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// The games 2..N of a table (the full run less its 1-game run), when they can be told apart
/// from the start-up; else the whole run. True when they could.
pub(crate) fn steady_of(full: &Outcome, one: &Outcome) -> (Outcome, bool) {
    // The difference means something only when the later games outweigh the start-up's own
    // jitter (Python start-up varies by 100 ms and more); otherwise report the whole run.
    let separable = full.wall > one.wall * 2 && full.games > one.games;
    (if separable { full.minus(one) } else { full.clone() }, separable)
}

/// The table: each figure of every run, its median, and the target it is held to.
pub(crate) fn headline_rows(report: &mut Report, runs: &[HeadRun], pin: usize) {
    let mut s = report.section(&format!(
        "Headline: median of {} runs, one table pinned to CPU {pin}, each run beside its own floor",
        runs.len()
    ));
    let mut figure = |name: &str, unit: &str, values: Vec<f64>, target: Option<(&str, f64)>| {
        let m = median(&values);
        let each: Vec<String> = values.iter().map(|v| format!("{v:.2}")).collect();
        let mut note = format!("runs: {}", each.join(", "));
        if let Some((op, bound)) = target {
            let met = if op == "<=" { m <= bound } else { m >= bound };
            note += &format!("; target {op} {bound}: {}", if met { "met" } else { "not met" });
        }
        s.row(name, m, unit).note(note);
    };
    let per_run = |f: &dyn Fn(&HeadRun) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    let instant = |r: &HeadRun| steady_of(&r.instant.0, &r.instant.1).0;
    let answers_per_deal = |o: &Outcome| o.answers as f64 / o.deals as f64;
    let cap = |r: &HeadRun| 1e6 / (answers_per_deal(&instant(r)) * r.floor.median_us);
    let deals_per_s = |r: &HeadRun| {
        let o = instant(r);
        o.deals as f64 / o.wall.as_secs_f64()
    };
    let wall_us = |o: &Outcome| o.wall.as_secs_f64() * 1e6 / o.answers as f64;
    let wall_per_answer = |r: &HeadRun| wall_us(&instant(r));
    let referee_cpu = |o: &Outcome| o.referee_cpu_us / o.answers as f64;
    figure(
        "floor: 4 children in turn, pinned, median round trip",
        "us",
        per_run(&|r| r.floor.median_us),
        None,
    );
    figure(
        "floor: 4 children in turn, pinned, mean round trip",
        "us",
        per_run(&|r| r.floor.mean_us),
        None,
    );
    figure("floor: parent's CPU per round trip", "us", per_run(&|r| r.floor.parent_cpu_us), None);
    figure(
        "floor's cap: 1 / (answers per deal x floor round trip)",
        "deals/s",
        per_run(&cap),
        None,
    );
    figure("instant bots: deals per second", "deals/s", per_run(&deals_per_s), None);
    figure(
        "instant bots: deals per second / floor's cap",
        "x",
        per_run(&|r| deals_per_s(r) / cap(r)),
        Some((">=", 0.75)),
    );
    figure("instant bots: wall time per answer", "us", per_run(&wall_per_answer), None);
    figure(
        "instant bots: wall time per answer / floor",
        "x",
        per_run(&|r| wall_per_answer(r) / r.floor.median_us),
        Some(("<=", 1.3)),
    );
    // The same against the floor's mean: a mean against a mean, slow round trips on both sides.
    figure(
        "instant bots: wall time per answer / floor's mean",
        "x",
        per_run(&|r| wall_per_answer(r) / r.floor.mean_us),
        None,
    );
    // The referee's CPU per answer beside a table's bots, and against the floor's parent.
    let mut cpu_rows = |bots: &str, table: &dyn Fn(&HeadRun) -> Outcome| {
        let values = per_run(&|r| referee_cpu(&table(r)));
        let ratios: Vec<f64> =
            values.iter().zip(runs).map(|(v, r)| v / r.floor.parent_cpu_us).collect();
        figure(&format!("{bots}: referee CPU per answer"), "us", values, None);
        figure(
            &format!("{bots}: referee CPU per answer / floor parent's CPU"),
            "x",
            ratios,
            Some(("<=", 1.5)),
        );
    };
    cpu_rows("instant bots", &instant);
    // Only called once every run is known to have its Python table.
    let python = |r: &HeadRun| {
        let ((full, one), _) = r.python.as_ref().expect("checked before");
        steady_of(full, one).0
    };
    if runs.iter().all(|r| r.python.is_some()) {
        cpu_rows("Python bots", &python);
        // For information, beside the target: the same floor with Python echo children, whose
        // parent meets the caches a Python process leaves, as the referee does.
        let python_floor = |r: &HeadRun| r.python.as_ref().expect("checked above").1.parent_cpu_us;
        figure(
            "Python echo floor: parent's CPU per round trip",
            "us",
            per_run(&python_floor),
            None,
        );
        figure(
            "Python bots: referee CPU per answer / Python echo floor parent's CPU",
            "x",
            per_run(&|r| referee_cpu(&python(r)) / python_floor(r)),
            None,
        );
    }
    // For information: the price of the bots' CPU clock (one system call an answer, which the
    // floor's loop does not make), from the same tables run again with `--cpu-time off`.
    let off = |(full, one): &(Outcome, Outcome)| steady_of(full, one).0;
    let instant_off = |r: &HeadRun| off(&r.unclocked.instant);
    figure(
        "instant bots, --cpu-time off: wall time per answer / floor",
        "x",
        per_run(&|r| wall_us(&instant_off(r)) / r.floor.median_us),
        None,
    );
    let mut clock_rows =
        |name: &str, on: &dyn Fn(&HeadRun) -> Outcome, off: &dyn Fn(&HeadRun) -> Outcome| {
            figure(
                &format!("{name}, --cpu-time off: referee CPU per answer / floor parent's CPU"),
                "x",
                per_run(&|r| referee_cpu(&off(r)) / r.floor.parent_cpu_us),
                None,
            );
            figure(
                &format!("{name}: referee CPU per answer the bots' CPU clock costs (on - off)"),
                "us",
                per_run(&|r| referee_cpu(&on(r)) - referee_cpu(&off(r))),
                None,
            );
        };
    clock_rows("instant bots", &instant, &instant_off);
    if runs.iter().all(|r| r.python.is_some() && r.unclocked.python.is_some()) {
        let python_off = |r: &HeadRun| off(r.unclocked.python.as_ref().expect("checked above"));
        clock_rows("Python bots", &python, &python_off);
    }
}

/// The Python table's rows against the floor whose echo children are Python processes: what
/// the floor's parent itself loses beside them, and the referee's CPU per answer against it.
pub(crate) fn python_floor_rows(
    report: &mut Report,
    title: &str,
    (full, one): &(Outcome, Outcome),
    floor: &FloorRef,
    python_floor: &FloorRef,
) {
    let steady = steady_of(full, one).0;
    let referee_us = steady.referee_cpu_us / steady.answers as f64;
    let mut s = report.section(title);
    s.row("Python echo floor: parent's CPU per round trip", python_floor.parent_cpu_us, "us")
        .note("4 echo children in `python -c`, pinned, served in turn");
    s.row(
        "Python echo floor parent's CPU / floor parent's CPU",
        python_floor.parent_cpu_us / floor.parent_cpu_us,
        "x",
    );
    s.row(
        "referee CPU per answer / Python echo floor parent's CPU",
        referee_us / python_floor.parent_cpu_us,
        "x",
    );
}

/// The floor a referee row is compared with: the four-children median for "x floor", and the
/// CPU each side of that floor spends per round trip for the CPU ratios.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloorRef {
    median_us: f64,
    mean_us: f64,
    parent_cpu_us: f64,
    children_cpu_us: Option<f64>,
    placement: &'static str,
}

impl FloorRef {
    pub(crate) fn new(f: &floor::Floor, placement: &'static str) -> FloorRef {
        FloorRef {
            median_us: f.median_us,
            mean_us: f.mean_us,
            parent_cpu_us: f.parent_cpu_us,
            children_cpu_us: f.children_cpu_us,
            placement,
        }
    }

    /// The rows that put a referee's and its bots' CPU per answer against the floor's sides.
    pub(crate) fn cpu_ratios(&self, s: &mut report::Section<'_>, referee_us: f64, bots_us: f64) {
        s.row(
            "referee CPU per answer / floor parent's CPU per round trip",
            referee_us / self.parent_cpu_us,
            "x",
        )
        .note(format!(
            "floor parent ({}, 4 children): {:.2} us per round trip",
            self.placement, self.parent_cpu_us
        ));
        match self.children_cpu_us {
            Some(c) => {
                s.row(
                    "bots' CPU per answer / floor children's CPU per round trip",
                    bots_us / c,
                    "x",
                )
                .note(format!("floor children ({}): {c:.2} us per round trip", self.placement));
            }
            None => s.missing(
                "bots' CPU per answer / floor children's CPU per round trip",
                "x",
                "not measured: no /proc/PID/schedstat",
            ),
        }
    }
}

pub(crate) fn tables_word(n: usize) -> String {
    if n == 1 { "1 table".into() } else { format!("{n} tables") }
}

pub(crate) fn progress(what: &str) {
    eprintln!("aluette-bench: measuring {what}...");
}

/// One table: the full run, then the same with one game (see [`table_rows`]).
pub(crate) fn single(launch: Launch) -> Res<(Outcome, Outcome)> {
    let full = referee::run_all(std::slice::from_ref(&launch))?.remove(0);
    check(&full, &launch)?;
    let first = Launch { games: 1, ..launch };
    let one = referee::run_all(std::slice::from_ref(&first))?.remove(0);
    check(&one, &first)?;
    Ok((full, one))
}

/// A run whose games did not all complete, or whose bots never answered, measured something
/// else than it claims.
pub(crate) fn check(out: &Outcome, launch: &Launch) -> Res<()> {
    let warning = out.warning.as_ref().map(|w| format!(" ({w})")).unwrap_or_default();
    if out.answers == 0 {
        return Err(format!(
            "the bots {:?} never answered: {} faults in {} games{warning}",
            launch.bots_shown(),
            out.faults,
            out.games
        )
        .into());
    }
    if out.complete != launch.games {
        return Err(format!(
            "{} of {} games complete with bot {:?}{warning}",
            out.complete,
            launch.games,
            launch.bots_shown()
        )
        .into());
    }
    Ok(())
}

/// The rows of one referee run. `one` is the same run cut to its first game: the difference
/// between the two is the cost of games 2..N alone, free of the start-up (spawning the bots,
/// handshakes; 100 ms and more of CPU for four Python interpreters) and of the closing.
pub(crate) fn table_rows(
    report: &mut Report,
    title: &str,
    full: &Outcome,
    one: &Outcome,
    floor: &FloorRef,
) {
    let floor_us = floor.median_us;
    let (steady, separable) = steady_of(full, one);
    let secs = steady.wall.as_secs_f64();
    let answers = steady.answers as f64;
    let games = steady.games as f64;
    let mut s = report.section(title);
    s.row("run", full.wall.as_secs_f64(), "s").note(format!(
        "{} games, {} deals, {} answers; then 1 game for the fixed costs",
        full.games, full.deals, full.answers
    ));
    if separable {
        s.row(
            "fixed cost: start-up, handshakes, closing",
            (one.wall.as_secs_f64() - secs / games) * 1e3,
            "ms",
        )
        .note("1-game run minus one game at the steady rate");
        s.row("games per second", games / secs, "games/s")
            .note("this and below: games 2..N, start-up excluded");
    } else {
        s.missing(
            "fixed cost: start-up, handshakes, closing",
            "ms",
            "not measured: too few games to separate it",
        );
        s.row("games per second", games / secs, "games/s")
            .note("this and below: whole run, start-up included");
    }
    s.row("deals per second", steady.deals as f64 / secs, "deals/s");
    s.row("answers per game", answers / games, "answers");
    s.per_answer("wall time per answer", secs * 1e6 / answers, floor_us);
    s.per_answer("referee-timed round trip per answer", steady.think_us as f64 / answers, floor_us)
        .note("question written to answer read, as the referee's stats count it");
    s.per_answer("referee CPU per answer", steady.referee_cpu_us / answers, floor_us);
    s.per_answer("bots' CPU per answer (4 bots together)", steady.bots_cpu_us / answers, floor_us);
    floor.cpu_ratios(&mut s, steady.referee_cpu_us / answers, steady.bots_cpu_us / answers);
    s.row("referee CPU per game", steady.referee_cpu_us / 1e3 / games, "ms");
    let faults = s.row("faults", full.faults as f64, "");
    if full.faults > 0 {
        faults.note("an instant bot should have none: the figures above include fallbacks");
    }
}

/// The rows of the one-table-per-CPU run, compared with one pinned table.
pub(crate) fn parallel_rows(
    report: &mut Report,
    tables: &[Outcome],
    single: &Outcome,
    floor: &FloorRef,
) {
    let floor_us = floor.median_us;
    let games_per_s: f64 = tables.iter().map(|o| o.games as f64 / o.wall.as_secs_f64()).sum();
    let deals_per_s: f64 = tables.iter().map(|o| o.deals as f64 / o.wall.as_secs_f64()).sum();
    let answers: f64 = tables.iter().map(|o| o.answers as f64).sum();
    let wall_per_answer =
        tables.iter().map(|o| o.wall.as_secs_f64() * 1e6 / o.answers as f64).sum::<f64>()
            / tables.len() as f64;
    let single_rate = single.games as f64 / single.wall.as_secs_f64();
    let faults: u64 = tables.iter().map(|o| o.faults).sum();
    let mut s = report.section(&format!(
        "Referee + 4 instant bots, as many tables as CPUs: {} referees, each pinned to its own CPU",
        tables.len()
    ));
    s.row("games per second, all tables", games_per_s, "games/s");
    s.row("deals per second, all tables", deals_per_s, "deals/s");
    s.row("speed-up over one pinned table", games_per_s / single_rate, "x");
    s.per_answer("wall time per answer, per table", wall_per_answer, floor_us);
    let referee_us = tables.iter().map(|o| o.referee_cpu_us).sum::<f64>() / answers;
    let bots_us = tables.iter().map(|o| o.bots_cpu_us).sum::<f64>() / answers;
    s.per_answer("referee CPU per answer", referee_us, floor_us);
    s.per_answer("bots' CPU per answer (4 bots together)", bots_us, floor_us);
    floor.cpu_ratios(&mut s, referee_us, bots_us);
    s.row("faults", faults as f64, "");
}
