//! A pool's new amount on the panels of its tables that did nothing themselves: written into
//! their watches with every durable batch, their watchers woken at most once every
//! [`AMOUNTS_EVERY`].
//!
//! Every durable batch that grows a pool changes what each of its tables' panels shows: its
//! amount and its levels' meters. A table's own command sends its whole view at once, before
//! its answer (`Writer::send`). The pool's other tables only see the amount move, and a busy
//! floor makes hundreds of batches a second: waking every watcher of every one of those
//! tables for every batch woke every agent's stream as often, each to encode and send its
//! whole view again (docs/benchmarks.md, issue 47, step 10). A panel, like a sign, shows an
//! amount a person reads.
//!
//! So the amounts are written into each panel's watch with the batch, always: whoever reads a
//! panel now (a new watcher, the flor's page) reads the pool as of the last durable batch. Only
//! the wake-up waits: a panel written is marked "quiet", and the quiet panels' watchers are
//! woken at once when none were in the last [`AMOUNTS_EVERY`], otherwise when that time is up
//! (the writer's loop waits for [`Amounts::due`]; a standby wakes them with each round it
//! publishes). They then read the newest amounts, with the journal sequence of the batch that
//! wrote them. A panel whose whole view changed in the meantime was woken by it and is no
//! longer quiet; an approved change that lists the panels anew wakes every quiet one first.
//! Only durable batches' amounts are ever written, so a panel never shows a bet before it is
//! on disk (11.11.5).

use std::collections::BTreeMap;
use std::time::Duration;

use pozo_core::state::panel::LevelMeter;
use pozo_engine::{Money, PoolId, TableId};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::read::signs::TablePush;

/// The least time between two wake-ups of the panels' watchers for amounts alone: the signs'
/// own cadence.
pub(super) const AMOUNTS_EVERY: Duration = Duration::from_millis(50);

/// A pool's amounts as of a durable batch, for the tables that got no whole view with it.
pub(super) struct PoolAmounts {
    /// The batch's last entry: the panels' journal sequence once written.
    pub(super) sequence: u64,
    pub(super) displayed: Money,
    /// The meters a table of the pool shows: one list per bank in a pool with banked levels,
    /// one for all tables otherwise.
    pub(super) levels: Vec<Vec<LevelMeter>>,
    /// In a pool with banked levels, each table's list of `levels`, by its place in the pool's
    /// panels; empty otherwise (every table the first list).
    pub(super) of_table: Vec<usize>,
}

impl PoolAmounts {
    /// Writes the amounts into the watch of each table of `panels` but those in `viewed`
    /// (places in the list, ascending: they got a whole view with the same batch), without
    /// waking its watchers, and marks its place in `quiet`. A watch already showing them is
    /// left alone.
    fn write(&self, panels: &[(TableId, watch::Sender<TablePush>)], viewed: &[usize], quiet: &mut [bool]) {
        let mut viewed = viewed.iter().copied().peekable();
        for ((index, (_, sender)), quiet) in panels.iter().enumerate().zip(quiet) {
            if viewed.next_if_eq(&index).is_some() {
                continue;
            }
            let Some(levels) = self.levels.get(self.of_table.get(index).copied().unwrap_or(0)) else { continue };
            sender.send_if_modified(|push| {
                let changed = push.view.displayed != self.displayed || push.view.levels != *levels;
                if changed {
                    push.view.displayed = self.displayed;
                    push.view.levels.clone_from(levels);
                    push.journal_sequence = self.sequence;
                    *quiet = true;
                }
                // Written, its watchers not woken (`tokio::sync::watch`: a silent modification).
                false
            });
        }
    }
}

/// The panels written without waking their watchers, and until when watchers wait.
#[derive(Default)]
pub(super) struct Amounts {
    /// By pool, its panels' places marked quiet; only pools with one marked.
    quiet: BTreeMap<PoolId, Vec<bool>>,
    /// Until when watchers are not woken for amounts: the last wake-up and [`AMOUNTS_EVERY`].
    /// `None`: none yet.
    until: Option<Instant>,
}

impl Amounts {
    /// Writes a pool's amounts into its `panels` but the `viewed` (ascending), quietly. The
    /// `woken` of them (their whole view changed, waking their watchers with everything) are no
    /// longer quiet.
    pub(super) fn write(
        &mut self,
        pool: &PoolId,
        amounts: &PoolAmounts,
        panels: &[(TableId, watch::Sender<TablePush>)],
        viewed: &[usize],
        woken: &[usize],
    ) {
        let quiet = self.quiet.entry(pool.clone()).or_default();
        // Marks are by place in the list; `Writer::rewire` wakes and takes them all before any
        // list changes, so an entry is only ever of this list.
        quiet.resize(panels.len(), false);
        for &index in woken {
            if let Some(place) = quiet.get_mut(index) {
                *place = false;
            }
        }
        amounts.write(panels, viewed, quiet);
        if !quiet.contains(&true) {
            self.quiet.remove(pool);
        }
    }

    /// Whether watchers may be woken for amounts now.
    pub(super) fn open(&self, now: Instant) -> bool {
        self.until.is_none_or(|until| now >= until)
    }

    /// Notes that watchers were woken for amounts at `now`: the next wait until
    /// [`AMOUNTS_EVERY`] after.
    pub(super) fn woken(&mut self, now: Instant) {
        self.until = Some(now + AMOUNTS_EVERY);
    }

    /// When the quiet panels' watchers are to be woken; `None` while none is quiet.
    pub(super) fn due(&self) -> Option<Instant> {
        if self.quiet.is_empty() { None } else { Some(self.until.unwrap_or_else(Instant::now)) }
    }

    /// Every pool's quiet panels, to be woken now.
    pub(super) fn take(&mut self) -> BTreeMap<PoolId, Vec<bool>> {
        std::mem::take(&mut self.quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// R1's panel (any table's would do), showing `displayed`.
    fn panel(displayed: &str) -> ((TableId, watch::Sender<TablePush>), watch::Receiver<TablePush>) {
        let state = pozo_core::state::State::new(Arc::new(pozo_core::config::Config::embedded()));
        let mut view = state.table_view("R1").expect("R1 is in the embedded layout");
        view.displayed = displayed.parse().expect("an amount");
        let (sender, receiver) = watch::channel(TablePush { journal_sequence: 1, view });
        (("R1".into(), sender), receiver)
    }

    fn amounts(sequence: u64, displayed: &str) -> PoolAmounts {
        PoolAmounts { sequence, displayed: displayed.parse().expect("an amount"), levels: vec![Vec::new()], of_table: Vec::new() }
    }

    #[test]
    fn watchers_wait_fifty_ms_after_a_wake_up() {
        let start = Instant::now();
        let mut waits = Amounts::default();
        assert!(waits.open(start), "nothing woken yet: at once");
        waits.woken(start);
        assert!(!waits.open(start + Duration::from_millis(10)), "10 ms after a wake-up: they wait");
        assert!(waits.open(start + AMOUNTS_EVERY), "50 ms after: at once again");
        assert_eq!(waits.due(), None, "nothing quiet, nothing due");
        let (a, _a_watch) = panel("10.00");
        waits.write(&"P".into(), &amounts(2, "12.00"), &[a], &[], &[]);
        assert_eq!(waits.due(), Some(start + AMOUNTS_EVERY), "a quiet panel: due 50 ms after the last wake-up");
        assert_eq!(waits.take().len(), 1, "one pool");
        assert_eq!(waits.due(), None, "taken: none due");
    }

    #[test]
    fn a_panel_is_written_at_once_its_watchers_not_woken_and_marked_quiet() {
        let (a, a_watch) = panel("10.00");
        let (b, b_watch) = panel("10.00");
        let (c, c_watch) = panel("12.00");
        let (d, _d_watch) = panel("10.00");
        let panels = [a, b, c, d];
        let mut waits = Amounts::default();
        // B got its whole view with the batch; D's whole view woke its watchers with it.
        waits.write(&"P".into(), &amounts(7, "12.00"), &panels, &[1, 3], &[3]);
        assert!(!a_watch.has_changed().expect("open"), "not woken");
        assert_eq!(a_watch.borrow().view.displayed, "12.00".parse().expect("an amount"), "but read: the new amount");
        assert_eq!(a_watch.borrow().journal_sequence, 7, "as of the batch that wrote it");
        assert_eq!(b_watch.borrow().view.displayed, "10.00".parse().expect("an amount"), "viewed: left alone");
        assert_eq!(c_watch.borrow().journal_sequence, 1, "already showing it: left alone");
        assert_eq!(waits.take().get("P").cloned(), Some(vec![true, false, false, false]), "only the one written is quiet");
    }

    #[test]
    fn a_quiet_panel_stays_quiet_until_a_whole_view_wakes_it() {
        let (a, _a_watch) = panel("10.00");
        let panels = [a];
        let mut waits = Amounts::default();
        waits.write(&"P".into(), &amounts(2, "13.00"), &panels, &[], &[]);
        // Its own command's view, the same as the panel showed: nobody woken, still quiet.
        waits.write(&"P".into(), &amounts(3, "13.00"), &panels, &[0], &[]);
        assert!(waits.due().is_some(), "still quiet");
        // A view that changed it woke its watchers with everything: no longer quiet.
        waits.write(&"P".into(), &amounts(4, "13.00"), &panels, &[0], &[0]);
        assert_eq!(waits.due(), None, "nothing quiet");
    }
}
