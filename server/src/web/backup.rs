//! `POST /backup`: a verified copy of the durable journal, made while the controller serves.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::context::Web;

/// `POST /backup`: a verified copy of the durable journal (crate::tools::backup), for whoever holds the
/// journal key. 401 without its MAC, 400 for a path that cannot take a backup, 500 when the
/// copy fails; the controller serves on throughout.
pub(super) async fn backup(
    axum::extract::State(web): axum::extract::State<Web>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    use crate::tools::backup::{BackupError, BackupRequest, MAC_HEADER};
    let refuse =
        |status: StatusCode, message: String| (status, axum::Json(serde_json::json!({ "error": message }))).into_response();
    let request: BackupRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => return refuse(StatusCode::BAD_REQUEST, format!("body: {error}")),
    };
    let Some(key) = web.handle.config().journal_key.clone() else {
        return refuse(StatusCode::FORBIDDEN, "this controller has no journal key".to_owned());
    };
    let mac = headers.get(MAC_HEADER).and_then(|value| value.to_str().ok()).unwrap_or_default();
    if !crate::tools::backup::request_allowed(&key, web.handle.journal_id(), &request.to, mac) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            format!("{MAC_HEADER}: not the journal key's MAC of this request (pozo-server backup computes it from --keys)"),
        );
    }
    let durable = web.handle.read().tip;
    tracing::info!(to = %request.to.display(), entries = durable.entries, "backup started");
    let done = crate::tools::backup::backup(
        web.handle.journal(),
        web.handle.identity().clone(),
        key,
        durable,
        web.data.to_path_buf(),
        request.to,
    )
    .await;
    match done {
        Ok(done) => {
            tracing::info!(to = %done.to, entries = done.entries, "backup verified");
            axum::Json(done).into_response()
        }
        Err(BackupError::Target(message)) => refuse(StatusCode::BAD_REQUEST, message),
        Err(error @ BackupError::Failed(_)) => {
            tracing::error!(%error, "backup failed");
            refuse(StatusCode::INTERNAL_SERVER_ERROR, error.to_string())
        }
    }
}
