//! A casino night: real games on many tables, played through real table agents
//! against a real controller, then the books checked independently.
//!
//! # How a night is played
//! Every round goes through four phases, the same at every table:
//! 1. **Bets** (all tables at once): seats buy credits when they have none and press
//!    their button at the configured rate (roulette seats only when they hold no
//!    grillo, 3.7.3).
//! 2. **INICIAR JUEGO** (all tables at once), except a roulette table holding a
//!    Grillo de Oro, which plays its whole ball in phase 3.
//! 3. **Prizes** (one table after another, in layout order): the dealer deals the
//!    round from the table's seeded cards or wheel, enters the premio codes the
//!    cards made, ACEPTAR; the Venta-Pagos office confirms each payout order. A
//!    table holding a gold asks its gold turn first (4.3.5).
//! 4. **FINALIZAR JUEGO** (all tables at once).
//!
//! Bets commute (every contribution is added exactly), and every award is fixed
//! in phase 3 in a fixed order, so the same seed gives the same books however the
//! bets of phase 1 interleave on the wire.
//!
//! # The books
//! The simulator keeps its own count from what the agents acknowledged: presses,
//! credits sold, every award; the contributions follow from the rulebook's rates.
//! At the end it compares them with the server's reports (per table and per pool,
//! as differences from the start of the night), checks each pool's conservation
//! with the server's replenishments, reads the whole journal back
//! (`Reports.Entries`), checks its hash chain, and matches every light that turned
//! on at a panel with a press in the journal, and every press with a light.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use pozo_engine::{Game, Money};
use pozo_proto::v1 as pb;
use pozo_server::config::Config;
use prost::Message;
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;
use tonic::transport::Channel;

use crate::cards::{self, Card};
use crate::casino;
use crate::journal;
use crate::link::{AgentLink, Answer};
use crate::{blackjack, poker, roulette};
use pozo_server::Embedded;

/// The most rounds one night plays.
pub const ROUNDS_MAX: u32 = 100_000;

/// The largest recorded night `replay` reads.
pub const RECORD_BYTES_MAX: u64 = 1 << 30;

/// The most table-rounds (tables × rounds) one night plays: what the simulator keeps
/// per press (lights, latencies) stays within a few hundred megabytes.
pub const TABLE_ROUNDS_MAX: u64 = 2_000_000;

/// The longest pause `replay --recorded-speed` waits between two steps.
pub const RECORDED_PAUSE_MAX: Duration = Duration::from_secs(60);

/// Version of the record file format.
const RECORD_VERSION: u32 = 1;

/// The largest `Reports.Entries` reply read (a page holds about 1 MB of records).
const ENTRIES_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// The most differences listed in the report.
const DIFFERENCES_MAX: usize = 20;

/// Credits bought at once by a seat that has none (12.5.3.3: 1, 5, 10 or 20).
const CREDITS_BOUGHT: u32 = 5;

/// What `pozo-sim run` is asked.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub tables: usize,
    pub rounds: u32,
    pub seed: u64,
    /// A running controller; `None` starts one in this process on a temporary directory.
    pub server: Option<String>,
    /// With `server`: its layout and keys (the embedded examples when not given).
    pub layout: Option<PathBuf>,
    pub keys: Option<PathBuf>,
    /// How often a seat bets in a round, percent.
    pub bet_percent: u32,
    /// Keep the night's events in this file for `replay`.
    pub record: Option<PathBuf>,
}

/// How `replay` drives a recorded night.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// Each step as soon as the previous one is answered.
    Fast,
    /// Each step at its recorded time from the start.
    Recorded,
}

/// One recorded step of a night: a line of the record file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Header {
        version: u32,
        tables: usize,
        rounds: u32,
        seed: u64,
        bet_percent: u32,
        config_hash: String,
        /// Played on an external controller: not replayable on a new embedded one.
        #[serde(default)]
        external: bool,
    },
    /// Lines for many tables at once; each table's in order.
    Parallel { t_ms: u64, lines: Vec<(String, Vec<String>)> },
    /// Lines for one table while every other waits.
    Sequential { t_ms: u64, table: String, lines: Vec<String> },
    /// The Venta-Pagos office confirms a payout order.
    Confirm { t_ms: u64, order_id: String, form_number: String },
    Footer {
        books: Books,
        books_sha256: String,
        /// The balls played after the last round to finish the grillo series (3.9.1).
        #[serde(default)]
        extra_balls: u32,
    },
}

/// A pool's figures over the night, as the server reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolBooks {
    pub bets: u64,
    pub bets_amount: Money,
    pub contributions: Money,
    pub commission: Money,
    pub replenishments: Money,
    pub awards: Money,
    pub hits: u64,
    pub balance: Money,
    pub reserve: Money,
    pub displayed: Money,
}

/// A table's figures over the night, as the server's table report gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableBooks {
    pub bets: u64,
    pub presses: u64,
    pub ipa: Money,
    pub pppa: Money,
    pub credits_sold: u64,
    pub credits_returned: u64,
}

/// The server's books of the night: what the same seed must reproduce.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Books {
    pub pools: BTreeMap<String, PoolBooks>,
    pub tables: BTreeMap<String, TableBooks>,
}

impl Books {
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(serde_json::to_vec(self).expect("books serialize")))
    }
}

#[derive(Debug, Serialize)]
pub struct Latency {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// The night's report (`--json`).
#[derive(Debug, Serialize)]
pub struct NightReport {
    pub tables: usize,
    pub rounds: u32,
    /// Roulette balls played after the last round to finish the grillo series in play (3.9.1).
    pub extra_balls: u32,
    pub seed: u64,
    pub side_bets: u64,
    pub contributions: String,
    pub awards: String,
    pub replenishments: String,
    pub presses: u64,
    pub commands: u64,
    pub refused: u64,
    /// Lines an agent could not settle at once because its link to the controller was lost
    /// (settled on reconnection, or sent again when not recorded).
    pub link_losses: u64,
    pub seconds: f64,
    pub presses_per_s: f64,
    /// From the line given to the agent to its acknowledgement, presses only.
    pub ack_latency_ms: Latency,
    pub journal_entries: u64,
    pub lights_on: u64,
    pub lights_without_record: u64,
    pub records_without_light: u64,
    /// "ok", or the first difference found.
    pub books: String,
    pub differences: Vec<String>,
    /// `pozo-server verify` of the journal: "ok", a problem, or why it was not run.
    pub verify: String,
    pub books_sha256: String,
    pub pools: BTreeMap<String, PoolBooks>,
}

impl NightReport {
    pub fn ok(&self) -> bool {
        self.books == "ok" && self.lights_without_record == 0 && self.records_without_light == 0 && self.verify != "failed"
    }
}

// ----------------------------------------------------------------------------- the floor

/// What the agents acknowledged at one table: the simulator's own books.
#[derive(Clone, Debug, Default)]
struct Counted {
    presses: u64,
    credits_sold: u64,
    awards: Money,
    hits: u64,
}

/// The agents, the office, and the simulator's own count of what they were told.
struct Floor {
    links: Vec<Arc<Mutex<AgentLink>>>,
    index: HashMap<String, usize>,
    channel: Channel,
    office: (String, Vec<u8>),
    /// The journal the controller announced: what office commands are signed for.
    journal_id: String,
    /// Reports with the supervisor's read credential.
    reports: Reports,
    counted: BTreeMap<String, Counted>,
    commands: u64,
    /// Every difference found while playing: refusals, awards other than the rulebook's.
    differences: Vec<String>,
    refused: u64,
    record: Option<std::io::BufWriter<std::fs::File>>,
    started: Instant,
    pace: Pace,
    form_numbers: u64,
    /// Each table's pool, and the rulebooks, to compute the awards independently.
    pools: HashMap<String, String>,
    rulebooks: pozo_engine::Rulebooks,
    /// The replenishments the rulebooks call for at each ACEPTAR of the night, per pool.
    replenishments: BTreeMap<String, Money>,
    /// A difference that ends the night early (the dealer and the server disagree on the table).
    abandoned: Option<String>,
}

/// Requests to the controller other than through the agents give up after this long.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A channel to the controller for reports, pools and the office.
async fn connect(url: &str) -> anyhow::Result<Channel> {
    tonic::transport::Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("the controller at {url}"))?
        .connect_timeout(Duration::from_secs(5))
        .timeout(REQUEST_TIMEOUT)
        .connect()
        .await
        .with_context(|| format!("the controller at {url}"))
}

/// Reports and journal pages with a supervisor's read credential.
type Reports = pb::reports_client::ReportsClient<pozo_proto::ReadChannel>;

/// The journal a controller announces (Controller.Identify).
async fn journal_id(channel: &Channel) -> anyhow::Result<pb::Identity> {
    Ok(pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?.into_inner())
}

/// A reports client on `channel` with the configuration's supervisor key, for the journal the controller announces.
async fn reports_on(config: &Config, channel: Channel) -> anyhow::Result<Reports> {
    let (id, secret) = casino::supervisor_key(config)?;
    let identity = journal_id(&channel).await?;
    let credential = pozo_proto::ReadCredential::new(&id, &secret, &identity.journal_id);
    Ok(pb::reports_client::ReportsClient::with_interceptor(channel, credential).max_decoding_message_size(ENTRIES_REPLY_BYTES))
}

/// An ACEPTAR's awards against the settlement computed: the difference, if any.
fn award_difference(table: &str, ack: &serde_json::Value, expected: &pozo_engine::Settlement) -> Option<String> {
    let paid: Vec<(u64, String, Money)> = ack["awards"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|award| {
            (award["seat"].as_u64().unwrap_or(0), award["code"].as_str().unwrap_or_default().to_owned(), decimal(&award["award"]))
        })
        .collect();
    let computed: Vec<(u64, String, Money)> =
        expected.awards.iter().map(|award| (u64::from(award.seat), award.code.clone(), award.award)).collect();
    (paid != computed).then(|| format!("table {table}: ACEPTAR paid {paid:?}; the rulebook gives {computed:?}"))
}

/// The winner a `prize SEAT CODE [HIGH]` line enters; every bet is the pool's side bet.
fn winner_of(line: &str) -> Option<pozo_engine::Winner> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (seat, code, high) = match words.as_slice() {
        ["prize", seat, code] => (seat, code, None),
        ["prize", seat, code, high] => (seat, code, high.parse().ok()),
        _ => return None,
    };
    Some(pozo_engine::Winner { seat: seat.parse().ok()?, code: (*code).to_owned(), bet: None, high })
}

fn decimal(value: &serde_json::Value) -> Money {
    value.as_str().and_then(|text| text.parse().ok()).unwrap_or_default()
}

fn amount(value: &Option<pb::Amount>) -> Money {
    value.as_ref().and_then(|amount| amount.value.parse().ok()).unwrap_or_default()
}

impl Floor {
    async fn open(config: &Config, server: &str, record: Option<&Path>, pace: Pace) -> anyhow::Result<Floor> {
        let channel = connect(server).await?;
        let mut links = Vec::new();
        let mut index = HashMap::new();
        for table in &config.layout.tables {
            let key = casino::table_key(config, &table.id)?;
            index.insert(table.id.clone(), links.len());
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
            pools: config.layout.tables.iter().map(|table| (table.id.clone(), table.pool.clone())).collect(),
            rulebooks: config.rulebooks.clone(),
            replenishments: BTreeMap::new(),
            abandoned: None,
        })
    }

    fn t_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn write(&mut self, event: &Event) -> anyhow::Result<()> {
        if let Some(record) = &mut self.record {
            serde_json::to_writer(&mut *record, event)?;
            record.write_all(b"\n")?;
        }
        Ok(())
    }

    /// At the recorded pace, waits until `t_ms` from the start; a recorded pause longer
    /// than [`RECORDED_PAUSE_MAX`] is not a night's (a damaged record) and is refused.
    async fn wait_for(&self, t_ms: u64) -> anyhow::Result<()> {
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

    fn link(&self, table: &str) -> anyhow::Result<Arc<Mutex<AgentLink>>> {
        let index = self.index.get(table).with_context(|| format!("table {table} is not in the layout"))?;
        Ok(Arc::clone(&self.links[*index]))
    }

    /// Counts one answer into the simulator's books; returns the payout orders it made.
    fn count(&mut self, table: &str, line: &str, answer: &Answer) -> Vec<String> {
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
                    if let Some(order) = award["payout_order_id"].as_str().filter(|order| !order.is_empty()) {
                        orders.push(order.to_owned());
                    }
                }
                orders
            }
        }
    }

    /// Lines for many tables at once. Returns each table's answers.
    async fn parallel(&mut self, work: Vec<(String, Vec<String>)>) -> anyhow::Result<BTreeMap<String, Vec<Answer>>> {
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
        let mut results = BTreeMap::new();
        while let Some(done) = tasks.join_next().await {
            let (table, lines, answers) = done??;
            for (line, answer) in lines.iter().zip(&answers) {
                let orders = self.count(&table, line, answer);
                if !orders.is_empty() {
                    self.differences.push(format!("table {table}: `{line}` made payout orders {orders:?} outside ACEPTAR"));
                }
            }
            results.insert(table, answers);
        }
        Ok(results)
    }

    /// Lines for one table while the others wait. At ACEPTAR the awards are checked
    /// against the rulebook's, computed from the pool as it stood just before (the
    /// other tables wait, so nothing else moves it); with `confirm`, the payout
    /// orders are confirmed at once (a replay confirms them by their own events).
    async fn sequential(&mut self, table: &str, lines: Vec<String>, confirm: bool) -> anyhow::Result<Vec<Answer>> {
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
            if let (Answer::Ack(ack), Some(expected)) = (&answer, expected) {
                if instant.is_none() {
                    winners.clear();
                }
                self.check_awards(table, ack, expected);
            }
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
        Ok(answers)
    }

    /// The settlement the rulebook gives the winners entered, on the pool as the server reports it now.
    async fn expected_settlement(
        &mut self,
        table: &str,
        winners: &[pozo_engine::Winner],
    ) -> anyhow::Result<Result<pozo_engine::Settlement, String>> {
        let pool_id = self.pools.get(table).cloned().with_context(|| format!("table {table} is not in the layout"))?;
        let report = self.reports.pool(pb::PoolReportRequest { pool_id: pool_id.clone() }).await?.into_inner();
        let rules = self.rulebooks.pool(&pool_id).with_context(|| format!("pool {pool_id}"))?.clone();
        let side_bet = rules.side_bet;
        let winners: Vec<pozo_engine::Winner> =
            winners.iter().cloned().map(|winner| pozo_engine::Winner { bet: Some(side_bet), ..winner }).collect();
        let mut pool = pozo_engine::Pool::with_balances(Arc::new(rules), amount(&report.balance), amount(&report.reserve));
        Ok(pool.settle_round(&winners).map_err(|error| error.to_string()))
    }

    /// The awards of an ACEPTAR against the rulebook's: every prize entered paid, each the amount computed.
    fn check_awards(&mut self, table: &str, ack: &serde_json::Value, expected: Result<pozo_engine::Settlement, String>) {
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
        *self.replenishments.entry(expected.pool.clone()).or_default() += expected.replenishment;
    }

    /// The Venta-Pagos office confirms a payout order (the cashier paid it).
    async fn confirm(&mut self, order_id: &str, form_number: &str) -> anyhow::Result<()> {
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
    async fn all_closed(&self) -> anyhow::Result<()> {
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
    async fn replay(&mut self, events: &[Event]) -> anyhow::Result<()> {
        for event in events {
            match event {
                Event::Parallel { t_ms, lines } => {
                    self.wait_for(*t_ms).await?;
                    self.parallel(lines.clone()).await?;
                }
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

    async fn stop(self) -> (Vec<AgentLink>, Option<std::io::BufWriter<std::fs::File>>) {
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

// ----------------------------------------------------------------------------- the dealers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Metal {
    Bronze,
    Silver,
    Gold,
}

/// One table's dealer: the cards or the wheel, and the seats' credits and grillos.
struct Dealer {
    table: String,
    game: Game,
    pool: String,
    seats: u32,
    rng: ChaCha8Rng,
    credits: Vec<u32>,
    /// Roulette: each seat's grillos of the next ball, on their plenos (3.1.3).
    grillos: Vec<Option<(Metal, Vec<u8>)>>,
    shoe: Option<blackjack::Table>,
    /// The seats whose press was acknowledged this round.
    betting: Vec<u32>,
    /// Central Póker: the instant-prize card on the monitor (15.11.2).
    instant_card: Option<Card>,
    /// Phase 3 plays this table's whole ball: it holds a gold (4.3.5).
    gold_round: bool,
}

fn table_seed(seed: u64, table: &str) -> u64 {
    let digest = Sha256::new().chain_update(seed.to_be_bytes()).chain_update(table.as_bytes()).finalize();
    u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

fn card_of(value: &serde_json::Value) -> Option<Card> {
    let rank_text = value["rank"].as_str()?;
    let suit = value["suit"].as_str()?;
    let rank = (2..=14).find(|rank| Card::new(*rank, 0).rank_text() == rank_text)?;
    let suit = cards::SUITS.iter().position(|name| *name == suit)? as u8;
    Some(Card::new(rank, suit))
}

impl Dealer {
    fn new(table: &pozo_server::config::TableConfig, seed: u64) -> Dealer {
        let table_seed = table_seed(seed, &table.id);
        let shoe = blackjack::Table::for_game(table.game.name(), table_seed ^ 0x5EED);
        Dealer {
            table: table.id.clone(),
            game: table.game,
            pool: table.pool.clone(),
            seats: table.seats,
            rng: cards::rng(table_seed),
            credits: vec![0; table.seats as usize],
            grillos: vec![None; table.seats as usize],
            shoe,
            betting: Vec::new(),
            instant_card: None,
            gold_round: false,
        }
    }

    fn roulette(&self) -> bool {
        self.game.is_roulette()
    }

    fn holds_grillos(&self) -> bool {
        self.grillos.iter().any(Option::is_some)
    }

    /// Phase 1: who buys credits and who presses.
    fn bets(&mut self, bet_percent: u32) -> Vec<String> {
        self.gold_round = self.grillos.iter().flatten().any(|(metal, _)| *metal == Metal::Gold);
        let mut lines = Vec::new();
        for seat in 1..=self.seats {
            let index = seat as usize - 1;
            // 3.7.3: a seat in a series buys no new bronze.
            if self.roulette() && self.grillos[index].is_some() {
                continue;
            }
            if self.rng.random_range(0..100) >= bet_percent {
                continue;
            }
            if self.credits[index] == 0 {
                lines.push(format!("credits {seat} {CREDITS_BOUGHT}"));
            }
            lines.push(format!("press {seat}"));
        }
        lines
    }

    /// Takes the answers of phase 1.
    fn take_bets(&mut self, lines: &[String], answers: &[Answer]) {
        self.betting.clear();
        for (line, answer) in lines.iter().zip(answers) {
            let Answer::Ack(_) = answer else { continue };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["credits", seat, credits] => {
                    let seat: usize = seat.parse().unwrap_or(1);
                    self.credits[seat - 1] += credits.parse::<u32>().unwrap_or(0);
                }
                ["press", seat] => {
                    let seat: u32 = seat.parse().unwrap_or(1);
                    self.credits[seat as usize - 1] = self.credits[seat as usize - 1].saturating_sub(1);
                    self.betting.push(seat);
                    if self.roulette() {
                        // 3.1.3: three Grillos de Bronce on three plenos.
                        self.grillos[seat as usize - 1] = Some((Metal::Bronze, roulette::plenos(&mut self.rng, 3)));
                    }
                }
                _ => {}
            }
        }
    }

    /// Phase 3: deals the round and returns the prize lines (without ACEPTAR).
    fn prizes(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.roulette() {
            // One ball for every grillo at the table (3.1.3).
            let pocket = roulette::spin(&mut self.rng);
            for seat in 1..=self.seats {
                let index = seat as usize - 1;
                let Some((metal, plenos)) = self.grillos[index].take() else { continue };
                if !plenos.contains(&pocket) {
                    continue;
                }
                let (code, next) = match metal {
                    // 3.4.1.1: two Grillos de Plata; 3.4.1.2: the Grillo de Oro; 3.4.1.3: 100%.
                    Metal::Bronze => ("GRILLO_BRONCE", Some((Metal::Silver, roulette::plenos(&mut self.rng, 2)))),
                    Metal::Silver => ("GRILLO_PLATA", Some((Metal::Gold, roulette::plenos(&mut self.rng, 1)))),
                    Metal::Gold => ("GRILLO_ORO", None),
                };
                self.grillos[index] = next;
                lines.push(format!("prize {seat} {code}"));
            }
            return lines;
        }
        if let Some(shoe) = &mut self.shoe {
            for (seat, code) in shoe.play_round(&self.betting) {
                lines.push(format!("prize {seat} {code}"));
            }
            return lines;
        }
        // Poker: one deck a round; the player's first five, or 3 own + 2 community (Go, AJ 2.3.5.3).
        let mut deck = cards::deck();
        deck.shuffle(&mut self.rng);
        let mut deck = deck.into_iter();
        let community: Vec<Card> = if self.game == Game::GoPoker { deck.by_ref().take(2).collect() } else { Vec::new() };
        let mut instant_won = false;
        let mut instant_line = None;
        for seat in self.betting.clone() {
            let own = 5 - community.len();
            let mut hand: Vec<Card> = deck.by_ref().take(own).collect();
            hand.extend(&community);
            let hand: [Card; 5] = hand.try_into().expect("five cards");
            let value = poker::evaluate(&hand);
            if let Some(code) = poker::premio(&self.pool, value.category) {
                let high = Card::new(value.high().clamp(2, 14), 0).rank_text();
                lines.push(format!("prize {seat} {code} {high}"));
            }
            // 15.11.2: the instant card among the seat's five cards.
            if let Some(card) = self.instant_card
                && !instant_won
                && hand[..own].contains(&card)
            {
                instant_won = true;
                instant_line = Some(format!("prize {seat} {}", pozo_server::state::INSTANT_PRIZE));
            }
        }
        // 16.4.2.5.1: identified, the instant prize is paid first, before the hand's prizes.
        lines.splice(0..0, instant_line);
        lines
    }

    /// The grillos the dealer believes each seat holds, as the panel counts them.
    fn grillo_counts(&self) -> Vec<(u32, u32, u32)> {
        self.grillos
            .iter()
            .map(|grillos| match grillos {
                Some((Metal::Bronze, plenos)) => (plenos.len() as u32, 0, 0),
                Some((Metal::Silver, plenos)) => (0, plenos.len() as u32, 0),
                Some((Metal::Gold, plenos)) => (0, 0, plenos.len() as u32),
                None => (0, 0, 0),
            })
            .collect()
    }
}

// ----------------------------------------------------------------------------- the night

/// An external controller must keep its pools under the rulebooks and layout the
/// simulator checks against: the journal's first entry names its settings' hash.
async fn same_settings(config: &Config, url: &str) -> anyhow::Result<()> {
    // Controller.Identify announces the settings' hash: no key is needed to learn it.
    let hash = journal_id(&connect(url).await?).await?.config_hash;
    anyhow::ensure!(
        hash == config.hash,
        "the controller at {url} runs other settings ({hash}) than --config/--keys and the embedded rulebooks give ({}); \
         give pozo-sim the layout the controller was started with",
        config.hash
    );
    Ok(())
}

/// Plays a night and checks its books.
pub async fn run(options: RunOptions) -> anyhow::Result<NightReport> {
    anyhow::ensure!((1..=ROUNDS_MAX).contains(&options.rounds), "--rounds: 1 to {ROUNDS_MAX}");
    anyhow::ensure!(options.bet_percent <= 100, "--bet-percent: 0 to 100");
    anyhow::ensure!(
        options.tables as u64 * u64::from(options.rounds) <= TABLE_ROUNDS_MAX,
        "--tables × --rounds: at most {TABLE_ROUNDS_MAX} table-rounds a night"
    );
    let (config, embedded, _directory) = match &options.server {
        None => {
            let config = casino::generated(options.tables, options.seed)?;
            let directory = tempfile::tempdir()?;
            let server_options =
                pozo_server::ServeOptions { cards: pozo_server::service::CardSource::Seeded(options.seed), ..Default::default() };
            let server = Embedded::start(config.clone(), &directory.path().join("data"), server_options).await?;
            (config, Some(server), Some(directory))
        }
        Some(_) => {
            let mut config = casino::from_files(options.layout.as_deref(), options.keys.as_deref())?;
            anyhow::ensure!(
                options.tables <= config.layout.tables.len(),
                "--tables {}: the layout has {} tables",
                options.tables,
                config.layout.tables.len()
            );
            config.layout.tables.truncate(options.tables);
            (config, None, None)
        }
    };
    let url = embedded.as_ref().map(|server| server.url.clone()).or(options.server.clone()).expect("a server");
    let mut embedded = embedded;
    let night = play_night(&options, Arc::new(config), &url, &mut embedded).await;
    // A night that ended in an error still stops its controller before the directory goes.
    if let Some(server) = embedded.take()
        && let Err(error) = server.stop().await
    {
        eprintln!("pozo-sim: the embedded controller: {error:#}");
    }
    night
}

/// The night itself, from the header to the books; `finish` takes the embedded
/// controller to stop it and verify its journal.
async fn play_night(
    options: &RunOptions,
    config: Arc<Config>,
    url: &str,
    embedded: &mut Option<Embedded>,
) -> anyhow::Result<NightReport> {
    let url = url.to_owned();
    let header = Event::Header {
        version: RECORD_VERSION,
        tables: options.tables,
        rounds: options.rounds,
        seed: options.seed,
        bet_percent: options.bet_percent,
        config_hash: config.hash.clone(),
        external: options.server.is_some(),
    };
    if options.server.is_some() {
        same_settings(&config, &url).await?;
    }
    let before = Snapshot::take(&config, &url).await?;
    let mut floor = Floor::open(&config, &url, options.record.as_deref(), Pace::Fast).await?;
    floor.all_closed().await?;
    floor.write(&header)?;
    let mut dealers: Vec<Dealer> = config.layout.tables.iter().map(|table| Dealer::new(table, options.seed)).collect();
    let started = Instant::now();
    floor.parallel(dealers.iter().map(|dealer| (dealer.table.clone(), vec!["open".to_owned()])).collect()).await?;
    for _ in 0..options.rounds {
        if floor.abandoned.is_some() {
            break;
        }
        play_round(&mut floor, &mut dealers, options.bet_percent, |_| true).await?;
    }
    // 3.9.1: the series in play are finished before the tables close: more balls, no new bronze.
    let mut extra_balls = 0;
    while floor.abandoned.is_none() && dealers.iter().any(Dealer::holds_grillos) {
        if extra_balls == 3 {
            floor.abandoned = Some("grillo series still in play after 3 more balls (a series has 3 balls at most, 3.1.3)".into());
            break;
        }
        extra_balls += 1;
        play_round(&mut floor, &mut dealers, 0, Dealer::holds_grillos).await?;
    }
    // Pago de créditos (12.5.3.5), then Cierre de Mesa (4.7.7, 12.8.1).
    let closing = dealers
        .iter()
        .map(|dealer| {
            let mut lines: Vec<String> = (1..=dealer.seats)
                .filter(|seat| dealer.credits[*seat as usize - 1] > 0)
                .map(|seat| format!("refund-credits {seat}"))
                .collect();
            lines.push("close".to_owned());
            (dealer.table.clone(), lines)
        })
        .collect();
    floor.parallel(closing).await?;
    let seconds = started.elapsed();
    finish(floor, &config, &url, before, embedded, options.rounds, extra_balls, options.seed, seconds).await
}

/// `line` for every playing table but those playing a gold round (which start and
/// finish it within phase 3).
fn outside_gold_rounds(dealers: &[Dealer], playing: &[usize], line: &str) -> Vec<(String, Vec<String>)> {
    playing
        .iter()
        .filter(|index| !dealers[**index].gold_round)
        .map(|index| (dealers[*index].table.clone(), vec![line.to_owned()]))
        .collect()
}

/// One round at every table `plays` picks (module docs: four phases).
async fn play_round(
    floor: &mut Floor,
    dealers: &mut [Dealer],
    bet_percent: u32,
    plays: impl Fn(&Dealer) -> bool,
) -> anyhow::Result<()> {
    let playing: Vec<usize> = (0..dealers.len()).filter(|index| plays(&dealers[*index])).collect();
    // Phase 1: bets.
    let mut bets = BTreeMap::new();
    for index in &playing {
        let lines = dealers[*index].bets(bet_percent);
        bets.insert(dealers[*index].table.clone(), lines);
    }
    let answers = floor.parallel(bets.clone().into_iter().collect()).await?;
    for index in &playing {
        let dealer = &mut dealers[*index];
        let lines = bets.get(&dealer.table).cloned().unwrap_or_default();
        let none = Vec::new();
        dealer.take_bets(&lines, answers.get(&dealer.table).unwrap_or(&none));
    }
    // Phase 2: INICIAR JUEGO.
    floor.parallel(outside_gold_rounds(dealers, &playing, "start")).await?;
    // Phase 3: prizes, one table after another.
    for index in &playing {
        let dealer = &mut dealers[*index];
        let mut lines = Vec::new();
        if dealer.gold_round {
            // 4.3.4, 4.3.5: "Se juega Grillo de Oro".
            lines.push("gold-turn".to_owned());
            lines.push("start".to_owned());
        } else if dealer.game.plays_instant_prize() {
            let link = floor.link(&dealer.table)?;
            let link = link.lock().await;
            dealer.instant_card = card_of(&link.panel["instant_card"]);
        }
        let prizes = dealer.prizes();
        // The premio instantáneo is paid when entered (16.4.2.5.1); ACEPTAR is for the rest.
        let any_prize = prizes.iter().any(|line| !line.ends_with(pozo_server::state::INSTANT_PRIZE));
        lines.extend(prizes);
        if any_prize {
            lines.push("accept".to_owned());
        }
        if dealer.gold_round {
            lines.push("finish".to_owned());
        }
        floor.sequential(&dealer.table.clone(), lines, true).await?;
    }
    // Phase 4: FINALIZAR JUEGO.
    floor.parallel(outside_gold_rounds(dealers, &playing, "finish")).await?;
    // The dealer's grillos against the panel's.
    for index in &playing {
        let dealer = &dealers[*index];
        if !dealer.roulette() {
            continue;
        }
        let link = floor.link(&dealer.table)?;
        let link = link.lock().await;
        let seats = link.panel["seats"].as_array().cloned().unwrap_or_default();
        for (seat, (bronze, silver, gold)) in dealer.grillo_counts().into_iter().enumerate() {
            let shown = &seats[seat];
            let panel = (shown["bronze"].as_u64(), shown["silver"].as_u64(), shown["gold"].as_u64());
            if panel != (Some(u64::from(bronze)), Some(u64::from(silver)), Some(u64::from(gold))) && floor.abandoned.is_none() {
                // The dealer and the server no longer agree on the table: the night stops here.
                floor.abandoned = Some(format!(
                    "table {} seat {}: the dealer has {bronze} bronze, {silver} silver, {gold} gold; the panel shows {panel:?}",
                    dealer.table,
                    seat + 1
                ));
            }
        }
    }
    Ok(())
}

// ----------------------------------------------------------------------------- the books

/// The server's reports at one moment.
struct Snapshot {
    pools: BTreeMap<String, pb::PoolReport>,
    tables: BTreeMap<String, BTreeMap<String, pb::TableReport>>,
    journal_entries: u64,
    tip_hash: String,
}

impl Snapshot {
    async fn take(config: &Config, url: &str) -> anyhow::Result<Snapshot> {
        Snapshot::take_with(config, url, &BTreeSet::new()).await
    }

    /// The reports, with the table reports of the current jornada and of `jornadas`.
    async fn take_with(config: &Config, url: &str, jornadas: &BTreeSet<String>) -> anyhow::Result<Snapshot> {
        let mut reports = reports_on(config, connect(url).await?).await?;
        let mut pools = BTreeMap::new();
        let pool_ids: BTreeSet<&str> = config.layout.tables.iter().map(|table| table.pool.as_str()).collect();
        for pool in pool_ids {
            let report = reports.pool(pb::PoolReportRequest { pool_id: pool.to_owned() }).await?.into_inner();
            pools.insert(pool.to_owned(), report);
        }
        let mut tables = BTreeMap::new();
        for table in &config.layout.tables {
            let mut days = BTreeMap::new();
            let current =
                reports.table(pb::TableReportRequest { table_id: table.id.clone(), jornada: String::new() }).await?.into_inner();
            for jornada in jornadas {
                if *jornada != current.jornada {
                    let report = reports
                        .table(pb::TableReportRequest { table_id: table.id.clone(), jornada: jornada.clone() })
                        .await?
                        .into_inner();
                    days.insert(jornada.clone(), report);
                }
            }
            days.insert(current.jornada.clone(), current);
            tables.insert(table.id.clone(), days);
        }
        let journal = reports.journal(pb::JournalStatusRequest {}).await?.into_inner();
        Ok(Snapshot { pools, tables, journal_entries: journal.entries, tip_hash: journal.tip_hash })
    }

    fn jornadas(&self) -> BTreeSet<String> {
        self.tables.values().flat_map(|days| days.keys().cloned()).collect()
    }
}

/// The night's books: `after` less `before`, counters summed over the jornadas.
fn books_of(before: &Snapshot, after: &Snapshot) -> Books {
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
fn compare(
    config: &Config,
    counted: &BTreeMap<String, Counted>,
    books: &Books,
    before: &Snapshot,
    replenishments: &BTreeMap<String, Money>,
) -> Vec<String> {
    let mut differences = Vec::new();
    let mut differ = |what: String| differences.push(what);
    let mut per_pool: BTreeMap<&str, (u64, Money, u64)> = BTreeMap::new();
    for table in &config.layout.tables {
        let rules = config.rulebooks.pool(&table.pool).expect("validated layout");
        let mine = counted.get(&table.id).cloned().unwrap_or_default();
        let theirs = books.tables.get(&table.id).cloned().unwrap_or_default();
        let id = &table.id;
        // Every acknowledged press is a registered side bet: nothing was voided.
        if theirs.presses != mine.presses {
            differ(format!("table {id}: {} presses acknowledged, the report has {}", mine.presses, theirs.presses));
        }
        if theirs.bets != mine.presses {
            differ(format!("table {id}: {} side bets acknowledged, the report has {}", mine.presses, theirs.bets));
        }
        let ipa = Decimal::from(mine.presses) * rules.side_bet;
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
        let entry = per_pool.entry(table.pool.as_str()).or_default();
        entry.0 += mine.presses;
        entry.1 += mine.awards;
        entry.2 += mine.hits;
    }
    for (pool, (bets, awards, hits)) in per_pool {
        let rules = config.rulebooks.pool(pool).expect("validated layout");
        let theirs = books.pools.get(pool).cloned().unwrap_or_default();
        let bets_amount = Decimal::from(bets) * rules.side_bet;
        // 3.2.1, 11.2.3, 15.2.4: the share of each bet; AJ 2.5.6.3: main, reserve and commission.
        let contributions = bets_amount * (rules.contribution_rate + rules.reserve_rate);
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
        // docs/readings.md: the display shows the balance, never less than the minimum.
        if theirs.displayed != theirs.balance.max(rules.minimum) {
            differ(format!(
                "pool {pool}: the display shows {}, not max(balance {}, minimum {})",
                theirs.displayed, theirs.balance, rules.minimum
            ));
        }
    }
    differences
}

/// The journal read back through `Reports.Entries`, its chain checked from the
/// first entry (whose previous hash is SHA-256("pozo.v1 genesis", 0, installation))
/// to the tip the server reports: the presses it records after the night's start,
/// as (table, seat, table sequence).
async fn journal_presses(
    config: &Config,
    channel: Channel,
    since: u64,
    after: &Snapshot,
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
                Ok(record) if entry.sequence > since => presses.extend(journal::presses([&record])),
                Ok(_) => {}
                Err(broken) => {
                    problem = Some(broken.to_string());
                    break 'pages;
                }
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

/// An office command signed with the Venta-Pagos operator's key for the controller's journal.
fn office_envelope(office: &(String, Vec<u8>), journal_id: &str, command: pb::office_command::Command) -> pb::Envelope {
    let payload = pb::OfficeCommand { command: Some(command) }.encode_to_vec();
    pozo_proto::sign(&office.0, &office.1, pozo_proto::Purpose::OfficeCommand, journal_id, payload)
}

/// Payout orders marked during the night and still pending: every one should have been confirmed.
async fn pending_orders(
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
fn latency(mut micros: Vec<u64>) -> Latency {
    if micros.is_empty() {
        return Latency { p50: 0.0, p99: 0.0, max: 0.0 };
    }
    micros.sort_unstable();
    let at = |fraction: f64| micros[((micros.len() - 1) as f64 * fraction).round() as usize] as f64 / 1000.0;
    Latency { p50: at(0.50), p99: at(0.99), max: at(1.0) }
}

/// Ends the night: the agents' lights, the reports, the journal, verify.
#[allow(clippy::too_many_arguments, clippy::float_arithmetic)]
async fn finish(
    floor: Floor,
    config: &Config,
    url: &str,
    before: Snapshot,
    embedded: &mut Option<Embedded>,
    rounds: u32,
    extra_balls: u32,
    seed: u64,
    seconds: Duration,
) -> anyhow::Result<NightReport> {
    let counted = floor.counted.clone();
    let (commands, refused, played) = (floor.commands, floor.refused, floor.differences.clone());
    let replenishments = floor.replenishments.clone();
    let abandoned = floor.abandoned.clone();
    let channel = floor.channel.clone();
    let office = floor.office.clone();
    let journal = floor.journal_id.clone();
    let (mut links, record) = floor.stop().await;
    // Every panel the agents wrote so far.
    tokio::time::sleep(Duration::from_millis(50)).await;
    for link in &mut links {
        link.drain()?;
    }
    let after = Snapshot::take_with(config, url, &before.jornadas()).await?;
    let books = books_of(&before, &after);
    let mut differences: Vec<String> = abandoned.into_iter().collect();
    differences.extend(played);
    differences.extend(compare(config, &counted, &books, &before, &replenishments));
    differences.extend(pending_orders(channel.clone(), &office, &journal, before.journal_entries).await?);
    let (journal_entries, presses, chain_problem) = journal_presses(config, channel, before.journal_entries, &after).await?;
    differences.extend(chain_problem);
    let lights: BTreeSet<(String, u32, u64)> = links
        .iter()
        .flat_map(|link| link.lights_on.iter().map(|light| (link.table.clone(), light.seat, light.sequence)))
        .collect();
    let lights_without_record = lights.difference(&presses).count() as u64;
    let records_without_light = presses.difference(&lights).count() as u64;
    if let Some(light) = lights.difference(&presses).next() {
        differences.push(format!(
            "table {} seat {}: a light turned on at sequence {} with no press in the journal",
            light.0, light.1, light.2
        ));
    }
    if let Some(press) = presses.difference(&lights).next() {
        differences.push(format!("table {} seat {}: the press at sequence {} never lit the seat", press.0, press.1, press.2));
    }
    let latencies: Vec<u64> = links.iter().flat_map(|link| link.press_latencies_us.iter().copied()).collect();
    let link_losses = links.iter().map(|link| link.link_losses).sum();
    for link in links {
        link.stop().await;
    }
    let verify = match embedded.take() {
        Some(server) => {
            let data = server.data.clone();
            let journal_key = config.journal_key.clone().context("the keys have a journal key")?;
            server.stop().await?;
            let mark = pozo_server::mark::default_path(&data);
            match tokio::task::spawn_blocking(move || pozo_server::verify::verify(&data, &journal_key, Some(&mark))).await? {
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
        }
        None => "not run: the controller is external (stop it, then `pozo-server verify --data DIR`)".to_owned(),
    };
    let books_sha256 = books.sha256();
    if let Some(mut record) = record {
        serde_json::to_writer(
            &mut record,
            &Event::Footer { books: books.clone(), books_sha256: books_sha256.clone(), extra_balls },
        )?;
        record.write_all(b"\n")?;
        record.flush()?;
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
        books_sha256,
        pools: books.pools,
    })
}

// ----------------------------------------------------------------------------- replay

/// Reads a recorded night.
pub fn read_record(path: &Path) -> anyhow::Result<Vec<Event>> {
    let file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    let size = file.metadata()?.len();
    anyhow::ensure!(size <= RECORD_BYTES_MAX, "{}: {size} bytes, over {RECORD_BYTES_MAX}", path.display());
    let mut events = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        events.push(
            serde_json::from_str(&line)
                .with_context(|| format!("{} line {}: not a recorded event", path.display(), number + 1))?,
        );
    }
    Ok(events)
}

/// What `replay` found: the night's report, and whether the books are the recorded ones.
#[derive(Debug, Serialize)]
pub struct ReplayReport {
    pub recorded_books_sha256: String,
    pub same_books: bool,
    pub night: NightReport,
}

/// Drives a recorded night again on a new embedded controller and compares the books.
pub async fn replay(path: &Path, pace: Pace, record: Option<&Path>) -> anyhow::Result<ReplayReport> {
    let events = read_record(path)?;
    let Some(Event::Header { version, tables, rounds, seed, config_hash, external, .. }) = events.first().cloned() else {
        anyhow::bail!("{}: the first line is not a night's header", path.display());
    };
    anyhow::ensure!(
        !external,
        "{}: recorded on an external controller (--server), whose pools had their own history; replay plays nights recorded on the embedded controller",
        path.display()
    );
    anyhow::ensure!(version == RECORD_VERSION, "{}: record version {version}, this build reads {RECORD_VERSION}", path.display());
    let Some(Event::Footer { books_sha256, extra_balls, .. }) = events.last().cloned() else {
        anyhow::bail!("{}: the night was not recorded to its end (no footer)", path.display());
    };
    let config = casino::generated(tables, seed)?;
    anyhow::ensure!(
        config.hash == config_hash,
        "{}: recorded with another casino ({config_hash}); this build generates {}",
        path.display(),
        config.hash
    );
    let directory = tempfile::tempdir()?;
    let options = pozo_server::ServeOptions { cards: pozo_server::service::CardSource::Seeded(seed), ..Default::default() };
    let server = Embedded::start(config.clone(), &directory.path().join("data"), options).await?;
    let url = server.url.clone();
    let config = Arc::new(config);
    let mut embedded = Some(server);
    let replayed = async {
        let before = Snapshot::take(&config, &url).await?;
        let mut floor = Floor::open(&config, &url, record, pace).await?;
        floor.write(&events[0])?;
        let started = Instant::now();
        floor.replay(&events[1..events.len() - 1]).await?;
        let seconds = started.elapsed();
        finish(floor, &config, &url, before, &mut embedded, rounds, extra_balls, seed, seconds).await
    }
    .await;
    // A replay that ended in an error still stops its controller before the directory goes.
    if let Some(server) = embedded.take()
        && let Err(error) = server.stop().await
    {
        eprintln!("pozo-sim: the embedded controller: {error:#}");
    }
    let night = replayed?;
    Ok(ReplayReport { same_books: night.books_sha256 == books_sha256, recorded_books_sha256: books_sha256, night })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Books that agree with `counted` for a casino of one blackjack and one roulette table.
    fn agreeing(config: &Config, counted: &BTreeMap<String, Counted>) -> (Snapshot, Books) {
        let before = Snapshot { pools: BTreeMap::new(), tables: BTreeMap::new(), journal_entries: 0, tip_hash: String::new() };
        let mut books = Books::default();
        for table in &config.layout.tables {
            let rules = config.rulebooks.pool(&table.pool).expect("pool");
            let mine = counted.get(&table.id).cloned().unwrap_or_default();
            books.tables.insert(
                table.id.clone(),
                TableBooks {
                    bets: mine.presses,
                    presses: mine.presses,
                    ipa: Decimal::from(mine.presses) * rules.side_bet,
                    pppa: mine.awards,
                    credits_sold: mine.credits_sold,
                    credits_returned: mine.credits_sold - mine.presses,
                },
            );
            let pool = books.pools.entry(table.pool.clone()).or_default();
            let amount = Decimal::from(mine.presses) * rules.side_bet;
            pool.bets += mine.presses;
            pool.bets_amount += amount;
            pool.contributions += amount * (rules.contribution_rate + rules.reserve_rate);
            pool.commission += amount * rules.commission_rate;
            pool.awards += mine.awards;
            pool.hits += mine.hits;
            pool.balance += amount * rules.contribution_rate - mine.awards;
            pool.reserve += amount * rules.reserve_rate;
            pool.displayed = pool.balance.max(rules.minimum);
        }
        (before, books)
    }

    #[test]
    fn the_books_check_names_the_first_difference() {
        let config = casino::generated(2, 1).expect("a casino");
        let mut counted = BTreeMap::new();
        counted.insert("R1".to_owned(), Counted { presses: 4, credits_sold: 5, awards: Money::ZERO, hits: 0 });
        counted.insert("B1".to_owned(), Counted { presses: 3, credits_sold: 10, awards: Money::from_cents(5000), hits: 1 });
        let (before, books) = agreeing(&config, &counted);
        let none = BTreeMap::new();
        assert_eq!(compare(&config, &counted, &books, &before, &none), Vec::<String>::new());

        // The server recorded one press the agents never acknowledged.
        let mut more = books.clone();
        more.tables.get_mut("B1").expect("B1").presses += 1;
        let differences = compare(&config, &counted, &more, &before, &none);
        assert_eq!(differences, vec!["table B1: 3 presses acknowledged, the report has 4".to_owned()]);

        // An award the pool paid that no acknowledgement carried: awards and conservation differ.
        let mut paid = books.clone();
        paid.pools.get_mut("iplyc-blackjack").expect("pool").awards += Money::from(1);
        let differences = compare(&config, &counted, &paid, &before, &none);
        assert!(differences[0].contains("pool iplyc-blackjack: awards 50.00 by the simulator's count, the server reports 51.00"));

        // Money that appeared in the pool from nowhere.
        let mut richer = books;
        richer.pools.get_mut("iplyc-ruleta").expect("pool").balance += Money::from_cents(1);
        let differences = compare(&config, &counted, &richer, &before, &none);
        assert_eq!(differences.len(), 1, "{differences:?}");
        assert!(differences[0].starts_with("pool iplyc-ruleta: 0 held + 78.0000 contributed"), "{differences:?}");
    }

    #[test]
    fn an_award_other_than_the_rulebooks_is_a_difference() {
        let config = casino::generated(2, 1).expect("a casino");
        let rules = config.rulebooks.pool("iplyc-blackjack").expect("pool").clone();
        let winners = [winner_of("prize 2 TRES_SIETES").expect("a prize line")]
            .map(|winner| pozo_engine::Winner { bet: Some(rules.side_bet), ..winner });
        let mut pool = pozo_engine::Pool::with_balances(Arc::new(rules), Money::from_cents(500_000), Money::ZERO);
        let expected = pool.settle_round(&winners).expect("settled");
        let ack = |awards: serde_json::Value| serde_json::json!({"type": "ack", "awards": awards});
        // 11.5.4: three sevens of mixed suits, $200.
        let right = ack(serde_json::json!([{"seat": 2, "code": "TRES_SIETES", "award": "200.00"}]));
        assert_eq!(award_difference("B1", &right, &expected), None);
        let doubled = ack(serde_json::json!([{"seat": 2, "code": "TRES_SIETES", "award": "400.00"}]));
        assert!(award_difference("B1", &doubled, &expected).is_some_and(|text| text.contains("the rulebook gives")));
        let dropped = ack(serde_json::json!([]));
        assert!(award_difference("B1", &dropped, &expected).is_some());
        let other_seat = ack(serde_json::json!([{"seat": 3, "code": "TRES_SIETES", "award": "200.00"}]));
        assert!(award_difference("B1", &other_seat, &expected).is_some());
    }

    #[test]
    fn latency_percentiles_come_from_the_sorted_samples() {
        let latency = latency((1..=100).rev().map(|ms| ms * 1000).collect());
        assert_eq!((latency.p50, latency.p99, latency.max), (51.0, 99.0, 100.0));
    }
}
