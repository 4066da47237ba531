//! The run's first sections, in the order they are measured: the floors, the tables of instant
//! and sample Rust bots, the Python bots, the headline's repeated runs and the CPU clock under
//! load. `main.rs` composes them; `scale.rs` has the sections after them.

use crate::floor::{self, Floor, Placement, Transport};
use crate::referee::{self, Launch, Outcome};
use crate::report::Report;
use crate::rows::*;
use crate::tools::{resolve_python, shell_word};
use crate::{Config, Res, sys};

/// What every section after the floors shares: the command line, the CPUs, and how a table is
/// launched.
pub(crate) struct Bench<'a> {
    pub(crate) cfg: &'a Config,
    pub(crate) cpus: Vec<usize>,
    /// The CPU pinned tables run on.
    pub(crate) pin: usize,
    /// The instant bot: this very binary, `--instant-bot`.
    pub(crate) instant_bot: String,
    /// The referee knows `--no-pin`.
    can_unpin: bool,
}

impl<'a> Bench<'a> {
    pub(crate) fn new(cfg: &'a Config, cpus: Vec<usize>) -> Res<Bench<'a>> {
        let instant_bot = instant_bot()?;
        let can_unpin = referee::has_no_pin(&cfg.referee_bin)?;
        Ok(Bench { cfg, pin: cpus[0], cpus, instant_bot, can_unpin })
    }

    /// A table of `bot` on `cpu`; unpinned means no CPU set from the bench and, if the referee
    /// would pin itself, --no-pin.
    pub(crate) fn launch(&self, bot: &str, games: u64, seed: u64, cpu: Option<usize>) -> Launch {
        Launch {
            referee: self.cfg.referee_bin.clone(),
            bots: vec![bot.to_string()],
            games,
            seed,
            cpu,
            no_pin: cpu.is_none() && self.can_unpin,
            extra: Vec::new(),
        }
    }
}

/// The instant bot's command line: this binary, `--instant-bot`.
pub(crate) fn instant_bot() -> Res<String> {
    let me = std::env::current_exe()?;
    Ok(format!("{} --instant-bot", shell_word(&me.display().to_string())))
}

/// Round trips of each floor measurement.
pub(crate) fn floor_iterations(quick: bool) -> usize {
    if quick { 2_000 } else { 20_000 }
}

/// The floors the referee's rows are held to.
pub(crate) struct Floors {
    pub(crate) pinned: FloorRef,
    pub(crate) free: FloorRef,
    pub(crate) tcp: FloorRef,
}

/// The floor: one line there and back over pipes and loopback TCP, and its section.
pub(crate) fn floors(report: &mut Report, quick: bool, cpus: &[usize]) -> Res<Floors> {
    let pin = cpus[0];
    let iterations = floor_iterations(quick);
    progress("floors: pipes and loopback TCP");
    let pipe = |n, placement| floor::measure(n, iterations, placement, Transport::Pipe);
    let one_pinned = pipe(1, Placement::Pinned(pin))?;
    let four_pinned = pipe(4, Placement::Pinned(pin))?;
    let one_free = pipe(1, Placement::Free)?;
    let four_free = pipe(4, Placement::Free)?;
    // The TCP table's own floor: loopback sockets cost more than pipes in the kernel.
    let four_tcp = floor::measure(4, iterations, Placement::Pinned(pin), Transport::Tcp)?;
    // The cost of crossing CPUs, which an unpinned referee pays whenever the scheduler puts a
    // bot on the other CPU; left out on a one-CPU machine.
    let split = match cpus.get(1) {
        Some(&other) => Some(pipe(4, Placement::Split { parent: pin, children: other })?),
        None => None,
    };
    let mut s =
        report.section(&format!("Floor: one {}-byte line there and back", floor::LINE.len()));
    let mut configs: Vec<(String, &Floor, f64)> = vec![
        (format!("1 child, pinned to CPU {pin}"), &one_pinned, four_pinned.median_us),
        (format!("4 children in turn, pinned to CPU {pin}"), &four_pinned, four_pinned.median_us),
        ("1 child, unpinned".to_string(), &one_free, four_free.median_us),
        ("4 children in turn, unpinned".to_string(), &four_free, four_free.median_us),
        (
            format!("4 children in turn over TCP (127.0.0.1), pinned to CPU {pin}"),
            &four_tcp,
            four_pinned.median_us,
        ),
    ];
    if let (Some(f), Some(other)) = (&split, cpus.get(1)) {
        configs.push((
            format!("4 children on CPU {other}, parent on CPU {pin}"),
            f,
            four_free.median_us,
        ));
    }
    for (name, f, floor) in configs {
        s.per_answer(&format!("{name}, median"), f.median_us, floor)
            .note(format!("{} round trips", f.samples));
        s.per_answer(&format!("{name}, p90"), f.p90_us, floor);
        // What each side spends: a referee's CPU per answer is compared with the parent's.
        if name.starts_with("4 children") {
            s.per_answer(&format!("{name}, parent CPU per round trip"), f.parent_cpu_us, floor)
                .note("getrusage(RUSAGE_SELF) around the timed loop");
            match f.children_cpu_us {
                Some(us) => {
                    s.per_answer(&format!("{name}, children's CPU per round trip"), us, floor)
                        .note("/proc/PID/schedstat of the 4 children around the timed loop");
                }
                None => s.missing(
                    &format!("{name}, children's CPU per round trip"),
                    "us",
                    "not measured: no /proc/PID/schedstat",
                ),
            }
        }
    }
    Ok(Floors {
        pinned: FloorRef::new(&four_pinned, "pinned"),
        free: FloorRef::new(&four_free, "unpinned"),
        tcp: FloorRef::new(&four_tcp, "pinned, TCP"),
    })
}

/// The referee with four instant bots, the headline: their cost is close to an echo
/// child's, so what is left is the referee's. Then four sample Rust bots. Returns the pinned
/// table of instant bots (its full run and its 1-game run), which later sections compare with.
pub(crate) fn instant_tables(
    report: &mut Report,
    b: &Bench<'_>,
    floors: &Floors,
) -> Res<(Outcome, Outcome)> {
    let (cfg, pin) = (b.cfg, b.pin);
    let rust_bot = format!("{} --random", shell_word(&cfg.bot_bin.display().to_string()));
    progress("referee + 4 instant bots, pinned");
    let instant_pinned = single(b.launch(&b.instant_bot, cfg.games, cfg.seed, Some(pin)))?;
    progress("referee + 4 instant bots, unpinned");
    let instant_free = single(b.launch(&b.instant_bot, cfg.games, cfg.seed, None))?;
    progress(&format!("{} referees + 4 instant bots each, one per CPU", b.cpus.len()));
    let tables: Vec<Launch> = b
        .cpus
        .iter()
        .enumerate()
        .map(|(i, &cpu)| b.launch(&b.instant_bot, cfg.games, cfg.seed + i as u64, Some(cpu)))
        .collect();
    let instant_parallel = referee::run_all(&tables)?;
    progress("referee + 4 sample Rust bots, pinned");
    let rust_pinned = single(b.launch(&rust_bot, cfg.games, cfg.seed, Some(pin)))?;

    table_rows(
        report,
        &format!(
            "Referee + 4 instant bots (aluette-bench --instant-bot), one table pinned to CPU {pin}"
        ),
        &instant_pinned.0,
        &instant_pinned.1,
        &floors.pinned,
    );
    let unpinned_title = if b.can_unpin {
        "Referee + 4 instant bots, one table unpinned (referee --no-pin)"
    } else {
        "Referee + 4 instant bots, one table unpinned"
    };
    table_rows(report, unpinned_title, &instant_free.0, &instant_free.1, &floors.free);
    parallel_rows(report, &instant_parallel, &instant_pinned.0, &floors.pinned);
    table_rows(
        report,
        &format!(
            "Referee + 4 sample Rust bots (aluette-bot --random), one table pinned to CPU {pin}"
        ),
        &rust_pinned.0,
        &rust_pinned.1,
        &floors.pinned,
    );
    Ok(instant_pinned)
}

/// The Python table, once measured: its bots' command, its runs, and the floor beside Python
/// echo children measured with it.
pub(crate) struct Python {
    pub(crate) bot: String,
    /// `python -c PYTHON_ECHO`, the Python floor's children.
    echo: Vec<String>,
    pub(crate) pinned: (Outcome, Outcome),
    pub(crate) floor: FloorRef,
}

/// The four-children pipe floor, pinned, with Python echo children.
fn python_floor(b: &Bench<'_>, echo: &[String]) -> Res<FloorRef> {
    let iterations = floor_iterations(b.cfg.quick);
    let f =
        floor::measure_with(4, iterations, Placement::Pinned(b.pin), Transport::Pipe, Some(echo))?;
    Ok(FloorRef::new(&f, "pinned, Python echo children"))
}

/// The referee with four Python bots; none when Python is off or not found (said in the
/// section).
pub(crate) fn python_table(
    report: &mut Report,
    b: &Bench<'_>,
    floor: &FloorRef,
) -> Res<Option<Python>> {
    let (cfg, pin) = (b.cfg, b.pin);
    let python_title =
        format!("Referee + 4 Python bots (random_bot.py), one table pinned to CPU {pin}");
    match cfg.python.as_deref().map(resolve_python) {
        None => {
            report.section(&python_title).missing(
                "games per second",
                "games/s",
                "not measured: --no-python",
            );
            Ok(None)
        }
        Some(Err(e)) => {
            report.section(&python_title).missing(
                "games per second",
                "games/s",
                &format!("not measured: {e}"),
            );
            Ok(None)
        }
        Some(Ok(python)) => {
            let bot = format!(
                "{} {}",
                shell_word(&python),
                shell_word(&cfg.python_bot.display().to_string())
            );
            progress("referee + 4 Python bots, pinned");
            let out = single(b.launch(&bot, cfg.python_games, cfg.seed, Some(pin)))?;
            table_rows(report, &python_title, &out.0, &out.1, floor);
            let echo = vec![python.clone(), "-c".into(), floor::PYTHON_ECHO.into()];
            let python_floor = python_floor(b, &echo)?;
            python_floor_rows(report, &python_title, &out, floor, &python_floor);
            // Which interpreter ran matters for the figures: say it on the section's first row.
            if let Some(row) = report.rows.iter_mut().find(|r| r.section == python_title) {
                let note = row.note.take().unwrap_or_default();
                row.note = Some(format!("{note}; interpreter {python}"));
            }
            Ok(Some(Python { bot, echo, pinned: out, floor: python_floor }))
        }
    }
}

/// The headline again, for medians: the floor and the tables of each run measured side by
/// side, so each run's ratios are of one moment. Its rows go first in the report: the figures
/// the targets are about.
pub(crate) fn headline(
    report: &mut Report,
    b: &Bench<'_>,
    floor: FloorRef,
    instant: &(Outcome, Outcome),
    python: Option<&Python>,
) -> Res<()> {
    let (cfg, pin) = (b.cfg, b.pin);
    // The same tables without the bots' CPU clock (`--cpu-time off`), beside each run: what
    // the one reading per answer costs the referee, which the floor does not pay.
    let unclocked = || -> Res<Unclocked> {
        let off = |bot: &str, games| Launch {
            extra: ["--cpu-time", "off"].map(String::from).to_vec(),
            ..b.launch(bot, games, cfg.seed, Some(pin))
        };
        Ok(Unclocked {
            instant: single(off(&b.instant_bot, cfg.games))?,
            python: match python {
                Some(p) => Some(single(off(&p.bot, cfg.python_games))?),
                None => None,
            },
        })
    };
    let mut runs = vec![HeadRun {
        floor,
        instant: instant.clone(),
        python: python.map(|p| (p.pinned.clone(), p.floor)),
        unclocked: unclocked()?,
    }];
    for r in 2..=cfg.repeat {
        progress(&format!("the headline again, run {r} of {}", cfg.repeat));
        let iterations = floor_iterations(cfg.quick);
        let floor = floor::measure(4, iterations, Placement::Pinned(pin), Transport::Pipe)?;
        let instant = single(b.launch(&b.instant_bot, cfg.games, cfg.seed, Some(pin)))?;
        let python = match python {
            Some(p) => Some((
                single(b.launch(&p.bot, cfg.python_games, cfg.seed, Some(pin)))?,
                python_floor(b, &p.echo)?,
            )),
            None => None,
        };
        let unclocked = unclocked()?;
        runs.push(HeadRun { floor: FloorRef::new(&floor, "pinned"), instant, python, unclocked });
    }
    let before = report.rows.len();
    headline_rows(report, &runs, pin);
    let added = report.rows.len() - before;
    report.rows.rotate_right(added);
    Ok(())
}

/// What each answer of the CPU clock's bots costs them, in microseconds of CPU time.
const BURN_US: u64 = 4_000;
/// The clock of the CPU clock's benchmark: the bots' CPU time fits in the answer time, the wall
/// time of two bots sharing a CPU does not, and the bank covers a few overruns only.
const BURN_ANSWER_MS: &str = "6";
const BURN_BANK_MS: &str = "20";
/// Its wall-time cap, as a multiple of the CPU time allowed (26 ms): about a second. The cap is
/// there for bots that sleep; on a machine that other people load as well, the default 4x
/// (104 ms) was passed now and then by a bot waiting for its CPU.
const BURN_WALL_CAP: &str = "40";

/// The CPU clock under load: bots that burn a fixed CPU time per answer, twice as many tables
/// as CPUs, the wall clock and then the CPU clock.
pub(crate) fn cpu_clock(report: &mut Report, b: &Bench<'_>) -> Res<()> {
    let (cfg, cpus) = (b.cfg, &b.cpus);
    progress(&format!("{} tables of CPU-burning bots, wall clock then CPU clock", 2 * cpus.len()));
    let burn_bot = format!("{} --burn-us {BURN_US}", b.instant_bot);
    let burn_games = if cfg.quick { 1 } else { 3 };
    let mut clocks = Vec::new();
    for clock in ["wall", "cpu"] {
        let tables: Vec<Launch> = (0..2 * cpus.len())
            .map(|i| Launch {
                extra: [
                    "--clock",
                    clock,
                    "--answer-ms",
                    BURN_ANSWER_MS,
                    "--bank-ms",
                    BURN_BANK_MS,
                    "--wall-cap",
                    BURN_WALL_CAP,
                ]
                .map(String::from)
                .to_vec(),
                ..b.launch(&burn_bot, burn_games, cfg.seed + i as u64, Some(cpus[i % cpus.len()]))
            })
            .collect();
        clocks.push((clock, referee::run_all(&tables)?));
    }
    let reading_ns = sys::cpu_clock_reading_ns()?;
    let mut s = report.section(&format!(
        "The CPU clock under load: {} tables on {} CPUs, 4 bots each spending {} ms of CPU \
         per answer, --answer-ms {BURN_ANSWER_MS} --bank-ms {BURN_BANK_MS} --wall-cap {BURN_WALL_CAP}",
        2 * cpus.len(),
        cpus.len(),
        BURN_US as f64 / 1e3
    ));
    for (clock, tables) in &clocks {
        let faults: u64 = tables.iter().map(|o| o.faults).sum();
        let answers: u64 = tables.iter().map(|o| o.answers).sum();
        let wall_per_answer: f64 =
            tables.iter().map(|o| o.wall.as_secs_f64() * 1e6).sum::<f64>() / answers as f64;
        let kinds: Vec<String> = tables.iter().filter_map(|o| o.warning.clone()).collect();
        s.row(&format!("--clock {clock}: faults (timeouts)"), faults as f64, "").note(format!(
            "{} games, {answers} answers in time, {:.1} ms of wall time per answer and table",
            tables.iter().map(|o| o.games).sum::<u64>(),
            wall_per_answer / 1e3
        ));
        if let Some(first) = kinds.first() {
            s.row(&format!("--clock {clock}: the referee's first warning"), 0.0, "")
                .note(first.clone());
        }
    }
    s.row("one reading of a bot's CPU clock", reading_ns / 1e3, "us").note(
        "clock_gettime of another process's CPU clock, the referee's one reading per answer \
         (none with --clock wall --cpu-time off)",
    );
    Ok(())
}
