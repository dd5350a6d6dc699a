//! The Pozo controller.
//!
//! # Layout
//! - [`award`]: the award calculator for disputes and audits (`pozo-server award`).
//! - [`rulebooks`]: loading the rulebooks the server runs: the embedded default, or
//!   the files an operator names.
//!
//! The rules themselves live in the pure engine crate, `pozo_engine`; the journal,
//! the gRPC services and the Venta-Pagos office join this crate with the controller.

pub mod award;
pub mod rulebooks;
