//! The display service: the cartel luminoso's feed of pool amounts.

use pozo_proto::v1 as pb;
use tokio::sync::watch;
use tonic::{Request, Response, Status};

use super::auth::{DISPLAY_READERS, authorize_read};
use super::error::ApiError;
use super::stream::{EventStream, until_stopped};
use super::wire::display_update;
use crate::net::{bounded_text, display_open};
use crate::writer::Handle;

pub(crate) struct DisplayService {
    pub(crate) handle: Handle,
    /// Networks the display feed is open to without a credential.
    pub(crate) open_to: std::sync::Arc<Vec<ipnet::IpNet>>,
    pub(crate) stop: watch::Receiver<bool>,
}

#[tonic::async_trait]
impl pb::display_server::Display for DisplayService {
    type WatchStream = EventStream<pb::DisplayUpdate>;

    async fn watch(&self, request: Request<pb::WatchDisplays>) -> Result<Response<Self::WatchStream>, Status> {
        // The display feed is open to the networks `serve --display-open-to` names
        // (loopback by default); from elsewhere it needs a display, office or supervisor key.
        let open = request.remote_addr().is_some_and(|peer| display_open(&self.open_to, peer.ip()));
        if !open {
            authorize_read(&self.handle, &request, DISPLAY_READERS)?;
        }
        let request = request.into_inner();
        let wanted = displayed_pools(&self.handle.config(), request.pool_ids, &request.salon_id)?;
        // Counted in `pozo_displays_watching` for as long as the stream is open.
        let watch = self.handle.metrics().display_opened();
        let stream = until_stopped(self.handle.display(), self.stop.clone(), move |push| {
            let _open = &watch;
            display_update(push, wanted.as_deref())
        });
        Ok(Response::new(stream))
    }
}

/// The pools a display asked for: those of `pool_ids` and of the salon `salon_id` (the pools its
/// tables feed, a wide-area pool in every salon that feeds it); `None`, every pool, when it
/// names neither. Checked before the stream opens: a refusal opens nothing.
pub(super) fn displayed_pools(
    config: &crate::config::Config,
    pool_ids: Vec<String>,
    salon_id: &str,
) -> Result<Option<Vec<String>>, ApiError> {
    if let Some(unknown) = pool_ids.iter().find(|id| config.rulebooks.pool(id).is_none()) {
        return Err(ApiError::not_found(format!("pool_ids: no pool `{}`", bounded_text(unknown))));
    }
    if salon_id.is_empty() {
        return Ok((!pool_ids.is_empty()).then_some(pool_ids));
    }
    let salon = config.salon(salon_id).ok_or_else(|| {
        ApiError::not_found(format!(
            "salon_id: no salon `{}` in the layout (known: {})",
            bounded_text(salon_id),
            config.salon_ids()
        ))
    })?;
    if let Some(other) = pool_ids.iter().find(|id| !salon.pools.iter().any(|pool| pool == *id)) {
        return Err(ApiError::invalid(format!(
            "pool_ids: no table of salon `{}` feeds pool `{other}` (its pools: {})",
            salon.id,
            salon.pools.iter().map(|pool| pool.as_str()).collect::<Vec<_>>().join(", ")
        )));
    }
    let pools = if pool_ids.is_empty() { salon.pools.iter().map(|pool| pool.to_string()).collect() } else { pool_ids };
    Ok(Some(pools))
}

// ----------------------------------------------------------------------------- Venta-Pagos
