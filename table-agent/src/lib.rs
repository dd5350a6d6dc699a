//! The table agent: one process per table, under the table (12.3.3). It turns the
//! table's hardware events (seat buttons, slots, the dealer's touch screen) into
//! signed commands for the controller, and drives the seat lights and credit
//! displays from what the controller acknowledged: a light turns on only after the
//! bet is durably recorded (11.11.5; DOMAIN.md §5).
//!
//! The table protocol it speaks, `pozo.v1`, is generated in the `pozo-proto` crate.
//! The agent itself is built with the table protocol (issues 3 and 4); this crate
//! holds its command line today.

/// Default controller address, as `pozo-server` listens by default.
pub const SERVER_URL_DEFAULT: &str = "http://127.0.0.1:50051";
