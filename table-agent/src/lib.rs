//! The table agent: one process per table, under the table (12.3.3). It turns the
//! table's hardware events (seat buttons, slots, the dealer's touch screen) into
//! signed commands for the controller, and drives the seat lights and credit
//! displays from what the controller acknowledged: a light turns on only after the
//! bet is durably recorded (11.11.5). docs/agent.md documents the
//! line protocol and the panel output for hardware integrators.
//!
//! # Layout
//! - [`cli`]: the `pozo-agent` command line (the binary's `main` is one call to it).
//! - [`line`](mod@line): the hardware line protocol (`press 3`, `credits 2 5`, …).
//! - [`key`]: the table's key, from a keys file.
//! - [`monitor`]: `--monitor ADDR`, the table's touch page for the dealer: a view of the output
//!   lines and a keyboard for the line protocol, on the same path as the hardware's.
//! - `output`: the output lines (ack, refused, panel…) as serde types.
//! - `status`: `pozo-agent status`: reach the controller with the agent's address, TLS and key,
//!   read the table once, change nothing.
//! - [`agent`]: the runtime, one job per file under `agent/`:
//!   - `agent/mod.rs`: the entry: [`run`], [`AgentConfig`], [`ClientTls`], the transport
//!     check, the timings, and the state the parts share;
//!   - `agent/link.rs`: the link to the controller: the Watch stream supervisor, suspension,
//!     reconnection delays, resync;
//!   - `agent/submit.rs`: an input line as a signed, numbered command, submitted, retried
//!     and acknowledged;
//!   - `agent/wire.rs`: the command in flight on the wire: the table's `Table/Commands` stream
//!     ([`CommandStream`]), `Table/Submit` for a controller without it;
//!   - `agent/panel.rs`: what the agent prints: the panel (lights, credits, displays) from the
//!     newest view, in order, and its other output lines.

pub mod agent;
pub mod cli;
pub mod key;
pub mod line;
pub mod monitor;
mod output;
mod status;

pub use agent::{AgentConfig, ClientTls, CommandStream, run};

/// Default controller address, as `pozo-server` listens by default.
const SERVER_URL_DEFAULT: &str = "http://127.0.0.1:50051";
