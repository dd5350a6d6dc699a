//! A poker tournament's prize arithmetic (Res. 123/2013): the example structures load, a
//! structure that breaks an article is refused naming the field and the article, and the pool,
//! the payouts and the splits come out to the centavo on worked examples.

use pozo_engine::money;
use pozo_engine::tournament::{Collected, Item, Kind, PrizePool, Structure, StructureError, payouts, redistribute, split};
use pozo_engine::{EngineError, Money};
use rust_decimal_macros::dec;

const TORNEOS: &str = include_str!("../../../config/torneos.toml");

/// A structure file of one tournament, `{extra}` lines added to it, `{premios}` its prize table.
fn one(kind: &str, max_entrants: u32, offers: &str, premios: &str) -> String {
    format!(
        "[[torneo]]\nid = \"t\"\nname = \"Prueba\"\nkind = \"{kind}\"\ncurrency = \"ARS\"\npayout_unit = \"0.01\"\n\
         {offers}\nmax_entrants = {max_entrants}\n{premios}"
    )
}

fn rows(rows: &[(u32, u32, &[&str])]) -> String {
    rows.iter()
        .map(|(min, max, places)| {
            let places: Vec<String> = places.iter().map(|place| format!("\"{place}\"")).collect();
            format!("[[torneo.premios]]\nentrants = [{min}, {max}]\nplaces = [{}]\n", places.join(", "))
        })
        .collect()
}

const BUY_IN: &str = "buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"0.80\" }";

/// A valid multi-table structure up to 20 entrants, with `offers` in place of the buy-in alone.
fn multimesa(offers: &str) -> String {
    one("multimesa", 20, offers, &rows(&[(2, 9, &["70", "30"]), (10, 20, &["50", "30", "20"])]))
}

fn refusal(text: &str) -> (Option<String>, String, String) {
    match Structure::parse(text) {
        Err(StructureError::Field { torneo, field, problem }) => (torneo, field, problem),
        other => panic!("expected a field refused, got {other:?}"),
    }
}

fn structure(text: &str) -> Structure {
    let mut structures = Structure::parse(text).unwrap_or_else(|error| panic!("valid structure refused: {error}"));
    assert_eq!(structures.len(), 1);
    structures.remove(0)
}

fn examples() -> (Structure, Structure) {
    let structures = Structure::parse(TORNEOS).unwrap_or_else(|error| panic!("config/torneos.toml: {error}"));
    let [multimesa, sit_and_go]: [Structure; 2] = structures.try_into().expect("two example structures");
    (multimesa, sit_and_go)
}

fn bought(structure: &Structure, buy_ins: u32, rebuys: u32, add_ons: u32) -> Collected {
    let mut collected = Collected::new(structure);
    for (item, count) in [(Item::BuyIn, buy_ins), (Item::Rebuy, rebuys), (Item::AddOn, add_ons)] {
        for _ in 0..count {
            collected.purchase(item).unwrap_or_else(|error| panic!("{item}: {error}"));
        }
    }
    collected
}

// ---------------------------------------------------------------------------
// The structures as data (Anexo I art. 1)
// ---------------------------------------------------------------------------

#[test]
fn anexo_i_art_1_the_example_structures_load_with_every_item_of_the_article() {
    let (multimesa, sit_and_go) = examples();
    assert_eq!((multimesa.id(), multimesa.kind(), multimesa.currency()), ("multimesa-semanal", Kind::Multimesa, "ARS"));
    assert_eq!(multimesa.payout_unit(), money!(0.01));
    let shares: Vec<_> = Item::ALL.iter().map(|item| multimesa.offer(*item).map(|offer| offer.to_prizes)).collect();
    assert_eq!(shares, [Some(dec!(0.80)), Some(dec!(0.90)), Some(dec!(0.95))], "a share to prizes per item (art. 1 item 9)");
    let rebuy = multimesa.offer(Item::Rebuy).expect("rebuys");
    assert_eq!((rebuy.price, rebuy.chips, rebuy.per_player), (money!(10000.00), 10000, 2));
    assert_eq!(multimesa.max_entrants(), 200);
    assert_eq!(multimesa.row(37).expect("row").places.len(), 5);
    assert_eq!(
        (multimesa.premios().first().map(|row| row.min), multimesa.premios().last().map(|row| row.max)),
        (Some(2), Some(200))
    );

    assert_eq!((sit_and_go.id(), sit_and_go.kind(), sit_and_go.max_entrants()), ("sit-and-go-10", Kind::SitAndGo, 10));
    assert!(sit_and_go.offer(Item::Rebuy).is_none() && sit_and_go.offer(Item::AddOn).is_none());
    assert_eq!(sit_and_go.buy_in().per_player, 1);
}

#[test]
fn art_62_anexo_iv_6_a_share_to_prizes_under_70_percent_is_refused_for_each_item() {
    for (item, offers) in [
        ("buy_in", "buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"0.69\" }".to_owned()),
        ("rebuy", format!("{BUY_IN}\nrebuy = {{ price = \"50.00\", chips = 500, to_prizes = \"0.6999\", per_player = 1 }}")),
        ("add_on", format!("{BUY_IN}\nadd_on = {{ price = \"50.00\", chips = 500, to_prizes = \"0\", per_player = 1 }}")),
    ] {
        let (torneo, field, problem) = refusal(&multimesa(&offers));
        assert_eq!(torneo.as_deref(), Some("t"));
        assert_eq!(field, format!("{item}.to_prizes"));
        assert!(problem.contains("Res. 123/2013 art. 62, Anexo IV 6"), "{problem}");
    }
    // Exactly 70 % and the whole of it are allowed; more than the whole is not.
    structure(&multimesa("buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"0.70\" }"));
    structure(&multimesa("buy_in = { price = \"100.00\", chips = 1000, to_prizes = 1 }"));
    let (_, field, _) = refusal(&multimesa("buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"1.01\" }"));
    assert_eq!(field, "buy_in.to_prizes");
}

#[test]
fn anexo_i_art_1_prices_are_positive_whole_payout_units_and_rebuys_say_how_many() {
    let cases = [
        ("buy_in = { price = \"0\", chips = 1000, to_prizes = \"0.80\" }".to_owned(), "buy_in.price"),
        ("buy_in = { price = \"100.005\", chips = 1000, to_prizes = \"0.80\" }".to_owned(), "buy_in.price"),
        ("buy_in = { price = \"100.00\", chips = 0, to_prizes = \"0.80\" }".to_owned(), "buy_in.chips"),
        (format!("{BUY_IN}\nrebuy = {{ price = \"50.00\", chips = 500, to_prizes = \"0.80\" }}"), "rebuy.per_player"),
        (
            format!("{BUY_IN}\nadd_on = {{ price = \"50.00\", chips = 500, to_prizes = \"0.80\", per_player = 0 }}"),
            "add_on.per_player",
        ),
        ("buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"0.80\", per_player = 2 }".to_owned(), "buy_in.per_player"),
    ];
    for (offers, expected) in cases {
        let (_, field, problem) = refusal(&multimesa(&offers));
        assert_eq!(field, expected, "{problem}");
    }
    // A payout unit of one peso: a price in centavos is refused.
    let text = multimesa(BUY_IN).replace("payout_unit = \"0.01\"", "payout_unit = \"1\"");
    structure(&text);
    let (_, field, problem) = refusal(&text.replace("\"100.00\"", "\"100.50\""));
    assert_eq!(field, "buy_in.price");
    assert!(problem.contains("payout units of 1"), "{problem}");
}

#[test]
fn art_65_the_prize_table_covers_every_number_of_entrants_once() {
    let at = |premios: &[(u32, u32, &[&str])]| refusal(&one("multimesa", 20, BUY_IN, &rows(premios)));
    let two: &[&str] = &["60", "40"];
    let (_, field, problem) = at(&[(3, 20, two)]);
    assert_eq!(field, "premios[0].entrants");
    assert!(problem.contains("not 2") && problem.contains("art. 65"), "{problem}");
    let (_, field, problem) = at(&[(2, 9, two), (11, 20, two)]);
    assert_eq!(field, "premios[1].entrants");
    assert!(problem.contains("10–10 entrants without a row"), "a gap: {problem}");
    let (_, field, problem) = at(&[(2, 10, two), (10, 20, two)]);
    assert_eq!(field, "premios[1].entrants");
    assert!(problem.contains("overlaps premios[0]"), "an overlap: {problem}");
    let (_, field, problem) = at(&[(2, 9, two), (10, 15, two)]);
    assert_eq!(field, "premios[1].entrants");
    assert!(problem.contains("16–20 entrants have no row"), "short of max_entrants: {problem}");
    let (_, field, _) = at(&[(2, 9, two), (10, 25, two)]);
    assert_eq!(field, "premios[1].entrants", "past max_entrants");
    let (_, field, _) = at(&[(2, 9, two), (15, 10, two)]);
    assert_eq!(field, "premios[1].entrants", "min > max");
}

#[test]
fn art_65_each_row_pays_the_whole_pool_in_places_that_never_increase() {
    let at = |places: &[&str]| refusal(&one("multimesa", 20, BUY_IN, &rows(&[(2, 4, places), (5, 20, &["100"])])));
    let (_, field, problem) = at(&["60", "30"]);
    assert_eq!(field, "premios[0].places");
    assert!(problem.contains("add up to 90, not 100"), "{problem}");
    let (_, field, problem) = at(&["30", "70"]);
    assert_eq!(field, "premios[0].places[1]");
    assert!(problem.contains("more than the place before it"), "{problem}");
    let (_, field, problem) = at(&["40", "30", "20", "10", "0"]);
    assert_eq!(field, "premios[0].places", "5 places for as few as 2 entrants: {problem}");
    let (_, field, _) = at(&["70", "30", "0"]);
    assert_eq!(field, "premios[0].places", "3 places for as few as 2 entrants");
    let (_, field, _) = at(&[]);
    assert_eq!(field, "premios[0].places");
    // Two places for two entrants, three decimals: allowed.
    structure(&one("multimesa", 20, BUY_IN, &rows(&[(2, 4, &["66.667", "33.333"]), (5, 20, &["100"])])));
    let (_, field, problem) = at(&["100", "0"]);
    assert_eq!(field, "premios[0].places[1]");
    assert!(problem.contains("not a percent of the pool in (0, 100]"), "{problem}");
}

#[test]
fn art_26_a_sit_and_go_pays_two_places_up_to_nine_players_and_three_with_ten() {
    let sng = |max: u32, premios: &[(u32, u32, &[&str])]| one("sit_and_go", max, BUY_IN, &rows(premios));
    structure(&sng(10, &[(2, 9, &["65", "35"]), (10, 10, &["50", "30", "20"])]));
    structure(&sng(6, &[(2, 6, &["70", "30"])]));
    let (_, field, problem) = refusal(&sng(11, &[(2, 9, &["65", "35"]), (10, 11, &["50", "30", "20"])]));
    assert_eq!(field, "max_entrants");
    assert!(problem.contains("art. 26"), "{problem}");
    let (_, field, problem) = refusal(&sng(9, &[(2, 2, &["65", "35"]), (3, 9, &["50", "30", "20"])]));
    assert_eq!(field, "premios[1].places");
    assert!(problem.contains("pays the first 2 (Res. 123/2013 art. 26)"), "{problem}");
    let (_, field, problem) = refusal(&sng(10, &[(2, 9, &["65", "35"]), (10, 10, &["65", "35"])]));
    assert_eq!(field, "premios[1].places");
    assert!(problem.contains("10 players pays the first 3"), "{problem}");
    let (_, field, problem) = refusal(&sng(10, &[(2, 7, &["65", "35"]), (8, 10, &["50", "30", "20"])]));
    assert_eq!(field, "premios[1].entrants");
    assert!(problem.contains("spans 9 and 10"), "{problem}");
    // A multi-table tournament is not held to art. 26.
    structure(&one("multimesa", 9, BUY_IN, &rows(&[(2, 9, &["100"])])));
}

#[test]
fn a_structures_file_is_refused_naming_the_tournament_and_the_field() {
    let (_, field, problem) = refusal(&multimesa(BUY_IN).replace("to_prizes = \"0.80\"", "to_prize = \"0.80\""));
    assert_eq!(field, "buy_in.to_prize");
    assert!(problem.contains("did you mean `to_prizes`?") && problem.contains("line 7"), "{problem}");
    let (torneo, field, problem) = refusal(&multimesa(BUY_IN).replace("\"0.80\"", "0.80"));
    assert_eq!((torneo.as_deref(), field.as_str()), (Some("t"), "buy_in.to_prizes"));
    assert!(problem.contains("never floats"), "{problem}");
    let (_, field, _) = refusal(&multimesa(BUY_IN).replace("kind = \"multimesa\"", "kind = \"torneo\""));
    assert_eq!(field, "kind");
    let (_, field, _) = refusal(&multimesa(BUY_IN).replace("max_entrants = 20\n", ""));
    assert_eq!(field, "max_entrants");
    let (_, field, _) = refusal(&multimesa(BUY_IN).replace("\"ARS\"", "\"pesos\""));
    assert_eq!(field, "currency");
    let twice = format!("{}\n{}", multimesa(BUY_IN), multimesa(BUY_IN));
    let (torneo, field, problem) = refusal(&twice);
    assert_eq!((torneo.as_deref(), field.as_str()), (Some("t"), "id"));
    assert!(problem.contains("already defined"), "{problem}");
    assert!(matches!(Structure::parse("[[torneo]"), Err(StructureError::Syntax { .. })));
    assert_eq!(refusal("").1, "torneo");
    let message = refusal(&multimesa("buy_in = { price = \"100.00\", chips = 1000, to_prizes = \"0.5\" }"));
    let shown = StructureError::Field { torneo: message.0, field: message.1, problem: message.2 }.to_string();
    assert!(shown.starts_with("torneo `t`: field `buy_in.to_prizes`: 0.5 is outside 0.70–1"), "{shown}");
}

// ---------------------------------------------------------------------------
// The pool (art. 62–64)
// ---------------------------------------------------------------------------

#[test]
fn art_62_63_each_item_gives_its_own_share_to_prizes_and_the_rest_is_the_houses() {
    let (multimesa, _) = examples();
    // 37 buy-ins at $ 20.000 (80 %), 15 rebuys and 20 add-ons at $ 10.000 (90 %, 95 %).
    let pool = PrizePool::of(&multimesa, &bought(&multimesa, 37, 15, 20));
    let parts: Vec<_> = pool.items.iter().map(|part| (part.item, part.count, part.collected, part.prizes, part.house)).collect();
    assert_eq!(
        parts,
        [
            (Item::BuyIn, 37, money!(740000.00), money!(592000.00), money!(148000.00)),
            (Item::Rebuy, 15, money!(150000.00), money!(135000.00), money!(15000.00)),
            (Item::AddOn, 20, money!(200000.00), money!(190000.00), money!(10000.00)),
        ]
    );
    assert_eq!(
        (pool.collected, pool.prizes, pool.rounding, pool.house),
        (money!(1090000.00), money!(917000.00), Money::ZERO, money!(173000.00))
    );
}

#[test]
fn the_prizes_are_rounded_up_to_the_unit_so_never_under_the_articles_share() {
    let text = one(
        "multimesa",
        20,
        "buy_in = { price = \"10.01\", chips = 100, to_prizes = \"0.7125\" }\n\
         rebuy = { price = \"0.03\", chips = 100, to_prizes = \"0.7\", per_player = 3 }",
        &rows(&[(2, 20, &["100"])]),
    );
    let structure = structure(&text);
    let pool = PrizePool::of(&structure, &bought(&structure, 3, 1, 0));
    // 30.03 × 0.7125 = 21.396375 and 0.03 × 0.7 = 0.021: 21.417375, paid 21.42 (art. 62: not
    // under the share; rounded down, 21.41 would be).
    assert_eq!(pool.item(Item::BuyIn).expect("IN").prizes, money!(21.396375));
    assert_eq!(pool.item(Item::Rebuy).expect("RB").prizes, money!(0.021));
    assert_eq!((pool.prizes, pool.rounding), (money!(21.42), money!(0.002625)));
    assert_eq!(pool.house, money!(8.64));
    assert_eq!(pool.prizes + pool.house, money!(30.06));
    assert!(pool.item(Item::AddOn).is_none(), "an item the event does not offer has no part");
}

#[test]
fn purchases_are_counted_at_their_price_and_refused_past_the_articles() {
    let (multimesa, sit_and_go) = examples();
    let mut collected = Collected::new(&sit_and_go);
    assert_eq!(collected.purchase(Item::Rebuy).map_err(|error| error.field().to_owned()), Err("rebuy".to_owned()));
    for _ in 0..10 {
        assert_eq!(collected.purchase(Item::BuyIn), Ok(money!(5000.00)));
    }
    let full = collected.purchase(Item::BuyIn).expect_err("an eleventh player");
    assert!(matches!(&full, EngineError::NotNow { field, problem } if field == "buy_in" && problem.contains("full")), "{full}");
    assert_eq!(collected.refund(Item::BuyIn), Ok(money!(5000.00)));
    assert_eq!((collected.tally(Item::BuyIn).count, collected.total()), (9, money!(45000.00)));

    let mut collected = bought(&multimesa, 1, 2, 0);
    let third = collected.purchase(Item::Rebuy).expect_err("one entrant, two rebuys each");
    assert_eq!(third.field(), "rebuy");
    let refund = collected.refund(Item::BuyIn).expect_err("the rebuys are refunded first");
    assert!(refund.to_string().contains("2 RB were bought"), "{refund}");
    assert_eq!(collected.refund(Item::AddOn).expect_err("nothing to refund").field(), "add_on");
    assert!(multimesa.may_buy(Item::Rebuy, 1).is_ok());
    assert_eq!(multimesa.may_buy(Item::Rebuy, 2).expect_err("two already").field(), "rebuy");
    assert_eq!(sit_and_go.may_buy(Item::AddOn, 0).expect_err("no add-on").field(), "add_on");
}

#[test]
#[should_panic(expected = "counted under `sit-and-go-10`")]
fn a_pool_of_another_structures_purchases_is_a_bug() {
    let (multimesa, sit_and_go) = examples();
    PrizePool::of(&multimesa, &bought(&sit_and_go, 3, 0, 0));
}

// ---------------------------------------------------------------------------
// The payouts (art. 65, 26)
// ---------------------------------------------------------------------------

#[test]
fn art_65_each_position_gets_its_percent_of_the_pool_for_the_entrants() {
    let (multimesa, _) = examples();
    let prizes = PrizePool::of(&multimesa, &bought(&multimesa, 37, 15, 20)).prizes;
    assert_eq!(
        payouts(&multimesa, 37, prizes),
        Ok(vec![money!(366800.00), money!(229250.00), money!(137550.00), money!(110040.00), money!(73360.00)])
    );
    assert_eq!(payouts(&multimesa, 41, prizes).expect("row [41, 100]").len(), 8);
    for entrants in [0, 1, 201] {
        let error = payouts(&multimesa, entrants, prizes).expect_err("outside the table");
        assert_eq!(error.field(), "entrants");
        assert!(error.to_string().contains("2 to 200 (Res. 123/2013 art. 65)"), "{error}");
    }
    assert_eq!(payouts(&multimesa, 37, money!(10.005)).expect_err("a fraction of a unit").field(), "prizes");
    assert_eq!(payouts(&multimesa, 37, money!(-10)).expect_err("negative").field(), "prizes");
}

#[test]
fn the_odd_centavos_of_the_payouts_go_to_first_place() {
    let (multimesa, _) = examples();
    // 65 % and 35 % of 1.000,01 are 650,0065 and 350,0035: 650,00 and 350,00, the odd centavo to 1st.
    assert_eq!(payouts(&multimesa, 9, money!(1000.01)), Ok(vec![money!(650.01), money!(350.00)]));
    // 50/30/20 % of 0,09: 0,04, 0,02, 0,01 (0,045, 0,027, 0,018 rounded down), 0,02 left to 1st.
    assert_eq!(payouts(&multimesa, 10, money!(0.09)), Ok(vec![money!(0.06), money!(0.02), money!(0.01)]));
}

#[test]
fn art_26_the_sit_and_go_pays_two_places_to_nine_and_three_to_ten() {
    let (_, sit_and_go) = examples();
    let nine = PrizePool::of(&sit_and_go, &bought(&sit_and_go, 9, 0, 0));
    assert_eq!(nine.prizes, money!(40500.00));
    assert_eq!(payouts(&sit_and_go, 9, nine.prizes), Ok(vec![money!(26325.00), money!(14175.00)]));
    let ten = PrizePool::of(&sit_and_go, &bought(&sit_and_go, 10, 0, 0));
    assert_eq!(payouts(&sit_and_go, 10, ten.prizes), Ok(vec![money!(22500.00), money!(13500.00), money!(9000.00)]));
}

// ---------------------------------------------------------------------------
// Splits (art. 71, 72) and a disqualified player's prize (Anexo II)
// ---------------------------------------------------------------------------

#[test]
fn art_71_72_tied_players_share_the_positions_in_play_equally() {
    let cent = money!(0.01);
    assert_eq!(split(&[money!(300.00), money!(200.00)], 2, cent), Ok(vec![money!(250.00), money!(250.00)]));
    // 150,01 in two: 75,00 each and the odd centavo to the first in order-number order.
    assert_eq!(split(&[money!(100.01), money!(50.00)], 2, cent), Ok(vec![money!(75.01), money!(75.00)]));
    // 100,00 in three: 33,33 each and one centavo left, to the first.
    assert_eq!(
        split(&[money!(50.00), money!(30.00), money!(20.00)], 3, cent),
        Ok(vec![money!(33.34), money!(33.33), money!(33.33)])
    );
    // 100,02 in three: 33,34 each, nothing left; 100,05 in four: 25,01 each and one left.
    assert_eq!(split(&[money!(100.02), Money::ZERO, Money::ZERO], 3, cent), Ok(vec![money!(33.34); 3]));
    assert_eq!(
        split(&[money!(50.03), money!(50.02), Money::ZERO, Money::ZERO], 4, cent),
        Ok(vec![money!(25.02), money!(25.01), money!(25.01), money!(25.01)])
    );
    // 100,07 in four: 25,01 each and three centavos left, one each to the first three.
    assert_eq!(
        split(&[money!(100.07), Money::ZERO, Money::ZERO, Money::ZERO], 4, cent),
        Ok(vec![money!(25.02), money!(25.02), money!(25.02), money!(25.01)])
    );
    // A position in play that pays nothing counts as zero.
    assert_eq!(split(&[money!(11), Money::ZERO], 2, money!(1)), Ok(vec![money!(6), money!(5)]));
    assert_eq!(split(&[money!(1)], 0, cent).expect_err("nobody").field(), "players");
    assert_eq!(split(&[], 2, cent).expect_err("nothing in play").field(), "in_play");
    assert_eq!(split(&[money!(1), money!(0.005)], 2, cent).expect_err("a fraction").field(), "in_play[1]");
    assert_eq!(split(&[money!(1)], 2, Money::ZERO).expect_err("no unit").field(), "unit");
}

#[test]
fn anexo_ii_a_disqualified_players_prize_goes_to_the_players_still_active() {
    let cent = money!(0.01);
    assert_eq!(redistribute(money!(100.00), 3, cent), Ok(vec![money!(33.34), money!(33.33), money!(33.33)]));
    assert_eq!(redistribute(money!(0.02), 5, cent), Ok(vec![cent, cent, Money::ZERO, Money::ZERO, Money::ZERO]));
    assert_eq!(redistribute(money!(10), 0, cent).expect_err("nobody active").field(), "active");
    assert_eq!(redistribute(money!(10.001), 2, cent).expect_err("a fraction").field(), "prize");
    assert_eq!(redistribute(money!(10), 100_001, cent).expect_err("more than any tournament").field(), "active");
    let huge = pozo_engine::tournament::AMOUNT_MAX + cent;
    assert_eq!(redistribute(huge, 2, cent).expect_err("more than any pool").field(), "prize");
}
