//! The admin page: a form that creates an author and a bot and shows its token once, and
//! forms that pause and unpause a bot. Every form carries the admin token (printed once by
//! `arena serve`, or read from `--admin-token-file`), compared by its hash in constant time, so
//! no cookie is kept and a page elsewhere cannot post for the admin without knowing it.

use super::html::{esc, page as frame};
use super::{App, failed, html_response, refuse};
use crate::store::{NewBot, StoreError};
use crate::token::{hash_token, hashes_equal};
use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use std::sync::Arc;

const FORMS: &str = r#"<h1>Admin</h1>
<p class="note">Every form needs the admin token that <code>arena serve</code> printed when it started.</p>
<section><h2>New bot</h2>
<form method="post" action="/admin/bots" data-testid="add-bot">
<label>Admin token <input type="password" name="token" required autocomplete="off"></label>
<label>Author <input name="author" required></label>
<label>Bot name <input name="name" required></label>
<label>Version <input name="version" value="1" required></label>
<label>Tables at once <input name="tables" type="number" min="1" max="1000" value="1" required></label>
<label>Games a day <input name="games_per_day" type="number" min="1" value="2000" required></label>
<button type="submit">Create the bot</button>
</form></section>
<section><h2>Pause a bot</h2>
<form method="post" action="/admin/pause" data-testid="pause">
<label>Admin token <input type="password" name="token" required autocomplete="off"></label>
<label>Bot id <input name="bot" type="number" min="1" required></label>
<label>Reason (the bot is told) <input name="reason" required></label>
<button type="submit">Pause</button>
</form></section>
<section><h2>Let a bot play again</h2>
<form method="post" action="/admin/unpause" data-testid="unpause">
<label>Admin token <input type="password" name="token" required autocomplete="off"></label>
<label>Bot id <input name="bot" type="number" min="1" required></label>
<button type="submit">Unpause</button>
</form></section>
"#;

/// The refusal of a request without the admin token, `None` when it has it.
fn refused(app: &App, presented: &str) -> Option<Response> {
    let Some(expected) = &app.admin_hash else {
        return Some(refuse(
            StatusCode::NOT_FOUND,
            "the admin page is off: no admin token was set",
        ));
    };
    (!hashes_equal(&hash_token(presented), expected))
        .then(|| refuse(StatusCode::FORBIDDEN, "wrong admin token"))
}

fn done(title: &str, body: &str) -> Response {
    html_response(page_of(
        title,
        &format!("{body}<p><a href=\"/admin\">Back to the admin page</a></p>\n"),
    ))
}

fn store_error(e: &StoreError) -> Response {
    match e {
        StoreError::Conflict(why) => refuse(StatusCode::CONFLICT, why),
        StoreError::NotFound(what) => refuse(StatusCode::NOT_FOUND, &format!("not found: {what}")),
        e => failed(e),
    }
}

pub(super) async fn page(State(app): State<Arc<App>>) -> Response {
    match app.admin_hash {
        Some(_) => html_response(page_of("Admin", FORMS)),
        None => refuse(StatusCode::NOT_FOUND, "the admin page is off: no admin token was set"),
    }
}

fn page_of(title: &str, body: &str) -> String {
    frame(title, body, None)
}

#[derive(Debug, Deserialize)]
pub(super) struct AddBot {
    token: String,
    author: String,
    name: String,
    version: String,
    tables: u32,
    games_per_day: u32,
}

pub(super) async fn add_bot(State(app): State<Arc<App>>, Form(f): Form<AddBot>) -> Response {
    if let Some(refused) = refused(&app, &f.token) {
        return refused;
    }
    let new = NewBot {
        author: f.author.trim().to_string(),
        name: f.name.trim().to_string(),
        version: f.version.trim().to_string(),
        house: false,
        tables_at_once: f.tables,
        games_per_day: f.games_per_day,
    };
    match app.store.add_bot(&new, crate::serve::now()).await {
        Ok((bot, token)) => done(
            "Bot created",
            &format!(
                "<h1>Bot created</h1>\n<p>Bot <a href=\"/bots/{id}\" data-testid=\"new-bot\">{id}</a>: \
                     {} version {} by {}.</p>\n<p>Its token, shown this once and stored only as a hash: \
                     <code data-testid=\"token\">{}</code></p>\n<p>The bot connects with it to the \
                     arena's door, as spec/arena.md says.</p>\n",
                esc(&bot.name),
                esc(&bot.version),
                esc(&bot.author),
                esc(token.as_str()),
                id = bot.id,
            ),
        ),
        Err(e) => store_error(&e),
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct Pause {
    token: String,
    bot: i64,
    reason: Option<String>,
}

async fn set_paused(app: &App, f: &Pause, reason: Option<&str>) -> Response {
    if let Some(refused) = refused(app, &f.token) {
        return refused;
    }
    if reason.is_some_and(|r| r.trim().is_empty()) {
        return refuse(StatusCode::BAD_REQUEST, "a pause needs a reason the bot can be told");
    }
    match app.store.set_paused(f.bot, reason.map(str::trim)).await {
        Ok(()) => {
            let what = if reason.is_some() { "paused" } else { "may play again" };
            done("Done", &format!("<h1>Bot {} {what}</h1>\n", f.bot))
        }
        Err(e) => store_error(&e),
    }
}

pub(super) async fn pause(State(app): State<Arc<App>>, Form(f): Form<Pause>) -> Response {
    let reason = f.reason.clone().unwrap_or_default();
    set_paused(&app, &f, Some(&reason)).await
}

pub(super) async fn unpause(State(app): State<Arc<App>>, Form(f): Form<Pause>) -> Response {
    set_paused(&app, &f, None).await
}
