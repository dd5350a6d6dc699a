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
//!
//! # Layout
//! - this file: the options, the reports, and the night played phase after phase;
//! - `floor`: the tables through real agents, and what each acknowledged;
//! - `dealer`: each table's cards or wheel from its seed;
//! - `books`: the server's reports compared with the simulator's count, and the journal audit;
//! - `record`: a night's record read back and replayed.

mod books;
mod dealer;
mod floor;
mod record;

use books::*;
use dealer::*;
use floor::*;
pub use record::{ReplayReport, read_record, replay};

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
use crate::{blackjack, levels, poker, roulette, three_card};
use pozo_server::Embedded;

/// The most rounds one night plays.
pub const ROUNDS_MAX: u32 = 100_000;

/// The largest recorded night `replay` reads.
const RECORD_BYTES_MAX: u64 = 1 << 30;

/// The most table-rounds (tables × rounds) one night plays: what the simulator keeps
/// per press (lights, latencies) stays within a few hundred megabytes.
const TABLE_ROUNDS_MAX: u64 = 2_000_000;

/// The longest pause `replay --recorded-speed` waits between two steps.
const RECORDED_PAUSE_MAX: Duration = Duration::from_secs(60);

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
    /// Show a progress bar of the rounds on standard error (when it is a terminal).
    pub progress: bool,
    /// The rulebooks the generated casino plays (embedded controller only).
    pub rulebooks: casino::Rulebooks,
}

/// Every pool's balance after `round` rounds of the night (0: before the first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BalancePoint {
    pub round: u32,
    pub pools: BTreeMap<String, Money>,
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
        /// The rulebooks the generated casino played (absent in the records of earlier
        /// releases: the regulations').
        #[serde(default)]
        rulebooks: casino::Rulebooks,
    },
    /// Lines for many tables at once; each table's in order.
    Parallel { t_ms: u64, lines: Vec<(String, Vec<String>)> },
    /// The order the controller journaled the last `Parallel`'s lines in, one table per line:
    /// replayed in that order, one line at a time, so that a mystery level's hit falls to the
    /// same bet (docs/readings.md, "The mystery level": the journal's order decides). Absent in
    /// the records of earlier releases, whose parallel lines replay in parallel.
    Journaled { tables: Vec<String> },
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
    contributions: Money,
    commission: Money,
    replenishments: Money,
    awards: Money,
    hits: u64,
    balance: Money,
    reserve: Money,
    displayed: Money,
}

/// A table's figures over the night, as the server's table report gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct TableBooks {
    bets: u64,
    presses: u64,
    ipa: Money,
    pppa: Money,
    credits_sold: u64,
    credits_returned: u64,
}

/// The server's books of the night: what the same seed must reproduce.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Books {
    pools: BTreeMap<String, PoolBooks>,
    tables: BTreeMap<String, TableBooks>,
}

impl Books {
    fn sha256(&self) -> String {
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
    presses: u64,
    pub commands: u64,
    pub refused: u64,
    /// Lines an agent could not settle at once because its link to the controller was lost
    /// (settled on reconnection, or sent again when not recorded).
    link_losses: u64,
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
    /// Every jornada of the night reconciled over gRPC, each pool and its tables tied to zero:
    /// "ok" or the first that is not.
    pub reconciliation: String,
    /// The night's jornadas' evidence, made and verified offline (embedded controller only).
    pub evidence: EvidenceFigures,
    pub books_sha256: String,
    pub pools: BTreeMap<String, PoolBooks>,
    /// Each pool's balance before the first round and after every round (empty for a replay).
    pub balances: Vec<BalancePoint>,
    /// The rulebooks the casino played: `regulations` or `market`.
    pub rulebooks: String,
    /// Every level of every pool with levels on its own books, from the journal replayed by the
    /// pure core at the end of the night: "ok" (each tied to zero and holding what the
    /// simulator's count holds), the first that is not, or "no pool with levels".
    pub level_books: String,
    /// Those levels' figures, first level first, per pool with levels.
    pub levels: BTreeMap<String, Vec<LevelBooks>>,
    /// The awards the night paid, per premio code (the envy awards under their own codes):
    /// how many and how much.
    pub codes: BTreeMap<String, CodeBooks>,
}

/// One level's books over the whole journal (the night's controller started with it), from the
/// journal replayed by the pure core (`pozo_engine::Pool::levels`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelBooks {
    pub name: String,
    /// The house's level (envy bonuses and fixed prizes, paid with the house's money).
    pub house: bool,
    pub balance: Money,
    pub reserve: Money,
    pub displayed: Money,
    pub contributions: Money,
    pub replenishments: Money,
    pub reserve_transfers: Money,
    pub awards: Money,
    pub hits: u64,
    /// contributions + replenishments (+ transfers, adjustments) − held − awarded: zero.
    pub difference: Money,
}

/// The awards of one premio code over the night.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CodeBooks {
    pub hits: u64,
    pub amount: Money,
}

/// The night's pools as a table for a person: bets, money in and out, and where each ended.
pub fn summary_table(night: &NightReport) -> String {
    let ars = pozo_engine::format_ars;
    let mut out = format!(
        "{:<22} {:>7} {:>16} {:>16} {:>16} {:>5} {:>16}\n",
        "pool", "bets", "contributions", "replenishments", "awards", "hits", "balance"
    );
    for (pool, books) in &night.pools {
        out.push_str(&format!(
            "{:<22} {:>7} {:>16} {:>16} {:>16} {:>5} {:>16}\n",
            pool,
            books.bets,
            ars(books.contributions),
            ars(books.replenishments),
            ars(books.awards),
            books.hits,
            ars(books.balance)
        ));
        for level in night.levels.get(pool).into_iter().flatten() {
            out.push_str(&format!(
                "  {:<20} {:>7} {:>16} {:>16} {:>16} {:>5} {:>16}\n",
                level.name,
                "",
                ars(level.contributions),
                ars(level.replenishments),
                ars(level.awards),
                level.hits,
                ars(level.balance)
            ));
        }
    }
    out
}

impl NightReport {
    pub fn ok(&self) -> bool {
        self.books == "ok" && self.lights_without_record == 0 && self.records_without_light == 0 && self.verify != "failed"
    }

    /// Whether a pool with levels was played.
    pub fn has_levels(&self) -> bool {
        !self.levels.is_empty()
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
    // The levels' balances are in no report (docs/readings.md, "Levels"): the simulator counts
    // them from the pools' opening, so a night on the market's rulebooks starts its own controller.
    anyhow::ensure!(
        options.server.is_none() || options.rulebooks == casino::Rulebooks::Regulations,
        "--rulebooks {}: a night on pools with levels plays on its own embedded controller (no report gives a level's \
         balance, so the simulator cannot know where a running controller's levels stand)",
        options.rulebooks.name()
    );
    let (config, embedded, _directory) = match &options.server {
        None => {
            let config = casino::generated_of(options.rulebooks, options.tables, options.seed)?;
            let directory = tempfile::tempdir()?;
            let server_options =
                pozo_server::ServeOptions { cards: pozo_server::cards::CardSource::Seeded(options.seed), ..Default::default() };
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
        rulebooks: options.rulebooks,
    };
    if options.server.is_some() {
        same_settings(&config, &url).await?;
    }
    let before = Snapshot::take(&config, &url).await?;
    let mut floor = Floor::open(&config, &url, options.record.as_deref(), Pace::Fast).await?;
    floor.all_closed().await?;
    floor.write(&header)?;
    let mut dealers: Vec<Dealer> = config.layout.tables.iter().map(|table| Dealer::new(&config, table, options.seed)).collect();
    let started = Instant::now();
    floor.parallel(dealers.iter().map(|dealer| (dealer.table.clone(), vec!["open".to_owned()])).collect()).await?;
    floor.sample_balances(0).await?;
    let bar = progress_bar(options);
    for round in 1..=options.rounds {
        if floor.abandoned.is_some() {
            break;
        }
        play_round(&mut floor, &mut dealers, options.bet_percent, |_| true).await?;
        floor.sample_balances(round).await?;
        bar.set_message(format!("{} commands", floor.commands));
        bar.inc(1);
    }
    bar.finish_and_clear();
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
    floor.parallel(closing_lines(&dealers)).await?;
    let seconds = started.elapsed();
    let played = Played { rounds: options.rounds, extra_balls, seed: options.seed, seconds, rulebooks: options.rulebooks };
    finish(floor, &config, &url, before, embedded, played).await
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
        deal_prizes(floor, &mut dealers[*index]).await?;
    }
    // Phase 4: FINALIZAR JUEGO.
    floor.parallel(outside_gold_rounds(dealers, &playing, "finish")).await?;
    check_grillos(floor, dealers, &playing).await?;
    Ok(())
}

/// The progress bar of the rounds; drawn only when standard error is a terminal (indicatif
/// hides it otherwise).
fn progress_bar(options: &RunOptions) -> indicatif::ProgressBar {
    let bar =
        if options.progress { indicatif::ProgressBar::new(u64::from(options.rounds)) } else { indicatif::ProgressBar::hidden() };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] round {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Pago de créditos (12.5.3.5), then Cierre de Mesa (4.7.7, 12.8.1): every table's lines.
fn closing_lines(dealers: &[Dealer]) -> Vec<(String, Vec<String>)> {
    dealers
        .iter()
        .map(|dealer| {
            let mut lines: Vec<String> = (1..=dealer.seats)
                .filter(|seat| dealer.credits[*seat as usize - 1] > 0)
                .map(|seat| format!("refund-credits {seat}"))
                .collect();
            lines.push("close".to_owned());
            (dealer.table.clone(), lines)
        })
        .collect()
}

/// Phase 3 at one table: the dealer deals the round, enters the premio codes, ACEPTAR (and a
/// gold round's turn, start and finish).
async fn deal_prizes(floor: &mut Floor, dealer: &mut Dealer) -> anyhow::Result<()> {
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
    Ok(())
}

/// The dealer's grillos against the panel's: when they differ, the night stops here.
async fn check_grillos(floor: &mut Floor, dealers: &[Dealer], playing: &[usize]) -> anyhow::Result<()> {
    for index in playing {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Books that agree with `counted` for a casino of one blackjack and one roulette table.
    fn agreeing(config: &Config, counted: &BTreeMap<String, Counted>) -> (Snapshot, Books) {
        let before = Snapshot { pools: BTreeMap::new(), tables: BTreeMap::new(), journal_entries: 0, tip_hash: String::new() };
        let mut books = Books::default();
        for table in &config.layout.tables {
            let rules = config.rulebooks.pool(&table.pool).expect("pool");
            let mine = counted.get(table.id.as_str()).cloned().unwrap_or_default();
            books.tables.insert(
                table.id.to_string(),
                TableBooks {
                    bets: mine.presses,
                    presses: mine.presses,
                    ipa: Decimal::from(mine.presses) * rules.side_bet,
                    pppa: mine.awards,
                    credits_sold: mine.credits_sold,
                    credits_returned: mine.credits_sold - mine.presses,
                },
            );
            let pool = books.pools.entry(table.pool.to_string()).or_default();
            let amount = Decimal::from(mine.presses) * rules.side_bet;
            pool.bets += mine.presses;
            pool.bets_amount += amount;
            pool.contributions += amount * (rules.contribution_rate + rules.reserve_rate);
            pool.commission += amount * rules.commission_rate;
            pool.awards += mine.awards;
            pool.hits += mine.hits;
            pool.balance += amount * rules.contribution_rate - mine.awards;
            pool.reserve += amount * rules.reserve_rate;
            pool.displayed = rules.displayed_for(pool.balance);
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
        assert_eq!(compare(&config, &counted, &books, &before, &none, &BTreeMap::new()), Vec::<String>::new());

        // The server recorded one press the agents never acknowledged.
        let mut more = books.clone();
        more.tables.get_mut("B1").expect("B1").presses += 1;
        let differences = compare(&config, &counted, &more, &before, &none, &BTreeMap::new());
        assert_eq!(differences, vec!["table B1: 3 presses acknowledged, the report has 4".to_owned()]);

        // An award the pool paid that no acknowledgement carried: awards and conservation differ.
        let mut paid = books.clone();
        paid.pools.get_mut("iplyc-blackjack").expect("pool").awards += Money::from(1);
        let differences = compare(&config, &counted, &paid, &before, &none, &BTreeMap::new());
        assert!(differences[0].contains("pool iplyc-blackjack: awards 50.00 by the simulator's count, the server reports 51.00"));

        // Money that appeared in the pool from nowhere.
        let mut richer = books;
        richer.pools.get_mut("iplyc-ruleta").expect("pool").balance += Money::from_cents(1);
        let differences = compare(&config, &counted, &richer, &before, &none, &BTreeMap::new());
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
    fn the_level_books_name_a_level_the_journal_and_the_count_disagree_on() {
        let config = Arc::new(casino::generated_of(casino::Rulebooks::Market, 3, 1).expect("a casino"));
        let replayed = pozo_server::state::State::new(Arc::clone(&config));
        let open = |id: &str| pozo_engine::Pool::open(Arc::new(config.rulebooks.pool(id).expect("pool").clone()));
        let mut counted: BTreeMap<String, pozo_engine::Pool> =
            ["mercado-blackjack", "mercado-tcp"].into_iter().map(|id| (id.to_owned(), open(id))).collect();
        let mut differences = Vec::new();
        let (figures, verdict) = level_books(&replayed, &counted, &mut differences);
        assert_eq!((verdict.as_str(), differences.len()), ("ok", 0));
        assert_eq!(figures["mercado-blackjack"].len(), 5);
        assert_eq!(figures["mercado-tcp"][0].name, "Mini Royal");
        // A bet the simulator counted and the journal does not hold: the Grand is named.
        counted.get_mut("mercado-blackjack").expect("the link").register_bet(Money::from(1000)).expect("a bet");
        let (_, verdict) = level_books(&replayed, &counted, &mut differences);
        assert!(
            verdict.starts_with("levels: pool mercado-blackjack, level 1 (Grand): the journal replayed holds 2000000"),
            "{verdict}"
        );
        assert_eq!(differences, [verdict]);
    }

    #[test]
    fn latency_percentiles_come_from_the_sorted_samples() {
        let latency = latency((1..=100).rev().map(|ms| ms * 1000).collect());
        assert_eq!((latency.p50, latency.p99, latency.max), (51.0, 99.0, 100.0));
    }
}
