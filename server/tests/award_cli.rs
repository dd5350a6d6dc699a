//! `pozo-server award`, run as a person runs it: the real binary, a round file on
//! disk, JSON on stdout, exit code 2 and a message naming the field on bad input.

use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("pozo-server runs")
}

/// Writes `round` to a temporary file and runs the calculator on it.
fn award(round: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("round.json");
    std::fs::write(&path, round).expect("round file written");
    let path = path.to_str().expect("UTF-8 path");
    let mut args = vec!["award", "--round", path];
    args.extend_from_slice(extra);
    run(&args)
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "exit {:?}: {}", output.status.code(), String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn refused(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "bad input exits 2; stdout: {}", String::from_utf8_lossy(&output.stdout));
    assert!(output.stdout.is_empty(), "nothing printed on stdout for a refused round");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn awards(report: &Value) -> Vec<(u64, String, String, String)> {
    report["awards"]
        .as_array()
        .expect("awards is an array")
        .iter()
        .map(|award| {
            (
                award["seat"].as_u64().expect("seat"),
                award["code"].as_str().expect("code").to_owned(),
                award["unlimited"].as_str().expect("unlimited is a decimal string").to_owned(),
                award["award"].as_str().expect("award is a decimal string").to_owned(),
            )
        })
        .collect()
}

fn line(seat: u64, code: &str, unlimited: &str, award: &str) -> (u64, String, String, String) {
    (seat, code.to_owned(), unlimited.to_owned(), award.to_owned())
}

#[test]
fn blackjack_round_prorated_by_the_factor() {
    // 11.7: 5,200 and 1,040 on a 5,200 pool; FACTOR 5,200 / 6,240.
    let report = json(&award(include_str!("../../docs/examples/blackjack-factor.json"), &[]));
    assert_eq!(report["pool"], "iplyc-blackjack");
    assert_eq!(report["displayed"], "5200.00");
    assert!(report["factor"].as_str().expect("prorated").starts_with("0.83333333"));
    assert_eq!(
        awards(&report),
        [line(1, "TRES_SIETES_CORAZONES", "5200.00", "4333.33"), line(4, "TRES_SIETES_MISMO_PALO", "1040.00", "866.66")]
    );
    assert_eq!(report["replenishment"], "4999.99");
    assert_eq!(report["balance_after"], "5000.00");
    assert_eq!(report["displayed_after"], "5000.00");
}

#[test]
fn roulette_gold_and_silver_in_one_ball() {
    // 3.4.2: gold first (100% of 25,000.50), reset to 20,000, silver's 300 from it.
    let report = json(&award(include_str!("../../docs/examples/ruleta-oro-y-plata.json"), &[]));
    assert!(report.get("factor").is_none(), "3.4.2 is not prorated");
    assert_eq!(awards(&report), [line(5, "GRILLO_ORO", "25000.50", "25000.50"), line(3, "GRILLO_PLATA", "300.00", "300.00")]);
    assert_eq!(report["awards"][1]["grants"]["code"], "GRILLO_ORO");
    assert_eq!(report["replenishment"], "20000.00");
    assert_eq!(report["balance_after"], "19700.00");
    assert_eq!(report["displayed_after"], "20000.00");
}

#[test]
fn aj_round_orders_prizes_and_gives_the_odd_peso_to_position_1() {
    // 2.5.6.2: the full house (100 × 10) first; then two royal flushes share 29,001:
    // 14,500 each and the indivisible peso to seat 2; the reset takes the 2,500
    // reserve first and the house adds 17,500 (2.5.6.3).
    let report = json(&award(include_str!("../../docs/examples/aj-escaleras.json"), &[]));
    assert_eq!(
        awards(&report),
        [
            line(6, "FULL", "1000.00", "1000.00"),
            line(2, "ESCALERA_REAL", "14500.50", "14501.00"),
            line(4, "ESCALERA_REAL", "14500.50", "14500.00"),
        ]
    );
    assert_eq!(report["reserve_used"], "2500.00");
    assert_eq!(report["replenishment"], "17500.00");
    assert_eq!(report["balance_after"], "20000.00");
}

#[test]
fn carrusel_straight_flushes_highest_first() {
    // 6.4: four of a kind 300; then the K-high straight flush 10% of 9,700 = 970;
    // then the 9-high one 10% of 8,730 = 873.
    let report = json(&award(include_str!("../../docs/examples/carrusel-escaleras-color.json"), &[]));
    assert_eq!(
        awards(&report),
        [
            line(5, "POKER", "300.00", "300.00"),
            line(3, "ESCALERA_COLOR", "970.00", "970.00"),
            line(1, "ESCALERA_COLOR", "873.00", "873.00"),
        ]
    );
    assert_eq!(report["balance_after"], "7857.00");
}

#[test]
fn percent_on_the_minimum_when_the_balance_is_under_it() {
    // 11.2.2: balance 4,700.125 displays 5,000; the 20% is 1,000; the fraction stays.
    let report = json(&award(
        r#"{"pool":"iplyc-blackjack","balance":"4700.125","winners":[{"seat":2,"code":"TRES_SIETES_MISMO_PALO"}]}"#,
        &[],
    ));
    assert_eq!(report["displayed"], "5000.00");
    assert_eq!(awards(&report), [line(2, "TRES_SIETES_MISMO_PALO", "1000.00", "1000.00")]);
    assert_eq!(report["balance_after"], "3700.125");
    assert_eq!(report["displayed_after"], "5000.00");
}

#[test]
fn bolsa_pays_only_the_highest_combination() {
    // Veintiuno e: "sólo se pagará la combinación o jugada mayor".
    let report = json(&award(
        r#"{"pool":"and-bolsa","balance":"4000","winners":[{"seat":1,"code":"SIETE","bet":"1"},{"seat":1,"code":"DOS_SIETES_MISMO_PALO","bet":"1"}]}"#,
        &[],
    ));
    assert_eq!(awards(&report), [line(1, "DOS_SIETES_MISMO_PALO", "100.00", "100.00")]);
    assert_eq!(report["superseded"][0]["code"], "SIETE");
}

#[test]
fn a_rulebook_file_replaces_the_embedded_default() {
    // The silver prize is the Instituto's to set (3.4.1.2): a rulebook with 450 pays 450.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rulebook = dir.path().join("iplyc.toml");
    let text = include_str!("../../config/iplyc.toml").replace("amount = \"300.00\"", "amount = \"450.00\"");
    std::fs::write(&rulebook, text).expect("rulebook written");
    let rulebook = rulebook.to_str().expect("UTF-8");
    let round = r#"{"pool":"iplyc-ruleta","balance":"21000","winners":[{"seat":3,"code":"GRILLO_PLATA"}]}"#;
    let report = json(&award(round, &["--rulebook", rulebook]));
    assert_eq!(awards(&report), [line(3, "GRILLO_PLATA", "450.00", "450.00")]);
    // With only that file loaded, the AJ pool is unknown.
    let aj = r#"{"pool":"aj-poker","balance":"21000","winners":[{"seat":3,"code":"ESCALERA_REAL"}]}"#;
    let message = refused(&award(aj, &["--rulebook", rulebook]));
    assert!(message.contains("unknown pool `aj-poker`"), "{message}");
}

#[test]
fn a_broken_rulebook_file_is_refused_naming_file_pool_and_field() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rulebook = dir.path().join("iplyc.toml");
    let text = include_str!("../../config/iplyc.toml").replace("percent = \"20\"", "percent = \"120\"");
    std::fs::write(&rulebook, text).expect("rulebook written");
    let round = r#"{"pool":"iplyc-blackjack","balance":"5000","winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#;
    let message = refused(&award(round, &["--rulebook", rulebook.to_str().expect("UTF-8")]));
    assert!(message.contains("iplyc.toml: pool `iplyc-blackjack`: field `prize[1].percent`"), "{message}");
    let checked = refused(&run(&["rulebooks", "--rulebook", rulebook.to_str().expect("UTF-8")]));
    assert!(checked.contains("percent 120 is outside (0, 100]"), "{checked}");
}

#[test]
fn bad_round_files_exit_2_naming_the_problem() {
    let cases: [(&str, &str); 13] = [
        ("not json", "not a valid round"),
        // Veintiuno e: "una cantidad única estipulada".
        (
            r#"{"pool":"and-bolsa","balance":"4000","winners":[{"seat":1,"code":"TRES_SIETES","bet":"5.00"}]}"#,
            "winners[0].bet: 5.00 is not the stipulated side bet of pool `and-bolsa`: only 1.00 is played",
        ),
        // 11.3: one box, one combination.
        (
            r#"{"pool":"iplyc-blackjack","balance":"5000","winners":[{"seat":2,"code":"CUATRO_ASES"},{"seat":2,"code":"BJ_AS_REY_MISMO_PALO"}]}"#,
            "winners[1].code: seat 2 already has `CUATRO_ASES`",
        ),
        (r#"{"pool":"iplyc-blackjack","winners":[]}"#, "missing field `balance`"),
        (r#"{"pool":"iplyc-blackjack","balance":5200,"winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#, "decimal strings"),
        (r#"{"pool":"iplyc-blackjack","balance":"-1","winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#, "balance: -1 is negative"),
        (
            r#"{"pool":"iplyc-blackjack","balance":"abc","winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#,
            "balance: `abc` is not a decimal",
        ),
        (
            r#"{"pool":"iplyc-baccarat","balance":"5000","winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#,
            "unknown pool `iplyc-baccarat`",
        ),
        (r#"{"pool":"iplyc-blackjack","balance":"5000","winners":[]}"#, "winners: a round to settle needs at least one winner"),
        (
            r#"{"pool":"iplyc-blackjack","balance":"5000","winners":[{"seat":1,"code":"ESCALERA_REAL"}]}"#,
            "winners[0].code: `ESCALERA_REAL` is not in the paytable",
        ),
        (
            r#"{"pool":"aj-poker","balance":"30000","winners":[{"seat":1,"code":"FULL"}]}"#,
            "winners[0].bet: `FULL` pays a multiple of the bet",
        ),
        (
            r#"{"pool":"aj-poker","balance":"30000","winners":[{"seat":1,"code":"FULL","bet":"0.001"}]}"#,
            "winners[0].bet: 0.001 is finer than one centavo",
        ),
        (
            r#"{"pool":"iplyc-blackjack","balance":"5000","reserve":"10","winners":[{"seat":1,"code":"CUATRO_ASES"}]}"#,
            "reserve: pool `iplyc-blackjack` has no reserve pool",
        ),
    ];
    for (round, expected) in cases {
        let message = refused(&award(round, &[]));
        assert!(message.contains(expected), "round {round}: `{message}` should contain `{expected}`");
        assert!(message.contains("round.json"), "the message names the file: {message}");
    }
    let message = refused(&award(
        r#"{"pool":"and-carrusel","balance":"9000","winners":[{"seat":1,"code":"POKER","bet":"1","high":"Z"}]}"#,
        &[],
    ));
    assert!(message.contains("winners[0].high: `Z` is not a card rank"), "{message}");
    let message = refused(&award(
        r#"{"pool":"iplyc-blackjack","balance":"5000","winners":[{"seat":1,"code":"CUATRO_ASES","bett":"1"}]}"#,
        &[],
    ));
    assert!(message.contains("unknown field `bett`"), "{message}");
}

#[test]
fn art_11_4_1_a_side_bet_other_than_the_fixed_one_is_refused() {
    // 11.4.1: "Su monto será fijo y determinado de antemano": the rulebook's side bet is
    // 10.00; a winner stated with a bet of 20.00 never played this pool, even for a prize
    // that is not a multiple of the bet ($500 for four aces, 11.5.3).
    let message = refused(&award(
        r#"{"pool":"iplyc-blackjack","balance":"6000","winners":[{"seat":1,"code":"CUATRO_ASES","bet":"20.00"}]}"#,
        &[],
    ));
    assert!(message.contains("winners[0].bet: 20.00 is not the stipulated side bet of pool `iplyc-blackjack`"), "{message}");
    assert!(message.contains("only 10.00 is played (11.4.1)"), "{message}");
    // The stipulated bet, or none, is taken.
    let report = json(&award(
        r#"{"pool":"iplyc-blackjack","balance":"6000","winners":[{"seat":1,"code":"CUATRO_ASES","bet":"10.00"}]}"#,
        &[],
    ));
    assert_eq!(awards(&report), [line(1, "CUATRO_ASES", "500.00", "500.00")]);
}

#[test]
fn art_16_4_2_5_1_the_instant_prize_is_paid_alone_before_the_round_is_prorated_15_9() {
    // 16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO INSTANTÁNEO, procederá a
    // su pago en forma inmediata": the calculator answers as the controller pays. On a
    // 12,000 pool the $30 (15.7.1.6) is paid whole and the sign shows 11,970; the royal
    // flush (100% = 11,970) and the Póker ($500) are then prorated on 11,970 (15.9):
    // FACTOR = 11,970 ÷ 12,470; 11,970 × 11,970 ÷ 12,470 = 11,490.048… → 11,490.04;
    // 500 × 11,970 ÷ 12,470 = 479.951… → 479.95. Paid in all 30 + 11,969.99; the 0.01
    // left stays and the house adds 9,999.99 to reset to 10,000 (15.2.2).
    let round = r#"{"pool":"iplyc-central-poker","balance":"12000","winners":[
        {"seat":1,"code":"ESCALERA_REAL_MAYOR"},{"seat":2,"code":"PREMIO_INSTANTANEO"},{"seat":3,"code":"POKER"}]}"#;
    let report = json(&award(round, &[]));
    assert_eq!(report["displayed"], "12000.00");
    assert_eq!(report["instant_prizes"][0]["seat"], 2);
    assert_eq!(report["instant_prizes"][0]["award"], "30.00");
    assert_eq!(report["instant_prizes"][0]["displayed_after"], "11970.00");
    assert_eq!(report["round_displayed"], "11970.00");
    assert!(report["factor"].as_str().expect("prorated").starts_with("0.95990376"), "11,970 ÷ 12,470");
    assert_eq!(awards(&report), [line(1, "ESCALERA_REAL_MAYOR", "11970.00", "11490.04"), line(3, "POKER", "500.00", "479.95")]);
    assert_eq!(report["total_paid"], "11999.99");
    assert_eq!(report["replenishment"], "9999.99");
    assert_eq!(report["balance_after"], "10000.00");

    // On 10,000 the instant prize leaves 9,970, but the sign shows the $10.000 minimum:
    // "se completará esta cifra para el pago del primer premio" (15.2.3). The $30 is still
    // paid whole, and the round is prorated on 10,000: 10,000 × 10,000 ÷ 10,500 =
    // 9,523.809… → 9,523.80, 500 × 10,000 ÷ 10,500 = 476.190… → 476.19. The house
    // completes the 29.99 the balance lacks and resets with 10,000.
    let round = round.replace("\"12000\"", "\"10000\"");
    let report = json(&award(&round, &[]));
    assert_eq!(report["instant_prizes"][0]["award"], "30.00");
    assert_eq!(report["round_displayed"], "10000.00");
    assert_eq!(awards(&report), [line(1, "ESCALERA_REAL_MAYOR", "10000.00", "9523.80"), line(3, "POKER", "500.00", "476.19")]);
    assert_eq!(report["total_paid"], "10029.99");
    assert_eq!(report["replenishment"], "10029.99");

    let text = String::from_utf8(award(&round, &["--text"]).stdout).expect("UTF-8");
    assert!(text.contains("Premio instantáneo pagado aparte, en forma inmediata (16.4.2.5.1)"), "{text}");
    assert!(text.contains("$ 30,00"), "{text}");
    assert!(text.find("16.4.2.5.1") < text.find("ESCALERA_REAL_MAYOR"), "the instant prize first: {text}");
}

#[test]
fn the_rulebooks_listing_says_what_each_minimum_means() {
    // IPLyC 3.2.2 / 11.2.2 / 15.2.3: a guaranteed minimum; Póquer sin descarte 6.2–6.3 and
    // AJ 2.5.6.3: the amount the pool starts at.
    let output = run(&["rulebooks"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let line_of = |id: &str| text.lines().find(|line| line.starts_with(id)).unwrap_or_else(|| panic!("{id} listed: {text}"));
    for id in ["iplyc-ruleta", "iplyc-blackjack", "iplyc-central-poker"] {
        assert!(line_of(id).contains("mínimo garantizado"), "{}", line_of(id));
    }
    for id in ["and-carrusel", "and-bolsa", "aj-poker"] {
        assert!(line_of(id).contains("monto inicial"), "{}", line_of(id));
    }
    // 3.2.1, 11.2.3, 15.2.4: 65 % of each bet, written the Spanish way.
    for id in ["iplyc-ruleta", "iplyc-blackjack", "iplyc-central-poker"] {
        assert!(line_of(id).contains("incremento 0,65 "), "{}", line_of(id));
    }
}

/// Issue 45, point 10: a pool with levels grows by its levels' shares added, as its sign says
/// (`mercado-blackjack`: 8 + 5 + 3 + 2 %).
#[test]
fn the_rulebooks_listing_gives_a_pool_with_levels_its_levels_shares_added() {
    let mercado = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/mercado.toml");
    let output = run(&["rulebooks", "--rulebook", mercado]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find(|line| line.starts_with("mercado-blackjack")).unwrap_or_else(|| panic!("listed: {text}"));
    assert!(line.contains("incremento 0,18 "), "{line}");
}

#[test]
fn a_missing_round_file_exits_2() {
    let message = refused(&run(&["award", "--round", "/nonexistent/round.json"]));
    assert!(message.contains("/nonexistent/round.json: cannot read"), "{message}");
}

#[test]
fn text_output_for_the_cashier() {
    let output = award(include_str!("../../docs/examples/blackjack-factor.json"), &["--text"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("Pago Máximo (cartel al marcar): $ 5.200,00"), "{text}");
    assert!(text.contains("$ 4.333,33"), "{text}");
    assert!(text.contains("Reposición: $ 4.999,99"), "{text}");
}

#[test]
fn help_lists_the_commands() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("award") && text.contains("rulebooks"), "{text}");
}

/// The market's example rulebook, from the repository (run from the crate's directory).
const MERCADO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/mercado.toml");

// Proves the calculator speaks levels (docs/award.md): a round of the four-level Black Jack link
// states each level's meter by name; the Grand shared by two winners is prorated alone, the Mini
// paid whole, a house prize in full; a level missing or unknown is refused naming it.
#[test]
fn a_round_with_levels_is_paid_level_by_level() {
    let round = r#"{
        "pool": "mercado-blackjack",
        "balance": "2000001.00",
        "levels": {"Major": {"balance": "200000.00"}, "Minor": {"balance": "50000.00"}, "Mini": {"balance": "10120.00"}},
        "winners": [
            {"seat": 1, "code": "TRES_SIETES_CORAZONES"},
            {"seat": 2, "code": "TRES_SIETES_CORAZONES"},
            {"seat": 3, "code": "TRES_SIETES"},
            {"seat": 4, "code": "BJ_AS_REY_MISMO_PALO", "bet": "1000.00"}
        ]
    }"#;
    let report = json(&award(round, &["--rulebook", MERCADO]));
    let paid: Vec<(u64, String, String)> =
        awards(&report).into_iter().map(|(seat, code, _, award)| (seat, code, award)).collect();
    assert_eq!(
        paid,
        [
            (1, "TRES_SIETES_CORAZONES".to_owned(), "1000000.50".to_owned()),
            (2, "TRES_SIETES_CORAZONES".to_owned(), "1000000.50".to_owned()),
            (3, "TRES_SIETES".to_owned(), "10120.00".to_owned()),
            (4, "BJ_AS_REY_MISMO_PALO".to_owned(), "5000.00".to_owned()),
        ]
    );
    let missing = round.replace(r#", "Mini": {"balance": "10120.00"}"#, "");
    assert!(refused(&award(&missing, &["--rulebook", MERCADO])).contains("levels.Mini"));
    let unknown = round.replace("\"Minor\"", "\"Menor\"");
    assert!(refused(&award(&unknown, &["--rulebook", MERCADO])).contains("levels.Menor"));
}
