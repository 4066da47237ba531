//! The `arena` command: its admin half, which creates bots (printing each token once), lists
//! them and pauses them, on the arena's database (a SQLite file, or PostgreSQL); and `serve`,
//! the arena itself (with its web pages under `--web`).

use aluette_arena::store::{Bot, Location, NewBot, Store};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Parser, Debug)]
#[command(name = "arena", version, about = "The Aluette arena: a standing ladder of bots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Manage authors and bots.
    #[command(subcommand)]
    Admin(Admin),
    /// Run the arena: bots connect and play, the house fills the tables, ratings are kept.
    Serve(Serve),
}

#[derive(Args, Debug)]
struct Serve {
    #[command(flatten)]
    db: Db,
    /// Where game records go, one file per game (with --record-store, where they are written
    /// while their games play).
    #[arg(long, default_value = "arena-records")]
    records: PathBuf,
    /// Keep finished records in this object store instead: s3://BUCKET/PREFIX (set up by the
    /// usual AWS_* variables; AWS_ENDPOINT and AWS_ALLOW_HTTP=true for an S3-compatible server)
    /// or file:///ABSOLUTE/PATH.
    #[arg(long, value_name = "URL")]
    record_store: Option<String>,
    /// Where bots connect: HOST:PORT (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: String,
    /// Time for each answer, in milliseconds.
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    answer_ms: u64,
    /// Time for the handshake (the bot's hello answer), in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    handshake_ms: u64,
    /// Each seat's bank per game, in milliseconds.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    bank_ms: u64,
    /// Tables each deal is played at (duplicate: two or more).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(2..=16))]
    tables_per_deal: u64,
    /// Deals in play at once, at most (0: seat nobody; bots connect and wait).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=1000))]
    deals_at_once: u64,
    /// Clean games a new bot plays against the house before it enters the ladder.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=1000))]
    qualifying_games: u32,
    /// Seat no house players (only connected bots play).
    #[arg(long)]
    no_house: bool,
    /// Tables each house player may sit at at once (1 to 4, its quota): fewer leaves more seats
    /// to connected bots.
    #[arg(long, default_value_t = aluette_arena::serve::house::HOUSE_TABLES, value_parser = clap::value_parser!(u32).range(1..=i64::from(aluette_arena::serve::house::HOUSE_TABLES)))]
    house_tables: u32,
    /// Serve the web pages and JSON API at HOST:PORT (port 0 picks a free one).
    #[arg(long, value_name = "ADDR")]
    web: Option<String>,
    /// The admin page's token, read from this file (else a fresh one is printed once).
    #[arg(long, requires = "web")]
    admin_token_file: Option<PathBuf>,
    /// A name the web server is published under (a DNS name or address, no port), accepted in a
    /// request's Host with any port; repeatable. Without it, only loopback and the --web
    /// address are (a defence against DNS rebinding).
    #[arg(long, value_name = "NAME", requires = "web")]
    public_host: Vec<String>,
    /// A reverse proxy in front of the web server (an IP address), whose X-Forwarded-For names
    /// the client the rate limit counts; repeatable.
    #[arg(long, value_name = "IP", requires = "web")]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Queue the deals of house and hosted entrants for `referee worker`s, which lease them
    /// through the web server's work API (needs --web).
    #[arg(long, requires = "web")]
    work: bool,
    /// A worker's lease expires when its last heartbeat is older than this, in milliseconds.
    #[arg(long, default_value_t = 10_000, requires = "work", value_parser = clap::value_parser!(u64).range(500..=3_600_000))]
    lease_ttl_ms: u64,
    /// Deals queued for workers or leased, at most.
    #[arg(long, default_value_t = 8, requires = "work", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    work_deals: u64,
}

#[derive(Subcommand, Debug)]
enum Admin {
    /// Create a bot (and its author if new) and print its token, the only time it is shown.
    AddBot(AddBot),
    /// List every bot.
    List(Db),
    /// Stop a bot from being seated, with the reason it is told.
    Pause(Pause),
    /// Let a paused bot play again.
    Unpause(Which),
    /// Create a worker (`referee worker --token`) and print its token, the only time it is shown.
    AddWorker(AddWorker),
}

#[derive(Args, Debug)]
struct AddWorker {
    #[command(flatten)]
    db: Db,
    /// The worker's name (unique).
    name: String,
}

#[derive(Args, Debug)]
struct Db {
    /// The arena's SQLite database file (created if missing).
    #[arg(long, value_name = "FILE", conflicts_with = "database")]
    db: Option<PathBuf>,
    /// The arena's database: postgres://USER:PASSWORD@HOST:PORT/NAME (the password and the
    /// port may be left out; the database must exist), or a SQLite file (a path or a sqlite:
    /// URL). Without --db or --database: $DATABASE_URL.
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

impl Db {
    /// Where the flags (or `DATABASE_URL`) say the database is.
    fn location(&self) -> Result<Location, String> {
        if let Some(file) = &self.db {
            return Ok(Location::Sqlite(file.clone()));
        }
        let url = match &self.database {
            Some(url) => url.clone(),
            None => std::env::var("DATABASE_URL")
                .ok()
                .filter(|u| !u.is_empty())
                .ok_or("no database: give --db FILE or --database URL, or set DATABASE_URL")?,
        };
        Ok(Location::parse(&url))
    }
}

#[derive(Args, Debug)]
struct AddBot {
    #[command(flatten)]
    db: Db,
    /// The author's name.
    #[arg(long)]
    author: String,
    /// The bot's name.
    #[arg(long)]
    name: String,
    /// The bot's version: a new version is a new entrant.
    #[arg(long, default_value = "1")]
    version: String,
    /// One of the server's own bots.
    #[arg(long)]
    house: bool,
    /// Tables it may sit at at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    tables: u32,
    /// Games it may start in a day.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
    games_per_day: u32,
    /// A bot the organiser runs on the workers (`referee worker --bot NAME=PROGRAM`): it joins
    /// with no token and plays only where `arena serve --work` queues its deals.
    #[arg(long, conflicts_with = "house")]
    hosted: bool,
    /// Create this many bots at once, `NAME-1` by `AUTHOR-1` to `NAME-N` by `AUTHOR-N` (a ladder
    /// seeded for a test or a benchmark), one `token` line each.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: Option<u32>,
}

#[derive(Args, Debug)]
struct Which {
    #[command(flatten)]
    db: Db,
    /// The bot's name.
    #[arg(long)]
    name: String,
    /// The bot's version.
    #[arg(long, default_value = "1")]
    version: String,
}

#[derive(Args, Debug)]
struct Pause {
    #[command(flatten)]
    which: Which,
    /// Why: the bot is told this when it connects.
    #[arg(long)]
    reason: String,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A bad flag is one line and a non-zero exit, as the referee's; --help prints in full.
        Err(e) if e.use_stderr() => {
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            eprintln!("arena: {} (see arena --help)", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("ARENA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    // The server plays many tables at once and its search players think on blocking threads;
    // the admin commands are one query each.
    let mut builder = match cli.command {
        Command::Serve(_) => tokio::runtime::Builder::new_multi_thread(),
        Command::Admin(_) => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the runtime: {e}")),
    };
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("arena: {message}");
    ExitCode::FAILURE
}

async fn run(command: Command) -> Result<(), String> {
    let admin = match command {
        Command::Admin(admin) => admin,
        Command::Serve(s) => return serve(s).await,
    };
    match admin {
        Admin::AddBot(a) => {
            let store = open(&a.db).await?;
            let named = |k: Option<u32>| match k {
                Some(k) => (format!("{}-{k}", a.author), format!("{}-{k}", a.name)),
                None => (a.author.clone(), a.name.clone()),
            };
            let each: Vec<Option<u32>> = match a.count {
                Some(n) => (1..=n).map(Some).collect(),
                None => vec![None],
            };
            // Workers name a hosted entrant by its name alone.
            let hosted = store.hosted_bots().await.map_err(|e| e.to_string())?;
            let bots = store.bots().await.map_err(|e| e.to_string())?;
            for k in each {
                let (author, name) = named(k);
                if a.hosted && bots.iter().any(|b| b.name == name && hosted.contains(&b.id)) {
                    return Err(format!("a hosted entrant is named {name} already"));
                }
                let new = NewBot {
                    author,
                    name,
                    version: a.version.clone(),
                    house: a.house,
                    tables_at_once: a.tables,
                    games_per_day: a.games_per_day,
                };
                let (bot, token) = store.add_bot(&new, now()).await.map_err(|e| e.to_string())?;
                if a.hosted {
                    store.set_hosted(bot.id).await.map_err(|e| e.to_string())?;
                    println!("hosted: workers play it with --bot {}=PROGRAM", bot.name);
                }
                println!(
                    "bot {} ({} version {}, by {})",
                    bot.id, bot.name, bot.version, bot.author
                );
                println!("token {}", token.as_str());
            }
            store.close().await;
            println!("keep the tokens: each is shown only now and stored only as a hash");
        }
        Admin::List(db) => {
            let store = open(&db).await?;
            let bots = store.bots().await.map_err(|e| e.to_string())?;
            let hosted = store.hosted_bots().await.map_err(|e| e.to_string())?;
            store.close().await;
            println!(
                "{:>5}  {:<16} {:<20} {:<10} {:>6} {:>9}  status",
                "id", "author", "name", "version", "tables", "games/day"
            );
            for b in &bots {
                println!("{}", line(b, hosted.contains(&b.id)));
            }
        }
        Admin::Pause(p) => set_paused(&p.which, Some(&p.reason)).await?,
        Admin::Unpause(w) => set_paused(&w, None).await?,
        Admin::AddWorker(w) => {
            let store = open(&w.db).await?;
            let (worker, token) =
                store.add_worker(&w.name, now()).await.map_err(|e| e.to_string())?;
            store.close().await;
            println!("worker {} ({})", worker.id, worker.name);
            println!("token {}", token.as_str());
            println!("keep the token: it is shown only now and stored only as a hash");
        }
    }
    Ok(())
}

/// `arena serve`: the first Ctrl-C or SIGTERM lets the games in play end and starts no other;
/// the second ends them now (void, never counted).
async fn serve(s: Serve) -> Result<(), String> {
    use aluette_arena::serve::{Settings, run};
    if s.no_house && s.qualifying_games > 0 {
        return Err("--no-house leaves a new bot no house players to qualify against: \
                    add --qualifying-games 0"
            .into());
    }
    let settings = Settings {
        database: Some(s.db.location()?),
        records: s.records,
        listen: s.listen,
        record_store: s.record_store,
        answer_ms: s.answer_ms,
        bank_ms: s.bank_ms,
        handshake_ms: s.handshake_ms,
        tables_per_deal: s.tables_per_deal as usize,
        deals_at_once: s.deals_at_once as usize,
        qualifying_games: s.qualifying_games,
        house: !s.no_house,
        house_tables: s.house_tables,
        work: s.work.then_some(aluette_arena::work::WorkSettings {
            ttl_ms: s.lease_ttl_ms,
            deals: s.work_deals,
        }),
        ..Settings::default()
    };
    let mut settings = settings;
    if let Some(web) = s.web {
        let admin_token = match &s.admin_token_file {
            Some(file) => {
                let text = std::fs::read_to_string(file)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                let token = text.trim().to_string();
                if token.len() < 16 {
                    return Err(format!(
                        "{}: an admin token needs 16 characters or more",
                        file.display()
                    ));
                }
                token
            }
            None => {
                let token = aluette_arena::token::Token::generate()
                    .map_err(|e| format!("no random bits for the admin token: {e}"))?;
                println!("arena: admin token {} (shown only now)", token.as_str());
                token.as_str().to_string()
            }
        };
        let (announce, addr) = aluette_arena::web::Announce::channel();
        tokio::spawn(async move {
            if let Ok(addr) = addr.await {
                use std::io::Write as _;
                println!("arena: web pages at http://{addr}/");
                let _ = std::io::stdout().flush();
            }
        });
        settings.web = Some(web);
        settings.web_options = aluette_arena::web::Options {
            admin_token: Some(admin_token),
            announce,
            public_hosts: s.public_host,
            trusted_proxies: s.trusted_proxy,
            ..aluette_arena::web::Options::default()
        };
    }
    let stop = aluette_referee::Stop::new();
    let (first, then) = (stop.clone(), stop.clone());
    aluette_referee::on_stop_signals(
        move || {
            eprintln!("arena: stopping: no new deals; games in play finish (again to end them)");
            first.finish();
        },
        move || then.abort(),
    );
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        if let Ok(addr) = rx.await {
            use std::io::Write as _;
            println!("arena: bots connect to {addr}");
            let _ = std::io::stdout().flush();
        }
    });
    run(settings, stop, Some(tx)).await
}

fn line(b: &Bot, hosted: bool) -> String {
    let status = match (&b.paused_reason, b.house, hosted) {
        (Some(reason), _, _) => format!("paused: {reason}"),
        (None, true, _) => "house".to_string(),
        (None, false, true) => "hosted".to_string(),
        (None, false, false) => "active".to_string(),
    };
    format!(
        "{:>5}  {:<16} {:<20} {:<10} {:>6} {:>9}  {status}",
        b.id, b.author, b.name, b.version, b.tables_at_once, b.games_per_day
    )
}

async fn set_paused(which: &Which, reason: Option<&str>) -> Result<(), String> {
    if reason.is_some_and(|r| r.trim().is_empty()) {
        return Err("a pause needs a reason the bot can be told".into());
    }
    let store = open(&which.db).await?;
    let bot = store
        .bot_by_name(&which.name, &which.version)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no bot named {} version {}", which.name, which.version))?;
    store.set_paused(bot.id, reason).await.map_err(|e| e.to_string())?;
    store.close().await;
    let done = if reason.is_some() { "paused" } else { "may play again" };
    println!("bot {} ({} version {}) {done}", bot.id, bot.name, bot.version);
    Ok(())
}

async fn open(db: &Db) -> Result<Store, String> {
    let location = db.location()?;
    Store::connect(&location).await.map_err(|e| format!("{location}: {e}"))
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}
