//! The controller service: which journal this controller keeps (`Identify`).

use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::writer::Handle;

pub(crate) struct ControllerService {
    pub(crate) handle: Handle,
}

#[tonic::async_trait]
impl pb::controller_server::Controller for ControllerService {
    async fn identify(&self, _: Request<pb::IdentifyRequest>) -> Result<Response<pb::Identity>, Status> {
        let identity = self.handle.identity();
        // Not through the writer's queue: an open RPC must not be a way to load the single writer.
        let entries = self.handle.durable_entries();
        Ok(Response::new(pb::Identity {
            journal_id: self.handle.journal_id().to_owned(),
            installation: identity.installation.clone(),
            epoch: identity.epoch,
            entries,
            config_hash: self.handle.config().hash.clone(),
        }))
    }
}

// ----------------------------------------------------------------------------- Reports and pools
