//! The lobby's door: who holds the places of handshakes in progress (by `Origin`, the address
//! a connection comes from), and the growing delay of an address's wrong tokens.

use super::PendingLimits;
pub(crate) use super::origin::Origin;
use super::refusals::RefusalLog;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, oneshot};
use tokio::time::Instant;

/// Wrong tokens an address may give before its refusals are delayed: a typo is not an attack.
const FREE_STRIKES: u32 = 3;
/// The delay before the bye of the first wrong token past the free ones; it doubles with each
/// further one, up to [`MAX_DELAY`].
const FIRST_DELAY: Duration = Duration::from_millis(250);
const MAX_DELAY: Duration = Duration::from_secs(4);
/// An address that gave no wrong token for this long starts again from zero.
pub(super) const FORGET_STRIKES: Duration = Duration::from_secs(60);
/// Addresses whose wrong tokens are remembered at once, so a stranger with many addresses
/// cannot make the referee's memory grow.
pub(super) const MAX_TRACKED: usize = 4096;

/// A place granted by [`Gate::admit`].
#[derive(Debug)]
pub(super) struct Admission {
    pub(super) id: u64,
    pub(super) from: Origin,
    /// Fires when the place must go to a connection from a lighter address.
    pub(super) gave_way: oneshot::Receiver<()>,
    /// The address's handshake turns.
    pub(super) turns: Arc<Semaphore>,
}

/// One address's places, oldest first.
#[derive(Debug)]
struct Places {
    held: Vec<(u64, oneshot::Sender<()>)>,
    /// At most `per_addr` of the address's connections are in their handshake (hello sent,
    /// answer awaited); the others wait here for a turn.
    turns: Arc<Semaphore>,
}

/// An address's recent wrong tokens.
#[derive(Clone, Copy, Debug)]
pub(super) struct Strikes {
    count: u32,
    last: Instant,
}

/// The lobby's door: who holds the places of connections waiting for their handshake, which
/// address gave how many wrong tokens lately, and what the log has not said yet.
///
/// Why this shape: a connection says who it is only in its hello answer, so until then the
/// lobby knows nothing of it but its address. A stranger holding many idle connections must not
/// keep out a bot from another address, so places are shared out by address: no address has
/// more than `per_addr` handshakes going, and when every place is held a newcomer takes the
/// newest place of the heaviest address (most places, then most seated bots) whenever that
/// address would still hold more than the newcomer's with it. An address can therefore fill the
/// lobby only while nobody else wants in; connections from one address are not told apart.
#[derive(Debug)]
pub(crate) struct Gate {
    limits: PendingLimits,
    places: HashMap<Origin, Places>,
    pub(super) held: usize,
    next_id: u64,
    pub(super) strikes: HashMap<Origin, Strikes>,
    pub(super) log: RefusalLog,
}

impl Gate {
    pub(crate) fn new(limits: PendingLimits) -> Gate {
        Gate {
            limits,
            places: HashMap::new(),
            held: 0,
            next_id: 0,
            strikes: HashMap::new(),
            log: RefusalLog::default(),
        }
    }

    /// A place for a new connection from `from`, or None when it is refused. `seated` counts the
    /// bots seated per address; it is asked only when every place is held.
    pub(super) fn admit(
        &mut self,
        from: Origin,
        seated: impl FnOnce() -> HashMap<Origin, usize>,
    ) -> Option<Admission> {
        if self.held >= self.limits.total {
            let mine = self.places.get(&from).map_or(0, |p| p.held.len());
            // The usual case under a flood, decided without counting seats: the newcomer's own
            // address holds the most.
            let most = self.places.values().map(|p| p.held.len()).max()?;
            if most <= mine {
                return None;
            }
            let seated = seated();
            let weight = |o: &Origin, n: usize| (n, seated.get(o).copied().unwrap_or(0));
            let (heaviest, its) = self
                .places
                .iter()
                .map(|(o, p)| (*o, weight(o, p.held.len())))
                .max_by_key(|(_, w)| *w)?;
            if its <= weight(&from, mine + 1) {
                return None;
            }
            let victim = self.places.get_mut(&heaviest)?;
            if let Some((_, give_way)) = victim.held.pop() {
                let _ = give_way.send(());
                self.held -= 1;
            }
            if victim.held.is_empty() {
                self.places.remove(&heaviest);
            }
        }
        let per_addr = self.limits.per_addr;
        let mine = self.places.entry(from).or_insert_with(|| Places {
            held: Vec::new(),
            turns: Arc::new(Semaphore::new(per_addr)),
        });
        let id = self.next_id;
        self.next_id += 1;
        let (give_way, gave_way) = oneshot::channel();
        mine.held.push((id, give_way));
        self.held += 1;
        Some(Admission { id, from, gave_way, turns: mine.turns.clone() })
    }

    /// Frees place `id`; false when it was not held (it was given away).
    pub(super) fn release(&mut self, from: Origin, id: u64) -> bool {
        let Some(places) = self.places.get_mut(&from) else { return false };
        let Some(i) = places.held.iter().position(|(p, _)| *p == id) else { return false };
        places.held.remove(i);
        self.held -= 1;
        if places.held.is_empty() {
            self.places.remove(&from);
        }
        true
    }

    /// Counts a wrong token from `from`; the delay before its `bye`.
    pub(crate) fn strike(&mut self, from: Origin, now: Instant) -> Duration {
        if self.strikes.len() >= MAX_TRACKED && !self.strikes.contains_key(&from) {
            self.strikes.retain(|_, s| now.saturating_duration_since(s.last) < FORGET_STRIKES);
            if self.strikes.len() >= MAX_TRACKED {
                let quietest = self.strikes.iter().min_by_key(|(_, s)| s.last).map(|(o, _)| *o);
                if let Some(o) = quietest {
                    self.strikes.remove(&o);
                }
            }
        }
        let s = self.strikes.entry(from).or_insert(Strikes { count: 0, last: now });
        if now.saturating_duration_since(s.last) >= FORGET_STRIKES {
            s.count = 0;
        }
        s.count = s.count.saturating_add(1);
        s.last = now;
        penalty(s.count)
    }
}

/// The delay before the `bye` of an address's `strikes`-th recent wrong token.
fn penalty(strikes: u32) -> Duration {
    match strikes.checked_sub(FREE_STRIKES + 1) {
        None => Duration::ZERO,
        Some(doublings) => FIRST_DELAY.saturating_mul(1 << doublings.min(16)).min(MAX_DELAY),
    }
}
