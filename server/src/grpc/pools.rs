//! The pools service: every pool's amounts, for any key.

use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::auth::{POOL_READERS, authorize_read};
use super::error::ApiError;
use super::wire::amount;
use crate::writer::Handle;

pub(crate) struct PoolsService {
    pub(crate) handle: Handle,
}

#[tonic::async_trait]
impl pb::pools_server::Pools for PoolsService {
    async fn status(&self, request: Request<pb::PoolStatusRequest>) -> Result<Response<pb::PoolStatusResponse>, Status> {
        authorize_read(&self.handle, &request, POOL_READERS)?;
        let wanted = request.into_inner().pool_ids;
        if let Some(unknown) = wanted.iter().find(|id| self.handle.config().rulebooks.pool(id).is_none()) {
            return Err(ApiError::not_found(format!("pool_ids: no pool `{unknown}`")).into());
        }
        let model = self.handle.read();
        let tip = model.tip;
        let pools = model
            .pools()
            .filter(|pool| wanted.is_empty() || wanted.iter().any(|id| pool.rules().id == *id))
            .map(|pool| pb::PoolStatus {
                pool_id: pool.rules().id.to_string(),
                balance: amount(pool.balance()),
                displayed: amount(pool.displayed()),
                minimum: amount(pool.rules().minimum),
                sequence: tip.entries,
            })
            .collect();
        Ok(Response::new(pb::PoolStatusResponse { pools }))
    }
}
