//! The poker tournament's pages over HTTP (Res. 123/2013), against the real controller with its
//! pages on 127.0.0.1:0: the cashier books purchases through the form and prints the "vale de
//! compra de fichas" (Anexo IV 1.2), the only page that shows a player's document in full; a
//! refusal (a wrong price, a refund after registration closed: Anexo I art. 1, Anexo IV 1.4)
//! answers 4xx with the state's Spanish reason and leaves the journal as it was; the director
//! keeps the tournament through his forms (art. 64, 65, 71, 72, Anexo II, Anexo IV 7.3.2, 8.1);
//! a large prize waits PENDIENTE DE PAGO for another person of Venta-Pagos (art. 66); the room
//! display shows the pool and each position's prize, never the house's share (art. 63) nor a
//! document. What a page did is checked where it lands: through the Tournaments gRPC service.

mod common;

use common::tournament::{self as t, CASHIER, DIRECTOR, OFFICE};
use common::{Client, TestServer};
use futures_util::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, LOCATION};

const T: &str = "multimesa-semanal";

/// One person's browser: its own cookies, redirects not followed (the tests look at them).
struct Browser {
    http: reqwest::Client,
    base: String,
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

    async fn page(&self, path: &str) -> (StatusCode, String) {
        let response = self.http.get(format!("{}{path}", self.base)).send().await.expect("GET answered");
        let status = response.status();
        (status, response.text().await.expect("a body"))
    }

    /// Posts `form` with the session's CSRF token: the status, where it sends, the body.
    async fn post(&self, path: &str, form: &[(&str, &str)]) -> (StatusCode, String, String) {
        let mut form = form.to_vec();
        form.push(("csrf", &self.csrf));
        let response = self.http.post(format!("{}{path}", self.base)).form(&form).send().await.expect("POST answered");
        let status = response.status();
        let location = response.headers().get(LOCATION).map(|v| v.to_str().expect("ascii").to_owned()).unwrap_or_default();
        (status, location, response.text().await.expect("a body"))
    }

    async fn signed_in(base: &str, user: &str, password: &str) -> Browser {
        let mut browser = Browser::new(base);
        let (status, html) = browser.page("/ingresar").await;
        assert_eq!(status, StatusCode::OK);
        browser.csrf = hidden(&html, "csrf").expect("the login form's token");
        let (status, _, _) = browser.post("/ingresar", &[("usuario", user), ("contrasena", password), ("destino", "")]).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{user} signs in");
        let (status, html) = browser.page("/torneos").await;
        browser.csrf = hidden(&html, "csrf").unwrap_or_default();
        assert!(status == StatusCode::OK || status == StatusCode::FORBIDDEN, "{status}");
        if status == StatusCode::FORBIDDEN {
            // A person the tournaments are not for: the token of a page of theirs.
            let (_, html) = browser.page("/sala").await;
            browser.csrf = hidden(&html, "csrf").unwrap_or_default();
        }
        browser
    }
}

/// The value of the input `name` in a page.
fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(html[start..end].to_owned())
}

/// The element of id `id`'s opening tag and what follows it, up to its closing `</…>`.
fn element<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("the page has #{id}: {html}"));
    let rest = &html[start..];
    let end = rest.find("</").unwrap_or(rest.len());
    &rest[..end]
}

/// A tournament set up through the two-person door, with the pages served.
async fn tournament(text: &str) -> (TestServer, Client, String) {
    let server = TestServer::with_pages().await;
    let client = server.client().await;
    t::set_up(&client, text).await;
    let base = server.pages_url();
    (server, client, base)
}

/// A purchase through the cashier's form: the status, where it sends, the body.
async fn buy(
    cashier: &Browser,
    item: &str,
    order: u32,
    name: &str,
    document: &str,
    amount: &str,
) -> (StatusCode, String, String) {
    let order = order.to_string();
    let form = [("item", item), ("nombre", name), ("tipo", "DNI"), ("documento", document), ("orden", &order), ("monto", amount)];
    cashier.post(&format!("/torneos/{T}/compras"), &form).await
}

/// A refused form: 4xx, the reason in Spanish, and the journal and the tournament unchanged.
async fn refused(client: &mut Client, browser: &Browser, path: &str, form: &[(&str, &str)], status: StatusCode, says: &str) {
    let before = (client.journal().await.entries, t::get(client, DIRECTOR, T).await);
    let (answered, _, body) = browser.post(path, form).await;
    assert_eq!(answered, status, "{path}: {body}");
    assert!(body.contains(says), "{path} says `{says}`: {body}");
    let after = (client.journal().await.entries, t::get(client, DIRECTOR, T).await);
    assert_eq!(before, after, "a refusal changes nothing");
}

#[tokio::test]
async fn the_cashier_books_through_the_form_and_only_the_receipt_shows_the_document() {
    let (_server, mut client, base) = tournament(&t::multimesa()).await;
    let cashier = Browser::signed_in(&base, CASHIER, "ana-ejemplo").await;

    // The list and the page: registration open, the next order number and the buy-in's price prefilled.
    let (status, html) = cashier.page("/torneos").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Torneo semanal Texas Hold&#39;em") || html.contains("Torneo semanal Texas Hold'em"), "{html}");
    assert!(html.contains("INSCRIPCIÓN ABIERTA"), "{html}");
    let (status, html) = cashier.page(&format!("/torneos/{T}")).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert_eq!(hidden(&html, "orden").as_deref(), Some("1"));
    assert_eq!(hidden(&html, "monto").as_deref(), Some("20000.00"));
    assert!(element(&html, "monto").contains("readonly"), "the amount is the item's price, read-only");

    // A buy-in booked: to its receipt, which shows the document in full (Anexo IV 1.2).
    let (status, location, body) = buy(&cashier, "IN", 1, "Juana Pérez", "30000001", "20000.00").await;
    assert_eq!((status, location.as_str()), (StatusCode::SEE_OTHER, "/torneos/multimesa-semanal/compras/1/vale"), "{body}");
    let response = cashier.http.get(format!("{base}{location}")).send().await.expect("the receipt");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store", "a page with the document in full is not cached");
    let receipt = response.text().await.expect("a body");
    for (id, expected) in [
        ("vale-orden", "1"),
        ("vale-nombre", "Juana Pérez"),
        ("vale-documento", "DNI 30000001"),
        ("vale-codigo", "IN — Inscripción (IN)"),
        ("vale-monto", "$\u{a0}20.000,00"),
        ("vale-fichas", "10.000"),
        ("vale-cajero", "Ana Pereyra (vp-ana)"),
    ] {
        let shown = element(&receipt, id);
        assert!(shown.ends_with(expected), "#{id} shows `{expected}`: {shown}");
    }
    let view = t::get(&client, CASHIER, T).await;
    let line = &view.purchases[0];
    assert_eq!((line.order, line.item.as_str(), line.player_name.as_str()), (1, "IN", "Juana Pérez"));
    let sequence = line.by.as_ref().expect("by").journal_sequence;
    assert!(element(&receipt, "vale-registro").ends_with(&format!("asiento {sequence}")), "the receipt names its journal entry");
    assert!(element(&receipt, "vale-fecha").split(' ').next().expect("a date").split('/').count() == 3, "dd/mm/aaaa");

    // Two more, the second refunded at the player's request while registration is open (Anexo IV 1.4).
    assert_eq!(buy(&cashier, "IN", 2, "Pedro Gómez", "30000002", "20000.00").await.0, StatusCode::SEE_OTHER);
    assert_eq!(buy(&cashier, "IN", 3, "Ana Ruiz", "30000003", "20000.00").await.0, StatusCode::SEE_OTHER);
    let (status, location, _) = cashier.post(&format!("/torneos/{T}/compras/3/devolver"), &[]).await;
    assert_eq!((status, location.as_str()), (StatusCode::SEE_OTHER, "/torneos/multimesa-semanal#compras"));
    let view = t::get(&client, CASHIER, T).await;
    assert!(view.purchases[2].refunded.is_some(), "refunded");
    assert_eq!(view.entrants, 2);

    // The page: the masked document only, the pool live (2 × 20.000 × 0,80), the house on its own line.
    let (_, html) = cashier.page(&format!("/torneos/{T}")).await;
    assert!(html.contains("DNI ***0001") && html.contains("DNI ***0002"), "masked documents: {html}");
    assert_eq!(hidden(&html, "orden").as_deref(), Some("4"), "the next free order number");
    assert!(element(&html, "premios-total").contains("$\u{a0}32.000,00"), "{}", element(&html, "premios-total"));
    assert!(element(&html, "casa").ends_with("$\u{a0}8.000,00"), "{}", element(&html, "casa"));
    assert!(html.contains("$\u{a0}20.800,00") && html.contains("$\u{a0}11.200,00"), "each position's amount (65 %, 35 %)");

    // A wrong price: refused in Spanish (Anexo I art. 1), nothing booked.
    refused(
        &mut client,
        &cashier,
        &format!("/torneos/{T}/compras"),
        &[("item", "IN"), ("nombre", "Otro"), ("tipo", "DNI"), ("documento", "40000000"), ("orden", "4"), ("monto", "19999.99")],
        StatusCode::BAD_REQUEST,
        "no es el precio de",
    )
    .await;
    // A document that is not one, refused before the door.
    refused(
        &mut client,
        &cashier,
        &format!("/torneos/{T}/compras"),
        &[("item", "IN"), ("nombre", "Otro"), ("tipo", "DNI"), ("documento", ""), ("orden", "4"), ("monto", "20000.00")],
        StatusCode::BAD_REQUEST,
        "documento:",
    )
    .await;

    // Registration closed by the director's form (art. 65): a refund now is refused (Anexo IV 1.4).
    let director = Browser::signed_in(&base, DIRECTOR, "carla-ejemplo").await;
    let (status, _, body) = director.post(&format!("/torneos/{T}/director/cerrar-inscripcion"), &[]).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    refused(
        &mut client,
        &cashier,
        &format!("/torneos/{T}/compras/2/devolver"),
        &[],
        StatusCode::CONFLICT,
        "una compra se devuelve solo si el jugador la pide antes del cierre",
    )
    .await;
    let (_, html) = cashier.page(&format!("/torneos/{T}")).await;
    assert!(!html.contains("/devolver"), "no refund button once registration closed");
    assert!(!html.contains("value=\"IN\"") && html.contains("value=\"RB\""), "rebuys and add-ons only (art. 65)");
    assert_eq!(hidden(&html, "monto").as_deref(), Some("10000.00"), "the rebuy's price");

    // No page but the receipt shows a document's number.
    let mut pages = vec![
        cashier.page("/torneos").await,
        cashier.page(&format!("/torneos/{T}")).await,
        director.page(&format!("/torneos/{T}/director")).await,
        director.page(&format!("/torneos/{T}")).await,
        Browser::new(&base).page(&format!("/torneo/{T}/cartel")).await,
    ];
    pages.push((StatusCode::OK, first_event(&base).await));
    for (status, html) in &pages {
        assert_eq!(*status, StatusCode::OK, "{html}");
        for number in ["30000001", "30000002", "30000003"] {
            assert!(!html.contains(number), "only the receipt shows {number}: {html}");
        }
    }
    assert!(cashier.page(&format!("/torneos/{T}/compras/2/vale")).await.1.contains("DNI 30000002"));
}

/// The room display's first event, as its page receives it.
async fn first_event(base: &str) -> String {
    let response = reqwest::get(format!("{base}/torneo/{T}/eventos")).await.expect("the stream opens");
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), stream.next()).await.expect("an event");
        text.push_str(std::str::from_utf8(&chunk.expect("open").expect("bytes")).expect("UTF-8"));
    }
    assert!(text.starts_with("event: torneo\ndata: "), "{text}");
    serde_json::from_str(text["event: torneo\ndata: ".len()..].trim()).expect("the fragment, as JSON")
}

#[tokio::test]
async fn only_the_office_and_the_supervisors_reach_the_tournaments_and_only_supervisors_direct() {
    let (_server, _client, base) = tournament(&t::multimesa()).await;
    // No session: to the login, and no form is taken.
    let nobody = Browser::new(&base);
    for path in [
        "/torneos",
        "/torneos/multimesa-semanal",
        "/torneos/multimesa-semanal/director",
        "/torneos/multimesa-semanal/compras/1/vale",
    ] {
        let response = nobody.http.get(format!("{base}{path}")).send().await.expect("answered");
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
        assert!(response.headers()[LOCATION].to_str().expect("ascii").starts_with("/ingresar?destino="), "{path}");
    }
    let (status, location, _) = buy(&nobody, "IN", 1, "A", "30000001", "20000.00").await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert!(location.starts_with("/ingresar"), "{location}");
    // A table's key has no password: it signs in to no page.
    let table = Browser::new(&base);
    let (_, html) = table.page("/ingresar").await;
    let mut table = table;
    table.csrf = hidden(&html, "csrf").expect("token");
    let (status, _, _) = table.post("/ingresar", &[("usuario", "mesa-B1"), ("contrasena", "x"), ("destino", "")]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // The regulator's inspector and a floor inspector: not for them.
    for (user, password) in [("insp-elena", "elena-ejemplo"), ("im-rosa", "rosa-ejemplo")] {
        let browser = Browser::signed_in(&base, user, password).await;
        for path in ["/torneos", "/torneos/multimesa-semanal", "/torneos/multimesa-semanal/director"] {
            assert_eq!(browser.page(path).await.0, StatusCode::FORBIDDEN, "{user} {path}");
        }
    }
    // The office's cashier: the cashier's pages, not the director's, nor his forms.
    let cashier = Browser::signed_in(&base, CASHIER, "ana-ejemplo").await;
    assert_eq!(cashier.page("/torneos/multimesa-semanal").await.0, StatusCode::OK);
    let (status, html) = cashier.page("/torneos/multimesa-semanal/director").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(html.contains("no tiene acceso"), "{html}");
    let (status, _, _) = cashier.post("/torneos/multimesa-semanal/director/cerrar-inscripcion", &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A form without the session's token is refused.
    let response =
        cashier.http.post(format!("{base}/torneos/{T}/compras")).form(&[("item", "IN")]).send().await.expect("answered");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.text().await.expect("a body").contains("csrf:"));
    // An unknown tournament.
    assert_eq!(cashier.page("/torneos/no-existe").await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_director_keeps_the_tournament_through_his_forms_and_a_large_prize_waits_for_another_person() {
    // Three entrants pay two (65 %, 35 %); the first prize, over the threshold, through the office.
    let text = t::multimesa().replace("venta_pagos_from = \"500000.00\"", "venta_pagos_from = \"30000.00\"");
    let (_server, mut client, base) = tournament(&text).await;
    let cashier = Browser::signed_in(&base, CASHIER, "ana-ejemplo").await;
    let office = Browser::signed_in(&base, OFFICE, "bruno-ejemplo").await;
    let director = Browser::signed_in(&base, DIRECTOR, "carla-ejemplo").await;
    for order in 1..=3 {
        let (status, _, body) = buy(&cashier, "IN", order, &format!("Jugador {order}"), &t::document_of(order), "20000.00").await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    }
    let act = |action: &'static str, form: Vec<(&'static str, String)>| {
        let director = &director;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(name, value)| (*name, value.as_str())).collect();
            let (status, location, body) = director.post(&format!("/torneos/{T}/director/{action}"), &form).await;
            assert_eq!(
                (status, location.as_str()),
                (StatusCode::SEE_OTHER, "/torneos/multimesa-semanal/director#registros"),
                "{action}: {body}"
            );
        }
    };
    act("cerrar-inscripcion", vec![]).await;
    // The seats drawn (art. 11): the commitment journaled before is shown with the nonce that opens it.
    let committed = t::get(&client, DIRECTOR, T).await.next_commitment;
    act("sortear", vec![("motivo", "inicio".into()), ("mesas", "T1:9".into())]).await;
    act("cerrar-recompras", vec![]).await;
    let view = t::get(&client, DIRECTOR, T).await;
    assert!(view.pool_fixed, "the pool fixed (art. 64)");
    let (_, html) = cashier.page(&format!("/torneos/{T}")).await;
    assert!(html.contains("id=\"sin-venta\"") && !html.contains("id=\"compra\""), "nothing is sold once the pool is fixed");
    let draw = &view.seat_draws[0];
    assert_eq!((draw.commitment.as_str(), draw.seating.len()), (committed.as_str(), 3));
    act("eliminar", vec![("jugadores", "3".into()), ("mesa", "T1".into()), ("mano", "12".into())]).await;
    act(
        "precintar",
        vec![("jugador", "1".into()), ("fichas", "41000".into()), ("recibo", "R-0001".into()), ("jornada", "1".into())],
    )
    .await;
    act("descalificar", vec![("jugador", "3".into()), ("motivo", "Conducta antideportiva".into())]).await;
    // A bad elimination: refused in Spanish, nothing changed.
    refused(
        &mut client,
        &director,
        &format!("/torneos/{T}/director/eliminar"),
        &[("jugadores", "tres"), ("mesa", "T1"), ("mano", "13")],
        StatusCode::BAD_REQUEST,
        "jugadores: `tres` no es un número",
    )
    .await;
    act("eliminar", vec![("jugadores", "2".into()), ("mesa", "T1".into()), ("mano", "20".into())]).await;
    let view = t::get(&client, DIRECTOR, T).await;
    assert_eq!(view.phase, "FINALIZADO");
    assert_eq!((view.eliminations.len(), view.seals.len(), view.disqualifications.len()), (2, 1, 1));
    assert_eq!(view.seals[0].by.as_ref().expect("by").key_id, DIRECTOR, "journaled as the signed-in director's");

    // The director's page: every record, with who did it, the draw's commitment and nonce.
    let (status, html) = director.page(&format!("/torneos/{T}/director")).await;
    assert_eq!(status, StatusCode::OK);
    for expected in [
        draw.commitment.as_str(),
        draw.nonce.as_str(),
        "R-0001",
        "Conducta antideportiva",
        "Carla Medina (sup-carla)",
        "$\u{a0}31.200,00",
        "$\u{a0}16.800,00",
    ] {
        assert!(html.contains(expected), "the director's page shows `{expected}`");
    }

    // The 2nd prize at the cashier; the 1st PENDIENTE DE PAGO (art. 66).
    let pay = |order: u32| [("jugador", order.to_string()), ("tipo", "DNI".to_owned()), ("documento", t::document_of(order))];
    let form = pay(2);
    let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(cashier.post(&format!("/torneos/{T}/premios"), &form).await.0, StatusCode::SEE_OTHER);
    // The wrong document: refused (art. 66).
    refused(
        &mut client,
        &cashier,
        &format!("/torneos/{T}/premios"),
        &[("jugador", "1"), ("tipo", "DNI"), ("documento", "99999999")],
        StatusCode::FORBIDDEN,
        "art. 66",
    )
    .await;
    let form = pay(1);
    let form: Vec<(&str, &str)> = form.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert_eq!(cashier.post(&format!("/torneos/{T}/premios"), &form).await.0, StatusCode::SEE_OTHER);
    let view = t::get(&client, DIRECTOR, T).await;
    let payment = |view: &pozo_proto::v1::TournamentView, order: u32| {
        view.players.iter().find(|p| p.order == order).expect("player").payment.clone()
    };
    assert_eq!((payment(&view, 1).as_str(), payment(&view, 2).as_str()), ("PENDIENTE DE PAGO", "pagado"));

    // Venta-Pagos sees it with its amount and a confirm form; its own page points there.
    let (_, html) = office.page("/venta-pagos").await;
    assert!(element(&html, "premios-torneo").contains("PENDIENTES DE PAGO: 1"), "{html}");
    let (_, html) = office.page("/torneos").await;
    assert!(html.contains("id=\"pendientes-torneo\""));
    let row_start = html.find("data-jugador=\"1\"").expect("the pending prize is listed");
    let row = &html[row_start..html[row_start..].find("</tr>").expect("its row") + row_start];
    assert!(row.contains("$\u{a0}31.200,00") && row.contains("Jugador 1") && row.contains("/premios/1/confirmar"), "{row}");
    // The person who asked does not confirm it (the state refuses; the page says so in Spanish).
    refused(
        &mut client,
        &cashier,
        &format!("/torneos/{T}/premios/1/confirmar"),
        &[("tipo", "DNI"), ("documento", &t::document_of(1))],
        StatusCode::FORBIDDEN,
        "lo confirma otra persona de Venta-Pagos",
    )
    .await;
    let (status, _, body) =
        office.post(&format!("/torneos/{T}/premios/1/confirmar"), &[("tipo", "DNI"), ("documento", &t::document_of(1))]).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    let view = t::get(&client, DIRECTOR, T).await;
    assert_eq!(payment(&view, 1), "pagado, confirmado por Venta-Pagos");
    let (_, html) = office.page("/torneos").await;
    assert!(html.contains("No hay premios de torneo pendientes de pago."), "confirmed, no longer pending");
    assert!(!office.page("/venta-pagos").await.1.contains("premios-torneo"), "nothing waits");
}

#[tokio::test]
async fn the_room_display_shows_the_pool_and_each_prize_never_the_house_nor_a_document() {
    let (_server, _client, base) = tournament(&t::multimesa()).await;
    let cashier = Browser::signed_in(&base, CASHIER, "ana-ejemplo").await;
    assert_eq!(buy(&cashier, "IN", 1, "Juana Pérez", "30000001", "20000.00").await.0, StatusCode::SEE_OTHER);
    // No login, from the open network (loopback).
    let (status, html) = Browser::new(&base).page(&format!("/torneo/{T}/cartel")).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(element(&html, "cartel-pozo").ends_with("$\u{a0}16.000,00"), "the pool: 20.000 × 0,80");
    assert!(element(&html, "cartel-inscriptos").ends_with('1'));
    assert!(
        html.contains("1.º</span> <span class=\"monto\">$\u{a0}10.400,00")
            && html.contains("2.º</span> <span class=\"monto\">$\u{a0}5.600,00"),
        "{html}"
    );
    assert!(html.contains("INSCRIPCIÓN ABIERTA"));
    let fragment = first_event(&base).await;
    for shown in [&html, &fragment] {
        assert!(!shown.contains("4.000,00"), "the house's share (20.000 × 0,20) is not shown to players: {shown}");
        assert!(!shown.contains("Casa") && !shown.contains("casa"), "{shown}");
        assert!(
            !shown.contains("***") && !shown.contains("30000001") && !shown.contains("Juana"),
            "no player's document or name"
        );
    }
    assert!(fragment.contains("$\u{a0}16.000,00"));
    assert_eq!(Browser::new(&base).page("/torneo/no-existe/cartel").await.0, StatusCode::NOT_FOUND);
}
