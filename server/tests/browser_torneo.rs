//! The poker tournament's pages in a real browser (Res. 123/2013): Debian's Chromium, headless,
//! driven through ChromeDriver, against the real `pozo-server` binary.
//!
//! A named suite: `cargo test -p pozo-server --features browser-tests --test browser_torneo`.
//! Without `/usr/bin/chromium` and `/usr/bin/chromedriver` every test fails, saying what to
//! install. With `POZO_SCREENSHOTS=DIR` the tests write `torneo-caja-1024x768.png`,
//! `torneo-vale.png`, `torneo-cartel-1280x720.png` and `torneo-director-1280x800.png` there (the docs keep them in `docs/img/`).

mod common;

use pozo_testkit::process;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::tournament as t;
use fantoccini::wd::{PrintConfiguration, PrintSize};
use fantoccini::{Client, ClientBuilder, Locator};
use process::ServerProcess;
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Every wait for something a page should show at once.
const WAIT: Duration = Duration::from_secs(15);
/// The bound for a live page (the cartel's, 3.7.5): from the controller's answer to the change on screen.
const LIVE_WITHIN: Duration = Duration::from_secs(1);
const T: &str = "multimesa-semanal";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace holds server/").to_path_buf()
}

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

impl Driver {
    fn start() -> Driver {
        for (path, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                Path::new(path).exists(),
                "{path} is missing: the browser suite needs Debian's `chromium` and `chromium-driver` \
                 (apt-get install -y chromium chromium-driver); install `{package}` and run it again"
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
        client.set_window_size(width, height).await.expect("window size");
        let inner = client.execute("return [window.innerWidth, window.innerHeight];", vec![]).await.expect("the viewport");
        let side = |index: usize| inner[index].as_u64().expect("a size") as u32;
        client.set_window_size(2 * width - side(0), 2 * height - side(1)).await.expect("window size");
        client
    }
}

/// A `textContent` on the page, as written (a non-breaking space stays one).
async fn content(browser: &Client, css: &str) -> String {
    let script = "var found = document.querySelector(arguments[0]); return found ? found.textContent : '';";
    browser.execute(script, vec![json!(css)]).await.ok().and_then(|value| value.as_str().map(str::to_owned)).unwrap_or_default()
}

/// Polls `read` until `wanted` holds, within [`WAIT`]; returns the value.
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
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn screenshot(browser: &Client, name: &str, scratch: &Path) {
    let png = browser.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let directory = std::env::var_os("POZO_SCREENSHOTS").map(PathBuf::from).unwrap_or_else(|| scratch.to_path_buf());
    let directory = if directory.is_relative() { workspace().join(directory) } else { directory };
    std::fs::create_dir_all(&directory).expect("the screenshots' directory");
    std::fs::write(directory.join(name), png).expect("the screenshot written");
}

async fn sign_in(browser: &Client, base: &str, user: &str, password: &str) {
    browser.goto(&format!("{base}/ingresar")).await.expect("the login page");
    browser.find(Locator::Css("#usuario")).await.expect("user").send_keys(user).await.expect("typed");
    browser.find(Locator::Css("#contrasena")).await.expect("password").send_keys(password).await.expect("typed");
    browser.find(Locator::Css("#entrar")).await.expect("button").click().await.expect("clicked");
    until(
        "signed in",
        || async { browser.current_url().await.map(|url| url.path().to_owned()).unwrap_or_default() },
        |path| path != "/ingresar",
    )
    .await;
}

/// The page measured: every visible link, button, field and choice under 44 px high (text,
/// height), whatever sticks out to the right of the viewport, the document's width.
async fn measured(browser: &Client) -> Value {
    let script = r#"
        const small = Array.from(document.querySelectorAll('a, button, input:not([type=hidden]):not([type=checkbox]), select'))
            .filter(a => a.getClientRects().length && getComputedStyle(a).visibility !== 'hidden')
            .map(a => [(a.textContent || a.name).trim(), a.getBoundingClientRect().height])
            .filter(([, height]) => height < 44);
        const wide = Array.from(document.querySelectorAll('main *'))
            .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
            .slice(0, 4).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + e.textContent.trim().slice(0, 40));
        return { small: small, wide: wide };
    "#;
    browser.execute(script, vec![]).await.expect("measured")
}

fn pdf_words(pdf: &[u8]) -> String {
    let document = lopdf::Document::load_mem(pdf).expect("a PDF");
    let pages: Vec<u32> = document.get_pages().keys().copied().collect();
    let text = document.extract_text(&pages).expect("the PDF's text");
    text.replace('\u{FB01}', "fi").replace('\u{FB02}', "fl").chars().filter(|c| !c.is_whitespace()).collect()
}

fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

// A tournament set up through the two-person door (over gRPC) on the real binary. The room's
// display, open without login on loopback at 1280×720, reads the pool in figures at least 10 %
// of the screen high and no house share; the cashier, at 1024×768 (every control ≥ 44 px, nothing
// wider than the screen), books a buy-in through the form; the display shows the new pool
// within a second of the receipt, without reloading; the receipt (the document in full) prints
// on one A4 page with its figures and without its buttons.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_room_display_follows_the_cashiers_purchase_live_and_the_receipt_prints_on_one_page() {
    let driver = Driver::start();
    let profiles = tempfile::tempdir().expect("profiles");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (data, log) = (directory.path().join("data"), directory.path().join("server.log"));
    let server = tokio::task::spawn_blocking(move || {
        ServerProcess::spawn(Path::new(env!("CARGO_BIN_EXE_pozo-server")), &data, "127.0.0.1:0", &[], &log)
    })
    .await
    .expect("the server started");
    let base = server.pages.clone().expect("the pages are served");
    let client = common::connect(&server.address).await;
    t::set_up(&client, &t::multimesa()).await;
    t::ok(&client, t::CASHIER, t::purchase(T, "IN", 1, "Juana Pérez", &t::document_of(1), "20000.00")).await;

    // The room's display: no login on loopback; live; the pool readable from across the room.
    let sign = driver.browser(&profiles.path().join("cartel"), 1280, 720).await;
    sign.goto(&format!("{base}/torneo/{T}/cartel")).await.expect("the room display");
    until("the display live", || content(&sign, "#conexion"), |text| text == "en vivo").await;
    assert_eq!(content(&sign, "#cartel-pozo").await, "$\u{a0}16.000,00");
    let sizes = sign
        .execute(
            "var pool = document.getElementById('cartel-pozo').getBoundingClientRect(); \
             return [parseFloat(getComputedStyle(document.getElementById('cartel-pozo')).fontSize), innerHeight, \
                     document.documentElement.scrollHeight, pool.right];",
            vec![],
        )
        .await
        .expect("sizes");
    let size = |index: usize| sizes[index].as_f64().expect("a number");
    assert!(size(0) * 10.0 >= size(1), "the pool's figures are at least 10 % of the screen high: {sizes}");
    assert!(size(2) <= size(1) && size(3) <= 1280.0, "the display fits the screen: {sizes}");
    let text = content(&sign, "main").await;
    assert!(!text.contains("Casa") && !text.contains("4.000,00") && !text.contains("***"), "no house share, no document: {text}");
    sign.execute("window.marca = 'sin recargar';", vec![]).await.expect("a mark on the page");

    // The cashier at 1024×768.
    let cashier = driver.browser(&profiles.path().join("caja"), 1024, 768).await;
    sign_in(&cashier, &base, t::CASHIER, "ana-ejemplo").await;
    cashier.goto(&format!("{base}/torneos/{T}")).await.expect("the cashier's page");
    let seen = measured(&cashier).await;
    assert_eq!(seen["small"], json!([]), "every control a finger's size at 1024×768");
    assert_eq!(seen["wide"], json!([]), "nothing wider than 1024 px");
    let field = |css: &'static str| {
        let cashier = &cashier;
        async move { cashier.find(Locator::Css(css)).await.unwrap_or_else(|_| panic!("{css}")) }
    };
    assert_eq!(field("#orden").await.prop("value").await.expect("value").as_deref(), Some("2"), "the next order number");
    assert_eq!(field("#monto").await.prop("value").await.expect("value").as_deref(), Some("20000.00"));
    field("#nombre").await.send_keys("Pedro Gómez").await.expect("typed");
    field("#documento").await.send_keys(&t::document_of(2)).await.expect("typed");
    screenshot(&cashier, "torneo-caja-1024x768.png", profiles.path()).await;
    // From the click: the form posted, the purchase journaled, the receipt sent; the display follows.
    let booked = Instant::now();
    field("#vender").await.click().await.expect("clicked");
    cashier.wait().for_element(Locator::Css("#vale")).await.expect("the receipt");
    let pool = until("the display's new pool", || content(&sign, "#cartel-pozo"), |text| text == "$\u{a0}32.000,00").await;
    let elapsed = booked.elapsed();
    eprintln!("the room display showed {pool} {elapsed:?} after the cashier's click");
    assert!(elapsed <= LIVE_WITHIN, "the display follows within {LIVE_WITHIN:?}: {elapsed:?}");
    assert_eq!(content(&sign, "#cartel-inscriptos").await, "2");
    let mark = sign.execute("return window.marca || '';", vec![]).await.expect("the mark");
    assert_eq!(mark, json!("sin recargar"), "updated in place, not reloaded");
    screenshot(&sign, "torneo-cartel-1280x720.png", profiles.path()).await;

    // The receipt: the document in full; printed (the window.print path, as the closing sheet) on one A4 page.
    assert_eq!(content(&cashier, "#vale-documento").await, format!("DNI {}", t::document_of(2)));
    let button = cashier.find(Locator::Css("#imprimir")).await.expect("the print button");
    assert_eq!(button.attr("data-imprimir").await.expect("attribute"), Some(String::new()), "imprimir.js prints it");
    screenshot(&cashier, "torneo-vale.png", profiles.path()).await;
    let a4 = PrintConfiguration::builder().size(PrintSize::A4).build().expect("an A4 page");
    let pdf = cashier.print(a4).await.expect("the receipt printed to PDF");
    let words = pdf_words(&pdf);
    for expected in
        ["Vale de compra de fichas", "Pedro Gómez", &format!("DNI {}", t::document_of(2)), "$ 20.000,00", "Ana Pereyra"]
    {
        assert!(words.contains(&squeezed(expected)), "the receipt has `{expected}`: {words}");
    }
    for hidden in ["Imprimir", "Volver a la caja"] {
        assert!(!words.contains(&squeezed(hidden)), "the print stylesheet hides `{hidden}`: {words}");
    }
    let document = lopdf::Document::load_mem(&pdf).expect("a PDF");
    assert_eq!(document.get_pages().len(), 1, "the receipt fits one page");

    // The director's page at 1280×800: every control a finger's size, nothing wider than the screen.
    let director = driver.browser(&profiles.path().join("director"), 1280, 800).await;
    sign_in(&director, &base, t::DIRECTOR, "carla-ejemplo").await;
    director.goto(&format!("{base}/torneos/{T}/director")).await.expect("the director's page");
    let seen = measured(&director).await;
    assert_eq!(seen["small"], json!([]), "every control of the director's page a finger's size");
    assert_eq!(seen["wide"], json!([]), "nothing wider than 1280 px");
    screenshot(&director, "torneo-director-1280x800.png", profiles.path()).await;
    director.close().await.expect("closed");

    // The controller stops: the display says so.
    drop(server);
    until("the display down", || content(&sign, "#conexion"), |text| text.starts_with("sin conexión")).await;
    sign.close().await.expect("closed");
    cashier.close().await.expect("closed");
}
