//! The controller's metrics, served at `/metrics` on the pages' listener (docs/operations.md
//! §13) through the `prometheus-client` crate: in OpenMetrics, as that crate writes it, when the
//! scraper asks for it, and otherwise in the classic Prometheus text format ([`classic`]).
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

/// Labels naming a level of a pool with levels (docs/readings.md, "Levels").
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Level {
    pool: String,
    level: String,
}

/// Labels naming a table and the pool it feeds.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Table {
    table: String,
    pool: String,
}

/// What a scrape reads beside the read model: the floor as the pages see it.
pub(crate) struct Floor {
    /// The controller serves (not stopping; its writer not stopped).
    pub(crate) serving: bool,
    /// Tables whose agent has its watch open.
    pub(crate) agents_connected: usize,
    /// Each table in force.
    pub(crate) tables: Vec<FloorTable>,
    /// The controller's clock, for the age of the oldest pending order.
    pub(crate) now_ms: u64,
    /// The current jornada's books: each pool's difference, and whether it and its tables tie;
    /// `None` when nothing is journaled in the jornada yet (no money has moved since it opened:
    /// tied, with no difference to show).
    pub(crate) books: Option<Vec<PoolBooks>>,
}

/// A table in force at a scrape.
pub(crate) struct FloorTable {
    pub(crate) table: String,
    pub(crate) pool: String,
    /// Not cerrada.
    pub(crate) open: bool,
    pub(crate) agent_connected: bool,
}

/// A pool's books in the current jornada at a scrape.
pub(crate) struct PoolBooks {
    pub(crate) pool: String,
    pub(crate) difference: pozo_engine::money::Money,
    /// The pool and its tables tie to zero.
    pub(crate) tied: bool,
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
    level_displayed: Family<Level, Gauge>,
    pending_payouts: Gauge,
    journal_entries: Gauge,
    agents_connected: Gauge,
    displays: Gauge,
    standby: Gauge,
    serving: Gauge,
    oldest_pending: Gauge,
    table_open: Family<Table, Gauge>,
    table_agent: Family<Table, Gauge>,
    books_tied: Gauge,
    books_difference: Family<Pool, Gauge>,
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
        let level_displayed = Family::<Level, Gauge>::default();
        registry.register(
            "level_displayed_centavos",
            "Each level's meter on the signs in a pool with levels (never the house's), in centavos",
            level_displayed.clone(),
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
        let serving = Gauge::default();
        registry.register(
            "serving",
            "1 while the controller serves; 0 while it stops, or once its writer stopped",
            serving.clone(),
        );
        let oldest_pending = Gauge::default();
        registry.register(
            "payout_oldest_pending_seconds",
            "How long the oldest payout order PENDIENTE DE PAGO has waited, by the controller's clock (0: none)",
            oldest_pending.clone(),
        );
        let table_open = Family::<Table, Gauge>::default();
        registry.register("table_open", "1 while the table is open (from Apertura to Cierre de Mesa)", table_open.clone());
        let table_agent = Family::<Table, Gauge>::default();
        registry.register(
            "table_agent_connected",
            "1 while the table's agent has its watch open (an open table without it is SUSPENDIDO, 3.7.5)",
            table_agent.clone(),
        );
        let books_tied = Gauge::default();
        registry.register(
            "books_tied",
            "1 while the current jornada's books tie to zero on every pool and its tables",
            books_tied.clone(),
        );
        let books_difference = Family::<Pool, Gauge>::default();
        registry.register(
            "books_difference_centavos",
            "Each pool's difference in the current jornada's books, in centavos (0: tied)",
            books_difference.clone(),
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
            level_displayed,
            pending_payouts,
            journal_entries,
            agents_connected,
            displays,
            standby,
            serving,
            oldest_pending,
            table_open,
            table_agent,
            books_tied,
            books_difference,
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

    /// The OpenMetrics exposition (its classic text: [`classic`]), with the state's gauges read
    /// from `model` and the floor as the pages see it now.
    pub(crate) fn render(&self, model: &ReadModel, floor: &Floor, role: crate::read::status::Role) -> String {
        let registry = self.registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.serving.set(i64::from(floor.serving));
        // Tables and books as they are now: one retired or renamed since is not left behind.
        self.table_open.clear();
        self.table_agent.clear();
        for table in &floor.tables {
            let label = Table { table: table.table.clone(), pool: table.pool.clone() };
            self.table_open.get_or_create(&label).set(i64::from(table.open));
            self.table_agent.get_or_create(&label).set(i64::from(table.agent_connected));
        }
        self.books_difference.clear();
        let mut tied = true;
        for books in floor.books.iter().flatten() {
            self.books_difference.get_or_create(&Pool { pool: books.pool.clone() }).set(centavos(books.difference.decimal()));
            tied &= books.tied;
        }
        self.books_tied.set(i64::from(tied));
        let oldest = model.pending_orders().map(|order| order.time_ms).min();
        let waited = oldest.map_or(0, |marked| floor.now_ms.saturating_sub(marked) / 1_000);
        self.oldest_pending.set(i64::try_from(waited).unwrap_or(i64::MAX));
        // Levels as they are now: one a change renamed is not left behind.
        self.level_displayed.clear();
        for pool in model.pools() {
            let label = Pool { pool: pool.rules().id.to_string() };
            self.pool_balance.get_or_create(&label).set(centavos(pool.balance().decimal()));
            self.pool_displayed.get_or_create(&label).set(centavos(pool.displayed().decimal()));
            for level in pozo_core::state::view::level_meters(pool) {
                let label = Level { pool: label.pool.clone(), level: level.name };
                self.level_displayed.get_or_create(&label).set(centavos(level.displayed.decimal()));
            }
        }
        self.pending_payouts.set(i64::try_from(model.pending_orders().count()).unwrap_or(i64::MAX));
        self.journal_entries.set(i64::try_from(model.tip.entries).unwrap_or(i64::MAX));
        self.agents_connected.set(i64::try_from(floor.agents_connected).unwrap_or(i64::MAX));
        self.standby.set(i64::from(role == crate::read::status::Role::Standby));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).expect("writing to a String does not fail");
        text
    }
}

/// The classic Prometheus text format (`text/plain; version=0.0.4`) of an OpenMetrics
/// exposition as `prometheus-client` writes it. What differs: a counter's family is named as its
/// samples are (`pozo_commands_total`, where OpenMetrics names it `pozo_commands`), and
/// OpenMetrics' `# UNIT` and `# EOF` lines are left out. Without this a Prometheus server reading
/// the classic format lost the counters' type and help (and `promtool check metrics` said so).
pub(crate) fn classic(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> =
        openmetrics.lines().filter_map(|line| line.strip_prefix("# TYPE ")?.strip_suffix(" counter")).collect();
    let mut text = String::with_capacity(openmetrics.len() + 16 * counters.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let family = ["# HELP ", "# TYPE "].into_iter().find_map(|prefix| {
            let (name, rest) = line.strip_prefix(prefix)?.split_once(' ')?;
            counters.contains(name).then(|| format!("{prefix}{name}_total {rest}"))
        });
        text.push_str(family.as_deref().unwrap_or(line));
        text.push('\n');
    }
    text
}

/// Whether an `Accept` header asks for OpenMetrics (a Prometheus server's does; `q=0` refuses it).
pub(crate) fn wants_openmetrics(accept: &str) -> bool {
    accept.split(',').any(|range| {
        let mut parts = range.split(';').map(str::trim);
        parts.next().is_some_and(|kind| kind.eq_ignore_ascii_case("application/openmetrics-text"))
            && !parts.any(|parameter| parameter.strip_prefix("q=").is_some_and(|q| q.parse::<f32>().is_ok_and(|q| q <= 0.0)))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_text_names_counter_families_as_their_samples_and_drops_openmetrics_lines() {
        let openmetrics = "# HELP pozo_commands Commands applied.\n# TYPE pozo_commands counter\n\
                           pozo_commands_total{kind=\"press\"} 3\n# HELP pozo_flush_seconds Flush.\n\
                           # TYPE pozo_flush_seconds histogram\n# UNIT pozo_flush_seconds seconds\n\
                           pozo_flush_seconds_sum 0.5\npozo_flush_seconds_count 2\n\
                           # HELP pozo_journal_entries Entries.\n# TYPE pozo_journal_entries gauge\npozo_journal_entries 7\n# EOF\n";
        assert_eq!(
            classic(openmetrics),
            "# HELP pozo_commands_total Commands applied.\n# TYPE pozo_commands_total counter\n\
             pozo_commands_total{kind=\"press\"} 3\n# HELP pozo_flush_seconds Flush.\n\
             # TYPE pozo_flush_seconds histogram\npozo_flush_seconds_sum 0.5\npozo_flush_seconds_count 2\n\
             # HELP pozo_journal_entries Entries.\n# TYPE pozo_journal_entries gauge\npozo_journal_entries 7\n"
        );
    }

    #[test]
    fn openmetrics_is_served_only_to_who_asks_for_it() {
        assert!(wants_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));
        assert!(wants_openmetrics("text/plain;q=0.5, Application/OpenMetrics-Text; version=1.0.0; q=0.9"));
        assert!(!wants_openmetrics("application/openmetrics-text; q=0, text/plain"));
        assert!(!wants_openmetrics("text/plain; version=0.0.4"));
        assert!(!wants_openmetrics("*/*"));
        assert!(!wants_openmetrics(""));
    }

    #[test]
    fn a_render_holds_every_family_once_and_ends_as_openmetrics_does() {
        let text = {
            let metrics = Metrics::new();
            let registry = metrics.registry.lock().expect("not poisoned");
            let mut text = String::new();
            prometheus_client::encoding::text::encode(&mut text, &registry).expect("encoded");
            text
        };
        assert!(text.ends_with("# EOF\n"), "{text}");
        let text = classic(&text);
        let mut types: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("# TYPE ")).collect();
        let count = types.len();
        types.sort_unstable();
        types.dedup();
        assert_eq!(types.len(), count, "{text}");
        assert!(types.contains(&"pozo_retries_total counter"), "{types:?}");
    }
}
