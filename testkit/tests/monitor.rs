//! The table's monitor (`pozo-agent --monitor`) against the real controller and the real agent
//! binary, over HTTP as the page's script speaks it: the paytable by name, a Black Jack round
//! played from the monitor beside the hardware path, a seat lit only from the controller's
//! record, the dealer kept from the inspector's buttons, and SUSPENDIDO when the controller goes.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use futures_util::StreamExt as _;
use pozo_proto::v1 as pb;
use serde_json::Value;

/// The monitor's events as the page receives them, collected as they arrive.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Value>>>);

impl Events {
    fn follow(base: &str) -> Events {
        let events = Events::default();
        let collected = events.clone();
        let url = format!("{base}/eventos");
        tokio::spawn(async move {
            let response = reqwest::get(&url).await.expect("the monitor's events");
            assert_eq!(response.headers()["content-type"], "text/event-stream");
            let mut body = response.bytes_stream();
            let mut text = String::new();
            while let Some(Ok(chunk)) = body.next().await {
                text.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = text.find("\n\n") {
                    let event: String = text.drain(..end + 2).collect();
                    if let Some(data) = event.lines().find_map(|line| line.strip_prefix("data: "))
                        && !event.starts_with("event: latido")
                    {
                        collected.0.lock().expect("events").push(serde_json::from_str(data).expect("JSON data"));
                    }
                }
            }
        });
        events
    }

    /// The first event from `from` on that `predicate` accepts, and its index.
    async fn wait_for(&self, what: &str, from: usize, predicate: impl Fn(&Value) -> bool) -> (usize, Value) {
        let deadline = Instant::now() + WAIT;
        loop {
            {
                let events = self.0.lock().expect("events");
                if let Some((index, event)) = events.iter().enumerate().skip(from).find(|(_, event)| predicate(event)) {
                    return (index, event.clone());
                }
                assert!(Instant::now() < deadline, "no {what} on the monitor in {WAIT:?}: {events:#?}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn len(&self) -> usize {
        self.0.lock().expect("events").len()
    }
}

/// A touch on the monitor: one protocol line, as the page's script sends it.
async fn touch(base: &str, line: &str) -> reqwest::StatusCode {
    reqwest::Client::new()
        .post(format!("{base}/linea"))
        .header(table_agent::monitor::HEADER, "1")
        .json(&serde_json::json!({ "linea": line }))
        .send()
        .await
        .expect("the monitor answers")
        .status()
}

/// The floor inspector's touch: the line, who they are and their PIN, as the page sends them.
async fn inspector_touch(base: &str, line: &str, inspector: &str, pin: &str) -> reqwest::StatusCode {
    reqwest::Client::new()
        .post(format!("{base}/inspector"))
        .header(table_agent::monitor::HEADER, "1")
        .json(&serde_json::json!({ "linea": line, "inspector": inspector, "pin": pin }))
        .send()
        .await
        .expect("the monitor answers")
        .status()
}

/// Touches `line` and waits for the agent's answer on the monitor: the acknowledgement.
async fn played(base: &str, events: &Events, line: &str) -> (usize, Value) {
    let from = events.len();
    assert_eq!(touch(base, line).await, reqwest::StatusCode::ACCEPTED, "{line}");
    let (index, answer) = events.wait_for(&format!("the answer to `{line}`"), from, |event| is_answer_to(event, line)).await;
    assert_eq!(kind(&answer), "ack", "`{line}`: {answer}");
    (index, answer)
}

fn amount(panel: &Value) -> rust_decimal::Decimal {
    panel["displayed"].as_str().expect("an amount").parse().expect("a decimal")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_black_jack_round_is_played_from_the_monitor_and_its_lights_follow_the_controller() {
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let server = TestServer::start().await;
    let url = server.url();
    let args = ["--server", &url, "--table", "B1", "--key-file", keys, "--monitor", "127.0.0.1:0"];
    let mut agent = AgentProcess::spawn(&args, &directory.path().join("agent.err"));
    let monitor = agent.out.wait_for("the monitor's address", WAIT, |value| kind(value) == "monitor").await;
    let base = format!("http://{}", monitor.value["address"].as_str().expect("an address"));
    // The example keys file holds every key: the agent says so, naming the journal key.
    let warned = agent.stderr_text();
    assert!(warned.contains("pozo-agent: warning:") && warned.contains("the journal key `journal`"), "{warned}");
    agent.out.wait_for("a live panel", WAIT, is_live_panel).await;

    // The page, and what it is sent first: the pool's paytable by name, then the panel.
    let page = reqwest::get(format!("{base}/")).await.expect("the page");
    assert!(page.headers()["content-security-policy"].to_str().expect("ascii").contains("script-src 'self'"));
    let html = page.text().await.expect("html");
    assert!(html.contains("INICIAR JUEGO") && html.contains("FINALIZAR JUEGO") && html.contains("ACEPTAR"), "{html}");
    let events = Events::follow(&base);
    let (_, prizes) = events.wait_for("the paytable", 0, |event| kind(event) == "prizes").await;
    assert_eq!(prizes["pool"], "iplyc-blackjack");
    let names: Vec<&str> =
        prizes["prizes"].as_array().expect("prizes").iter().filter_map(|prize| prize["name"].as_str()).collect();
    assert!(names.contains(&"Cuatro Ases (en apertura)"), "{names:?}");
    assert_eq!(prizes["game"], "blackjack");
    assert_eq!(prizes["inspectors"][0], serde_json::json!({ "id": "im-rosa", "name": "Rosa Benítez" }));
    let (_, first) = events.wait_for("the panel", 0, is_live_panel).await;
    let before = amount(&first);

    // Not from the monitor: a line from another site, and the inspector's Apertura de Mesa.
    let forged = reqwest::Client::new().post(format!("{base}/linea")).json(&serde_json::json!({ "linea": "press 3" })).send();
    assert_eq!(forged.await.expect("answered").status(), reqwest::StatusCode::FORBIDDEN);
    assert_eq!(touch(&base, "open").await, reqwest::StatusCode::FORBIDDEN, "opening the table is the inspector's (4.6)");
    // The inspector's path takes only the inspector's words, and a PIN of 4–8 digits.
    assert_eq!(inspector_touch(&base, "press 3", "im-rosa", "2468").await, reqwest::StatusCode::FORBIDDEN);
    assert_eq!(inspector_touch(&base, "open", "im-rosa", "24a8").await, reqwest::StatusCode::BAD_REQUEST);
    assert_eq!(inspector_touch(&base, "open", "", "2468").await, reqwest::StatusCode::BAD_REQUEST);

    // The inspector opens the table from the monitor with her PIN: a wrong one is refused by the
    // controller in Spanish, and the table stays closed; the right one opens it.
    let from = events.len();
    assert_eq!(inspector_touch(&base, "open", "im-rosa", "1111").await, reqwest::StatusCode::ACCEPTED);
    let (_, refused) = events.wait_for("the wrong PIN's refusal", from, |event| is_answer_to(event, "open")).await;
    assert_eq!((kind(&refused), refused["code"].as_str()), ("refused", Some("PermissionDenied")), "{refused}");
    assert_eq!(refused["motivo"], "PIN incorrecto para Rosa Benítez: nada se registró.");
    assert!(!refused.to_string().contains("1111"), "the PIN is never printed: {refused}");
    let from = events.len();
    assert_eq!(inspector_touch(&base, "open", "im-rosa", "2468").await, reqwest::StatusCode::ACCEPTED);
    let (_, opened) = events.wait_for("the table opened", from, |event| is_answer_to(event, "open")).await;
    assert_eq!(kind(&opened), "ack", "{opened}");
    events.wait_for("the open table", 0, |event| is_live_panel(event) && event["state"] == "apuestas").await;

    // Credits, a press: seat 3 is lit only by a panel from the controller's record of the press.
    played(&base, &events, "credits 3 5").await;
    let pressed_from = events.len();
    let (_, ack) = played(&base, &events, "press 3").await;
    let (_, lit) = events.wait_for("seat 3 lit", pressed_from, |event| is_panel(event) && light(event, 3) == "on").await;
    assert!(sequence(&lit) >= sequence(&ack), "lit from the record of the press: {lit} after {ack}");
    let shown = events.0.lock().expect("events")[..pressed_from].to_vec();
    assert!(shown.iter().filter(|event| is_panel(event)).all(|panel| light(panel, 3) != "on"), "never lit before the press");
    assert_eq!(amount(&lit), before, "the bet is registered at INICIAR JUEGO");

    // The round in the article's order (12.5.2.1): INICIAR, a prize by its code from the list,
    // FINALIZAR closing the entry, ACEPTAR fixing the award, FINALIZAR at the rack.
    let (started_at, _) = played(&base, &events, "start").await;
    // 10.00 × 65 % = 6.50 into the pool, on the monitor (11.2.3).
    let risen = before + rust_decimal::Decimal::new(650, 2);
    events.wait_for("the pool risen", started_at.saturating_sub(2), |event| is_panel(event) && amount(event) == risen).await;
    played(&base, &events, "prize 3 CUATRO_ASES").await;
    let (entered_at, _) = played(&base, &events, "finish").await;
    let (_, accepted) = played(&base, &events, "accept").await;
    assert_eq!(accepted["awards"][0]["code"], "CUATRO_ASES", "{accepted}");
    assert_eq!(accepted["awards"][0]["award"], "500.00", "11.5.3: a fixed 500.00");
    played(&base, &events, "finish").await;
    assert!(entered_at > pressed_from);
    // A refusal reaches the monitor as the agent's, naming the line.
    let from = events.len();
    assert_eq!(touch(&base, "press 9").await, reqwest::StatusCode::ACCEPTED);
    let (_, refused) = events.wait_for("the refusal", from, |event| is_answer_to(event, "press 9")).await;
    assert_eq!(kind(&refused), "refused", "{refused}");

    // The hardware path still works beside the monitor, and the monitor shows what it did.
    let from = events.len();
    agent.write_line("credits 4 5");
    events.wait_for("the hardware's sale", from, |event| is_panel(event) && credits(event, 4) == 5).await;

    // The controller goes: the monitor's panel says SUSPENDIDO within a second (3.7.5).
    let from = events.len();
    let stopped = Instant::now();
    server.stop().await;
    events.wait_for("SUSPENDIDO", from, |event| is_panel(event) && event["suspended"] == true).await;
    assert!(stopped.elapsed() < Duration::from_secs(1) + Duration::from_millis(500), "{:?}", stopped.elapsed());
    agent.out.assert_well_formed();
    // With a monitor the agent runs until it is stopped, not until its input ends.
    drop(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monitor_is_refused_on_an_address_other_than_this_machines() {
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let args = ["--table", "B1", "--key-file", keys, "--monitor", "0.0.0.0:0"];
    let mut agent = AgentProcess::spawn(&args, &directory.path().join("agent.err"));
    let status = agent.finish().await;
    assert_eq!(status.code(), Some(2));
    assert!(agent.stderr_text().contains("off this machine's loopback"), "{}", agent.stderr_text());
}

/// Signs `command` as the person `key_id` (the embedded keys) and sends it to Changes.
async fn change(url: &str, journal_id: &str, key_id: &str, command: pb::change_command::Command) -> pb::Proposal {
    use prost::Message as _;
    let config = pozo_server::config::Config::embedded();
    let secret = &config.keys.get(key_id).expect("an embedded key").secret;
    let payload = pb::ChangeCommand { command: Some(command.clone()) }.encode_to_vec();
    let envelope = pozo_proto::sign(key_id, secret, pozo_proto::Purpose::ChangeCommand, journal_id, payload);
    let mut changes = pb::changes_client::ChangesClient::connect(url.to_owned()).await.expect("the controller");
    let answer = match command {
        pb::change_command::Command::Propose(_) => changes.propose(envelope).await,
        _ => changes.approve(envelope).await,
    };
    answer.expect("the change is taken").into_inner()
}

/// Proposed by one supervisor, approved by the inspector: in force.
async fn in_force(url: &str, journal_id: &str, what: pb::propose_change::What) {
    let proposed = change(
        url,
        journal_id,
        "sup-carla",
        pb::change_command::Command::Propose(pb::ProposeChange {
            reason: "Salón VIP".into(),
            authorisation: "IPLyC Nota 9/26".into(),
            what: Some(what),
        }),
    )
    .await;
    let approve = pb::change_command::Command::Approve(pb::ApproveChange { proposal_id: proposed.proposal_id });
    assert_eq!(change(url, journal_id, "insp-elena", approve).await.status, "EN VIGOR");
}

/// A table moved to another pool while its agent stays connected (docs/operations.md §8): the
/// agent reads the new pool's paytable, so the monitor offers that pool's prizes by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_moved_to_another_pool_gets_that_pools_paytable_on_its_monitor() {
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let server = TestServer::start().await;
    let url = server.url();
    let args = ["--server", &url, "--table", "B4", "--key-file", keys, "--monitor", "127.0.0.1:0"];
    let mut agent = AgentProcess::spawn(&args, &directory.path().join("agent.err"));
    agent.out.wait_for("B4's paytable", WAIT, |value| kind(value) == "prizes" && value["pool"] == "iplyc-blackjack").await;
    agent.out.wait_for("a live panel", WAIT, is_live_panel).await;
    let journal_id = Direct::connect(&server.address.to_string()).await.journal_id;

    // A second Black Jack pool, then B4 (closed, holding nothing) moved to it.
    let (name, text) = pozo_testkit::rulebook_with_a_vip_blackjack_pool("5000.00");
    let rulebook = pb::ConfigurationChange { files: vec![pb::ConfigFile { name, text }], ..Default::default() };
    in_force(&url, &journal_id, pb::propose_change::What::Configuration(rulebook)).await;
    let moved = pb::config_edit::Edit::MoveTable(pb::TableMove { table_id: "B4".into(), pool_id: "iplyc-blackjack-vip".into() });
    let edits = pb::ConfigurationChange { edits: vec![pb::ConfigEdit { edit: Some(moved) }], ..Default::default() };
    in_force(&url, &journal_id, pb::propose_change::What::Configuration(edits)).await;

    let prizes = agent
        .out
        .wait_for("the new pool's paytable", WAIT, |value| kind(value) == "prizes" && value["pool"] == "iplyc-blackjack-vip")
        .await;
    assert!(prizes.value["prizes"].as_array().is_some_and(|prizes| !prizes.is_empty()), "{}", prizes.text);
    drop(agent);
    server.stop().await;
}

/// `GET path` over TLS to `address`, trusting only `ca_pem`, showing `client` (a certificate and
/// its key, PEM) if given: the response's head and body.
async fn get_over_tls(address: &str, ca_pem: &str, client: Option<(&str, &str)>, path: &str) -> std::io::Result<String> {
    use rustls::pki_types::pem::PemObject as _;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut roots = rustls::RootCertStore::empty();
    roots.add(rustls::pki_types::CertificateDer::from_pem_slice(ca_pem.as_bytes()).expect("a PEM")).expect("a root");
    let builder = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots);
    let config = match client {
        Some((cert, key)) => builder
            .with_client_auth_cert(
                vec![rustls::pki_types::CertificateDer::from_pem_slice(cert.as_bytes()).expect("a PEM")],
                rustls::pki_types::PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("a PEM key"),
            )
            .expect("a client certificate"),
        None => builder.with_no_client_auth(),
    };
    let tcp = tokio::net::TcpStream::connect(address).await?;
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("a name").to_owned();
    let mut tls = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config)).connect(name, tcp).await?;
    tls.write_all(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes()).await?;
    let mut response = Vec::new();
    tls.read_to_end(&mut response).await?;
    Ok(String::from_utf8_lossy(&response).into_owned())
}

/// A certificate for `name` signed by `ca`, and its key, PEM.
fn signed(ca: &rcgen::Issuer<'_, rcgen::KeyPair>, name: &str) -> (String, String) {
    let key = rcgen::KeyPair::generate().expect("a key");
    let certificate = rcgen::CertificateParams::new(vec![name.to_owned()]).expect("params").signed_by(&key, ca).expect("signed");
    (certificate.pem(), key.serialize_pem())
}

/// A throw-away CA named `name`: its PEM, and the issuer that signs with it.
fn certificate_authority(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    let key = rcgen::KeyPair::generate().expect("a key");
    let pem = params.self_signed(&key).expect("the CA").pem();
    (pem, rcgen::Issuer::new(params, key))
}

/// A tablet that is not the table's computer reaches the monitor over TLS (`--monitor-cert`,
/// `--monitor-key`) showing a client certificate of the casino's CA (`--monitor-client-ca`): the
/// page is served to it; a screen without a certificate, or with another CA's, gets no page, nor
/// does a plaintext request; and a named address without client certificates is refused at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monitor_is_served_over_tls_only_to_screens_with_the_casinos_client_certificate() {
    let (ca, issuer) = certificate_authority("Pozo test CA");
    let (server_cert, server_key) = signed(&issuer, "127.0.0.1");
    let tablet = signed(&issuer, "tablet-B2");
    let (_, stranger_ca) = certificate_authority("Another CA");
    let stranger = signed(&stranger_ca, "intruso");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let file = |name: &str, text: &str| {
        let path = directory.path().join(name);
        std::fs::write(&path, text).expect("written");
        path.to_str().expect("UTF-8").to_owned()
    };
    let (cert, key, client_ca) = (file("monitor.pem", &server_cert), file("monitor.key", &server_key), file("ca.pem", &ca));
    let keys = keys_file();
    let keys = keys.to_str().expect("UTF-8");

    // A named address with TLS but no client certificates: refused before anything is bound.
    let args = ["--table", "B2", "--key-file", keys, "--monitor", "0.0.0.0:0", "--monitor-cert", &cert, "--monitor-key", &key];
    let mut refused = AgentProcess::spawn(&args, &directory.path().join("refused.err"));
    assert_eq!(refused.finish().await.code(), Some(2));
    assert!(refused.stderr_text().contains("--monitor-client-ca"), "{}", refused.stderr_text());

    let server = TestServer::start().await;
    let url = server.url();
    let args = [
        "--server",
        &url,
        "--table",
        "B2",
        "--key-file",
        keys,
        "--monitor",
        "127.0.0.1:0",
        "--monitor-cert",
        &cert,
        "--monitor-key",
        &key,
        "--monitor-client-ca",
        &client_ca,
    ];
    let mut agent = AgentProcess::spawn(&args, &directory.path().join("agent.err"));
    let said = agent.out.wait_for("the monitor's address", WAIT, |value| kind(value) == "monitor").await;
    let address = said.value["address"].as_str().expect("an address").to_owned();
    assert_eq!(said.value["url"], format!("https://{address}/"));
    let page = get_over_tls(&address, &ca, Some((&tablet.0, &tablet.1)), "/").await.expect("the page over TLS");
    assert!(page.starts_with("HTTP/1.1 200") && page.contains("INICIAR JUEGO"), "{page}");
    // No client certificate, another CA's, plaintext: no page.
    let without = get_over_tls(&address, &ca, None, "/").await;
    assert!(without.as_ref().map_or(true, |page| !page.contains("INICIAR JUEGO")), "{without:?}");
    let other = get_over_tls(&address, &ca, Some((&stranger.0, &stranger.1)), "/").await;
    assert!(other.as_ref().map_or(true, |page| !page.contains("INICIAR JUEGO")), "{other:?}");
    let plain = reqwest::get(format!("http://{address}/")).await;
    assert!(plain.is_err() || !plain.expect("answered").status().is_success(), "a plaintext request got the page");
    // And the monitor still serves its tablet after the refused handshakes, and while two clients
    // that connected and said nothing wait out their 3 s handshake bound: a silent client holds up
    // no one (each would hold the next connection for 3 s if handshakes ran one after another).
    let _silent = [tokio::net::TcpStream::connect(&address).await, tokio::net::TcpStream::connect(&address).await];
    let again =
        tokio::time::timeout(Duration::from_secs(3), get_over_tls(&address, &ca, Some((&tablet.0, &tablet.1)), "/monitor.css"))
            .await
            .expect("not held up by the silent clients")
            .expect("served");
    assert!(again.starts_with("HTTP/1.1 200"), "{again}");
    drop(agent);
    server.stop().await;
}
