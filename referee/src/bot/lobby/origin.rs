//! The address a stranger is known by before its handshake: a module of its own below the gate
//! that shares places out by it and the refusal log that counts by it.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Where a connection comes from, as the lobby's limits count it: an IPv4 address, or the /64
/// of an IPv6 address (one host is routinely given a whole /64; counting single IPv6 addresses
/// would give one stranger billions of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Origin {
    V4(Ipv4Addr),
    V6([u16; 4]),
}

impl Origin {
    pub(crate) fn of(ip: IpAddr) -> Origin {
        match ip {
            IpAddr::V4(v4) => Origin::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Origin::V4(v4),
                None => {
                    let s = v6.segments();
                    Origin::V6([s[0], s[1], s[2], s[3]])
                }
            },
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::V4(a) => write!(f, "{a}"),
            Origin::V6([a, b, c, d]) => {
                write!(f, "{}/64", Ipv6Addr::new(*a, *b, *c, *d, 0, 0, 0, 0))
            }
        }
    }
}
