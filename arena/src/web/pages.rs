//! The pages: each handler gathers its data (`data.rs`, the API's own values) and renders it
//! here; every string a bot chose goes through [`esc`].

use super::data::{self, BestWorst, BotRef, GameView, Leaderboard, LiveView};
use super::html::{Point, esc, history_svg, num, page, time};
use super::{App, VIEWER_CSP, failed, html_response, refuse};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use std::fmt::Write as _;
use std::sync::Arc;

/// A bot's name, version and author, linking to its page.
fn bot_link(b: &BotRef) -> String {
    let house = if b.house { " <span class=\"badge house\">house</span>" } else { "" };
    format!(
        "<a href=\"/bots/{}\">{} <span class=\"version\">{}</span></a> \
         <span class=\"author\">by {}</span>{house}",
        b.id,
        esc(&b.name),
        esc(&b.version),
        esc(&b.author)
    )
}

fn provisional(p: bool) -> &'static str {
    if p {
        " <span class=\"badge provisional\" data-testid=\"provisional\">provisional</span>"
    } else {
        ""
    }
}

/// The leaderboard: the official board, then the live one.
pub(super) fn render_leaderboard(b: &Leaderboard) -> String {
    let mut s =
        String::from("<h1>Leaderboard</h1>\n<section class=\"board\">\n<h2>Official board</h2>\n");
    let _ = writeln!(
        s,
        "<p class=\"note\">Bradley-Terry fit of every duplicate comparison, with its 95% interval; \
         {} comparisons, refitted {}.</p>",
        b.official.upto_comparison,
        time(b.official.taken_at)
    );
    if b.official.rows.is_empty() {
        s.push_str("<p data-testid=\"official-empty\">No deal has been scored yet.</p>\n");
    } else {
        s.push_str(
            "<table data-testid=\"official\"><thead><tr><th>#</th><th>Bot</th><th>Rating</th>\
             <th>95% interval</th><th>Games</th><th>Fault rate</th><th>Last seen</th></tr></thead><tbody>\n",
        );
        for r in &b.official.rows {
            let paused = if r.paused { " <span class=\"badge paused\">paused</span>" } else { "" };
            let _ = writeln!(
                s,
                "<tr data-testid=\"official-row\" data-bot=\"{}\"><td>{}</td><td>{}{}{paused}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{} … {}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}%</td><td>{}</td></tr>",
                r.bot.id,
                r.rank,
                bot_link(&r.bot),
                provisional(r.provisional),
                num(r.rating, 2),
                num(r.low, 2),
                num(r.high, 2),
                r.games,
                num(100.0 * r.fault_rate, 1),
                time(r.last_seen)
            );
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n<section class=\"board\">\n<h2>Live board</h2>\n");
    s.push_str(
        "<p class=\"note\">Weng-Lin (OpenSkill) ratings after every comparison, ordered by \
         mu − 3σ; matchmaking uses them.</p>\n",
    );
    if b.live.rows.is_empty() {
        s.push_str("<p data-testid=\"live-empty\">No deal has been scored yet.</p>\n");
    } else {
        s.push_str(
            "<table data-testid=\"live-board\"><thead><tr><th>#</th><th>Bot</th><th>μ</th><th>σ</th>\
             <th>μ − 3σ</th><th>Comparisons</th></tr></thead><tbody>\n",
        );
        for r in &b.live.rows {
            let _ = writeln!(
                s,
                "<tr data-testid=\"live-row\"><td>{}</td><td>{}{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                r.rank,
                bot_link(&r.bot),
                provisional(r.provisional),
                num(r.mu, 2),
                num(r.sigma, 2),
                num(r.conservative, 2),
                r.comparisons
            );
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n");
    s
}

fn points(g: &GameView) -> String {
    g.points.map_or_else(|| "–".into(), |[a, b]| format!("{a} : {b}"))
}

fn games_table(games: &[GameView], testid: &str) -> String {
    if games.is_empty() {
        return format!("<p data-testid=\"{testid}-empty\">No games yet.</p>\n");
    }
    let mut s = format!(
        "<table data-testid=\"{testid}\"><thead><tr><th>Game</th><th>Deal</th><th>Seats 0 and 2</th>\
         <th>Seats 1 and 3</th><th>Status</th><th>Points</th><th>Ended</th><th>Record</th></tr></thead><tbody>\n"
    );
    for g in games {
        let seat = |i: usize| {
            let fault = if g.faulted[i] { " <span class=\"badge fault\">fault</span>" } else { "" };
            format!("{}{fault}", bot_link(&g.seats[i]))
        };
        let record = if g.viewable {
            format!("<a data-testid=\"view\" href=\"/games/{}/view\">watch</a>", g.id)
        } else if g.status == "done" {
            "after the deal's last table".into()
        } else {
            "–".into()
        };
        let _ = writeln!(
            s,
            "<tr data-testid=\"game-row\"><td><a href=\"/games/{id}\">{id}</a></td><td>{}</td>\
             <td>{}<br>{}</td><td>{}<br>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{record}</td></tr>",
            g.deal,
            seat(0),
            seat(2),
            seat(1),
            seat(3),
            g.status,
            points(g),
            time(g.ended_at),
            id = g.id,
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

fn best_worst(title: &str, bw: &BestWorst, testid: &str) -> String {
    let list = |items: &[data::Standing]| {
        if items.is_empty() {
            return "<li>none yet</li>".to_string();
        }
        items
            .iter()
            .map(|st| {
                format!(
                    "<li>{} — {}% of {} comparisons</li>",
                    bot_link(&st.bot),
                    num(100.0 * st.score, 0),
                    st.comparisons
                )
            })
            .collect()
    };
    format!(
        "<section data-testid=\"{testid}\"><h2>{title}</h2><div class=\"pair\"><div><h3>Best</h3><ul>{}</ul></div>\
         <div><h3>Worst</h3><ul>{}</ul></div></div></section>\n",
        list(&bw.best),
        list(&bw.worst)
    )
}

/// A bot's page.
pub(super) fn render_bot(b: &data::BotPage, history: &data::History) -> String {
    let mut s = format!(
        "<h1 data-testid=\"bot-name\">{} <span class=\"version\">{}</span></h1>\n\
         <p>by <span data-testid=\"bot-author\">{}</span>{}; entered {}{}.</p>\n",
        esc(&b.bot.name),
        esc(&b.bot.version),
        esc(&b.bot.author),
        if b.bot.house { " (a house bot)" } else { "" },
        time(Some(b.created_at)),
        match b.admitted_at {
            Some(t) => format!(", on the ladder since {}", time(Some(t))),
            None => ", still playing its qualifying games".into(),
        }
    );
    if let Some(reason) = &b.paused_reason {
        let _ =
            writeln!(s, "<p class=\"paused\" data-testid=\"paused\">Paused: {}</p>", esc(reason));
    }
    let rating = |r: &Option<data::Rated>, what: &str, testid: &str| match r {
        Some(r) => format!(
            "<li data-testid=\"{testid}\">{what}: {} ({} … {}){} over {} comparisons</li>",
            num(r.value, 2),
            num(r.low, 2),
            num(r.high, 2),
            provisional(r.provisional),
            r.comparisons
        ),
        None => format!("<li data-testid=\"{testid}\">{what}: not rated yet</li>"),
    };
    let _ = writeln!(
        s,
        "<ul class=\"facts\">{}{}<li>games: <span data-testid=\"games\">{}</span>, {} with a fault \
         ({}%)</li><li>last seen: {}</li><li>quotas: {} tables at once, {} games a day</li></ul>",
        rating(&b.official, "official rating", "official-rating"),
        rating(&b.live, "live rating (μ, μ − 3σ … μ + 3σ)", "live-rating"),
        b.games,
        b.faulted_games,
        num(100.0 * b.fault_rate, 1),
        time(b.last_seen),
        b.tables_at_once,
        b.games_per_day
    );
    let pts: Vec<Point> = history
        .official
        .iter()
        .map(|p| Point { value: p.rating.value, low: p.rating.low, high: p.rating.high })
        .collect();
    let _ = writeln!(
        s,
        "<section><h2>Official rating history</h2><p class=\"note\">{}, oldest at the left; \
         the band is the 95% interval.</p>{}</section>",
        if pts.len() as u64 == history.official_snapshots {
            format!("{} snapshots", pts.len())
        } else {
            format!("{} of {} snapshots, evenly spaced", pts.len(), history.official_snapshots)
        },
        history_svg(&pts)
    );
    s.push_str(&best_worst("Partners", &b.partners, "partners"));
    s.push_str(&best_worst("Opponents", &b.opponents, "opponents"));
    s.push_str("<section><h2>Recent games</h2>\n");
    s.push_str(&games_table(&b.recent_games, "recent-games"));
    s.push_str("</section>\n");
    s
}

fn live_rows(tables: &[LiveView]) -> String {
    if tables.is_empty() {
        return "<p data-testid=\"live-none\">No table is in play right now.</p>\n".into();
    }
    let mut s = String::from(
        "<table data-testid=\"live-tables\"><thead><tr><th>Game</th><th>Deal</th><th>Seats 0 and 2</th>\
         <th>Seats 1 and 3</th><th>Tricks</th><th>Score</th><th>Started</th></tr></thead><tbody>\n",
    );
    for t in tables {
        let _ = writeln!(
            s,
            "<tr data-testid=\"live-table\"><td><a href=\"/live/{g}\">{g}</a></td><td>{} (table {})</td>\
             <td>{}<br>{}</td><td>{}<br>{}</td><td class=\"num\">{}</td><td class=\"num\">{} : {}</td><td>{}</td></tr>",
            t.deal,
            t.table_no,
            bot_link(&t.seats[0]),
            bot_link(&t.seats[2]),
            bot_link(&t.seats[1]),
            bot_link(&t.seats[3]),
            t.tricks,
            t.score[0],
            t.score[1],
            time(Some(t.started_at)),
            g = t.game,
        );
    }
    s.push_str("</tbody></table>\n");
    s
}

/// One table in play: its page polls `/api/live/{game}` (assets/live.js) for the numbers.
pub(super) fn render_live_table(t: &LiveView) -> String {
    format!(
        "<h1>Game {g}, in play</h1>\n<div id=\"table\" data-game=\"{g}\">\n\
         <p class=\"note\">Deal {} at table {}. Only the progress is shown while the deal's other \
         tables play the same cards; the whole game can be watched once they have all ended.</p>\n\
         <ul class=\"facts\"><li>Seats 0 and 2: {} and {}</li><li>Seats 1 and 3: {} and {}</li>\n\
         <li>Tricks played: <span data-testid=\"tricks\" id=\"tricks\">{}</span></li>\n\
         <li>Score: <span data-testid=\"score\" id=\"score\">{} : {}</span></li>\n\
         <li>Faults: <span data-testid=\"faults\" id=\"faults\">{}</span></li></ul>\n\
         <p data-testid=\"status\" id=\"status\">in play</p>\n</div>\n",
        t.deal,
        t.table_no,
        bot_link(&t.seats[0]),
        bot_link(&t.seats[2]),
        bot_link(&t.seats[1]),
        bot_link(&t.seats[3]),
        t.tricks,
        t.score[0],
        t.score[1],
        t.faults,
        g = t.game,
    )
}

pub(super) async fn leaderboard(State(app): State<Arc<App>>) -> Response {
    match data::leaderboard(&app.store, crate::serve::now()).await {
        Ok(b) => html_response(page("Leaderboard", &render_leaderboard(&b), None)),
        Err(e) => failed(&e),
    }
}

pub(super) async fn bot(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    let got = async {
        let Some(b) = data::bot_page(&app.store, id, crate::serve::now()).await? else {
            return Ok(None);
        };
        let h = data::history(&app.store, id, data::HISTORY_POINTS).await?;
        Ok(h.map(|h| (b, h)))
    };
    match got.await {
        Ok(Some((b, h))) => {
            let title = format!("{} {}", b.bot.name, b.bot.version);
            html_response(page(&title, &render_bot(&b, &h), None))
        }
        Ok(None) => refuse(StatusCode::NOT_FOUND, "no such bot"),
        Err(e) => failed(&e),
    }
}

pub(super) async fn games(
    State(app): State<Arc<App>>,
    Query(limit): Query<super::Limit>,
) -> Response {
    match data::games(&app.store, limit.get()).await {
        Ok(g) => {
            let body = format!(
                "<h1>Games</h1>\n<p class=\"note\">The newest first. A game's record can be watched \
                 once its deal's last table has ended.</p>\n{}",
                games_table(&g.games, "games")
            );
            html_response(page("Games", &body, None))
        }
        Err(e) => failed(&e),
    }
}

pub(super) async fn game(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    match data::game(&app.store, id).await {
        Ok(Some((g, _))) => {
            let seed = g.seed.as_deref().map_or_else(
                || "not published yet (a table of its deal is still in play)".to_string(),
                |s| format!("<span data-testid=\"seed\">{s}</span>"),
            );
            let void = g.game.void_reason.as_deref().map_or_else(String::new, |r| {
                format!("<p data-testid=\"void\">Void: {}</p>\n", esc(r))
            });
            let body = format!(
                "<h1>Game {}</h1>\n{void}<p>Deal {}, seed {seed}.</p>\n{}",
                g.game.id,
                g.game.deal,
                games_table(std::slice::from_ref(&g.game), "game")
            );
            html_response(page(&format!("Game {id}"), &body, None))
        }
        Ok(None) => refuse(StatusCode::NOT_FOUND, "no such game"),
        Err(e) => failed(&e),
    }
}

/// The referee's own viewer of a game, once its deal is published: before that the same cards
/// are still in play at the deal's other tables.
pub(super) async fn viewer(State(app): State<Arc<App>>, Path(id): Path<i64>) -> Response {
    let (g, path) = match data::game(&app.store, id).await {
        Ok(Some(found)) => found,
        Ok(None) => return refuse(StatusCode::NOT_FOUND, "no such game"),
        Err(e) => return failed(&e),
    };
    match g.game.status {
        "void" => return refuse(StatusCode::NOT_FOUND, "this game was void: it is not shown"),
        "done" => {}
        _ => {
            return refuse(
                StatusCode::CONFLICT,
                "this game is still in play: it can be watched once its deal's last table ends",
            );
        }
    }
    if !g.game.published {
        return refuse(
            StatusCode::CONFLICT,
            "this game is over but its deal is still in play at another table: it can be watched \
             once that table ends",
        );
    }
    let Some(path) = path else {
        return refuse(StatusCode::NOT_FOUND, "this game has no record");
    };
    let local = match app.records.local(&path).await {
        Ok(local) => local,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, &format!("its record: {e}")),
    };
    let made =
        tokio::task::spawn_blocking(move || aluette_referee::viewer_page(local.path())).await;
    match made {
        Ok(Ok(body)) => {
            let mut res = html_response(body);
            res.headers_mut()
                .insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(VIEWER_CSP));
            res
        }
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &format!("its record: {e}")),
        Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &format!("the viewer: {e}")),
    }
}

pub(super) async fn live(State(app): State<Arc<App>>) -> Response {
    match super::live_views(&app).await {
        Ok(l) => {
            let body = format!(
                "<h1>Tables in play</h1>\n<p class=\"note\">Players and progress only: the same \
                 cards are being played at each deal's other tables.</p>\n{}",
                live_rows(&l.tables)
            );
            html_response(page("Live", &body, None))
        }
        Err(e) => failed(&e),
    }
}

pub(super) async fn live_table(State(app): State<Arc<App>>, Path(game): Path<i64>) -> Response {
    match super::live_table(&app, game).await {
        Ok(Some(t)) => html_response(page(
            &format!("Game {game}, live"),
            &render_live_table(&t),
            Some("live.js"),
        )),
        Ok(None) => refuse(
            StatusCode::NOT_FOUND,
            "this table is not in play (it has ended, or never began): see /games",
        ),
        Err(e) => failed(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hostile() -> BotRef {
        BotRef {
            id: 3,
            name: "<script>x</script>".into(),
            version: "\"1\"".into(),
            author: "<b>me</b>".into(),
            house: false,
        }
    }

    #[test]
    fn bot_controlled_strings_are_escaped_on_every_page() {
        let lv = LiveView {
            game: 1,
            deal: 1,
            table_no: 0,
            seats: vec![hostile(), hostile(), hostile(), hostile()],
            started_at: 0,
            tricks: 2,
            score: [0, 0],
            faults: 0,
            lines: 5,
        };
        for body in [render_live_table(&lv), live_rows(std::slice::from_ref(&lv))] {
            assert!(!body.contains("<script>") && !body.contains("<b>me"), "{body}");
            assert!(body.contains("&lt;script&gt;x&lt;/script&gt;"));
        }
        let g = GameView {
            id: 1,
            deal: 1,
            table_no: 0,
            status: "done",
            seats: vec![hostile(), hostile(), hostile(), hostile()],
            started_at: None,
            ended_at: None,
            points: Some([1, 2]),
            faulted: [true, false, false, false],
            void_reason: None,
            published: false,
            viewable: false,
        };
        let t = games_table(&[g], "games");
        assert!(!t.contains("<script>") && t.contains("after the deal's last table"));
        assert!(!t.contains("/view"), "a game whose deal is not published has no viewer link");
    }
}
