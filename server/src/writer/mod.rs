//! The one writer: a single task owns the state, takes commands in batches,
//! applies each, appends the batch to the journal, flushes once (group commit),
//! and only then answers every caller of the batch and publishes what changed.
//! The flush runs on a task of its own: while batch N is being made durable, the
//! requests that arrive are applied and wait as batch N+1, sealed the moment N is
//! durable, so applying and flushing overlap and answers still go out in order.
//!
//! Readers never queue here: after each durable batch the writer swaps in a new
//! [`ReadModel`] (and pushes the table views and the displays) before it answers, so no
//! reader ever sees a bet that is not yet on disk: a light turns on only for a durable
//! bet (11.11.5; docs/agent.md).

//!
//! # Layout
//! - `handle`: the [`Handle`] the rest of the server talks to the writer through, and the
//!   limits of its queue and batches.
//! - `keys`: journaling a changed key set.
//! - `open`: opening a journal (genesis, or recovery of an existing one), choosing sled or
//!   PostgreSQL, and assembling the writer and its handle.
//! - `batch`: the writer's loop: take requests, apply, seal a batch, flush, publish, answer.
//! - `amounts`: a pool's new amount written into the panels of its other tables with each
//!   batch, their watchers woken at most once every 50 ms.
//! - `standby`: a hot standby following the writer's journal through the store, and
//!   taking over when the writer's lock is let go.

mod amounts;
mod batch;
mod draws;
mod handle;
mod keys;
mod open;
mod standby;

pub(crate) use handle::FailStop;
pub use handle::{BATCH_MAX, Handle, SNAPSHOT_EVERY, Stopper, WriterError};
pub(crate) use open::CLOSED_FILE;
pub use open::{StoreChoice, genesis, open_from, start};
