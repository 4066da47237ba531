//! Who can be seated: the door's admission (a token's hash looked up in the index of bots, its
//! `/N` suffix naming one of the tables it takes at once) and the pool of connected bots, idle
//! or at a table.

use crate::BotId;
use crate::store::{Store, StoreError};
use crate::token::hash_token;
use aluette_referee::{Connection, Door};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError, RwLock};

/// A token's hash, and the bot it admits with its tables-at-once quota.
type Entries = HashMap<[u8; 32], (BotId, u32)>;

/// Token hash to (bot, tables at once), shared with the door's accept task.
#[derive(Clone, Debug, Default)]
pub struct Index(Arc<RwLock<Entries>>);

impl Index {
    /// Reads the index again from the database (a bot added, paused or unpaused).
    pub async fn reload(&self, store: &Store) -> Result<(), StoreError> {
        let rows = store.token_index().await?;
        let map = rows.into_iter().map(|(hash, id, tables)| (hash, (id, tables))).collect();
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = map;
        Ok(())
    }

    /// Forgets `bot` until the next reload (a bot paused now).
    pub fn forget(&self, bot: BotId) {
        self.0.write().unwrap_or_else(PoisonError::into_inner).retain(|_, (id, _)| *id != bot);
    }

    /// The seat key a hello's token names: `TOKEN` is the bot's first table, `TOKEN/N` its
    /// N-th (N up to its tables-at-once quota). `None`: no such bot, or N out of its range.
    pub fn admit(&self, token: &str) -> Option<String> {
        let (base, slot) = match token.rsplit_once('/') {
            Some((base, n)) => (base, n.parse::<u32>().ok()?),
            None => (token, 1),
        };
        let map = self.0.read().unwrap_or_else(PoisonError::into_inner);
        let &(id, tables) = map.get(&hash_token(base))?;
        (1..=tables).contains(&slot).then(|| format!("{id}/{slot}"))
    }
}

/// The bot a seat key belongs to.
pub fn bot_of(key: &str) -> Option<BotId> {
    key.split_once('/')?.0.parse().ok()
}

/// Connected bots: idle ones by bot, and how many of each sit at tables now.
#[derive(Debug, Default)]
pub struct Pool {
    idle: BTreeMap<BotId, Vec<Connection>>,
    busy: BTreeMap<BotId, u32>,
}

impl Pool {
    /// Takes every bot waiting at the door into the pool; a bot whose connection has closed
    /// meanwhile is dropped.
    pub async fn gather(&mut self, door: &Door) {
        for key in door.waiting() {
            let (Some(bot), Some(conn)) = (bot_of(&key), door.take(&key).await) else { continue };
            self.idle.entry(bot).or_default().push(conn);
        }
        for conns in self.idle.values_mut() {
            let mut alive = Vec::with_capacity(conns.len());
            for mut c in conns.drain(..) {
                if c.is_alive().await {
                    alive.push(c);
                }
            }
            *conns = alive;
        }
        self.idle.retain(|_, c| !c.is_empty());
    }

    /// Tables each connected bot offers: its connections, idle or playing.
    pub fn offered(&self) -> BTreeMap<BotId, u32> {
        let mut offered: BTreeMap<BotId, u32> =
            self.idle.iter().map(|(id, c)| (*id, c.len() as u32)).collect();
        for (id, n) in &self.busy {
            *offered.entry(*id).or_default() += n;
        }
        offered
    }

    /// Idle connections of `bot`.
    pub fn idle(&self, bot: BotId) -> usize {
        self.idle.get(&bot).map_or(0, Vec::len)
    }

    /// An idle connection of `bot`, now counted as playing.
    pub fn take(&mut self, bot: BotId) -> Option<Connection> {
        let conn = self.idle.get_mut(&bot)?.pop()?;
        *self.busy.entry(bot).or_default() += 1;
        Some(conn)
    }

    /// A connection back from its table: idle again if it can still play.
    pub async fn give_back(&mut self, bot: BotId, conn: Option<Connection>) {
        if let Some(n) = self.busy.get_mut(&bot) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.busy.remove(&bot);
            }
        }
        if let Some(mut conn) = conn
            && conn.is_alive().await
        {
            self.idle.entry(bot).or_default().push(conn);
        }
    }

    /// Says `bye` with `reason` to the idle connections of `bot` and drops them.
    pub async fn dismiss(&mut self, bot: BotId, reason: &str) {
        for conn in self.idle.remove(&bot).unwrap_or_default() {
            conn.close(reason).await;
        }
    }

    /// Says `bye` to every idle connection.
    pub async fn close_all(&mut self, reason: &str) {
        let all: Vec<BotId> = self.idle.keys().copied().collect();
        for bot in all {
            self.dismiss(bot, reason).await;
        }
    }
}
