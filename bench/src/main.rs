//! `aluette-bench`: measures the referee against the operating system's pipe floor in one run,
//! so the ratios hold on a noisy machine, and prints them as a small report (and JSON on demand).
//!
//! The figures: the round trip of one line over a pipe (the floor) with the CPU each side spends,
//! the referee with four instant bots (pinned, unpinned, one table per CPU, over TCP), with four
//! sample Rust bots and with four Python bots, the referee's peak memory (one table, 1, 16 and 64
//! tables in a tournament, 1,000 idle TCP connections), and optionally the engine alone. See
//! bench/README.md. `--echo` and `--instant-bot` turn the binary into the floor's echo child and
//! into the instant bot.

mod arena;
mod floor;
mod instant;
mod referee;
mod report;
mod rows;
mod sys;
mod tables;
mod tcp;
mod tools;
mod web;
mod workers;

use referee::Launch;
use report::Report;
use rows::*;
use std::path::PathBuf;
use std::process::ExitCode;
use tools::{engine, resolve_python, shell_word};

const USAGE: &str =
    "usage: aluette-bench [--quick] [--json FILE] [--games N] [--python-games N] [--seed S]
                     [--referee-bin PATH] [--bot-bin PATH] [--python CMD] [--python-bot PATH]
                     [--engine-bin PATH] [--no-python] [--repeat N] [--web-only]
       aluette-bench --instant-bot [--connect HOST:PORT --token T] [--burn-us US]

  --quick            small runs for a smoke test (under 10 s)
  --json FILE        also write the figures as JSON to FILE
  --games N          games per run with the instant, sample Rust and TCP bots, 2 or more
                     (default 400)
  --python-games N   games with the Python bots, 2 or more (default 200)
  --seed S           match seed (default 1; parallel tables use S, S+1, ...)
  --referee-bin PATH the referee (default: `referee` beside this program)
  --bot-bin PATH     the Rust sample bot (default: `aluette-bot` beside this program)
  --arena-bin PATH   the arena server (default: `arena` beside this program)
  --python CMD       Python interpreter to resolve (default python3)
  --python-bot PATH  the Python sample bot (default: sample-bots/python/random_bot.py)
  --engine-bin PATH  an already built `deals` benchmark of aluette-rules to run too
  --no-python        skip the Python bots
  --repeat N         measure the headline (pinned floor, pinned table of instant bots, of
                     Python bots) N times and print each figure's median (default 3, 1 with
                     --quick)
  --web-only         only the web server's sections (spectators, web flood)
  --arena-only       only the arena's section
  --workers-only     only the workers' section (arena serve --work, referee worker)
  --instant-bot      be the instant bot (stdin/stdout, or TCP with --connect and --token;
                     --burn-us US spends US of CPU time before each answer)";

/// Everything the command line sets.
#[derive(Debug)]
struct Config {
    quick: bool,
    json: Option<PathBuf>,
    games: u64,
    python_games: u64,
    seed: u64,
    referee_bin: PathBuf,
    bot_bin: PathBuf,
    arena_bin: PathBuf,
    python: Option<String>,
    python_bot: PathBuf,
    engine_bin: Option<PathBuf>,
    repeat: usize,
    web_only: bool,
    arena_only: bool,
    workers_only: bool,
}

fn parse_args(args: &[String]) -> Result<Config, String> {
    // The binaries sit side by side in target/release, wherever the bench is started from.
    let here = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(PathBuf::from))
        .unwrap_or_default();
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cfg = Config {
        quick: false,
        json: None,
        games: 0,
        python_games: 0,
        seed: 1,
        referee_bin: here.join("referee"),
        bot_bin: here.join("aluette-bot"),
        arena_bin: here.join("arena"),
        python: Some("python3".into()),
        python_bot: workspace.join("sample-bots/python/random_bot.py"),
        engine_bin: None,
        repeat: 0,
        web_only: false,
        arena_only: false,
        workers_only: false,
    };
    let (mut games, mut python_games, mut repeat) = (None, None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        // Two games at least: the steady rate is the full run minus a 1-game run.
        let number = |v: String| {
            v.parse::<u64>()
                .ok()
                .filter(|&n| n >= 2)
                .ok_or(format!("{flag}: {v:?} is not a count of 2 or more"))
        };
        match flag.as_str() {
            "--quick" => cfg.quick = true,
            "--json" => cfg.json = Some(value()?.into()),
            "--games" => games = Some(number(value()?)?),
            "--python-games" => python_games = Some(number(value()?)?),
            "--seed" => {
                cfg.seed = value()?.parse().map_err(|_| format!("{flag} needs a number"))?
            }
            "--referee-bin" => cfg.referee_bin = value()?.into(),
            "--bot-bin" => cfg.bot_bin = value()?.into(),
            "--arena-bin" => cfg.arena_bin = value()?.into(),
            "--python" => cfg.python = Some(value()?),
            "--python-bot" => cfg.python_bot = value()?.into(),
            "--engine-bin" => cfg.engine_bin = Some(value()?.into()),
            "--no-python" => cfg.python = None,
            "--web-only" => cfg.web_only = true,
            "--arena-only" => cfg.arena_only = true,
            "--workers-only" => cfg.workers_only = true,
            "--repeat" => {
                let v = value()?;
                let n = v.parse::<usize>().ok().filter(|&n| (1..=100).contains(&n));
                repeat = Some(n.ok_or(format!("{flag}: {v:?} is not a count from 1 to 100"))?);
            }
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    // Defaults sized so that each run lasts 2-3 s on the 2-core VM of the README: long enough for
    // start-up to fade and for 10 ms CPU ticks to be fine, short enough to run often.
    cfg.games = games.unwrap_or(if cfg.quick { 10 } else { 400 });
    // Python start-up varies by 100 ms and more: 200 games keep it small beside the games.
    cfg.python_games = python_games.unwrap_or(if cfg.quick { 2 } else { 200 });
    // The machine is shared and a run's figures move by 10-20%: a median of three at least.
    cfg.repeat = repeat.unwrap_or(if cfg.quick { 1 } else { 3 });
    Ok(cfg)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--echo") => {
            return match floor::echo(&args[1..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            };
        }
        Some("--instant-bot") => {
            return match instant::main(&args[1..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("aluette-bench --instant-bot: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        _ => {}
    }
    let cfg = match parse_args(&args) {
        Ok(cfg) => cfg,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("aluette-bench: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aluette-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Idle TCP connections held against one referee (the figure).
const IDLE_CONNECTIONS: usize = 1_000;
/// Table counts of the many-tables rows (the figures).
const TABLE_COUNTS: [usize; 3] = [1, 16, 64];

fn run(cfg: &Config) -> Res<()> {
    for (what, path) in [("referee", &cfg.referee_bin), ("Rust sample bot", &cfg.bot_bin)] {
        if !path.is_file() {
            return Err(format!(
                "no {what} at {}: build with `cargo build --release -p aluette-referee -p aluette-sample-bot -p aluette-bench`",
                path.display()
            )
            .into());
        }
    }
    let cpus = sys::allowed_cpus()?;
    let pin = cpus[0];
    // Before any child starts, so that the referees inherit it too: they never raise it.
    let open_files = sys::raise_open_files()?;
    let mut report = Report {
        date: sys::utc_now(),
        command: std::iter::once("aluette-bench".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        cpus: cpus.len(),
        load_before: sys::load_1min(),
        load_after: None,
        rows: Vec::new(),
    };

    if cfg.workers_only {
        workers::rows(&mut report, &cfg.referee_bin, &cfg.arena_bin, cfg.quick);
        return finish(report, cfg);
    }
    if cfg.arena_only {
        arena::rows(&mut report, &cfg.arena_bin, &std::env::current_exe()?, cfg.quick);
        return finish(report, cfg);
    }
    if cfg.web_only {
        let me = std::env::current_exe()?;
        let instant_bot = format!("{} --instant-bot", shell_word(&me.display().to_string()));
        let other = cpus.iter().copied().find(|&c| c != pin);
        web::sections(
            &mut report,
            &cfg.referee_bin,
            &instant_bot,
            cfg.games,
            cfg.seed,
            pin,
            other,
        )?;
        return finish(report, cfg);
    }

    // 1. The floor.
    let iterations = if cfg.quick { 2_000 } else { 20_000 };
    progress("floors: pipes and loopback TCP");
    use floor::{Placement, Transport};
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
    {
        let mut s =
            report.section(&format!("Floor: one {}-byte line there and back", floor::LINE.len()));
        let mut configs = vec![
            (format!("1 child, pinned to CPU {pin}"), &one_pinned, four_pinned.median_us),
            (
                format!("4 children in turn, pinned to CPU {pin}"),
                &four_pinned,
                four_pinned.median_us,
            ),
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
    }
    let pinned_floor = FloorRef::new(&four_pinned, "pinned");
    let free_floor = FloorRef::new(&four_free, "unpinned");
    let tcp_floor = FloorRef::new(&four_tcp, "pinned, TCP");

    // 2. The referee with four instant bots, the headline: their cost is close to an echo
    // child's, so what is left is the referee's.
    let me = std::env::current_exe()?;
    let instant_bot = format!("{} --instant-bot", shell_word(&me.display().to_string()));
    let rust_bot = format!("{} --random", shell_word(&cfg.bot_bin.display().to_string()));
    let can_unpin = referee::has_no_pin(&cfg.referee_bin)?;
    // Unpinned means no CPU set from the bench and, if the referee would pin itself, --no-pin.
    let launch = |bot: &str, games: u64, seed: u64, cpu: Option<usize>| Launch {
        referee: cfg.referee_bin.clone(),
        bots: vec![bot.to_string()],
        games,
        seed,
        cpu,
        no_pin: cpu.is_none() && can_unpin,
        extra: Vec::new(),
    };
    progress("referee + 4 instant bots, pinned");
    let instant_pinned = single(launch(&instant_bot, cfg.games, cfg.seed, Some(pin)))?;
    progress("referee + 4 instant bots, unpinned");
    let instant_free = single(launch(&instant_bot, cfg.games, cfg.seed, None))?;
    progress(&format!("{} referees + 4 instant bots each, one per CPU", cpus.len()));
    let tables: Vec<Launch> = cpus
        .iter()
        .enumerate()
        .map(|(i, &cpu)| launch(&instant_bot, cfg.games, cfg.seed + i as u64, Some(cpu)))
        .collect();
    let instant_parallel = referee::run_all(&tables)?;
    progress("referee + 4 sample Rust bots, pinned");
    let rust_pinned = single(launch(&rust_bot, cfg.games, cfg.seed, Some(pin)))?;

    table_rows(
        &mut report,
        &format!(
            "Referee + 4 instant bots (aluette-bench --instant-bot), one table pinned to CPU {pin}"
        ),
        &instant_pinned.0,
        &instant_pinned.1,
        &pinned_floor,
    );
    let unpinned_title = if can_unpin {
        "Referee + 4 instant bots, one table unpinned (referee --no-pin)"
    } else {
        "Referee + 4 instant bots, one table unpinned"
    };
    table_rows(&mut report, unpinned_title, &instant_free.0, &instant_free.1, &free_floor);
    parallel_rows(&mut report, &instant_parallel, &instant_pinned.0, &pinned_floor);
    table_rows(
        &mut report,
        &format!(
            "Referee + 4 sample Rust bots (aluette-bot --random), one table pinned to CPU {pin}"
        ),
        &rust_pinned.0,
        &rust_pinned.1,
        &pinned_floor,
    );

    // 3. The referee with four Python bots.
    let mut python_pinned = None;
    let mut python_cmd = None;
    let python_title =
        format!("Referee + 4 Python bots (random_bot.py), one table pinned to CPU {pin}");
    match cfg.python.as_deref().map(resolve_python) {
        None => report.section(&python_title).missing(
            "games per second",
            "games/s",
            "not measured: --no-python",
        ),
        Some(Err(e)) => report.section(&python_title).missing(
            "games per second",
            "games/s",
            &format!("not measured: {e}"),
        ),
        Some(Ok(python)) => {
            let bot = format!(
                "{} {}",
                shell_word(&python),
                shell_word(&cfg.python_bot.display().to_string())
            );
            progress("referee + 4 Python bots, pinned");
            let out = single(launch(&bot, cfg.python_games, cfg.seed, Some(pin)))?;
            table_rows(&mut report, &python_title, &out.0, &out.1, &pinned_floor);
            // Which interpreter ran matters for the figures: say it on the section's first row.
            if let Some(row) = report.rows.iter_mut().find(|r| r.section == python_title) {
                let note = row.note.take().unwrap_or_default();
                row.note = Some(format!("{note}; interpreter {python}"));
            }
            python_pinned = Some(out);
            python_cmd = Some(bot);
        }
    }

    // The headline again, for medians: the floor and the tables of each run measured side by
    // side, so each run's ratios are of one moment.
    let mut runs = vec![HeadRun {
        floor: pinned_floor,
        instant: instant_pinned.clone(),
        python: python_pinned.clone(),
    }];
    for r in 2..=cfg.repeat {
        progress(&format!("the headline again, run {r} of {}", cfg.repeat));
        let floor = pipe(4, Placement::Pinned(pin))?;
        let instant = single(launch(&instant_bot, cfg.games, cfg.seed, Some(pin)))?;
        let python = match &python_cmd {
            Some(bot) => Some(single(launch(bot, cfg.python_games, cfg.seed, Some(pin)))?),
            None => None,
        };
        runs.push(HeadRun { floor: FloorRef::new(&floor, "pinned"), instant, python });
    }
    let before = report.rows.len();
    headline_rows(&mut report, &runs, pin);
    // First in the table: the figures the targets are about.
    let added = report.rows.len() - before;
    report.rows.rotate_right(added);

    // The CPU clock under load: bots that burn a fixed CPU time per answer, twice as many
    // tables as CPUs, the wall clock and then the CPU clock.
    progress(&format!("{} tables of CPU-burning bots, wall clock then CPU clock", 2 * cpus.len()));
    let burn_bot = format!("{instant_bot} --burn-us {BURN_US}");
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
                ..launch(&burn_bot, burn_games, cfg.seed + i as u64, Some(cpus[i % cpus.len()]))
            })
            .collect();
        clocks.push((clock, referee::run_all(&tables)?));
    }
    let reading_ns = sys::cpu_clock_reading_ns()?;
    {
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
    }

    // 4. Four instant bots over TCP: the same table, the lines on loopback sockets.
    progress("referee + 4 instant bots over TCP, pinned");
    let tcp_run = |games| {
        tcp::table(&cfg.referee_bin, games, cfg.seed, pin)
            .map_err(|e| format!("TCP table ({games} games): {e}"))
            .and_then(|out| {
                let shown =
                    Launch { games, ..launch("4 instant bots over TCP", games, cfg.seed, None) };
                check(&out, &shown).map_err(|e| e.to_string()).map(|()| out)
            })
    };
    let tcp_full = tcp_run(cfg.games)?;
    let tcp_one = tcp_run(1)?;
    table_rows(
        &mut report,
        &format!("Referee + 4 instant bots over TCP (127.0.0.1), one table pinned to CPU {pin}"),
        &tcp_full,
        &tcp_one,
        &tcp_floor,
    );
    if let Some(row) =
        report.rows.iter_mut().rev().find(|r| r.name == "bots' CPU per answer (4 bots together)")
    {
        row.note("read by the bench from the bots it started (they connect to the referee)");
    }

    // 5. Many tables in one referee: a tournament of instant bots.
    let mut many = Vec::new();
    for n in TABLE_COUNTS {
        // Every table busy at once and then some, so that the tables do not all end together;
        // and never so few games that the rate is only the start-up.
        let games = if cfg.quick { (2 * n as u64).max(16) } else { (4 * n as u64).max(64) };
        progress(&format!("referee tournament, {}, {games} games", tables_word(n)));
        let run = tables::run(&cfg.referee_bin, &instant_bot, n, games, cfg.seed, true)
            .map_err(|e| e.to_string())?;
        if run.games != games {
            return Err(
                format!("tournament on {n} tables: {} of {games} games played", run.games).into()
            );
        }
        many.push(run);
    }
    {
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
    }

    // 6. 1,000 idle TCP connections.
    let idle = if open_files < IDLE_CONNECTIONS as u64 + 200 {
        Err(format!("not measured: the open-file limit is {open_files}"))
    } else {
        progress(&format!("referee with {IDLE_CONNECTIONS} idle TCP connections"));
        let idle = tcp::idle(&cfg.referee_bin, IDLE_CONNECTIONS, cfg.seed, pin)
            .map_err(|e| format!("{IDLE_CONNECTIONS} idle TCP connections: {e}"))?;
        let shown = launch("4 instant bots over TCP after the idle connections", 1, cfg.seed, None);
        check(&idle.game, &shown)?;
        Ok(idle)
    };

    // 7. The web server: spectators, and a stranger's flood (issue 23).
    let other = cpus.iter().copied().find(|&c| c != pin);
    let web_games = if cfg.quick { 20 } else { cfg.games };
    web::sections(&mut report, &cfg.referee_bin, &instant_bot, web_games, cfg.seed, pin, other)?;

    // 7. Peak memory.
    {
        let mut s = report.section("Referee peak memory (VmHWM, sampled every 10 ms)");
        let instant_games = format!("one table, instant bots, {} games", cfg.games);
        let python_games = format!("one table, Python bots, {} games", cfg.python_games);
        // The 1-game runs show what one table needs; the difference is what the referee keeps
        // per finished game until it prints the match result.
        for (name, out) in [
            ("one table, instant bots, 1 game", Some(&instant_pinned.1)),
            (instant_games.as_str(), Some(&instant_pinned.0)),
            ("one table, Python bots, 1 game", python_pinned.as_ref().map(|p| &p.1)),
            (python_games.as_str(), python_pinned.as_ref().map(|p| &p.0)),
        ] {
            match out.and_then(|o| o.peak_rss_kib) {
                Some(kib) => {
                    s.row(name, kib as f64 / 1024.0, "MiB");
                }
                None => s.missing(name, "MiB", "not measured"),
            }
        }
        for run in &many {
            let name = format!("{} in one referee (tournament)", tables_word(run.tables));
            match run.peak_rss_kib {
                Some(kib) => {
                    s.row(&name, kib as f64 / 1024.0, "MiB")
                        .note(format!("{} games, instant bots", run.games));
                }
                None => s.missing(&name, "MiB", "not measured"),
            }
        }
        match &idle {
            Ok(idle) => {
                let n = idle.connections;
                s.row(
                    "TCP match waiting for its 4 seats, no connection",
                    idle.baseline_kib as f64 / 1024.0,
                    "MiB",
                );
                s.row(
                    &format!("the same with {n} idle TCP connections"),
                    idle.peak_kib as f64 / 1024.0,
                    "MiB",
                )
                .note("connected, sent their hello, never answered it");
                s.row(
                    "per idle TCP connection",
                    idle.peak_kib.saturating_sub(idle.baseline_kib) as f64 / n as f64,
                    "KiB",
                )
                .note(format!("(peak - no connection) / {n}"));
                match idle.rss_after_kib {
                    Some(kib) => {
                        s.row(
                            &format!("in use after closing the {n} (VmRSS)"),
                            kib as f64 / 1024.0,
                            "MiB",
                        );
                    }
                    None => s.missing(
                        &format!("in use after closing the {n} (VmRSS)"),
                        "MiB",
                        "not measured",
                    ),
                }
                let game = &idle.game;
                let row =
                    s.row("then 4 instant bots over TCP, 1 game: faults", game.faults as f64, "");
                row.note(format!("{} of {} games complete", game.complete, game.games));
                if game.faults > 0 {
                    row.note(
                        "faults after the idle connections: the referee mishandled the real bots",
                    );
                }
            }
            Err(why) => s.missing(&format!("{IDLE_CONNECTIONS} idle TCP connections"), "MiB", why),
        }
    }

    // 7b. The arena: many tables in one server, and idle connected bots.
    let me = std::env::current_exe()?;
    arena::rows(&mut report, &cfg.arena_bin, &me, cfg.quick);
    workers::rows(&mut report, &cfg.referee_bin, &cfg.arena_bin, cfg.quick);

    // 8. The engine alone, when a built benchmark is given.
    match &cfg.engine_bin {
        None => report.section("Engine alone (rules crate, no I/O)").missing(
            "deals per second",
            "deals/s",
            "skipped: `cargo bench -p aluette-rules` prints it; --engine-bin PATH runs a built one",
        ),
        Some(bin) => {
            progress("engine alone");
            let rows = engine(bin, cfg.quick)?;
            let mut s = report.section("Engine alone (rules crate, no I/O, one core)");
            // The referee's CPU per deal, pinned, against the engine's time per deal with the
            // chant on (the default rules): how much of the referee's work is the game itself.
            let (full, one) = &instant_pinned;
            let steady = full.minus(one);
            let referee_us_per_deal = steady.referee_cpu_us / steady.deals as f64;
            for (label, per_s) in rows {
                let row = s.row(&format!("deals per second, {label}"), per_s, "deals/s");
                if label.contains("chant on") {
                    let share = 1e6 / per_s / referee_us_per_deal * 100.0;
                    row.note(format!("{share:.2}% of the referee's CPU per deal ({referee_us_per_deal:.0} us, pinned)"));
                }
            }
        }
    }

    finish(report, cfg)
}

/// Prints the report, and writes it as JSON when asked.
fn finish(mut report: Report, cfg: &Config) -> Res<()> {
    report.load_after = sys::load_1min();
    print!("{}", report.table());
    if let Some(path) = &cfg.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_sizes_are_small() {
        let cfg = parse_args(&["--quick".to_string()]).unwrap();
        assert_eq!((cfg.games, cfg.python_games), (10, 2));
        assert!(parse_args(&["--games".to_string(), "1".to_string()]).is_err());
    }
}
