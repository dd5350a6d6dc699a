//! The rulebooks as data: the embedded ones carry exactly the pools and paytables
//! of the articles, and a broken rulebook is refused at load with an error naming
//! the file, the pool and the field.

use pozo_engine::money;
use pozo_engine::{Game, Grillo, Money, PrizeValue, RulebookError, Rulebooks};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

const IPLYC: &str = include_str!("../../../config/iplyc.toml");
const AJ: &str = include_str!("../../../config/aj-bolivia.toml");
const ANDALUCIA: &str = include_str!("../../../config/andalucia.toml");

/// What a paytable line pays, in the words of the issue: "100%", "$500", "50×".
fn pays(value: &PrizeValue) -> String {
    match value {
        PrizeValue::Grant => "grant".to_owned(),
        PrizeValue::Fixed { amount } => format!("${}", amount.normalize()),
        PrizeValue::BetMultiple { multiple } => format!("{}×", multiple.normalize()),
        PrizeValue::Percent { percent, cap_bet_multiple, floor_bet_multiple } => {
            let mut text = format!("{}%", percent.normalize());
            if let Some(cap) = cap_bet_multiple {
                text.push_str(&format!(" cap {}×", cap.normalize()));
            }
            if let Some(floor) = floor_bet_multiple {
                text.push_str(&format!(" floor {}×", floor.normalize()));
            }
            text
        }
    }
}

fn paytable(pool: &str) -> Vec<(String, String)> {
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool(pool).unwrap_or_else(|| panic!("pool {pool} is embedded"));
    rules.prizes.iter().map(|prize| (prize.code.to_string(), pays(&prize.value))).collect()
}

fn table(lines: &[(&str, &str)]) -> Vec<(String, String)> {
    lines.iter().map(|(code, pays)| ((*code).to_owned(), (*pays).to_owned())).collect()
}

#[test]
fn embedded_rulebooks_hold_exactly_the_pools_of_the_regulations() {
    let rulebooks = Rulebooks::embedded();
    let ids: Vec<&str> = rulebooks.pools().map(|rules| rules.id.as_str()).collect();
    assert_eq!(ids, ["aj-poker", "and-bolsa", "and-carrusel", "iplyc-blackjack", "iplyc-central-poker", "iplyc-ruleta"]);
    let file = |id: &str| rulebooks.pool(id).expect("embedded").file.clone();
    assert_eq!(file("iplyc-ruleta"), "config/iplyc.toml");
    assert_eq!(file("aj-poker"), "config/aj-bolivia.toml");
    assert_eq!(file("and-bolsa"), "config/andalucia.toml");
}

#[test]
fn art_3_4_1_roulette_paytable() {
    // 3.4.1: bronze → 2 silver, silver → fixed amount + gold, gold → 100%.
    let silver_amount =
        match &Rulebooks::embedded().pool("iplyc-ruleta").expect("embedded").prize("GRILLO_PLATA").expect("silver").value {
            PrizeValue::Fixed { amount } => format!("${}", amount.normalize()),
            other => panic!("silver pays a fixed amount, found {other:?}"),
        };
    assert_eq!(
        paytable("iplyc-ruleta"),
        table(&[("GRILLO_ORO", "100%"), ("GRILLO_PLATA", &silver_amount), ("GRILLO_BRONCE", "grant")])
    );
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool("iplyc-ruleta").expect("embedded");
    let grant = |code: &str| rules.prize(code).and_then(|prize| prize.grants.clone()).map(|grant| (grant.code, grant.count));
    assert_eq!(grant("GRILLO_BRONCE"), Some(("GRILLO_PLATA".into(), 2)));
    assert_eq!(grant("GRILLO_PLATA"), Some(("GRILLO_ORO".into(), 1)));
    assert_eq!(rules.contribution_rate, dec!(0.65), "3.2.1");
}

#[test]
fn art_11_5_blackjack_paytable() {
    // 11.5 with 11.2.2 (the 20% second prize, docs/readings.md); 11.2.1 the $5,000 minimum.
    assert_eq!(
        paytable("iplyc-blackjack"),
        table(&[
            ("TRES_SIETES_CORAZONES", "100%"),
            ("TRES_SIETES_MISMO_PALO", "20%"),
            ("CUATRO_ASES", "$500"),
            ("TRES_SIETES", "$200"),
            ("DOBLE_10_11_MISMO_PALO", "$100"),
            ("BJ_AS_REY_MISMO_PALO", "$50"),
        ])
    );
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool("iplyc-blackjack").expect("embedded");
    assert_eq!((rules.minimum, rules.contribution_rate), (money!(5000), dec!(0.65)));
}

#[test]
fn art_15_7_central_poker_paytable() {
    // 15.7.1; 15.2.1 the $10,000 minimum; 15.11 the $30 instant prize.
    assert_eq!(
        paytable("iplyc-central-poker"),
        table(&[
            ("ESCALERA_REAL_MAYOR", "100%"),
            ("ESCALERA_COLOR", "10%"),
            ("POKER", "$500"),
            ("FULL", "$100"),
            ("COLOR", "$50"),
            ("PREMIO_INSTANTANEO", "$30"),
        ])
    );
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool("iplyc-central-poker").expect("embedded");
    assert_eq!((rules.minimum, rules.contribution_rate), (money!(10000), dec!(0.65)));
}

#[test]
fn aj_2_5_6_2_poker_paytable() {
    assert_eq!(
        paytable("aj-poker"),
        table(&[
            ("ESCALERA_REAL", "100%"),
            ("ESCALERA_COLOR", "10% cap 5000×"),
            ("POKER", "500×"),
            ("FULL", "100×"),
            ("COLOR", "50×"),
        ])
    );
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool("aj-poker").expect("embedded");
    assert_eq!(rules.games, [Game::CaribbeanPoker, Game::GoPoker, Game::DrawPoker], "2.5.3: several modalities linked");
    assert!(rules.commission_rate > Decimal::ZERO && rules.has_reserve(), "2.5.6.3: commission and reserve");
    assert_eq!(rules.payout_unit, money!(1), "2.5.6.2: the indivisible peso");
}

#[test]
fn and_poquer_6_3_carrusel_paytable() {
    assert_eq!(
        paytable("and-carrusel"),
        table(&[
            ("ESCALERA_REAL_COLOR", "100%"),
            ("ESCALERA_COLOR", "10%"),
            ("POKER", "300×"),
            ("FULL", "100×"),
            ("COLOR", "50×"),
            ("ESCALERA", "30×"),
        ])
    );
}

#[test]
fn and_veintiuno_e_bolsa_paytable() {
    // Highest first: the order decides "la combinación o jugada mayor".
    assert_eq!(
        paytable("and-bolsa"),
        table(&[
            ("TRES_SIETES_MISMO_PALO", "100% floor 3000×"),
            ("TRES_SIETES", "200×"),
            ("DOS_SIETES_MISMO_PALO", "100×"),
            ("DOS_SIETES", "10×"),
            ("SIETE", "2×"),
        ])
    );
}

#[test]
fn operator_amounts_are_marked_as_examples() {
    // Amounts the articles leave to the Instituto or the operator are marked EXAMPLE
    // in the file, so nobody goes live with them unknowingly.
    for (needle, text) in [
        ("minimum = \"20000.00\"             # EXAMPLE", IPLYC),
        ("side_bet = \"30.00\"               # EXAMPLE", IPLYC),
        ("amount = \"300.00\"                # EXAMPLE", IPLYC),
        ("commission_rate = \"0.10\"         # EXAMPLE", AJ),
        ("reserve_rate = \"0.20\"            # EXAMPLE", AJ),
        ("contribution_rate = \"0.70\"       # EXAMPLE", ANDALUCIA),
    ] {
        assert!(text.contains(needle), "`{needle}` marked EXAMPLE");
    }
}

/// Loads the IPLyC rulebook with `from` replaced by `to`, expecting a refusal.
fn broken(from: &str, to: &str) -> RulebookError {
    assert!(IPLYC.contains(from), "the rulebook contains `{from}`");
    let text = IPLYC.replacen(from, to, 1);
    Rulebooks::parse_all([("config/iplyc.toml", text.as_str())]).expect_err("a broken rulebook is refused")
}

fn assert_names(error: &RulebookError, pool: Option<&str>, field: &str, problem: &str) {
    let RulebookError::Field { file, pool: error_pool, field: error_field, problem: error_problem } = error else {
        panic!("expected a field error, found {error}");
    };
    assert_eq!(file, "config/iplyc.toml");
    assert_eq!(error_pool.as_deref(), pool);
    assert_eq!(error_field, field);
    assert!(error_problem.contains(problem), "`{error_problem}` mentions `{problem}`");
    let text = error.to_string();
    assert!(text.starts_with("config/iplyc.toml: "), "{text}");
    if let Some(pool) = pool {
        assert!(text.contains(&format!("pool `{pool}`")), "{text}");
    }
}

#[test]
fn refuses_a_rate_outside_0_to_1() {
    let error = broken("contribution_rate = \"0.65\"       # 3.2.1", "contribution_rate = \"1.65\"       # 3.2.1");
    assert_names(&error, Some("iplyc-ruleta"), "contribution_rate", "outside 0–1");
    let error = broken("contribution_rate = \"0.65\"       # 11.2.3", "contribution_rate = \"-0.1\"");
    assert_names(&error, Some("iplyc-blackjack"), "contribution_rate", "outside 0–1");
}

#[test]
fn art_3_2_1_refuses_rates_that_do_not_share_the_whole_side_bet() {
    // 3.2.1: 65% of each bet to the pool; the rest is the casino's. Rates summing over
    // or under the whole bet would create or lose money with every bet.
    let error = broken("contribution_rate = \"0.65\"       # 15.2.4", "contribution_rate = \"0.65\"\nreserve_rate = \"0.40\"");
    assert_names(&error, Some("iplyc-central-poker"), "commission_rate", "not 1");
    let error = broken("commission_rate = \"0.35\"         # 15.2.4", "commission_rate = \"0.30\"         # 15.2.4");
    assert_names(&error, Some("iplyc-central-poker"), "commission_rate", "= 0.95, not 1");
}

#[test]
fn aj_2_5_6_2_refuses_a_bet_multiple_that_rounds_to_nothing_at_the_smallest_bet() {
    // 2.5.6.2 pays a flush 50 × the bet, in whole pesos: at a bet of 0.01 that is 0.50,
    // rounded down to 0. The rulebook must not allow a bet whose prize is nothing.
    let text = AJ.replacen("bet_min = \"1.00\"", "bet_min = \"0.01\"", 1);
    let error = Rulebooks::parse_all([("config/aj-bolivia.toml", text.as_str())]).expect_err("refused");
    let message = error.to_string();
    assert!(message.starts_with("config/aj-bolivia.toml: pool `aj-poker`: field `prize[4].multiple`"), "{message}");
    assert!(message.contains("`COLOR` pays 50 × the bet (2.5.6.2)") && message.contains("rounds down to 0"), "{message}");
}

#[test]
fn art_3_5_2_the_venta_pagos_threshold_is_each_rulebooks_own() {
    // 3.5.2, 11.6.1.2, 15.8.2: the threshold belongs to the jurisdiction's rulebook.
    let rulebooks = Rulebooks::embedded();
    for rules in rulebooks.pools() {
        assert!(rules.venta_pagos_over > Money::ZERO, "{}", rules.id);
    }
    let text = IPLYC.replacen("venta_pagos_over = \"1000.00\"", "venta_pagos_over = \"2500.00\"", 1);
    let rulebooks = Rulebooks::parse_all([("config/iplyc.toml", text.as_str()), ("config/aj-bolivia.toml", AJ)]).expect("valid");
    assert_eq!(rulebooks.pool("iplyc-blackjack").expect("loaded").venta_pagos_over, money!(2500.00));
    assert_eq!(rulebooks.pool("aj-poker").expect("loaded").venta_pagos_over, money!(1000.00));
    let error = Rulebooks::parse_all([("config/iplyc.toml", IPLYC.replacen("venta_pagos_over = \"1000.00\"", "", 1).as_str())])
        .expect_err("missing");
    assert!(error.to_string().contains("field `venta_pagos_over`: missing field"), "{error}");
}

#[test]
fn art_11_3_exclusive_codes_must_be_codes_of_the_pool_once() {
    let error = broken("\"BJ_AS_REY_MISMO_PALO\"]]", "\"BJ_AS_REY_DE_PICAS\"]]");
    assert_names(&error, Some("iplyc-blackjack"), "exclusive[0]", "`BJ_AS_REY_DE_PICAS` is not a code of this pool");
    let error = broken("\"BJ_AS_REY_MISMO_PALO\"]]", "\"BJ_AS_REY_MISMO_PALO\"], [\"CUATRO_ASES\", \"TRES_SIETES\"]]");
    assert_names(&error, Some("iplyc-blackjack"), "exclusive[1]", "in more than one group");
}

#[test]
fn art_16_3_1_central_poker_tables_seat_five() {
    // 16.3.1: "En su parte externa se ubicarán los Apostadores, cinco en total."
    let rulebooks = Rulebooks::embedded();
    let limit = rulebooks.pool("iplyc-central-poker").expect("embedded").seats_max.clone().expect("a limit");
    assert_eq!((limit.seats, limit.article.as_str()), (5, "16.3.1"));
    let error = broken("seats_max = { seats = 5, article = \"16.3.1\" }", "seats_max = { seats = 5 }");
    assert_names(&error, Some("iplyc-central-poker"), "seats_max.article", "missing field");
}

#[test]
fn refuses_a_percent_over_100() {
    let error = broken("percent = \"20\"", "percent = \"120\"");
    assert_names(&error, Some("iplyc-blackjack"), "prize[1].percent", "outside (0, 100]");
}

#[test]
fn refuses_a_duplicate_code() {
    let error = broken("code = \"TRES_SIETES\"\n", "code = \"CUATRO_ASES\"\n");
    assert_names(&error, Some("iplyc-blackjack"), "prize[3].code", "duplicate code `CUATRO_ASES`");
}

#[test]
fn refuses_an_unknown_policy() {
    let error = broken("policy = \"iplyc-factor\"          # 11.7", "policy = \"winner-takes-all\"");
    assert_names(&error, Some("iplyc-blackjack"), "policy", "unknown policy `winner-takes-all`");
}

#[test]
fn refuses_a_missing_field() {
    let error = broken("minimum = \"5000.00\"              # 11.2.1\n", "");
    assert_names(&error, Some("iplyc-blackjack"), "minimum", "missing field");
    let error = broken("amount = \"500.00\"\n", "");
    assert_names(&error, Some("iplyc-blackjack"), "prize[2].amount", "missing field");
}

#[test]
fn refuses_a_float_a_misspelt_field_and_an_unknown_grant() {
    // Rates are exact decimal strings; a TOML float would carry a binary fraction.
    let error = broken("contribution_rate = \"0.65\"       # 11.2.3", "contribution_rate = 0.65");
    assert_names(&error, Some("iplyc-blackjack"), "contribution_rate", "never floats");
    let error = broken(
        "payout_unit = \"0.01\"\ncontribution_rate = \"0.65\"       # 11.2.3",
        "payout_unit = \"0.01\"\ncontribution_rte = \"0.65\"",
    );
    // The misspelt key itself is named (not the field it leaves missing), with the one meant.
    assert_names(&error, Some("iplyc-blackjack"), "contribution_rte", "did you mean `contribution_rate`?");
    let error = broken("grants = { code = \"GRILLO_PLATA\", count = 2 }", "grants = { code = \"GRILLO_PLATINO\", count = 2 }");
    assert_names(&error, Some("iplyc-ruleta"), "prize[2].grants.code", "not a code of this pool");
}

#[test]
fn refuses_an_unknown_field() {
    let error = broken(
        "payout_unit = \"0.01\"\ncontribution_rate = \"0.65\"       # 11.2.3",
        "payout_unit = \"0.01\"\npayout_units = \"1\"\ncontribution_rate = \"0.65\"",
    );
    assert_names(&error, Some("iplyc-blackjack"), "payout_units", "unknown field");
}

#[test]
fn refuses_the_same_pool_twice() {
    let error =
        Rulebooks::parse_all([("config/iplyc.toml", IPLYC), ("config/iplyc-copy.toml", IPLYC)]).expect_err("duplicate pool");
    assert!(
        error
            .to_string()
            .contains("config/iplyc-copy.toml: pool `iplyc-ruleta`: field `id`: pool id already defined in config/iplyc.toml"),
        "{error}"
    );
}

#[test]
fn refuses_broken_toml_naming_the_file() {
    let error = Rulebooks::parse_all([("config/broken.toml", "[[pool]\nid = ")]).expect_err("not TOML");
    assert!(matches!(error, RulebookError::Syntax { ref file, .. } if file == "config/broken.toml"), "{error}");
}

#[test]
fn aj_2_5_6_3_the_rulebook_says_who_covers_a_shortfall() {
    // 2.5.6.3: the reserve pools accumulate "para su uso futuro": a pool with one uses it
    // first; a pool without one cannot name it.
    let rulebooks = Rulebooks::embedded();
    let shortfall = |id: &str| rulebooks.pool(id).expect("embedded").shortfall_from;
    assert_eq!(shortfall("aj-poker"), pozo_engine::Shortfall::ReserveThenHouse);
    assert_eq!(shortfall("iplyc-blackjack"), pozo_engine::Shortfall::House);
    let error = broken("shortfall_from = \"house\"         # 3.2.2", "shortfall_from = \"reserve-then-house\"  # 3.2.2");
    assert_names(&error, Some("iplyc-ruleta"), "shortfall_from", "needs a reserve pool");
    let text = AJ.replacen("shortfall_from = \"reserve-then-house\"", "shortfall_from = \"house\"", 1);
    let error = Rulebooks::parse_all([("config/aj-bolivia.toml", text.as_str())]).expect_err("refused");
    assert!(error.to_string().contains("field `shortfall_from`: a pool with a reserve"), "{error}");
}

#[test]
fn the_grillos_the_state_machine_knows_are_the_roulette_rulebooks_codes_in_their_order() {
    // 3.1.3: a bronze hit grants silvers, a silver hit a gold; the gold grants nothing.
    let rulebooks = Rulebooks::embedded();
    let rules = rulebooks.pool("iplyc-ruleta").expect("embedded");
    for (grillo, next) in Grillo::ALL.into_iter().zip([Some(Grillo::Plata), Some(Grillo::Oro), None]) {
        let prize = rules.prize(grillo.code()).unwrap_or_else(|| panic!("{} in config/iplyc.toml", grillo.code()));
        assert_eq!(prize.grants.as_ref().map(|grant| grant.code.as_str()), next.map(Grillo::code), "{grillo:?}");
        assert_eq!(Grillo::of_code(grillo.code()), Some(grillo));
    }
    assert_eq!(Grillo::of_code("PREMIO_INSTANTANEO"), None);
}

#[test]
fn an_unknown_field_is_refused_with_its_line_and_the_nearest_known_field() {
    let from = "payout_unit = \"0.01\"\ncontribution_rate = \"0.65\"       # 11.2.3";
    let to = "payout_unit = \"0.01\"\npayout_units = \"1\"\ncontribution_rate = \"0.65\"";
    let text = IPLYC.replacen(from, to, 1);
    let line = text.lines().position(|line| line.starts_with("payout_units")).expect("the typo is in the text") + 1;
    let error = broken(from, to);
    let message = error.to_string();
    assert!(message.contains(&format!("unknown field at line {line}")), "{message}");
    assert!(message.contains("did you mean `payout_unit`?"), "{message}");
    // Nothing near: no guess, but the fields this table knows.
    let error = broken(from, "payout_unit = \"0.01\"\nzzz = \"1\"\ncontribution_rate = \"0.65\"");
    let message = error.to_string();
    assert!(!message.contains("did you mean"), "{message}");
    assert!(message.contains("known here:") && message.contains("contribution_rate"), "{message}");
}

#[test]
fn a_typo_in_a_nested_table_or_at_the_top_names_its_path_line_and_the_key_meant() {
    let from = "grants = { code = \"GRILLO_ORO\", count = 1 }";
    let text = IPLYC.replacen(from, "grants = { code = \"GRILLO_ORO\", cuont = 1 }", 1);
    let line = text.lines().position(|line| line.contains("cuont")).expect("the typo is in the text") + 1;
    let error = broken(from, "grants = { code = \"GRILLO_ORO\", cuont = 1 }");
    assert_names(&error, Some("iplyc-ruleta"), "prize[1].grants.cuont", "did you mean `count`?");
    assert!(error.to_string().contains(&format!("at line {line}")), "{error}");
    // At the top of the file: no pool to name.
    let error = broken("venta_pagos_over = \"1000.00\"", "venta_pago_over = \"1000.00\"");
    assert_names(&error, None, "venta_pago_over", "did you mean `venta_pagos_over`?");
    assert!(error.to_string().contains("at line 11"), "{error}");
}

#[test]
fn a_value_of_the_wrong_type_names_its_field_and_line() {
    let from = "seats_max = { seats = 5, article = \"16.3.1\" }";
    let error = broken(from, "seats_max = { seats = \"five\", article = \"16.3.1\" }");
    let line = IPLYC.lines().position(|line| line.starts_with("seats_max")).expect("in the text") + 1;
    assert_names(&error, Some("iplyc-central-poker"), "seats_max.seats", "invalid type");
    assert!(error.to_string().contains(&format!("(line {line})")), "{error}");
    let error = broken("name = \"Grillo de Oro\"", "name = \"\"");
    assert_names(&error, Some("iplyc-ruleta"), "prize[0].name", "must not be empty");
}

#[test]
fn a_prize_takes_only_the_values_its_kind_reads() {
    // A fixed prize (11.5.3, four aces: $500) with a percentage besides would be read two ways.
    let error = broken("amount = \"500.00\"\n", "amount = \"500.00\"\npercent = \"10\"\n");
    assert_names(&error, Some("iplyc-blackjack"), "prize[2].percent", "a prize that pays `fixed` takes no `percent`");
    let error = broken("pays = \"grant\"                   # 3.4.1.1", "pays = \"grant\"\nmultiple = \"2\" # 3.4.1.1");
    assert_names(&error, Some("iplyc-ruleta"), "prize[2].multiple", "takes no `multiple`");
}

#[test]
fn the_meaning_of_the_minimum_is_the_rulebooks_to_say() {
    // IPLyC 3.2.2, 11.2.2, 15.2.3 make the minimum a floor of the sign ("se completará esta
    // cifra para el pago del primer premio"); Póquer sin descarte 6.2–6.3 and AJ 2.5.6.3 only
    // a starting amount. No default: a rulebook that does not say is refused, naming the
    // field and both kinds; an unknown kind too.
    let line = "minimum_kind = \"floor\"           # 3.2.2, 11.2.2, 15.2.3: \"se completará esta cifra para el pago del primer premio\"\n";
    let error = broken(line, "");
    assert_names(&error, Some("iplyc-ruleta"), "minimum_kind", "missing field");
    for kind in ["`floor`", "`start`", "3.2.2", "6.3"] {
        assert!(error.to_string().contains(kind), "{error} names {kind}");
    }
    let error = broken(line, "minimum_kind = \"garantizado\"\n");
    assert_names(&error, Some("iplyc-ruleta"), "minimum_kind", "unknown kind `garantizado`");
    let error = broken(line, "minimum_kind = 1\n");
    assert_names(&error, Some("iplyc-ruleta"), "minimum_kind", "expected a string");
}

#[test]
fn and_tripoquer_ix_2_a_carrusel_returning_under_70_percent_is_refused() {
    // Tripóquer IX.2: "debiendo garantizarse a las personas jugadoras un retorno o porcentaje
    // mínimo de devolución en premios del 70 por 100". Every centavo fed to the carrusel is
    // paid to players sooner or later; the ×bet prizes alone return about 0.43 of the bet
    // (docs/odds.md, "The carrusel's return"): a pool with `tripoker` tables must feed it at
    // least 70% of each bet. 0.69 is refused, naming the pool, `contribution_rate` and IX.2.
    let text = ANDALUCIA.replacen(
        "contribution_rate = \"0.70\"       # EXAMPLE: rule 6.2",
        "contribution_rate = \"0.69\"       # EXAMPLE: rule 6.2",
        1,
    );
    let text = text.replacen("commission_rate = \"0.30\"", "commission_rate = \"0.31\"", 1);
    assert_ne!(text, ANDALUCIA);
    let error = Rulebooks::parse_all([("config/andalucia.toml", text.as_str())]).expect_err("under 70%");
    let RulebookError::Field { pool, field, problem, .. } = &error else { panic!("a field error: {error}") };
    assert_eq!((pool.as_deref(), field.as_str()), (Some("and-carrusel"), "contribution_rate"));
    assert!(problem.contains("Tripóquer IX.2") && problem.contains("0.69"), "{problem}");
    // The same rates without a Tripóquer table: Póquer sin descarte alone sets no return.
    let alone = text.replacen("games = [\"poker-sin-descarte\", \"tripoker\"]", "games = [\"poker-sin-descarte\"]", 1);
    Rulebooks::parse_all([("config/andalucia.toml", alone.as_str())]).expect("no tripoker table");
    // Exactly 70% is the guarantee, met.
    let rulebooks = Rulebooks::embedded();
    let carrusel = rulebooks.pool("and-carrusel").expect("embedded");
    assert!(carrusel.games.contains(&Game::Tripoker));
    assert!(carrusel.contribution_rate + carrusel.reserve_rate >= dec!(0.70));
}
