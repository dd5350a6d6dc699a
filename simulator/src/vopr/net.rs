//! The simulated network and clock.
//!
//! Every connection is an in-memory byte stream (`tokio::io::duplex`) carrying real gRPC
//! (tonic and hyper on both ends, the controller's own services); the controller's
//! listener is a stream of them (`pozo_server::serve_incoming`). gRPC rides TCP, which
//! delivers bytes in order or not at all, so what the network can do to it is: delay bytes,
//! cut a connection (mid-request or between requests), refuse connections while a
//! partition lasts. Loss and duplication of a *request* are what the clients do about a
//! cut: they retry, and sometimes send again what was already answered. Each connection
//! draws its delays from its own generator, seeded from the run's.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tonic::transport::Channel;

/// Bytes in flight each way on one connection.
const BUFFER: usize = 64 * 1024;

/// Connections waiting for the controller to accept them.
const BACKLOG: usize = 256;

/// How often each network fault is drawn.
#[derive(Clone, Copy, Debug)]
pub struct NetFaults {
    /// Per read: the bytes after it are held this long (a delay spike), else a short one.
    pub spike: f64,
    /// Per step: a random connection is cut.
    pub cut: f64,
    /// Per step: a partition begins (every connection cut, none accepted) for a while.
    pub partition: f64,
    /// Per step: the clock jumps (forward, or back, which the writer never follows).
    pub clock_jump: f64,
}

impl NetFaults {
    pub const NONE: NetFaults = NetFaults { spike: 0.0, cut: 0.0, partition: 0.0, clock_jump: 0.0 };
    pub const DEFAULT: NetFaults = NetFaults { spike: 0.01, cut: 0.02, partition: 0.002, clock_jump: 0.003 };
}

/// How many of each network fault a run injected.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct NetCounts {
    pub connections: u64,
    pub refused: u64,
    pub cuts: u64,
    pub partitions: u64,
    pub spikes: u64,
    pub clock_jumps: u64,
}

struct State {
    /// Each controller's listener, by its address, while it runs.
    listeners: BTreeMap<String, mpsc::Sender<io::Result<Conn>>>,
    /// Every live connection that faults may cut (the oracle's own are never cut).
    links: Vec<CancellationToken>,
    /// Every live connection by the controller it reaches (the oracle's too): gone with it.
    reaching: Vec<(String, CancellationToken)>,
    /// Until when a partition refuses and cuts every connection.
    partitioned_until: Option<tokio::time::Instant>,
    rng: ChaCha8Rng,
    faults: NetFaults,
    counts: NetCounts,
    port: u16,
}

/// The network of one seed.
#[derive(Clone)]
pub struct Net(Arc<Mutex<State>>, Arc<AtomicU64>);

impl Net {
    pub fn new(faults: NetFaults, rng: ChaCha8Rng) -> Net {
        Net(
            Arc::new(Mutex::new(State {
                listeners: BTreeMap::new(),
                links: Vec::new(),
                reaching: Vec::new(),
                partitioned_until: None,
                rng,
                faults,
                counts: NetCounts::default(),
                port: 40_000,
            })),
            Arc::default(),
        )
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().expect("the network's lock is never poisoned")
    }

    pub fn counts(&self) -> NetCounts {
        let mut counts = self.state().counts;
        counts.spikes = self.1.load(Ordering::Relaxed);
        counts
    }

    /// The listener of the controller at `address` for one run: the connections made to it.
    pub fn listen(&self, address: &str) -> tokio_stream::wrappers::ReceiverStream<io::Result<Conn>> {
        let (sender, receiver) = mpsc::channel(BACKLOG);
        self.state().listeners.insert(address.to_owned(), sender);
        tokio_stream::wrappers::ReceiverStream::new(receiver)
    }

    /// The controller at `address` is gone (killed, or stopped): its listener and every
    /// connection to it, the oracle's included.
    pub fn gone(&self, address: &str) {
        let mut state = self.state();
        state.listeners.remove(address);
        state.reaching.retain(|(to, link)| {
            if to == address {
                link.cancel();
            }
            to != address && !link.is_cancelled()
        });
    }

    /// The run ended: its listeners and every connection gone.
    pub fn reset(&self) {
        let mut state = self.state();
        state.listeners.clear();
        for link in state.links.drain(..) {
            link.cancel();
        }
        for (_, link) in state.reaching.drain(..) {
            link.cancel();
        }
        state.partitioned_until = None;
    }

    /// A connection to the controller at `address`; `clean` for the oracle's, which no fault touches.
    pub fn connect(&self, address: &str, clean: bool) -> io::Result<Conn> {
        let mut state = self.state();
        let now = tokio::time::Instant::now();
        if !clean && state.partitioned_until.is_some_and(|until| now < until) {
            state.counts.refused += 1;
            return Err(io::Error::new(io::ErrorKind::ConnectionRefused, "simulated partition"));
        }
        let Some(listener) = state.listeners.get(address).cloned() else {
            state.counts.refused += 1;
            return Err(io::Error::new(io::ErrorKind::ConnectionRefused, "no controller listening"));
        };
        state.port = state.port.wrapping_add(1).max(40_000);
        let port = state.port;
        let (client, server) = tokio::io::duplex(BUFFER);
        let link = CancellationToken::new();
        let (delays, spike) = if clean { (0..1, 0.0) } else { (0..300, state.faults.spike) };
        let spikes = Arc::clone(&self.1);
        let end = |io, rng| Conn {
            io,
            cut: Box::pin(link.clone().cancelled_owned()),
            rng: ChaCha8Rng::seed_from_u64(rng),
            delays: delays.clone(),
            spike,
            held: None,
            port,
            spikes: Arc::clone(&spikes),
        };
        let client_seed = state.rng.random();
        let server_seed = state.rng.random();
        let client = end(client, client_seed);
        let server = end(server, server_seed);
        if !clean {
            state.links.retain(|link| !link.is_cancelled());
            state.links.push(link.clone());
        }
        state.reaching.retain(|(_, link)| !link.is_cancelled());
        state.reaching.push((address.to_owned(), link.clone()));
        state.counts.connections += 1;
        if listener.try_send(Ok(server)).is_err() {
            state.counts.refused += 1;
            return Err(io::Error::new(io::ErrorKind::ConnectionRefused, "the controller's backlog is full"));
        }
        Ok(client)
    }

    /// A fault step: maybe cut a connection, begin a partition, or jump the clock. Returns
    /// what it did, for the trace.
    pub fn step(&self, clock: &SimClock) -> Vec<String> {
        let mut state = self.state();
        let state = &mut *state;
        let mut done = Vec::new();
        state.links.retain(|link| !link.is_cancelled());
        if !state.links.is_empty() && state.rng.random_bool(state.faults.cut) {
            let at = state.rng.random_range(0..state.links.len());
            state.links.swap_remove(at).cancel();
            state.counts.cuts += 1;
            done.push("a connection cut".to_owned());
        }
        if state.rng.random_bool(state.faults.partition) {
            let lasting = Duration::from_millis(state.rng.random_range(100..3_000));
            state.partitioned_until = Some(tokio::time::Instant::now() + lasting);
            for link in state.links.drain(..) {
                link.cancel();
            }
            state.counts.partitions += 1;
            done.push(format!("a partition for {} ms", lasting.as_millis()));
        }
        if state.rng.random_bool(state.faults.clock_jump) {
            let jump: i64 = if state.rng.random_bool(0.7) {
                state.rng.random_range(1_000..3_600_000)
            } else {
                -state.rng.random_range(1_000..600_000)
            };
            clock.jump(jump);
            state.counts.clock_jumps += 1;
            done.push(format!("the clock jumped {jump} ms"));
        }
        done
    }
}

/// One end of a simulated connection.
pub struct Conn {
    io: DuplexStream,
    cut: Pin<Box<WaitForCancellationFutureOwned>>,
    rng: ChaCha8Rng,
    delays: std::ops::Range<u64>,
    spike: f64,
    held: Option<Pin<Box<tokio::time::Sleep>>>,
    port: u16,
    /// Spikes drawn, for the counts.
    spikes: Arc<AtomicU64>,
}

impl Conn {
    fn is_cut(&mut self, cx: &mut Context<'_>) -> bool {
        self.cut.as_mut().poll(cx).is_ready()
    }
}

fn reset() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionReset, "simulated: the connection was cut")
}

use std::future::Future;

impl AsyncRead for Conn {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.is_cut(cx) {
            return Poll::Ready(Err(reset()));
        }
        if let Some(held) = self.held.as_mut() {
            if held.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.held = None;
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before && self.delays.end > 1 {
            // The bytes after these wait a little, now and then a lot.
            let (spike, delays) = (self.spike, self.delays.clone());
            let micros = if self.rng.random_bool(spike) {
                self.spikes.fetch_add(1, Ordering::Relaxed);
                self.rng.random_range(20_000..500_000)
            } else {
                self.rng.random_range(delays)
            };
            self.held = Some(Box::pin(tokio::time::sleep(Duration::from_micros(micros))));
        }
        read
    }
}

impl AsyncWrite for Conn {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.is_cut(cx) {
            return Poll::Ready(Err(reset()));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.is_cut(cx) {
            return Poll::Ready(Err(reset()));
        }
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The controller sees each connection come from loopback (its displays' default network).
impl tonic::transport::server::Connected for Conn {
    type ConnectInfo = tonic::transport::server::TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        tonic::transport::server::TcpConnectInfo {
            local_addr: Some(SocketAddr::from(([127, 0, 0, 1], 50_051))),
            remote_addr: Some(SocketAddr::from(([127, 0, 0, 1], self.port))),
        }
    }
}

/// A tonic channel to the controller at `address` over the simulated network: it reconnects
/// by itself after a cut, as the agents' and the office's do. `clean`: the oracle's, which no
/// fault touches.
pub fn channel(net: &Net, address: &str, clean: bool, timeout: Duration) -> Channel {
    let net = net.clone();
    let address = address.to_owned();
    let connector = tower::service_fn(move |_: tonic::transport::Uri| {
        let net = net.clone();
        let address = address.clone();
        async move { net.connect(&address, clean).map(hyper_util::rt::TokioIo::new) }
    });
    tonic::transport::Endpoint::from_static("http://controller.sim")
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(1))
        .connect_with_connector_lazy(connector)
}

/// The floor's way to its controllers: one, or a writer and its standby tried in turn, as an
/// agent given both addresses does (docs/agent.md §5): a request that reached no controller,
/// or one that said UNAVAILABLE (a standby, a controller stopping), sends the next request to
/// the other. The clients above it retry as they would on one controller.
#[derive(Clone)]
pub struct Controllers {
    channels: Arc<Vec<Channel>>,
    at: Arc<AtomicUsize>,
}

impl Controllers {
    pub fn new(net: &Net, addresses: &[&str], timeout: Duration) -> Controllers {
        let channels = addresses.iter().map(|address| channel(net, address, false, timeout)).collect();
        Controllers { channels: Arc::new(channels), at: Arc::default() }
    }
}

type HttpRequest = tonic::codegen::http::Request<tonic::body::Body>;
type HttpResponse = tonic::codegen::http::Response<tonic::body::Body>;

impl tower::Service<HttpRequest> for Controllers {
    type Response = HttpResponse;
    type Error = tonic::transport::Error;
    type Future = futures_util::future::BoxFuture<'static, Result<HttpResponse, tonic::transport::Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Each call readies the channel it goes to.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequest) -> Self::Future {
        use tower::ServiceExt;
        let count = self.channels.len();
        let at = self.at.load(Ordering::SeqCst) % count;
        let channel = self.channels[at].clone();
        let turn = Arc::clone(&self.at);
        Box::pin(async move {
            let answer = channel.oneshot(request).await;
            let elsewhere = match &answer {
                Err(_) => true,
                Ok(response) => response.headers().get("grpc-status").is_some_and(|status| status == "14"),
            };
            if elsewhere && count > 1 {
                // Only the first to find it turns: a burst of failures turns once.
                let _ = turn.compare_exchange(at, (at + 1) % count, Ordering::SeqCst, Ordering::SeqCst);
            }
            answer
        })
    }
}

/// The controller's clock in the simulation: the paused tokio clock, from a fixed start,
/// plus the jumps the faults made. Shared by every run of one seed (a restart keeps the time).
#[derive(Debug)]
pub struct SimClock {
    /// Milliseconds since 1970 at `origin`.
    base_ms: AtomicU64,
    origin: Mutex<tokio::time::Instant>,
}

impl Default for SimClock {
    fn default() -> SimClock {
        SimClock::new()
    }
}

impl SimClock {
    /// 2026-11-27 20:00 in Buenos Aires: a jornada's evening.
    pub const START_MS: u64 = 1_795_820_400_000;

    pub fn new() -> SimClock {
        SimClock { base_ms: AtomicU64::new(SimClock::START_MS), origin: Mutex::new(tokio::time::Instant::now()) }
    }

    /// The end of a run, inside its runtime: the time it reached is kept.
    pub fn stop_run(&self) {
        let now = self.now();
        self.base_ms.store(now, Ordering::SeqCst);
    }

    /// A new run, inside its new runtime (whose paused clock starts afresh): the time goes on
    /// from where the last run stopped, plus `down` (how long the controller was down).
    pub fn start_run(&self, down: Duration) {
        *self.origin.lock().expect("never poisoned") = tokio::time::Instant::now();
        self.base_ms.fetch_add(down.as_millis() as u64, Ordering::SeqCst);
    }

    fn now(&self) -> u64 {
        let origin = *self.origin.lock().expect("never poisoned");
        self.base_ms.load(Ordering::SeqCst) + tokio::time::Instant::now().saturating_duration_since(origin).as_millis() as u64
    }

    /// Moves the wall clock by `ms` (back when negative), as NTP or an operator might.
    pub fn jump(&self, ms: i64) {
        if ms >= 0 {
            self.base_ms.fetch_add(ms as u64, Ordering::SeqCst);
        } else {
            self.base_ms.fetch_sub(ms.unsigned_abs(), Ordering::SeqCst);
        }
    }
}

impl pozo_server::clock::Clock for SimClock {
    fn now_ms(&self) -> u64 {
        self.now()
    }
}
