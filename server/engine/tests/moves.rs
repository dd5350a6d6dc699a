//! Money a documented procedure moves in live pools (`moves.rs`): transfers between
//! pools, a pool's retirement, adjustments of a main balance, and new rules on live
//! pools. Every amount is worked by hand in the comments; every refusal is checked to
//! change nothing, against `Engine::states` before and after.

use std::collections::BTreeMap;

use pozo_engine::rulebook::EMBEDDED;
use pozo_engine::{Engine, EngineError, Money, PoolId, PoolState, Retirement, Rulebooks, Transfer, Winner, money};

const IPLYC: &str = include_str!("../../../config/iplyc.toml");
const AJ: &str = include_str!("../../../config/aj-bolivia.toml");

fn engine() -> Engine {
    Engine::new(&Rulebooks::embedded())
}

fn balances(engine: &Engine, pool: &str) -> (Money, Money) {
    let pool = engine.pool(pool).expect("an embedded pool");
    (pool.balance(), pool.reserve())
}

fn assert_conserved(engine: &Engine) {
    for (pool, difference) in engine.conservation() {
        assert_eq!(difference, Money::ZERO, "pool `{pool}`");
    }
    let totals = engine.totals();
    assert_eq!(totals.transfers_in, totals.transfers_out, "{totals:?}");
}

/// Runs `refused` on the engine, which must refuse it naming `field` and saying
/// `problem`, and change nothing.
fn assert_refused(engine: &mut Engine, field: &str, problem: &str, refused: impl FnOnce(&mut Engine) -> Result<(), EngineError>) {
    let (states, totals) = (engine.states(), engine.totals());
    let error = refused(engine).expect_err("refused");
    assert_eq!(error.field(), field, "{error}");
    assert!(error.to_string().contains(problem), "`{error}` does not say `{problem}`");
    assert_eq!(engine.states(), states, "a refusal changed the pools: {error}");
    assert_eq!(engine.totals(), totals);
}

/// aj-poker after three bets of 10.00 and one of 2.55 (2.5.6.3: 10% commission, 70% main,
/// 20% reserve): main 20,000 + 3 × 7.00 + 1.785 = 20,022.785; reserve 3 × 2.00 + 0.51 = 6.51.
fn aj_with_reserve(engine: &mut Engine) {
    for bet in [money!(10.00), money!(10.00), money!(10.00), money!(2.55)] {
        engine.register_bet("aj-poker", bet).expect("a valid bet");
    }
    assert_eq!(balances(engine, "aj-poker"), (money!(20022.785), money!(6.51)));
}

// ---------------------------------------------------------------- transfers

#[test]
fn a_transfer_moves_whole_centavos_from_one_main_pool_to_another() {
    // 20,000.00 − 1,234.56 = 18,765.44 in the roulette pool; 10,000.00 + 1,234.56 =
    // 11,234.56 in the Central Póker pool (15.2.1 opens it at 10,000).
    let mut engine = engine();
    let transfer = engine.transfer("iplyc-ruleta", "iplyc-central-poker", money!(1234.56)).expect("a valid transfer");
    assert_eq!(
        transfer,
        Transfer {
            from: PoolId::new("iplyc-ruleta"),
            to: PoolId::new("iplyc-central-poker"),
            amount: money!(1234.56),
            from_balance_after: money!(18765.44),
            to_balance_after: money!(11234.56),
        }
    );
    assert_eq!(balances(&engine, "iplyc-ruleta"), (money!(18765.44), Money::ZERO));
    assert_eq!(balances(&engine, "iplyc-central-poker"), (money!(11234.56), Money::ZERO));
    let (from, to) = (engine.pool("iplyc-ruleta").unwrap().meters(), engine.pool("iplyc-central-poker").unwrap().meters());
    assert_eq!((from.transfers_out, from.transfers_in), (money!(1234.56), Money::ZERO));
    assert_eq!((to.transfers_in, to.transfers_out), (money!(1234.56), Money::ZERO));
    // The roulette minimum is a floor (3.2.2): the sign still shows 20,000.00, which the
    // house completes to pay the first prize; Central Póker's sign shows its balance.
    assert_eq!(engine.displayed("iplyc-ruleta").unwrap(), money!(20000.00));
    assert_eq!(engine.displayed("iplyc-central-poker").unwrap(), money!(11234.56));
    let totals = engine.totals();
    assert_eq!((totals.transfers_in, totals.transfers_out), (money!(1234.56), money!(1234.56)));
    assert_conserved(&engine);
}

#[test]
fn a_transfer_of_every_whole_centavo_leaves_the_fraction_behind() {
    // A bet of 2.55 adds 70% = 1.785 to aj-poker: 20,001.785. Only whole centavos move:
    // 20,001.79 is more than the pool holds, 20,001.78 leaves 0.005 behind.
    let mut engine = engine();
    engine.register_bet("aj-poker", money!(2.55)).expect("a valid bet");
    assert_refused(&mut engine, "amount", "more than the main balance of pool `aj-poker`", |engine| {
        engine.transfer("aj-poker", "and-bolsa", money!(20001.79)).map(drop)
    });
    assert_refused(&mut engine, "amount", "finer than one centavo", |engine| {
        engine.transfer("aj-poker", "and-bolsa", money!(20001.785)).map(drop)
    });
    let transfer = engine.transfer("aj-poker", "and-bolsa", money!(20001.78)).expect("every whole centavo");
    assert_eq!((transfer.from_balance_after, transfer.to_balance_after), (money!(0.005), money!(23001.78)));
    // The reserve (0.51) is not the main pool: a transfer never touches it.
    assert_eq!(balances(&engine, "aj-poker"), (money!(0.005), money!(0.51)));
    assert_conserved(&engine);
}

#[test]
fn a_refused_transfer_changes_nothing() {
    let mut engine = engine();
    let transfer = |from: &'static str, to: &'static str, amount: Money| {
        move |engine: &mut Engine| engine.transfer(from, to, amount).map(drop)
    };
    assert_refused(&mut engine, "amount", "greater than zero", transfer("iplyc-ruleta", "and-bolsa", Money::ZERO));
    assert_refused(&mut engine, "amount", "greater than zero", transfer("iplyc-ruleta", "and-bolsa", money!(-1.00)));
    assert_refused(&mut engine, "amount", "finer than one centavo", transfer("iplyc-ruleta", "and-bolsa", money!(0.005)));
    assert_refused(&mut engine, "amount", "more than the main balance", transfer("iplyc-ruleta", "and-bolsa", money!(20000.01)));
    assert_refused(&mut engine, "to", "money moves from one pool to another", transfer("and-bolsa", "and-bolsa", money!(1.00)));
    assert_refused(&mut engine, "pool", "unknown pool `nada`", transfer("nada", "and-bolsa", money!(1.00)));
    assert_refused(&mut engine, "pool", "unknown pool `nada`", transfer("and-bolsa", "nada", money!(1.00)));
    assert!(matches!(
        engine.transfer("and-bolsa", "nada", money!(1.00)),
        Err(EngineError::UnknownPool { pool, .. }) if pool == "nada"
    ));
    // All of it is fine: 20,000.00 exactly.
    engine.transfer("iplyc-ruleta", "and-bolsa", money!(20000.00)).expect("the whole balance");
    assert_eq!(balances(&engine, "iplyc-ruleta"), (Money::ZERO, Money::ZERO));
    assert_conserved(&engine);
}

// ---------------------------------------------------------------- retirement

#[test]
fn a_retirement_moves_the_balance_and_the_reserve_to_the_cent() {
    // aj-poker holds 20,022.785 and 6.51 in reserve: 20,029.295 in all, which goes to the
    // carrusel's main pool: 5,000.00 + 20,029.295 = 25,029.295.
    let mut engine = engine();
    aj_with_reserve(&mut engine);
    let retirement = engine.retire("aj-poker", "and-carrusel").expect("a valid retirement");
    assert_eq!(
        retirement,
        Retirement {
            pool: PoolId::new("aj-poker"),
            to: PoolId::new("and-carrusel"),
            balance: money!(20022.785),
            reserve: money!(6.51),
            to_balance_after: money!(25029.295),
        }
    );
    assert_eq!(retirement.total(), money!(20029.295));
    let retired = engine.pool("aj-poker").unwrap();
    assert!(retired.is_retired());
    assert_eq!((retired.balance(), retired.reserve(), retired.displayed()), (Money::ZERO, Money::ZERO, Money::ZERO));
    assert_eq!(retired.meters().transfers_out, money!(20029.295));
    assert_eq!(retired.meters().transfers_out_of_reserve, money!(6.51));
    // Its other meters stay as they were: four bets, 32.55 bet, 3.255 commission.
    assert_eq!(
        (retired.meters().bets, retired.meters().bets_amount, retired.meters().commission),
        (4, money!(32.55), money!(3.255))
    );
    assert_eq!(balances(&engine, "and-carrusel"), (money!(25029.295), Money::ZERO));
    assert_eq!(engine.pool("and-carrusel").unwrap().meters().transfers_in, money!(20029.295));
    assert_eq!(engine.displayed("and-carrusel").unwrap(), money!(25029.295));
    assert!(engine.states()["aj-poker"].retired);
    assert_conserved(&engine);
}

#[test]
fn a_retired_pool_refuses_every_money_operation() {
    let mut engine = engine();
    let contribution = engine.register_bet("aj-poker", money!(10.00)).expect("a valid bet");
    let poker = Winner { seat: 1, code: "POKER".into(), bet: Some(money!(10.00)), high: None, at: None };
    let mut book = engine.settle_round("aj-poker", std::slice::from_ref(&poker)).expect("a valid round").book;
    engine.retire("aj-poker", "and-carrusel").expect("a valid retirement");
    let meters = engine.pool("aj-poker").unwrap().meters().clone();

    let retired = "pool `aj-poker` is retired";
    assert_refused(&mut engine, "pool", retired, |engine| engine.register_bet("aj-poker", money!(10.00)).map(drop));
    assert_refused(&mut engine, "pool", retired, |engine| engine.reverse_bet("aj-poker", contribution).map(drop));
    assert_refused(&mut engine, "pool", retired, |engine| {
        engine.settle_round("aj-poker", std::slice::from_ref(&poker)).map(drop)
    });
    assert_refused(&mut engine, "pool", retired, |engine| engine.reclaim_award("aj-poker", money!(10.00)));
    assert_refused(&mut engine, "pool", retired, |engine| engine.adjust("aj-poker", money!(10.00)));
    assert_refused(&mut engine, "pool", retired, |engine| engine.reject_award(&mut book, 1, "POKER", |_, _| false).map(drop));
    assert_refused(&mut engine, "from", retired, |engine| engine.transfer("aj-poker", "and-bolsa", money!(1.00)).map(drop));
    assert_refused(&mut engine, "to", retired, |engine| engine.transfer("and-bolsa", "aj-poker", money!(1.00)).map(drop));
    assert_refused(&mut engine, "pool", retired, |engine| engine.retire("aj-poker", "and-bolsa").map(drop));
    assert_refused(&mut engine, "to", retired, |engine| engine.retire("and-bolsa", "aj-poker").map(drop));
    let pool = engine.pool("aj-poker").unwrap();
    assert!(pool.preview_round(std::slice::from_ref(&poker)).is_err(), "a retired pool previews no round");
    assert_eq!(pool.meters(), meters, "the meters stay, frozen, readable");
    assert_eq!(engine.displayed("aj-poker").unwrap(), Money::ZERO, "off the signs");
    assert_conserved(&engine);
}

#[test]
fn a_pool_is_retired_into_another_live_pool_only() {
    let mut engine = engine();
    assert_refused(&mut engine, "to", "money moves from one pool to another", |engine| {
        engine.retire("and-bolsa", "and-bolsa").map(drop)
    });
    assert_refused(&mut engine, "pool", "unknown pool `nada`", |engine| engine.retire("and-bolsa", "nada").map(drop));
    // The bolsa's 3,000.00 to the carrusel (5,000.00 + 3,000.00), then the carrusel's
    // 8,000.00 to Central Póker (10,000.00 + 8,000.00): nothing was lost on the way.
    engine.retire("and-bolsa", "and-carrusel").expect("a valid retirement");
    let retirement = engine.retire("and-carrusel", "iplyc-central-poker").expect("a valid retirement");
    assert_eq!((retirement.balance, retirement.to_balance_after), (money!(8000.00), money!(18000.00)));
    assert_eq!(engine.pool("and-carrusel").unwrap().meters().transfers_in, money!(3000.00));
    assert_eq!(engine.pool("and-carrusel").unwrap().meters().transfers_out, money!(8000.00));
    assert_refused(&mut engine, "to", "pool `and-carrusel` is retired", |engine| {
        engine.retire("iplyc-ruleta", "and-carrusel").map(drop)
    });
    let totals = engine.totals();
    assert_eq!((totals.transfers_in, totals.transfers_out), (money!(11000.00), money!(11000.00)));
    assert_conserved(&engine);
}

// ---------------------------------------------------------------- adjustments

#[test]
fn an_adjustment_corrects_the_main_balance_up_and_down() {
    // Central Póker opens at 10,000.00: + 250.00 = 10,250.00; − 1,250.50 = 8,999.50;
    // − 8,999.50 = 0 (a balance may be corrected to nothing, never under it).
    let mut engine = engine();
    engine.adjust("iplyc-central-poker", money!(250.00)).expect("up");
    engine.adjust("iplyc-central-poker", money!(-1250.50)).expect("down");
    assert_eq!(balances(&engine, "iplyc-central-poker"), (money!(8999.50), Money::ZERO));
    let meters = engine.pool("iplyc-central-poker").unwrap().meters().clone();
    assert_eq!((meters.adjustments_up, meters.adjustments_down, meters.adjustments), (money!(250.00), money!(1250.50), 2));
    assert_eq!(meters.net_adjustments(), money!(-1000.50));
    assert_refused(&mut engine, "amount", "never goes negative", |engine| engine.adjust("iplyc-central-poker", money!(-8999.51)));
    assert_refused(&mut engine, "amount", "corrects nothing", |engine| engine.adjust("iplyc-central-poker", Money::ZERO));
    assert_refused(&mut engine, "amount", "finer than one centavo", |engine| engine.adjust("iplyc-central-poker", money!(0.001)));
    assert_refused(&mut engine, "amount", "finer than one centavo", |engine| {
        engine.adjust("iplyc-central-poker", money!(-0.001))
    });
    assert_refused(&mut engine, "amount", "over the largest balance", |engine| {
        engine.adjust("iplyc-central-poker", pozo_engine::money::BALANCE_MAX)
    });
    assert_refused(&mut engine, "pool", "unknown pool `nada`", |engine| engine.adjust("nada", money!(1.00)));
    engine.adjust("iplyc-central-poker", money!(-8999.50)).expect("down to nothing");
    assert_eq!(balances(&engine, "iplyc-central-poker"), (Money::ZERO, Money::ZERO));
    // The floor (15.2.3) still shows 10,000.00: the house completes it for the first prize.
    assert_eq!(engine.displayed("iplyc-central-poker").unwrap(), money!(10000.00));
    let totals = engine.totals();
    assert_eq!((totals.adjustments_up, totals.adjustments_down), (money!(250.00), money!(10250.00)));
    assert_conserved(&engine);
}

// ---------------------------------------------------------------- new rules on live pools

#[test]
fn new_rules_keep_every_balance_and_meter() {
    // Black Jack moves from 65% to 60% of each bet (11.2.3 as an operator might amend it)
    // and its minimum from 5,000.00 to 6,000.00.
    let amended = IPLYC
        .replacen("contribution_rate = \"0.65\"       # 11.2.3", "contribution_rate = \"0.60\"       # 11.2.3", 1)
        .replacen("commission_rate = \"0.35\"         # 11.2.3", "commission_rate = \"0.40\"         # 11.2.3", 1)
        .replacen("minimum = \"5000.00\"              # 11.2.1", "minimum = \"6000.00\"              # 11.2.1", 1);
    assert_ne!(amended, IPLYC);
    let files: Vec<(&str, &str)> = EMBEDDED
        .iter()
        .map(|(file, text)| (*file, if file.ends_with("iplyc.toml") { amended.as_str() } else { *text }))
        .collect();
    let rulebooks = Rulebooks::parse_all(files).expect("valid amended rules");

    let mut engine = engine();
    engine.register_bet("iplyc-blackjack", money!(10.00)).expect("a valid bet");
    engine.retire("and-bolsa", "and-carrusel").expect("a valid retirement");
    let states = engine.states();
    let mut amended_engine = engine.with_rulebooks(&rulebooks).expect("the same pools");
    assert_eq!(amended_engine.states(), states, "nothing moves with the rules");
    assert_eq!(engine.states(), states, "the engine it came from is untouched");
    assert!(amended_engine.pool("and-bolsa").unwrap().is_retired(), "a retired pool stays retired");
    // 5,006.50 held, under the new floor of 6,000.00: the sign shows 6,000.00.
    assert_eq!(amended_engine.displayed("iplyc-blackjack").unwrap(), money!(6000.00));
    // A bet of 10.00 now adds 6.00: 5,012.50; under the old rules still 6.50: 5,013.00.
    assert_eq!(amended_engine.register_bet("iplyc-blackjack", money!(10.00)).unwrap().main, money!(6.00));
    assert_eq!(engine.register_bet("iplyc-blackjack", money!(10.00)).unwrap().main, money!(6.50));
    assert_eq!(balances(&amended_engine, "iplyc-blackjack").0, money!(5012.50));
    assert_eq!(balances(&engine, "iplyc-blackjack").0, money!(5013.00));
    assert_conserved(&amended_engine);
}

#[test]
fn new_rules_open_new_pools_and_refuse_to_drop_one() {
    let iplyc_only = Rulebooks::parse_all([("config/iplyc.toml", IPLYC)]).expect("valid");
    let mut engine = Engine::new(&iplyc_only);
    engine.transfer("iplyc-ruleta", "iplyc-blackjack", money!(100.00)).expect("a valid transfer");
    let widened = engine.with_rulebooks(&Rulebooks::embedded()).expect("more pools");
    // aj-poker is new: opened at its base value, contributed by the house (2.5.6.3).
    let aj = widened.pool("aj-poker").unwrap();
    assert_eq!((aj.balance(), aj.meters().replenishments), (money!(20000), money!(20000)));
    for (id, state) in engine.states() {
        assert_eq!(widened.states()[&id], state, "pool `{id}` kept");
    }
    // Back to IPLyC alone: aj-poker and the Andalucía pools would be dropped; every one is named.
    let iplyc_aj = Rulebooks::parse_all([("config/iplyc.toml", IPLYC), ("config/aj-bolivia.toml", AJ)]).unwrap();
    let error = Engine::new(&iplyc_aj).with_rulebooks(&iplyc_only).expect_err("a pool is never dropped");
    assert_eq!(
        error,
        EngineError::invalid("rulebooks", "pool `aj-poker` is missing from the new rulebooks: a pool is retired, never dropped")
    );
    let error = widened.with_rulebooks(&iplyc_only).expect_err("a pool is never dropped");
    assert_eq!(error.field(), "rulebooks");
    assert!(error.to_string().contains("pools `aj-poker`, `and-bolsa`, `and-carrusel` are missing"), "{error}");
    let error = widened.with_rulebooks(&Rulebooks::parse_all([("config/aj-bolivia.toml", AJ)]).unwrap()).expect_err("dropped");
    let dropped = "pools `and-bolsa`, `and-carrusel`, `iplyc-blackjack`, `iplyc-central-poker`, `iplyc-ruleta` are missing";
    assert!(error.to_string().contains(dropped), "{error}");
}

#[test]
fn a_round_whose_prize_left_the_paytable_is_not_rejected_under_the_new_rules() {
    // The round was settled with BJ_AS_REY_MISMO_PALO (11.5.6, 50.00); the amended rules
    // drop that prize. Replaying the round under them is impossible: refused, not a panic.
    let prize = "\n[[pool.prize]]\ncode = \"BJ_AS_REY_MISMO_PALO\"\nname = \"Black Jack de As y Rey del mismo palo\"\narticle = \"11.5.6\"\npays = \"fixed\"\namount = \"50.00\"\n";
    assert!(IPLYC.contains(prize));
    let amended = IPLYC.replacen(prize, "", 1).replacen(", \"BJ_AS_REY_MISMO_PALO\"]]", "]]", 1);
    let files: Vec<(&str, &str)> = EMBEDDED
        .iter()
        .map(|(file, text)| (*file, if file.ends_with("iplyc.toml") { amended.as_str() } else { *text }))
        .collect();
    let rulebooks = Rulebooks::parse_all(files).expect("valid amended rules");

    let mut engine = engine();
    let winner = Winner { seat: 2, code: "BJ_AS_REY_MISMO_PALO".into(), bet: Some(money!(10.00)), high: None, at: None };
    let mut book = engine.settle_round("iplyc-blackjack", &[winner]).expect("a valid round").book;
    let mut engine = engine.with_rulebooks(&rulebooks).expect("the same pools");
    assert_refused(&mut engine, "award", "`BJ_AS_REY_MISMO_PALO` is no longer in the paytable", |engine| {
        engine.reject_award(&mut book, 2, "BJ_AS_REY_MISMO_PALO", |_, _| true).map(drop)
    });
}

// ---------------------------------------------------------------- snapshots

#[test]
fn a_snapshot_of_the_previous_release_still_decodes() {
    // A PoolState as the release before transfers, retirements and adjustments wrote it:
    // no `transfers_*`, `adjustments*` nor `retired`. Iplyc-blackjack after one bet of 10.00.
    let json = r#"{
        "balance": "5006.50",
        "reserve": "0",
        "meters": {
            "bets": 1, "bets_amount": "10.00", "commission": "3.50",
            "contributions": "6.50", "reserve_contributions": "0",
            "reversals": 0, "reversed_amount": "0", "reversed_commission": "0",
            "reversed_contributions": "0", "reversed_reserve_contributions": "0",
            "replenishments": "5000.00", "reserve_transfers": "0",
            "awards": "0", "hits": 0, "awards_returned": "0", "rejections": 0,
            "replenishments_withdrawn": "0", "reserve_transfers_returned": "0",
            "awards_reclaimed": "0", "reclaims": 0, "resets": 0
        }
    }"#;
    let state: PoolState = serde_json::from_str(json).expect("an old snapshot decodes");
    assert!(!state.retired);
    let m = &state.meters;
    assert_eq!((m.transfers_in, m.transfers_out, m.transfers_out_of_reserve), (Money::ZERO, Money::ZERO, Money::ZERO));
    assert_eq!((m.adjustments_up, m.adjustments_down, m.adjustments), (Money::ZERO, Money::ZERO, 0));

    let mut engine = engine();
    engine.register_bet("iplyc-blackjack", money!(10.00)).expect("a valid bet");
    let mut states = engine.states();
    assert_eq!(states["iplyc-blackjack"], state, "the old snapshot is the same pool");
    states.insert(PoolId::new("iplyc-blackjack"), state);
    let restored = Engine::restore(&Rulebooks::embedded(), &states).expect("restored");
    assert_eq!(restored.states(), engine.states());
}

#[test]
fn a_snapshot_keeps_transfers_and_retirements() {
    let mut engine = engine();
    aj_with_reserve(&mut engine);
    engine.transfer("iplyc-ruleta", "and-bolsa", money!(1234.56)).expect("a valid transfer");
    engine.adjust("and-bolsa", money!(-34.56)).expect("a valid adjustment");
    engine.retire("aj-poker", "and-carrusel").expect("a valid retirement");
    let text = serde_json::to_string(&engine.states()).expect("encodes");
    let states: BTreeMap<PoolId, PoolState> = serde_json::from_str(&text).expect("decodes");
    let restored = Engine::restore(&Rulebooks::embedded(), &states).expect("restored");
    assert_eq!(restored.states(), engine.states());
    assert!(restored.pool("aj-poker").unwrap().is_retired());
    assert_eq!(restored.totals(), engine.totals());
}

#[test]
fn a_damaged_snapshot_of_moves_is_refused() {
    let mut engine = engine();
    engine.retire("and-bolsa", "and-carrusel").expect("a valid retirement");
    let states = engine.states();
    let refused = |states: &BTreeMap<PoolId, PoolState>, problem: &str| {
        let error = Engine::restore(&Rulebooks::embedded(), states).expect_err("damaged");
        assert!(error.to_string().contains(problem), "`{error}` does not say `{problem}`");
    };
    // A retired pool still holding money (booked as adjusted up, so it balances).
    let mut holding = states.clone();
    let bolsa = holding.get_mut("and-bolsa").unwrap();
    bolsa.balance = money!(1.00);
    bolsa.meters.adjustments_up = money!(1.00);
    refused(&holding, "pool `and-bolsa` is retired but holds 1.00");
    // Transfers that do not tie: 3,000.00 out of the bolsa, 2,999.00 into the carrusel.
    let mut untied = states.clone();
    let carrusel = untied.get_mut("and-carrusel").unwrap();
    carrusel.balance -= money!(1.00);
    carrusel.meters.transfers_in -= money!(1.00);
    refused(&untied, "transfers do not tie: 2999.00 in, 3000.00 out");
    // The retired bolsa dropped from the rulebooks.
    let iplyc_aj = Rulebooks::parse_all([("config/iplyc.toml", IPLYC), ("config/aj-bolivia.toml", AJ)]).unwrap();
    let error = Engine::restore(&iplyc_aj, &states).expect_err("dropped");
    assert!(error.to_string().contains("pool `and-bolsa` of the snapshot is not in the rulebooks"), "{error}");
}
