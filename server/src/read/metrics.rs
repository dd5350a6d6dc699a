//! The controller's metrics, in the Prometheus text format, served at `/metrics` on the
//! pages' listener (docs/operations.md §13), through the `prometheus-client` crate.
//!
//! Counters and histograms are kept as things happen (the writer counts commands, refusals,
//! batches, flushes and answers); what the state says — pools, pending payouts, the journal's
//! tip — is read from the published read model when the page is scraped, so it is never
//! behind the durable journal and costs the writer nothing. Amounts are in centavos, whole
//! numbers: no money passes through a float, here either.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use rust_decimal::prelude::ToPrimitive;

use crate::read::ReadModel;
use pozo_core::state::{Command, RefusalKind};

/// A label naming a kind: of command (`press`, `open_table`, `confirm`…) or of refusal
/// (`failed_precondition`…).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Kind {
    kind: &'static str,
}

/// A label naming a pool.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Pool {
    pool: String,
}

/// Everything `/metrics` shows. One per controller, shared by the writer, the services and the pages.
pub struct Metrics {
    /// Encoding needs `&Registry` while the gauges below are set from the read model: one
    /// scrape at a time.
    registry: Mutex<Registry>,
    /// Each kind's counter of the registered families, resolved once: counting a command
    /// takes no lock (the family's map is behind one).
    commands: HashMap<&'static str, Counter>,
    refusals: HashMap<&'static str, Counter>,
    retries: Counter,
    batch_entries: Histogram,
    flush_seconds: Histogram,
    ack_seconds: Histogram,
    pool_balance: Family<Pool, Gauge>,
    pool_displayed: Family<Pool, Gauge>,
    pending_payouts: Gauge,
    journal_entries: Gauge,
    agents_connected: Gauge,
    displays: Gauge,
    standby: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// The commands and the refusals counted by kind, every kind from zero, so that a rate is
/// defined before the first one happens.
fn by_kind(registry: &mut Registry) -> (HashMap<&'static str, Counter>, HashMap<&'static str, Counter>) {
    let commands = Family::<Kind, Counter>::default();
    registry.register("commands", "Commands applied and journaled, by kind", commands.clone());
    let refusals = Family::<Kind, Counter>::default();
    registry.register("refusals", "Commands refused by the rules, by kind of refusal", refusals.clone());
    let commands = Command::KINDS.into_iter().map(|kind| (kind, commands.get_or_create(&Kind { kind }).clone())).collect();
    let refusals = RefusalKind::ALL
        .into_iter()
        .map(|kind| (kind.name(), refusals.get_or_create(&Kind { kind: kind.name() }).clone()))
        .collect();
    (commands, refusals)
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("pozo");
        let (commands, refusals) = by_kind(&mut registry);
        let retries = Counter::default();
        registry.register("retries", "Retries of an applied command, answered from the state", retries.clone());
        // 1, 2, 4 … 32,768 entries.
        let batch_entries = Histogram::new(exponential_buckets(1.0, 2.0, 16));
        registry.register("batch_entries", "Journal entries per durable batch (group commit)", batch_entries.clone());
        // 50 µs … 1.6 s.
        let flush_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        registry.register(
            "flush_seconds",
            "Time to make a batch durable: the journal's flush, then the acknowledgement mark",
            flush_seconds.clone(),
        );
        let ack_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        registry.register(
            "ack_seconds",
            "Time from a command reaching the writer to its answer (durable when journaled)",
            ack_seconds.clone(),
        );
        let pool_balance = Family::<Pool, Gauge>::default();
        registry.register("pool_balance_centavos", "Each pool's balance, in centavos", pool_balance.clone());
        let pool_displayed = Family::<Pool, Gauge>::default();
        registry.register(
            "pool_displayed_centavos",
            "Each pool's amount on the signs (balance × factor), in centavos",
            pool_displayed.clone(),
        );
        let pending_payouts = Gauge::default();
        registry.register(
            "pending_payouts",
            "Payout orders waiting for Venta-Pagos (PENDIENTE DE PAGO)",
            pending_payouts.clone(),
        );
        let journal_entries = Gauge::default();
        registry.register("journal_entries", "Entries in the journal, durable and acknowledged", journal_entries.clone());
        let agents_connected = Gauge::default();
        registry.register("agents_connected", "Tables whose agent has its watch open", agents_connected.clone());
        let displays = Gauge::default();
        registry.register("displays_watching", "Display feeds open (gRPC and the pages' signs)", displays.clone());
        let standby = Gauge::default();
        registry.register(
            "standby",
            "1 while this controller is a hot standby following the writer's journal (it refuses commands), 0 as the writer",
            standby.clone(),
        );
        Metrics {
            registry: Mutex::new(registry),
            commands,
            refusals,
            retries,
            batch_entries,
            flush_seconds,
            ack_seconds,
            pool_balance,
            pool_displayed,
            pending_payouts,
            journal_entries,
            agents_connected,
            displays,
            standby,
        }
    }

    /// A command applied and journaled.
    pub(crate) fn command(&self, kind: &'static str) {
        if let Some(counter) = self.commands.get(kind) {
            counter.inc();
        }
    }

    /// A command refused by the rules.
    pub(crate) fn refusal(&self, kind: &'static str) {
        if let Some(counter) = self.refusals.get(kind) {
            counter.inc();
        }
    }

    /// A retry answered from the state.
    pub(crate) fn retry(&self) {
        self.retries.inc();
    }

    /// A batch of `entries` made durable in `flush`.
    pub(crate) fn batch(&self, entries: usize, flush: Duration) {
        self.batch_entries.observe(entries as f64);
        self.flush_seconds.observe(flush.as_secs_f64());
    }

    /// A command answered `waited` after it reached the writer.
    pub(crate) fn answered(&self, waited: Duration) {
        self.ack_seconds.observe(waited.as_secs_f64());
    }

    /// A display feed opened; it counts until the guard drops.
    pub(crate) fn display_opened(&self) -> DisplayWatch {
        self.displays.inc();
        DisplayWatch { gauge: self.displays.clone() }
    }

    /// Display feeds open now.
    pub fn displays_watching(&self) -> i64 {
        self.displays.get()
    }

    /// The text exposition (`text/plain; version=0.0.4` … OpenMetrics), with the state's
    /// gauges read from `model` and the agents connected now.
    pub(crate) fn render(&self, model: &ReadModel, agents_connected: usize, role: crate::read::status::Role) -> String {
        let registry = self.registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for pool in model.pools() {
            let label = Pool { pool: pool.rules().id.to_string() };
            self.pool_balance.get_or_create(&label).set(centavos(pool.balance().decimal()));
            self.pool_displayed.get_or_create(&label).set(centavos(pool.displayed().decimal()));
        }
        self.pending_payouts.set(i64::try_from(model.pending_orders().count()).unwrap_or(i64::MAX));
        self.journal_entries.set(i64::try_from(model.tip.entries).unwrap_or(i64::MAX));
        self.agents_connected.set(i64::try_from(agents_connected).unwrap_or(i64::MAX));
        self.standby.set(i64::from(role == crate::read::status::Role::Standby));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).expect("writing to a String does not fail");
        text
    }
}

/// An open display feed, counted in `pozo_displays_watching` until dropped.
#[derive(Debug)]
pub(crate) struct DisplayWatch {
    gauge: Gauge,
}

impl Drop for DisplayWatch {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}

/// An amount in whole centavos (amounts are kept to the centavo; a finer one is truncated).
fn centavos(amount: rust_decimal::Decimal) -> i64 {
    (amount * rust_decimal::Decimal::ONE_HUNDRED).trunc().to_i64().unwrap_or(i64::MAX)
}
