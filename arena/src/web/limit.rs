//! The per-address rate limit on pages and the API: a token bucket per client address, so a
//! reader who clicks about is never refused while a script that hammers the server is told to
//! wait (429 with `Retry-After`). Pure: the caller passes the time.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// How many requests an address may make.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Requests it may make at once, from rest.
    pub burst: f64,
    /// Requests per second it regains, up to `burst`.
    pub per_second: f64,
}

impl Default for Rate {
    fn default() -> Rate {
        // A page and the few requests of its assets, or a script polling every second, fit
        // well inside this.
        Rate { burst: 60.0, per_second: 10.0 }
    }
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Addresses tracked at most: past this, buckets that have refilled are forgotten (a full
/// bucket is the same as none).
const MAX_ADDRESSES: usize = 10_000;

/// Every address's bucket.
#[derive(Debug)]
pub struct Buckets {
    rate: Rate,
    buckets: HashMap<IpAddr, Bucket>,
}

impl Buckets {
    /// No address has asked anything yet.
    pub fn new(rate: Rate) -> Buckets {
        Buckets { rate, buckets: HashMap::new() }
    }

    /// One request from `addr` at `now`: allowed, or refused with the time until the next
    /// one would be (whole seconds, at least 1, as `Retry-After` says it).
    pub fn take(&mut self, addr: IpAddr, now: Instant) -> Result<(), u64> {
        if self.buckets.len() >= MAX_ADDRESSES && !self.buckets.contains_key(&addr) {
            let rate = self.rate;
            self.buckets.retain(|_, b| refilled(b, rate, now) < rate.burst);
        }
        let rate = self.rate;
        let b = self.buckets.entry(addr).or_insert(Bucket { tokens: rate.burst, at: now });
        b.tokens = refilled(b, rate, now);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return Ok(());
        }
        let wait = if rate.per_second > 0.0 {
            Duration::from_secs_f64(((1.0 - b.tokens) / rate.per_second).min(86_400.0))
        } else {
            Duration::from_secs(86_400)
        };
        Err(wait.as_secs_f64().ceil().max(1.0) as u64)
    }
}

fn refilled(b: &Bucket, rate: Rate, now: Instant) -> f64 {
    let gained = now.saturating_duration_since(b.at).as_secs_f64() * rate.per_second;
    (b.tokens + gained).min(rate.burst)
}

/// The address a request is counted against: its peer's, or, when the peer is a proxy the
/// server was told to trust, the client that proxy names: the rightmost address of
/// `X-Forwarded-For` that is not itself a trusted proxy (the ones left of it were written by
/// the client and prove nothing). A header a trusted proxy garbled counts against the proxy.
pub fn client(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let Some(list) = forwarded_for else { return peer };
    for hop in list.rsplit(',') {
        match hop.trim().parse::<IpAddr>() {
            Ok(ip) if trusted.contains(&ip) => continue,
            Ok(ip) => return ip,
            Err(_) => return peer,
        }
    }
    peer
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let proxy: IpAddr = "10.0.0.9".parse().unwrap();
        let inner: IpAddr = "10.0.0.8".parse().unwrap();
        let client_ip: IpAddr = "203.0.113.5".parse().unwrap();
        let trusted = [proxy, inner];
        // Anyone else's header is ignored: it would let a script pick its own bucket.
        assert_eq!(client(client_ip, Some("198.51.100.1"), &trusted), client_ip);
        assert_eq!(client(proxy, None, &trusted), proxy);
        assert_eq!(client(proxy, Some("203.0.113.5"), &trusted), client_ip);
        // What the client wrote itself is left of what the proxies added.
        assert_eq!(client(proxy, Some("1.2.3.4, 203.0.113.5, 10.0.0.8"), &trusted), client_ip);
        assert_eq!(client(proxy, Some("10.0.0.8"), &trusted), proxy);
        assert_eq!(client(proxy, Some("1.2.3.4, garbage"), &trusted), proxy);
        assert_eq!(
            client(proxy, Some("2001:db8::1"), &trusted),
            "2001:db8::1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client(proxy, Some("1.2.3.4"), &[]), proxy);
    }

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn a_burst_then_a_wait_then_the_refill() {
        let mut b = Buckets::new(Rate { burst: 3.0, per_second: 0.5 });
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(b.take(A, t0), Ok(()));
        }
        // Empty: one token comes back in two seconds.
        assert_eq!(b.take(A, t0), Err(2));
        // Another address has its own bucket.
        assert_eq!(b.take(B, t0), Ok(()));
        assert_eq!(b.take(A, t0 + Duration::from_millis(1_500)), Err(1));
        assert_eq!(b.take(A, t0 + Duration::from_secs(2)), Ok(()));
        assert_eq!(b.take(A, t0 + Duration::from_secs(2)), Err(2));
        // A long rest refills to the burst, no more.
        let later = t0 + Duration::from_secs(1_000);
        for _ in 0..3 {
            assert_eq!(b.take(A, later), Ok(()));
        }
        assert!(b.take(A, later).is_err());
    }

    #[test]
    fn a_rate_of_nothing_waits_a_day() {
        let mut b = Buckets::new(Rate { burst: 1.0, per_second: 0.0 });
        let t0 = Instant::now();
        assert_eq!(b.take(A, t0), Ok(()));
        assert_eq!(b.take(A, t0 + Duration::from_secs(5)), Err(86_400));
    }

    #[test]
    fn full_buckets_are_forgotten_when_too_many_are_kept() {
        let mut b = Buckets::new(Rate { burst: 2.0, per_second: 1.0 });
        let t0 = Instant::now();
        for i in 0..MAX_ADDRESSES as u32 {
            assert!(b.take(IpAddr::V4(Ipv4Addr::from(i)), t0).is_ok());
        }
        assert_eq!(b.buckets.len(), MAX_ADDRESSES);
        // After a second every bucket is full again, so a newcomer's arrival clears them.
        assert!(b.take(A, t0 + Duration::from_secs(1)).is_ok());
        assert_eq!(b.buckets.len(), 1);
    }
}
