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
