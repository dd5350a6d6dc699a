//! The gRPC room: thin handlers that authenticate, convert, hand the command to the
//! writer, and convert the answer back. docs/api.md lists every refusal.
//!
//! # Layout
//! - `error`: [`ApiError`] and its one mapping to a `tonic::Status`.
//! - `auth`: envelopes, keys and roles.
//! - `wire`: the conversions between the protobuf messages and the pure core's types.
//! - one file per service: `table`, `display`, `venta_pagos`, `controller`, `reports`, `pools`.

mod auth;
mod controller;
mod display;
mod error;
mod pools;
mod reports;
mod table;
mod venta_pagos;
mod wire;

use wire::{amount, custody_item, display_update, hit, order_facts, submit_reply};
pub use wire::{payout_order, table_op, table_view};

use std::pin::Pin;

use pozo_proto::v1 as pb;
use prost::Message;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tracing::instrument;

use crate::cards::CardSource;
use crate::config::{Key, Role};
use crate::net::{bounded_text, display_open};
use crate::writer::{Handle, WriterError};
use auth::{DISPLAY_READERS, POOL_READERS, REPORT_READERS, authenticate, authorize_read, require_table_key};
pub use controller::ControllerService;
pub use display::DisplayService;
pub use error::ApiError;
pub use pools::PoolsService;
use pozo_core::state::{Applied, Command, OfficeCommand, OfficeOp, OrderStatus, Refusal, RefusalKind, TableCommand, TableOp};
use pozo_proto::Purpose;
pub use reports::{ENTRIES_PAGE_MAX, ReportsService};
pub use table::TableService;
use table::until_stopped;
pub use venta_pagos::VentaPagosService;

/// The largest envelope payload accepted: a command is a few dozen bytes.
pub const PAYLOAD_BYTES_MAX: usize = 4 * 1024;

/// The longest premio code or card rank accepted.
pub(super) const TEXT_MAX: usize = 64;

/// What a table command's journal entry keeps of its signed payload: SHA-256, hex. It
/// tells a retry (same bytes) from a reuse of the sequence (other bytes).
pub fn payload_sha256(payload: &[u8]) -> String {
    hex::encode(Sha256::digest(payload))
}

pub(super) type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

// ----------------------------------------------------------------------------- Table
