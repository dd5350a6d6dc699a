//! Pools with levels, links across games, the house's prizes and the envy bonus (docs/readings.md,
//! "Levels", "The envy bonus"), on the market's example rulebook `config/mercado.toml`: each level
//! its own share, meter, reset, reserve and cap; each prize paid from its level, prorated among
//! that level's winners alone; and every level conserving on its own after every event.

use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::{Engine, Money, Pool, PoolRules, PrizeValue, Rulebooks, Winner, envy_winners};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const MERCADO: &str = include_str!("../../../config/mercado.toml");

fn mercado() -> Rulebooks {
    Rulebooks::parse_all([("config/mercado.toml", MERCADO)]).expect("the market's example rulebook is valid")
}

fn pool(id: &str) -> Pool {
    Pool::open(Arc::new(mercado().pool(id).expect("a pool of the market's rulebook").clone()))
}

fn winner(seat: u32, code: &str) -> Winner {
    Winner { seat, code: code.into(), bet: None, high: None, at: None }
}

fn with_bet(seat: u32, code: &str, bet: Money) -> Winner {
    Winner { seat, code: code.into(), bet: Some(bet), high: None, at: None }
}

/// The rulebook with one value replaced, for the refusals.
fn refused(from: &str, to: &str) -> String {
    assert!(MERCADO.contains(from), "the example has `{from}`");
    let text = MERCADO.replacen(from, to, 1);
    match Rulebooks::parse_all([("config/mercado.toml", text.as_str())]) {
        Ok(_) => panic!("`{from}` → `{to}` should be refused"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_market_rulebook_reads_as_levels_with_the_house_after_them() {
    let rulebooks = mercado();
    let blackjack = rulebooks.pool("mercado-blackjack").expect("the four-level link");
    let names: Vec<&str> = blackjack.levels.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(names, ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert!(blackjack.levels[4].house && !blackjack.levels[0].house);
    assert_eq!(blackjack.level_of("CUATRO_ASES"), 2);
    assert_eq!(blackjack.level_of("BJ_AS_REY_MISMO_PALO"), 4);
    // The first level is the pool's own: its reset is the minimum, its share the contribution rate.
    assert_eq!(blackjack.minimum, money!(2000000.00));
    assert_eq!(blackjack.contribution_rate, rust_decimal::Decimal::new(8, 2));
    let tcp = rulebooks.pool("mercado-tcp").expect("the Three Card Poker progressive");
    let envy = tcp.prize("MINI_ROYAL_PICAS").and_then(|prize| prize.envy.as_ref()).expect("the spades Mini Royal gives envy");
    assert_eq!(envy.code.as_str(), "ENVIDIA_MINI_ROYAL_PICAS");
    let line = tcp.prize("ENVIDIA_MINI_ROYAL_PICAS").expect("the envy bonus has its own paytable line");
    assert_eq!(line.value, PrizeValue::Fixed { amount: money!(50000.00) });
    assert_eq!(line.envy_of.as_deref(), Some("MINI_ROYAL_PICAS"));
    assert!(tcp.levels[line.level].house, "paid by the house");
    assert!(!tcp.game_marks(pozo_engine::Game::ThreeCardPoker, "ENVIDIA_MINI_ROYAL_PICAS"), "an envy bonus is never entered");
    assert!(tcp.game_marks(pozo_engine::Game::ThreeCardPoker, "PIERNA"));
    // The Venta-Pagos threshold: the prize's own, else its level's, else the file's.
    assert_eq!(tcp.venta_pagos_over_for("ESCALERA_COLOR"), money!(40000.00));
    assert_eq!(tcp.venta_pagos_over_for("PIERNA"), money!(100000.00));
}

#[test]
fn a_bet_feeds_each_level_its_share_and_the_house_its_commission() {
    let mut pool = pool("mercado-blackjack");
    let before = pool.levels();
    let contribution = pool.register_bet(money!(1000.00)).expect("the stipulated bet");
    assert_eq!(contribution.commission, money!(800.00));
    assert_eq!((contribution.main, contribution.reserve), (money!(80.00), money!(20.00)));
    let further: Vec<Money> = contribution.levels.iter().map(|level| level.main).collect();
    assert_eq!(further, [money!(50.00), money!(30.00), money!(20.00), Money::ZERO]);
    assert_eq!(contribution.commission + contribution.fed(), money!(1000.00), "every centavo of the bet goes somewhere");
    let after = pool.levels();
    for (index, share) in [money!(80.00), money!(50.00), money!(30.00), money!(20.00), Money::ZERO].into_iter().enumerate() {
        assert_eq!(after[index].balance - before[index].balance, share, "level {index}");
    }
    assert_eq!(pool.meters().bets, 1, "one bet, however many levels it feeds");
    assert_eq!(pool.meters().bets_amount, money!(1000.00));
    assert!(pool.conservation_difference().is_zero());
}

#[test]
fn a_capped_level_overflows_where_the_rulebook_says() {
    let mut pool = pool("mercado-blackjack");
    // The Mini (reset 10,000, cap 100,000, 20 a bet) reaches its cap after 4,500 bets; the
    // Minor (reset 50,000, cap 500,000, 30 a bet) after 15,000.
    for _ in 0..4_500 {
        pool.register_bet(money!(1000.00)).expect("a bet");
    }
    let mini = &pool.levels()[3];
    assert_eq!(mini.balance, money!(100000.00));
    assert_eq!(mini.reserve, Money::ZERO);
    let contribution = pool.register_bet(money!(1000.00)).expect("a bet over the Mini's cap");
    assert_eq!(contribution.levels[2], pozo_engine::LevelContribution { main: Money::ZERO, reserve: money!(20.00) });
    let mini = &pool.levels()[3];
    assert_eq!((mini.balance, mini.reserve), (money!(100000.00), money!(20.00)), "over the cap, to its own reserve");
    for _ in 0..10_499 {
        pool.register_bet(money!(1000.00)).expect("a bet");
    }
    let grand_before = pool.levels()[0].balance;
    let contribution = pool.register_bet(money!(1000.00)).expect("a bet over the Minor's cap");
    assert_eq!(contribution.levels[1].main, Money::ZERO, "the Minor is full");
    assert_eq!(contribution.main, money!(110.00), "its 30 went up to the Grand with the Grand's own 80");
    assert_eq!(pool.levels()[0].balance - grand_before, money!(110.00));
    assert_eq!(pool.levels()[2].balance, money!(500000.00));
    assert!(pool.conservation_difference().is_zero());
    // Reversed, the bet takes back exactly what it gave, from where it went.
    let levels_before = pool.levels();
    let reversal = pool.reverse_bet(contribution).expect("a reversal");
    assert!(reversal.replenishment.is_zero());
    assert_eq!(levels_before[0].balance - pool.levels()[0].balance, money!(110.00));
    assert_eq!(pool.levels()[2].balance, money!(500000.00));
}

#[test]
fn each_level_pays_its_winners_alone_and_prorates_them_alone() {
    let mut pool = pool("mercado-blackjack");
    for _ in 0..1_000 {
        pool.register_bet(money!(1000.00)).expect("a bet");
    }
    let levels = pool.levels();
    let (grand, major, mini) = (levels[0].displayed, levels[1].displayed, levels[3].displayed);
    // Two sevens-of-hearts hands share the Grand; a Mini and a house prize in the same round
    // are paid in full from their own level and from the house.
    let winners = [
        winner(1, "TRES_SIETES_CORAZONES"),
        winner(2, "TRES_SIETES_CORAZONES"),
        winner(3, "TRES_SIETES"),
        with_bet(4, "BJ_AS_REY_MISMO_PALO", money!(1000.00)),
    ];
    let settlement = pool.settle_round(&winners).expect("a valid round");
    let paid = |seat: u32| settlement.awards.iter().find(|award| award.seat == seat).expect("paid").award;
    let half = pozo_engine::money::floor_to_unit(grand / rust_decimal::Decimal::TWO, money!(0.01));
    assert_eq!((paid(1), paid(2)), (half, half), "the Grand prorated between its two winners only");
    assert_eq!(paid(3), mini, "the Mini whole, untouched by the Grand's factor");
    assert_eq!(paid(4), money!(5000.00), "5 × the bet, paid by the house");
    let after = pool.levels();
    assert_eq!(after[1].displayed, major, "the Major, which nobody hit, is unchanged");
    assert_eq!(after[0].balance, money!(2000000.00), "the Grand is back at its reset");
    assert_eq!(after[3].balance, money!(10000.00), "the Mini is back at its reset");
    assert_eq!(after[4].balance, Money::ZERO, "the house's level holds nothing");
    assert_eq!(after[4].meters.net_replenishments(), money!(5000.00), "what the house paid, on its meter");
    assert_eq!(settlement.book.more.len(), 2, "one book per other level paid");
    assert!(pool.conservation_difference().is_zero());
}

#[test]
fn a_rejection_undoes_the_award_in_its_own_level_only() {
    let mut pool = pool("mercado-blackjack");
    for _ in 0..200 {
        pool.register_bet(money!(1000.00)).expect("a bet");
    }
    let winners = [winner(1, "TRES_SIETES_MISMO_PALO"), winner(2, "CUATRO_ASES")];
    let before = pool.levels();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    let mut book = settlement.book.clone();
    let after_round = pool.levels();
    let rejection = pool.reject_award(&mut book, 2, "CUATRO_ASES", |_, _| true).expect("the Minor's award rejected");
    assert_eq!(rejection.returned, before[2].displayed);
    let after = pool.levels();
    assert_eq!(after[2].balance, before[2].balance, "the Minor back as it was before the round");
    assert_eq!(after[1].balance, after_round[1].balance, "the Major's award stands");
    assert!(book.award(2, "CUATRO_ASES").expect("booked").rejected);
    assert!(pool.reject_award(&mut book, 2, "CUATRO_ASES", |_, _| true).is_err(), "rejected once");
    assert!(pool.conservation_difference().is_zero());
}

#[test]
fn the_envy_bonus_goes_to_every_other_seat_in_force_paid_by_the_house() {
    let rulebooks = mercado();
    let rules = rulebooks.pool("mercado-tcp").expect("tcp");
    let mut pool = Pool::open(Arc::new(rules.clone()));
    let bet = money!(500.00);
    for _ in 0..5 {
        pool.register_bet(bet).expect("a bet");
    }
    let in_force: Vec<(u32, Money)> = (1..=5).map(|seat| (seat, bet)).collect();
    let hands = [winner(2, "MINI_ROYAL_PICAS"), winner(4, "PIERNA")];
    let envy = envy_winners(rules, &hands, &in_force);
    let seats: Vec<u32> = envy.iter().map(|winner| winner.seat).collect();
    assert_eq!(seats, [1, 3, 4, 5], "every other seat in force, the hitter's not; a seat that won too is envious too");
    assert!(envy.iter().all(|winner| winner.code == "ENVIDIA_MINI_ROYAL_PICAS"));
    // Only seats with a bet in force: seat 6 had none.
    assert!(envy_winners(rules, &hands, &in_force[..2]).iter().all(|winner| winner.seat == 1));
    let meter = pool.levels()[0].clone();
    let mut winners = hands.to_vec();
    winners.extend(envy);
    let settlement = pool.settle_round(&winners).expect("the round with its envy awards");
    assert_eq!(settlement.awards.len(), 6);
    let envy_paid: Money =
        settlement.awards.iter().filter(|award| award.code == "ENVIDIA_MINI_ROYAL_PICAS").map(|award| award.award).sum();
    assert_eq!(envy_paid, money!(200000.00), "4 × 50,000");
    let levels = pool.levels();
    let house = levels.iter().find(|level| level.house).expect("the house's level");
    assert_eq!(house.meters.net_awards(), money!(225000.00), "envy and the pierna, both the house's");
    assert_eq!(house.balance, Money::ZERO);
    assert_eq!(meter.displayed, settlement.awards.iter().find(|award| award.seat == 2).expect("the hit").award);
    assert_eq!(levels[0].balance, money!(2500000.00), "the meter back at its reset");
    assert_eq!(levels[0].reserve, Money::ZERO, "its reserve went into the reset first");
    assert!(pool.conservation_difference().is_zero());
}

#[test]
fn a_pool_with_levels_keeps_them_across_a_snapshot_and_a_pool_of_one_level_reads_as_before() {
    let rulebooks = mercado();
    let mut engine = Engine::new(&rulebooks);
    engine.register_bet("mercado-blackjack", money!(1000.00)).expect("a bet");
    let states = engine.states();
    let text = serde_json::to_string(&states).expect("serialises");
    let restored = Engine::restore(&rulebooks, &serde_json::from_str(&text).expect("reads back")).expect("restores");
    assert_eq!(restored.states(), states);
    assert_eq!(
        restored.pool("mercado-blackjack").expect("pool").levels(),
        engine.pool("mercado-blackjack").expect("pool").levels()
    );
    // The regulations' pools: no `levels` in their snapshot, as earlier releases wrote it.
    let embedded = Engine::new(&Rulebooks::embedded());
    let text = serde_json::to_string(&embedded.states()).expect("serialises");
    assert!(!text.contains("levels"), "{text}");
    // A snapshot of other levels is refused, not read into the wrong meters.
    let mut states = engine.states();
    states.get_mut("mercado-blackjack").expect("pool").levels.pop();
    assert!(Engine::restore(&rulebooks, &states).is_err());
}

#[test]
fn a_rulebook_of_levels_is_refused_where_it_breaks_a_rule() {
    let cases = [
        ("level = \"Minor\"", "level = \"Menor\"", "not a level of this pool"),
        ("share = \"0.05\"", "share = \"0.06\"", "not 1"),
        ("cap = \"500000.00\"", "cap = \"50000.00\"", "must be above the reset"),
        ("name = \"Major\"\nshare", "name = \"Grand\"\nshare", "named twice"),
        ("scope = \"table\", paid_by = \"house\" }", "scope = \"sala\", paid_by = \"house\" }", "is not `table` or `link`"),
        (
            "level = \"Grand\"\ngames = [\"ruleta-americana\"]",
            "level = \"Grand\"\ngames = [\"ruleta-americana\"]\nenvy = { code = \"ENVIDIA_ORO\", name = \"Envidia\", amount = \"100.00\", scope = \"link\", paid_by = \"Major\" }",
            "keeps a meter per bank",
        ),
        ("commission_rate = \"0.83\"", "commission_rate = \"0.83\"\nminimum = \"1.00\"", "says it per level"),
    ];
    for (from, to, says) in cases {
        let error = refused(from, to);
        assert!(error.contains(says), "{from} → {to}: {error}");
    }
    // A Major overflowing to the Minor and the Minor back to the Major go round in a circle.
    let circle = MERCADO.replacen("overflow_to = \"Grand\"", "overflow_to = \"Minor\"", 1).replacen(
        "cap = \"500000.00\"\noverflow_to = \"Grand\"",
        "cap = \"500000.00\"\noverflow_to = \"Major\"",
        1,
    );
    let error = Rulebooks::parse_all([("config/mercado.toml", circle.as_str())]).expect_err("a circle");
    assert!(error.to_string().contains("circle"), "{error}");
    // A prize without its level, in a pool with levels.
    let error = refused("level = \"Mini\"\n", "");
    assert!(error.contains("says which pays each prize"), "{error}");
}

/// A random night's step on one pool with levels, at a table of one of three flores.
#[derive(Clone, Debug)]
enum Step {
    Bet(usize),
    Reverse(prop::sample::Index),
    Round(usize, Vec<(u32, prop::sample::Index)>),
    Reject(prop::sample::Index, prop::sample::Index),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        6 => (0..3_usize).prop_map(Step::Bet),
        1 => any::<prop::sample::Index>().prop_map(Step::Reverse),
        2 => (0..3_usize, prop::collection::vec((1..=7_u32, any::<prop::sample::Index>()), 1..4)).prop_map(|(bank, picks)| Step::Round(bank, picks)),
        1 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(round, award)| Step::Reject(round, award)),
    ];
    prop::collection::vec(step, 1..120)
}

/// Every level of every pool of the market's rulebook conserves after every step of random
/// nights: bets, reversals, rounds with envy, rejections, at tables of three flores; a floor
/// level never pays under its floor; an award never moves a level (or a bank's meter) other
/// than the one its prize is booked to at the table's bank.
#[test]
fn every_level_conserves_after_every_event_of_random_nights() {
    let rulebooks = mercado();
    // And the Three Card Poker pool with its top hand's envy across the link, paid by the house
    // and by its level.
    let linked = tcp_envy_across_the_link();
    let linked_by_level = tcp_envy_across_the_link_paid_by("Mini Royal");
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(300);
    for rules in rulebooks.pools().chain(linked.pool("mercado-tcp")).chain(linked_by_level.pool("mercado-tcp")) {
        let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
        let result = runner.run(&steps(), |steps| night(rules, &steps));
        if let Err(failure) = result {
            panic!("pool `{}`: {failure}", rules.id);
        }
    }
}

/// Each level's meter by (level, bank), with its view.
fn meters(pool: &Pool) -> std::collections::BTreeMap<(usize, Option<String>), pozo_engine::LevelView> {
    pool.level_indexes().into_iter().zip(pool.levels()).map(|(index, view)| ((index, view.bank.clone()), view)).collect()
}

fn flor(index: usize) -> pozo_engine::Bank {
    pozo_engine::Bank { flor: format!("F{}", index + 1), salon: "principal".to_owned() }
}

fn night(rules: &PoolRules, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut pool = Pool::open(Arc::new(rules.clone()));
    let mut contributions = Vec::new();
    let mut books = Vec::new();
    let fail = |error: pozo_engine::EngineError| TestCaseError::fail(error.to_string());
    let codes: Vec<&str> = rules.prizes.iter().filter(|prize| prize.envy_of.is_none()).map(|prize| prize.code.as_str()).collect();
    for step in steps {
        let before = meters(&pool);
        match step {
            Step::Bet(bank) => contributions.push(pool.register_bet_at(rules.side_bet, Some(&flor(*bank))).map_err(fail)?),
            Step::Reverse(index) if !contributions.is_empty() => {
                let contribution = contributions.swap_remove(index.index(contributions.len()));
                pool.reverse_bet(contribution).map_err(fail)?;
            }
            Step::Round(bank, picks) => {
                let bank = flor(*bank);
                let mut winners: Vec<Winner> = Vec::new();
                for (seat, code) in picks {
                    // (The envy awards are added below, by `with_envy`.)
                    let code = codes[code.index(codes.len())];
                    if winners.iter().any(|winner| winner.seat == *seat)
                        || rules
                            .prize(code)
                            .is_some_and(|prize| prize.grants.is_some() && !matches!(prize.value, PrizeValue::Percent { .. }))
                    {
                        continue;
                    }
                    winners.push(with_bet(*seat, code, rules.side_bet));
                }
                if winners.is_empty() {
                    continue;
                }
                // Seats in force here and, for an envy bonus across the link, at another table.
                let in_force = pozo_engine::InForce {
                    here: (1..=7).map(|seat| (seat, rules.side_bet)).collect(),
                    elsewhere: [2, 5].into_iter().map(|seat| (pozo_engine::TableId::new("CP9"), seat, rules.side_bet)).collect(),
                };
                let winners = pozo_engine::with_envy(rules, winners, &pozo_engine::TableId::new("CP1"), &in_force);
                let settlement = pool.settle_round_at(&winners, Some(&bank)).map_err(fail)?;
                let after = meters(&pool);
                for ((index, at_bank), level) in &after {
                    let paid: Money = settlement
                        .awards
                        .iter()
                        .filter(|award| rules.level_of(&award.code) == *index)
                        .map(|award| award.award)
                        .sum();
                    let this_bank = at_bank.as_deref().is_none_or(|key| key == bank.flor);
                    if (paid.is_zero() || !this_bank) && !level.house {
                        let was = before.get(&(*index, at_bank.clone())).map(|view| view.balance);
                        prop_assert!(
                            was.is_none_or(|was| was == level.balance),
                            "level {} {:?} moved without an award of its own",
                            index,
                            at_bank
                        );
                    }
                    // A floor level pays a whole-level prize no less than its floor.
                    for award in settlement.awards.iter().filter(|award| rules.level_of(&award.code) == *index) {
                        let prize = rules.prize(&award.code).expect("a code of the paytable");
                        let shared = settlement
                            .awards
                            .iter()
                            .filter(|other| rules.level_of(&other.code) == *index && prize.value.is_full_pool())
                            .count();
                        if prize.value.is_full_pool()
                            && shared == 1
                            && rules.levels[*index].minimum_kind == pozo_engine::MinimumKind::Floor
                        {
                            prop_assert!(
                                award.award >= rules.levels[*index].reset,
                                "{} paid {} under the floor {}",
                                award.code,
                                award.award,
                                rules.levels[*index].reset
                            );
                        }
                    }
                }
                books.push(settlement.book);
            }
            Step::Reject(round, award) if !books.is_empty() => {
                let at = round.index(books.len());
                let book = &mut books[at];
                let open: Vec<(Option<pozo_engine::TableId>, u32, String)> = book
                    .all_awards()
                    .filter(|award| !award.rejected)
                    .map(|award| (award.at.clone(), award.seat, award.code.to_string()))
                    .collect();
                if !open.is_empty() {
                    let (at_table, seat, code) = &open[award.index(open.len())];
                    let level = rules.level_of(code);
                    let bank = book.bank.clone();
                    let untouched: Vec<((usize, Option<String>), Money)> = meters(&pool)
                        .into_iter()
                        .filter(|((index, at_bank), _)| {
                            *index != level
                                || (at_bank.is_some() && at_bank.as_deref() != bank.as_ref().map(|bank| bank.flor.as_str()))
                        })
                        .map(|(key, view)| (key, view.balance))
                        .collect();
                    pool.reject_award_at(book, at_table.as_ref(), *seat, code, |_, _, _| false).map_err(fail)?;
                    let after = meters(&pool);
                    for (key, balance) in untouched {
                        prop_assert_eq!(after[&key].balance, balance, "rejecting `{}` moved level {:?}", code, key);
                    }
                }
            }
            _ => {}
        }
        for (key, level) in meters(&pool) {
            let m = &level.meters;
            let held = level.balance + level.reserve + m.net_awards() + m.transfers_out + m.adjustments_down;
            let put_in = m.net_contributions() + m.net_replenishments() + m.transfers_in + m.adjustments_up;
            prop_assert_eq!(put_in, held, "level {:?} does not conserve", key);
            prop_assert!(level.balance >= Money::ZERO && level.reserve >= Money::ZERO);
        }
        prop_assert!(pool.conservation_difference().is_zero());
    }
    Ok(())
}

// Proves a banked level keeps a meter per flor: bets at F2 and F3 feed the shared Grand and
// their own flor's Major and Mini; a Major won at F2 is paid from F2's meter alone, F3's stands;
// a bet without its table's bank is refused and changes nothing; the meters survive a snapshot.
#[test]
fn a_banked_level_keeps_a_meter_per_flor_and_pays_each_from_its_own() {
    let rulebooks = mercado();
    let rules = rulebooks.pool("mercado-gran-sala").expect("the cross-game link");
    let mut pool = Pool::open(Arc::new(rules.clone()));
    let (f2, f3) = (flor(1), flor(2));
    let before = pool.meters();
    let refused = pool.register_bet(money!(1000.00)).expect_err("no bank");
    assert!(refused.to_string().contains("bank"), "{refused}");
    assert_eq!(pool.meters(), before, "a refusal changes nothing");
    for _ in 0..10 {
        pool.register_bet_at(money!(1000.00), Some(&f2)).expect("Black Jack at F2");
    }
    for _ in 0..4 {
        pool.register_bet_at(money!(500.00), Some(&f3)).expect("Three Card Poker at F3, its own bet");
    }
    let views = meters(&pool);
    let major = |bank: &str| views[&(1, Some(bank.to_owned()))].balance;
    assert_eq!(major("F2"), money!(100400.00), "10 × 4 % of 1.000,00 over the reset");
    assert_eq!(major("F3"), money!(100080.00), "4 × 4 % of 500,00 over the reset");
    assert_eq!(views[&(0, None)].balance, money!(5000000.00) + money!(720.00), "the Grand takes 6 % from both flores");
    let settlement = pool.settle_round_at(&[winner(3, "CUATRO_ASES")], Some(&f2)).expect("a Major at F2");
    assert_eq!(settlement.awards[0].award, money!(100400.00));
    let after = meters(&pool);
    assert_eq!(after[&(1, Some("F2".to_owned()))].balance, money!(100000.00), "F2's Major back at its reset");
    assert_eq!(after[&(1, Some("F3".to_owned()))].balance, money!(100080.00), "F3's Major stands");
    assert_eq!(settlement.book.bank.as_ref().map(|bank| bank.flor.as_str()), Some("F2"));
    let mut engine = Engine::new(&rulebooks);
    engine.register_bet_at("mercado-gran-sala", money!(1000.00), Some(&f2)).expect("a bet");
    let states = engine.states();
    let text = serde_json::to_string(&states).expect("serialises");
    assert!(text.contains("\"bank\":\"F2\""), "{text}");
    let restored = Engine::restore(&rulebooks, &serde_json::from_str(&text).expect("reads back")).expect("restores");
    assert_eq!(restored.states(), states);
}

/// The Three Card Poker pool with its top hand's envy across the link.
fn tcp_envy_across_the_link() -> Rulebooks {
    tcp_envy_across_the_link_paid_by("house")
}

/// [`tcp_envy_across_the_link`], the bonus paid by `paid_by` (the house, or a level).
fn tcp_envy_across_the_link_paid_by(paid_by: &str) -> Rulebooks {
    let from = "scope = \"table\", paid_by = \"house\" }";
    assert!(MERCADO.contains(from));
    let text = MERCADO.replacen(from, &format!("scope = \"link\", paid_by = \"{paid_by}\" }}"), 1);
    Rulebooks::parse_all([("config/mercado.toml", text.as_str())]).expect("the envy across the link")
}

#[test]
fn an_envy_bonus_across_the_link_pays_every_other_seat_in_force_at_every_table_naming_each() {
    let rulebooks = tcp_envy_across_the_link();
    let rules = rulebooks.pool("mercado-tcp").expect("tcp");
    let mut pool = Pool::open(Arc::new(rules.clone()));
    let bet = money!(500.00);
    for _ in 0..6 {
        pool.register_bet(bet).expect("a bet");
    }
    let home = pozo_engine::TableId::new("CP1");
    let other = pozo_engine::TableId::new("CP2");
    // Seats 1–3 in force here, seats 2 and 3 at CP2 (the same numbers, other seats).
    let in_force = pozo_engine::InForce {
        here: vec![(1, bet), (2, bet), (3, bet)],
        elsewhere: vec![(other.clone(), 2, bet), (other.clone(), 3, bet)],
    };
    let winners = pozo_engine::with_envy(rules, vec![winner(2, "MINI_ROYAL_PICAS")], &home, &in_force);
    let named: Vec<(String, u32, String)> = winners
        .iter()
        .map(|w| (w.at.as_ref().expect("the round names tables").to_string(), w.seat, w.code.to_string()))
        .collect();
    let envy = "ENVIDIA_MINI_ROYAL_PICAS".to_owned();
    assert_eq!(
        named,
        [
            ("CP1".to_owned(), 2, "MINI_ROYAL_PICAS".to_owned()),
            ("CP1".to_owned(), 1, envy.clone()),
            ("CP1".to_owned(), 3, envy.clone()),
            ("CP2".to_owned(), 2, envy.clone()),
            ("CP2".to_owned(), 3, envy.clone()),
        ],
        "every other seat in force, here and across the link; CP2's seat 2 is not the hitter"
    );
    // The table's scope never leaves the table, and a round with nobody elsewhere names no table.
    let table_rules = mercado();
    let table_rules = table_rules.pool("mercado-tcp").expect("tcp");
    let at_table = pozo_engine::with_envy(table_rules, vec![winner(2, "MINI_ROYAL_PICAS")], &home, &in_force);
    assert_eq!(at_table.len(), 3);
    assert!(at_table.iter().all(|w| w.at.is_none()));
    let alone = pozo_engine::InForce { here: in_force.here.clone(), elsewhere: Vec::new() };
    assert!(pozo_engine::with_envy(rules, vec![winner(2, "MINI_ROYAL_PICAS")], &home, &alone).iter().all(|w| w.at.is_none()));

    let settlement = pool.settle_round(&winners).expect("one round, awards at two tables");
    let at_cp2: Vec<&pozo_engine::Award> = settlement.awards.iter().filter(|a| a.at.as_ref() == Some(&other)).collect();
    assert_eq!(at_cp2.len(), 2);
    assert!(at_cp2.iter().all(|a| a.award == money!(50000.00)));
    // Rejecting CP2's seat 2 undoes that award only, not CP1's seat 2 (the hitter).
    let mut book = settlement.book.clone();
    let rejection =
        pool.reject_award_at(&mut book, Some(&other), 2, "ENVIDIA_MINI_ROYAL_PICAS", |_, _, _| true).expect("CP2's seat 2");
    assert_eq!(rejection.returned, money!(50000.00));
    assert!(book.award_at(Some(&other), 2, "ENVIDIA_MINI_ROYAL_PICAS").expect("booked").rejected);
    assert!(!book.award_at(Some(&other), 3, "ENVIDIA_MINI_ROYAL_PICAS").expect("booked").rejected);
    assert!(!book.award_at(Some(&home), 2, "MINI_ROYAL_PICAS").expect("booked").rejected);
    let error = pool.reject_award(&mut book, 2, "ENVIDIA_MINI_ROYAL_PICAS", |_, _| true).expect_err("no table named");
    assert!(error.to_string().contains("seat 2 has no"), "{error}");
    assert!(pool.conservation_difference().is_zero());
}
