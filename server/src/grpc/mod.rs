//! The gRPC room: thin handlers that authenticate, convert, hand the command to the
//! writer, and convert the answer back. docs/api.md lists every refusal.
//!
//! # Layout
//! - `error`: [`ApiError`] and its one mapping to a `tonic::Status`.
//! - `auth`: envelopes, keys and roles.
//! - `wire`: the conversions between the protobuf messages and the pure core's types.
//! - `stream`: the push streams.
//! - one file per service: `table`, `display`, `venta_pagos`, `controller`, `reports`, `pools`.

mod auth;
mod controller;
mod display;
mod error;
mod pools;
mod reports;
mod stream;
mod table;
mod venta_pagos;
mod wire;

pub use auth::PAYLOAD_BYTES_MAX;
pub use controller::ControllerService;
pub use display::DisplayService;
pub use error::ApiError;
pub use pools::PoolsService;
pub use reports::{ENTRIES_PAGE_MAX, ReportsService};
pub use table::TableService;
pub use venta_pagos::VentaPagosService;
pub use wire::{payload_sha256, table_op};
