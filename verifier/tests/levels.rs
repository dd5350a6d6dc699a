//! The `pozo-verifier` binary on a jornada of the market's four-level link (docs/readings.md,
//! "Levels"; config/mercado.toml), written by the pure core here (no server): the verdict gives
//! each level its own books, in Spanish and in JSON; a bet's split between levels changed in the
//! file, the pool's sum kept, is NO CONFORME, naming the pool and the level.

mod common;

use std::sync::Arc;

use common::*;
use pozo_core::config::Config;
use pozo_core::state::{Command, Context, State, TableCommand, TableOp};
use pozo_verifier::SigningKey;
use pozo_verifier::format::{Evidence, genesis_previous};
use pozo_verifier::make::{Journal, make};

/// The market's example layout and rulebooks.
fn mercado() -> Config {
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml")),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml")),
        ("config/mercado.toml", include_str!("../../config/mercado.toml")),
    ];
    Config::from_texts(texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect())
        .expect("the market's example")
}

/// A night at B1: two bets of 1.000 into the link, seat 1 hits the Mini (TRES_SIETES), paid whole.
fn night() -> Evidence {
    let config = Arc::new(mercado());
    let mut state = State::new(Arc::clone(&config));
    let ops = [
        TableOp::OpenTable,
        TableOp::SellCredits { seat: 1, credits: 1 },
        TableOp::SellCredits { seat: 2, credits: 1 },
        TableOp::Press { seat: 1, credits: None },
        TableOp::Press { seat: 2, credits: None },
        TableOp::StartRound,
        TableOp::EnterPrize { seat: 1, code: "TRES_SIETES".into(), high: None },
        TableOp::Accept,
        TableOp::FinishRound,
    ];
    let table = |sequence: u64, op: TableOp| {
        Command::Table(TableCommand {
            table_id: "B1".into(),
            sequence,
            payload_sha256: format!("{sequence:064x}"),
            op,
            card: None,
            inspector: None,
        })
    };
    let commands = std::iter::once(Command::genesis(&config, "prueba", None, None))
        .chain(ops.into_iter().zip(1..).map(|(op, sequence)| table(sequence, op)));
    let mut records = Vec::new();
    for (command, entry) in commands.zip(1..) {
        state.apply(&command, Context { sequence: entry, time_ms: NIGHT_ONE }).expect("applied");
        let record = serde_json::json!({"sequence": entry, "time_ms": NIGHT_ONE, "command": command});
        records.push(serde_json::to_vec(&record).expect("a record"));
    }
    let journal = Journal { installation: INSTALLATION, epoch: 1 };
    make(journal, "2026-11-22", NIGHT_ONE, true, None, genesis_previous(INSTALLATION), &records).expect("made")
}

// Proves the binary's verdict on a jornada with levels lists each level of the link with its
// opening, movements and closing, tied to zero, and gives them in JSON; and that moving part of a
// bet from one level to another in the file (the pool's figures unchanged), signed again, is
// refused at that entry, naming the pool and the level.
#[test]
fn the_binary_ties_each_level_to_zero_and_names_a_level_whose_split_was_changed() {
    let directory = tempfile::tempdir().expect("a directory");
    let (key, _) = SigningKey::generate().expect("a key");
    let evidence = night();
    let file = write(directory.path(), "2026-11-22.json", &pozo_verifier::make::seal(&evidence, &key));

    let (status, out, _) = verifier(&["--public-key", &key.public().hex(), path(&file)]);
    assert_eq!(status, 0, "{out}");
    // Two bets of 1.000: the Grand 160 and 40 to its reserve, the Major 100, the Minor 60, the
    // Mini 40; the Mini paid whole (10.040) and the house puts its reset back.
    for line in [
        "  pozo mercado-blackjack: apertura $ 2.260.000,00, aportes $ 400,00 (2 apuestas)",
        "    nivel Grand: apertura $ 2.000.000,00, aportes $ 200,00, reposiciones $ 0,00, premios $ 0,00 (0), devueltos $ 0,00, \
         cierre $ 2.000.200,00: cuadra en cero\n",
        "    nivel Mini: apertura $ 10.000,00, aportes $ 40,00, reposiciones $ 10.000,00, premios $ 10.040,00 (1), \
         devueltos $ 0,00, cierre $ 10.000,00: cuadra en cero\n",
        "VEREDICTO: CONFORME\n",
    ] {
        assert!(out.contains(line), "missing «{line}» in:\n{out}");
    }
    let (status, out, _) = verifier(&["--json", "--public-key", &key.public().hex(), path(&file)]);
    assert_eq!(status, 0, "{out}");
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let levels = verdict["files"][0]["levels"]["mercado-blackjack"].as_array().expect("the link's levels");
    let names: Vec<&str> = levels.iter().map(|level| level["level"].as_str().expect("a name")).collect();
    assert_eq!(names, ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert_eq!(levels[3]["books"]["awards"], "10040.00");
    assert!(verdict["files"][0]["levels"].get("iplyc-blackjack").is_none(), "a pool of one level has no levels");

    // The start's split: 40 moved from the Major to the Minor beside the record, signed again.
    let start = evidence.entries.iter().position(|entry| entry.record.contains("\"start_round\"")).expect("the start");
    let mut changed = evidence.clone();
    let split = changed.entries[start].levels.get_mut("mercado-blackjack").expect("the split is in the file");
    let forty: pozo_engine::Money = "40.00".parse().expect("an amount");
    split[1].balance -= forty;
    split[2].balance += forty;
    assert_eq!(changed.entries[start].pools, evidence.entries[start].pools, "the pool's figures are the same");
    let file = write(directory.path(), "reparto.json", &pozo_verifier::make::seal(&changed, &key));
    let (status, out, _) = verifier(&["--public-key", &key.public().hex(), path(&file)]);
    assert_eq!(status, 1, "{out}");
    let entry = start as u64 + 1;
    assert!(
        out.ends_with(&format!(
            "VEREDICTO: NO CONFORME: {}: recálculo: asiento {entry}: pozo mercado-blackjack, nivel Major: el archivo dice saldo \
             $ 200.060,00 y reserva $ 0,00, recalculado da saldo $ 200.100,00 y reserva $ 0,00\n",
            path(&file)
        )),
        "{out}"
    );
}
