//! The table service: a table agent's signed commands, and the push stream of its panel.

use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use prost::Message;
use tokio::sync::watch;
use tonic::{Request, Response, Status};
use tracing::instrument;

use super::auth::{authenticate, require_table_key};
use super::error::ApiError;
use super::stream::{EventStream, until_stopped};
use super::wire::{FromWire, ToWire, payload_sha256, required};
use crate::cards::CardSource;
use crate::net::bounded_text;
use crate::writer::{Handle, WriterError};
use pozo_core::state::{Applied, Command, TableCommand, TableOp};

pub(crate) struct TableService {
    pub(crate) handle: Handle,
    pub(crate) cards: CardSource,
    /// Turns true when the controller is asked to stop.
    pub(crate) stop: watch::Receiver<bool>,
    /// Which agents are connected, for the floor view.
    pub(crate) presence: crate::read::presence::Presence,
}

impl TableService {
    /// A `WatchTable` signed with that table's own key (Watch, Prizes).
    fn watch_request(&self, envelope: &pb::Envelope) -> Result<pb::WatchTable, ApiError> {
        let key = authenticate(&self.handle, envelope, Purpose::WatchTable)?;
        let watch = pb::WatchTable::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not a WatchTable: {error}")))?;
        require_table_key(key, &watch.table_id)?;
        Ok(watch)
    }
}

#[tonic::async_trait]
impl pb::table_server::Table for TableService {
    #[instrument(skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn submit(&self, request: Request<pb::Envelope>) -> Result<Response<pb::SubmitReply>, Status> {
        let envelope = request.into_inner();
        let key = authenticate(&self.handle, &envelope, Purpose::TableCommand)?;
        let command = pb::TableCommand::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not a TableCommand: {error}")))?;
        require_table_key(key, &command.table_id)?;
        self.presence.heard(&command.table_id);
        if command.sequence == 0 {
            return Err(ApiError::invalid("sequence: starts at 1").into());
        }
        let op = TableOp::from_wire(required("command", command.command)?)?;
        // 15.11.2: the card is drawn here, outside the deterministic state machine,
        // and travels in the journal entry; it is used only if a new card is due.
        let chance = self.handle.config().instant_card_chance(&command.table_id);
        let card = match (&op, chance) {
            (TableOp::StartRound, Some(chance)) => self
                .cards
                .draw(&command.table_id, command.sequence, chance)
                .map_err(|error| ApiError::internal(error.to_string()))?,
            _ => None,
        };
        let payload_sha256 = payload_sha256(&envelope.payload);
        let command = Command::Table(TableCommand {
            table_id: command.table_id.into(),
            sequence: command.sequence,
            payload_sha256,
            op,
            card,
        });
        match self.handle.submit(command).await?.map_err(ApiError::Refused)? {
            Applied::Table(reply) | Applied::Duplicate(reply) => Ok(Response::new(reply.to_wire())),
            _ => Err(ApiError::internal("a table command answered as another kind").into()),
        }
    }

    type WatchStream = EventStream<pb::TableEvent>;

    #[instrument(skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn watch(&self, request: Request<pb::Envelope>) -> Result<Response<Self::WatchStream>, Status> {
        let watch = self.watch_request(&request.into_inner())?;
        // A table's agent follows the writer: a standby sends it on at once (its --server list).
        if self.handle.role() == crate::read::status::Role::Standby {
            return Err(WriterError::Standby.into());
        }
        let receiver = self
            .handle
            .table(&watch.table_id)
            .ok_or_else(|| ApiError::not_found(format!("table_id: no table `{}` in the layout", watch.table_id)))?;
        // Connected while the stream's task holds this.
        let watching = self.presence.watching(&watch.table_id);
        let stream = until_stopped(receiver, self.stop.clone(), move |push| {
            let _ = &watching;
            pb::TableEvent { journal_sequence: push.journal_sequence, table: Some(push.view.to_wire()) }
        });
        Ok(Response::new(stream))
    }

    #[instrument(skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn prizes(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PrizeList>, Status> {
        let watch = self.watch_request(&request.into_inner())?;
        let config = self.handle.config();
        let table = config
            .table(&watch.table_id)
            .ok_or_else(|| ApiError::not_found(format!("table_id: no table `{}` in the layout", watch.table_id)))?;
        let rules = config
            .rulebooks
            .pool(&table.pool)
            .ok_or_else(|| ApiError::internal(format!("pool `{}` of table {} has no rules", table.pool, table.id)))?;
        Ok(Response::new(pb::PrizeList {
            table_id: table.id.to_string(),
            pool_id: rules.id.to_string(),
            pool_name: rules.name.clone(),
            prizes: rules
                .prizes
                .iter()
                .map(|prize| pb::PrizeLine {
                    code: prize.code.to_string(),
                    name: prize.name.clone(),
                    article: prize.article.clone(),
                })
                .collect(),
        }))
    }
}

// ----------------------------------------------------------------------------- Display
