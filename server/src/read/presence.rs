//! Which table agents are connected, and when each was last heard from: for the
//! floor view (`/sala`). Kept in memory only: it says how the floor is now, not what
//! happened, so it is not journaled.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::clock::Clock;

/// One table's agent, as the floor view shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AgentSeen {
    /// Table watches open now: an agent keeps one while it runs.
    pub(crate) watching: u32,
    /// The last command or watch from the table's agent (Unix ms); 0: never since start.
    pub(crate) last_seen_ms: u64,
    /// Where the agent said it serves the table's monitor, at its last watch.
    pub(crate) monitor: Option<Arc<str>>,
}

impl AgentSeen {
    pub fn connected(&self) -> bool {
        self.watching > 0
    }
}

/// Shared between the table service (which records) and the pages (which read).
#[derive(Clone, Debug)]
pub(crate) struct Presence {
    tables: Arc<Mutex<BTreeMap<String, AgentSeen>>>,
    clock: Arc<dyn Clock>,
}

impl Presence {
    /// Only tables of the layout are recorded, so the map is bounded by the layout.
    pub fn new<'a>(tables: impl IntoIterator<Item = &'a str>, clock: Arc<dyn Clock>) -> Presence {
        let tables = tables.into_iter().map(|id| (id.to_owned(), AgentSeen::default())).collect();
        Presence { tables: Arc::new(Mutex::new(tables)), clock }
    }

    fn update(&self, table: &str, change: impl FnOnce(&mut AgentSeen)) {
        let mut tables = self.tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(seen) = tables.get_mut(table) {
            change(seen);
        }
    }

    /// A command from the table's agent.
    pub fn heard(&self, table: &str) {
        let now = self.clock.now_ms();
        self.update(table, |seen| seen.last_seen_ms = now);
    }

    /// The table's agent opened its watch, saying where it serves the table's monitor (if it
    /// does); it counts as connected until the guard drops.
    pub fn watching(&self, table: &str, monitor: Option<&str>) -> Watching {
        let now = self.clock.now_ms();
        self.update(table, |seen| {
            seen.watching += 1;
            seen.last_seen_ms = now;
            seen.monitor = monitor.map(Arc::from);
        });
        Watching { presence: self.clone(), table: table.to_owned() }
    }

    /// Every table's agent, by table id.
    pub fn tables(&self) -> BTreeMap<String, AgentSeen> {
        self.tables.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
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
        let now = self.presence.clock.now_ms();
        self.presence.update(&self.table, |seen| {
            seen.watching = seen.watching.saturating_sub(1);
            seen.last_seen_ms = now;
        });
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
}
