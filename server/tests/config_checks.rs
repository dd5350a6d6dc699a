//! The casino layout checked against the rulebooks when the server starts: a table
//! the articles do not allow is refused naming the file, the table and the article.

use std::process::Command;

use pozo_engine::rulebook::EMBEDDED;
use pozo_server::config::{Config, LAYOUT_EMBEDDED};

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// The embedded layout with CP1 at seven seats.
fn seven_seat_layout() -> String {
    let (_, text) = LAYOUT_EMBEDDED;
    let cp1 = "id = \"CP1\"\nflor = \"F3\"\npool = \"iplyc-central-poker\"\ngame = \"central-poker\"\nseats = 5";
    assert!(text.contains(cp1), "the embedded layout has CP1 at five seats");
    text.replacen(cp1, &cp1.replace("seats = 5", "seats = 7"), 1)
}

#[test]
fn art_16_3_1_a_central_poker_table_of_seven_is_refused() {
    // 16.3.1: "En su parte externa se ubicarán los Apostadores, cinco en total."
    let mut texts = vec![(LAYOUT_EMBEDDED.0.to_owned(), seven_seat_layout())];
    texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
    let error = Config::from_texts(texts).expect_err("refused");
    let message = error.to_string();
    assert!(message.starts_with("config/casino.toml: table["), "{message}");
    assert!(message.contains("].seats: 7 seats at table `CP1`; pool `iplyc-central-poker` allows at most 5"), "{message}");
    assert!(message.contains("(16.3.1; `seats_max` in config/iplyc.toml)"), "{message}");
}

#[test]
fn serve_refuses_the_layout_at_start_with_exit_2() {
    // The operator sees why at once, before any journal is opened.
    let directory = tempfile::tempdir().expect("a temporary directory");
    let layout = directory.path().join("casino.toml");
    std::fs::write(&layout, seven_seat_layout()).expect("layout written");
    let output = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(directory.path().join("data"))
        .arg("--config")
        .arg(&layout)
        .output()
        .expect("pozo-server runs");
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("allows at most 5 (16.3.1;"), "{stderr}");
    assert!(!directory.path().join("data").exists(), "nothing is written for a refused layout");
}

#[test]
fn a_misspelt_layout_key_is_refused_at_start_with_its_line_and_the_nearest_key() {
    let (_, text) = LAYOUT_EMBEDDED;
    let cp1 = "id = \"CP1\"\nflor = \"F3\"\npool = \"iplyc-central-poker\"\ngame = \"central-poker\"\nseats = 5";
    let broken = text.replacen(cp1, &cp1.replace("game =", "gmae ="), 1);
    let line = broken.lines().position(|line| line.starts_with("gmae")).expect("the typo is in the text") + 1;
    let directory = tempfile::tempdir().expect("a temporary directory");
    let layout = directory.path().join("casino.toml");
    std::fs::write(&layout, broken).expect("layout written");
    let output = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--no-pages", "--data"])
        .arg(directory.path().join("data"))
        .arg("--config")
        .arg(&layout)
        .output()
        .expect("pozo-server runs");
    assert_eq!(output.status.code(), Some(2), "a refusal to start");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("{}: not a valid configuration file: line {line}:", layout.display())), "{stderr}");
    assert!(stderr.contains("unknown field `gmae` (did you mean `game`?)"), "{stderr}");
    assert!(!directory.path().join("data").exists(), "nothing was opened or created");
}

// ----------------------------------------------------------------------------- salons

/// The example layout of two salons (config/examples/salones.toml).
const SALONES: (&str, &str) = ("config/examples/salones.toml", include_str!("../../config/examples/salones.toml"));

/// The configuration of `layout` with the embedded rulebooks and keys.
fn with_layout(name: &str, layout: &str) -> Result<Config, pozo_server::config::ConfigError> {
    let mut texts = vec![(name.to_owned(), layout.to_owned())];
    texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
    Config::from_texts(texts)
}

/// The example layout with one `from` replaced by `to`: the refusal it earns.
fn salones_refused(from: &str, to: &str) -> String {
    let (name, text) = SALONES;
    assert!(text.contains(from), "the example has `{from}`");
    with_layout(name, &text.replacen(from, to, 1)).expect_err("refused").to_string()
}

#[test]
fn the_example_of_two_salons_loads_with_a_shared_pool_and_pools_of_one_salon() {
    let (name, text) = SALONES;
    let config = with_layout(name, text).expect("the example layout is valid");
    let config = config.with_keys(pozo_server::config::KEYS_EMBEDDED.0, pozo_server::config::KEYS_EMBEDDED.1).expect("its keys");
    let salons: Vec<(&str, &str, Vec<&str>)> = config
        .salons()
        .iter()
        .map(|salon| (salon.id.as_str(), salon.name.as_str(), salon.pools.iter().map(|pool| pool.as_str()).collect()))
        .collect();
    assert_eq!(
        salons,
        [
            ("central", "Salón Central", vec!["aj-poker", "iplyc-blackjack", "iplyc-ruleta"]),
            ("norte", "Salón Norte", vec!["and-bolsa", "and-carrusel", "iplyc-blackjack", "iplyc-central-poker"]),
        ]
    );
    let blackjack: Vec<(&str, &str)> = config
        .layout
        .tables
        .iter()
        .filter(|table| table.pool == "iplyc-blackjack")
        .map(|table| (table.id.as_str(), config.salon_of(table)))
        .collect();
    assert_eq!(blackjack, [("B1", "central"), ("B2", "central"), ("B3", "norte"), ("B4", "norte")]);
    // The genesis hash covers the salons: the same tables without them are another configuration.
    let (embedded_name, embedded) = pozo_server::config::LAYOUT_EMBEDDED;
    assert_ne!(config.hash, with_layout(embedded_name, embedded).expect("the embedded layout").hash);
}

#[test]
fn a_table_of_an_unknown_salon_is_refused_with_the_nearest_and_the_known_ones() {
    let message = salones_refused("id = \"B3\"\nsalon = \"norte\"", "id = \"B3\"\nsalon = \"nrote\"");
    assert_eq!(
        message,
        "config/examples/salones.toml: table[9].salon: unknown salon `nrote` (did you mean `norte`?); known: central, norte"
    );
}

#[test]
fn a_salon_defined_twice_is_refused() {
    let message = salones_refused("id = \"norte\"\nname = \"Salón Norte\"", "id = \"central\"\nname = \"Salón Norte\"");
    assert_eq!(message, "config/examples/salones.toml: salon[1].id: salon `central` is defined twice");
}

#[test]
fn with_salons_declared_a_table_without_one_is_refused() {
    let message = salones_refused("id = \"CP2\"\nsalon = \"norte\"\n", "id = \"CP2\"\n");
    assert_eq!(
        message,
        "config/examples/salones.toml: table[12].salon: table `CP2` names no salon; \
         the layout declares salons (central, norte), so every table names its own"
    );
}

#[test]
fn a_salon_on_a_table_of_a_layout_without_salons_is_refused() {
    let (name, text) = pozo_server::config::LAYOUT_EMBEDDED;
    let layout = text.replacen("id = \"B2\"\n", "id = \"B2\"\nsalon = \"central\"\n", 1);
    let message = with_layout(name, &layout).expect_err("refused").to_string();
    assert_eq!(
        message,
        "config/casino.toml: table[5].salon: salon `central` at table `B2`, but the layout declares no [[salon]]: \
         declare it, or remove the field"
    );
}

#[test]
fn a_flor_split_between_salons_is_refused() {
    // B4 moved to the Salón Central while B3, of the same flor F6, stays in the Norte.
    let message = salones_refused("id = \"B4\"\nsalon = \"norte\"", "id = \"B4\"\nsalon = \"central\"");
    assert_eq!(
        message,
        "config/examples/salones.toml: table[10].salon: table `B4` of flor `F6` is in salon `central`, but table `B3` \
         of that flor is in salon `norte`: a flor (a module of four tables) lies in one salon"
    );
}

#[test]
fn more_salons_than_the_bound_and_a_salon_without_tables_are_refused() {
    let (name, text) = SALONES;
    let extra: String =
        (0..32).map(|index| format!("[[salon]]\nid = \"s{index}\"\nname = \"Salón {index}\"\n\n")).collect::<String>();
    let many = text.replacen("[[salon]]\nid = \"central\"", &format!("{extra}[[salon]]\nid = \"central\""), 1);
    let message = with_layout(name, &many).expect_err("refused").to_string();
    assert_eq!(message, "config/examples/salones.toml: salon: 34 salons; a layout has at most 32");
    let empty = salones_refused(
        "[[salon]]\nid = \"norte\"",
        "[[salon]]\nid = \"sur\"\nname = \"Salón Sur\"\n\n[[salon]]\nid = \"norte\"",
    );
    assert_eq!(empty, "config/examples/salones.toml: salon[1].id: salon `sur` has no table");
    let unnamed = salones_refused("name = \"Salón Norte\"", "name = \"  \"");
    assert!(
        unnamed.starts_with("config/examples/salones.toml: salon[1].name: salon `norte`: a name of 1–64 characters"),
        "{unnamed}"
    );
    let id = salones_refused("id = \"norte\"\n", "id = \"norte sur\"\n");
    assert_eq!(id, "config/examples/salones.toml: salon[1].id: `norte sur` must be 1–32 letters, digits or '-'");
}

#[test]
fn serve_refuses_a_salon_mistake_at_start_with_exit_2_and_starts_nothing() {
    let (_, text) = SALONES;
    let directory = tempfile::tempdir().expect("a temporary directory");
    let layout = directory.path().join("salones.toml");
    std::fs::write(&layout, text.replacen("id = \"B3\"\nsalon = \"norte\"", "id = \"B3\"\nsalon = \"sur\"", 1))
        .expect("layout written");
    let output = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--no-pages", "--data"])
        .arg(directory.path().join("data"))
        .arg("--config")
        .arg(&layout)
        .output()
        .expect("pozo-server runs");
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}: table[9].salon: unknown salon `sur`; known: central, norte", layout.display())),
        "{stderr}"
    );
    assert!(!directory.path().join("data").exists(), "no data directory for a refused layout");
    assert!(!directory.path().join("data.acknowledged").exists(), "no acknowledgement mark either");
}
