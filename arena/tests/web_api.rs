//! The arena's web pages and JSON API over real HTTP, from the real server (`serve::run`, the
//! house playing with fast clocks): every page answers with the strict policy and shows a
//! hostile bot's name escaped; every API answer is valid against its schema in
//! spec/schema/arena/; the viewer opens only once a deal is published; `/api/me` answers a
//! bot's quotas (429 + Retry-After when the day's games are spent); the admin forms need the
//! token and create, pause and unpause a bot; an address past its rate limit gets 429; a request
//! naming another host (DNS rebinding) gets 421.

mod web_common;

use aluette_arena::serve::live::{Live, LiveTable};
use aluette_arena::store::{GameStatus, Store};
use aluette_arena::web::{Options, limit::Rate};
use serde_json::Value;
use std::net::SocketAddr;
use web_common::*;

fn validator(name: &str) -> jsonschema::Validator {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/schema/arena")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The answer's JSON, checked against `schema`.
fn valid(schema: &str, a: &Answer) -> Value {
    assert_eq!(a.header("content-type"), Some("application/json"), "{schema}");
    let v = a.json();
    let errors: Vec<String> = validator(schema).iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{schema}: {errors:?}\n{v}");
    v
}

const CSP: &str = "default-src 'none'; script-src 'self'";

/// An HTML page with the policy, and nothing of the hostile bot's strings unescaped.
async fn page(web: SocketAddr, path: &str) -> String {
    let a = get(web, path).await;
    assert_eq!(a.status, 200, "{path}: {}", a.body);
    assert_eq!(a.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
    assert!(a.header("content-security-policy").unwrap().starts_with(CSP), "{path}");
    assert_eq!(a.header("x-content-type-options"), Some("nosniff"));
    for raw in [HOSTILE, "<i>mallory", "<b>", "\"v1\""] {
        assert!(!a.body.contains(raw), "{path} shows {raw} unescaped");
    }
    a.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_and_api_answers_as_documented() {
    let dir = Scratch::new("web-api");
    let mut before = prepare(&dir.join("arena.db")).await;
    let arena = start(&dir).await;
    before.play_unpublished(&dir.join("arena.db")).await;
    let web = arena.web;
    let watchable = a_viewable_game(web).await;

    // The pages.
    let board = page(web, "/").await;
    assert!(board.contains("data-testid=\"official-row\"") && board.contains("house-random"));
    let bot_page = page(web, &format!("/bots/{}", before.hostile)).await;
    assert!(bot_page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{bot_page}");
    assert!(bot_page.contains("&quot;v1&quot; &amp; &lt;b&gt;"));
    let games = page(web, "/games").await;
    assert!(games.contains(&format!("href=\"/games/{watchable}/view\"")));
    assert!(!games.contains(&format!("href=\"/games/{}/view\"", before.unpublished_game)));
    page(web, &format!("/games/{watchable}")).await;
    page(web, "/live").await;
    page(web, "/admin").await;
    let leaderboard = valid("leaderboard", &get(web, "/api/leaderboard").await);
    for row in leaderboard["official"]["rows"].as_array().unwrap() {
        let id = row["bot"]["id"].as_i64().unwrap();
        let p = page(web, &format!("/bots/{id}")).await;
        assert!(p.contains("<svg class=\"history\""), "bot {id} has its history drawn");
        valid("bot", &get(web, &format!("/api/bots/{id}")).await);
        let h = valid("history", &get(web, &format!("/api/bots/{id}/history")).await);
        let official = h["official"].as_array().unwrap();
        assert!(!official.is_empty(), "bot {id} is on the board");
        assert_eq!(h["official_snapshots"].as_u64(), Some(official.len() as u64));
        // Asked for two points (and for one, which is two), the first and the newest come
        // (the house plays on meanwhile: the newest may be newer than the one above).
        let comparisons = |p: &Value| p["comparisons"].as_u64().unwrap();
        for asked in ["2", "1"] {
            let path = format!("/api/bots/{id}/history?points={asked}");
            let thin = valid("history", &get(web, &path).await);
            let two = thin["official"].as_array().unwrap();
            let snapshots = thin["official_snapshots"].as_u64().unwrap();
            assert_eq!(two.len() as u64, snapshots.min(2), "?points={asked}");
            assert!(snapshots >= official.len() as u64);
            assert_eq!(two.first(), official.first());
            assert!(comparisons(two.last().unwrap()) >= comparisons(official.last().unwrap()));
        }
    }
    assert!(get(web, "/assets/arena.css").await.body.contains("body"));
    assert_eq!(get(web, "/bots/999999").await.status, 404);
    assert_eq!(get(web, "/no/such/page").await.status, 404);

    // The API.
    let b = valid("bot", &get(web, &format!("/api/bots/{}", before.hostile)).await);
    assert_eq!(b["bot"]["name"], HOSTILE);
    let recent = b["recent_games"].as_array().unwrap();
    assert!(recent.iter().any(|g| g["id"] == before.unpublished_game), "{recent:?}");
    valid("history", &get(web, &format!("/api/bots/{}/history", before.hostile)).await);
    let all = valid("games", &get(web, "/api/games?limit=500").await);
    assert!(all["games"].as_array().unwrap().len() >= 3);
    let g = valid("game", &get(web, &format!("/api/games/{watchable}")).await);
    assert!(g["seed"].is_string() && g["viewable"] == true);
    let u = valid("game", &get(web, &format!("/api/games/{}", before.unpublished_game)).await);
    assert!(u["seed"].is_null() && u["status"] == "done" && u["viewable"] == false);
    valid("live", &get(web, "/api/live").await);
    assert_eq!(get(web, "/api/live/999999").await.status, 404);
    assert_eq!(get(web, "/api/games/999999").await.status, 404);

    // The viewer: the referee's own page once published, refused before, with its policy.
    let v = get(web, &format!("/games/{watchable}/view")).await;
    assert_eq!(v.status, 200, "{}", v.body);
    assert!(v.body.contains("<script type=\"application/json\""), "the referee's viewer");
    assert!(v.header("content-security-policy").unwrap().contains("sandbox allow-scripts"));
    let refused = get(web, &format!("/games/{}/view", before.unpublished_game)).await;
    assert_eq!(refused.status, 409);
    assert!(refused.body.contains("still in play at another table"), "{}", refused.body);
    assert_eq!(get(web, "/games/999999/view").await.status, 404);

    // A bot's own quotas.
    let me =
        get_with(web, "/api/me", &format!("Authorization: Bearer {}", before.hostile_token)).await;
    assert_eq!(me.status, 200, "{}", me.body);
    let me = valid("me", &me);
    assert_eq!((me["games_today"].as_u64(), me["retry_after"].is_null()), (Some(1), true));
    let spent =
        get_with(web, "/api/me", &format!("Authorization: Bearer {}", before.spent_token)).await;
    assert_eq!(spent.status, 429);
    let wait: i64 = spent.header("retry-after").unwrap().parse().unwrap();
    let now = aluette_arena::serve::now();
    // The next UTC midnight, give or take the second the request took.
    let midnight = (now / 86_400 + 1) * 86_400;
    assert!((midnight - now - wait).abs() <= 2 && (1..=86_400).contains(&wait), "{wait}");
    assert_eq!(valid("me", &spent)["retry_after"].as_i64(), Some(wait));
    assert_eq!(get(web, "/api/me").await.status, 401);
    assert_eq!(get_with(web, "/api/me", "Authorization: Bearer nope").await.status, 401);

    // The admin forms.
    let new = [
        ("author", "ada <x>"),
        ("name", "lovelace"),
        ("version", "2"),
        ("tables", "3"),
        ("games_per_day", "40"),
    ];
    let mut wrong = vec![("token", "not-the-token")];
    wrong.extend(new);
    assert_eq!(post_form(web, "/admin/bots", &wrong).await.status, 403);
    let mut right = vec![("token", ADMIN)];
    right.extend(new);
    let made = post_form(web, "/admin/bots", &right).await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(made.body.contains("ada &lt;x&gt;"));
    let token = made.body.split("data-testid=\"token\">").nth(1).unwrap()[..32].to_string();
    assert!(token.bytes().all(|c| c.is_ascii_hexdigit()), "{token}");
    let me =
        valid("me", &get_with(web, "/api/me", &format!("Authorization: Bearer {token}")).await);
    assert_eq!((me["tables_at_once"].as_u64(), me["games_per_day"].as_u64()), (Some(3), Some(40)));
    let id = me["bot"]["id"].as_i64().unwrap().to_string();
    assert_eq!(post_form(web, "/admin/bots", &right).await.status, 409, "a second time");
    let paused =
        post_form(web, "/admin/pause", &[("token", ADMIN), ("bot", &id), ("reason", "<too> slow")])
            .await;
    assert_eq!(paused.status, 200, "{}", paused.body);
    let p = valid("bot", &get(web, &format!("/api/bots/{id}")).await);
    assert_eq!(p["paused_reason"], "<too> slow");
    assert!(page(web, &format!("/bots/{id}")).await.contains("Paused: &lt;too&gt; slow"));
    let wrong_pause = [("token", "x"), ("bot", id.as_str()), ("reason", "r")];
    assert_eq!(post_form(web, "/admin/pause", &wrong_pause).await.status, 403);
    assert_eq!(
        post_form(web, "/admin/unpause", &[("token", ADMIN), ("bot", &id)]).await.status,
        200
    );
    assert!(valid("bot", &get(web, &format!("/api/bots/{id}")).await)["paused_reason"].is_null());

    arena.finish().await;

    // A bot's own comparisons, read for its page, are everyone's that name it.
    let store = Store::open(&dir.join("arena.db")).await.unwrap();
    let all: Vec<_> = store.comparisons().await.unwrap().into_iter().map(|(_, c)| c).collect();
    assert!(!all.is_empty());
    for bot in store.bots().await.unwrap() {
        let own: Vec<_> = all
            .iter()
            .filter(|c| c.team_a.contains(&bot.id) || c.team_b.contains(&bot.id))
            .cloned()
            .collect();
        assert_eq!(store.bot_comparisons(bot.id).await.unwrap(), own, "bot {}", bot.id);
    }
    store.close().await;
}

/// A web server of its own on the arena's database, with a table in play fed by hand and a
/// rate limit of ten requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_tables_show_progress_only_and_the_rate_limit_answers_429() {
    let dir = Scratch::new("web-live");
    let mut before = prepare(&dir.join("arena.db")).await;
    before.play_unpublished(&dir.join("arena.db")).await;
    let store = Store::open(&dir.join("arena.db")).await.unwrap();
    let live = Live::default();
    let lines = [
        r#"{"type":"deal","deal":1,"dealer":0,"hands":[["Ao","2o","3o"]]}"#,
        r#"{"type":"trick","trick":1,"leader":0,"cards":[{"seat":0,"card":"Ko"}],"winner":2}"#,
        r#"{"type":"trick","trick":2,"leader":2,"cards":[{"seat":2,"card":"Cb"}],"winner":2}"#,
    ];
    live.start(LiveTable {
        game: before.unpublished_game,
        deal: 1,
        table_no: 1,
        seats: [before.hostile, before.hostile, before.hostile, before.hostile],
        started_at: 100,
        lines: lines.iter().map(|l| l.to_string()).collect(),
    });
    // Loopback is the proxy in front of this server; the second server trusts nobody.
    let options = Options {
        rate: Rate { burst: 10.0, per_second: 0.0 },
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..Options::default()
    };
    let untrusting = Options { trusted_proxies: Vec::new(), ..options.clone() };
    let w = aluette_arena::web::start("127.0.0.1:0", &options, store.clone(), live.clone())
        .await
        .unwrap();
    let w2 = aluette_arena::web::start("127.0.0.1:0", &untrusting, store, live).await.unwrap();
    let web = w.addr();
    let game = before.unpublished_game;
    let list = valid("live", &get(web, "/api/live").await);
    assert_eq!(list["tables"].as_array().unwrap().len(), 1);
    let one = valid("live_table", &get(web, &format!("/api/live/{game}")).await);
    assert_eq!((one["tricks"].as_u64(), one["lines"].as_u64()), (Some(2), Some(3)));
    let rows = page(web, "/live").await;
    assert!(rows.contains(&format!("href=\"/live/{game}\"")));
    let table = page(web, &format!("/live/{game}")).await;
    assert!(table.contains("<script src=\"/assets/live.js\" defer></script>"));
    assert!(table.contains("data-testid=\"tricks\" id=\"tricks\">2<"));
    // No card of the deal, in any form, while its other tables play it.
    for body in [&rows, &table, &list.to_string(), &one.to_string()] {
        for card in ["Ao", "2o", "3o", "Ko", "Cb", "hands"] {
            assert!(!body.contains(card), "{card} shown");
        }
    }
    // The admin page is off without a token.
    assert_eq!(get(web, "/admin").await.status, 404);
    // Five answers so far; five more, then the bucket is empty and refills at no rate.
    for _ in 0..5 {
        assert_eq!(get(web, "/api/live").await.status, 200);
    }
    let refused = get(web, "/api/live").await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("86400"));
    assert!(refused.header("content-security-policy").is_some());
    // Behind the proxy, each client it names has a bucket of its own; the proxy's is empty.
    let from = |ip: &str| format!("X-Forwarded-For: 198.51.100.7, {ip}");
    assert_eq!(get_with(web, "/api/live", &from("203.0.113.5")).await.status, 200);
    assert_eq!(get_with(web, "/api/live", &from("203.0.113.6")).await.status, 200);
    let only_proxies = "X-Forwarded-For: 127.0.0.1";
    assert_eq!(get_with(web, "/api/live", only_proxies).await.status, 429);
    // A server that trusts no proxy counts the peer, whatever the header says.
    for _ in 0..10 {
        assert_eq!(get_with(w2.addr(), "/api/live", &from("203.0.113.5")).await.status, 200);
    }
    assert_eq!(get_with(w2.addr(), "/api/live", &from("203.0.113.9")).await.status, 429);
}

/// DNS rebinding: a page of another site, resolved to this machine, still names that site in
/// its `Host`; the arena answers only its own names (loopback's, its listen address's, and
/// those given as public), before any page, form or rate limit is reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_another_host_is_refused() {
    let dir = Scratch::new("web-hosts");
    prepare(&dir.join("arena.db")).await;
    let store = Store::open(&dir.join("arena.db")).await.unwrap();
    let options = Options {
        admin_token: Some(ADMIN.into()),
        public_hosts: vec!["Arena.Example.org".into()],
        ..Options::default()
    };
    let w =
        aluette_arena::web::start("127.0.0.1:0", &options, store, Live::default()).await.unwrap();
    let web = w.addr();
    let port = web.port();
    let get_as = |host: String, path: &'static str| async move {
        request_to(web, &host, &format!("GET {path} HTTP/1.1"), "").await
    };
    assert_eq!(get_as(format!("localhost:{port}"), "/").await.status, 200);
    assert_eq!(get_as(format!("127.0.0.1:{port}"), "/api/leaderboard").await.status, 200);
    // A public name comes through a proxy, on the proxy's port.
    assert_eq!(get_as("arena.example.org".into(), "/api/leaderboard").await.status, 200);
    assert_eq!(get_as("arena.example.org:443".into(), "/").await.status, 200);
    for host in
        [format!("evil.example.com:{port}"), format!("localhost:{}", port + 1), String::new()]
    {
        let refused = get_as(host.clone(), "/api/leaderboard").await;
        assert_eq!(refused.status, 421, "Host {host:?}");
        assert!(refused.header("content-security-policy").is_some());
    }
    // The admin form too, whatever it carries.
    let form = format!("token={ADMIN}&author=a&name=b");
    let head = "POST /admin/bots HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded";
    let refused = request_to(web, &format!("evil.example.com:{port}"), head, &form).await;
    assert_eq!(refused.status, 421);
}

/// Records kept in an object store (issue 28), through object_store's own local store (the
/// same code as S3's but for the client): each finished game's record is put whole under the
/// store's prefix, its spool removed, the database holds the object's URL, and the viewer
/// reads it back from the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_kept_in_an_object_store_are_watched_from_it() {
    let dir = Scratch::new("web-objects");
    let bucket = dir.join("bucket");
    std::fs::create_dir_all(&bucket).unwrap();
    let url = format!("file://{}/records", bucket.display());
    let arena = start_keeping(&dir, Some(url.clone())).await;
    let web = arena.web;
    let watchable = a_viewable_game(web).await;
    let view = get(web, &format!("/games/{watchable}/view")).await;
    assert_eq!(view.status, 200, "{}", view.body);
    assert!(view.body.contains("<html"), "the viewer's page");
    arena.finish().await;
    let store = Store::open(&dir.join("arena.db")).await.unwrap();
    let games = store.recent_games(u32::MAX).await.unwrap();
    let done: Vec<_> = games.iter().filter(|g| g.status == GameStatus::Done).collect();
    assert!(!done.is_empty());
    for g in done {
        let at = g.record_path.as_deref().unwrap();
        assert_eq!(at, format!("{url}/game-{}.jsonl", g.id), "game {}", g.id);
        let kept = bucket.join(format!("records/game-{}.jsonl", g.id));
        aluette_referee::check_record(&kept).unwrap();
        assert!(!dir.join(&format!("records/game-{}.jsonl", g.id)).exists(), "spool removed");
    }
    store.close().await;
}
