//! The market's progressives through the real controller on 127.0.0.1:0 (docs/readings.md,
//! "Levels", "The envy bonus"), with the example layout `config/examples/mercado-casino.toml`
//! and the rulebooks `config/iplyc.toml` and `config/mercado.toml`: Three Card Poker at CP1
//! with the envy bonus, the four-level Black Jack link at B1–B4.

mod common;

use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::config::{Config, KEYS_EMBEDDED};
use tonic::Code;

/// The market's example layout, rulebooks and the example keys.
pub fn mercado() -> Config {
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml")),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml")),
        ("config/mercado.toml", include_str!("../../config/mercado.toml")),
    ];
    let texts = texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

fn money(value: &Option<pb::Amount>) -> Money {
    amount(value).parse().unwrap_or_else(|_| panic!("an amount: {value:?}"))
}

// Proves a round of Three Card Poker with the spades Mini Royal at seat 2: the meter is paid
// whole through Venta-Pagos (a percentage prize), every other seat with the side bet in force
// wins the envy bonus, each its own journaled award with its seat, paid by the house; a seat
// without the bet wins nothing; the envy bonus is never entered by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_card_poker_pays_the_meter_and_the_envy_to_every_other_seat_in_force() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    client.ok("CP1", open()).await;
    for seat in [1, 2, 3, 5] {
        client.ok("CP1", sell(seat, 1)).await;
        client.ok("CP1", press(seat)).await;
    }
    client.ok("CP1", start()).await;
    let before = client.pool("mercado-tcp").await;
    let meter = money(&before.displayed);
    assert_eq!(before.bets, 4);
    let refusal = client.refused("CP1", prize(3, "ENVIDIA_MINI_ROYAL_PICAS"), Code::InvalidArgument).await;
    assert!(refusal.contains("envy bonus"), "{refusal}");
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    let reply = client.ok("CP1", accept()).await;
    let awards: Vec<(u32, String, Money)> =
        reply.awards.iter().map(|award| (award.seat, award.code.clone(), money(&award.award))).collect();
    assert!(awards.contains(&(2, "MINI_ROYAL_PICAS".to_owned(), meter)), "{awards:?}");
    for seat in [1, 3, 5] {
        assert!(
            awards.contains(&(seat, "ENVIDIA_MINI_ROYAL_PICAS".to_owned(), "50000.00".parse().expect("amount"))),
            "{awards:?}"
        );
    }
    assert_eq!(awards.len(), 4, "seat 4 had no bet in force: {awards:?}");
    // The meter's prize is a percentage: Venta-Pagos pays it; the envy awards (under the
    // threshold) are paid at the table.
    let orders = client.orders().await;
    assert_eq!(orders.len(), 1, "{orders:?}");
    assert_eq!((orders[0].seat, orders[0].code.as_str()), (2, "MINI_ROYAL_PICAS"));
    client.confirm(&orders[0].order_id, "F-1").await.expect("confirmed");
    let after = client.pool("mercado-tcp").await;
    assert_eq!(money(&after.displayed), "2500000.00".parse::<Money>().expect("the reset"), "the meter back at its reset");
    // PPPA: the meter and the three envy awards.
    assert_eq!(money(&after.awards) - money(&before.awards), meter + "150000.00".parse::<Money>().expect("amount"));
    server.stop().await;
}

// Proves the four-level link: bets at B1 and B3 feed each level its share; a round at B2 with
// the Grand and the Mini pays each from its own level, whole; the Major and the Minor do not
// move; the pool's figures are the levels' added.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_four_level_link_pays_each_level_from_its_own_meter() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    for table in ["B1", "B2", "B3"] {
        client.ok(table, open()).await;
        for seat in [1, 2] {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
    let report = client.pool("mercado-blackjack").await;
    assert_eq!(report.bets, 6);
    // 6 bets of 1,000: 480 to the Grand, 120 to its reserve, 300 to the Major, 180 the Minor, 120 the Mini.
    let resets: Money =
        ["2000000.00", "200000.00", "50000.00", "10000.00"].iter().map(|text| text.parse::<Money>().expect("amount")).sum();
    assert_eq!(money(&report.balance), resets + "1080.00".parse::<Money>().expect("amount"));
    assert_eq!(money(&report.reserve), "120.00".parse::<Money>().expect("amount"));
    client.ok("B2", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B2", prize(2, "TRES_SIETES")).await;
    let reply = client.ok("B2", accept()).await;
    let paid: Vec<(String, Money)> = reply.awards.iter().map(|award| (award.code.clone(), money(&award.award))).collect();
    assert_eq!(
        paid,
        [
            ("TRES_SIETES_CORAZONES".to_owned(), "2000480.00".parse().expect("amount")),
            ("TRES_SIETES".to_owned(), "10120.00".parse().expect("amount"))
        ]
    );
    let after = client.pool("mercado-blackjack").await;
    // Grand and Mini back at their resets (the Grand's reserve went into its reset first), the
    // Major and the Minor as they were.
    assert_eq!(
        money(&after.balance),
        resets + "300.00".parse::<Money>().expect("amount") + "180.00".parse::<Money>().expect("amount")
    );
    assert_eq!(money(&after.reserve), Money::ZERO);
    server.stop().await;
}
