//! The oracle's checks on a run, after each step and at each start: the disk's journal
//! replayed by the pure core, what the floor saw against it, and what a controller reports.

use pozo_proto::v1 as pb;

use super::{Failure, World, disk, floor};

impl World {
    /// A start that served: nothing acknowledged is gone, and it serves the disk's journal.
    pub(super) fn served(&mut self) -> Result<(), Box<Failure>> {
        let acked_max = self.seen.borrow().acked_max;
        if acked_max > self.disk.entries() {
            return Err(self.fail(format!(
                "recovery: the controller serves {} entries, but entry {acked_max} was acknowledged (it serves short)",
                self.disk.entries()
            )));
        }
        self.disk.served();
        self.replay(true)?;
        self.same_draws()?;
        self.recovered_at.push(self.disk.entries());
        // Every command ever acknowledged is still in the journal, at its entry: a start that
        // came back short by one entry and then journaled its own build would match in count.
        let acked: Vec<((String, u64), u64)> =
            self.seen.borrow().acked.iter().map(|(key, entry)| (key.clone(), *entry)).collect();
        for ((table, sequence), entry) in acked {
            if self.oracle.table_commands.get(&(table.clone(), sequence)) != Some(&entry) {
                return Err(self.fail(format!(
                    "recovery: table {table} command {sequence}, acknowledged at entry {entry}, is not in the journal served \
                     (it serves short)"
                )));
            }
        }
        Ok(())
    }

    /// After a recovery (a restart, a takeover): every mystery draw journaled before it that the
    /// disk still holds is the same entry with the same commitment — the same trigger stands,
    /// never drawn again (docs/readings.md, "The mystery level"); every reveal since opened its
    /// draw (the pure core refuses one that does not, `replay`).
    pub(super) fn same_draws(&mut self) -> Result<(), Box<Failure>> {
        let mut open = 0;
        for (key, (entry, commitment)) in &self.draws_journaled {
            match self.oracle.draws.get(key) {
                Some((again, committed)) if again == entry && committed == commitment => open += 1,
                other => {
                    return Err(self.fail(format!(
                        "mystery: pool {} level {} cycle {} was drawn at entry {entry} (commitment {}…) before the \
                         recovery; the journal served holds {other:?}",
                        key.0,
                        key.1,
                        key.2,
                        &commitment[..16.min(commitment.len())]
                    )));
                }
            }
        }
        if open > 0 {
            self.outcome.draws_recovered += 1;
        }
        Ok(())
    }

    /// Replays the disk's journal into the oracle; `again` from the first entry.
    pub(super) fn replay(&mut self, again: bool) -> Result<(), Box<Failure>> {
        let image = self.disk.written();
        self.oracle.catch_up(&image.entries, again).map_err(|problem| self.fail(problem))?;
        self.oracle.books_tie().map_err(|problem| self.fail(problem))?;
        Ok(())
    }

    /// Every invariant, after a step.
    pub(super) async fn check_everything(
        &mut self,
        oracle_channel: &tonic::transport::Channel,
        journal_id: &str,
    ) -> Result<(), Box<Failure>> {
        self.check_journal()?;
        self.check_reports(oracle_channel, journal_id, false).await
    }

    /// The journal on the disk, and what the floor saw against it.
    pub(super) fn check_journal(&mut self) -> Result<(), Box<Failure>> {
        self.replay(false)?;
        self.draws_journaled.clone_from(&self.oracle.draws);
        // An append at an entry already committed: two writers, whatever became of the second.
        if self.disk.counts().fenced > 0 {
            return Err(self.fail("takeover: an append was fenced (an entry another writer had committed): two writers".into()));
        }
        if let Some(broken) = self.seen.borrow().broken.first().cloned() {
            return Err(self.fail(broken));
        }
        // Every command acknowledged is in the journal, once, at the entry its answer named.
        let fresh = std::mem::take(&mut self.seen.borrow_mut().fresh);
        for (table, sequence, entry) in fresh {
            match self.oracle.table_commands.get(&(table.clone(), sequence)) {
                Some(at) if *at == entry => {}
                Some(at) => {
                    return Err(self.fail(format!(
                        "exactly once: table {table} command {sequence} was answered with entry {entry} but is journaled at {at}"
                    )));
                }
                None => {
                    return Err(self.fail(format!(
                        "durability: table {table} command {sequence} was acknowledged (entry {entry}) but is not in the journal \
                         ({} entries)",
                        self.oracle.entries()
                    )));
                }
            }
        }
        // Every award an answer paid is the journal's: the pure core, replaying the entry the
        // answer named, pays the same seats the same codes the same amounts, from the level
        // each is paid from (docs/readings.md, "Levels"), the envy awards included.
        let paid = std::mem::take(&mut self.seen.borrow_mut().paid);
        for (entry, table, sequence, awards) in paid {
            let replayed = self.oracle.awards.get(&entry).cloned().unwrap_or_default();
            if awards != replayed {
                return Err(self.fail(format!(
                    "awards: table {table} command {sequence} (entry {entry}) was answered paying {awards:?}; the journal \
                     replayed pays {replayed:?}"
                )));
            }
        }
        // The controller's own books, every level of every pool, as its latest snapshot on the
        // disk keeps them, are the journal's at the snapshot's entry.
        self.check_snapshot()?;
        // Every Venta-Pagos decision answered is in the journal, once, at the entry it named.
        let decided: Vec<(String, u64)> =
            self.seen.borrow().decided.iter().map(|(order, entry)| (order.clone(), *entry)).collect();
        for (order, entry) in decided {
            if self.oracle.decisions.get(&order) != Some(&entry) {
                return Err(self.fail(format!(
                    "durability: order {order}'s decision was answered at entry {entry} but the journal has {:?}",
                    self.oracle.decisions.get(&order)
                )));
            }
        }
        // The signs showed only amounts the journal holds at the entry they name.
        let signs: Vec<_> = self.seen.borrow().signs[self.checked_signs..].to_vec();
        self.checked_signs += signs.len();
        for (sequence, amounts) in signs {
            let Some(pools) = self.oracle.at(sequence) else {
                return Err(self.fail(format!("signs: an update names entry {sequence}, beyond the journal")));
            };
            for (pool, shown) in amounts {
                let held = pools.get(&pool).map(|figures| figures.displayed);
                if held.map(|held| held.to_string().parse::<rust_decimal::Decimal>().ok())
                    != Some(shown.parse::<rust_decimal::Decimal>().ok())
                {
                    return Err(
                        self.fail(format!("signs: pool {pool} shown as {shown} at entry {sequence}, the journal holds {held:?}"))
                    );
                }
            }
        }
        Ok(())
    }

    /// The latest snapshot the controller stored (each new one once): every level of every
    /// pool as the journal replayed holds it after the snapshot's entry. A snapshot left torn
    /// by a crash does not decode and is recovery's to ignore.
    fn check_snapshot(&mut self) -> Result<(), Box<Failure>> {
        let image = self.disk.written();
        let Some(bytes) = image.meta.get(disk::SNAPSHOT) else { return Ok(()) };
        let Ok(stored) = serde_json::from_slice::<pozo_server::journal::StoredSnapshot>(bytes) else { return Ok(()) };
        let key = (stored.sequence, stored.tip.clone());
        if self.checked_snapshot.as_ref() == Some(&key) || stored.sequence > self.oracle.entries() {
            return Ok(());
        }
        self.checked_snapshot = Some(key);
        match self.oracle.snapshot_difference(&stored) {
            Some(difference) => Err(self.fail(difference)),
            None => Ok(()),
        }
    }

    /// What a controller reports is the journal's. `may_be_gone`: the controller may be going
    /// (a pair's): a request it does not answer is no failure (its answers are what is checked).
    pub(super) async fn check_reports(
        &mut self,
        oracle_channel: &tonic::transport::Channel,
        journal_id: &str,
        may_be_gone: bool,
    ) -> Result<(), Box<Failure>> {
        let credential = {
            let secret = &self.config.keys.get("sup-carla").expect("the embedded supervisor key").secret;
            pozo_proto::ReadCredential::new("sup-carla", secret, journal_id)
        };
        let mut pools = pb::pools_client::PoolsClient::with_interceptor(oracle_channel.clone(), credential);
        // The clean connection is never cut, but the controller closes old connections (their
        // age is bounded): asked again on a new one.
        let mut tries = 0;
        let status = loop {
            match pools.status(pb::PoolStatusRequest::default()).await {
                Ok(status) => break status.into_inner(),
                Err(status) if tries < 3 && floor::no_answer(&status) => tries += 1,
                Err(status) if may_be_gone && floor::no_answer(&status) => return Ok(()),
                Err(status) => return Err(self.fail(format!("reports: Pools.Status over the clean connection: {status}"))),
            }
        };
        for pool in status.pools {
            let Some(figures) = self.oracle.at(pool.sequence).and_then(|pools| pools.get(&pool.pool_id)) else {
                return Err(self.fail(format!(
                    "reports: pool {} reported at entry {}, beyond the journal ({} entries)",
                    pool.pool_id,
                    pool.sequence,
                    self.oracle.entries()
                )));
            };
            let reported = pool.balance.map(|amount| amount.value).unwrap_or_default();
            if reported.parse::<rust_decimal::Decimal>().ok() != figures.balance.to_string().parse().ok() {
                return Err(self.fail(format!(
                    "reports: pool {} has {reported} at entry {} on the controller, {} in the journal replayed",
                    pool.pool_id, pool.sequence, figures.balance
                )));
            }
        }
        Ok(())
    }
}
