//! A poker tournament in the journal and the state (Res. 123/2013, issue 46), driven through
//! `State::apply` with journal commands as the writer, recovery and `verify` apply them: set up
//! through the two-person door, a whole tournament whose books tie to zero, each refusal
//! (nothing changes), replay, the JSON of every operation, and random tournaments whose books
//! tie after every command.

use std::sync::Arc;

use pozo_core::config::Config;
use pozo_core::state::tournament::{Standing, Tie, TournamentPhase};
use pozo_core::state::{
    ChangeCommand, ChangeOp, Command, Context, Proposed, RefusalKind, State, TournamentCommand, TournamentOp,
};
use pozo_engine::money::Money;
use pozo_engine::tournament::Item;
use proptest::prelude::*;

/// Five places paid from 6 entrants, two from 2 to 5; rebuys and an add-on, each item its share.
const TORNEO: &str = r#"
[[torneo]]
id = "prueba"
name = "Torneo de prueba"
kind = "multimesa"
currency = "ARS"
payout_unit = "0.01"
buy_in = { price = "1000.00", chips = 10000, to_prizes = "0.80" }
rebuy = { price = "500.00", chips = 10000, to_prizes = "0.90", per_player = 2 }
add_on = { price = "500.00", chips = 15000, to_prizes = "0.95", per_player = 1 }
max_entrants = 20
venta_pagos_from = "100000000.00"

[[torneo.premios]]
entrants = [2, 5]
places = ["70", "30"]

[[torneo.premios]]
entrants = [6, 20]
places = ["40", "25", "15", "12", "8"]
"#;

const ID: &str = "prueba";
const CASHIER: &str = "vp-ana";
const DIRECTOR: &str = "sup-carla";

/// A controller with its genesis applied, and the journal it keeps, entry by entry.
struct Journal {
    config: Arc<Config>,
    state: State,
    entries: Vec<(Command, Context)>,
}

impl Journal {
    fn new() -> Journal {
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let genesis = Command::genesis(&config, "", None, None);
        let context = Context { sequence: 1, time_ms: 1_795_316_400_000 };
        state.apply(&genesis, context).expect("genesis");
        Journal { config, state, entries: vec![(genesis, context)] }
    }

    /// A journal with the test tournament set up, registration open.
    fn with_tournament() -> Journal {
        let mut journal = Journal::new();
        journal.set_up(TORNEO).expect("set up");
        journal
    }

    fn next(&self) -> Context {
        let sequence = self.state.journal_sequence() + 1;
        Context { sequence, time_ms: 1_795_316_400_000 + sequence * 60_000 }
    }

    /// Applies one command; a refused one must change nothing at all.
    fn apply(&mut self, command: Command) -> Result<(), pozo_core::state::Refusal> {
        let before = self.state.snapshot();
        let context = self.next();
        match self.state.apply(&command, context) {
            Ok(_) => {
                self.entries.push((command, context));
                Ok(())
            }
            Err(refusal) => {
                assert_eq!(self.state.snapshot(), before, "a refused command changed the state: {}", refusal.message);
                Err(refusal)
            }
        }
    }

    /// Proposed by one supervisor, approved by another.
    fn set_up(&mut self, text: &str) -> Result<(), pozo_core::state::Refusal> {
        let proposed = Proposed::Tournament { text: text.to_owned() };
        self.apply(change(
            "sup-carla",
            ChangeOp::Propose { proposed, reason: "Torneo semanal".into(), authorisation: "Nota 46".into() },
        ))?;
        let id = self.state.data().proposals.keys().last().expect("proposed").clone();
        self.apply(change("sup-diego", ChangeOp::Approve { proposal_id: id }))
    }

    fn op(&mut self, key: &str, op: TournamentOp) -> Result<(), pozo_core::state::Refusal> {
        self.apply(tournament(key, op))
    }

    fn books_tie(&self) {
        for books in self.state.tournament_books() {
            assert_eq!(books.untied(), None, "{books:?}");
        }
    }

    /// The journal replayed on a fresh controller gives the same state.
    fn replayed(&self) -> State {
        let mut state = State::new(Arc::clone(&self.config));
        for (command, context) in &self.entries {
            state.apply(command, *context).expect("a journaled command applies again");
        }
        state
    }
}

fn change(key: &str, op: ChangeOp) -> Command {
    Command::Change(ChangeCommand { key_id: key.into(), op })
}

fn tournament(key: &str, op: TournamentOp) -> Command {
    let name = if key == CASHIER { "Ana Pereyra" } else { "Carla Medina" };
    Command::Tournament(TournamentCommand { key_id: key.into(), operator_name: name.into(), op })
}

fn fingerprint(player: u32) -> String {
    format!("{player:064x}")
}

fn price(item: Item) -> Money {
    match item {
        Item::BuyIn => Money::from_cents(100_000),
        Item::Rebuy | Item::AddOn => Money::from_cents(50_000),
    }
}

/// A purchase of `item` by player `player` (his document's fingerprint is his number) as order `order`.
fn purchase(item: Item, order: u32, player: u32) -> TournamentOp {
    TournamentOp::Purchase {
        tournament: ID.into(),
        item,
        order,
        player_name: format!("Jugador {player}"),
        document_masked: format!("DNI ***{player:04}"),
        document_fingerprint: fingerprint(player),
        document_sealed: "a1b2c3d4".into(),
        amount: price(item),
    }
}

fn eliminate(players: &[u32], simultaneous: bool) -> TournamentOp {
    TournamentOp::Eliminate { tournament: ID.into(), players: players.to_vec(), table: "Mesa 1".into(), hand: 42, simultaneous }
}

fn pesos(cents: i64) -> Money {
    Money::from_cents(cents)
}

#[test]
fn a_whole_tournament_ties_to_zero_and_replays() {
    let mut journal = Journal::with_tournament();
    let proposal = journal.state.data().proposals.values().last().expect("the proposal").clone();
    assert_eq!(proposal.proposed_by.key_id, "sup-carla");
    assert_eq!(proposal.approved_by.as_ref().map(|person| person.key_id.as_str()), Some("sup-diego"));
    assert_eq!(journal.state.tournaments()[ID].phase, TournamentPhase::Registration);

    // Nine buy-ins, orders 1–9 for players 1–9; player 9 asks for his money back (Anexo IV 1.4).
    for player in 1..=9 {
        journal.op(CASHIER, purchase(Item::BuyIn, player, player)).expect("buy-in");
    }
    journal.op(CASHIER, TournamentOp::Refund { tournament: ID.into(), order: 9 }).expect("refund");
    // Rebuys: player 1 two, player 2 one; add-ons: players 1 and 3.
    journal.op(CASHIER, purchase(Item::Rebuy, 10, 1)).expect("rebuy");
    journal.op(CASHIER, purchase(Item::Rebuy, 11, 1)).expect("rebuy");
    journal.op(CASHIER, purchase(Item::Rebuy, 12, 2)).expect("rebuy");
    journal.op(DIRECTOR, TournamentOp::CloseRegistration { tournament: ID.into() }).expect("registration closed");
    assert_eq!(journal.state.tournaments()[ID].entrants, 8);
    journal.op(CASHIER, purchase(Item::AddOn, 13, 1)).expect("add-on");
    journal.op(CASHIER, purchase(Item::AddOn, 14, 3)).expect("add-on");
    // Read live before the close: what the purchases collected so far.
    let live = journal.state.tournaments()[ID].prize_pool();
    assert_eq!(live.prizes, pesos(870_000));
    journal.books_tie();
    journal.op(DIRECTOR, TournamentOp::CloseRebuys { tournament: ID.into() }).expect("pool fixed");

    // IN 8 × 1.000 × 0,80 + RB 3 × 500 × 0,90 + AD 2 × 500 × 0,95 = 8.700 to prizes of 10.500.
    let pool = journal.state.tournaments()[ID].pool.clone().expect("fixed");
    assert_eq!((pool.collected, pool.prizes, pool.house), (pesos(1_050_000), pesos(870_000), pesos(180_000)));
    assert_eq!(pool.places, [pesos(348_000), pesos(217_500), pesos(130_500), pesos(104_400), pesos(69_600)]);

    journal.op(DIRECTOR, eliminate(&[8], false)).expect("8th");
    journal.op(DIRECTOR, eliminate(&[7], false)).expect("7th");
    // Art. 72: 5 and 6 in the same hand at different tables share 5th and 6th: 696 + 0.
    journal.op(DIRECTOR, eliminate(&[6, 5], true)).expect("5th–6th");
    // Anexo II: player 5, out in the money and unpaid, is disqualified: his 348 go to the four active.
    journal
        .op(DIRECTOR, TournamentOp::Disqualify { tournament: ID.into(), player: 5, reason: "Colusión".into() })
        .expect("disqualified");
    // Art. 71: 3 and 4, order unknown, share 3rd and 4th: 1.305 + 1.044.
    journal.op(DIRECTOR, eliminate(&[4, 3], false)).expect("3rd–4th");
    // Anexo II: active player 2 disqualified at 2nd: 2.175 and his 87 go to player 1, who is 1st.
    journal
        .op(DIRECTOR, TournamentOp::Disqualify { tournament: ID.into(), player: 2, reason: "Conducta".into() })
        .expect("disqualified");

    let t = &journal.state.tournaments()[ID];
    assert_eq!(t.phase, TournamentPhase::Finished);
    let ties: Vec<Tie> = t.eliminations.iter().map(|elimination| elimination.tie).collect();
    assert_eq!(ties, [Tie::None, Tie::None, Tie::Simultaneous, Tie::OrderUnknown]);
    assert_eq!(t.eliminations[2].players, [5, 6], "in order-number order");
    assert_eq!((t.eliminations[2].first, t.eliminations[2].last), (5, 6));
    assert_eq!(t.eliminations[2].amounts, [pesos(34_800), pesos(34_800)]);
    assert_eq!(t.eliminations[3].amounts, [pesos(117_450), pesos(117_450)]);
    assert_eq!(t.disqualifications[0].shared, [(1, pesos(8_700)), (2, pesos(8_700)), (3, pesos(8_700)), (4, pesos(8_700))]);
    assert_eq!(t.disqualifications[1].forfeited, pesos(226_200));
    let winner = &t.players[&1];
    assert_eq!((winner.standing, winner.position), (Standing::Winner, Some(1)));
    assert_eq!(winner.due(), pesos(348_000 + 8_700 + 226_200));
    assert_eq!(t.players[&3].due(), pesos(117_450 + 8_700));
    assert_eq!(t.players[&2].due(), Money::ZERO);
    journal.books_tie();

    // The liability lists what the finished players are owed: the whole pool, nothing paid yet.
    let owed = journal.state.liability();
    assert_eq!(owed.tournaments_owed(), pesos(870_000));
    assert_eq!(owed.tournaments[0].tournament, ID);

    // Art. 66: against the same document only, once.
    let pay =
        |player: u32, by: u32| TournamentOp::PayPrize { tournament: ID.into(), player, document_fingerprint: fingerprint(by) };
    let refused = journal.op(CASHIER, pay(1, 2)).expect_err("another document");
    assert_eq!(refused.kind, RefusalKind::PermissionDenied);
    assert!(refused.message.starts_with("document_fingerprint:") && refused.message.contains("art. 66"), "{}", refused.message);
    for player in [1, 3, 4, 6] {
        journal.op(CASHIER, pay(player, player)).expect("paid");
    }
    assert_eq!(journal.op(CASHIER, pay(1, 1)).expect_err("twice").kind, RefusalKind::AlreadyExists);
    assert!(journal.op(CASHIER, pay(7, 7)).expect_err("7th pays nothing").message.contains("pays no prize"));
    assert!(journal.op(CASHIER, pay(2, 2)).is_err(), "a disqualified player collects nothing");

    let books = &journal.state.tournament_books()[0];
    assert_eq!(books.untied(), None);
    assert_eq!(books.sold - books.refunds, books.prizes + books.house);
    assert_eq!(books.refunds, pesos(100_000));
    assert_eq!(books.assigned + books.redistributed, pesos(870_000));
    assert_eq!((books.paid, books.owed), (pesos(870_000), Money::ZERO));
    let owed = journal.state.liability();
    assert_eq!((owed.tournaments_owed(), owed.tournaments[0].paid), (Money::ZERO, pesos(870_000)));

    // Replay, and close → open through a snapshot, keep the tournament exactly.
    assert_eq!(journal.replayed().snapshot(), journal.state.snapshot());
    let restored = State::restore(Arc::clone(&journal.config), journal.state.snapshot()).expect("restored");
    assert_eq!(restored.tournaments(), journal.state.tournaments());
    // Closed into a new journal (docs/journal.md, "Closing a journal"): opened from the statement.
    let statement = serde_json::json!({ "statement": { "snapshot": journal.state.snapshot() }, "seal": "" });
    let mut next = State::new(Arc::clone(&journal.config));
    let genesis = Command::genesis(&journal.config, "", None, Some(Box::new(statement)));
    next.apply(&genesis, Context { sequence: 1, time_ms: 1_795_400_000_000 }).expect("opened");
    assert_eq!(next.tournaments(), journal.state.tournaments());
    let text = serde_json::to_string(&journal.state.snapshot()).expect("serializes");
    let back: pozo_core::state::Snapshot = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, journal.state.snapshot());
}

#[test]
fn a_journal_without_tournaments_keeps_its_snapshot_as_before() {
    let journal = Journal::new();
    let value = serde_json::to_value(journal.state.snapshot()).expect("serializes");
    assert!(value["data"].get("tournaments").is_none(), "no field a journal without tournaments did not have");
}

#[test]
fn the_set_up_is_refused_for_a_bad_structure_or_an_id_used() {
    let mut journal = Journal::new();
    let bad = TORNEO.replace("to_prizes = \"0.80\"", "to_prizes = \"0.60\"");
    let refused = journal.set_up(&bad).expect_err("under 70 %");
    assert_eq!(refused.kind, RefusalKind::InvalidArgument);
    assert!(refused.message.starts_with("text: ") && refused.message.contains("buy_in.to_prizes"), "{}", refused.message);
    assert!(refused.message.contains("art. 62"), "{}", refused.message);
    let two = format!("{TORNEO}\n{}", TORNEO.replace("id = \"prueba\"", "id = \"otro\""));
    assert!(journal.set_up(&two).expect_err("two").message.contains("exactly one [[torneo]]"));
    journal.set_up(TORNEO).expect("set up");
    let refused = journal.set_up(TORNEO).expect_err("the id again");
    assert_eq!(refused.kind, RefusalKind::AlreadyExists);

    // Refused at approval too: two proposals of one id, the second approved after the first.
    let mut journal = Journal::new();
    for key in ["sup-carla", "sup-carla"] {
        let proposed = Proposed::Tournament { text: TORNEO.into() };
        journal
            .apply(change(key, ChangeOp::Propose { proposed, reason: "Torneo".into(), authorisation: "Nota".into() }))
            .expect("proposed");
    }
    let ids: Vec<String> = journal.state.data().proposals.keys().cloned().collect();
    journal.apply(change("sup-diego", ChangeOp::Approve { proposal_id: ids[0].clone() })).expect("approved");
    let refused = journal.apply(change("sup-diego", ChangeOp::Approve { proposal_id: ids[1].clone() })).expect_err("id taken");
    assert_eq!(refused.kind, RefusalKind::AlreadyExists);
    assert!(refused.spanish.as_deref().is_some_and(|text| text.contains("Ya existe un torneo prueba")));
}

#[test]
fn every_refusal_names_its_field_and_changes_nothing() {
    let mut journal = Journal::with_tournament();
    let field = |refusal: pozo_core::state::Refusal, field: &str| {
        assert!(refusal.message.starts_with(&format!("{field}:")), "{field}: {}", refusal.message);
        assert!(refusal.spanish.is_some(), "staff read it in Spanish: {}", refusal.message);
        refusal
    };
    // Who may: a table key sells nothing; an office key closes nothing.
    field(journal.op("mesa-B1", purchase(Item::BuyIn, 1, 1)).expect_err("a table key"), "key_id");
    field(journal.op(CASHIER, TournamentOp::CloseRegistration { tournament: ID.into() }).expect_err("a cashier"), "key_id");
    field(
        journal.op(CASHIER, TournamentOp::Refund { tournament: "otro".into(), order: 1 }).expect_err("no such tournament"),
        "tournament",
    );
    journal.op(CASHIER, purchase(Item::BuyIn, 1, 1)).expect("buy-in");
    field(journal.op(CASHIER, purchase(Item::BuyIn, 1, 2)).expect_err("order used"), "order");
    field(journal.op(CASHIER, purchase(Item::BuyIn, 0, 2)).expect_err("order zero"), "order");
    field(journal.op(CASHIER, purchase(Item::BuyIn, 2, 1)).expect_err("registered twice"), "document_fingerprint");
    let mut wrong = purchase(Item::BuyIn, 2, 2);
    if let TournamentOp::Purchase { amount, .. } = &mut wrong {
        *amount = pesos(99_999);
    }
    assert!(field(journal.op(CASHIER, wrong).expect_err("not the price"), "amount").message.contains("art. 1"));
    let mut shapeless = purchase(Item::BuyIn, 2, 2);
    if let TournamentOp::Purchase { document_fingerprint, document_masked, .. } = &mut shapeless {
        *document_fingerprint = "XYZ".into();
        *document_masked = "DNI 12345678".into();
    }
    field(journal.op(CASHIER, shapeless).expect_err("an unmasked document"), "document_masked");
    field(journal.op(CASHIER, purchase(Item::Rebuy, 2, 2)).expect_err("not an entrant"), "document_fingerprint");
    journal.op(CASHIER, purchase(Item::Rebuy, 2, 1)).expect("rebuy");
    journal.op(CASHIER, purchase(Item::Rebuy, 3, 1)).expect("rebuy");
    let third = field(journal.op(CASHIER, purchase(Item::Rebuy, 4, 1)).expect_err("a third rebuy"), "item");
    assert!(third.message.contains("Anexo I art. 1"), "{}", third.message);
    assert_eq!(
        third.spanish.as_deref(),
        Some("El jugador ya hizo 2 de las 2 compras RB que puede hacer cada uno (Res. 123/2013 Anexo I art. 1).")
    );
    field(journal.op(CASHIER, TournamentOp::Refund { tournament: ID.into(), order: 1 }).expect_err("rebuys first"), "order");
    field(journal.op(CASHIER, TournamentOp::Refund { tournament: ID.into(), order: 77 }).expect_err("no purchase"), "order");
    field(
        journal.op(DIRECTOR, TournamentOp::CloseRegistration { tournament: ID.into() }).expect_err("one entrant"),
        "tournament",
    );
    field(
        journal.op(DIRECTOR, TournamentOp::CloseRebuys { tournament: ID.into() }).expect_err("registration open"),
        "tournament",
    );
    field(journal.op(DIRECTOR, eliminate(&[1], false)).expect_err("before the pool is fixed"), "players");
    journal.op(CASHIER, purchase(Item::BuyIn, 5, 2)).expect("buy-in");
    journal.op(CASHIER, purchase(Item::BuyIn, 6, 3)).expect("buy-in");
    journal.op(DIRECTOR, TournamentOp::CloseRegistration { tournament: ID.into() }).expect("closed");
    field(journal.op(CASHIER, purchase(Item::BuyIn, 7, 4)).expect_err("registration closed"), "item");
    let late = field(
        journal.op(CASHIER, TournamentOp::Refund { tournament: ID.into(), order: 2 }).expect_err("after the close"),
        "order",
    );
    assert!(late.spanish.as_deref().is_some_and(|text| text.ends_with("(Res. 123/2013 Anexo IV 1.4).")), "{late:?}");
    journal.op(DIRECTOR, TournamentOp::CloseRebuys { tournament: ID.into() }).expect("fixed");
    field(journal.op(CASHIER, purchase(Item::AddOn, 8, 1)).expect_err("period over"), "item");
    field(journal.op(DIRECTOR, eliminate(&[1, 5, 6], true)).expect_err("everyone at once"), "players");
    field(journal.op(DIRECTOR, eliminate(&[9], false)).expect_err("unknown"), "players");
    field(journal.op(DIRECTOR, eliminate(&[5, 5], true)).expect_err("twice"), "players");
    journal.op(DIRECTOR, eliminate(&[6], false)).expect("3rd");
    field(journal.op(DIRECTOR, eliminate(&[6], false)).expect_err("already out"), "players");
    let seal = |player: u32, chips: u64| TournamentOp::SealChips {
        tournament: ID.into(),
        player,
        chips,
        receipt: "R-001".into(),
        jornada: 1,
    };
    field(journal.op(DIRECTOR, seal(6, 1_000)).expect_err("out"), "player");
    field(journal.op(DIRECTOR, seal(1, 0)).expect_err("no chips"), "chips");
    journal.op(DIRECTOR, seal(1, 25_000)).expect("sealed");
    assert_eq!(journal.state.tournaments()[ID].seals[0].by.key_id, DIRECTOR);
    let pay = TournamentOp::PayPrize { tournament: ID.into(), player: 1, document_fingerprint: fingerprint(1) };
    field(journal.op(CASHIER, pay).expect_err("still in play"), "player");
    journal.books_tie();
    assert_eq!(journal.replayed().snapshot(), journal.state.snapshot());
}

#[test]
fn every_operation_reads_back_from_its_json() {
    let ops = vec![
        purchase(Item::AddOn, 3, 1),
        TournamentOp::Refund { tournament: ID.into(), order: 3 },
        TournamentOp::CloseRegistration { tournament: ID.into() },
        TournamentOp::CloseRebuys { tournament: ID.into() },
        eliminate(&[4, 2], true),
        TournamentOp::Disqualify { tournament: ID.into(), player: 2, reason: "Colusión".into() },
        TournamentOp::SealChips { tournament: ID.into(), player: 1, chips: 12_000, receipt: "R-7".into(), jornada: 2 },
        TournamentOp::PayPrize { tournament: ID.into(), player: 1, document_fingerprint: fingerprint(1) },
    ];
    let names =
        ["purchase", "refund", "close_registration", "close_rebuys", "eliminate", "disqualify", "seal_chips", "pay_prize"];
    for (op, name) in ops.into_iter().zip(names) {
        let command = tournament(DIRECTOR, op);
        let value = serde_json::to_value(&command).expect("serializes");
        assert_eq!((value["kind"].as_str(), value["op"]["op"].as_str()), (Some("tournament"), Some(name)));
        let back: Command = serde_json::from_value(value).expect("reads back");
        assert_eq!(back, command);
        assert_eq!(command.kind(), format!("tournament_{name}"));
    }
    let value = serde_json::to_value(purchase(Item::Rebuy, 1, 1)).expect("serializes");
    assert_eq!(value["item"], "RB", "the transaction code of Anexo IV 1.3");
    assert_eq!(value["amount"], serde_json::json!(pesos(50_000)));
}

/// One random step of a tournament: numbers drawn small, so that many apply and many are refused.
#[derive(Clone, Debug)]
enum Step {
    Buy(u8, u8, u8),
    Refund(u8),
    CloseRegistration,
    CloseRebuys,
    Eliminate(Vec<u8>, bool),
    Disqualify(u8),
    Pay(u8, bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u8..5, 1u8..40, 1u8..16).prop_map(|(item, order, player)| Step::Buy(item, order, player)),
        1 => (1u8..30).prop_map(Step::Refund),
        1 => Just(Step::CloseRegistration),
        1 => Just(Step::CloseRebuys),
        6 => (proptest::collection::vec(any::<u8>(), 1..4), any::<bool>()).prop_map(|(players, same)| Step::Eliminate(players, same)),
        2 => any::<u8>().prop_map(Step::Disqualify),
        3 => (any::<u8>(), any::<bool>()).prop_map(|(player, own)| Step::Pay(player, own)),
    ]
}

/// The order number a drawn index picks: mostly a player in play (`active`) or an entrant, now
/// and then one that is not there.
fn pick(journal: &Journal, index: u8, active: bool) -> u32 {
    let t = &journal.state.tournaments()[ID];
    let orders: Vec<u32> = if active { t.active() } else { t.players.keys().copied().collect() };
    orders.get(usize::from(index) % (orders.len() + 1)).copied().unwrap_or(u32::from(index))
}

fn op_of(step: &Step, journal: &Journal) -> TournamentOp {
    match step {
        Step::Buy(item, order, player) => {
            // Buy-ins three times in five.
            let item = [Item::BuyIn, Item::BuyIn, Item::BuyIn, Item::Rebuy, Item::AddOn][usize::from(*item)];
            purchase(item, u32::from(*order), u32::from(*player))
        }
        Step::Refund(order) => TournamentOp::Refund { tournament: ID.into(), order: u32::from(*order) },
        Step::CloseRegistration => TournamentOp::CloseRegistration { tournament: ID.into() },
        Step::CloseRebuys => TournamentOp::CloseRebuys { tournament: ID.into() },
        Step::Eliminate(players, same) => {
            eliminate(&players.iter().map(|player| pick(journal, *player, true)).collect::<Vec<_>>(), *same)
        }
        Step::Disqualify(player) => {
            TournamentOp::Disqualify { tournament: ID.into(), player: pick(journal, *player, false), reason: "Falta".into() }
        }
        Step::Pay(player, own_document) => {
            let order = pick(journal, *player, false);
            let own = journal.state.tournaments()[ID].players.get(&order).map(|entrant| entrant.document_fingerprint.clone());
            let document_fingerprint = match own {
                Some(own) if *own_document => own,
                _ => fingerprint(99),
            };
            TournamentOp::PayPrize { tournament: ID.into(), player: order, document_fingerprint }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// After every command, applied or refused, each tournament's books tie to zero; a refused
    /// one changes nothing (`Journal::apply`); the journal replays to the same state.
    #[test]
    fn random_tournaments_tie_after_every_command(
        registration in proptest::collection::vec(step(), 0..60),
        rebuys in proptest::collection::vec(step(), 0..12),
        play in proptest::collection::vec(step(), 0..60),
    ) {
        // Mostly in the order of a tournament, every kind of step in every phase.
        let steps: Vec<Step> = registration
            .into_iter()
            .chain([Step::CloseRegistration])
            .chain(rebuys)
            .chain([Step::CloseRebuys])
            .chain(play)
            .collect();
        let mut journal = Journal::with_tournament();
        for step in &steps {
            let op = op_of(step, &journal);
            let key = match step {
                Step::Buy(..) | Step::Refund(_) | Step::Pay(..) => CASHIER,
                _ => DIRECTOR,
            };
            let _ = journal.op(key, op);
            journal.books_tie();
        }
        let t = &journal.state.tournaments()[ID];
        if t.phase == TournamentPhase::Finished {
            let books = t.books();
            prop_assert_eq!(books.assigned + books.redistributed, books.prizes);
            prop_assert_eq!(t.players.values().filter(|p| p.standing == Standing::Winner).count(), 1);
        }
        prop_assert_eq!(journal.replayed().snapshot(), journal.state.snapshot());
    }
}

/// The Sit & Go of config/torneos.toml, as published: ten players, the first three paid (art. 26).
#[test]
fn a_sit_and_go_of_ten_pays_the_first_three() {
    let file = include_str!("../../../config/torneos.toml");
    let start = file.find("# A single-table Sit & Go").expect("the Sit & Go in config/torneos.toml");
    let mut journal = Journal::new();
    journal.set_up(&file[start..]).expect("set up");
    let id = "sit-and-go-10";
    for player in 1..=10 {
        let mut op = purchase(Item::BuyIn, player, player);
        if let TournamentOp::Purchase { tournament, amount, .. } = &mut op {
            *tournament = id.into();
            *amount = pesos(500_000);
        }
        journal.op(CASHIER, op).expect("buy-in");
    }
    let mut op = purchase(Item::BuyIn, 11, 11);
    if let TournamentOp::Purchase { tournament, amount, .. } = &mut op {
        *tournament = id.into();
        *amount = pesos(500_000);
    }
    assert!(journal.op(CASHIER, op).expect_err("the eleventh").message.contains("art. 1"));
    journal.op(DIRECTOR, TournamentOp::CloseRegistration { tournament: id.into() }).expect("closed");
    journal.op(DIRECTOR, TournamentOp::CloseRebuys { tournament: id.into() }).expect("fixed");
    for player in (2..=10).rev() {
        let op = TournamentOp::Eliminate {
            tournament: id.into(),
            players: vec![player],
            table: "1".into(),
            hand: 1,
            simultaneous: false,
        };
        journal.op(DIRECTOR, op).expect("out");
    }
    let t = &journal.state.tournaments()[id];
    assert_eq!(t.phase, TournamentPhase::Finished);
    // 10 × 5.000 × 0,90 = 45.000: 50 %, 30 %, 20 %.
    let due: Vec<Money> = (1..=4).map(|player| t.players[&player].due()).collect();
    assert_eq!(due, [pesos(2_250_000), pesos(1_350_000), pesos(900_000), Money::ZERO]);
    journal.books_tie();
}
