//! Which table agents are connected, and when each was last heard from: for the
//! floor view (`/sala`). Kept in memory only: it says how the floor is now, not what
//! happened, so it is not journaled.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::clock::Clock;

/// One table's agent, as the floor view shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AgentSeen {
    /// Table watches open now: an agent keeps one while it runs.
    pub(crate) watching: u32,
    /// The last command or watch from the table's agent (Unix ms), a command noted within
    /// [`HEARD_EVERY_MS`] of the last; 0: never since start.
    pub(crate) last_seen_ms: u64,
    /// Where the agent said it serves the table's monitor, at its last watch.
    pub(crate) monitor: Option<Arc<str>>,
}

impl AgentSeen {
    pub fn connected(&self) -> bool {
        self.watching > 0
    }
}

/// How often a table's commands are noted: the floor's pages show the time since a table was
/// heard in whole seconds ("hace N s") and its clock time to the second, which can then read up
/// to half a second early.
pub(crate) const HEARD_EVERY_MS: u64 = 500;

/// Shared between the table service (which records) and the pages (which read).
///
/// The tables are those of the layout at start, fixed: a lookup takes no lock, and a command
/// heard is at most one atomic write every [`HEARD_EVERY_MS`] (it was a lock around an ordered
/// map on every command: docs/benchmarks.md, issue 47 step 13). The watches, opened and closed
/// once per connection, keep a lock per table.
#[derive(Clone, Debug)]
pub(crate) struct Presence {
    tables: Arc<HashMap<String, Seen>>,
    clock: Arc<dyn Clock>,
}

/// One table's agent as recorded.
#[derive(Debug, Default)]
struct Seen {
    /// The latest command or watch (Unix ms).
    last_seen_ms: AtomicU64,
    /// Watches open now, and the monitor the last one announced.
    watches: Mutex<(u32, Option<Arc<str>>)>,
}

impl Seen {
    /// Heard at `now_ms`, unless heard later already.
    fn note(&self, now_ms: u64) {
        self.last_seen_ms.fetch_max(now_ms, Ordering::Relaxed);
    }
}

impl Presence {
    /// Only tables of the layout are recorded, so the map is bounded by the layout.
    pub fn new<'a>(tables: impl IntoIterator<Item = &'a str>, clock: Arc<dyn Clock>) -> Presence {
        let tables = tables.into_iter().map(|id| (id.to_owned(), Seen::default())).collect();
        Presence { tables: Arc::new(tables), clock }
    }

    /// Notes that the table's agent was heard at `now_ms`; a later time never gives way to an earlier one.
    fn seen(&self, table: &str, now_ms: u64) -> Option<&Seen> {
        let seen = self.tables.get(table)?;
        seen.note(now_ms);
        Some(seen)
    }

    /// A command from the table's agent: noted when the last note is [`HEARD_EVERY_MS`] old, so
    /// that a busy table's commands do not each write the same shared memory.
    pub fn heard(&self, table: &str) {
        let now = self.clock.now_ms();
        if let Some(seen) = self.tables.get(table)
            && seen.last_seen_ms.load(Ordering::Relaxed).saturating_add(HEARD_EVERY_MS) <= now
        {
            seen.note(now);
        }
    }

    /// The table's agent opened its watch, saying where it serves the table's monitor (if it
    /// does); it counts as connected until the guard drops.
    pub fn watching(&self, table: &str, monitor: Option<&str>) -> Watching {
        if let Some(seen) = self.seen(table, self.clock.now_ms()) {
            let mut watches = seen.watches.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            watches.0 += 1;
            watches.1 = monitor.map(Arc::from);
        }
        Watching { presence: self.clone(), table: table.to_owned() }
    }

    /// Every table's agent, by table id.
    pub fn tables(&self) -> BTreeMap<String, AgentSeen> {
        self.tables
            .iter()
            .map(|(id, seen)| {
                let watches = seen.watches.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let agent = AgentSeen {
                    watching: watches.0,
                    last_seen_ms: seen.last_seen_ms.load(Ordering::Relaxed),
                    monitor: watches.1.clone(),
                };
                (id.clone(), agent)
            })
            .collect()
    }
}

/// An open table watch; dropping it records the disconnection.
#[derive(Debug)]
pub(crate) struct Watching {
    presence: Presence,
    table: String,
}

impl Drop for Watching {
    fn drop(&mut self) {
        if let Some(seen) = self.presence.seen(&self.table, self.presence.clock.now_ms()) {
            let mut watches = seen.watches.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            watches.0 = watches.0.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_counts_while_open_and_unknown_tables_are_not_recorded() {
        let presence = Presence::new(["m1"], Arc::new(crate::clock::SystemClock));
        assert!(!presence.tables()["m1"].connected());
        let first = presence.watching("m1", None);
        let second = presence.watching("m1", Some("https://192.0.2.7:8443/"));
        assert_eq!(presence.tables()["m1"].monitor.as_deref(), Some("https://192.0.2.7:8443/"));
        assert_eq!(presence.tables()["m1"].watching, 2);
        assert!(presence.tables()["m1"].last_seen_ms > 0);
        drop(first);
        assert!(presence.tables()["m1"].connected());
        drop(second);
        assert!(!presence.tables()["m1"].connected());
        let _ = presence.watching("nope", None);
        presence.heard("nope");
        assert_eq!(presence.tables().len(), 1);
    }

    /// A busy table is noted twice a second at most, never back in time, and only tables of the
    /// layout are: what the floor's pages show as "visto hace N s".
    #[test]
    fn commands_are_noted_twice_a_second_at_most_and_never_back_in_time() {
        let clock = Arc::new(crate::clock::ManualClock::at(10_000));
        let presence = Presence::new(["m1", "m2"], clock.clone());
        let seen = |table: &str| presence.tables()[table].last_seen_ms;
        presence.heard("m1");
        assert_eq!(seen("m1"), 10_000);
        assert_eq!(seen("m2"), 0, "another table is not noted");
        clock.set(10_000 + HEARD_EVERY_MS - 1);
        presence.heard("m1");
        assert_eq!(seen("m1"), 10_000, "within the interval: not noted again");
        clock.set(10_000 + HEARD_EVERY_MS);
        presence.heard("m1");
        assert_eq!(seen("m1"), 10_000 + HEARD_EVERY_MS);
        // A watch opened or closed is noted whatever the interval, and an earlier clock changes nothing.
        clock.set(10_000 + HEARD_EVERY_MS + 1);
        let watch = presence.watching("m1", None);
        assert_eq!(seen("m1"), 10_000 + HEARD_EVERY_MS + 1);
        clock.set(5_000);
        drop(watch);
        presence.heard("m1");
        assert_eq!(seen("m1"), 10_000 + HEARD_EVERY_MS + 1);
        assert!(!presence.tables()["m1"].connected());
        presence.heard("nope");
        assert_eq!(presence.tables().len(), 2);
    }
}
