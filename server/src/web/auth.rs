//! Who is at the office and floor pages: one login per person, with the password
//! whose Argon2id hash the person's key carries in the keys file (office keys for
//! Venta-Pagos, supervisor keys for the Sala). A decision taken on a page is
//! journaled as that key's, exactly as one signed with it over gRPC.
//!
//! - Sessions: a random 256-bit token in an `HttpOnly`, `SameSite=Strict` cookie;
//!   only its SHA-256 is kept. They end at logout, after
//!   [`SESSION_IDLE`] without use, after [`SESSION_LIFETIME`], or at restart. At most
//!   [`SESSIONS_MAX`] live at once; the least recently used gives way.
//! - CSRF: every form carries a token; a session's is drawn at login, the login form's
//!   is the value of a cookie it must match (double submit).
//! - Lock-out: [`FAILURES_MAX`] wrong passwords for one user within [`FAILURE_WINDOW`]
//!   lock that user out for [`LOCKOUT`], right password or not.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::Form;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;
use axum_extra::extract::cookie::{Cookie, SameSite};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::time::Instant;

use super::context::Web;
use super::error::{PageError, page};
use crate::config::Role;

pub(super) const SESSION_COOKIE: &str = "pozo_sesion";
const LOGIN_COOKIE: &str = "pozo_ingreso";
const SESSIONS_MAX: usize = 256;
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);
const FAILURES_MAX: u32 = 5;
const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
const LOCKOUT: Duration = Duration::from_secs(15 * 60);
/// Users whose failures are remembered at once; the oldest is forgotten first.
const FAILURES_KEPT: usize = 4096;
/// The longest user name or password read.
const FIELD_MAX: usize = 256;

/// The Argon2id hash (PHC form) of a password, with a fresh salt: what the `password`
/// field of an office or supervisor key holds.
pub(crate) fn hash_password(password: &str) -> anyhow::Result<String> {
    if password.is_empty() || password.len() > FIELD_MAX {
        anyhow::bail!("password: 1–{FIELD_MAX} bytes");
    }
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|error| anyhow::anyhow!("no randomness from the OS: {error}"))?;
    let hash = argon2::Argon2::default()
        .hash_password_with_salt(password.as_bytes(), &salt)
        .map_err(|error| anyhow::anyhow!("hashing: {error}"))?;
    Ok(hash.to_string())
}

/// Checked against when the user is unknown, so that an unknown user takes as long as a
/// wrong password (a hash of a random password, made once).
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        let mut random = [0u8; 18];
        let _ = getrandom::fill(&mut random);
        hash_password(&hex::encode(random)).expect("hashing a random password")
    })
}

fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS gives randomness");
    hex::encode(bytes)
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Equal texts, compared through their digests: the time taken says nothing of where they differ.
fn same(a: &str, b: &str) -> bool {
    digest(a) == digest(b)
}

/// A signed-in person.
#[derive(Clone, Debug)]
pub(super) struct Session {
    pub(super) key_id: String,
    pub(super) name: String,
    pub(super) role: Role,
    pub(super) csrf: String,
    created: Instant,
    used: Instant,
}

#[derive(Debug)]
struct Failures {
    count: u32,
    first: Instant,
    locked_until: Option<Instant>,
}

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<[u8; 32], Session>,
    failures: HashMap<String, Failures>,
}

#[derive(Debug, Default)]
pub(super) struct Sessions {
    inner: Mutex<Inner>,
}

/// Why a login was refused.
#[derive(Debug, PartialEq, Eq)]
enum LoginRefusal {
    Wrong,
    Locked { minutes: u64 },
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The user's lock-out, if any: minutes left.
    fn locked(&self, user: &str) -> Option<u64> {
        let now = Instant::now();
        let inner = self.lock();
        let until = inner.failures.get(user)?.locked_until?;
        (until > now).then(|| (until - now).as_secs().div_ceil(60).max(1))
    }

    /// Records a wrong password; returns the lock-out it caused, if any.
    fn failed(&self, user: &str) -> Option<u64> {
        let now = Instant::now();
        let mut inner = self.lock();
        if inner.failures.len() >= FAILURES_KEPT && !inner.failures.contains_key(user) {
            let oldest = inner.failures.iter().min_by_key(|(_, failures)| failures.first).map(|(user, _)| user.clone());
            if let Some(oldest) = oldest {
                inner.failures.remove(&oldest);
            }
        }
        let failures = inner.failures.entry(user.to_owned()).or_insert(Failures { count: 0, first: now, locked_until: None });
        if now.duration_since(failures.first) > FAILURE_WINDOW || failures.locked_until.is_some_and(|until| until <= now) {
            *failures = Failures { count: 0, first: now, locked_until: None };
        }
        failures.count += 1;
        if failures.count >= FAILURES_MAX {
            failures.locked_until = Some(now + LOCKOUT);
            tracing::warn!(user = %super::view::bounded(user), failures = failures.count, "pages: user locked out after wrong passwords");
            return Some(LOCKOUT.as_secs() / 60);
        }
        None
    }

    fn succeeded(&self, user: &str) {
        self.lock().failures.remove(user);
    }

    /// A new session for `key`; returns its token (the cookie's value).
    fn open(&self, key_id: &str, name: &str, role: Role) -> (String, Session) {
        let now = Instant::now();
        let token = random_token();
        let session =
            Session { key_id: key_id.to_owned(), name: name.to_owned(), role, csrf: random_token(), created: now, used: now };
        let mut inner = self.lock();
        inner.sessions.retain(|_, session| !expired(session, now));
        if inner.sessions.len() >= SESSIONS_MAX {
            let oldest = inner.sessions.iter().min_by_key(|(_, session)| session.used).map(|(digest, _)| *digest);
            if let Some(oldest) = oldest {
                inner.sessions.remove(&oldest);
            }
        }
        inner.sessions.insert(digest(&token), session.clone());
        (token, session)
    }

    /// The live session of a cookie's token, marked as used now.
    pub(super) fn find(&self, token: &str) -> Option<Session> {
        let now = Instant::now();
        let mut inner = self.lock();
        let key = digest(token);
        let session = inner.sessions.get_mut(&key)?;
        if expired(session, now) {
            inner.sessions.remove(&key);
            return None;
        }
        session.used = now;
        Some(session.clone())
    }

    fn close(&self, token: &str) {
        self.lock().sessions.remove(&digest(token));
    }
}

fn expired(session: &Session, now: Instant) -> bool {
    now.duration_since(session.used) > SESSION_IDLE || now.duration_since(session.created) > SESSION_LIFETIME
}

/// Checks a login: the password against the key's hash (on a blocking thread: Argon2 is
/// slow on purpose), the lock-out first. Returns the key's id, name and role.
async fn check_login(web: &Web, user: &str, password: &str) -> Result<(String, String, Role), LoginRefusal> {
    if let Some(minutes) = web.sessions.locked(user) {
        return Err(LoginRefusal::Locked { minutes });
    }
    let key = web
        .handle
        .config()
        .keys
        .get(user)
        .filter(|key| matches!(key.role, Role::Office | Role::Supervisor))
        .and_then(|key| key.password.clone().map(|hash| (key.id.clone(), key.name.clone(), key.role, hash)));
    let hash = key.as_ref().map(|(_, _, _, hash)| hash.clone()).unwrap_or_else(|| decoy_hash().to_owned());
    let password = password.to_owned();
    let matches = tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash)
            .is_ok_and(|parsed| argon2::Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .unwrap_or(false);
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
                Role::Supervisor => "/sala",
                _ => "/venta-pagos",
            };
            let target = if destination.is_empty() { home.to_owned() } else { destination };
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
    fn a_hash_verifies_its_password_only() {
        let hash = hash_password("ana-ejemplo").expect("hash");
        let parsed = PasswordHash::new(&hash).expect("PHC");
        assert!(argon2::Argon2::default().verify_password(b"ana-ejemplo", &parsed).is_ok());
        assert!(argon2::Argon2::default().verify_password(b"ana-ejemplO", &parsed).is_err());
        assert_ne!(hash, hash_password("ana-ejemplo").expect("hash"), "a fresh salt each time");
    }

    #[tokio::test(start_paused = true)]
    async fn five_failures_lock_out_for_fifteen_minutes_then_the_count_starts_over() {
        let sessions = Sessions::default();
        for _ in 0..FAILURES_MAX - 1 {
            assert_eq!(sessions.failed("vp-ana"), None);
        }
        assert_eq!(sessions.locked("vp-ana"), None);
        assert_eq!(sessions.failed("vp-ana"), Some(15));
        assert_eq!(sessions.locked("vp-ana"), Some(15));
        assert_eq!(sessions.locked("vp-bruno"), None, "one user's failures lock no one else");
        tokio::time::advance(LOCKOUT + Duration::from_secs(1)).await;
        assert_eq!(sessions.locked("vp-ana"), None);
        assert_eq!(sessions.failed("vp-ana"), None, "after the lock-out the count starts over");
    }

    #[tokio::test(start_paused = true)]
    async fn sessions_end_when_idle_and_only_their_token_finds_them() {
        let sessions = Sessions::default();
        let (token, session) = sessions.open("vp-ana", "Ana Pereyra", Role::Office);
        assert_eq!(sessions.find(&token).map(|found| found.csrf), Some(session.csrf.clone()));
        assert!(sessions.find(&session.csrf).is_none(), "the CSRF token is not a session token");
        tokio::time::advance(SESSION_IDLE - Duration::from_secs(1)).await;
        assert!(sessions.find(&token).is_some(), "used just in time");
        tokio::time::advance(SESSION_IDLE + Duration::from_secs(1)).await;
        assert!(sessions.find(&token).is_none(), "idle too long");
    }

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
