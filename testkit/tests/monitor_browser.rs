//! The table's monitor at a pool with levels, in a real browser (docs/agent.md §11; issue 43,
//! "the table agent and its monitor"): Debian's Chromium, headless, driven through ChromeDriver,
//! against a real controller on 127.0.0.1:0 (the market's example layout and rulebooks,
//! `config/examples/mercado-casino.toml`, `config/iplyc.toml`, `config/mercado.toml`) and a real
//! table agent serving its monitor (the `table_agent` library on channels, as `pozo-agent
//! --monitor` runs it).
//!
//! A named suite: `cargo test -p pozo-testkit --features browser-tests --test monitor_browser`,
//! which `.ci/run` runs after installing `chromium` and `chromium-driver`. Without them every
//! test fails, saying what to install; none passes without a browser.
//!
//! With `POZO_SCREENSHOTS=DIR` (relative to the workspace) the tests write their screenshots
//! there: `POZO_SCREENSHOTS=docs/img` writes `docs/img/monitor-niveles-1024.png`.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Proxy, table_key, workspace};
use fantoccini::{Client, ClientBuilder, Locator};
use pozo_server::config::{Config, KEYS_EMBEDDED};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Every wait for something a page should show at once.
const WAIT: Duration = Duration::from_secs(15);
/// What the monitor calls a level's reset, in small print under its meter (the word of the
/// pool's page, "Reposición").
const RESET: &str = "reposición";

// ----------------------------------------------------------------------------- the configurations

/// The market's example: its layout, the regulations' rulebook and the market's, and the
/// example keys. `banked`: the four-level Black Jack link with its Major kept per flor
/// (`bank = "flor"`, docs/readings.md, "Levels"), so that B1 (flor F2) shows "Major · F2".
fn market(banked: bool) -> Config {
    let mercado = include_str!("../../config/mercado.toml");
    let mercado = if banked {
        // The link's Major only (the cross-game link's has another share); a banked level
        // overflows to its own reserve, never to another level's meter.
        let major = "name = \"Major\"\nshare = \"0.05\"\nreset = \"200000.00\"\nminimum_kind = \"floor\"\n\
                     cap = \"2000000.00\"\noverflow_to = \"Grand\"\n";
        assert_eq!(mercado.matches(major).count(), 1, "the four-level link's Major in config/mercado.toml");
        let banked = major.replace("overflow_to = \"Grand\"", "overflow_to = \"reserve\"\nbank = \"flor\"");
        mercado.replace(major, &banked)
    } else {
        mercado.to_owned()
    };
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml").to_owned()),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml").to_owned()),
        ("config/mercado.toml", mercado),
    ];
    let texts = texts.into_iter().map(|(name, text)| (name.to_owned(), text)).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

/// The market's example with the spades Mini Royal's envy bonus across the link, 150.000,00
/// (docs/readings.md, "The envy bonus"; as server/tests/market.rs edits it): a Mini Royal at
/// CP1 pays every other seat in force at CP1 and at CP2.
fn market_with_link_envy() -> Config {
    let mercado = include_str!("../../config/mercado.toml");
    let edited = mercado.replacen(
        "amount = \"50000.00\", scope = \"table\", paid_by = \"house\" }",
        "amount = \"150000.00\", scope = \"link\", paid_by = \"house\" }",
        1,
    );
    assert_ne!(edited, mercado, "the example's spades Mini Royal has an envy bonus of the table's scope");
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml").to_owned()),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml").to_owned()),
        ("config/mercado.toml", edited),
    ];
    let texts = texts.into_iter().map(|(name, text)| (name.to_owned(), text)).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

/// A controller of `config` on 127.0.0.1:0, its journal in a temporary directory.
struct Floor {
    server: pozo_server::Embedded,
    _directory: tempfile::TempDir,
}

async fn floor(config: Config) -> Floor {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let start = pozo_server::Embedded::start(config, directory.path(), Default::default());
    let server = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");
    Floor { server, _directory: directory }
}

// ----------------------------------------------------------------------------- the browser

/// A ChromeDriver child on a free loopback port; killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser test at a time: Chromiums starting at once on two cores time out.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Driver {
    fn start() -> Driver {
        for (path, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                Path::new(path).exists(),
                "{path} is missing: the monitor's browser tests need Debian's `chromium` and `chromium-driver` \
                 (apt-get install -y chromium chromium-driver); install `{package}` and run them again"
            );
        }
        let port = TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port();
        let child = Command::new(CHROMEDRIVER)
            .args([format!("--port={port}"), "--allowed-ips=127.0.0.1".to_owned()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver { child, port };
        let deadline = Instant::now() + WAIT;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on {port} within {WAIT:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        driver
    }

    /// A new headless Chromium with its own empty profile, its page `width`×`height`.
    async fn browser(&self, profile: &Path, width: u32, height: u32) -> Client {
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                    format!("--user-data-dir={}", profile.display()),
                    format!("--window-size={width},{height}"),
                ],
            }
        });
        let Value::Object(capabilities) = capabilities else { unreachable!() };
        let mut attempts = 0;
        let client = loop {
            let connected = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(capabilities.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await;
            match connected {
                Ok(client) => break client,
                Err(error) if attempts < 2 => {
                    attempts += 1;
                    eprintln!("Chromium did not start ({error}); again");
                }
                Err(error) => panic!("no Chromium session after 3 attempts: {error}"),
            }
        };
        // The page itself (the viewport) `width`×`height`.
        client.set_window_size(width, height).await.expect("window size");
        let inner = client.execute("return [window.innerWidth, window.innerHeight];", vec![]).await.expect("the viewport");
        let side = |index: usize| inner[index].as_u64().expect("a size") as u32;
        client.set_window_size(2 * width - side(0), 2 * height - side(1)).await.expect("window size");
        client
    }
}

/// A `textContent` on the page, as written (WebDriver's text would turn a non-breaking space
/// into a plain one); "" while it is not there.
async fn content(browser: &Client, css: &str) -> String {
    let script = "var found = document.querySelector(arguments[0]); return found ? found.textContent : '';";
    browser.execute(script, vec![json!(css)]).await.ok().and_then(|value| value.as_str().map(str::to_owned)).unwrap_or_default()
}

/// Every `textContent` of the elements `css`, in the page's order.
async fn contents(browser: &Client, css: &str) -> Vec<String> {
    let script = "return Array.from(document.querySelectorAll(arguments[0])).map(function (e) { return e.textContent; });";
    let value = browser.execute(script, vec![json!(css)]).await.expect("the page answers");
    value.as_array().into_iter().flatten().map(|text| text.as_str().unwrap_or_default().to_owned()).collect()
}

async fn attribute(browser: &Client, css: &str, name: &str) -> String {
    match browser.find(Locator::Css(css)).await {
        Ok(element) => element.attr(name).await.ok().flatten().unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// Polls `read` until `wanted` holds for its value, within [`WAIT`]; returns the value.
async fn until<F, Fut>(what: &str, mut read: F, wanted: impl Fn(&str) -> bool) -> String
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let deadline = Instant::now() + WAIT;
    loop {
        let value = read().await;
        if wanted(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}: still `{value}` after {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Saves a screenshot to `POZO_SCREENSHOTS` (or a temporary directory).
async fn screenshot(browser: &Client, name: &str, scratch: &Path) {
    let png = browser.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let directory = std::env::var_os("POZO_SCREENSHOTS").map(PathBuf::from).unwrap_or_else(|| scratch.to_path_buf());
    let directory = if directory.is_relative() { workspace().join(directory) } else { directory };
    std::fs::create_dir_all(&directory).expect("the screenshots' directory");
    std::fs::write(directory.join(name), png).expect("the screenshot written");
}

/// Touches the element `css` on the monitor.
async fn tap(browser: &Client, css: &str) {
    browser.find(Locator::Css(css)).await.unwrap_or_else(|_| panic!("`{css}` on the monitor")).click().await.expect("tapped");
}

/// Touches the option of the open choice whose text starts with `label` (an envy bonus's
/// name, "Envidia: Mini Royal de picas", contains its hand's).
async fn tap_option(browser: &Client, label: &str) {
    let xpath = format!("//div[@id='elegir-opciones']/button[starts-with(normalize-space(.), '{label}')]");
    browser.find(Locator::XPath(&xpath)).await.unwrap_or_else(|_| panic!("option `{label}`")).click().await.expect("tapped");
}

// ----------------------------------------------------------------------------- the agent

/// A table agent serving its monitor on a loopback port, as `pozo-agent --monitor` runs it:
/// hardware lines in, the printed lines to the monitor and to the test.
struct Monitored {
    /// `http://127.0.0.1:PORT`, the monitor.
    url: String,
    hardware: mpsc::Sender<table_agent::line::RawLine>,
    output: mpsc::Receiver<String>,
}

impl Monitored {
    async fn start(floor: &Floor, table: &str) -> Monitored {
        Monitored::start_via(table, &floor.server.url).await
    }

    /// [`Monitored::start`] with the agent reaching the controller at `server` (a [`Proxy`] in
    /// front of it, to lose the link at will).
    async fn start_via(table: &str, server: &str) -> Monitored {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let config = table_agent::AgentConfig {
            server: server.to_owned(),
            table: table.to_owned(),
            key: table_key(table),
            tls: None,
            monitor_url: Some(format!("{url}/")),
        };
        let (hardware, lines) = mpsc::channel(16);
        let (printer, mut printed) = mpsc::channel::<String>(1024);
        let (to_test, output) = mpsc::channel(4096);
        let hub = table_agent::monitor::Hub::new();
        tokio::spawn(table_agent::monitor::serve(listener, hub.clone(), hardware.clone()));
        tokio::spawn(async move {
            while let Some(line) = printed.recv().await {
                hub.publish(&line);
                let _ = to_test.try_send(line);
            }
        });
        tokio::spawn(table_agent::run(config, lines, printer));
        let mut agent = Monitored { url, hardware, output };
        agent.until("the paytable", |value| value["type"] == "prizes").await;
        agent.until("a live panel", |value| value["type"] == "panel" && value["suspended"] == false).await;
        agent
    }

    /// The next line the agent prints for which `wanted` holds, within [`WAIT`].
    async fn until(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let printed = tokio::time::timeout_at(deadline, self.output.recv())
                .await
                .unwrap_or_else(|_| panic!("no {what} within {WAIT:?}"))
                .expect("the agent runs");
            let value: Value = serde_json::from_str(&printed).unwrap_or(Value::Null);
            if wanted(&value) {
                return value;
            }
        }
    }

    /// Types `line` on the table's own path (the hardware's) and waits for its acknowledgement.
    async fn on_hardware(&mut self, line: &str) -> Value {
        self.hardware.send(table_agent::line::RawLine::Text(line.to_owned())).await.expect("the agent reads");
        let answer = self.until(&format!("the answer to `{line}`"), |value| value["input"] == line).await;
        assert_eq!(answer["type"], "ack", "`{line}`: {answer}");
        answer
    }

    /// A dealer's action on the monitor: its button, then a box and an option where it asks for
    /// them, then "Sí"; returns the agent's acknowledgement of the line it sent.
    async fn on_monitor(&mut self, browser: &Client, line: &str, seat: Option<u32>, option: Option<&str>) -> Value {
        let action = line.split(' ').next().expect("a word");
        tap(browser, &format!("#acciones button[data-accion='{action}']")).await;
        if let Some(seat) = seat {
            tap(browser, &format!(".box[data-box='{seat}']")).await;
        }
        if let Some(option) = option {
            tap_option(browser, option).await;
        }
        until("the confirmation", || content(browser, "#confirmar-texto"), |text| text.starts_with("¿Confirma")).await;
        tap(browser, "#confirmar-si").await;
        let answer = self.until(&format!("the answer to `{line}`"), |value| value["input"] == line).await;
        assert_eq!(answer["type"], "ack", "`{line}` from the monitor: {answer}");
        answer
    }
}

/// `2000080.00` the Argentine way, `2.000.080,00` (without the sign).
fn argentine(amount: &str) -> String {
    let (whole, cents) = amount.split_once('.').unwrap_or((amount, "00"));
    let digits: Vec<char> = whole.chars().collect();
    let mut grouped = String::new();
    for (index, digit) in digits.iter().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(*digit);
    }
    format!("{grouped},{cents:0<2}")
}

/// `$ 2.000.080,00` (a non-breaking space after the sign) → centavos.
fn centavos(text: &str) -> i64 {
    assert!(text.starts_with("$\u{a0}") && text.contains(','), "an amount the Argentine way, `$` bound to it: `{text}`");
    text.chars().filter(char::is_ascii_digit).collect::<String>().parse().expect("digits")
}

/// The award of `seat` in an acknowledgement's `awards`.
fn award_of(ack: &Value, seat: u32) -> Value {
    ack["awards"]
        .as_array()
        .and_then(|awards| awards.iter().find(|award| award["seat"] == seat))
        .cloned()
        .unwrap_or_else(|| panic!("an award for box {seat}: {ack}"))
}

// ----------------------------------------------------------------------------- the tests

// Issue 43 item 5, docs/readings.md "Levels", 3.5.1, 3.5.2: at B1 of the four-level link (its
// Major banked per flor) the dealer enters Tres sietes de corazones for box 3 on the monitor;
// while entered the monitor says the Grand will pay it; at ACEPTAR it says which level paid it
// and how much — the Grand's meter as it stood, the very award the controller fixed — and,
// being a percentage prize, PENDIENTE DE PAGO (it goes to Venta-Pagos), in the list and on
// box 3; the next round starts without it. Takes `monitor-niveles-1024.png` at 1024×768.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_aceptar_the_monitor_says_which_level_paid_each_prize_and_how_much() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(true)).await;
    let mut agent = Monitored::start(&floor, "B1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    until("the table closed on the monitor", || attribute(&monitor, "#estado", "data-estado"), |state| state == "cerrada").await;
    for line in ["open", "credits 3 5", "credits 5 5", "press 3", "press 5", "start"] {
        agent.on_hardware(line).await;
    }
    let grand = "#niveles .nivel[data-nivel='Grand'] strong";
    until("the bank's Major on the monitor", || content(&monitor, "#niveles"), |text| text.contains("Major · F2")).await;

    agent.on_monitor(&monitor, "prize 3 TRES_SIETES_CORAZONES", Some(3), Some("Tres sietes de corazones")).await;
    let entered =
        until("the prize entered", || content(&monitor, "#premios-ingresados"), |text| text.contains("Tres sietes")).await;
    assert_eq!(entered, "Premio ingresado: box 3 — Tres sietes de corazones · Grand", "the level that will pay it");
    agent.on_monitor(&monitor, "finish", None, None).await;
    let meter = centavos(&content(&monitor, grand).await);
    let accepted = agent.on_monitor(&monitor, "accept", None, None).await;

    // The controller's award: the Grand's, as its meter stood at ACEPTAR (3.5.1), to Venta-Pagos.
    let award = award_of(&accepted, 3);
    assert_eq!((&award["code"], &award["level"]), (&json!("TRES_SIETES_CORAZONES"), &json!("Grand")), "{accepted}");
    let fixed = award["award"].as_str().expect("an amount");
    assert!(!award["payout_order_id"].as_str().unwrap_or_default().is_empty(), "a percentage prize goes to Venta-Pagos: {award}");
    let said = until("the accepted prize on the monitor", || content(&monitor, "#premios-lista"), |text| !text.is_empty()).await;
    assert_eq!(said, format!("Box 3 · Tres sietes de corazones · Grand · $\u{a0}{} · PENDIENTE DE PAGO", argentine(fixed)));
    assert_eq!(centavos(&format!("$\u{a0}{}", argentine(fixed))), meter, "the award is the Grand's meter at ACEPTAR");
    assert_eq!(attribute(&monitor, "#premios-aceptados", "hidden").await, "", "the accepted prizes are shown");
    assert_eq!(
        content(&monitor, ".box[data-box='3'] .premio").await,
        format!("Grand\u{a0}· $\u{a0}{}PENDIENTE DE PAGO", argentine(fixed)),
        "box 3 says it too"
    );
    assert!(contents(&monitor, ".box[data-box='5'] .premio").await.is_empty(), "box 5 won nothing");
    awards_in_sight(&monitor).await;
    screenshot(&monitor, "monitor-niveles-1024.png", profiles.path()).await;

    // FINALIZAR JUEGO: the next round, the prize of the last one off the monitor.
    agent.on_monitor(&monitor, "finish", None, None).await;
    until("the accepted prizes gone", || attribute(&monitor, "#premios-aceptados", "hidden"), |hidden| !hidden.is_empty()).await;
    assert!(contents(&monitor, ".box .premio").await.is_empty(), "no box keeps the last round's prize");
    monitor.close().await.expect("closed");
}

// docs/readings.md, "The envy bonus": at CP1 (Three Card Poker, `mercado-tcp`) boxes 1, 2 and 3
// bet and box 1 holds the Mini Royal de picas; at ACEPTAR every other box with a bet wins the
// envy bonus, each its own award of $ 50.000,00 paid by the house, and the monitor shows it on
// boxes 2 and 3 ("Bono envidia · $ 50.000,00") and in the list, "pagado por la casa"; box 4,
// without a bet, wins nothing; box 1's Mini Royal goes to Venta-Pagos.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envy_bonus_shows_on_each_other_boxs_own_box_paid_by_the_house() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut agent = Monitored::start(&floor, "CP1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    until("the table closed on the monitor", || attribute(&monitor, "#estado", "data-estado"), |state| state == "cerrada").await;
    for line in ["open", "credits 1 5", "credits 2 5", "credits 3 5", "credits 4 5", "press 1", "press 2", "press 3", "start"] {
        agent.on_hardware(line).await;
    }
    agent.on_monitor(&monitor, "prize 1 MINI_ROYAL_PICAS", Some(1), Some("Mini Royal de picas")).await;
    agent.on_monitor(&monitor, "finish", None, None).await;
    let accepted = agent.on_monitor(&monitor, "accept", None, None).await;
    for seat in [2, 3] {
        let envy = award_of(&accepted, seat);
        assert_eq!(
            (&envy["code"], &envy["level"], &envy["envy"], &envy["award"], &envy["payout_order_id"]),
            (&json!("ENVIDIA_MINI_ROYAL_PICAS"), &json!("Pagado por la casa"), &json!(true), &json!("50000.00"), &json!("")),
            "box {seat}'s own envy bonus, paid by the house at the table: {accepted}"
        );
    }
    assert_eq!(accepted["awards"].as_array().map(Vec::len), Some(3), "box 4 had no bet: {accepted}");

    until("the envy on box 2", || content(&monitor, ".box[data-box='2'] .premio"), |text| !text.is_empty()).await;
    for seat in [2, 3] {
        let on_box = contents(&monitor, &format!(".box[data-box='{seat}'] .premio")).await;
        assert_eq!(on_box, ["Bono envidia\u{a0}· $\u{a0}50.000,00"], "box {seat}");
    }
    assert!(contents(&monitor, ".box[data-box='4'] .premio").await.is_empty(), "box 4 had no bet");
    let royal = award_of(&accepted, 1);
    let royal_amount = argentine(royal["award"].as_str().expect("an amount"));
    assert_eq!(
        contents(&monitor, ".box[data-box='1'] .premio").await,
        [format!("Mini Royal\u{a0}· $\u{a0}{royal_amount}PENDIENTE DE PAGO")],
        "box 1: the level that paid it"
    );
    let list = contents(&monitor, "#premios-lista li").await;
    assert_eq!(
        list,
        [
            format!("Box 1 · Mini Royal de picas · Mini Royal · $\u{a0}{royal_amount} · PENDIENTE DE PAGO"),
            "Box 2 · Bono envidia · $\u{a0}50.000,00 · pagado por la casa".to_owned(),
            "Box 3 · Bono envidia · $\u{a0}50.000,00 · pagado por la casa".to_owned(),
        ]
    );
    awards_in_sight(&monitor).await;
    screenshot(&monitor, "monitor-envidia-1024.png", profiles.path()).await;
    monitor.close().await.expect("closed");
}

/// Every award on the monitor is in sight: each inside its box, the list without scrolling.
async fn awards_in_sight(monitor: &Client) {
    let script = r#"
        var main = document.querySelector('main').getBoundingClientRect();
        var outside = [];
        document.querySelectorAll('.box .premio, .box .premio *').forEach(function (note) {
            // The box's inside, within its border.
            var box = note.closest('.box'), edge = box.getBoundingClientRect(), at = note.getBoundingClientRect();
            var left = edge.left + box.clientLeft, right = left + box.clientWidth;
            if (at.left < left || at.right > right || at.bottom > edge.bottom) { outside.push(note.textContent); }
        });
        document.querySelectorAll('#premios-lista li').forEach(function (line) {
            if (line.getBoundingClientRect().bottom > main.bottom) { outside.push(line.textContent); }
        });
        return outside;
    "#;
    let outside = monitor.execute(script, vec![]).await.expect("the awards measured");
    assert_eq!(outside, json!([]), "awards out of sight at 1024×768");
}

// docs/readings.md, "Levels": at 1024×768 the four meters of the link, with its banked Major's
// long name ("Major · F2"), stand in one row of the header, none outside the screen, each name,
// amount and reset unbroken, "$" bound to its amount by a non-breaking space; and each level's
// reset is in small print under its meter, as config/mercado.toml sets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_levels_reset_is_under_its_meter_and_a_banked_name_fits_the_header_at_1024x768() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(true)).await;
    let mut agent = Monitored::start(&floor, "B1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    // The flor's Major has a meter once a table of the flor played into it.
    for line in ["open", "credits 1 1", "press 1", "start"] {
        agent.on_hardware(line).await;
    }
    until("the bank's Major on the monitor", || content(&monitor, "#niveles"), |text| text.contains("Major · F2")).await;
    let script = r#"
        var meters = Array.from(document.querySelectorAll('#niveles .nivel'));
        var header = document.querySelector('header');
        return {
            names: meters.map(function (m) { return m.dataset.nivel; }),
            amounts: meters.map(function (m) { return m.querySelector('strong').textContent; }),
            resets: meters.map(function (m) { return getComputedStyle(m, '::after').content; }),
            tops: meters.map(function (m) { return Math.round(m.getBoundingClientRect().top); }),
            lines: meters.map(function (m) {
                return Array.from(m.children).map(function (c) { return c.getClientRects().length; });
            }),
            heights: meters.map(function (m) { return Math.round(m.getBoundingClientRect().height); }),
            left: Math.min.apply(null, meters.map(function (m) { return m.getBoundingClientRect().left; })),
            right: Math.max.apply(null, meters.map(function (m) { return m.getBoundingClientRect().right; })),
            width: document.documentElement.clientWidth,
            overflow: header.scrollWidth - header.clientWidth,
            page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            headerBottom: header.getBoundingClientRect().bottom,
        };
    "#;
    let laid = monitor.execute(script, vec![]).await.expect("the header measured");
    assert_eq!(laid["names"], json!(["Grand", "Major · F2", "Minor", "Mini"]), "the levels, first level first: {laid}");
    for (index, amount) in laid["amounts"].as_array().expect("amounts").iter().enumerate() {
        centavos(amount.as_str().expect("an amount"));
        assert_eq!(laid["lines"][index], json!([1, 1]), "meter {index}: its name and its amount each on one line: {laid}");
    }
    let resets: Vec<String> = ["2.000.000,00", "200.000,00", "50.000,00", "10.000,00"]
        .iter()
        .map(|amount| format!("\"{RESET} $\u{a0}{amount}\""))
        .collect();
    assert_eq!(laid["resets"], json!(resets), "each level's reset under its meter: {laid}");
    let tops = laid["tops"].as_array().expect("tops");
    assert!(tops.iter().all(|top| top == &tops[0]), "the four meters in one row: {laid}");
    let heights = laid["heights"].as_array().expect("heights");
    assert!(heights.iter().all(|height| height == &heights[0]), "no meter wraps inside: {laid}");
    assert!(laid["left"].as_f64() >= Some(0.0), "no meter off the left edge: {laid}");
    assert!(laid["right"].as_f64() <= laid["width"].as_f64(), "no meter off the right edge: {laid}");
    assert_eq!((&laid["overflow"], &laid["page"]), (&json!(0), &json!(0)), "nothing overflows the header or the page: {laid}");
    assert!(laid["headerBottom"].as_f64() < Some(768.0 / 3.0), "the header leaves the boxes and buttons room: {laid}");
    monitor.close().await.expect("closed");
}

// docs/agent.md §3: the monitor's awards are the controller's record (`TableView.accepted`): at
// CP1 the Mini Royal de picas for box 1 and the envy bonus of box 2 are accepted; an agent
// started afresh (as one restarted after ACEPTAR) serves a monitor that shows both, in the list
// and on their boxes, with the level that paid each, until FINALIZAR JUEGO.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_agents_monitor_shows_the_rounds_accepted_awards() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut first = Monitored::start(&floor, "CP1").await;
    for line in ["open", "credits 1 5", "credits 2 5", "press 1", "press 2", "start", "prize 1 MINI_ROYAL_PICAS", "accept"] {
        first.on_hardware(line).await;
    }
    // Another agent for CP1, which never saw ACEPTAR's answer: it knows the round from the view.
    let mut agent = Monitored::start(&floor, "CP1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    let list =
        until("the accepted prizes on the monitor", || content(&monitor, "#premios-lista"), |text| text.contains("Box 2")).await;
    assert!(list.starts_with("Box 1 · Mini Royal de picas · Mini Royal · $"), "{list}");
    assert_eq!(
        contents(&monitor, "#premios-lista li").await[1],
        "Box 2 · Bono envidia · $\u{a0}50.000,00 · pagado por la casa",
        "the envy bonus, marked by the paytable's flags"
    );
    assert_eq!(attribute(&monitor, "#premios-aceptados", "hidden").await, "", "the accepted prizes are shown");
    assert_eq!(contents(&monitor, ".box[data-box='2'] .premio").await, ["Bono envidia\u{a0}· $\u{a0}50.000,00"]);
    let royal = content(&monitor, ".box[data-box='1'] .premio").await;
    assert!(royal.starts_with("Mini Royal\u{a0}· $") && royal.ends_with("PENDIENTE DE PAGO"), "{royal}");
    agent.on_monitor(&monitor, "finish", None, None).await;
    until("the accepted prizes gone", || attribute(&monitor, "#premios-aceptados", "hidden"), |hidden| !hidden.is_empty()).await;
    assert!(contents(&monitor, ".box .premio").await.is_empty(), "no box keeps the last round's prize");
    monitor.close().await.expect("closed");
}

// docs/readings.md, "The envy bonus" across the link: a Mini Royal de picas at CP1 pays box 2 of
// CP2, whose dealer did nothing since INICIAR JUEGO; CP2's monitor shows it on box 2 and in the
// list as "Bono envidia por CP1 · $ 150.000,00", paid by the house and over the Venta-Pagos
// threshold, until CP2's FINALIZAR JUEGO. The prize chooser never offers an envy bonus (it
// follows its hand; the paytable's `envy`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envy_bonus_across_the_link_shows_on_the_other_tables_monitor() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market_with_link_envy()).await;
    let mut cp1 = Monitored::start(&floor, "CP1").await;
    let mut cp2 = Monitored::start(&floor, "CP2").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&cp2.url).await.expect("CP2's monitor");
    until("the table closed on the monitor", || attribute(&monitor, "#estado", "data-estado"), |state| state == "cerrada").await;
    for line in ["open", "credits 2 5", "press 2", "start"] {
        cp2.on_hardware(line).await;
    }
    tap(&monitor, "#acciones button[data-accion='prize']").await;
    tap(&monitor, ".box[data-box='2']").await;
    let offered = contents(&monitor, "#elegir-opciones button").await;
    assert!(offered.iter().any(|option| option.starts_with("Mini Royal de picas")), "{offered:?}");
    assert!(!offered.iter().any(|option| option.starts_with("Envidia")), "an envy bonus is never entered: {offered:?}");
    tap(&monitor, "#elegir-cancelar").await;
    for line in ["open", "credits 1 5", "press 1", "start", "prize 1 MINI_ROYAL_PICAS", "accept"] {
        cp1.on_hardware(line).await;
    }
    let on_box =
        until("the envy on CP2's box 2", || content(&monitor, ".box[data-box='2'] .premio"), |text| !text.is_empty()).await;
    assert_eq!(on_box, "Bono envidia por CP1\u{a0}· $\u{a0}150.000,00PENDIENTE DE PAGO");
    assert_eq!(
        contents(&monitor, "#premios-lista li").await,
        ["Box 2 · Bono envidia por CP1 · $\u{a0}150.000,00 · pagado por la casa · PENDIENTE DE PAGO"]
    );
    assert_eq!(attribute(&monitor, "#premios-lista li", "data-desde").await, "CP1");
    awards_in_sight(&monitor).await;
    screenshot(&monitor, "monitor-envidia-enlace-1024.png", profiles.path()).await;
    cp2.on_monitor(&monitor, "finish", None, None).await;
    until("the envy bonus gone", || attribute(&monitor, "#premios-aceptados", "hidden"), |hidden| !hidden.is_empty()).await;
    assert!(contents(&monitor, ".box .premio").await.is_empty(), "no box keeps the last round's bonus");
    monitor.close().await.expect("closed");
}

// ----------------------------------------------------------------------------- issue 45, the monitor on the floor

/// Resizes the page itself (the viewport) to `width`×`height`.
async fn resize(browser: &Client, width: u32, height: u32) {
    browser.set_window_size(width, height).await.expect("window size");
    let inner = browser.execute("return [window.innerWidth, window.innerHeight];", vec![]).await.expect("the viewport");
    let side = |index: usize| inner[index].as_u64().expect("a size") as u32;
    browser.set_window_size(2 * width - side(0), 2 * height - side(1)).await.expect("window size");
    let inner = browser.execute("return [window.innerWidth, window.innerHeight];", vec![]).await.expect("the viewport");
    assert_eq!(inner, json!([width, height]), "the page resized");
}

/// A JSON value the page computes.
async fn measure(browser: &Client, script: &str) -> Value {
    browser.execute(script, vec![]).await.expect("the page measured")
}

/// The answer banner as the dealer sees it: shown, its kind, its heading, its text, its type
/// size, its background, and whether it lies whole inside the screen.
async fn banner(browser: &Client) -> Value {
    measure(
        browser,
        r#"
        var box = document.getElementById('mensaje'), at = box.getBoundingClientRect();
        var text = document.getElementById('mensaje-texto');
        return {
            shown: !box.hidden && at.height > 0,
            kind: box.className,
            title: document.getElementById('mensaje-titulo').hidden ? '' : document.getElementById('mensaje-titulo').textContent,
            text: text.textContent,
            size: parseFloat(getComputedStyle(text).fontSize),
            background: getComputedStyle(box).backgroundColor,
            inside: at.top >= 0 && at.bottom <= window.innerHeight && at.left >= 0 && at.right <= window.innerWidth,
            height: at.height,
        };
    "#,
    )
    .await
}

/// The buttons marked SIGUIENTE among those shown: each one's action, label and background,
/// and the background of the shown buttons not marked.
async fn marked(browser: &Client) -> Value {
    measure(
        browser,
        r#"
        var shown = Array.from(document.querySelectorAll('nav:not([hidden]) button')).filter(function (b) {
            return !b.hidden && b.getBoundingClientRect().height > 0;
        });
        var next = shown.filter(function (b) { return b.classList.contains('siguiente'); });
        return {
            next: next.map(function (b) { return b.dataset.accion; }),
            labels: next.map(function (b) { var m = b.querySelector('.marca'); return m ? m.textContent : ''; }),
            background: next.map(function (b) { return getComputedStyle(b).backgroundColor; }),
            others: shown.filter(function (b) { return !b.classList.contains('siguiente'); })
                .map(function (b) { return getComputedStyle(b).backgroundColor; }),
        };
    "#,
    )
    .await
}

/// Waits until the one button marked SIGUIENTE is `action`'s, labelled, and brighter than the
/// rest (a background no other shown button has).
async fn next_is(browser: &Client, action: &str, step: &str) {
    let wanted = json!([action]).to_string();
    until(
        &format!("{step}: {action} marked SIGUIENTE"),
        || async { marked(browser).await["next"].to_string() },
        |next| next == wanted,
    )
    .await;
    let seen = marked(browser).await;
    assert_eq!(seen["labels"], json!(["SIGUIENTE"]), "{step}: {seen}");
    let background = &seen["background"][0];
    assert!(
        seen["others"].as_array().expect("others").iter().all(|other| other != background),
        "{step}: only the next one so coloured: {seen}"
    );
}

/// The state of the table on the monitor is `state`.
async fn state_is(browser: &Client, state: &str) {
    until(&format!("the table `{state}` on the monitor"), || attribute(browser, "#estado", "data-estado"), |now| now == state)
        .await;
}

// Issue 45, point 1: a refusal is a banner under the header that cannot be missed — type of
// 40 px or more, red, headed RECHAZADO, whole on the 1024×768 screen — and it stays (it is not
// a passing toast) until the dealer's next action takes it away. A refusal given as the link
// was lost ("Sin respuesta antes de perder el enlace…") goes once the link is back: a live table
// never shows a stale refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_a_red_banner_until_the_next_action_and_goes_when_the_link_comes_back() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let proxy = Proxy::start(floor.server.address).await;
    let mut agent = Monitored::start_via("B2", &proxy.url()).await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    state_is(&monitor, "cerrada").await;
    for line in ["open", "credits 2 5"] {
        agent.on_hardware(line).await;
    }
    state_is(&monitor, "apuestas").await;
    // Box 4 has no credits: the controller refuses its bet.
    tap(&monitor, "#acciones button[data-accion='press']").await;
    tap(&monitor, ".box[data-box='4']").await;
    until("the confirmation", || content(&monitor, "#confirmar-texto"), |text| text.contains("apuesta del box 4")).await;
    tap(&monitor, "#confirmar-si").await;
    let refused = agent.until("the answer to `press 4`", |value| value["input"] == "press 4").await;
    assert_eq!(refused["type"], "refused", "{refused}");
    until("the refusal shown", || async { banner(&monitor).await["title"].to_string() }, |title| title == "\"RECHAZADO\"").await;
    let shown = banner(&monitor).await;
    assert_eq!(shown["kind"], "rechazo", "{shown}");
    assert!(shown["text"].as_str().is_some_and(|text| text.starts_with("Apuesta del box 4.")), "what was refused: {shown}");
    assert!(shown["size"].as_f64() >= Some(40.0), "readable from a metre: {shown}");
    assert_eq!(shown["background"], "rgb(176, 0, 32)", "a strong red: {shown}");
    assert_eq!(shown["inside"], true, "whole on the screen: {shown}");
    screenshot(&monitor, "monitor-rechazo-1024x768.png", profiles.path()).await;
    // It stays: two seconds on, still there.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(banner(&monitor).await["kind"], "rechazo", "the refusal stays until the next action");
    // The next action takes it away.
    tap(&monitor, "#acciones button[data-accion='credits']").await;
    assert_eq!(banner(&monitor).await["shown"], false, "the dealer's next action clears the refusal");

    // A bet confirmed as the link goes silent: refused when the link is found lost.
    tap(&monitor, "#acciones button[data-accion='press']").await;
    tap(&monitor, ".box[data-box='2']").await;
    until("the confirmation", || content(&monitor, "#confirmar-texto"), |text| text.contains("apuesta del box 2")).await;
    proxy.drop_requests();
    tap(&monitor, "#confirmar-si").await;
    let lost = agent.until("the answer to `press 2`", |value| value["input"] == "press 2").await;
    assert_eq!((&lost["type"], &lost["code"]), (&json!("refused"), &json!("suspended")), "{lost}");
    until("SUSPENDIDO", || attribute(&monitor, "body", "class"), |class| class.contains("suspendido")).await;
    until("the refusal shown", || async { banner(&monitor).await["kind"].to_string() }, |kind| kind == "\"rechazo\"").await;
    assert!(banner(&monitor).await["text"].as_str().is_some_and(|text| text.contains("enlace")), "why: the link");
    // The link back: live again, and the refusal, now stale, gone.
    proxy.cut_all_and_forward();
    until("live again", || attribute(&monitor, "body", "class"), |class| !class.contains("suspendido")).await;
    until("the stale refusal gone", || async { banner(&monitor).await["shown"].to_string() }, |shown| shown == "false").await;
    let seen = measure(&monitor, "return document.body.innerText;").await;
    assert!(!seen.as_str().unwrap_or_default().contains("enlace"), "no word of the lost link on a live table: {seen}");
    monitor.close().await.expect("closed");
}

// Issue 45, point 2 (12.5.2.1 a–d, 12.5.2.3; docs/readings.md "The dealer's buttons in the
// article's order"): at each step of a round the one button the round expects next is marked
// SIGUIENTE, coloured as no other: Inspector (Apertura de Mesa, 4.6) while closed, INICIAR JUEGO
// while betting, FINALIZAR JUEGO in play (it closes the prizes' entry), ACEPTAR once the prizes
// are entered, FINALIZAR JUEGO at the rack. Takes `monitor-1024x768.png` and
// `monitor-1280x800.png`: a round in play, a prize entered, the next step marked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_button_the_round_expects_next_is_marked_at_each_step() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut agent = Monitored::start(&floor, "B1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    state_is(&monitor, "cerrada").await;
    next_is(&monitor, "inspector", "closed").await;
    for line in ["open", "credits 3 5", "credits 5 5", "press 5"] {
        agent.on_hardware(line).await;
    }
    state_is(&monitor, "apuestas").await;
    next_is(&monitor, "start", "betting").await;
    agent.on_monitor(&monitor, "press 3", Some(3), None).await;
    agent.on_monitor(&monitor, "start", None, None).await;
    state_is(&monitor, "en juego").await;
    next_is(&monitor, "finish", "in play").await;
    agent.on_monitor(&monitor, "prize 3 TRES_SIETES_CORAZONES", Some(3), Some("Tres sietes de corazones")).await;
    next_is(&monitor, "finish", "a prize entered: FINALIZAR closes the entry").await;
    screenshot(&monitor, "monitor-1024x768.png", profiles.path()).await;
    resize(&monitor, 1280, 800).await;
    next_is(&monitor, "finish", "at 1280×800").await;
    screenshot(&monitor, "monitor-1280x800.png", profiles.path()).await;
    resize(&monitor, 1024, 768).await;
    agent.on_monitor(&monitor, "finish", None, None).await;
    state_is(&monitor, "premios ingresados").await;
    next_is(&monitor, "accept", "prizes entered").await;
    agent.on_monitor(&monitor, "accept", None, None).await;
    state_is(&monitor, "aceptado").await;
    next_is(&monitor, "finish", "accepted: FINALIZAR at the rack").await;
    // ACEPTAR's answer: its amount never split from its "$" (issue 45, point 8).
    let said = until("ACEPTAR's answer", || content(&monitor, "#mensaje-texto"), |text| text.starts_with("ACEPTAR")).await;
    assert!(said.contains("$\u{a0}") && !said.contains("$ "), "{said}");
    assert!(content(&monitor, "#monto, #niveles strong").await.starts_with("$\u{a0}"), "the pool's amount too");
    agent.on_monitor(&monitor, "finish", None, None).await;
    state_is(&monitor, "apuestas").await;
    next_is(&monitor, "start", "the next round").await;
    monitor.close().await.expect("closed");
}

// Issue 45, point 3: a choice does not outlive its action. After a prize is entered the Premio
// button is let go and the next box touched asks nothing (today it reopened the prize list);
// after a bet the "toque el box" prompt goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_choice_ends_with_its_action() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut agent = Monitored::start(&floor, "B3").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    for line in ["open", "credits 2 5", "credits 4 5"] {
        agent.on_hardware(line).await;
    }
    state_is(&monitor, "apuestas").await;
    tap(&monitor, "#acciones button[data-accion='press']").await;
    assert!(content(&monitor, "#indicacion").await.contains("toque el box"), "the prompt while the bet waits for its box");
    tap(&monitor, ".box[data-box='2']").await;
    tap(&monitor, "#confirmar-si").await;
    agent.until("the answer to `press 2`", |value| value["input"] == "press 2" && value["type"] == "ack").await;
    until("the prompt gone", || content(&monitor, "#indicacion"), |text| !text.contains("toque el box")).await;
    assert!(contents(&monitor, "nav button.activa").await.is_empty(), "no action left chosen");
    agent.on_hardware("press 4").await;
    agent.on_hardware("start").await;
    state_is(&monitor, "en juego").await;

    agent.on_monitor(&monitor, "prize 2 TRES_SIETES_CORAZONES", Some(2), Some("Tres sietes de corazones")).await;
    until("the prize entered", || content(&monitor, "#premios-ingresados"), |text| text.contains("Tres sietes")).await;
    assert!(contents(&monitor, "nav button.activa").await.is_empty(), "Premio let go");
    assert!(!content(&monitor, "#indicacion").await.contains("toque el box"), "no prompt left");
    // The next touch on a box: no prize list, no question; the prompt asks for an action first.
    tap(&monitor, ".box[data-box='4']").await;
    let open =
        measure(&monitor, "return [document.getElementById('elegir').open, document.getElementById('confirmar').open];").await;
    assert_eq!(open, json!([false, false]), "a box touched after the prize asks nothing");
    assert!(content(&monitor, "#indicacion").await.starts_with("Elija primero una acción"));
    monitor.close().await.expect("closed");
}

// Issue 45, point 4 (3.7.5): SUSPENDIDO means nothing can be touched. The link lost with the
// bet's question open and Apuesta chosen: the question closes, the choice is let go, every box
// is disabled and says BLOQUEADO, a box touched asks nothing, and the pool's meters are struck
// through and dimmed as the cartel's; the link back, the boxes answer again and the meters are
// plain. Takes `monitor-suspendido-1024x768.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suspendido_disables_every_box_and_strikes_the_pools_amount() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let proxy = Proxy::start(floor.server.address).await;
    let mut agent = Monitored::start_via("B4", &proxy.url()).await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    for line in ["open", "credits 1 5", "press 1", "credits 3 5"] {
        agent.on_hardware(line).await;
    }
    state_is(&monitor, "apuestas").await;
    let struck = r#"
        var meters = Array.from(document.querySelectorAll('#niveles strong, #monto')).filter(function (m) { return !m.hidden && m.offsetParent; });
        return {
            meters: meters.length,
            struck: meters.filter(function (m) { return getComputedStyle(m).textDecorationLine.indexOf('line-through') >= 0; }).length,
            dim: meters.filter(function (m) { return parseFloat(getComputedStyle(m).opacity) < 1; }).length,
            disabled: Array.from(document.querySelectorAll('.box')).map(function (b) { return b.disabled; }),
            blocked: Array.from(document.querySelectorAll('.box')).map(function (b) { return !!b.querySelector('.bloqueado'); }),
            open: [document.getElementById('elegir').open, document.getElementById('confirmar').open],
        };
    "#;
    let live = measure(&monitor, struck).await;
    assert!(live["meters"].as_u64() > Some(0), "{live}");
    assert_eq!((&live["struck"], &live["dim"]), (&json!(0), &json!(0)), "live: plain meters: {live}");
    tap(&monitor, "#acciones button[data-accion='press']").await;
    tap(&monitor, ".box[data-box='3']").await;
    until("the confirmation", || content(&monitor, "#confirmar-texto"), |text| text.starts_with("¿Confirma apuesta")).await;

    proxy.drop_requests();
    until("SUSPENDIDO", || attribute(&monitor, "body", "class"), |class| class.contains("suspendido")).await;
    let down = measure(&monitor, struck).await;
    assert_eq!(down["open"], json!([false, false]), "the question closed: {down}");
    assert_eq!(down["struck"], down["meters"], "every meter struck through: {down}");
    assert_eq!(down["dim"], down["meters"], "every meter dimmed: {down}");
    assert!(down["disabled"].as_array().expect("boxes").iter().all(|disabled| disabled == true), "{down}");
    assert!(down["blocked"].as_array().expect("boxes").iter().all(|blocked| blocked == true), "{down}");
    assert!(contents(&monitor, "nav button.activa").await.is_empty(), "the choice let go");
    // A box touched (by script: a disabled button takes no touch) asks nothing.
    monitor.execute("document.querySelector(\".box[data-box='3']\").click();", vec![]).await.expect("touched");
    let touched = measure(&monitor, struck).await;
    assert_eq!(touched["open"], json!([false, false]), "no ¿Confirma apuesta? while SUSPENDIDO");
    assert!(
        content(&monitor, ".box[data-box='1']").await.contains("CON APUESTA"),
        "a recorded bet keeps its light and its words"
    );
    screenshot(&monitor, "monitor-suspendido-1024x768.png", profiles.path()).await;

    proxy.cut_all_and_forward();
    until("live again", || attribute(&monitor, "body", "class"), |class| !class.contains("suspendido")).await;
    let back = measure(&monitor, struck).await;
    assert_eq!((&back["struck"], &back["dim"]), (&json!(0), &json!(0)), "{back}");
    assert!(back["disabled"].as_array().expect("boxes").iter().all(|disabled| disabled == false), "{back}");
    agent.on_monitor(&monitor, "press 3", Some(3), None).await;
    monitor.close().await.expect("closed");
}

/// The floor inspector `name` types `pin` on the monitor's keypad and presses Entrar.
async fn type_pin(browser: &Client, name: &str, pin: &str) {
    if !measure(browser, "return document.getElementById('pin').open;").await.as_bool().unwrap_or(false) {
        tap(browser, "#acciones button[data-accion='inspector']").await;
        tap_option(browser, name).await;
    }
    for digit in pin.chars() {
        tap(browser, &format!("#pin-teclas button[data-tecla='{digit}']")).await;
    }
    assert_eq!(content(browser, "#pin-puntos").await, "●".repeat(pin.len()), "the PIN is never shown");
    // Entrar answers again once the last check came back.
    until("Entrar enabled", || attribute(browser, "#pin-entrar", "disabled"), |disabled| disabled.is_empty()).await;
    tap(browser, "#pin-entrar").await;
}

// Issue 45, point 5 (4.6, 4.7): the PIN is checked by the controller when it is typed, before
// any of the inspector's buttons opens: a wrong PIN is refused on the keypad in Spanish and the
// buttons stay closed; five wrong lock the inspector out at this table (the commands' lock-out),
// so that even the right PIN is then refused; another inspector's right PIN opens the buttons.
// Takes `monitor-inspector-1024x768.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_pin_is_refused_when_typed_and_never_opens_the_inspectors_buttons() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut agent = Monitored::start(&floor, "B2").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    state_is(&monitor, "cerrada").await;

    type_pin(&monitor, "Tomás Luna", "9999").await;
    let said = until("the refusal on the keypad", || content(&monitor, "#pin-error"), |text| !text.is_empty()).await;
    assert!(said.contains("PIN incorrecto para Tomás Luna"), "{said}");
    let checked = agent.until("the controller's answer", |value| value["type"] == "pin").await;
    assert_eq!((&checked["inspector"], &checked["accepted"]), (&json!("im-tomas"), &json!(false)), "{checked}");
    assert!(!checked.to_string().contains("9999"), "the PIN is never printed: {checked}");
    assert_eq!(attribute(&monitor, "#inspector-acciones", "hidden").await, "true", "a wrong PIN opens nothing");
    assert_eq!(attribute(&monitor, "#acciones", "hidden").await, "", "the dealer's buttons stay");
    // Four more wrong: locked out; then the right one is refused too.
    for _ in 0..4 {
        type_pin(&monitor, "Tomás Luna", "9999").await;
        agent.until("the controller's answer", |value| value["type"] == "pin").await;
    }
    type_pin(&monitor, "Tomás Luna", "1357").await;
    let locked = agent.until("the controller's answer", |value| value["type"] == "pin").await;
    assert_eq!(locked["accepted"], false, "locked out: {locked}");
    let said = until(
        "the lock-out on the keypad",
        || content(&monitor, "#pin-error"),
        |text| text.starts_with("RECHAZADO: Tomás Luna quedó bloqueado en la mesa B2"),
    )
    .await;
    assert!(said.contains("5 PIN incorrectos"), "{said}");
    assert_eq!(attribute(&monitor, "#inspector-acciones", "hidden").await, "true", "locked out: nothing opens");
    tap(&monitor, "#pin-cancelar").await;

    type_pin(&monitor, "Rosa Benítez", "2468").await;
    until("the inspector's buttons", || attribute(&monitor, "#inspector-acciones", "hidden"), |hidden| hidden.is_empty()).await;
    assert!(content(&monitor, "#inspector-nombre").await.contains("Rosa Benítez"));
    next_is(&monitor, "open", "closed, the inspector signed in").await;
    screenshot(&monitor, "monitor-inspector-1024x768.png", profiles.path()).await;
    // And her PIN acts: the table opens.
    tap(&monitor, "#inspector-acciones button[data-accion='open']").await;
    tap(&monitor, "#confirmar-si").await;
    let opened = agent.until("the answer to `open`", |value| value["input"] == "open").await;
    assert_eq!(opened["type"], "ack", "{opened}");
    state_is(&monitor, "apuestas").await;
    monitor.close().await.expect("closed");
}

// Issue 45, point 6: words beside colours and one vocabulary. Each box says CON APUESTA,
// "puede apostar" or "sin apuesta", as the flor does; "1 crédito"; the header says "ronda" (never "jugada"), and a closed table names no round;
// the controller's "posición" is said "box" on the monitor; "Premio ingresado" for one; each
// prize's button shows what it pays and its article in small print, never in its name; and at
// 1024×768 the header's table, pool and state badge stand on one line, the badge one line high.
// Takes `monitor-premio-1024x768.png` (the prize list open).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boxes_say_their_bet_in_words_and_the_monitor_speaks_one_vocabulary() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let floor = floor(market(false)).await;
    let mut agent = Monitored::start(&floor, "B1").await;
    let monitor = driver.browser(&profiles.path().join("monitor"), 1024, 768).await;
    monitor.goto(&agent.url).await.expect("the monitor");
    state_is(&monitor, "cerrada").await;
    assert_eq!(content(&monitor, "#mesa").await, "Mesa B1", "a closed table plays no round");
    for line in ["open", "credits 3 5", "credits 5 5", "credits 6 1"] {
        agent.on_hardware(line).await;
    }
    state_is(&monitor, "apuestas").await;
    // One credit is "1 crédito".
    until("box 6's credit", || content(&monitor, ".box[data-box='6']"), |text| text.contains("1 crédito")).await;
    assert!(!content(&monitor, ".box[data-box='6']").await.contains("1 créditos"));
    let pressed = agent.on_monitor(&monitor, "press 3", Some(3), None).await;
    assert!(
        pressed["outcome"].as_str().is_some_and(|outcome| outcome.contains("posición 3")),
        "the controller's word: {pressed}"
    );
    until("box 3's bet in words", || content(&monitor, ".box[data-box='3'] .apuesta"), |text| text == "CON APUESTA").await;
    // The flor's words: a blue box "puede apostar", a lit one CON APUESTA.
    assert_eq!(content(&monitor, ".box[data-box='5'] .apuesta").await, "puede apostar");
    // Each box's words inside its box, on one line, at 1024×768.
    let outside = measure(
        &monitor,
        r#"return Array.from(document.querySelectorAll('.box .apuesta')).filter(function (word) {
            var box = word.closest('.box').getBoundingClientRect(), at = word.getBoundingClientRect();
            return at.left < box.left || at.right > box.right || word.getClientRects().length !== 1;
        }).map(function (word) { return word.closest('.box').dataset.box; });"#,
    )
    .await;
    assert_eq!(outside, json!([]), "boxes whose words spill out");
    let said = until("the bet's answer", || content(&monitor, "#mensaje-texto"), |text| text.contains("box 3")).await;
    assert!(!said.contains("posición"), "one word for a seat: {said}");
    until("round 1", || content(&monitor, "#mesa"), |text| text == "Mesa B1 · ronda 1").await;
    agent.on_monitor(&monitor, "start", None, None).await;
    state_is(&monitor, "en juego").await;

    tap(&monitor, "#acciones button[data-accion='prize']").await;
    tap(&monitor, ".box[data-box='3']").await;
    let options = measure(
        &monitor,
        r#"return Array.from(document.querySelectorAll('#elegir-opciones button')).map(function (b) {
            var pays = b.querySelector('small.paga'), article = b.querySelector('small.articulo');
            return {
                name: b.firstChild.textContent,
                pays: pays ? pays.textContent : '',
                article: article ? article.textContent : '',
                articleSize: article ? parseFloat(getComputedStyle(article).fontSize) : 0,
                size: parseFloat(getComputedStyle(b).fontSize),
                height: b.getBoundingClientRect().height,
            };
        });"#,
    )
    .await;
    let options = options.as_array().expect("the prize list");
    assert!(!options.is_empty());
    for option in options {
        assert!(!option["name"].as_str().unwrap_or_default().contains('('), "no article in the name: {option}");
        assert!(!option["pays"].as_str().unwrap_or_default().is_empty(), "what it pays: {option}");
        let article = option["article"].as_str().unwrap_or_default();
        assert!(
            !article.is_empty() && !option["name"].as_str().unwrap_or_default().contains(article),
            "its article apart: {option}"
        );
        assert!(option["articleSize"].as_f64() < option["size"].as_f64(), "the article in small print: {option}");
        assert!(option["height"].as_f64() >= Some(48.0), "a finger's size: {option}");
    }
    let grand = options.iter().find(|option| option["name"] == "Tres sietes de corazones").expect("the Grand's prize");
    assert_eq!(grand["pays"], "100 % del Grand");
    screenshot(&monitor, "monitor-premio-1024x768.png", profiles.path()).await;
    tap_option(&monitor, "Tres sietes de corazones").await;
    tap(&monitor, "#confirmar-si").await;
    agent.until("the prize's answer", |value| value["input"] == "prize 3 TRES_SIETES_CORAZONES").await;
    let entered = until("the prize entered", || content(&monitor, "#premios-ingresados"), |text| !text.is_empty()).await;
    assert_eq!(entered, "Premio ingresado: box 3 — Tres sietes de corazones · Grand");
    agent.on_monitor(&monitor, "finish", None, None).await;
    state_is(&monitor, "premios ingresados").await;
    // The longest badge: the header on one line at 1024×768.
    let header = measure(
        &monitor,
        r#"
        var badge = document.getElementById('estado'), style = getComputedStyle(badge);
        var line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.3;
        var padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
        var mid = function (id) { var at = document.getElementById(id).getBoundingClientRect(); return Math.round(at.top + at.height / 2); };
        return {
            lines: (badge.getBoundingClientRect().height - padding) / line,
            rects: badge.getClientRects().length,
            middles: [mid('mesa'), mid('pozo'), mid('estado')],
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            text: document.body.innerText,
        };
    "#,
    )
    .await;
    assert!(header["lines"].as_f64() < Some(1.5), "the state badge on one line: {header}");
    let middles: Vec<i64> = header["middles"].as_array().expect("middles").iter().map(|m| m.as_i64().expect("px")).collect();
    assert!(middles.iter().all(|m| (m - middles[0]).abs() <= 12), "table, pool and state on one line: {header}");
    assert_eq!(header["overflow"], 0, "{header}");
    let text = header["text"].as_str().unwrap_or_default();
    for word in ["jugada", "posición", "premios ingresados:", "1 premios"] {
        assert!(!text.contains(word), "the monitor never says `{word}`: {text}");
    }
    monitor.close().await.expect("closed");
}
