//! The restart journal: written through the writer, as a controller would have written
//! it, then timed.

use super::*;

/// A table of the restart journal: its next sequence and where it is in its cycle.
struct Table {
    id: String,
    sequence: u64,
    cycle: Cycle,
    cards: bool,
    /// A command of this table is with the writer: the next waits for its answer.
    busy: bool,
}

/// Writes a journal of `entries` entries in `directory` for `config` through the writer
/// (`writer::start`, then `Handle::submit`): the genesis entry, then every table's cycle in
/// turn, so chain, tip, snapshot, mark and books are what a controller writes and
/// `pozo-server verify` passes. The writer's clock gives one millisecond of journal time
/// every thousand entries, ending about now. The snapshot is left `snapshot_every - 1`
/// entries behind the tip, the longest replay a restart can meet. Returns the snapshot's
/// entry (0 for none).
pub(super) async fn build_journal(directory: &Path, config: Config, entries: u64, snapshot_every: u64) -> anyhow::Result<u64> {
    let snapshot_at = if entries > snapshot_every { entries - (snapshot_every - 1) } else { 0 };
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as u64;
    let base_ms = now_ms.saturating_sub(entries / 1000 + 1000);
    let clock = Arc::new(ManualClock::at(base_ms));
    let tables: Vec<Table> = config
        .layout
        .tables
        .iter()
        .map(|table| Table {
            id: table.id.to_string(),
            sequence: 1,
            cycle: Cycle::new(table.seats),
            cards: table.game.plays_instant_prize(),
            busy: false,
        })
        .collect();
    // The writer snapshots the first batch that ends `snapshot_every` entries or more past
    // its last snapshot (none yet: 0). So the first stretch runs with an interval of
    // `snapshot_at` and stops right there, which makes its last batch end at that entry and
    // the only one snapshotted; the rest is written by a writer restarted with no interval
    // it can reach.
    let mut build = Build { directory, config, clock, base_ms, tables, next: 2 };
    if snapshot_at > 0 {
        build.stretch(snapshot_at, snapshot_at).await?;
    }
    build.stretch(entries, u64::MAX).await?;
    Ok(snapshot_at)
}

/// A restart journal being written: the writer's clock and where every table is.
struct Build<'a> {
    directory: &'a Path,
    config: Config,
    clock: Arc<ManualClock>,
    /// The journal time of the genesis entry.
    base_ms: u64,
    tables: Vec<Table>,
    /// The next entry to journal.
    next: u64,
}

impl Build<'_> {
    /// Starts the writer on `directory` with a snapshot every `snapshot_every` entries and has
    /// it journal the entries from `*next` to `until`, every table's cycle in turn, then stops
    /// it. A table's commands go one at a time (each follows the answer to the one before, as an
    /// agent's do); up to `writer::BATCH_MAX` tables have one with the writer at once, so the
    /// writer's batches fill as they do under load.
    async fn stretch(&mut self, until: u64, snapshot_every: u64) -> anyhow::Result<()> {
        let Build { directory, config, clock, base_ms, tables, next } = self;
        let mark = pozo_server::journal::mark::default_path(directory);
        let (handle, task, stopper) =
            writer::start(config.clone(), directory, None, &mark, snapshot_every, "pozo-sim bench", clock.clone(), pozo_server::cards::CardSource::Os).await?;
        let durable = handle.durable_entries();
        // A start on a journal that has entries journals its build first (docs/journal.md, "build").
        let started_on = if *next > 2 { *next } else { *next - 1 };
        anyhow::ensure!(durable == started_on, "the writer starts at entry {durable}, not {started_on}");
        *next = durable + 1;
        let mut in_flight = tokio::task::JoinSet::new();
        let answered = |tables: &mut [Table], (index, step, answer): (usize, Step, anyhow::Result<()>)| {
            let table = &mut tables[index];
            answer.with_context(|| format!("{step:?} at table {} (sequence {})", table.id, table.sequence))?;
            table.cycle.applied(step);
            table.sequence += 1;
            table.busy = false;
            anyhow::Ok(())
        };
        while *next <= until {
            let index = (*next as usize - 2) % tables.len();
            while tables[index].busy || in_flight.len() >= writer::BATCH_MAX {
                let joined = in_flight.join_next().await.expect("a command in flight")?;
                answered(tables, joined)?;
            }
            let sequence = *next;
            let table = &mut tables[index];
            let step = table.cycle.next();
            let card = (step == Step::Start && table.cards).then(|| Card::from_index((sequence % 52) as u8));
            let command = pozo_server::table_command(
                pb::TableCommand {
                    table_id: table.id.clone(),
                    sequence: table.sequence,
                    command: Some(step.wire()),
                    ..Default::default()
                },
                card,
            )?;
            table.busy = true;
            clock.set(*base_ms + sequence / 1000);
            let handle = handle.clone();
            in_flight.spawn(async move {
                let answer = match handle.submit(command).await {
                    Ok(Ok(applied)) if applied.journals() => Ok(()),
                    Ok(Ok(_)) => Err(anyhow::anyhow!("changed nothing")),
                    Ok(Err(refusal)) => Err(anyhow::anyhow!("refused: {refusal}")),
                    Err(error) => Err(error.into()),
                };
                (index, step, answer)
            });
            *next += 1;
        }
        while let Some(joined) = in_flight.join_next().await {
            answered(tables, joined?)?;
        }
        drop(handle);
        stopper.stop();
        task.await?;
        Ok(())
    }
}

/// The recovery steps of `writer::start`, timed one by one (ms), and the entries replayed.
pub(super) fn time_recovery(directory: &Path, config: Config) -> anyhow::Result<(f64, f64, f64, f64, u64)> {
    let times = pozo_server::journal::recovery::measure(directory, &config)?;
    let ms = |duration: Duration| micros_to_ms(duration.as_micros() as u64);
    Ok((ms(times.journal_open), ms(times.snapshot_load), ms(times.state_restore), ms(times.replay), times.replayed))
}
