//! The market's progressives through the real controller on 127.0.0.1:0 (docs/readings.md,
//! "Levels", "The envy bonus"), with the example layout `config/examples/mercado-casino.toml`
//! and the rulebooks `config/iplyc.toml` and `config/mercado.toml`: Three Card Poker at CP1
//! with the envy bonus, the four-level Black Jack link at B1–B4.

mod common;

use common::changes::*;
use common::market::*;
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use tonic::Code;

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
    // A straight flush (50.000,00, under the file's 100.000,00) goes to Venta-Pagos by its own
    // threshold, 40.000,00; a pierna (25.000,00) is paid at the table.
    client.ok("CP1", finish()).await;
    for seat in [1, 2] {
        client.ok("CP1", sell(seat, 1)).await;
        client.ok("CP1", press(seat)).await;
    }
    client.ok("CP1", start()).await;
    client.ok("CP1", prize(1, "ESCALERA_COLOR")).await;
    client.ok("CP1", prize(2, "PIERNA")).await;
    client.ok("CP1", accept()).await;
    let pending: Vec<(u32, String)> = client
        .orders()
        .await
        .iter()
        .filter(|order| order.status == "pendiente")
        .map(|order| (order.seat, order.code.clone()))
        .collect();
    assert_eq!(pending, [(1, "ESCALERA_COLOR".to_owned())]);
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

/// A whole file of the configuration, as a proposal's one change.
fn file_change(name: &str, text: &str) -> pb::propose_change::What {
    pb::propose_change::What::Configuration(pb::ConfigurationChange {
        files: vec![pb::ConfigFile { name: name.to_owned(), text: text.to_owned() }],
        ..Default::default()
    })
}

// Proves a level's money settings come into force after that level's next hit, not another
// level's: the Mini's reset raised from 10.000,00 to 12.000,00, approved by two people, waits
// through a Grand hit and comes into force when the Mini is next won whole; until then the Mini
// is reset at the old amount.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_levels_money_setting_waits_for_that_levels_next_hit() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    let text = include_str!("../../config/mercado.toml");
    let from = "name = \"Mini\"\nshare = \"0.02\"\nreset = \"10000.00\"";
    assert_eq!(text.matches(from).count(), 1, "the link's Mini is written once");
    let to = "name = \"Mini\"\nshare = \"0.02\"\nreset = \"12000.00\"";
    let proposed =
        change(&client, CARLA, propose(file_change("mercado.toml", &text.replacen(from, to, 1)))).await.expect("proposed");
    let lines: Vec<&str> = proposed.differences.iter().map(|difference| difference.text.as_str()).collect();
    assert_eq!(lines, ["Pozo mercado-blackjack — nivel Mini: reinicio: $ 10.000,00 → $ 12.000,00"], "{proposed:?}");
    assert!(proposed.differences[0].money);
    let approved = change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    assert_eq!(approved.status, "PROGRAMADO", "{approved:?}");

    // A Grand hit: the Mini's change still waits.
    client.ok("B1", open()).await;
    client.ok("B1", sell(1, 5)).await;
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    assert_eq!(proposals(&client, CARLA).await[0].status, "PROGRAMADO", "a Grand hit is not the Mini's");

    // The Mini won whole: reset at the old 10.000,00 in the round, the new reset in force after it.
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    let in_force = proposals(&client, CARLA).await;
    assert_eq!(in_force[0].status, "EN VIGOR", "{in_force:?}");
    server.stop().await;
}

// Proves a level's money is never dropped by a change: a rulebook without the Mini, or with the
// Grand no longer first, is refused at its proposal, naming the level, and nothing is journaled
// as in force; a level added at the end opens at its reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_never_drops_a_level_and_a_new_level_opens_at_its_reset() {
    let server = TestServer::with_config(mercado()).await;
    let client = server.client().await;
    let text = include_str!("../../config/mercado.toml");
    let mini = text.find("[[pool.level]]\nname = \"Mini\"").expect("the Mini");
    let mini_end = text[mini..].find("[[pool.prize]]").expect("the prizes after it") + mini;
    let without_mini = format!("{}{}", &text[..mini], &text[mini_end..])
        .replacen("code = \"TRES_SIETES\"\nname = \"Tres sietes\"\narticle = \"Mini\"\npays = \"percent\"\npercent = \"100\"\nlevel = \"Mini\"", "code = \"TRES_SIETES\"\nname = \"Tres sietes\"\narticle = \"Mini\"\npays = \"percent\"\npercent = \"100\"\nlevel = \"Minor\"", 1)
        .replacen("share = \"0.03\"", "share = \"0.05\"", 1);
    let refused = change(&client, CARLA, propose(file_change("mercado.toml", &without_mini))).await.expect_err("refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("level `Mini` is missing"), "{refused:?}");
    assert!(proposals(&client, CARLA).await.is_empty(), "nothing proposed");

    // A fifth level, "Mega", taken from the commission: proposed, approved, in force after the
    // first level's next hit; it opens at its reset.
    let with_mega = text.replacen("commission_rate = \"0.80\"", "commission_rate = \"0.79\"", 1).replacen(
        "[[pool.prize]]\ncode = \"TRES_SIETES_CORAZONES\"",
        "[[pool.level]]\nname = \"Mega\"\nshare = \"0.01\"\nreset = \"5000000.00\"\nminimum_kind = \"start\"\n\n[[pool.prize]]\ncode = \"TRES_SIETES_CORAZONES\"",
        1,
    );
    let proposed = change(&client, CARLA, propose(file_change("mercado.toml", &with_mega))).await.expect("proposed");
    let lines: Vec<&str> = proposed.differences.iter().map(|difference| difference.text.as_str()).collect();
    assert!(lines.iter().any(|line| line.contains("nivel nuevo") && line.contains("Mega")), "{lines:?}");
    let approved = change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    assert_eq!(approved.status, "PROGRAMADO");
    let mut client = server.client().await;
    client.ok("B1", open()).await;
    client.ok("B1", sell(1, 5)).await;
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    let before = money(&client.pool("mercado-blackjack").await.balance);
    client.ok("B1", finish()).await;
    assert_eq!(proposals(&client, CARLA).await[0].status, "EN VIGOR");
    let after = client.pool("mercado-blackjack").await;
    assert_eq!(money(&after.balance) - before, "5000000.00".parse::<Money>().expect("amount"), "the Mega opens at its reset");
    server.stop().await;
}

// Proves the cross-game Grand with a Major per flor: a roulette series at R1 (its own bet,
// 3.000,00), Black Jack at B1 (1.000,00) and Three Card Poker at CP1 (500,00) all raise the one
// pool by their own bets; four aces at B1 take F2's Major only (its reset and F2's 4 %), a
// straight flush at CP1 F3's; a Black Jack code is refused at a poker table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_grand_across_games_and_a_major_per_flor() {
    let server = TestServer::with_config(enlace()).await;
    let mut client = server.client().await;
    client.ok("B1", open()).await;
    client.ok("CP1", open()).await;
    for seat in [1, 2] {
        client.ok("B1", sell(seat, 1)).await;
        client.ok("B1", press(seat)).await;
        client.ok("CP1", sell(seat, 1)).await;
        client.ok("CP1", press(seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("CP1", start()).await;
    client.ok("R1", open()).await;
    client.ok("R1", sell(1, 1)).await;
    let view = client.ok("R1", press(1)).await.table.expect("view");
    assert_eq!(view.seats[0].bronze, 3, "the roulette's series: three bronzes (3.1.3)");
    let report = client.pool("mercado-gran-sala").await;
    assert_eq!(
        money(&report.bets_amount),
        "6000.00".parse::<Money>().expect("amount"),
        "2 × 1.000,00 + 2 × 500,00 + 3.000,00: each game its bet"
    );
    // 1 % of each bet, whatever its game, to the Grand's reserve.
    assert_eq!(money(&report.reserve), "60.00".parse::<Money>().expect("amount"));
    let refusal = client.refused("CP1", prize(1, "CUATRO_ASES"), Code::InvalidArgument).await;
    assert!(refusal.contains("three-card-poker"), "{refusal}");
    client.ok("B1", prize(1, "CUATRO_ASES")).await;
    let paid = client.ok("B1", accept()).await.awards;
    assert_eq!(money(&paid[0].award), "100080.00".parse::<Money>().expect("amount"), "F2's Major: 100.000,00 + 2 × 40,00");
    client.ok("CP1", prize(2, "ESCALERA_COLOR")).await;
    let paid = client.ok("CP1", accept()).await.awards;
    assert_eq!(money(&paid[0].award), "100040.00".parse::<Money>().expect("amount"), "F3's Major: 100.000,00 + 2 × 20,00");
    server.stop().await;
}

// Proves the banked levels read apart: after bets at F2 and F3, Reports/Pool lists one Major and
// one Mini per flor, named with it, each with its own meter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_flors_meter_is_reported_under_its_own_name() {
    let server = TestServer::with_config(enlace()).await;
    let mut client = server.client().await;
    for table in ["B1", "CP1"] {
        client.ok(table, open()).await;
        client.ok(table, sell(1, 1)).await;
        client.ok(table, press(1)).await;
        client.ok(table, start()).await;
    }
    let report = client.pool("mercado-gran-sala").await;
    let levels: Vec<(String, Money)> = report.levels.iter().map(|level| (level.name.clone(), money(&level.balance))).collect();
    let expect = |name: &str, amount: &str| (name.to_owned(), amount.parse::<Money>().expect("amount"));
    assert_eq!(
        levels,
        [
            expect("Grand", "5000090.00"),
            expect("Major · F2", "100040.00"),
            expect("Major · F3", "100020.00"),
            expect("Mini · F2", "10030.00"),
            expect("Mini · F3", "10015.00"),
            // The link's mystery level (docs/readings.md, "The mystery level"): 2 % of each bet.
            expect("Misterioso", "20030.00"),
            expect("Pagado por la casa", "0.00"),
        ]
    );
    server.stop().await;
}

// Proves the envy bonus across the link (`scope = "link"`): a spades Mini Royal at CP1 pays the
// bonus to every other seat with the side bet in force at CP1 *and* at CP2 — CP2's seat 2 too,
// which is not the hitter —, each award booked at its own table (CP2's on its panel, its PPPA,
// its payout orders); a Venta-Pagos rejection of CP2's seat 2 undoes that award only.
#[tokio::test]
async fn an_envy_bonus_across_the_link_is_paid_at_every_table_of_the_link_each_at_its_own() {
    let edited = mercado_envy_across_the_link();
    let server = TestServer::with_config(mercado_edited(&edited)).await;
    let mut client = server.client().await;
    for (table, seats) in [("CP1", [1, 2]), ("CP2", [2, 3])] {
        client.ok(table, open()).await;
        for seat in seats {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
    let before = client.pool("mercado-tcp").await;
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    let reply = client.ok("CP1", accept()).await;
    let home: Vec<(u32, String)> = reply.awards.iter().map(|award| (award.seat, award.code.clone())).collect();
    assert_eq!(
        home,
        [(2, "MINI_ROYAL_PICAS".to_owned()), (1, "ENVIDIA_MINI_ROYAL_PICAS".to_owned())],
        "CP1 answers for its own seats"
    );
    let view = client.view("CP2").await;
    let linked: Vec<(String, u32, String, Money)> = view
        .link_awards
        .iter()
        .map(|linked| {
            let award = linked.award.as_ref().expect("an award");
            (linked.from_table_id.clone(), award.seat, award.code.clone(), money(&award.award))
        })
        .collect();
    let envy: Money = "150000.00".parse().expect("amount");
    assert_eq!(
        linked,
        [
            ("CP1".to_owned(), 2, "ENVIDIA_MINI_ROYAL_PICAS".to_owned(), envy),
            ("CP1".to_owned(), 3, "ENVIDIA_MINI_ROYAL_PICAS".to_owned(), envy),
        ],
        "CP2's seats, both, shown on CP2's panel"
    );
    assert!(client.view("CP1").await.link_awards.is_empty());
    // Each award over the threshold goes to Venta-Pagos at its own table.
    let mut orders: Vec<(String, u32, String)> =
        client.orders().await.iter().map(|order| (order.table_id.clone(), order.seat, order.code.clone())).collect();
    orders.sort();
    assert_eq!(
        orders,
        [
            ("CP1".to_owned(), 1, "ENVIDIA_MINI_ROYAL_PICAS".to_owned()),
            ("CP1".to_owned(), 2, "MINI_ROYAL_PICAS".to_owned()),
            ("CP2".to_owned(), 2, "ENVIDIA_MINI_ROYAL_PICAS".to_owned()),
            ("CP2".to_owned(), 3, "ENVIDIA_MINI_ROYAL_PICAS".to_owned()),
        ]
    );
    // CP2's PPPA has its own seats' envy; CP1's its hand and its seat's envy.
    let meter = money(&before.displayed);
    assert_eq!(money(&client.report("CP2").await.pppa), envy + envy);
    assert_eq!(money(&client.report("CP1").await.pppa), meter + envy);
    // A winning box is not refunded, at CP2 either.
    let refusal = client.refused("CP2", refund_bet(2), Code::FailedPrecondition).await;
    assert!(refusal.contains("prize"), "{refusal}");
    // Venta-Pagos rejects CP2's seat 2: that award only, not CP1's seat 2 (the hitter).
    let order =
        client.orders().await.into_iter().find(|order| order.table_id == "CP2" && order.seat == 2).expect("CP2's seat 2's order");
    client.reject(&order.order_id, "boleta inválida").await.expect("rejected");
    let orders = client.orders().await;
    let status = |table: &str, seat: u32, code: &str| {
        orders
            .iter()
            .find(|order| order.table_id == table && order.seat == seat && order.code == code)
            .map(|order| order.status.clone())
            .expect("the order")
    };
    assert_eq!(status("CP2", 2, "ENVIDIA_MINI_ROYAL_PICAS"), "rechazada");
    assert_eq!(status("CP2", 3, "ENVIDIA_MINI_ROYAL_PICAS"), "pendiente");
    assert_eq!(status("CP1", 2, "MINI_ROYAL_PICAS"), "pendiente");
    assert_eq!(money(&client.report("CP2").await.pppa), envy, "the rejected award off CP2's PPPA");
    assert_eq!(money(&client.report("CP1").await.pppa), meter + envy, "CP1's untouched");
    // CP2's FINALIZAR clears what its panel showed from the link.
    client.ok("CP2", finish()).await;
    assert!(client.view("CP2").await.link_awards.is_empty());
    server.stop().await;
}

fn retire_level(pool: &str, level: &str, to: &str) -> pb::propose_change::What {
    pb::propose_change::What::RetireLevel(pb::LevelRetirement {
        pool_id: pool.to_owned(),
        level: level.to_owned(),
        to_level: to.to_owned(),
    })
}

fn level_balance(report: &pb::PoolReport, name: &str) -> Money {
    let level = report.levels.iter().find(|level| level.name == name).unwrap_or_else(|| panic!("level {name}: {report:?}"));
    money(&level.balance) + money(&level.reserve)
}

// Proves a level is retired by procedure, never dropped (docs/readings.md, "Retiring a level"):
// refused while it still takes a share of the bets; a change sets the Minor's share to 0, gives it
// to the Major and moves the Minor's prize there (in force after the Grand's next hit); the
// retirement, approved by two people, moves the Minor's whole balance to the Major, booked as a
// transfer, the pool's balance unchanged; the Minor leaves the signs and panels but stays, frozen,
// in Reports/Pool; a second retirement and a change feeding it again are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_level_is_retired_by_procedure_its_money_moved_to_another_level() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    let refused = change(&client, CARLA, propose(retire_level("mercado-blackjack", "Minor", "Major"))).await.expect_err("fed");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert!(refused.message().contains("still takes 0.03"), "{refused:?}");
    let refused = change(&client, CARLA, propose(retire_level("mercado-blackjack", "Grand", "Major"))).await.expect_err("first");
    assert!(refused.message().contains("retire the pool instead"), "{refused:?}");

    let text = include_str!("../../config/mercado.toml");
    let minor = "name = \"Minor\"\nshare = \"0.03\"";
    let major = "name = \"Major\"\nshare = \"0.05\"";
    let aces = "code = \"CUATRO_ASES\"\nname = \"Cuatro ases\"\narticle = \"Minor\"\npays = \"percent\"\npercent = \"100\"\nlevel = \"Minor\"";
    for from in [minor, major, aces] {
        assert_eq!(text.matches(from).count(), 1, "{from}");
    }
    let unfed = text
        .replacen(minor, "name = \"Minor\"\nshare = \"0\"", 1)
        .replacen(major, "name = \"Major\"\nshare = \"0.08\"", 1)
        .replacen(aces, &aces.replace("level = \"Minor\"", "level = \"Major\""), 1);
    let proposed = change(&client, CARLA, propose(file_change("mercado.toml", &unfed))).await.expect("proposed");
    assert_eq!(change(&client, DIEGO, approve(&proposed)).await.expect("approved").status, "PROGRAMADO");
    // Bets feed every level; the Grand's hit puts the change in force.
    client.ok("B1", open()).await;
    for seat in [1, 2, 3] {
        client.ok("B1", sell(seat, 5)).await;
        client.ok("B1", press(seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    let orders = client.orders().await;
    for order in orders.iter().filter(|order| order.status == "pendiente") {
        client.confirm(&order.order_id, "F-9").await.expect("paid");
    }
    assert_eq!(proposals(&client, CARLA).await[0].status, "EN VIGOR");

    let before = client.pool("mercado-blackjack").await;
    let (minor_before, major_before) = (level_balance(&before, "Minor"), level_balance(&before, "Major"));
    assert!(minor_before > Money::ZERO);
    let proposed =
        change(&client, CARLA, propose(retire_level("mercado-blackjack", "Minor", "Major"))).await.expect("now it may be");
    assert!(proposed.summary.contains("Retiro del nivel Minor del pozo mercado-blackjack"), "{proposed:?}");
    assert_eq!(change(&client, DIEGO, approve(&proposed)).await.expect("approved").status, "EN VIGOR");
    let after = client.pool("mercado-blackjack").await;
    assert_eq!(level_balance(&after, "Minor"), Money::ZERO);
    assert_eq!(level_balance(&after, "Major"), major_before + minor_before, "the whole Minor, to the centavo");
    assert_eq!(money(&after.balance) + money(&after.reserve), money(&before.balance) + money(&before.reserve));
    assert!(money(&after.transfers_in) > Money::ZERO && after.transfers_in == after.transfers_out, "{after:?}");
    // Off the panels and signs, kept in the reports.
    let view = client.view("B1").await;
    let names: Vec<&str> = view.levels.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(names, ["Grand", "Major", "Mini"]);
    // Bets go on; the retired level takes nothing.
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    assert_eq!(level_balance(&client.pool("mercado-blackjack").await, "Minor"), Money::ZERO);
    client.ok("B1", finish()).await;
    // Retired once; never fed again.
    let refused = change(&client, CARLA, propose(retire_level("mercado-blackjack", "Minor", "Major"))).await.expect_err("again");
    assert!(refused.message().contains("retired already"), "{refused:?}");
    let fed_again = unfed.replacen("name = \"Minor\"\nshare = \"0\"", "name = \"Minor\"\nshare = \"0.01\"", 1).replacen(
        "name = \"Major\"\nshare = \"0.08\"",
        "name = \"Major\"\nshare = \"0.07\"",
        1,
    );
    let refused = change(&client, CARLA, propose(file_change("mercado.toml", &fed_again))).await.expect_err("fed again");
    assert!(refused.message().contains("level `Minor` is retired"), "{refused:?}");
    server.stop().await;
}

// Proves a prize's and a level's own Venta-Pagos thresholds are lines of a change of their own,
// shown before and after, not money settings (they move no money: they say who pays), so in force
// at approval; and the new threshold decides at once: a straight flush of 50.000,00 goes to the
// table once its own threshold is raised to 60.000,00.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prizes_and_a_levels_venta_pagos_thresholds_are_lines_of_a_change() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    let prize_threshold = "venta_pagos_over = \"40000.00\"";
    let grand = "name = \"Grand\"\nshare = \"0.08\"";
    assert_eq!(MERCADO.matches(prize_threshold).count(), 1);
    assert_eq!(MERCADO.matches(grand).count(), 1);
    let text = MERCADO.replacen(prize_threshold, "venta_pagos_over = \"60000.00\"", 1).replacen(
        grand,
        "name = \"Grand\"\nventa_pagos_over = \"1500000.00\"\nshare = \"0.08\"",
        1,
    );
    let proposed = change(&client, CARLA, propose(file_change("mercado.toml", &text))).await.expect("proposed");
    let lines: Vec<(&str, bool)> =
        proposed.differences.iter().map(|difference| (difference.text.as_str(), difference.money)).collect();
    assert_eq!(
        lines,
        [
            ("Pozo mercado-blackjack — nivel Grand: umbral de Venta-Pagos: el del pozo → $ 1.500.000,00", false),
            ("Pozo mercado-tcp — premio ESCALERA_COLOR: umbral de Venta-Pagos: $ 40.000,00 → $ 60.000,00", false),
        ],
        "{proposed:?}"
    );
    assert_eq!(change(&client, DIEGO, approve(&proposed)).await.expect("approved").status, "EN VIGOR");
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(1, 1)).await;
    client.ok("CP1", press(1)).await;
    client.ok("CP1", start()).await;
    client.ok("CP1", prize(1, "ESCALERA_COLOR")).await;
    client.ok("CP1", accept()).await;
    assert!(client.orders().await.is_empty(), "50.000,00 is under its new threshold: paid at the table");
    server.stop().await;
}
