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
                levels: {
                    let mut levels = level_amounts(pool);
                    super::wire::mark_mystery(&model, &pool.rules().id, &mut levels);
                    levels
                },
            })
            .collect();
        Ok(Response::new(pb::PoolStatusResponse { pools }))
    }
}

/// A pool's levels as Pools/Status lists them (docs/api.md, "Levels"): each level's name,
/// balance, reserve, meter and reset, first level first; never the house's level, which holds
/// nothing and is on no sign. None for a pool of one level: the pool's own amounts are its one
/// level's.
fn level_amounts(pool: &pozo_engine::Pool) -> Vec<pb::Level> {
    if pool.rules().levels.is_empty() {
        return Vec::new();
    }
    pool.levels()
        .into_iter()
        .filter(|level| !level.house && !level.retired)
        .map(|level| pb::Level {
            name: level.name.unwrap_or_default(),
            balance: amount(level.balance),
            reserve: amount(level.reserve),
            displayed: amount(level.displayed),
            reset: amount(level.reset),
            ..Default::default()
        })
        .collect()
}
