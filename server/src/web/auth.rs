//! Who is at the office and floor pages: one login per person, with the password
//! whose Argon2id hash the person's key carries in the keys file (office keys for
//! Venta-Pagos, supervisor keys for the Sala). A decision taken on a page is
//! journaled as that key's, exactly as one signed with it over gRPC.
//!
//! - Sessions: a random 256-bit token in an `HttpOnly`, `SameSite=Strict` cookie;
//!   only its SHA-256 is kept (`sessions.rs`: when they end, how many live at once).
//! - CSRF: every form carries a token; a session's is drawn at login, the login form's
//!   is the value of a cookie it must match (double submit).
//! - Lock-out: [`FAILURES_MAX`] wrong passwords for one user within a window lock that
//!   user out, right password or not (`sessions.rs`).

use axum::Form;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;
use axum_extra::extract::cookie::{Cookie, SameSite};
use serde::Deserialize;

use super::context::Web;
use super::error::{PageError, page};
use super::sessions::{Session, random_token, same};
use crate::config::Role;
use crate::net::secrets::{FAILURES_MAX, secret_matches};

pub(super) const SESSION_COOKIE: &str = "pozo_sesion";
const LOGIN_COOKIE: &str = "pozo_ingreso";
/// The longest user name or password read.
const FIELD_MAX: usize = 256;

/// Why a login was refused.
#[derive(Debug, PartialEq, Eq)]
enum LoginRefusal {
    Wrong,
    Locked { minutes: u64 },
}

/// Checks a login: the password against the key's hash (on a blocking thread: Argon2 is
/// slow on purpose), the lock-out first. Returns the key's id, name and role.
async fn check_login(web: &Web, user: &str, password: &str) -> Result<(String, String, Role), LoginRefusal> {
    if let Err(minutes) = web.sessions.attempt(user) {
        return Err(LoginRefusal::Locked { minutes });
    }
    let key = web
        .handle
        .key(user)
        .filter(|key| matches!(key.role, Role::Office | Role::Supervisor | Role::Inspector | Role::FloorInspector))
        .and_then(|key| key.password.clone().map(|hash| (key.id.clone(), key.name.clone(), key.role, hash)));
    let matches = secret_matches(key.as_ref().map(|(_, _, _, hash)| hash.clone()), password).await;
    match key {
        Some((id, name, role, _)) if matches => {
            web.sessions.succeeded(user);
            Ok((id, name, role))
        }
        _ => {
            tracing::warn!(user = %super::view::bounded(user), "pages: wrong user or password");
            match web.sessions.failed(user) {
                Some(minutes) => Err(LoginRefusal::Locked { minutes }),
                None => Err(LoginRefusal::Wrong),
            }
        }
    }
}

/// The signed-in person of a request, for pages of `roles`. Without a session: to the
/// login page (a GET) or 401 (a form); with the wrong role: 403.
#[expect(clippy::result_large_err, reason = "the refusal is the page's response, returned as is by the handler")]
pub(super) fn require(web: &Web, jar: &CookieJar, roles: &[Role], path: &str) -> Result<Session, Response> {
    let session = jar.get(SESSION_COOKIE).and_then(|cookie| web.sessions.find(cookie.value()));
    let Some(session) = session else {
        return Err(Redirect::to(&format!("/ingresar?destino={}", destination_query(path))).into_response());
    };
    if !roles.contains(&session.role) {
        return Err(PageError::new(
            StatusCode::FORBIDDEN,
            format!(
                "{} ({}) no tiene acceso a esta página: es para {}.",
                session.name,
                session.key_id,
                roles.iter().map(|role| role_spanish(*role)).collect::<Vec<_>>().join(" o ")
            ),
        )
        .into_response());
    }
    Ok(session)
}

/// Checks a form's CSRF token against the session's.
pub(super) fn check_csrf(session: &Session, token: Option<&str>) -> Result<(), PageError> {
    match token {
        Some(token) if !token.is_empty() && same(token, &session.csrf) => Ok(()),
        Some(token) if !token.is_empty() => Err(PageError::new(
            StatusCode::FORBIDDEN,
            "csrf: el código del formulario no es el de esta sesión. Vuelva a abrir la página e intente de nuevo.",
        )),
        _ => Err(PageError::new(StatusCode::FORBIDDEN, "csrf: falta el código del formulario. Vuelva a abrir la página.")),
    }
}

fn role_spanish(role: Role) -> &'static str {
    match role {
        Role::Office => "Venta-Pagos",
        Role::Supervisor => "el jefe de sala",
        Role::Inspector => "el inspector",
        Role::FloorInspector => "el inspector de mesa",
        Role::Display => "carteles",
        Role::Table => "mesas",
        Role::Journal => "el registro",
    }
}

/// Where a login may send its user: only the pages' own paths.
fn safe_destination(destination: &str) -> Option<&str> {
    let safe = destination.starts_with('/')
        && !destination.starts_with("//")
        && destination.len() <= 200
        && destination.chars().all(|c| c.is_ascii_alphanumeric() || "/-_?=&.%".contains(c));
    safe.then_some(destination)
}

fn destination_query(path: &str) -> String {
    path.chars()
        .map(|c| match c {
            '?' => "%3F".to_owned(),
            '&' => "%26".to_owned(),
            '=' => "%3D".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// The pages are plain HTTP on loopback (docs/pages.md), so no cookie is `Secure`.
fn cookie(name: &'static str, value: String) -> Cookie<'static> {
    Cookie::build((name, value)).path("/").http_only(true).same_site(SameSite::Strict).build()
}

#[derive(askama::Template)]
#[template(path = "ingresar.html")]
struct LoginPage<'a> {
    csrf: &'a str,
    destination: &'a str,
    user: &'a str,
    message: &'a str,
}

#[derive(Deserialize)]
struct LoginQuery {
    destino: Option<String>,
}

async fn login_page(jar: CookieJar, Query(query): Query<LoginQuery>) -> Result<Response, PageError> {
    let token = jar.get(LOGIN_COOKIE).map(|cookie| cookie.value().to_owned()).filter(|token| token.len() == 64);
    let (token, jar) = match token {
        Some(token) => (token, jar),
        None => {
            let token = random_token();
            (token.clone(), jar.add(cookie(LOGIN_COOKIE, token)))
        }
    };
    let destination = query.destino.as_deref().and_then(safe_destination).unwrap_or("");
    let body = page(&LoginPage { csrf: &token, destination, user: "", message: "" })?;
    Ok((jar, body).into_response())
}

#[derive(Deserialize)]
struct LoginForm {
    #[serde(default)]
    usuario: String,
    #[serde(default)]
    contrasena: String,
    csrf: Option<String>,
    #[serde(default)]
    destino: String,
}

async fn login(State(web): State<Web>, jar: CookieJar, Form(form): Form<LoginForm>) -> Result<Response, PageError> {
    let expected = jar.get(LOGIN_COOKIE).map(|cookie| cookie.value().to_owned()).unwrap_or_default();
    match form.csrf.as_deref() {
        Some(token) if !token.is_empty() && !expected.is_empty() && same(token, &expected) => {}
        Some(token) if !token.is_empty() => {
            return Err(PageError::new(
                StatusCode::FORBIDDEN,
                "csrf: el código del formulario no coincide con el de este navegador. Vuelva a abrir la página de ingreso.",
            ));
        }
        _ => {
            return Err(PageError::new(
                StatusCode::FORBIDDEN,
                "csrf: falta el código del formulario. Vuelva a abrir la página de ingreso.",
            ));
        }
    }
    if form.usuario.len() > FIELD_MAX || form.contrasena.len() > FIELD_MAX {
        return Err(PageError::bad_request(format!("usuario, contrasena: a lo sumo {FIELD_MAX} caracteres")));
    }
    let destination = safe_destination(&form.destino).unwrap_or("").to_owned();
    let user = form.usuario.trim().to_owned();
    match check_login(&web, &user, &form.contrasena).await {
        Ok((id, name, role)) => {
            let (token, _) = web.sessions.open(&id, &name, role);
            tracing::info!(user = %id, role = role.name(), "pages: signed in");
            let home = match role {
                Role::Supervisor | Role::Inspector => "/sala".to_owned(),
                // The floor inspector's page is their flor's; the first one until they pick another.
                Role::FloorInspector => {
                    let config = web.handle.config();
                    let first = config.layout.tables.iter().map(|table| table.flor.clone()).min().unwrap_or_default();
                    format!("/sala/flor/{first}")
                }
                _ => "/venta-pagos".to_owned(),
            };
            let target = if destination.is_empty() { home } else { destination };
            let jar = jar.add(cookie(SESSION_COOKIE, token)).remove(Cookie::build(LOGIN_COOKIE).path("/"));
            Ok((jar, Redirect::to(&target)).into_response())
        }
        Err(refusal) => {
            let (status, message) = match refusal {
                LoginRefusal::Wrong => (StatusCode::UNAUTHORIZED, "Usuario o contraseña incorrectos.".to_owned()),
                LoginRefusal::Locked { minutes } => (
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "Usuario bloqueado por {FAILURES_MAX} contraseñas incorrectas: vuelva a intentar en {minutes} minutos o pida ayuda al jefe de sala."
                    ),
                ),
            };
            let body = askama::Template::render(&LoginPage {
                csrf: &expected,
                destination: &destination,
                user: &user,
                message: &message,
            })?;
            Ok((status, axum::response::Html(body)).into_response())
        }
    }
}

#[derive(Deserialize)]
struct LogoutForm {
    csrf: Option<String>,
}

async fn logout(State(web): State<Web>, jar: CookieJar, Form(form): Form<LogoutForm>) -> Result<Response, PageError> {
    if let Some(cookie) = jar.get(SESSION_COOKIE) {
        if let Some(session) = web.sessions.find(cookie.value()) {
            check_csrf(&session, form.csrf.as_deref())?;
            tracing::info!(user = %session.key_id, "pages: signed out");
        }
        web.sessions.close(cookie.value());
    }
    let jar = jar.remove(Cookie::build(SESSION_COOKIE).path("/"));
    Ok((jar, Redirect::to("/ingresar")).into_response())
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new().route("/ingresar", get(login_page).post(login)).route("/salir", axum::routing::post(logout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_sends_only_to_the_pages_own_paths() {
        assert_eq!(
            safe_destination("/venta-pagos/historial?jornada=2026-11-23"),
            Some("/venta-pagos/historial?jornada=2026-11-23")
        );
        assert_eq!(safe_destination("//evil.example/x"), None);
        assert_eq!(safe_destination("https://evil.example"), None);
        assert_eq!(safe_destination("/x\"><script>"), None);
    }
}
