//! `--watch`: every table's panel watched, as each table's agent does (`Table/Watch`), its
//! pushes counted. Without it the load only sends commands, and the controller's CPU per
//! press leaves out what waking the watching agents costs it on a real floor.

use super::*;

/// Every table's `Table/Watch` stream, each read by a task counting its pushes.
pub(super) struct Watchers {
    pushes: Arc<AtomicU64>,
    readers: Vec<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl Watchers {
    /// Opens one stream per agent's table, on the agent's own connection and signed with its
    /// table's key, and waits for each stream's first push (the panel as it stands).
    pub(super) async fn open(config: &Config, agents: &[Agent]) -> anyhow::Result<Watchers> {
        let pushes = Arc::new(AtomicU64::new(0));
        let mut readers = Vec::with_capacity(agents.len());
        let mut opened = Vec::with_capacity(agents.len());
        for agent in agents {
            let key = casino::table_key(config, &agent.table)?;
            let payload = pb::WatchTable { table_id: agent.table.clone(), ..Default::default() }.encode_to_vec();
            let envelope =
                pozo_proto::sign(&agent.key_id, &key.secret, pozo_proto::Purpose::WatchTable, &agent.journal_id, payload);
            let mut client = agent.client.clone();
            let (first, first_seen) = tokio::sync::oneshot::channel();
            opened.push(first_seen);
            let pushes = Arc::clone(&pushes);
            readers.push(tokio::spawn(async move {
                let mut stream: tonic::Streaming<pb::TableEvent> = client.watch(envelope).await?.into_inner();
                stream.message().await?.context("the watch ended before its first push")?;
                let _ = first.send(());
                while stream.message().await?.is_some() {
                    pushes.fetch_add(1, Ordering::Relaxed);
                }
                anyhow::Ok(())
            }));
        }
        for (index, first_seen) in opened.into_iter().enumerate() {
            if first_seen.await.is_err() {
                // Its reader has ended, with the reason.
                let reader = readers.swap_remove(index);
                for other in &readers {
                    other.abort();
                }
                return Err(match reader.await? {
                    Err(error) => error.context("watching a table"),
                    Ok(()) => anyhow::anyhow!("a table's watch ended before its first push"),
                });
            }
        }
        Ok(Watchers { pushes, readers })
    }

    /// Pushes counted so far.
    pub(super) fn pushes(&self) -> u64 {
        self.pushes.load(Ordering::Relaxed)
    }

    /// The counter, for a window to read at its ends.
    pub(super) fn counter(&self) -> &AtomicU64 {
        &self.pushes
    }
}

impl Drop for Watchers {
    fn drop(&mut self) {
        for reader in &self.readers {
            reader.abort();
        }
    }
}

/// The paced phase's pushes: counted from before its first press to after its last answer,
/// against every press it sent (its `samples`), at its press rate.
// Statistics, not money.
#[allow(clippy::float_arithmetic, clippy::cast_precision_loss)]
pub(super) fn watched_paced(pushes: u64, latency: &Latency) -> Watched {
    let pushes_per_press = if latency.samples > 0 { pushes as f64 / latency.samples as f64 } else { 0.0 };
    Watched { pushes, pushes_per_s: pushes_per_press * latency.achieved_rate, pushes_per_press }
}

/// A throughput window's pushes, counted at its ends as its presses are.
// Statistics, not money.
#[allow(clippy::float_arithmetic, clippy::cast_precision_loss)]
pub(super) fn watched_window(window: &Window) -> Watched {
    Watched {
        pushes: window.pushes,
        pushes_per_s: per_second(window.pushes, window.elapsed),
        pushes_per_press: if window.presses > 0 { window.pushes as f64 / window.presses as f64 } else { 0.0 },
    }
}
