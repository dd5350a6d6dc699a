//! The Pozo test kit: what the integration tests of every crate share.
//!
//! # Layout
//! - [`process`]: `pozo-server serve` as a child process (spawned, signalled, killed with
//!   SIGKILL), for the tests that need the real binary: the server's crash and damage
//!   tests, the browser suite, and the agent tests here.
//! - [`postgres`]: a throw-away PostgreSQL cluster for the PostgreSQL suite.
//! - `src/bin/`: the controller's and the agent's command lines built into this package,
//!   so that its own tests (`tests/agents.rs`, `tests/agent_tls.rs`: the agent against a
//!   controller it can kill) reach both binaries through `CARGO_BIN_EXE_*`.

pub mod postgres;
pub mod process;
