//! The gRPC services: thin handlers that authenticate, convert, hand the command
//! to the writer, and convert the answer back. docs/api.md lists every refusal.
//!
//! `wire` holds the conversions between the protobuf messages and the state machine's types.

mod wire;

use wire::{amount, custody_item, display_update, hit, order_facts, submit_reply};
pub use wire::{payout_order, table_op, table_view};

use std::pin::Pin;

use pozo_proto::v1 as pb;
use prost::Message;
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tracing::instrument;

use crate::config::{Key, Role};
use crate::writer::{Handle, WriterError};
use pozo_core::state::{
    Applied, Card, Command, OfficeCommand, OfficeOp, OrderStatus, Refusal, RefusalKind, TableCommand, TableOp,
};
use pozo_proto::Purpose;

/// The largest envelope payload accepted: a command is a few dozen bytes.
pub const PAYLOAD_BYTES_MAX: usize = 4 * 1024;

/// The longest premio code or card rank accepted.
const TEXT_MAX: usize = 64;

/// Why a gRPC request is refused. Every refusal of the services is one of these, and
/// [`From<ApiError> for Status`](#impl-From<ApiError>-for-Status) is the one place a kind
/// of refusal becomes a status code (docs/api.md §11).
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A field breaks a rule whatever the state: `InvalidArgument`.
    #[error("{0}")]
    Invalid(String),
    /// No key, an unknown key or a bad MAC or token: `Unauthenticated`.
    #[error("{0}")]
    Unauthenticated(String),
    /// A known key that may not do this: `PermissionDenied`.
    #[error("{0}")]
    Denied(String),
    /// No such table, pool or order: `NotFound`.
    #[error("{0}")]
    NotFound(String),
    /// The state machine's refusal, by its own kind.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The controller is stopping: `Unavailable` (retry on the next start).
    #[error(transparent)]
    Stopping(#[from] WriterError),
    /// Something that cannot happen did: `Internal`.
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::Invalid(message.into())
    }

    pub fn unauthenticated(message: impl Into<String>) -> ApiError {
        ApiError::Unauthenticated(message.into())
    }

    pub fn denied(message: impl Into<String>) -> ApiError {
        ApiError::Denied(message.into())
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::NotFound(message.into())
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::Internal(message.into())
    }
}

impl From<ApiError> for Status {
    fn from(error: ApiError) -> Status {
        match error {
            ApiError::Invalid(message) => Status::invalid_argument(message),
            ApiError::Unauthenticated(message) => Status::unauthenticated(message),
            ApiError::Denied(message) => Status::permission_denied(message),
            ApiError::NotFound(message) => Status::not_found(message),
            ApiError::Refused(Refusal { kind, message }) => match kind {
                RefusalKind::InvalidArgument => Status::invalid_argument(message),
                RefusalKind::FailedPrecondition => Status::failed_precondition(message),
                RefusalKind::NotFound => Status::not_found(message),
                RefusalKind::AlreadyExists => Status::already_exists(message),
            },
            stopping @ ApiError::Stopping(_) => Status::unavailable(stopping.to_string()),
            ApiError::Internal(message) => Status::internal(message),
        }
    }
}

impl From<WriterError> for Status {
    fn from(error: WriterError) -> Status {
        ApiError::Stopping(error).into()
    }
}

/// Checks an envelope's key, journal and MAC; returns the key. The MAC is compared
/// in constant time over the exact payload bytes received, as `purpose`, for this
/// controller's journal id (never the one the envelope names).
fn authenticate<'a>(handle: &'a Handle, envelope: &pb::Envelope, purpose: Purpose) -> Result<&'a Key, ApiError> {
    if envelope.payload.len() > PAYLOAD_BYTES_MAX {
        return Err(ApiError::invalid(format!("payload: {} bytes, over {PAYLOAD_BYTES_MAX}", envelope.payload.len())));
    }
    let Some(key) = handle.config().keys.get(&envelope.key_id) else {
        tracing::warn!(key_id = %bounded_text(&envelope.key_id), "refused: unknown key");
        return Err(ApiError::unauthenticated(format!("key_id: unknown key `{}`", bounded_text(&envelope.key_id))));
    };
    if envelope.journal_id != handle.journal_id() {
        // Captured on another journal, or before a restore: a replay, or an agent that
        // has not asked Controller.Identify since the controller changed.
        tracing::warn!(key_id = %key.id, journal_id = %bounded_text(&envelope.journal_id), "refused: signed for another journal");
        return Err(ApiError::unauthenticated(format!(
            "journal_id: signed for journal `{}`; this controller keeps journal `{}` (ask Controller.Identify)",
            bounded_text(&envelope.journal_id),
            handle.journal_id()
        )));
    }
    if !pozo_proto::verify(&key.secret, purpose, handle.journal_id(), envelope) {
        // A forged or corrupted command: worth an operator's attention.
        tracing::warn!(key_id = %key.id, "refused: bad MAC");
        return Err(ApiError::unauthenticated(format!(
            "mac: not the HMAC-SHA256 of a {} for this journal under key `{}`",
            purpose.context(),
            key.id
        )));
    }
    Ok(key)
}

/// Who may read reports and journal pages: the jefe de sala.
const REPORT_READERS: &[Role] = &[Role::Supervisor];
/// Who may read the pools' amounts: every key.
const POOL_READERS: &[Role] = &[Role::Table, Role::Display, Role::Office, Role::Supervisor];
/// Who may open the display feed from outside its open networks.
const DISPLAY_READERS: &[Role] = &[Role::Display, Role::Office, Role::Supervisor];

/// A text from the wire, cut for a message or a log line: at most 80 characters, and
/// no control characters (a newline would fake a log line).
pub(crate) fn bounded_text(text: &str) -> String {
    text.chars().take(80).map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// Whether a display at `ip` is in the networks the display feed is open to (an IPv4
/// display on a `[::]` listener shows as ::ffff:a.b.c.d). The gRPC feed and `/cartel` ask it.
pub(crate) fn display_open(open_to: &[ipnet::IpNet], ip: std::net::IpAddr) -> bool {
    let ip = match ip {
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().map(std::net::IpAddr::V4).unwrap_or(ip),
        ip => ip,
    };
    open_to.iter().any(|network| network.contains(&ip))
}

/// Checks a read credential (`authorization: Pozo <key_id>:<token>`, [`pozo_proto::read_token`])
/// and that its key has one of `roles`; returns the key.
fn authorize_read<'a, T>(handle: &'a Handle, request: &Request<T>, roles: &[Role]) -> Result<&'a Key, ApiError> {
    let needed = || roles.iter().map(|role| role.name()).collect::<Vec<_>>().join(" or ");
    let Some(value) = request.metadata().get(pozo_proto::AUTHORIZATION) else {
        return Err(ApiError::unauthenticated(format!(
            "authorization: missing; this read needs a {} key's credential (`Pozo <key_id>:<token>`, docs/api.md)",
            needed()
        )));
    };
    let credential = value
        .to_str()
        .ok()
        .and_then(|text| text.strip_prefix("Pozo "))
        .and_then(|text| text.split_once(':'))
        .ok_or_else(|| ApiError::unauthenticated("authorization: not `Pozo <key_id>:<token>`"))?;
    let Some(key) = handle.config().keys.get(credential.0) else {
        tracing::warn!(key_id = %bounded_text(credential.0), "refused read: unknown key");
        return Err(ApiError::unauthenticated(format!("authorization: unknown key `{}`", bounded_text(credential.0))));
    };
    if !pozo_proto::verify_read_token(&key.secret, handle.journal_id(), credential.1) {
        tracing::warn!(key_id = %key.id, "refused read: bad token");
        return Err(ApiError::unauthenticated(format!(
            "authorization: not key `{}`'s read token for journal `{}`",
            key.id,
            handle.journal_id()
        )));
    }
    if !roles.contains(&key.role) {
        tracing::warn!(key_id = %key.id, "refused read: role");
        return Err(ApiError::denied(format!(
            "key `{}` is a {} key; this read needs a {} key",
            key.id,
            key.role.name(),
            needed()
        )));
    }
    Ok(key)
}

/// A table key may speak only for its own table.
fn require_table_key(key: &Key, table_id: &str) -> Result<(), ApiError> {
    let refusal = match (key.role, key.table.as_deref()) {
        (Role::Table, Some(table)) if table == table_id => return Ok(()),
        (Role::Table, Some(table)) => format!("key `{}` belongs to table {table}, not to table {table_id}", key.id),
        _ => format!("key `{}` is not a table key", key.id),
    };
    tracing::warn!(key_id = %key.id, table_id, "refused: key not for this table");
    Err(ApiError::denied(refusal))
}

pub(super) fn bounded(field: &str, text: &str) -> Result<(), ApiError> {
    if text.len() > TEXT_MAX {
        return Err(ApiError::invalid(format!("{field}: longer than {TEXT_MAX} characters")));
    }
    Ok(())
}

/// What a table command's journal entry keeps of its signed payload: SHA-256, hex. It
/// tells a retry (same bytes) from a reuse of the sequence (other bytes).
pub fn payload_sha256(payload: &[u8]) -> String {
    hex::encode(Sha256::digest(payload))
}

/// Where the instant-prize cards come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CardSource {
    /// The operating system's CSPRNG (15.11.2: "en forma aleatoria"). `pozo-server serve` has only this.
    #[default]
    Os,
    /// A function of (seed, table, sequence): a simulated night replays to the same
    /// books. Only the simulator's embedded server uses it; the binary has no flag for it.
    Seeded(u64),
}

impl CardSource {
    /// Whether a premio instantáneo card appears at this INICIAR JUEGO, with the
    /// rulebook's chance, and which (15.11.2: "en forma aleatoria y sorpresiva").
    fn draw(self, table_id: &str, sequence: u64, chance: Decimal) -> Result<Option<Card>, ApiError> {
        let (roll, card) = match self {
            CardSource::Os => {
                let mut bytes = [0u8; 4];
                getrandom::fill(&mut bytes)
                    .map_err(|error| ApiError::internal(format!("no randomness for the instant prize: {error}")))?;
                (u32::from_be_bytes(bytes), draw_card()?)
            }
            CardSource::Seeded(seed) => {
                let digest = |counter: u64| {
                    let mut hasher = Sha256::new();
                    hasher.update(seed.to_be_bytes());
                    hasher.update(table_id.as_bytes());
                    hasher.update(sequence.to_be_bytes());
                    hasher.update(counter.to_be_bytes());
                    hasher.finalize()
                };
                let roll = u32::from_be_bytes(digest(u64::MAX)[..4].try_into().expect("4 bytes"));
                let mut counter = 0u64;
                let card = loop {
                    if let Some(byte) = digest(counter).iter().find(|byte| **byte < 208) {
                        break Card::from_index(byte % 52);
                    }
                    counter += 1;
                };
                (roll, card)
            }
        };
        // roll / 2^32 < chance, exactly.
        let appears = Decimal::from(roll) < chance * Decimal::from(1_u64 << 32);
        Ok(appears.then_some(card))
    }
}

/// A card from the operating system's CSPRNG (15.11.2: "en forma aleatoria").
fn draw_card() -> Result<Card, ApiError> {
    loop {
        let mut byte = [0u8; 1];
        getrandom::fill(&mut byte)
            .map_err(|error| ApiError::internal(format!("no randomness for the instant prize: {error}")))?;
        // Rejection sampling: 0–207 maps evenly onto 52 cards.
        if byte[0] < 208 {
            return Ok(Card::from_index(byte[0] % 52));
        }
    }
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

// ----------------------------------------------------------------------------- Table

pub struct TableService {
    pub handle: Handle,
    pub cards: CardSource,
    /// Turns true when the controller is asked to stop.
    pub stop: watch::Receiver<bool>,
    /// Which agents are connected, for the floor view.
    pub presence: crate::read::presence::Presence,
}

/// Follows a watch channel, newest value first, until the controller stops: the
/// stream then ends with UNAVAILABLE at once, so agents and displays show
/// `suspended` without waiting out the shutdown grace. A reader that falls behind
/// gets the newest value, never a queue (capacity 1).
fn until_stopped<T, U>(
    mut receiver: watch::Receiver<T>,
    mut stop: watch::Receiver<bool>,
    convert: impl Fn(&T) -> U + Send + 'static,
) -> EventStream<U>
where
    T: Send + Sync + 'static,
    U: Send + 'static,
{
    let (sender, stream) = mpsc::channel(1);
    tokio::spawn(async move {
        let stopping = || Status::from(ApiError::Stopping(WriterError::Stopped));
        loop {
            let item = convert(&receiver.borrow_and_update());
            tokio::select! {
                sent = sender.send(Ok(item)) => if sent.is_err() { return },
                _ = stop.wait_for(|stop| *stop) => { let _ = sender.try_send(Err(stopping())); return; }
            }
            tokio::select! {
                changed = receiver.changed() => if changed.is_err() { return },
                _ = stop.wait_for(|stop| *stop) => { let _ = sender.try_send(Err(stopping())); return; }
                _ = sender.closed() => return,
            }
        }
    });
    Box::pin(ReceiverStream::new(stream))
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
        let op = table_op(command.command.ok_or_else(|| ApiError::invalid("command: missing"))?)?;
        // 15.11.2: the card is drawn here, outside the deterministic state machine,
        // and travels in the journal entry; it is used only if a new card is due.
        let config = self.handle.config();
        let chance = config
            .table(&command.table_id)
            .filter(|table| table.game.plays_instant_prize())
            .and_then(|table| config.rulebooks.pool(&table.pool))
            .and_then(|rules| rules.instant_card_chance);
        let card = match (&op, chance) {
            (TableOp::StartRound, Some(chance)) => self.cards.draw(&command.table_id, command.sequence, chance)?,
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
            Applied::Table(reply) | Applied::Duplicate(reply) => Ok(Response::new(submit_reply(&reply))),
            _ => Err(ApiError::internal("a table command answered as another kind").into()),
        }
    }

    type WatchStream = EventStream<pb::TableEvent>;

    #[instrument(skip_all, fields(key_id = %bounded_text(&request.get_ref().key_id)))]
    async fn watch(&self, request: Request<pb::Envelope>) -> Result<Response<Self::WatchStream>, Status> {
        let envelope = request.into_inner();
        let key = authenticate(&self.handle, &envelope, Purpose::WatchTable)?;
        let watch = pb::WatchTable::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not a WatchTable: {error}")))?;
        require_table_key(key, &watch.table_id)?;
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
            pb::TableEvent { journal_sequence: push.journal_sequence, table: Some(table_view(&push.view)) }
        });
        Ok(Response::new(stream))
    }
}

// ----------------------------------------------------------------------------- Display

pub struct DisplayService {
    pub handle: Handle,
    /// Networks the display feed is open to without a credential.
    pub open_to: std::sync::Arc<Vec<ipnet::IpNet>>,
    pub stop: watch::Receiver<bool>,
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
        let wanted = displayed_pools(self.handle.config(), request.pool_ids, &request.salon_id)?;
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
fn displayed_pools(
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

pub struct VentaPagosService {
    pub handle: Handle,
}

impl VentaPagosService {
    /// An office command signed by a key of one of `roles`; returns the key and the command.
    fn office_command<'a>(
        &'a self,
        envelope: &pb::Envelope,
        roles: &[Role],
    ) -> Result<(&'a Key, pb::office_command::Command), Status> {
        let key = authenticate(&self.handle, envelope, Purpose::OfficeCommand)?;
        if !roles.contains(&key.role) {
            tracing::warn!(key_id = %key.id, role = key.role.name(), "refused: not an office key at Venta-Pagos");
            return Err(ApiError::denied(format!(
                "key `{}` is a {} key; Venta-Pagos needs an operator's office key",
                key.id,
                key.role.name()
            ))
            .into());
        }
        let command = pb::OfficeCommand::decode(envelope.payload.as_slice())
            .map_err(|error| ApiError::invalid(format!("payload: not an OfficeCommand: {error}")))?;
        Ok((key, command.command.ok_or_else(|| ApiError::invalid("command: missing"))?))
    }

    async fn decide(&self, key: &Key, op: OfficeOp) -> Result<Response<pb::PayoutOrder>, Status> {
        let command = Command::Office(OfficeCommand { key_id: key.id.clone(), operator_name: key.name.clone(), op });
        match self.handle.submit(command).await?.map_err(ApiError::Refused)? {
            Applied::Office(order) | Applied::OfficeDuplicate(order) => Ok(Response::new(payout_order(&order))),
            _ => Err(ApiError::internal("an office command answered as another kind").into()),
        }
    }
}

#[tonic::async_trait]
impl pb::venta_pagos_server::VentaPagos for VentaPagosService {
    async fn list(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutList>, Status> {
        let (_, command) = self.office_command(request.get_ref(), &[Role::Office, Role::Supervisor])?;
        let pb::office_command::Command::List(list) = command else {
            return Err(ApiError::invalid("command: List takes a ListPayouts").into());
        };
        let all = match list.status.as_str() {
            "" | "pendiente" => false,
            "all" | "todas" => true,
            other => {
                return Err(ApiError::invalid(format!(
                    "status: `{}` is not \"\" or \"pendiente\" (pending orders) or \"all\" or \"todas\" (every order)",
                    bounded_text(other)
                ))
                .into());
            }
        };
        let orders =
            self.handle.read().orders().filter(|order| all || order.status == OrderStatus::Pending).map(payout_order).collect();
        Ok(Response::new(pb::PayoutList { orders }))
    }

    async fn confirm(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutOrder>, Status> {
        let (key, command) = self.office_command(request.get_ref(), &[Role::Office])?;
        let pb::office_command::Command::Confirm(confirm) = command else {
            return Err(ApiError::invalid("command: Confirm takes a ConfirmPayout").into());
        };
        let expect = order_facts(confirm.expect)?;
        self.decide(key, OfficeOp::Confirm { order_id: confirm.order_id, form_number: confirm.form_number, expect }).await
    }

    async fn reject(&self, request: Request<pb::Envelope>) -> Result<Response<pb::PayoutOrder>, Status> {
        let (key, command) = self.office_command(request.get_ref(), &[Role::Office])?;
        let pb::office_command::Command::Reject(reject) = command else {
            return Err(ApiError::invalid("command: Reject takes a RejectPayout").into());
        };
        let expect = order_facts(reject.expect)?;
        self.decide(key, OfficeOp::Reject { order_id: reject.order_id, reason: reject.reason, expect }).await
    }
}

// ----------------------------------------------------------------------------- Controller

pub struct ControllerService {
    pub handle: Handle,
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

pub struct ReportsService {
    pub handle: Handle,
}

#[tonic::async_trait]
impl pb::reports_server::Reports for ReportsService {
    async fn table(&self, request: Request<pb::TableReportRequest>) -> Result<Response<pb::TableReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let request = request.into_inner();
        if self.handle.config().table(&request.table_id).is_none() {
            return Err(ApiError::not_found(format!("table_id: no table `{}` in the layout", request.table_id)).into());
        }
        let jornada = if request.jornada.is_empty() {
            pozo_core::jornada::jornada_and_hour(self.handle.config(), self.handle.now_ms()).0
        } else {
            request.jornada.clone()
        };
        let day = self.handle.read().day(&jornada, &request.table_id);
        let salon_id = self.handle.config().table(&request.table_id).map(|table| self.handle.config().salon_of(table).to_owned());
        let report = pb::TableReport {
            table_id: request.table_id.clone(),
            jornada,
            ipa: amount(day.ipa),
            pppa: amount(day.pppa),
            fp: day.fp,
            bets: day.bets,
            presses: day.presses,
            credits_sold: day.credits_sold,
            credits_returned: day.credits_returned,
            credits_sold_amount: amount(day.credits_sold_amount),
            credits_returned_amount: amount(day.credits_returned_amount),
            hours: day
                .hours
                .iter()
                .map(|(hour, (ipa, pppa))| pb::HourRow { hour: *hour, ipa: amount(*ipa), pppa: amount(*pppa) })
                .collect(),
            salon_id: salon_id.unwrap_or_default(),
            custody_in: amount(day.custody_in),
            custody_released: amount(day.custody_released),
            custody_held: self
                .handle
                .read()
                .custody_held()
                .filter(|item| item.table_id == request.table_id)
                .map(custody_item)
                .collect(),
            pppa_reclaimed: amount(day.pppa_reclaimed),
        };
        Ok(Response::new(report))
    }

    async fn pool(&self, request: Request<pb::PoolReportRequest>) -> Result<Response<pb::PoolReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let pb::PoolReportRequest { pool_id, jornada } = request.into_inner();
        let config = self.handle.config();
        let model = self.handle.read();
        let pool = model.pool(&pool_id).ok_or_else(|| ApiError::not_found(format!("pool_id: no pool `{pool_id}`")))?;
        if !jornada.is_empty() && jiff::civil::Date::strptime("%Y-%m-%d", &jornada).is_err() {
            return Err(ApiError::invalid(format!("jornada: `{}` is not a date YYYY-MM-DD", bounded_text(&jornada))).into());
        }
        let jornada =
            if jornada.is_empty() { pozo_core::jornada::jornada_and_hour(config, self.handle.now_ms()).0 } else { jornada };
        // The split by salon (docs/operations.md §17): every table is in one salon, so the
        // salons add up exactly to the pool's figures for the jornada.
        let shares = model.salon_shares(config, &jornada, &pool_id);
        let mut total = crate::read::SalonShare::default();
        for (_, share) in &shares {
            total += *share;
        }
        let salon_share = |salon_id: &str, name: &str, share: &crate::read::SalonShare| pb::SalonShare {
            salon_id: salon_id.to_owned(),
            name: name.to_owned(),
            bets: share.bets,
            bets_amount: amount(share.bets_amount),
            contributions: amount(share.contributions),
            awards: amount(share.awards),
        };
        let m = pool.meters();
        let report = pb::PoolReport {
            pool_id: pool_id.clone(),
            bets: m.net_bets(),
            bets_amount: amount(m.net_bets_amount()),
            contributions: amount(m.net_contributions()),
            replenishments: amount(m.replenishments),
            awards: amount(m.awards),
            awards_returned: amount(m.awards_returned),
            balance: amount(pool.balance()),
            reserve: amount(pool.reserve()),
            displayed: amount(pool.displayed()),
            commission: amount(m.net_commission()),
            hits: m.hits,
            replenishments_withdrawn: amount(m.replenishments_withdrawn),
            reserve_transfers: amount(m.reserve_transfers),
            reserve_transfers_returned: amount(m.reserve_transfers_returned),
            rejections: m.rejections,
            last_hits: model.hits(&pool_id).map(hit).collect(),
            salons: shares.iter().map(|(salon, share)| salon_share(&salon.id, &salon.name, share)).collect(),
            jornada_total: Some(salon_share("", "", &total)),
            jornada,
            awards_reclaimed: amount(m.awards_reclaimed),
            reclaims: m.reclaims,
            custody_held: amount(model.custody_held_in(&pool_id)),
        };
        Ok(Response::new(report))
    }

    async fn journal(&self, request: Request<pb::JournalStatusRequest>) -> Result<Response<pb::JournalStatus>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let tip = self.handle.read().tip;
        let status = pb::JournalStatus { entries: tip.entries, tip_hash: hex::encode(tip.hash) };
        Ok(Response::new(status))
    }

    async fn entries(&self, request: Request<pb::JournalEntriesRequest>) -> Result<Response<pb::JournalEntries>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let request = request.into_inner();
        if request.limit > ENTRIES_PAGE_MAX {
            return Err(ApiError::invalid(format!("limit: at most {ENTRIES_PAGE_MAX} entries a page")).into());
        }
        let limit = if request.limit == 0 { ENTRIES_PAGE_MAX } else { request.limit } as usize;
        // Only what is durable: the read model is swapped after each durable batch.
        let durable = self.handle.durable_entries();
        let journal = self.handle.journal();
        let after = request.after;
        let entries = tokio::task::spawn_blocking(move || {
            let mut page = Vec::new();
            let mut bytes = 0;
            for entry in journal.read_after(after).take(limit) {
                let entry = entry.map_err(|error| ApiError::internal(error.to_string()))?;
                if entry.record.sequence > durable || (bytes >= ENTRIES_PAGE_BYTES && !page.is_empty()) {
                    break;
                }
                // The stored bytes themselves: SHA-256(previous ‖ these) is the entry's hash.
                let record_json =
                    String::from_utf8(entry.json).map_err(|_| ApiError::internal("a journal record is not UTF-8"))?;
                bytes += record_json.len();
                page.push(pb::JournalEntry {
                    sequence: entry.record.sequence,
                    time_ms: entry.record.time_ms,
                    hash: hex::encode(entry.hash),
                    previous_hash: hex::encode(entry.previous),
                    record_json,
                });
            }
            Ok::<_, Status>(page)
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))??;
        Ok(Response::new(pb::JournalEntries { entries, durable_entries: durable }))
    }
}

/// The most journal entries one `Reports.Entries` page holds.
pub const ENTRIES_PAGE_MAX: u32 = 1000;

/// A page stops growing past this many bytes of records (the genesis entry alone is tens of KB).
const ENTRIES_PAGE_BYTES: usize = 1024 * 1024;

pub struct PoolsService {
    pub handle: Handle,
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn each_kind_of_refusal_becomes_its_own_status_code_with_its_message() {
        let refused = |kind| ApiError::Refused(Refusal { kind, message: "seat: 9 is not a seat of this table".into() });
        let cases = [
            (ApiError::invalid("payload: 5000 bytes, over 4096"), Code::InvalidArgument),
            (ApiError::unauthenticated("key_id: unknown key `nadie`"), Code::Unauthenticated),
            (ApiError::denied("key `mesa-B2` belongs to table B2"), Code::PermissionDenied),
            (ApiError::not_found("pool_id: no pool `x`"), Code::NotFound),
            (ApiError::Stopping(WriterError::Stopped), Code::Unavailable),
            (ApiError::internal("a table command answered as another kind"), Code::Internal),
            (refused(RefusalKind::InvalidArgument), Code::InvalidArgument),
            (refused(RefusalKind::FailedPrecondition), Code::FailedPrecondition),
            (refused(RefusalKind::NotFound), Code::NotFound),
            (refused(RefusalKind::AlreadyExists), Code::AlreadyExists),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            let status = Status::from(error);
            assert_eq!((status.code(), status.message()), (code, message.as_str()));
        }
        assert_eq!(Status::from(WriterError::Stopped).message(), "the controller is stopping");
    }
}
