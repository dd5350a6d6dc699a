//! Who gets a connection: the controller's defence against connection exhaustion.
//!
//! A TCP connection is first *pending*: it must send the HTTP/2 client preface
//! (with TLS: the first byte of a TLS handshake record, the preface being inside the
//! encryption, where tonic's handshake timeout takes over) within
//! [`HANDSHAKE_TIMEOUT`] or it is closed. Only then does it take one of the
//! [`CONNECTIONS_MAX`] places of an open connection. Each peer address may hold at
//! most [`PEER_PENDING_MAX`] pending and [`PEER_OPEN_MAX`] open connections, so one
//! host holding thousands of idle sockets cannot keep a table agent out. The accept
//! loop never waits for a place: a connection over a limit is closed at once, and the
//! one that fits is served.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use std::future::Future as _;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The most open (HTTP/2) connections served at once: a casino floor of agents,
/// displays and offices.
pub(crate) const CONNECTIONS_MAX: usize = 4096;

/// The most connections waiting for their HTTP/2 preface at once.
pub(crate) const PENDING_MAX: usize = 4096;

/// The most open connections one peer address may hold. Loopback peers are held only
/// to [`CONNECTIONS_MAX`]: the simulator runs a whole floor of agents from 127.0.0.1.
pub(crate) const PEER_OPEN_MAX: usize = 2048;

/// The most connections one peer address may have waiting for their preface.
pub(crate) const PEER_PENDING_MAX: usize = 512;

/// The open files the connection limits need, with room for the journal and logs.
pub(crate) const FILES_NEEDED: u64 = (CONNECTIONS_MAX + PENDING_MAX + 256) as u64;

/// Raises this process's soft limit on open files towards [`FILES_NEEDED`] (never
/// above the hard limit). Returns the limit in force, so that the caller can warn
/// when it is lower: past it, `accept` fails and new connections wait in the backlog.
pub fn raise_open_files_limit() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(FILES_NEEDED)
}

/// How long a new connection has to send the HTTP/2 client preface.
pub(crate) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// The HTTP/2 client connection preface (RFC 9113, 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The first byte of a TLS connection: a handshake record (RFC 8446, 5.1).
const TLS_HANDSHAKE: &[u8] = &[0x16];

/// A connection that sends nothing for this long is closed. A live HTTP/2 client is
/// never that quiet: the server pings it every 10 s (`server_builder`) and it answers.
/// Silent ones are those that never finished their handshake — above all a TLS
/// connection that stops after the TLS handshake, before the HTTP/2 preface, which the
/// greeting check cannot see and HTTP/2 keepalive does not cover.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// After a failed accept (out of file descriptors), the loop waits this long.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

#[derive(Default)]
struct Counts {
    pending: usize,
    open: usize,
    peers: HashMap<IpAddr, (usize, usize)>,
}

/// The connections counted, per peer and in all.
#[derive(Default)]
struct Admission {
    counts: Mutex<Counts>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Pending,
    Open,
}

/// A place held by one connection; dropping it gives the place back.
struct Place {
    admission: Arc<Admission>,
    peer: IpAddr,
    stage: Stage,
}

impl Admission {
    /// A pending place for a new connection from `peer`, if one is free.
    fn pending(self: &Arc<Self>, peer: IpAddr) -> Option<Place> {
        let mut counts = self.counts.lock().expect("admission counts");
        let (peer_pending, _) = counts.peers.get(&peer).copied().unwrap_or_default();
        if counts.pending >= PENDING_MAX || peer_pending >= PEER_PENDING_MAX {
            return None;
        }
        counts.pending += 1;
        counts.peers.entry(peer).or_default().0 += 1;
        Some(Place { admission: Arc::clone(self), peer, stage: Stage::Pending })
    }

    /// Turns a pending place into an open one, if one is free; the pending place is
    /// given back either way.
    fn open(self: &Arc<Self>, pending: Place) -> Option<Place> {
        let peer = pending.peer;
        drop(pending);
        let mut counts = self.counts.lock().expect("admission counts");
        let (_, peer_open) = counts.peers.get(&peer).copied().unwrap_or_default();
        if counts.open >= CONNECTIONS_MAX || (peer_open >= PEER_OPEN_MAX && !peer.is_loopback()) {
            return None;
        }
        counts.open += 1;
        counts.peers.entry(peer).or_default().1 += 1;
        Some(Place { admission: Arc::clone(self), peer, stage: Stage::Open })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut counts = self.admission.counts.lock().expect("admission counts");
        let entry = counts.peers.entry(self.peer).or_default();
        debug_assert!(
            match self.stage {
                Stage::Pending => entry.0 > 0,
                Stage::Open => entry.1 > 0,
            },
            "a place given back twice"
        );
        match self.stage {
            Stage::Pending => entry.0 -= 1,
            Stage::Open => entry.1 -= 1,
        }
        if *entry == (0, 0) {
            counts.peers.remove(&self.peer);
        }
        match self.stage {
            Stage::Pending => counts.pending -= 1,
            Stage::Open => counts.open -= 1,
        }
    }
}

/// An admitted TCP connection, holding its place while it lives. The preface read
/// to admit it is handed to tonic first.
pub(crate) struct Admitted {
    stream: TcpStream,
    greeting: &'static [u8],
    greeting_left: usize,
    /// When the connection is closed if nothing more arrives ([`IDLE_TIMEOUT`]).
    idle: Pin<Box<tokio::time::Sleep>>,
    _place: Place,
}

impl Admitted {
    fn new(stream: TcpStream, greeting: &'static [u8], place: Place) -> Admitted {
        let idle = Box::pin(tokio::time::sleep(IDLE_TIMEOUT));
        Admitted { stream, greeting, greeting_left: greeting.len(), idle, _place: place }
    }
}

impl Connected for Admitted {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Admitted {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.greeting_left > 0 {
            let from = self.greeting.len() - self.greeting_left;
            let count = self.greeting_left.min(buf.remaining());
            buf.put_slice(&self.greeting[from..from + count]);
            self.greeting_left -= count;
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let deadline = tokio::time::Instant::now() + IDLE_TIMEOUT;
                    self.idle.as_mut().reset(deadline);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => match self.idle.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "nothing received for the idle timeout")))
                }
                Poll::Pending => Poll::Pending,
            },
            other => other,
        }
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Reads the greeting (the HTTP/2 preface, or a TLS record's first byte); false when
/// the peer sent something else or closed. The bytes read are exactly the greeting,
/// which [`Admitted`] hands on.
async fn greeting_arrives(stream: &mut TcpStream, greeting: &[u8]) -> bool {
    let mut buffer = [0u8; 24];
    let mut read = 0;
    while read < greeting.len() {
        match stream.read(&mut buffer[read..greeting.len()]).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => read += n,
        }
        if buffer[..read] != greeting[..read] {
            return false;
        }
    }
    true
}

/// The address the per-peer limits count under: an IPv4 address as it is; an IPv6 one
/// by its /64 (one host is routinely given a whole /64, and would otherwise have 2^64
/// addresses to spread its connections over); an IPv4-mapped one as the IPv4 address.
pub(crate) fn peer_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None if v6.is_loopback() => address,
            None => {
                let segments = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(segments[0], segments[1], segments[2], segments[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Accepts connections and hands tonic those that speak HTTP/2 within the limits.
/// With `tls`, the greeting awaited is a TLS handshake's first byte instead of the preface.
pub fn incoming(listener: TcpListener, tls: bool) -> ReceiverStream<io::Result<Admitted>> {
    let greeting: &'static [u8] = if tls { TLS_HANDSHAKE } else { PREFACE };
    let (sender, receiver) = mpsc::channel(64);
    let admission = Arc::new(Admission::default());
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                // The server stopped: the listener is closed with this loop.
                () = sender.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was taken:
                    // the loop goes on; the server never stops for it.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            };
            let Some(pending) = admission.pending(peer_key(peer.ip())) else {
                tracing::debug!(%peer, "too many connections waiting for their handshake: closed");
                continue;
            };
            let _ = stream.set_nodelay(true);
            let admission = Arc::clone(&admission);
            let sender = sender.clone();
            tokio::spawn(async move {
                let mut stream = stream;
                if !matches!(tokio::time::timeout(HANDSHAKE_TIMEOUT, greeting_arrives(&mut stream, greeting)).await, Ok(true)) {
                    tracing::debug!(%peer, "no HTTP/2 preface (or TLS handshake) in time: closed");
                    return;
                }
                let Some(place) = admission.open(pending) else {
                    tracing::debug!(%peer, "connection limit reached: closed");
                    return;
                };
                let _ = sender.send(Ok(Admitted::new(stream, greeting, place))).await;
            });
        }
    });
    ReceiverStream::new(receiver)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_peers_are_counted_by_their_64_and_mapped_ones_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("an address");
        let b: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().expect("an address");
        let other: IpAddr = "2001:db8:1:3::1".parse().expect("an address");
        assert_eq!(peer_key(a), peer_key(b), "one /64, one peer");
        assert_ne!(peer_key(a), peer_key(other));
        let mapped: IpAddr = "::ffff:10.0.0.7".parse().expect("an address");
        assert_eq!(peer_key(mapped), "10.0.0.7".parse::<IpAddr>().expect("an address"));
        assert!(peer_key("::1".parse().expect("loopback")).is_loopback(), "loopback stays loopback (exempt from the caps)");
        // The caps hold per /64: PEER_PENDING_MAX places, then none, whatever the low 64 bits.
        let admission = Arc::new(Admission::default());
        let places: Vec<Place> = (0..PEER_PENDING_MAX as u16)
            .map(|low| {
                let address = std::net::Ipv6Addr::new(0x2001, 0xdb8, 1, 2, 0, 0, 0, low);
                admission.pending(peer_key(IpAddr::V6(address))).expect("a place")
            })
            .collect();
        let next = std::net::Ipv6Addr::new(0x2001, 0xdb8, 1, 2, 9, 9, 9, 9);
        assert!(admission.pending(peer_key(IpAddr::V6(next))).is_none(), "the /64's pending places are all taken");
        drop(places);
        assert!(admission.pending(peer_key(IpAddr::V6(next))).is_some(), "given back");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_connection_that_goes_silent_is_closed_after_the_idle_timeout_and_a_talking_one_is_not() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a listener");
        let address = listener.local_addr().expect("an address");
        let mut client = TcpStream::connect(address).await.expect("connected");
        let (stream, peer) = listener.accept().await.expect("accepted");
        let admission = Arc::new(Admission::default());
        let place = admission.open(admission.pending(peer.ip()).expect("pending")).expect("open");
        let mut admitted = Admitted::new(stream, TLS_HANDSHAKE, place);
        let mut buffer = [0u8; 16];
        assert_eq!(admitted.read(&mut buffer).await.expect("the greeting"), 1, "the greeting is handed on first");
        // Talking every 20 s keeps it open past the timeout.
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_secs(20)).await;
            tokio::io::AsyncWriteExt::write_all(&mut client, b"x").await.expect("sent");
            assert_eq!(admitted.read(&mut buffer).await.expect("read"), 1);
        }
        // Then silence: closed once IDLE_TIMEOUT has passed, not before.
        let started = tokio::time::Instant::now();
        let error = admitted.read(&mut buffer).await.expect_err("closed for silence");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= IDLE_TIMEOUT, "{:?}", started.elapsed());
        assert_eq!(admission.counts.lock().expect("counts").open, 1, "the place is held until the connection is dropped");
        drop(admitted);
        assert_eq!(admission.counts.lock().expect("counts").open, 0);
    }
}
