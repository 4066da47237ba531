//! A TCP connection as a link: its halves and socket, set to send each message at once, for a
//! bot that connected to the lobby and for one the referee connects to (a bot that listens).

use super::{Reader, Socket, Writer};
use std::io;
use std::time::Duration;
use tokio::net::TcpStream;

/// The two halves of a connection, and its socket for [`LineConn::watch_socket`].
///
/// [`LineConn::watch_socket`]: super::LineConn::watch_socket
pub(crate) type Halves = (Reader, Writer, Socket);

/// A connection's halves and its socket, set to send each message at once.
pub(crate) fn split(stream: TcpStream) -> Halves {
    // Every message is one small write that must leave at once; Nagle's algorithm would hold
    // each answer for the peer's delayed acknowledgement.
    let _ = stream.set_nodelay(true);
    let socket = Socket::of(&stream);
    let (r, w) = stream.into_split();
    (Box::new(r), Box::new(w), socket)
}

/// Connects to a bot that listens.
pub(crate) async fn connect(addr: &str, limit: Duration) -> io::Result<Halves> {
    let stream = tokio::time::timeout(limit, TcpStream::connect(addr))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer"))??;
    Ok(split(stream))
}
