//! The simulation's floor: table agents playing rounds dealt by the simulator's games, the Venta-Pagos office deciding,
//! two supervisors moving money between pools, the signs and panels watching, each over the simulated network with its own retries.
//!
//! An agent keeps its table's next sequence and the command in hand; a command that got no
//! answer (a cut, a timeout, the controller gone) is sent again, the same bytes, until it is
//! answered, across restarts, as the real agent does (3.7.6). Now and then one already
//! answered is sent again, and must get the same answer.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use super::net::Controllers;
use pozo_proto::v1 as pb;
use prost::Message;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::Code;

use super::disk::Disk;
use crate::casino::Rulebooks;

/// The tables the simulation plays: Black Jack (bets at INICIAR, percentage prizes through
/// Venta-Pagos) and roulette (bets and grillos at the press).
pub const TABLES: [&str; 5] = ["B1", "B2", "B3", "R1", "R2"];

/// The tables a seed on the market's rulebooks plays (`config/examples/mercado-casino.toml`):
/// Black Jack on the four-level link, Three Card Poker on its progressive with the envy bonus
/// (both bets at INICIAR), and the IPLyC roulette; and the cross-game link `mercado-gran-sala`
/// ([`crate::casino::market_floor`]): a roulette and a Black Jack table in flor F4, a Three Card
/// Poker table in F5, each flor its own Major and Mini.
pub const MARKET_TABLES: [&str; 8] = ["B1", "B2", "CP1", "CP2", "R1", "LR1", "LB1", "LCP1"];

/// The tables a seed plays on `rulebooks`.
pub fn tables(rulebooks: Rulebooks) -> &'static [&'static str] {
    match rulebooks {
        Rulebooks::Regulations => &TABLES,
        Rulebooks::Market => &MARKET_TABLES,
    }
}

/// The two pools the supervisors move money between: pools of the rulebooks no table of the
/// floor plays.
pub fn transfer_pools(rulebooks: Rulebooks) -> (&'static str, &'static str) {
    match rulebooks {
        Rulebooks::Regulations => ("iplyc-central-poker", "aj-poker"),
        Rulebooks::Market => ("iplyc-central-poker", "iplyc-blackjack"),
    }
}

/// The codes a stacked Black Jack round gives one box: the 20 % prizes, paid through Venta-Pagos.
const STACKED_CODES: [&str; 3] = ["CUATRO_ASES", "TRES_SIETES_MISMO_PALO", "TRES_SIETES_CORAZONES"];

/// The codes a stacked round of the market's link gives one box: each level's own (Grand,
/// Major, Minor, Mini; config/mercado.toml), every one the whole level, through Venta-Pagos.
const STACKED_LINK_CODES: [&str; 4] = ["TRES_SIETES_CORAZONES", "TRES_SIETES_MISMO_PALO", "CUATRO_ASES", "TRES_SIETES"];

/// The codes a stacked round of Three Card Poker gives one box: the two hands with an envy
/// bonus, so that the envy awards (every other seat in force, paid by the house) come in every seed.
const STACKED_THREE_CARD_CODES: [&str; 2] = [crate::three_card::MINI_ROYAL_PICAS, crate::three_card::MINI_ROYAL];

/// The codes a stacked round of the cross-game link gives one box at Black Jack: the Grand, the
/// flor's Major and its Mini (config/mercado.toml, `mercado-gran-sala`).
const STACKED_GRAN_SALA_BLACKJACK: [&str; 3] = ["TRES_SIETES_CORAZONES", "CUATRO_ASES", "TRES_SIETES"];

/// The codes a stacked round of the cross-game link gives one box at Three Card Poker: the
/// Grand, the flor's Major and its Mini.
const STACKED_GRAN_SALA_THREE_CARD: [&str; 3] =
    [crate::three_card::MINI_ROYAL_PICAS, crate::three_card::ESCALERA_COLOR, crate::three_card::PIERNA];

/// One Black Jack round in this many has one lit box given a prize the shoe rarely deals (about
/// one box-hand in 2,500 makes any code: docs/odds.md), as the black-box scenarios stack a shoe:
/// so that prizes, Venta-Pagos orders and their decisions come in every seed.
const STACKED_ONE_IN: u32 = 8;

/// What one action came to, for the trace and the counts.
#[derive(Debug)]
pub enum Done {
    /// Answered: the journal entry it is in (0 when it journaled nothing).
    Applied {
        journal_sequence: u64,
    },
    Refused,
}

/// What happened on the floor that the oracle must check, collected as it happens.
#[derive(Default)]
pub struct Seen {
    /// Acknowledged table commands: (table, sequence) → the entry the answer named.
    pub acked: BTreeMap<(String, u64), u64>,
    /// Acknowledged since the last check.
    pub fresh: Vec<(String, u64, u64)>,
    /// The awards each answer acknowledged since the last check paid: entry → (table, its
    /// sequence, the awards).
    pub paid: Vec<(u64, String, u64, Vec<super::oracle::Paid>)>,
    /// Venta-Pagos decisions answered: order → the entry its answer named.
    pub decided: BTreeMap<String, u64>,
    /// The highest entry any answer named.
    pub acked_max: u64,
    /// Signs' updates: (entry, each pool's displayed amount), unchecked.
    pub signs: Vec<(u64, Vec<(String, String)>)>,
    /// Invariants broken where they were seen (a panel ahead of the disk, a light gone back).
    pub broken: Vec<String>,
    /// Each table's lit seats in its current round, as last seen on its panel.
    pub lit: BTreeMap<String, (u64, BTreeSet<u32>)>,
    pub retries: u64,
    pub duplicates: u64,
    pub refusals: u64,
    pub applied: u64,
    pub office_decisions: u64,
    /// The awards answers paid, per premio code (the envy awards under their own).
    pub awards: BTreeMap<String, u64>,
    /// The awards answers paid, per pool and level, a banked level per bank
    /// ("mercado-gran-sala Major · F4").
    pub level_awards: BTreeMap<String, u64>,
    /// Changes approved (transfers between pools).
    pub changes: u64,
    pub trace: Vec<String>,
    /// When the current run began, on its runtime's paused clock.
    pub run_began: Option<tokio::time::Instant>,
}

impl Seen {
    /// A table command answered: checked against the disk (`held` entries), recorded.
    fn acknowledged(&mut self, table: &str, sequence: u64, journal_sequence: u64, held: u64) {
        // Nothing is answered before it is durable (the disk holds what reads see).
        if journal_sequence > held {
            self.broken.push(format!(
                "durability: table {table} command {sequence} answered with entry {journal_sequence}, the disk holds {held}"
            ));
        }
        if let Some(before) = self.acked.insert((table.to_owned(), sequence), journal_sequence)
            && before != journal_sequence
        {
            self.broken.push(format!(
                "exactly once: table {table} command {sequence} answered with entry {before}, then with {journal_sequence}"
            ));
        }
        self.fresh.push((table.to_owned(), sequence, journal_sequence));
        self.acked_max = self.acked_max.max(journal_sequence);
        self.applied += 1;
    }

    /// A line of the trace, stamped with the simulated time since the run began (µs).
    pub fn say(&mut self, line: String) {
        let at = self.run_began.map(|began| tokio::time::Instant::now().saturating_duration_since(began).as_micros());
        self.trace.push(match at {
            Some(at) => format!("{at:>10} {line}"),
            None => format!("{:>10} {line}", "-"),
        });
    }
}

/// One table's agent.
pub struct Agent {
    pub table: String,
    key: String,
    secret: Vec<u8>,
    roulette: bool,
    seats: u32,
    next: u64,
    /// The command in hand: its sequence and signed bytes, sent until answered.
    in_hand: Option<(u64, pb::Envelope, String)>,
    view: Option<pb::TableView>,
    rng: ChaCha8Rng,
    /// A Black Jack table's shoe, as the simulator deals it (`None` at roulette).
    shoe: Option<crate::blackjack::Table>,
    /// A Three Card Poker table: a fresh deck each round (3.1.9).
    three_card: bool,
    /// The codes a stacked round may give one box at a card table.
    stacked: &'static [&'static str],
    /// The codes the table's pool pays at its game: a hand marks the highest of them it is.
    marks: crate::marks::Marks,
    /// The prizes the round in play dealt, still to enter (the last first); `None` until the
    /// round is dealt.
    dealt: Option<Vec<(u32, &'static str)>>,
}

impl Agent {
    pub fn new(config: &pozo_server::config::Config, table: &str, seed: u64) -> Agent {
        let key = format!("mesa-{table}");
        let secret = config.keys.get(&key).expect("the embedded keys have every table's").secret.clone();
        let layout = config.layout.tables.iter().find(|t| t.id.as_str() == table).expect("an embedded table");
        Agent {
            table: table.to_owned(),
            key,
            secret,
            roulette: layout.game.is_roulette(),
            seats: layout.seats.min(6),
            next: 1,
            in_hand: None,
            view: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            shoe: crate::blackjack::Table::for_game(layout.game.name(), seed ^ 0x5EED),
            three_card: layout.game.name() == crate::three_card::GAME,
            stacked: match (layout.pool.as_str(), layout.game.name()) {
                ("mercado-blackjack", _) => &STACKED_LINK_CODES,
                (crate::three_card::POOL, _) => &STACKED_THREE_CARD_CODES,
                (crate::casino::LINK_POOL, crate::three_card::GAME) => &STACKED_GRAN_SALA_THREE_CARD,
                (crate::casino::LINK_POOL, _) => &STACKED_GRAN_SALA_BLACKJACK,
                _ => &STACKED_CODES,
            },
            marks: crate::marks::Marks::of(config, layout),
            dealt: None,
        }
    }

    /// Deals the round to the lit boxes: the Black Jack hands from the table's shoe (the codes
    /// they made, 11.3), or at Three Card Poker each lit seat's own three cards from a fresh deck
    /// (the progressive's code of each hand; the envy bonus follows at ACEPTAR, never entered),
    /// one round in [`STACKED_ONE_IN`] with a stacked prize for one more box; at roulette the
    /// ball each lit seat's three Grillos de Bronce play (3.1.3): a hit is the Grillo de Bronce.
    /// (A silver hit would bring the gold turn, 4.3.5, which the floor does not play: the series
    /// stops at the bronze.) Returns the prizes to enter, the last first.
    fn deal(&mut self, lit: &[u32]) -> Vec<(u32, &'static str)> {
        let mut prizes = Vec::new();
        let cards = self.shoe.is_some() || self.three_card;
        if let Some(shoe) = self.shoe.as_mut() {
            let marks = &self.marks;
            prizes = shoe.play_round_marking(lit, &|code| marks.pays(code));
        } else if self.three_card {
            let mut deck = crate::cards::deck();
            rand::seq::SliceRandom::shuffle(&mut deck[..], &mut self.rng);
            let round = crate::three_card::deal(lit.len(), &deck);
            for (seat, hand) in lit.iter().zip(&round.seats) {
                if let Some(code) = self.marks.first(crate::three_card::premios(hand)) {
                    prizes.push((*seat, code));
                }
            }
        }
        if cards {
            let unprized: Vec<u32> = lit.iter().copied().filter(|seat| prizes.iter().all(|(won, _)| won != seat)).collect();
            if !unprized.is_empty() && self.rng.random_range(0..STACKED_ONE_IN) == 0 {
                let seat = unprized[self.rng.random_range(0..unprized.len())];
                prizes.push((seat, self.stacked[self.rng.random_range(0..self.stacked.len())]));
            }
        } else if self.roulette {
            for &seat in lit {
                if crate::roulette::play_series(&mut self.rng).bronze_hit {
                    prizes.push((seat, "GRILLO_BRONCE"));
                }
            }
        }
        prizes.reverse();
        prizes
    }

    /// The next command, from the table as last seen.
    fn choose(&mut self) -> (String, pb::table_command::Command) {
        use pb::table_command::Command as C;
        let state = self.view.as_ref().map(|view| view.state_code).unwrap_or(pb::TableState::Cerrada as i32);
        let seat = self.rng.random_range(1..=self.seats);
        let lit: Vec<u32> = self
            .view
            .iter()
            .flat_map(|view| &view.seats)
            .filter(|seat| seat.light == pb::Light::On as i32)
            .map(|seat| seat.seat)
            .collect();
        // Seats that can press: credits, no bet yet.
        let loaded: Vec<u32> = self
            .view
            .iter()
            .flat_map(|view| &view.seats)
            .filter(|seat| seat.credits > 0 && seat.light != pb::Light::On as i32 && !seat.closed)
            .map(|seat| seat.seat)
            .collect();
        let roll = self.rng.random_range(0..100);
        let state = pb::TableState::try_from(state).unwrap_or(pb::TableState::Cerrada);
        if state != pb::TableState::EnJuego {
            self.dealt = None;
        }
        match state {
            pb::TableState::Cerrada | pb::TableState::Unspecified => ("open".into(), C::OpenTable(pb::OpenTable {})),
            pb::TableState::Apuestas if roll < 3 && lit.is_empty() => match loaded.first() {
                // 12.8.1: the credits not played are paid back before the table closes.
                Some(&seat) => (format!("refund credits {seat}"), C::RefundCredits(pb::RefundCredits { seat })),
                None => ("close".into(), C::CloseTable(pb::CloseTable {})),
            },
            pb::TableState::Apuestas if roll < 30 || (loaded.is_empty() && lit.is_empty()) => {
                // 12.5.3.3: credits are sold in these amounts.
                let credits = [1, 5, 10, 20][self.rng.random_range(0..4)];
                (format!("sell {seat} {credits}"), C::SellCredits(pb::SellCredits { seat, credits }))
            }
            pb::TableState::Apuestas if (roll < 85 && !loaded.is_empty()) || lit.is_empty() => {
                let seat = if loaded.is_empty() { seat } else { loaded[self.rng.random_range(0..loaded.len())] };
                (format!("press {seat}"), C::Press(pb::Press { seat, credits: 0 }))
            }
            pb::TableState::Apuestas => ("start".into(), C::StartRound(pb::StartRound {})),
            pb::TableState::EnJuego => {
                if self.dealt.is_none() {
                    self.dealt = Some(self.deal(&lit));
                }
                match self.dealt.as_mut().and_then(Vec::pop) {
                    Some((seat, code)) => (
                        format!("prize {seat} {code}"),
                        C::EnterPrize(pb::EnterPrize { seat, code: code.into(), high: String::new() }),
                    ),
                    None => ("finish".into(), C::FinishRound(pb::FinishRound {})),
                }
            }
            pb::TableState::PremiosIngresados => ("accept".into(), C::Accept(pb::Accept {})),
            pb::TableState::Aceptado => ("finish".into(), C::FinishRound(pb::FinishRound {})),
        }
    }

    /// One action: the command in hand (or a new one) sent until it is answered.
    pub async fn act(
        agent: Rc<RefCell<Agent>>,
        channel: Controllers,
        journal_id: String,
        seen: Rc<RefCell<Seen>>,
        disk: Disk,
    ) -> Done {
        let (sequence, envelope, what) = {
            let mut agent = agent.borrow_mut();
            if agent.in_hand.is_none() {
                let (what, command) = agent.choose();
                let sequence = agent.next;
                let payload =
                    pb::TableCommand { table_id: agent.table.clone(), sequence, command: Some(command), ..Default::default() }
                        .encode_to_vec();
                let envelope =
                    pozo_proto::sign(&agent.key, &agent.secret, pozo_proto::Purpose::TableCommand, &journal_id, payload);
                agent.in_hand = Some((sequence, envelope, what));
            }
            agent.in_hand.clone().expect("in hand")
        };
        let table = agent.borrow().table.clone();
        let mut client = pb::table_client::TableClient::new(channel);
        let mut attempt = 0u32;
        loop {
            let answer = client.submit(envelope.clone()).await;
            match answer {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    let journal_sequence = reply.journal_sequence;
                    seen.borrow_mut().acknowledged(&table, sequence, journal_sequence, disk.entries());
                    let paid = reply
                        .awards
                        .iter()
                        .map(|award| {
                            let amount = award.award.as_ref().and_then(|amount| amount.value.parse().ok()).unwrap_or_default();
                            (award.seat, award.code.clone(), amount)
                        })
                        .collect();
                    {
                        let mut seen = seen.borrow_mut();
                        let agent = agent.borrow();
                        for award in &reply.awards {
                            *seen.awards.entry(award.code.clone()).or_default() += 1;
                            let (pool, level) = (agent.marks.rules.id.as_str(), agent.marks.level_name(&award.code));
                            let level = if level == pool { level } else { format!("{pool} {level}") };
                            *seen.level_awards.entry(level).or_default() += 1;
                        }
                        seen.paid.push((journal_sequence, table.clone(), sequence, paid));
                    }
                    seen.borrow_mut()
                        .say(format!("{table} #{sequence} {what}: entry {journal_sequence} ({} tries)", attempt + 1));
                    let duplicate = {
                        let mut agent = agent.borrow_mut();
                        agent.in_hand = None;
                        agent.next = sequence + 1;
                        agent.view = reply.table.clone();
                        agent.rng.random_bool(0.05)
                    };
                    if duplicate {
                        // The same bytes again: the same answer, nothing journaled.
                        seen.borrow_mut().duplicates += 1;
                        match client.submit(envelope.clone()).await {
                            Ok(again) => {
                                let again = again.into_inner().journal_sequence;
                                if again != journal_sequence {
                                    seen.borrow_mut().broken.push(format!(
                                        "exactly once: table {table} command {sequence} sent again was answered with entry {again}, not {journal_sequence}"
                                    ));
                                }
                            }
                            Err(status) if no_answer(&status) => {}
                            Err(status) => seen.borrow_mut().broken.push(format!(
                                "exactly once: table {table} command {sequence} sent again was refused ({:?}: {}), not answered as before",
                                status.code(),
                                status.message()
                            )),
                        }
                    }
                    return Done::Applied { journal_sequence };
                }
                Err(status) if no_answer(&status) => {
                    attempt += 1;
                    seen.borrow_mut().retries += 1;
                    let pause = agent.borrow_mut().rng.random_range(5..(50 << attempt.min(5)));
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                Err(status) => {
                    let mut seen = seen.borrow_mut();
                    // The table expects an earlier sequence: a command it acknowledged is gone.
                    if status.message().contains("skips ahead") {
                        seen.broken.push(format!(
                            "durability: table {table} command {sequence} is refused as skipping ahead: an acknowledged command is gone ({})",
                            status.message()
                        ));
                    }
                    // A pool held for its mystery draw: this controller could not serve the
                    // draw it committed to with the journal key it was sealed under, which the
                    // simulation never changes, or the state refused its own reveal (a redraw).
                    if status.message().contains("is held:") || status.message().contains("sorteo comprometido") {
                        seen.broken.push(format!(
                            "mystery: table {table} command {sequence} is refused, its pool held for its mystery draw: {}",
                            status.message()
                        ));
                    }
                    seen.refusals += 1;
                    seen.say(format!("{table} #{sequence} {what}: refused {:?}: {}", status.code(), status.message()));
                    drop(seen);
                    // A refused command leaves the table as it was.
                    agent.borrow_mut().in_hand = None;
                    return Done::Refused;
                }
            }
        }
    }

    /// The table's panel, followed for as long as the run lasts (reconnecting after a cut):
    /// every push must name a durable entry, and a seat lit in a round stays lit in it.
    pub async fn watch(agent: Rc<RefCell<Agent>>, channel: Controllers, journal_id: String, seen: Rc<RefCell<Seen>>, disk: Disk) {
        let (table, key, secret) = {
            let agent = agent.borrow();
            (agent.table.clone(), agent.key.clone(), agent.secret.clone())
        };
        let mut client = pb::table_client::TableClient::new(channel);
        loop {
            let payload = pb::WatchTable { table_id: table.clone(), ..Default::default() }.encode_to_vec();
            let envelope = pozo_proto::sign(&key, &secret, pozo_proto::Purpose::WatchTable, &journal_id, payload);
            if let Ok(stream) = client.watch(envelope).await {
                let mut stream = stream.into_inner();
                while let Ok(Some(event)) = stream.message().await {
                    let Some(view) = event.table else { continue };
                    let mut seen = seen.borrow_mut();
                    if event.journal_sequence > disk.entries() {
                        seen.broken.push(format!(
                            "lights: table {table}'s panel showed entry {} while the disk holds {}",
                            event.journal_sequence,
                            disk.entries()
                        ));
                    }
                    let lit: BTreeSet<u32> =
                        view.seats.iter().filter(|seat| seat.light == pb::Light::On as i32).map(|seat| seat.seat).collect();
                    let gone = seen.lit.get(&table).and_then(|(round, before)| {
                        (*round == view.round
                            && matches!(
                                pb::TableState::try_from(view.state_code),
                                Ok(pb::TableState::Apuestas | pb::TableState::EnJuego)
                            ))
                        .then(|| before.difference(&lit).next().map(|gone| (*round, *gone)))
                        .flatten()
                    });
                    if let Some((round, gone)) = gone {
                        seen.broken.push(format!(
                            "lights: table {table} round {round}: seat {gone}'s light went out (entry {})",
                            event.journal_sequence
                        ));
                    }
                    seen.lit.insert(table.clone(), (view.round, lit));
                    drop(seen);
                    agent.borrow_mut().view = Some(view);
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A status that says the request may not have reached the controller (or its answer got
/// lost): the agent sends the same bytes again.
pub fn no_answer(status: &tonic::Status) -> bool {
    matches!(status.code(), Code::Unavailable | Code::Cancelled | Code::DeadlineExceeded | Code::Unknown | Code::Internal)
}

/// The signs: every update must name a durable entry, and its amounts are checked by the
/// oracle against that entry's.
pub async fn signs(channel: Controllers, seen: Rc<RefCell<Seen>>, disk: Disk) {
    let mut client = pb::display_client::DisplayClient::new(channel);
    loop {
        if let Ok(stream) = client.watch(pb::WatchDisplays::default()).await {
            let mut stream = stream.into_inner();
            while let Ok(Some(update)) = stream.message().await {
                let mut seen = seen.borrow_mut();
                if update.journal_sequence > disk.entries() {
                    seen.broken.push(format!(
                        "signs: an update names entry {} while the disk holds {}",
                        update.journal_sequence,
                        disk.entries()
                    ));
                }
                let amounts = update
                    .pools
                    .iter()
                    .map(|pool| (pool.pool_id.clone(), pool.displayed.as_ref().map(|a| a.value.clone()).unwrap_or_default()))
                    .collect();
                seen.signs.push((update.journal_sequence, amounts));
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The Venta-Pagos office: lists the orders waiting and confirms or rejects one, as the
/// operator shown it; a decision without an answer is sent again.
pub async fn office(
    channel: Controllers,
    config: &pozo_server::config::Config,
    journal_id: &str,
    rng: &mut ChaCha8Rng,
    seen: &Rc<RefCell<Seen>>,
    disk: &Disk,
) -> Option<Done> {
    const KEY: &str = "vp-ana";
    let secret = config.keys.get(KEY).expect("the embedded office key").secret.clone();
    let sign = |command: pb::office_command::Command| {
        let payload = pb::OfficeCommand { command: Some(command) }.encode_to_vec();
        pozo_proto::sign(KEY, &secret, pozo_proto::Purpose::OfficeCommand, journal_id, payload)
    };
    let mut client = pb::venta_pagos_client::VentaPagosClient::new(channel);
    let list = pb::office_command::Command::List(pb::ListPayouts { status: "pendiente".into() });
    let orders = client.list(sign(list)).await.ok()?.into_inner().orders;
    let order = orders.into_iter().find(|order| order.status == "pendiente")?;
    let expect = Some(pb::OrderFacts {
        pool_id: order.pool_id.clone(),
        table_id: order.table_id.clone(),
        seat: order.seat,
        round: order.round,
        code: order.code.clone(),
        amount: order.amount.clone(),
    });
    let confirm = rng.random_bool(0.7);
    let envelope = if confirm {
        sign(pb::office_command::Command::Confirm(pb::ConfirmPayout {
            order_id: order.order_id.clone(),
            form_number: format!("F-{}", order.order_id),
            expect,
        }))
    } else {
        sign(pb::office_command::Command::Reject(pb::RejectPayout {
            order_id: order.order_id.clone(),
            reason: "simulación".into(),
            expect,
        }))
    };
    let decide = || {
        let (mut client, envelope) = (client.clone(), envelope.clone());
        async move { if confirm { client.confirm(envelope).await } else { client.reject(envelope).await } }
    };
    let decided = match until_answered(rng, seen, decide).await? {
        Ok(decided) => decided,
        Err(status) => {
            seen.borrow_mut().say(format!("office {}: refused {:?}", order.order_id, status.code()));
            return Some(Done::Refused);
        }
    };
    let entry = decided.resolved_sequence;
    let mut seen = seen.borrow_mut();
    // Answered only once durable, and the same decision whenever asked again.
    if entry > disk.entries() {
        seen.broken.push(format!(
            "durability: order {} decided at entry {entry}, the disk holds {}",
            order.order_id,
            disk.entries()
        ));
    }
    if let Some(before) = seen.decided.insert(order.order_id.clone(), entry)
        && before != entry
    {
        seen.broken.push(format!("exactly once: order {} decided at entry {before}, then at {entry}", order.order_id));
    }
    seen.office_decisions += 1;
    seen.say(format!("office {} {}", if confirm { "confirmed" } else { "rejected" }, order.order_id));
    Some(Done::Applied { journal_sequence: 0 })
}

/// Sends with `send` until it is answered, at most 20 tries: a try that got no answer
/// ([`no_answer`]) counts as a retry and is followed by a growing pause drawn from `rng`. `None`
/// when no try was answered; else the answer, or the refusal.
async fn until_answered<T, F>(
    rng: &mut ChaCha8Rng,
    seen: &Rc<RefCell<Seen>>,
    mut send: impl FnMut() -> F,
) -> Option<Result<T, tonic::Status>>
where
    F: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    for attempt in 0..20u32 {
        match send().await {
            Ok(answer) => return Some(Ok(answer.into_inner())),
            Err(status) if no_answer(&status) => {
                seen.borrow_mut().retries += 1;
                tokio::time::sleep(Duration::from_millis(rng.random_range(10..(100 << attempt.min(4))))).await;
            }
            Err(status) => return Some(Err(status)),
        }
    }
    None
}

/// Two supervisors move money between two pools the tables do not play (a transfer: operations.md
/// §8): Carla proposes, Diego approves, each sent again until answered.
pub async fn supervisors(
    channel: Controllers,
    config: &pozo_server::config::Config,
    journal_id: &str,
    rng: &mut ChaCha8Rng,
    seen: &Rc<RefCell<Seen>>,
    pools: (&'static str, &'static str),
) -> Option<Done> {
    let sign = |key: &str, command: pb::change_command::Command| {
        let secret = &config.keys.get(key).expect("the embedded supervisors' keys").secret;
        let payload = pb::ChangeCommand { command: Some(command) }.encode_to_vec();
        pozo_proto::sign(key, secret, pozo_proto::Purpose::ChangeCommand, journal_id, payload)
    };
    let (one, other) = pools;
    let (from, to) = if rng.random_bool(0.5) { (one, other) } else { (other, one) };
    let cents: u32 = rng.random_range(1..=5_000);
    let amount = format!("{}.{:02}", cents / 100, cents % 100);
    let propose = sign(
        "sup-carla",
        pb::change_command::Command::Propose(pb::ProposeChange {
            reason: "Simulación: traspaso entre pozos".into(),
            authorisation: "VOPR".into(),
            what: Some(pb::propose_change::What::Transfer(pb::PoolTransfer {
                from_pool_id: from.into(),
                to_pool_id: to.into(),
                amount: Some(pb::Amount { value: amount.clone() }),
            })),
        }),
    );
    let changes = pb::changes_client::ChangesClient::new(channel);
    let send_proposal = || {
        let (mut changes, propose) = (changes.clone(), propose.clone());
        async move { changes.propose(propose).await }
    };
    let proposal = match until_answered(rng, seen, send_proposal).await? {
        Ok(proposal) => proposal,
        Err(status) => {
            seen.borrow_mut().say(format!("supervisors: transfer of {amount} refused {:?}", status.code()));
            return Some(Done::Refused);
        }
    };
    let approve =
        sign("sup-diego", pb::change_command::Command::Approve(pb::ApproveChange { proposal_id: proposal.proposal_id.clone() }));
    let send_approval = || {
        let (mut changes, approve) = (changes.clone(), approve.clone());
        async move { changes.approve(approve).await }
    };
    match until_answered(rng, seen, send_approval).await? {
        Ok(answer) => {
            let mut seen = seen.borrow_mut();
            seen.changes += 1;
            seen.say(format!(
                "supervisors: transfer {} of {amount} from {from} to {to}: {}",
                proposal.proposal_id, answer.status
            ));
            Some(Done::Applied { journal_sequence: 0 })
        }
        Err(status) => {
            // Approved already by a try whose answer was lost: the same decision.
            seen.borrow_mut().say(format!("supervisors: approval of {} refused {:?}", proposal.proposal_id, status.code()));
            Some(Done::Refused)
        }
    }
}
