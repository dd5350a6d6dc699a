//! The controller's state machine: every table, pool, gold turn, payout order and
//! report meter, changed only by applying journaled commands in order.
//!
//! Deterministic and free of I/O: the time of an entry comes in the [`Context`] the
//! writer (or recovery, `verify`, the bench) gives [`State::apply`], and the card drawn
//! for a premio instantáneo is carried by the command itself, so replaying the journal
//! gives the same state bit for bit. Every command is validated whole before anything
//! changes: a refused command changes nothing (the writer then journals nothing), and a
//! retried one is answered from the state.
//!
//! # Layout
//! - [`command`]: what the journal records ([`Command`], [`TableOp`], [`OfficeOp`]).
//! - [`refusal`]: why a command is refused ([`Refusal`], one [`RefusalKind`] per status).
//! - [`model`]: what the state keeps (tables, seats, orders, meters, the snapshot).
//! - [`view`]: what panels and replies show ([`TableView`], [`Applied`]).
//! - [`books`]: each jornada's opening figures and its books tied to zero.
//! - [`liability`]: what the casino owes its players, part by part, and as each jornada opened.
//! - [`shared`]: the map the state shares with each read model, copied by the run a change touches.
//! - `cmd/`: one file per command, each an `impl State` block with its checks, then its
//!   changes. `apply` below is the one place a command is dispatched to them.

use pozo_engine::TableId;
use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::settle::Winner;
use pozo_engine::{Engine, Pool, PoolId, Rank};
use rust_decimal::Decimal;

use crate::config::Config;
use model::TableDays;

pub mod books;
mod cmd;
pub mod command;
pub mod draw;
mod hours;
pub mod liability;
pub mod model;
pub mod panel;
pub mod proposal;
pub mod refusal;
pub mod shared;
pub mod snapshot;
mod sorted;
pub mod tournament;
pub mod view;

pub use command::{
    Build, Card, ChangeCommand, ChangeOp, Command, DrawCommand, Effect, OfficeCommand, OfficeOp, OrderFacts, Proposed,
    RevealCommand, SeatCommitCommand, TableCommand, TableOp, TournamentCommand, TournamentOp,
};
pub use model::{
    Bet, BuildRecord, Custody, CustodyKind, Data, EntryRange, GoldTurn, Grillos, Hit, LastWin, OrderStatus, PayoutOrder, Phase,
    Seat, Series, SeriesAward, Table, TableAct, TableDay,
};
pub use panel::{AwardRecord, GoldTurnView, Light, PrizeEntry, SeatView, TableReply, TableState, TableView};
pub use proposal::{Person, Proposal, ProposalStatus};
pub use refusal::{Refusal, RefusalKind};
pub use snapshot::Snapshot;
pub use view::Applied;

use refusal::{invalid, precondition};

/// Credits may be sold only in these steps (12.5.3.3).
pub(crate) const CREDIT_STEPS: [u32; 4] = [1, 5, 10, 20];

/// The most credits one seat may hold: a bound, and what a busy night needs.
pub(crate) const SEAT_CREDITS_MAX: u32 = 500;

/// The last hits kept per pool (docs/architecture.md, "What a progressive controller keeps": the last 25).
pub(crate) const POOL_HITS_KEPT: usize = 25;

/// A count with its noun in the Spanish an operator reads: "1 premio", "3 premios" (nouns and
/// participles agree with the number: "1 crédito devuelto", "0 créditos devueltos").
pub(crate) fn spanish_count(count: impl Into<u64>, one: &str, many: &str) -> String {
    match count.into() {
        1 => format!("1 {one}"),
        count => format!("{count} {many}"),
    }
}

/// Jornadas kept in the reports before the oldest is dropped.
pub(crate) const JORNADAS_KEPT: usize = 62;

/// Prizes one round at one table may enter before ACEPTAR.
pub(crate) const PENDING_PRIZES_MAX: usize = 32;

/// The premio code of Central Póker's instant prize (15.11), the engine's.
pub use pozo_engine::INSTANT_PRIZE;

/// What a command is applied with besides itself: the journal entry it becomes and
/// the time written in it. The writer reads the clock once per batch; recovery,
/// `verify` and the bench take both from the entry, so a replay is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// The journal sequence the command is applied as.
    pub sequence: u64,
    /// Milliseconds since 1970, as the entry records it.
    pub time_ms: u64,
}

/// What a table command did: the outcome the dealer reads, and the awards it fixed.
pub(crate) type Done = (String, Vec<AwardRecord>);

/// The whole controller state.
#[derive(Clone, Debug)]
pub struct State {
    config: Arc<Config>,
    /// Every pool of the rulebooks, kept by the engine.
    engine: Engine,
    data: Data,
    /// The time of the entry being applied (`Context::time_ms`): the jornada a correction of an
    /// earlier jornada's meters is made in. Not state: every entry sets it.
    now_ms: u64,
    /// The tables the table command being applied changed besides its own (an envy bonus across
    /// the link shows on their panels): its reply names them, so their panels are pushed. Not
    /// state: every table command starts it empty.
    linked: Vec<TableId>,
    /// A jornada no kept roulette series was sold before, when known (`cmd/series.rs`,
    /// `forget_series_of_jornadas_gone`): spares a look at every series after every command. Not
    /// state: a lower bound only, and without it the same look is made.
    series_floor: Option<String>,
    /// The jornada and hour of the last moment asked (`jornada::DayMemo`). Not state: a miss
    /// works it out again.
    day: crate::jornada::DayMemo,
}

impl State {
    /// A new controller: every pool at its minimum, every table closed.
    pub fn new(config: Arc<Config>) -> State {
        let engine = Engine::new(&config.rulebooks);
        // A new journal keeps every jornada's closing sheet.
        let mut data = Data { sheets_from: Some(String::new()), ..Data::default() };
        for table in &config.layout.tables {
            data.tables.insert(table.id.clone(), cmd::new_table(table));
        }
        State { config, engine, data, now_ms: 0, linked: Vec::new(), series_floor: None, day: Default::default() }
    }

    /// The state a snapshot kept; its pools must balance and match the configuration.
    pub fn restore(config: Arc<Config>, snapshot: Snapshot) -> Result<State, String> {
        // Approved changes: the files in force are the snapshot's, the keys the server's.
        let config = match snapshot.texts.is_empty() {
            true => config,
            false => Arc::new(
                config.rebuilt(snapshot.texts.clone()).map_err(|error| format!("the snapshot's configuration: {error}"))?,
            ),
        };
        if snapshot.config_hash != config.hash {
            return Err(format!("snapshot taken under configuration {}, not {}", snapshot.config_hash, config.hash));
        }
        let engine = Engine::restore(&config.rulebooks, &snapshot.pools).map_err(|error| error.to_string())?;
        Ok(State {
            config,
            engine,
            data: snapshot.data,
            now_ms: 0,
            linked: Vec::new(),
            series_floor: None,
            day: Default::default(),
        })
    }

    /// A new journal's state taken from its predecessor's closing statement (`opened_from`
    /// of its genesis entry, docs/journal.md): the pools and everything else of the
    /// statement's snapshot, which must have been taken under this journal's configuration.
    /// The predecessor's entry numbers stay in what it carries (orders, hits, custody); the
    /// new journal counts its own from its genesis, its configuration is that genesis's, and
    /// the builds it records are those that write to it.
    fn open_from(&mut self, statement: &serde_json::Value) -> Result<(), Refusal> {
        use serde::Deserialize as _;
        let field = "opened_from.statement.snapshot";
        let snapshot = statement.pointer("/statement/snapshot").ok_or_else(|| {
            invalid(format!("{field}: missing: a journal opened from a closing statement starts from its snapshot"))
        })?;
        let snapshot = Snapshot::deserialize(snapshot).map_err(|error| invalid(format!("{field}: {error}")))?;
        if snapshot.config_hash != self.config.hash && !self.only_jornada_differs(statement, &snapshot.config_hash) {
            return Err(precondition(format!(
                "{field}.config_hash: taken under configuration {}, not this journal's {}: a journal opens under the \
                 statement's files in force (only the time zone and the hour the jornada starts may differ)",
                snapshot.config_hash, self.config.hash
            )));
        }
        if snapshot.config_hash != self.config.hash {
            // A new time zone or start hour moves the jornadas from here on, never back over
            // one the predecessor booked (docs/operations.md §8).
            let today = jornada_and_hour(&self.config, self.now_ms).0;
            let carried = Self::statement_config(statement);
            let today_before = carried.map(|carried| jornada_and_hour(&carried, self.now_ms).0);
            let booked = snapshot.data.days.keys().chain(snapshot.data.openings.keys()).max();
            if let Some(last) =
                booked.filter(|last| crate::jornada::goes_back(&today, today_before.as_deref().unwrap_or(&today), last))
            {
                return Err(precondition(format!(
                    "{field}: under this journal's time zone and start hour this moment is in jornada {today}, and \
                     {last}, the last jornada the statement booked, is over or still to come: jornadas never go back \
                     nor reopen; open the new journal once a jornada after {last} has begun under the new settings"
                )));
            }
        }
        self.engine = Engine::restore(&self.config.rulebooks, &snapshot.pools)
            .map_err(|error| invalid(format!("{field}.pools: {error}")))?;
        // The builds that wrote to the predecessor stay in its statement: this journal records its own.
        // One more journal in the chain: its rounds' books are keyed apart from the carried ones.
        let generation = snapshot.data.generation + 1;
        self.data = Data { journal_sequence: 0, configuration_changed: false, builds: Vec::new(), generation, ..snapshot.data };
        self.series_floor = None;
        Ok(())
    }

    /// This journal's configuration is the statement's files in force (`files`, of hash
    /// `config_hash`) but for the layout's time zone and the hour its jornada starts: the one
    /// place they change, as the books are carried to a new journal (docs/operations.md §8).
    fn only_jornada_differs(&self, statement: &serde_json::Value, config_hash: &str) -> bool {
        let Some(carried) = Self::statement_config(statement).filter(|carried| carried.hash == config_hash) else {
            return false;
        };
        self.config.with_jornada_of(&carried).is_ok_and(|given| given.hash == carried.hash)
    }

    /// The configuration of the statement's files in force, when they read.
    fn statement_config(statement: &serde_json::Value) -> Option<Config> {
        let files: Option<Vec<(String, String)>> =
            statement.pointer("/statement/files").and_then(|files| serde_json::from_value(files.clone()).ok());
        files.and_then(|files| Config::from_texts(files).ok())
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            config_hash: self.config.hash.clone(),
            // Only once a change took effect: a snapshot of the genesis configuration is what an
            // older release wrote, field for field (verify compares them).
            texts: if self.data.configuration_changed { self.config.texts.clone() } else { Vec::new() },
            pools: self.engine.states(),
            data: self.data.clone(),
        }
    }

    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    pub fn journal_sequence(&self) -> u64 {
        self.data.journal_sequence
    }

    /// Every pool, by id.
    pub fn pools(&self) -> impl Iterator<Item = &Pool> {
        self.engine.pools()
    }

    /// Each pool's books over `jornada` (`books.rs`); `None` for a jornada not kept.
    pub fn reconciliation(&self, jornada: &str) -> Option<BTreeMap<PoolId, pozo_engine::Reconciliation>> {
        books::reconciliation(&self.data.openings, &books::figures(self.engine.pools()), jornada, jornada)
    }

    /// What the casino owes its players now, part by part (`liability.rs`).
    pub fn liability(&self) -> liability::Liability {
        liability::Liability::of(self.engine.pools(), &self.seats(), &self.data.orders, &self.data.custody)
            .with_tournaments(self.data.tournaments.values().map(|t| &**t))
    }

    /// Where a table is, for a pool with banked levels (docs/readings.md, "Levels"): its flor and
    /// salon, as the layout in force has them.
    pub(in crate::state) fn bank_of(&self, table_id: &TableId) -> pozo_engine::Bank {
        match self.config.table(table_id) {
            Some(table) => pozo_engine::Bank { flor: table.flor.clone(), salon: self.config.salon_of(table).to_owned() },
            None => pozo_engine::Bank::default(),
        }
    }

    /// What the seats hold now: credits, stakes pressed, grillos (`liability.rs`).
    pub fn seats(&self) -> liability::Seats {
        liability::Seats::of(self.data.tables.values(), |table| self.seat_credit(table))
    }

    /// What one table's seats hold (`None`: no such table, or a table retired); with the others'
    /// in [`State::seats_by_table`], the same lines as [`State::seats`].
    pub fn table_seats(&self, id: &TableId) -> Option<liability::TableHeld> {
        Some(self.held_at(self.data.tables.get(id)?))
    }

    /// What every table's seats hold, table by table: only the tables whose seats hold something.
    pub fn seats_by_table(&self) -> liability::SeatsByTable {
        self.data
            .tables
            .values()
            .map(|table| (table.id.clone(), self.held_at(table)))
            .filter(|(_, held)| !held.is_empty())
            .map(|(id, held)| (id, Arc::new(held)))
            .collect()
    }

    /// What the seats of `table` hold.
    fn held_at(&self, table: &Table) -> liability::TableHeld {
        liability::TableHeld::of(table, self.seat_credit(table))
    }

    /// What a credit at `table` is worth: its pool's side bet (12.5.3.3, 12.5.3.5).
    fn seat_credit(&self, table: &Table) -> Money {
        self.pool(&table.pool).rules().side_bet_for(table.game)
    }

    /// A pool of the configuration (tables only name configured pools).
    pub fn pool(&self, id: &str) -> &Pool {
        self.engine.pool(id).expect("the layout names only configured pools")
    }

    pub fn data(&self) -> &Data {
        &self.data
    }

    pub fn table(&self, id: &str) -> Option<&Table> {
        self.data.tables.get(id)
    }

    /// The poker tournaments set up in this journal, by id (`tournament.rs`).
    pub fn tournaments(&self) -> &BTreeMap<String, std::sync::Arc<tournament::Tournament>> {
        &self.data.tournaments
    }

    /// Each tournament's books (`tournament.rs`): they tie to zero after every command.
    pub fn tournament_books(&self) -> Vec<tournament::TournamentBooks> {
        self.data.tournaments.values().map(|t| t.books()).collect()
    }

    /// How far every pool is from conservation; all zero when the books balance.
    pub fn conservation(&self) -> Vec<(PoolId, Money)> {
        self.engine.conservation()
    }

    /// Applies one command as journal entry `context.sequence` at `context.time_ms`:
    /// the one place a command is applied, by the writer, recovery, `verify` and the bench.
    pub fn apply(&mut self, command: &Command, context: Context) -> Result<Applied, Refusal> {
        let sequence = context.sequence;
        self.now_ms = context.time_ms;
        // The first entry of a jornada opens its books: every pool's figures before it.
        // A genesis's is what it leaves, as it moves no money: a journal opened from a closing
        // statement opens on the carried books, or keeps the opening its predecessor booked.
        let jornada = self.day_at(context.time_ms).0;
        let genesis = matches!(command, Command::Genesis { .. });
        let opening = (!genesis && !self.data.openings.contains_key(&jornada)).then(|| books::figures(self.engine.pools()));
        // And the liability as it opened, likewise.
        let owed = (!genesis && !self.data.liability_openings.contains_key(&jornada)).then(|| self.liability().sums);
        let applied = match command {
            Command::Genesis { config_hash, keys, build, opened_from, .. } => {
                if sequence != 1 || *config_hash != self.config.hash {
                    return Err(precondition("a genesis entry comes first and matches the configuration"));
                }
                if let Some(statement) = opened_from {
                    self.open_from(statement)?;
                }
                // This release numbers the roulette series from here on (3.7.3, `Data::series`).
                self.data.series_numbered = true;
                self.data.keys = keys.clone();
                self.data.builds.extend(build.iter().map(|build| BuildRecord {
                    sequence,
                    time_ms: context.time_ms,
                    build: build.clone(),
                }));
                Applied::Genesis
            }
            Command::Build { build, .. } => {
                // Every start is journaled with the build serving (docs/journal.md, "build").
                self.data.builds.push(BuildRecord { sequence, time_ms: context.time_ms, build: build.clone() });
                Applied::Build
            }
            Command::Table(command) => self.apply_table(context, &jornada, command)?,
            Command::Office(command) => self.apply_office(context, command)?,
            Command::Change(command) => self.apply_change(context, command)?,
            Command::Draw(draw) => self.apply_draw(context, draw)?,
            Command::Reveal(reveal) => self.apply_reveal(context, reveal)?,
            Command::Tournament(command) => self.apply_tournament(context, command)?,
            Command::SeatCommit(command) => self.apply_seat_commit(context, command)?,
            Command::Keys { keys, .. } => {
                if *keys == self.data.keys {
                    return Err(precondition("keys: the same key set as the journal's: nothing changed"));
                }
                self.data.keys = keys.clone();
                Applied::Keys
            }
        };
        if applied.journals() {
            debug_assert_eq!(sequence, self.data.journal_sequence + 1, "entries apply in order");
            self.data.journal_sequence = sequence;
            let owed =
                owed.or_else(|| (genesis && !self.data.liability_openings.contains_key(&jornada)).then(|| self.liability().sums));
            if let Some(owed) = owed {
                let kept = Arc::make_mut(&mut self.data.liability_openings);
                kept.insert(jornada.clone(), owed);
                while kept.len() > JORNADAS_KEPT {
                    kept.pop_first();
                }
            }
            // A journal an older release began (restored from its snapshot, or opened from its
            // closing statement): the sheets are whole from the next jornada on.
            if self.data.sheets_from.is_none() {
                self.data.sheets_from = Some(cmd::jornada_after(&jornada));
            }
            let opening = opening
                .or_else(|| (genesis && !self.data.openings.contains_key(&jornada)).then(|| books::figures(self.engine.pools())));
            if let Some(opening) = opening {
                self.data.openings.insert(jornada, Arc::new(opening));
                while self.data.openings.len() > JORNADAS_KEPT {
                    self.data.openings.pop_first();
                }
            }
            self.take_effects(context);
            self.forget_series_of_jornadas_gone();
        }
        Ok(applied)
    }

    // ------------------------------------------------------------------------- tables

    fn apply_table(&mut self, context: Context, jornada: &str, command: &TableCommand) -> Result<Applied, Refusal> {
        let table = self.data.tables.get(&command.table_id).ok_or_else(|| {
            Refusal::new(RefusalKind::NotFound, format!("table_id: no table `{}` in the layout", command.table_id))
                .castellano(format!("La mesa {} no existe en la configuración del casino.", command.table_id))
        })?;
        // Exactly once: the last applied command may be retried; anything else must be next.
        let expected = table.last_sequence + 1;
        // Planted (`planted-bugs` only): a retry of the last command applied again.
        let again = crate::planted::on(crate::planted::Bug::RetryTwice)
            && command.sequence == table.last_sequence
            && command.sequence > 0
            && command.payload_sha256 == table.last_payload_sha256;
        if command.sequence == table.last_sequence && command.sequence > 0 && !again {
            if command.payload_sha256 == table.last_payload_sha256 {
                let reply = table.last_reply.clone().expect("an applied command left its reply");
                return Ok(Applied::Duplicate(reply));
            }
            return Err(Refusal::new(
                RefusalKind::AlreadyExists,
                format!(
                    "sequence: {} was already used by another command of table {}; the next is {expected}",
                    command.sequence, table.id
                ),
            )
            .castellano(format!(
                "La secuencia {} ya la usó otro comando de la mesa {}; la siguiente es {expected}.",
                command.sequence, table.id
            )));
        }
        if command.sequence < table.last_sequence {
            return Err(Refusal::new(
                RefusalKind::AlreadyExists,
                format!(
                    "sequence: {} is older than the last applied, {}; the next is {expected}",
                    command.sequence, table.last_sequence
                ),
            )
            .castellano(format!(
                "La secuencia {} es anterior a la última aplicada, {}; la siguiente es {expected}.",
                command.sequence, table.last_sequence
            )));
        }
        if command.sequence != expected && !again {
            return Err(precondition(format!(
                "sequence: {} skips ahead; table {} expects {expected} (no command may be lost)",
                command.sequence, table.id
            ))
            .castellano(format!(
                "La secuencia {} se adelanta: la mesa {} espera la {expected}, y no se puede perder ningún comando.",
                command.sequence, table.id
            )));
        }
        // What the closing sheet needs from before the command (the grillos a close ends).
        let sheet = self.sheet_before(jornada, command);
        self.linked.clear();
        let (outcome, awards) = self.table_op(context, &command.table_id, &command.op, command.card.as_ref())?;
        if let Some(sheet) = sheet {
            self.note_for_sheet(context, jornada, command, sheet);
        }
        let table = self.data.tables.get_mut(&command.table_id).expect("the table exists");
        table.last_sequence = command.sequence;
        table.last_payload_sha256 = command.payload_sha256.clone();
        // The view the reply carries is the table as this command left it.
        let view = self.table_view(&command.table_id).expect("the table exists");
        let reply = TableReply {
            table_id: command.table_id.clone(),
            sequence: command.sequence,
            journal_sequence: context.sequence,
            outcome,
            awards,
            view,
            linked: std::mem::take(&mut self.linked),
        };
        let reply = Arc::new(reply);
        self.table_mut(&command.table_id).last_reply = Some(Arc::clone(&reply));
        Ok(Applied::Table(reply))
    }

    /// Dispatches one table operation to its file in `cmd/`. Each checks everything
    /// before its first change.
    fn table_op(&mut self, context: Context, table_id: &TableId, op: &TableOp, card: Option<&Card>) -> Result<Done, Refusal> {
        match op {
            TableOp::OpenTable => self.open_table(table_id),
            TableOp::CloseTable => self.close_table(context, table_id),
            TableOp::SellCredits { seat, credits } => self.sell_credits(context, table_id, *seat, *credits),
            TableOp::RefundCredits { seat } => self.refund_credits(context, table_id, *seat),
            TableOp::Press { seat, credits } => self.press(context, table_id, *seat, credits.unwrap_or(1)),
            TableOp::StartRound => self.start_round(context, table_id, card),
            TableOp::EnterPrize { seat, code, high } => self.enter_prize(context, table_id, *seat, code, high.as_deref()),
            TableOp::Accept => self.accept(context, table_id),
            TableOp::FinishRound => self.finish_round(table_id),
            TableOp::VoidBet { seat } => self.void_bet(table_id, *seat),
            TableOp::CarryBets => self.carry_bets(table_id),
            TableOp::RefundBet { seat } => self.refund_bet(table_id, *seat),
            TableOp::LastRound => self.last_round(context, table_id),
            TableOp::RequestGoldTurn => self.request_gold_turn(table_id),
            TableOp::CloseSeat { seat } => self.close_seat(context, table_id, *seat),
            TableOp::OpenSeat { seat } => self.open_seat(table_id, *seat),
            TableOp::PlayerAbsent { seat } => self.player_absent(table_id, *seat),
            TableOp::PlayerReturns { seat } => self.player_returns(table_id, *seat),
            TableOp::GrillosPlayed { seat, code, played } => self.grillos_played(table_id, *seat, code, *played),
            TableOp::AnnulSeries { seat, series } => self.annul_series(context, table_id, *seat, series.as_deref()),
            TableOp::CustodyBet { seat } => self.custody_bet(context, table_id, *seat),
            TableOp::CustodyPrize { seat } => self.custody_prize(context, table_id, *seat),
            TableOp::ReleaseCustody { custody_id } => self.release_custody(context, table_id, custody_id),
        }
    }

    // ------------------------------------------------------------------------- books

    /// The jornada and local hour of `time_ms` under the configuration in force
    /// (`jornada_and_hour`), kept for the batch's other commands.
    pub(in crate::state) fn day_at(&mut self, time_ms: u64) -> (String, u32) {
        self.day.at(&self.config, time_ms)
    }

    pub(in crate::state) fn table_mut(&mut self, id: &TableId) -> &mut Table {
        self.data.tables.get_mut(id).expect("tables are fixed by the layout")
    }

    pub(in crate::state) fn day_mut(&mut self, jornada: &str, table_id: &TableId) -> &mut TableDay {
        if !self.data.days.contains_key(jornada) {
            self.data.days.insert(jornada.to_owned(), TableDays::default());
            while self.data.days.len() > JORNADAS_KEPT {
                self.data.days.pop_first();
            }
        }
        // Looked up, not `entry`: a press allocates no key (the table's own id is shared the first time).
        let data = &mut self.data;
        let days = data.days.get_mut(jornada).expect("the jornada is there");
        let tables = &data.tables;
        let meters = days.get_mut_or_insert_with(table_id, || {
            // The table's own id where it is still in the layout; a table retired since (a payout
            // order of it rejected later) keeps its meters under the id it had.
            let (id, pool) = match tables.get(table_id) {
                Some(table) => (table.id.clone(), Some(table.pool.clone())),
                None => (table_id.clone(), None),
            };
            (id, Arc::new(TableDay { pool, ..TableDay::default() }))
        });
        Arc::make_mut(meters)
    }

    pub(in crate::state) fn book_ipa(&mut self, day: &(String, u32), table_id: &TableId, amount: Money, bets: i64) {
        let meters = self.day_mut(&day.0, table_id);
        meters.ipa += amount;
        meters.bets = meters.bets.saturating_add_signed(bets);
        meters.hours.at(day.1).0 += amount;
    }

    /// Changes the PPPA of the jornada and hour a prize was marked in (`marked_ms`): a
    /// rejection (3.5.2) or a reclaim (3.7.3) comes off them, a re-settlement adds to them.
    /// A jornada already dropped from the reports (over 62 ago) is not recreated: `None`.
    /// `pool`: the prize's pool.
    pub(in crate::state) fn amend_pppa(
        &mut self,
        marked_ms: u64,
        table_id: &TableId,
        pool: &PoolId,
        change: Money,
    ) -> Option<&mut TableDay> {
        let (jornada, hour) = jornada_and_hour(&self.config, marked_ms);
        let later = self.amending_earlier(&jornada, table_id, pool, Money::ZERO, change);
        let meters = Arc::make_mut(self.data.days.get_mut(&jornada)?.get_mut(table_id)?);
        meters.pppa += change;
        meters.hours.at(hour).1 += change;
        if later {
            meters.pppa_amended_later += change;
        } else {
            meters.for_pool(pool, Money::ZERO, change);
        }
        Some(meters)
    }

    /// A correction of `jornada`'s IPA or PPPA made in a later jornada (the entry being applied)
    /// is booked there too (`TableDay::ipa_amending_earlier`), as `pool`'s: true when it is one.
    pub(in crate::state) fn amending_earlier(
        &mut self,
        jornada: &str,
        table_id: &TableId,
        pool: &PoolId,
        ipa: Money,
        pppa: Money,
    ) -> bool {
        let (now, _) = jornada_and_hour(&self.config, self.now_ms);
        if now.as_str() == jornada {
            return false;
        }
        let meters = self.day_mut(&now, table_id);
        meters.ipa_amending_earlier += ipa;
        meters.pppa_amending_earlier += pppa;
        meters.for_pool(pool, ipa, pppa);
        true
    }

    pub(in crate::state) fn book_credits_returned(&mut self, jornada: &str, table_id: &TableId, credits: u32, side_bet: Money) {
        let meters = self.day_mut(jornada, table_id);
        meters.credits_returned += u64::from(credits);
        meters.credits_returned_amount += side_bet * Decimal::from(credits);
    }
}

/// The round's entries as the engine's winners; a seat's own bet where it matters.
pub(in crate::state) fn winners_of(table: &Table, entries: &[PrizeEntry], side_bet: Money) -> Result<Vec<Winner>, Refusal> {
    entries
        .iter()
        .map(|entry| {
            let bet = match table.seats.get(entry.seat as usize - 1).map(|seat| &seat.bet) {
                Some(Bet::Registered { contribution, .. }) => contribution.bet,
                _ => side_bet,
            };
            let high = match entry.high.as_deref() {
                None | Some("") => None,
                Some(text) => Some(text.parse::<Rank>().map_err(|problem| {
                    invalid(format!("high: {problem}"))
                        .castellano(format!("La carta más alta {} no es un valor de naipe: 2 a 10, J, Q, K o A.", text.trim()))
                })?),
            };
            Ok(Winner { seat: entry.seat, code: entry.code.clone(), bet: Some(bet), high, at: None })
        })
        .collect()
}

pub use crate::jornada::jornada_and_hour;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refund_comes_off_the_hour_the_bet_was_registered_in() {
        // 11.8.1.2 with Form 4218: a bet registered at 14:59 and refunded at 15:01 (local)
        // leaves hour 14 at zero and books nothing negative in hour 15.
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let genesis = Command::genesis(&config, "", None, None);
        state.apply(&genesis, Context { sequence: 1, time_ms: 0 }).expect("genesis");
        let local_midnight_ms = 1_795_305_600_000 + 3 * 3_600_000; // 2026-11-22 00:00 in UTC-03:00
        let at = |hour: u64, minute: u64| local_midnight_ms + (hour * 60 + minute) * 60_000;
        let ops = [
            (at(14, 50), TableOp::OpenTable),
            (at(14, 51), TableOp::SellCredits { seat: 2, credits: 5 }),
            (at(14, 52), TableOp::Press { seat: 2, credits: None }),
            (at(14, 59), TableOp::StartRound),
            (at(15, 1), TableOp::RefundBet { seat: 2 }),
        ];
        for (index, (time_ms, op)) in ops.into_iter().enumerate() {
            let sequence = index as u64 + 1;
            let command = Command::dealer("B1", sequence, format!("{sequence}"), op);
            state.apply(&command, Context { sequence: sequence + 1, time_ms }).expect("applied");
        }
        let day = &state.data().days["2026-11-22"]["B1"];
        assert_eq!(day.ipa, Money::ZERO);
        assert_eq!(day.hours.get(&14).map(|(ipa, _)| *ipa), Some(Money::ZERO));
        assert_eq!(day.hours.get(&15).map(|(ipa, _)| *ipa).unwrap_or_default(), Money::ZERO);
        assert_eq!(day.bets, 0);
    }

    /// A journal opened from a closing statement starts with the predecessor's pools and
    /// data exactly (docs/journal.md, "opened_from"), counting its own entries from 1.
    #[test]
    fn a_genesis_opened_from_a_statement_carries_the_predecessor_s_state() {
        let config = Arc::new(Config::embedded());
        let genesis = |opened_from: Option<serde_json::Value>| Command::genesis(&config, "", None, opened_from.map(Box::new));
        let mut old = State::new(Arc::clone(&config));
        old.apply(&genesis(None), Context { sequence: 1, time_ms: 0 }).expect("genesis");
        let ops = [TableOp::OpenTable, TableOp::SellCredits { seat: 2, credits: 5 }, TableOp::Press { seat: 2, credits: None }];
        for (index, op) in ops.into_iter().enumerate() {
            let sequence = index as u64 + 1;
            let command = Command::dealer("B1", sequence, format!("{sequence}"), op);
            old.apply(&command, Context { sequence: sequence + 1, time_ms: 1_000 }).expect("applied");
        }
        old.apply(&Command::dealer("B1", 4, "4", TableOp::StartRound), Context { sequence: 5, time_ms: 2_000 })
            .expect("registered");
        let snapshot = old.snapshot();
        let statement = serde_json::json!({ "statement": { "snapshot": snapshot }, "seal": "" });
        let mut new = State::new(Arc::clone(&config));
        new.apply(&genesis(Some(statement)), Context { sequence: 1, time_ms: 3_000 }).expect("opened");
        assert_eq!(new.snapshot().pools, snapshot.pools, "every pool carried, to the centavo, meters and all");
        assert_eq!(new.journal_sequence(), 1, "the new journal counts its own entries");
        assert_eq!(new.data().tables, snapshot.data.tables, "seats, credits and the round in play carried");

        let mut other = serde_json::to_value(&snapshot).expect("a snapshot serializes");
        other["config_hash"] = "0".repeat(64).into();
        let refused = State::new(Arc::clone(&config))
            .apply(&genesis(Some(serde_json::json!({ "statement": { "snapshot": other } }))), Context { sequence: 1, time_ms: 0 })
            .expect_err("another configuration's snapshot");
        assert!(refused.message.contains("opened_from.statement.snapshot.config_hash"), "{}", refused.message);
    }

    #[test]
    fn card_index_covers_the_deck() {
        let cards: std::collections::BTreeSet<(String, String)> =
            (0..52).map(Card::from_index).map(|card| (card.rank, card.suit)).collect();
        assert_eq!(cards.len(), 52);
    }
}
