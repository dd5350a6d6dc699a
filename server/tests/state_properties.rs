//! The state machine under random nights: every table of the embedded layout (so every
//! pool of the rulebooks) takes random commands, the new anomalies among them (a bet of
//! several credits, a seat closed, an absent player, grillos not played, a series annulled,
//! custody and its release) and the office's decisions. After every event, accepted or
//! refused:
//!
//! - every pool conserves: Σ contributions + Σ replenishments + Σ transfers in ± adjustments =
//!   balance + reserve + Σ awards net of returns and reclaims + Σ transfers out (docs/rules.md,
//!   "Money and conservation"), and what the pools sent each other sums to zero, through
//!   proposals approved by a second person (transfers, adjustments, retirements, a minimum
//!   raised and taking effect at its moment: docs/operations.md §8);
//! - a refused command changed nothing at all (the whole snapshot is compared);
//! - no seat holds more than 3 bronze, 2 silver and 1 gold (3.7.2);
//! - custody holds only money, and released items stay released;
//! - the liability to players is the sum of its parts, each the sum of its lines;
//! - the commands applied, replayed on a fresh controller, give the same state.

use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_server::config::Config;
use pozo_server::config::Edit;
use pozo_server::state::{
    ChangeCommand, ChangeOp, Command, Context, Effect, OfficeCommand, OfficeOp, OrderStatus, ProposalStatus, Proposed, State,
    TableCommand, TableOp,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// One random event: a table (index into the layout) and what it is asked, or an office decision.
#[derive(Clone, Debug)]
enum Event {
    Table {
        table: usize,
        op: Op,
    },
    /// Confirm (true) or reject the oldest pending order.
    Office(bool),
    /// A supervisor proposes a change or a money movement.
    Propose(Change),
    /// The oldest pending proposal approved: by the inspector (true) or a second supervisor;
    /// now and then by its own proposer, which is refused.
    Approve(bool, bool),
    /// The oldest pending or scheduled proposal withdrawn.
    Withdraw,
}

/// What is proposed, pools drawn by index in the rulebooks, amounts in centavos.
#[derive(Clone, Debug)]
enum Change {
    Transfer(usize, usize, i64),
    Adjust(usize, i64),
    Retire(usize, usize),
    /// A new minimum, in whole pesos: a money setting, scheduled until the pool's next top prize.
    Minimum(usize, u32),
}

/// A table operation with its seat and code drawn small, so that most apply.
#[derive(Clone, Debug)]
enum Op {
    Open,
    Close,
    Sell(u32, u32),
    RefundCredits(u32),
    Press(u32, u32),
    Start,
    Prize(u32, usize),
    Accept,
    Finish,
    Void(u32),
    Carry,
    Refund(u32),
    LastRound,
    GoldTurn,
    CloseSeat(u32),
    OpenSeat(u32),
    Absent(u32),
    Returns(u32),
    Played(u32, usize, u32),
    Annul(u32),
    CustodyBet(u32),
    CustodyPrize(u32),
    Release(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let seat = 1..=5_u32;
    prop_oneof![
        4 => Just(Op::Open),
        1 => Just(Op::Close),
        8 => (seat.clone(), prop::sample::select(vec![1_u32, 5, 10, 20])).prop_map(|(s, c)| Op::Sell(s, c)),
        1 => seat.clone().prop_map(Op::RefundCredits),
        12 => (seat.clone(), prop::sample::select(vec![1_u32, 1, 1, 2, 3])).prop_map(|(s, c)| Op::Press(s, c)),
        8 => Just(Op::Start),
        10 => (seat.clone(), 0..8_usize).prop_map(|(s, c)| Op::Prize(s, c)),
        6 => Just(Op::Accept),
        8 => Just(Op::Finish),
        2 => seat.clone().prop_map(Op::Void),
        1 => Just(Op::Carry),
        2 => seat.clone().prop_map(Op::Refund),
        1 => Just(Op::LastRound),
        4 => Just(Op::GoldTurn),
        1 => seat.clone().prop_map(Op::CloseSeat),
        2 => seat.clone().prop_map(Op::OpenSeat),
        4 => seat.clone().prop_map(Op::Absent),
        4 => seat.clone().prop_map(Op::Returns),
        4 => (seat.clone(), 0..3_usize, 0..3_u32).prop_map(|(s, g, p)| Op::Played(s, g, p)),
        2 => seat.clone().prop_map(Op::Annul),
        2 => seat.clone().prop_map(Op::CustodyBet),
        2 => seat.clone().prop_map(Op::CustodyPrize),
        2 => (1..4_u64).prop_map(Op::Release),
    ]
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => (0..8_usize, 0..8_usize, -100..300_000_i64).prop_map(|(from, to, cents)| Change::Transfer(from, to, cents)),
        2 => (0..8_usize, -2_000_000..2_000_000_i64).prop_map(|(pool, cents)| Change::Adjust(pool, cents)),
        1 => (0..8_usize, 0..8_usize).prop_map(|(pool, to)| Change::Retire(pool, to)),
        2 => (0..8_usize, 1..30_000_u32).prop_map(|(pool, pesos)| Change::Minimum(pool, pesos)),
    ]
}

fn event(tables: usize) -> impl Strategy<Value = Event> {
    prop_oneof![
        24 => (0..tables, op()).prop_map(|(table, op)| Event::Table { table, op }),
        1 => any::<bool>().prop_map(Event::Office),
        1 => change().prop_map(Event::Propose),
        1 => (any::<bool>(), prop::bool::weighted(0.1)).prop_map(|(inspector, own)| Event::Approve(inspector, own)),
        1 => prop::bool::weighted(0.1).prop_map(|_| Event::Withdraw),
    ]
}

/// The proposal or decision an event is, signed by the supervisor or the inspector.
fn change_command(state: &State, event: &Event) -> Option<Command> {
    let config = state.config();
    let pools: Vec<_> = config.rulebooks.pools().map(|rules| rules.id.clone()).collect();
    let pool = |index: usize| pools[index % pools.len()].clone();
    let oldest = |statuses: &[ProposalStatus]| {
        state.data().proposals.values().find(|proposal| statuses.contains(&proposal.status)).map(|p| p.proposal_id.clone())
    };
    let (key_id, op) = match event {
        Event::Propose(change) => {
            let proposed = match change {
                Change::Transfer(from, to, cents) => {
                    Proposed::Transfer { from: pool(*from), to: pool(*to), amount: Money::from_cents(*cents) }
                }
                Change::Adjust(index, cents) => Proposed::Adjust { pool: pool(*index), amount: Money::from_cents(*cents) },
                Change::Retire(index, to) => Proposed::RetirePool { pool: pool(*index), to: pool(*to) },
                Change::Minimum(index, pesos) => {
                    let edit = Edit::Pool { pool_id: pool(*index), setting: "minimum".into(), value: format!("{pesos}.00") };
                    Proposed::Configuration { files: config.edited(&[edit]).ok()?, effect: Effect::NextTopPrize }
                }
            };
            ("sup-carla", ChangeOp::Propose { proposed, reason: "prueba".into(), authorisation: "Nota 1".into() })
        }
        Event::Approve(inspector, own) => {
            let key = if *own {
                "sup-carla"
            } else if *inspector {
                "insp-elena"
            } else {
                "sup-diego"
            };
            (key, ChangeOp::Approve { proposal_id: oldest(&[ProposalStatus::Pending])? })
        }
        Event::Withdraw => (
            "sup-diego",
            ChangeOp::Withdraw {
                proposal_id: oldest(&[ProposalStatus::Pending, ProposalStatus::Scheduled])?,
                reason: "prueba".into(),
            },
        ),
        _ => return None,
    };
    Some(Command::Change(ChangeCommand { key_id: key_id.into(), op }))
}

const GRILLOS: [&str; 3] = ["GRILLO_BRONCE", "GRILLO_PLATA", "GRILLO_ORO"];

/// The command an event is for this state, or `None` (an office event with nothing pending).
fn command(state: &State, config: &Config, event: &Event) -> Option<Command> {
    match event {
        Event::Office(confirm) => {
            let order = state.data().orders.values().find(|order| order.status == OrderStatus::Pending)?;
            let (order_id, expect) = (order.order_id.clone(), order.facts.clone());
            let op = if *confirm {
                OfficeOp::Confirm { order_id, form_number: "F-1".into(), expect }
            } else {
                OfficeOp::Reject { order_id, reason: "prueba".into(), expect }
            };
            Some(Command::Office(OfficeCommand { key_id: "vp-ana".into(), operator_name: "Ana".into(), op }))
        }
        Event::Propose(_) | Event::Approve(..) | Event::Withdraw => change_command(state, event),
        Event::Table { table, op } => {
            let layout = &config.layout.tables[*table];
            let rules = config.rulebooks.pool(&layout.pool).expect("the layout's pools");
            let code = |index: usize| rules.prizes[index % rules.prizes.len()].code.clone();
            let op = match op.clone() {
                Op::Open => TableOp::OpenTable,
                Op::Close => TableOp::CloseTable,
                Op::Sell(seat, credits) => TableOp::SellCredits { seat, credits },
                Op::RefundCredits(seat) => TableOp::RefundCredits { seat },
                Op::Press(seat, credits) => TableOp::Press { seat, credits: (credits > 1).then_some(credits) },
                Op::Start => TableOp::StartRound,
                Op::Prize(seat, index) => TableOp::EnterPrize { seat, code: code(index), high: Some("K".into()) },
                Op::Accept => TableOp::Accept,
                Op::Finish => TableOp::FinishRound,
                Op::Void(seat) => TableOp::VoidBet { seat },
                Op::Carry => TableOp::CarryBets,
                Op::Refund(seat) => TableOp::RefundBet { seat },
                Op::LastRound => TableOp::LastRound,
                Op::GoldTurn => TableOp::RequestGoldTurn,
                Op::CloseSeat(seat) => TableOp::CloseSeat { seat },
                Op::OpenSeat(seat) => TableOp::OpenSeat { seat },
                Op::Absent(seat) => TableOp::PlayerAbsent { seat },
                Op::Returns(seat) => TableOp::PlayerReturns { seat },
                Op::Played(seat, grillo, played) => TableOp::GrillosPlayed { seat, code: GRILLOS[grillo].into(), played },
                Op::Annul(seat) => TableOp::AnnulSeries { seat, series: None },
                Op::CustodyBet(seat) => TableOp::CustodyBet { seat },
                Op::CustodyPrize(seat) => TableOp::CustodyPrize { seat },
                Op::Release(number) => TableOp::ReleaseCustody { custody_id: format!("CU-{number:06}") },
            };
            let table = state.table(&layout.id).expect("a table of the layout");
            let sequence = table.last_sequence + 1;
            // A card for every INICIAR JUEGO: the state puts it in play where the table plays one.
            let card = matches!(op, TableOp::StartRound).then(|| pozo_server::state::Card::from_index(sequence as u8));
            Some(Command::Table(TableCommand {
                table_id: layout.id.clone(),
                sequence,
                payload_sha256: format!("{}-{sequence}", layout.id),
                op,
                card,
                inspector: None,
            }))
        }
    }
}

fn check_invariants(state: &State) -> Result<(), TestCaseError> {
    for (pool, difference) in state.conservation() {
        prop_assert!(difference.is_zero(), "pool {pool} is off by {difference}");
    }
    // What the pools sent each other: every centavo out of one is into another.
    let moved: Money = state.pools().map(|pool| pool.meters().net_transfers()).sum();
    prop_assert!(moved.is_zero(), "transfers between pools sum to {moved}");
    for table in state.data().tables.values() {
        for (index, seat) in table.seats.iter().enumerate() {
            // 3.7.2: never more than 3 bronze, 2 silver, 1 gold in play for one player.
            prop_assert!(
                seat.bronze <= 3 && seat.silver <= 2 && seat.gold <= 1,
                "table {} seat {}: {} bronze, {} silver, {} gold",
                table.id,
                index + 1,
                seat.bronze,
                seat.silver,
                seat.gold
            );
            prop_assert!(!(seat.closed && seat.credits > 0), "a closed seat holds no credits (AJ 2.5.6.1)");
            // 3.7.10: only grillos held can be kept unplayed; none outlives its bet (3.1.3).
            prop_assert!(
                seat.not_played.bronze <= seat.bronze
                    && seat.not_played.silver <= seat.silver
                    && seat.not_played.gold <= seat.gold,
                "table {} seat {}: not played {:?} of {} bronze, {} silver, {} gold",
                table.id,
                index + 1,
                seat.not_played,
                seat.bronze,
                seat.silver,
                seat.gold
            );
        }
    }
    for item in state.data().custody.values() {
        prop_assert!(item.amount > Money::ZERO, "custody {} holds {}", item.custody_id, item.amount);
    }
    // The liability to players (docs/readings.md): each pool split into the house's seed and
    // what is owed, every part the sum of its lines, the total the sum of the parts.
    let liability = state.liability();
    for pool in &liability.pools {
        prop_assert!(pool.seed + pool.owed == pool.balance + pool.reserve, "{pool:?}");
        prop_assert!(pool.seed <= pool.minimum && pool.owed >= Money::ZERO, "{pool:?}");
    }
    let sums = &liability.sums;
    let counted = liability.custody.iter().filter(|item| liability.counts_custody(item));
    let lines = [
        liability.pools.iter().map(|pool| pool.owed).sum::<Money>(),
        liability.pending_orders.iter().map(|order| order.facts.amount).sum(),
        liability.credits.iter().map(|seat| seat.amount).sum(),
        liability.stakes.iter().map(|seat| seat.amount).sum(),
        counted.map(|item| item.amount).sum(),
    ];
    prop_assert_eq!(lines, [sums.pools, sums.pending_orders, sums.credits, sums.stakes, sums.custody]);
    prop_assert_eq!(sums.total, lines.iter().copied().sum::<Money>());
    Ok(())
}

/// What one random night did: how many events applied, by kind.
#[derive(Default)]
struct Night {
    applied: std::collections::BTreeMap<&'static str, u32>,
    refused: u32,
}

/// Plays `events` on a fresh controller whose tables `tables` (indices into the layout) are
/// open with credits sold, checking the invariants after every event.
fn night(tables: &[usize], events: &[Event]) -> Result<Night, TestCaseError> {
    let config = Arc::new(Config::embedded());
    let mut state = State::new(Arc::clone(&config));
    let genesis = Command::genesis(&config, "", None, None);
    state.apply(&genesis, Context { sequence: 1, time_ms: 0 }).expect("genesis");
    let mut sequence = 1_u64;
    let mut released = std::collections::BTreeSet::new();
    let mut outcome = Night::default();
    let mut journal: Vec<(Command, Context)> = vec![(genesis.clone(), Context { sequence: 1, time_ms: 0 })];
    // Every chosen table open, each of its first five seats with 20 credits: most events
    // then find something to do.
    let mut opening: Vec<Event> = Vec::new();
    for table in tables {
        opening.push(Event::Table { table: *table, op: Op::Open });
        for seat in 1..=5 {
            opening.push(Event::Table { table: *table, op: Op::Sell(seat, 20) });
        }
    }
    let chosen = events.iter().map(|event| match event {
        // Tables stay those of the genesis layout: no change here adds or retires one.
        Event::Table { table, op } => Event::Table { table: tables[table % tables.len()], op: op.clone() },
        office => office.clone(),
    });
    for event in opening.into_iter().chain(chosen) {
        let Some(command) = command(&state, &config, &event) else { continue };
        let before = state.snapshot();
        let context = Context { sequence: sequence + 1, time_ms: 1_795_316_400_000 + sequence * 60_000 };
        match state.apply(&command, context) {
            Ok(_) => {
                sequence += 1;
                *outcome.applied.entry(command.kind()).or_default() += 1;
                journal.push((command.clone(), context));
            }
            Err(refusal) => {
                outcome.refused += 1;
                prop_assert!(state.snapshot() == before, "refused ({}) but changed the state: {command:?}", refusal.message);
                prop_assert!(!refusal.message.is_empty());
            }
        }
        check_invariants(&state)?;
        for item in state.data().custody.values() {
            if item.released_sequence.is_some() {
                released.insert(item.custody_id.clone());
            } else {
                prop_assert!(!released.contains(&item.custody_id), "custody {} held again after release", item.custody_id);
            }
        }
    }
    // The journal replayed on a fresh controller gives the same state, bit for bit.
    let mut replayed = State::new(Arc::clone(&config));
    for (command, context) in &journal {
        replayed
            .apply(command, *context)
            .map_err(|refusal| TestCaseError::fail(format!("replay refused: {}", refusal.message)))?;
    }
    prop_assert!(replayed.snapshot() == state.snapshot(), "the replay differs");
    Ok(outcome)
}

/// One to three tables of the layout: every pool is drawn across the cases.
fn tables() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..Config::embedded().layout.tables.len(), 1..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Proves conservation on every pool after every event of a random night, new events
    /// (stakes in credits, closed seats, absent players, grillos not played, annulled
    /// series, custody) included, and that a refused event changes nothing.
    #[test]
    fn every_event_conserves_every_pool_and_a_refusal_changes_nothing(
        tables in tables(),
        events in prop::collection::vec(event(3), 1..300),
    ) {
        night(&tables, &events)?;
    }
}

/// Proves the random nights above reach the events they are meant to check: over 200 nights
/// drawn from a fixed seed, on every table, each new kind of event applied at least once (a
/// property that never applies an annulment would prove nothing about annulments).
#[test]
fn the_random_nights_apply_every_new_kind_of_event() {
    use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(RunnerConfig::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    let layout = Config::embedded().layout.tables.len();
    let mut applied: std::collections::BTreeMap<&'static str, u32> = Default::default();
    for night_index in 0..200 {
        let events = prop::collection::vec(event(1), 150..300).new_tree(&mut runner).expect("events").current();
        let outcome = night(&[night_index % layout], &events).expect("the invariants hold");
        for (kind, count) in outcome.applied {
            *applied.entry(kind).or_default() += count;
        }
    }
    for kind in [
        "press",
        "accept",
        "close_seat",
        "open_seat",
        "player_absent",
        "player_returns",
        "grillos_played",
        "annul_series",
        "custody_bet",
        "custody_prize",
        "release_custody",
        "confirm",
        "reject",
        "propose",
        "approve",
        "withdraw",
    ] {
        assert!(applied.get(kind).copied().unwrap_or(0) > 0, "no `{kind}` applied in 200 nights: {applied:?}");
    }
}
