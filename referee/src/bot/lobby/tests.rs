//! The lobby's gate and refusal log, on made-up addresses and instants.

use super::PendingLimits;
use super::gate::{Admission, FORGET_STRIKES, Gate, MAX_TRACKED, Origin};
use super::refusals::{Refusal, RefusalLog, SUMMARY_EVERY};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;
use tokio::time::Instant;

fn v4(last: u8) -> Origin {
    Origin::V4(Ipv4Addr::new(10, 0, 0, last))
}

fn gate(total: usize, per_addr: usize) -> Gate {
    Gate::new(PendingLimits { total, per_addr })
}

fn nobody_seated() -> HashMap<Origin, usize> {
    HashMap::new()
}

#[test]
fn an_address_holding_every_place_gives_way_to_another() {
    let mut g = gate(4, 2);
    let mut held: Vec<Admission> =
        (0..4).map(|_| g.admit(v4(1), nobody_seated).expect("a place")).collect();
    // The stranger's fifth connection is refused: its own address is the heaviest.
    assert!(g.admit(v4(1), nobody_seated).is_none());
    // A bot from elsewhere takes the newest place of the stranger's.
    let bot = g.admit(v4(2), nobody_seated).expect("the bot gets in");
    assert!(held[3].gave_way.try_recv().is_ok(), "the newest place gave way");
    assert!(held[..3].iter_mut().all(|a| a.gave_way.try_recv().is_err()));
    assert_eq!(g.held, 4);
    // A place given away cannot be freed a second time.
    assert!(!g.release(v4(1), held[3].id));
    assert!(g.release(v4(2), bot.id));
    assert_eq!(g.held, 3);
}

#[test]
fn equal_addresses_do_not_churn_and_seated_bots_break_ties() {
    let mut g = gate(2, 2);
    let a = g.admit(v4(1), nobody_seated).expect("a place");
    let _b = g.admit(v4(2), nobody_seated).expect("a place");
    // One place each: a third address would only move the imbalance around.
    assert!(g.admit(v4(3), nobody_seated).is_none());
    // Unless an address holding one also has a seated bot: it gives way first.
    let seated = || HashMap::from([(v4(1), 1)]);
    let c = g.admit(v4(3), seated).expect("address 1 gives way");
    let mut a = a;
    assert!(a.gave_way.try_recv().is_ok());
    assert_eq!(c.from, v4(3));
}

#[test]
fn wrong_tokens_are_delayed_more_and_more_up_to_a_bound() {
    let mut g = gate(16, 4);
    let t0 = Instant::now();
    let delays: Vec<Duration> = (0..10).map(|_| g.strike(v4(1), t0)).collect();
    let ms: Vec<u128> = delays.iter().map(Duration::as_millis).collect();
    assert_eq!(ms, [0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000]);
    // Another address starts from zero, and a quiet address is forgiven.
    assert_eq!(g.strike(v4(2), t0), Duration::ZERO);
    assert_eq!(g.strike(v4(1), t0 + FORGET_STRIKES), Duration::ZERO);
}

#[test]
fn strikes_are_remembered_for_a_bounded_number_of_addresses() {
    let mut g = gate(16, 4);
    let t0 = Instant::now();
    for i in 0..(MAX_TRACKED as u32 + 100) {
        g.strike(Origin::V4(Ipv4Addr::from(i)), t0);
    }
    assert!(g.strikes.len() <= MAX_TRACKED);
}

#[test]
fn refusals_are_logged_once_a_second_per_cause_with_counts() {
    let mut log = RefusalLog::default();
    let t0 = Instant::now();
    let first = log.note(Refusal::Token, v4(1), t0).expect("the first is said at once");
    assert!(first.contains("10.0.0.1") && first.contains("unknown seat token"), "{first}");
    for i in 0..500 {
        let at = t0 + Duration::from_millis(i);
        assert_eq!(log.note(Refusal::Token, v4((i % 7) as u8), at), None);
    }
    // Another cause has its own line.
    assert!(log.note(Refusal::Busy, v4(9), t0).is_some());
    assert!(log.flush(t0 + Duration::from_millis(999)).is_empty());
    let later = log.flush(t0 + SUMMARY_EVERY);
    assert_eq!(later.len(), 1, "{later:?}");
    assert!(later[0].contains("refused 500 connections"), "{}", later[0]);
    assert!(later[0].contains("and others"), "{}", later[0]);
    assert!(log.flush(t0 + SUMMARY_EVERY * 5).is_empty(), "nothing more to say");
    // What is left when the lobby closes is said then, due or not.
    let t5 = t0 + SUMMARY_EVERY * 5;
    assert!(log.note(Refusal::Busy, v4(9), t5).is_some(), "after a quiet while, at once");
    assert_eq!(log.note(Refusal::Busy, v4(9), t5), None);
    assert_eq!(log.note(Refusal::Busy, v4(9), t5), None);
    let last = log.flush_all();
    assert_eq!(last.len(), 1, "{last:?}");
    assert!(last[0].contains("refused 2 connections"), "{}", last[0]);
}

#[test]
fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
    let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
    let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
    let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
    assert_eq!(Origin::of(a), Origin::of(b));
    assert_ne!(Origin::of(a), Origin::of(c));
    assert_eq!(Origin::of(a).to_string(), "2001:db8:1:2::/64");
    let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
    assert_eq!(Origin::of(mapped), Origin::V4(Ipv4Addr::LOCALHOST));
}
