//! A refusal as a page: the one mapping from the controller's errors to an HTTP status and
//! the error page in the operators' words; a template rendered as a page.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::writer::WriterError;
use pozo_core::state::{Refusal, RefusalKind};

/// A refusal as a page: the status, and the message in the operators' words.
#[derive(Debug)]
pub(super) struct PageError {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

impl PageError {
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> PageError {
        PageError { status, message: message.into() }
    }

    pub(super) fn bad_request(message: impl Into<String>) -> PageError {
        PageError::new(StatusCode::BAD_REQUEST, message)
    }

    pub(super) fn not_found(message: impl Into<String>) -> PageError {
        PageError::new(StatusCode::NOT_FOUND, message)
    }
}

/// The one mapping from the state machine's refusals to HTTP statuses (as
/// `From<Refusal> for Status` is for gRPC).
impl From<Refusal> for PageError {
    fn from(refusal: Refusal) -> PageError {
        let status = match refusal.kind {
            RefusalKind::InvalidArgument => StatusCode::BAD_REQUEST,
            RefusalKind::FailedPrecondition | RefusalKind::AlreadyExists => StatusCode::CONFLICT,
            RefusalKind::NotFound => StatusCode::NOT_FOUND,
            RefusalKind::PermissionDenied => StatusCode::FORBIDDEN,
        };
        // A person reads the refusal in Spanish where the state machine wrote it so.
        let message = refusal.for_people().to_owned();
        PageError::new(status, message)
    }
}

impl From<WriterError> for PageError {
    fn from(error: WriterError) -> PageError {
        let message = match error {
            WriterError::Stopped => "El controlador se está deteniendo: intente de nuevo en unos segundos.",
            WriterError::Standby => {
                "Este controlador está EN ESPERA (standby): muestra los pozos pero no registra operaciones. \
                 Confirme o rechace en el controlador activo."
            }
        };
        PageError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }
}

impl From<askama::Error> for PageError {
    fn from(error: askama::Error) -> PageError {
        tracing::error!(%error, "a page could not be rendered");
        PageError::new(StatusCode::INTERNAL_SERVER_ERROR, "La página no se pudo generar.")
    }
}

#[derive(askama::Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    code: u16,
    reason: &'a str,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let reason = self.status.canonical_reason().unwrap_or("");
        let page = askama::Template::render(&ErrorPage { code: self.status.as_u16(), reason, message: &self.message })
            .unwrap_or_else(|_| self.message.clone());
        (self.status, Html(page)).into_response()
    }
}

/// A template rendered as a 200 page.
pub(super) fn page(template: &impl askama::Template) -> Result<Response, PageError> {
    Ok(Html(template.render()?).into_response())
}
