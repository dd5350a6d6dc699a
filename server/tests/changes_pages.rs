//! The sala's changes over HTTP (docs/operations.md §8), against the real controller with its
//! pages on 127.0.0.1:0: a jefe de sala proposes on the page, another person approves, nobody
//! approves their own change, a change without its reason is refused and journals nothing, and
//! the inspector approves and withdraws but does not propose. What a step does is checked in
//! the journal the gRPC side reads.

mod common;

use common::changes::*;
use common::*;
use reqwest::StatusCode;
use reqwest::header::LOCATION;

/// One person's browser: its own cookies, redirects not followed (the tests look at them).
struct Browser {
    http: reqwest::Client,
    base: String,
    /// The session's CSRF token.
    csrf: String,
}

impl Browser {
    /// A browser signed in as `user`, with its session's CSRF token.
    async fn signed_in(base: &str, user: &str, password: &str) -> Browser {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        let mut browser = Browser { http, base: base.to_owned(), csrf: String::new() };
        let (_, login) = browser.page("/ingresar").await;
        let token = hidden(&login, "csrf").expect("the login form's token");
        let form = [("usuario", user), ("contrasena", password), ("csrf", token.as_str()), ("destino", "/sala/cambios")];
        let (status, _, _) = browser.post("/ingresar", &form).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{user} signs in");
        let (status, html) = browser.page("/sala/cambios").await;
        assert_eq!(status, StatusCode::OK, "{user} reads the changes: {html}");
        browser.csrf = hidden(&html, "csrf").expect("the session's token");
        browser
    }

    async fn page(&self, path: &str) -> (StatusCode, String) {
        let response = self.http.get(format!("{}{path}", self.base)).send().await.expect("GET answered");
        let status = response.status();
        (status, response.text().await.expect("a body"))
    }

    /// Posts a form: the status, where it sends the browser, and the body.
    async fn post(&self, path: &str, form: &[(&str, &str)]) -> (StatusCode, String, String) {
        let response = self.http.post(format!("{}{path}", self.base)).form(form).send().await.expect("POST answered");
        let status = response.status();
        let target = response.headers().get(LOCATION).map(|value| value.to_str().expect("ascii").to_owned()).unwrap_or_default();
        (status, target, response.text().await.expect("a body"))
    }

    /// Posts a change form with the session's token and `fields`.
    async fn propose(&self, fields: &[(&str, &str)]) -> (StatusCode, String, String) {
        let mut form = vec![("csrf", self.csrf.as_str())];
        form.extend_from_slice(fields);
        self.post("/sala/cambios", &form).await
    }

    async fn approve(&self, id: &str) -> (StatusCode, String, String) {
        self.post(&format!("/sala/cambios/{id}/aprobar"), &[("csrf", self.csrf.as_str())]).await
    }

    async fn withdraw(&self, id: &str, reason: &str) -> (StatusCode, String, String) {
        self.post(&format!("/sala/cambios/{id}/retirar"), &[("csrf", self.csrf.as_str()), ("motivo", reason)]).await
    }
}

/// The value of the hidden input `name` in a page.
fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(html[start..end].to_owned())
}

/// The row of change `id` in a page (the first table that lists it).
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!("<tr id=\"{id}\"")).unwrap_or_else(|| panic!("{id} is listed: {html}"));
    let end = html[start..].find("</tr>").expect("the row ends") + start;
    &html[start..end]
}

/// The blackjack pool's minimum raised to 6000.00: the form as Carla fills it.
const RAISE_MINIMUM: &[(&str, &str)] = &[
    ("tipo", "pozo"),
    ("pozo", "iplyc-blackjack"),
    ("ajuste", "minimum"),
    ("valor", "6000.00"),
    ("jornada", ""),
    ("motivo", "Nuevo mínimo del Black Jack"),
    ("autorizacion", "Res. IPLyC 77/2026"),
];

fn with<'a>(form: &[(&'a str, &'a str)], field: &'a str, value: &'a str) -> Vec<(&'a str, &'a str)> {
    form.iter().map(|&(name, old)| (name, if name == field { value } else { old })).collect()
}

// Proves the two-person rule on the page: Carla proposes a money setting of a live pool and is
// not offered, and is refused (403, the state's message), its approval; Diego approves it and it
// is PROGRAMADO (on the changes page and the sala's box), each step one journal entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proposer_cannot_approve_and_another_supervisor_can() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    let base = server.pages_url();
    let carla = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let (status, html) = carla.page("/sala/cambios/nuevo").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("id=\"form-pozo\"") && html.contains("value=\"minimum\""), "{html}");

    let before = client.journal().await.entries;
    let (status, target, _) = carla.propose(RAISE_MINIMUM).await;
    assert_eq!((status, target.as_str()), (StatusCode::SEE_OTHER, "/sala/cambios?cambio=CB-000001"));
    assert_eq!(client.journal().await.entries, before + 1, "the proposal is journaled");
    let (_, html) = carla.page(&target).await;
    assert!(html.contains("CB-000001: PENDIENTE DE APROBACIÓN"), "{html}");
    let proposed = row(&html, "CB-000001");
    for shown in [
        "$\u{a0}5.000,00 → $\u{a0}6.000,00",
        "Carla Medina (sup-carla, jefe de sala)",
        "Nuevo mínimo del Black Jack",
        "Res. IPLyC 77/2026",
        "Vence el",
    ] {
        assert!(proposed.contains(shown), "`{shown}` in {proposed}");
    }
    assert!(!proposed.contains("/aprobar"), "the proposer is not offered Aprobar: {proposed}");

    // Carla approves her own change anyway: refused by the state, nothing journaled.
    let (status, _, html) = carla.approve("CB-000001").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{html}");
    assert!(html.contains("lo propuso Carla Medina: lo aprueba otra persona"), "{html}");
    assert!(html.contains("id=\"mensaje\""), "the refusal on the changes page: {html}");
    assert_eq!(client.journal().await.entries, before + 1, "a refused approval journals nothing");

    let diego = Browser::signed_in(&base, "sup-diego", "diego-ejemplo").await;
    let (_, html) = diego.page("/sala/cambios").await;
    assert!(row(&html, "CB-000001").contains("/sala/cambios/CB-000001/aprobar"), "Diego is offered Aprobar");
    let (status, target, _) = diego.approve("CB-000001").await;
    assert_eq!((status, target.as_str()), (StatusCode::SEE_OTHER, "/sala/cambios?cambio=CB-000001"));
    assert_eq!(client.journal().await.entries, before + 2);
    let (_, html) = diego.page(&target).await;
    let scheduled = row(&html, "CB-000001");
    for shown in ["PROGRAMADO", "Aprobó Diego Ruiz (sup-diego, jefe de sala)", "tras el próximo premio mayor del pozo"] {
        assert!(scheduled.contains(shown), "`{shown}` in {scheduled}");
    }
    let (status, sala_box) = diego.page("/sala/cambios/programados").await;
    assert_eq!(status, StatusCode::OK);
    assert!(sala_box.contains("CB-000001") && sala_box.contains("PROGRAMADO") && sala_box.contains("Diego Ruiz"), "{sala_box}");
    let (_, sala) = diego.page("/sala").await;
    assert!(sala.contains("href=\"/sala/cambios\"") && sala.contains("id=\"cambios-programados\""), "{sala}");

    // Approved once is approved: a second approval is a conflict.
    let (status, _, html) = diego.approve("CB-000001").await;
    assert_eq!(status, StatusCode::CONFLICT, "{html}");
    let (status, _, _) = diego.approve("CB-999999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.stop().await;
}

// Proves that every change carries its reason and authorisation: without either the state
// refuses it (400, naming the field), nothing is journaled and nothing is listed; the form
// comes back with what was typed. A form without its CSRF token is refused too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_without_a_reason_is_refused_and_nothing_is_journaled() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    let carla = Browser::signed_in(&server.pages_url(), "sup-carla", "carla-ejemplo").await;
    let before = client.journal().await.entries;

    let (status, _, html) = carla.propose(&with(RAISE_MINIMUM, "motivo", "  ")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("Falta el motivo"), "{html}");
    assert!(html.contains("value=\"6000.00\"") && html.contains("value=\"Res. IPLyC 77/2026\""), "the form keeps what was typed");
    let (status, _, html) = carla.propose(&with(RAISE_MINIMUM, "autorizacion", "")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("Falta la autorización"), "{html}");
    let (status, _, html) = carla.propose(&with(RAISE_MINIMUM, "valor", "mucho")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("minimum"), "the refusal names the setting: {html}");
    let (status, _, html) = carla.propose(&with(RAISE_MINIMUM, "pozo", "")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("pozo: falta"), "{html}");
    let mut without_token: Vec<(&str, &str)> = RAISE_MINIMUM.to_vec();
    without_token.push(("csrf", "otro"));
    let (status, _, _) = carla.post("/sala/cambios", &without_token).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    assert_eq!(client.journal().await.entries, before, "nothing journaled");
    let (_, html) = carla.page("/sala/cambios").await;
    assert!(html.contains("Ningún cambio espera aprobación") && !html.contains("CB-000001"), "{html}");
    server.stop().await;
}

// Proves the inspector's part: Elena reads the changes and approves one (a table out of
// service: in force at once, EN VIGOR with its journal entry) but neither opens the forms nor
// proposes; a pending adjustment is withdrawn with its reason (RETIRADO), and without a reason
// the withdrawal is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_approves_and_withdraws_but_does_not_propose() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let carla = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let elena = Browser::signed_in(&base, "insp-elena", "elena-ejemplo").await;
    let (_, html) = elena.page("/sala/cambios").await;
    assert!(!html.contains("/sala/cambios/nuevo"), "the inspector is not offered the forms");
    let (status, _) = elena.page("/sala/cambios/nuevo").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = elena.propose(RAISE_MINIMUM).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let out =
        [("tipo", "mesa-servicio"), ("mesa", "R1"), ("servicio", "no"), ("motivo", "Paño roto"), ("autorizacion", "Nota 12")];
    let (status, target, html) = carla.propose(&out).await;
    assert_eq!((status, target.as_str()), (StatusCode::SEE_OTHER, "/sala/cambios?cambio=CB-000001"), "{html}");
    let (status, _, html) = elena.approve("CB-000001").await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
    let (_, html) = elena.page("/sala/cambios").await;
    let in_force = row(&html, "CB-000001");
    for shown in ["EN VIGOR", "Mesa R1", "Aprobó Elena Vidal (insp-elena, inspector)", "En vigor desde el", "registro"] {
        assert!(in_force.contains(shown), "`{shown}` in {in_force}");
    }
    assert!(!in_force.contains("/retirar"), "a change in force is not withdrawn");

    let adjust = [
        ("tipo", "ajuste"),
        ("pozo", "iplyc-ruleta"),
        ("monto", "-100,00"),
        ("motivo", "Error de carga"),
        ("autorizacion", "Nota 13"),
    ];
    let (status, _, html) = carla.propose(&adjust).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
    let (_, html) = elena.page("/sala/cambios").await;
    assert!(row(&html, "CB-000002").contains("Ajuste del pozo iplyc-ruleta: − $\u{a0}100,00"), "{html}");
    let (status, _, html) = elena.withdraw("CB-000002", "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("Falta el motivo"), "{html}");
    let (status, _, html) = elena.withdraw("CB-000002", "Se corrige por otra vía").await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
    let (_, html) = carla.page("/sala/cambios").await;
    let withdrawn = row(&html, "CB-000002");
    for shown in ["RETIRADO", "Retiró Elena Vidal (insp-elena, inspector)", "Se corrige por otra vía"] {
        assert!(withdrawn.contains(shown), "`{shown}` in {withdrawn}");
    }
    server.stop().await;
}

/// The inspector's flor (`/sala/flor/F2`): the four Black Jack tables of flor F2 on one page, as
/// the controller has them — B1 open with a bet lit, B3 with a payout order waiting, the agents'
/// links — and a flor the layout does not have is not found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspectors_flor_shows_its_four_tables_as_the_controller_has_them() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    client.open_with_bets("B1", &[(3, 5)], &[3]).await;
    let order = client.open_b3_with_a_pending_order(2).await;
    let elena = Browser::signed_in(&server.pages_url(), "insp-elena", "elena-ejemplo").await;
    let (status, html) = elena.page("/sala/flor/F2").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let section = |table: &str| {
        let start = html.find(&format!("data-mesa=\"{table}\"")).unwrap_or_else(|| panic!("{table} on the flor: {html}"));
        let end = html[start..].find("</section>").map_or(html.len(), |end| start + end);
        html[start..end].to_owned()
    };
    for table in ["B1", "B2", "B3", "B4"] {
        assert!(html.contains(&format!("data-mesa=\"{table}\"")), "{table}");
    }
    assert!(!html.contains("data-mesa=\"R1\""), "only the flor's own tables");
    let b1 = section("B1");
    assert!(b1.contains("Box 3</strong>: 4 créditos<span>con apuesta</span>"), "{b1}");
    assert!(b1.contains("Black Jack Carta Descubierta Poceado") && b1.contains("$\u{a0}5.000,00"), "{b1}");
    // No agent watches B1 (the test signs its commands itself): an open table without its
    // agent is SUSPENDIDO on the flor.
    // Suspended, it is never also badged with its phase (issue 45, point 8).
    assert!(b1.contains("agente desconectado") && b1.contains("SUSPENDIDA") && !b1.contains("apuestas abiertas"), "{b1}");
    let b3 = section("B3");
    assert!(b3.contains(&format!("Orden {order}")) && b3.contains("PENDIENTE DE PAGO"), "{b3}");
    let b2 = section("B2");
    assert!(b2.contains("cerrada") && !b2.contains("SUSPENDIDO"), "a closed table is not suspended: {b2}");
    let (status, _) = elena.page("/sala/flor/F99").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The sala links each table's flor.
    let (_, sala) = elena.page("/sala").await;
    assert!(sala.contains("href=\"/sala/flor/F2\""), "{sala}");
    // The floor inspector signs in to the flor's page, and to nothing else of the sala's.
    let http =
        reqwest::Client::builder().cookie_store(true).redirect(reqwest::redirect::Policy::none()).build().expect("a client");
    let rosa = Browser { http, base: server.pages_url(), csrf: String::new() };
    let (_, login) = rosa.page("/ingresar").await;
    let token = hidden(&login, "csrf").expect("the login form's token");
    let form = [("usuario", "im-rosa"), ("contrasena", "rosa-ejemplo"), ("csrf", token.as_str()), ("destino", "")];
    let (status, to, _) = rosa.post("/ingresar", &form).await;
    assert_eq!((status, to.as_str()), (StatusCode::SEE_OTHER, "/sala/flor/F1"), "her home is the first flor");
    let (status, html) = rosa.page("/sala/flor/F2").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("data-mesa=\"B3\""), "{html}");
    let (status, _) = rosa.page("/sala").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the sala is the jefe de sala's");
    server.stop().await;
}

// Proves docs/operations.md §8, "A retired table's reports stay" (issue 42, point 5): B2 plays
// a round, closes, is taken out of service and retired; that night's Reports/Table for B2 still
// answers with its figures (IPA 10,00: its one bet of 10,00), and its closing sheet `/sala/planilla/B2/…` (Forms 4109, 4020, 4218) is still served.
// Retiring a table still in service is refused first, as §8 has it taken out of service first;
// and the report is still there after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retired_table_s_report_and_closing_sheet_stay() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    client.round_started("B2", &[(1, 5)], &[1]).await;
    client.ok("B2", finish()).await;
    client.ok("B2", refund_credits(1)).await;
    client.ok("B2", close()).await;
    let played = client.report("B2").await;
    assert_eq!(amount(&played.ipa), "10.00", "{played:?}");

    let retire = || propose(edits(vec![pozo_proto::v1::config_edit::Edit::RetireTable("B2".into())]));
    let in_service = change(&client, CARLA, retire()).await.expect("proposed");
    let refused = change(&client, DIEGO, approve(&in_service)).await.expect_err("B2 is in service");
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition, "{}", refused.message());
    assert!(
        refused.message().starts_with("files: table `B2` is in service: take it out of service first"),
        "{}",
        refused.message()
    );
    let out = edits(vec![pozo_proto::v1::config_edit::Edit::TableService(pozo_proto::v1::TableService {
        table_id: "B2".into(),
        in_service: false,
    })]);
    let out = change(&client, CARLA, propose(out)).await.expect("proposed");
    change(&client, DIEGO, approve(&out)).await.expect("B2 out of service");
    let retired = change(&client, CARLA, retire()).await.expect("proposed");
    assert_eq!(change(&client, DIEGO, approve(&retired)).await.expect("approved").status, "EN VIGOR");
    client.refused("B2", open(), tonic::Code::NotFound).await;

    let report = client.report("B2").await;
    assert_eq!((&report.ipa, report.bets, &report.jornada), (&played.ipa, played.bets, &played.jornada));
    let unknown = pozo_proto::v1::TableReportRequest { table_id: "B9".into(), jornada: String::new() };
    assert_eq!(client.reports.table(unknown).await.expect_err("no such table").code(), tonic::Code::NotFound);

    let carla = Browser::signed_in(&server.pages_url(), "sup-carla", "carla-ejemplo").await;
    let (status, html) = carla.page(&format!("/sala/planilla/B2/{}", played.jornada)).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("id=\"ipa-4109\">$\u{a0}10,00<"), "{html}");
    let (status, _) = carla.page(&format!("/sala/planilla/B9/{}", played.jornada)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A restart replays the retirement: the report is still there.
    let data = server.stop().await.expect("the data directory");
    let server = TestServer::start_on(data.path().join("data")).await;
    let mut client = server.client().await;
    assert_eq!(client.report("B2").await.ipa, report.ipa);
    server.stop().await;
}

// Proves issue 42, point 4 on the changes page: it names the files in force by their stable
// names, as a change of a whole file names them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_changes_page_names_the_files_in_force() {
    let server = TestServer::with_pages().await;
    let carla = Browser::signed_in(&server.pages_url(), "sup-carla", "carla-ejemplo").await;
    let (_, html) = carla.page("/sala/cambios").await;
    assert!(html.contains("Archivos en vigor: casino.toml, iplyc.toml"), "{html}");
    server.stop().await;
}

// Proves that a poker tournament is set up from the changes page through the same two-person door
// (Res. 123/2013 Anexo I art. 1): Carla proposes its structure, a structure with an item under 70 %
// to prizes is refused naming the article (art. 62) and journals nothing, Diego approves, and the
// tournament then exists, its registration open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_is_set_up_from_the_changes_page_by_two_people() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    let base = server.pages_url();
    let carla = Browser::signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let (_, html) = carla.page("/sala/cambios/nuevo").await;
    assert!(html.contains("id=\"form-torneo\"") && html.contains("name=\"estructura\""), "{html}");
    let text = common::tournament::structure("sit-and-go-10");
    let under = text.replace("to_prizes = \"0.90\"", "to_prizes = \"0.65\"");
    let before = client.journal().await.entries;
    let fields = |estructura: &str| {
        vec![
            ("tipo", "torneo".to_owned()),
            ("estructura", estructura.to_owned()),
            ("motivo", "Sit & Go del sábado".to_owned()),
            ("autorizacion", "Nota 45/26".to_owned()),
        ]
    };
    let refused: Vec<(&str, String)> = fields(&under);
    let refused: Vec<(&str, &str)> = refused.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, _, html) = carla.propose(&refused).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    let alert = html.split("role=\"alert\">").nth(1).and_then(|rest| rest.split("</p>").next()).expect("the refusal");
    assert!(alert.contains("art. 62") && alert.contains("0.65"), "{alert}");
    assert_eq!(client.journal().await.entries, before, "a refused structure journals nothing");

    let good = fields(&text);
    let good: Vec<(&str, &str)> = good.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, target, html) = carla.propose(&good).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{}", html.split("id=\"mensaje\"").nth(1).unwrap_or(&html));
    let id = target.rsplit('=').next().expect("the change's id").to_owned();
    let (_, html) = carla.page(&target).await;
    assert!(row(&html, &id).contains("Alta del torneo sit-and-go-10"), "{html}");
    assert!(
        common::tournament::submit(
            &client,
            common::tournament::CASHIER,
            common::tournament::purchase("sit-and-go-10", "IN", 1, "A", "1234567", "5000.00")
        )
        .await
        .is_err(),
        "no tournament before the approval"
    );

    let diego = Browser::signed_in(&base, "sup-diego", "diego-ejemplo").await;
    let (status, _, html) = diego.approve(&id).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
    let view = common::tournament::get(&client, common::tournament::CASHIER, "sit-and-go-10").await;
    assert_eq!(view.phase, "INSCRIPCIÓN ABIERTA");
    server.stop().await;
}
