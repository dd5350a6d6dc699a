//! The controller and `pozo-server award` answer the same: rounds played at the real server
//! (gRPC, `127.0.0.1:0`) are fed to the real calculator binary as round files built from the
//! pool as it stood when the prizes were marked, and their awards compared. And every place
//! that shows a pool's amount (the table's panel, `Pools/Status`, `Reports/Pool`, the display
//! feed) shows the same visor.

mod common;

use std::process::Command;

use common::*;
use pozo_proto::v1 as pb;
use rust_decimal::Decimal;
use serde_json::{Value, json};

/// Runs `pozo-server award` on `round` and returns its JSON report.
fn calculator(round: &Value) -> Value {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("round.json");
    std::fs::write(&path, round.to_string()).expect("round file written");
    let output = Command::new(env!("CARGO_BIN_EXE_pozo-server"))
        .args(["award", "--round", path.to_str().expect("UTF-8 path")])
        .output()
        .expect("pozo-server runs");
    assert!(output.status.success(), "{round}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn decimal(text: &str) -> Decimal {
    text.parse().expect("a decimal amount")
}

/// (seat, code, award) of the calculator's report, in the order it pays them: the instant
/// prizes paid on their own first (16.4.2.5.1), then the round's.
fn calculated(report: &Value) -> Vec<(u32, String, Decimal)> {
    let instant = report["instant_prizes"].as_array().cloned().unwrap_or_default();
    instant
        .iter()
        .chain(report["awards"].as_array().expect("awards"))
        .map(|award| {
            (
                award["seat"].as_u64().expect("seat") as u32,
                award["code"].as_str().expect("code").to_owned(),
                decimal(award["award"].as_str().expect("award")),
            )
        })
        .collect()
}

fn paid(awards: &[pb::AwardView]) -> Vec<(u32, String, Decimal)> {
    awards.iter().map(|award| (award.seat, award.code.clone(), decimal(&amount(&award.award)))).collect()
}

/// The visor of `pool` as the panel of `table`, `Pools/Status`, `Reports/Pool` and the display
/// feed show it; all four must be one amount.
async fn visor(client: &mut Client, table: &str, pool: &str) -> Decimal {
    let panel = decimal(&amount(&client.view(table).await.displayed));
    let status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![pool.into()] }).await.expect("status").into_inner();
    let status = decimal(&amount(&status.pools[0].displayed));
    let report = decimal(&amount(&client.pool(pool).await.displayed));
    let mut feed = client
        .display
        .watch(pb::WatchDisplays { pool_ids: vec![pool.into()], salon_id: String::new() })
        .await
        .expect("watch")
        .into_inner();
    let sign = decimal(&amount(&feed.message().await.expect("stream").expect("an update").pools[0].displayed));
    assert_eq!((panel, status, report), (sign, sign, sign), "{pool}: panel, status, report and sign agree");
    sign
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn and_poquer_6_3_the_carrusels_visor_goes_down_with_every_payment_everywhere() {
    // Póquer sin descarte 6.3: the prizes "serán descontados de la suma acumulada en el visor en
    // la medida que se vayan produciendo"; 6.2 floors only the starting amount, "no podrá ser
    // inferior al resultado de multiplicar por 5.000 la apuesta". After a Póquer (300 × the
    // bet of 1) the visor shows 300 less wherever it is read, and the next royal flush is paid
    // what it shows, by the controller and by the calculator alike.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("P1", &[(1, 5), (2, 5)]).await;
    let start_visor = visor(&mut client, "P1", "and-carrusel").await;
    client.press_all("P1", &[1, 2]).await;
    client.ok("P1", start()).await;
    let before_poker = client.pool("and-carrusel").await;
    let poker = client.settle_round("P1", &[(1, "POKER")]).await.accepted;
    assert_eq!(paid(&poker.awards)[0].2, decimal("300"), "6.3 c): 300 × the bet of 1");
    let after_poker = visor(&mut client, "P1", "and-carrusel").await;
    // The two bets added 70% each (the rulebook's rate); the Póquer came off the visor.
    assert_eq!(after_poker, start_visor + decimal("1.40") - decimal("300"));
    assert_eq!(after_poker, decimal(&amount(&client.pool("and-carrusel").await.balance)), "the visor is the balance");

    // The same Póquer to the calculator, from the pool as it was marked.
    let report = calculator(&json!({
        "pool": "and-carrusel",
        "balance": amount(&before_poker.balance),
        "winners": [{"seat": 1, "code": "POKER", "bet": "1.00"}],
    }));
    assert_eq!(calculated(&report), paid(&poker.awards));
    assert_eq!(decimal(report["displayed_after"].as_str().expect("displayed_after")), after_poker);

    client.ok("P1", press(1)).await;
    client.ok("P1", start()).await;
    let before_royal = client.pool("and-carrusel").await;
    client.ok("P1", prize(1, "ESCALERA_REAL_COLOR")).await;
    let royal = client.ok("P1", accept()).await;
    let report = calculator(&json!({
        "pool": "and-carrusel",
        "balance": amount(&before_royal.balance),
        "winners": [{"seat": 1, "code": "ESCALERA_REAL_COLOR", "bet": "1.00"}],
    }));
    assert_eq!(calculated(&report), paid(&royal.awards));
    assert_eq!(paid(&royal.awards)[0].2, after_poker + decimal("0.70"), "6.3 a): the whole visor, 300 less");
    client.ok("P1", finish()).await;
    assert_eq!(visor(&mut client, "P1", "and-carrusel").await, decimal("5000"), "6.2: it starts again at 5,000");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_16_4_2_5_1_the_calculator_pays_the_instant_prize_alone_as_the_controller_does() {
    // 16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO INSTANTÁNEO, procederá a su
    // pago en forma inmediata"; 15.9: the factor for "diferentes ganadores en una partida". Two
    // royal flushes (100% each) and the instant prize in one round: the controller pays the
    // $ 30 whole when it is entered, then prorates the two royal flushes on what the sign shows
    // after it. The calculator, given the same round, answers the same awards.
    let (server, mut client) = TestServer::seeded_with_client(11).await;
    client.ok("CP2", open()).await;
    for seat in 1..=3 {
        for _ in 0..5 {
            client.ok("CP2", sell(seat, 20)).await;
        }
    }
    client.until_instant_card("CP2", &[1, 2, 3]).await;
    let before = client.pool("iplyc-central-poker").await;
    let instant = client.ok("CP2", prize(3, "PREMIO_INSTANTANEO")).await;
    client.ok("CP2", prize(1, "ESCALERA_REAL_MAYOR")).await;
    client.ok("CP2", prize(2, "ESCALERA_REAL_MAYOR")).await;
    let round = client.ok("CP2", accept()).await;
    let mut controller = paid(&instant.awards);
    controller.extend(paid(&round.awards));
    assert_eq!(controller[0].2, decimal("30.00"), "15.7.1.6: the instant prize whole");

    let report = calculator(&json!({
        "pool": "iplyc-central-poker",
        "balance": amount(&before.balance),
        "winners": [
            {"seat": 3, "code": "PREMIO_INSTANTANEO"},
            {"seat": 1, "code": "ESCALERA_REAL_MAYOR"},
            {"seat": 2, "code": "ESCALERA_REAL_MAYOR"},
        ],
    }));
    assert_eq!(calculated(&report), controller, "one code path: the calculator answers as the controller paid");
    let total: Decimal = controller.iter().map(|(_, _, award)| *award).sum();
    assert_eq!(decimal(report["total_paid"].as_str().expect("total_paid")), total);
    server.stop().await;
}
