//! The lease state machine against a real database file and real games: a lease is granted on
//! whole deals, only its worker may extend it or post for it, a result is taken only for a game
//! it holds and only as its record proves, a second post counts once, a deal is scored once
//! when its last table ends, and an expired lease's games are void, refused when posted late,
//! and their foursomes dealt again with a fresh seed.

use super::*;
use crate::store::{GameStatus, LeaseState, NewBot, QueuedDeal, Worker};
use aluette_referee::rules::{MatchLength, Rules};
use aluette_referee::worker::wire::{
    Lease, LeaseRequest, LeasedDeal, LeasedGame, ResultPost, ResultStatus,
};
use aluette_referee::{Config, Game, Seat, Table};
use std::path::PathBuf;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("aluette-work-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("records")).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn config() -> Config {
    Config::default()
        .rules(Rules { length: MatchLength::Deals(1), ..Rules::default() })
        .answer_ms(200)
}

/// A store with eight random-playing house entrants, and two workers.
async fn setup(dir: &Scratch) -> (Store, BTreeMap<BotId, House>, Worker, Worker) {
    let store = Store::open(&dir.0.join("arena.db")).await.unwrap();
    let mut house = BTreeMap::new();
    for k in 0..8 {
        let new = NewBot {
            author: "house".into(),
            name: format!("chair-{k}"),
            version: "1".into(),
            house: true,
            tables_at_once: 4,
            games_per_day: u32::MAX,
        };
        house.insert(store.add_bot(&new, 0).await.unwrap().0.id, House::Random);
    }
    let (a, _) = store.add_worker("a", 0).await.unwrap();
    let (b, _) = store.add_worker("b", 0).await.unwrap();
    (store, house, a, b)
}

fn hub(store: &Store, dir: &Scratch, house: &BTreeMap<BotId, House>, ttl_ms: u64) -> Hub {
    let settings = WorkSettings { ttl_ms, deals: 3 };
    let records = crate::records::Records::folder(&dir.0.join("records"));
    Hub::new(store.clone(), Some(settings), records, &config(), house.clone())
}

/// Plays a leased game as a worker would; its record.
async fn play(deal: &LeasedDeal, g: &LeasedGame) -> String {
    let seats: [Seat; 4] = std::array::from_fn(|s| {
        let house = House::of_kind(g.seats[s].kind).expect("a house seat");
        house.seat(House::seat_seed(deal.seed, g.game, s))
    });
    let mut table = Table::open(&config(), seats).await;
    let game = Game::new(deal.seed).number(g.game as u64).first_dealer(g.first_dealer);
    let outcome = table.play(game.record_in_memory()).await.unwrap();
    table.close("done").await;
    outcome.record.unwrap()
}

/// `value` is valid against spec/schema/arena/`name`.
fn valid(name: &str, value: &impl serde::Serialize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/schema/arena").join(name);
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let value = serde_json::to_value(value).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{value}");
}

fn post(lease: &Lease, game: i64, record: &str) -> ResultPost {
    ResultPost { lease: lease.lease, game, record: record.to_string() }
}

fn request(slots: u32) -> LeaseRequest {
    LeaseRequest { slots, can_run: vec![] }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_takes_results_only_for_its_games_as_proved_and_once() {
    let dir = Scratch::new("lease");
    let (store, house, a, b) = setup(&dir).await;
    let hub = hub(&store, &dir, &house, 60_000);
    assert_eq!(hub.fill(0, &crate::pairing::Params::default()).await.unwrap(), 3);
    assert_eq!(store.queued_games().await.unwrap(), 6);

    let lease = hub.lease(&a, &request(2)).await.unwrap().expect("a lease");
    valid("work-lease.json", &lease);
    assert_eq!(lease.deals.len(), 1, "two slots take one deal of two tables");
    let deal = &lease.deals[0];
    assert_eq!(deal.games.len(), 2);
    assert_eq!(store.queued_games().await.unwrap(), 4);
    for g in &deal.games {
        assert_eq!(store.game(g.game).await.unwrap().unwrap().status, GameStatus::Running);
    }
    let other = hub.lease(&b, &request(1)).await.unwrap().expect("b's lease");
    assert_ne!(other.deals[0].deal, deal.deal, "no deal is leased twice");

    // Only the lease's worker may extend it or post for it, and only for a game it holds.
    assert_eq!(hub.heartbeat(&b, lease.lease).await.unwrap_err().status, 403);
    assert_eq!(hub.heartbeat(&a, lease.lease).await.unwrap(), 60_000);
    let (g0, g1) = (&deal.games[0], &deal.games[1]);
    let record = play(deal, g0).await;
    assert_eq!(hub.result(&b, &post(&lease, g0.game, &record)).await.unwrap_err().status, 403);
    let foreign = other.deals[0].games[0].game;
    let refused = hub.result(&a, &post(&lease, foreign, &record)).await.unwrap_err();
    assert_eq!((refused.status, refused.why.contains("does not hold")), (403, true));

    // A record that is not this game's, or not a record, proves nothing.
    let wrong = hub.result(&a, &post(&lease, g1.game, &record)).await.unwrap_err();
    assert_eq!(wrong.status, 422, "{wrong:?}");
    let garbage = hub.result(&a, &post(&lease, g0.game, "{\"type\":\"header\"}\n")).await;
    assert_eq!(garbage.unwrap_err().status, 422);
    assert_eq!(store.game(g0.game).await.unwrap().unwrap().status, GameStatus::Running);

    // Counted once, from the record; the second post changes nothing.
    let first = hub.result(&a, &post(&lease, g0.game, &record)).await.unwrap();
    assert_eq!(first.status, ResultStatus::Counted);
    valid("work-result-answer.json", &first);
    let again = hub.result(&a, &post(&lease, g0.game, &record)).await.unwrap();
    valid("work-result-answer.json", &again);
    assert_eq!((again.status, again.points), (ResultStatus::AlreadyCounted, first.points));
    let row = store.game(g0.game).await.unwrap().unwrap();
    assert_eq!(row.points, Some([i32::from(first.points[0]), i32::from(first.points[1])]));
    let activity = store.activity(crate::serve::now()).await.unwrap();
    for id in row.seats {
        assert_eq!(activity[&id].games_done, 1, "bot {id} counted once");
    }
    let stored = std::fs::read_to_string(row.record_path.unwrap()).unwrap();
    assert_eq!(stored, record);
    assert!(store.comparisons().await.unwrap().is_empty(), "a deal is scored at its last table");

    let record1 = play(deal, g1).await;
    hub.result(&a, &post(&lease, g1.game, &record1)).await.unwrap();
    let compared = store.comparisons().await.unwrap();
    assert!(compared.iter().all(|(_, c)| c.deal == deal.deal));
    assert_eq!(store.published_seed(deal.deal).await.unwrap(), Some(deal.seed));
    assert_eq!(store.lease(lease.lease).await.unwrap().unwrap().state, LeaseState::Done);
    hub.result(&a, &post(&lease, g1.game, &record1)).await.unwrap();
    assert_eq!(store.comparisons().await.unwrap(), compared, "no deal is scored twice");
    let heartbeat = hub.heartbeat(&a, lease.lease).await.unwrap_err();
    assert_eq!(heartbeat.status, 409, "a done lease is not extended");
    let m = hub.metrics().scrape(0, 0.0);
    assert_eq!(m.worker_games, 2);
    assert_eq!(m.errors.get("record_rejected"), Some(&2));
    assert_eq!(m.errors.get("result_refused"), Some(&2));
    store.close().await;
}

/// A worker killed while its result is on the wire: the web server drops the request's future
/// mid-way. The result is counted all the same, and its lease and deal are closed with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_whose_poster_hangs_up_is_still_counted_whole() {
    let dir = Scratch::new("hang-up");
    let (store, house, a, _) = setup(&dir).await;
    let hub = hub(&store, &dir, &house, 60_000);
    hub.fill(0, &crate::pairing::Params::default()).await.unwrap();
    let lease = hub.lease(&a, &request(2)).await.unwrap().expect("a lease");
    let deal = &lease.deals[0];
    let first = play(deal, &deal.games[0]).await;
    hub.result(&a, &post(&lease, deal.games[0].game, &first)).await.unwrap();
    let last = deal.games[1].game;
    let record = play(deal, &deal.games[1]).await;
    {
        // The gate held, the post can only wait; then its caller stops waiting.
        let gate = hub.0.gate.lock().await;
        let sent = post(&lease, last, &record);
        let posting = hub.result(&a, &sent);
        let gone = tokio::time::timeout(std::time::Duration::from_millis(50), posting).await;
        assert!(gone.is_err(), "the post waited at the gate");
        drop(gate);
    }
    let counted = || async { store.lease(lease.lease).await.unwrap().unwrap().state };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while counted().await != LeaseState::Done {
        assert!(tokio::time::Instant::now() < deadline, "the lease was never closed");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(store.game(last).await.unwrap().unwrap().status, GameStatus::Done);
    assert_eq!(store.published_seed(deal.deal).await.unwrap(), Some(deal.seed), "deal scored");
    let again = hub.result(&a, &post(&lease, last, &record)).await.unwrap();
    assert_eq!(again.status, ResultStatus::AlreadyCounted);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_lease_is_void_refused_late_and_dealt_again() {
    let dir = Scratch::new("expiry");
    let (store, house, a, _) = setup(&dir).await;
    let hub = hub(&store, &dir, &house, 1_000);
    hub.fill(0, &crate::pairing::Params::default()).await.unwrap();
    let lease = hub.lease(&a, &request(4)).await.unwrap().expect("a lease");
    assert!(hub.expire_stale().await.unwrap().is_empty(), "a fresh lease lives");
    assert_eq!(lease.deals.len(), 2, "four slots take two deals of two tables");
    let (whole, cut) = (&lease.deals[0], &lease.deals[1]);
    for (deal, g) in [(whole, &whole.games[0]), (whole, &whole.games[1]), (cut, &cut.games[0])] {
        let record = play(deal, g).await;
        hub.result(&a, &post(&lease, g.game, &record)).await.unwrap();
    }
    // Past the lease's ttl with no heartbeat.
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    assert_eq!(hub.expire_stale().await.unwrap(), vec![lease.lease]);
    assert_eq!(store.lease(lease.lease).await.unwrap().unwrap().state, LeaseState::Expired);
    let games = store.deal_games(cut.deal).await.unwrap();
    assert_eq!(games[0].status, GameStatus::Done, "a game that finished stays done");
    assert_eq!(games[1].status, GameStatus::Void);
    let compared = store.comparisons().await.unwrap();
    assert!(compared.iter().all(|(_, c)| c.deal == whole.deal), "one table compares nothing");
    assert_eq!(compared.len(), 2, "the whole deal is compared, once");
    assert!(store.published_seed(cut.deal).await.unwrap().is_some(), "the cut deal is scored");

    // Late: the heartbeat and the unfinished game's result are refused.
    assert_eq!(hub.heartbeat(&a, lease.lease).await.unwrap_err().status, 409);
    let late = play(cut, &cut.games[1]).await;
    let refused = hub.result(&a, &post(&lease, cut.games[1].game, &late)).await.unwrap_err();
    assert_eq!(refused.status, 409, "{refused:?}");
    assert_eq!(store.deal_games(cut.deal).await.unwrap()[1].status, GameStatus::Void);

    // The cut deal's foursomes, and only its, are dealt again with a fresh seed.
    let queued: Vec<QueuedDeal> = store.queued_deals(100).await.unwrap();
    assert_eq!(queued.len(), 2, "the deal never leased, and the one dealt again");
    let again = queued.last().unwrap();
    let seats = |gs: &[crate::store::GameRow]| -> Vec<_> {
        gs.iter().map(|g| (g.seats, g.orientation)).collect()
    };
    assert_eq!(seats(&again.games), seats(&games));
    assert_ne!(again.seed, cut.seed);
    assert_eq!(hub.metrics().scrape(0, 0.0).leases_expired, 1);
    assert!(hub.expire_stale().await.unwrap().is_empty(), "a lease expires once");
    store.close().await;
}

fn queued(deal: i64, tables: usize, seats: [BotId; 4]) -> QueuedDeal {
    let game = |t: usize| crate::store::GameRow {
        id: deal * 10 + t as i64,
        deal,
        table_no: t as u32,
        seats,
        orientation: 0,
        status: GameStatus::Queued,
        record_path: None,
        started_at: None,
        ended_at: None,
        points: None,
        fault_seats: 0,
        void_reason: None,
    };
    QueuedDeal { deal, seed: deal as u64, games: (0..tables).map(game).collect() }
}

#[test]
fn a_lease_takes_whole_runnable_deals_oldest_first_within_its_slots() {
    let house = [1, 2, 3, 4];
    let hosted = [1, 2, 3, 9];
    let q = [queued(1, 2, hosted), queued(2, 2, house), queued(3, 3, house), queued(4, 2, house)];
    let runnable = |id: BotId| id != 9;
    assert_eq!(
        pick_deals(&q, runnable, 1),
        vec![2],
        "a deal is never split: one slot takes two tables"
    );
    assert_eq!(pick_deals(&q, runnable, 4), vec![2], "the next deal's three tables do not fit");
    assert_eq!(pick_deals(&q, runnable, 5), vec![2, 3]);
    assert_eq!(pick_deals(&q, runnable, 100), vec![2, 3, 4]);
    assert_eq!(
        pick_deals(&q, |_| true, 2),
        vec![1],
        "with its program, the hosted deal comes first"
    );
    assert!(pick_deals(&q, |id| id > 4, 8).is_empty());
}

/// A hosted entrant is the workers' to play: the server's door admits no connection with its
/// token, while the same bot before it was hosted, and any other, is admitted.
#[tokio::test]
async fn the_door_refuses_a_hosted_entrants_token() {
    let dir = Scratch::new("hosted-door");
    let (store, _, _, _) = setup(&dir).await;
    let new = |name: &str| NewBot {
        author: "someone".into(),
        name: name.into(),
        version: "1".into(),
        house: false,
        tables_at_once: 1,
        games_per_day: 100,
    };
    let (hosted, hosted_token) = store.add_bot(&new("hosted"), 0).await.unwrap();
    let (_, other_token) = store.add_bot(&new("connected"), 0).await.unwrap();
    let index = crate::serve::seats::Index::default();
    index.reload(&store).await.unwrap();
    assert!(index.admit(hosted_token.as_str()).is_some(), "not hosted yet");
    store.set_hosted(hosted.id).await.unwrap();
    index.reload(&store).await.unwrap();
    assert_eq!(index.admit(hosted_token.as_str()), None);
    assert!(index.admit(other_token.as_str()).is_some());
    store.close().await;
}

/// A lease request on an empty queue waits for deals: answered as soon as the server queues
/// one, and with nothing once its wait is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_request_waits_for_work_to_be_queued() {
    let dir = Scratch::new("long-poll");
    let (store, house, a, _) = setup(&dir).await;
    let hub = hub(&store, &dir, &house, 60_000);
    let started = std::time::Instant::now();
    let none = hub.lease_waiting(&a, &request(2), std::time::Duration::from_millis(300)).await;
    assert!(none.unwrap().is_none(), "nothing queued: nothing leased");
    assert!(started.elapsed() >= std::time::Duration::from_millis(300), "it waited");
    let filler = {
        let hub = hub.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            hub.fill(0, &crate::pairing::Params::default()).await.unwrap()
        })
    };
    let waited = hub.lease_waiting(&a, &request(2), std::time::Duration::from_secs(60)).await;
    let lease = waited.unwrap().expect("the deal queued meanwhile");
    assert_eq!(lease.deals.len(), 1);
    assert!(filler.await.unwrap() > 0);
    store.close().await;
}

/// A stranger's share of the work API: `/metrics` at a page's rate, and wrong tokens answered
/// at once only for the first few, then after a growing wait of five seconds at most; another
/// address is not slowed by it.
#[tokio::test]
async fn strangers_are_held_to_their_share() {
    let dir = Scratch::new("limits");
    let (store, house, _, _) = setup(&dir).await;
    let hub = hub(&store, &dir, &house, 60_000);
    let (a, b): (std::net::IpAddr, std::net::IpAddr) =
        ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
    let burst = crate::web::limit::Rate::default().burst as usize;
    assert!((0..burst).all(|_| hub.metrics_allowed(a).is_ok()));
    assert!(hub.metrics_allowed(a).is_err(), "past the burst");
    assert!(hub.metrics_allowed(b).is_ok(), "another address has its own");
    let first: Vec<_> = (0..10).map(|_| hub.wrong_token_delay(a)).collect();
    assert!(first.iter().all(|d| d.is_zero()), "the first few are answered at once");
    let later = hub.wrong_token_delay(a);
    assert!(!later.is_zero() && later <= std::time::Duration::from_secs(5), "{later:?}");
    assert!(hub.wrong_token_delay(b).is_zero());
    store.close().await;
}

/// A lease asked of `web` with a wrong token, with the header line `extra`: the status.
async fn wrong_token_status(web: std::net::SocketAddr, extra: &str) -> u16 {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut conn = tokio::net::TcpStream::connect(web).await.unwrap();
    let head = format!(
        "POST /api/work/lease HTTP/1.1\r\nHost: {web}\r\nAuthorization: Bearer 0123456789abcdef\r\n\
         Content-Type: application/json\r\nContent-Length: 2\r\n{extra}Connection: close\r\n\r\n{{}}"
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    conn.read_to_end(&mut answer).await.unwrap();
    let text = String::from_utf8_lossy(&answer);
    text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{text}"))
}

/// Behind a trusted proxy the work API counts the wrong tokens of each client the proxy names,
/// as the pages count requests, and leaves the proxy's own share alone; a server that trusts
/// no proxy counts the peer, whatever the header says. (Only wrong tokens: they regain one in
/// five seconds, so the shares are read right after without a race.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_client_has_its_own_share() {
    let dir = Scratch::new("proxied");
    let (store, house, _, _) = setup(&dir).await;
    let (proxy, client) = ("127.0.0.1".parse().unwrap(), "203.0.113.5".parse().unwrap());
    let burst = WRONG_TOKENS.burst as usize;
    for trusted in [vec![proxy], Vec::new()] {
        let hub = hub(&store, &dir, &house, 60_000);
        let options = crate::web::Options {
            trusted_proxies: trusted.clone(),
            ..crate::web::Options::default()
        };
        let routes = Some(routes(hub.clone(), &trusted));
        let live = crate::serve::live::Live::default();
        let web = crate::web::start_with("127.0.0.1:0", &options, store.clone(), live, routes)
            .await
            .unwrap();
        let from = "X-Forwarded-For: 198.51.100.7, 203.0.113.5\r\n";
        for _ in 0..burst {
            assert_eq!(wrong_token_status(web.addr(), from).await, 401);
        }
        let (spent, spared) = if trusted.is_empty() { (proxy, client) } else { (client, proxy) };
        assert!(!hub.wrong_token_delay(spent).is_zero(), "{spent}'s share is spent");
        assert!(hub.wrong_token_delay(spared).is_zero(), "{spared}'s share is whole");
    }
    store.close().await;
}
