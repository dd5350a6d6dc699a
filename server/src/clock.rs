//! Where the controller's time comes from.
//!
//! The writer reads its clock once per batch (never going backwards) and hands that
//! time to every command of the batch in its `state::Context`; the reports and pages
//! ask the same clock what "now" is (today's jornada, an order's age, an agent last
//! seen). So time comes into the pure core only through the context, replay takes it
//! from the journal, and a test can set it by hand ([`ManualClock`]).

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall-clock time, in milliseconds since 1970.
pub trait Clock: Send + Sync + Debug {
    fn now_ms(&self) -> u64;

    /// The same time in microseconds: what the signs' pushes are stamped with, so a
    /// display can measure how long after the batch was durable it shows it.
    fn now_us(&self) -> u64 {
        self.now_ms().saturating_mul(1000)
    }
}

/// This machine's clock: what `pozo-server serve` runs on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|elapsed| elapsed.as_millis() as u64).unwrap_or(0)
    }

    fn now_us(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|elapsed| elapsed.as_micros() as u64).unwrap_or(0)
    }
}

/// A clock set by hand, for tests: it moves only when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    pub fn at(ms: u64) -> ManualClock {
        ManualClock(AtomicU64::new(ms))
    }

    pub fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }

    pub fn advance(&self, ms: u64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}
