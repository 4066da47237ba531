//! The bench's command line: its usage text, and the flags read into a [`Config`] with the run
//! sizes each defaults to.

use crate::Config;
use std::path::PathBuf;

pub(crate) const USAGE: &str =
    "usage: aluette-bench [--quick] [--json FILE] [--games N] [--python-games N] [--seed S]
                     [--referee-bin PATH] [--bot-bin PATH] [--python CMD] [--python-bot PATH]
                     [--engine-bin PATH] [--no-python] [--repeat N] [--headline-only]
                     [--web-only | --arena-only | --workers-only]
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
  --headline-only    only the floors, the headline and the TCP bots' table (the figures the
                     referee's per-answer cost is held to), without the other sections
  --web-only         only the web server's sections (spectators, web flood)
  --arena-only       only the arena's section
  --workers-only     only the workers' section (arena serve --work, referee worker)
  --instant-bot      be the instant bot (stdin/stdout, or TCP with --connect and --token;
                     --burn-us US spends US of CPU time before each answer)";

pub(crate) fn parse_args(args: &[String]) -> Result<Config, String> {
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
        headline_only: false,
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
            "--headline-only" => cfg.headline_only = true,
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
