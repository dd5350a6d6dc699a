//! A casino's year through the real server (docs/operations.md §8): a table added on a live
//! journal and played on, a minimum raised on a live pool taking effect exactly after its
//! next top prize, two-person refusals, and money moved between pools to the centavo.

mod common;

use std::collections::BTreeMap;

use common::changes::*;
use common::*;
use pozo_proto::v1 as pb;
use tonic::Code;

fn amount(value: &str) -> Option<pb::Amount> {
    Some(pb::Amount { value: value.into() })
}

/// Every pool's balance and displayed amount, as plain strings.
async fn pools(client: &mut Client) -> BTreeMap<String, (String, String)> {
    let status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("pools").into_inner();
    status
        .pools
        .into_iter()
        .map(|pool| {
            let text = |amount: Option<pb::Amount>| amount.map(|amount| amount.value).unwrap_or_default();
            (pool.pool_id, (text(pool.balance), text(pool.displayed)))
        })
        .collect()
}

async fn balance(client: &mut Client, pool: &str) -> (String, String) {
    pools(client).await.remove(pool).unwrap_or_else(|| panic!("pool {pool}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_added_mid_jornada_is_played_on_and_kept_across_a_restart() {
    let (server, mut client) = TestServer::with_client().await;
    // The jornada is under way at B1: 5 credits to seat 1, a bet: 10.00 × 65 % = 6.50 (11.2.3).
    client.round_started("B1", &[(1, 5)], &[1]).await;
    client.ok("B1", finish()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await.0, "5006.50");
    client.refused("B5", open(), Code::NotFound).await;

    let table = pb::TableToAdd {
        table_id: "B5".into(),
        flor: "F6".into(),
        pool_id: "iplyc-blackjack".into(),
        game: "blackjack".into(),
        seats: 7,
        salon: String::new(),
    };
    let proposed = change(&client, CARLA, propose(edits(vec![pb::config_edit::Edit::AddTable(table)]))).await.expect("proposed");
    assert_eq!(proposed.status, "PENDIENTE DE APROBACIÓN");
    assert_eq!(proposed.differences.len(), 1, "{proposed:?}");
    assert!(proposed.differences[0].text.starts_with("Mesa B5 — mesa nueva: blackjack en la flor F6"), "{proposed:?}");
    client.refused("B5", open(), Code::NotFound).await;
    let approved = change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    assert_eq!(approved.status, "EN VIGOR");
    assert_eq!(approved.approved_by.as_ref().map(|person| person.name.as_str()), Some("Diego Ruiz"));
    assert!(approved.effective_sequence > 0);

    // B5 plays on the same journal, into the same pool: two more bets of 6.50.
    client.round_started("B5", &[(1, 5), (2, 5)], &[1, 2]).await;
    client.ok("B5", finish()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await.0, "5019.50");

    // A restart replays the change from the journal: B5 is there and goes on.
    let data = server.stop().await.expect("the data directory");
    let server = TestServer::start_on(data.path().join("data")).await;
    let mut client = server.client().await;
    // Every start journals the build serving: the restart's record is the journal's last entry.
    let restart_entry = client.journal().await.entries;
    client.sequences.insert("B5".into(), 8);
    client.ok("B5", press(1)).await;
    client.ok("B5", start()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await.0, "5026.00");
    let history = proposals(&client, ELENA).await;
    assert_eq!(history.iter().map(|proposal| proposal.status.as_str()).collect::<Vec<_>>(), ["EN VIGOR"]);
    server.stop().await;

    // verify lists the one build that wrote the journal, with its two starts.
    let (output, report) = verify(&data.path().join("data"));
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let builds = report["builds"].as_array().expect("the builds");
    assert_eq!(builds.len(), 1, "{report:#}");
    assert_eq!((builds[0]["entry"].as_u64(), builds[0]["last_entry"].as_u64()), (Some(1), Some(restart_entry)), "{report:#}");
    assert_eq!(builds[0]["starts"], 2, "{report:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_minimum_raised_on_a_live_pool_takes_effect_exactly_after_its_next_top_prize() {
    let (server, mut client) = TestServer::with_client().await;
    // Two bets at B1, registered at INICIAR JUEGO (12.5.1.1): 2 × 10.00 × 65 % = 13.00 over
    // the opening 5.000,00 (11.2.1, 11.2.3).
    client.round_started("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, ("5013.00".into(), "5013.00".into()));

    let raise = pb::config_edit::Edit::PoolSetting(pb::PoolSetting {
        pool_id: "iplyc-blackjack".into(),
        setting: "minimum".into(),
        value: "6000.00".into(),
    });
    let proposed = change(&client, CARLA, propose(edits(vec![raise]))).await.expect("proposed");
    assert_eq!(proposed.differences[0].text, "Pozo iplyc-blackjack — mínimo: $ 5.000,00 → $ 6.000,00");
    assert!(proposed.differences[0].money);
    let approved = change(&client, ELENA, approve(&proposed)).await.expect("approved by the inspector");
    assert_eq!(approved.status, "PROGRAMADO", "a money setting of a live pool waits: {approved:?}");
    assert!(approved.effect.starts_with("tras el próximo premio mayor"), "{}", approved.effect);
    // Still the old rules: the sign shows the balance, over the old minimum.
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, ("5013.00".into(), "5013.00".into()));

    // The top prize (100 %, 11.5.1) takes the whole displayed amount, 5.013,00; the pool is
    // brought back to its minimum, still the old 5.000,00 in the middle of the round.
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    let accepted = client.ok("B1", accept()).await;
    assert_eq!(accepted.awards.first().and_then(|award| award.award.clone()).map(|a| a.value).as_deref(), Some("5013.00"));
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, ("5000.00".into(), "5000.00".into()));
    let waiting = proposals(&client, CARLA).await;
    assert_eq!(waiting[0].status, "PROGRAMADO", "never in the middle of a round");

    // FINALIZAR JUEGO ends the round: the new minimum is in force, and the sign shows it (R1).
    client.ok("B1", finish()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, ("5000.00".into(), "6000.00".into()));
    let in_force = proposals(&client, CARLA).await;
    assert_eq!(in_force[0].status, "EN VIGOR");
    assert!(in_force[0].effective_sequence > approved.approved_by.as_ref().expect("approved").journal_sequence);

    // The next top prize is paid at the new minimum: 5.006,50 in the pool, 6.000,00 paid, the
    // house completing 993,50 (11.2.2).
    client.ok("B1", press(2)).await;
    client.ok("B1", start()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, ("5006.50".into(), "6000.00".into()));
    client.ok("B1", prize(2, "TRES_SIETES_CORAZONES")).await;
    let accepted = client.ok("B1", accept()).await;
    assert_eq!(accepted.awards.first().and_then(|award| award.award.clone()).map(|a| a.value).as_deref(), Some("6000.00"));
    client.ok("B1", finish()).await;
    let report = client.pool("iplyc-blackjack").await;
    assert_eq!(report.awards.map(|a| a.value).as_deref(), Some("11013.00"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_single_person_changes_anything_and_a_refusal_journals_nothing() {
    let (server, mut client) = TestServer::with_client().await;
    let before = client.journal().await.entries;
    let transfer = || {
        pb::propose_change::What::Transfer(pb::PoolTransfer {
            from_pool_id: "iplyc-ruleta".into(),
            to_pool_id: "iplyc-central-poker".into(),
            amount: amount("100.00"),
        })
    };
    // Keys that are not a supervisor's: refused at the door.
    for key in ["mesa-B1", "vp-ana"] {
        let refused = change(&client, key, propose(transfer())).await.expect_err("not a supervisor");
        assert_eq!(refused.code(), Code::PermissionDenied, "{key}: {}", refused.message());
    }
    // English with its articles (issue 42, point 7): "an office key", "an inspector key".
    let refused = change(&client, "vp-ana", propose(transfer())).await.expect_err("an office key");
    assert!(refused.message().starts_with("key `vp-ana` is an office key;"), "{}", refused.message());
    // The inspector approves, never proposes.
    let refused = change(&client, ELENA, propose(transfer())).await.expect_err("the inspector proposes nothing");
    assert_eq!(refused.code(), Code::PermissionDenied);
    assert!(refused.message().contains("an inspector key may not propose a change"), "{}", refused.message());
    // A reason and the authorisation are required.
    for (reason, authorisation, field) in [("", "Nota 1", "reason"), ("Motivo", " ", "authorisation")] {
        let command = pb::change_command::Command::Propose(pb::ProposeChange {
            reason: reason.into(),
            authorisation: authorisation.into(),
            what: Some(transfer()),
        });
        let refused = change(&client, CARLA, command).await.expect_err("missing");
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert!(refused.message().starts_with(&format!("{field}: required")), "{}", refused.message());
    }
    // A setting the rulebook refuses is refused naming it.
    let wrong = pb::config_edit::Edit::PoolSetting(pb::PoolSetting {
        pool_id: "iplyc-blackjack".into(),
        setting: "contribution_rate".into(),
        value: "1.65".into(),
    });
    let refused = change(&client, CARLA, propose(edits(vec![wrong]))).await.expect_err("a rate over 1");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("contribution_rate"), "{}", refused.message());
    assert_eq!(client.journal().await.entries, before, "no refusal journals anything");

    // Carla proposes; Carla approving her own is refused; Diego approves.
    let proposed = change(&client, CARLA, propose(transfer())).await.expect("proposed");
    let own = change(&client, CARLA, approve(&proposed)).await.expect_err("her own");
    assert_eq!(own.code(), Code::PermissionDenied);
    assert!(own.message().contains("was proposed by Carla Medina; another person approves it"), "{}", own.message());
    assert_eq!(balance(&mut client, "iplyc-ruleta").await.0, "20000.00", "nothing moved");
    change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    let twice = change(&client, ELENA, approve(&proposed)).await.expect_err("already in force");
    assert_eq!(twice.code(), Code::FailedPrecondition);
    // A withdrawn proposal cannot be approved.
    let second = change(&client, CARLA, propose(transfer())).await.expect("proposed");
    let withdraw = pb::change_command::Command::Withdraw(pb::WithdrawChange {
        proposal_id: second.proposal_id.clone(),
        reason: "Cargado dos veces".into(),
    });
    assert_eq!(change(&client, CARLA, withdraw).await.expect("withdrawn").status, "RETIRADO");
    assert_eq!(change(&client, DIEGO, approve(&second)).await.expect_err("withdrawn").code(), Code::FailedPrecondition);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transfer_and_a_retirement_conserve_money_to_the_centavo() {
    let (server, mut client) = TestServer::with_client().await;
    let total = |pools: &BTreeMap<String, (String, String)>| -> rust_decimal::Decimal {
        pools.values().map(|(balance, _)| balance.parse::<rust_decimal::Decimal>().expect("an amount")).sum()
    };
    let before = pools(&mut client).await;
    let transfer = pb::propose_change::What::Transfer(pb::PoolTransfer {
        from_pool_id: "iplyc-ruleta".into(),
        to_pool_id: "iplyc-central-poker".into(),
        amount: amount("1234.56"),
    });
    let proposed = change(&client, CARLA, propose(transfer)).await.expect("proposed");
    assert_eq!(proposed.summary, "Transferencia de $ 1.234,56 del pozo iplyc-ruleta al pozo iplyc-central-poker");
    change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    let after = pools(&mut client).await;
    assert_eq!(after["iplyc-ruleta"].0, "18765.44");
    assert_eq!(after["iplyc-central-poker"].0, "11234.56");
    assert_eq!(total(&after), total(&before));

    // A pool a table still feeds is not retired; V1 is retired first (closed, holding nothing).
    let retire_pool = || {
        pb::propose_change::What::RetirePool(pb::PoolRetirement {
            pool_id: "and-bolsa".into(),
            to_pool_id: "and-carrusel".into(),
        })
    };
    let early = change(&client, CARLA, propose(retire_pool())).await.expect("proposed");
    let refused = change(&client, DIEGO, approve(&early)).await.expect_err("V1 feeds it");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(refused.message().contains("table V1 still feeds pool `and-bolsa`"), "{}", refused.message());
    // Out of service first: its agent cannot open it; and a busy table is not taken out.
    client.ok("P1", open()).await;
    let service = |table: &str, in_service| {
        edits(vec![pb::config_edit::Edit::TableService(pb::TableService { table_id: table.into(), in_service })])
    };
    let busy = change(&client, CARLA, propose(service("P1", false))).await.expect("proposed");
    let refused = change(&client, DIEGO, approve(&busy)).await.expect_err("P1 is open");
    assert!(refused.message().contains("table P1 is open or in a round"), "{}", refused.message());
    let out = change(&client, CARLA, propose(service("V1", false))).await.expect("proposed");
    assert_eq!(out.differences[0].text, "Mesa V1 — servicio: en servicio → fuera de servicio");
    change(&client, DIEGO, approve(&out)).await.expect("V1 out of service");
    let refused = client.refused("V1", open(), Code::FailedPrecondition).await;
    assert!(refused.contains("out of service"), "{refused}");
    let retire_v1 =
        change(&client, CARLA, propose(edits(vec![pb::config_edit::Edit::RetireTable("V1".into())]))).await.expect("ok");
    change(&client, DIEGO, approve(&retire_v1)).await.expect("V1 retired");
    client.refused("V1", open(), Code::NotFound).await;
    let retire = change(&client, CARLA, propose(retire_pool())).await.expect("proposed");
    change(&client, ELENA, approve(&retire)).await.expect("and-bolsa retired");
    let after = pools(&mut client).await;
    // 3.000,00 of the bolsa go to the carrusel's 5.000,00; the bolsa holds and shows nothing.
    assert_eq!(after["and-carrusel"].0, "8000.00");
    assert_eq!(after["and-bolsa"], ("0.00".into(), "0.00".into()));
    assert_eq!(total(&after), total(&before));
    let report = client.pool("and-bolsa").await;
    assert_eq!(report.replenishments.map(|amount| amount.value).as_deref(), Some("3000.00"), "its meters are kept");
    assert_eq!(report.transfers_out.map(|amount| amount.value).as_deref(), Some("3000.00"));
    assert!(report.retired);
    let carrusel = client.pool("and-carrusel").await;
    assert_eq!(carrusel.transfers_in.map(|amount| amount.value).as_deref(), Some("3000.00"));
    let ruleta = client.pool("iplyc-ruleta").await;
    assert_eq!(ruleta.transfers_out.map(|amount| amount.value).as_deref(), Some("1234.56"));
    // The jornada's books: each move on its own lines, every pool tied to zero (issue 30, §1).
    let books = books_of(&mut client, "").await;
    assert!(books.tied, "{books:?}");
    let line = |pool: &str, field: fn(&pb::PoolBooks) -> &Option<pb::Amount>| {
        let books = books.pools.iter().find(|books| books.pool_id == pool).expect("the pool's books");
        field(books).as_ref().map(|amount| amount.value.clone()).unwrap_or_default()
    };
    assert_eq!(line("iplyc-ruleta", |books| &books.transfers_out), "1234.56");
    assert_eq!(line("iplyc-central-poker", |books| &books.transfers_in), "1234.56");
    assert_eq!(line("and-bolsa", |books| &books.transfers_out), "3000.00", "the retirement moves the bolsa's balance out");
    assert_eq!(line("and-carrusel", |books| &books.transfers_in), "3000.00");
    assert_eq!(line("and-bolsa", |books| &books.closing_balance), "0.00");
    assert_eq!(line("iplyc-ruleta", |books| &books.transfers_in), "0.00", "nothing came into the ruleta");

    let data = server.stop().await.expect("the data directory");
    let (output, report) = verify(&data.path().join("data"));
    assert_eq!(report["conservation"], "ok", "{report:#}");
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    // The books as verify rebuilt them from the journal alone: the moves, and who decided them.
    assert_eq!(report["pools"]["and-bolsa"]["retired"], true, "{report:#}");
    assert_eq!(report["pools"]["iplyc-central-poker"]["transfers_in"], "1234.56", "{report:#}");
    let changes = report["changes"].as_array().expect("the changes in force");
    assert_eq!(changes.len(), 4, "the transfer, V1 out of service, V1 retired, the bolsa retired: {report:#}");
    assert_eq!(changes[0]["summary"], "Transferencia de $ 1.234,56 del pozo iplyc-ruleta al pozo iplyc-central-poker");
    assert_eq!(
        (changes[0]["proposed_by"].as_str(), changes[0]["approved_by"].as_str()),
        (Some("Carla Medina"), Some("Diego Ruiz"))
    );
    let builds = report["builds"].as_array().expect("the builds");
    assert_eq!(builds.len(), 1, "one build wrote this journal: {report:#}");
    assert_eq!((builds[0]["entry"].as_u64(), builds[0]["starts"].as_u64()), (Some(1), Some(1)), "started once: {report:#}");
    assert_eq!(builds[0]["version"], env!("CARGO_PKG_VERSION"));
}

/// The books of `jornada` (today's when empty): `Reports/Reconciliation`.
async fn books_of(client: &mut Client, jornada: &str) -> pb::ReconciliationReport {
    let request = pb::ReconciliationRequest { jornada: jornada.to_owned(), through: String::new() };
    client.reports.reconciliation(request).await.expect("the jornada's books").into_inner()
}

/// `pozo-server verify --data DATA`: how it ended, and its JSON report.
fn verify(data: &std::path::Path) -> (std::process::Output, serde_json::Value) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pozo-server"))
        .args(["verify", "--data"])
        .arg(data)
        .output()
        .expect("verify runs");
    let report = serde_json::from_slice(&output.stdout).expect("verify prints JSON");
    (output, report)
}

/// `pozo-server change …` with `args`, against the controller at `address`: its output.
fn cli(address: &str, args: &[&str]) -> std::process::Output {
    let server = format!("http://{address}");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pozo-server"));
    command.arg("change").args(&args[..1]).args(["--server", &server]).args(&args[1..]);
    command.output().expect("pozo-server runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_proposes_approves_and_lists_with_each_persons_key() {
    let (server, mut client) = TestServer::with_client().await;
    let address = server.address.to_string();
    let proposed = tokio::task::spawn_blocking({
        let address = address.clone();
        move || {
            cli(
                &address,
                &[
                    "propose",
                    "--key",
                    CARLA,
                    "--reason",
                    "Nueva mesa en el salón",
                    "--authorisation",
                    "IPLyC Nota 9/26",
                    "--add-table",
                    "B5,F6,iplyc-blackjack,blackjack,7",
                    "--json",
                ],
            )
        }
    })
    .await
    .expect("joined");
    assert_eq!(proposed.status.code(), Some(0), "{}", String::from_utf8_lossy(&proposed.stderr));
    let proposal: serde_json::Value = serde_json::from_slice(&proposed.stdout).expect("JSON");
    assert_eq!(proposal["status"], "PENDIENTE DE APROBACIÓN");
    let id = proposal["proposal_id"].as_str().expect("an id").to_owned();
    // Her own approval is refused, with the reason, and a non-zero exit.
    let own = {
        let (address, id) = (address.clone(), id.clone());
        tokio::task::spawn_blocking(move || cli(&address, &["approve", "--key", CARLA, &id])).await.expect("joined")
    };
    assert_ne!(own.status.code(), Some(0));
    // People read the refusal in the Spanish the pages show (issue 42, point 7), not the English.
    let said = String::from_utf8_lossy(&own.stderr).into_owned();
    assert!(
        said.contains(&format!("PermissionDenied: El cambio {id} lo propuso Carla Medina: lo aprueba otra persona")),
        "{said}"
    );
    assert!(!said.contains("was proposed by"), "{said}");
    let office = {
        let address = address.clone();
        let args = ["propose", "--key", "vp-ana", "--reason", "r", "--authorisation", "a", "--out-of-service", "B2"];
        tokio::task::spawn_blocking(move || cli(&address, &args)).await.expect("joined")
    };
    let said = String::from_utf8_lossy(&office.stderr).into_owned();
    assert!(said.contains("PermissionDenied: La clave vp-ana es de Venta-Pagos"), "{said}");
    let inspector = {
        let address = address.clone();
        let args = ["propose", "--key", ELENA, "--reason", "r", "--authorisation", "a", "--out-of-service", "B2"];
        tokio::task::spawn_blocking(move || cli(&address, &args)).await.expect("joined")
    };
    let said = String::from_utf8_lossy(&inspector.stderr).into_owned();
    assert!(said.contains("PermissionDenied: Una clave de inspector no puede hacer esto"), "{said}");
    let approved = {
        let (address, id) = (address.clone(), id.clone());
        tokio::task::spawn_blocking(move || cli(&address, &["approve", "--key", ELENA, &id])).await.expect("joined")
    };
    let text = String::from_utf8_lossy(&approved.stdout);
    assert!(text.starts_with(&format!("{id} EN VIGOR — Mesa B5 — mesa nueva")), "{text}");
    assert!(text.contains("aprobado por Elena Vidal"), "{text}");
    client.ok("B5", open()).await;
    let listed = tokio::task::spawn_blocking(move || cli(&address, &["list", "--key", DIEGO])).await.expect("joined");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("propuesto por Carla Medina; motivo: Nueva mesa en el salón"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_added_by_a_new_rulebook_takes_a_table_moved_from_its_pool_between_rounds() {
    let (server, mut client) = TestServer::with_client().await;
    let before = pools(&mut client).await;
    // The IPLyC rulebook whole, with a second Black Jack pool for a salon VIP (minimum 3.000,00).
    let (name, text) = pozo_testkit::rulebook_with_a_vip_blackjack_pool("3000.00");
    let new_rulebook = pb::propose_change::What::Configuration(pb::ConfigurationChange {
        files: vec![pb::ConfigFile { name, text }],
        ..Default::default()
    });
    let proposed = change(&client, CARLA, propose(new_rulebook)).await.expect("proposed");
    assert!(proposed.differences.iter().any(|difference| difference.text.contains("iplyc-blackjack-vip")), "{proposed:?}");
    let approved = change(&client, ELENA, approve(&proposed)).await.expect("approved");
    assert_eq!(approved.status, "EN VIGOR", "a new pool is no live pool's money setting: in force at once");

    // The new pool opens at its minimum, seeded by the house and booked as such.
    let after = pools(&mut client).await;
    assert_eq!(after["iplyc-blackjack-vip"].0, "3000.00");
    assert_eq!(after["iplyc-blackjack"], before["iplyc-blackjack"], "the old pool is untouched");
    let vip = client.pool("iplyc-blackjack-vip").await;
    assert_eq!(vip.replenishments.map(|amount| amount.value).as_deref(), Some("3000.00"), "{}", vip.pool_id);

    // B1 is open with a credit sold: it cannot move, and the refusal journals nothing.
    client.open_with_credits("B1", &[(1, 5)]).await;
    let entries = client.journal().await.entries;
    let move_b1 = edits(vec![pb::config_edit::Edit::MoveTable(pb::TableMove {
        table_id: "B1".into(),
        pool_id: "iplyc-blackjack-vip".into(),
    })]);
    let proposed_b1 = change(&client, CARLA, propose(move_b1)).await.expect("proposed");
    let refused = change(&client, DIEGO, approve(&proposed_b1)).await.expect_err("B1 is open");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert!(refused.message().contains("table B1 is open or in a round"), "{refused:?}");
    assert_eq!(client.journal().await.entries, entries + 1, "only the proposal was journaled");

    // B4 plays a round for the old pool, pays its credits back and closes: it holds nothing.
    client.round_started("B4", &[(1, 5)], &[1]).await;
    client.ok("B4", finish()).await;
    client.ok("B4", refund_credits(1)).await;
    client.ok("B4", close()).await;
    // B4 is closed and holds nothing: it moves, and its next bet feeds the new pool.
    let move_b4 = edits(vec![pb::config_edit::Edit::MoveTable(pb::TableMove {
        table_id: "B4".into(),
        pool_id: "iplyc-blackjack-vip".into(),
    })]);
    let moved = change(&client, CARLA, propose(move_b4)).await.expect("proposed");
    assert!(moved.differences.iter().any(|difference| difference.text.starts_with("Mesa B4")), "{moved:?}");
    change(&client, DIEGO, approve(&moved)).await.expect("B4 moved");
    // 10.00 × 65 % = 6.50 into the VIP pool (11.2.3); B1's bet still feeds the old pool.
    client.round_started("B4", &[(1, 5)], &[1]).await;
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    let played = pools(&mut client).await;
    assert_eq!(played["iplyc-blackjack-vip"].0, "3006.50");
    let old: rust_decimal::Decimal = before["iplyc-blackjack"].0.parse().expect("an amount");
    assert_eq!(played["iplyc-blackjack"].0, (old + rust_decimal::Decimal::new(1300, 2)).to_string(), "B4's first bet and B1's");
    assert_eq!(client.view("B4").await.pool_id, "iplyc-blackjack-vip");
    // The jornada's books: B4's bet before the move is the old pool's, its bet after it the
    // VIP pool's; each pool's tables tie to it (docs/readings.md, "The tables tied to the pool").
    let books = books_of(&mut client, "").await;
    assert!(books.tied, "{books:?}");
    let b4 = |pool: &str| {
        let books = books.pools.iter().find(|books| books.pool_id == pool).expect("the pool");
        let b4 = books.tables.iter().find(|table| table.table_id == "B4").expect("B4 under the pool");
        b4.ipa.as_ref().map(|amount| amount.value.clone()).unwrap_or_default()
    };
    assert_eq!((b4("iplyc-blackjack").as_str(), b4("iplyc-blackjack-vip").as_str()), ("10.00", "10.00"));

    // A restart replays both changes, and verify ties the books with the seed booked.
    let data = server.stop().await.expect("the data directory");
    let (output, report) = verify(&data.path().join("data"));
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(report["conservation"], "ok", "{report:#}");
    assert_eq!(report["pools"]["iplyc-blackjack-vip"]["balance"], "3006.50", "{report:#}");
    let server = TestServer::start_on(data.path().join("data")).await;
    let mut client = server.client().await;
    assert_eq!(pools(&mut client).await["iplyc-blackjack-vip"].0, "3006.50");
    server.stop().await;
}

// A prize at B3 waits for Venta-Pagos; B3 is closed, taken out of service and retired; the next
// night Venta-Pagos rejects the order. The rejection is booked (the pool gets its award back, the
// retired table's night keeps its PPPA without it) and the controller goes on serving: a
// correction of an earlier jornada's meters for a table no longer in the layout broke nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_of_a_retired_table_is_rejected_on_a_later_night() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let night_one: u64 = 1_795_305_600_000 + 23 * 3_600_000; // 2026-11-22 20:00, UTC-03:00
    let clock = std::sync::Arc::new(pozo_server::clock::ManualClock::at(night_one));
    let options = pozo_server::ServeOptions { clock: clock.clone(), ..Default::default() };
    let server = TestServer::start_with(directory.path().join("data"), options).await;
    let mut client = server.client().await;
    client.ok("B3", open()).await;
    let order = a_pending_order(&mut client, 4).await;
    client.ok("B3", refund_credits(4)).await;
    client.ok("B3", close()).await;
    let service = edits(vec![pb::config_edit::Edit::TableService(pb::TableService { table_id: "B3".into(), in_service: false })]);
    let out = change(&client, CARLA, propose(service)).await.expect("proposed");
    change(&client, DIEGO, approve(&out)).await.expect("B3 out of service");
    let retire = change(&client, CARLA, propose(edits(vec![pb::config_edit::Edit::RetireTable("B3".into())]))).await.expect("ok");
    change(&client, DIEGO, approve(&retire)).await.expect("B3 retired");
    client.refused("B3", open(), Code::NotFound).await;

    clock.set(night_one + 24 * 3_600_000);
    let rejected = client.reject(&order, "Cartas mal leídas").await.expect("rejected on the next night");
    assert_eq!(rejected.status, "rechazada");
    let books = books_of(&mut client, "2026-11-23").await;
    assert!(books.tied, "the retired table's correction counts for its pool: {books:?}");
    let blackjack = books.pools.iter().find(|pool| pool.pool_id == "iplyc-blackjack").expect("the pool");
    assert_eq!(
        blackjack.awards_returned.as_ref().map(|amount| amount.value.as_str()),
        rejected.amount.as_ref().map(|a| a.value.as_str())
    );
    // And the controller still serves.
    client.ok("B1", open()).await;
    server.stop().await;
    let (output, report) = verify(&directory.path().join("data"));
    assert_eq!(output.status.code(), Some(0), "{report:#}");
}

// Proves docs/operations.md §8, "While a scheduled change waits to change a file, another change
// of that file is refused", on the audit's case (issue 42, point 3): with a new minimum of the
// Black Jack pool scheduled in iplyc.toml, lowering that file's Venta-Pagos threshold (1.000,00 →
// 400,00) is refused, naming the scheduled change and the file, and journals nothing. Once the
// minimum is in force the threshold is lowered, and it stays lowered when a later scheduled
// minimum comes into force after the next top prize: a Cuatro Ases of 500,00 (11.5.3) goes to
// Venta-Pagos before it and after it (the audit found it paid at the table after it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_change_of_a_file_with_a_scheduled_change_is_refused_and_an_approved_one_never_vanishes() {
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    let raise = change(&client, CARLA, propose(pool_setting("iplyc-blackjack", "minimum", "6000.00"))).await.expect("proposed");
    let scheduled = change(&client, ELENA, approve(&raise)).await.expect("approved");
    assert_eq!(scheduled.status, "PROGRAMADO");

    let entries = client.journal().await.entries;
    let lower = || propose(pool_setting("iplyc-blackjack", "venta_pagos_over", "400.00"));
    let refused = change(&client, CARLA, lower()).await.expect_err("iplyc.toml has a scheduled change");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{}", refused.message());
    assert!(
        refused.message().starts_with(&format!("files: {} is scheduled to change iplyc.toml;", raise.proposal_id)),
        "{}",
        refused.message()
    );
    let spanish = pozo_proto::motivo(&refused).expect("the Spanish");
    assert!(spanish.starts_with(&format!("El cambio {} está programado sobre iplyc.toml", raise.proposal_id)), "{spanish}");
    assert_eq!(client.journal().await.entries, entries, "a refusal journals nothing");

    // The top prize, then FINALIZAR JUEGO: the new minimum is in force; now the threshold changes.
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await.1, "6000.00");
    let lowered = change(&client, CARLA, lower()).await.expect("proposed once the minimum is in force");
    assert_eq!(change(&client, DIEGO, approve(&lowered)).await.expect("approved").status, "EN VIGOR");

    // Cuatro Ases, 500,00 over 400,00: to Venta-Pagos.
    let (paid, order) = cuatro_ases(&mut client, "B1", 2).await;
    assert_eq!(paid, "500.00");
    assert!(!order.is_empty(), "500,00 is over the threshold of 400,00: a payout order");

    // Another minimum scheduled and brought into force by the next top prize: the threshold stays.
    let again = change(&client, CARLA, propose(pool_setting("iplyc-blackjack", "minimum", "7000.00"))).await.expect("ok");
    assert_eq!(change(&client, DIEGO, approve(&again)).await.expect("approved").status, "PROGRAMADO");
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await.1, "7000.00");
    let statuses: BTreeMap<String, String> =
        proposals(&client, ELENA).await.into_iter().map(|proposal| (proposal.proposal_id, proposal.status)).collect();
    assert_eq!(statuses[&lowered.proposal_id], "EN VIGOR");
    assert_eq!(statuses[&again.proposal_id], "EN VIGOR");
    let (paid, order) = cuatro_ases(&mut client, "B1", 2).await;
    assert_eq!(paid, "500.00");
    assert!(!order.is_empty(), "the threshold approved is still 400,00 after the scheduled change: a payout order");
    server.stop().await;
}

/// A round at `table` in which `seat` (with credits left) marks Cuatro Ases (11.5.3): the amount
/// awarded and its payout order (empty when paid at the table).
async fn cuatro_ases(client: &mut Client, table: &str, seat: u32) -> (String, String) {
    client.ok(table, press(seat)).await;
    client.ok(table, start()).await;
    client.ok(table, prize(seat, "CUATRO_ASES")).await;
    let accepted = client.ok(table, accept()).await;
    client.ok(table, finish()).await;
    let award = accepted.awards.first().cloned().expect("the award");
    (award.award.map(|amount| amount.value).unwrap_or_default(), award.payout_order_id)
}
