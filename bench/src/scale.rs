//! The run's later sections: the TCP table, many tables in one referee, idle TCP connections,
//! the referee's peak memory across what was measured, and the engine alone.

use crate::referee::{Launch, Outcome};
use crate::report::Report;
use crate::rows::*;
use crate::sections::{Bench, Python};
use crate::tables::{self, TablesRun};
use crate::tools::engine;
use crate::{Res, tcp};

/// Idle TCP connections held against one referee (the figure).
const IDLE_CONNECTIONS: usize = 1_000;
/// Table counts of the many-tables rows (the figures).
const TABLE_COUNTS: [usize; 3] = [1, 16, 64];

/// Four instant bots over TCP: the same table, the lines on loopback sockets.
pub(crate) fn tcp_table(report: &mut Report, b: &Bench<'_>, floor: &FloorRef) -> Res<()> {
    let (cfg, pin) = (b.cfg, b.pin);
    progress("referee + 4 instant bots over TCP, pinned");
    let tcp_run = |games| {
        tcp::table(&cfg.referee_bin, games, cfg.seed, pin)
            .map_err(|e| format!("TCP table ({games} games): {e}"))
            .and_then(|out| {
                let shown =
                    Launch { games, ..b.launch("4 instant bots over TCP", games, cfg.seed, None) };
                check(&out, &shown).map_err(|e| e.to_string()).map(|()| out)
            })
    };
    let tcp_full = tcp_run(cfg.games)?;
    let tcp_one = tcp_run(1)?;
    table_rows(
        report,
        &format!("Referee + 4 instant bots over TCP (127.0.0.1), one table pinned to CPU {pin}"),
        &tcp_full,
        &tcp_one,
        floor,
    );
    if let Some(row) =
        report.rows.iter_mut().rev().find(|r| r.name == "bots' CPU per answer (4 bots together)")
    {
        row.note("read by the bench from the bots it started (they connect to the referee)");
    }
    Ok(())
}

/// Many tables in one referee: a tournament of instant bots, and its section.
pub(crate) fn many_tables(report: &mut Report, b: &Bench<'_>) -> Res<Vec<TablesRun>> {
    let cfg = b.cfg;
    let mut many = Vec::new();
    for n in TABLE_COUNTS {
        // Every table busy at once and then some, so that the tables do not all end together;
        // and never so few games that the rate is only the start-up.
        let games = if cfg.quick { (2 * n as u64).max(16) } else { (4 * n as u64).max(64) };
        progress(&format!("referee tournament, {}, {games} games", tables_word(n)));
        let run = tables::run(&cfg.referee_bin, &b.instant_bot, n, games, cfg.seed, true)
            .map_err(|e| e.to_string())?;
        if run.games != games {
            return Err(
                format!("tournament on {n} tables: {} of {games} games played", run.games).into()
            );
        }
        many.push(run);
    }
    let mut s = report.section(
        "Tables in one referee (referee tournament, round robin, instant bots, records written)",
    );
    for run in &many {
        let t = run.tables;
        s.row(
            &format!("games per second, {}", tables_word(t)),
            run.games as f64 / run.wall.as_secs_f64(),
            "games/s",
        )
        .note(format!(
            "{} games in {:.2} s, start-up of {} bots included; {} faults",
            run.games,
            run.wall.as_secs_f64(),
            4 * t,
            run.faults
        ));
    }
    Ok(many)
}

/// 1,000 idle TCP connections, then a game of real bots; why not, when the open-file limit
/// is too low. Its rows are in the memory section.
pub(crate) fn idle(b: &Bench<'_>, open_files: u64) -> Res<Result<tcp::Idle, String>> {
    let cfg = b.cfg;
    if open_files < IDLE_CONNECTIONS as u64 + 200 {
        return Ok(Err(format!("not measured: the open-file limit is {open_files}")));
    }
    progress(&format!("referee with {IDLE_CONNECTIONS} idle TCP connections"));
    let idle = tcp::idle(&cfg.referee_bin, IDLE_CONNECTIONS, cfg.seed, b.pin)
        .map_err(|e| format!("{IDLE_CONNECTIONS} idle TCP connections: {e}"))?;
    let shown = b.launch("4 instant bots over TCP after the idle connections", 1, cfg.seed, None);
    check(&idle.game, &shown)?;
    Ok(Ok(idle))
}

/// Peak memory: of the tables measured before, of many tables, and of idle connections.
pub(crate) fn memory(
    report: &mut Report,
    b: &Bench<'_>,
    instant_pinned: &(Outcome, Outcome),
    python: Option<&Python>,
    many: &[TablesRun],
    idle: &Result<tcp::Idle, String>,
) {
    let cfg = b.cfg;
    let python_pinned = python.map(|p| &p.pinned);
    let mut s = report.section("Referee peak memory (VmHWM, sampled every 10 ms)");
    let instant_games = format!("one table, instant bots, {} games", cfg.games);
    let python_games = format!("one table, Python bots, {} games", cfg.python_games);
    // The 1-game runs show what one table needs; the difference is what the referee keeps
    // per finished game until it prints the match result.
    for (name, out) in [
        ("one table, instant bots, 1 game", Some(&instant_pinned.1)),
        (instant_games.as_str(), Some(&instant_pinned.0)),
        ("one table, Python bots, 1 game", python_pinned.map(|p| &p.1)),
        (python_games.as_str(), python_pinned.map(|p| &p.0)),
    ] {
        match out.and_then(|o| o.peak_rss_kib) {
            Some(kib) => {
                s.row(name, kib as f64 / 1024.0, "MiB");
            }
            None => s.missing(name, "MiB", "not measured"),
        }
    }
    for run in many {
        let name = format!("{} in one referee (tournament)", tables_word(run.tables));
        match run.peak_rss_kib {
            Some(kib) => {
                s.row(&name, kib as f64 / 1024.0, "MiB")
                    .note(format!("{} games, instant bots", run.games));
            }
            None => s.missing(&name, "MiB", "not measured"),
        }
    }
    let idle = match idle {
        Ok(idle) => idle,
        Err(why) => {
            s.missing(&format!("{IDLE_CONNECTIONS} idle TCP connections"), "MiB", why);
            return;
        }
    };
    let n = idle.connections;
    s.row(
        "TCP match waiting for its 4 seats, no connection",
        idle.baseline_kib as f64 / 1024.0,
        "MiB",
    );
    s.row(&format!("the same with {n} idle TCP connections"), idle.peak_kib as f64 / 1024.0, "MiB")
        .note("connected, sent their hello, never answered it");
    s.row(
        "per idle TCP connection",
        idle.peak_kib.saturating_sub(idle.baseline_kib) as f64 / n as f64,
        "KiB",
    )
    .note(format!("(peak - no connection) / {n}"));
    match idle.rss_after_kib {
        Some(kib) => {
            s.row(&format!("in use after closing the {n} (VmRSS)"), kib as f64 / 1024.0, "MiB");
        }
        None => s.missing(&format!("in use after closing the {n} (VmRSS)"), "MiB", "not measured"),
    }
    let game = &idle.game;
    let row = s.row("then 4 instant bots over TCP, 1 game: faults", game.faults as f64, "");
    row.note(format!("{} of {} games complete", game.complete, game.games));
    if game.faults > 0 {
        row.note("faults after the idle connections: the referee mishandled the real bots");
    }
}

/// The engine alone, when a built benchmark is given.
pub(crate) fn engine_alone(
    report: &mut Report,
    b: &Bench<'_>,
    instant_pinned: &(Outcome, Outcome),
) -> Res<()> {
    let Some(bin) = &b.cfg.engine_bin else {
        report.section("Engine alone (rules crate, no I/O)").missing(
            "deals per second",
            "deals/s",
            "skipped: `cargo bench -p aluette-rules` prints it; --engine-bin PATH runs a built one",
        );
        return Ok(());
    };
    progress("engine alone");
    let rows = engine(bin, b.cfg.quick)?;
    let mut s = report.section("Engine alone (rules crate, no I/O, one core)");
    // The referee's CPU per deal, pinned, against the engine's time per deal with the chant on
    // (the default rules): how much of the referee's work is the game itself.
    let (full, one) = instant_pinned;
    let steady = full.minus(one);
    let referee_us_per_deal = steady.referee_cpu_us / steady.deals as f64;
    for (label, per_s) in rows {
        let row = s.row(&format!("deals per second, {label}"), per_s, "deals/s");
        if label.contains("chant on") {
            let share = 1e6 / per_s / referee_us_per_deal * 100.0;
            row.note(format!(
                "{share:.2}% of the referee's CPU per deal ({referee_us_per_deal:.0} us, pinned)"
            ));
        }
    }
    Ok(())
}
