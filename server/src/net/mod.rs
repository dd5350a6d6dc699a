//! The network's door: who gets a connection, how many requests each may have in flight,
//! the largest message read, and TLS.
//!
//! # Layout
//! - this file: the transport's limits and the server builder that applies them.
//! - `admission`: who gets a connection (HTTP/2 preface in time, per-peer limits).
//! - `secrets`: passwords and PINs as Argon2id hashes, and the lock-out of wrong guesses.
//! - `tls`: the listener's certificate, key and client CA.

mod admission;
pub(crate) mod secrets;
mod tls;

use std::time::Duration;

use tonic::transport::Server;

pub(crate) use admission::{FILES_NEEDED, HANDSHAKE_TIMEOUT};
pub use admission::{incoming, raise_open_files_limit};
pub use tls::Tls;

/// Concurrent requests on one connection (calls and open streams alike: a table agent holds its
/// `Table/Watch` and `Table/Commands` streams on its connection).
pub const REQUESTS_PER_CONNECTION_MAX: usize = 256;

/// The largest gRPC message decoded: envelopes are small.
pub const MESSAGE_BYTES_MAX: usize = 64 * 1024;

/// The display feed's open networks when none are given: loopback only.
pub(crate) fn loopback_networks() -> Vec<ipnet::IpNet> {
    vec!["127.0.0.0/8".parse().expect("a network"), "::1/128".parse().expect("a network")]
}

/// The runtime the controller serves on: tokio's multi-threaded one, without the slot that
/// polls a task woken by the running task next (the "LIFO slot").
///
/// When a batch is durable, the writer answers its callers at once; each caller's stream
/// hands its reply to its connection, which it wakes. With the slot, that connection ran
/// next, before any other caller of the batch, and wrote one reply per `send`: 0.7 sends
/// per command at full load. Without it, the connections run after the batch's callers and
/// each writes its replies together: 0.08 sends per command, and 0.90 of the controller's
/// CPU per press (docs/benchmarks.md, "Step 6"). An unstable option of tokio's (the
/// `tokio_unstable` of `.cargo/config.toml`).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().disable_lifo_slot().build()
}

/// The controller's transport settings: per-connection limits and keepalive. The
/// benchmark's bare echo uses them too, so that only the work behind them differs.
pub fn server_builder() -> Server {
    Server::builder()
        .concurrency_limit_per_connection(REQUESTS_PER_CONNECTION_MAX)
        .max_concurrent_streams(REQUESTS_PER_CONNECTION_MAX as u32)
        .http2_keepalive_interval(Some(Duration::from_secs(10)))
        .http2_keepalive_timeout(Some(Duration::from_secs(5)))
}

/// Every gRPC response's `Date` header from the controller's own clock (`crate::clock`), not
/// hyper's reading of the system's: the same time the journal and the pages use, and in the
/// seeded simulation a simulated one (a header whose bytes followed the machine's clock made
/// two runs of one seed differ).
pub(crate) fn date_header(
    clock: std::sync::Arc<dyn crate::clock::Clock>,
) -> tower_http::set_header::SetResponseHeaderLayer<
    impl Fn(&tonic::codegen::http::Response<tonic::body::Body>) -> Option<tonic::codegen::http::HeaderValue> + Clone,
> {
    tower_http::set_header::SetResponseHeaderLayer::overriding(
        tonic::codegen::http::header::DATE,
        move |_: &tonic::codegen::http::Response<tonic::body::Body>| {
            let now = jiff::Timestamp::from_millisecond(i64::try_from(clock.now_ms()).ok()?).ok()?;
            tonic::codegen::http::HeaderValue::from_str(&now.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()).ok()
        },
    )
}

/// A text from the wire, cut for a message or a log line: at most 80 characters, and
/// no control characters (a newline would fake a log line).
pub(crate) fn bounded_text(text: &str) -> String {
    text.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// Whether a display at `ip` is in the networks the display feed is open to (an IPv4
/// display on a `[::]` listener shows as ::ffff:a.b.c.d). The gRPC feed and `/cartel` ask it.
pub(crate) fn display_open(open_to: &[ipnet::IpNet], ip: std::net::IpAddr) -> bool {
    let ip = match ip {
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().map(std::net::IpAddr::V4).unwrap_or(ip),
        ip => ip,
    };
    open_to.iter().any(|network| network.contains(&ip))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    /// The controller's runtime polls a task woken by the running task after those queued
    /// before it, not next: a batch's replies then leave each connection together
    /// ([`super::runtime`]). Checked with tasks spawned by the running task, which tokio
    /// schedules as it does a wake (the LIFO slot took both). Every worker but one is held, so
    /// that none can steal.
    #[test]
    fn a_task_woken_by_the_running_task_waits_behind_those_queued_before_it() {
        let runtime = super::runtime().expect("a runtime");
        let (release, held) = mpsc::channel::<()>();
        let held = Arc::new(Mutex::new(held));
        let (started, holding) = mpsc::channel();
        let others = runtime.metrics().num_workers() - 1;
        for _ in 0..others {
            let (held, started) = (Arc::clone(&held), started.clone());
            runtime.spawn(async move {
                started.send(()).expect("the test waits");
                // Blocks this worker until the test ends (the channel closes).
                let _ = held.lock().expect("not poisoned").recv();
            });
        }
        for _ in 0..others {
            holding.recv().expect("a worker held");
        }
        let order = Arc::new(Mutex::new(Vec::new()));
        let (ran, done) = mpsc::channel();
        let queued = Arc::clone(&order);
        runtime.spawn(async move {
            for name in ["queued first", "queued second"] {
                let (order, ran) = (Arc::clone(&queued), ran.clone());
                tokio::spawn(async move {
                    order.lock().expect("not poisoned").push(name);
                    ran.send(()).expect("the test waits");
                });
            }
        });
        done.recv().expect("ran");
        done.recv().expect("ran");
        drop(release);
        assert_eq!(
            *order.lock().expect("not poisoned"),
            ["queued first", "queued second"],
            "the runtime polled the task queued last first (tokio's LIFO slot): docs/benchmarks.md, \"Step 6\""
        );
    }
}
