//! The secret stays secret until the hit (issue 44, item 4; docs/security.md, "Who can learn a
//! trigger before its hit"): while a mystery level's cycle is open, no read-side output of the
//! controller — gRPC answers, the journal's entries, the display feed, the table panels, every
//! page, the metrics, the status, the logs at debug level, a backup, the words of a refused
//! command — holds its trigger, in any writing, nor its nonce.
//!
//! The test learns the open trigger the only legitimate way a test can besides waiting for the
//! hit: as the controller's own recovery does, by unsealing the journal's `draw` entry with the
//! journal key of the example keys (`config/keys.toml`), and checks that what it unsealed opens
//! the journaled commitment. It then reads everything a person or a program can read and
//! scans it. The scanner is proven able to see: it finds the trigger in the plaintext unsealed
//! and in each of the writings it looks for.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::*;
use hmac::{Hmac, KeyInit, Mac};
use pozo_core::state::draw::{self, DrawHead};
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::config::{Config, KEYS_EMBEDDED};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};
use rust_decimal::Decimal;
use serde_json::Value;
use sha2::Sha256;

const POOL: &str = "mercado-gran-sala";
const WAIT: Duration = Duration::from_secs(10);

// ----------------------------------------------------------------------------- the logs

/// Every line the embedded controller logs in this test binary, at debug level and finer.
fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&buffer);
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("debug,pozo_server=trace,pozo_core=trace,pozo_engine=trace"))
            .with_ansi(false)
            .with_writer(move || Sink(Arc::clone(&sink)))
            .try_init()
            .expect("this test binary's only subscriber");
        buffer
    })
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the log buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// ----------------------------------------------------------------------------- the secret

/// An open draw's trigger and nonce, unsealed as the controller's recovery does
/// (server/src/writer/draws.rs): ChaCha20-Poly1305 under HMAC(journal key, "pozo.v1.draw-key" 0),
/// nonce the commitment's first 12 bytes, the commitment as associated data.
struct Secret {
    trigger: Money,
    nonce: [u8; 32],
    /// The unsealed bytes: the trigger's centavos (i128, big-endian) and the nonce.
    plain: Vec<u8>,
}

fn unseal(draw_entry: &Value) -> Secret {
    let command = &draw_entry["command"];
    let journal_key = Config::journal_key(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1).expect("the example keys' journal key");
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&journal_key.0).expect("any key length");
    mac.update(b"pozo.v1.draw-key\0");
    let draw_key: [u8; 32] = mac.finalize().into_bytes().into();
    let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &draw_key).expect("a 32-byte key"));
    let commitment: [u8; 32] = draw::nonce_of(command["commitment"].as_str().expect("a commitment")).expect("32 bytes");
    let mut sealed = hex::decode(command["sealed"].as_str().expect("a sealed draw")).expect("hex");
    let nonce = Nonce::assume_unique_for_key(commitment[..12].try_into().expect("12 bytes"));
    let plain = key.open_in_place(nonce, Aad::from(commitment), &mut sealed).expect("the example key unseals it").to_vec();
    let cents = i128::from_be_bytes(plain[..16].try_into().expect("16 bytes"));
    let trigger = Money::new(Decimal::from_i128_with_scale(cents, 2));
    let secret = Secret { trigger, nonce: plain[16..48].try_into().expect("32 bytes"), plain };
    // What was unsealed is what was committed to: the trigger of this draw, not a guess.
    let money = |value: &Value| -> Money { serde_json::from_value(value.clone()).expect("an amount") };
    let head = DrawHead {
        pool: POOL.into(),
        level: command["level"].as_str().expect("a level").to_owned(),
        cycle: command["cycle"].as_u64().expect("a cycle"),
        from: money(&command["from"]),
        ceiling: money(&command["ceiling"]),
    };
    assert_eq!(draw::commitment(&head, secret.trigger, &secret.nonce), commitment, "the unsealed draw opens its commitment");
    assert!(secret.trigger > head.from && secret.trigger <= head.ceiling);
    secret
}

/// Every writing of a secret the scanner looks for.
struct Writings {
    /// Amounts, matched as whole numbers (no digit either side): "20057.13", "20057.1" (a
    /// normalized decimal), "20.057,13" (the Argentine way), "20057,13", "20,057.13",
    /// "2005713" (centavos).
    numbers: Vec<String>,
    /// The nonce in hex (whole, and its first 16 digits), matched anywhere.
    hex: Vec<String>,
}

impl Writings {
    fn of(secret: &Secret) -> Writings {
        let plain = pozo_engine::money::plain_text(secret.trigger);
        let (units, cents) = plain.split_once('.').expect("two decimals");
        let ars = pozo_engine::format_ars(secret.trigger);
        let ars = ars.trim_start_matches('$').trim().to_owned();
        let thousands = ars.replace('.', "_").replace(',', ".").replace('_', ",");
        let mut numbers = vec![
            plain.clone(),
            secret.trigger.decimal().normalize().to_string(),
            ars,
            format!("{units},{cents}"),
            thousands,
            format!("{units}{cents}").trim_start_matches('0').to_owned(),
        ];
        numbers.sort();
        numbers.dedup();
        let nonce = hex::encode(secret.nonce);
        Writings { numbers, hex: vec![nonce.clone(), nonce[..16].to_owned(), nonce.to_uppercase()] }
    }

    /// The writings of the secret found in `text`.
    fn found_in(&self, text: &str) -> Vec<String> {
        let mut found: Vec<String> = self.hex.iter().filter(|hex| text.contains(hex.as_str())).cloned().collect();
        for number in &self.numbers {
            let bytes = text.as_bytes();
            let whole = text.match_indices(number.as_str()).any(|(at, _)| {
                let before = at.checked_sub(1).map(|before| bytes[before]);
                let after = bytes.get(at + number.len()).copied();
                !before.is_some_and(|byte| byte.is_ascii_digit()) && !after.is_some_and(|byte| byte.is_ascii_digit())
            });
            if whole {
                found.push(number.clone());
            }
        }
        found
    }
}

// ----------------------------------------------------------------------------- reading

/// Everything read, by where it was read.
#[derive(Default)]
struct Read(Vec<(String, String)>);

impl Read {
    fn add(&mut self, label: impl Into<String>, text: impl Into<String>) {
        self.0.push((label.into(), text.into()));
    }
}

async fn entries(client: &mut Client) -> Vec<pb::JournalEntry> {
    let mut all = Vec::new();
    let mut after = 0;
    loop {
        let page = client.reports.entries(pb::JournalEntriesRequest { after, limit: 0 }).await.expect("entries").into_inner();
        let Some(last) = page.entries.last() else { break };
        after = last.sequence;
        all.extend(page.entries);
    }
    all
}

fn records(entries: &[pb::JournalEntry]) -> Vec<Value> {
    entries.iter().map(|entry| serde_json::from_str(&entry.record_json).expect("a record")).collect()
}

/// A page signed in as `user`: reqwest with cookies, following nothing.
async fn browser(base: &str, user: &str, password: &str) -> reqwest::Client {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let login = http.get(format!("{base}/ingresar")).send().await.expect("the login page").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = login.find(marker).expect("a csrf token") + marker.len();
    let token = &login[start..start + login[start..].find('"').expect("its end")];
    let answer = http
        .post(format!("{base}/ingresar"))
        .form(&[("usuario", user), ("contrasena", password), ("csrf", token), ("destino", "")])
        .send()
        .await
        .expect("signed in");
    assert_eq!(answer.status(), reqwest::StatusCode::SEE_OTHER, "{user} signs in");
    http
}

async fn page(http: &reqwest::Client, base: &str, path: &str) -> String {
    let response = http.get(format!("{base}{path}")).send().await.unwrap_or_else(|error| panic!("{path}: {error}"));
    let status = response.status();
    let body = response.text().await.expect("a body");
    assert!(status.is_success(), "{path}: {status}: {body}");
    body
}

/// The sign's event stream up to its first `pozos` event.
async fn sign_events(base: &str) -> String {
    let mut response = reqwest::get(format!("{base}/cartel/eventos")).await.expect("the sign's events");
    let mut text = String::new();
    tokio::time::timeout(WAIT, async {
        while !text.contains("event: pozos") {
            let chunk = response.chunk().await.expect("a chunk").expect("the stream goes on");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .expect("the first pozos event");
    text
}

/// Every file under `directory`, as text (binary bytes lossily).
fn files_in(directory: &std::path::Path, read: &mut Read) {
    for entry in std::fs::read_dir(directory).expect("a directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files_in(&path, read);
        } else {
            let bytes = std::fs::read(&path).expect("a file");
            read.add(format!("file {}", path.display()), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
}

/// One Black Jack round at B1 with a bet at each of `seats`.
async fn round(client: &mut Client, seats: &[u32]) {
    for seat in seats {
        client.ok("B1", sell(*seat, 1)).await;
        client.ok("B1", press(*seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_read_side_output_holds_an_open_trigger_before_its_hit() {
    let logs = logs();
    let config = common::market::enlace();
    let server = TestServer::with_config(config.clone()).await;
    let mut client = server.client().await;
    let base = server.pages_url();
    client.ok("B1", open()).await;

    // The open draw, from the journal; its secret, unsealed as the controller's recovery does.
    let journal = records(&entries(&mut client).await);
    let draws: Vec<&Value> = journal.iter().filter(|record| record["command"]["kind"] == "draw").collect();
    assert_eq!(draws.len(), 1, "one open draw at the start");
    let secret = unseal(draws[0]);
    let writings = Writings::of(&secret);
    // The scanner sees: every writing it looks for, and the plaintext it unsealed.
    for number in &writings.numbers {
        // (A trigger of whole pesos is also found by its shorter writing: "34132" in "34132,00".)
        assert!(writings.found_in(&format!("<td>$ {number}</td>")).contains(number), "{number}");
        assert!(writings.found_in(&format!("1{number}")).is_empty(), "a longer number is another amount: {number}");
    }
    let plain = format!(
        "{} {} {}",
        i128::from_be_bytes(secret.plain[..16].try_into().unwrap()),
        hex::encode(&secret.plain[16..]),
        pozo_engine::format_ars(secret.trigger)
    );
    assert!(writings.found_in(&plain).len() >= 3, "the scanner finds the unsealed trigger: {plain}");

    // Play while the cycle stays open: the meter moves (20,00 a Black Jack bet, 10,00 a Three
    // Card Poker one), the hot seat's candidates are in force at two tables, never reaching
    // the trigger.
    let reset: Money = "20000.00".parse().unwrap();
    let rounds = if secret.trigger > reset + "200.00".parse::<Money>().unwrap() { 3 } else { 0 };
    for _ in 0..rounds {
        round(&mut client, &[1, 2]).await;
    }
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    let journal = records(&entries(&mut client).await);
    assert!(journal.iter().all(|record| record["command"]["kind"] != "reveal"), "the cycle is still open");

    let mut read = Read::default();

    // Refused commands: a drawn prize entered by hand, a seat out of range, a table not open.
    let refusals = [
        client.refused("CP1", prize(3, "MISTERIOSO"), tonic::Code::InvalidArgument).await,
        client.refused("CP1", prize(3, "ASIENTO_CALIENTE"), tonic::Code::InvalidArgument).await,
        client.refused("B2", sell(1, 1), tonic::Code::FailedPrecondition).await,
    ];
    for (index, refusal) in refusals.iter().enumerate() {
        read.add(format!("refusal {index}"), refusal.clone());
    }

    // gRPC: every report, status and feed.
    read.add(
        "Controller/Identify",
        format!(
            "{:?}",
            pb::controller_client::ControllerClient::new(client.channel.clone())
                .identify(pb::IdentifyRequest {})
                .await
                .expect("identify")
                .into_inner()
        ),
    );
    for rules in config.rulebooks.pools() {
        let pool = client.pool(&rules.id).await;
        read.add(format!("Reports/Pool {}", rules.id), format!("{pool:?}"));
    }
    let mystery = client.pool(POOL).await.levels.into_iter().find(|level| level.name == "Misterioso").expect("the mystery level");
    assert!(mystery.mystery && amount(&mystery.must_hit_by) == "60000.00", "the ceiling is shown, as it may be: {mystery:?}");
    for table in &config.layout.tables {
        let report = client
            .reports
            .table(pb::TableReportRequest { table_id: table.id.to_string(), ..Default::default() })
            .await
            .expect("a table report");
        read.add(format!("Reports/Table {}", table.id), format!("{:?}", report.into_inner()));
        read.add(format!("Table/Watch {}", table.id), format!("{:?}", client.view(&table.id).await));
    }
    read.add("Reports/Journal", format!("{:?}", client.journal().await));
    read.add("Reports/Entries", format!("{:?}", entries(&mut client).await));
    read.add(
        "Reports/Reconciliation",
        format!("{:?}", client.reports.reconciliation(pb::ReconciliationRequest::default()).await.expect("books").into_inner()),
    );
    read.add(
        "Reports/Liability",
        format!("{:?}", client.reports.liability(pb::LiabilityRequest::default()).await.expect("liability").into_inner()),
    );
    read.add(
        "Pools/Status",
        format!("{:?}", client.pools.status(pb::PoolStatusRequest::default()).await.expect("status").into_inner()),
    );
    let mut feed = client.display.watch(pb::WatchDisplays::default()).await.expect("the feed").into_inner();
    let update = tokio::time::timeout(WAIT, feed.message()).await.expect("a first update").expect("the feed").expect("an update");
    read.add("Display/Watch", format!("{update:?}"));
    read.add("VentaPagos/List", format!("{:?}", client.orders().await));

    // Every page: the signs and the open ones, then a supervisor's and Venta-Pagos'.
    let open_http = reqwest::Client::new();
    for path in ["/cartel", "/cartel?pozo=mercado-gran-sala", "/metrics", "/status", "/static/cartel.js"] {
        read.add(format!("GET {path}"), page(&open_http, &base, path).await);
    }
    read.add("GET /cartel/eventos", sign_events(&base).await);
    let supervisor = browser(&base, "sup-carla", "carla-ejemplo").await;
    let mut paths: Vec<String> = [
        "/sala",
        "/sala/mesas",
        "/sala/informe",
        "/sala/informe.csv",
        "/sala/informe-salones.csv",
        "/sala/conciliacion.csv",
        "/sala/pasivo.csv",
        "/sala/cambios",
        "/sala/cambios/programados",
    ]
    .iter()
    .map(|path| (*path).to_owned())
    .collect();
    paths.extend(config.rulebooks.pools().map(|rules| format!("/sala/pozos/{}", rules.id)));
    let flors: std::collections::BTreeSet<&str> = config.layout.tables.iter().map(|table| table.flor.as_str()).collect();
    paths.extend(flors.iter().map(|flor| format!("/sala/flor/{flor}")));
    for path in &paths {
        read.add(format!("GET {path}"), page(&supervisor, &base, path).await);
    }
    let pool_page = page(&supervisor, &base, "/sala/pozos/mercado-gran-sala").await;
    assert!(pool_page.contains("debe salir antes de $\u{a0}60.000,00"), "the pool's page shows the ceiling");
    let office = browser(&base, "vp-ana", "ana-ejemplo").await;
    for path in ["/venta-pagos", "/venta-pagos/pendientes", "/venta-pagos/historial", "/venta-pagos/historial.csv"] {
        read.add(format!("GET {path}"), page(&office, &base, path).await);
    }

    // A backup, as a supervisor takes it and keeps it: every file of it.
    let directory = tempfile::tempdir().expect("a temporary directory");
    let backup = directory.path().join("backup");
    let output = run(vec!["backup".into(), "--pages".into(), base.clone(), "--to".into(), backup.display().to_string()]).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    read.add("pozo-server backup", text(&output));
    files_in(&backup, &mut read);
    // The controller's own data directory holds the draw sealed, never in the clear.
    files_in(&server.data, &mut read);

    // The logs of all the above, at debug level.
    read.add("logs", String::from_utf8_lossy(&logs.lock().expect("the log buffer")).into_owned());
    assert!(read.0.last().is_some_and(|(_, logs)| logs.contains("DEBUG") || logs.contains("TRACE")), "the logs were captured");

    let leaks: Vec<String> = read
        .0
        .iter()
        .filter_map(|(label, text)| {
            let found = writings.found_in(text);
            (!found.is_empty()).then(|| format!("{label}: {found:?}"))
        })
        .collect();
    assert!(leaks.is_empty(), "the open trigger {} leaked before its hit: {leaks:#?}", secret.trigger);
    assert!(read.0.len() > 60, "everything was read: {}", read.0.len());

    // Still open: nothing above hit it, and the scanner would have found it in the sealed plain.
    let journal = records(&entries(&mut client).await);
    assert!(journal.iter().all(|record| record["command"]["kind"] != "reveal"));
    server.stop().await;
}
