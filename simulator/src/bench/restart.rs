//! The restart journal: written directly through the state machine, then timed.

use super::*;

/// Writes a journal of `entries` entries in `directory` for `config`: the genesis
/// entry, then every table's cycle in turn, each command applied by the state
/// machine before it is journaled (so chain, tip, snapshot and books are valid:
/// `pozo-server verify` passes). The snapshot is left `snapshot_every - 1`
/// entries behind the tip, the longest replay a restart can meet. Returns the
/// snapshot's entry (0 for none).
pub(super) async fn build_journal(directory: &Path, config: Config, entries: u64, snapshot_every: u64) -> anyhow::Result<u64> {
    struct Table {
        id: String,
        sequence: u64,
        cycle: Cycle,
        cards: bool,
    }
    let config = Arc::new(config);
    let journal = Journal::open(directory)?;
    let mut state = State::new(Arc::clone(&config));
    // One millisecond of journal time every thousand entries, ending about now.
    let base_ms = pozo_server::clock::Clock::now_ms(&pozo_server::clock::SystemClock).saturating_sub(entries / 1000 + 1000);
    let genesis = writer::genesis(&config, base_ms, "pozo-sim bench");
    state
        .apply(&genesis.command, pozo_server::state::Context { sequence: 1, time_ms: base_ms })
        .map_err(|refusal| anyhow::anyhow!("genesis: {refusal}"))?;
    let identity = Identity::generate();
    journal.set_identity(&identity)?;
    let journal_key = config.journal_key.as_ref().context("the keys have a journal key")?;
    let sealer = pozo_server::journal::Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let (value, mut hash): (Vec<u8>, Hash) = Journal::encode(&identity.genesis_previous(), &genesis);
    let mut batch = Vec::with_capacity(BUILD_BATCH);
    batch.push((1, value));
    let snapshot_at = if entries > snapshot_every { entries - (snapshot_every - 1) } else { 0 };
    let mut tables: Vec<Table> = config
        .layout
        .tables
        .iter()
        .map(|table| Table {
            id: table.id.to_string(),
            sequence: 1,
            cycle: Cycle::new(table.seats),
            cards: table.game.plays_instant_prize(),
        })
        .collect();
    for sequence in 2..=entries {
        let index = (sequence as usize - 2) % tables.len();
        let table = &mut tables[index];
        let step = table.cycle.next();
        let wire = step.wire();
        let op = table_op(wire.clone()).map_err(|error| anyhow::anyhow!("{step:?}: {error}"))?;
        let payload =
            pb::TableCommand { table_id: table.id.clone(), sequence: table.sequence, command: Some(wire) }.encode_to_vec();
        let card = (step == Step::Start && table.cards).then(|| Card::from_index((sequence % 52) as u8));
        let command = Command::Table(TableCommand {
            table_id: table.id.clone().into(),
            sequence: table.sequence,
            payload_sha256: payload_sha256(&payload),
            op,
            card,
        });
        let time_ms = base_ms + sequence / 1000;
        match state.apply(&command, pozo_server::state::Context { sequence, time_ms }) {
            Ok(applied) if applied.journals() => {}
            Ok(_) => anyhow::bail!("entry {sequence}: {step:?} at table {} changed nothing", table.id),
            Err(refusal) => anyhow::bail!("entry {sequence}: {step:?} at table {} refused: {refusal}", table.id),
        }
        table.cycle.applied(step);
        table.sequence += 1;
        let record = Record { sequence, time_ms, command };
        let (value, next) = Journal::encode(&hash, &record);
        hash = next;
        batch.push((sequence, value));
        if sequence == snapshot_at {
            let stored = StoredSnapshot { sequence, tip: hex::encode(hash), snapshot: state.snapshot() };
            journal.save_snapshot(&stored, &sealer)?;
        }
        if batch.len() >= BUILD_BATCH {
            let seal = sealer.tip_seal(sequence, &hash);
            journal.append(std::mem::replace(&mut batch, Vec::with_capacity(BUILD_BATCH)), (sequence, hash), seal).await?;
        }
    }
    if !batch.is_empty() {
        journal.append(batch, (entries, hash), sealer.tip_seal(entries, &hash)).await?;
    }
    // What a controller that wrote this journal would have acknowledged: all of it.
    pozo_server::journal::mark::Mark::open(&pozo_server::journal::mark::default_path(directory), sealer)?
        .write(entries, &hash)?;
    Ok(snapshot_at)
}

/// The recovery steps of `writer::start`, timed one by one (ms).
pub(super) fn time_recovery(directory: &Path, config: Config) -> anyhow::Result<(f64, f64, f64, f64, u64)> {
    let started = Instant::now();
    let journal = Journal::open(directory)?;
    let opened = started.elapsed();
    let (entries, _) = journal.tip()?;
    let identity = journal.identity()?.context("the built journal has an identity")?;
    let sealer = pozo_server::journal::Sealer::new(config.journal_key.as_ref().context("a journal key")?, &identity)
        .map_err(anyhow::Error::msg)?;
    let (_, tip, recovery) = pozo_server::journal::recovery::recover(&journal, &identity, &sealer, &Arc::new(config), entries)?;
    let ms = |duration: Duration| micros_to_ms(duration.as_micros() as u64);
    Ok((
        ms(opened),
        ms(recovery.snapshot_load),
        ms(recovery.state_restore),
        ms(recovery.replay),
        tip.entries - recovery.snapshot_at,
    ))
}
