//! The gRPC room: thin handlers that authenticate, convert, hand the command to the
//! writer, and convert the answer back. docs/api.md lists every refusal.
//!
//! # Layout
//! - `error`: `ApiError` and its one mapping to a `tonic::Status`.
//! - `auth`: envelopes, keys and roles.
//! - `wire`: the conversions between the protobuf messages and the pure core's types.
//! - `stream`: the push streams.
//! - one file per service: `table`, `display`, `venta_pagos`, `controller`, `reports`, `pools`, `changes`,
//!   `tournaments`.

mod auth;
mod changes;
mod controller;
mod display;
mod error;
mod pools;
mod reports;
mod stream;
mod table;
mod tournaments;
mod venta_pagos;
mod wire;

pub(crate) use changes::ChangesService;
pub(crate) use controller::ControllerService;
pub(crate) use display::DisplayService;
pub(crate) use pools::PoolsService;
pub(crate) use reports::ReportsService;
pub(crate) use table::TableService;
pub(crate) use tournaments::TournamentsService;
pub(crate) use venta_pagos::VentaPagosService;
pub(crate) use wire::{payload_sha256, table_op};
// The tournament's pages (web/torneos/) go through the same door as the Tournaments service.
pub(crate) use error::ApiError;
pub(crate) use tournaments::{
    op_of as tournament_op, payment as tournament_payment, standing as tournament_standing, submit as submit_tournament,
    tie as tournament_tie,
};
