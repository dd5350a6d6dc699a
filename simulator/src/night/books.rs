//! The books: the server's reports before and after, compared with what the simulator
//! counted, the journal read back through the audit's own decoder, and the report.

use super::*;

// ----------------------------------------------------------------------------- the books

/// The server's reports at one moment.
pub(super) struct Snapshot {
    pub(super) pools: BTreeMap<String, pb::PoolReport>,
    pub(super) tables: BTreeMap<String, BTreeMap<String, pb::TableReport>>,
    pub(super) journal_entries: u64,
    pub(super) tip_hash: String,
}

impl Snapshot {
    pub(super) async fn take(config: &Config, url: &str) -> anyhow::Result<Snapshot> {
        Snapshot::take_with(config, url, &BTreeSet::new()).await
    }

    /// The reports, with the table reports of the current jornada and of `jornadas`.
    pub(super) async fn take_with(config: &Config, url: &str, jornadas: &BTreeSet<String>) -> anyhow::Result<Snapshot> {
        let mut reports = reports_on(config, connect(url).await?).await?;
        let mut pools = BTreeMap::new();
        let pool_ids: BTreeSet<&str> = config.layout.tables.iter().map(|table| table.pool.as_str()).collect();
        for pool in pool_ids {
            let report =
                reports.pool(pb::PoolReportRequest { pool_id: pool.to_owned(), ..Default::default() }).await?.into_inner();
            pools.insert(pool.to_owned(), report);
        }
        let mut tables = BTreeMap::new();
        for table in &config.layout.tables {
            let mut days = BTreeMap::new();
            let current = reports
                .table(pb::TableReportRequest { table_id: table.id.to_string(), jornada: String::new() })
                .await?
                .into_inner();
            for jornada in jornadas {
                if *jornada != current.jornada {
                    let report = reports
                        .table(pb::TableReportRequest { table_id: table.id.to_string(), jornada: jornada.clone() })
                        .await?
                        .into_inner();
                    days.insert(jornada.clone(), report);
                }
            }
            days.insert(current.jornada.clone(), current);
            tables.insert(table.id.to_string(), days);
        }
        let journal = reports.journal(pb::JournalStatusRequest {}).await?.into_inner();
        Ok(Snapshot { pools, tables, journal_entries: journal.entries, tip_hash: journal.tip_hash })
    }

    pub(super) fn jornadas(&self) -> BTreeSet<String> {
        self.tables.values().flat_map(|days| days.keys().cloned()).collect()
    }
}

/// The night's books: `after` less `before`, counters summed over the jornadas.
pub(super) fn books_of(before: &Snapshot, after: &Snapshot) -> Books {
    let mut books = Books::default();
    for (pool, now) in &after.pools {
        let then = before.pools.get(pool).cloned().unwrap_or_default();
        books.pools.insert(
            pool.clone(),
            PoolBooks {
                bets: now.bets - then.bets,
                bets_amount: amount(&now.bets_amount) - amount(&then.bets_amount),
                contributions: amount(&now.contributions) - amount(&then.contributions),
                commission: amount(&now.commission) - amount(&then.commission),
                replenishments: amount(&now.replenishments) - amount(&then.replenishments),
                awards: amount(&now.awards) - amount(&then.awards),
                hits: now.hits - then.hits,
                balance: amount(&now.balance),
                reserve: amount(&now.reserve),
                displayed: amount(&now.displayed),
            },
        );
    }
    for (table, days) in &after.tables {
        let mut sum = TableBooks::default();
        for (jornada, now) in days {
            let then = before.tables.get(table).and_then(|days| days.get(jornada)).cloned().unwrap_or_default();
            sum.bets += now.bets - then.bets;
            sum.presses += now.presses - then.presses;
            sum.ipa += amount(&now.ipa) - amount(&then.ipa);
            sum.pppa += amount(&now.pppa) - amount(&then.pppa);
            sum.credits_sold += now.credits_sold - then.credits_sold;
            sum.credits_returned += now.credits_returned - then.credits_returned;
        }
        books.tables.insert(table.clone(), sum);
    }
    books
}

/// The simulator's own count against the server's books; the differences found.
pub(super) fn compare(
    config: &Config,
    counted: &BTreeMap<String, Counted>,
    books: &Books,
    before: &Snapshot,
    replenishments: &BTreeMap<String, Money>,
    levels: &BTreeMap<String, pozo_engine::Pool>,
) -> Vec<String> {
    let mut differences = Vec::new();
    let mut per_pool: BTreeMap<&str, (u64, Money, Money, u64)> = BTreeMap::new();
    for table in &config.layout.tables {
        let rules = config.rulebooks.pool(&table.pool).expect("validated layout");
        // The table's own bet: its game's in a link across games (`game_bets`).
        let side_bet = rules.side_bet_for(table.game);
        let mine = counted.get(table.id.as_str()).cloned().unwrap_or_default();
        let theirs = books.tables.get(table.id.as_str()).cloned().unwrap_or_default();
        compare_table(&table.id, side_bet, &mine, &theirs, &mut differences);
        let entry = per_pool.entry(table.pool.as_str()).or_default();
        entry.0 += mine.presses;
        entry.1 += Decimal::from(mine.presses) * side_bet;
        entry.2 += mine.awards;
        entry.3 += mine.hits;
    }
    for (pool, totals) in per_pool {
        compare_pool(config, pool, totals, books, before, replenishments, levels.get(pool), &mut differences);
    }
    differences
}

/// One table's count against its books: presses, side bets, IPA, PPPA, credits sold and returned.
fn compare_table(
    id: &impl std::fmt::Display,
    side_bet: Money,
    mine: &Counted,
    theirs: &TableBooks,
    differences: &mut Vec<String>,
) {
    let mut differ = |what: String| differences.push(what);
    // Every acknowledged press is a registered side bet: nothing was voided.
    if theirs.presses != mine.presses {
        differ(format!("table {id}: {} presses acknowledged, the report has {}", mine.presses, theirs.presses));
    }
    if theirs.bets != mine.presses {
        differ(format!("table {id}: {} side bets acknowledged, the report has {}", mine.presses, theirs.bets));
    }
    let ipa = Decimal::from(mine.presses) * side_bet;
    if theirs.ipa != ipa {
        differ(format!("table {id}: IPA {ipa} by the simulator's count, the report has {}", theirs.ipa));
    }
    if theirs.pppa != mine.awards {
        differ(format!("table {id}: PPPA {} by the acknowledged awards, the report has {}", mine.awards, theirs.pppa));
    }
    if theirs.credits_sold != mine.credits_sold {
        differ(format!("table {id}: {} credits sold, the report has {}", mine.credits_sold, theirs.credits_sold));
    }
    // Pago de créditos at the end of the night: every credit not bet goes back (12.5.3.5).
    let unbet = mine.credits_sold.checked_sub(mine.presses);
    if unbet != Some(theirs.credits_returned) {
        differ(format!(
            "table {id}: {} credits sold and {} bet, the report has {} returned",
            mine.credits_sold, mine.presses, theirs.credits_returned
        ));
    }
}

/// What of each bet feeds the pool: 3.2.1, 11.2.3, 15.2.4 the share of each bet; AJ 2.5.6.3
/// main and reserve; a pool with levels, every level's share and reserve share (docs/readings.md,
/// "Levels"; the first level's are the pool's own rates).
pub(super) fn fed_rate(rules: &pozo_engine::PoolRules) -> Decimal {
    if rules.levels.is_empty() {
        rules.contribution_rate + rules.reserve_rate
    } else {
        rules.levels.iter().map(|level| level.share + level.reserve_share).sum()
    }
}

/// One pool's totals (side bets, awards, hits) against its books, its conservation over the
/// night, and what its display shows; a pool with levels, its balances against the simulator's
/// count of its levels (`levels`).
#[allow(clippy::too_many_arguments)]
fn compare_pool(
    config: &Config,
    pool: &str,
    (bets, bets_amount, awards, hits): (u64, Money, Money, u64),
    books: &Books,
    before: &Snapshot,
    replenishments: &BTreeMap<String, Money>,
    levels: Option<&pozo_engine::Pool>,
    differences: &mut Vec<String>,
) {
    let mut differ = |what: String| differences.push(what);
    let rules = config.rulebooks.pool(pool).expect("validated layout");
    let theirs = books.pools.get(pool).cloned().unwrap_or_default();
    let contributions = bets_amount * fed_rate(rules);
    let commission = bets_amount * rules.commission_rate;
    let checks = [
        ("side bets", Decimal::from(bets), Decimal::from(theirs.bets)),
        ("bets amount", bets_amount.decimal(), theirs.bets_amount.decimal()),
        ("contributions", contributions.decimal(), theirs.contributions.decimal()),
        ("commission", commission.decimal(), theirs.commission.decimal()),
        ("awards", awards.decimal(), theirs.awards.decimal()),
        ("hits", Decimal::from(hits), Decimal::from(theirs.hits)),
    ];
    for (what, mine, reported) in checks {
        if mine != reported {
            differ(format!("pool {pool}: {what} {mine} by the simulator's count, the server reports {reported}"));
        }
    }
    // 3.2.2, 11.2.2, 15.2.2: what the house put in, as the rulebook computed it at each ACEPTAR.
    let replenished = replenishments.get(pool).copied().unwrap_or_default();
    if theirs.replenishments != replenished {
        differ(format!(
            "pool {pool}: replenishments {replenished} by the rulebook, the server reports {}",
            theirs.replenishments
        ));
    }
    // Conservation over the night: what came in is held in the pool or was paid.
    let then = before.pools.get(pool).cloned().unwrap_or_default();
    let held_before = amount(&then.balance) + amount(&then.reserve);
    let held_after = theirs.balance + theirs.reserve;
    if held_before + contributions + replenished - awards != held_after {
        differ(format!(
            "pool {pool}: {held_before} held + {contributions} contributed + {replenished} replenished − {awards} awarded ≠ {held_after} held now"
        ));
    }
    if let Some(levels) = levels {
        // The pool's figures are its levels added, its sign the first level's (docs/readings.md,
        // "Levels"): the simulator's count of every level against them.
        let counted = (levels.balance(), levels.reserve(), levels.displayed());
        if (theirs.balance, theirs.reserve, theirs.displayed) != counted {
            differ(format!(
                "pool {pool}: balance {}, reserve {}, display {} reported; the simulator's levels add to {}, {}, {}",
                theirs.balance, theirs.reserve, theirs.displayed, counted.0, counted.1, counted.2
            ));
        }
        return;
    }
    // 3.5.1: the display is what the rulebook's minimum_kind makes of the balance: never
    // under a floor minimum (IPLyC 3.2.2, 11.2.2, 15.2.3), the balance where the minimum
    // is only the starting amount (Póquer sin descarte 6.3, AJ 2.5.6.3).
    let shown = rules.displayed_for(theirs.balance);
    if theirs.displayed != shown {
        differ(format!(
            "pool {pool}: the display shows {}, not {shown} (balance {}, {} minimum {})",
            theirs.displayed,
            theirs.balance,
            rules.minimum_kind.name(),
            rules.minimum
        ));
    }
}

/// The journal read back through `Reports.Entries`, its chain checked from the
/// first entry (whose previous hash is SHA-256("pozo.v1 genesis", 0, installation))
/// to the tip the server reports: the presses it records after the night's start,
/// as (table, seat, table sequence).
///
/// With `replayed`, every record is also applied to that state by the pure core, as `verify`
/// does (the levels' books at the end of the night).
pub(super) async fn journal_presses(
    config: &Config,
    channel: Channel,
    since: u64,
    after: &Snapshot,
    mut replayed: Option<&mut pozo_server::state::State>,
) -> anyhow::Result<(u64, BTreeSet<(String, u32, u64)>, Option<String>)> {
    let installation = journal_id(&channel).await?.installation;
    let mut reports = reports_on(config, channel).await?;
    let mut presses = BTreeSet::new();
    let mut problem = None;
    // The audit's own reader (docs/journal.md): its own types and its own hashes.
    let mut chain = journal::Chain::new(&installation);
    'pages: loop {
        let page = reports.entries(pb::JournalEntriesRequest { after: chain.entries(), limit: 0 }).await?.into_inner();
        if page.entries.is_empty() {
            break;
        }
        for entry in page.entries {
            match chain.next(entry.sequence, &entry.previous_hash, &entry.hash, entry.record_json.as_bytes()) {
                Ok(record) if entry.sequence > since => presses.extend(journal::press(&record)),
                Ok(_) => {}
                Err(broken) => {
                    problem = Some(broken.to_string());
                    break 'pages;
                }
            }
            if let Some(state) = replayed.as_deref_mut()
                && let Err(refused) = replay_entry(state, entry.record_json.as_bytes())
            {
                problem = Some(format!("journal entry {} replayed by the pure core: {refused}", entry.sequence));
                break 'pages;
            }
        }
    }
    let entries = chain.entries();
    let previous_hash = hex::encode(chain.tip());
    // Both ends anchored: the chain read ends at the tip the server reports.
    if problem.is_none() && (entries != after.journal_entries || previous_hash != after.tip_hash) {
        problem = Some(format!(
            "the journal read back ends at entry {entries} ({previous_hash}); the server reports {} entries, tip {}",
            after.journal_entries, after.tip_hash
        ));
    }
    Ok((entries, presses, problem))
}

/// One journal record applied to `state` by the pure core, as recovery and `verify` apply it.
fn replay_entry(state: &mut pozo_server::state::State, record_json: &[u8]) -> Result<(), String> {
    let record: pozo_server::journal::Record = serde_json::from_slice(record_json).map_err(|error| error.to_string())?;
    let context = pozo_server::state::Context { sequence: record.sequence, time_ms: record.time_ms };
    state.apply(&record.command, context).map(|_| ()).map_err(|refusal| refusal.to_string())
}

/// Every level of every pool with levels on its own books (docs/readings.md, "Levels"), from
/// the journal replayed (`replayed`): each tied to zero by its own meters, and holding what the
/// simulator's count of the night holds (`counted`). The figures, and the first difference.
pub(super) fn level_books(
    replayed: &pozo_server::state::State,
    counted: &BTreeMap<String, pozo_engine::Pool>,
    differences: &mut Vec<String>,
) -> (BTreeMap<String, Vec<LevelBooks>>, String) {
    let mut figures = BTreeMap::new();
    let mut first = None;
    for (pool_id, mine) in counted {
        let pool = replayed.pool(pool_id);
        let mut problem = None;
        let views = pool.levels();
        for (index, level) in views.iter().enumerate() {
            let difference = levels::difference(level);
            if !difference.is_zero() && problem.is_none() {
                problem = Some(format!(
                    "levels: pool {pool_id} {} does not tie: off by {difference} (the journal replayed)",
                    levels::name(level, index)
                ));
            }
        }
        if problem.is_none()
            && let Some(differs) = levels::first_difference(&levels::held(mine), &levels::held_in(&pool.state()))
        {
            problem = Some(format!(
                "levels: pool {pool_id}, {}: the journal replayed holds {} (+ {} in reserve), the simulator's count {} (+ {})",
                differs.level, differs.theirs.0, differs.theirs.1, differs.ours.0, differs.ours.1
            ));
        }
        if let Some(problem) = problem {
            differences.push(problem.clone());
            first.get_or_insert(problem);
        }
        let books = views
            .iter()
            .enumerate()
            .map(|(index, level)| LevelBooks {
                name: level.name.clone().unwrap_or_else(|| format!("{}", index + 1)),
                house: level.house,
                balance: level.balance,
                reserve: level.reserve,
                displayed: level.displayed,
                contributions: level.meters.net_contributions(),
                replenishments: level.meters.net_replenishments(),
                reserve_transfers: level.meters.reserve_transfers - level.meters.reserve_transfers_returned,
                awards: level.meters.net_awards(),
                hits: level.meters.hits,
                difference: levels::difference(level),
            })
            .collect();
        figures.insert(pool_id.clone(), books);
    }
    let verdict = match (first, counted.is_empty()) {
        (Some(problem), _) => problem,
        (None, true) => "no pool with levels".to_owned(),
        (None, false) => "ok".to_owned(),
    };
    (figures, verdict)
}

/// An office command signed with the Venta-Pagos operator's key for the controller's journal.
pub(super) fn office_envelope(
    office: &(String, Vec<u8>),
    journal_id: &str,
    command: pb::office_command::Command,
) -> pb::Envelope {
    let payload = pb::OfficeCommand { command: Some(command) }.encode_to_vec();
    pozo_proto::sign(&office.0, &office.1, pozo_proto::Purpose::OfficeCommand, journal_id, payload)
}

/// Payout orders marked during the night and still pending: every one should have been confirmed.
pub(super) async fn pending_orders(
    channel: Channel,
    office: &(String, Vec<u8>),
    journal_id: &str,
    after: u64,
) -> anyhow::Result<Vec<String>> {
    let envelope =
        office_envelope(office, journal_id, pb::office_command::Command::List(pb::ListPayouts { status: String::new() }));
    let list = pb::venta_pagos_client::VentaPagosClient::new(channel).list(envelope).await?.into_inner();
    Ok(list
        .orders
        .iter()
        .filter(|order| order.journal_sequence > after)
        .map(|order| format!("Venta-Pagos: order {} of table {} is still `{}`", order.order_id, order.table_id, order.status))
        .collect())
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn latency(mut micros: Vec<u64>) -> Latency {
    if micros.is_empty() {
        return Latency { p50: 0.0, p99: 0.0, max: 0.0 };
    }
    micros.sort_unstable();
    let at = |fraction: f64| micros[((micros.len() - 1) as f64 * fraction).round() as usize] as f64 / 1000.0;
    Latency { p50: at(0.50), p99: at(0.99), max: at(1.0) }
}

/// What was played: the rounds, the balls to end the series, the seed, the time, the rulebooks.
pub(super) struct Played {
    pub(super) rounds: u32,
    pub(super) extra_balls: u32,
    pub(super) seed: u64,
    pub(super) seconds: Duration,
    pub(super) rulebooks: casino::Rulebooks,
}

/// Ends the night: the agents' lights, the reports, the journal, verify.
#[allow(clippy::float_arithmetic)]
pub(super) async fn finish(
    floor: Floor,
    config: &Config,
    url: &str,
    before: Snapshot,
    embedded: &mut Option<Embedded>,
    played: Played,
) -> anyhow::Result<NightReport> {
    let Played { rounds, extra_balls, seed, seconds, rulebooks } = played;
    let counted = floor.counted.clone();
    let counted_levels = floor.levels.clone();
    let codes = floor.codes.clone();
    let (commands, refused, played) = (floor.commands, floor.refused, floor.differences.clone());
    let replenishments = floor.replenishments.clone();
    let abandoned = floor.abandoned.clone();
    let channel = floor.channel.clone();
    let office = floor.office.clone();
    let journal = floor.journal_id.clone();
    let balances = floor.balances.clone();
    let (links, record) = stop_floor(floor).await?;
    let after = Snapshot::take_with(config, url, &before.jornadas()).await?;
    let books = books_of(&before, &after);
    let mut differences: Vec<String> = abandoned.into_iter().collect();
    differences.extend(played);
    differences.extend(compare(config, &counted, &books, &before, &replenishments, &counted_levels));
    differences.extend(pending_orders(channel.clone(), &office, &journal, before.journal_entries).await?);
    // Pools with levels: the whole journal replayed by the pure core, for every level's books.
    let mut replayed = (!counted_levels.is_empty()).then(|| pozo_server::state::State::new(Arc::new(config.clone())));
    let (journal_entries, presses, chain_problem) =
        journal_presses(config, channel, before.journal_entries, &after, replayed.as_mut()).await?;
    let chain_broken = chain_problem.is_some();
    differences.extend(chain_problem);
    let (levels, level_books) = match &replayed {
        Some(_) if chain_broken => (BTreeMap::new(), "not checked: the journal read back is broken".to_owned()),
        Some(state) => level_books(state, &counted_levels, &mut differences),
        None => (BTreeMap::new(), "no pool with levels".to_owned()),
    };
    let (lights, lights_without_record, records_without_light) = lights_against_presses(&links, &presses, &mut differences);
    let latencies: Vec<u64> = links.iter().flat_map(|link| link.press_latencies_us.iter().copied()).collect();
    let link_losses = links.iter().map(|link| link.link_losses).sum();
    for link in links {
        link.stop().await;
    }
    let reconciliation = reconcile(config, url, &after.jornadas(), &mut differences).await?;
    let nights_jornadas = after.jornadas();
    let (verify, evidence) = verify_embedded(embedded, config, &nights_jornadas, &mut differences).await?;
    let books_sha256 = books.sha256();
    if let Some(record) = record {
        write_footer(record, &books, &books_sha256, extra_balls)?;
    }
    let side_bets: u64 = books.pools.values().map(|pool| pool.bets).sum();
    let sum = |field: fn(&PoolBooks) -> Money| books.pools.values().map(field).sum::<Money>().to_string();
    let presses_total: u64 = counted.values().map(|counted| counted.presses).sum();
    Ok(NightReport {
        tables: config.layout.tables.len(),
        rounds,
        extra_balls,
        seed,
        side_bets,
        contributions: sum(|pool| pool.contributions),
        awards: sum(|pool| pool.awards),
        replenishments: sum(|pool| pool.replenishments),
        presses: presses_total,
        commands,
        refused,
        link_losses,
        seconds: seconds.as_secs_f64(),
        presses_per_s: presses_total as f64 / seconds.as_secs_f64().max(1e-9),
        ack_latency_ms: latency(latencies),
        journal_entries,
        lights_on: lights.len() as u64,
        lights_without_record,
        records_without_light,
        books: differences.first().cloned().unwrap_or_else(|| "ok".to_owned()),
        differences: differences.into_iter().take(DIFFERENCES_MAX).collect(),
        verify,
        reconciliation,
        evidence,
        books_sha256,
        pools: books.pools,
        balances,
        rulebooks: rulebooks.name().to_owned(),
        level_books,
        levels,
        codes,
    })
}

/// Stops the floor, then reads every panel line the agents wrote so far: the links, and the
/// night's record when one is kept.
async fn stop_floor(floor: Floor) -> anyhow::Result<(Vec<AgentLink>, Option<std::io::BufWriter<std::fs::File>>)> {
    let (mut links, record) = floor.stop().await;
    // Every panel the agents wrote so far.
    tokio::time::sleep(Duration::from_millis(50)).await;
    for link in &mut links {
        link.drain()?;
    }
    Ok((links, record))
}

/// Every light the agents saw turn on against the presses in the journal: the lights, how many
/// lit with no press recorded, how many presses lit no light; the first of each, a difference.
fn lights_against_presses(
    links: &[AgentLink],
    presses: &BTreeSet<(String, u32, u64)>,
    differences: &mut Vec<String>,
) -> (BTreeSet<(String, u32, u64)>, u64, u64) {
    let lights: BTreeSet<(String, u32, u64)> = links
        .iter()
        .flat_map(|link| link.lights_on.iter().map(|light| (link.table.clone(), light.seat, light.sequence)))
        .collect();
    let lights_without_record = lights.difference(presses).count() as u64;
    let records_without_light = presses.difference(&lights).count() as u64;
    if let Some(light) = lights.difference(presses).next() {
        differences.push(format!(
            "table {} seat {}: a light turned on at sequence {} with no press in the journal",
            light.0, light.1, light.2
        ));
    }
    if let Some(press) = presses.difference(&lights).next() {
        differences.push(format!("table {} seat {}: the press at sequence {} never lit the seat", press.0, press.1, press.2));
    }
    (lights, lights_without_record, records_without_light)
}

/// Every jornada of the night's books over gRPC (`Reports/Reconciliation`): each pool's tied to
/// zero and its tables' IPA and PPPA tied to it (docs/readings.md); "ok", or the first that is
/// not (a difference). A jornada the journal keeps no books of (an external controller's
/// journal that began later) is skipped.
async fn reconcile(
    config: &Config,
    url: &str,
    jornadas: &BTreeSet<String>,
    differences: &mut Vec<String>,
) -> anyhow::Result<String> {
    let mut reports = reports_on(config, connect(url).await?).await?;
    let mut first = None;
    for jornada in jornadas {
        let request = pb::ReconciliationRequest { jornada: jornada.clone(), through: String::new() };
        let report = match reports.reconciliation(request).await {
            Ok(report) => report.into_inner(),
            Err(status) if status.code() == tonic::Code::NotFound => continue,
            Err(status) => return Err(status.into()),
        };
        for pool in &report.pools {
            let off = [
                ("difference", &pool.difference),
                ("ipa_difference", &pool.ipa_difference),
                ("pppa_difference", &pool.pppa_difference),
            ]
            .into_iter()
            .find(|(_, amount)| {
                amount.as_ref().is_some_and(|amount| amount.value.parse::<Decimal>().map_or(true, |value| !value.is_zero()))
            });
            if let Some((line, amount)) = off {
                let problem = format!(
                    "reconciliation of {jornada}: pool {}: {line} {} (the books do not tie to zero)",
                    pool.pool_id,
                    amount.as_ref().map_or("", |amount| amount.value.as_str())
                );
                differences.push(problem.clone());
                first.get_or_insert(problem);
            }
        }
    }
    Ok(first.unwrap_or_else(|| "ok".to_owned()))
}

/// What a night's evidence weighs and costs (docs/benchmarks.md): the files of its jornadas,
/// made by `pozo-server evidence` and checked by `pozo-verifier` (the libraries they run).
#[derive(Debug, Default, Serialize)]
pub struct EvidenceFigures {
    /// "conforme", the verifier's first problem, or why it was not made.
    pub verdict: String,
    pub jornadas: usize,
    pub entries: u64,
    pub bytes: u64,
    pub make_seconds: f64,
    pub verify_seconds: f64,
}

/// `pozo-server verify` on the embedded controller's journal, once it has stopped (`ok`,
/// `failed` with the difference said, or why it was not run), then the evidence of each of the
/// night's jornadas made and verified.
async fn verify_embedded(
    embedded: &mut Option<Embedded>,
    config: &Config,
    jornadas: &BTreeSet<String>,
    differences: &mut Vec<String>,
) -> anyhow::Result<(String, EvidenceFigures)> {
    let Some(server) = embedded.take() else {
        let not_run = "not run: the controller is external (stop it, then `pozo-server verify --data DIR`)".to_owned();
        return Ok((not_run.clone(), EvidenceFigures { verdict: not_run, ..EvidenceFigures::default() }));
    };
    let data = server.data.clone();
    anyhow::ensure!(config.journal_key.is_some(), "the keys have a journal key");
    server.stop().await?;
    let verify = {
        let (data, config) = (data.clone(), config.clone());
        match tokio::task::spawn_blocking(move || pozo_server::tools::verify::verify_data(&data, &config)).await? {
            Ok(report) if report.ok() => "ok".to_owned(),
            Ok(_) => {
                differences.push("pozo-server verify: the journal does not verify".to_owned());
                "failed".to_owned()
            }
            Err(error) => {
                differences.push(format!("pozo-server verify: {error}"));
                "failed".to_owned()
            }
        }
    };
    let (key, jornadas) = (config.journal_key.clone().expect("ensured"), jornadas.clone());
    let evidence = tokio::task::spawn_blocking(move || evidence_of(&data, &key, &jornadas)).await?;
    if evidence.verdict != "conforme" {
        differences.push(format!("the night's evidence: {}", evidence.verdict));
    }
    Ok((verify, evidence))
}

/// Each jornada's evidence of the journal in `data`, made and then verified together.
#[allow(clippy::float_arithmetic)]
fn evidence_of(data: &Path, journal_key: &pozo_server::config::JournalKey, jornadas: &BTreeSet<String>) -> EvidenceFigures {
    let failed = |verdict: String| EvidenceFigures { verdict, ..EvidenceFigures::default() };
    let Ok(directory) = tempfile::tempdir() else { return failed("no temporary directory".to_owned()) };
    let Ok((key, _)) = pozo_verifier::SigningKey::generate() else { return failed("no random source".to_owned()) };
    let mut figures = EvidenceFigures { jornadas: jornadas.len(), ..EvidenceFigures::default() };
    let mut files = Vec::new();
    let started = Instant::now();
    for jornada in jornadas {
        let out = directory.path().join(format!("{jornada}.json"));
        let source = pozo_server::tools::evidence::Source::Data(data);
        match pozo_server::tools::evidence::evidence(&source, journal_key, jornada, &key, &out, 0) {
            Ok(made) => {
                figures.entries += made.entries;
                figures.bytes += made.bytes;
            }
            Err(error) => return failed(format!("evidence of {jornada}: {error:#}")),
        }
        match std::fs::read(&out) {
            Ok(bytes) => files.push((out.display().to_string(), bytes)),
            Err(error) => return failed(format!("{}: {error}", out.display())),
        }
    }
    figures.make_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let verdict = pozo_verifier::verify(&files, &key.public());
    figures.verify_seconds = started.elapsed().as_secs_f64();
    figures.verdict = match verdict.problem {
        None if verdict.conforme => "conforme".to_owned(),
        None => "no conforme".to_owned(),
        Some((file, problem)) => format!("{file}: {problem}"),
    };
    figures
}

/// The record's last line: the books as the night ended.
fn write_footer(
    mut record: std::io::BufWriter<std::fs::File>,
    books: &Books,
    books_sha256: &str,
    extra_balls: u32,
) -> anyhow::Result<()> {
    serde_json::to_writer(
        &mut record,
        &Event::Footer { books: books.clone(), books_sha256: books_sha256.to_owned(), extra_balls },
    )?;
    record.write_all(b"\n")?;
    record.flush()?;
    Ok(())
}
