//! What standard gRPC tools and the displays see: health, reflection, pool
//! status, and a display feed coalesced so a slow reader never slows the writer.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use prost::Message as _;
use sha2::Digest as _;
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_every_service_serving() {
    let (server, client) = TestServer::with_client().await;
    let mut health = HealthClient::new(client.channel.clone());
    for service in ["pozo.v1.Table", "pozo.v1.Display", "pozo.v1.VentaPagos", "pozo.v1.Reports", "pozo.v1.Pools"] {
        let status =
            health.check(HealthCheckRequest { service: service.into() }).await.expect("health answers").into_inner().status;
        assert_eq!(status, ServingStatus::Serving as i32, "{service}");
    }
    let unknown = health.check(HealthCheckRequest { service: "pozo.v1.Nothing".into() }).await.expect_err("unknown service");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_is_dated_by_the_controller_s_clock() {
    // Found by the seeded simulation: hyper dated each response from the machine's clock, so
    // the bytes on the wire (and with them one seed's run) followed the real time. The `Date`
    // header is the controller's clock's, like the journal's times.
    let directory = tempfile::tempdir().expect("a directory");
    // 2026-11-27 23:30:05 UTC.
    let clock = std::sync::Arc::new(pozo_server::clock::ManualClock::at(1_795_822_205_000));
    let options = pozo_server::ServeOptions { clock: clock.clone(), ..Default::default() };
    let server = TestServer::start_with(directory.path().join("data"), options).await;
    let mut controller = pb::controller_client::ControllerClient::new(server.client().await.channel.clone());
    let answer = controller.identify(pb::IdentifyRequest {}).await.expect("identified");
    let date = answer.metadata().get("date").and_then(|value| value.to_str().ok()).map(str::to_owned);
    assert_eq!(date.as_deref(), Some("Fri, 27 Nov 2026 23:30:05 GMT"));
    clock.advance(86_400_000);
    let answer = controller.identify(pb::IdentifyRequest {}).await.expect("identified");
    assert_eq!(answer.metadata().get("date").and_then(|value| value.to_str().ok()), Some("Sat, 28 Nov 2026 23:30:05 GMT"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_the_services_for_standard_tools() {
    let (server, client) = TestServer::with_client().await;
    let mut reflection = ServerReflectionClient::new(client.channel.clone());
    let request =
        ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) };
    let mut responses =
        reflection.server_reflection_info(tokio_stream::iter(vec![request])).await.expect("reflection").into_inner();
    let response = responses.message().await.expect("stream").expect("an answer");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("a service list, got {response:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|service| service.name).collect();
    for service in
        ["pozo.v1.Table", "pozo.v1.Display", "pozo.v1.VentaPagos", "pozo.v1.Reports", "pozo.v1.Pools", "grpc.health.v1.Health"]
    {
        assert!(names.iter().any(|name| name == service), "{service} in {names:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_display_gets_the_newest_amounts_not_a_backlog() {
    // The cartel's stream is a watch: a reader that falls behind skips to the
    // newest state; the writer never waits for it. The display here reads through
    // a 256-byte HTTP/2 window, so the server can hand it only a few updates ahead.
    let (server, mut client) = TestServer::with_client().await;
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{}", server.address))
        .expect("uri")
        .initial_stream_window_size(Some(256));
    let mut slow = pb::display_client::DisplayClient::new(endpoint.connect().await.expect("connect"));
    let mut display = slow
        .watch(pb::WatchDisplays { pool_ids: vec!["iplyc-ruleta".into()], ..Default::default() })
        .await
        .expect("display")
        .into_inner();
    let first = display.message().await.expect("stream").expect("the current amounts");
    assert_eq!(first.pools.len(), 1, "only the pool asked for");
    assert_eq!(amount(&first.pools[0].displayed), "20000.00");

    // Forty grillo sales, each a new amount, while the display reads nothing.
    client.ok("R1", open()).await;
    let mut changes = 0;
    for seat in 1..=8 {
        client.ok("R1", sell(seat, 5)).await;
        client.ok("R1", press(seat)).await;
        changes += 1;
    }
    for _ in 0..4 {
        client.ok("R1", start()).await;
        client.ok("R1", finish()).await;
        for seat in 1..=8 {
            client.ok("R1", press(seat)).await;
            changes += 1;
        }
    }
    let journal = client.journal().await;
    let mut received = Vec::new();
    loop {
        let update = tokio::time::timeout(std::time::Duration::from_secs(10), display.message())
            .await
            .expect("the newest amounts arrive")
            .expect("stream")
            .expect("a push");
        received.push(update.journal_sequence);
        if update.journal_sequence == journal.entries {
            // 40 sales × 65% × 30.00 = 780.00 on the 20,000 minimum (3.2.1).
            assert_eq!(amount(&update.pools[0].displayed), "20780.00");
            break;
        }
    }
    assert!(received.windows(2).all(|pair| pair[0] < pair[1]), "in journal order: {received:?}");
    assert!(received.len() < changes / 2, "coalesced: {} pushes for {changes} changes: {received:?}", received.len());
    let status =
        client.pools.status(pb::PoolStatusRequest { pool_ids: vec!["iplyc-ruleta".into()] }).await.expect("status").into_inner();
    assert_eq!(amount(&status.pools[0].displayed), "20780.00");
    assert_eq!(status.pools[0].sequence, journal.entries);
    let unknown = client.pools.status(pb::PoolStatusRequest { pool_ids: vec!["nada".into()] }).await.expect_err("unknown pool");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_reads_back_in_pages_linked_by_their_hashes() {
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(2, 5)], &[2]).await;
    let status = client.journal().await;
    assert_eq!(status.entries, 5, "genesis + 4 commands");

    // Two entries a page: the pages join into the whole journal, each entry naming the one before.
    let mut entries = Vec::new();
    let mut after = 0;
    loop {
        let page = client.reports.entries(pb::JournalEntriesRequest { after, limit: 2 }).await.expect("a page").into_inner();
        assert_eq!(page.durable_entries, 5);
        assert!(page.entries.len() <= 2);
        let Some(last) = page.entries.last() else { break };
        after = last.sequence;
        entries.extend(page.entries);
    }
    assert_eq!(entries.iter().map(|entry| entry.sequence).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    // Entry 1 names the installation: SHA-256("pozo.v1 genesis", 0, installation id).
    let identity = pb::controller_client::ControllerClient::new(client.channel.clone())
        .identify(pb::IdentifyRequest {})
        .await
        .expect("identify")
        .into_inner();
    let genesis = sha2::Sha256::digest(format!("pozo.v1 genesis\0{}", identity.installation).as_bytes());
    assert_eq!(entries[0].previous_hash, hex::encode(genesis));
    assert_eq!(identity.journal_id, format!("{}-1", identity.installation));
    assert_eq!(identity.entries, 5);
    for pair in entries.windows(2) {
        assert_eq!(pair[1].previous_hash, pair[0].hash, "entry {} names entry {}", pair[1].sequence, pair[0].sequence);
    }
    assert_eq!(entries[4].hash, status.tip_hash);
    let record: serde_json::Value = serde_json::from_str(&entries[3].record_json).expect("a record");
    assert_eq!(record["command"]["op"]["op"], "press", "{record}");
    assert_eq!(record["command"]["op"]["seat"], 2, "{record}");

    // Past the end: an empty page. Over the page limit: refused by name.
    let empty = client.reports.entries(pb::JournalEntriesRequest { after: 5, limit: 0 }).await.expect("a page").into_inner();
    assert!(empty.entries.is_empty());
    let far = client.reports.entries(pb::JournalEntriesRequest { after: u64::MAX, limit: 0 }).await.expect("a page").into_inner();
    assert!(far.entries.is_empty(), "nothing after the last possible sequence");
    let refused = client.reports.entries(pb::JournalEntriesRequest { after: 0, limit: 1001 }).await.expect_err("over the limit");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("limit: at most 1000"), "{}", refused.message());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_card_source_draws_the_same_instant_cards_and_the_os_one_varies() {
    // 15.11.2: whether a card appears at INICIAR JUEGO, and which, is drawn by the server.
    // Each of the four tables plays rounds until its first card: the rounds without one
    // and the card itself are the draw.
    async fn cards(options: pozo_server::ServeOptions) -> Vec<(u32, pb::Card)> {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let server = TestServer::start_with(directory.path().join("data"), options).await;
        let mut client = server.client().await;
        let mut cards = Vec::new();
        for table in ["CP1", "CP2", "CP3", "CP4"] {
            client.ok(table, open()).await;
            let (card, rounds) = client.until_instant_card(table, &[]).await;
            cards.push((rounds, card));
        }
        server.stop().await;
        cards
    }
    let seeded = |seed| pozo_server::ServeOptions { cards: pozo_server::cards::CardSource::Seeded(seed), ..Default::default() };
    let first = cards(seeded(7)).await;
    assert_eq!(first, cards(seeded(7)).await, "the same seed draws the same rounds and cards");
    assert_ne!(first, cards(seeded(8)).await, "another seed, other cards (4 cards alike by chance: under 52⁻⁴)");
    // The operating system's source: four draws twice alike has a chance under 52⁻⁴.
    assert_ne!(cards(Default::default()).await, cards(Default::default()).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panel_shows_its_pool_growing_with_the_other_tables_bets() {
    // Every panel shows its pool's amount. R2's agent watches its table while only R1
    // plays: the press on R1 reaches R2 as the new amount, with the press's entry, and
    // nothing else of R2 changes.
    let (server, mut client) = TestServer::with_client().await;
    let mut r2 = client.watch("R2").await;
    let first = r2.message().await.expect("stream").expect("the current view").table.expect("view");
    assert_eq!(amount(&first.displayed), "20000.00");

    client.open_with_credits("R1", &[(1, 5)]).await;
    let pressed = client.ok("R1", press(1)).await;
    let event = tokio::time::timeout(std::time::Duration::from_secs(10), r2.message())
        .await
        .expect("the new amount arrives")
        .expect("stream")
        .expect("a push");
    assert_eq!(event.journal_sequence, pressed.journal_sequence, "pushed with the entry that changed it");
    let view = event.table.expect("view");
    assert_eq!(amount(&view.displayed), "20019.50", "65% of R1's 30.00 (3.2.1)");
    assert_eq!(pb::TableView { displayed: first.displayed.clone(), ..view.clone() }, first, "only the amount changed");
    assert_eq!(client.view("R2").await, view, "a new watcher is shown the same");
    server.stop().await;
}

/// Each state and status the server sends as a Spanish string also comes typed (`state_code`,
/// `status_code`), and the two always say the same: a table through a whole round and its
/// closing, two payout orders confirmed and rejected, and their prizes on the display feed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_typed_state_and_status_agrees_with_its_spanish_string() {
    fn table_state(text: &str) -> pb::TableState {
        match text {
            "cerrada" => pb::TableState::Cerrada,
            "apuestas" => pb::TableState::Apuestas,
            "en juego" => pb::TableState::EnJuego,
            "premios ingresados" => pb::TableState::PremiosIngresados,
            "aceptado" => pb::TableState::Aceptado,
            other => panic!("no table state `{other}`"),
        }
    }
    fn payout_status(text: &str) -> pb::PayoutStatus {
        match text {
            "pendiente" => pb::PayoutStatus::Pendiente,
            "confirmada" => pb::PayoutStatus::Confirmada,
            "rechazada" => pb::PayoutStatus::Rechazada,
            other => panic!("no payout status `{other}`"),
        }
    }
    fn prize_status(text: &str) -> pb::PrizeStatus {
        match text {
            "" => pb::PrizeStatus::Unspecified,
            "pagado" => pb::PrizeStatus::Pagado,
            "pendiente" => pb::PrizeStatus::Pendiente,
            "confirmado" => pb::PrizeStatus::Confirmado,
            "rechazado" => pb::PrizeStatus::Rechazado,
            other => panic!("no prize status `{other}`"),
        }
    }
    let (server, mut client) = TestServer::with_client().await;
    let mut states = vec![client.view("B3").await];
    states.push(client.ok("B3", open()).await.table.expect("a view"));
    client.sell_and_press("B3", [1], 5).await;
    states.push(client.ok("B3", start()).await.table.expect("a view"));
    client.ok("B3", prize(1, "TRES_SIETES_MISMO_PALO")).await;
    // 12.5.2.1 c–d: FINALIZAR JUEGO closes the entry, ACEPTAR validates it.
    states.push(client.ok("B3", finish()).await.table.expect("a view"));
    let accepted = client.ok("B3", accept()).await;
    states.push(accepted.table.clone().expect("a view"));
    states.push(client.ok("B3", finish()).await.table.expect("a view"));
    let pending = accepted.awards[0].payout_order_id.clone();
    let mut orders = vec![client.order(&pending).await];
    let rejected = a_pending_order(&mut client, 2).await;
    orders.push(client.confirm(&pending, "F-1").await.expect("confirmed"));
    orders.push(client.reject(&rejected, "no corresponde").await.expect("rejected"));
    client.ok("B3", refund_credits(1)).await;
    client.ok("B3", refund_credits(2)).await;
    states.push(client.ok("B3", close()).await.table.expect("a view"));

    let named: Vec<&str> = states.iter().map(|view| view.state.as_str()).collect();
    assert_eq!(named, ["cerrada", "apuestas", "en juego", "premios ingresados", "aceptado", "apuestas", "cerrada"]);
    for view in &states {
        assert_eq!(view.state_code(), table_state(&view.state), "{view:?}");
    }
    let named: Vec<&str> = orders.iter().map(|order| order.status.as_str()).collect();
    assert_eq!(named, ["pendiente", "confirmada", "rechazada"]);
    for order in &orders {
        assert_eq!(order.status_code(), payout_status(&order.status), "{order:?}");
    }

    let mut displays = pb::display_client::DisplayClient::connect(format!("http://{}", server.address)).await.expect("connect");
    let request = pb::WatchDisplays { pool_ids: vec![orders[0].pool_id.clone()], ..Default::default() };
    let mut feed = displays.watch(request).await.expect("display").into_inner();
    let update = feed.message().await.expect("stream").expect("the current signs");
    let hits: Vec<&pb::Hit> = update.pools.iter().flat_map(|pool| pool.hits.iter().chain(&pool.pending)).collect();
    let named: std::collections::BTreeSet<&str> = hits.iter().map(|hit| hit.status.as_str()).collect();
    assert!(named.is_superset(&["confirmado", "rechazado"].into()), "{named:?}");
    let report = client.pool(&orders[0].pool_id).await;
    for hit in hits.into_iter().chain(&report.last_hits) {
        assert_eq!(hit.status_code(), prize_status(&hit.status), "{hit:?}");
    }
}

/// The dealer's monitor enters a prize by its name (12.5.2.1): `Table/Prizes` gives the table's
/// pool's paytable, each prize with its code, the regulation's name and its article, in the
/// rulebook's order; only to the table's own key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_reads_its_pools_prizes_by_name_with_its_own_key_only() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let payload = pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec();
    let envelope = client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, payload.clone());
    let list = client.table.prizes(envelope).await.expect("the prizes").into_inner();
    assert_eq!((list.table_id.as_str(), list.pool_id.as_str()), ("B1", "iplyc-blackjack"));
    assert_eq!(list.pool_name, "Black Jack Carta Descubierta Poceado");
    let first = &list.prizes[0];
    assert_eq!(
        (first.code.as_str(), first.name.as_str(), first.article.as_str()),
        ("TRES_SIETES_CORAZONES", "21 con Tres Sietes de Corazones", "11.5.1")
    );
    assert_eq!(list.prizes.len(), 6, "{list:?}");
    // Another table's key does not read B1's.
    let envelope = client.envelope_as("mesa-B2", pozo_proto::Purpose::WatchTable, payload);
    let refused = client.table.prizes(envelope).await.expect_err("not B2's table");
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    server.stop().await;
}

// 4.6: Apertura de Mesa by the floor inspector at the table's monitor, their PIN checked by the
// controller against the Argon2id hash in their key. A wrong PIN is refused with its Spanish and
// journals nothing; five lock the inspector out; the right PIN opens the table and the journal
// names the inspector, never the PIN. The paytable lists the inspectors by name and the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_inspector_opens_a_table_with_their_own_pin_and_the_journal_names_them() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let payload = pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec();
    let list = client
        .table
        .prizes(client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, payload))
        .await
        .expect("the paytable")
        .into_inner();
    assert_eq!(list.game, "blackjack");
    let names: Vec<(&str, &str)> = list.inspectors.iter().map(|person| (person.id.as_str(), person.name.as_str())).collect();
    assert_eq!(names, [("im-rosa", "Rosa Benítez"), ("im-tomas", "Tomás Luna")]);
    let before = client.journal().await;

    let wrong = client.table.submit(client.inspected("B1", 1, open(), "im-rosa", "1111")).await.expect_err("a wrong PIN");
    assert_eq!(wrong.code(), Code::PermissionDenied, "{wrong:?}");
    assert_eq!(wrong.message(), "inspector_pin: not the PIN of `im-rosa`");
    assert_eq!(pozo_proto::motivo(&wrong).as_deref(), Some("PIN incorrecto para Rosa Benítez: nada se registró."));
    // A PIN without an inspector, an inspector without a PIN, a dealer's key named as the inspector.
    let cases = [
        ("", "2468", Code::InvalidArgument, "inspector_pin: only a command that names its inspector carries a PIN"),
        ("im-rosa", "", Code::InvalidArgument, "inspector_pin: missing"),
        ("sup-carla", "2468", Code::NotFound, "inspector: no floor inspector `sup-carla`"),
    ];
    for (inspector, pin, code, message) in cases {
        let refused = client.table.submit(client.inspected("B1", 1, open(), inspector, pin)).await.expect_err("refused");
        assert_eq!(refused.code(), code, "{refused:?}");
        assert!(refused.message().starts_with(message), "{refused:?}");
    }
    // A PIN on another kind of envelope is refused, not ignored.
    let watch = pb::Envelope {
        inspector_pin: "2468".into(),
        ..client.envelope_as(
            "mesa-B1",
            pozo_proto::Purpose::WatchTable,
            pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec(),
        )
    };
    let refused = client.table.prizes(watch).await.expect_err("a PIN on a watch");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(client.journal().await, before, "nothing refused is journaled");
    assert_eq!(client.view("B1").await.state, "cerrada");

    let opened = client.table.submit(client.inspected("B1", 1, open(), "im-rosa", "2468")).await.expect("the right PIN");
    let opened = opened.into_inner();
    let page = client
        .reports
        .entries(pb::JournalEntriesRequest { after: opened.journal_sequence - 1, limit: 1 })
        .await
        .expect("the entry")
        .into_inner();
    let record = &page.entries[0].record_json;
    assert!(record.contains(r#""inspector":"im-rosa""#), "{record}");
    assert!(!record.contains("2468"), "the PIN is never journaled: {record}");

    // Five wrong PINs at B1 lock Tomás out of B1: the sixth attempt, even with his right PIN, is
    // refused there; at B2 his PIN still works.
    for attempt in 1..=5 {
        let wrong = client.table.submit(client.inspected("B1", 2, close(), "im-tomas", "0000")).await.expect_err("wrong");
        assert_eq!(wrong.code(), Code::PermissionDenied, "attempt {attempt}: {wrong:?}");
    }
    let locked = client.table.submit(client.inspected("B1", 2, close(), "im-tomas", "1357")).await.expect_err("locked out");
    assert!(locked.message().starts_with("inspector: `im-tomas` is locked out at table B1 for 15 minutes"), "{locked:?}");
    assert!(pozo_proto::motivo(&locked).is_some_and(|motivo| motivo.contains("bloqueado en la mesa B1")), "{locked:?}");
    client.table.submit(client.inspected("B2", 1, open(), "im-tomas", "1357")).await.expect("Tomás opens B2");
    // Rosa is not locked out by Tomás's failures.
    client.table.submit(client.inspected("B1", 2, close(), "im-rosa", "2468")).await.expect("Rosa closes the table");
    server.stop().await;
}

// The agent says where it serves the table's monitor with its watch, for the flor page's tap:
// HTTPS anywhere, plain HTTP on loopback only, bounded; anything else is refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_names_its_monitor_only_at_an_address_a_tablet_may_open() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let watch =
        |url: &str| pb::WatchTable { table_id: "B1".into(), monitor_url: url.to_owned(), ..Default::default() }.encode_to_vec();
    let long = format!("https://{}", "a".repeat(200));
    let refused = [
        "http://192.0.2.7:8080/",
        "ftp://127.0.0.1/",
        "javascript:alert(1)",
        "http://127.evil.example/",
        "http://localhost.evil.example/",
        "http://localhost@evil.example/",
        "https://mesa@192.0.2.7/",
        long.as_str(),
    ];
    for refused in refused {
        let envelope = client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, watch(refused));
        let status = client.table.watch(envelope).await.expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{refused}: {status:?}");
        assert!(status.message().starts_with("monitor_url:"), "{status:?}");
    }
    for taken in ["https://192.0.2.7:8443/", "http://127.0.0.1:8080/", "http://[::1]:8080/", "http://localhost:8080/", ""] {
        let envelope = client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, watch(taken));
        client.table.watch(envelope).await.unwrap_or_else(|status| panic!("{taken}: {status:?}"));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_pool_reaches_the_other_panels_at_most_every_50_ms_and_always_its_last_amount() {
    // R2's agent watches while three other tables of its pool sell and press, one command
    // after another: each press a batch that grows the pool. R2's panel always holds the
    // pool's last durable amount (a new watcher reads it at once), but its watcher is woken at
    // once, then at most once every 50 ms, and in the end always with the last press's amount
    // and entry (docs/benchmarks.md, issue 47, step 10). Before, every batch woke it.
    let (server, mut client) = TestServer::with_client().await;
    let mut r2 = client.watch("R2").await;
    let first = r2.message().await.expect("stream").expect("the current view").table.expect("view");
    let (seen, mut events) = tokio::sync::mpsc::channel(1024);
    let reader = tokio::spawn(async move {
        while let Ok(Some(event)) = r2.message().await {
            if seen.send(event).await.is_err() {
                return;
            }
        }
    });
    for table in ["R1", "R3", "R4"] {
        client.ok(table, open()).await;
    }
    let started = std::time::Instant::now();
    let mut last = None;
    for seat in 1..=8 {
        for table in ["R1", "R3", "R4"] {
            client.ok(table, sell(seat, 1)).await;
            last = Some(client.ok(table, press(seat)).await);
        }
    }
    let elapsed = started.elapsed();
    let last = last.expect("24 presses");
    let final_amount = amount(&last.table.as_ref().expect("the table as the press left it").displayed);
    assert_eq!(amount(&client.view("R2").await.displayed), final_amount, "a new watcher of R2 reads the last amount at once");
    let mut pushes = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv()).await.expect("the last amount arrives").expect("a push");
        let done = event.journal_sequence == last.journal_sequence;
        pushes.push(event);
        if done {
            break;
        }
    }
    let view = pushes.last().and_then(|event| event.table.clone()).expect("a view");
    assert_eq!(amount(&view.displayed), final_amount, "R2 shows the pool as the last press left it");
    assert_eq!(pb::TableView { displayed: first.displayed.clone(), ..view }, first, "only the amount changed at R2");
    // One at once, then one per 50 ms at most, and the last after the presses: the presses
    // took `elapsed`. Before, each of the 24 presses was pushed on its own batch.
    let most = elapsed.as_millis() / 50 + 2;
    assert!(
        pushes.len() as u128 <= most,
        "{} pushes to R2 in {elapsed:?} of presses: at most {most} (one at once, one per 50 ms)",
        pushes.len()
    );
    assert!(pushes.windows(2).all(|pair| pair[0].journal_sequence <= pair[1].journal_sequence), "pushes in journal order");
    reader.abort();
    server.stop().await;
}
