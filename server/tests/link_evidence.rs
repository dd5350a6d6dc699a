//! A jornada with an envy bonus across the link and a level retired (docs/readings.md, "The envy
//! bonus", "Retiring a level"), played through the real controller on 127.0.0.1:0 with the
//! market's example layout, its evidence written by `pozo-server evidence` and checked by
//! `pozo_verifier` (the library the `pozo-verifier` binary runs): `verify` and the verifier say it
//! conforms, each level tied to zero, the retired level's money in the level it went to; a
//! tampered CP2 envy award is NO CONFORME.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::changes::*;
use common::market::*;
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::clock::ManualClock;
use pozo_verifier::PublicKey;

/// 2026-11-22 20:00 in the casino's zone (UTC-03:00).
const NIGHT: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;

fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn file_change(text: &str) -> pb::propose_change::What {
    pb::propose_change::What::Configuration(pb::ConfigurationChange {
        files: vec![pb::ConfigFile { name: "mercado.toml".to_owned(), text: text.to_owned() }],
        ..Default::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jornada_with_an_envy_across_the_link_and_a_level_retired_verifies() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let linked = mercado_envy_across_the_link();
    let config = mercado_edited(&linked);
    let clock = Arc::new(ManualClock::at(NIGHT));
    let options = pozo_server::ServeOptions { clock: clock.clone(), ..Default::default() };
    let server = pozo_server::Embedded::start(config.clone(), &data, options).await.expect("the server started");
    let mut client = connect_with(&server.address.to_string(), config).await;

    // The spades Mini Royal at CP1: envy to CP1's seat 1 and CP2's seats 2 and 3.
    for (table, seats) in [("CP1", [1, 2]), ("CP2", [2, 3])] {
        client.ok(table, open()).await;
        for seat in seats {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    client.ok("CP1", accept()).await;
    assert_eq!(client.view("CP2").await.link_awards.len(), 2);
    // Venta-Pagos rejects CP2's seat 2 and confirms the rest.
    for order in client.orders().await {
        if order.table_id == "CP2" && order.seat == 2 {
            client.reject(&order.order_id, "boleta inválida").await.expect("rejected");
        } else {
            client.confirm(&order.order_id, "F-1").await.expect("confirmed");
        }
    }
    client.ok("CP1", finish()).await;
    client.ok("CP2", finish()).await;

    // The link's Minor: unfed by a change (in force after the Grand's hit), then retired into the Major.
    let unfed = linked
        .replacen("name = \"Minor\"\nshare = \"0.03\"", "name = \"Minor\"\nshare = \"0\"", 1)
        .replacen("name = \"Major\"\nshare = \"0.05\"", "name = \"Major\"\nshare = \"0.08\"", 1)
        .replacen(
            "article = \"Minor\"\npays = \"percent\"\npercent = \"100\"\nlevel = \"Minor\"",
            "article = \"Minor\"\npays = \"percent\"\npercent = \"100\"\nlevel = \"Major\"",
            1,
        );
    assert_ne!(unfed, linked);
    let proposed = change(&client, CARLA, propose(file_change(&unfed))).await.expect("proposed");
    change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    client.ok("B1", open()).await;
    for seat in [1, 2] {
        client.ok("B1", sell(seat, 1)).await;
        client.ok("B1", press(seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    for order in client.orders().await.into_iter().filter(|order| order.status == "pendiente") {
        client.confirm(&order.order_id, "F-2").await.expect("confirmed");
    }
    let retire = pb::propose_change::What::RetireLevel(pb::LevelRetirement {
        pool_id: "mercado-blackjack".into(),
        level: "Minor".into(),
        to_level: "Major".into(),
    });
    let proposed = change(&client, CARLA, propose(retire)).await.expect("proposed");
    assert_eq!(change(&client, DIEGO, approve(&proposed)).await.expect("approved").status, "EN VIGOR");
    clock.set(NIGHT + DAY);
    client.ok("CP3", open()).await;
    server.stop().await.expect("stopped");

    let verified = run(vec!["verify".into(), "--data".into(), arg(&data)]).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert!(verified.status.success(), "{report:#}");
    assert_eq!((&report["chain"], &report["conservation"]), (&"ok".into(), &"ok".into()), "{report:#}");

    let key = directory.path().join("evidencia.pem");
    let made = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(made.status.success(), "{}", text(&made));
    let registered =
        PublicKey::parse(&std::fs::read_to_string(directory.path().join("evidencia.pem.pub")).expect("public")).expect("a key");
    let night = directory.path().join("2026-11-22.json");
    let args = ["evidence", "--jornada", "2026-11-22", "--out", &arg(&night), "--signing-key", &arg(&key), "--data", &arg(&data)];
    let output = run(args.iter().map(|arg| (*arg).to_owned()).collect()).await;
    assert!(output.status.success(), "{}", text(&output));
    let verdict = pozo_verifier::verify_paths(&[PathBuf::from(&night)], &registered).expect("read");
    let said = pozo_verifier::castellano(&verdict);
    assert!(verdict.conforme, "{said}");
    let file = &verdict.files[0];
    assert!(file.levels.values().flatten().all(|level| level.books.ties()), "{said}");
    // The Minor's money went to the Major: the Minor closes at zero, its transfers out are the
    // Major's transfers in.
    let level = |name: &str| file.levels["mercado-blackjack"].iter().find(|level| level.level == name).expect(name).books.clone();
    let (minor, major) = (level("Minor"), level("Major"));
    assert_eq!(minor.closing_balance + minor.closing_reserve, Money::ZERO, "{said}");
    assert!(minor.transfers_out > Money::ZERO && minor.transfers_out == major.transfers_in, "{said}");
    // The house paid the envy: CP1's seat 1 and CP2's seat 3 (CP2's seat 2 rejected).
    let house = level_of(&file.levels["mercado-tcp"], "Pagado por la casa");
    assert_eq!(house.awards - house.awards_returned, "300000.00".parse::<Money>().expect("amount"), "{said}");

    // The house's level told as if CP2's seat 3 had not been paid, signed again with the casino's
    // own key: the recomputation names the pool and the level.
    let casino = pozo_verifier::SigningKey::from_pem(&std::fs::read_to_string(&key).expect("the key")).expect("the key");
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&night).expect("read")).expect("JSON");
    let mut evidence = file["evidence"].clone();
    let house = evidence["closing"]["levels"]["mercado-tcp"]
        .as_array_mut()
        .expect("the pool's levels")
        .iter_mut()
        .find(|level| level["level"] == "Pagado por la casa")
        .expect("the house's level");
    house["meters"]["awards"] = "300000.00".into();
    let evidence: pozo_verifier::format::Evidence = serde_json::from_value(evidence).expect("still an evidence");
    let verdict =
        pozo_verifier::verify(&[("envidia.json".to_owned(), pozo_verifier::make::seal(&evidence, &casino))], &registered);
    assert!(!verdict.conforme);
    let (_, problem) = verdict.problem.clone().expect("a problem named");
    assert!(problem.message.contains("pozo mercado-tcp, nivel Pagado por la casa"), "{}", problem.message);
}

fn level_of(levels: &[pozo_verifier::LevelBooks], name: &str) -> pozo_engine::Reconciliation {
    levels.iter().find(|level| level.level == name).expect(name).books.clone()
}
