//! The pages over HTTP, against the real controller on 127.0.0.1:0 with its pages on
//! 127.0.0.1:0 (docs/pages.md): every route, every role, every refusal. What a page
//! decides is checked where it lands, in the journal and the orders the gRPC side sees;
//! what a refusal leaves unchanged is checked there too.

mod common;

use std::pin::Pin;
use std::time::Duration;

use common::*;
use futures_util::{Stream, StreamExt};
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, LOCATION, SET_COOKIE};

/// Every wait for something that should happen at once.
const WAIT: Duration = Duration::from_secs(10);

/// One person's browser: its own cookies, redirects not followed (the tests look at them).
struct Browser {
    http: reqwest::Client,
    base: String,
    /// The session's CSRF token, once signed in.
    csrf: String,
}

impl Browser {
    fn new(base: &str) -> Browser {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        Browser { http, base: base.to_owned(), csrf: String::new() }
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(format!("{}{path}", self.base)).send().await.expect("GET answered")
    }

    async fn page(&self, path: &str) -> (StatusCode, String) {
        let response = self.get(path).await;
        let status = response.status();
        (status, response.text().await.expect("a body"))
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.http.post(format!("{}{path}", self.base)).form(form).send().await.expect("POST answered")
    }

    async fn post_page(&self, path: &str, form: &[(&str, &str)]) -> (StatusCode, String) {
        let response = self.post(path, form).await;
        let status = response.status();
        (status, response.text().await.expect("a body"))
    }

    /// The login form's CSRF token (and its cookie, kept by the client).
    async fn login_token(&self) -> String {
        let (status, html) = self.page("/ingresar").await;
        assert_eq!(status, StatusCode::OK, "{html}");
        hidden(&html, "csrf").expect("the login form carries a csrf token")
    }

    async fn try_login(&self, user: &str, password: &str) -> reqwest::Response {
        let token = self.login_token().await;
        self.post("/ingresar", &[("usuario", user), ("contrasena", password), ("csrf", &token), ("destino", "")]).await
    }

    /// A browser signed in as `user`, with its session's CSRF token.
    async fn signed_in(base: &str, user: &str, password: &str) -> Browser {
        let mut browser = Browser::new(base);
        let response = browser.try_login(user, password).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{user} signs in");
        let (status, html) = browser.page("/").await;
        assert_eq!(status, StatusCode::OK);
        drop(html);
        // Every page with a session carries its token in the header's logout form.
        let landing = response.headers()[LOCATION].to_str().expect("a location").to_owned();
        let (status, html) = browser.page(&landing).await;
        assert_eq!(status, StatusCode::OK, "{landing}: {html}");
        browser.csrf = hidden(&html, "csrf").expect("the session's csrf token");
        browser
    }
}

/// The value of the hidden input `name` in a page.
fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(html[start..end].to_owned())
}

fn location(response: &reqwest::Response) -> String {
    response.headers().get(LOCATION).map(|value| value.to_str().expect("ascii").to_owned()).unwrap_or_default()
}

/// A server with its pages, B3 open.
async fn floor() -> (TestServer, Client) {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    client.ok("B3", open()).await;
    (server, client)
}

/// The form the order page shows, as a browser would send it back.
fn decision_form(html: &str) -> Vec<(String, String)> {
    ["csrf", "pozo", "mesa", "asiento", "ronda", "premio", "monto"]
        .into_iter()
        .map(|name| (name.to_owned(), hidden(html, name).unwrap_or_else(|| panic!("the order page carries `{name}`"))))
        .collect()
}

fn with(form: &[(String, String)], extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut form = form.to_vec();
    for (name, value) in extra {
        form.retain(|(field, _)| field != name);
        form.push(((*name).to_owned(), (*value).to_owned()));
    }
    form
}

async fn post_form(browser: &Browser, path: &str, form: &[(String, String)]) -> (StatusCode, String, String) {
    let pairs: Vec<(&str, &str)> = form.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
    let response = browser.post(path, &pairs).await;
    let status = response.status();
    let target = location(&response);
    (status, target, response.text().await.expect("a body"))
}

// ----------------------------------------------------------------------------- the sign's stream

type Bytes = Pin<Box<dyn Stream<Item = reqwest::Result<axum::body::Bytes>> + Send>>;

/// A reader of `/cartel/eventos`.
struct Events {
    stream: Bytes,
    buffer: String,
    /// The floor as a sign holds it: the last `pozos`, with the `montos` since.
    floor: Option<serde_json::Value>,
}

impl Events {
    async fn open(base: &str) -> Events {
        let response = reqwest::get(format!("{base}/cartel/eventos")).await.expect("the stream opens");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[CONTENT_TYPE], "text/event-stream");
        Events { stream: Box::pin(response.bytes_stream()), buffer: String::new(), floor: None }
    }

    /// The next event, `(event, data)`; `None` when the stream ended.
    async fn next(&mut self) -> Option<(String, String)> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut event, mut data) = (String::new(), String::new());
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        event = value.trim().to_owned();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push_str(value.strip_prefix(' ').unwrap_or(value));
                    }
                }
                if event.is_empty() && data.is_empty() {
                    continue;
                }
                return Some((event, data));
            }
            let chunk = tokio::time::timeout(WAIT, self.stream.next()).await.expect("the stream goes on");
            match chunk {
                Some(Ok(bytes)) => self.buffer.push_str(std::str::from_utf8(&bytes).expect("UTF-8")),
                _ => return None,
            }
        }
    }

    /// The first state of the floor (a `pozos`, or one with the amounts of a `montos`
    /// applied) for which `wanted` holds, within [`WAIT`].
    async fn until(&mut self, what: &str, wanted: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        while tokio::time::Instant::now() < deadline {
            let (event, data) = self.next().await.unwrap_or_else(|| panic!("the stream ended waiting for {what}"));
            match event.as_str() {
                "pozos" => self.floor = Some(serde_json::from_str(&data).expect("the floor is JSON")),
                "montos" => {
                    let update: serde_json::Value = serde_json::from_str(&data).expect("the amounts are JSON");
                    let floor = self.floor.as_mut().expect("a montos event comes after a pozos one");
                    assert!(update.get("pozos").is_none(), "montos carries no prize lists: {data}");
                    floor["secuencia"] = update["secuencia"].clone();
                    for amount in update["montos"].as_array().expect("montos") {
                        let pool = floor["pozos"]
                            .as_array_mut()
                            .expect("pozos")
                            .iter_mut()
                            .find(|pool| pool["id"] == amount["id"])
                            .expect("montos names pools of the floor");
                        pool["monto"] = amount["monto"].clone();
                    }
                }
                _ => continue,
            }
            let floor = self.floor.as_ref().expect("a floor");
            if wanted(floor) {
                return floor.clone();
            }
        }
        panic!("no state with {what} within {WAIT:?}");
    }
}

fn pool<'a>(floor: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    floor["pozos"].as_array().expect("pozos").iter().find(|pool| pool["id"] == id).expect("the pool is on the sign")
}

/// `$ 5.001,30` → centavos.
fn centavos(text: &str) -> i64 {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    assert!(text.starts_with("$ ") && text.contains(','), "Argentine format: {text}");
    digits.parse().expect("digits")
}

// ----------------------------------------------------------------------------- the cartel

// Proves that the sign lists every pool, narrows to the pools, flores or tables named in its
// URL, refuses names that do not exist, and is sent with the security headers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cartel_shows_the_pools_it_is_asked_for() {
    let server = TestServer::with_pages().await;
    let browser = Browser::new(&server.pages_url());
    let response = browser.get("/cartel").await;
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    assert!(headers["content-security-policy"].to_str().expect("ascii").contains("script-src 'self'"));
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let html = response.text().await.expect("html");
    let every = "aj-poker,and-bolsa,and-carrusel,iplyc-blackjack,iplyc-central-poker,iplyc-ruleta";
    assert!(html.contains(&format!("data-pozos=\"{every}\"")), "{html}");
    assert!(html.contains("lang=\"es-AR\""));
    for (query, pools) in [("?mesa=B3", "iplyc-blackjack"), ("?pozo=iplyc-ruleta&pozo=aj-poker", "aj-poker,iplyc-ruleta")] {
        let (status, html) = browser.page(&format!("/cartel{query}")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains(&format!("data-pozos=\"{pools}\"")), "{query}: {html}");
    }
    let config = pozo_server::config::Config::embedded();
    let flor = &config.layout.tables.iter().find(|table| table.id == "B3").expect("B3").flor;
    let (_, html) = browser.page(&format!("/cartel?flor={flor}")).await;
    assert!(html.contains("pozo-iplyc-blackjack"), "the flor of B3 shows its pool: {html}");
    for (query, status, field) in [
        ("?pozo=nada", StatusCode::NOT_FOUND, "pozo: no existe el pozo `nada`"),
        ("?flor=99", StatusCode::NOT_FOUND, "flor: no existe la flor `99`"),
        ("?mesa=ZZ", StatusCode::NOT_FOUND, "mesa: no existe la mesa `ZZ`"),
        ("?color=rojo", StatusCode::BAD_REQUEST, "color: el cartel se elige con pozo, flor, mesa o salon"),
    ] {
        let (got, html) = browser.page(&format!("/cartel{query}")).await;
        assert_eq!(got, status, "{query}");
        assert!(html.contains(field), "{query}: {html}");
    }
    server.stop().await;
}

// AJ 2.5.4.1: the display shows "al menos, el monto actualizado del pozo progresivo o acumulado,
// su incremento, y los premios que se deban pagar". Proves every sign shows each pool's
// increment, the share of each bet it grows by (3.2.1: "se incrementará en un 65% de cada
// jugada registrada"), from its rulebook, and the gRPC display feed carries the same rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aj_2_5_4_1_the_sign_shows_the_pools_increment() {
    let server = TestServer::with_pages().await;
    let browser = Browser::new(&server.pages_url());
    let (status, html) = browser.page("/cartel?pozo=aj-poker&pozo=iplyc-blackjack").await;
    assert_eq!(status, StatusCode::OK);
    let config = pozo_server::config::Config::embedded();
    for pool in ["aj-poker", "iplyc-blackjack"] {
        let rate = config.rulebooks.pool(pool).expect("embedded").contribution_rate;
        let percent = (rate * rust_decimal::Decimal::ONE_HUNDRED).normalize().to_string().replace('.', ",");
        let section = html.split(&format!("id=\"pozo-{pool}\"")).nth(1).expect("the pool's section");
        let section = section.split("</section>").next().expect("closed");
        assert!(section.contains(&format!("Incremento: {percent} % de cada apuesta")), "{pool}: {section}");
    }
    let mut client = server.client().await;
    let mut feed = client
        .display
        .watch(pozo_proto::v1::WatchDisplays { pool_ids: vec!["iplyc-blackjack".into()], salon_id: String::new() })
        .await
        .expect("watch")
        .into_inner();
    let update = feed.message().await.expect("stream").expect("a first update");
    assert_eq!(update.pools[0].increment_rate, "0.65", "11.2.3: 65% of each bet");
    server.stop().await;
}

// Proves the sign's stream end to end: the amounts in Argentine format, rising when bets are
// registered and never before they are durable; a heartbeat when nothing changes; a hit
// waiting for Venta-Pagos as `pendientes` until the office page confirms it; a rejection as
// `rechazado`; and `suspendido` when the controller stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sign_stream_follows_bets_prizes_and_decisions_and_says_when_it_stops() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    let mut events = Events::open(&base).await;
    let first = events.until("the first state", |_| true).await;
    let before = centavos(pool(&first, "iplyc-blackjack")["monto"].as_str().expect("monto"));
    assert_eq!(pool(&first, "iplyc-blackjack")["monto"], "$ 5.000,00", "the minimum, the Argentine way");

    // Pressed bets are registered, and contribute, at INICIAR JUEGO.
    client.sell_and_press("B3", [1], 5).await;
    let started = client.ok("B3", start()).await;
    let rose = events
        .until("a higher amount", |floor| centavos(pool(floor, "iplyc-blackjack")["monto"].as_str().expect("monto")) > before)
        .await;
    assert!(rose["secuencia"].as_u64().expect("secuencia") >= started.journal_sequence, "{rose}");
    assert!(rose["durable_us"].as_u64().expect("durable_us") > 0);
    client.ok("B3", finish()).await;
    let (event, data) = loop {
        let (event, data) = events.next().await.expect("the stream goes on");
        if event == "latido" {
            break (event, data);
        }
    };
    assert_eq!(event, "latido");
    assert!(data.parse::<u64>().is_ok(), "a heartbeat carries the sequence: {data}");

    // A 20% prize waits for Venta-Pagos: PENDIENTE DE PAGO on the sign.
    let order = a_pending_order(&mut client, 2).await;
    let pending = events
        .until("a pending prize", |floor| !pool(floor, "iplyc-blackjack")["pendientes"].as_array().expect("list").is_empty())
        .await;
    let prize = &pool(&pending, "iplyc-blackjack")["pendientes"][0];
    assert_eq!((prize["mesa"].as_str(), prize["asiento"].as_u64()), (Some("B3"), Some(2)), "{prize}");
    assert_eq!(pool(&pending, "iplyc-blackjack")["ultimos"][0]["estado"], "pendiente");

    // Confirmed on the office page: the sign's pending list empties, the hit is confirmed.
    let office = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    let (_, html) = office.page(&format!("/venta-pagos/ordenes/{order}")).await;
    let form = with(&decision_form(&html), &[("formulario", "F-4104-0001"), ("confirmado", "si")]);
    let (status, target, _) = post_form(&office, &format!("/venta-pagos/ordenes/{order}/confirmar"), &form).await;
    assert_eq!((status, target.as_str()), (StatusCode::SEE_OTHER, format!("/venta-pagos/ordenes/{order}/comprobante").as_str()));
    let confirmed = events
        .until("the confirmation", |floor| pool(floor, "iplyc-blackjack")["pendientes"].as_array().expect("list").is_empty())
        .await;
    assert_eq!(pool(&confirmed, "iplyc-blackjack")["ultimos"][0]["estado"], "confirmado");

    // Rejected: the hit shows as rejected.
    let second = a_pending_order(&mut client, 3).await;
    events
        .until("the second prize", |floor| !pool(floor, "iplyc-blackjack")["pendientes"].as_array().expect("list").is_empty())
        .await;
    let (_, html) = office.page(&format!("/venta-pagos/ordenes/{second}")).await;
    let form = with(&decision_form(&html), &[("motivo", "Jugada mal marcada"), ("confirmado", "si")]);
    let (status, _, _) = post_form(&office, &format!("/venta-pagos/ordenes/{second}/rechazar"), &form).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let rejected =
        events.until("the rejection", |floor| pool(floor, "iplyc-blackjack")["ultimos"][0]["estado"] == "rechazado").await;
    assert!(pool(&rejected, "iplyc-blackjack")["pendientes"].as_array().expect("list").is_empty());

    // The controller stops: the sign is told, and the stream ends.
    drop(client);
    let stopping = tokio::spawn(server.stop());
    let mut said = None;
    while let Some((event, data)) = events.next().await {
        if event == "suspendido" {
            said = Some(data);
        }
    }
    assert!(said.is_some_and(|data| data.contains("3.7.5")), "the last event says the pools are suspended");
    stopping.await.expect("stopped");
}

// ----------------------------------------------------------------------------- logins

// Proves that a login is refused, with the reason on the page and no session, for a wrong
// password, an unknown user, a key that signs in to no page, and a missing or foreign CSRF token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_logins_are_refused_and_open_no_session() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    for (user, password) in [("vp-ana", "ana-equivocada"), ("nadie", "ana-ejemplo"), ("mesa-B3", "x"), ("cartel-1", "x")] {
        let browser = Browser::new(&base);
        let response = browser.try_login(user, password).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{user}");
        assert!(
            response
                .headers()
                .get_all(SET_COOKIE)
                .iter()
                .all(|cookie| !cookie.to_str().expect("ascii").starts_with("pozo_sesion="))
        );
        let html = response.text().await.expect("html");
        assert!(html.contains("Usuario o contraseña incorrectos."), "{user}: {html}");
        assert_eq!(location(&browser.get("/venta-pagos").await), "/ingresar?destino=/venta-pagos", "no session for {user}");
    }
    let browser = Browser::new(&base);
    browser.login_token().await;
    let (status, html) = browser.post_page("/ingresar", &[("usuario", "vp-ana"), ("contrasena", "ana-ejemplo")]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("csrf: falta el código"), "{html}");
    let (status, html) =
        browser.post_page("/ingresar", &[("usuario", "vp-ana"), ("contrasena", "ana-ejemplo"), ("csrf", &"0".repeat(64))]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("csrf: el código del formulario no coincide"), "{html}");
    // A token from another browser is not this browser's.
    let other = Browser::new(&base).login_token().await;
    let fresh = Browser::new(&base);
    fresh.login_token().await;
    let (status, _) =
        fresh.post_page("/ingresar", &[("usuario", "vp-ana"), ("contrasena", "ana-ejemplo"), ("csrf", &other)]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(location(&fresh.get("/venta-pagos").await), "/ingresar?destino=/venta-pagos");
    server.stop().await;
}

// Proves the lock-out: five wrong passwords lock the user out, and then even the right one is
// refused; another user is not affected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_wrong_passwords_lock_the_user_out() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let browser = Browser::new(&base);
    for attempt in 1..=5 {
        let response = browser.try_login("vp-bruno", "no-es").await;
        let expected = if attempt < 5 { StatusCode::UNAUTHORIZED } else { StatusCode::TOO_MANY_REQUESTS };
        assert_eq!(response.status(), expected, "attempt {attempt}");
    }
    let response = browser.try_login("vp-bruno", "bruno-ejemplo").await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS, "locked even with the right password");
    let html = response.text().await.expect("html");
    assert!(html.contains("Usuario bloqueado por 5 contraseñas incorrectas"), "{html}");
    Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    server.stop().await;
}

// Proves a good login: the session cookie is HttpOnly and SameSite=Strict; each role lands on
// its page; `destino` is followed only to the pages' own paths; logout needs the session's
// token and ends the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_opens_a_session_that_logout_ends() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let browser = Browser::new(&base);
    let response = browser.try_login("vp-ana", "ana-ejemplo").await;
    assert_eq!((response.status(), location(&response).as_str()), (StatusCode::SEE_OTHER, "/venta-pagos"));
    let cookie = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|cookie| cookie.to_str().expect("ascii").to_owned())
        .find(|cookie| cookie.starts_with("pozo_sesion="))
        .expect("a session cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"), "{cookie}");

    let supervisor = Browser::new(&base);
    assert_eq!(location(&supervisor.try_login("sup-carla", "carla-ejemplo").await), "/sala");
    for (destination, expected) in
        [("/venta-pagos/historial?mesa=B3", "/venta-pagos/historial?mesa=B3"), ("//evil.example/", "/venta-pagos")]
    {
        let other = Browser::new(&base);
        let token = other.login_token().await;
        let response = other
            .post(
                "/ingresar",
                &[("usuario", "vp-ana"), ("contrasena", "ana-ejemplo"), ("csrf", &token), ("destino", destination)],
            )
            .await;
        assert_eq!(location(&response), expected, "destino {destination}");
    }

    let signed = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    let (status, _) = signed.post_page("/salir", &[("csrf", "otro")]).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "logout needs the session's token");
    assert_eq!(signed.get("/venta-pagos").await.status(), StatusCode::OK, "still signed in");
    let response = signed.post("/salir", &[("csrf", &signed.csrf)]).await;
    assert_eq!((response.status(), location(&response).as_str()), (StatusCode::SEE_OTHER, "/ingresar"));
    assert_eq!(location(&signed.get("/venta-pagos").await), "/ingresar?destino=/venta-pagos", "signed out");
    server.stop().await;
}

// Proves who sees what: no session → to the login page; an operator has no floor view; a
// supervisor sees Venta-Pagos without the forms and cannot decide.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_sees_its_pages_only() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    let order = a_pending_order(&mut client, 1).await;
    let anonymous = Browser::new(&base);
    for path in ["/venta-pagos", "/venta-pagos/historial", "/sala", "/sala/informe", &format!("/venta-pagos/ordenes/{order}")] {
        let response = anonymous.get(path).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
        assert!(location(&response).starts_with("/ingresar?destino=/"), "{path}: {}", location(&response));
    }
    let (status, _) = anonymous.post_page(&format!("/venta-pagos/ordenes/{order}/confirmar"), &[("formulario", "F-1")]).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "an anonymous decision goes to the login page");

    let operator = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    let (status, html) = operator.page("/sala").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("Ana Pereyra (vp-ana) no tiene acceso"), "{html}");

    let supervisor = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let (status, html) = supervisor.page(&format!("/venta-pagos/ordenes/{order}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("id=\"confirmar\""), "a supervisor gets no confirm form");
    let entries = client.journal().await.entries;
    let form = [
        ("csrf", supervisor.csrf.as_str()),
        ("formulario", "F-1"),
        ("confirmado", "si"),
        ("pozo", "iplyc-blackjack"),
        ("mesa", "B3"),
        ("asiento", "1"),
        ("ronda", "1"),
        ("premio", "TRES_SIETES_MISMO_PALO"),
        ("monto", "1000.00"),
    ];
    let (status, html) = supervisor.post_page(&format!("/venta-pagos/ordenes/{order}/confirmar"), &form).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{html}");
    assert!(html.contains("sólo un operador confirma o rechaza"), "{html}");
    assert_eq!(client.journal().await.entries, entries, "nothing journaled");
    server.stop().await;
}

// ----------------------------------------------------------------------------- Venta-Pagos

// Proves the office's confirmation: listed live with its amount the Argentine way; the first
// POST only asks again; the second journals it as the operator's; the receipt names the
// operator, the form and the journal sequences; and every refusal (no token, no form number,
// facts that are not the order's, someone else first) changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_confirms_a_payout_in_two_steps_and_gets_a_receipt() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    let order = a_pending_order(&mut client, 1).await;
    let amount = pozo_engine::format_ars(amount(&client.order(&order).await.amount).parse().expect("an amount"))
        .replacen(' ', "\u{a0}", 1);
    let ana = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    for path in ["/venta-pagos", "/venta-pagos/pendientes"] {
        let (status, html) = ana.page(path).await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains(&format!("data-orden=\"{order}\"")) && html.contains(&amount), "{path}: {html}");
    }
    let (status, html) = ana.page(&format!("/venta-pagos/ordenes/{order}")).await;
    assert_eq!(status, StatusCode::OK);
    let form = decision_form(&html);
    let confirm = format!("/venta-pagos/ordenes/{order}/confirmar");
    let entries = client.journal().await.entries;

    // Refusals first: each leaves the order pending and the journal as it was.
    let without_token: Vec<_> =
        with(&form, &[("formulario", "F-1"), ("confirmado", "si")]).into_iter().filter(|(name, _)| name != "csrf").collect();
    let (status, _, html) = post_form(&ana, &confirm, &without_token).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("csrf"), "{html}");
    let (status, _, html) = post_form(&ana, &confirm, &with(&form, &[("formulario", " "), ("confirmado", "si")])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("formulario: el número de formulario es obligatorio"), "{html}");
    let (status, _, html) =
        post_form(&ana, &confirm, &with(&form, &[("formulario", "F-1"), ("confirmado", "si"), ("monto", "999999.00")])).await;
    assert_eq!(status, StatusCode::CONFLICT, "facts that are not the order's: {html}");
    let (status, _, html) = post_form(&ana, &confirm, &with(&form, &[("formulario", "F-1"), ("asiento", "dos")])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("asiento: `dos` no es un número"), "{html}");
    let (status, _, html) = post_form(&ana, &confirm, &with(&form, &[("formulario", "F-4104-0001")])).await;
    assert_eq!(status, StatusCode::OK, "the first step asks again");
    assert!(
        html.contains("¿Confirmar el pago de")
            && html.contains("F-4104-0001")
            && html.contains("name=\"confirmado\" value=\"si\""),
        "{html}"
    );
    assert_eq!(client.journal().await.entries, entries, "asking journals nothing");
    assert_eq!(client.order(&order).await.status, "pendiente");
    let (status, _) = ana.page(&format!("/venta-pagos/ordenes/{order}/comprobante")).await;
    assert_eq!(status, StatusCode::CONFLICT, "no receipt for a pending order");

    // Confirmed: journaled as vp-ana's, with the form number typed.
    let (status, target, _) =
        post_form(&ana, &confirm, &with(&form, &[("formulario", "F-4104-0001"), ("confirmado", "si")])).await;
    assert_eq!((status, target.clone()), (StatusCode::SEE_OTHER, format!("/venta-pagos/ordenes/{order}/comprobante")));
    assert_eq!(client.journal().await.entries, entries + 1);
    let decided = client.order(&order).await;
    assert_eq!(
        (decided.status.as_str(), decided.operator_id.as_str(), decided.form_number.as_str()),
        ("confirmada", "vp-ana", "F-4104-0001")
    );
    let (status, receipt) = ana.page(&target).await;
    assert_eq!(status, StatusCode::OK);
    for text in [
        "Comprobante de pago",
        order.as_str(),
        "F-4104-0001",
        "Ana Pereyra",
        amount.as_str(),
        &format!("asientos {} (marcado) y {} (decisión)", decided.journal_sequence, decided.resolved_sequence),
    ] {
        assert!(receipt.contains(text), "the receipt shows {text}: {receipt}");
    }

    // A second operator, too late: told who decided, nothing journaled.
    let bruno = Browser::signed_in(&base, "vp-bruno", "bruno-ejemplo").await;
    let late = with(&form, &[("csrf", &bruno.csrf), ("formulario", "F-2"), ("confirmado", "si")]);
    let (status, _, html) = post_form(&bruno, &confirm, &late).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(html.contains(&format!("La orden {order} ya fue confirmada por Ana Pereyra (vp-ana)")), "{html}");
    assert_eq!(client.journal().await.entries, entries + 1);
    let (status, _) = ana.page("/venta-pagos/ordenes/OP-999999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.stop().await;
}

// Proves the office's rejection: a reason is required; the rejection is journaled with it and
// the operator; its receipt says it is a rejection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_rejects_a_payout_with_a_reason() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    let order = a_pending_order(&mut client, 4).await;
    let bruno = Browser::signed_in(&base, "vp-bruno", "bruno-ejemplo").await;
    let (_, html) = bruno.page(&format!("/venta-pagos/ordenes/{order}")).await;
    let form = decision_form(&html);
    let reject = format!("/venta-pagos/ordenes/{order}/rechazar");
    let entries = client.journal().await.entries;
    let (status, _, html) = post_form(&bruno, &reject, &with(&form, &[("motivo", ""), ("confirmado", "si")])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("motivo: el motivo del rechazo es obligatorio"), "{html}");
    let (status, _, html) = post_form(&bruno, &reject, &with(&form, &[("motivo", "Cartas mal leídas")])).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("¿Rechazar la orden"), "{html}");
    assert_eq!(client.journal().await.entries, entries);
    let (status, target, _) =
        post_form(&bruno, &reject, &with(&form, &[("motivo", "Cartas mal leídas"), ("confirmado", "si")])).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let decided = client.order(&order).await;
    assert_eq!(
        (decided.status.as_str(), decided.operator_id.as_str(), decided.reason.as_str()),
        ("rechazada", "vp-bruno", "Cartas mal leídas")
    );
    let (_, receipt) = bruno.page(&target).await;
    assert!(
        receipt.contains("Comprobante de rechazo") && receipt.contains("Cartas mal leídas") && receipt.contains("Bruno Sosa"),
        "{receipt}"
    );
    server.stop().await;
}

// Proves the history: every order, filtered by table and jornada, with refusals for a table
// or date that is not one; and its CSV, one row per order with the plain amount and operator.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_lists_orders_by_jornada_and_table_and_exports_csv() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    let first = a_pending_order(&mut client, 1).await;
    let second = a_pending_order(&mut client, 2).await;
    client.confirm(&first, "F-77").await.expect("confirmed over gRPC");
    let jornada = client.report("B3").await.jornada;
    let ana = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    let (status, html) = ana.page(&format!("/venta-pagos/historial?jornada={jornada}&mesa=B3")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&first) && html.contains(&second) && html.contains("F-77"), "{html}");
    let (_, html) = ana.page("/venta-pagos/historial?mesa=R1").await;
    assert!(!html.contains(&first), "another table's history: {html}");
    let (_, html) = ana.page("/venta-pagos/historial?jornada=2001-01-01").await;
    assert!(html.contains("No hay órdenes para ese filtro."), "another jornada: {html}");
    let (status, html) = ana.page("/venta-pagos/historial?mesa=ZZ").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("mesa: no existe la mesa `ZZ`"), "{html}");
    let (status, html) = ana.page("/venta-pagos/historial?jornada=ayer").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("jornada: `ayer` no es una fecha"), "{html}");

    let response = ana.get(&format!("/venta-pagos/historial.csv?jornada={jornada}&mesa=B3")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], "text/csv; charset=utf-8");
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .expect("ascii")
            .contains(&format!("venta-pagos-{jornada}-mesa-B3.csv"))
    );
    let csv = response.text().await.expect("csv");
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .expect("a header")
            .starts_with("orden,jornada,marcada,pozo,mesa,posicion,ronda,premio,importe,estado,operador")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2, "{csv}");
    let confirmed = client.order(&first).await;
    let row = rows.iter().find(|row| row.starts_with(&first)).expect("the first order's row");
    assert!(row.contains(&format!(",{},confirmada,vp-ana,Ana Pereyra,F-77,", amount(&confirmed.amount))), "{row}");
    server.stop().await;
}

// ----------------------------------------------------------------------------- the floor

// Proves the floor view: every table with its state and its agent (connected while its watch
// is open), the pools with their pending prizes; the jornada's report with its chart and CSV;
// a pool's meters and last hits; and refusals for a bad jornada or an unknown pool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_view_shows_tables_agents_reports_and_pools() {
    let (server, mut client) = floor().await;
    let base = server.pages_url();
    a_pending_order(&mut client, 1).await;
    let carla = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let config = pozo_server::config::Config::embedded();

    let (status, html) = carla.page("/sala").await;
    assert_eq!(status, StatusCode::OK);
    for table in &config.layout.tables {
        assert!(html.contains(&format!("data-mesa=\"{}\"", table.id)), "table {} on the floor", table.id);
    }
    assert!(html.contains("1 PENDIENTE DE PAGO"), "{html}");
    // The build serving, as the journal records it (docs/operations.md §8, "Upgrades").
    assert!(html.contains(&format!("Versión <span id=\"version\">{} (SHA-256 ", env!("CARGO_PKG_VERSION"))), "{html}");
    let row = |html: &str, table: &str| {
        let start = html.find(&format!("data-mesa=\"{table}\"")).expect("the row");
        html[start..start + html[start..].find("</tr>").expect("row end")].to_owned()
    };
    assert!(row(&html, "B3").contains("desconectado") && row(&html, "B3").contains("SUSPENDIDAS"), "{}", row(&html, "B3"));
    assert!(row(&html, "B3").contains("apuestas abiertas"), "{}", row(&html, "B3"));
    assert!(row(&html, "B1").contains("cerrada"));

    // An agent watching B3: connected, pool play enabled there.
    let mut watch = client.watch("B3").await;
    watch.message().await.expect("a push").expect("the first view");
    let (_, fragment) = carla.page("/sala/mesas").await;
    assert!(
        row(&fragment, "B3").contains("conectado") && !row(&fragment, "B3").contains("desconectado"),
        "{}",
        row(&fragment, "B3")
    );
    assert!(!row(&fragment, "B3").contains("SUSPENDIDAS"));
    drop(watch);

    // The jornada's report.
    let report = client.report("B3").await;
    let (status, html) = carla.page(&format!("/sala/informe?jornada={}", report.jornada)).await;
    assert_eq!(status, StatusCode::OK);
    let ipa = pozo_engine::format_ars(amount(&report.ipa).parse().expect("IPA")).replacen(' ', "\u{a0}", 1);
    assert!(row(&html, "B3").contains(&ipa), "B3's IPA {ipa}: {}", row(&html, "B3"));
    assert!(html.contains("<svg") && html.contains("class=\"barra-ipa\""), "the hourly chart");
    let (status, html) = carla.page("/sala/informe?jornada=2026-13-45").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("jornada: `2026-13-45` no es una fecha"), "{html}");
    let csv = carla.get(&format!("/sala/informe.csv?jornada={}", report.jornada)).await.text().await.expect("csv");
    assert!(csv.starts_with("jornada,mesa,hora,ipa,pppa,fp,apuestas,pulsaciones,"), "{csv}");
    assert!(csv.lines().any(|line| line.starts_with(&format!("{},B3,,{},", report.jornada, amount(&report.ipa)))), "{csv}");

    // The jornada's books: every pool tied to zero, its tables' IPA with it; the same as CSV.
    let (_, html) = carla.page(&format!("/sala/informe?jornada={}", report.jornada)).await;
    assert!(html.contains("Los libros de todos los pozos cuadran en cero"), "{html}");
    let books = {
        let start = html.find("data-pozo=\"iplyc-blackjack\"><td>").expect("the pool's books");
        html[start..start + html[start..].find("</tr>").expect("row end")].to_owned()
    };
    let ipa_pesos = pozo_engine::format_ars(amount(&report.ipa).parse().expect("IPA")).replacen(' ', "\u{a0}", 1);
    // The prize at B3: its award and 65 % of the bet in (11.2.3), the difference $ 0,00, B3's IPA the tables'.
    assert!(
        books.contains("$\u{a0}6,50 (1)") && books.contains("diferencia\">$\u{a0}0,00<") && books.contains(&ipa_pesos),
        "{books}"
    );
    let csv = carla.get(&format!("/sala/conciliacion.csv?jornada={}", report.jornada)).await.text().await.expect("csv");
    assert!(csv.starts_with("jornada,pozo,saldo_apertura,reserva_apertura,apuestas,ipa,aportes,"), "{csv}");
    let line = csv.lines().find(|line| line.contains(",iplyc-blackjack,")).expect("the pool's line");
    let fields: Vec<&str> = line.split(',').collect();
    assert_eq!((fields[4], fields[19], fields[22], fields[23]), ("1", "0.00", "0.00", "0.00"), "{line}");
    assert_eq!(fields[5], amount(&report.ipa), "the pool's IPA is B3's: {line}");
    let (status, _) = carla.page("/sala/conciliacion.csv?jornada=2020-01-01").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no books kept for a jornada before this journal");

    // A pool's meters and hits.
    let (status, html) = carla.page("/sala/pozos/iplyc-blackjack").await;
    assert_eq!(status, StatusCode::OK);
    let pool = client.pool("iplyc-blackjack").await;
    let balance = pozo_engine::format_ars(amount(&pool.balance).parse().expect("balance")).replacen(' ', "\u{a0}", 1);
    assert!(html.contains(&balance), "{html}");
    assert!(
        html.contains("Últimos aciertos (1 de 25") && html.contains("Tres Sietes del mismo palo") && html.contains("<td>B3</td>"),
        "{html}"
    );
    let (status, _) = carla.page("/sala/pozos/nada").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.stop().await;
}

// ----------------------------------------------------------------------------- the closing sheet

/// The text between `<… id="{id}"…>` and the element's end tag, without its tags.
fn element(html: &str, id: &str) -> String {
    let start = html.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id} in {html}"));
    let open_end = start + html[start..].find('>').expect("the tag ends");
    let close = open_end + html[open_end..].find("</").expect("the element ends");
    html[open_end + 1..close].to_owned()
}

// Proves the closing sheet (4.7.4–4.7.6, 12.8, Form 4218): R1 opened by Rosa Benítez and closed
// by Tomás Luna at its monitor (their PINs), a bronze hit leaving two silvers at the close; B1
// opened by its agent with a Cuatro Ases paid at the table. Each sheet shows the IPA, PPPA, FP
// and grillos the controller kept, who opened and closed the table, and the journal entries they
// come from; the report links them; an unknown table, a jornada not kept and a bad date are
// refused by name; who reads the sala and the floor inspector read it, Venta-Pagos does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_closing_sheet_shows_the_forms_figures_and_who_opened_and_closed() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let mut client = server.client().await;
    let opened = client.by_inspector("R1", open(), "im-rosa", "2468").await;
    client.ok("R1", sell(1, 1)).await;
    client.ok("R1", press(1)).await;
    client.play_round("R1", &[(1, "GRILLO_BRONCE")]).await;
    let closed = client.by_inspector("R1", close(), "im-tomas", "1357").await;
    client.open_with_bets("B1", &[(2, 5)], &[2]).await;
    client.play_round("B1", &[(2, "CUATRO_ASES")]).await;
    let roulette = client.report("R1").await;
    let blackjack = client.report("B1").await;
    let jornada = roulette.jornada.clone();
    let date = {
        let parts: Vec<&str> = jornada.split('-').collect();
        format!("{}/{}/{}", parts[2], parts[1], parts[0])
    };
    // A jornada runs past midnight: a table opened after it is stamped the next calendar day.
    let next_day = {
        let day: jiff::civil::Date = jornada.parse().expect("the jornada is a date");
        day.tomorrow().expect("a next day").strftime("%d/%m/%Y").to_string()
    };
    let on_the_jornada = |moment: &str| moment.contains(&date) || moment.contains(&next_day);
    // A page holds an amount to its `$` with a non-breaking space (issue 45, point 8).
    let pesos = |value: &Option<pozo_proto::v1::Amount>| {
        pozo_engine::format_ars(amount(value).parse().expect("an amount")).replacen(' ', "\u{a0}", 1)
    };
    assert_eq!(roulette.fp, 2, "two silvers held at the close: {roulette:?}");

    let carla = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let sheet = format!("/sala/planilla/R1/{jornada}");
    let (status, html) = carla.page(&sheet).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains(&format!("Planilla de cierre — Mesa R1 — jornada {date}")), "{html}");
    for id in ["ipa-4109", "ipa-4020"] {
        assert_eq!(element(&html, id), pesos(&roulette.ipa), "#{id}");
    }
    for id in ["pppa-4109", "pppa-4020"] {
        assert_eq!(element(&html, id), pesos(&roulette.pppa), "#{id}");
    }
    assert_eq!((element(&html, "fp"), element(&html, "grillos-total")), ("2".to_owned(), "2".to_owned()));
    assert!(html.contains("<td>Box 1</td><td class=\"num\">0</td><td class=\"num\">2</td>"), "seat 1's two silvers: {html}");
    let apertura = element(&html, "apertura");
    assert!(apertura.starts_with("Rosa Benítez (im-rosa), ") && on_the_jornada(&apertura), "{apertura}");
    assert!(apertura.ends_with(&format!("(asiento {})", opened.journal_sequence)), "{apertura}");
    let cierre = element(&html, "cierre");
    assert!(cierre.starts_with("Tomás Luna (im-tomas), ") && cierre.ends_with(&format!("(asiento {})", closed.journal_sequence)));
    assert_eq!(
        element(&html, "asientos"),
        format!("Asientos del diario {} a {}", opened.journal_sequence, closed.journal_sequence)
    );
    assert_eq!((element(&html, "vendidos"), element(&html, "devueltos")), ("1".to_owned(), "0".to_owned()));
    for words in [
        "Formulario 4109 — Estado de banca",
        "(4.7.4, 4.7.5)",
        "FP — Fichas Poceado",
        "Grillos al cierre <small>(4.7.5)",
        "Formulario 4020",
        "Descargos por Canje",
        "(4.7.6)",
        "Créditos vendidos y devueltos <small>(12.8.1",
        "Formulario 4218 — Estadística horaria <small>(2.8.1.2",
        "Imprimir / Guardar PDF",
        "/static/planilla.css",
        "/static/imprimir.js",
    ] {
        assert!(html.contains(words), "the sheet says {words}: {html}");
    }

    // B1: a card table (no FP, no grillos), opened by its agent, still open.
    let (status, html) = carla.page(&format!("/sala/planilla/B1/{jornada}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(element(&html, "pppa-4109"), "$\u{a0}500,00", "Cuatro Ases (11.5.3)");
    assert_eq!(element(&html, "ipa-4020"), pesos(&blackjack.ipa));
    assert!(!html.contains("id=\"fp\"") && !html.contains("id=\"grillos\""), "{html}");
    assert!(html.contains("(12.8.4)") && html.contains("(12.8.5)"), "Black Jack's articles: {html}");
    assert!(element(&html, "apertura").starts_with("— (desde la mesa, sin inspector), "), "{html}");
    assert_eq!(element(&html, "cierre"), "— (la mesa no se cerró en la jornada)");
    // The jornada's report links each table's sheet.
    let (_, report) = carla.page(&format!("/sala/informe?jornada={jornada}")).await;
    assert!(report.contains(&format!("href=\"{sheet}\"")), "{report}");
    // A table with no movement in the jornada: its sheet, all zeros.
    let (status, html) = carla.page(&format!("/sala/planilla/R3/{jornada}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("id=\"sin-movimiento\"") && element(&html, "ipa-4109") == "$\u{a0}0,00", "{html}");

    // Refusals, by name.
    for (path, expected, says) in [
        (format!("/sala/planilla/Z9/{jornada}"), StatusCode::NOT_FOUND, "mesa: no existe la mesa `Z9`".to_owned()),
        (
            "/sala/planilla/R1/2026-13-45".to_owned(),
            StatusCode::BAD_REQUEST,
            "jornada: `2026-13-45` no es una fecha AAAA-MM-DD".to_owned(),
        ),
        ("/sala/planilla/R1/ayer".to_owned(), StatusCode::BAD_REQUEST, "jornada: `ayer` no es una fecha".to_owned()),
        (
            "/sala/planilla/R1/2020-01-01".to_owned(),
            StatusCode::NOT_FOUND,
            format!(
                "jornada: el controlador no tiene registros de la jornada 01/01/2020: guarda las últimas 62 jornadas con movimiento (del {date} al {date})"
            ),
        ),
    ] {
        let (status, html) = carla.page(&path).await;
        assert_eq!(status, expected, "{path}: {html}");
        assert!(html.contains(&says), "{path}: {html}");
    }

    // Who reads it: not anonymous, not Venta-Pagos; the inspector, and the floor inspector,
    // who finds it on the flor's page and goes back there.
    let anonymous = Browser::new(&base);
    let response = anonymous.get(&sheet).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&response), format!("/ingresar?destino={sheet}"));
    let ana = Browser::signed_in(&base, "vp-ana", "ana-ejemplo").await;
    let (status, html) = ana.page(&sheet).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("Ana Pereyra (vp-ana) no tiene acceso"), "{html}");
    let elena = Browser::signed_in(&base, "insp-elena", "elena-ejemplo").await;
    assert_eq!(elena.page(&sheet).await.0, StatusCode::OK);
    let rosa = Browser::signed_in(&base, "im-rosa", "rosa-ejemplo").await;
    let (_, flor) = rosa.page("/sala/flor/F1").await;
    assert!(flor.contains(&format!("href=\"{sheet}\"")), "the flor links R1's sheet: {flor}");
    let (status, html) = rosa.page(&sheet).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("href=\"/sala/flor/F1\" id=\"volver\""), "back to her flor: {html}");
    assert_eq!(rosa.page(&format!("/sala/informe?jornada={jornada}")).await.0, StatusCode::FORBIDDEN, "the report is not hers");
    server.stop().await;
}

// ----------------------------------------------------------------------------- limits and assets

// Proves the limits and the assets: a body over 16 KiB is refused (413); the embedded style
// sheet and scripts are served with their types; anything else is a 404 page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_are_refused_and_assets_are_embedded() {
    let server = TestServer::with_pages().await;
    let browser = Browser::new(&server.pages_url());
    let token = browser.login_token().await;
    let big = "x".repeat(20 * 1024);
    let (status, _) = browser.post_page("/ingresar", &[("usuario", "vp-ana"), ("contrasena", &big), ("csrf", &token)]).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    for (path, kind) in
        [("/static/pozo.css", "text/css"), ("/static/cartel.js", "text/javascript"), ("/static/oficina.js", "text/javascript")]
    {
        let response = browser.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert!(response.headers()[CONTENT_TYPE].to_str().expect("ascii").starts_with(kind), "{path}");
    }
    for path in ["/static/nada.js", "/nada"] {
        let (status, html) = browser.page(path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(html.contains("No se pudo completar"), "{path}: {html}");
    }
    let (status, html) = browser.page("/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("/cartel") && html.contains("/venta-pagos") && html.contains("/sala"));
    server.stop().await;
}
