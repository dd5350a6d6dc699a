//! The floor: the night's tables through real agents, what each acknowledged, and the
//! counts the books are checked against.

use super::*;

// ----------------------------------------------------------------------------- the floor

/// What the agents acknowledged at one table: the simulator's own books.
#[derive(Clone, Debug, Default)]
pub(super) struct Counted {
    pub(super) presses: u64,
    pub(super) credits_sold: u64,
    pub(super) awards: Money,
    pub(super) hits: u64,
}

/// The agents, the office, and the simulator's own count of what they were told.
pub(super) struct Floor {
    pub(super) links: Vec<Arc<Mutex<AgentLink>>>,
    pub(super) index: HashMap<String, usize>,
    pub(super) channel: Channel,
    pub(super) office: (String, Vec<u8>),
    /// The journal the controller announced: what office commands are signed for.
    pub(super) journal_id: String,
    /// Reports with the supervisor's read credential.
    pub(super) reports: Reports,
    pub(super) counted: BTreeMap<String, Counted>,
    pub(super) commands: u64,
    /// Every difference found while playing: refusals, awards other than the rulebook's.
    pub(super) differences: Vec<String>,
    pub(super) refused: u64,
    pub(super) record: Option<std::io::BufWriter<std::fs::File>>,
    pub(super) started: Instant,
    pub(super) pace: Pace,
    pub(super) form_numbers: u64,
    /// Each table's pool, and the rulebooks, to compute the awards independently.
    pub(super) pools: HashMap<String, String>,
    pub(super) rulebooks: pozo_engine::Rulebooks,
    /// The replenishments the rulebooks call for at each ACEPTAR of the night, per pool.
    pub(super) replenishments: BTreeMap<String, Money>,
    /// A difference that ends the night early (the dealer and the server disagree on the table).
    pub(super) abandoned: Option<String>,
    /// Each pool's balance before the first round and after every round (`--plot`).
    pub(super) balances: Vec<super::BalancePoint>,
    /// The simulator's own count of every pool with levels (docs/readings.md, "Levels"): no
    /// report gives a level's balance, so each is counted from the pool's opening, every bet
    /// acknowledged registered and every ACEPTAR settled on it with the engine.
    pub(super) levels: BTreeMap<String, pozo_engine::Pool>,
    /// Each table's game (whether its bets register at the press or at INICIAR JUEGO).
    pub(super) games: HashMap<String, Game>,
    /// Each table's bet and bank in its pool (a link across games: each game its own bet, a
    /// banked level a meter per flor; docs/readings.md, "Levels").
    pub(super) marks: HashMap<String, crate::marks::Marks>,
    /// At a table of a pool with levels: the seats pressed and not yet registered.
    pub(super) pressed: HashMap<String, Vec<u32>>,
    /// At a table of a pool with levels: the seats whose bet is in force in the round (the envy
    /// bonus goes to every other one).
    pub(super) in_force: HashMap<String, Vec<u32>>,
    /// The awards of the night per premio code.
    pub(super) codes: BTreeMap<String, super::CodeBooks>,
    /// The mystery levels' reveals read from the journal and not yet counted, by their entry
    /// (docs/journal.md, "reveal"), and how far the journal was read for them.
    pub(super) reveals: BTreeMap<u64, serde_json::Value>,
    pub(super) journal_read: u64,
    /// The tables of the acknowledged commands since the oldest reveal pending, by entry: the
    /// table a reveal's `after` names.
    pub(super) acked: BTreeMap<u64, String>,
}

/// Requests to the controller other than through the agents give up after this long.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A channel to the controller for reports, pools and the office.
pub(super) async fn connect(url: &str) -> anyhow::Result<Channel> {
    tonic::transport::Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("the controller at {url}"))?
        .connect_timeout(Duration::from_secs(5))
        .timeout(REQUEST_TIMEOUT)
        .connect()
        .await
        .with_context(|| format!("the controller at {url}"))
}

/// Reports and journal pages with a supervisor's read credential.
pub(super) type Reports = pb::reports_client::ReportsClient<pozo_proto::ReadChannel>;

/// The journal a controller announces (Controller.Identify).
pub(super) async fn journal_id(channel: &Channel) -> anyhow::Result<pb::Identity> {
    Ok(pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?.into_inner())
}

/// A reports client on `channel` with the configuration's supervisor key, for the journal the controller announces.
pub(super) async fn reports_on(config: &Config, channel: Channel) -> anyhow::Result<Reports> {
    let (id, secret) = casino::supervisor_key(config)?;
    let identity = journal_id(&channel).await?;
    let credential = pozo_proto::ReadCredential::new(&id, &secret, &identity.journal_id);
    Ok(pb::reports_client::ReportsClient::with_interceptor(channel, credential).max_decoding_message_size(ENTRIES_REPLY_BYTES))
}

/// An ACEPTAR's awards against the settlement computed: the difference, if any.
pub(super) fn award_difference(table: &str, ack: &serde_json::Value, expected: &pozo_engine::Settlement) -> Option<String> {
    let paid: Vec<(u64, String, Money)> = ack["awards"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|award| {
            (award["seat"].as_u64().unwrap_or(0), award["code"].as_str().unwrap_or_default().to_owned(), decimal(&award["award"]))
        })
        .collect();
    let computed: Vec<(u64, String, Money)> =
        expected.awards.iter().map(|award| (u64::from(award.seat), award.code.to_string(), award.award)).collect();
    (paid != computed).then(|| format!("table {table}: ACEPTAR paid {paid:?}; the rulebook gives {computed:?}"))
}

/// The winner a `prize SEAT CODE [HIGH]` line enters; every bet is the pool's side bet.
pub(super) fn winner_of(line: &str) -> Option<pozo_engine::Winner> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (seat, code, high) = match words.as_slice() {
        ["prize", seat, code] => (seat, code, None),
        ["prize", seat, code, high] => (seat, code, high.parse().ok()),
        _ => return None,
    };
    Some(pozo_engine::Winner { seat: seat.parse().ok()?, code: (*code).into(), bet: None, high, at: None })
}

pub(super) fn decimal(value: &serde_json::Value) -> Money {
    value.as_str().and_then(|text| text.parse().ok()).unwrap_or_default()
}

pub(super) fn amount(value: &Option<pb::Amount>) -> Money {
    value.as_ref().and_then(|amount| amount.value.parse().ok()).unwrap_or_default()
}

impl Floor {
    pub(super) async fn open(config: &Config, server: &str, record: Option<&Path>, pace: Pace) -> anyhow::Result<Floor> {
        let channel = connect(server).await?;
        let mut links = Vec::new();
        let mut index = HashMap::new();
        for table in &config.layout.tables {
            let key = casino::table_key(config, &table.id)?;
            index.insert(table.id.to_string(), links.len());
            links.push(Arc::new(Mutex::new(AgentLink::start(server, &table.id, key).await?)));
        }
        let record = match record {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::File::create(path).with_context(|| format!("--record {}", path.display()))?,
            )),
            None => None,
        };
        let office = casino::office_key(config)?;
        let journal_id = journal_id(&channel).await?.journal_id;
        let reports = reports_on(config, channel.clone()).await?;
        Ok(Floor {
            links,
            index,
            channel,
            office,
            journal_id,
            reports,
            counted: BTreeMap::new(),
            commands: 0,
            differences: Vec::new(),
            refused: 0,
            record,
            started: Instant::now(),
            pace,
            form_numbers: 0,
            pools: config.layout.tables.iter().map(|table| (table.id.to_string(), table.pool.to_string())).collect(),
            rulebooks: config.rulebooks.clone(),
            replenishments: BTreeMap::new(),
            abandoned: None,
            balances: Vec::new(),
            // A night starts on a fresh controller when it plays pools with levels (`run`): each
            // level at its reset.
            levels: config
                .rulebooks
                .pools()
                .filter(|rules| !rules.levels.is_empty())
                .map(|rules| (rules.id.to_string(), pozo_engine::Pool::open(Arc::new(rules.clone()))))
                .collect(),
            games: config.layout.tables.iter().map(|table| (table.id.to_string(), table.game)).collect(),
            marks: config
                .layout
                .tables
                .iter()
                .map(|table| (table.id.to_string(), crate::marks::Marks::of(config, table)))
                .collect(),
            pressed: HashMap::new(),
            in_force: HashMap::new(),
            codes: BTreeMap::new(),
            reveals: BTreeMap::new(),
            journal_read: 0,
            acked: BTreeMap::new(),
        })
    }

    /// The simulator's count of a pool with levels takes an acknowledged line: a bet registered
    /// at the press (roulette, 4.4.2) or at INICIAR JUEGO (12.5.1.1), the round's bets in force.
    fn count_levels(&mut self, table: &str, line: &str) {
        let Some(pool_id) = self.pools.get(table) else { return };
        let Some(pool) = self.levels.get_mut(pool_id) else { return };
        let Some(marks) = self.marks.get(table) else { return };
        // The table's own bet and bank: a link across games registers each game's bet, a banked
        // level's share in the table's flor's meter.
        let (side_bet, bank) = (marks.side_bet(), marks.bank());
        // A banked level's meter opens at its reset when its bank's first bet comes, put in by
        // the house (docs/readings.md, "Levels"): a replenishment the night's books expect.
        let replenished = pool.meters().replenishments;
        let roulette = self.games.get(table).is_some_and(|game| game.is_roulette());
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["press", seat] => {
                let seat: u32 = seat.parse().unwrap_or(0);
                if roulette {
                    if let Err(error) = pool.register_bet_at(side_bet, bank) {
                        self.differences
                            .push(format!("table {table}: `{line}` was acknowledged; the engine refuses the bet: {error}"));
                    }
                    self.in_force.entry(table.to_owned()).or_default().push(seat);
                } else {
                    self.pressed.entry(table.to_owned()).or_default().push(seat);
                }
            }
            ["start"] => {
                let pressed = self.pressed.remove(table).unwrap_or_default();
                for _ in &pressed {
                    if let Err(error) = pool.register_bet_at(side_bet, bank) {
                        self.differences
                            .push(format!("table {table}: `{line}` was acknowledged; the engine refuses a bet: {error}"));
                    }
                }
                if !roulette {
                    self.in_force.insert(table.to_owned(), pressed);
                }
            }
            ["finish"] => {
                self.in_force.remove(table);
            }
            _ => {}
        }
        let opened = pool.meters().replenishments - replenished;
        if !opened.is_zero() {
            *self.replenishments.entry(pool_id.clone()).or_default() += opened;
        }
    }

    /// Confirms the payout orders a mystery level's hit filed (no table's answer carries them:
    /// the controller's reveal did), as the office would, each under its recorded event.
    async fn confirm_drawn(&mut self) -> anyhow::Result<()> {
        if !self.levels.values().any(|pool| pool.rules().mystery_levels().next().is_some()) {
            return Ok(());
        }
        let mut office = pb::venta_pagos_client::VentaPagosClient::new(self.channel.clone());
        let list = office_envelope(
            &self.office,
            &self.journal_id,
            pb::office_command::Command::List(pb::ListPayouts { status: String::new() }),
        );
        let drawn: Vec<String> = office
            .list(list)
            .await?
            .into_inner()
            .orders
            .into_iter()
            .filter(|order| order.status == "pendiente")
            .filter(|order| self.rulebooks.pool(&order.pool_id).is_some_and(|rules| rules.is_drawn(&order.code)))
            .map(|order| order.order_id)
            .collect();
        for order in drawn {
            self.form_numbers += 1;
            let form_number = format!("F-{:06}", self.form_numbers);
            self.write(&Event::Confirm { t_ms: self.t_ms(), order_id: order.clone(), form_number: form_number.clone() })?;
            self.confirm(&order, &form_number).await?;
        }
        Ok(())
    }

    /// Reads the journal's new entries for the reveals of the mystery levels (only where the
    /// night plays one).
    pub(super) async fn read_reveals(&mut self) -> anyhow::Result<()> {
        if !self.levels.values().any(|pool| pool.rules().mystery_levels().next().is_some()) {
            return Ok(());
        }
        loop {
            let request = pb::JournalEntriesRequest { after: self.journal_read, limit: 1000 };
            let page = self.reports.entries(request).await?.into_inner();
            let Some(last) = page.entries.last().map(|entry| entry.sequence) else { return Ok(()) };
            for entry in &page.entries {
                let record: serde_json::Value = serde_json::from_str(&entry.record_json)?;
                if record["command"]["kind"] == "reveal" {
                    self.reveals.insert(entry.sequence, record["command"].clone());
                }
            }
            self.journal_read = last;
        }
    }

    /// Counts the reveals whose reaching command is at or before entry `through`: the mystery
    /// level pays the trigger (what its meter held beyond going to its reserve) and the hot seat
    /// the house's amount at the seat the nonce picks (docs/readings.md, "The mystery level").
    fn count_reveals(&mut self, through: u64) {
        let due: Vec<u64> = self
            .reveals
            .iter()
            .filter(|(_, reveal)| reveal["after"].as_u64().unwrap_or(0) <= through)
            .map(|(entry, _)| *entry)
            .collect();
        for entry in due {
            let reveal = self.reveals.remove(&entry).expect("listed");
            if let Err(problem) = self.count_reveal(&reveal) {
                self.differences.push(format!("journal entry {entry}: the reveal does not count: {problem}"));
            }
        }
        if let Some(oldest) = self.reveals.values().filter_map(|reveal| reveal["after"].as_u64()).min() {
            self.acked = self.acked.split_off(&oldest);
        } else {
            self.acked.clear();
        }
    }

    fn count_reveal(&mut self, reveal: &serde_json::Value) -> Result<(), String> {
        let pool_id = reveal["pool"].as_str().unwrap_or_default().to_owned();
        let pool = self.levels.get_mut(&pool_id).ok_or_else(|| format!("pool `{pool_id}` has no levels counted"))?;
        let rules = pool.rules().clone();
        let index =
            rules.levels.iter().position(|level| Some(level.name.as_str()) == reveal["level"].as_str()).ok_or("no such level")?;
        let trigger = decimal(&reveal["trigger"]);
        let nonce = pozo_server::state::draw::nonce_of(reveal["nonce"].as_str().unwrap_or_default()).ok_or("no nonce")?;
        let table =
            self.acked.get(&reveal["after"].as_u64().unwrap_or(0)).cloned().ok_or("its reaching command was not acknowledged")?;
        let eligible: Vec<(String, u32)> = reveal["eligible"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|seat| (seat["table"].as_str().unwrap_or_default().to_owned(), seat["seat"].as_u64().unwrap_or(0) as u32))
            .collect();
        let prize = rules.mystery_prize(index).ok_or("no prize")?.code.clone();
        let mut winners =
            vec![pozo_engine::Winner { seat: 1, code: prize, bet: None, high: None, at: Some(table.as_str().into()) }];
        if let (Some(code), false) = (rules.levels[index].hot_seat.clone(), eligible.is_empty()) {
            let (at, seat) = eligible[pozo_server::state::draw::hot_seat_index(&nonce, eligible.len())].clone();
            winners.push(pozo_engine::Winner { seat, code, bet: None, high: None, at: Some(at.as_str().into()) });
        }
        let bank = self.marks.get(&table).and_then(|marks| marks.bank().cloned());
        let replenished = pool.meters().replenishments;
        pool.mystery_spill(index, trigger).map_err(|error| error.to_string())?;
        let settled = pool.settle_round_at(&winners, bank.as_ref()).map_err(|error| error.to_string())?;
        let opened = pool.meters().replenishments - replenished;
        if !opened.is_zero() {
            *self.replenishments.entry(pool_id).or_default() += opened;
        }
        for award in &settled.awards {
            let at = award.at.as_ref().map(|at| at.to_string()).unwrap_or_else(|| table.clone());
            let counted = self.counted.entry(at).or_default();
            counted.awards += award.award;
            counted.hits += 1;
            let code = self.codes.entry(award.code.to_string()).or_default();
            code.hits += 1;
            code.amount += award.award;
        }
        Ok(())
    }

    /// Notes every pool's balance as the controller reports it, after `round` rounds.
    pub(super) async fn sample_balances(&mut self, round: u32) -> anyhow::Result<()> {
        let pool_ids: std::collections::BTreeSet<String> = self.pools.values().cloned().collect();
        let mut pools = BTreeMap::new();
        for pool in pool_ids {
            let report =
                self.reports.pool(pb::PoolReportRequest { pool_id: pool.clone(), ..Default::default() }).await?.into_inner();
            pools.insert(pool, amount(&report.balance));
        }
        self.balances.push(super::BalancePoint { round, pools });
        Ok(())
    }

    pub(super) fn t_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub(super) fn write(&mut self, event: &Event) -> anyhow::Result<()> {
        if let Some(record) = &mut self.record {
            serde_json::to_writer(&mut *record, event)?;
            record.write_all(b"\n")?;
        }
        Ok(())
    }

    /// At the recorded pace, waits until `t_ms` from the start; a recorded pause longer
    /// than [`RECORDED_PAUSE_MAX`] is not a night's (a damaged record) and is refused.
    pub(super) async fn wait_for(&self, t_ms: u64) -> anyhow::Result<()> {
        if self.pace == Pace::Recorded {
            let due = self.started + Duration::from_millis(t_ms);
            let wait = due.saturating_duration_since(Instant::now());
            anyhow::ensure!(
                wait <= RECORDED_PAUSE_MAX,
                "a recorded step at {t_ms} ms waits {wait:?}, over {RECORDED_PAUSE_MAX:?}"
            );
            tokio::time::sleep(wait).await;
        }
        Ok(())
    }

    pub(super) fn link(&self, table: &str) -> anyhow::Result<Arc<Mutex<AgentLink>>> {
        let index = self.index.get(table).with_context(|| format!("table {table} is not in the layout"))?;
        Ok(Arc::clone(&self.links[*index]))
    }

    /// Counts one answer into the simulator's books; returns the payout orders it made.
    pub(super) fn count(&mut self, table: &str, line: &str, answer: &Answer) -> Vec<String> {
        self.commands += 1;
        let counted = self.counted.entry(table.to_owned()).or_default();
        match answer {
            Answer::Refused { code, reason } => {
                self.refused += 1;
                self.differences.push(format!("table {table}: `{line}` refused ({code}): {reason}"));
                Vec::new()
            }
            Answer::Ack(ack) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["press", _] => counted.presses += 1,
                    ["credits", _, credits] => counted.credits_sold += credits.parse::<u64>().unwrap_or(0),
                    _ => {}
                }
                let mut orders = Vec::new();
                for award in ack["awards"].as_array().into_iter().flatten() {
                    counted.awards += decimal(&award["award"]);
                    counted.hits += 1;
                    let code = self.codes.entry(award["code"].as_str().unwrap_or_default().to_owned()).or_default();
                    code.hits += 1;
                    code.amount += decimal(&award["award"]);
                    if let Some(order) = award["payout_order_id"].as_str().filter(|order| !order.is_empty()) {
                        orders.push(order.to_owned());
                    }
                }
                let entry = ack["journal_sequence"].as_u64().unwrap_or(0);
                self.count_reveals(entry.saturating_sub(1));
                self.count_levels(table, line);
                self.acked.insert(entry, table.to_owned());
                self.count_reveals(entry);
                orders
            }
        }
    }

    /// Lines for many tables at once. Returns each table's answers.
    pub(super) async fn parallel(&mut self, work: Vec<(String, Vec<String>)>) -> anyhow::Result<BTreeMap<String, Vec<Answer>>> {
        let work: Vec<(String, Vec<String>)> = work.into_iter().filter(|(_, lines)| !lines.is_empty()).collect();
        if work.is_empty() {
            return Ok(BTreeMap::new());
        }
        let event = Event::Parallel { t_ms: self.t_ms(), lines: work.clone() };
        self.write(&event)?;
        let mut tasks = tokio::task::JoinSet::new();
        for (table, lines) in work {
            let link = self.link(&table)?;
            tasks.spawn(async move {
                let mut link = link.lock().await;
                let mut answers = Vec::with_capacity(lines.len());
                for line in &lines {
                    answers.push(link.send(line).await?);
                }
                Ok::<_, anyhow::Error>((table, lines, answers))
            });
        }
        let mut done_all = Vec::new();
        while let Some(done) = tasks.join_next().await {
            done_all.push(done??);
        }
        self.count_in_journal_order(done_all).await
    }

    /// A `Parallel`'s lines sent one at a time in the order the controller journaled them when
    /// recorded (`Event::Journaled`), so that the journal's order is the recorded night's.
    pub(super) async fn in_journal_order(
        &mut self,
        work: Vec<(String, Vec<String>)>,
        order: &[String],
    ) -> anyhow::Result<BTreeMap<String, Vec<Answer>>> {
        self.write(&Event::Parallel { t_ms: self.t_ms(), lines: work.clone() })?;
        let mut next: BTreeMap<String, std::collections::VecDeque<String>> =
            work.into_iter().map(|(table, lines)| (table, lines.into())).collect();
        let mut done: BTreeMap<String, (Vec<String>, Vec<Answer>)> = BTreeMap::new();
        for table in order.iter().chain(next.keys().cloned().collect::<Vec<_>>().iter()) {
            while let Some(line) = next.get_mut(table).and_then(|lines| lines.pop_front()) {
                let answer = self.link(table)?.lock().await.send(&line).await?;
                let (lines, answers) = done.entry(table.clone()).or_default();
                lines.push(line);
                answers.push(answer);
                if order.contains(table) {
                    break;
                }
            }
        }
        self.count_in_journal_order(done.into_iter().map(|(table, (lines, answers))| (table, lines, answers)).collect()).await
    }

    /// Counts the answers of many tables in the journal's order and records that order.
    async fn count_in_journal_order(
        &mut self,
        done_all: Vec<(String, Vec<String>, Vec<Answer>)>,
    ) -> anyhow::Result<BTreeMap<String, Vec<Answer>>> {
        // Counted in the journal's order, a mystery level's reveals among them where the
        // controller journaled them (each right after the command whose bet reached its trigger).
        self.read_reveals().await?;
        let mut answered: Vec<(u64, String, String, Answer)> = Vec::new();
        for (table, lines, answers) in &done_all {
            // A refusal journals nothing: it keeps its place after its table's line before it.
            let mut entry = 0;
            for (line, answer) in lines.iter().zip(answers) {
                if let Answer::Ack(ack) = answer {
                    entry = ack["journal_sequence"].as_u64().unwrap_or(entry);
                }
                answered.push((entry, table.clone(), line.clone(), answer.clone()));
            }
        }
        answered.sort_by_key(|(entry, ..)| *entry);
        let tables = answered.iter().map(|(_, table, ..)| table.clone()).collect();
        self.write(&Event::Journaled { tables })?;
        for (_, table, line, answer) in &answered {
            let orders = self.count(table, line, answer);
            if !orders.is_empty() {
                self.differences.push(format!("table {table}: `{line}` made payout orders {orders:?} outside ACEPTAR"));
            }
        }
        let mut results = BTreeMap::new();
        for (table, _, answers) in done_all {
            results.insert(table, answers);
        }
        Ok(results)
    }

    /// Lines for one table while the others wait. At ACEPTAR the awards are checked
    /// against the rulebook's, computed from the pool as it stood just before (the
    /// other tables wait, so nothing else moves it); with `confirm`, the payout
    /// orders are confirmed at once (a replay confirms them by their own events).
    pub(super) async fn sequential(&mut self, table: &str, lines: Vec<String>, confirm: bool) -> anyhow::Result<Vec<Answer>> {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        self.write(&Event::Sequential { t_ms: self.t_ms(), table: table.to_owned(), lines: lines.clone() })?;
        let link = self.link(table)?;
        let mut answers = Vec::with_capacity(lines.len());
        let mut winners = Vec::new();
        for line in &lines {
            // 16.4.2.5.1: the premio instantáneo is paid at once, alone, when entered.
            let instant = winner_of(line).filter(|winner| winner.code == pozo_server::state::INSTANT_PRIZE);
            let expected = if line == "accept" {
                Some(self.expected_settlement(table, &winners).await?)
            } else if let Some(winner) = &instant {
                Some(self.expected_settlement(table, std::slice::from_ref(winner)).await?)
            } else {
                None
            };
            let answer = link.lock().await.send(line).await?;
            if let (Answer::Ack(_), Some(winner), None) = (&answer, winner_of(line), &instant) {
                winners.push(winner);
            }
            if let (Answer::Ack(ack), Some((expected, after))) = (&answer, expected) {
                if instant.is_none() {
                    winners.clear();
                }
                self.check_awards(table, ack, expected);
                // The ACEPTAR stands: the levels are as the rulebook's settlement left them.
                if let Some(after) = after {
                    self.levels.insert(after.rules().id.to_string(), after);
                }
            }
            self.read_reveals().await?;
            let orders = self.count(table, line, &answer);
            answers.push(answer);
            if !confirm {
                continue;
            }
            for order in orders {
                self.form_numbers += 1;
                let form_number = format!("F-{:06}", self.form_numbers);
                self.write(&Event::Confirm { t_ms: self.t_ms(), order_id: order.clone(), form_number: form_number.clone() })?;
                self.confirm(&order, &form_number).await?;
            }
        }
        if confirm {
            self.confirm_drawn().await?;
        }
        Ok(answers)
    }

    /// The settlement the rulebook gives the winners entered, on the pool as the server reports
    /// it now; for a pool with levels, on the simulator's count of its levels, with the envy
    /// awards the winners give every other seat in force (docs/readings.md, "The envy bonus"),
    /// and the levels as that settlement leaves them.
    pub(super) async fn expected_settlement(
        &mut self,
        table: &str,
        winners: &[pozo_engine::Winner],
    ) -> anyhow::Result<(Result<pozo_engine::Settlement, String>, Option<pozo_engine::Pool>)> {
        let pool_id = self.pools.get(table).cloned().with_context(|| format!("table {table} is not in the layout"))?;
        let report =
            self.reports.pool(pb::PoolReportRequest { pool_id: pool_id.clone(), ..Default::default() }).await?.into_inner();
        let rules = self.rulebooks.pool(&pool_id).with_context(|| format!("pool {pool_id}"))?.clone();
        let marks = self.marks.get(table).with_context(|| format!("table {table} is not in the layout"))?;
        let (side_bet, bank) = (marks.side_bet(), marks.bank().cloned());
        let mut winners: Vec<pozo_engine::Winner> =
            winners.iter().cloned().map(|winner| pozo_engine::Winner { bet: Some(side_bet), ..winner }).collect();
        let Some(levels) = self.levels.get(&pool_id) else {
            let mut pool = pozo_engine::Pool::with_balances(Arc::new(rules), amount(&report.balance), amount(&report.reserve));
            return Ok((pool.settle_round(&winners).map_err(|error| error.to_string()), None));
        };
        // The server's pool is the levels added: its balance and reserve their sums, its sign
        // the first level's (docs/readings.md, "Levels").
        let reported = (amount(&report.balance), amount(&report.reserve), amount(&report.displayed));
        let counted = (levels.balance(), levels.reserve(), levels.displayed());
        if reported != counted {
            self.differences.push(format!(
                "pool {pool_id} before ACEPTAR at {table}: the server reports balance {}, reserve {}, display {}; the \
                 simulator's levels add to {}, {}, {}",
                reported.0, reported.1, reported.2, counted.0, counted.1, counted.2
            ));
        }
        let in_force: Vec<(u32, Money)> = self.in_force.get(table).into_iter().flatten().map(|seat| (*seat, side_bet)).collect();
        let envy = pozo_engine::envy_winners(&rules, &winners, &in_force);
        winners.extend(envy);
        let mut after = levels.clone();
        let settled = after.settle_round_at(&winners, bank.as_ref()).map_err(|error| error.to_string());
        let after = settled.is_ok().then_some(after);
        Ok((settled, after))
    }

    /// The awards of an ACEPTAR against the rulebook's: every prize entered paid, each the amount computed.
    pub(super) fn check_awards(
        &mut self,
        table: &str,
        ack: &serde_json::Value,
        expected: Result<pozo_engine::Settlement, String>,
    ) {
        let expected = match expected {
            Ok(expected) => expected,
            Err(error) => {
                self.differences
                    .push(format!("table {table}: ACEPTAR was answered, but the rulebook refuses the round: {error}"));
                return;
            }
        };
        if let Some(difference) = award_difference(table, ack, &expected) {
            self.differences.push(difference);
        }
        *self.replenishments.entry(expected.pool.to_string()).or_default() += expected.replenishment;
    }

    /// The Venta-Pagos office confirms a payout order (the cashier paid it).
    pub(super) async fn confirm(&mut self, order_id: &str, form_number: &str) -> anyhow::Result<()> {
        // The cashier confirms the order as the office lists it: by its facts, not only its number.
        let mut office = pb::venta_pagos_client::VentaPagosClient::new(self.channel.clone());
        let list = office_envelope(
            &self.office,
            &self.journal_id,
            pb::office_command::Command::List(pb::ListPayouts { status: String::new() }),
        );
        let shown = office.list(list).await?.into_inner().orders.into_iter().find(|order| order.order_id == order_id);
        let Some(shown) = shown else {
            self.differences.push(format!("Venta-Pagos: order {order_id} is not among the pending orders"));
            return Ok(());
        };
        let expect = pb::OrderFacts {
            pool_id: shown.pool_id,
            table_id: shown.table_id,
            seat: shown.seat,
            round: shown.round,
            code: shown.code,
            amount: shown.amount,
        };
        let envelope = office_envelope(
            &self.office,
            &self.journal_id,
            pb::office_command::Command::Confirm(pb::ConfirmPayout {
                order_id: order_id.to_owned(),
                form_number: form_number.to_owned(),
                expect: Some(expect),
            }),
        );
        self.commands += 1;
        match office.confirm(envelope).await {
            Ok(order) => {
                let order = order.into_inner();
                if order.status != "confirmada" {
                    self.differences
                        .push(format!("Venta-Pagos: order {order_id} confirmed, but its status is `{}`", order.status));
                }
            }
            Err(status) => {
                self.refused += 1;
                self.differences.push(format!("Venta-Pagos: confirming {order_id} refused: {}", status.message()));
            }
        }
        Ok(())
    }

    /// A night starts with every table closed: a table left open (a night cut short)
    /// holds credits and bets this night did not make.
    pub(super) async fn all_closed(&self) -> anyhow::Result<()> {
        for link in &self.links {
            let link = link.lock().await;
            let state = link.panel["state"].as_str().unwrap_or_default();
            anyhow::ensure!(
                state == "cerrada",
                "table {} is `{state}`, not closed: a night starts with every table closed (pay the credits back and close it: Cierre de Mesa)",
                link.table
            );
        }
        Ok(())
    }

    /// Replays recorded events.
    pub(super) async fn replay(&mut self, events: &[Event]) -> anyhow::Result<()> {
        for (index, event) in events.iter().enumerate() {
            match event {
                Event::Parallel { t_ms, lines } => {
                    self.wait_for(*t_ms).await?;
                    match events.get(index + 1) {
                        Some(Event::Journaled { tables }) => self.in_journal_order(lines.clone(), tables).await?,
                        _ => self.parallel(lines.clone()).await?,
                    };
                }
                Event::Journaled { .. } => {}
                Event::Sequential { t_ms, table, lines } => {
                    self.wait_for(*t_ms).await?;
                    // Orders are confirmed by their own recorded events.
                    self.sequential(table, lines.clone(), false).await?;
                }
                Event::Confirm { t_ms, order_id, form_number } => {
                    self.wait_for(*t_ms).await?;
                    self.write(event)?;
                    self.confirm(order_id, form_number).await?;
                }
                Event::Header { .. } | Event::Footer { .. } => {}
            }
        }
        Ok(())
    }

    pub(super) async fn stop(self) -> (Vec<AgentLink>, Option<std::io::BufWriter<std::fs::File>>) {
        let mut links = Vec::new();
        for link in self.links {
            match Arc::try_unwrap(link) {
                Ok(link) => links.push(link.into_inner()),
                Err(_) => unreachable!("no task holds a link after the night"),
            }
        }
        (links, self.record)
    }
}
