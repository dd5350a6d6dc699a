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
//! panel now (a new watcher, the flor's page) reads the pool as of the last durable batch. Its
//! watchers are woken at once when none were in the last [`AMOUNTS_EVERY`]; otherwise the
//! panel is noted "quiet" and they are woken when that time is up (the writer's loop waits for
//! [`Amounts::due`]), then reading the newest amounts, with the entry that made them. A panel
//! whose whole view changed in the meantime is woken by it and no longer quiet; an approved
//! change that lists the panels anew wakes every quiet one first. Only durable
//! batches' amounts are ever written, so a panel never shows a bet before it is on disk
//! (11.11.5).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use pozo_core::config::Config;
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
    pub(super) sequence: u64,
    pub(super) displayed: Money,
    /// The meters a table of the pool shows: one list per bank in a pool with banked levels,
    /// one for all tables otherwise.
    pub(super) levels: Vec<Vec<LevelMeter>>,
    /// In a pool with banked levels, each table's list of `levels`, by its place in the pool's
    /// panels; empty otherwise (every table the first list).
    pub(super) of_table: Vec<usize>,
    /// The configuration the pool's panels were listed under when these were prepared: the
    /// places in `of_table` are of its list.
    pub(super) wired: Arc<Config>,
}

impl PoolAmounts {
    /// Writes the amounts into the watch of each table of `panels` but those in `viewed`
    /// (places in the list, ascending: they got a whole view with the same batch). A watch
    /// already showing them is left alone. With `quiet`, its watchers are not woken and its
    /// place is marked there; without, they are. Whether any watcher was woken.
    pub(super) fn write(
        &self,
        panels: &[(TableId, watch::Sender<TablePush>)],
        viewed: &[usize],
        mut quiet: Option<&mut [bool]>,
    ) -> bool {
        let mut woke = false;
        let mut viewed = viewed.iter().copied().peekable();
        for (index, (_, sender)) in panels.iter().enumerate() {
            if viewed.next_if_eq(&index).is_some() {
                continue;
            }
            let Some(levels) = self.levels.get(self.of_table.get(index).copied().unwrap_or(0)) else { continue };
            let mut changed = false;
            woke |= sender.send_if_modified(|push| {
                changed = push.view.displayed != self.displayed || push.view.levels != *levels;
                if changed {
                    push.view.displayed = self.displayed;
                    push.view.levels.clone_from(levels);
                    push.journal_sequence = self.sequence;
                }
                // Written either way; its watchers woken only when not held quiet.
                changed && quiet.is_none()
            });
            if changed && let Some(place) = quiet.as_deref_mut().and_then(|quiet| quiet.get_mut(index)) {
                *place = true;
            }
        }
        woke
    }
}

/// The panels written without waking their watchers, and until when that goes on.
#[derive(Default)]
pub(super) struct Amounts {
    /// By pool: the configuration its panels are listed under, and which of them are quiet.
    quiet: BTreeMap<PoolId, (Arc<Config>, Vec<bool>)>,
    /// Until when watchers are not woken for amounts: the last wake-up and [`AMOUNTS_EVERY`].
    /// `None`: none yet.
    until: Option<Instant>,
}

impl Amounts {
    /// Whether amounts written now wake their watchers (and so, if so, must every quiet panel).
    pub(super) fn open(&self, now: Instant) -> bool {
        self.until.is_none_or(|until| now >= until)
    }

    /// Notes that watchers were woken for amounts at `now`: the next are held quiet until
    /// [`AMOUNTS_EVERY`] after.
    pub(super) fn woken(&mut self, now: Instant) {
        self.until = Some(now + AMOUNTS_EVERY);
    }

    /// Where to mark a pool's quiet panels, `panels` of them as listed under `wired`.
    pub(super) fn quiet(&mut self, pool: &PoolId, panels: usize, wired: &Arc<Config>) -> &mut [bool] {
        let entry = self.quiet.entry(pool.clone()).or_insert_with(|| (Arc::clone(wired), vec![false; panels]));
        if !Arc::ptr_eq(&entry.0, wired) || entry.1.len() != panels {
            *entry = (Arc::clone(wired), vec![false; panels]);
        }
        &mut entry.1
    }

    /// When the quiet panels' watchers must be woken; `None` while none is quiet.
    pub(super) fn due(&self) -> Option<Instant> {
        if self.quiet.is_empty() { None } else { self.until }
    }

    /// Every pool's quiet panels, to be woken now.
    pub(super) fn take(&mut self) -> BTreeMap<PoolId, (Arc<Config>, Vec<bool>)> {
        std::mem::take(&mut self.quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R1's panel, showing `displayed`.
    fn panel(displayed: &str) -> (TableId, watch::Sender<TablePush>, watch::Receiver<TablePush>) {
        let state = pozo_core::state::State::new(Arc::new(Config::embedded()));
        let mut view = state.table_view("R1").expect("R1 is in the embedded layout");
        view.displayed = displayed.parse().expect("an amount");
        let (sender, receiver) = watch::channel(TablePush { journal_sequence: 1, view });
        ("T".into(), sender, receiver)
    }

    #[test]
    fn amounts_wake_at_once_then_no_more_than_once_every_fifty_ms() {
        let wired = Arc::new(Config::embedded());
        let start = Instant::now();
        let mut amounts = Amounts::default();
        assert!(amounts.open(start), "nothing woken yet: at once");
        assert_eq!(amounts.due(), None, "nothing quiet, nothing due");
        amounts.woken(start);
        assert!(!amounts.open(start + Duration::from_millis(10)), "10 ms after a wake-up: quiet");
        amounts.quiet(&"P".into(), 3, &wired)[1] = true;
        assert_eq!(amounts.due(), Some(start + AMOUNTS_EVERY), "due 50 ms after the last wake-up");
        assert_eq!(amounts.quiet(&"P".into(), 3, &wired), &[false, true, false], "marks kept under the same listing");
        let other = Arc::new(Config::embedded());
        assert_eq!(amounts.quiet(&"P".into(), 3, &other), &[false; 3], "another listing starts again");
        let taken = amounts.take();
        assert_eq!(taken.len(), 1, "one per pool");
        assert_eq!(amounts.due(), None, "taken: none due");
        assert!(amounts.open(start + AMOUNTS_EVERY), "50 ms after a wake-up: at once again");
    }

    #[test]
    fn a_quiet_panel_is_written_at_once_and_its_watchers_not_woken() {
        let (a, a_sender, a_watch) = panel("10.00");
        let (b, b_sender, mut b_watch) = panel("10.00");
        let (c, c_sender, mut c_watch) = panel("12.00");
        let panels = [(a, a_sender), (b, b_sender), (c, c_sender)];
        let amounts = PoolAmounts {
            sequence: 7,
            displayed: "12.00".parse().expect("an amount"),
            levels: vec![Vec::new()],
            of_table: Vec::new(),
            wired: Arc::new(Config::embedded()),
        };
        let mut quiet = [false; 3];
        assert!(!amounts.write(&panels, &[1], Some(&mut quiet)), "quiet: nobody woken");
        assert_eq!(quiet, [true, false, false], "the one written marked; the viewed one and the one already showing it not");
        assert!(!a_watch.has_changed().expect("open"), "not woken");
        assert_eq!(a_watch.borrow().view.displayed, amounts.displayed, "but a reader reads the new amount");
        assert_eq!(a_watch.borrow().journal_sequence, 7, "with the entry that made it");
        assert_eq!(b_watch.borrow_and_update().view.displayed, "10.00".parse().expect("an amount"), "viewed: left alone");
        assert_eq!(c_watch.borrow_and_update().journal_sequence, 1, "already showing it: left alone");
        let (d, d_sender, d_watch) = panel("10.00");
        let others = [(d, d_sender)];
        assert!(amounts.write(&others, &[], None), "not quiet: woken");
        assert!(d_watch.has_changed().expect("open"), "woken");
    }
}
