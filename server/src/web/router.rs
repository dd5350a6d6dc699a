//! Which path answers what: the routes of every page, the embedded assets, the home page, and
//! the limits and headers every request passes through.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::context::Web;
use super::csp::content_security_policy;
use super::error::{PageError, page};
use super::{auth, backup, cartel, changes, flor, office, planilla, sala, status, torneo_cartel, torneos, view};

/// Requests being served at once; beyond it, 503 at once rather than a queue.
const REQUESTS_MAX: usize = 2048;
/// The largest request body: a form of a few fields.
const BODY_BYTES_MAX: usize = 16 * 1024;

/// The embedded assets: (path, content type, bytes).
const ASSETS: &[(&str, &str, &str)] = &[
    ("pozo.css", "text/css; charset=utf-8", include_str!("../../static/pozo.css")),
    ("cartel.js", "text/javascript; charset=utf-8", include_str!("../../static/cartel.js")),
    ("oficina.js", "text/javascript; charset=utf-8", include_str!("../../static/oficina.js")),
    ("sala.js", "text/javascript; charset=utf-8", include_str!("../../static/sala.js")),
    ("flor.js", "text/javascript; charset=utf-8", include_str!("../../static/flor.js")),
    ("cambios.js", "text/javascript; charset=utf-8", include_str!("../../static/cambios.js")),
    ("planilla.css", "text/css; charset=utf-8", include_str!("../../static/planilla.css")),
    ("imprimir.js", "text/javascript; charset=utf-8", include_str!("../../static/imprimir.js")),
    ("torneo.css", "text/css; charset=utf-8", include_str!("../../static/torneo.css")),
    ("torneo.js", "text/javascript; charset=utf-8", include_str!("../../static/torneo.js")),
    ("torneo_cartel.js", "text/javascript; charset=utf-8", include_str!("../../static/torneo_cartel.js")),
];

async fn asset(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    match ASSETS.iter().find(|(path, _, _)| *path == name) {
        Some((_, kind, body)) => {
            ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "public, max-age=300")], *body).into_response()
        }
        None => PageError::not_found(format!("No existe el recurso `{}`.", view::bounded(&name))).into_response(),
    }
}

#[derive(askama::Template)]
#[template(path = "inicio.html")]
struct Home {
    casino: String,
}

async fn home(axum::extract::State(web): axum::extract::State<Web>) -> Result<Response, PageError> {
    page(&Home { casino: web.handle.config().layout.casino.clone() })
}

pub(super) fn router(web: Web) -> Router {
    use tower_http::set_header::SetResponseHeaderLayer;
    let security = |name: &'static str, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(header::HeaderName::from_static(name), HeaderValue::from_static(value))
    };
    let policy = content_security_policy(&web.peers);
    Router::new()
        .route("/", get(home))
        .route("/static/{name}", get(asset))
        .route("/metrics", get(status::metrics))
        .route("/status", get(status::status))
        .route("/backup", axum::routing::post(backup::backup))
        .merge(cartel::routes())
        .merge(auth::routes())
        .merge(office::routes())
        .merge(sala::routes())
        .merge(flor::routes())
        .merge(planilla::routes())
        .merge(changes::routes())
        .merge(torneos::routes())
        .merge(torneo_cartel::routes())
        .fallback(|| async { PageError::not_found("No existe esa página.") })
        .with_state(web)
        .layer(axum::extract::DefaultBodyLimit::max(BODY_BYTES_MAX))
        // Every byte the browser runs comes from this server; no page may be framed.
        .layer(SetResponseHeaderLayer::if_not_present(header::CONTENT_SECURITY_POLICY, policy))
        .layer(security("x-content-type-options", "nosniff"))
        .layer(security("referrer-policy", "no-referrer"))
        .layer(security("x-frame-options", "DENY"))
        .layer(
            tower::ServiceBuilder::new()
                .layer(axum::error_handling::HandleErrorLayer::new(|_: tower::BoxError| async {
                    PageError::new(StatusCode::SERVICE_UNAVAILABLE, "Demasiadas solicitudes a la vez: intente de nuevo.")
                }))
                .load_shed()
                .concurrency_limit(REQUESTS_MAX),
        )
}
